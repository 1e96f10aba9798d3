#!/usr/bin/env bats
# ChampSim traces (formats/IMPORT.md 19): simtrace-pack --from champsim and
# champsim-cloudsuite, simtrace-cat -F champsim byte for byte, the -mem
# importers' memory streams, records cut off; the corpus's ChampSim files
# when the corpus is there.

load helpers

PACK="$SVPC_BIN/simtrace-pack"
CAT="$SVPC_BIN/simtrace-cat"
CS_DIR="$CORPUS_DIR/foreign/champsim"

setup() {
    common_setup
    [[ -x $PACK && -x $CAT ]] || fail "simtrace-pack/simtrace-cat not built in $SVPC_BIN"
}

# rec FILE IP BR TAKEN "R R R R R R" DST0 SRC0 [CLOUDSUITE]: append one record
# (64 bytes; 96 with a 9th argument, whose asid is 0x0102 and whose padding
# is 0xEE bytes, so that the round trip must keep padding too)
rec() {
    python3 - "$@" <<'PY'
import struct, sys
f, ip, br, tk, regs, d0, s0 = sys.argv[1:8]
regs = [int(x) for x in regs.split()]
cs = len(sys.argv) > 8
with open(f, "ab") as o:
    if cs:
        o.write(struct.pack("<QBB4B4B", int(ip, 0), int(br), int(tk), *regs[:4], *regs[4:8]) + b"\xee" * 6)
        o.write(struct.pack("<4Q4Q", int(d0, 0), 0, 0, 0, int(s0, 0), 0, 0, 0) + b"\x01\x02" + b"\xee" * 6)
    else:
        o.write(struct.pack("<QBB2B4B2Q4Q", int(ip, 0), int(br), int(tk), *regs[:6], int(d0, 0), 0, int(s0, 0), 0, 0, 0))
PY
}

# roundtrip FORMAT FILE: pack, then -F champsim gives FILE back
roundtrip() {
    "$PACK" -f --from "$1" -o rt.sim "$2"
    "$CAT" -F champsim rt.sim > rt.out
    cmp rt.out "$2"
}

@test "empty file: a stream of 0 records, and 0 bytes back" {
    : > empty.cs
    roundtrip champsim empty.cs
    "$CAT" --list rt.sim | grep -E '^trace +champsim +0 '
}

@test "one record, all-zero registers, a taken branch: byte for byte" {
    rec one.cs 0x401000 0 0 "0 0 0 0 0 0" 0 0
    roundtrip champsim one.cs
    rec br.cs 0x401000 0 0 "0 0 0 0 0 0" 0 0
    rec br.cs 0x401004 1 1 "26 0 26 25 0 0" 0 0
    rec br.cs 0x400f00 0 0 "6 0 6 0 0 0" 0x7ffe0000 0x7ffe0008
    rec br.cs 0x400f04 1 0 "26 0 26 25 0 0" 0 0
    rec br.cs 0x400f08 0 0 "3 0 3 4 0 0" 0 0x601000
    roundtrip champsim br.cs
    [ "$(stat -c %s rt.out)" -eq 320 ]
}

@test "a record cut off at the end: error naming file, record and offset, exit 1, the records before kept" {
    for i in 0 1 2; do rec cut.cs $((0x401000 + 4 * i)) 0 0 "1 2 3 4 5 6" 0 $((0x601000 + 8 * i)); done
    head -c 150 cut.cs > cut3.cs
    run "$PACK" --from champsim -o cut.sim cut3.cs
    [ "$status" -eq 1 ]
    [[ $output == *"simtrace-pack: cut3.cs"* ]]
    [[ $output == *"offset 128"* ]]
    [[ $output == *"record 3 is cut off: 22 of its 64 bytes"* ]]
    "$CAT" -F champsim cut.sim > kept.out
    head -c 128 cut.cs | cmp - kept.out
    # the same 192 bytes are two whole cloudsuite records
    "$PACK" --from champsim-cloudsuite -o cut2.sim cut.cs
    "$CAT" -F champsim cut2.sim | cmp - cut.cs
}

@test "cloudsuite: 96-byte records, padding and asid kept, round trip" {
    for i in 0 1 2 3 4; do rec cs.cs $((0x401000 + 4 * i)) $((i % 2)) $((i % 4 == 1)) "1 2 3 4 5 6 7 8" 0 $((0x601000 + 8 * i)) cs; done
    roundtrip champsim-cloudsuite cs.cs
    "$CAT" --list rt.sim | grep -E '^trace +champsim-cloudsuite +5 '
    # read as 64-byte records, the same bytes are 7 records and a cut one
    run "$PACK" --from champsim -o x.sim cs.cs
    [ "$status" -eq 1 ]
    [[ $output == *"record 8 is cut off: 32 of its 64 bytes"* ]]
}

@test "champsim-mem: the operands as d64 read and write streams, readable as text and din" {
    rec m.cs 0x401000 0 0 "6 0 6 0 0 0" 0x7ffe0000 0
    rec m.cs 0x401004 0 0 "3 0 3 0 0 0" 0 0x601000
    rec m.cs 0x401008 0 0 "0 0 0 0 0 0" 0 0
    rec m.cs 0x40100c 0 0 "3 0 3 0 0 0" 0x602000 0x602000
    "$PACK" --from champsim-mem -o m.sim m.cs
    "$CAT" -s trace -F champsim m.sim | cmp - m.cs
    [ "$("$CAT" -s read -F text m.sim | grep -v '^#' | awk '{print $2, $3, $4}' | tr '\n' ';')" = \
      "2 0x401004 0x601000;4 0x40100c 0x602000;" ]
    [ "$("$CAT" -s write -F text m.sim | grep -v '^#' | awk '{print $2, $3, $4}' | tr '\n' ';')" = \
      "1 0x401000 0x7ffe0000;4 0x40100c 0x602000;" ]
    [ "$("$CAT" -s write -F din m.sim | tr '\n' ';')" = "1 7ffe0000;1 602000;" ]
    "$CAT" --stats m.sim | grep -q 'stream read (d64'
}

@test "-F champsim refuses streams of other types" {
    rec a.cs 0x401000 0 0 "0 0 0 0 0 0" 0 0x601000
    "$PACK" --from champsim-mem -o a.sim a.cs
    run "$CAT" -s read -F champsim a.sim
    [ "$status" -ne 0 ]
}

@test "-F champsim of a file without its end and without a champsim stream: exit 1 (it may be in what is missing); of a whole file: exit 2" {
    rec a.cs 0x401000 0 0 "0 0 0 0 0 0" 0 0x601000
    "$PACK" --from champsim -o a.sim a.cs
    head -c 100 a.sim >cut.sim
    run "$CAT" -F champsim cut.sim
    expect_status 1
    expect_output_has "cut.sim: no stream of a type that -F champsim writes (champsim, champsim-cloudsuite) is in the complete frames of this file without its end"
    "$PACK" -o d.sim /dev/null
    run "$CAT" -F champsim d.sim
    expect_status 2
    expect_output_has "d.sim: no stream of a type that -F champsim writes"
}

@test "corpus: every ChampSim file round-trips byte for byte, and through a pipe" {
    [[ -d $CS_DIR ]] || skip "no corpus at $CS_DIR"
    for f in "$CS_DIR"/*; do
        case $f in
        *.xz) xz -dc "$f" > want ;;
        *.gz) gzip -dc "$f" > want ;;
        *) cp "$f" want ;;
        esac
        "$PACK" -f --from champsim -o c.sim "$f"
        "$CAT" -F champsim c.sim | cmp - want
        "$PACK" --from champsim - < want | "$CAT" -F champsim | cmp - want
        [ "$("$CAT" --list c.sim | awk '$1 == "trace" { print $3 }')" -eq $(($(stat -c %s want) / 64)) ]
    done
}
