#!/usr/bin/env bats
# Single-bit flips of a small container (one d64 stream, 2 data frames of
# 20 real entries, cm encoder; about 1 KB, made at test time): simtrace-cat
# (random access through the directory) and svpc-decompress either exit 0
# with exactly the original entries, or exit 1 with a message and write only
# whole entries of the intact frames before the damage.  Never a crash.
#
# Each run flips every STRIDE-th bit (a different bit of each byte): STRIDE
# is SVPC_FLIP_STRIDE, by default 31, or 127 when SVPC_SANITIZED=1, which
# keeps each test near 20 s.  SVPC_FLIP_STRIDE=1 tries every bit.

load helpers

CAT="$SVPC_BIN/simtrace-cat"
PACK="$SVPC_BIN/simtrace-pack"

setup_file() {
    F="$BATS_FILE_TMPDIR"
    export F
    cd "$F"
    real_d64 40 in 5000
    "$SVPC_BIN/simtrace-pack" -T1 --frame-size 20 in >c.sim
}

stride() {
    if [[ -n ${SVPC_FLIP_STRIDE:-} ]]; then
        echo "$SVPC_FLIP_STRIDE"
    elif [[ $SANITIZED == 1 ]]; then
        echo 127
    else
        echo 31
    fi
}

# positions OFFSET: every stride-th bit of c.sim, starting at OFFSET.
positions() {
    local bits k
    bits=$(($(size "$F/c.sim") * 8))
    k=$(stride)
    if ((k == 1)); then
        seq -s, 0 $((bits - 1))
    else
        spread "$bits" $((bits / k)) "$k" | tr ',' '\n' | awk -v o="$1" -v b="$bits" '{ print ($1 + o) % b }' |
            paste -sd,
    fi
}

@test "the bit-flip container: 2 data frames of 20 entries, reads back" {
    [[ $(frames "$F/c.sim" | awk '{print $3}' | tr -d '\n') == 2113 ]] || fail "layout: $(frames "$F/c.sim")"
    "$CAT" "$F/c.sim" >out
    same "$F/in" out
    echo "# c.sim: $(size "$F/c.sim") bytes, $(($(size "$F/c.sim") * 8)) bits; each loop flips every $(stride)th bit" >&3
}

@test "single-bit flips: simtrace-cat exits 0 with the original or 1 with a prefix of whole entries" {
    cp "$F/c.sim" "$F/in" .
    DL_ALLOWED=0,640,1280 run damage_loop flip c.sim in "$(positions 0)" "$CAT" -T1
    printf '%s\n' "$output" | tail -n 5
    expect_status 0
}

@test "single-bit flips: simtrace-cat --entries 20: (second frame only, random access)" {
    cp "$F/c.sim" .
    tail -c +$((20 * 32 + 1)) "$F/in" >second
    DL_ALLOWED=0,640 run damage_loop flip c.sim second "$(positions 3)" "$CAT" -T1 --entries 20:
    printf '%s\n' "$output" | tail -n 5
    expect_status 0
}

@test "single-bit flips: svpc-decompress exits 0 with the original or 1 with a prefix of whole entries" {
    cp "$F/c.sim" "$F/in" .
    DL_ALLOWED=0,640,1280 run damage_loop flip c.sim in "$(positions 5)" "$DECOMPRESS" -T1
    printf '%s\n' "$output" | tail -n 5
    expect_status 0
}
