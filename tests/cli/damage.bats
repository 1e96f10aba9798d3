#!/usr/bin/env bats
# Damaged, cut-off and foreign containers: svpc-decompress must exit 1 with a
# message that starts with "svpc-decompress:" and names the problem, write
# only entries of the intact frames before the damage, never wrong bytes with
# exit 0, and leave no file behind with -o.

load helpers

# The containers every test starts from (made once per file):
#   $F/in     400 real-trace entries then 50 random entries (d64)
#   $F/c      default encoder, --frame-size 100: file header, stream frame,
#             5 data frames (100, 100, 100, 100, 50 entries), directory, footer
#   $F/g      the same with -e generic (fast to decode, for the long loops)
setup_file() {
    F="$BATS_FILE_TMPDIR"
    export F
    cd "$F"
    real_d64 400 in 3000
    rand_bytes $((50 * 32)) r
    cat r >>in
    "$COMPRESS" --frame-size 100 in >c
    "$COMPRESS" -e generic --frame-size 100 in >g
}

setup() {
    common_setup
    cp "$F/in" "$F/c" "$F/g" .
}

# first_entries N FILE: the first N entries of the input into FILE.
first_entries() { head -c $(($1 * 32)) in >"$2"; }

# dec_bad FILE [ARGS...]: decompress FILE (stdout to out); expect exit 1 and a
# "svpc-decompress:" message.
dec_bad() {
    local f=$1
    shift
    run to out "$DECOMPRESS" "$@" "$f"
    expect_status 1
    expect_prefix svpc-decompress
}

# expect_entries N: out holds exactly the first N entries of the input.
expect_entries() {
    first_entries "$1" want
    cmp out want || fail "expected exactly the first $1 entries ($(size want) bytes), got $(size out) bytes"
}

@test "the test containers have the expected layout" {
    [[ $(frames c | awk '{print $3}' | tr -d '\n') == 2111113 ]] || fail "layout: $(frames c)"
    [[ $(frames g | awk '{print $3}' | tr -d '\n') == 2111113 ]] || fail "layout: $(frames g)"
    "$DECOMPRESS" c >out
    same in out
    "$DECOMPRESS" g >out
    same in out
}

@test "empty input is not a container" {
    : >empty
    dec_bad empty
    expect_output_has "truncated"
    [[ ! -s out ]]
}

@test "truncated inside the 64-byte file header" {
    local n
    for n in 1 7 8 40 63; do
        cut_to c "$n" t
        dec_bad t
        expect_output_has "truncated"
        expect_output_has "file header"
        [[ ! -s out ]] || fail "cut at $n: wrote $(size out) bytes"
    done
}

@test "truncated inside a frame header" {
    local d3
    # inside the stream descriptor's header
    cut_to c $((FILE_HDR + 10)) t
    dec_bad t
    expect_output_has "truncated"
    expect_output_has "frame header"
    [[ ! -s out ]]
    # inside the header of the third data frame: the first two are written
    d3=$(frame_field c 3 offset)
    cut_to c $((d3 + 50)) t
    dec_bad t
    expect_output_has "truncated"
    expect_output_has "frame header"
    expect_output_has "offset $((d3 + 50))"
    expect_entries 200
}

@test "truncated inside a payload" {
    local d3 sz
    d3=$(frame_field c 3 offset)
    sz=$(frame_field c 3 size)
    cut_to c $((d3 + FRAME_HDR + (sz - FRAME_HDR) / 2)) t
    dec_bad t
    expect_output_has "truncated"
    expect_output_has "payload"
    expect_entries 200
    # inside the stream descriptor's payload
    cut_to c $((FILE_HDR + FRAME_HDR + 5)) t
    dec_bad t
    expect_output_has "truncated"
    [[ ! -s out ]]
}

@test "truncated inside the directory" {
    local dir
    dir=$(frame_field g 6 offset)
    [[ $(frame_field g 6 kind) -eq 3 ]]
    cut_to g $((dir + 30)) t
    dec_bad t
    expect_output_has "truncated"
    expect_entries 450
    cut_to g $((dir + FRAME_HDR + 20)) t
    dec_bad t
    expect_output_has "truncated"
    expect_entries 450
}

@test "truncated inside the 32-byte footer" {
    local n
    for n in 1 10 31; do
        cut_to g $(($(size g) - n)) t
        dec_bad t
        expect_output_has "truncated"
        expect_output_has "footer"
        expect_entries 450
    done
}

@test "cut exactly at a frame boundary (directory and footer missing)" {
    local dir d3
    dir=$(frame_field g 6 offset)
    cut_to g "$dir" t
    dec_bad t
    expect_output_has "truncated"
    expect_output_has "directory"
    expect_entries 450
    # after the second data frame
    d3=$(frame_field g 3 offset)
    cut_to g "$d3" t
    dec_bad t
    expect_output_has "truncated"
    expect_entries 200
    # after the file header only
    cut_to g "$FILE_HDR" t
    dec_bad t
    expect_output_has "truncated"
    [[ ! -s out ]]
}

@test "wrong magic" {
    printf 'X' | dd of=c bs=1 seek=0 conv=notrunc status=none
    dec_bad c
    expect_output_has "not a simtrace container"
    [[ ! -s out ]]
    # a zstd/xz-like header, and plain text
    { printf '\x28\xb5\x2f\xfd'; head -c 200 in; } >z
    dec_bad z
    expect_output_has "not a simtrace container"
    printf 'hello, world\n' >txt
    dec_bad txt
    expect_output_has "simtrace"
}

@test "wrong magic is reported at byte offset 0, however short the file, by every reader" {
    printf 'xxxxxxxxxxxxxxxx' >m16
    printf 'xxxx' >m4
    local f
    for f in m16 m4; do
        dec_bad "$f"
        expect_output_has "svpc-decompress: $f: at byte offset 0: not a simtrace container"
        run sh -c 'cat "$1" | "$2"' _ "$f" "$DECOMPRESS"
        expect_status 1
        expect_output_has "svpc-decompress: (stdin): at byte offset 0: not a simtrace container"
        run "$SIMTRACE_CAT" "$f"
        expect_status 1
        [[ $output == "simtrace-cat: $f: at byte offset 0: not a simtrace container"* ]] || fail "simtrace-cat $f: $output"
        [[ ${#lines[@]} -eq 1 ]] || fail "simtrace-cat $f: want one message (no --salvage hint), got: $output"
        run "$SIMTRACE_CAT" --salvage "$f"
        expect_status 1
        expect_output_has "simtrace-cat: $f: at byte offset 0: not a simtrace container"
    done
    # a short file that starts as a container is cut off, not foreign
    head -c 40 c >h40
    dec_bad h40
    expect_output_has "truncated"
}

@test "non-container input (random bytes, a raw trace) is rejected" {
    rand_bytes 4096 rnd
    dec_bad rnd
    expect_output_has "not a simtrace container"
    [[ ! -s out ]]
    dec_bad in
    expect_output_has "not a simtrace container"
    [[ ! -s out ]]
}

@test "flipped bit in a data payload: checksum error, earlier frames written, none of the bad one" {
    local d2
    d2=$(frame_field c 2 offset)
    flip_byte c $((d2 + FRAME_HDR + 17)) 3
    dec_bad c
    expect_output_has "checksum"
    expect_output_has "frame 1 of stream 0"
    expect_entries 100
    # the same with several decoder threads
    dec_bad c -T4
    expect_output_has "checksum"
    expect_entries 100
}

@test "flipped bit in a frame header" {
    local d2 f
    d2=$(frame_field g 2 offset)
    for f in 0 9 17 40 75 80 93; do # magic, stream, seq, first cycle, payload size, payload crc, header crc
        cp "$F/g" g
        flip_byte g $((d2 + f)) $((f % 8))
        dec_bad g
        expect_output_has "frame"
        [[ $output == *checksum* || $output == *"invalid frame header"* ]] || fail "byte $f: $output"
        expect_entries 100
    done
    # the stream descriptor's header
    cp "$F/g" g
    flip_byte g $((FILE_HDR + 8)) 0
    dec_bad g
    expect_output_has "checksum"
    [[ ! -s out ]]
}

@test "flipped bit in the file header" {
    local b
    for b in 8 12 20 60; do
        cp "$F/g" g
        flip_byte g "$b" 1
        dec_bad g
        expect_output_has "checksum"
        [[ ! -s out ]]
    done
}

@test "flipped bit in the directory" {
    local dir
    dir=$(frame_field c 6 offset)
    flip_byte c $((dir + FRAME_HDR + 16 + 9)) 2
    dec_bad c
    expect_output_has "checksum"
}

@test "flipped bit in the footer" {
    local n
    for n in 32 24 8 5 1; do # dir offset, dir size, frame count, magic, crc
        cp "$F/g" g
        flip_byte g $(($(size g) - n)) 4
        dec_bad g
        expect_output_has "footer"
        expect_entries 450
    done
}

@test "data after the footer, and two containers concatenated" {
    cat g >cc
    printf 'x' >>cc
    dec_bad cc
    expect_output_has "after the footer"
    cat g g >cc
    dec_bad cc
    expect_output_has "after the footer"
}

@test "never wrong bytes with exit 0: evenly spaced single-bit flips (generic encoder)" {
    local n=160
    [[ $SANITIZED == 1 ]] && n=48
    damage_loop flip g in "$(spread $(($(size g) * 8)) "$n")" "$DECOMPRESS" -T1
}

@test "never wrong bytes with exit 0: random single-bit flips (default encoder, 2 threads)" {
    local n=16 i bits list="" seed=${SVPC_FLIP_SEED:-$RANDOM}
    [[ $SANITIZED == 1 ]] && n=8
    echo "# SVPC_FLIP_SEED=$seed" >&3
    RANDOM=$seed
    bits=$(($(size c) * 8))
    for ((i = 0; i < n; i++)); do
        list+="$(((RANDOM * 32768 + RANDOM) % bits)),"
    done
    damage_loop flip c in "${list%,}" "$DECOMPRESS" -T2
}

@test "never wrong bytes: cut-off lengths all fail and write a prefix" {
    local n=60
    [[ $SANITIZED == 1 ]] && n=30
    damage_loop cut g in "$(spread "$(size g)" "$n" 7)" "$DECOMPRESS" -T1
}

@test "cut-off lengths write whole frames only" {
    local total n=12 i len o
    total=$(size g)
    for ((i = 1; i <= n; i++)); do
        len=$((i * total / (n + 1) + i))
        cut_to g "$len" t
        "$DECOMPRESS" -T1 t >out 2>err && fail "cut at $len: exit 0"
        o=$(size out)
        ((o % 3200 == 0 || o == 450 * 32)) || fail "cut at $len: $o bytes is not a whole number of frames"
    done
}

@test "with -o, a failed decompression leaves no output file" {
    local d2
    cut_to c 1000 t1
    run "$DECOMPRESS" -o o1 t1
    expect_status 1
    expect_prefix svpc-decompress
    [[ -z $(leftovers . o1) ]] || fail "left: $(leftovers . o1)"

    d2=$(frame_field c 2 offset)
    cp c t2
    flip_byte t2 $((d2 + FRAME_HDR + 30))
    run "$DECOMPRESS" -o o2 t2
    expect_status 1
    [[ -z $(leftovers . o2) ]] || fail "left: $(leftovers . o2)"

    rand_bytes 500 t3
    run "$DECOMPRESS" -o o3 t3
    expect_status 1
    [[ -z $(leftovers . o3) ]] || fail "left: $(leftovers . o3)"

    # an existing file replaced with -f stays as it was when decompression fails
    echo keep >o4
    run "$DECOMPRESS" -f -o o4 t2
    expect_status 1
    [[ $(cat o4) == keep ]] || fail "-f -o: the existing file was changed by a failed run"
    [[ $(leftovers . o4) == o4 ]] || fail "left: $(leftovers . o4)"
}

@test "-t: exit 0 on a good container, 1 on a bad one, writes nothing" {
    local d2
    run to out "$DECOMPRESS" -t c
    expect_status 0
    [[ -z $output && ! -s out ]] || fail "-t wrote something: $output"
    run to out "$DECOMPRESS" --test -T1 g
    expect_status 0
    [[ -z $output && ! -s out ]]
    # -t writes no -o file either
    run "$DECOMPRESS" -t -o never c
    expect_status 0
    [[ ! -e never ]] || fail "-t created the -o file"

    d2=$(frame_field c 2 offset)
    cp c bad
    flip_byte bad $((d2 + FRAME_HDR + 40)) 6
    run to out "$DECOMPRESS" -t bad
    expect_status 1
    expect_prefix svpc-decompress
    expect_output_has "checksum"
    [[ ! -s out ]] || fail "-t wrote entries"
    cut_to c 3000 cut
    run to out "$DECOMPRESS" -t cut
    expect_status 1
    expect_output_has "truncated"
    [[ ! -s out ]] || fail "-t wrote entries"
    run to out "$DECOMPRESS" -t - <in
    expect_status 1
    expect_output_has "not a simtrace container"
}

@test "messages number a data frame as --list --frames does: by its seq in its stream, file and pipe, --salvage too" {
    local d2 seq
    d2=$(frame_field c 2 offset) # the second data frame: seq 1 (the stream descriptor is the file's frame 0)
    seq=$("$SIMTRACE_CAT" --list --frames c | awk -v off="$d2" 'NR > 1 && $9 == off { print $2 }')
    [[ $seq == 1 ]] || fail "--list --frames: seq '$seq' at $d2"
    flip_byte c $((d2 + FRAME_HDR + 17)) 3
    dec_bad c
    expect_output_has "frame 1 of stream 0 at byte offset $d2: payload checksum mismatch"
    run to out "$SIMTRACE_CAT" --salvage c
    expect_status 1
    expect_output_has "frame 1 of stream 0 at byte offset $d2: payload checksum mismatch"
    expect_output_has "skipped frame 1 of stream 'trace' (entries 100..199)"
    run to out sh -c "'$SIMTRACE_CAT' --salvage <c"
    expect_status 1
    expect_output_has "(stdin): frame 1 of stream 0 at byte offset $d2: payload checksum mismatch"
    expect_output_has "skipped frame 1 of stream 'trace' (entries 100..199)"
}

@test "a directory cut off is named by its frame and offset, with no stream (it has none)" {
    local dir
    dir=$(frame_field c 6 offset)
    cut_to c $((dir + FRAME_HDR + 10)) t
    dec_bad t
    expect_output_has "frame 6 at byte offset $((dir + FRAME_HDR + 10)): unexpected end of input"
    [[ $output != *"stream 4294967295"* && $output != *" of stream"* ]] || fail "$output"
}
