#!/usr/bin/env bats
# CVP-1 and CBP-2025 traces (formats/IMPORT.md 17): simtrace-pack --from
# cvp|cbp2025, simtrace-cat -F cvp|cbp2025|cvp-loads; the CBP-2025 sample of
# the corpus byte for byte, hand-built records at the edges.

load helpers

PACK="$SVPC_BIN/simtrace-pack"
CAT="$SVPC_BIN/simtrace-cat"
SAMPLE="$CORPUS_DIR/foreign/cbp2025/sample_fp_trace.gz"

setup() {
    common_setup
    [[ -x $PACK && -x $CAT ]] || fail "simtrace-pack/simtrace-cat not built in $SVPC_BIN"
}

# count STREAM FILE: entries of a stream, from --list
count() { "$CAT" --list "$2" | awk -v s="$1" '$1 == s { print $3 }'; }

# Records in CBP-2025's layout, by perl: alu PC (one input, one output x1 =
# PC), load PC EA (base update 0, output x2 = EA + 1), branch PC TARGET
# (taken), simd PC (output v0, 16 bytes), over_in PC (9 inputs).
rec() {
    perl -e '
        my ($k, $pc, $a) = @ARGV; $pc = hex $pc; $a = hex($a // 0);
        if ($k eq "alu")    { print pack("Q<C C C C C Q<", $pc, 0, 1, 3, 1, 1, $pc) }
        if ($k eq "load")   { print pack("Q<C Q<C C C C C C Q<", $pc, 1, $a, 8, 0, 1, 3, 1, 2, $a + 1) }
        if ($k eq "branch") { print pack("Q<C C Q< C C", $pc, 3, 1, $a, 0, 0) }
        if ($k eq "simd")   { print pack("Q<C C C C Q<Q<", $pc, 6, 0, 1, 32, $pc, ~$pc) }
        if ($k eq "over_in"){ print pack("Q<C C C9 C", $pc, 0, 9, 0..8, 0) }
    ' "$@"
}

@test "cbp2025: the corpus sample comes back byte for byte, in at most 0.6x its xz -9 size" {
    [[ -f $SAMPLE ]] || skip "CBP-2025 sample not found at $SAMPLE"
    run "$PACK" --from cbp2025 -o s.sim "$SAMPLE"
    [ "$status" -eq 0 ]
    [ "$(count trace s.sim)" -eq 997741 ]
    "$CAT" -F cbp2025 s.sim > back.raw
    gzip -dc "$SAMPLE" | cmp - back.raw
    # xz -9 of the raw records: 231,992 bytes (corpus README); 0.6x of it
    [ "$(stat -c %s s.sim)" -le 139195 ]
    "$CAT" --stats s.sim | grep -q 'stream trace (cvp, encoder cvp)'
}

@test "cvp, cbp2025: hand-built records round-trip; an empty input is an empty stream" {
    { rec alu 1000; rec load 1004 8000; rec branch 1008 1000; rec simd 1000; rec alu 1004; } > t.cbp
    run "$PACK" --from cbp2025 -o t.sim t.cbp
    [ "$status" -eq 0 ]
    [ "$(count trace t.sim)" -eq 5 ]
    "$CAT" -F cbp2025 t.sim | cmp - t.cbp
    : > empty.cbp
    run "$PACK" --from cbp2025 -o e.sim empty.cbp
    [ "$status" -eq 0 ]
    [ "$(count trace e.sim)" -eq 0 ]
    "$CAT" -F cbp2025 e.sim | cmp - empty.cbp
    # (from a pipe, the stream without frames is the first cvp stream)
    run bash -c "set -o pipefail; cat e.sim | '$CAT' -F cbp2025 | wc -c"
    expect_status 0
    [[ $output == 0 ]] || fail "output: $output"
    # CVP-1's layout has no base-update byte: the same load is a byte shorter
    perl -e 'print pack("Q<C Q<C C C C C Q<", 0x1004, 1, 0x8000, 8, 1, 3, 1, 2, 0x8001)' > t.cvp
    run "$PACK" --from cvp -o c.sim t.cvp
    [ "$status" -eq 0 ]
    "$CAT" -F cvp c.sim | cmp - t.cvp
}

@test "-F cvp of a CBP-2025 call: exit 1, naming the entry and why, and -F cbp2025 (file and pipe)" {
    { rec alu 1000; perl -e 'print pack("Q<C C Q< C C", 0x1004, 9, 1, 0x2000, 0, 0)'; rec alu 2000; } > call.cbp
    "$PACK" --from cbp2025 -o call.sim call.cbp
    local want="corrupt data: entry 1 of stream 'trace': no CVP-1 record gives it: its type is not one of the format's (a CBP-2025 record: -F cbp2025 writes it)"
    run "$CAT" -F cvp call.sim
    expect_status 1
    [[ $output == *"simtrace-cat: call.sim: $want"* ]] || fail "file: $output"
    run bash -c "cat call.sim | '$CAT' -F cvp >/dev/null"
    expect_status 1
    [[ $output == "simtrace-cat: (stdin): $want" ]] || fail "pipe: $output"
    "$CAT" -F cbp2025 call.sim | cmp - call.cbp
}

@test "cbp2025: the corpus sample through a pipe, without -s (more than the default stream's rule may hold back)" {
    [[ -f $SAMPLE ]] || skip "CBP-2025 sample not found at $SAMPLE"
    run "$PACK" --from cbp2025 -o s.sim "$SAMPLE"
    expect_status 0
    gzip -dc "$SAMPLE" > sample.raw
    # 127 MB of records: the rule for the default stream would hold more
    # than 64 MiB back while it waits for a memory stream; -F cbp2025
    # reads the first cvp stream at once
    cat s.sim | "$CAT" -F cbp2025 | cmp - sample.raw
}

@test "-F cbp2025 without -s: the first cvp stream, file and pipe alike, whatever memory streams come with it; none: exit 2" {
    # a d64 stream before the cvp stream, and after it
    perl -e 'print pack("Q<4", $_ + (1 << 48), 0x400000 + $_, 0x8000 + 8 * $_, $_) for 1..100' > m.d64
    { rec alu 1000; rec load 1004 8000; rec branch 1008 1000; } > t.cbp
    run "$PACK" -o before.sim --stream mem --type d64 m.d64 --from cbp2025 t.cbp
    expect_status 0
    run "$PACK" -o after.sim --from cbp2025 t.cbp --from raw --stream mem --type d64 m.d64
    expect_status 0
    for f in before.sim after.sim; do
        "$CAT" -F cbp2025 "$f" | cmp - t.cbp
        cat "$f" | "$CAT" -F cbp2025 | cmp - t.cbp
        cat "$f" | "$CAT" -F cvp-loads | cmp - <("$CAT" -F cvp-loads -s "$("$CAT" --list "$f" | awk '$2 == "cvp" { print $1 }')" "$f")
    done
    # damage in a memory stream that -F cbp2025 does not read: passed over
    # with a note, before the cvp stream is known as after
    run "$PACK" -o two.sim --frame-size 40 --stream mem --type d64 m.d64 --from cbp2025 t.cbp
    expect_status 0
    local at
    at=$("$CAT" --list --frames two.sim | awk '$1 == "mem" && $2 == 1 { print $9 + $10 - 10 }')
    [[ -n $at ]] || fail "no second frame of mem: $("$CAT" --list --frames two.sim)"
    printf '\x5a' | dd of=two.sim bs=1 seek="$at" conv=notrunc 2>/dev/null
    run bash -c "cat two.sim | '$CAT' -F cbp2025 >p.out"
    expect_status 0
    expect_output_has "passed over damaged frame 1 of stream 'mem'"
    cmp p.out t.cbp
    run "$CAT" -F cbp2025 -o f.out two.sim
    expect_status 0
    expect_output_has "passed over damaged frame 1 of stream 'mem'"
    cmp f.out t.cbp
    # -s still chooses
    run "$CAT" -s mem -F cbp2025 before.sim
    expect_status 2
    expect_output_has "simtrace-cat: before.sim: stream 'mem' of type d64 cannot be written as cbp2025"
    # no cvp stream: said, file and pipe alike, nothing written
    run "$PACK" -o mem.sim --stream mem --type d64 m.d64
    expect_status 0
    run "$CAT" -F cbp2025 -o out.cbp mem.sim
    expect_status 2
    expect_output_has "simtrace-cat: mem.sim: no stream of a type that -F cbp2025 writes (cvp; see --list)"
    [[ -z $(compgen -G "out.cbp*") ]] || fail "left $(compgen -G "out.cbp*")"
    run bash -c "cat mem.sim | '$CAT' -F cbp2025"
    expect_status 2
    expect_output_has "simtrace-cat: (stdin): no stream of a type that -F cbp2025 writes (cvp; see --list)"
}

@test "-F cbp2025 without -s: damage before the first cvp stream has frames stops only in it; a lost declaration under --salvage is exit 1" {
    local i
    for i in $(seq 0 29); do rec alu $(printf '%x' $((0x1000 + 4 * i))); done > t.cbp
    : > empty.cbp
    # two cvp streams, the first without frames: a damaged first frame of
    # the second is another stream's, file and pipe alike
    run "$PACK" -o two.sim --frame-size 10 --stream a --from cbp2025 empty.cbp --stream b --from cbp2025 t.cbp
    expect_status 0
    local at
    at=$("$CAT" --list --frames two.sim | awk '$1 == "b.trace" && $2 == 0 { print $9 }')
    [[ -n $at ]] || fail "no frame 0 of b: $("$CAT" --list --frames two.sim)"
    printf 'XXXX' | dd of=two.sim bs=1 seek="$at" conv=notrunc 2>/dev/null
    run "$CAT" -F cbp2025 -o f.out two.sim
    expect_status 0
    expect_output_has "passed over damaged frame 0 of stream 'b.trace'"
    [[ -f f.out && ! -s f.out ]] || fail "want an empty f.out"
    run bash -c "cat two.sim | '$CAT' -F cbp2025 -o p.out"
    expect_status 0
    expect_output_has "1 frame (10 entries) of stream 'b.trace' were in the damaged bytes"
    [[ -f p.out && ! -s p.out ]] || fail "want an empty p.out"
    # the only cvp stream's declaration lost: --salvage says so and what it
    # saved (nothing), exit 1, file and pipe alike
    run "$PACK" -o one.sim --frame-size 10 --from cbp2025 t.cbp
    expect_status 0
    at=$(grep -abo STFR one.sim | head -1 | cut -d: -f1)
    printf 'XXXX' | dd of=one.sim bs=1 seek="$at" conv=notrunc 2>/dev/null
    run "$CAT" --salvage -F cbp2025 -o s.out one.sim
    expect_status 1
    expect_prefix simtrace-cat
    expect_output_has "simtrace-cat: one.sim: no stream of a type that -F cbp2025 writes (cvp) is left: the declarations of the streams of 3 frames were lost"
    expect_output_has "simtrace-cat: one.sim: salvaged nothing"
    run bash -c "cat one.sim | '$CAT' --salvage -F cbp2025 >/dev/null"
    expect_status 1
    expect_output_has "simtrace-cat: (stdin): no stream of a type that -F cbp2025 writes (cvp) is left"
}

@test "cbp2025: a record cut off or over a limit: file, record and offset named, the records before kept" {
    { rec alu 1000; rec load 1004 8000; } > good.cbp
    size=$(stat -c %s good.cbp)
    { cat good.cbp; rec load 1008 9000 | head -c 12; } > cut.cbp
    run "$PACK" --from cbp2025 -o cut.sim cut.cbp
    [ "$status" -eq 1 ]
    [[ $output == *"simtrace-pack: cut.cbp"* ]]
    [[ $output == *"at byte offset $size"*"cbp2025 record 2: ends inside its effective address"* ]]
    [ "$(count trace cut.sim)" -eq 2 ]
    "$CAT" -F cbp2025 cut.sim | cmp - good.cbp
    { cat good.cbp; rec over_in 1008; } > over.cbp
    run "$PACK" --from cbp2025 -o over.sim over.cbp
    [ "$status" -eq 1 ]
    [[ $output == *"at byte offset $size"*"cbp2025 record 2: more than 8 input registers"* ]]
    [ "$(count trace over.sim)" -eq 2 ]
}

@test "cvp-loads: the loads as d64 entries with their values, through the text importer" {
    { rec alu 1000; rec load 1004 8000; rec alu 1008; rec load 1004 8010; } > l.cbp
    "$PACK" --from cbp2025 -o l.sim l.cbp
    "$CAT" -F cvp-loads l.sim > loads.txt
    "$PACK" --from text -o loads.sim loads.txt
    [ "$(count loads loads.sim)" -eq 2 ]
    # the second load: record 3, value EA + 1 in a full-size entry
    line=$("$CAT" -F text loads.sim | grep -v '^#' | sed -n 2p)
    read -r idx cyc ip addr size val <<<"$line"
    [ "$cyc" -eq 3 ] && [ "$ip" = 0x1004 ] && [ "$addr" = 0x8010 ] && [ "$val" = 0x8011 ]
    # cvp formats take cvp streams only
    run "$CAT" -F cvp loads.sim
    [ "$status" -ne 0 ]
}
