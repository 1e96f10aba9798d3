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
# raw_of FILE: the raw entries of a trace, decompressed by its suffix
raw_of() {
    case $1 in
    *.zst) zstd -dc -q -- "$1" ;;
    *.xz) xz -dc -- "$1" ;;
    *) cat -- "$1" ;;
    esac
}
# lackey_repeat FILE BYTES: the testdata lackey traces, repeated and cut to
# BYTES; fails (writing nothing) when there are none
lackey_repeat() {
    local srcs=("$ROOT"/testdata/good/lackey_*.d64.xz) f
    [[ -e ${srcs[0]} ]] || return 1
    : >"$1"
    while (($(fsize "$1") < $2)); do
        for f in "${srcs[@]}"; do xz -dc "$f" >>"$1"; done
    done
    truncate -s "$2" "$1"
}

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

# ---- collect the inputs ---------------------------------------------------------

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

((${#FILES[@]})) || die "no inputs: neither testdata/good/*.d64.xz nor $CORPUS/*.zst"

declare -A V # V[file|metric]
FAILED=0

for n in "${FILES[@]}"; do
    src=${SRC[$n]}
    RAW="$TMP/$n.d64"
    note "$n: unpacking $(basename "$src")"
    raw_of "$src" >"$RAW"
    raw=$(fsize "$RAW")
    V[$n|raw]=$raw
    V[$n|entries]=$((raw / 32))
    ((raw % 32 == 0)) || note "$n: $raw bytes is not a whole number of d64 entries"

    # svpc: correctness first
    note "$n: svpc (default settings)"
    "$COMPRESS" <"$RAW" >"$TMP/out.svpc" || {
        note "$n: svpc-compress failed"
        FAILED=1
        continue
    }
    if ! "$DECOMPRESS" <"$TMP/out.svpc" | cmp -s - "$RAW"; then
        note "$n: svpc round trip FAILED"
        FAILED=1
        V[$n|verified]=FAILED
    else
        V[$n|verified]=yes
    fi
    V[$n|svpc]=$(fsize "$TMP/out.svpc")
    "$COMPRESS" -e paper <"$RAW" >"$TMP/out.paper"
    V[$n|paper]=$(fsize "$TMP/out.paper")

    # svpc speeds: default threads, -T1, -T2 (the default is -T$NCPU)
    for mode in default T1 T2; do
        if [[ $mode == T2 && $NCPU -eq 2 ]]; then
            V[$n|c_T2]=${V[$n|c_default]}
            V[$n|d_T2]=${V[$n|d_default]}
            continue
        fi
        args=()
        [[ $mode == default ]] || args=("-${mode}")
        note "$n: timing svpc ${args[*]:-(default threads)} x$RUNS"
        cs=() ds=()
        for ((i = 0; i < RUNS; i++)); do
            cs+=("$(elapsed svpc_c "${args[@]}")")
            ds+=("$(elapsed svpc_d "${args[@]}")")
        done
        V[$n|c_$mode]=$(mbps "$raw" "$(median "${cs[@]}")")
        V[$n|d_$mode]=$(mbps "$raw" "$(median "${ds[@]}")")
    done

    # peak memory at default settings
    V[$n|rss_c]=$(peak_kib "$COMPRESS" -f -o /dev/null <"$RAW")
    "$COMPRESS" <"$RAW" >"$TMP/out.svpc"
    V[$n|rss_d]=$(peak_kib "$DECOMPRESS" -f -o /dev/null <"$TMP/out.svpc")

    # baselines, once each
    for b in "${BASE_NAMES[@]}"; do
        note "$n: $b"
        V[$n|c_$b]=$(mbps "$raw" "$(elapsed base_c "${BASE_C[$b]}")")
        V[$n|size_$b]=$(fsize "$TMP/out.base")
        V[$n|d_$b]=$(mbps "$raw" "$(elapsed base_d "${BASE_D[$b]}")")
    done
    rm -f "$RAW" "$TMP"/out.*
done

# ---- report ---------------------------------------------------------------------

W=30 # metric column
C=17 # file columns: wide enough for the longest name
for n in "${FILES[@]}"; do
    ((${#n} + 2 <= C)) || C=$((${#n} + 2))
done
HAVE_REF=0
for n in "${FILES[@]}"; do
    [[ -n ${REF_PAYLOAD[$n]:-} ]] && HAVE_REF=1
done
row() { # row LABEL VALUE...
    printf "%-${W}s" "$1"
    shift
    local v
    for v in "$@"; do printf "%${C}s" "$v"; done
    printf '\n'
}
rule() { printf '%*s\n' $((W + C * ${#FILES[@]})) '' | tr ' ' -; }
metric() { # metric LABEL KEY [FORMATTER]
    local label=$1 key=$2 fmt=${3:-} vals=() n v
    for n in "${FILES[@]}"; do
        v=${V[$n|$key]:-n/a}
        [[ -n $fmt && $v != n/a ]] && v=$($fmt "$v")
        vals+=("$v")
    done
    row "$label" "${vals[@]}"
}
computed() { # computed LABEL FUNC [ARG] (FUNC FILE [ARG] prints the value)
    local label=$1 f=$2 arg=${3:-} vals=() n
    for n in "${FILES[@]}"; do vals+=("$($f "$n" "$arg")"); done
    row "$label" "${vals[@]}"
}
mib() { div "$1" 1024 "%.1f"; }
ratio_of() { div "${V[$1|raw]}" "${V[$1|svpc]}" "%.0fx"; }
bpe_of() { div "$((${V[$1|svpc]} * 8))" "${V[$1|entries]}" "%.3f"; }
vs_xz() { div "${V[$1|svpc]}" "${V[$1|size_xz -9]:-}" "%.3f"; }
vs_zstd() { div "${V[$1|svpc]}" "${V[$1|size_zstd -19]:-}" "%.3f"; }
paper_vs() { div "${V[$1|paper]}" "${V[$1|svpc]}" "%.3f"; }
xratio() { local r; r=$(div "${V[$1|raw]}" "${V[$1|size_$2]:-}" "%.0fx"); echo "$r"; }
t1_vs_xz_c() { div "${V[$1|c_T1]}" "${V[$1|c_xz -9]:-}" "%.1fx"; }
t1_vs_xz_d() { div "${V[$1|d_T1]}" "${V[$1|d_xz -9]:-}" "%.1fx"; }
t2_vs_t1_c() { div "${V[$1|c_T2]}" "${V[$1|c_T1]}" "%.2fx"; }
t2_vs_t1_d() { div "${V[$1|d_T2]}" "${V[$1|d_T1]}" "%.2fx"; }
ref_pay() { [[ -n ${REF_PAYLOAD[$1]:-} ]] && group "${REF_PAYLOAD[$1]}" || echo -; }
ref_ratio() { [[ -n ${REF_PAYLOAD[$1]:-} ]] && div "${V[$1|raw]}" "${REF_PAYLOAD[$1]}" "%.0fx" || echo -; }
ref_factor() { [[ -n ${REF_PAYLOAD[$1]:-} ]] && div "${V[$1|svpc]}" "${REF_PAYLOAD[$1]}" "%.3f" || echo -; }
ref_target() {
    [[ -n ${REF_PAYLOAD[$1]:-} ]] || { echo -; return; }
    awk -v a="${V[$1|svpc]}" -v b="${REF_PAYLOAD[$1]}" 'BEGIN { print (a / b <= 0.8) ? "met" : "MISSED" }'
}
ref_bpe() { echo "${REF_BPE[$1]:--}"; }
ref_speed() { [[ -n ${REF_CMBS[$1]:-} ]] && echo "${REF_CMBS[$1]} / ${REF_DMBS[$1]}" || echo -; }

report() {
    echo "svpc benchmark  $(date -u '+%Y-%m-%d %H:%M UTC')  $(uname -m), $NCPU CPUs"
    echo "svpc: $("$COMPRESS" --version | head -n 1); default threads = $NCPU"
    echo
    rule
    row "" "${FILES[@]}"
    rule
    metric "entries (d64)" entries group
    metric "raw bytes" raw group
    metric "svpc bytes (default)" svpc group
    computed "svpc ratio" ratio_of
    computed "svpc bits per entry" bpe_of
    metric "svpc -e paper bytes" paper group
    computed "  paper / default" paper_vs
    local b
    for b in "${BASE_NAMES[@]}"; do
        metric "$b bytes" "size_$b" group
    done
    for b in "${BASE_NAMES[@]}"; do
        computed "$b ratio" xratio "$b"
    done
    computed "svpc / xz -9 size" vs_xz
    computed "svpc / zstd -19 size" vs_zstd
    metric "round trip exact" verified
    rule
    echo "speed, MB/s of raw data (svpc: median of $RUNS; baselines: 1 run)"
    metric "svpc compress (T$NCPU default)" c_default
    metric "svpc compress -T1" c_T1
    metric "svpc decompress (T$NCPU def.)" d_default
    metric "svpc decompress -T1" d_T1
    for b in "${BASE_NAMES[@]}"; do
        metric "$b compress" "c_$b"
        metric "$b decompress" "d_$b"
    done
    computed "svpc -T1 / xz -9 compress" t1_vs_xz_c
    computed "svpc -T1 / xz -9 decompress" t1_vs_xz_d
    computed "svpc -T2 / -T1 compress" t2_vs_t1_c
    computed "svpc -T2 / -T1 decompress" t2_vs_t1_d
    rule
    echo "peak memory, MiB (default settings)"
    metric "svpc-compress" rss_c mib
    metric "svpc-decompress" rss_d mib
    rule
    if ((HAVE_REF)); then
        echo "reference: original SVPC (Simutrace 3.2.2), corpus README"
        computed "reference payload bytes" ref_pay
        computed "reference ratio" ref_ratio
        computed "reference bits per entry" ref_bpe
        computed "reference MB/s (c / d)" ref_speed
        computed "svpc / reference size" ref_factor
        computed "target svpc/ref <= 0.8" ref_target
        rule
    fi
    cat <<EOF
Legend:
  ratio = raw bytes / compressed bytes; bits per entry = 8 * compressed bytes / entries.
  svpc bytes are the whole container (header, frames, directory, footer);
  the reference figure is the original implementation's payload only, without
  its container (4 KiB header + 128 KiB per directory).
  svpc / xz, svpc / zstd, svpc / reference: size factors, below 1 means svpc is smaller.
  svpc -T1 / xz -9: how many times faster svpc on one thread is than xz -9 (also one thread).
  svpc -T2 / -T1: speed-up from a second thread (1.00x = none).
  Speeds count raw bytes per second, reading from and writing to files or
  /dev/null; only figures of the same run are comparable (shared machines
  vary by up to 2x between runs).  zstd uses --long=27; xz and zstd run
  with -T1.  Reference MB/s are the README's, from another run: not comparable.
EOF
}

# scaling_runs FILE N: compress and decompress FILE N times with -T1 and
# -T2, alternating; print the medians
scaling_runs() {
    local RAW=$1 want c1=() c2=() d1=() d2=() i mc1 mc2 md1 md2
    want=$(fsize "$RAW")
    for ((i = 0; i < $2; i++)); do
        c1+=("$(elapsed svpc_c -T1)")
        d1+=("$(elapsed svpc_d -T1)")
        c2+=("$(elapsed svpc_c -T2)")
        d2+=("$(elapsed svpc_d -T2)")
    done
    mc1=$(median "${c1[@]}") mc2=$(median "${c2[@]}") md1=$(median "${d1[@]}") md2=$(median "${d2[@]}")
    printf '  compress    -T1 %6.2f s (%s MB/s)   -T2 %6.2f s (%s MB/s)   -T2 / -T1 %s\n' "$mc1" \
        "$(mbps "$want" "$mc1")" "$mc2" "$(mbps "$want" "$mc2")" "$(div "$mc1" "$mc2" "%.2fx")"
    printf '  decompress  -T1 %6.2f s (%s MB/s)   -T2 %6.2f s (%s MB/s)   -T2 / -T1 %s\n' "$md1" \
        "$(mbps "$want" "$md1")" "$md2" "$(mbps "$want" "$md2")" "$(div "$md1" "$md2" "%.2fx")"
}

# Thread scaling: frames are the unit of parallel work, and the traces above
# are one to four frames of unequal work.  Here: ten default-size frames
# (2^20 entries each) of real entries, the testdata lackey traces repeated.
scaling() {
    local big="$TMP/scaling.d64" want=$((10 * 1048576 * 32))
    lackey_repeat "$big" "$want" || { echo "thread scaling: skipped (no lackey traces in testdata/good)"; return; }
    note "scaling: ${want} bytes, -T1 and -T2 x5"
    echo "thread scaling: $((want / 1000000)) MB of lackey entries in 10 frames, median of 5 runs each"
    scaling_runs "$big" 5
    rm -f "$big"
}

# Random access (issue 3): one entry at a random index of a 1 GiB stream
# (2^25 d64 entries of real lackey data) against decoding the whole stream,
# both with simtrace-cat from the same file; and what opening and listing
# reads.  Then the frame-size trade-off: random access and frame overhead
# at 2^18..2^21 entries per frame.
RA_RAW=""
# ra_measure SIM ENTRIES: prints "whole one one-unchecked", medians in
# seconds: the whole stream, one entry at 11 random indices (the same ones
# every run), and the same with --ignore-check, which decodes the entry's
# frame up to it instead of to the end of its ENTRY_CRC block (to check it).
ra_measure() {
    local sim=$1 n=$2 full=() one=() onex=() i idx
    RANDOM=42
    for ((i = 0; i < 3; i++)); do full+=("$(elapsed "$SVPC_BIN/simtrace-cat" -o /dev/null -f "$sim")"); done
    for ((i = 0; i < 11; i++)); do
        idx=$(((RANDOM * 32768 + RANDOM) % n))
        one+=("$(elapsed "$SVPC_BIN/simtrace-cat" --entries "$idx:$((idx + 1))" -o /dev/null -f "$sim")")
        onex+=("$(elapsed "$SVPC_BIN/simtrace-cat" --ignore-check --entries "$idx:$((idx + 1))" -o /dev/null -f "$sim")")
    done
    echo "$(median "${full[@]}") $(median "${one[@]}") $(median "${onex[@]}")"
}
share() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f%%", 100 * a / b }'; }
random_access() {
    local PACK="$SVPC_BIN/simtrace-pack" CAT="$SVPC_BIN/simtrace-cat"
    [[ -x $PACK && -x $CAT ]] || { echo "random access: skipped (no simtrace-pack)"; return; }
    local big="$TMP/ra.d64" sim="$TMP/ra.sim" want=$((1 << 30))
    lackey_repeat "$big" "$want" || { echo "random access: skipped (no lackey traces in testdata/good)"; return; }
    RA_RAW=$big
    note "random access: packing $want bytes"
    "$PACK" -o "$sim" -f "$big" || { echo "random access: simtrace-pack failed"; return; }
    local n=$((want / 32)) mf mo mx
    read -r mf mo mx < <(ra_measure "$sim" "$n")
    local list_t
    list_t=$(elapsed sh -c '"$0" --list "$1" >/dev/null' "$CAT" "$sim")
    echo "random access: $((want >> 20)) MiB of d64 ($n entries, $(("$(fsize "$sim")")) bytes packed), default settings"
    printf '  whole stream   %7.3f s (median of 3)\n' "$mf"
    printf '  one entry      %7.3f s (median of 11 random indices)   = %s of the whole (decoded to the end of its checksum block)\n' \
        "$mo" "$(share "$mo" "$mf")"
    printf '  one entry      %7.3f s (the same, --ignore-check)      = %s of the whole (decoded up to it, unchecked)\n' \
        "$mx" "$(share "$mx" "$mf")"
    printf '  --list         %7.3f s, reads %s bytes (footer, directory, descriptors)\n' "$list_t" \
        "$("$CAT" -v --entries 0:1 -o /dev/null -f "$sim" 2>&1 | sed -n 's/.*read \([0-9]*\) bytes.*/\1/p')"
    # One entry costs the same in a longer stream, the whole grows with it:
    # the same input four times over, as one stream of 4 GiB.
    note "random access: packing 4 x $want bytes"
    "$PACK" -o "$sim" -f "$big" "$big" "$big" "$big" || { echo "random access: simtrace-pack failed"; return; }
    read -r mf mo mx < <(ra_measure "$sim" $((4 * n)))
    echo "random access: $((4 * want >> 20)) MiB of d64 (the same four times, one stream, $(("$(fsize "$sim")")) bytes packed)"
    printf '  whole stream   %7.3f s (median of 3)\n' "$mf"
    printf '  one entry      %7.3f s = %s of the whole; %7.3f s = %s with --ignore-check\n' \
        "$mo" "$(share "$mo" "$mf")" "$mx" "$(share "$mx" "$mf")"
    rm -f "$sim"
}

# Thread scaling on a longer input: the 1 GiB of random_access, 32 frames,
# where start-up (each worker's first touch of its tables and buffers) and
# the last frames weigh less than in the 10 frames of scaling().
scaling_long() {
    [[ -n $RA_RAW && -e $RA_RAW ]] || return 0
    note "scaling: 1 GiB, -T1 and -T2 x3"
    echo "thread scaling: $(($(fsize "$RA_RAW") / 1000000)) MB of lackey entries in 32 frames, median of 3 runs each"
    scaling_runs "$RA_RAW" 3
}

# The trade-off (issue 3): smaller frames make random access cheaper and
# cost size.  Needs random_access's raw file and frame_overhead's traces.
frame_tradeoff() {
    [[ -n $RA_RAW && -e $RA_RAW ]] || return 0
    local fs sim="$TMP/ra.sim" mf mo mx e n raw hdr line
    hdr=$(printf '  %-10s %14s %16s' "frame size" "random access" "--ignore-check")
    for e in "${FO_FILES[@]}"; do hdr+=$(printf ' %24s' "overhead: ${e%%=*}"); done
    echo "frame size trade-off: one entry of 1 GiB as a share of the whole stream, and frame overhead"
    echo "$hdr"
    for fs in 256k 512k 1M 2M; do
        note "trade-off: frame size $fs"
        "$SVPC_BIN/simtrace-pack" --frame-size "$fs" -o "$sim" -f "$RA_RAW" || return 0
        read -r mf mo mx < <(ra_measure "$sim" $(($(fsize "$RA_RAW") / 32)))
        line=$(printf '  %-10s %14s %16s' "$fs" "$(share "$mo" "$mf")" "$(share "$mx" "$mf")")
        for e in "${FO_FILES[@]}"; do
            n=${e%%=*} raw=${e#*=}
            line+=$(printf ' %24s' "$(overhead_at "$raw" "$fs" "${FO_ONE[$n]}")")
        done
        echo "$line"
    done
    rm -f "$sim" "$RA_RAW" "$TMP"/fo.*.raw
}

# Frame overhead (issue 3): the default frame size against one frame holding
# the whole trace, on the traces longer than one frame: those of at most
# 2^24 entries in the table above, and the eight testdata traces
# concatenated.  Then the trade-off behind the default: the same overhead,
# and random access (as in random_access above), at other frame sizes.
overhead_at() { # FILE FRAMESIZE ONE-FRAME-BYTES: percent
    local def
    def=$("$SVPC_BIN/simtrace-pack" --frame-size "$2" -T2 <"$1" | wc -c)
    awk -v a="$def" -v b="$3" 'BEGIN { printf "%+.1f%%", 100 * (a - b) / b }'
}
FO_FILES=() # name=raw file, for the trade-off table
declare -A FO_ONE=()
frame_overhead() {
    local PACK="$SVPC_BIN/simtrace-pack" n f raw one def
    [[ -x $PACK ]] || return 0
    echo "frame overhead: default frames (2^20 entries) against one frame for the whole trace"
    echo "  (traces of at most 2^20 entries are one frame either way and are not listed)"
    local names=() srcs=()
    for n in "${FILES[@]}"; do names+=("$n") srcs+=("${SRC[$n]}"); done
    names+=("testdata, all 8 traces")
    srcs+=("ALL8")
    local i
    for i in "${!names[@]}"; do
        n=${names[$i]} f=${srcs[$i]}
        raw="$TMP/fo.$i.raw"
        if [[ $f == ALL8 ]]; then
            : >"$raw"
            for f in "$ROOT"/testdata/good/*.d64.xz; do xz -dc "$f" >>"$raw"; done
        else
            raw_of "$f" >"$raw"
        fi
        if (($(fsize "$raw") / 32 > 16777216 || $(fsize "$raw") / 32 <= 1048576)); then
            rm -f "$raw"
            continue
        fi
        one=$("$PACK" --frame-size 16M -T2 <"$raw" | wc -c)
        def=$("$PACK" -T2 <"$raw" | wc -c)
        printf '  %-28s %12s bytes in one frame, %12s at the default: %+.1f%%\n' "$n" \
            "$(group "$one")" "$(group "$def")" "$(awk -v a="$def" -v b="$one" 'BEGIN { print 100 * (a - b) / b }')"
        FO_FILES+=("$n=$raw")
        FO_ONE[$n]=$one
    done
}

# Importers (issue 5): MB/s of text parsed on one core into a sink that
# discards (tests/unit/test_trace_io --bench), median of 3, on inputs made
# from the testdata traces by the text exporter, by awk from its output
# (lackey, din, xdin, pinatrace), and the Bochs sample repeated.
importers() {
    local TIO="$SVPC_BIN/tests/test_trace_io" PACK="$SVPC_BIN/simtrace-pack" CAT="$SVPC_BIN/simtrace-cat"
    [[ -x $TIO && -x $PACK ]] || { echo "importers: skipped (build the unit tests: make unit)"; return; }
    local src="$ROOT/testdata/good/lackey_cc1_read.d64.xz" d="$TMP/imp" f i fmt
    [[ -e $src ]] || { echo "importers: skipped (no testdata)"; return; }
    mkdir -p "$d"
    for i in 1 2 3 4; do xz -dc "$src"; done | "$PACK" -T1 -o "$d/in.sim" -f
    "$CAT" -F text "$d/in.sim" >"$d/text"
    # an instruction record before each access, as real traces have (the
    # exporters write none for a stream without a fetch stream)
    awk 'function h8(x) { x = substr(x, 3); while (length(x) < 8) x = "0" x; return x }
         !/^#/ { printf "I  %s,4\n L %s,%s\n", h8($3), h8($4), $5 }' "$d/text" >"$d/lackey"
    awk '!/^#/ { printf "2 %s\n0 %s\n", substr($3, 3), substr($4, 3) }' "$d/text" >"$d/din"
    awk '!/^#/ { printf "%s: %s %s %s\n", $3, "R", $4, $5 }' "$d/text" >"$d/pinatrace"
    awk '!/^#/ { printf "i %s 4\nr %s %s\n", substr($3, 3), substr($4, 3), $5 }' "$d/text" >"$d/xdin"
    : >"$d/bochs"
    if [[ -e $ROOT/testdata/good/sample.bochs.xz ]]; then
        xz -dc "$ROOT/testdata/good/sample.bochs.xz" >"$d/one.bochs"
        for i in $(seq 40); do cat "$d/one.bochs" >>"$d/bochs"; done
    fi
    echo "importers: MB/s of input parsed on one core (entries discarded), median of 3"
    for fmt in lackey din xdin pinatrace text bochs; do
        [[ -s $d/$fmt ]] || continue
        local r=()
        for i in 1 2 3; do
            r+=("$("$TIO" --bench "$fmt" "$d/$fmt" | sed -n 's/.*: \([0-9.]*\) MB\/s$/\1/p')")
        done
        printf '  %-10s %8.1f MB/s   (%s MB of input)\n' "$fmt" "$(median "${r[@]}")" \
            "$(awk -v b="$(fsize "$d/$fmt")" 'BEGIN { printf "%.0f", b / 1e6 }')"
    done
    rm -rf "$d"
}

# Legacy VPC store-address traces (issue 5): the testdata write traces as
# (u32 pc, u64 address) pairs after a u32 header, packed with simtrace-pack
# --from vpc (cm with the VPC4 predictors) against bzip2 -9 of the same file.
vpc_traces() {
    local PACK="$SVPC_BIN/simtrace-pack" f n v s b
    [[ -x $PACK ]] || return 0
    echo "legacy VPC store-address traces: whole container against bzip2 -9 (target: at least 5x smaller)"
    for f in "$ROOT"/testdata/good/*write*.d64.xz; do
        n=$(basename "$f" .d64.xz)
        v="$TMP/$n.vpc"
        { printf '\x40\x00\x00\x00'; xz -dc "$f" | perl -e 'binmode STDIN; binmode STDOUT; local $/ = \32;
            while (my $e = <STDIN>) { my ($m, $ip, $a) = unpack("Q<3", $e); print pack("VQ<", $ip & 0xffffffff, $a) }'; } >"$v"
        s=$("$PACK" -T1 --from vpc "$v" | wc -c)
        b=$(bzip2 -9 -c "$v" | wc -c)
        printf '  %-20s %10s bytes: svpc %8s, bzip2 -9 %8s, %sx smaller\n' "$n" "$(group "$(fsize "$v")")" \
            "$(group "$s")" "$(group "$b")" "$(div "$b" "$s" "%.1f")"
        rm -f "$v"
    done
}

mkdir -p "$(dirname "$REPORT")"
report | tee "$REPORT"
scaling | tee -a "$REPORT"
frame_overhead >"$TMP/fo.txt"
tee -a "$REPORT" <"$TMP/fo.txt"
importers | tee -a "$REPORT"
vpc_traces | tee -a "$REPORT"
random_access >"$TMP/ra.txt"
tee -a "$REPORT" <"$TMP/ra.txt"
scaling_long | tee -a "$REPORT"
frame_tradeoff | tee -a "$REPORT"
echo "(written to ${REPORT#"$ROOT"/})"
if ((FAILED)); then
    echo "bench.sh: svpc failed on at least one input (see above)" >&2
    exit 1
fi
