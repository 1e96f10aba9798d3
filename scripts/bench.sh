#!/usr/bin/env bash
# bench.sh - svpc on real code against the original SVPC implementation
# (the reference), svpc 0.1.0, gzip, xz, zstd and bzip2, and the targets of
# issue 11.
#
# Usage: SVPC_BIN=/abs/path/to/build scripts/bench.sh      (what `make bench` runs)
#
# Inputs: the reference corpus ../shared/corpus/*.d64.zst (unpacked with
# zstd -d --long=31; skipped with a note when absent) and testdata/good/*.d64.xz.
# Every figure is measured in this run; ratios are between figures of this
# run (speeds on these shared machines vary by up to 2x between runs).
#
# Selectors (environment; `make bench` passes them through):
#   BENCH_ONLY=PART,...  the parts to run (default: all), of
#       size      corpus: container bytes against the reference payload and
#                 svpc 0.1.0 (scripts/bench-reference.tsv, bench-baseline-0.1.0.tsv)
#       speed     corpus: svpc -T1 against gzip -6 / gzip -d, calibrated to
#                 the reference's ratios (implies the sizes' round trip check)
#       threads   -T2 / -T1 on ~200 MB and on 1 GiB of corpus lackey entries
#       memory    peak RSS, -T2, on the largest selected corpus trace and 1 GiB
#       random    one entry of a 1 GiB (and a 4 GiB) stream against the whole
#       overhead  corpus: default frames against one frame per trace
#       tradeoff  random access and overhead at 2^18..2^21 entries per frame
#       testdata  testdata/good traces: svpc, -e paper, xz, zstd, bzip2, gzip
#       importers importer throughput (needs `make unit`'s test_trace_io)
#       vpc       legacy VPC store-address traces against bzip2 -9
#       api       the public API (issue 12): writing through it against
#                 piping into svpc-compress, reading [a, b) through it
#                 against simtrace-cat --entries a:b, by CPU time
#       python    the Python package (issue 14): reading [a, b) into numpy
#                 against simtrace-cat --entries a:b, by CPU time
#       levels    corpus: each level's size and -T1 speeds against the
#                 reference (BENCH_LEVELS, default every level, 1 .. 9), peak memory
#                 of -1 against the default, and issue 24's targets for -1
#       drmemtrace  the corpus's DynamoRIO traces (foreign/drmemtrace), per
#                 thread file: container bytes against xz -9 of the same
#                 records (target 0.5) and simtrace-cat -T1 -F drmemtrace
#                 against xz -dc -T1 by CPU time (target: not slower)
#       champsim  the corpus's ChampSim traces (foreign/champsim, issue 22):
#                 the champsim stream's bytes against xz -9 of the same
#                 records, simtrace-cat -F champsim against xz -d, by CPU time
#       best      corpus: -e best (-9) against cm2 (-6): sizes (geometric
#                 mean target <= 0.97), round trip, decoding -T1 time ratio
#       collector scripts/bochs-trace on the GRUB workload (issue 23; needs
#                 Bochs): a piece (--skip, --instructions) with all its
#                 processes on one CPU against Bochs alone tracing the same
#                 range to /dev/null there (target 0.8x), and --jobs 2
#                 against --jobs 1 (target 1.7x)
#     and, not in "all" (slow: half an hour or more; bios_post.write alone took 2 minutes):
#       corpus-xz corpus: xz -9 and zstd -19 --long=27 sizes and speeds
#       cluster   bochs-trace: 32 pieces of 32,000,000 GRUB instructions, one
#                 after the other, against one continuous run (issue 23's
#                 cluster target, 1.15x; about 10 minutes)
#     e.g. BENCH_ONLY=size,speed  or  BENCH_ONLY=all,corpus-xz
#   BENCH_TRACES=NAME,...  corpus and testdata traces to run, shell patterns
#       (default: all), e.g. BENCH_TRACES=lackey_sqlite.read or 'grub_*'.
#       The thread, memory (1 GiB) and random-access inputs do not depend on it.
#   BENCH_RUNS=N         timed runs per figure (default 3; medians)
#   SVPC_OPTS="..."      extra options for svpc-compress and simtrace-pack,
#                        e.g. SVPC_OPTS="-e cm" to compare encoders
#   BENCH_ENC=NAME       the same as SVPC_OPTS="-e NAME" (added to it)
#   SVPC_DOPTS="..."     extra options for svpc-decompress and simtrace-cat
#   BENCH_CORPUS=DIR     the corpus (default: ../shared/corpus beside the repository)
#   BENCH_TMP=DIR        where to unpack (default /tmp; needs about 3 GB)
#   BENCH_RAW=DIR        unpacked corpus traces (NAME.d64) to use as they are
#
# Output: tables on standard output and in build/bench.txt, and one row per
# trace and figure in build/bench.tsv (section, trace, figure, value) for
# scripts/bench-compare.sh OLD.tsv NEW.tsv.
#
# Not a test: it exits non-zero only when svpc fails or does not restore a
# file exactly (or on bad usage).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SVPC_BIN="${SVPC_BIN:-$ROOT/build}"
COMPRESS="$SVPC_BIN/svpc-compress"
DECOMPRESS="$SVPC_BIN/svpc-decompress"
PACK="$SVPC_BIN/simtrace-pack"
CAT="$SVPC_BIN/simtrace-cat"
CORPUS="${BENCH_CORPUS:-$ROOT/../shared/corpus}"
REFERENCE="$ROOT/scripts/bench-reference.tsv"
BASELINE="$ROOT/scripts/bench-baseline-0.1.0.tsv"
REPORT="$ROOT/build/bench.txt"
TSV="$ROOT/build/bench.tsv"
RUNS="${BENCH_RUNS:-3}"
MAX_FRAME=16777216 # the largest --frame-size

die() {
    echo "bench.sh: $*" >&2
    exit 2
}
note() { echo "bench.sh: $*" >&2; }

# ---- selectors ------------------------------------------------------------------

ALL_PARTS="size speed threads memory random overhead tradeoff testdata importers vpc api python levels"
ALL_PARTS+=" foreign-misc" # issue 22 item 4: pixie32, DRAMSim2, gem5 against xz -9
ALL_PARTS+=" cvp"
ALL_PARTS+=" drmemtrace"
ALL_PARTS+=" champsim"
ALL_PARTS+=" best"
ALL_PARTS+=" collector"
EXTRA_PARTS="corpus-xz cluster"
PARTS=" "
IFS=', ' read -ra _sel <<<"${BENCH_ONLY:-all}"
for p in "${_sel[@]}"; do
    [[ -n $p ]] || continue
    if [[ $p == all ]]; then
        PARTS+="$ALL_PARTS "
    elif [[ " $ALL_PARTS $EXTRA_PARTS " == *" $p "* ]]; then
        PARTS+="$p "
    else
        die "BENCH_ONLY: unknown part '$p' (parts: all $ALL_PARTS $EXTRA_PARTS)"
    fi
done
want() { [[ $PARTS == *" $1 "* ]]; }
IFS=', ' read -ra TRACE_PATS <<<"${BENCH_TRACES:-*}"
picked() { # picked NAME: is NAME selected by BENCH_TRACES?
    local p
    for p in "${TRACE_PATS[@]}"; do
        # shellcheck disable=SC2053 # a pattern on purpose
        [[ -n $p && $1 == $p ]] && return 0
    done
    return 1
}
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive number"
read -ra COPTS <<<"${SVPC_OPTS:-}"
[[ -z ${BENCH_ENC:-} ]] || COPTS+=(-e "$BENCH_ENC")
read -ra DOPTS <<<"${SVPC_DOPTS:-}"

[[ -x $COMPRESS && -x $DECOMPRESS ]] || die "svpc binaries not found in $SVPC_BIN (run 'make all')"
for t in xz zstd gzip; do
    command -v "$t" >/dev/null || die "$t is needed"
done
TIME_BIN=""
if [[ -x /usr/bin/time ]] && /usr/bin/time -f %M true >/dev/null 2>&1; then
    TIME_BIN=/usr/bin/time
else
    note "GNU time (/usr/bin/time) not installed: no peak memory figures"
fi
NCPU=$(nproc 2>/dev/null || echo 1)

TMP="$(mktemp -d "${BENCH_TMP:-/tmp}/svpc-bench.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

# ---- helpers ----------------------------------------------------------------------

fsize() { stat -c %s "$1"; }
# elapsed CMD...: run CMD, print its seconds, or FAIL when it fails
# to OUT CMD...: run CMD with its standard output to OUT
elapsed() {
    local t0=$EPOCHREALTIME
    if "$@"; then
        awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.6f", b - a }'
    else
        echo FAIL
    fi
}
# timed OUT CMD...: run CMD with its standard output to OUT; print
# "WALL CPU" in seconds (CPU = user + system time), or "FAIL FAIL"
timed() {
    local out=$1 TIMEFORMAT='%3R %3U %3S' t
    shift
    if t=$({ time "$@" >"$out" 2>"$TMP/timed.err"; } 2>&1); then
        awk '{ printf "%s %.3f", $1, $2 + $3 }' <<<"$t"
    else
        cat "$TMP/timed.err" >&2
        echo "FAIL FAIL"
    fi
}
to() {
    local out=$1
    shift
    "$@" >"$out"
}
isnum() { [[ $1 =~ ^[0-9.e+-]+$ ]]; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
mean() { printf '%s\n' "$@" | awk '{ s += $1 } END { if (NR) printf "%.4f\n", s / NR }'; }
mbps() { awk -v b="$1" -v s="$2" 'BEGIN { if (s !~ /^[0-9.e+-]+$/ || s <= 0) print "n/a"; else printf "%.1f", b / 1e6 / s }'; }
# div A B [FMT]: A / B, "n/a" when either is not a number
div() {
    awk -v a="$1" -v b="$2" -v f="${3:-%.2f}" 'BEGIN {
        if (a !~ /^[0-9.e+-]+$/ || b !~ /^[0-9.e+-]+$/ || b + 0 == 0) print "n/a"; else printf f, a / b }'
}
# group N: 1234567 -> 1,234,567
group() { isnum "$1" && sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$1" || echo "$1"; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (a !~ /^[0-9.e+-]+$/ || b !~ /^[0-9.e+-]+$/ || b + 0 == 0) print "n/a"; else printf "%.1f", 100 * a / b }'; }
grow() { awk -v a="$1" -v b="$2" 'BEGIN { if (a !~ /^[0-9.e+-]+$/ || b !~ /^[0-9.e+-]+$/ || b + 0 == 0) print "n/a"; else printf "%+.1f", 100 * (a - b) / b }'; }
mib() { div "$1" 1024 "%.1f"; }
# any_fail VALUE...: does any of them say FAIL?
any_fail() { [[ " $* " == *" FAIL "* ]]; }

# tsv SECTION TRACE FIGURE VALUE: one row of build/bench.tsv
tsv() { printf '%s\t%s\t%s\t%s\n' "$@" >>"$TSV"; }

FAILED=0
fail() {
    note "$*"
    echo "FAILED: $*"
    FAILED=1
}

# peak_kib OUT CMD...: peak resident set of CMD (writing to OUT) in KiB
peak_kib() {
    local out=$1
    shift
    [[ -n $TIME_BIN ]] || { echo n/a; return; }
    if "$TIME_BIN" -f %M -o "$TMP/rss" "$@" >"$out"; then tail -n 1 "$TMP/rss"; else echo FAIL; fi
}

# verify RAW CONTAINER: does svpc-decompress (default threads) restore RAW?
verify() { "$DECOMPRESS" "${DOPTS[@]}" -c "$2" | cmp -s - "$1"; }

# ---- the reference and the 0.1.0 baseline -------------------------------------------

declare -A REF_PAY REF_BPE REF_XZ REF_ZSTD REF_C REF_D BASE010
while IFS=$'\t' read -r t pay bpe x z c d; do
    [[ -z $t || $t == \#* ]] && continue
    REF_PAY[$t]=$pay REF_BPE[$t]=$bpe REF_XZ[$t]=$x REF_ZSTD[$t]=$z REF_C[$t]=$c REF_D[$t]=$d
done <"$REFERENCE"
while IFS=$'\t' read -r t b; do
    [[ -z $t || $t == \#* ]] && continue
    BASE010[$t]=$b
done <"$BASELINE"

# ---- inputs -----------------------------------------------------------------------

CORPUS_ALL=() # every corpus trace, by name
CORPUS_SEL=() # those BENCH_TRACES selects
declare -A CSRC
HAVE_CORPUS=0
shopt -s nullglob
if [[ -d $CORPUS ]]; then
    for f in "$CORPUS"/*.d64.zst; do
        n="$(basename "$f" .d64.zst)"
        CORPUS_ALL+=("$n")
        CSRC[$n]=$f
        picked "$n" && CORPUS_SEL+=("$n")
    done
fi
((${#CORPUS_ALL[@]})) && HAVE_CORPUS=1
TESTDATA_SEL=()
declare -A TSRC
for f in "$ROOT"/testdata/good/*.d64.xz; do
    n="$(basename "$f" .d64.xz)"
    TSRC[$n]=$f
    picked "$n" && TESTDATA_SEL+=("$n")
done
shopt -u nullglob

# corpus_raw NAME: the path of the unpacked corpus trace NAME (unpacked once)
corpus_raw() {
    local raw="$TMP/corpus/$1.d64"
    [[ -z ${BENCH_RAW:-} || ! -f $BENCH_RAW/$1.d64 ]] || { echo "$BENCH_RAW/$1.d64"; return; }
    if [[ ! -e $raw ]]; then
        mkdir -p "$TMP/corpus"
        note "unpacking $1"
        zstd -d --long=31 -q -c "${CSRC[$1]}" >"$raw.part"
        mv "$raw.part" "$raw"
    fi
    echo "$raw"
}

# lackey_input FILE BYTES: real-code entries for the thread, memory and
# random-access inputs: the corpus lackey traces (2^26 bytes each) in order,
# repeated, cut to BYTES; without the corpus, the testdata lackey traces
# repeated.  Prints what it is made of.
lackey_input() {
    local out=$1 want=$2 srcs=() n f used=()
    for n in "${CORPUS_ALL[@]}"; do [[ $n == lackey_* ]] && srcs+=("$n"); done
    : >"$out"
    if ((${#srcs[@]})); then
        while (($(fsize "$out") < want)); do
            for n in "${srcs[@]}"; do
                (($(fsize "$out") < want)) || break
                cat "$(corpus_raw "$n")" >>"$out"
                used+=("$n")
            done
        done
    else
        shopt -s nullglob
        local tsrc=("$ROOT"/testdata/good/lackey_*.d64.xz)
        shopt -u nullglob
        ((${#tsrc[@]})) || return 1
        while (($(fsize "$out") < want)); do
            for f in "${tsrc[@]}"; do xz -dc "$f" >>"$out"; done
        done
        used=("the testdata lackey traces, repeated")
    fi
    truncate -s "$want" "$out"
    if ((${#used[@]} > 4)); then
        echo "the ${#srcs[@]} corpus lackey traces in turn ($((${#used[@]})) pieces)"
    else
        local IFS=+
        echo "${used[*]}"
    fi
}
BIG="$TMP/1g.d64"
BIG_WHAT=""
big_input() { # make the 1 GiB input once
    [[ -e $BIG ]] && return 0
    note "making the 1 GiB input"
    BIG_WHAT=$(lackey_input "$BIG" $((1 << 30))) || { rm -f "$BIG"; return 1; }
}

# ---- figures kept for the targets ----------------------------------------------------

declare -A V # V[trace|figure]

# value_bits RAW SVPC: how random the value bytes of the d64 trace RAW are,
# for issue 24's size exception (at most 0.92x the reference, not 0.75x, for
# "traces whose value bytes are measured to be random: at least 7.9 bits a
# byte under every model").  The value bytes are each entry's value at its
# access size (8 bytes when meta's fullSize bit is set, else data >> 32
# bytes of the data field's low half), in order.  The models: their order-0
# entropy, xz -9, bzip2 -9, zstd -19, and cm2's own cost of the data field in
# SVPC (the ids and misses of --stats=json).  Prints "BITS MODEL" for the
# model that needs the fewest bits a byte, or "n/a -".
value_bits() {
    local raw=$1 svpc=$2 vb="$TMP/values.bin" nb best=n/a bm=- b m entries
    perl -e 'binmode STDIN; binmode STDOUT; local $/ = \32; my @c = (0) x 256; my $n = 0; my $out = "";
        while (my $e = <STDIN>) {
            last if length($e) < 32;
            my ($meta, $ip, $a, $d) = unpack("Q<4", $e);
            my $v; if (($meta >> 48) & 1) { $v = pack("Q<", $d) } else { my $sz = $d >> 32; $sz = 8 if $sz > 8; $v = substr(pack("Q<", $d & 0xffffffff), 0, $sz) }
            $out .= $v; if (length($out) >= 65536) { $c[$_]++ for unpack("C*", $out); $n += length($out); print $out; $out = "" }
        }
        $c[$_]++ for unpack("C*", $out); $n += length($out); print $out;
        my $h = 0; for (@c) { next unless $_; my $p = $_ / $n; $h -= $_ * log($p) / log(2) }
        printf STDERR "%d %.0f\n", $n, $h;' <"$raw" >"$vb" 2>"$vb.h" || { rm -f "$vb" "$vb.h"; echo "n/a -"; return; }
    read -r nb b <"$vb.h"
    ((nb > 0)) || { rm -f "$vb" "$vb.h"; echo "n/a -"; return; }
    {
        echo "$(div "$b" "$nb" %.3f) order-0"
        echo "$(div "$(($(xz -9 -T1 -c "$vb" | wc -c) * 8))" "$nb" %.3f) xz-9"
        echo "$(div "$(($(bzip2 -9 -c "$vb" | wc -c) * 8))" "$nb" %.3f) bzip2-9"
        echo "$(div "$(($(zstd -19 -T1 -q -c "$vb" | wc -c) * 8))" "$nb" %.3f) zstd-19"
        entries=$(($(fsize "$raw") / 32))
        m=$("$CAT" --stats=json "$svpc" 2>/dev/null | grep -o '"data": {"hit_rate"[^}]*}' |
            sed -n 's/.*"ids_bits_per_entry": \([0-9.]*\), "misses_bits_per_entry": \([0-9.]*\).*/\1 \2/p' | head -n 1)
        [[ -n $m ]] && awk -v i="${m% *}" -v x="${m#* }" -v e="$entries" -v n="$nb" 'BEGIN { printf "%.3f cm2-data\n", (i + x) * e / n }'
    } | awk '$1 ~ /^[0-9.]+$/' | sort -g | head -n 1 | grep . || echo "n/a -"
    rm -f "$vb" "$vb.h"
}

# =====================================================================================
# corpus: size, speed, round trip
# =====================================================================================

corpus_main() {
    ((HAVE_CORPUS)) || { echo "corpus: not found at $CORPUS: size, speed and overhead skipped"; echo; return; }
    ((${#CORPUS_SEL[@]})) || { echo "corpus: BENCH_TRACES selects none of its traces"; echo; return; }
    local n raw out cs ds gcs gds i t c d gc gd entries bytes
    for n in "${CORPUS_SEL[@]}"; do
        raw=$(corpus_raw "$n")
        entries=$(($(fsize "$raw") / 32))
        V[$n|raw]=$(fsize "$raw") V[$n|entries]=$entries
        out="$TMP/c.svpc"
        if want speed; then
            note "$n: svpc -T1 and gzip, $RUNS runs"
            # wall-clock seconds (cs, ...) and CPU seconds (ccs, ...) of each run
            cs=() ds=() gcs=() gds=() ccs=() cds=() cgcs=() cgds=()
            for ((i = 0; i < RUNS; i++)); do
                read -r t c <<<"$(timed "$out" "$COMPRESS" -T1 "${COPTS[@]}" -c "$raw")"
                cs+=("$t") ccs+=("$c")
                [[ $t == FAIL ]] && break
                ((i)) || V[$n|svpc]=$(fsize "$out")
                read -r t c <<<"$(timed /dev/null "$DECOMPRESS" -T1 "${DOPTS[@]}" -c "$out")"
                ds+=("$t") cds+=("$c")
                read -r t c <<<"$(timed "$TMP/c.gz" gzip -6 -c "$raw")"
                gcs+=("$t") cgcs+=("$c")
                read -r t c <<<"$(timed /dev/null gzip -dc "$TMP/c.gz")"
                gds+=("$t") cgds+=("$c")
            done
            if any_fail "${cs[@]}" "${ds[@]}"; then
                fail "$n: svpc-compress or svpc-decompress -T1 failed"
                continue
            fi
            V[$n|gzip]=$(fsize "$TMP/c.gz")
            c=$(median "${cs[@]}") d=$(median "${ds[@]}") gc=$(median "${gcs[@]}") gd=$(median "${gds[@]}")
            V[$n|c]=$(mbps "${V[$n|raw]}" "$c") V[$n|d]=$(mbps "${V[$n|raw]}" "$d")
            V[$n|gc]=$(mbps "${V[$n|raw]}" "$gc") V[$n|gd]=$(mbps "${V[$n|raw]}" "$gd")
            V[$n|c_gzip]=$(div "$gc" "$c" %.3f) V[$n|d_gzip]=$(div "$gd" "$d" %.3f)
            V[$n|c_ref]=$(div "${V[$n|c_gzip]}" "${REF_C[$n]:-}" %.3f)
            V[$n|d_ref]=$(div "${V[$n|d_gzip]}" "${REF_D[$n]:-}" %.3f)
            # the same by CPU time: less sensitive to other work on the machine
            V[$n|c_refcpu]=$(div "$(div "$(median "${cgcs[@]}")" "$(median "${ccs[@]}")" %.4f)" "${REF_C[$n]:-}" %.3f)
            V[$n|d_refcpu]=$(div "$(div "$(median "${cgds[@]}")" "$(median "${cds[@]}")" %.4f)" "${REF_D[$n]:-}" %.3f)
        else
            note "$n: svpc (default threads)"
            if ! "$COMPRESS" "${COPTS[@]}" -c "$raw" >"$out"; then
                fail "$n: svpc-compress failed"
                continue
            fi
            V[$n|svpc]=$(fsize "$out")
        fi
        V[$n|frames]=$("$CAT" --list "$out" 2>/dev/null | awk 'NR == 2 { print $4 }')
        if verify "$raw" "$out"; then V[$n|exact]=yes; else
            V[$n|exact]=NO
            fail "$n: svpc round trip not exact"
        fi
        bytes=${V[$n|svpc]}
        V[$n|bpe]=$(div "$((bytes * 8))" "$entries" %.3f)
        V[$n|vs_ref]=$(div "$bytes" "${REF_PAY[$n]:-}" %.3f)
        V[$n|vs_010]=$(div "$bytes" "${BASE010[$n]:-}" %.3f)
        # measured only where it can matter: above 0.75x the reference
        if (($(cmpf "${V[$n|vs_ref]}" 0.75 ">"))); then
            note "$n: how random its value bytes are"
            V[$n|vbits]=$(value_bits "$raw" "$out")
        fi
        if want overhead; then
            local fs=$entries
            ((fs <= MAX_FRAME)) || fs=$MAX_FRAME
            note "$n: one frame"
            if "$COMPRESS" -T2 "${COPTS[@]}" --frame-size "$fs" -c "$raw" >"$TMP/one.svpc"; then
                V[$n|one]=$(fsize "$TMP/one.svpc")
                V[$n|overhead]=$(grow "$bytes" "${V[$n|one]}")
            else
                fail "$n: svpc-compress --frame-size $fs failed"
            fi
        fi
        rm -f "$out" "$TMP/c.gz" "$TMP/one.svpc"
    done

    local names=() geo
    if want size || want speed; then
        echo "corpus: svpc's whole container against the reference's payload and against svpc 0.1.0 (c1d221d)"
        echo "  ($(IFS=' '; echo "${COPTS[*]:-default settings}"); bits/entry = 8 * bytes / entries)"
        printf '  %-20s %10s %11s %7s %11s %8s %11s %9s %8s %12s %8s\n' trace entries "svpc bytes" bits/e \
            reference svpc/ref "0.1.0" svpc/0.1 "ref b/e" "xz -9 (ref)" svpc/xz
        for n in "${CORPUS_SEL[@]}"; do
            [[ -n ${V[$n|svpc]:-} ]] || continue
            names+=("$n")
            printf '  %-20s %10s %11s %7s %11s %8s %11s %9s %8s %12s %8s\n' "$n" "$(group "${V[$n|entries]}")" \
                "$(group "${V[$n|svpc]}")" "${V[$n|bpe]}" "$(group "${REF_PAY[$n]:-n/a}")" "${V[$n|vs_ref]}" \
                "$(group "${BASE010[$n]:-n/a}")" "${V[$n|vs_010]}" "${REF_BPE[$n]:-n/a}" \
                "$(group "${REF_XZ[$n]:-n/a}")" "$(div "${V[$n|svpc]}" "${REF_XZ[$n]:-}" %.3f)"
            tsv size "$n" entries "${V[$n|entries]}"
            tsv size "$n" svpc_bytes "${V[$n|svpc]}"
            tsv size "$n" bits_per_entry "${V[$n|bpe]}"
            tsv size "$n" size_vs_reference "${V[$n|vs_ref]}"
            tsv size "$n" size_vs_0.1.0 "${V[$n|vs_010]}"
            tsv size "$n" round_trip "${V[$n|exact]}"
        done
        geo=$(for n in "${names[@]}"; do echo "${V[$n|vs_ref]}"; done |
            awk '$1 ~ /^[0-9.]+$/ && $1 > 0 { s += log($1); k++ } END { if (k) printf "%.3f", exp(s / k); else print "n/a" }')
        V[geo]=$geo
        printf '  %-20s %10s %11s %7s %11s %8s\n' "geometric mean" "" "" "" "" "$geo"
        tsv size ALL geomean_size_vs_reference "$geo"
        echo "  round trips exact: $(for n in "${names[@]}"; do echo "${V[$n|exact]}"; done | grep -c yes) of ${#names[@]}"
        echo "  (the reference's payload excludes its container: 4 KiB header + 128 KiB per directory;"
        echo "   'ref b/e' and 'xz -9 (ref)' are the corpus README's figures)"
        echo
    fi

    if want speed; then
        echo "corpus: speed, -T1, MB/s of raw data, medians of $RUNS runs with gzip -6 -c FILE and gzip -dc FILE.gz"
        echo "  interleaved; svpc/ref = (svpc's speed / gzip's) / (the reference's speed / gzip's, corpus README)"
        echo "  (cpu: svpc/ref from user + system time instead, a cross-check less sensitive to other load)"
        printf '  %-20s | %7s %7s %8s %8s %8s %5s | %7s %7s %8s %8s %8s %5s\n' "" "svpc c" "gzip -6" svpc/gz ref/gz \
            svpc/ref cpu "svpc d" "gzip -d" svpc/gz ref/gz svpc/ref cpu
        for n in "${names[@]}"; do
            printf '  %-20s | %7s %7s %8s %8s %8s %5.2f | %7s %7s %8s %8s %8s %5.2f\n' "$n" "${V[$n|c]}" "${V[$n|gc]}" \
                "${V[$n|c_gzip]}" "${REF_C[$n]:-n/a}" "${V[$n|c_ref]}" "${V[$n|c_refcpu]}" "${V[$n|d]}" "${V[$n|gd]}" \
                "${V[$n|d_gzip]}" "${REF_D[$n]:-n/a}" "${V[$n|d_ref]}" "${V[$n|d_refcpu]}"
            tsv speed "$n" compress_vs_reference_cpu "${V[$n|c_refcpu]}"
            tsv speed "$n" decompress_vs_reference_cpu "${V[$n|d_refcpu]}"
            tsv speed "$n" compress_T1_MBps "${V[$n|c]}"
            tsv speed "$n" decompress_T1_MBps "${V[$n|d]}"
            tsv speed "$n" gzip6_MBps "${V[$n|gc]}"
            tsv speed "$n" gunzip_MBps "${V[$n|gd]}"
            tsv speed "$n" compress_vs_gzip "${V[$n|c_gzip]}"
            tsv speed "$n" decompress_vs_gzip "${V[$n|d_gzip]}"
            tsv speed "$n" compress_vs_reference "${V[$n|c_ref]}"
            tsv speed "$n" decompress_vs_reference "${V[$n|d_ref]}"
        done
        V[min_c]=$(minof c_ref "${names[@]}") V[min_d]=$(minof d_ref "${names[@]}")
        V[min_ccpu]=$(minof c_refcpu "${names[@]}") V[min_dcpu]=$(minof d_refcpu "${names[@]}")
        printf '  %-20s | %7s %7s %8s %8s %8s %5s | %7s %7s %8s %8s %8s %5s\n' minimum "" "" "" "" "${V[min_c]% *}" \
            "${V[min_ccpu]% *}" "" "" "" "" "${V[min_d]% *}" "${V[min_dcpu]% *}"
        tsv speed ALL min_compress_vs_reference_cpu "${V[min_ccpu]% *}"
        tsv speed ALL min_decompress_vs_reference_cpu "${V[min_dcpu]% *}"
        tsv speed ALL min_compress_vs_reference "${V[min_c]% *}"
        tsv speed ALL min_decompress_vs_reference "${V[min_d]% *}"
        echo
    fi

    if want overhead; then
        echo "corpus: frame overhead, default frames against one frame for the whole trace (--frame-size = entries, max 16M)"
        printf '  %-20s %10s %7s %13s %13s %9s\n' trace entries frames "default bytes" "one frame" overhead
        names=()
        for n in "${CORPUS_SEL[@]}"; do
            [[ -n ${V[$n|one]:-} ]] || continue
            names+=("$n")
            printf '  %-20s %10s %7s %13s %13s %8s%%\n' "$n" "$(group "${V[$n|entries]}")" "${V[$n|frames]:-?}" \
                "$(group "${V[$n|svpc]}")" "$(group "${V[$n|one]}")" "${V[$n|overhead]}"
            tsv overhead "$n" one_frame_bytes "${V[$n|one]}"
            tsv overhead "$n" frames "${V[$n|frames]:-}"
            tsv overhead "$n" overhead_pct "${V[$n|overhead]}"
        done
        V[max_over]=$(maxof overhead "${names[@]}")
        echo
    fi
}

# minof FIGURE NAME...: "VALUE NAME" of the smallest V[NAME|FIGURE]; maxof: largest
minof() { local f=$1 n; shift; for n in "$@"; do echo "${V[$n|$f]:-n/a} $n"; done | awk '$1 ~ /^[-+0-9.]+$/' | sort -g | head -n 1 | grep . || echo "n/a -"; }
maxof() { local f=$1 n; shift; for n in "$@"; do echo "${V[$n|$f]:-n/a} $n"; done | awk '$1 ~ /^[-+0-9.]+$/' | sort -g | tail -n 1 | grep . || echo "n/a -"; }

# corpus-xz: xz -9 and zstd -19 --long=27 on the corpus, one run each
corpus_xz() {
    ((HAVE_CORPUS && ${#CORPUS_SEL[@]})) || return 0
    echo "corpus: xz -9 and zstd -19 --long=27, single-threaded, one run each (bytes; MB/s compress / decompress)"
    echo "  ('README': the corpus README's sizes, measured by its authors)"
    printf '  %-20s %12s %12s %13s %12s %12s %13s %8s\n' trace "xz -9" "README" "MB/s c/d" "zstd -19" "README" "MB/s c/d" "svpc/xz"
    local n raw xc xd zc zd xs zs
    for n in "${CORPUS_SEL[@]}"; do
        raw=$(corpus_raw "$n")
        note "$n: xz -9, zstd -19"
        xc=$(elapsed to "$TMP/c.xz" xz -9 -T1 -c "$raw") xs=$(fsize "$TMP/c.xz")
        xd=$(elapsed to /dev/null xz -dc -T1 "$TMP/c.xz")
        zc=$(elapsed to "$TMP/c.zst" zstd -19 --long=27 -T1 -q -c "$raw") zs=$(fsize "$TMP/c.zst")
        zd=$(elapsed to /dev/null zstd -d --long=27 -q -c "$TMP/c.zst")
        rm -f "$TMP/c.xz" "$TMP/c.zst"
        printf '  %-20s %12s %12s %13s %12s %12s %13s %8s\n' "$n" "$(group "$xs")" "$(group "${REF_XZ[$n]:-n/a}")" \
            "$(mbps "$(fsize "$raw")" "$xc") / $(mbps "$(fsize "$raw")" "$xd")" "$(group "$zs")" "$(group "${REF_ZSTD[$n]:-n/a}")" \
            "$(mbps "$(fsize "$raw")" "$zc") / $(mbps "$(fsize "$raw")" "$zd")" "$(div "${V[$n|svpc]:-}" "$xs" %.3f)"
        tsv corpus-xz "$n" xz9_bytes "$xs"
        tsv corpus-xz "$n" zstd19_bytes "$zs"
    done
    echo
}

# =====================================================================================
# threads and memory
# =====================================================================================

# scaling_runs FILE N LABEL: compress and decompress FILE N times with -T1 and
# -T2, interleaved; print the medians; V[LABEL|c2] and V[LABEL|d2] = -T2 / -T1
scaling_runs() {
    local raw=$1 runs=$2 label=$3 c1=() c2=() d1=() d2=() i mc1 mc2 md1 md2 out="$TMP/s.svpc"
    for ((i = 0; i < runs; i++)); do
        c1+=("$(elapsed to "$out" "$COMPRESS" -T1 "${COPTS[@]}" -c "$raw")")
        d1+=("$(elapsed to /dev/null "$DECOMPRESS" -T1 "${DOPTS[@]}" -c "$out")")
        c2+=("$(elapsed to "$out" "$COMPRESS" -T2 "${COPTS[@]}" -c "$raw")")
        d2+=("$(elapsed to /dev/null "$DECOMPRESS" -T2 "${DOPTS[@]}" -c "$out")")
    done
    if any_fail "${c1[@]}" "${c2[@]}" "${d1[@]}" "${d2[@]}"; then
        fail "threads, $label: svpc failed"
        return
    fi
    verify "$raw" "$out" || fail "threads, $label: svpc round trip not exact"
    mc1=$(median "${c1[@]}") mc2=$(median "${c2[@]}") md1=$(median "${d1[@]}") md2=$(median "${d2[@]}")
    V[$label|c2]=$(div "$mc1" "$mc2") V[$label|d2]=$(div "$md1" "$md2")
    printf '    compress    -T1 %6.2f s (%6s MB/s)   -T2 %6.2f s (%6s MB/s)   -T2 / -T1 %sx\n' "$mc1" \
        "$(mbps "$(fsize "$raw")" "$mc1")" "$mc2" "$(mbps "$(fsize "$raw")" "$mc2")" "${V[$label|c2]}"
    printf '    decompress  -T1 %6.2f s (%6s MB/s)   -T2 %6.2f s (%6s MB/s)   -T2 / -T1 %sx\n' "$md1" \
        "$(mbps "$(fsize "$raw")" "$md1")" "$md2" "$(mbps "$(fsize "$raw")" "$md2")" "${V[$label|d2]}"
    tsv threads "$label" compress_T1_s "$mc1"
    tsv threads "$label" compress_T2_s "$mc2"
    tsv threads "$label" decompress_T1_s "$md1"
    tsv threads "$label" decompress_T2_s "$md2"
    tsv threads "$label" compress_T2_vs_T1 "${V[$label|c2]}"
    tsv threads "$label" decompress_T2_vs_T1 "${V[$label|d2]}"
}

threads() {
    local mid="$TMP/200m.d64" what
    V[load_threads]=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo n/a)
    echo "threads: -T2 against -T1, medians of $RUNS runs, interleaved ($NCPU CPUs, load average ${V[load_threads]})"
    if what=$(lackey_input "$mid" $((3 << 26))); then
        echo "  $(($(fsize "$mid") / 1000000)) MB: $what"
        note "threads: 200 MB"
        scaling_runs "$mid" "$RUNS" 200MB
    else
        echo "  200 MB: skipped (no lackey traces)"
    fi
    rm -f "$mid"
    if big_input; then
        echo "  $(($(fsize "$BIG") / 1000000)) MB (1 GiB): $BIG_WHAT"
        note "threads: 1 GiB"
        scaling_runs "$BIG" "$RUNS" 1GiB
    else
        echo "  1 GiB: skipped (no lackey traces)"
    fi
    echo
}

memory() {
    echo "memory: peak RSS (GNU time %M), -T2, MiB"
    [[ -n $TIME_BIN ]] || { echo "  skipped: no GNU time"; echo; return; }
    local ins=() labels=() n largest="" i raw k c d
    for n in "${CORPUS_SEL[@]}"; do
        [[ -z $largest || $(fsize "${CSRC[$n]}") -gt $(fsize "${CSRC[$largest]}") ]] && largest=$n
    done
    # the largest by packed size is the largest unpacked in this corpus too
    if [[ -n $largest ]]; then
        ins+=("$(corpus_raw "$largest")") labels+=("$largest")
    fi
    big_input && ins+=("$BIG") labels+=(1GiB)
    for i in "${!ins[@]}"; do
        raw=${ins[$i]} k=${labels[$i]}
        note "memory: $k"
        c=$(peak_kib "$TMP/m.svpc" "$COMPRESS" -T2 "${COPTS[@]}" -c "$raw")
        d=$(peak_kib /dev/null "$DECOMPRESS" -T2 "${DOPTS[@]}" -c "$TMP/m.svpc")
        any_fail "$c" "$d" && { fail "memory, $k: svpc failed"; continue; }
        rm -f "$TMP/m.svpc"
        V[$k|rss_c]=$(mib "$c") V[$k|rss_d]=$(mib "$d")
        printf '  %-20s %12s MiB compressing %9s MiB decompressing (%s MB)\n' "$k" "${V[$k|rss_c]}" \
            "${V[$k|rss_d]}" "$(($(fsize "$raw") / 1000000))"
        tsv memory "$k" compress_T2_MiB "${V[$k|rss_c]}"
        tsv memory "$k" decompress_T2_MiB "${V[$k|rss_d]}"
        V[rss_max]=$(printf '%s\n' "${V[rss_max]:-0 -}" "${V[$k|rss_c]} $k, compressing" "${V[$k|rss_d]} $k, decompressing" | sort -g | tail -n 1)
    done
    echo
}

# =====================================================================================
# random access and the frame-size trade-off
# =====================================================================================

# ra_measure SIM ENTRIES: prints "whole one one-unchecked" in seconds: the
# whole stream (median of 4 runs), and the mean of one entry at 20 random
# indices (the same ones every call; issue 24 decided the mean of 20), and
# the same with --ignore-check, which decodes the entry's frame up to it
# instead of to the end of its ENTRY_CRC block.  The runs are interleaved
# (a whole stream, then 5 indices, four times), so that a change in the
# machine's load weighs on both alike.
ra_measure() {
    local sim=$1 n=$2 full=() one=() onex=() i j idx
    RANDOM=42
    for ((i = 0; i < 4; i++)); do
        full+=("$(elapsed "$CAT" "${DOPTS[@]}" -o /dev/null -f "$sim")")
        for ((j = 0; j < 5; j++)); do
            idx=$(((RANDOM * 32768 + RANDOM) % n))
            one+=("$(elapsed "$CAT" "${DOPTS[@]}" --entries "$idx:$((idx + 1))" -o /dev/null -f "$sim")")
            onex+=("$(elapsed "$CAT" "${DOPTS[@]}" --ignore-check --entries "$idx:$((idx + 1))" -o /dev/null -f "$sim")")
        done
    done
    any_fail "${full[@]}" "${one[@]}" "${onex[@]}" && return 1
    echo "$(median "${full[@]}") $(mean "${one[@]}") $(mean "${onex[@]}")"
}

random_access() {
    [[ -x $PACK && -x $CAT ]] || { echo "random access: skipped (no simtrace-pack)"; echo; return; }
    big_input || { echo "random access: skipped (no lackey traces)"; echo; return; }
    local sim="$TMP/ra.sim" n=$(($(fsize "$BIG") / 32)) mf mo mx r list_t
    note "random access: packing 1 GiB"
    # (the input joins traces, each with its own cycle count)
    "$PACK" "${COPTS[@]}" --allow-cycle-reset -o "$sim" -f "$BIG" || { fail "random access: simtrace-pack failed"; return; }
    r=$(ra_measure "$sim" "$n") || { fail "random access: simtrace-cat failed"; return; }
    read -r mf mo mx <<<"$r"
    list_t=$(elapsed to /dev/null "$CAT" --list "$sim")
    V[ra]=$(pct "$mo" "$mf")
    echo "random access: 1 GiB of d64 ($n entries, $(group "$(fsize "$sim")") bytes packed): $BIG_WHAT"
    printf '  whole stream   %7.3f s (median of 4)\n' "$mf"
    printf '  one entry      %7.3f s (mean of 20 random indices)     = %s%% of the whole (decoded to the end of its checksum block)\n' \
        "$mo" "${V[ra]}"
    printf '  one entry      %7.3f s (the same, --ignore-check)      = %s%% of the whole (decoded up to it, unchecked)\n' \
        "$mx" "$(pct "$mx" "$mf")"
    printf '  --list         %7.3f s, reads %s bytes (footer, directory, descriptors)\n' "$list_t" \
        "$("$CAT" -v --entries 0:1 -o /dev/null -f "$sim" 2>&1 | sed -n 's/.*read \([0-9]*\) bytes.*/\1/p')"
    tsv random 1GiB whole_s "$mf"
    tsv random 1GiB one_entry_s "$mo"
    tsv random 1GiB one_entry_pct "${V[ra]}"
    tsv random 1GiB one_entry_unchecked_pct "$(pct "$mx" "$mf")"
    # One entry costs the same in a longer stream, the whole grows with it:
    # the same input four times over, as one stream of 4 GiB.
    note "random access: packing 4 x 1 GiB"
    "$PACK" "${COPTS[@]}" --allow-cycle-reset -o "$sim" -f "$BIG" "$BIG" "$BIG" "$BIG" || { fail "random access: simtrace-pack failed"; return; }
    r=$(ra_measure "$sim" $((4 * n))) || { fail "random access: simtrace-cat failed"; return; }
    read -r mf mo mx <<<"$r"
    echo "random access: 4 GiB of d64 (the same four times, one stream, $(group "$(fsize "$sim")") bytes packed)"
    printf '  whole stream   %7.3f s (median of 3)\n' "$mf"
    printf '  one entry      %7.3f s = %s%% of the whole; %7.3f s = %s%% with --ignore-check\n' \
        "$mo" "$(pct "$mo" "$mf")" "$mx" "$(pct "$mx" "$mf")"
    tsv random 4GiB whole_s "$mf"
    tsv random 4GiB one_entry_pct "$(pct "$mo" "$mf")"
    rm -f "$sim"
    echo
}

# The trade-off (issue 3): smaller frames make random access cheaper and
# cost size.  Random access on the 1 GiB input; overhead on the selected
# corpus traces (or, without the corpus, the testdata traces concatenated).
tradeoff() {
    [[ -x $PACK && -x $CAT ]] || return 0
    local sizes=(256k 512k 1M 2M) fs sim="$TMP/ra.sim" r mf mo mx n raw one line ins=() labels=() i
    echo "frame size trade-off: one entry of 1 GiB as a share of the whole stream, and frame overhead"
    if big_input; then
        printf '  %-10s %14s %16s %10s %10s\n' "frame size" "random access" "--ignore-check" "whole, s" "one, s"
        for fs in "${sizes[@]}"; do
            note "trade-off: random access at $fs"
            "$PACK" "${COPTS[@]}" --allow-cycle-reset --frame-size "$fs" -o "$sim" -f "$BIG" || { fail "trade-off: simtrace-pack failed"; return; }
            r=$(ra_measure "$sim" $(($(fsize "$BIG") / 32))) || { fail "trade-off: simtrace-cat failed"; return; }
            read -r mf mo mx <<<"$r"
            printf '  %-10s %13s%% %15s%% %10.3f %10.3f\n' "$fs" "$(pct "$mo" "$mf")" "$(pct "$mx" "$mf")" "$mf" "$mo"
            tsv tradeoff "1GiB" "one_entry_pct_$fs" "$(pct "$mo" "$mf")"
        done
        rm -f "$sim"
    fi
    if ((HAVE_CORPUS)); then
        for n in "${CORPUS_SEL[@]}"; do ins+=("$(corpus_raw "$n")") labels+=("$n"); done
    else
        raw="$TMP/td.d64"
        : >"$raw"
        for n in "${TESTDATA_SEL[@]}"; do xz -dc "${TSRC[$n]}" >>"$raw"; done
        [[ -s $raw ]] && ins+=("$raw") labels+=("testdata, ${#TESTDATA_SEL[@]} traces")
    fi
    ((${#ins[@]})) || { echo; return; }
    line=$(printf '  %-24s' "overhead against one frame")
    for fs in "${sizes[@]}"; do line+=$(printf ' %8s' "$fs"); done
    echo "$line"
    for i in "${!ins[@]}"; do
        raw=${ins[$i]} n=${labels[$i]}
        local e=$(($(fsize "$raw") / 32))
        ((e <= MAX_FRAME)) || e=$MAX_FRAME
        note "trade-off: overhead on $n"
        if [[ -n ${V[$n|one]:-} ]]; then one=${V[$n|one]}; else
            one=$("$COMPRESS" -T2 "${COPTS[@]}" --frame-size "$e" -c "$raw" | wc -c)
        fi
        line=$(printf '  %-24s' "$n")
        for fs in "${sizes[@]}"; do
            r=$(grow "$("$COMPRESS" -T2 "${COPTS[@]}" --frame-size "$fs" -c "$raw" | wc -c)" "$one")
            line+=$(printf ' %7s%%' "$r")
            tsv tradeoff "$n" "overhead_pct_$fs" "$r"
        done
        echo "$line"
    done
    rm -f "$TMP/td.d64"
    echo
}

# =====================================================================================
# testdata: svpc against xz, zstd, bzip2, gzip on the short traces
# =====================================================================================

testdata() {
    ((${#TESTDATA_SEL[@]})) || return 0
    local BASE_NAMES=() b n raw i cs ds
    declare -A BC BD
    add_base() {
        if command -v "$2" >/dev/null; then
            BASE_NAMES+=("$1") BC[$1]=$3 BD[$1]=$4
        else note "$2 not installed: no $1 column"; fi
    }
    add_base "xz -9" xz "xz -9 -T1 -c" "xz -dc -T1"
    add_base "zstd -19" zstd "zstd -19 --long=27 -T1 -q -c" "zstd -d --long=27 -q -c"
    add_base "bzip2 -9" bzip2 "bzip2 -9 -c" "bzip2 -dc"
    add_base "gzip -9" gzip "gzip -9 -c -n" "gzip -dc"
    declare -A T
    for n in "${TESTDATA_SEL[@]}"; do
        raw="$TMP/t.d64"
        xz -dc "${TSRC[$n]}" >"$raw"
        T[$n|entries]=$(($(fsize "$raw") / 32))
        note "$n: svpc, -e paper, baselines"
        cs=() ds=()
        for ((i = 0; i < RUNS; i++)); do
            cs+=("$(elapsed to "$TMP/t.svpc" "$COMPRESS" -T1 "${COPTS[@]}" -c "$raw")")
            ds+=("$(elapsed to /dev/null "$DECOMPRESS" -T1 "${DOPTS[@]}" -c "$TMP/t.svpc")")
        done
        any_fail "${cs[@]}" "${ds[@]}" && { fail "$n: svpc failed"; continue; }
        T[$n|svpc]=$(fsize "$TMP/t.svpc")
        T[$n|c]=$(mbps "$(fsize "$raw")" "$(median "${cs[@]}")")
        T[$n|d]=$(mbps "$(fsize "$raw")" "$(median "${ds[@]}")")
        if verify "$raw" "$TMP/t.svpc"; then T[$n|exact]=yes; else
            T[$n|exact]=NO
            fail "$n: svpc round trip not exact"
        fi
        if "$COMPRESS" "${COPTS[@]}" -e paper -c "$raw" >"$TMP/t.paper"; then
            T[$n|paper]=$(fsize "$TMP/t.paper")
        else T[$n|paper]=n/a; fi
        for b in "${BASE_NAMES[@]}"; do
            # shellcheck disable=SC2086 # the command's words
            T[$n|c_$b]=$(mbps "$(fsize "$raw")" "$(elapsed to "$TMP/t.base" ${BC[$b]} "$raw")")
            T[$n|size_$b]=$(fsize "$TMP/t.base")
            # shellcheck disable=SC2086
            T[$n|d_$b]=$(mbps "$(fsize "$raw")" "$(elapsed to /dev/null ${BD[$b]} "$TMP/t.base")")
        done
        rm -f "$raw" "$TMP"/t.*
        tsv testdata "$n" svpc_bytes "${T[$n|svpc]}"
        tsv testdata "$n" paper_bytes "${T[$n|paper]}"
        tsv testdata "$n" compress_T1_MBps "${T[$n|c]}"
        tsv testdata "$n" decompress_T1_MBps "${T[$n|d]}"
        for b in "${BASE_NAMES[@]}"; do tsv testdata "$n" "${b// /}_bytes" "${T[$n|size_$b]}"; done
    done
    echo "testdata/good: short traces ($(IFS=' '; echo "${COPTS[*]:-default settings}"); MB/s: svpc -T1 median of $RUNS, others one run)"
    local hdr
    hdr=$(printf '  %-18s %8s %9s %6s %9s' trace entries "svpc" "b/e" "-e paper")
    for b in "${BASE_NAMES[@]}"; do hdr+=$(printf ' %10s' "$b"); done
    echo "$hdr  svpc/xz"
    for n in "${TESTDATA_SEL[@]}"; do
        [[ -n ${T[$n|svpc]:-} ]] || continue
        hdr=$(printf '  %-18s %8s %9s %6s %9s' "$n" "$(group "${T[$n|entries]}")" "$(group "${T[$n|svpc]}")" \
            "$(div "$((${T[$n|svpc]} * 8))" "${T[$n|entries]}" %.2f)" "$(group "${T[$n|paper]}")")
        for b in "${BASE_NAMES[@]}"; do hdr+=$(printf ' %10s' "$(group "${T[$n|size_$b]}")"); done
        echo "$hdr  $(div "${T[$n|svpc]}" "${T[$n|size_xz -9]:-}" %.3f)"
    done
    echo "  MB/s compress / decompress:"
    for n in "${TESTDATA_SEL[@]}"; do
        [[ -n ${T[$n|svpc]:-} ]] || continue
        hdr=$(printf '  %-18s %15s' "$n" "${T[$n|c]} / ${T[$n|d]}")
        for b in "${BASE_NAMES[@]}"; do hdr+=$(printf ' %15s' "${T[$n|c_$b]} / ${T[$n|d_$b]}"); done
        echo "$hdr"
    done | { printf '  %-18s %15s' "" "svpc -T1"; for b in "${BASE_NAMES[@]}"; do printf ' %15s' "$b"; done; echo; cat; }
    echo "  round trips exact: $(for n in "${TESTDATA_SEL[@]}"; do echo "${T[$n|exact]:-}"; done | grep -c yes) of ${#TESTDATA_SEL[@]}"
    echo
}

# Importers (issue 5): MB/s of text parsed on one core into a sink that
# discards (tests/unit/test_trace_io --bench), median of 3, on inputs made
# from a testdata trace by the text exporter, by awk from its output
# (lackey, din, xdin, pinatrace), and the Bochs sample repeated.
importers() {
    local TIO="$SVPC_BIN/tests/test_trace_io"
    [[ -x $TIO && -x $PACK ]] || { echo "importers: skipped (build the unit tests: make unit)"; echo; return; }
    local src="$ROOT/testdata/good/lackey_cc1_read.d64.xz" d="$TMP/imp" i fmt
    [[ -e $src ]] || { echo "importers: skipped (no testdata)"; echo; return; }
    mkdir -p "$d"
    note "importers"
    for i in 1 2 3 4; do xz -dc "$src"; done | "$PACK" -T1 --allow-cycle-reset -o "$d/in.sim" -f
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
        tsv importers "$fmt" MBps "$(median "${r[@]}")"
    done
    rm -rf "$d"
    echo
}

# Legacy VPC store-address traces (issue 5): the testdata write traces as
# (u32 pc, u64 address) pairs after a u32 header, packed with simtrace-pack
# --from vpc against bzip2 -9 of the same file.
vpc_traces() {
    [[ -x $PACK ]] || return 0
    if ! command -v bzip2 >/dev/null || ! command -v perl >/dev/null; then
        echo "vpc traces: skipped (no bzip2 or perl)"
        echo
        return
    fi
    local f n v s b
    echo "legacy VPC store-address traces: whole container against bzip2 -9 (target: at least 5x smaller)"
    note "vpc traces"
    for n in "${TESTDATA_SEL[@]}"; do
        [[ $n == *write* ]] || continue
        f=${TSRC[$n]} v="$TMP/$n.vpc"
        { printf '\x40\x00\x00\x00'; xz -dc "$f" | perl -e 'binmode STDIN; binmode STDOUT; local $/ = \32;
            while (my $e = <STDIN>) { my ($m, $ip, $a) = unpack("Q<3", $e); print pack("VQ<", $ip & 0xffffffff, $a) }'; } >"$v"
        s=$("$PACK" -T1 --from vpc "$v" | wc -c)
        b=$(bzip2 -9 -c "$v" | wc -c)
        printf '  %-20s %10s bytes: svpc %8s, bzip2 -9 %8s, %sx smaller\n' "$n" "$(group "$(fsize "$v")")" \
            "$(group "$s")" "$(group "$b")" "$(div "$b" "$s" "%.1f")"
        tsv vpc "$n" svpc_bytes "$s"
        tsv vpc "$n" bzip2_bytes "$b"
        rm -f "$v"
    done
    echo
}

# foreign-misc: issue 22 item 4's targets: each corpus file of Dinero IV
# pixie32, DRAMSim2 and gem5 packed (-T1) against xz -9 of its raw form
# (the corpus README's figure, measured again here): at most 0.8x; the
# formats that export (dramsim2, gem5) must give the raw form back byte
# for byte.
foreign_misc() {
    [[ -x $PACK ]] || return 0
    local F="$CORPUS/foreign" f fmt n raw s x rt
    echo "foreign traces (issue 22 item 4): container against xz -9 of the raw file (target: at most 0.8x)"
    for f in dinero/mm.32.pixie32:pixie32 dramsim2/mase_art.trc.gz:dramsim2 gem5/tgen-simple-mem.trc:gem5; do
        fmt=${f##*:} f=$F/${f%:*} n=$(basename "${f%.gz}")
        if [[ ! -e $f ]]; then
            echo "  $n: skipped (not in $F)"
            continue
        fi
        raw="$TMP/foreign.raw"
        if [[ $f == *.gz ]]; then gzip -dc "$f" >"$raw"; else cp "$f" "$raw"; fi
        note "foreign $n"
        s=$("$PACK" -T1 --from "$fmt" "$raw" | tee "$TMP/foreign.sim" | wc -c)
        x=$(xz -9 -T1 -c "$raw" | wc -c)
        rt="-"
        if [[ $fmt != pixie32 ]]; then
            if "$CAT" -F "$fmt" "$TMP/foreign.sim" | cmp -s - "$raw"; then rt="byte-exact"; else rt="DIFFERS"; FAILED=1; fi
        fi
        printf '  %-24s %-9s %10s bytes: svpc %8s, xz -9 %8s, %s x; round trip %s\n' "$n" "$fmt" "$(group "$(fsize "$raw")")" \
            "$(group "$s")" "$(group "$x")" "$(div "$s" "$x" "%.2f")" "$rt"
        tsv foreign-misc "$n" svpc_bytes "$s"
        tsv foreign-misc "$n" xz9_bytes "$x"
        target "foreign_$n" "$n: size <= 0.8x xz -9" "$(div "$s" "$x" "%.2f")" "$(cmpf "$(div "$s" "$x" "%.3f")" 0.8 "<=")"
        rm -f "$raw" "$TMP/foreign.sim"
    done
    echo
}

# The public API (issue 12's targets), by CPU time (user + system, the
# median of BENCH_RUNS), on 256 MiB of corpus lackey entries, -T1 and
# default settings (the containers must be identical):
#   writing through simtrace_writer_write (tests/tools/api_bench.c) against
#   svpc-compress, two ways: the compressor alone, both reading the
#   entries from a pipe (the API path then copies them once more, as its
#   contract says); and with the producer, as a simulator would run: the
#   API program reading the entries itself against `cat | svpc-compress`
#   (the producer's writes into the pipe count);
#   reading entries [a, b) through simtrace_reader_read into one buffer,
#   through a cursor with a 4 MiB buffer and through a cursor without a
#   copy (simtrace_cursor_peek), against simtrace-cat --entries
#   a:b (the outputs must be identical), each command run 5 times per
#   figure for a finer clock.
api_part() {
    local AB="$SVPC_BIN/tests/api-bench" raw="$TMP/api.d64" what n i a b k
    [[ -x $AB && -n $TIME_BIN ]] || { echo "api: skipped (needs make tools and GNU time)"; echo; return; }
    what=$(lackey_input "$raw" $((256 << 20))) || { echo "api: skipped (no lackey traces)"; echo; return; }
    n=$(($(fsize "$raw") / 32))
    # cpu SH-COMMAND: CPU seconds of the shell command and its children
    cpu() {
        if "$TIME_BIN" -f '%U %S' -o "$TMP/cpu" sh -c "$1"; then
            awk '{ printf "%.3f", $1 + $2 }' "$TMP/cpu"
        else
            echo FAIL
        fi
    }
    local wa=() wp=() ta=() tp=()
    note "api: writing 256 MiB, $RUNS runs each"
    for ((i = 0; i < RUNS; i++)); do
        # the compressor alone: cat's CPU is not counted (time measures the
        # program, which reads the pipe)
        wa+=("$(cat "$raw" | { "$TIME_BIN" -f '%U %S' -o "$TMP/cpu" "$AB" write - "$TMP/api.sim" &&
            awk '{ printf "%.3f", $1 + $2 }' "$TMP/cpu" || echo FAIL; })")
        wp+=("$(cat "$raw" | { "$TIME_BIN" -f '%U %S' -o "$TMP/cpu" "$COMPRESS" -T1 >"$TMP/pipe.sim" &&
            awk '{ printf "%.3f", $1 + $2 }' "$TMP/cpu" || echo FAIL; })")
        # with the producer
        ta+=("$(cpu "'$AB' write '$raw' '$TMP/api.sim'")")
        tp+=("$(cpu "cat '$raw' | '$COMPRESS' -T1 > '$TMP/pipe.sim'")")
    done
    any_fail "${wa[@]}" "${wp[@]}" "${ta[@]}" "${tp[@]}" && { fail "api: writing failed"; return; }
    local same=no
    cmp -s "$TMP/api.sim" "$TMP/pipe.sim" && same=yes
    [[ $same == yes ]] || fail "api: the API's container differs from svpc-compress's"
    local mwa mwp mta mtp
    mwa=$(median "${wa[@]}") mwp=$(median "${wp[@]}") mta=$(median "${ta[@]}") mtp=$(median "${tp[@]}")
    echo "api: the public API against the programs, by CPU time (user + system), -T1, median of $RUNS"
    echo "  input: $(group "$n") d64 entries (256 MiB): $what; containers identical: $same"
    printf '  write, compressor alone:   API %6.2f s, svpc-compress %6.2f s: %s%%  (target: at most +5%%: %s)\n' \
        "$mwa" "$mwp" "$(grow "$mwa" "$mwp")" "$(verdict "$mwa" "$(cmpf "$(div "$mwa" "$mwp" %.4f)" 1.05 "<=")")"
    printf '  write, with the producer:  API %6.2f s, cat | svpc-compress %6.2f s: %s%%  (target: at most +5%%: %s)\n' \
        "$mta" "$mtp" "$(grow "$mta" "$mtp")" "$(verdict "$mta" "$(cmpf "$(div "$mta" "$mtp" %.4f)" 1.05 "<=")")"
    tsv api 256MiB write_api_cpu_s "$mwa"
    tsv api 256MiB write_compress_cpu_s "$mwp"
    tsv api 256MiB write_api_producer_cpu_s "$mta"
    tsv api 256MiB write_pipe_producer_cpu_s "$mtp"
    # ranges inside a frame, across frame edges, and most of the stream
    for k in "$((n / 3)) $((n / 3 + 500000))" "$((n / 2 - 1000000)) $((n / 2 + 1000000))" "1000 $((n - 1000))"; do
        read -r a b <<<"$k"
        local ra=() ru=() rp=() rc=() mra mru mrp mrc v r5
        note "api: reading [$a, $b)"
        r5() { echo "for i in 1 2 3 4 5; do $1 || exit 1; done"; }
        for ((i = 0; i < RUNS; i++)); do
            ra+=("$(cpu "$(r5 "'$AB' read '$TMP/api.sim' $a $b > '$TMP/r.api'")")")
            ru+=("$(cpu "$(r5 "'$AB' cursor '$TMP/api.sim' $a $b > '$TMP/r.cur'")")")
            rp+=("$(cpu "$(r5 "'$AB' peek '$TMP/api.sim' $a $b > '$TMP/r.peek'")")")
            rc+=("$(cpu "$(r5 "'$CAT' -T1 --entries $a:$b '$TMP/api.sim' > '$TMP/r.cat'")")")
        done
        any_fail "${ra[@]}" "${ru[@]}" "${rp[@]}" "${rc[@]}" && { fail "api: reading [$a, $b) failed"; return; }
        same=no
        cmp -s "$TMP/r.api" "$TMP/r.cat" && cmp -s "$TMP/r.cur" "$TMP/r.cat" && cmp -s "$TMP/r.peek" "$TMP/r.cat" && same=yes
        [[ $same == yes ]] || fail "api: [$a, $b) through the API differs from simtrace-cat's"
        mra=$(div "$(median "${ra[@]}")" 5 %.3f) mru=$(div "$(median "${ru[@]}")" 5 %.3f)
        mrp=$(div "$(median "${rp[@]}")" 5 %.3f) mrc=$(div "$(median "${rc[@]}")" 5 %.3f)
        v=$(verdict "$mra" "$(cmpf "$mra" "$mrc" "<=")")/$(verdict "$mru" "$(cmpf "$mru" "$mrc" "<=")")
        v+=/$(verdict "$mrp" "$(cmpf "$mrp" "$mrc" "<=")")
        printf '  read [%s, %s) (%s entries): read %6.3f s, cursor %6.3f s, peek %6.3f s; simtrace-cat --entries %6.3f s: %s%% / %s%% / %s%%  (target: no more: %s); same bytes: %s\n' \
            "$a" "$b" "$(group $((b - a)))" "$mra" "$mru" "$mrp" "$mrc" "$(grow "$mra" "$mrc")" "$(grow "$mru" "$mrc")" \
            "$(grow "$mrp" "$mrc")" "$v" "$same"
        tsv api "read_$((b - a))" read_api_cpu_s "$mra"
        tsv api "read_$((b - a))" read_cursor_cpu_s "$mru"
        tsv api "read_$((b - a))" read_peek_cpu_s "$mrp"
        tsv api "read_$((b - a))" read_cat_cpu_s "$mrc"
    done
    rm -f "$raw" "$TMP"/api.sim "$TMP"/pipe.sim "$TMP"/r.api "$TMP"/r.cur "$TMP"/r.peek "$TMP"/r.cat
    echo
}

# =====================================================================================
# best: -e best (the -9 encoder, SIMTRACE.md 6.11) against cm2, the default
# =====================================================================================

# Sizes at the default frames (-T2; the bytes are the same for every -T),
# best's round trip, and what decoding costs: -T1 seconds, median of
# RUNS, of each encoder's container.
best_part() {
    ((HAVE_CORPUS)) || { echo "best: no corpus: not measured"; echo; return; }
    local n raw c2 cb i lg=0 k=0 tc tb dc=() db=() sc=0 sb=0
    echo "-e best against cm2 (the default), corpus, default frames; decode -T1, median of $RUNS"
    printf '  %-20s %12s %12s %7s %9s %9s %7s
' trace cm2 best ratio "cm2 dec" "best dec" ratio
    for n in "${CORPUS_SEL[@]}"; do
        raw=$(corpus_raw "$n")
        "$COMPRESS" -T2 -e cm2 -f -o "$TMP/b2.svpc" "$raw" || fail "$n" "-e cm2"
        "$COMPRESS" -T2 -e best -f -o "$TMP/bb.svpc" "$raw" || fail "$n" "-e best"
        verify "$raw" "$TMP/bb.svpc" || fail "$n" "-e best: round trip differs"
        c2=$(fsize "$TMP/b2.svpc") cb=$(fsize "$TMP/bb.svpc")
        dc=() db=()
        for ((i = 0; i < RUNS; i++)); do
            tc=$(timed /dev/null "$DECOMPRESS" -T1 -c "$TMP/b2.svpc") tb=$(timed /dev/null "$DECOMPRESS" -T1 -c "$TMP/bb.svpc")
            dc+=("${tc%% *}") db+=("${tb%% *}")
        done
        tc=$(median "${dc[@]}") tb=$(median "${db[@]}")
        sc=$(awk -v a="$sc" -v b="$tc" 'BEGIN { print a + b }') sb=$(awk -v a="$sb" -v b="$tb" 'BEGIN { print a + b }')
        lg=$(awk -v a="$lg" -v b="$cb" -v c="$c2" 'BEGIN { print a + log(b / c) }') k=$((k + 1))
        printf '  %-20s %12s %12s %7s %8ss %8ss %7s\n' "$n" "$(group "$c2")" "$(group "$cb")" "$(div "$cb" "$c2" "%.4f")" \
            "$tc" "$tb" "$(div "$tb" "$tc" "%.2f")"
        tsv best "$n" size_ratio "$(div "$cb" "$c2" "%.4f")"
        tsv best "$n" decode_ratio "$(div "$tb" "$tc" "%.2f")"
    done
    local geo
    geo=$(awk -v a="$lg" -v k="$k" 'BEGIN { if (k) printf "%.4f", exp(a / k); else print "n/a" }')
    echo "  decoding, all traces: cm2 ${sc}s, best ${sb}s: $(div "$sb" "$sc" "%.2f")x"
    target best_geomean "-e best vs cm2: geometric mean size ratio" "$geo" "$(cmpf "$geo" 0.97 "<=")"
    echo
    rm -f "$TMP/b2.svpc" "$TMP/bb.svpc"
}

# =====================================================================================
# the targets of issue 11
# =====================================================================================

# verdict FIGURE OK: "not measured" when FIGURE holds n/a
verdict() { if [[ $1 == *n/a* ]]; then echo "not measured"; elif (($2)); then echo met; else echo "NOT met"; fi; }
cmpf() { awk -v a="$1" -v b="$2" -v op="$3" 'BEGIN {
    if (a !~ /^[-+0-9.]+$/) { print 0; exit }
    if (op == "<=") print (a + 0 <= b + 0) ? 1 : 0; else if (op == ">=") print (a + 0 >= b + 0) ? 1 : 0
    else if (op == ">") print (a + 0 > b + 0) ? 1 : 0; else print (a + 0 < b + 0) ? 1 : 0 }'; }
target() { # target ID TEXT FIGURE OK: print and record a target
    local v
    v=$(verdict "$3" "$4")
    printf '  %-50s %-46s %s\n' "$2" "$3" "$v"
    tsv target "$1" figure "$3"
    tsv target "$1" verdict "$v"
}

targets() {
    want size || want speed || want threads || want memory || want random || want overhead || want collector || return 0
    local nsel=${#CORPUS_SEL[@]} nall=${#CORPUS_ALL[@]} m v names=() n ok
    echo "targets of issue 11, as issue 24 decided them (default settings$([[ ${#COPTS[@]} -eq 0 ]] || echo ", but SVPC_OPTS: ${COPTS[*]}"))"
    if ((!HAVE_CORPUS)); then
        echo "  (no corpus: the size, speed and overhead targets are not measured)"
    elif ((nsel < nall)); then
        echo "  (on $nsel of the $nall corpus traces, as BENCH_TRACES selects: not a verdict on the corpus)"
    fi
    for n in "${CORPUS_SEL[@]}"; do [[ -n ${V[$n|svpc]:-} ]] && names+=("$n"); done
    if want size || want speed; then
        # issue 24: a trace whose value bytes need at least 7.9 bits a byte
        # under every model (value_bits) may reach 0.92x; the others 0.75x
        local over=() lim vb
        ok=1
        for n in "${names[@]}"; do
            (($(cmpf "${V[$n|vs_ref]:-n/a}" 0.75 ">"))) || continue
            vb=${V[$n|vbits]:-n/a -}
            lim=0.75
            (($(cmpf "${vb% *}" 7.9 ">="))) && lim=0.92
            over+=("$n ${V[$n|vs_ref]} (values ${vb% *} bits/byte by ${vb#* }: limit $lim)")
            (($(cmpf "${V[$n|vs_ref]}" "$lim" "<="))) || ok=0
        done
        m=$(maxof vs_ref "${names[@]}")
        target size_every "size <= 0.75x reference (0.92x random values)" "max ${m% *} (${m#* })" "$ok"
        for v in "${over[@]}"; do echo "    above 0.75x: $v"; done
        target size_geomean "size <= 0.55x reference, geometric mean" "${V[geo]:-n/a}" "$(cmpf "${V[geo]:-n/a}" 0.55 "<=")"
        m=$(maxof vs_010 "${names[@]}")
        target size_vs_0.1.0 "no trace bigger than svpc 0.1.0" "max ${m% *} (${m#* })" "$(cmpf "${m% *}" 1 "<=")"
    fi
    if want speed; then
        m=${V[min_c]:-n/a -}
        target compress_T1 "compress -T1 >= 2x reference, every trace" "min ${m% *} (${m#* })" "$(cmpf "${m% *}" 2 ">=")"
        m=${V[min_d]:-n/a -}
        target decompress_T1 "decompress -T1 >= 2.5x reference, every trace" "min ${m% *} (${m#* })" "$(cmpf "${m% *}" 2.5 ">=")"
        echo "    (by CPU time: compress min ${V[min_ccpu]:-n/a}, decompress min ${V[min_dcpu]:-n/a})"
    fi
    if want threads; then
        # at 1 GiB and above only: 200 MB is 6 frames of unequal cost,
        # which allow at most 1.82x (issue 11's measurement)
        echo "    (200MB: c ${V[200MB|c2]:-n/a}x, d ${V[200MB|d2]:-n/a}x; no target below 1 GiB)"
        n=1GiB
        v="c ${V[$n|c2]:-n/a}x, d ${V[$n|d2]:-n/a}x"
        ok=$(($(cmpf "${V[$n|c2]:-n/a}" 1.8 ">=") && $(cmpf "${V[$n|d2]:-n/a}" 1.8 ">=")))
        [[ -n ${V[$n|c2]:-} ]] || v=n/a
        target "threads_$n" "-T2 >= 1.8x -T1 at $n, compress and decompress" "$v" "$ok"
        if [[ $(cmpf "${V[load_threads]:-0}" "$((NCPU - 1))" ">=") == 1 ]]; then
            echo "    (load average ${V[load_threads]} on $NCPU CPUs when the thread part began: other work holds"
            echo "     the CPUs that -T2 needs, so these ratios say little; measure again on an idle machine)"
        fi
    fi
    if want memory; then
        m=${V[rss_max]:-n/a -}
        [[ $m == "0 -" ]] && m="n/a -"
        target rss_T2 "peak RSS < 192 MiB, -T2" "max ${m%% *} MiB (${m#* })" "$(cmpf "${m%% *}" 192 "<")"
    fi
    if want collector; then
        target collector_one "bochs-trace piece, one CPU, >= 0.8x Bochs alone (23)" "${V[collector_one]:-n/a}x (${V[collector_one_buf]:-n/a}x of buffered Bochs)" \
            "$(cmpf "${V[collector_one]:-n/a}" 0.8 ">=")"
        target collector_jobs "bochs-trace --jobs 2 >= 1.7x --jobs 1 (issue 23)" "${V[collector_jobs]:-n/a}x" \
            "$(cmpf "${V[collector_jobs]:-n/a}" 1.7 ">=")"
    fi
    if want random; then
        target random_access "one entry <= 4% of the whole 1 GiB stream (mean of 20)" "${V[ra]:-n/a}%" "$(cmpf "${V[ra]:-n/a}" 4 "<=")"
    fi
    if want overhead; then
        m=${V[max_over]:-n/a -}
        target frame_overhead "frame overhead <= 5%, every trace" "max ${m% *}% (${m#* })" "$(cmpf "${m% *}" 5 "<=")"
    fi
    echo
}

# The CBP-2025 sample of the corpus (issue 22, item 2): simtrace-pack -T1
# --from cbp2025 against xz -9 of the raw records (target: at most 0.6x),
# and decoding, simtrace-cat -T1 -F cbp2025 against xz -dc -T1, by CPU time
# (user + system, median of BENCH_RUNS; target: no slower); the records
# must come back byte for byte.
cvp_part() {
    local gz="$CORPUS/foreign/cbp2025/sample_fp_trace.gz" d="$TMP/cvp" i s x
    [[ -f $gz ]] || { echo "cvp: skipped (no $gz)"; echo; return; }
    mkdir -p "$d"
    note "cvp"
    gzip -dc "$gz" >"$d/raw"
    xz -9 -T1 -c "$d/raw" >"$d/raw.xz"
    "$PACK" -T1 --from cbp2025 -o "$d/s.sim" "$gz" || { fail "cvp: packing failed"; return; }
    "$CAT" -T1 -F cbp2025 "$d/s.sim" | cmp -s - "$d/raw" || fail "cvp: the records do not come back byte for byte"
    s=$(fsize "$d/s.sim") x=$(fsize "$d/raw.xz")
    local ds=() dx=()
    for ((i = 0; i < RUNS; i++)); do
        ds+=("$(timed /dev/null "$CAT" -T1 -F cbp2025 "$d/s.sim" | cut -d' ' -f2)")
        dx+=("$(timed /dev/null xz -dc -T1 "$d/raw.xz" | cut -d' ' -f2)")
    done
    local ms mx
    ms=$(median "${ds[@]}") mx=$(median "${dx[@]}")
    echo "cvp: CBP-2025 sample, $(group "$(fsize "$d/raw")") bytes of records: container $(group "$s") bytes, xz -9 $(group "$x");"
    echo "  decoding CPU s (median of $RUNS): simtrace-cat -T1 -F cbp2025 $ms, xz -dc -T1 $mx"
    tsv cvp sample container_bytes "$s"
    tsv cvp sample xz9_bytes "$x"
    tsv cvp sample decode_cpu_s "$ms"
    tsv cvp sample xz_decode_cpu_s "$mx"
    target cvp_size "cvp: size <= 0.6x xz -9" "$(div "$s" "$x" "%.3f")x" "$(cmpf "$(div "$s" "$x" "%.4f")" 0.6 "<=")"
    target cvp_decode "cvp: decoding no slower than xz -d (CPU)" "$ms s vs $mx s" "$(cmpf "$ms" "$mx" "<=")"
    rm -rf "$d"
    echo
}

# =====================================================================================

# The Python package (issue 14's target: reading a range into numpy at no
# less than 80% of simtrace-cat's raw throughput on the same range), by CPU
# time, -T1, on 128 MiB of corpus lackey entries (4 frames): entries
# [a, b) through simtrace's Stream.raw (one buffer, simtrace_reader_read)
# stream[a:b] (the structured array, through a cursor) and stream.read(a, b,
# out=) into one array reused from run to run (issue 24: the target is
# judged on it, as the first touch of a fresh 128 MiB array is the
# caller's memory, not the reader's work), measured inside
# the interpreter (scripts/py-bench.py: its start and numpy's import are
# not counted; median of max(5, BENCH_RUNS)), against simtrace-cat -T1
# --entries a:b writing to /dev/null and to a file (median of as many
# runs); the raw bytes are compared with simtrace-cat's.
python_part() {
    local PY=/usr/bin/python3 raw="$TMP/py.d64" what n a b k i runs=$((RUNS > 5 ? RUNS : 5))
    [[ -x $PY && -n $TIME_BIN ]] && "$PY" -c 'import numpy' 2>/dev/null ||
        { echo "python: skipped (needs python3-numpy and GNU time)"; echo; return; }
    what=$(lackey_input "$raw" $((128 << 20))) || { echo "python: skipped (no lackey traces)"; echo; return; }
    n=$(($(fsize "$raw") / 32))
    # (the lackey traces are joined: their cycles restart at each join)
    "$PACK" -T1 --allow-cycle-reset -o "$TMP/py.sim" "$raw" || { fail "python: packing failed"; return; }
    rm -f "$raw"
    echo "python: reading [a, b) into numpy (simtrace package) against simtrace-cat -T1 --entries a:b, CPU time (user + system), median of $runs"
    echo "  input: $(group "$n") d64 entries (128 MiB, $((n / 1048576 + (n % 1048576 > 0))) frames): $what"
    for k in "$((n / 3)) $((n / 3 + 500000))" "$((n / 2 - 1000000)) $((n / 2 + 1000000))" "1000 $((n - 1000))"; do
        read -r a b <<<"$k"
        note "python: reading [$a, $b)"
        local cn=() cf=() pr pn pi mcn mcf
        for ((i = 0; i < runs; i++)); do
            if "$TIME_BIN" -f '%U %S' -o "$TMP/cpu" "$CAT" -T1 --entries "$a:$b" "$TMP/py.sim" >/dev/null; then
                cn+=("$(awk '{ printf "%.3f", $1 + $2 }' "$TMP/cpu")")
            else cn+=(FAIL); fi
            if "$TIME_BIN" -f '%U %S' -o "$TMP/cpu" "$CAT" -T1 -f --entries "$a:$b" -o "$TMP/py.cat" "$TMP/py.sim"; then
                cf+=("$(awk '{ printf "%.3f", $1 + $2 }' "$TMP/cpu")")
            else cf+=(FAIL); fi
        done
        read -r pr pn pi < <("$PY" "$ROOT/scripts/py-bench.py" "$TMP/py.sim" "$a" "$b" "$runs" "$TMP/py.out" || echo FAIL FAIL FAIL)
        any_fail "${cn[@]}" "${cf[@]}" "$pr" "$pn" "$pi" && { fail "python: reading [$a, $b) failed"; return; }
        local same=no
        cmp -s "$TMP/py.out" "$TMP/py.cat" && same=yes
        [[ $same == yes ]] || fail "python: [$a, $b) through the package differs from simtrace-cat's"
        mcn=$(median "${cn[@]}") mcf=$(median "${cf[@]}")
        printf '  [%s, %s) (%s entries): simtrace-cat %6.3f s (to /dev/null), %6.3f s (to a file); Stream.raw %6.3f s, stream[a:b] %6.3f s (%s%% / %s%% of its throughput), read(out=) %6.3f s: %s%% / %s%% (target: at least 80%%: %s); same bytes: %s\n' \
            "$a" "$b" "$(group $((b - a)))" "$mcn" "$mcf" "$pr" "$pn" "$(pct "$mcn" "$pn")" "$(pct "$mcf" "$pn")" \
            "$pi" "$(pct "$mcn" "$pi")" "$(pct "$mcf" "$pi")" "$(verdict "$pi" "$(cmpf "$(div "$mcn" "$pi" %.4f)" 0.8 ">=")")" "$same"
        tsv python "read_$((b - a))" cat_devnull_cpu_s "$mcn"
        tsv python "read_$((b - a))" cat_file_cpu_s "$mcf"
        tsv python "read_$((b - a))" py_raw_cpu_s "$pr"
        tsv python "read_$((b - a))" py_numpy_cpu_s "$pn"
        tsv python "read_$((b - a))" py_into_cpu_s "$pi"
    done
    rm -f "$TMP"/py.sim "$TMP"/py.out "$TMP"/py.cat
    echo
}

# =====================================================================================
# levels: what each level writes, and issue 24's targets for -1
# ==============================================================================

levels_part() {
    ((HAVE_CORPUS)) || { echo "levels: no corpus at $CORPUS: skipped"; echo; return; }
    local levels n l raw i t c gc gd names=()
    read -ra levels <<<"${BENCH_LEVELS:-1 2 3 4 5 6 7 8 9}"
    declare -A lcs lds
    for n in "${CORPUS_SEL[@]}"; do
        raw=$(corpus_raw "$n")
        note "$n: levels ${levels[*]}, -T1, and gzip, $RUNS runs"
        local gcs=() gds=()
        for l in "${levels[@]}"; do lcs[$l]="" lds[$l]=""; done
        # one loop, each run all levels then gzip: the ratios share the machine's load
        for ((i = 0; i < RUNS; i++)); do
            for l in "${levels[@]}"; do
                read -r t c <<<"$(timed "$TMP/l$l.svpc" "$COMPRESS" -T1 "-$l" -c "$raw")"
                lcs[$l]+=" $t"
                read -r t c <<<"$(timed /dev/null "$DECOMPRESS" -T1 -c "$TMP/l$l.svpc")"
                lds[$l]+=" $t"
            done
            read -r t c <<<"$(timed "$TMP/l.gz" gzip -6 -c "$raw")"
            gcs+=("$t")
            read -r t c <<<"$(timed /dev/null gzip -dc "$TMP/l.gz")"
            gds+=("$t")
        done
        gc=$(median "${gcs[@]}") gd=$(median "${gds[@]}")
        for l in "${levels[@]}"; do
            # shellcheck disable=SC2086 # the runs, as words
            if any_fail ${lcs[$l]} ${lds[$l]}; then
                fail "$n: -$l failed"
                continue
            fi
            verify "$raw" "$TMP/l$l.svpc" || fail "$n: -$l round trip not exact"
            V[$n|L$l|bytes]=$(fsize "$TMP/l$l.svpc")
            V[$n|L$l|size_ref]=$(div "${V[$n|L$l|bytes]}" "${REF_PAY[$n]:-}" %.3f)
            # shellcheck disable=SC2086
            V[$n|L$l|c]=$(mbps "$(fsize "$raw")" "$(median ${lcs[$l]})")
            # shellcheck disable=SC2086
            V[$n|L$l|d]=$(mbps "$(fsize "$raw")" "$(median ${lds[$l]})")
            # shellcheck disable=SC2086
            V[$n|L$l|c_ref]=$(div "$(div "$gc" "$(median ${lcs[$l]})" %.4f)" "${REF_C[$n]:-}" %.2f)
            # shellcheck disable=SC2086
            V[$n|L$l|d_ref]=$(div "$(div "$gd" "$(median ${lds[$l]})" %.4f)" "${REF_D[$n]:-}" %.2f)
        done
        # peak memory, -T1: -1 against the default
        V[$n|mem1c]=$(peak_kib "$TMP/m1.svpc" "$COMPRESS" -T1 -1 -c "$raw")
        V[$n|mem1d]=$(peak_kib /dev/null "$DECOMPRESS" -T1 -c "$TMP/m1.svpc")
        V[$n|mem6c]=$(peak_kib "$TMP/m6.svpc" "$COMPRESS" -T1 -c "$raw")
        V[$n|mem6d]=$(peak_kib /dev/null "$DECOMPRESS" -T1 -c "$TMP/m6.svpc")
        V[$n|mem_ratio]=$(awk -v a="${V[$n|mem1c]}" -v b="${V[$n|mem1d]}" -v x="${V[$n|mem6c]}" -v y="${V[$n|mem6d]}" \
            'BEGIN { if (x <= 0 || y <= 0) print "n/a"; else { r = a / x; if (b / y > r) r = b / y; printf "%.3f", r } }')
        names+=("$n")
        rm -f "$TMP"/l*.svpc "$TMP"/m*.svpc "$TMP/l.gz"
    done
    echo "levels: each level on the corpus, -T1; size against the reference's payload, MB/s of raw data and"
    echo "  speed against the reference ((svpc's speed / gzip's) / the reference's, corpus README), medians of $RUNS runs"
    printf '  %-20s %5s %11s %8s | %8s %8s | %8s %8s\n' trace level bytes size/ref "c MB/s" c/ref "d MB/s" d/ref
    for n in "${names[@]}"; do
        for l in "${levels[@]}"; do
            [[ -n ${V[$n|L$l|bytes]:-} ]] || continue
            printf '  %-20s %5s %11s %8s | %8s %8s | %8s %8s\n' "$n" "-$l" "$(group "${V[$n|L$l|bytes]}")" \
                "${V[$n|L$l|size_ref]}" "${V[$n|L$l|c]}" "${V[$n|L$l|c_ref]}" "${V[$n|L$l|d]}" "${V[$n|L$l|d_ref]}"
            tsv levels "$n" "L${l}_bytes" "${V[$n|L$l|bytes]}"
            tsv levels "$n" "L${l}_compress_vs_reference" "${V[$n|L$l|c_ref]}"
            tsv levels "$n" "L${l}_decompress_vs_reference" "${V[$n|L$l|d_ref]}"
        done
    done
    echo "  peak memory, -T1, KiB: -1 against the default (compress, decompress)"
    for n in "${names[@]}"; do
        printf '  %-20s -1 %8s %8s   default %8s %8s   -1/default (larger of the two) %s\n' "$n" "${V[$n|mem1c]}" \
            "${V[$n|mem1d]}" "${V[$n|mem6c]}" "${V[$n|mem6d]}" "${V[$n|mem_ratio]}"
        tsv levels "$n" fast_memory_vs_default "${V[$n|mem_ratio]}"
    done
    if [[ " ${levels[*]} " == *" 1 "* ]]; then
        local m
        echo "  targets of issue 24 for -1, every trace:"
        m=$(minof L1\|d_ref "${names[@]}")
        target fast_decompress "-1 decompress -T1 >= 4x the reference" "min ${m% *} (${m#* })" "$(cmpf "${m% *}" 4 ">=")"
        m=$(minof L1\|c_ref "${names[@]}")
        target fast_compress "-1 compress -T1 >= 3x the reference" "min ${m% *} (${m#* })" "$(cmpf "${m% *}" 3 ">=")"
        m=$(maxof L1\|size_ref "${names[@]}")
        target fast_size "-1 file <= the reference's payload" "max ${m% *} (${m#* })" "$(cmpf "${m% *}" 1 "<=")"
        m=$(maxof mem_ratio "${names[@]}")
        target fast_memory "-1 peak memory <= 0.25x the default's" "max ${m% *} (${m#* })" "$(cmpf "${m% *}" 0.25 "<=")"
    fi
    echo
}

# drmemtrace_records FILE: one thread's records (the members of a zip in
# order, a .gz decompressed, else the file)
drmemtrace_records() {
    case $1 in
    *.zip) unzip -p "$1" ;;
    *.gz) gzip -dc "$1" ;;
    *) cat "$1" ;;
    esac
}

drmemtrace_part() {
    local dir="$CORPUS/foreign/drmemtrace" f name raw xzs sims i cc=() xc=() mc mx ok_size ok_speed
    [[ -d $dir ]] || { echo "drmemtrace: skipped (no $dir)"; echo; return; }
    echo "drmemtrace: container bytes (simtrace-pack --from drmemtrace) against xz -9 of the same records, target at most 0.5;"
    echo "  decoding: simtrace-cat -T1 -F drmemtrace against xz -dc -T1, CPU time (user + system), median of $RUNS, target: not slower"
    printf '  %-52s %10s %9s %9s %6s %-8s %8s %8s %s\n' trace records xz-9 svpc ratio size cat-s xz-d-s speed
    for f in "$dir"/*.trace* "$dir"/*.tracedir/*.trace*; do
        [[ -f $f ]] || continue
        name=${f#"$dir"/}
        picked "$name" || continue
        note "drmemtrace: $name"
        drmemtrace_records "$f" >"$TMP/drm.raw"
        xz -9 -c "$TMP/drm.raw" >"$TMP/drm.xz"
        "$PACK" -f "${COPTS[@]}" --from drmemtrace -o "$TMP/drm.sim" "$f" || { fail "drmemtrace: simtrace-pack failed on $name"; continue; }
        "$CAT" -F drmemtrace "$TMP/drm.sim" | cmp -s - "$TMP/drm.raw" || { fail "drmemtrace: $name does not come back byte for byte"; continue; }
        raw=$(fsize "$TMP/drm.raw") xzs=$(fsize "$TMP/drm.xz") sims=$(fsize "$TMP/drm.sim")
        cc=() xc=()
        for ((i = 0; i < RUNS; i++)); do
            read -r _ c < <(timed /dev/null "$CAT" -T1 -F drmemtrace "$TMP/drm.sim")
            cc+=("$c")
            read -r _ c < <(timed /dev/null xz -dc -T1 "$TMP/drm.xz")
            xc+=("$c")
        done
        mc=$(median "${cc[@]}") mx=$(median "${xc[@]}")
        ok_size=$(verdict "$sims" "$(cmpf "$(div "$sims" "$xzs" %.4f)" 0.5 "<=")")
        ok_speed=$(verdict "$mc" "$(cmpf "$mc" "$mx" "<=")")
        printf '  %-52s %10s %9s %9s %6s %-8s %8s %8s %s\n' "${name##*/}" "$(group $((raw / 12)))" "$(group "$xzs")" \
            "$(group "$sims")" "$(div "$sims" "$xzs" %.3f)" "$ok_size" "$mc" "$mx" "$ok_speed"
        tsv drmemtrace "$name" records "$((raw / 12))"
        tsv drmemtrace "$name" xz9_bytes "$xzs"
        tsv drmemtrace "$name" svpc_bytes "$sims"
        tsv drmemtrace "$name" cat_cpu_s "$mc"
        tsv drmemtrace "$name" xz_d_cpu_s "$mx"
    done
    rm -f "$TMP"/drm.*
    echo
}

# The corpus's ChampSim traces (issue 22's targets): the stored bytes of
# the champsim stream (simtrace-cat --list) against xz -9 of the same raw
# records, at most 0.5x each and 0.35x in geometric mean; reading them
# back with simtrace-cat -T1 -F champsim (checked byte for byte) against
# xz -dc -T1 of the xz -9 file, by CPU time (user + system, the median of
# BENCH_RUNS), at most as long.
champsim_part() {
    local dir="$CORPUS/foreign/champsim" f n raw sim st cs x geo="" ratios=() tc tx i
    [[ -d $dir && -x $PACK ]] || { echo "champsim: skipped (no $dir)"; echo; return 0; }
    echo "ChampSim traces: the champsim stream against xz -9 of the same records (targets: at most 0.5x each, 0.35x geometric mean; reading no slower than xz -d)"
    note "champsim"
    printf '  %-32s %10s %10s %9s %6s %9s %9s %s\n' trace records "xz -9" stream ratio "cat CPU" "xz -d CPU" verdicts
    for f in "$dir"/*; do
        n=$(basename "$f")
        picked "$n" || continue
        raw="$TMP/cs.raw" sim="$TMP/cs.sim"
        case $f in
        *.xz) xz -dc "$f" >"$raw" ;;
        *.gz) gzip -dc "$f" >"$raw" ;;
        *) cp "$f" "$raw" ;;
        esac
        xz -9 -T1 -c "$raw" >"$TMP/cs.xz"
        x=$(fsize "$TMP/cs.xz")
        "$PACK" -T1 "${COPTS[@]}" --from champsim -o "$sim" -f "$raw" || fail "simtrace-pack --from champsim $n"
        "$CAT" -F champsim "$sim" | cmp -s - "$raw" || fail "$n: -F champsim does not give the records back"
        st=$("$CAT" --list "$sim" | awk '$1 == "trace" { print $6 }')
        tc=() tx=()
        for ((i = 0; i < RUNS; i++)); do
            tc+=("$(timed /dev/null "$CAT" -T1 -F champsim "$sim" | cut -d' ' -f2)")
            tx+=("$(timed /dev/null xz -dc -T1 "$TMP/cs.xz" | cut -d' ' -f2)")
        done
        tc=$(median "${tc[@]}") tx=$(median "${tx[@]}")
        cs=$(div "$st" "$x" "%.3f")
        ratios+=("$cs")
        printf '  %-32s %10s %10s %9s %6s %8ss %8ss size %s, speed %s\n' "$n" "$(group $(($(fsize "$raw") / 64)))" \
            "$(group "$x")" "$(group "$st")" "$cs" "$tc" "$tx" \
            "$(verdict "$cs" "$(cmpf "$cs" 0.5 "<=")")" "$(verdict "$tc" "$(cmpf "$tc" "$tx" "<=")")"
        tsv champsim "$n" stream_bytes "$st"
        tsv champsim "$n" file_bytes "$(fsize "$sim")"
        tsv champsim "$n" xz9_bytes "$x"
        tsv champsim "$n" cat_cpu_s "$tc"
        tsv champsim "$n" xz_d_cpu_s "$tx"
        rm -f "$raw" "$sim" "$TMP/cs.xz"
    done
    if ((${#ratios[@]})); then
        geo=$(printf '%s\n' "${ratios[@]}" | awk '{ s += log($1) } END { printf "%.3f", exp(s / NR) }')
        printf '  %-32s %10s %10s %9s %6s  %s\n' "geometric mean" "" "" "" "$geo" "$(verdict "$geo" "$(cmpf "$geo" 0.35 "<=")")"
        tsv champsim all geomean_ratio "$geo"
    fi
    echo
}

# ---- the Bochs collector (issue 23) ------------------------------------------------

GRUB_AT=16617287 # where the GRUB workload's BIOS jumps to GRUB (bochs-trace's GRUB_BOOT_AT)
TRACE="$ROOT/scripts/bochs-trace"
# grub_trace ARGS...: bochs-trace on the GRUB workload with the bench's packer
grub_trace() { BOCHS_TRACE_PACK="$PACK" "$TRACE" --workload grub -f "$@"; }
# collector_ready: Bochs and the GRUB CD (built and cached by a first, short
# run); sets GRUB_ISO
collector_ready() {
    command -v bochs >/dev/null 2>&1 || { echo "  skipped: Bochs is not installed"; return 1; }
    grub_trace --skip "$GRUB_AT" --instructions 1000 -o "$TMP/warm.sim" ||
        { fail "collector: bochs-trace failed"; return 1; }
    GRUB_ISO=$(ls -1 "${XDG_CACHE_HOME:-$HOME/.cache}"/svpc-bochs-trace/grub-halt-v*.iso 2>/dev/null | head -n 1)
    [[ -n $GRUB_ISO ]] || { echo "  skipped: no cached GRUB CD"; return 1; }
}
# bochs_alone_setup DIR N: Debian's Bochs tracing instructions GRUB_AT to GRUB_AT +
# N - 1 of the GRUB workload with its debugger log and standard output to
# /dev/null: bochs-trace's bochsrc and debugger commands without its FIFOs
# and packer (the baseline of issue 23's one-core target)
bochs_alone_setup() {
    mkdir -p "$1"
    cat >"$1/bochsrc" <<EOF2
display_library: term
megs: 32
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/vgabios/vgabios.bin
clock: sync=none, time0=946684800
debugger_log: /dev/null
log: $1/bochs.log
mouse: enabled=0
com1: enabled=1, mode=file, dev=$1/serial.txt
ata0-master: type=cdrom, path="$GRUB_ISO", status=inserted
boot: cdrom
EOF2
    printf 'sba %s\nc\ntrace-mem on\ntrace on\ns %s\nq\n' "$GRUB_AT" "$2" >"$1/cmds"
}
# bochs_alone DIR CPU [ENV...]: run it on CPU, standard output to /dev/null
bochs_alone() {
    local d=$1 cpu=$2
    shift 2
    (cd "$d" && exec taskset -c "$cpu" env TERM=dumb "$@" bochs -q -f bochsrc -rc cmds </dev/null 2>"$d/stderr")
}
# piece_on CPU ENV... -- ARGS...: grub_trace ARGS on CPU with ENV
piece_on() {
    local cpu=$1 e=()
    shift
    while [[ $1 != -- ]]; do e+=("$1"); shift; done
    shift
    taskset -c "$cpu" env "${e[@]}" BOCHS_TRACE_PACK="$PACK" "$TRACE" --workload grub -f "$@" </dev/null
}

collector_part() {
    local n=1000000 cpu=$((NCPU - 1)) d="$TMP/collector" i k t
    local kinds="alone alone_buf piece piece_unbuf piece_fast"
    declare -A W C
    echo "collector: bochs-trace --workload grub --skip $GRUB_AT --instructions $n, every process on CPU $cpu"
    echo "  (taskset), against Bochs alone tracing the same range to /dev/null on that CPU; CPU time, medians of $RUNS, interleaved"
    collector_ready || { echo; return; }
    local logbuf="$ROOT/build/bochs-logbuf.so"
    [[ -r $logbuf ]] || { fail "collector: $logbuf not built"; echo; return; }
    bochs_alone_setup "$d" "$n"
    note "collector: one core"
    for ((i = 0; i < RUNS; i++)); do
        for k in $kinds; do
            case $k in
            alone) t=$(timed /dev/null bochs_alone "$d" "$cpu") ;;
            alone_buf) t=$(timed /dev/null bochs_alone "$d" "$cpu" LD_PRELOAD="$logbuf" BOCHS_LOGBUF_LOG=/dev/null BOCHS_LOGBUF_STDOUT=1) ;;
            piece) t=$(timed /dev/null piece_on "$cpu" -- --skip $GRUB_AT --instructions $n -o "$TMP/piece.sim") ;;
            piece_unbuf) t=$(timed /dev/null piece_on "$cpu" BOCHS_TRACE_LOGBUF=0 -- --skip $GRUB_AT --instructions $n -o "$TMP/piece0.sim") ;;
            piece_fast) t=$(timed /dev/null piece_on "$cpu" -- --fast --skip $GRUB_AT --instructions $n -o "$TMP/piecef.sim") ;;
            esac
            any_fail $t && { fail "collector: $k failed"; echo; return; }
            W[$k]+="${t% *} " C[$k]+="${t#* } "
        done
    done
    cmp -s "$TMP/piece.sim" "$TMP/piece0.sim" || fail "collector: the piece with bochs-logbuf.so differs from the one without"
    # by CPU time (user + system of every process): on one CPU the same as
    # the wall clock when nothing else runs there, and unlike it not
    # stretched by other work on a shared machine
    local ca
    ca=$(median ${C[alone]})
    printf '  %-14s %9s %9s %16s %9s\n' "run" "wall s" "CPU s" "instr/CPU s" "vs alone"
    for k in $kinds; do
        local w c
        w=$(median ${W[$k]}) c=$(median ${C[$k]})
        printf '  %-14s %9s %9s %16s %9s\n' "$k" "$w" "$c" "$(div "$n" "$c" "%.0f")" "$(div "$ca" "$c")"
        tsv collector "$k" wall_s "$w"
        tsv collector "$k" cpu_s "$c"
    done
    echo "  (alone: Debian's Bochs; alone_buf: the same with bochs-logbuf.so preloaded; piece: bochs-trace;"
    echo "   piece_unbuf: bochs-trace with BOCHS_TRACE_LOGBUF=0, Bochs's output unbuffered as before; piece_fast: --fast)"
    V[collector_one]=$(div "$ca" "$(median ${C[piece]})")
    V[collector_one_buf]=$(div "$(median ${C[alone_buf]})" "$(median ${C[piece]})")
    # two cores: --jobs 2 against --jobs 1
    local j1=() j2=() m=2000000
    note "collector: --jobs"
    for ((i = 0; i < RUNS; i++)); do
        t=$(timed /dev/null grub_trace --skip "$GRUB_AT" --instructions $m --jobs 1 -o "$TMP/j1.sim")
        j1+=("${t% *}")
        t=$(timed /dev/null grub_trace --skip "$GRUB_AT" --instructions $m --jobs 2 -o "$TMP/j2.sim")
        j2+=("${t% *}")
    done
    any_fail "${j1[@]}" "${j2[@]}" && { fail "collector: --jobs failed"; echo; return; }
    local w1 w2
    w1=$(median "${j1[@]}") w2=$(median "${j2[@]}")
    V[collector_jobs]=$(div "$w1" "$w2")
    printf '  --jobs 1 / --jobs 2 on %s instructions (%s CPUs): %s s / %s s = %sx\n' "$(group $m)" "$NCPU" "$w1" "$w2" "${V[collector_jobs]}"
    tsv collector jobs1 wall_s "$w1"
    tsv collector jobs2 wall_s "$w2"
    echo
}
# cluster: issue 23's cluster target.  K = 32 pieces of a 32,000,000-instruction
# GRUB range (--piece K/32, as a cluster's tasks run them), one after the
# other, against one continuous run of the range (--skip, --instructions),
# wall clock; target: the pieces' total at most 1.15x, so that K machines
# trace the range at least 0.87 K times faster.  One run of each.
cluster_part() {
    local n=32000000 k=32 i t cont sum=0
    echo "cluster: $k pieces of $(group $n) instructions of GRUB (--piece K/$k, one after the other) against one run"
    collector_ready || { echo; return; }
    note "cluster: one run"
    t=$(timed /dev/null grub_trace --skip "$GRUB_AT" --instructions $n -o "$TMP/cont.sim")
    any_fail $t && { fail "cluster: the continuous run failed"; echo; return; }
    cont=${t% *}
    note "cluster: $k pieces"
    for ((i = 1; i <= k; i++)); do
        t=$(timed /dev/null grub_trace --skip "$GRUB_AT" --instructions $n --piece "$i/$k" -o "$TMP/piece-$i.sim")
        any_fail $t && { fail "cluster: piece $i failed"; echo; return; }
        sum=$(awk -v a="$sum" -v b="${t% *}" 'BEGIN { printf "%.3f", a + b }')
    done
    V[cluster]=$(div "$sum" "$cont")
    printf '  one run %s s; the %s pieces %s s in all: %sx  %s\n' "$cont" "$k" "$sum" "${V[cluster]}" \
        "$(verdict "${V[cluster]}" "$(cmpf "${V[cluster]}" 1.15 "<=")")"
    tsv cluster grub continuous_s "$cont"
    tsv cluster grub pieces_s "$sum"
    rm -f "$TMP"/piece-*.sim "$TMP/cont.sim"
    echo
}

main() {
    echo "svpc benchmark  $(date -u '+%Y-%m-%d %H:%M UTC')  $(uname -m), $NCPU CPUs, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
    echo "svpc: $("$COMPRESS" --version | head -n 1)$([[ ${#COPTS[@]} -eq 0 ]] || echo "; SVPC_OPTS: ${COPTS[*]}")"
    echo "parts:${PARTS% }; traces: ${BENCH_TRACES:-all}; runs: $RUNS"
    echo
    want size || want speed || want overhead && corpus_main
    want corpus-xz && corpus_xz
    want threads && threads
    want memory && memory
    want random && random_access
    want tradeoff && tradeoff
    want testdata && testdata
    want importers && importers
    want vpc && vpc_traces
    want api && api_part
    want python && python_part
    want foreign-misc && foreign_misc
    want cvp && cvp_part
    want levels && levels_part
    want drmemtrace && drmemtrace_part
    want champsim && champsim_part
    want best && best_part
    want collector && collector_part
    want cluster && cluster_part
    targets
    ((!FAILED))
}

mkdir -p "$(dirname "$REPORT")"
{
    echo "# svpc bench $(date -u '+%Y-%m-%dT%H:%M:%SZ') $("$COMPRESS" --version | head -n 1)"
    echo "# git $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" diff --quiet 2>/dev/null || echo ' (modified)'); SVPC_OPTS: ${COPTS[*]:-}; parts:${PARTS% }; traces: ${BENCH_TRACES:-all}; runs: $RUNS"
    printf 'section\ttrace\tfigure\tvalue\n'
} >"$TSV"
T_START=$EPOCHREALTIME
set +e
main | tee "$REPORT"
rc=${PIPESTATUS[0]}
set -e
echo "(written to ${REPORT#"$ROOT"/} and ${TSV#"$ROOT"/}; $(awk -v a="$T_START" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') s)" | tee -a "$REPORT"
if ((rc)); then
    echo "bench.sh: svpc failed on at least one input (see above)" >&2
    exit 1
fi
