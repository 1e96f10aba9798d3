#!/usr/bin/env bash
# make-testdata.sh - regenerate the real-trace test data in testdata/good/.
#
# Usage:  scripts/make-testdata.sh [OUTDIR]        (default: testdata/good)
# Env:    CORPUS=DIR   reference corpus with bios_post.{read,write}.d64.zst
#                      (default: ../shared/corpus next to the repository)
#         KEEP_TMP=1   keep the work directory (lackey logs, raw traces)
#
# Every output is a raw d64 trace (32-byte little-endian entries, see
# ../shared/corpus/README.md) compressed with `xz -9 -T1`; tests decompress
# them at run time. Files written:
#
#   bios_{write,read}_300k.d64.xz
#       entries [0, 300000) of the reference Bochs BIOS POST traces.
#       (From about entry 250k (write) / 340k (read) on, the corpus traces are
#       a ~10-instruction polling loop until the last ~10k entries, so a window
#       from the middle would hold only that loop; the first 300k entries hold
#       nearly all of the varied POST code plus the start of the loop.)
#   lackey_{xz,sort,cc1}_{read,write}.d64.xz
#       entries [100000, 400000) of each stream of a valgrind lackey trace of
#       a real program (the first 100k entries, mostly dynamic loading and
#       start-up, are skipped):
#         xz    xz -6 -T1 -c on ~10 KB of generated English-like text
#         sort  sort --parallel=1 -S 8M on 5000 generated lines
#         cc1   gcc's cc1 -quiet -O2 on a self-contained C file (the run is
#               cut short after LACKEY_CC1_LINES lines of lackey output; the
#               trace covers compiler start-up and option/builtin set-up)
#       converted with scripts/lackey2d64.c: L -> read, S -> write, M -> both,
#       cycle = instructions so far, ip = last instruction, data = size only.
#   README.md   one line per file.
#
# Determinism: inputs are generated here (awk, 32-bit LCG, no randomness);
# programs run under `env -i PATH=/usr/bin:/bin LC_ALL=C` in / with the input
# on stdin (valgrind adds PWD to the environment, and the stack layout depends
# on its length), and valgrind does not randomise the address space, so
# repeated runs on the same system give identical traces.
# Other versions of valgrind, xz, coreutils, gcc or glibc give different (but
# equally valid) traces. Made on Debian bookworm: valgrind 3.19.0, xz 5.4.1,
# coreutils 9.1, gcc 12.2.0, glibc 2.36.
#
# Takes 2-4 minutes (valgrind lackey is slow); needs ~100 MB in $TMPDIR.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
out=${1:-$repo/testdata/good}
corpus=${CORPUS:-$repo/../shared/corpus}

ENTRIES=300000          # entries per output file
BIOS_SKIP=0             # first entry taken from the BIOS traces
LACKEY_SKIP=100000      # first entry taken from each lackey stream
LACKEY_CC1_LINES=10000000   # lackey output lines kept for cc1 (cuts the run short)

die() { echo "make-testdata.sh: $*" >&2; exit 1; }

for t in zstd xz valgrind cc gcc awk sort head tail; do
    command -v "$t" >/dev/null 2>&1 || die "missing tool: $t (see scripts/install-deps.sh)"
done
for s in write read; do
    [[ -r $corpus/bios_post.$s.d64.zst ]] || die "missing $corpus/bios_post.$s.d64.zst (set CORPUS=)"
done
cc1=$(gcc -print-prog-name=cc1)
[[ -x $cc1 ]] || die "cannot find gcc's cc1 (gcc -print-prog-name=cc1 gave '$cc1')"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/make-testdata.XXXXXX")
if [[ ${KEEP_TMP:-0} == 1 ]]; then
    echo "work directory: $tmp" >&2
else
    trap 'rm -rf "$tmp"' EXIT
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

# Checks a PIPESTATUS array: each stage must have exited 0, or 141 (SIGPIPE)
# because a later `head` stopped reading on purpose.
check_status() {
    local what=$1 st
    shift
    for st in "$@"; do
        [[ $st == 0 || $st == 141 ]] || die "$what: pipeline failed (statuses: $*)"
    done
}

# window SKIP OUTFILE: copies entries [SKIP, SKIP+ENTRIES) of the d64 stream on
# stdin to OUTFILE and checks that exactly that many were there.
window() {
    local skip=$1 f=$2 want=$((ENTRIES * 32)) got
    tail -c +$((skip * 32 + 1)) | head -c "$want" > "$f"
    got=$(wc -c < "$f")
    ((got == want)) || die "$(basename "$f"): only $((got / 32)) entries after skipping $skip (need $ENTRIES)"
}

# pack RAW NAME WHAT HOW: compresses RAW to $out/NAME and records a README line.
readme_rows=()
pack() {
    local raw=$1 name=$2 what=$3 how=$4 n
    n=$(( $(wc -c < "$raw") / 32 ))
    xz -9 -T1 -c "$raw" > "$out/$name"
    printf '%-28s %9d entries %10d bytes\n' "$name" "$n" "$(wc -c < "$out/$name")" >&2
    readme_rows+=("| \`$name\` | $what | $n | $how |")
}

# ---------------------------------------------------------------- BIOS traces
declare -A loop_start=([write]=250k [read]=340k)
for s in write read; do
    (
        set +o pipefail
        zstd -dc "$corpus/bios_post.$s.d64.zst" | window "$BIOS_SKIP" "$tmp/bios_$s.d64"
        check_status "bios $s" "${PIPESTATUS[@]}"
    )
    pack "$tmp/bios_$s.d64" "bios_${s}_300k.d64.xz" \
        "Bochs 2.7 BIOS POST, $s trace, with values (reference corpus)" \
        "entries [$BIOS_SKIP, $((BIOS_SKIP + ENTRIES))) of \`zstd -dc bios_post.$s.d64.zst\` (the varied POST code: from entry ~${loop_start[$s]} on, the corpus trace is one polling loop)"
done

# -------------------------------------------------------------- lackey traces
cc -std=c11 -O2 -Wall -Wextra -Werror -o "$tmp/lackey2d64" "$here/lackey2d64.c"

cd "$tmp"

# Deterministic inputs. 32-bit LCG; all arithmetic stays below 2^53 so any awk
# (mawk, gawk) computes the same values.
awk 'BEGIN {
    x = 12345
    for (i = 1; i <= 5000; i++) {
        x = (x * 69069 + 1) % 4294967296
        y = (x * 69069 + 1) % 4294967296
        printf "%08x %s %d\n", x,
            substr("alphabravocharliedeltaechofoxtrotgolfhotelindiajuliett", 1 + y % 40, 1 + x % 12), i
        x = y
    }
}' > sort.in

awk 'BEGIN {
    x = 4242
    n = split("the of and to in is that for it as with was on be by at this are from or an " \
              "which have not but all can one has more were their been its also some other " \
              "into time only than these when may two new what such most them trace cycle " \
              "address value memory cache predictor stride context table entry", w, " ")
    for (l = 1; l <= 200; l++) {
        s = ""
        m = 6 + l % 11
        for (k = 0; k < m; k++) {
            x = (x * 69069 + 1) % 4294967296
            s = s (k ? " " : "") w[1 + int(x / 65536) % n]
        }
        print s "."
    }
}' > xz.in

cat > small.c <<'EOF'
/* Self-contained input for cc1: no #include, so it does not depend on system headers. */
typedef unsigned long size_t;
struct node { struct node *left, *right; int key; double weight; };

static struct node pool[1024];
static size_t used;

static struct node *insert(struct node *t, int key, double w)
{
    if (!t) {
        struct node *n = &pool[used++ % 1024];
        n->left = n->right = 0; n->key = key; n->weight = w;
        return n;
    }
    if (key < t->key) t->left = insert(t->left, key, w);
    else if (key > t->key) t->right = insert(t->right, key, w);
    else t->weight += w;
    return t;
}

static double sum(const struct node *t)
{
    return t ? t->weight + sum(t->left) + sum(t->right) : 0.0;
}

static unsigned crc32(const unsigned char *p, size_t n)
{
    unsigned c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & -(c & 1u));
    }
    return ~c;
}

static void matmul(int n, const double *a, const double *b, double *c)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int k = 0; k < n; k++)
                s += a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
        }
}

int run(int n, const unsigned char *buf, size_t len)
{
    struct node *root = 0;
    double a[64], b[64], c[64];
    unsigned x = 1;
    for (int i = 0; i < n; i++) {
        x = x * 69069u + 1u;
        root = insert(root, (int)(x >> 20), (double)(x & 0xff) / 7.0);
    }
    for (int i = 0; i < 64; i++) { a[i] = i * 0.5; b[i] = 64 - i; }
    matmul(8, a, b, c);
    switch (crc32(buf, len) & 7) {
    case 0: return (int)sum(root);
    case 1: return (int)c[9];
    case 2: return n * 3;
    case 3: return (int)(len >> 2);
    default: return -1;
    }
}
EOF

# lackey NAME MAXLINES INPUT CMD...: runs CMD < INPUT under lackey into
# NAME.log.zst, keeping at most MAXLINES lines of lackey output (0 = all; with
# a limit the program is killed by SIGPIPE once it is reached, so only use one
# for programs that die on SIGPIPE: xz catches it and keeps running).
# The program runs in / with a cleared environment: valgrind puts PWD=<cwd> into
# the client's environment, so the length of the working directory's name
# would shift every stack address (and change instruction counts).
lackey() {
    local name=$1 max=$2 input=$3 log
    shift 3
    log="$tmp/$name.log.zst"
    echo "tracing $name: $* < $(basename "$input")" >&2
    (
        set +o pipefail
        cd /
        if ((max > 0)); then
            env -i PATH=/usr/bin:/bin LC_ALL=C \
                valgrind --tool=lackey --trace-mem=yes --log-fd=3 "$@" < "$input" 3>&1 >/dev/null |
                head -n "$max" | zstd -q -1 > "$log"
            check_status "lackey $name" "${PIPESTATUS[@]}"
        else
            env -i PATH=/usr/bin:/bin LC_ALL=C \
                valgrind --tool=lackey --trace-mem=yes --log-fd=3 "$@" < "$input" 3>&1 >/dev/null |
                zstd -q -1 > "$log"
            check_status "lackey $name" "${PIPESTATUS[@]}"
        fi
    )
}

lackey_pack() {
    local name=$1 what=$2 how=$3 s
    for s in read write; do
        (
            set +o pipefail
            zstd -dc "$name.log.zst" | ./lackey2d64 "$s" | window "$LACKEY_SKIP" "$name.$s.d64"
            check_status "lackey2d64 $name $s" "${PIPESTATUS[@]}"
        )
        pack "$name.$s.d64" "lackey_${name}_$s.d64.xz" "$what, $s stream" \
            "$how; \`lackey2d64 $s\`, entries [$LACKEY_SKIP, $((LACKEY_SKIP + ENTRIES)))"
        rm -f "$name.$s.d64"
    done
}

lackey xz 0 "$tmp/xz.in" xz -6 -T1 -c
lackey_pack xz "valgrind lackey of \`xz -6 -T1\` compressing 10 KB of generated text" \
    "\`valgrind --tool=lackey --trace-mem=yes xz -6 -T1 -c < xz.in\`"

lackey sort 0 "$tmp/sort.in" sort --parallel=1 -S 8M
lackey_pack sort "valgrind lackey of \`sort\` on 5000 generated lines" \
    "\`valgrind --tool=lackey --trace-mem=yes sort --parallel=1 -S 8M < sort.in\`"

lackey cc1 "$LACKEY_CC1_LINES" "$tmp/small.c" "$cc1" -quiet -O2 - -o /dev/null
lackey_pack cc1 "valgrind lackey of gcc 12 \`cc1 -O2\` (start-up and set-up; run cut short)" \
    "\`valgrind --tool=lackey --trace-mem=yes cc1 -quiet -O2 - -o /dev/null < small.c\`, first $LACKEY_CC1_LINES lackey lines"

# ------------------------------------------------------------------ README.md
# The generated part sits between two marker lines; anything outside them
# (notes on other files in the directory) is kept when this script reruns.
begin='<!-- begin: generated by scripts/make-testdata.sh -->'
end='<!-- end: generated by scripts/make-testdata.sh -->'
{
    echo "$begin"
    echo "Generated by \`scripts/make-testdata.sh\` (run it again to rebuild them; it documents every step)."
    echo "Each file is a raw \`d64\` trace (32-byte little-endian entries: meta, ip, address, data;"
    echo "see \`../shared/corpus/README.md\`) compressed with \`xz -9\`. Decompress with \`xz -dc\`."
    echo "lackey traces carry no values: data is 0 for 8-byte accesses (fullSize=1), else size << 32."
    echo "They were made with valgrind 3.19.0 (lackey), xz 5.4.1, coreutils 9.1 and gcc 12.2.0 on Debian bookworm,"
    echo "under \`env -i PATH=/usr/bin:/bin LC_ALL=C\` in \`/\`, with the generated inputs in the script on stdin."
    echo
    echo "| file | what | entries | how it was made |"
    echo "|---|---|---|---|"
    printf '%s\n' "${readme_rows[@]}"
    echo "$end"
} > "$tmp/block.md"
readme=$out/README.md
if [[ -f $readme ]] && grep -qxF "$begin" "$readme" && grep -qxF "$end" "$readme"; then
    awk -v blk="$tmp/block.md" -v b="$begin" -v e="$end" '
        $0 == b { while ((getline l < blk) > 0) print l; skip = 1; next }
        $0 == e { skip = 0; next }
        !skip' "$readme" > "$tmp/README.md"
elif [[ -f $readme ]]; then
    { cat "$readme"; echo; cat "$tmp/block.md"; } > "$tmp/README.md"
else
    { echo "# Real traces for tests"; echo; cat "$tmp/block.md"; } > "$tmp/README.md"
fi
cp "$tmp/README.md" "$readme"

# ------------------------------------------------------------------ verify
# Every file must decompress to a whole number of 32-byte entries.
total=0
for f in "$out"/*.d64.xz; do
    bytes=$(xz -dc "$f" | wc -c)
    ((bytes % 32 == 0)) || die "$(basename "$f"): $bytes bytes is not a multiple of 32"
    size=$(wc -c < "$f")
    total=$((total + size))
    printf '%-28s %9d entries %10d raw bytes %9d xz bytes\n' "$(basename "$f")" $((bytes / 32)) "$bytes" "$size"
done
printf '%-28s %50d xz bytes\n' total "$total"
