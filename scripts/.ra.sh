#!/usr/bin/env bash
# bench.sh - compare svpc with xz, zstd, bzip2 and gzip on real traces.
#
# Usage: SVPC_BIN=/abs/path/to/build scripts/bench.sh      (what `make bench` runs)
#
# Inputs: every testdata/good/*.d64.xz and, when present, the reference
# corpus ../shared/corpus/*.zst beside the repository.  Each is unpacked to a
# temporary directory, then compressed and decompressed by every tool in the
# same run, so the speeds are comparable with each other (not with figures
# from other runs: speeds on these shared machines vary by up to 2x).
#
# Not a test: it prints tables (and writes them to build/bench.txt).  It
# exits non-zero only when svpc fails or does not restore a file exactly.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SVPC_BIN="${SVPC_BIN:-$ROOT/build}"
COMPRESS="$SVPC_BIN/svpc-compress"
DECOMPRESS="$SVPC_BIN/svpc-decompress"
CORPUS="$ROOT/../shared/corpus"
REPORT="$ROOT/build/bench.txt"
RUNS=3 # svpc timings: median of this many runs

die() {
    echo "bench.sh: $*" >&2
    exit 1
}
note() { echo "bench.sh: $*" >&2; }

[[ -x $COMPRESS && -x $DECOMPRESS ]] || die "svpc binaries not found in $SVPC_BIN (run 'make all')"
for t in xz zstd; do
    command -v "$t" >/dev/null || die "$t is needed to unpack the inputs"
done

TMP="$(mktemp -d /tmp/svpc-bench.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

# ---- the baselines: name, compress command, decompress command -------------
# (all single-threaded; read stdin, write stdout)
BASE_NAMES=()
declare -A BASE_C BASE_D
add_base() {
    local name=$1 tool=$2
    if command -v "$tool" >/dev/null; then
        BASE_NAMES+=("$name")
        BASE_C[$name]=$3
        BASE_D[$name]=$4
    else
        note "$tool not installed: skipping the $name baseline"
    fi
}
add_base "xz -9" xz "xz -9 -T1 -c" "xz -dc -T1"
add_base "zstd -19" zstd "zstd -19 --long=27 -T1 -q -c" "zstd -d --long=27 -q -c"
add_base "bzip2 -9" bzip2 "bzip2 -9 -c" "bzip2 -dc"
add_base "gzip -9" gzip "gzip -9 -c -n" "gzip -dc"

TIME_BIN=""
if [[ -x /usr/bin/time ]] && /usr/bin/time -f %M true >/dev/null 2>&1; then
    TIME_BIN=/usr/bin/time
else
    note "GNU time (/usr/bin/time) not installed: no peak memory figures"
fi

NCPU=$(nproc 2>/dev/null || echo 1)

# ---- helpers ------------------------------------------------------------------

now() { echo "$EPOCHREALTIME"; }
fsize() { stat -c %s "$1"; }

# elapsed CMD...: run CMD (its own redirections inside), print seconds.
elapsed() {
    local t0 t1
    t0=$(now)
    "$@"
    t1=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }'
}

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
mbps() { awk -v b="$1" -v s="$2" 'BEGIN { if (s <= 0) print "n/a"; else printf "%.1f", b / 1e6 / s }'; }
# div A B [FMT]: A / B, "n/a" when either is not a number
div() {
    awk -v a="$1" -v b="$2" -v f="${3:-%.2f}" 'BEGIN {
        if (a !~ /^[0-9.e+-]+$/ || b !~ /^[0-9.e+-]+$/ || b + 0 == 0) print "n/a"; else printf f, a / b }'
}
# group N: 1234567 -> 1,234,567
group() { sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$1"; }

svpc_c() { "$COMPRESS" "$@" <"$RAW" >"$TMP/out.svpc"; }
svpc_d() { "$DECOMPRESS" "$@" <"$TMP/out.svpc" >/dev/null; }
base_c() { sh -c "$1" <"$RAW" >"$TMP/out.base"; }
base_d() { sh -c "$1" <"$TMP/out.base" >/dev/null; }

# peak_kib CMD...: peak resident set of CMD in KiB (stdin/stdout as given)
peak_kib() {
    [[ -n $TIME_BIN ]] || { echo n/a; return; }
    "$TIME_BIN" -f %M -o "$TMP/rss" "$@"
    tail -n 1 "$TMP/rss"
}

FILES=()      # short names, in order
declare -A SRC REF_PAYLOAD REF_BPE REF_CMBS REF_DMBS
shopt -s nullglob
for f in "$ROOT"/testdata/good/*.d64.xz; do
    n="$(basename "$f" .d64.xz)"
    FILES+=("$n")
    SRC[$n]=$f
done
if [[ -d $CORPUS ]]; then
    for f in "$CORPUS"/*.zst; do
        n="$(basename "$f" .zst)"
        n="${n%.d64}"
        FILES+=("$n")
        SRC[$n]=$f
    done
else
    note "reference corpus not found at $CORPUS: skipping it"
fi
shopt -u nullglob
# reference figures of the original SVPC implementation (corpus README)
REF_PAYLOAD[bios_post.write]=72739
REF_BPE[bios_post.write]=0.34
REF_CMBS[bios_post.write]=54
REF_DMBS[bios_post.write]=141
REF_PAYLOAD[bios_post.read]=118177
REF_BPE[bios_post.read]=0.29
REF_CMBS[bios_post.read]=70
REF_DMBS[bios_post.read]=160

# Random access (issue 3): one entry at a random index of a 1 GiB stream
# (2^25 d64 entries of real lackey data) against decoding the whole stream,
# both with simtrace-cat from the same file; and what opening and listing reads.
random_access() {
    local PACK="$SVPC_BIN/simtrace-pack" CAT="$SVPC_BIN/simtrace-cat"
    [[ -x $PACK && -x $CAT ]] || { echo "random access: skipped (no simtrace-pack)"; return; }
    local big="$TMP/ra.d64" sim="$TMP/ra.sim" want=$((1 << 30)) f
    local srcs=("$ROOT"/testdata/good/lackey_*.d64.xz)
    [[ -e ${srcs[0]} ]] || { echo "random access: skipped (no lackey traces in testdata/good)"; return; }
    : >"$big"
    while (($(fsize "$big") < want)); do
        for f in "${srcs[@]}"; do xz -dc "$f" >>"$big"; done
    done
    truncate -s "$want" "$big"
    note "random access: packing $want bytes"
    "$PACK" -o "$sim" -f "$big" || { echo "random access: simtrace-pack failed"; return; }
    rm -f "$big"
    local n=$((want / 32)) full=() one=() i idx
    RANDOM=42 # the same indices every run
    for ((i = 0; i < 3; i++)); do full+=("$(elapsed "$CAT" -o /dev/null -f "$sim")"); done
    for ((i = 0; i < 11; i++)); do
        idx=$(((RANDOM * 32768 + RANDOM) % n))
        one+=("$(elapsed "$CAT" --entries "$idx:$((idx + 1))" -o /dev/null -f "$sim")")
    done
    local mf mo
    mf=$(median "${full[@]}") mo=$(median "${one[@]}")
    local list_t
    list_t=$(elapsed "$CAT" --list "$sim")
    echo "random access: $((want >> 20)) MiB of d64 ($n entries, $(("$(fsize "$sim")")) bytes packed), default settings"
    printf '  whole stream   %7.3f s (median of 3)\n' "$mf"
    printf '  one entry      %7.3f s (median of 11 random indices)   = %s of the whole\n' "$mo" \
        "$(awk -v a="$mo" -v b="$mf" 'BEGIN { printf "%.1f%%", 100 * a / b }')"
    printf '  --list         %7.3f s, reads %s bytes (footer, directory, descriptors)\n' "$list_t" \
        "$("$CAT" -v --entries 0:1 -o /dev/null -f "$sim" 2>&1 | sed -n 's/.*read \([0-9]*\) bytes.*/\1/p')"
    rm -f "$sim"
}

# Frame overhead (issue 3): the default frame size against one frame holding
# the whole trace, on traces that fit one frame.
frame_overhead() {
    local PACK="$SVPC_BIN/simtrace-pack" n f raw one def
    [[ -x $PACK ]] || return
    echo "frame overhead: default frames (2^20 entries) against one frame for the whole trace"
    for n in "${FILES[@]}"; do
        f=${SRC[$n]}
        raw="$TMP/fo.raw"
        case $f in
        *.zst) zstd -dc "$f" >"$raw" ;;
        *.xz) xz -dc "$f" >"$raw" ;;
        *) cp "$f" "$raw" ;;
        esac
        (($(fsize "$raw") / 32 > 16777216)) && continue
        one=$("$PACK" --frame-size 16M -T2 <"$raw" | wc -c)
        def=$("$PACK" -T2 <"$raw" | wc -c)
        printf '  %-28s %12s bytes in one frame, %12s at the default: %+.1f%%\n' "$n" \
            "$(group "$one")" "$(group "$def")" "$(awk -v a="$def" -v b="$one" 'BEGIN { print 100 * (a - b) / b }')"
    done
    rm -f "$TMP/fo.raw"
}


frame_overhead
random_access
