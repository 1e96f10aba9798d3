#!/usr/bin/env bats
# DynamoRIO drmemtrace traces (formats/IMPORT.md 18): simtrace-pack --from
# drmemtrace of the corpus's zips, directories, .trace.gz and plain traces,
# given back byte for byte per thread by simtrace-cat -F drmemtrace; the
# edge cases (empty, one record, a record cut off, not a trace, a damaged
# zip member) on traces made here.

load helpers

PACK="$SVPC_BIN/simtrace-pack"
CAT="$SVPC_BIN/simtrace-cat"
D="$CORPUS_DIR/foreign/drmemtrace"
PY=/usr/bin/python3

setup() {
    common_setup
    [[ -x $PACK && -x $CAT ]] || fail "simtrace-pack/simtrace-cat not built in $SVPC_BIN"
}

need_corpus() { [[ -d $D ]] || skip "no drmemtrace corpus at $D"; }

# rec TYPE SIZE ADDR: one packed trace_entry_t on stdout
rec() { $PY -c 'import struct,sys; sys.stdout.buffer.write(struct.pack("<HHQ", *map(int, sys.argv[1:])))' "$@"; }

# the one stream of container $1, exported
export_only() { "$CAT" -F drmemtrace "$1"; }

# stream name of a thread's zip: tid and the thread record's value
tid_of() { unzip -p "$1" | $PY -c '
import struct,sys
d=sys.stdin.buffer.read()
for i in range(0, len(d) - 11, 12):
    t,s,a = struct.unpack_from("<HHQ", d, i)
    if t == 22: print("tid%d" % a); break'; }

@test "drmemtrace: every thread of the threadsig directory round-trips byte for byte" {
    need_corpus
    run "$PACK" --from drmemtrace -o t.sim "$D/drmemtrace.threadsig.x64.tracedir"
    [ "$status" -eq 0 ]
    n=0
    for z in "$D"/drmemtrace.threadsig.x64.tracedir/*.trace.zip; do
        s=$(tid_of "$z")
        "$CAT" -F drmemtrace -s "$s" t.sim >out.bin
        unzip -p "$z" >want.bin # the members in the archive's order
        cmp out.bin want.bin
        n=$((n + 1))
    done
    [ "$n" -eq 9 ]
    # the schedule files are not traces: 9 streams, no more
    [ "$("$CAT" --list t.sim | tail -n +2 | wc -l)" -eq 9 ]
}

@test "drmemtrace: simple_app and allasm zips (7 members), small.x64.trace, the legacy .trace.gz" {
    need_corpus
    for z in drmemtrace.simple_app.trace.zip drmemtrace.allasm_x86_64.trace.zip; do
        run "$PACK" -f --from drmemtrace -o z.sim "$D/$z"
        [ "$status" -eq 0 ]
        export_only z.sim >out.bin
        unzip -p "$D/$z" >want.bin
        cmp out.bin want.bin
    done
    run "$PACK" -f --from drmemtrace -o s.sim "$D/drmemtrace.small.x64.trace"
    [ "$status" -eq 0 ]
    export_only s.sim | cmp - "$D/drmemtrace.small.x64.trace"
    run "$PACK" -f --from drmemtrace -o g.sim "$D/drmemtrace.legacy-for-record-filter.x64.tracedir"
    [ "$status" -eq 0 ]
    [ "$("$CAT" --list g.sim | tail -n +2 | wc -l)" -eq 4 ]
    for g in "$D"/drmemtrace.legacy-for-record-filter.x64.tracedir/*.trace.gz; do
        tid=$(basename "$g" | cut -d. -f3)
        "$CAT" -F drmemtrace -s "tid$tid" g.sim | cmp - <(gzip -dc "$g")
    done
}

@test "drmemtrace: written with drmx (encoder 14); containers of encoder 10 (the one before it) and of drmx as first written still decode to the same records" {
    # testdata/good/encoder10-drmemtrace.sim: the threadsig thread 872906
    # packed at 22066ac, encoder14-drmx.sim the same when drmx came; the
    # SHA-256 of the thread's one zip member
    local G="$ROOT/testdata/good/encoder10-drmemtrace.sim" want=6c16dcf71126cbb02a98e6abb12e88a341847322673b2940f4e451faf045abb6 f
    for f in encoder10-drmemtrace:drmemtrace encoder14-drmx:drmx; do
        local F="$ROOT/testdata/good/${f%%:*}.sim"
        "$CAT" --stats "$F" | grep -q "encoder ${f#*:})" || fail "$F: not encoder ${f#*:}: $("$CAT" --stats "$F" | head -1)"
        [[ $(export_only "$F" | sha256sum) == "$want "* ]] || fail "$F: its records differ from the thread's"
        run "$CAT" --verify "$F"
        expect_status 0
    done
    need_corpus
    local z="$D/drmemtrace.threadsig.x64.tracedir/drmemtrace.threadsig.872906.1041.trace.zip"
    [[ $(unzip -p "$z" | sha256sum) == "$want "* ]] || fail "the corpus thread changed"
    run "$PACK" --from drmemtrace -o x.sim "$z"
    expect_status 0
    "$CAT" --stats x.sim | grep -q "encoder drmx)" || fail "not written with drmx: $("$CAT" --stats x.sim | head -1)"
    [[ $(export_only x.sim | sha256sum) == "$want "* ]] || fail "drmx's records differ from the thread's"
    # drmx reads the instructions' bytes: smaller than encoder 10 on this thread
    (($(wc -c <x.sim) < $(wc -c <"$G"))) || fail "drmx $(wc -c <x.sim) bytes, encoder 10 $(wc -c <"$G")"
    run "$PACK" -f -e drmemtrace --from drmemtrace -o y.sim "$z"
    expect_status 0
    cmp y.sim "$G" || fail "-e drmemtrace does not write encoder 10 as it was written"
}

@test "drmemtrace: -F lackey gives the instructions and memory references" {
    need_corpus
    run "$PACK" --from drmemtrace -o s.sim "$D/drmemtrace.small.x64.trace"
    [ "$status" -eq 0 ]
    "$CAT" -F lackey s.sim >s.lackey
    counts=$($PY -c '
import struct,sys
d=open(sys.argv[1],"rb").read()
i=r=w=0
for o in range(0, len(d), 12):
    t,s,a = struct.unpack_from("<HHQ", d, o)
    if 10 <= t <= 16 or t in (29, 48, 49): i += 1
    elif t == 1: w += 1
    elif t <= 9: r += 1
print(i, r, w)' "$D/drmemtrace.small.x64.trace")
    read -r ni nr nw <<<"$counts"
    [ "$ni" -gt 0 ]
    [ "$(grep -c '^I ' s.lackey)" -eq "$ni" ]
    [ "$(grep -c '^ L ' s.lackey)" -eq "$nr" ]
    [ "$(grep -c '^ S ' s.lackey)" -eq "$nw" ]
}

@test "drmemtrace: an empty trace is a stream of no entries; one record round-trips" {
    : >empty.trace
    run "$PACK" --from drmemtrace -o e.sim empty.trace
    [ "$status" -eq 0 ]
    [ "$("$CAT" --list e.sim | awk '$1 == "trace" { print $3 }')" -eq 0 ]
    rec 25 0 1 >one.trace
    run "$PACK" --from drmemtrace -o o.sim one.trace
    [ "$status" -eq 0 ]
    export_only o.sim | cmp - one.trace
}

@test "drmemtrace: markers, encodings and odd values round-trip; the stream is named by its thread" {
    {
        rec 25 0 1
        rec 22 4 4242
        rec 24 4 4242
        rec 28 2 13186525363117589
        rec 47 3 $((0xe78948))
        rec 10 3 $((0x401000))
        rec 47 8 18446744073709551615
        rec 47 2 $((0x00c3))
        rec 10 10 $((0x401003))
        rec 0 8 $((0x7ffe0010))
        rec 47 0 5          # an encoding of no bytes, with a value
        rec 47 2 $((0x10000))  # bits above its size
        rec 300 65535 18446744073709551615
        rec 28 29 $((0x401000))
        rec 12 2 $((0x40100d))
        rec 10 3 $((0x401000))
        rec 1 4 $((0x7ffe0018))
        rec 26 0 0
    } >odd.trace
    run "$PACK" --from drmemtrace -o odd.sim odd.trace
    [ "$status" -eq 0 ]
    "$CAT" --list odd.sim | grep -q '^tid4242 '
    export_only odd.sim | cmp - odd.trace
}

@test "drmemtrace: a record cut off at the end: exit 1, file, record and offset named, the records before kept" {
    { rec 25 0 1; rec 22 4 7; rec 10 3 4096; rec 0 8 8192; } >cut.trace
    printf 'abcde' >>cut.trace
    run "$PACK" --from drmemtrace -o c.sim cut.trace
    [ "$status" -eq 1 ]
    [[ $output == *"cut.trace"* ]]
    [[ $output == *"record 4"* ]]
    [[ $output == *"offset 48"* ]]
    export_only c.sim | cmp - <(head -c 48 cut.trace)
}

@test "drmemtrace: not a trace (no header first), a damaged zip member, a zip on a pipe: exit 1, said" {
    { rec 10 3 4096; rec 26 0 0; } >nohdr.trace
    run "$PACK" --from drmemtrace -o n.sim nohdr.trace
    [ "$status" -eq 1 ]
    [[ $output == *"nohdr.trace"* && $output == *"not a drmemtrace header"* ]]
    # a zip of two members, the second's data damaged (its CRC no longer matches)
    { rec 25 0 1; rec 22 4 9; rec 10 3 4096; } >a.bin
    { rec 10 3 4099; rec 26 0 0; } >b.bin
    $PY - <<'EOF'
import zipfile
with zipfile.ZipFile("t.zip", "w", zipfile.ZIP_STORED) as z:
    z.write("a.bin", "chunk.0000")
    z.write("b.bin", "chunk.0001")
d = bytearray(open("t.zip", "rb").read())
i = d.find(open("b.bin", "rb").read())
d[i + 2] ^= 0x40
open("bad.zip", "wb").write(d)
EOF
    run "$PACK" --from drmemtrace -o z.sim t.zip
    [ "$status" -eq 0 ]
    export_only z.sim | cmp - <(cat a.bin b.bin)
    run "$PACK" --from drmemtrace -o bz.sim bad.zip
    [ "$status" -eq 1 ]
    [[ $output == *"bad.zip"* && $output == *"chunk.0001"* && $output == *"CRC"* ]]
    # the first member's records are kept
    export_only bz.sim | cmp - a.bin
    # standard input redirected from the file is the file, a pipe is not
    run "$PACK" --from drmemtrace -o f.sim - <t.zip
    [ "$status" -eq 0 ]
    run bash -c "cat t.zip | '$PACK' --from drmemtrace -o p.sim -"
    [ "$status" -eq 1 ]
    [[ $output == *"regular file"* ]]
    mkdir nodir
    run "$PACK" --from drmemtrace -o d.sim nodir
    [ "$status" -eq 1 ]
    [[ $output == *"nodir"* && $output == *"no drmemtrace trace files"* ]]
}
