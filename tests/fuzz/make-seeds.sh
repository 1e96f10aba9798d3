#!/usr/bin/env bash
# make-seeds.sh OUTDIR - seed corpora for the fuzz harnesses, made with the
# normal build ($SVPC_BIN) from bundled real traces: small containers of
# every encoder and several frame sizes, and raw entries.
set -euo pipefail
out=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"/{container,index,codec,roundtrip,import,ranges,api}
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
src=$(ls "$root"/testdata/good/*.d64.xz 2>/dev/null | head -n 1 || true)
if [ -n "$src" ]; then
    { xz -dc "$src" || true; } | head -c 64000 > "$raw" # xz ends by SIGPIPE
else
    # no bundled trace: a small synthetic loop (4 instructions, two arrays)
    perl -e 'for $i (0..1999) { $k=$i%4; print pack("QQQQ", 100+$i+($k==0), 0x401000+4*$k, 0x7ff000+8*int($i/4)+($k<<16), (4<<32)|int($i/4)); }' > "$raw"
fi
i=0
for e in cm cm2 paper generic; do
    for fs in 1 50 2000; do
        for t in d64 m32; do
            if [ "$t" = d64 ]; then bytes=32000; else bytes=16000; fi
            head -c "$bytes" "$raw" | "$SVPC_BIN/svpc-compress" -e "$e" -t "$t" --frame-size "$fs" -T1 \
                > "$out/container/s$i.sim" 2>/dev/null || true
            cp "$out/container/s$i.sim" "$out/index/s$i.sim"
            i=$((i + 1))
        done
    done
done
# legacy vpc pairs with the vpc and the cm encoder
for e in vpc cm; do
    for fs in 7 500; do
        "$SVPC_BIN/simtrace-pack" -e "$e" --frame-size "$fs" -T1 --from vpc "$root/testdata/good/sample.vpc" \
            > "$out/container/v$e$fs.sim" 2>/dev/null || true
        cp "$out/container/v$e$fs.sim" "$out/index/v$e$fs.sim"
    done
done
cp "$root"/testdata/good/*.sim "$out/container/" 2>/dev/null || true
# 197 (0xC5), 131 (0x83) and 161 (0xA1): the round trip's mix (12) at -7,
# -8 and -9; 65 (0x41) its cmx (13), and 12 the codec's
for sel in 0 1 2 3 5 11 12 17 18 19 35 65 66 131 161 197; do
    { printf "\\x$(printf %02x $sel)"; head -c 6400 "$raw"; } > "$out/roundtrip/r$sel"
    { printf "\\x$(printf %02x $sel)\\x10\\x00"; head -c 300 "$raw"; } > "$out/codec/c$sel"
done
# the codec's mix (byte 0 10 and 21), its payload's parameter byte 1, 2,
# 5, 6, 7 and two refused (3: best's; 8)
for sel in 10 21; do
    for count in 1 2 3 5 6 7 8; do
        { printf "\\x$(printf %02x $sel)\\x10\\x00\\x0$count"; head -c 300 "$raw"; } > "$out/codec/c$sel-$count"
    done
done
# the codec's cmx on d64 entries, the only type the transform acts on
# (byte 0 103: 103 % 13 = 12, (103 >> 2) % 5 = 0): its payload's first
# byte 0 (the transform on), 1 (off) and a refused 2 (SIMTRACE.md 6.9.1)
for lead in 0 1 2; do
    { printf "\\x67\\x10\\x00\\x0$lead"; head -c 300 "$raw"; } > "$out/codec/c103-$lead"
done
# importers: byte 0 selects the format (index in fuzz_import.c's table)
k=0
for f in lackey din xdin pinatrace text vpc vpc3 bochs; do
    for s in "$root"/testdata/good/sample.$f "$root"/testdata/good/sample.$f.*; do
        [ -f "$s" ] || continue
        case $s in *.xz) dec="xz -dc";; *) dec=cat;; esac
        { printf "\\x$(printf %02x $k)"; { $dec "$s" || true; } | head -c 4000; } > "$out/import/$f-$(basename "$s")"
    done
    k=$((k + 1))
done
# a text seed from the text exporter (format 4)
{ printf '\x04'; head -c 3200 "$raw" | "$SVPC_BIN/simtrace-pack" -T1 2>/dev/null | "$SVPC_BIN/simtrace-cat" -F text 2>/dev/null; } \
    > "$out/import/text-export" || true
# several streams in one text file (parts), and compressed inputs (bit 4 of
# byte 0: through st_decomp): xz, gzip and zstd of the lackey sample
head -c 4000 "$root/testdata/good/sample.lackey" | "$SVPC_BIN/simtrace-pack" -T1 --from lackey 2>/dev/null \
    > "$out/parts.sim" || true
{ printf '\x04'; "$SVPC_BIN/simtrace-cat" --all -F text "$out/parts.sim" 2>/dev/null; } > "$out/import/text-parts" || true
rm -f "$out/parts.sim"
# dramsim2, gem5, pixie32, pixie64: byte 0 = 0x80 | index << 5 (fuzz_import.c's foreign table;
# 0xe1 pixie64, 0xe0 cvp, 0xe2 drmemtrace, 0x83 | index << 5 the ChampSim importers);
# DRAMSim2 and gem5 traces made from the lackey sample, pixie words written here
head -c 4000 "$root/testdata/good/sample.lackey" | "$SVPC_BIN/simtrace-pack" -T1 --from lackey 2>/dev/null \
    > "$out/foreign.sim" || true
{ printf '\x80'; "$SVPC_BIN/simtrace-cat" -q -F dramsim2 "$out/foreign.sim" 2>/dev/null | head -c 4000; } \
    > "$out/import/dramsim2-lackey" || true
{ printf '\xa0'; "$SVPC_BIN/simtrace-cat" -q -F gem5 "$out/foreign.sim" 2>/dev/null | head -c 4000; } \
    > "$out/import/gem5-lackey" || true
rm -f "$out/foreign.sim"
printf '\xc0\x1c\x00\x00\x4c\x30\xff\x2f\x80\x0d\x00\x00\xd2\x1e\x00\x03\xe9\x2b\x02\xda\x58' \
    > "$out/import/pixie32-words"
printf '\xe1\x1c\x00\x00\x00\x00\x00\x00\x4c\x01\x00\x00\x7f\xff\xff\x2f\x80' > "$out/import/pixie64-words"
for z in "xz -c" "gzip -c" "zstd -q -c"; do
    { printf '\x10'; head -c 4000 "$root/testdata/good/sample.lackey" | $z; } > "$out/import/lackey-${z%% *}" || true
done
# CVP-1 / CBP-2025 (byte 0: top bits set, bit 3 cbp2025): the start of the
# corpus's CBP-2025 sample, read both ways
cbp="$root/../shared/corpus/foreign/cbp2025/sample_fp_trace.gz"
if [ -f "$cbp" ]; then
    { printf '\xe8'; { gzip -dc "$cbp" || true; } | head -c 4000; } > "$out/import/cbp2025-sample"
    { printf '\xe0'; { gzip -dc "$cbp" || true; } | head -c 4000; } > "$out/import/cvp-sample"
fi
# ranges: 16 bytes choosing the range (two u64), then a container: the index
# seeds, the good containers and the bad-file corpus, each with a few ranges
i=0
for c in "$out"/index/*.sim "$root"/testdata/good/*.sim "$root"/testdata/bad/*.sim; do
    [ -f "$c" ] || continue
    for r in '\x00\x00\x00\x00\x00\x00\x00\x00\xff\x00\x00\x00\x00\x00\x00\x00' \
             '\x31\x00\x00\x00\x00\x00\x00\x00\x40\x00\x00\x00\x00\x00\x00\x00'; do
        { printf "$r"; cat "$c"; } > "$out/ranges/g$i"
        cp "$out/ranges/g$i" "$out/api/g$i" # fuzz_api: an entry and a cycle, then a trace
        i=$((i + 1))
    done
done
