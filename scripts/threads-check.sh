#!/usr/bin/env bash
# threads-check.sh - exercise the threaded paths of binaries built with
# ThreadSanitizer.
#
# Usage: SVPC_BIN=/abs/path/to/build-tsan scripts/threads-check.sh
#        (what `make check` runs after building build-tsan/)
#
# Compresses a ~2 MB input with -T1, -T2 and -T4 and --frame-size 5000 (many
# frames in flight), decompresses with -T4 and -T1, and checks that every
# container is identical and every output equals the input.  A TSan report
# makes a program exit with status 66 (TSAN_OPTIONS below), which fails the
# step.  Prints one line per step and "threads-check: N passed, M failed".
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SVPC_BIN="${SVPC_BIN:-$ROOT/build-tsan}"
COMPRESS="$SVPC_BIN/svpc-compress"
DECOMPRESS="$SVPC_BIN/svpc-decompress"
PACK="$SVPC_BIN/simtrace-pack"
CAT="$SVPC_BIN/simtrace-cat"
export TSAN_OPTIONS="halt_on_error=1:exitcode=66${TSAN_OPTIONS:+:$TSAN_OPTIONS}"

passed=0
failed=0

if [[ ! -x $COMPRESS || ! -x $DECOMPRESS ]]; then
    echo "threads-check: svpc binaries not found in $SVPC_BIN (make tsan)" >&2
    echo "threads-check: 0 passed, 1 failed"
    exit 1
fi

TMP="$(mktemp -d /tmp/svpc-threads.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

# step NAME CMD...: run CMD (stderr to a log), report, count.
step() {
    local name=$1 rc
    shift
    "$@" 2>"$TMP/step.log"
    rc=$?
    if ((rc == 0)); then
        echo "ok    $name"
        passed=$((passed + 1))
    else
        if ((rc == 66)); then
            echo "FAIL  $name: ThreadSanitizer report (exit 66)"
        else
            echo "FAIL  $name: exit $rc"
        fi
        sed 's/^/      | /' "$TMP/step.log" | head -n 60
        failed=$((failed + 1))
    fi
}

# the input: ~2 MB of real trace entries (testdata, else the corpus), else
# random entries
make_input() {
    local f src=""
    for f in "$ROOT"/testdata/good/*.d64.xz; do
        [[ -f $f ]] && { src=$f; break; }
    done
    if [[ -n $src ]]; then
        { xz -dc -- "$src" 2>/dev/null || true; } | head -c 2097152 >"$TMP/in"
    else
        for f in "$ROOT"/../shared/corpus/*.d64.zst; do
            [[ -f $f ]] && { src=$f; break; }
        done
        if [[ -n $src ]]; then
            { zstd -dc -q -- "$src" 2>/dev/null || true; } | head -c 2097152 >"$TMP/in"
        fi
    fi
    local n
    n=$(stat -c %s "$TMP/in" 2>/dev/null || echo 0)
    if ((n < 32)); then
        src="random bytes"
        head -c 2097152 /dev/urandom >"$TMP/in"
        n=2097152
    fi
    truncate -s $((n / 32 * 32)) "$TMP/in"
    echo "threads-check: input $(stat -c %s "$TMP/in") bytes from ${src#"$ROOT"/}"
}
make_input

cd "$TMP" || exit 1
for t in 1 2 4; do
    step "compress -T$t --frame-size 5000" "$COMPRESS" -T"$t" --frame-size 5000 -o "c.T$t" in
done
step "containers -T1 = -T2" cmp c.T1 c.T2
step "containers -T1 = -T4" cmp c.T1 c.T4
step "compress -T4 --frame-size 5000 -e paper -s zlib" "$COMPRESS" -T4 --frame-size 5000 -e paper -s zlib -o p.T4 in
step "compress -T1 --frame-size 5000 -e paper -s zlib" "$COMPRESS" -T1 --frame-size 5000 -e paper -s zlib -o p.T1 in
step "containers (paper) -T1 = -T4" cmp p.T1 p.T4
step "decompress -T4" "$DECOMPRESS" -T4 -o d.T4 c.T4
step "decompress -T1" "$DECOMPRESS" -T1 -o d.T1 c.T1
step "decompress -T4 (paper, through a pipe)" sh -c '"$1" -T4 < p.T4 > dp.T4' sh "$DECOMPRESS"
step "round trip exact (-T4)" cmp in d.T4
step "round trip exact (-T1)" cmp in d.T1
step "round trip exact (paper, -T4)" cmp in dp.T4
step "decompress -t -T4" "$DECOMPRESS" -t -T4 c.T2
# a damaged container: the threaded reader must stop cleanly (exit 1, no race)
head -c $(($(stat -c %s c.T1) * 2 / 3)) c.T1 >cut.svpc
step "cut-off container: exit 1, no race" sh -c '"$1" -T4 cut.svpc > dcut; test $? -eq 1' sh "$DECOMPRESS"
step "cut-off container: output is a prefix" sh -c 'cmp -n "$(stat -c %s dcut)" dcut in'
# a range of many frames through the directory: decoded on -T threads
step "pack --frame-size 5000" "$PACK" -T2 --frame-size 5000 -o r.sim in
step "range -T4" sh -c '"$1" -T4 --entries 1234:50000 r.sim > r.T4' sh "$CAT"
step "range -T1" sh -c '"$1" -T1 --entries 1234:50000 r.sim > r.T1' sh "$CAT"
step "range -T1 = -T4" cmp r.T1 r.T4
step "range -T4 of a cut container: exit 1, no race" \
    sh -c 'head -c $(($(stat -c %s r.sim) / 2)) r.sim > rcut.sim; "$1" -T4 --entries 1234:50000 rcut.sim > rc.T4; test $? -eq 1' sh "$CAT"

echo "threads-check: $passed passed, $failed failed"
((failed == 0))
