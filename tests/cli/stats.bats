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

@test "--stats: usage errors, pipes, missing streams, damaged files" {
    run "$SIMTRACE_CAT" --stats=xml "$ROOT/testdata/good/two_streams.sim"
    [[ $status -eq 2 && $output == simtrace-cat:*json* ]]
    run "$SIMTRACE_CAT" --stats --entries=0:5 "$ROOT/testdata/good/two_streams.sim"
    [[ $status -eq 2 && $output == *"no range"* ]]
    run "$SIMTRACE_CAT" --stats -o x "$ROOT/testdata/good/two_streams.sim"
    [[ $status -eq 2 && ! -e x ]]
    run "$SIMTRACE_CAT" --stats --list "$ROOT/testdata/good/two_streams.sim"
    [[ $status -eq 2 ]]
    run bash -c "cat '$ROOT/testdata/good/two_streams.sim' | '$SIMTRACE_CAT' --stats"
    [[ $status -eq 2 && $output == *"regular file"* ]]
    run "$SIMTRACE_CAT" --stats -s nope "$ROOT/testdata/good/two_streams.sim"
    [[ $status -eq 1 && $output == *"no stream named 'nope'"* ]]
    run "$SIMTRACE_CAT" --stats "$ROOT/testdata/bad/payload-crc.sim"
    [[ $status -eq 1 && $output == simtrace-cat:*checksum* ]]
}
