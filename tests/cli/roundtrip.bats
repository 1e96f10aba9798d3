#!/usr/bin/env bats
# Byte-exact round trips: entry types, encoders, second stages, levels,
# frame sizes, pipes and files, empty / tiny / partial inputs.

load helpers

# rt IN OUT ARGS...: svpc-compress ARGS < IN | svpc-decompress > OUT, both
# through pipes.  Fails with both programs' messages unless both succeed
# silently and OUT equals IN.
rt() {
    local in=$1 out=$2 rc=0
    shift 2
    "$COMPRESS" "$@" <"$in" 2>"$out.err1" | "$DECOMPRESS" >"$out" 2>"$out.err2" || rc=$?
    if ((rc != 0)) || [[ -s $out.err1 || -s $out.err2 ]]; then
        fail "svpc-compress $* < $in | svpc-decompress: exit $rc;" \
            "compress said: $(cat "$out.err1"); decompress said: $(cat "$out.err2")"
    fi
    cmp -- "$in" "$out" || fail "round trip differs: svpc-compress $* < $in (source: $(real_source))"
}

# mixed TYPE FILE: 200 real-trace-derived entries then 100 random entries of
# TYPE.  Compressed with --frame-size 200 this gives one all-real frame and
# one short all-random frame.
mixed() {
    local t=$1 f=$2
    real_of "$t" 200 "$f.real" 5000
    rand_bytes $((100 * ESIZE[$t])) "$f.rand"
    cat "$f.real" "$f.rand" >"$f"
    rm -f "$f.real" "$f.rand"
}

# matrix TYPE: every encoder x every second stage on a mixed input.  Under
# sanitizers (SVPC_SANITIZED=1, where each run costs several times more) a
# pairwise-covering subset: every (type, encoder), (encoder, stage) and
# (type, stage) pair still occurs across the four types.
STAGES=(lzma bzip2 zlib none)
ENCODERS=(cm cm2 paper generic fast best mix cmx)
# the encoders without a second stage: -s with them is refused
declare -gA STAGELESS=([cm2]=1 [fast]=1 [best]=1 [mix]=1 [cmx]=1)
# stage_of E S: "-s S", or nothing for an encoder without a second stage
stage_of() {
    [[ ${STAGELESS[$1]:-} ]] || echo "-s $2"
}
declare -gA TYPE_INDEX=([d64]=0 [d32]=1 [m64]=2 [m32]=3)
matrix() {
    local t=$1 e s i=${TYPE_INDEX[$1]} j
    mixed "$t" in
    [[ $(size in) -eq $((300 * ESIZE[$t])) ]] || fail "input generator made $(size in) bytes"
    if [[ $SANITIZED == 1 ]]; then
        for j in 0 1 2 4; do
            # shellcheck disable=SC2046
            rt in out -t "$t" -e "${ENCODERS[j]}" $(stage_of "${ENCODERS[j]}" "${STAGES[(i + j) % 4]}") --frame-size 200
        done
        rt in out -t "$t" -e generic -s "${STAGES[(i + 3) % 4]}" --frame-size 200
        return
    fi
    for e in "${ENCODERS[@]}"; do
        if [[ ${STAGELESS[$e]:-} ]]; then
            rt in out -t "$t" -e "$e" --frame-size 200
            continue
        fi
        for s in "${STAGES[@]}"; do
            rt in out -t "$t" -e "$e" -s "$s" --frame-size 200
        done
    done
}

@test "d64: every encoder x second stage round-trips real and random entries (pipes)" {
    matrix d64
}

@test "d32: every encoder x second stage round-trips real and random entries (pipes)" {
    matrix d32
}

@test "m64: every encoder x second stage round-trips real and random entries (pipes)" {
    matrix m64
}

@test "m32: every encoder x second stage round-trips real and random entries (pipes)" {
    matrix m32
}

@test "random bytes alone, every type and encoder, default settings" {
    local t e j=0
    for t in d64 d32 m64 m32; do
        rand_bytes $((257 * ESIZE[$t])) "r.$t"
        if [[ $SANITIZED == 1 ]]; then
            rt "r.$t" out -t "$t" -e "${ENCODERS[j++ % 3]}"
            continue
        fi
        for e in "${ENCODERS[@]}"; do
            rt "r.$t" out -t "$t" -e "$e"
        done
    done
}

@test "levels -1 .. -9 choose the method: each round-trips every type at two frame sizes, -T1 and -T2 give the same bytes, -6 is the default" {
    real_d64 600 in 20000
    local l t
    "$COMPRESS" -T1 in >default
    for l in 1 2 3 4 5 6 7 8 9; do
        [[ $SANITIZED == 1 && $l != [1789] ]] && continue
        for t in d64 d32 m64 m32; do
            rt in out -t "$t" "-$l"
            rt in out -t "$t" "-$l" --frame-size 7
        done
        "$COMPRESS" -T1 "-$l" in >c1
        "$COMPRESS" -T2 --frame-size 100 "-$l" in >c2
        "$COMPRESS" -T1 --frame-size 100 "-$l" in >c3
        cmp c2 c3 || fail "-$l: -T1 and -T2 differ"
        "$SIMTRACE_CAT" --stats c1 | grep -q "encoder $( ((l <= 5)) && echo fast || { ((l >= 7)) && echo mix || echo cmx; })" ||
            fail "-$l: not the encoder of its level: $("$SIMTRACE_CAT" --stats c1 | head -1)"
        cp c1 "level$l"
    done
    # -7 and -8 are methods of their own: between -6 and -9 in size here too
    # (a sanitized run skips -2 .. -6)
    if [[ $SANITIZED != 1 ]] && cmp -s level6 level7; then fail "-7 wrote -6's bytes"; fi
    cmp -s level7 level8 && fail "-7 and -8 wrote the same bytes"
    cmp -s level8 level9 && fail "-8 wrote -9's bytes"
    if [[ $SANITIZED != 1 ]]; then
        (($(size level6) > $(size level7) && $(size level7) > $(size level8) && $(size level8) > $(size level9))) ||
            fail "sizes of -6 .. -9 not decreasing: $(size level6) $(size level7) $(size level8) $(size level9)"
    fi
    "$COMPRESS" -T1 -6 in >c6
    cmp default c6 || fail "-6 differs from the default"
    "$COMPRESS" -T1 --fast in >f
    "$COMPRESS" -T1 -1 in >c1
    cmp f c1 || fail "--fast differs from -1"
    "$COMPRESS" -T1 --best in >b
    "$COMPRESS" -T1 -9 in >c9
    cmp b c9 || fail "--best differs from -9"
}

@test "simtrace-pack takes the levels as svpc-compress does: -1 (--fast) the fast encoder, -6 the default" {
    real_d64 600 in 20000
    "$SIMTRACE_PACK" -T1 in >d
    "$SIMTRACE_PACK" -T1 -6 in >c6
    cmp d c6 || fail "-6 differs from the default"
    "$SIMTRACE_PACK" -T1 -1 in >c1
    "$SIMTRACE_PACK" -T1 --fast in >f
    cmp c1 f || fail "--fast differs from -1"
    "$SIMTRACE_CAT" --stats c1 | grep -q "encoder fast)" || fail "-1: $("$SIMTRACE_CAT" --stats c1 | head -1)"
    "$SIMTRACE_CAT" -c c1 | cmp -s - in || fail "-1 round trip differs"
    "$SIMTRACE_PACK" -T1 -e cm -1 in >m
    "$SIMTRACE_CAT" --stats m | grep -q "encoder cm)" || fail "-e cm -1: $("$SIMTRACE_CAT" --stats m | head -1)"
}

@test "-e with a level and -s: the encoders' own levels and stages" {
    real_d64 600 in 20000
    local l s
    for l in 1 9; do
        for s in "${STAGES[@]}"; do
            [[ $s == none ]] && continue # none takes no level
            rt in out "-$l" -e cm -s "$s"
        done
        rt in out "-$l" -e paper
        rt in out "-$l" -e generic -s zlib
        rt in out "-$l" -e fast
        [[ $SANITIZED == 1 ]] && break
    done
    rt in out -e generic -s none
    # long option forms and a level given twice (the last one counts)
    rt in out --type=d64 --stage=bzip2 --encoder=paper -1 -9
    "$COMPRESS" -e fast -9 in >a
    "$COMPRESS" -e fast -1 in >b
    cmp -s a b && fail "-e fast -9 and -1 gave the same bytes"
    "$COMPRESS" -e fast in >c
    cmp b c || fail "-e fast without a level is not -e fast -1"
}

@test "round trip through FILE argument, -o, and stdin agree byte for byte" {
    real_d64 1000 in 1000
    run to c.stdout "$COMPRESS" in
    expect_status 0
    [[ -z $output ]] || fail "unexpected message: $output"
    run "$COMPRESS" -o c.file in
    expect_status 0
    [[ -z $output ]] || fail "unexpected message: $output"
    "$COMPRESS" <in >c.pipe
    same c.stdout c.file
    same c.stdout c.pipe
    [[ $(size c.file) -lt $(size in) ]] || fail "real trace data did not shrink: $(size c.file) >= $(size in)"

    "$DECOMPRESS" c.file >d.stdout
    run "$DECOMPRESS" -o d.file c.file
    expect_status 0
    [[ -z $output ]] || fail "unexpected message: $output"
    "$DECOMPRESS" <c.file >d.pipe
    same in d.stdout
    same in d.file
    same in d.pipe

    # '-' for standard input, long options, '--' (the generic encoder: quick)
    "$COMPRESS" -e generic - <in >g.dash
    "$COMPRESS" --encoder=generic --output=g.long -- in
    same g.dash g.long
    "$DECOMPRESS" --output=d.long -- g.long
    "$DECOMPRESS" - <g.dash >d.dash
    same in d.long
    same in d.dash
}

@test "-c after -o writes to standard output" {
    real_d64 100 in
    "$COMPRESS" -o never.svpc -c in >c
    [[ ! -e never.svpc ]] || fail "-c did not override -o"
    "$DECOMPRESS" -o never.raw -c c >d
    [[ ! -e never.raw ]] || fail "-c did not override -o"
    same in d
}

@test "frame size 1: one frame per entry" {
    real_d64 40 in 300
    run "$COMPRESS" --frame-size 1 -o c in
    expect_status 0
    # file header, stream descriptor, 40 data frames, directory, footer
    [[ $(frames c | grep -c ' 1$') -eq 40 ]] || fail "expected 40 data frames, got: $(frames c | grep -c ' 1$')"
    # the footer counts the frames before the directory: descriptor + 40
    [[ $(u64 c $(($(size c) - 16))) -eq 41 ]] || fail "footer frame count $(u64 c $(($(size c) - 16))), expected 41"
    "$DECOMPRESS" c >out
    same in out
    # random entries too, with the paper encoder and no second stage
    rand_bytes $((25 * 32)) r
    rt r out --frame-size 1 -e paper -s none
    # and cm2, whose frames of one entry are its smallest
    rt in out --frame-size 1 -e cm2
}

@test "frame size 7: many frames, last one partial" {
    real_d64 351 in 40000
    "$COMPRESS" --frame-size 7 in >c
    [[ $(frames c | grep -c ' 1$') -eq 51 ]] || fail "expected 51 data frames (351 / 7), got $(frames c | grep -c ' 1$')"
    "$DECOMPRESS" c >out
    same in out
    rand_bytes $((99 * 20)) r
    rt r out --frame-size 7 -t d32 -e cm -s zlib
    rt in out --frame-size 7 -e cm2
    rt r out --frame-size 7 -t d32 -e cm2
}

@test "frame size 1000 (and the k suffix) on a 5500-entry input" {
    real_d64 5500 in 100000
    rt in out --frame-size 1000
    "$COMPRESS" --frame-size 1000 in >c
    [[ $(frames c | grep -c ' 1$') -eq 6 ]] || fail "expected 6 data frames, got $(frames c | grep -c ' 1$')"
    "$COMPRESS" --frame-size 1k in >c1k
    [[ $(frames c1k | grep -c ' 1$') -eq 6 ]] || fail "--frame-size 1k: expected 6 data frames (1024 per frame)"
    "$DECOMPRESS" c1k >out
    same in out
}

@test "empty input gives a valid container that decompresses to 0 bytes" {
    local t
    : >empty
    for t in d64 d32 m64 m32; do
        run to "c.$t" "$COMPRESS" -t "$t" empty
        expect_status 0
        [[ -z $output ]] || fail "unexpected message: $output"
        [[ $(head -c 8 "c.$t") == simtrace ]] || fail "no container magic"
        [[ $(tail -c 8 "c.$t" | head -c 4) == STEN ]] || fail "no footer magic"
        run to "out.$t" "$DECOMPRESS" "c.$t"
        expect_status 0
        [[ -z $output ]] || fail "unexpected message: $output"
        [[ -f out.$t && $(size "out.$t") -eq 0 ]] || fail "expected 0 bytes, got $(size "out.$t")"
    done
    # through pipes and -o as well
    "$COMPRESS" </dev/null | "$DECOMPRESS" >pipe.out
    [[ $(size pipe.out) -eq 0 ]]
    "$COMPRESS" -o c.o empty
    "$DECOMPRESS" -o d.o c.o
    [[ -f d.o && $(size d.o) -eq 0 ]] || fail "-o of an empty trace: expected an empty file"
    run "$DECOMPRESS" -t c.o
    expect_status 0
}

@test "one entry of every type" {
    local t e
    for t in d64 d32 m64 m32; do
        real_of "$t" 1 "one.$t" 123
        [[ $(size "one.$t") -eq ${ESIZE[$t]} ]]
        for e in "${ENCODERS[@]}"; do
            # under sanitizers: the generic encoder on d64 only
            [[ $SANITIZED == 1 && $e == generic && $t != d64 ]] && continue
            rt "one.$t" out -t "$t" -e "$e"
        done
        [[ $SANITIZED == 1 ]] && continue
        rand_bytes "${ESIZE[$t]}" "r1.$t"
        rt "r1.$t" out -t "$t"
    done
}

@test "partial entry: 33 bytes of d64 exits 1, names it, and keeps the whole entry" {
    real_d64 2 two
    head -c 33 two >in33
    run to c "$COMPRESS" in33
    expect_status 1
    expect_prefix svpc-compress
    expect_output_has "partial entry"
    expect_output_has "in33"
    "$DECOMPRESS" c >out
    head -c 32 two >want
    same want out

    # through a pipe, and with -o (the container of the whole entries is kept)
    run to c2 "$COMPRESS" <in33
    expect_status 1
    expect_output_has "partial entry"
    "$DECOMPRESS" c2 >out2
    same want out2
    run "$COMPRESS" -o c3 in33
    expect_status 1
    expect_output_has "partial entry"
    "$DECOMPRESS" c3 >out3
    same want out3
}

@test "a pipe delivering entries in pieces that straddle entries and frames" {
    real_d64 1000 in
    # 13-byte writes with pauses: most reads end inside an entry, and frames
    # of 7 entries end inside a read
    slow() { perl -e 'binmode STDIN; $| = 1; while (read(STDIN, my $b, 13)) { print $b; select(undef, undef, undef, 0.0005) }' <"$1"; }
    slow in | "$COMPRESS" --frame-size 7 -T2 >c
    "$DECOMPRESS" c >out
    same in out
    "$COMPRESS" --frame-size 7 -T1 <in | cmp -s - c || fail "a pipe gave other bytes than a file"
    # and a partial entry at the very end of a frame
    head -c $((7 * 32 + 5)) in >p
    run to c2 "$COMPRESS" --frame-size 7 <p
    expect_status 1
    expect_output_has "5 trailing bytes at byte offset 224"
    "$DECOMPRESS" c2 >out2
    head -c 224 in >want2
    same want2 out2
}

@test "partial entry for every type, and input shorter than one entry" {
    local t n
    for t in d64 d32 m64 m32; do
        n=${ESIZE[$t]}
        rand_bytes $((3 * n + n - 1)) "p.$t"
        run to "c.$t" "$COMPRESS" -t "$t" "p.$t"
        expect_status 1
        expect_prefix svpc-compress
        expect_output_has "partial entry"
        "$DECOMPRESS" "c.$t" >"o.$t"
        head -c $((3 * n)) "p.$t" >"w.$t"
        same "w.$t" "o.$t"
    done
    rand_bytes 5 tiny
    run to c "$COMPRESS" tiny
    expect_status 1
    expect_output_has "partial entry"
    "$DECOMPRESS" c >out
    [[ $(size out) -eq 0 ]] || fail "expected no entries, got $(size out) bytes"
}

@test "stream name, timestamps, verbose and -k do not change the round trip" {
    real_d64 3000 in 7000
    rt in out --stream=bios --timestamps --frame-size 1000
    # -v: progress lines start with a carriage return
    run to c "$COMPRESS" -v -k in
    expect_status 0
    expect_output_has "svpc-compress: 3000 entries"
    run to out "$DECOMPRESS" -v -k c
    expect_status 0
    expect_output_has "svpc-decompress: 3000 entries"
    same in out
    # default output is deterministic (no timestamps)
    "$COMPRESS" in >c2
    same c c2
    # -q is accepted
    "$COMPRESS" -q in >c3
    same c c3
}

@test "corpus: 1 MiB slices of each reference trace round-trip and shrink at least 20x" {
    local f n=0
    [[ -d $CORPUS_DIR ]] || skip "reference corpus not found at $CORPUS_DIR"
    for f in "$CORPUS_DIR"/*.zst; do
        [[ -f $f ]] || continue
        { zstd -dc -- "$f" 2>/dev/null || true; } | head -c 1048576 >in
        [[ $(size in) -eq 1048576 ]] || fail "$f: short slice"
        "$COMPRESS" in >c
        "$DECOMPRESS" c >out
        same in out
        (($(size c) * 20 <= $(size in))) || fail "$f: 1 MiB slice compressed to only $(size c) bytes"
        "$COMPRESS" -e cm2 in >c
        "$DECOMPRESS" c >out
        same in out
        (($(size c) * 20 <= $(size in))) || fail "$f: 1 MiB slice compressed by cm2 to only $(size c) bytes"
        n=$((n + 1))
    done
    ((n > 0)) || skip "no .zst traces in $CORPUS_DIR"
}

@test "containers of svpc 0.1 (format 1.1, encoder cm1) still decode to the same entries" {
    xz -dc "$ROOT/testdata/good/lackey_cc1_read.d64.xz" | head -c $((5000 * 32)) >want
    "$DECOMPRESS" "$ROOT/testdata/good/compat-1.1-cm.sim" >out
    same want out
    # (the vpc fixture of svpc 0.1, vpc-cm-encoder.sim, is checked in import.bats)
    # cm1 is still written on request, and the default cm is smaller
    "$COMPRESS" -e cm1 --frame-size 2000 want >c1
    "$COMPRESS" --frame-size 2000 want >c4
    "$DECOMPRESS" c1 | cmp -s - want || fail "cm1 round trip"
    "$DECOMPRESS" c4 | cmp -s - want || fail "cm round trip"
    (($(size c4) < $(size c1))) || fail "cm ($(size c4) bytes) not smaller than cm1 ($(size c1))"
}

@test "containers of format 1.3 (svpc before cm2) still decode to the same entries" {
    xz -dc "$ROOT/testdata/good/lackey_cc1_write.d64.xz" | head -c $((20000 * 32)) >want
    "$DECOMPRESS" "$ROOT/testdata/good/compat-1.3-cm.sim" >out
    same want out
    run "$SIMTRACE_CAT" --verify "$ROOT/testdata/good/compat-1.3-cm.sim"
    expect_status 0
}

@test "containers of format 1.4 (cm2 as first made the default) still decode to the same entries" {
    # 12000 entries of bios_write_300k and 8000 of grub_work.write from
    # entry 1,000,000 (hash states: the raw lanes), frames of 7000
    G="$ROOT/testdata/good/compat-1.4-cm2.sim"
    "$DECOMPRESS" "$G" >out
    (($(size out) == 20000 * 32)) || fail "decoded $(size out) bytes"
    xz -dc "$ROOT/testdata/good/bios_write_300k.d64.xz" | head -c $((12000 * 32)) >want
    head -c $((12000 * 32)) out | cmp -s - want || fail "the bios part differs"
    [[ $(sha256sum <out) == 3a166058de42b17d0b8d053156c7b19af20c4199e0d2cebf2970919cd3ced8e1* ]] ||
        fail "decoded entries differ from those packed"
    run "$SIMTRACE_CAT" --verify "$G"
    expect_status 0
}

# set_payload_byte0 FILE [VALUE]: FILE with the first byte of its first
# data frame's payload (of its DATA value) set to VALUE, its payload and
# header CRCs redone, on stdout; without VALUE, prints that byte.
set_payload_byte0() {
    python3 - "$@" <<'PY'
import struct, sys, zlib
b = bytearray(open(sys.argv[1], 'rb').read())
off = 64
while b[off + 4] != 1:  # past the descriptor to the first data frame
    off += 96 + struct.unpack_from('<Q', b, off + 72)[0]
size = struct.unpack_from('<Q', b, off + 72)[0]
p = off + 96
if len(sys.argv) < 3:
    print(b[p + 16])  # after the DATA attribute's key, flags and length
    sys.exit(0)
b[p + 16] = int(sys.argv[2])
struct.pack_into('<I', b, off + 80, zlib.crc32(bytes(b[p:p + size])))
struct.pack_into('<I', b, off + 92, zlib.crc32(bytes(b[off:off + 92])))
sys.stdout.buffer.write(b)
PY
}

# compat_entries FIXTURE ENCODER: a container of testdata/good made with
# ENCODER from the entries of compat-1.4-cm2.sim still decodes to them
compat_entries() {
    local G="$ROOT/testdata/good/$1"
    "$SIMTRACE_CAT" --stats "$G" | grep -q "encoder $2)" || fail "$1: not encoder $2: $("$SIMTRACE_CAT" --stats "$G" | head -1)"
    "$DECOMPRESS" -T2 "$G" >out
    [[ $(sha256sum <out) == 3a166058de42b17d0b8d053156c7b19af20c4199e0d2cebf2970919cd3ced8e1* ]] ||
        fail "$1: decoded entries differ from those packed"
    run "$SIMTRACE_CAT" --verify "$G"
    expect_status 0
}

@test "a fast-encoder container (encoder 7, as svpc-compress -1 first wrote it) still decodes to the same entries" {
    # frames of 7000
    compat_entries encoder7-fast.sim fast
}

@test "mix containers (encoder 12, as svpc-compress -7 and -8 first wrote them) still decode to the same entries" {
    # frames of 7000, one context (-7) and two (-8), parameter bytes 1 and 2
    compat_entries encoder12-mix7.sim mix
    compat_entries encoder12-mix8.sim mix
}

@test "mix containers with the transform (encoder 12 at -7, -8, -9 with parameter bytes 5, 6, 7) and cmx containers (encoder 13, -6) still decode to the same entries" {
    # frames of 7000
    compat_entries encoder12-mix7x.sim mix
    compat_entries encoder12-mix8x.sim mix
    compat_entries encoder12-mix9x.sim mix
    compat_entries encoder13-cmx.sim cmx
}

@test "a mix frame whose parameter byte is not 1, 2, 5, 6 or 7 is refused with a clear error, exit 1" {
    real_d64 3000 in
    "$COMPRESS" -T1 -7 --frame-size 1000 -o c in
    set_payload_byte0 c 5 >same
    cmp c same || fail "the rewrite changed more than the parameter byte"
    local v
    for v in 0 3 4 8 255; do
        set_payload_byte0 c "$v" >bad
        run "$DECOMPRESS" -o out bad
        expect_status 1
        expect_output_has "svpc-decompress: bad: frame 0 of stream 0 at byte offset"
        expect_output_has "mix payload's parameter byte is $(printf 0x%02x "$v"): not 1, 2, 5, 6 or 7"
    done
}

@test "cmx (-6) codes a frame without the transform where that is smaller: not larger than cm2; such a container still decodes, and every -T writes the same bytes" {
    # 10000 entries of a Linux md5sum trace's reads (testdata/good/README.md):
    # no hash states there, and the transform, tried 182 times, is never right
    local G="$ROOT/testdata/good/encoder13-cmx-off.sim"
    [[ $(set_payload_byte0 "$G") == 1 ]] || fail "the fixture's frame is not one without the transform"
    "$DECOMPRESS" "$G" >in
    [[ $(sha256sum <in) == a76041276dd0cac54af31960ebb3a7b7a9854e52b3b5cb9048742af5247030b5* ]] ||
        fail "decoded entries differ from those packed"
    "$COMPRESS" -T1 -6 in >c6
    "$COMPRESS" -T1 -e cm2 in >c2
    (($(size c6) <= $(size c2))) || fail "-6: $(size c6) bytes, cm2 $(size c2)"
    [[ $(set_payload_byte0 c6) == 1 ]] || fail "-6 kept the transform"
    "$DECOMPRESS" c6 | cmp - in
    # the choice is the frame's own: the same bytes from the threaded
    # writer, in frames of 3000 (the last one shorter), through a pipe
    "$COMPRESS" -T1 -6 --frame-size 3000 in >t1
    local t
    for t in 2 3; do
        cat in | "$COMPRESS" -T$t -6 --frame-size 3000 >t$t
        cmp t1 t$t || fail "-T$t wrote other bytes than -T1"
    done
    "$DECOMPRESS" -T2 t1 | cmp - in
    # on hash states it keeps the transform (first byte 0), and is smaller
    "$DECOMPRESS" "$ROOT/testdata/good/encoder13-cmx.sim" >h
    "$COMPRESS" -T1 -6 h >h6
    "$COMPRESS" -T1 -e cm2 h >h2
    [[ $(set_payload_byte0 h6) == 0 ]] || fail "-6 dropped the transform on hash states"
    (($(size h6) < $(size h2))) || fail "-6: $(size h6) bytes, cm2 $(size h2)"
}

@test "a cmx frame whose first payload byte is not 0 or 1 is refused with a clear error, exit 1" {
    set_payload_byte0 "$ROOT/testdata/good/encoder13-cmx-off.sim" 1 >same
    cmp "$ROOT/testdata/good/encoder13-cmx-off.sim" same || fail "the rewrite changed more than the first byte"
    local v
    for v in 2 3 128 255; do
        set_payload_byte0 "$ROOT/testdata/good/encoder13-cmx-off.sim" "$v" >bad
        run "$DECOMPRESS" -o out bad
        expect_status 1
        expect_output_has "svpc-decompress: bad: frame 0 of stream 0 at byte offset"
        expect_output_has "cmx payload's first byte is $(printf 0x%02x "$v"): not 0 (the transform on) or 1 (off)"
        [[ ! -e out ]] || fail "out written"
    done
}

@test "cm2: a real trace round-trips through files and pipes at every thread count, byte-identical containers" {
    real_d64 20000 in 5000
    "$COMPRESS" -e cm2 -T1 --frame-size 3000 in >c1
    "$COMPRESS" -e cm2 -T2 --frame-size 3000 <in >c2
    cmp c1 c2 || fail "-T1 and -T2 differ"
    "$DECOMPRESS" -T2 c1 >out
    same in out
    "$SIMTRACE_CAT" --verify c1
}

@test "options that would change nothing are refused (exit 2) and say why: -s or a level with cm2, -s with fast, a level with -s none" {
    real_d64 100 in
    local args
    for args in "-s none" "-s bzip2 -9" "-e cm2 -s zlib" "-e cmx -s bzip2" "-1 -s lzma" "-e fast -s zlib" "--fast -s none" "-7 -s lzma" "-e mix -s none"; do
        # shellcheck disable=SC2086
        run "$COMPRESS" $args -o out in
        expect_status 2
        expect_output_has "a second stage was asked for, and it has none"
        [[ ! -e out ]] || fail "$args: wrote an output"
    done
    run "$COMPRESS" -e cm2 -9 -o out in
    expect_status 2
    [[ $output == "svpc-compress: encoder cm2: a level was asked for, and it takes none"* ]] || fail "$output"
    run "$COMPRESS" -e cmx -6 -o out in
    expect_status 2
    [[ $output == "svpc-compress: encoder cmx: a level was asked for, and it takes none"* ]] || fail "$output"
    run "$COMPRESS" -e cm -s none -1 -o out in
    expect_status 2
    expect_output_has "svpc-compress: encoder cm: a level was asked for, and second stage none takes none"
    [[ ! -e out ]] || fail "wrote an output"
}

@test "a write failure after a partial entry is reported as the write failure" {
    # the output outgrows a file size limit when the writer finishes, after
    # the partial entry was found (SIGXFSZ ignored: write() fails with EFBIG)
    real_d64 20001 in
    head -c $((20000 * 32 + 5)) in >p
    local prog
    for prog in "$COMPRESS" "$SIMTRACE_PACK"; do
        run bash -c 'trap "" XFSZ; ulimit -f 4; exec "$0" -o out p' "$prog"
        expect_status 1
        expect_output_has "write error"
        [[ $output != *"trailing byte"* ]] || fail "the partial entry's words in a write error: $output"
        rm -f out
    done
}
