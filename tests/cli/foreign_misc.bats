#!/usr/bin/env bats
# Dinero IV pixie32/pixie64, DRAMSim2 and gem5 packet traces through
# simtrace-pack --from and simtrace-cat -F (formats/IMPORT.md 14-16): the
# corpus files, round trips, Bochs and lackey traces written as DRAMSim2
# and gem5 traces, and bad input.

load helpers

PACK="$SVPC_BIN/simtrace-pack"
CAT="$SVPC_BIN/simtrace-cat"
G="$ROOT/testdata/good"
F="$CORPUS_DIR/foreign"

# count STREAM FILE: entries of a stream, from --list
count() { "$CAT" --list "$2" | awk -v s="$1" '$1 == s { print $3 }'; }

need() { [[ -e $F/$1 ]] || skip "corpus file $F/$1 not present"; }

# at_most_08 A B: A <= 0.8 * B
at_most_08() { (($1 * 10 <= $2 * 8)) || fail "$1 bytes is more than 0.8 x $2"; }

@test "dramsim2: mase_art.trc back byte for byte, at most 0.8x xz -9" {
    need dramsim2/mase_art.trc.gz
    gzip -dc "$F/dramsim2/mase_art.trc.gz" >art.trc
    "$PACK" --from dramsim2 -o art.sim art.trc
    "$CAT" -F dramsim2 art.sim | cmp - art.trc
    # straight from the gzip file too, through pipes
    "$PACK" --from dramsim2 <"$F/dramsim2/mase_art.trc.gz" | "$CAT" -F dramsim2 | cmp - art.trc
    [ "$(count dramsim2 art.sim)" -eq "$(wc -l <art.trc)" ]
    at_most_08 "$(size art.sim)" "$(xz -9 -c art.trc | wc -c)"
}

@test "gem5: the corpus file back byte for byte, raw and gzip; its fields" {
    need gem5/tgen-simple-mem.trc
    "$PACK" --from gem5 -o g.sim "$F/gem5/tgen-simple-mem.trc"
    "$CAT" -F gem5 g.sim | cmp - "$F/gem5/tgen-simple-mem.trc"
    gzip -c "$F/gem5/tgen-simple-mem.trc" >g.trc.gz
    "$PACK" --from gem5 g.trc.gz | "$CAT" -F gem5 | cmp - "$F/gem5/tgen-simple-mem.trc"
    # tick 1000 ReadReq (tag 2) 0x1234567, tick 4000 WriteReq (tag 5) 0xbeef, 64 bytes each
    run "$CAT" -F text g.sim
    expect_status 0
    [[ $output == *$'\n0 1000 0x0 0x1234567 64 0x0 tag=0x2 nv\n1 4000 0x0 0xbeef 64 0x0 tag=0x5 nv'* ]]
}

@test "pixie32: mm.32.pixie32 into read, write, fetch; at most 0.8x xz -9; din in the file's order" {
    need dinero/mm.32.pixie32
    "$PACK" --from pixie32 -o p.sim "$F/dinero/mm.32.pixie32"
    [ "$(count read p.sim)" -eq 70435 ]
    [ "$(count write p.sim)" -eq 6361 ]
    [ "$(count fetch p.sim)" -eq 188971 ]
    at_most_08 "$(size p.sim)" "$(xz -9 -c "$F/dinero/mm.32.pixie32" | wc -c)"
    # words 1c00004c 30ff2f80: one instruction at 0x4c * 4, three, then a read at 0xff2f80
    run "$CAT" -F din p.sim
    expect_status 0
    [ "$(printf '%s\n' "$output" | head -n 6 | tr '\n' ' ')" = "2 130 2 134 2 138 2 13c 2 140 0 ff2f80 " ]
}

@test "a Bochs and a lackey trace as DRAMSim2 and gem5 traces, and back again" {
    xz -dc "$G/sample.bochs.xz" >s.bochs
    "$PACK" --from bochs -o b.sim s.bochs
    memory=$("$CAT" --list b.sim | awk '$2 == "d64" { n += $3 } END { print n }')
    "$CAT" -q -F dramsim2 b.sim >b.trc
    [ "$(wc -l <b.trc)" -eq "$memory" ]
    grep -qE '^0x[0-9A-F]{8,} P_MEM_WR 25$' b.trc
    # cycles never go back: the streams are merged by cycle
    awk '{ if ($3 < last) exit 1; last = $3 }' b.trc
    "$PACK" --from dramsim2 b.trc | "$CAT" -F dramsim2 | cmp - b.trc
    "$CAT" -q -F gem5 b.sim >b.gem5
    [ "$(head -c 4 b.gem5)" = gem5 ]
    "$PACK" --from gem5 -o bg.sim b.gem5
    [ "$(count gem5 bg.sim)" -eq "$memory" ]
    "$CAT" -F gem5 bg.sim | cmp - b.gem5
    # lackey: fetches as P_FETCH, a modify as a read and a write
    printf 'I  00400000,4\n M 00001000,4\n' >m.lk
    "$PACK" --from lackey -o m.sim m.lk
    run "$CAT" -F dramsim2 m.sim
    expect_status 0
    [ "$output" = $'0x00400000 P_FETCH 1\n0x00001000 P_MEM_RD 1\n0x00001000 P_MEM_WR 1' ]
}

@test "empty inputs and inputs of one record" {
    : >empty
    run "$PACK" --from dramsim2 -o e1.sim empty
    expect_status 0
    run "$PACK" --from pixie32 -o e2.sim empty
    expect_status 0
    # a container of no stream reads back as nothing, exit 0, in every
    # format and from a file as from a pipe (it was exit 1 from a file)
    local f
    for f in dramsim2 lackey din text; do
        "$PACK" -f --from "$f" -o e.sim empty
        run to got "$CAT" -F "$f" e.sim
        expect_status 0
        [[ ! -s got ]] || fail "-F $f wrote $(wc -c <got) bytes"
        run to got "$CAT" e.sim
        expect_status 0
        [[ ! -s got ]] || fail "raw wrote $(wc -c <got) bytes"
        run to got bash -c "cat e.sim | '$CAT' -F '$f'"
        expect_status 0
    done
    run "$PACK" --from gem5 -o e3.sim empty
    expect_status 1
    [[ $output == *"simtrace-pack: empty: at byte offset 0: "*'no "gem5" magic'* ]]
    echo '0x10 WRITE 7' >one.trc
    "$PACK" --from dramsim2 -o one.sim one.trc
    "$CAT" -F dramsim2 one.sim | cmp - <(echo '0x00000010 WRITE   7')
    printf 'gem5\x02\x18\x01\x08\x08\x01\x10\x01\x18\x01\x20\x40' >one.gem5
    "$PACK" --from gem5 -o og.sim one.gem5
    "$CAT" -F gem5 og.sim | cmp - one.gem5
    printf '\x00\x00\x10\x00' >one.px
    "$PACK" --from pixie32 -o op.sim one.px
    [ "$(count read op.sim)" -eq 1 ]
    [ "$(count fetch op.sim)" -eq 1 ]
}

@test "a record cut off at the end: exit 1 naming file, record and offset; the records before kept" {
    printf '0x10 READ 5\n0x20 WRITE 6\n0x30 WRI' >cut.trc
    run "$PACK" --from dramsim2 -o cut.sim cut.trc
    expect_status 1
    [[ $output == "simtrace-pack: cut.trc: line 3 at byte offset 25: "*"unknown command"* ]]
    "$CAT" --verify cut.sim
    [ "$(count dramsim2 cut.sim)" -eq 2 ]
    printf 'gem5\x02\x18\x01\x08\x08\x01\x10\x01\x18\x01\x20\x40\x08\x08\x02\x10\x04\x18' >cut.gem5
    run "$PACK" --from gem5 -o cutg.sim cut.gem5
    expect_status 1
    [[ $output == "simtrace-pack: cut.gem5: at byte offset 16: input ends with a partial entry: packet 1: the input ends after 5 of its 8 bytes"* ]]
    [ "$(count gem5 cutg.sim)" -eq 1 ]
    printf '\x1c\x00\x00\x4c\x30\xff\x2f\x80\x1c\x00' >cut.px
    run "$PACK" --from pixie32 -o cutp.sim cut.px
    expect_status 1
    [[ $output == "simtrace-pack: cut.px: at byte offset 8: input ends with a partial entry: word 2: the input ends after 2 of its 4 bytes"* ]]
    [ "$(count read cutp.sim)" -eq 1 ]
    run "$PACK" --from pixie64 -o cutq.sim cut.px
    expect_status 1
    [[ $output == *"cut.px: at byte offset 8: "*"word 1: the input ends after 2 of its 8 bytes"* ]]
}

@test "bad commands, bad types, varints over 10 bytes, lengths over the bound, cycles that go back" {
    printf '0x10 READ 5\n0x20 P_MEM_RW 6\n' >bad.trc
    run "$PACK" --from dramsim2 -o bad.sim bad.trc
    expect_status 1
    [[ $output == "simtrace-pack: bad.trc: line 2 at byte offset 12: malformed input line: unknown command"*'`0x20 P_MEM_RW 6`'* ]]
    printf '0x10 READ 5\n0x20 READ 4\n' >back.trc
    run "$PACK" --from dramsim2 -o back.sim back.trc
    expect_status 1
    [[ $output == *"back.trc"*"line 2"* ]]
    printf '\x1c\x00\x00\x4c\x0f\x00\x00\x00' >bad.px
    run "$PACK" --from pixie32 -o badp.sim bad.px
    expect_status 1
    [[ $output == *"simtrace-pack: bad.px: at byte offset 4: malformed input line: word 1: unknown reference type 15 (0x0f000000)"* ]]
    printf 'gem5\x02\x18\x01\x0e\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x10\x01' >ovf.gem5
    run "$PACK" --from gem5 -o ovf.sim ovf.gem5
    expect_status 1
    [[ $output == *"simtrace-pack: ovf.gem5: at byte offset 7: malformed input line: packet 0: a varint value is over 10 bytes or 64 bits"* ]]
    printf 'gem5\x02\x18\x01\xff\xff\xff\xff\x0f' >big.gem5
    run "$PACK" --from gem5 -o big.sim big.gem5
    expect_status 1
    [[ $output == *"simtrace-pack: big.gem5: at byte offset 7: size exceeds the format's limits: packet 0: length 4294967295 over the 256 bytes allowed"* ]]
    printf 'gem5\xff\xff\x03' >bighdr.gem5
    run "$PACK" --from gem5 -o bighdr.sim bighdr.gem5
    expect_status 1
    [[ $output == *"the header 0: length 65535 over the 1010 bytes allowed"* ]]
}
