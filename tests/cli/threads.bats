#!/usr/bin/env bats
# Thread counts never change the bytes: containers are identical for every
# -T, and decompression gives the same entries for every -T.

load helpers

# same_for_threads IN ARGS...: compress IN with ARGS under -T1, -T2, -T4 and
# the default; all containers identical; decompression with -T1 and -T4
# identical and equal to IN.
same_for_threads() {
    local in=$1 t
    shift
    for t in 1 2 4; do
        run "$COMPRESS" "-T$t" "$@" -o "c.T$t" "$in"
        expect_status 0
        [[ -z $output ]] || fail "-T$t: unexpected message: $output"
    done
    "$COMPRESS" "$@" -o c.default "$in"
    same c.T1 c.T2
    same c.T1 c.T4
    same c.T1 c.default
    for t in 1 4; do
        run "$DECOMPRESS" "-T$t" -o "d.T$t" c.T1
        expect_status 0
        [[ -z $output ]] || fail "decompress -T$t: unexpected message: $output"
    done
    same d.T1 d.T4
    same "$in" d.T1
}

@test "-T1, -T2, -T4: identical containers at the default frame size (1 MiB of real entries)" {
    real_d64 32768 in 60000
    same_for_threads in
}

@test "-T1, -T2, -T4: identical containers with --frame-size 1000 on ~2 MB (many frames in flight)" {
    local n=65536
    [[ $SANITIZED == 1 ]] && n=32768
    real_d64 "$n" in 200000
    same_for_threads in --frame-size 1000
    [[ $(frames c.T1 | grep -c ' 1$') -eq $(((n + 999) / 1000)) ]] || fail "unexpected frame count"
}

@test "-T1, -T4: identical for random entries, paper encoder, zlib, --frame-size 1000" {
    rand_bytes $((6000 * 24)) in
    same_for_threads in -t m64 -e paper -s zlib --frame-size 1000
}

@test "-T1, -T2, -T4: identical for the fast encoder (-1, -3) at frame sizes 1000 and 7" {
    real_d64 20000 in 60000
    same_for_threads in -1 --frame-size 1000
    rm -f c.* d.*
    same_for_threads in -3 -t d32 --frame-size 7
}

@test "-T1, -T2, -T4: identical for mix (-7, -8, -9) and best at frame size 1000" {
    # (not smaller frames: each frame resets best's 16 MiB table)
    real_d64 12000 in 60000
    same_for_threads in -7 --frame-size 1000
    rm -f c.* d.*
    same_for_threads in -8 -t m32 --frame-size 1000
    rm -f c.* d.*
    same_for_threads in -9 --frame-size 1000
    rm -f c.* d.*
    same_for_threads in -e best --frame-size 1000
}

@test "-T1, -T2, -T4: identical for cmx (-6) on hash states, at frame size 1000" {
    # compat-1.4-cm2.sim's entries: 8000 of grub_work.write's hash states,
    # whose 4-byte values the transform codes (6.9.1): smaller than cm2's
    "$DECOMPRESS" "$ROOT/testdata/good/compat-1.4-cm2.sim" >in
    same_for_threads in -6 --frame-size 1000
    "$COMPRESS" -T1 -e cm2 --frame-size 1000 in >cm2
    (($(size c.T1) < $(size cm2))) || fail "-6 not smaller than cm2: $(size c.T1) $(size cm2)"
}

@test "-T1, -T4: identical for the generic encoder with bzip2 and tiny frames" {
    real_of d32 700 in 4000
    same_for_threads in -t d32 -e generic -s bzip2 --frame-size 7
}

@test "decompression through a pipe with -T4 equals -T1" {
    real_d64 20000 in 300000
    "$COMPRESS" --frame-size 1000 in >c
    "$DECOMPRESS" -T4 <c >d4
    "$DECOMPRESS" -T1 <c >d1
    same d1 d4
    same in d1
}

@test "simtrace-cat --entries and --cycles over many frames: -T1, -T2 and -T4 write the same bytes, and stop at a damaged frame alike" {
    real_d64 40000 in.d64
    "$SIMTRACE_PACK" -T1 --frame-size 3000 -o x.sim in.d64
    local r t c3
    for r in "--entries 2999:37001" "--entries 100:40000" "--entries 6000:9000" "--cycles 0:"; do
        for t in 1 2 4; do
            run to "o.T$t" "$SIMTRACE_CAT" "-T$t" $r x.sim
            expect_status 0
        done
        same o.T1 o.T2 || fail "$r: -T2 differs"
        same o.T1 o.T4 || fail "$r: -T4 differs"
    done
    same o.T1 in.d64
    # frame 4 (entries 12000..14999) damaged inside its payload: every
    # count writes the frames before it and says the same
    c3=$("$SIMTRACE_CAT" --list --frames x.sim | awk '$1 == "trace" && $2 == 4 { print $(NF - 1) }')
    [[ -n $c3 ]] || fail "no frame 4 in --list --frames"
    cp x.sim bad.sim
    printf '\377' | dd of=bad.sim bs=1 seek=$((c3 + 200)) conv=notrunc status=none
    for t in 1 2 4; do
        run to "b.T$t" "$SIMTRACE_CAT" "-T$t" --entries 1000:30000 bad.sim
        expect_status 1
        echo "$output" >"m.T$t"
    done
    same b.T1 b.T2
    same b.T1 b.T4
    same m.T1 m.T2
    same m.T1 m.T4
    same b.T1 <(tail -c +$((1000 * 32 + 1)) in.d64 | head -c $((11000 * 32)))
}
