#!/usr/bin/env bats
# simtrace-cat --stats (issue 14): the sizes agree with --list and the
# frames with --list --frames; on a hand-built trace whose figures are
# known by construction (hit rates, distinct lines and pages, access
# sizes, reads), the JSON says exactly those; usage errors.

load helpers

PY=/usr/bin/python3
[[ -x $PY ]] || PY=python3

# json FILE EXPR: evaluate the Python expression EXPR with j = the JSON in FILE.
json() { "$PY" -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# hand.d64: 8000 d64 reads of one instruction at consecutive cycles; even
# entries read 2 bytes at 0x1000, odd ones 4 bytes at a random address of
# the 64 pages 0x200000..0x23ffff (random cache lines: many); random data.
make_hand() {
    "$PY" - <<'PYEOF'
import random, struct
r = random.Random(14)
out = bytearray()
for i in range(8000):
    if i % 2 == 0:
        addr, size = 0x1000, 2
    else:
        addr, size = 0x200000 + r.randrange(0x10000) * 4, 4
    data = size << 32 | r.getrandbits(16 if size == 2 else 32)
    out += struct.pack("<QQQQ", 1000 + i, 0x401000, addr, data)
open("hand.d64", "wb").write(out)
PYEOF
}

@test "--stats: the figures of --list; per-frame figures add up to the stream's; json and text agree" {
    xz -dc "$ROOT/testdata/good/bios_read_300k.d64.xz" | head -c $((100000 * 32)) > bios.d64
    "$SIMTRACE_PACK" --frame-size=30000 --stream cpu0.read bios.d64 --stream other --type m64 /dev/null -o b.sim
    run "$SIMTRACE_CAT" --stats=json b.sim
    [[ $status -eq 0 ]] || fail "$output"
    echo "$output" > s.json
    "$SIMTRACE_CAT" --list --json b.sim > l.json
    sizes='[(s["name"], s["entries"], s["frames"], s["raw_bytes"], s["stored_bytes"]) for s in j["streams"]]'
    [[ $(json s.json "$sizes") == "$(json l.json "$sizes")" ]]
    [[ $(json s.json 'sum(f["stored_bytes"] for f in j["streams"][0]["frame_stats"]) == j["streams"][0]["stored_bytes"]') == True ]]
    [[ $(json s.json '[f["entries"] for f in j["streams"][0]["frame_stats"]]') == "[30000, 30000, 30000, 10000]" ]]
    [[ $(json s.json 'round(j["streams"][0]["bits_per_entry"], 3) == round(8 * j["streams"][0]["stored_bytes"] / 100000, 3)') == True ]]
    [[ $(json s.json 'j["streams"][0]["reads"], j["streams"][0]["kind"], sum(j["streams"][0]["sizes"].values())') == "(100000, 'read', 100000)" ]]
    # the empty m64 stream: no frames, no rates, no sizes
    [[ $(json s.json 'j["streams"][1]["entries"], j["streams"][1]["frame_stats"], "sizes" in j["streams"][1]') == "(0, [], False)" ]]
    # the text says the same, for one stream (-s)
    run "$SIMTRACE_CAT" --stats -s cpu0.read b.sim
    [[ $status -eq 0 ]]
    [[ $output == *"entries 100000, frames 4"* && $output != *"stream other"* ]]
    hit=$(json s.json '"%.2f%%" % (100 * j["streams"][0]["fields"]["address"]["hit_rate"])')
    [[ $(grep '^  address' <<< "$output") == *" $hit "* ]]
}

@test "--stats: the hit rates, lines, pages and sizes of a hand-built trace" {
    make_hand
    "$SIMTRACE_PACK" --frame-size=2000 --stream cpu0.read hand.d64 -o h.sim
    "$SIMTRACE_CAT" --stats=json h.sim > h.json
    lines=$("$PY" -c 'import struct; d = open("hand.d64","rb").read(); print(len({struct.unpack_from("<Q", d, i + 16)[0] >> 6 for i in range(0, len(d), 32)}))')
    [[ $(json h.json 'j["streams"][0]["distinct_lines"]') == "$lines" ]]
    (( lines > 2000 ))
    # pages: 0x1000's and the 64 of 0x200000..0x23ffff
    [[ $(json h.json 'j["streams"][0]["distinct_pages"], j["streams"][0]["distinct_exact"]') == "(65, True)" ]]
    [[ $(json h.json 'j["streams"][0]["sizes"]') == "{'2': 4000, '4': 4000}" ]]
    f='j["streams"][0]["fields"]'
    # ip, meta: constant; cycle: stride 1 (hits after a warm-up of a few
    # entries per frame, 4 frames); address: the even entries, from the
    # last values at this ip; data: random, never
    [[ $(json h.json "$f[\"ip\"][\"hit_rate\"] >= 1 - 8 / 8000 and $f[\"meta\"][\"hit_rate\"] == 1") == True ]]
    [[ $(json h.json "1 - 12 / 8000 <= $f[\"cycle\"][\"hit_rate\"] < 1") == True ]]
    [[ $(json h.json "0.5 - 4 / 8000 <= $f[\"address\"][\"hit_rate\"] <= 0.5") == True ]]
    [[ $(json h.json "$f[\"data\"][\"hit_rate\"], $f[\"data\"][\"misses\"]") == "(0.0, 8000)" ]]
    [[ $(json h.json "all(sum(v[\"ids\"]) == 8000 and v[\"ids\"][-1] == v[\"misses\"] for v in $f.values())") == True ]]
    [[ $(json h.json 'all(abs(fr["hit_rate"]["address"] - 0.5) < 0.002 for fr in j["streams"][0]["frame_stats"])') == True ]]
}

# parts J: the stream's bits, in units, by part (json's "bits"): they must
# add up to the stored bytes x 8 exactly.
PARTS='(lambda b: (sum(b["ids"].values()) + sum(b["misses"].values()) + b["all_expected_flag"] + b["frame_headers"] + b["coder_rounding"] + b["other_encoders"], b["stored"]))'

@test "--stats: ids, misses, headers and rounding add up exactly to the stored size; frames of other encoders counted unsplit" {
    xz -dc "$ROOT/testdata/good/bios_read_300k.d64.xz" | head -c $((100000 * 32)) > bios.d64
    "$SIMTRACE_PACK" --frame-size=20000 --stream cpu0.read bios.d64 -o a.sim
    "$SIMTRACE_PACK" --frame-size=40000 -e cm --stream cpu0.read bios.d64 -o b.sim
    s='j["streams"][0]'
    for f in a.sim b.sim; do
        "$SIMTRACE_CAT" --stats=json $f > $f.json
        [[ $(json $f.json "$PARTS($s[\"bits\"])[0] == $PARTS($s[\"bits\"])[1] == 8 * 65536 * $s[\"stored_bytes\"]") == True ]]
        # the per-entry figures are the same split
        [[ $(json $f.json "abs(sum(v[\"ids_bits_per_entry\"] + v[\"misses_bits_per_entry\"] for v in $s[\"fields\"].values()) - (sum($s[\"bits\"][\"ids\"].values()) + sum($s[\"bits\"][\"misses\"].values())) / 65536 / $s[\"entries\"]) < 1e-4") == True ]]
    done
    # cm2: 5 frames split; the coder's rounding is its flush (5 bytes a
    # frame) and at most 0.1% of the payload, never below 0
    [[ $(json a.sim.json "$s[\"bits\"][\"other_encoder_frames\"], $s[\"frames\"]") == "(0, 5)" ]]
    [[ $(json a.sim.json "0 <= $s[\"bits\"][\"coder_rounding\"] <= 65536 * (8 * 8 * $s[\"frames\"] + 0.001 * 8 * $s[\"bits\"][\"payload_bytes\"])") == True ]]
    [[ $(json a.sim.json "$s[\"bits\"][\"misses\"][\"data\"] > 0 and $s[\"bits\"][\"ids\"][\"ip\"] > 0") == True ]]
    # cm: nothing split, the frames counted whole
    [[ $(json b.sim.json "$s[\"bits\"][\"other_encoder_frames\"], $s[\"frames\"], $s[\"bits\"][\"other_encoders\"] == $s[\"bits\"][\"stored\"]") == "(3, 3, True)" ]]
    [[ $(json b.sim.json "sum($s[\"bits\"][\"ids\"].values()) + sum($s[\"bits\"][\"misses\"].values())") == 0 ]]
    run "$SIMTRACE_CAT" --stats b.sim
    [[ $status -eq 0 && $output == *"frames of other encoders (3 of 3, split unavailable)"* ]]
    run "$SIMTRACE_CAT" --stats a.sim
    [[ $status -eq 0 && $output == *"they add up to the stored size"* && $output != *"other encoders"* ]]
    total=$(json a.sim.json "'%.4f' % (8 * $s[\"stored_bytes\"] / $s[\"entries\"])")
    [[ $(grep "total (stored bytes x 8 / entries)" <<< "$output") == *" $total" ]]
}

@test "--stats: a field that always hits costs ids only, one that always misses costs misses" {
    make_hand
    "$SIMTRACE_PACK" --frame-size=2000 --stream cpu0.read hand.d64 -o h.sim
    "$SIMTRACE_CAT" --stats=json h.sim > h.json
    b='j["streams"][0]["bits"]'
    # ip and meta never change: after each of the 4 frames' first entry,
    # only ids; their misses cost under 64 bits a frame
    [[ $(json h.json "$b[\"misses\"][\"ip\"] < 4 * 64 * 65536 and $b[\"misses\"][\"meta\"] < 4 * 64 * 65536") == True ]]
    [[ $(json h.json "$b[\"ids\"][\"ip\"] > 0 and $b[\"ids\"][\"meta\"] > 0") == True ]]
    # data: random 16 or 32 bits, always missed: more than 12 bits an
    # entry in misses, and its ids (the miss id) far fewer
    [[ $(json h.json "$b[\"misses\"][\"data\"] > 12 * 8000 * 65536 > 4 * $b[\"ids\"][\"data\"]") == True ]]
    [[ $(json h.json "$PARTS($b)[0] == $PARTS($b)[1]") == True ]]
}

@test "--stats: usage errors, missing streams, damaged files" {
    run "$SIMTRACE_CAT" --stats=xml "$ROOT/testdata/good/two_streams.sim"
    [[ $status -eq 2 && $output == simtrace-cat:*json* ]]
    run "$SIMTRACE_CAT" --stats --entries=0:5 "$ROOT/testdata/good/two_streams.sim"
    [[ $status -eq 2 && $output == *"no range"* ]]
    run "$SIMTRACE_CAT" --stats -o x "$ROOT/testdata/good/two_streams.sim"
    [[ $status -eq 2 && ! -e x ]]
    run "$SIMTRACE_CAT" --stats --list "$ROOT/testdata/good/two_streams.sim"
    [[ $status -eq 2 ]]
    # several containers: refused, not taken for a merged export of entries
    for f in "" "-F text" "-F lackey"; do
        run "$SIMTRACE_CAT" --stats $f "$ROOT/testdata/good/two_streams.sim" "$ROOT/testdata/good/two_streams.sim"
        [[ $status -eq 2 && $output == "simtrace-cat: --stats takes one container, at most one -s NAME, no range, and writes to standard output" ]] ||
            fail "--stats $f FILE FILE: $status $output"
    done
    run "$SIMTRACE_CAT" --stats -s nope "$ROOT/testdata/good/two_streams.sim"
    [[ $status -eq 1 && $output == *"no stream named 'nope'"* ]]
    run "$SIMTRACE_CAT" --stats "$ROOT/testdata/bad/payload-crc.sim"
    [[ $status -eq 1 && $output == simtrace-cat:*checksum* ]]
}

@test "--stats on a pipe: the figures of the file, in one pass; missing streams and damage through a pipe" {
    xz -dc "$ROOT/testdata/good/bios_read_300k.d64.xz" | head -c $((60000 * 32)) > bios.d64
    head -c $((20000 * 32)) bios.d64 > w.d64
    "$SIMTRACE_PACK" --frame-size=15000 --stream cpu0.read bios.d64 --stream cpu0.write w.d64 --stream other --type m64 /dev/null -o p.sim
    for f in "" "=json"; do
        "$SIMTRACE_CAT" --stats$f p.sim | sed 's/"file": "[^"]*"//' > file.out
        cat p.sim | "$SIMTRACE_CAT" --stats$f | sed 's/"file": "[^"]*"//' > pipe.out
        cmp file.out pipe.out
        "$SIMTRACE_CAT" --stats$f -s cpu0.write p.sim | sed 's/"file": "[^"]*"//' > file.out
        cat p.sim | "$SIMTRACE_CAT" --stats$f -s cpu0.write | sed 's/"file": "[^"]*"//' > pipe.out
        cmp file.out pipe.out
    done
    grep -q "stream cpu0.read" <(cat p.sim | "$SIMTRACE_CAT" --stats)
    ! grep -q "stream cpu0.read" pipe.out
    [[ $(cat p.sim | "$SIMTRACE_CAT" --stats=json | json /dev/stdin '[s["name"] for s in j["streams"]], j["file"]') == "(['cpu0.read', 'cpu0.write', 'other'], '(stdin)')" ]]
    run bash -c "cat p.sim | '$SIMTRACE_CAT' --stats -s nope"
    [[ $status -eq 1 && $output == "simtrace-cat: (stdin): no stream named 'nope' (see --list)" ]]
    run bash -c "cat '$ROOT/testdata/bad/payload-crc.sim' | '$SIMTRACE_CAT' --stats"
    [[ $status -eq 1 && $output == simtrace-cat:*checksum* ]]
    run bash -c "head -c 3000 p.sim | '$SIMTRACE_CAT' --stats"
    [[ $status -eq 1 && $output == simtrace-cat:* ]]
}

@test "--stats: a cmx frame is accounted as its payload's first byte says it was coded (with the transform or without), from a file and from a pipe" {
    # the same 10,000 entries: without the transform (first byte 1, as
    # today's writer codes them) and with it (0, as a writer before the
    # per-frame choice did: 1 byte more); each split adds up to its own
    # stored size with the same container bytes around its payload
    local off="$ROOT/testdata/good/encoder13-cmx-off.sim" old="$ROOT/testdata/good/encoder13-cmx-old.sim" f
    cmp <("$DECOMPRESS" "$off") <("$DECOMPRESS" "$old")
    for f in off old; do
        local p=${!f}
        "$SIMTRACE_CAT" --stats=json "$p" >$f.json
        cat "$p" | "$SIMTRACE_CAT" --stats=json >$f.pipe
        cmp <(sed 's/"file": "[^"]*"//' $f.json) <(sed 's/"file": "[^"]*"//' $f.pipe)
    done
    [[ $(json off.json 'j["streams"][0]["bits"]["payload_bytes"]') == 13727 ]]
    [[ $(json old.json 'j["streams"][0]["bits"]["payload_bytes"]') == 13728 ]]
    [[ $(json off.json 'j["streams"][0]["bits"]["frame_headers"]') == $(json old.json 'j["streams"][0]["bits"]["frame_headers"]') ]]
    [[ $(json off.json 'j["streams"][0]["bits"]["misses"]["data"]') != $(json old.json 'j["streams"][0]["bits"]["misses"]["data"]') ]]
}

@test "--stats: which cmx and mix frames were coded with the transform of recent data values, from their first payload byte, file and pipe alike" {
    # fixture: frames with it (1) and without it (0); cm2 frames have none
    local f want
    for f in encoder13-cmx-off:0:1 encoder13-cmx-old:1:0 encoder13-cmx:3:0 encoder12-mix7:0:3 \
        encoder12-mix8x:3:0 encoder12-mix9x:3:0 compat-1.4-cm2:0:0; do
        local name=${f%%:*} on=${f#*:} off
        off=${on#*:} on=${on%%:*}
        local p="$ROOT/testdata/good/$name.sim"
        "$SIMTRACE_CAT" --stats=json "$p" >j.file
        cat "$p" | "$SIMTRACE_CAT" --stats=json >j.pipe
        cmp <(sed 's/"file": "[^"]*"//' j.file) <(sed 's/"file": "[^"]*"//' j.pipe)
        [[ $(json j.file 'j["streams"][0]["transform_on_frames"]') == "$on" ]] || fail "$name: on"
        [[ $(json j.file 'j["streams"][0]["transform_off_frames"]') == "$off" ]] || fail "$name: off"
        want=$(json j.file '" ".join({True: "1", False: "0", None: "-"}[x.get("transform")] for x in j["streams"][0]["frame_stats"])')
        run "$SIMTRACE_CAT" --stats "$p"
        expect_status 0
        if ((on + off)); then
            [[ $want == *[01]* && $want != *-* ]] || fail "$name: frames $want"
            expect_output_has "  frames coded with the transform of recent data values: $on of $((on + off))"
        else
            [[ $want != *[01]* ]] || fail "$name: frames $want"
            [[ $output != *"transform of recent"* ]] || fail "$name: a transform line for cm2: $output"
        fi
    done
}
