#!/usr/bin/env bash
# demo.sh - compress and restore a bundled real trace, show what svpc does.
#
# Usage: SVPC_BIN=/abs/path/to/build scripts/demo.sh      (what `make demo` runs)
#
# Takes the largest bios trace in testdata/good (else the largest
# testdata/good/*.d64.xz, else a trace of the reference corpus beside the
# repository), unpacks it to a temporary directory, compresses it with
# svpc-compress, restores it with svpc-decompress, checks that every byte
# came back, and compares the size with xz -9.  Exits non-zero when the
# restored trace differs.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SVPC_BIN="${SVPC_BIN:-$ROOT/build}"
COMPRESS="$SVPC_BIN/svpc-compress"
DECOMPRESS="$SVPC_BIN/svpc-decompress"

die() {
    echo "demo: $*" >&2
    exit 1
}

[[ -x $COMPRESS && -x $DECOMPRESS ]] || die "svpc binaries not found in $SVPC_BIN (run 'make all')"

# the trace: the biggest bios one, else the biggest of testdata/good, else the corpus
pick=""
pick_size=-1
shopt -s nullglob
for pass in bios any; do
    for f in "$ROOT"/testdata/good/*.d64.xz; do
        [[ $pass == bios && $(basename "$f") != *bios* ]] && continue
        s=$(stat -c %s "$f")
        if ((s > pick_size)); then
            pick=$f
            pick_size=$s
        fi
    done
    [[ -n $pick ]] && break
done
if [[ -z $pick ]]; then
    for f in "$ROOT"/../shared/corpus/*.d64.zst; do
        pick=$f
        break
    done
fi
shopt -u nullglob
[[ -n $pick ]] || die "no trace found: testdata/good/*.d64.xz is empty (run scripts/make-testdata.sh)"

TMP="$(mktemp -d /tmp/svpc-demo.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

name="$(basename "$pick")"
name="${name%.xz}"
name="${name%.zst}"
raw="$TMP/$name"
case $pick in
*.xz) xz -dc -- "$pick" >"$raw" ;;
*.zst) zstd -dc -q -- "$pick" >"$raw" ;;
esac

now() { echo "$EPOCHREALTIME"; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }
group() { sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$1"; }

rawsz=$(stat -c %s "$raw")
entries=$((rawsz / 32))
echo "svpc demo: a real memory trace, ${pick#"$ROOT"/}"
echo "  $(group "$entries") d64 entries (32 bytes each: cycle, ip, address, data), $(group "$rawsz") bytes"
echo

t0=$(now)
"$COMPRESS" -o "$TMP/trace.svpc" "$raw"
t1=$(now)
"$DECOMPRESS" -o "$TMP/restored" "$TMP/trace.svpc"
t2=$(now)

if ! cmp -s "$raw" "$TMP/restored"; then
    echo "FAILED: the restored trace differs from the original" >&2
    cmp "$raw" "$TMP/restored" >&2 || true
    exit 1
fi

svsz=$(stat -c %s "$TMP/trace.svpc")
printf '  %-26s %14s bytes  %8s  %6s bits/entry\n' "svpc-compress:" "$(group "$svsz")" \
    "$(calc '%.0fx' "$rawsz / $svsz")" "$(calc '%.2f' "$svsz * 8 / $entries")"

if command -v xz >/dev/null; then
    echo "  (running xz -9 on the same trace for comparison; this takes a while)"
    xz -9 -T1 -c "$raw" >"$TMP/trace.xz"
    xzsz=$(stat -c %s "$TMP/trace.xz")
    printf '  %-26s %14s bytes  %8s  %6s bits/entry\n' "xz -9, for comparison:" "$(group "$xzsz")" \
        "$(calc '%.0fx' "$rawsz / $xzsz")" "$(calc '%.2f' "$xzsz * 8 / $entries")"
    echo "  svpc's output is $(calc '%.1f' "$xzsz / $svsz") times smaller than xz -9's"
else
    echo "  (xz not installed: no comparison)"
fi
echo
printf '  compress:   %8s MB/s\n' "$(calc '%.1f' "$rawsz / 1e6 / ($t1 - $t0)")"
printf '  decompress: %8s MB/s\n' "$(calc '%.1f' "$rawsz / 1e6 / ($t2 - $t1)")"
echo
echo "  restored trace verified: byte-for-byte identical (cmp)"
