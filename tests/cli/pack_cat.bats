#!/usr/bin/env bats
# simtrace-pack and simtrace-cat (issue 3): multi-stream round trips, ranges
# by entry, cycle and time against slices cut from the raw input, --concat,
# --append, --verify, --salvage, --list, stream selection and usage errors.
#
# Inputs are the real traces in testdata/good (300,000 d64 entries each),
# cut to NE entries, packed with FS entries per frame (six frames a stream)
# or 4096 (dozens of frames) so that ranges cross many frame boundaries.
# Every range is checked twice: from a regular file (random access through
# the directory) and from a pipe (the sequential reader).

load helpers

# Under sanitizers every run costs several times more: fewer entries (the
# frame structure stays the same: FS is NE/6).  The cc1 reads hold runs of
# equal cycles from entry ~100,700 on: with fewer entries their cut starts
# later so that it still holds some.
NE=300000
CC1_SKIP=0
if [[ $SANITIZED == 1 ]]; then
    NE=60000
    CC1_SKIP=60000
fi
FS=$((NE / 6))

# Containers and raw inputs shared by all tests of the file, made once.
# Exports SMALL: the frame size of small.sim, 4096 or a little more, chosen
# so that a frame boundary EQ_AT (an entry index) splits a run of equal
# cycles (two equal entries either side); EQ_AT is empty if none was found.
setup_file() {
    local D="$BATS_FILE_TMPDIR" n f skip
    for n in lackey_xz_read:xzr lackey_sort_write:sortw lackey_cc1_read:cc1r; do
        f="$ROOT/testdata/good/${n%%:*}.d64.xz"
        [[ -f $f ]] || { echo "missing $f (real test data)" >&2; return 1; }
        skip=0
        [[ $n == *cc1r ]] && skip=$CC1_SKIP
        xz -dc -- "$f" | tail -c +$((skip * 32 + 1)) | head -c $((NE * 32)) >"$D/${n#*:}.d64"
        [[ $(stat -c %s "$D/${n#*:}.d64") -eq $((NE * 32)) ]] || { echo "short $f" >&2; return 1; }
    done
    local found
    found=$(perl -e '
        use strict; use warnings;
        open(my $fh, "<:raw", $ARGV[0]) or die; local $/; my $b = <$fh>;
        my $n = length($b) / 32;
        my @c = map { unpack("Q<", substr($b, 32 * $_, 8)) & ((1 << 48) - 1) } 0 .. $n - 1;
        for my $fs (4096 .. 8191) {
            for (my $k = $fs; $k + 1 < $n; $k += $fs) {
                if ($c[$k - 2] == $c[$k + 1] && $k >= 2) { print "$fs $k\n"; exit 0; }
            }
        }
        print "4096\n";
    ' "$D/cc1r.d64")
    read -r SMALL EQ_AT <<<"$found"
    export SMALL EQ_AT
    # two.sim: streams r (xz reads) and w (sort writes), FS entries a frame
    "$SVPC_BIN/simtrace-pack" --frame-size "$FS" --stream r "$D/xzr.d64" --stream w "$D/sortw.d64" \
        -o "$D/two.sim" || return 1
    # small.sim: one stream "trace" of cc1 reads in frames of SMALL entries
    "$SVPC_BIN/simtrace-pack" --frame-size "$SMALL" "$D/cc1r.d64" -o "$D/small.sim" || return 1
    # ts.sim: frame times recorded
    "$SVPC_BIN/simtrace-pack" --timestamps --frame-size "$FS" "$D/xzr.d64" -o "$D/ts.sim" || return 1
}

setup() {
    common_setup
    D="$BATS_FILE_TMPDIR"
}

# catp CONTAINER ARGS...: simtrace-cat ARGS reading CONTAINER from a pipe
# (the sequential path); the status is simtrace-cat's.
catp() {
    local f=$1
    shift
    cat -- "$f" 2>/dev/null | "$SIMTRACE_CAT" "$@"
}

# ok_to OUT CMD...: run CMD with stdout to OUT; it must exit 0 and say nothing.
ok_to() {
    run to "$@"
    expect_status 0
    [[ -z $output ]] || fail "expected no message from ${*:2}, got: $output"
}

# cat_both CONTAINER EXPECTED ARGS...: simtrace-cat ARGS CONTAINER, from the
# file and from a pipe, both silent with exit 0 and output equal to EXPECTED.
cat_both() {
    local c=$1 want=$2
    shift 2
    ok_to got.f "$SIMTRACE_CAT" "$@" "$c"
    cmp -- got.f "$want" || fail "simtrace-cat $* $c (file) differs from the reference"
    ok_to got.p catp "$c" "$@"
    cmp -- got.p "$want" || fail "simtrace-cat $* < $c (pipe) differs from the reference"
}

# list_row NAME: the --list line of stream NAME in $output, split into the
# array ROW (name type entries frames raw stored ratio first last).
list_row() {
    local l
    l="$(printf '%s\n' "$output" | awk -v n="$1" '$1 == n')"
    [[ -n $l ]] || fail "no --list line for stream '$1' in: $output"
    read -r -a ROW <<<"$l"
}

# expect_row NAME TYPE ENTRIES FRAMES RAWBYTES FIRST LAST: the --list line of
# NAME (see list_row) has these fields.
expect_row() {
    list_row "$1"
    local want="$1 $2 $3 $4 $5 $6 $7"
    local got="${ROW[0]} ${ROW[1]} ${ROW[2]} ${ROW[3]} ${ROW[4]} ${ROW[7]} ${ROW[8]}"
    [[ $got == "$want" ]] || fail "--list of '$1': want '$want', got '$got'"
}

# ---- round trips ---------------------------------------------------------------

@test "two streams from files round-trip byte-exact, from a file and a pipe" {
    cat_both "$D/two.sim" "$D/xzr.d64" -s r
    cat_both "$D/two.sim" "$D/sortw.d64" -s w
}

@test "three streams through pipes in and out; inputs naming the same stream are appended to it" {
    cat "$D/xzr.d64" "$D/cc1r.d64" >a.want
    # pipe in, pipe out in one line: stdin is stream a, then b, c, and a
    # again; tee keeps the container for the checks below
    run to a.got bash -c 'set -o pipefail; cat -- "$1" |
        "$2" --allow-cycle-reset --frame-size '"$FS"' --stream a - --stream b "$3" --stream c "$4" --stream a "$4" |
        tee c.sim | "$5" -s a' _ "$D/xzr.d64" "$SIMTRACE_PACK" "$D/sortw.d64" "$D/cc1r.d64" "$SIMTRACE_CAT"
    expect_status 0
    [[ -z $output ]] || fail "pack or cat said: $output"
    same a.got a.want
    cat_both c.sim "$D/sortw.d64" -s b
    cat_both c.sim "$D/cc1r.d64" -s c
    run "$SIMTRACE_CAT" -l c.sim
    expect_status 0
    expect_row a d64 $((2 * NE)) 12 $((2 * NE * 32)) "$(cycle_of "$D/xzr.d64" 32 0)" "$(cycle_of "$D/cc1r.d64" 32 $((NE - 1)))"
    expect_row c d64 "$NE" 6 $((NE * 32)) "$(cycle_of "$D/cc1r.d64" 32 0)" "$(cycle_of "$D/cc1r.d64" 32 $((NE - 1)))"
}

@test "d32, m64 and m32 round-trip through pipes and files; --list shows their types" {
    local t n=20000
    slice_entries "$D/xzr.d64" 32 0 "$n" >src.d64
    for t in d32 m64 m32; do
        convert_d64 "$t" <src.d64 >"in.$t"
        run to "$t.sim" bash -c 'cat -- "$1" | "$2" --frame-size 4096 --type "$3" --stream "$3"' \
            _ "in.$t" "$SIMTRACE_PACK" "$t"
        expect_status 0
        cat_both "$t.sim" "in.$t"
        run "$SIMTRACE_CAT" -l "$t.sim"
        expect_status 0
        set -- $(cycle_stats "${ESIZE[$t]}" <"in.$t")
        expect_row "$t" "$t" "$n" 5 $((n * ESIZE[$t])) "$2" "$3"
    done
}

@test "user type rec:12 and bytes round-trip next to a d64 stream; --list names them" {
    rand_bytes 120000 rec.bin # 10000 records of 12 bytes
    rand_bytes 100001 raw.bin # an odd size: bytes has no partial entry
    ok_to u.sim "$SIMTRACE_PACK" --frame-size 4096 --type rec:12 --stream recs rec.bin \
        --type bytes --stream raw - --type d64 --stream t "$D/xzr.d64" <raw.bin
    cat_both u.sim rec.bin -s recs
    cat_both u.sim raw.bin -s raw
    cat_both u.sim "$D/xzr.d64" -s t
    run "$SIMTRACE_CAT" -l u.sim
    expect_status 0
    expect_row recs rec 10000 3 120000 - -
    expect_row raw bytes 100001 25 100001 - -
    # a user type is the same type wherever it is packed: packed alone and
    # concatenated, the records join
    ok_to r2.sim "$SIMTRACE_PACK" --frame-size 4096 --type rec:12 --stream recs rec.bin
    ok_to j.sim "$SIMTRACE_PACK" --concat u.sim r2.sim
    cat rec.bin rec.bin >rec2.bin
    cat_both j.sim rec2.bin -s recs
}

@test "a user type may not take a built-in type's name (exit 2, nothing written)" {
    rand_bytes 3200 rec.bin
    local t
    for t in d64:32 d32:20 m64:24 m32:16 vpc:12 event:24 bytes:1 vblock:32 user:8; do
        run "$SIMTRACE_PACK" --type "$t" -o u.sim rec.bin
        expect_status 2 || fail "--type $t"
        expect_prefix simtrace-pack
        expect_output_has "--type $t: '${t%%:*}' is the name of a built-in entry type"
        [[ ! -e u.sim ]] || fail "--type $t wrote u.sim"
    done
    # nor onto an existing container
    ok_to x.sim "$SIMTRACE_PACK" --type rec:32 --stream t rec.bin
    cp x.sim x.orig
    run "$SIMTRACE_PACK" --append x.sim --type d64:32 --stream t rec.bin
    expect_status 2
    same x.sim x.orig
}

@test "-T1 and -T2 write byte-identical containers" {
    ok_to t1.sim "$SIMTRACE_PACK" -T1 --frame-size "$SMALL" --stream r "$D/xzr.d64" --stream w "$D/sortw.d64"
    ok_to t2.sim "$SIMTRACE_PACK" -T2 --frame-size "$SMALL" --stream r "$D/xzr.d64" --stream w "$D/sortw.d64"
    same t1.sim t2.sim
    ok_to c1.sim "$SIMTRACE_PACK" -T1 --allow-cycle-reset --concat t1.sim "$D/two.sim"
    ok_to c2.sim "$SIMTRACE_PACK" -T2 --allow-cycle-reset --concat t1.sim "$D/two.sim"
    same c1.sim c2.sim
}

# ---- ranges by entry -----------------------------------------------------------------

# entry_ranges FS N: A:B specs around the frame boundaries FS and 2*FS and
# the last boundary, the first and last entries, open ends.  Under
# sanitizers every other one (both kinds of each case remain).
entry_ranges() {
    local fs=$1 n=$2 last=$(((n - 1) / fs * fs)) i=0 r
    for r in 0:1 $((n - 1)): 0: \
        $fs:$((2 * fs)) $((fs - 1)):$((fs + 1)) $((fs + 1)):$((2 * fs - 1)) $((fs - 1)):$((2 * fs + 1)) \
        $fs: :$fs $((fs + 1)): :$((fs - 1)) $((fs - 1)): :$((fs + 1)) $fs:$((fs + 1)) $((fs - 1)):$fs \
        $last: $((last - 1)): :$last $((n / 5)):$((n - n / 7)); do
        [[ $SANITIZED == 1 && $((i++ % 2)) -eq 1 ]] && continue
        echo "$r"
    done
}

# check_entry_ranges CONTAINER RAW ESZ FS N ARGS...: every entry_ranges spec
# from the file and a pipe equals the dd slice of RAW.
check_entry_ranges() {
    local c=$1 raw=$2 esz=$3 fs=$4 n=$5 r
    shift 5
    for r in $(entry_ranges "$fs" "$n"); do
        # an empty A is 0 in the arithmetic of slice_entries; an empty B is the end
        slice_entries "$raw" "$esz" "${r%%:*}" "${r#*:}" >want
        cat_both "$c" want "$@" --entries "$r" || fail "--entries $r"
    done
}

@test "--entries: ranges at and around frame boundaries equal dd slices (4096-entry frames)" {
    check_entry_ranges "$D/small.sim" "$D/cc1r.d64" 32 "$SMALL" "$NE"
}

@test "--entries: ranges of the second of two streams equal dd slices (FS-entry frames)" {
    local r a b
    for r in "$FS:$((2 * FS))" "$((FS - 1)):$((3 * FS + 1))" "$((5 * FS)):" "$((FS + 1)):$((FS + 2))"; do
        a=${r%%:*} b=${r#*:}
        slice_entries "$D/sortw.d64" 32 "$a" "$b" >want
        cat_both "$D/two.sim" want -s w --entries "$r" || fail "--entries $r"
    done
}

@test "--entries: an empty range gives no output and exit 0" {
    local r
    for r in 5:5 0:0 "$NE:$NE" "$NE:" :0; do
        run to e.f "$SIMTRACE_CAT" --entries "$r" "$D/small.sim"
        expect_status 0
        [[ ! -s e.f && -z $output ]] || fail "--entries $r (file): $(size e.f) bytes, '$output'"
        run to e.p catp "$D/small.sim" --entries "$r"
        expect_status 0
        [[ ! -s e.p && -z $output ]] || fail "--entries $r (pipe): $(size e.p) bytes, '$output'"
    done
}

@test "--entries past the end: what exists is written, exit 0, and a note says how much was missing" {
    local r lo hi
    for r in "0:$((NE + 1))" "$((NE - 3)):$((NE + 7))" "$((NE + 100000)):" "$((NE + 1)):$((NE + 2))" "$NE:"; do
        lo=${r%%:*} hi=${r#*:}
        hi=${hi:-$NE}
        ((lo < NE)) || lo=$NE
        ((hi < NE)) || hi=$NE
        slice_entries "$D/sortw.d64" 32 "$lo" "$hi" >want
        for how in file pipe; do
            if [[ $how == file ]]; then
                run "$SIMTRACE_CAT" -s w --entries "$r" -o out "$D/two.sim"
            else
                run catp "$D/two.sim" -s w --entries "$r" -o out
            fi
            expect_status 0
            same out want
            rm -f out
            if [[ $r == "$NE:" ]]; then
                [[ -z $output ]] || fail "$r ($how): $output"
            elif [[ $r == *: ]]; then
                expect_output_has "--entries $r starts past the end of stream 'w' ($NE entries): nothing written"
            elif ((${r%%:*} >= NE)); then
                expect_output_has "--entries $r starts past the end of stream 'w' ($NE entries): nothing written"
            else
                expect_output_has "--entries $r runs past the end of stream 'w' ($NE entries): the $((${r#*:} - NE)) entries from $NE on do not exist and were not written"
            fi
            run "$SIMTRACE_CAT" -q -s w --entries "$r" -o out "$D/two.sim"
            expect_status 0
            [[ -z $output ]] || fail "-q: $output"
            rm -f out
        done
    done
}

@test "--entries takes the k, M and G suffixes of --frame-size" {
    slice_entries "$D/cc1r.d64" 32 1024 3072 >want
    cat_both "$D/small.sim" want --entries 1k:3k
    run "$SIMTRACE_CAT" --entries 1M: -o out "$D/small.sim"
    expect_status 0
    expect_output_has "starts past the end"
    run "$SIMTRACE_CAT" --entries 1x: "$D/small.sim"
    expect_status 2
    expect_output_has "invalid range '1x:'"
}

@test "--entries and --cycles numbers: decimal (a leading 0 is not octal) or hexadecimal with 0x" {
    slice_entries "$D/cc1r.d64" 32 10 20 >want
    cat_both "$D/small.sim" want --entries 010:020
    slice_entries "$D/cc1r.d64" 32 8 9 >want
    cat_both "$D/small.sim" want --entries 08:09
    slice_entries "$D/cc1r.d64" 32 16 4096 >want
    cat_both "$D/small.sim" want --entries 0x10:0X1000
    local c0 c1
    c0=$(cycle_of "$D/cc1r.d64" 32 1000)
    c1=$(cycle_of "$D/cc1r.d64" 32 9000)
    cycle_slices 32 "$D/cc1r.d64" cs "$c0:$c1"
    cat_both "$D/small.sim" cs.0 --cycles "$(printf '0x%x:0x%X' "$c0" "$c1")"
    cat_both "$D/small.sim" cs.0 --cycles "00$c0:0$c1"
}

@test "bad range syntax and conflicting options: exit 2" {
    local a
    for a in "--entries=5" "--entries=5:3" "--entries=x:y" "--entries=-1:2" "--entries=1::2" \
        "--entries=0x:5" "--entries=0x-1:5" "--entries=0x+1:5" "--entries=1e3:" "--entries=0b1:" \
        "--cycles=10:9" "--cycles=abc:" "--time=1h:" "--time=5s:1s"; do
        run "$SIMTRACE_CAT" "$a" "$D/small.sim"
        expect_status 2
        expect_prefix simtrace-cat
        expect_output_has "invalid range"
    done
    run "$SIMTRACE_CAT" --entries 1:2 --cycles 1:2 "$D/small.sim"
    expect_status 2
    expect_prefix simtrace-cat
    run "$SIMTRACE_CAT" --list --entries 1:2 "$D/small.sim"
    expect_status 2
    expect_prefix simtrace-cat
}

# ---- ranges by cycle -------------------------------------------------------------

@test "the lackey inputs have non-decreasing cycles; cc1 has runs of equal cycles" {
    local f
    for f in xzr sortw cc1r; do
        set -- $(cycle_stats 32 <"$D/$f.d64")
        [[ $1 -eq $NE && $4 -eq 0 ]] || fail "$f: $1 entries, $4 decreases"
    done
    set -- $(cycle_stats 32 <"$D/cc1r.d64")
    (($5 > 0)) || fail "cc1r has no equal neighbouring cycles"
}

@test "--cycles: ranges at frame boundaries, in equal-cycle runs and open-ended equal a filter of the input" {
    local raw="$D/cc1r.d64" i
    local c0 c1 cl cb cb1 cb2
    c0=$(cycle_of "$raw" 32 0)
    cl=$(cycle_of "$raw" 32 $((NE - 1)))
    cb=$(cycle_of "$raw" 32 "$SMALL")         # first entry of frame 1
    cb1=$(cycle_of "$raw" 32 $((SMALL - 1)))  # last entry of frame 0
    cb2=$(cycle_of "$raw" 32 $((3 * SMALL)))  # first entry of frame 3
    c1=$(cycle_of "$raw" 32 $((NE / 2)))
    local -a ranges=("0:" ":$((c0 + 1))" "$cb:$cb2" "$cb1:$cb" "$cb1:$((cb + 1))" "$((cb + 1)):$((cb2 - 1))"
        "$cb2:" ":$cb2" "$c1:$((c1 + 1))" "$cl:")
    if [[ -n $EQ_AT ]]; then
        # a run of equal cycles across the frame boundary at EQ_AT: all of
        # it, starting in the first frame that holds it
        local ce
        ce=$(cycle_of "$raw" 32 "$EQ_AT")
        ranges+=("$ce:$((ce + 1))" ":$((ce + 1))" "$((ce - 1)):$((ce + 1))")
    else
        fail "no run of equal cycles spans a frame boundary of cc1r for frame sizes 4096..8191"
    fi
    cycle_slices 32 "$raw" want "${ranges[@]}"
    for i in "${!ranges[@]}"; do
        # under sanitizers every third case and the equal-cycle ones
        [[ $SANITIZED == 1 && $((i % 3)) -ne 0 && $i -lt 10 ]] && continue
        cat_both "$D/small.sim" "want.$i" --cycles "${ranges[i]}" || fail "--cycles ${ranges[i]}"
    done
}

@test "--cycles on the second of two streams (FS-entry frames)" {
    local raw="$D/sortw.d64" a b
    a=$(cycle_of "$raw" 32 $((FS - 1)))
    b=$(cycle_of "$raw" 32 $((3 * FS + 1)))
    cycle_slices 32 "$raw" want "$a:$b"
    cat_both "$D/two.sim" want.0 -s w --cycles "$a:$b"
}

@test "--cycles past the last cycle: empty output, exit 0, a note naming the stream and its last cycle, file and pipe" {
    local cl
    cl=$(cycle_of "$D/cc1r.d64" 32 $((NE - 1)))
    run "$SIMTRACE_CAT" --cycles "$((cl + 1)):" -o out "$D/small.sim"
    expect_status 0
    expect_output_has "--cycles $((cl + 1)): starts after the last cycle of stream 'trace' ($cl): nothing written"
    [[ -e out && ! -s out ]] || fail "want an empty output file"
    rm -f out
    run catp "$D/small.sim" --cycles "$((cl + 1)):$((cl + 5))" -o out
    expect_status 0
    expect_output_has "--cycles $((cl + 1)):$((cl + 5)) starts after the last cycle of stream 'trace' ($cl): nothing written"
    [[ -e out && ! -s out ]] || fail "want an empty output file (pipe)"
    # a window that reaches past the end writes what it holds, quietly
    slice_entries "$D/cc1r.d64" 32 $((NE - 1)) $NE >want
    cat_both "$D/small.sim" want --cycles "$cl:$((cl + 100))"
}

@test "--cycles on a stream without cycles: exit 2 with a clear message" {
    rand_bytes 1000 raw.bin
    ok_to b.sim "$SIMTRACE_PACK" --type bytes raw.bin
    run "$SIMTRACE_CAT" --cycles 0: b.sim
    expect_status 2
    expect_prefix simtrace-cat
    expect_output_has "has no cycles"
}

# ---- ranges by time --------------------------------------------------------------------

@test "--time on a container packed with --timestamps: everything, and frames selected by their times" {
    cp "$D/ts.sim" ts.sim
    cat_both ts.sim "$D/xzr.d64" --time 0:
    cat_both ts.sim "$D/xzr.d64" --time 0s:
    # a window from the first time of the 2nd data frame to the first time of
    # the 5th: the frames written in it (last_time >= T1, first_time < T2),
    # as read from the frame headers
    local -a fr
    mapfile -t fr < <(frame_table ts.sim | awk '$4 == 1')
    local t1 t2 a=-1 b=0 line
    ((${#fr[@]} == 6)) || fail "want 6 data frames, got ${#fr[@]}"
    t1=$(echo "${fr[1]}" | cut -d' ' -f8)
    t2=$(echo "${fr[4]}" | cut -d' ' -f8)
    for line in "${fr[@]}"; do
        set -- $line
        if (($9 >= t1 && $8 < t2)); then
            ((a >= 0)) || a=$6
            b=$(($6 + $7))
        fi
    done
    ((a >= 0 && b > a)) || fail "no frame in [$t1, $t2)"
    slice_entries "$D/xzr.d64" 32 "$a" "$b" >want
    cat_both ts.sim want --time "$t1:$t2"
}

@test "--time past the last frame: empty output, exit 0 and a note, file and pipe" {
    cp "$D/ts.sim" ts.sim
    run "$SIMTRACE_CAT" --time 9999999999s: -o out ts.sim
    expect_status 0
    expect_output_has "--time 9999999999s: starts after the last frame time of stream 'trace'"
    [[ -e out && ! -s out ]] || fail "want an empty output file"
    rm -f out
    run catp ts.sim --time 9999999999s: -o out
    expect_status 0
    expect_output_has "--time 9999999999s: starts after the last frame time of stream 'trace'"
    [[ -e out && ! -s out ]] || fail "want an empty output file (pipe)"
}

@test "--time on a container without timestamps fails with a clear message (file)" {
    run "$SIMTRACE_CAT" --time 0: -o out "$D/small.sim"
    expect_status 2
    expect_prefix simtrace-cat
    expect_output_has "--timestamps"
    [[ ! -e out ]] || fail "output file left behind"
}

@test "--time on a container without timestamps fails from a pipe too" {
    run catp "$D/small.sim" --time 0: -o out
    expect_status 2
    expect_prefix simtrace-cat
    expect_output_has "--timestamps"
}

# ---- --concat and --append ---------------------------------------------------------

@test "--concat joins streams of the same name and keeps others apart, to a file and a pipe" {
    slice_entries "$D/cc1r.d64" 32 0 20000 >o.d64
    ok_to e.sim "$SIMTRACE_PACK" --frame-size "$FS" --stream r "$D/cc1r.d64" --stream other o.d64
    run "$SIMTRACE_PACK" --allow-cycle-reset --concat "$D/two.sim" e.sim -o j.sim
    expect_status 0
    [[ -z $output ]] || fail "concat said: $output"
    cat "$D/xzr.d64" "$D/cc1r.d64" >r.want
    cat_both j.sim r.want -s r
    ok_to w.got "$SIMTRACE_CAT" -s w j.sim
    same w.got "$D/sortw.d64"
    cat_both j.sim o.d64 -s other
    run "$SIMTRACE_CAT" -l j.sim
    expect_status 0
    expect_row r d64 $((2 * NE)) 12 $((2 * NE * 32)) "$(cycle_of "$D/xzr.d64" 32 0)" \
        "$(cycle_of "$D/cc1r.d64" 32 $((NE - 1)))"
    expect_row other d64 20000 $(((20000 + FS - 1) / FS)) $((20000 * 32)) "$(cycle_of o.d64 32 0)" \
        "$(cycle_of o.d64 32 19999)"
    # to a pipe, straight into simtrace-cat
    run to r.got bash -c '"$1" --allow-cycle-reset --concat "$2" "$3" | "$4" -s r' _ "$SIMTRACE_PACK" "$D/two.sim" e.sim "$SIMTRACE_CAT"
    expect_status 0
    same r.got r.want
    # ranges run across the seam of the two inputs
    slice_entries r.want 32 $((NE - 5)) $((NE + 5)) >seam.want
    cat_both j.sim seam.want -s r --entries $((NE - 5)):$((NE + 5))
}

@test "--append adds a new stream and continues an existing one in place" {
    cp "$D/two.sim" g.sim
    run "$SIMTRACE_PACK" --allow-cycle-reset --frame-size "$FS" --append g.sim --stream r "$D/cc1r.d64" --stream new "$D/sortw.d64"
    expect_status 0
    [[ -z $output ]] || fail "append said: $output"
    cat "$D/xzr.d64" "$D/cc1r.d64" >r.want
    cat_both g.sim r.want -s r
    cat_both g.sim "$D/sortw.d64" -s w
    cat_both g.sim "$D/sortw.d64" -s new
    run "$SIMTRACE_CAT" -t g.sim
    expect_status 0
    run "$SIMTRACE_CAT" -l g.sim
    expect_status 0
    expect_row r d64 $((2 * NE)) 12 $((2 * NE * 32)) "$(cycle_of "$D/xzr.d64" 32 0)" \
        "$(cycle_of "$D/cc1r.d64" 32 $((NE - 1)))"
    expect_row new d64 "$NE" 6 $((NE * 32)) "$(cycle_of "$D/sortw.d64" 32 0)" \
        "$(cycle_of "$D/sortw.d64" 32 $((NE - 1)))"
    # an entry range across the old end of r: the old and the appended frames
    slice_entries r.want 32 $((NE - 3)) $((NE + 3)) >seam.want
    cat_both g.sim seam.want -s r --entries $((NE - 3)):$((NE + 3))
}

@test "--append of another entry type to an existing stream: exit 1, the container stays valid" {
    cp "$D/two.sim" h.sim
    slice_entries "$D/xzr.d64" 32 0 100 | convert_d64 m32 >in.m32
    run "$SIMTRACE_PACK" --append h.sim --type m32 --stream r in.m32
    expect_status 1
    expect_prefix simtrace-pack
    expect_output_has "'r'"
    run "$SIMTRACE_CAT" -t h.sim
    expect_status 0
    cat_both h.sim "$D/xzr.d64" -s r
}

@test "--append -e onto a stream of another encoder: the stream keeps its encoder, with a note once per stream (-q: none)" {
    slice_entries "$D/xzr.d64" 32 0 1000 >s.d64
    # a stream of cm, which is not the default (cmx): what -e asks for
    # now is neither its encoder nor the default
    ok_to x.sim "$SIMTRACE_PACK" -e cm s.d64
    run "$SIMTRACE_PACK" --allow-cycle-reset --append x.sim -e cm1 s.d64 s.d64 --stream new s.d64
    expect_status 0
    expect_prefix simtrace-pack
    expect_output_has "x.sim: stream 'trace' is encoded with cm: the entries appended to it use cm too, not -e cm1"
    (($(grep -c "is encoded with" <<<"$output") == 1)) || fail "want one note: $output"
    run "$SIMTRACE_PACK" -q --allow-cycle-reset --append x.sim -e cm1 s.d64
    expect_status 0
    [[ -z $output ]] || fail "-q said: $output"
    # -e that cannot code the type does not apply to it: nothing to say
    run "$SIMTRACE_PACK" --allow-cycle-reset --append x.sim -e vpc s.d64
    expect_status 0
    [[ -z $output ]] || fail "-e vpc said: $output"
    cat s.d64 s.d64 s.d64 s.d64 s.d64 >want
    ok_to got "$SIMTRACE_CAT" x.sim
    same got want
    ok_to got "$SIMTRACE_CAT" -s new x.sim
    same got s.d64
    # streams an importer adds to are treated alike
    ok_to l.sim "$SIMTRACE_PACK" --from lackey "$ROOT/testdata/good/sample.lackey"
    run "$SIMTRACE_PACK" --allow-cycle-reset --append l.sim -e generic --from lackey "$ROOT/testdata/good/sample.lackey"
    expect_status 0
    expect_output_has "stream 'read' is encoded with cmx: the entries appended to it use cmx too, not -e generic"
    run "$SIMTRACE_CAT" -t l.sim
    expect_status 0
}

@test "--append to a cut-off container: a note, then its complete frames are kept and the new ones follow" {
    local cut=$(($(size "$D/two.sim") - 500))
    cut_to "$D/two.sim" "$cut" cut.sim
    "$SIMTRACE_CAT" -q --salvage -s r cut.sim >before || true
    run "$SIMTRACE_PACK" --append cut.sim --stream new "$D/cc1r.d64"
    expect_status 0
    expect_prefix simtrace-pack
    expect_output_has "cut.sim: no valid directory and footer"
    run "$SIMTRACE_CAT" -t cut.sim
    expect_status 0
    run to got "$SIMTRACE_CAT" -s new cut.sim
    same got "$D/cc1r.d64"
    run to old "$SIMTRACE_CAT" -s r cut.sim
    same old before
}

@test "an input that is the output is refused (exit 2) and the file is left alone" {
    cp "$D/two.sim" x.sim
    cp x.sim x.orig
    run "$SIMTRACE_PACK" -f -o x.sim x.sim
    expect_status 2
    expect_prefix simtrace-pack
    expect_output_has "input is the output"
    run "$SIMTRACE_PACK" -f --concat x.sim -o x.sim
    expect_status 2
    expect_prefix simtrace-pack
    run "$SIMTRACE_PACK" --append x.sim x.sim
    expect_status 2
    expect_prefix simtrace-pack
    same x.sim x.orig
}

@test "standard input or a symlink that is the output: refused (exit 2), the file left alone" {
    cp "$D/two.sim" x.sim
    cp x.sim x.orig
    ln -s x.sim link.sim
    run "$SIMTRACE_PACK" -f -o x.sim <x.sim
    expect_status 2
    expect_prefix simtrace-pack
    expect_output_has "(stdin): input is the output file x.sim"
    run "$SIMTRACE_PACK" -f -o x.sim - <x.sim
    expect_status 2
    run "$SIMTRACE_PACK" -f --concat -o x.sim link.sim
    expect_status 2
    expect_output_has "link.sim: input is the output file x.sim"
    # standard output appending to an input would read its own output
    run bash -c '"$1" "$2" >>x.sim' _ "$SIMTRACE_PACK" x.sim
    expect_status 2
    expect_output_has "x.sim: input is the output file (stdout)"
    same x.sim x.orig
    # character devices hold nothing to lose
    run "$SIMTRACE_PACK" -f -o /dev/null </dev/null
    expect_status 0
}

@test "--append X with X as standard input, '-' or through a symlink: refused (exit 2) before X changes" {
    slice_entries "$D/xzr.d64" 32 0 1000 >s.d64
    ok_to x.sim "$SIMTRACE_PACK" s.d64
    cp x.sim x.orig
    ln -s x.sim link.sim
    # a run that reads its own new frames would never end: bound it
    run bash -c 'ulimit -f 20000; timeout 20 "$1" -T1 --frame-size 1 --append x.sim <x.sim' _ "$SIMTRACE_PACK"
    expect_status 2
    expect_prefix simtrace-pack
    expect_output_has "(stdin): input is the output file x.sim; refusing to append it to itself"
    same x.sim x.orig
    run bash -c 'ulimit -f 20000; timeout 20 "$1" -T1 --append x.sim - <x.sim' _ "$SIMTRACE_PACK"
    expect_status 2
    same x.sim x.orig
    run bash -c 'ulimit -f 20000; timeout 20 "$1" -T1 --append x.sim s.d64 link.sim' _ "$SIMTRACE_PACK"
    expect_status 2
    expect_output_has "link.sim: input is the output file x.sim"
    same x.sim x.orig
    run "$SIMTRACE_CAT" -t x.sim
    expect_status 0
}

@test "--append with an input that cannot be opened (missing, a directory): exit 1, the container byte-identical" {
    slice_entries "$D/xzr.d64" 32 0 1000 >s.d64
    ok_to x.sim "$SIMTRACE_PACK" s.d64
    cp x.sim x.orig
    run "$SIMTRACE_PACK" --append x.sim s.d64 nonexist.d64
    expect_status 1
    expect_prefix simtrace-pack
    expect_output_has "nonexist.d64: cannot open"
    [[ $output != *"lacks its directory"* ]] || fail "the container was cut: $output"
    same x.sim x.orig
    mkdir adir
    run "$SIMTRACE_PACK" --append x.sim s.d64 adir
    expect_status 1
    expect_output_has "adir: is a directory"
    same x.sim x.orig
    run "$SIMTRACE_PACK" --append x.sim --from text s.d64 nonexist.d64
    expect_status 1
    same x.sim x.orig
    # -o: no output file is made at all
    run "$SIMTRACE_PACK" -o new.sim s.d64 nonexist.d64
    expect_status 1
    [[ -z $(leftovers . new.sim) ]] || fail "left: $(leftovers . new.sim)"
}

@test "--append: a regular input removed after the run began is bad input; the container keeps what came before" {
    slice_entries "$D/xzr.d64" 32 0 1000 >s.d64
    ok_to x.sim "$SIMTRACE_PACK" s.d64
    cp s.d64 gone.d64
    cp x.sim x.orig
    mkfifo fifo
    # opened read-write here, the FIFO neither blocks the run nor ends before
    # this end is closed: it is fed only once the run has resumed the
    # container (cut off its directory) and gone.d64 has been removed
    local wfd pid i
    exec {wfd}<>fifo
    "$SIMTRACE_PACK" -T1 --allow-cycle-reset --append x.sim fifo gone.d64 2>err 3>&- {wfd}>&- &
    pid=$!
    for ((i = 0; i < 400; i++)); do
        (($(size x.sim) < $(size x.orig))) && break
        sleep 0.05
    done
    rm gone.d64
    cat s.d64 >&$wfd
    exec {wfd}>&-
    local rc=0
    wait $pid || rc=$?
    ((rc == 1)) || fail "exit $rc: $(cat err)"
    grep -q "gone.d64: read error: cannot open" err || fail "message: $(cat err)"
    run "$SIMTRACE_CAT" -t x.sim
    expect_status 0
    cat s.d64 s.d64 >want
    ok_to got "$SIMTRACE_CAT" x.sim
    same got want
}

# ---- --verify and --salvage --------------------------------------------------------------

@test "--verify: a good container passes silently; a cut-off and a bit-flipped one fail naming frame and offset" {
    run "$SIMTRACE_CAT" --verify "$D/two.sim"
    expect_status 0
    [[ -z $output ]] || fail "verify said: $output"
    cut_to "$D/two.sim" $(($(size "$D/two.sim") / 2)) cut.sim
    run "$SIMTRACE_CAT" --verify cut.sim
    expect_status 1
    expect_prefix simtrace-cat
    expect_output_has "frame "
    expect_output_has "byte offset"
    # one bit in the middle of the payload of the 3rd frame (a data frame)
    local off sz
    off=$(frame_field "$D/two.sim" 3 offset)
    sz=$(frame_field "$D/two.sim" 3 size)
    cp "$D/two.sim" flip.sim
    flip_byte flip.sim $((off + 96 + (sz - 96) / 2)) 3
    run "$SIMTRACE_CAT" -t flip.sim
    expect_status 1
    expect_prefix simtrace-cat
    expect_output_has "frame 2 of stream 0"
    expect_output_has "byte offset $off"
    # from a pipe
    run bash -c 'cat flip.sim | "$1" -t' _ "$SIMTRACE_CAT"
    expect_status 1
    expect_output_has "frame 2 of stream 0"
}

@test "--salvage of a file cut inside a frame writes the complete frames of the stream (single stream)" {
    ok_to one.sim "$SIMTRACE_PACK" --frame-size "$FS" "$D/xzr.d64"
    # cut in the middle of the 4th data frame (ordinal 4: the descriptor is 0)
    local off sz
    off=$(frame_field one.sim 4 offset)
    sz=$(frame_field one.sim 4 size)
    [[ $(frame_field one.sim 4 kind) -eq 1 ]] || fail "frame 4 is no data frame"
    cut_to one.sim $((off + sz / 2)) cut.sim
    run to got "$SIMTRACE_CAT" --salvage cut.sim
    expect_status 1
    expect_prefix simtrace-cat
    # a regular file: through its frame headers, which name the frame cut off
    expect_output_has "the frame at byte offset $off is cut off: entries $((3 * FS))..$((4 * FS - 1)) of stream 'trace' are lost"
    expect_output_has "salvaged $((3 * FS)) entries of stream 'trace'; lost 1 frame ($FS entries)"
    slice_entries "$D/xzr.d64" 32 0 $((3 * FS)) >want
    same got want
    # a pipe: read sequentially up to the cut
    run to got.p catp cut.sim --salvage
    expect_status 1
    expect_output_has "frame 3 of stream 0"
    expect_output_has "salvaged up to"
    same got.p want
    # with -o the salvaged output is kept despite exit 1
    run "$SIMTRACE_CAT" --salvage -o got2 cut.sim
    expect_status 1
    same got2 want
}

@test "--salvage of a cut two-stream file writes the complete frames of the chosen stream" {
    # cut inside the 3rd data frame of stream w (id 1)
    local line off sz want_n
    line=$(frame_table "$D/two.sim" | awk '$4 == 1 && $5 == 1' | sed -n 3p)
    set -- $line
    off=$2 sz=$3
    cut_to "$D/two.sim" $((off + sz / 2)) cut.sim
    # complete w frames before the cut
    want_n=$(frame_table "$D/two.sim" | awk -v end=$((off + sz / 2)) '$4 == 1 && $5 == 1 && $2 + $3 <= end { n += $7 } END { print n + 0 }')
    ((want_n == 2 * FS)) || fail "expected two whole w frames before the cut, got $want_n entries"
    run to got "$SIMTRACE_CAT" --salvage -s w cut.sim
    expect_status 1
    expect_prefix simtrace-cat
    expect_output_has "byte offset"
    slice_entries "$D/sortw.d64" 32 0 "$want_n" >want
    same got want
    # and of r: every r frame before the cut
    want_n=$(frame_table "$D/two.sim" | awk -v end=$((off + sz / 2)) '$4 == 1 && $5 == 0 && $2 + $3 <= end { n += $7 } END { print n + 0 }')
    run to got "$SIMTRACE_CAT" --salvage -s r cut.sim
    expect_status 1
    slice_entries "$D/xzr.d64" 32 0 "$want_n" >want
    same got want
}

@test "--salvage skips a data frame with a flipped payload bit and writes all the others" {
    ok_to one.sim "$SIMTRACE_PACK" --frame-size "$FS" "$D/xzr.d64"
    local off sz
    off=$(frame_field one.sim 3 offset)
    sz=$(frame_field one.sim 3 size)
    cp one.sim flip.sim
    flip_byte flip.sim $((off + 96 + (sz - 96) / 3)) 5
    run to got "$SIMTRACE_CAT" --salvage flip.sim
    expect_status 1
    expect_prefix simtrace-cat
    expect_output_has "frame 2 of stream 0"
    expect_output_has "entries $((2 * FS))..$((3 * FS - 1))"
    { slice_entries "$D/xzr.d64" 32 0 $((2 * FS)); slice_entries "$D/xzr.d64" 32 $((3 * FS)); } >want
    same got want
    # the first data frame damaged: the rest still comes out
    off=$(frame_field one.sim 1 offset)
    cp one.sim flip1.sim
    flip_byte flip1.sim $((off + 96 + 40)) 1
    run to got1 catp flip1.sim --salvage
    expect_status 1
    expect_output_has "frame 0 of stream 0"
    slice_entries "$D/xzr.d64" 32 "$FS" >want1
    same got1 want1
}

@test "--salvage counts a skipped frame of a non-memory default stream: exit 1, file and pipe" {
    # without -s, a pipe holds a non-memory first stream back until the end
    # (a memory stream could follow); its losses must count all the same
    real_d64 3000 d.d64
    head -c 36000 d.d64 >v.bin
    rand_bytes 5000 b.bin
    local t in
    for t in vpc bytes; do
        in=v.bin
        [[ $t == bytes ]] && in=b.bin
        ok_to s.sim "$SIMTRACE_PACK" -T1 --frame-size 1000 --type "$t" "$in"
        local off sz
        off=$(frame_field s.sim 2 offset)
        sz=$(frame_field s.sim 2 size)
        [[ $(frame_field s.sim 2 kind) -eq 1 ]] || fail "frame 2 is no data frame"
        cp s.sim bad.sim
        flip_byte bad.sim $((off + 96 + (sz - 96) / 2)) 3
        local esz=12
        [[ $t == bytes ]] && esz=1
        { head -c $((1000 * esz)) "$in"; tail -c +$((2000 * esz + 1)) "$in"; } >want
        run to got "$SIMTRACE_CAT" --salvage bad.sim
        expect_status 1
        expect_output_has "entries of stream 'trace'; lost 1 frame (1000 entries)"
        same got want
        run to got.p catp bad.sim --salvage
        expect_status 1
        expect_output_has "1 damaged frame of the stream skipped (1000 entries)"
        same got.p want
    done
    # a held stream that a later memory stream replaces: its losses do not
    # count against the memory stream, which comes out whole
    ok_to m.sim "$SIMTRACE_PACK" -T1 --stream mem d.d64
    ok_to cc.sim "$SIMTRACE_PACK" --concat s.sim m.sim
    [[ $(frame_table cc.sim | awk '$4 == 2 && $5 == 1 { print $1 }') -gt 2 ]] ||
        fail "the memory stream must be declared after the damaged frame: $(frame_table cc.sim)"
    cp cc.sim ccbad.sim
    flip_byte ccbad.sim $((off + 96 + (sz - 96) / 2)) 3
    run to got.p catp ccbad.sim --salvage
    expect_status 0
    expect_output_has "0 damaged frames of the stream skipped"
    same got.p d.d64
}

@test "--salvage through a pipe reads on past a damaged frame header, as a file's salvage does" {
    # the 2nd data frame of w, and its last: their headers damaged
    local mid last
    mid=$(frame_table "$D/two.sim" | awk '$4 == 1 && $5 == 1' | sed -n 2p)
    last=$(frame_table "$D/two.sim" | awk '$4 == 1 && $5 == 1' | tail -n 1)
    [[ -n $mid && $mid != "$last" ]] || fail "two.sim needs three w frames: $(frame_table "$D/two.sim")"
    set -- $mid
    local moff=$2 mfirst=$6 mcount=$7
    set -- $last
    local loff=$2 lfirst=$6 lcount=$7
    cp "$D/two.sim" hdr.sim
    flip_byte hdr.sim $((moff + 30)) 2
    flip_byte hdr.sim $((loff + 44)) 6
    run to got "$SIMTRACE_CAT" --salvage -s w hdr.sim
    expect_status 1
    run to got.p catp hdr.sim --salvage -s w
    expect_status 1
    expect_prefix simtrace-cat
    expect_output_has "passed over bytes $moff.."
    expect_output_has "lost 1 frame (entries $mfirst..$((mfirst + mcount - 1)) of stream 'w')"
    expect_output_has "lost 1 frame (entries $lfirst..$((lfirst + lcount - 1)) of stream 'w')"
    expect_output_has "salvaged to the end of the container; 2 damaged frames of the stream skipped ($((mcount + lcount)) entries)"
    same got.p got
    { slice_entries "$D/sortw.d64" 32 0 "$mfirst"; slice_entries "$D/sortw.d64" 32 $((mfirst + mcount)) "$lfirst"; } >want
    same got.p want
    # stream r lost nothing: all of it, exit 0, the bytes passed over noted
    run to got.r catp hdr.sim --salvage -s r
    expect_status 0
    expect_output_has "passed over bytes $moff.."
    same got.r "$D/xzr.d64"
    # without --salvage a pipe stops at the first damaged header
    run to got.s catp hdr.sim -s w
    expect_status 1
    expect_output_has "byte offset $moff"
}

@test "--salvage through a pipe counts a stream's first frame lost in bytes passed over: exit 1, as a file's salvage" {
    # the first data frame of w (told lost by w's second frame, before the
    # stream written is settled), and of the default stream, r
    local w0 r0
    w0=$(frame_table "$D/two.sim" | awk '$4 == 1 && $5 == 1' | head -n 1)
    r0=$(frame_table "$D/two.sim" | awk '$4 == 1 && $5 == 0' | head -n 1)
    [[ -n $w0 && -n $r0 ]] || fail "two.sim: $(frame_table "$D/two.sim")"
    set -- $w0
    local woff=$2 wcount=$7
    set -- $r0
    local roff=$2 rcount=$7
    cp "$D/two.sim" w0.sim
    flip_byte w0.sim $((woff + 9)) 0
    run to got catp w0.sim --salvage -s w
    expect_status 1
    expect_output_has "lost 1 frame (entries 0..$((wcount - 1)) of stream 'w')"
    expect_output_has "salvaged to the end of the container; 1 damaged frame of the stream skipped ($wcount entries)"
    run to got.f "$SIMTRACE_CAT" --salvage -s w w0.sim
    expect_status 1
    same got got.f
    cp "$D/two.sim" r0.sim
    flip_byte r0.sim $((roff + 9)) 0
    run to got catp r0.sim --salvage
    expect_status 1
    expect_output_has "1 damaged frame of the stream skipped ($rcount entries)"
    # another stream's loss is not the stream written's
    run to got catp w0.sim --salvage -s r
    expect_status 0
    same got "$D/xzr.d64"
}

@test "a merge from a pipe (held in a temporary file) that ends early: everything read is written, exit 1, as a pipe read in order" {
    local cut
    cut=$(frame_table "$D/two.sim" | awk '$4 == 3 { print $2 }')
    [[ -n $cut ]] || fail "two.sim: no directory frame"
    # cut where the directory starts: every data frame whole
    cut_to "$D/two.sim" "$cut" cut.sim
    for f in lackey din; do
        run to got catp cut.sim -q -F $f
        expect_status 1
        expect_output_has "simtrace-cat: (stdin): unexpected end of input (truncated): no valid directory and footer"
        [[ $output != *"--repair"* ]] || fail "-F $f: names --repair for a pipe: $output"
        same got <("$SIMTRACE_CAT" -q -F $f "$D/two.sim")
    done
    # the same file read as a file: read through its frame headers, exit 0
    run to got "$SIMTRACE_CAT" -q -F lackey cut.sim
    expect_status 0
    run to got catp "$D/two.sim" -q -F lackey
    expect_status 0
}

@test "an export from a pipe reads on past a damaged frame header of another stream (exit 0, a note); of the stream read it stops there (exit 1)" {
    xz -dc "$ROOT/testdata/good/lackey_cc1_read.d64.xz" | head -c $((30000 * 32)) >a
    xz -dc "$ROOT/testdata/good/lackey_cc1_write.d64.xz" | head -c $((30000 * 32)) >b
    "$SIMTRACE_PACK" -q -T1 --frame-size 5000 -o x.sim --stream ra a --stream rb b
    # the third frame of ra: its header damaged
    local off
    off=$("$SIMTRACE_CAT" --list --frames x.sim | awk '$1 == "ra" && $2 == 2 { print $9 }')
    [[ -n $off ]] || fail "layout of x.sim"
    printf '\377' | dd of=x.sim bs=1 seek=$((off + 40)) conv=notrunc status=none
    for f in raw text; do
        run bash -c "cat x.sim | '$SIMTRACE_CAT' -s rb -F $f -o rb.$f"
        [[ $status -eq 0 ]] || fail "-s rb -F $f: $status $output"
        [[ $output == *"(stdin): passed over bytes $off.."*"(stdin): 1 frame (5000 entries) of stream 'ra' were in the damaged bytes $off.."*", not the stream read" ]] ||
            fail "-s rb -F $f: $output"
        cmp rb.$f <("$SIMTRACE_CAT" -s rb -F $f x.sim) || fail "-s rb -F $f: not the file's output"
    done
    cmp rb.raw b
    run bash -c "cat x.sim | '$SIMTRACE_CAT' -q -s rb -o q.raw"
    [[ $status -eq 0 && -z $output ]] && cmp q.raw b
    # the stream read lost frames there: what came before is written, exit 1 (-q too)
    run bash -c "cat x.sim | '$SIMTRACE_CAT' -q -s ra"
    [[ $status -eq 1 && $output == *"(stdin): entries 10000..14999 of stream 'ra' were in the damaged bytes $off.."*": lost; --salvage writes the rest" ]] ||
        fail "-s ra: $status"
    cat x.sim | "$SIMTRACE_CAT" -q -s ra | cmp - <(head -c $((10000 * 32)) a)
}

@test "--repair with -c: refused as bad usage (exit 2), the file unchanged, nothing on standard output" {
    ok_to one.sim "$SIMTRACE_PACK" --frame-size "$FS" "$D/xzr.d64"
    local dir
    dir=$(frame_table one.sim | awk '$4 == 3 { print $2 }')
    cut_to one.sim "$dir" cut.sim
    cp cut.sim keep.sim
    for args in "--repair cut.sim -c" "-c --repair cut.sim" "--repair cut.sim --stdout"; do
        run to out "$SIMTRACE_PACK" $args
        expect_status 2 || fail "simtrace-pack $args"
        expect_prefix simtrace-pack
        expect_output_has "--repair writes in place, or into -o NEW; -c (standard output) cannot be used with it"
        same cut.sim keep.sim
        [ ! -s out ]
    done
    # what the message names still works
    run "$SIMTRACE_PACK" --repair cut.sim -o fixed.sim
    expect_status 0
    same cut.sim keep.sim
    "$SIMTRACE_CAT" --verify fixed.sim
}

@test "a file without its end and a damaged frame header: --repair and --append refuse and change nothing; --salvage reads past it" {
    ok_to one.sim "$SIMTRACE_PACK" --frame-size "$FS" "$D/xzr.d64"
    # the directory and footer gone, and the 2nd data frame's header damaged
    local dir mid after n
    dir=$(frame_table one.sim | awk '$4 == 3 { print $2 }')
    mid=$(frame_field one.sim 2 offset)
    after=$(frame_field one.sim 3 offset)
    n=$(frame_table one.sim | awk '$4 == 1' | wc -l)
    ((n >= 4)) || fail "one.sim needs 4 data frames: $(frame_table one.sim)"
    cut_to one.sim "$dir" cut.sim
    flip_byte cut.sim $((mid + 33)) 4
    cp cut.sim keep.sim
    # in place, a repair would cut the frames after the damage off
    run "$SIMTRACE_PACK" --repair cut.sim
    expect_status 1
    expect_prefix simtrace-pack
    expect_output_has "not repaired, nothing changed: a damaged or misplaced frame lies at byte offset $mid and complete frames follow it from byte offset $after"
    same cut.sim keep.sim
    # into a new file: the frames before it, exit 1, what was left out
    run "$SIMTRACE_PACK" --repair cut.sim -o fixed.sim
    expect_status 1
    expect_output_has "left out: the"
    expect_output_has "complete frames from byte offset $after on"
    same cut.sim keep.sim
    run to got.f "$SIMTRACE_CAT" fixed.sim
    expect_status 0
    slice_entries "$D/xzr.d64" 32 0 "$FS" >want.f
    same got.f want.f
    # appending would overwrite them
    run "$SIMTRACE_PACK" --append cut.sim "$D/xzr.d64"
    expect_status 1
    expect_output_has "nothing appended, nothing changed"
    same cut.sim keep.sim
    # a plain read: the frames before the damage, the note even with -q, exit 1
    run to got.q "$SIMTRACE_CAT" -q cut.sim
    expect_status 1
    expect_output_has "complete frames follow it from byte offset $after, which are not read here"
    same got.q want.f
    # a salvage of the file reads past the damage, as one of a pipe does
    run to got "$SIMTRACE_CAT" --salvage cut.sim
    expect_status 1
    expect_output_has "complete frames follow it from byte offset $after"
    expect_output_has "lost 1 frame (entries $FS..$((2 * FS - 1)) of stream 'trace')"
    { slice_entries "$D/xzr.d64" 32 0 "$FS"; slice_entries "$D/xzr.d64" 32 $((2 * FS)); } >want
    same got want
    run to got.p catp cut.sim --salvage
    expect_status 1
    same got.p want
}

@test "--salvage of an intact container: everything, exit 0" {
    run to got "$SIMTRACE_CAT" --salvage -s w "$D/two.sim"
    expect_status 0
    same got "$D/sortw.d64"
}

@test "--salvage -F lackey without -s: one stream written, and a note names it and the memory streams left out (-q: none)" {
    "$SIMTRACE_PACK" -q --from lackey -o l.sim "$ROOT/testdata/good/sample.lackey"
    want="simtrace-cat: l.sim: note: --salvage writes one stream, 'write', not every memory stream as -F lackey does otherwise: 2 not written (read, fetch); salvage each with -s NAME"
    run "$SIMTRACE_CAT" --salvage -F lackey -o s.lk l.sim
    [[ $status -eq 0 && ${lines[0]} == "$want" ]] || fail "file: $status $output"
    cmp s.lk <("$SIMTRACE_CAT" -s write --no-fetch -q -F lackey l.sim)
    run bash -c "cat l.sim | '$SIMTRACE_CAT' --salvage -F din -o p.din"
    [[ $status -eq 0 && ${lines[0]} == "simtrace-cat: (stdin): note: --salvage writes one stream, 'write', not every memory stream as -F din does otherwise: 2 not written (read, fetch); salvage each with -s NAME" ]] ||
        fail "pipe: $status $output"
    run "$SIMTRACE_CAT" -q --salvage -F lackey -o q.lk l.sim
    [[ $status -eq 0 && $output != *note:* ]] || fail "-q: $status $output"
    # a stream named: nothing to say
    run "$SIMTRACE_CAT" --salvage -s read -F lackey -o r.lk l.sim
    [[ $status -eq 0 && $output != *note:* ]] || fail "-s read: $status $output"
}

# ---- --list ------------------------------------------------------------------------------

@test "--list: header, names, types, entries, frames, bytes and cycles, from a file and a pipe" {
    run "$SIMTRACE_CAT" --list "$D/two.sim"
    expect_status 0
    local file_out=$output
    local -a hdr
    read -r -a hdr <<<"$(first_line)"
    [[ "${hdr[*]}" == "stream type entries frames raw bytes stored ratio first cycle last cycle" ]] ||
        fail "header line: $(first_line)"
    [[ $(printf '%s\n' "$output" | wc -l) -eq 3 ]] || fail "want a header and two streams: $output"
    set -- $(cycle_stats 32 <"$D/xzr.d64")
    expect_row r d64 "$NE" 6 $((NE * 32)) "$2" "$3"
    set -- $(cycle_stats 32 <"$D/sortw.d64")
    expect_row w d64 "$NE" 6 $((NE * 32)) "$2" "$3"
    # stored bytes: the sum of the stream's frames (headers included)
    local st
    st=$(frame_table "$D/two.sim" | awk '$4 == 1 && $5 == 1 { n += $3 } END { print n }')
    list_row w
    [[ ${ROW[5]} -eq $st ]] || fail "stored of w: want $st, got ${ROW[5]}"
    run catp "$D/two.sim" --list
    expect_status 0
    [[ $output == "$file_out" ]] || fail "pipe --list differs from file --list: $output"
    set -- $(cycle_stats 32 <"$D/cc1r.d64")
    run "$SIMTRACE_CAT" -l "$D/small.sim"
    expect_status 0
    expect_row trace d64 "$NE" $(((NE + SMALL - 1) / SMALL)) $((NE * 32)) "$2" "$3"
}

@test "--list that cannot be written (a full disk): exit 1 naming (stdout), from a file and a pipe" {
    [[ -w /dev/full ]] || skip "no /dev/full"
    for args in "--list" "--list --frames" "--list --json"; do
        run bash -c "'$SIMTRACE_CAT' $args '$D/two.sim' >/dev/full"
        [[ $status -eq 1 && $output == "simtrace-cat: (stdout): write error: No space left on device" ]] ||
            fail "file, $args: $status $output"
        run bash -c "cat '$D/two.sim' | '$SIMTRACE_CAT' $args >/dev/full"
        [[ $status -eq 1 && $output == "simtrace-cat: (stdout): write error: No space left on device" ]] ||
            fail "pipe, $args: $status $output"
    done
}

# ---- stream selection ----------------------------------------------------------------------

@test "--stream with an unknown name: exit 1 naming it, from a file and a pipe" {
    run "$SIMTRACE_CAT" -s nosuch -o out "$D/two.sim"
    expect_status 1
    expect_prefix simtrace-cat
    expect_output_has "no stream named 'nosuch'"
    [[ ! -e out ]] || fail "output file left behind"
    run catp "$D/two.sim" --stream nosuch -o out
    expect_status 1
    expect_prefix simtrace-cat
    expect_output_has "no stream named 'nosuch'"
    [[ ! -e out ]] || fail "output file left behind (pipe)"
}

@test "default stream: the only one, else the first memory stream (file)" {
    rand_bytes 5000 raw.bin
    ok_to b.sim "$SIMTRACE_PACK" --type bytes --stream onlybytes raw.bin
    cat_both b.sim raw.bin
    cat_both "$D/two.sim" "$D/xzr.d64"
    ok_to m.sim "$SIMTRACE_PACK" --frame-size "$SMALL" --type bytes --stream raw raw.bin --type d64 --stream mem "$D/xzr.d64"
    ok_to got "$SIMTRACE_CAT" m.sim
    same got "$D/xzr.d64"
}

@test "default stream: the first memory stream from a pipe too" {
    rand_bytes 5000 raw.bin
    ok_to m.sim "$SIMTRACE_PACK" --frame-size "$SMALL" --type bytes --stream raw raw.bin --type d64 --stream mem "$D/xzr.d64"
    ok_to got catp m.sim
    same got "$D/xzr.d64"
}

@test "default stream read sequentially: over 64 MiB of a non-memory first stream asks for -s (exit 2, one message)" {
    # zeros: a small container of a large stream
    head -c 70000000 /dev/zero | "$SIMTRACE_PACK" -T2 --type bytes -o z.sim
    run catp z.sim -o out
    expect_status 2
    expect_prefix simtrace-cat
    expect_output_has "not a memory stream"
    expect_output_has "-s 'trace'"
    [[ ${#lines[@]} -eq 1 ]] || fail "want one message, got: $output"
    [[ ! -e out ]] || fail "output file left behind"
    run catp z.sim --salvage -o out
    expect_status 2
    expect_output_has "-s 'trace'"
    [[ ${#lines[@]} -eq 1 ]] || fail "--salvage: want one message, got: $output"
    [[ ! -e out ]] || fail "output file left behind (--salvage)"
    # a regular file's --salvage knows every stream from its directory
    run "$SIMTRACE_CAT" --salvage -o out z.sim
    expect_status 0
    cmp out <(head -c 70000000 /dev/zero)
    rm -f out
    # named, or from the file through its directory, it comes out whole
    catp z.sim -s trace | cmp - <(head -c 70000000 /dev/zero)
    "$SIMTRACE_CAT" z.sim | cmp - <(head -c 70000000 /dev/zero)
}

# ---- usage -------------------------------------------------------------------------------

@test "-F FORMAT that cannot hold the stream: exit 2 and one message, with any range, file and pipe" {
    local r s msg
    # named with -s: the stream's type is refused; not named: vpc reads the
    # first vpc stream, and there is none
    for s in "-s trace" ""; do
        msg="type d64 cannot be written as vpc"
        [[ -z $s ]] && msg="no stream of a type that -F vpc writes (vpc; see --list)"
        for r in "" "--entries=0:10" "--entries=5:" "--cycles=0:" "--salvage"; do
            run "$SIMTRACE_CAT" -F vpc $s $r -o out "$D/small.sim"
            expect_status 2 || fail "-F vpc $s $r (file)"
            expect_prefix simtrace-cat
            expect_output_has "$msg"
            [[ ${#lines[@]} -eq 1 ]] || fail "-F vpc $s $r (file): want one message, got: $output"
            [[ -z $(compgen -G "out*") ]] || fail "-F vpc $s $r (file) left $(compgen -G "out*")"
            run catp "$D/small.sim" -F vpc $s $r -o out
            expect_status 2 || fail "-F vpc $s $r (pipe)"
            expect_output_has "$msg"
            [[ ${#lines[@]} -eq 1 ]] || fail "-F vpc $s $r (pipe): want one message, got: $output"
            [[ -z $(compgen -G "out*") ]] || fail "-F vpc $s $r (pipe) left $(compgen -G "out*")"
        done
    done
}

@test "--cycles on decreasing cycles from a pipe: exit 1 and one message naming the entry" {
    perl -e 'binmode STDOUT; print pack("Q<4", $_ < 1500 ? 1000 + $_ : $_, 1, 2, 3) for 0 .. 2999' >dec.d64
    ok_to dec.sim "$SIMTRACE_PACK" --allow-cycle-reset --frame-size 1000 dec.d64
    run to got catp dec.sim --cycles 100:
    expect_status 1
    expect_prefix simtrace-cat
    expect_output_has "cycles decrease at entry 1500"
    [[ ${#lines[@]} -eq 1 ]] || fail "want one message, got: $output"
}

@test "usage errors: exit 2 with a message naming the program" {
    local -a cases=(
        "pack|--bogus|--bogus"
        "pack|--from nosuch x|unknown input format 'nosuch'"
        "pack|--type nosuch x|unknown entry type 'nosuch'"
        "pack|--type rec:0 x|unknown entry type"
        "pack|--append a.sim -o b.sim x|-o cannot be used"
        "pack|--append a.sim --concat x|cannot be combined"
        "pack|--frame-size 0 x|invalid frame size"
        "pack|-T 999 x|invalid thread count"
        "pack|--stream= x|invalid stream name"
        "pack|- -|standard input can be named only once"
        "cat|--bogus|--bogus"
        "cat|-F nosuch x|unknown output format 'nosuch'"
        "cat|--list a b|take one container (got 2)"
        "cat|--list --verify x|at most one"
    )
    local c prog args msg
    for c in "${cases[@]}"; do
        IFS='|' read -r prog args msg <<<"$c"
        if [[ $prog == pack ]]; then
            run "$SIMTRACE_PACK" $args </dev/null
        else
            run "$SIMTRACE_CAT" $args </dev/null
        fi
        expect_status 2 || fail "simtrace-$prog $args"
        expect_prefix "simtrace-$prog" || fail "simtrace-$prog $args"
        expect_output_has "$msg" || fail "simtrace-$prog $args"
    done
    run "$SIMTRACE_PACK" --help
    expect_status 0
    run "$SIMTRACE_CAT" --help
    expect_status 0
}

@test "--timestamps: a frame's time starts at its first entry, not when the writer began waiting for it" {
    # the input arrives after a pause: the first frame must not span it
    (sleep 1.2; cat "$D/xzr.d64") | "$SVPC_BIN/simtrace-pack" --timestamps --frame-size "$FS" -o ts2.sim
    local -a fr
    mapfile -t fr < <(frame_table ts2.sim | awk '$4 == 1')
    ((${#fr[@]} >= 2)) || fail "want data frames, got ${#fr[@]}"
    set -- ${fr[0]}
    (($9 - $8 < 600000000)) || fail "first frame spans $(($9 - $8)) ns: it counts the pause before its entries"
}

@test "inputs after -- are read, even one named like an option" {
    slice_entries "$D/xzr.d64" 32 0 500 >a.d64
    slice_entries "$D/xzr.d64" 32 500 1000 >./-e
    ok_to x.sim "$SIMTRACE_PACK" -- a.d64 -e </dev/null
    cat a.d64 ./-e >want
    ok_to got "$SIMTRACE_CAT" x.sim
    same got want
}

@test "a pipe whose first declaration is lost before the stream read is known: exit 1, not another stream's entries with exit 0" {
    # every stream declared before any data frame; cpu0.write (the first
    # memory stream: the default) loses its declaration, so a pipe knows
    # cpu0.read first; the file knows from its directory
    ok_to b.sim "$SIMTRACE_PACK" --frame-size 100 --from bochs "$ROOT/testdata/good/sample.bochs.xz"
    local at
    at=$(grep -abo STFR b.sim | head -1 | cut -d: -f1)
    [[ $at == 64 ]] || fail "the first frame is not at 64: $at"
    printf 'XXXX' | dd of=b.sim bs=1 seek="$at" conv=notrunc 2>/dev/null
    run catp b.sim -o p.out
    expect_status 1
    expect_prefix simtrace-cat
    expect_output_has "simtrace-cat: (stdin): the declarations of streams were lost in damaged bytes (from 64..275 on), and the stream read may be one of them; --salvage writes what is left"
    [[ -z $(compgen -G "p.out*") ]] || fail "left $(compgen -G "p.out*")"
    run "$SIMTRACE_CAT" -o f.out b.sim
    expect_status 1
    [[ -z $(compgen -G "f.out*") ]] || fail "left $(compgen -G "f.out*")"
    # a later declaration lost (cpu0.read's, the second): the default,
    # cpu0.write, was declared before it, as was a stream named by -s:
    # read on, the frames of the undeclared stream named as another's
    ok_to b.sim "$SIMTRACE_PACK" -f --frame-size 100 --from bochs "$ROOT/testdata/good/sample.bochs.xz"
    "$SIMTRACE_CAT" -s cpu0.write b.sim >want.d64
    at=$(grep -abo STFR b.sim | sed -n 2p | cut -d: -f1)
    printf 'XXXX' | dd of=b.sim bs=1 seek="$at" conv=notrunc 2>/dev/null
    local s
    for s in "" "-s cpu0.write"; do
        run catp b.sim $s -o p.out
        expect_status 0 || fail "pipe, '$s'"
        expect_output_has "of stream '(undeclared)' were in the damaged bytes"
        cmp p.out want.d64
        rm -f p.out
    done
}

@test "--salvage of a container without streams: nothing lost, exit 0" {
    run "$SIMTRACE_CAT" --salvage -o out "$ROOT/testdata/good/edge-empty.sim"
    expect_status 0
    run catp "$ROOT/testdata/good/edge-empty.sim" --salvage -o out2
    expect_status 0
}

@test "--entries deep in a frame of two checksum blocks: the stream's own entries, checked or not, for every decoder that skips what lies before" {
    # one frame of 131,072 entries: ENTRY_CRC blocks 0..65535 and
    # 65536..131071; a range keeps nothing before its block (cm2's
    # family), and is checked from that block on
    real_d64 131072 in.d64
    local opts r a b
    for opts in "" "-e cm2" "-9" "-1" "-e cm"; do
        # (-1's frames are 2^18 entries: still one frame here)
        "$SIMTRACE_PACK" -T1 -f $opts -o x.sim in.d64
        [[ $("$SIMTRACE_CAT" --list x.sim | awk 'NR == 2 { print $4 }') == 1 ]] || fail "$opts: not one frame"
        for r in 0:1 1:2 65535:65537 65536:65537 100000:100010 131071:131072 1:131072 70000:130000; do
            a=${r%:*} b=${r#*:}
            tail -c +$((a * 32 + 1)) in.d64 | head -c $(((b - a) * 32)) >want
            "$SIMTRACE_CAT" -T1 --entries "$r" x.sim >got || fail "$opts --entries $r: exit $?"
            same got want || fail "$opts --entries $r: other entries"
            "$SIMTRACE_CAT" -T1 --ignore-check --entries "$r" x.sim >got || fail "$opts --ignore-check --entries $r: exit $?"
            same got want || fail "$opts --ignore-check --entries $r: other entries"
        done
    done
}
