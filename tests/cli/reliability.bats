#!/usr/bin/env bats
# Issue 15 (reliability): one stream's damage stays in its stream, cycles
# checked when written, consistent range edges, and the manners of a Unix
# filter (a reader gone from the pipe, -v, warnings).  Interrupted and
# killed writers are in pack_write_fail.bats, files without footer in
# bad_files.bats.

load helpers

# fails_with CMD MESSAGE: bash -c CMD exits 1 with exactly MESSAGE
fails_with() {
    run bash -c "$1"
    expect_status 1
    [[ $output == "$2" ]] || fail "$1: $output"
}

PACK="$SVPC_BIN/simtrace-pack"
CAT="$SVPC_BIN/simtrace-cat"
COMPRESS="$SVPC_BIN/svpc-compress"

# two_streams: x.sim with streams ra (a, 20000 entries) and rb (b, 20000
# entries), frames of 1000 entries, interleaved by input order.
two_streams() {
    real_d64 20000 a
    real_d64 20000 b 30000
    "$PACK" -T1 --frame-size 1000 -o x.sim --stream ra a --stream rb b
}

# data_frame_offset FILE N: offset of the N-th data frame (0-based) of the file.
data_frame_offset() {
    frames "$1" | awk -v n="$2" '$3 == 1 { if (k++ == n) { print $1; exit } }'
}

@test "a flipped byte in one stream: another stream reads whole with exit 0 from a file and a pipe, with a note" {
    two_streams
    local off
    off=$(data_frame_offset x.sim 2) # the third frame of ra
    flip_byte x.sim $((off + 96 + 300))
    run to got "$CAT" -s rb x.sim
    expect_status 0
    same got b
    expect_output_has "simtrace-cat: x.sim: passed over damaged frame 2 of stream 'ra' at byte offset $off (payload checksum mismatch), not the stream read"
    run to got2 sh -c "cat x.sim | '$CAT' -s rb"
    expect_status 0
    same got2 b
    expect_output_has "(stdin): passed over damaged frame 2 of stream 'ra'"
    # -q: no note
    run to got3 "$CAT" -q -s rb x.sim
    expect_status 0
    [[ -z $output ]] || fail "-q: $output"
    # ranges of rb too, through the directory
    run to got4 "$CAT" -s rb --entries 0: x.sim
    expect_status 0
    same got4 b
    # the damaged stream itself still fails, naming the damaged frame
    run to bad "$CAT" -s ra x.sim
    expect_status 1
    expect_output_has "x.sim: frame 2 of stream 0 at byte offset $off: payload checksum mismatch"
    is_prefix bad a
    run to bad2 sh -c "cat x.sim | '$CAT' -s ra"
    expect_status 1
    expect_output_has "(stdin): frame 2 of stream 0 at byte offset $off: payload checksum mismatch"
}

# ---- cycles checked when written (issue 15 item 6) ----

@test "cycles that decrease in a stream are refused by simtrace-pack, --concat and --append: exit 1, the container keeps what came before" {
    local lk="$ROOT/testdata/good/sample.lackey"
    # the same lackey log twice into one stream
    run "$PACK" -T1 --from lackey -o x.sim "$lk" "$lk"
    expect_status 1
    # (the fetch stream meets the decrease first, at the second log's
    # first instruction line, line 6)
    expect_output_has "simtrace-pack: $lk: line 6: cycles decrease within a stream: stream 'fetch': entry 16655 has cycle 1, below cycle 16655 of the entry before it"
    expect_output_has "--allow-cycle-reset keeps such entries"
    run "$CAT" --verify x.sim
    expect_status 0
    "$PACK" -T1 --from lackey -o once.sim "$lk"
    run to a "$CAT" -s read x.sim
    run to b "$CAT" -s read once.sim
    same a b
    # raw entries: the entries before the first decrease are kept
    real_d64 3000 r
    cat r r >rr
    run "$PACK" -T1 --frame-size 1000 -o raw.sim rr
    expect_status 1
    expect_output_has "rr: at byte offset 96000: cycles decrease within a stream: stream 'trace': entry 3000 has cycle"
    run to back "$CAT" raw.sim
    same back r
    # --concat of two runs
    "$PACK" -T1 --frame-size 1000 -o one.sim r
    run "$PACK" -T1 --concat one.sim one.sim -o c.sim
    expect_status 1
    expect_output_has "cycles decrease within a stream: stream 'trace': entry 3000 has cycle"
    run "$CAT" --verify c.sim
    expect_status 0
    run to back2 "$CAT" c.sim
    same back2 r
    # two --append runs into one stream: the second is refused, the file stays valid
    cp one.sim ap.sim
    run "$PACK" -T1 --frame-size 1000 --append ap.sim r
    expect_status 1
    expect_output_has "entry 3000 has cycle"
    run "$CAT" --verify ap.sim
    expect_status 0
    cmp ap.sim one.sim
}

@test "--allow-cycle-reset keeps decreasing cycles; --verify reports them; --cycles then fails clearly; --entries works" {
    real_d64 3000 r
    cat r r >rr
    run "$PACK" -T1 --frame-size 1000 --allow-cycle-reset -o x.sim rr
    expect_status 0
    run to back "$CAT" x.sim
    same back rr
    run "$CAT" --verify x.sim
    expect_status 0
    expect_output_has "stream 'trace': the cycles decrease at entry 3000 (frame 3)"
    expect_output_has "--cycles cannot select from this stream (use --entries)"
    run "$CAT" -q --verify x.sim
    expect_status 0
    [[ -z $output ]] || fail "-q: $output"
    run "$CAT" --cycles 0: x.sim
    expect_status 1
    expect_output_has "the cycles of stream 'trace' decrease between frames; --cycles needs non-decreasing cycles (use --entries)"
    run to part "$CAT" --entries 3000: x.sim
    expect_status 0
    same part r
    # within a frame: a frame whose last cycle is below its first
    "$PACK" -T1 --frame-size 2000 --allow-cycle-reset -o y.sim rr
    run "$CAT" --verify y.sim
    expect_status 0
    expect_output_has "the cycles decrease within frame 1 (entries 2000..3999)"
}

# ---- the manners of a filter (issue 15 item 8) ----

@test "a reader gone from the pipe: simtrace-cat, svpc-decompress end quietly by SIGPIPE, as cat does" {
    real_d64 60000 r
    "$PACK" -T1 -o x.sim r
    run bash -c "'$CAT' x.sim | head -c 10 >/dev/null; exit \${PIPESTATUS[0]}"
    expect_status 141
    [[ -z $output ]] || fail "not quiet: $output"
    run bash -c "'$CAT' -F text x.sim | head -n 1 >/dev/null; exit \${PIPESTATUS[0]}"
    expect_status 141
    [[ -z $output ]] || fail "not quiet: $output"
    "$COMPRESS" -o y.sim r
    run bash -c "'$SVPC_BIN/svpc-decompress' -c y.sim | head -c 10 >/dev/null; exit \${PIPESTATUS[0]}"
    expect_status 141
    [[ -z $output ]] || fail "not quiet: $output"
}

@test "-v: the share of the input read, MB/s and time left for a file; the ratio only at the end" {
    # random entries are slow to compress: progress lines come (a second
    # apart); under the sanitizers a quarter is as slow
    local n=1048576
    [[ -n ${SVPC_SANITIZED:-} ]] && n=262144
    rand_bytes $((n * 32)) big
    # frames of 64k entries: encoded while the input is read, as it comes
    run "$COMPRESS" -T1 --frame-size 64k -v -o x.sim big
    expect_status 0
    expect_output_has "% of the input read, "
    expect_output_has " left; "
    [[ $output =~ svpc-compress:\ $n\ entries,\ [0-9.]+\ MB\ of\ entries,\ [0-9.]+\ MB\ out\ \([0-9.]+x\) ]] ||
        fail "last line: $output"
    # progress lines before the end carry no ratio
    local lines
    lines=$(tr '\r' '\n' <<<"$output" | grep "of the input read" | grep -c 'x)' || true)
    ((lines == 0)) || fail "a ratio before the end: $output"
}

@test "text given as raw entries: a warning naming --from (not with -q)" {
    local lk="$ROOT/testdata/good/sample.lackey"
    run "$PACK" -T1 --allow-cycle-reset -o x.sim "$lk"
    expect_output_has "simtrace-pack: $lk: warning: this looks like text, not raw entries (it is taken as entries all the same); a text trace is imported with --from FORMAT"
    run "$PACK" -q -T1 --allow-cycle-reset -f -o x.sim "$lk"
    [[ $output != *warning* ]] || fail "-q: $output"
    run "$COMPRESS" -c "$lk"
    expect_output_has "warning: this looks like text, not raw entries"
    expect_output_has "simtrace-pack --from FORMAT"
    # real raw entries: no warning
    real_d64 1000 r
    run "$PACK" -T1 -f -o x.sim r
    expect_status 0
    [[ -z $output ]] || fail "raw entries: $output"
}

@test "-10 and -99: a clear error naming the levels (exit 2)" {
    real_d64 10 r
    run "$COMPRESS" -10 r
    expect_status 2
    expect_output_has "svpc-compress: invalid compression level '-10' (use -1 .. -9)"
    run "$PACK" -99 r
    expect_status 2
    expect_output_has "simtrace-pack: invalid compression level '-99' (use -1 .. -9)"
    run "$COMPRESS" -9 -c r
    expect_status 0
}

@test "--list --frames: one line per data frame; --list --json: the same as JSON, from a file and a pipe" {
    real_d64 2500 a
    real_d64 1500 b 5000
    "$PACK" -T1 --frame-size 1000 --timestamps -o x.sim --stream ra a --stream rb b
    run "$CAT" --list --frames x.sim
    expect_status 0
    ((${#lines[@]} == 6)) || fail "want a header and 5 frames: $output"
    [[ ${lines[0]} == "stream "*"first entry"*"entries"*"first cycle"*"last time"*"bytes" ]] || fail "${lines[0]}"
    # ra's last frame, of 500 entries, is written at the end
    read -r -a f <<<"${lines[4]}"
    [[ ${f[0]} == ra && ${f[1]} == 2 && ${f[2]} == 2000 && ${f[3]} == 500 ]] || fail "${lines[4]}"
    [[ ${f[4]} == "$(cycle_of a 32 2000)" && ${f[5]} == "$(cycle_of a 32 2499)" ]] || fail "cycles: ${lines[4]}"
    run bash -c "cat x.sim | '$CAT' --list --frames"
    expect_status 0
    [[ $output == "$("$CAT" --list --frames x.sim)" ]] || fail "pipe differs: $output"
    "$CAT" --list --frames --json x.sim >j
    cat x.sim | "$CAT" --list --frames --json >jp
    same j jp
    python3 - j <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [s["name"] for s in d["streams"]] == ["ra", "rb"], d["streams"]
assert [s["entries"] for s in d["streams"]] == [2500, 1500]
assert len(d["frames"]) == 5
assert d["frames"][3]["first_entry"] == 2000 and d["frames"][3]["entries"] == 500
assert all("first_time" in f and f["first_time"] <= f["last_time"] for f in d["frames"])
PY
    "$CAT" --list --json x.sim | python3 -c 'import json,sys; d=json.load(sys.stdin); assert "frames" not in d and len(d["streams"]) == 2'
    run "$CAT" --json x.sim
    expect_status 2
    expect_output_has "--frames and --json go with --list"
    # -F, the format of entries written, with a mode that writes none
    local m
    for m in --list --verify --stats; do
        run "$CAT" $m -F text x.sim
        expect_status 2
        expect_output_has "simtrace-cat: -F text: --list, --verify and --stats write no entries"
    done
    run "$CAT" --list -F raw x.sim
    expect_status 0
}

@test "a failed import leaves no file behind, so the corrected command does not meet 'file exists'" {
    real_d64 1000 r
    "$PACK" -T1 -o c.sim r
    run "$PACK" -T1 --from lackey -o out.sim c.sim
    expect_status 1
    expect_output_has "out.sim: no entry was stored; the file is not written"
    [[ ! -e out.sim ]] || fail "out.sim left behind"
    run "$PACK" -T1 --from lackey -o out.sim "$ROOT/testdata/good/sample.lackey"
    expect_status 0
    [[ -s out.sim ]] || fail "no out.sim"
    # a failure after entries were stored keeps them (exit 1)
    printf 'I  04000000,3\n L 1fff000990,8\n this is no lackey line\n' >bad.lackey
    run "$PACK" -T1 --from lackey -o part.sim bad.lackey
    expect_status 1
    [[ -s part.sim ]] || fail "the entries before the bad line were not kept"
}

@test "svpc-compress: SIGINT finishes the container of the entries read, exit 130" {
    real_d64 60000 r
    mkfifo fifo
    perl -e 'use Time::HiRes qw(sleep); open(my $i, "<:raw", $ARGV[0]) or die; open(my $o, ">:raw", $ARGV[1]) or die;
             select($o); $| = 1; while (read($i, my $b, 32000)) { print $o $b or exit 0; sleep(0.05) }' r fifo &
    local feeder=$! pid st=0 n
    perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' "$COMPRESS" -T1 --frame-size 1000 -o out.sim fifo 2>err &
    pid=$!
    for ((n = 0; n < 300; n++)); do
        [[ -n $(find . -maxdepth 1 -name 'out.sim.tmp*' -size +2k) ]] && break
        sleep 0.1
    done
    kill -INT $pid
    wait $pid || st=$?
    kill $feeder 2>/dev/null || true
    wait $feeder || true
    ((st == 130)) || fail "exit $st: $(cat err)"
    "$SVPC_BIN/svpc-decompress" -c out.sim >back
    n=$(($(size back) / 32))
    ((n >= 1000 && n < 60000)) || fail "$n entries"
    is_prefix back r || fail "not the head of the input"
    grep -q "svpc-compress: out.sim: interrupted by SIGINT: the container is complete with $n entries" err || fail "$(cat err)"
}

@test "bochs-trace checks -o before it looks for Bochs" {
    touch exists.sim
    run "$ROOT/scripts/bochs-trace" -o exists.sim
    expect_status 1
    expect_output_has "bochs-trace: exists.sim: file exists; use -f to overwrite"
    run "$ROOT/scripts/bochs-trace" -o nodir/x.sim
    expect_status 1
    expect_output_has "cannot create a file in 'nodir'"
}

@test "--concat of a container cut off: its complete frames are copied into a complete container (exit 1, named)" {
    real_d64 5000 a
    "$PACK" -T1 --frame-size 1000 -o x.sim a
    local off
    off=$(data_frame_offset x.sim 3)
    head -c $((off + 500)) x.sim >cut.sim
    run "$PACK" -T1 --concat -o c.sim cut.sim
    expect_status 1
    expect_output_has "simtrace-pack: cut.sim: frame 3 of stream 0 at byte offset $((off + 500)): unexpected end of input (truncated): payload cut off"
    expect_output_has "cut.sim: its complete frames were copied to c.sim, which is complete"
    run "$CAT" --verify c.sim
    expect_status 0
    run to got "$CAT" c.sim
    same got <(head -c $((3000 * 32)) a)
    # the inputs after it are not read, and that is said (even with -q)
    run "$PACK" -T1 -q -f --concat -o c.sim cut.sim x.sim
    expect_status 1
    expect_output_has "c.sim: x.sim, the input after cut.sim, was not read"
    run "$PACK" -T1 -q -f --concat --allow-cycle-reset -o c.sim cut.sim x.sim x.sim
    expect_status 1
    expect_output_has "c.sim: the 2 inputs after cut.sim (from x.sim on) were not read"
}

@test "a damaged frame header of one stream: another stream still reads whole from a file (through the directory)" {
    two_streams
    local off
    off=$(data_frame_offset x.sim 2) # the third frame of ra, before rb's frames
    flip_byte x.sim $((off + 40))   # its first_entry field: the header checksum fails
    run to got "$CAT" -s rb x.sim
    expect_status 0
    same got b
    expect_output_has "passed over damaged frame 2 of stream 'ra' at byte offset $off (header checksum mismatch), not the stream read"
    # after entries of the stream read were written, too: rb first
    "$PACK" -T1 --frame-size 1000 -o y.sim --stream rb b --stream ra a
    off=$(data_frame_offset y.sim 25) # the sixth frame of ra
    flip_byte y.sim $((off + 40))
    run to got2 "$CAT" -s rb y.sim
    expect_status 0
    same got2 b
    run to got3 "$CAT" -s ra y.sim
    expect_status 1
    expect_output_has "header checksum mismatch"
    is_prefix got3 a
}

@test "empty windows are empty output with exit 0 on every stream, a stream without entries included, file and pipe" {
    local f="$ROOT/testdata/good/edge-stream-without-frames.sim" a how
    for a in "--cycles 0:" "--time 0:" "--entries 0:" "--entries 5:9" "--cycles 100:200"; do
        for how in file pipe; do
            if [[ $how == file ]]; then
                run to out "$CAT" -s empty $a "$f"
            else
                run to out sh -c "cat '$f' | '$CAT' -s empty $a"
            fi
            expect_status 0
            [[ ! -s out ]] || fail "$a ($how): output"
            case $a in
            --entries\ 0:) [[ -z $output ]] || fail "$a ($how): $output" ;;
            --entries*) expect_output_has "--entries ${a#* } starts past the end of stream 'empty' (0 entries): nothing written" ;;
            *) expect_output_has "stream 'empty' has no entries: $a writes nothing" ;;
            esac
        done
    done
    # a window between two entries' cycles: empty, quietly
    real_d64 100 r
    perl -e 'binmode STDOUT; print pack("Q<4", 10 * $_, 1, 2, 3) for 0 .. 99' >even.d64
    "$PACK" -T1 -o e.sim even.d64
    run to out "$CAT" --cycles 11:20 e.sim
    expect_status 0
    [[ ! -s out && -z $output ]] || fail "between entries: $output"
}

@test "descriptors 0-2 closed at start: no file takes their place; a closed stdin or stdout is an error (exit 1), a closed stderr is silence" {
    local DECOMPRESS="$SVPC_BIN/svpc-decompress"
    real_d64 1000 r
    "$COMPRESS" -T1 -o in.sim r
    # stderr closed: the -v summary went into the output file (fd 2)
    run bash -c "'$DECOMPRESS' -v -o v.d64 <in.sim 2>&-"
    expect_status 0
    [[ -z $output ]] || fail "stderr closed, yet: $output"
    same v.d64 r
    # ... and the warning about text into the container
    local i
    for ((i = 0; i < 100; i++)); do printf 'I  04000000,3 line %012d\n' $i; done >small.txt
    run bash -c "'$COMPRESS' -T1 -o lk.sim <small.txt 2>&-"
    expect_status 0
    "$DECOMPRESS" -c lk.sim >lk.back
    same lk.back small.txt
    # stdin closed: the temporary output got fd 0 and was read as the input
    fails_with "'$COMPRESS' -T1 -o cl.sim <&-" "svpc-compress: (stdin): read error: Bad file descriptor"
    [[ -z $(leftovers . cl.sim) ]] || fail "left: $(leftovers . cl.sim)"
    fails_with "'$DECOMPRESS' -o cl.d64 <&-" "svpc-decompress: (stdin): read error: Bad file descriptor"
    fails_with "'$PACK' -T1 -o cl.sim <&-" "simtrace-pack: (stdin): read error: Bad file descriptor"
    fails_with "'$CAT' <&-" "simtrace-cat: (stdin): read error: Bad file descriptor"
    [[ -z $(leftovers . cl.) ]] || fail "left: $(leftovers . cl.)"
    # stdout closed: a write error naming (stdout), not a silent success
    fails_with "'$DECOMPRESS' -c in.sim >&-" "svpc-decompress: (stdout): write error: Bad file descriptor"
    fails_with "'$COMPRESS' -T1 -c r >&-" "svpc-compress: (stdout): write error: Bad file descriptor"
    fails_with "'$CAT' in.sim >&-" "simtrace-cat: (stdout): write error: Bad file descriptor"
    fails_with "'$CAT' --list in.sim >&-" "simtrace-cat: (stdout): write error: Bad file descriptor"
    fails_with "'$PACK' -T1 r >&-" "simtrace-pack: (stdout): write error: Bad file descriptor"
    # a closed descriptor that is not used does not matter
    run bash -c "'$COMPRESS' -T1 -o ok.sim r <&- >&-"
    expect_status 0
    "$DECOMPRESS" -c ok.sim >ok.back
    same ok.back r
}

@test "a read error of the input is reported under the input's name, not the output's" {
    mkdir adir
    # standard input a directory: the first read (looking for xz, gzip or
    # zstd magic) fails
    fails_with "'$COMPRESS' -T1 <adir >x.sim" "svpc-compress: (stdin): read error: Is a directory"
    run "$COMPRESS" -T1 -o dd.sim <adir
    expect_status 1
    [[ $output == "svpc-compress: (stdin): read error: Is a directory" ]] || fail "$output"
    [[ -z $(leftovers . dd.sim) ]] || fail "left: $(leftovers . dd.sim)"
    run "$COMPRESS" -T1 --no-unpack -o dd.sim <adir
    expect_status 1
    expect_output_has "svpc-compress: (stdin): "
    expect_output_has "read error: Is a directory"
}

# race_out OPTS...: svpc-compress OPTS -o race.sim reading a FIFO; while it
# waits for its input, another command creates race.sim; then the input
# comes.  Sets status and output (stderr).
race_out() {
    rm -f race.sim fifo
    mkfifo fifo
    "$COMPRESS" -T1 "$@" -o race.sim fifo 2>err &
    local pid=$! n st=0 wfd
    exec {wfd}>fifo # (bats keeps 3 for itself)
    for ((n = 0; n < 100; n++)); do
        [[ -n $(leftovers . race.sim.tmp) ]] && break
        sleep 0.1
    done
    [[ -n $(leftovers . race.sim.tmp) ]] || fail "no temporary file"
    echo other >race.sim
    cat r >&"$wfd"
    exec {wfd}>&-
    wait $pid || st=$?
    status=$st
    output=$(cat err)
}

@test "-o without -f never replaces a file created while the program ran, nor a dangling symbolic link" {
    real_d64 2000 r
    race_out
    expect_status 1
    # the finished output is kept: its input (a pipe here) may be gone
    kept=$(leftovers . race.sim.tmp)
    [[ -n $kept && $(echo "$kept" | wc -l) -eq 1 ]] || fail "kept: $kept"
    [[ $output == "svpc-compress: race.sim: file exists (made while this ran); the output is kept as race.sim.tmp"*": rename it, or use -f" ]] ||
        fail "$output"
    [[ $output == *"$kept"* ]] || fail "$output does not name $kept"
    [[ $(cat race.sim) == other ]] || fail "race.sim was replaced"
    "$SVPC_BIN/svpc-decompress" -c "$kept" | cmp - r
    rm -f "$kept"
    # with -f it is replaced
    race_out -f
    expect_status 0
    "$SVPC_BIN/svpc-decompress" -c race.sim >back
    same back r
    # a dangling symbolic link is a name taken, refused before the work
    ln -s nowhere dl.sim
    run "$COMPRESS" -T1 -o dl.sim r
    expect_status 1
    [[ $output == "svpc-compress: dl.sim: file exists; use -f to overwrite" ]] || fail "$output"
    [[ -L dl.sim && ! -e nowhere ]] || fail "the link was changed"
    run "$PACK" -T1 -o dl.sim r
    expect_status 1
    [[ $output == "simtrace-pack: dl.sim: file exists; use -f to overwrite" ]] || fail "$output"
    [[ -z $(leftovers . dl.sim.tmp) ]] || fail "left: $(leftovers . dl.sim.tmp)"
    run "$COMPRESS" -T1 -f -o dl.sim r
    expect_status 0
    [[ ! -L dl.sim ]] || fail "-f: still a link"
}

@test "-o '' is bad usage at once (exit 2) for every program with -o, and leaves nothing" {
    real_d64 1000 r
    "$COMPRESS" -T1 -o in.sim r
    local p
    for p in "svpc-compress r" "svpc-compress -d in.sim" "svpc-decompress in.sim" "simtrace-pack r" \
        "simtrace-cat in.sim" "simtrace-cat in.sim in.sim"; do
        read -r -a a <<<"$p"
        run "$SVPC_BIN/${a[0]}" -T1 -o '' "${a[@]:1}"
        expect_status 2
        [[ $output == "${a[0]}: -o: empty file name" ]] || fail "$p: $output"
    done
    run "$ROOT/scripts/bochs-trace" -o ''
    expect_status 2
    expect_output_has "bochs-trace: -o: empty file name"
    [[ -z $(leftovers . .tmp) ]] || fail "left: $(leftovers . .tmp)"
}

@test "--help and --version that cannot be written: exit 1 with a write error naming (stdout)" {
    local p o
    for p in svpc-compress svpc-decompress simtrace-pack simtrace-cat; do
        for o in --help -h --version -V; do
            run bash -c "'$SVPC_BIN/$p' $o >/dev/full"
            expect_status 1
            [[ $output == "$p: (stdout): write error: No space left on device" ]] || fail "$p $o: $output"
        done
        run bash -c "'$SVPC_BIN/$p' --help >&-"
        expect_status 1
        [[ $output == "$p: (stdout): write error: Bad file descriptor" ]] || fail "$p --help >&-: $output"
        run to out "$SVPC_BIN/$p" --version
        expect_status 0
        [[ -z $output && $(cat out) == "$p (svpc) "* ]] || fail "$p --version: $output $(cat out)"
    done
    run bash -c "'$COMPRESS' -d --help >/dev/full"
    expect_status 1
    [[ $output == "svpc-compress: (stdout): write error: No space left on device" ]] || fail "-d --help: $output"
}

@test "svpc-decompress -t -v counts the entries it checked" {
    real_d64 5000 r
    "$COMPRESS" -T1 --frame-size 1000 -o in.sim r
    run "$SVPC_BIN/svpc-decompress" -T1 -t -v in.sim
    expect_status 0
    [[ $output =~ svpc-decompress:\ 5000\ entries,\ 0\.2\ MB\ checked, ]] || fail "$output"
    run bash -c "'$COMPRESS' -d -t -v <in.sim"
    expect_status 0
    [[ $output =~ svpc-compress:\ 5000\ entries,\ 0\.2\ MB\ checked, ]] || fail "$output"
    # a decompression still says what it wrote
    run to out "$SVPC_BIN/svpc-decompress" -v -c in.sim
    expect_status 0
    [[ $output =~ svpc-decompress:\ 5000\ entries,\ 0\.2\ MB\ out, ]] || fail "$output"
}

@test "-10 as the argument of an option (--stream -10, -o -12) is that argument, not a level" {
    real_d64 100 r
    run to x.sim "$COMPRESS" -T1 --stream -10 r
    expect_status 0
    [[ -z $output ]] || fail "$output"
    [[ $("$CAT" --list x.sim | awk 'NR == 2 { print $1 }') == -10 ]] || fail "$("$CAT" --list x.sim)"
    run "$COMPRESS" -T1 -o -12 r
    expect_status 0
    [[ -z $output && -s ./-12 ]] || fail "-o -12: $output"
    run "$COMPRESS" -T1 -vfo -12 r
    expect_status 0
    run to x.sim "$COMPRESS" -T1 --str -10 r
    expect_status 0
    run "$PACK" -T1 -o y.sim --stream -10 r
    expect_status 0
    [[ -z $output ]] || fail "$output"
    # a level where a level may stand is still refused
    run "$COMPRESS" -T1 --stream=-10 -12 r
    expect_status 2
    [[ $output == "svpc-compress: invalid compression level '-12' (use -1 .. -9)" ]] || fail "$output"
    run "$PACK" -T1 --stream x -99 r
    expect_status 2
    [[ $output == "simtrace-pack: invalid compression level '-99' (use -1 .. -9)" ]] || fail "$output"
}

# wait_tmp_over BYTES PID: poll until a temporary output out.sim.tmp* holds
# more than BYTES bytes, for at most 60 s (a loaded CI machine can start the
# program late); fails at once, with what there is, when PID has ended.
wait_tmp_over() {
    local n
    for ((n = 0; n < 600; n++)); do
        [[ -n $(find . -maxdepth 1 -name 'out.sim.tmp*' -size +"$1"c) ]] && return 0
        kill -0 "$2" 2>/dev/null || fail "the program ended before writing $1 bytes: $(ls -l out.sim* 2>&1); $(cat err 2>&1)"
        sleep 0.1
    done
    fail "no temporary output over $1 bytes after 60 s: $(ls -l out.sim* 2>&1); $(cat err 2>&1)"
}

# int_then_term PID: SIGINT, then SIGTERM while the first is handled (both
# sent while PID is stopped, so neither finds the program gone; SIGINT,
# the lower number, is taken first)
int_then_term() {
    kill -STOP "$1"
    kill -INT "$1"
    kill -TERM "$1"
    kill -CONT "$1"
}

# kept_prefix FILE INPUT: FILE, an unfinished container, reads (through its
# frame headers) as a prefix of INPUT of whole 1000-entry frames, at least
# one; --repair completes it with the same entries.  Prints the count.
kept_prefix() {
    local n
    "$CAT" "$1" >back 2>/dev/null || true
    n=$(($(size back) / 32))
    ((n >= 1000 && n % 1000 == 0)) || fail "$n entries kept"
    is_prefix back "$2" || fail "not the head of the input"
    "$PACK" --repair "$1" 2>/dev/null || fail "--repair failed"
    "$CAT" --verify "$1" >/dev/null || fail "--verify fails after --repair"
    "$CAT" "$1" | cmp - back || fail "--repair changed the entries"
    echo "$n"
}

@test "a second signal keeps the -o file's finished frames, renamed into place and fixable by --repair (svpc-compress, simtrace-pack)" {
    real_d64 120000 r
    local prog st feeder pid fifo
    for prog in "$COMPRESS" "$PACK"; do
        rm -f out.sim
        # a FIFO of its own for each program: no writer of the round before
        # can reach this one's reader
        fifo=fifo.${prog##*/}
        mkfifo "$fifo"
        slow_feed r 32000 0.1 "$fifo" &
        feeder=$!
        perl -e '$SIG{INT} = $SIG{TERM} = $SIG{HUP} = "DEFAULT"; exec @ARGV' "$prog" -T1 --frame-size 1000 -o out.sim "$fifo" 2>err &
        pid=$!
        wait_tmp_over 2000 $pid
        int_then_term $pid
        st=0
        wait $pid || st=$?
        kill $feeder 2>/dev/null || true
        wait $feeder || true
        ((st == 143)) || fail "exit $st: $(cat err)"
        [[ -z $(leftovers . out.sim.tmp) ]] || fail "left: $(leftovers . out.sim.tmp)"
        grep -q "^${prog##*/}: out.sim: stopped at once by a second SIGTERM: the frames written so far are kept, without the container's end; 'simtrace-pack --repair out.sim' completes it\$" err ||
            fail "$(cat err)"
        kept_prefix out.sim r >/dev/null
    done
}

@test "timeout's double SIGTERM (to the program, then its process group) is one request: simtrace-pack finishes the container" {
    real_d64 120000 r
    mkfifo fifo
    slow_feed r 32000 0.1 fifo &
    local feeder=$! st=0 n
    # the feeder is outside timeout's process group; it needs about 12 s
    timeout 1.5 "$PACK" -T1 --frame-size 1000 -s none -o out.sim fifo 2>err || st=$?
    kill $feeder 2>/dev/null || true
    wait $feeder || true
    ((st == 124)) || fail "exit $st: $(cat err)"
    [[ $(cat err) =~ ^simtrace-pack:\ out.sim:\ interrupted\ by\ SIGTERM:\ the\ container\ is\ complete\ with\ ([0-9]+)\ entries ]] ||
        fail "$(cat err)"
    n=${BASH_REMATCH[1]}
    "$CAT" --verify out.sim >/dev/null
    "$CAT" out.sim >back
    (($(size back) == n * 32 && n > 0)) && is_prefix back r || fail "$n entries"
}

@test "a second signal where -o's name was taken meanwhile keeps the frames under the temporary name the message gives" {
    real_d64 120000 r
    mkfifo fifo
    slow_feed r 32000 0.1 fifo &
    local feeder=$! st=0 pid tmp
    perl -e '$SIG{INT} = $SIG{TERM} = $SIG{HUP} = "DEFAULT"; exec @ARGV' "$COMPRESS" -T1 --frame-size 1000 -o out.sim fifo 2>err &
    pid=$!
    wait_tmp_over 2000 $pid
    echo other >out.sim
    int_then_term $pid
    wait $pid || st=$?
    kill $feeder 2>/dev/null || true
    wait $feeder || true
    ((st == 143)) || fail "exit $st: $(cat err)"
    [[ $(cat out.sim) == other ]] || fail "out.sim replaced"
    tmp=$(leftovers . out.sim.tmp)
    [[ -n $tmp ]] || fail "no temporary file kept"
    grep -q "^svpc-compress: out.sim: stopped at once by a second SIGTERM: the frames written so far are kept as out.sim.tmp[^ ]* (the name was taken), without the container's end; 'simtrace-pack --repair $tmp' completes it\$" err ||
        fail "$(cat err)"
    kept_prefix "$tmp" r >/dev/null
}

@test "a second signal during --append leaves the container readable through its frame headers; --repair ends it" {
    real_d64 20000 a
    real_d64 100000 r 30000
    "$PACK" -T1 --frame-size 1000 -s none -o x.sim --stream a a
    mkfifo fifo
    slow_feed r 32000 0.1 fifo &
    local feeder=$! st=0 pid n
    perl -e '$SIG{INT} = $SIG{TERM} = $SIG{HUP} = "DEFAULT"; exec @ARGV' "$PACK" -T1 --frame-size 1000 -s none --append x.sim --stream b fifo 2>err &
    pid=$!
    local before
    before=$(size x.sim)
    for ((n = 0; n < 300; n++)); do
        (($(size x.sim) > before + 2000)) && break
        sleep 0.1
    done
    int_then_term $pid
    wait $pid || st=$?
    kill $feeder 2>/dev/null || true
    wait $feeder || true
    ((st == 143)) || fail "exit $st: $(cat err)"
    "$CAT" --stream a x.sim 2>/dev/null | cmp - a || fail "stream a"
    "$CAT" --stream b x.sim >back 2>/dev/null || true
    n=$(($(size back) / 32))
    ((n >= 1000)) && is_prefix back r || fail "stream b: $n entries"
    "$PACK" --repair x.sim 2>/dev/null
    "$CAT" --verify x.sim >/dev/null
    "$CAT" --stream a x.sim | cmp - a
}

@test "a signal before svpc-compress has seen its input's first bytes: a complete container of 0 entries on stdout; no -o file" {
    mkfifo fifo
    local st=0 pid n holder
    # a writer that holds the FIFO open and writes nothing
    sleep 60 >fifo &
    holder=$!
    perl -e '$SIG{INT} = $SIG{TERM} = $SIG{HUP} = "DEFAULT"; exec @ARGV' "$COMPRESS" -T1 fifo >out.sim 2>err &
    pid=$!
    for ((n = 0; n < 300; n++)); do
        (($(size out.sim) >= 64)) && break
        sleep 0.1
    done
    sleep 0.2
    kill -INT $pid
    wait $pid || st=$?
    ((st == 130)) || fail "exit $st: $(cat err)"
    grep -q "^svpc-compress: (stdout): interrupted by SIGINT: the container is complete with 0 entries\$" err || fail "$(cat err)"
    "$CAT" --verify out.sim >/dev/null || fail "not a complete container ($(size out.sim) bytes)"
    # with -o: nothing is left, as for any run interrupted before its first entry
    rm -f out.sim
    st=0
    perl -e '$SIG{INT} = $SIG{TERM} = $SIG{HUP} = "DEFAULT"; exec @ARGV' "$COMPRESS" -T1 -o out.sim fifo 2>err &
    pid=$!
    wait_tmp_over 63 $pid
    sleep 0.2
    kill -INT $pid
    wait $pid || st=$?
    kill $holder 2>/dev/null || true
    wait $holder || true
    ((st == 130)) || fail "exit $st: $(cat err)"
    [[ ! -e out.sim && -z $(leftovers . out.sim) ]] || fail "left: $(leftovers . out.sim)"
    grep -q "^svpc-compress: out.sim: interrupted by SIGINT: not written: it would hold 0 entries\$" err || fail "$(cat err)"
}

@test "-o names of 254 and 255 bytes work: the temporary name is cut to fit the directory's limit; 256 is refused at once" {
    real_d64 1000 r
    local name len
    for len in 254 255; do
        name=$(printf 'n%.0s' $(seq "$len"))
        run "$COMPRESS" -T1 -o "$name" r
        expect_status 0
        "$SVPC_BIN/svpc-decompress" -c "$name" | cmp - r
        run "$PACK" -T1 -o "p${name:1}" r
        expect_status 0
        "$CAT" "p${name:1}" | cmp - r
    done
    run "$COMPRESS" -T1 -o "x$name" r
    expect_status 2
    [[ $output == "svpc-compress: x$name: file name too long (256 bytes; at most 255)" ]] || fail "$output"
    [[ -z $(find . -name '*.tmp*') ]]
}

@test "--help=x and a long option without its argument are named as given, not by a short option" {
    local prog
    for prog in "$COMPRESS" "$PACK" "$CAT" "$SVPC_BIN/svpc-decompress"; do
        run "$prog" --help=x
        expect_status 2
        [[ $(first_line) == "${prog##*/}: option '--help' takes no argument (given '--help=x')" ]] || fail "$output"
    done
    run "$COMPRESS" r --frame-size
    expect_status 2
    [[ $(first_line) == "svpc-compress: option '--frame-size' requires an argument" ]] || fail "$output"
    # a short option in a group after a long one is still named as itself
    run "$COMPRESS" --stream=a -vx r
    expect_status 2
    [[ $(first_line) == "svpc-compress: invalid option or missing argument: '-x'" ]] || fail "$output"
}

@test "250 streams: the frames being filled stay within the writer's bound (peak RSS under 140 MB, not a frame per stream), the same bytes at -T1 and -T2" {
    real_d64 20000 r
    local -a args=()
    local i kb
    for ((i = 0; i < 250; i++)); do args+=(--stream "s$i" r); done
    # a partial frame of 20000 entries (640,000 bytes) for each stream would
    # be 160 MB; ST_WRITER_HELD_FRAMES frames of 64k entries are 16 MiB
    /usr/bin/time -f %M -o rss "$PACK" -T2 --frame-size 64k -o t2.sim "${args[@]}"
    "$PACK" -T1 --frame-size 64k -o t1.sim "${args[@]}"
    cmp t1.sim t2.sim
    "$CAT" --stream s249 t2.sim | cmp - r
    kb=$(tail -n 1 rss)
    [[ -n ${SVPC_SANITIZED:-} ]] || ((kb < 140000)) || fail "peak RSS $kb KB"
}

@test "simtrace-pack stopped by SIGINT inside an entry of a compressed input ends at once, though the input's writer goes on" {
    # the decompressing thread must be told to stop, not drained to the
    # end of an upstream that may never end
    real_of d64 20000 in.d64
    head -c 7 /dev/zero >>in.d64
    zstd -q -c in.d64 >in.zst
    mkfifo fifo
    local st=0 pid holder n
    (cat in.zst && exec sleep 60) >fifo &
    holder=$!
    perl -e '$SIG{INT} = $SIG{TERM} = $SIG{HUP} = "DEFAULT"; exec @ARGV' "$PACK" -T1 --type d64 -o out.sim fifo 2>err &
    pid=$!
    wait_tmp_over 63 $pid
    sleep 1
    kill -INT $pid
    for ((n = 0; n < 100; n++)); do
        kill -0 $pid 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 $pid 2>/dev/null; then
        kill -KILL $pid $holder 2>/dev/null || true
        fail "still running 10 s after SIGINT: $(cat err)"
    fi
    wait $pid || st=$?
    kill $holder 2>/dev/null || true
    wait $holder || true
    ((st == 130)) || fail "exit $st: $(cat err)"
    grep -q "interrupted inside an entry" err || fail "$(cat err)"
    "$CAT" --verify out.sim >/dev/null || fail "not a complete container"
    [[ $("$CAT" -q -l out.sim | awk 'NR == 2 { print $3 }') == 20000 ]] || fail "entries: $("$CAT" -q -l out.sim)"
}
