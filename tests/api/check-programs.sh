#!/usr/bin/env bash
# check-programs.sh BUILD ROOT [ALLOWED] - the programs are clients of the
# public API (issue 21): their objects may call only what libsvpc.so
# exports, and cli/ may include no project header outside cli/ and
# include/.
#
# ALLOWED (tests/api/programs-internal.txt) lists the internal uses not yet
# moved behind the public API, one "program symbol" or "include FILE HEADER"
# per line.  The check fails on a use that the list does not hold (a new
# one) and on a line of the list that no program needs any more, so the
# list only shrinks and reaches empty when every program is a pure client.
set -euo pipefail
build=$1 root=$2 allowed=${3:-/dev/null}
exported=$(nm -D --defined-only "$build/libsvpc.so" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort -u)
# every symbol the library defines, internal or not
defined=$(nm --defined-only "$build/libsvpc.a" 2>/dev/null | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort -u)
internal=$(comm -23 <(echo "$defined") <(echo "$exported"))

# the objects of each program, as the Makefile links them
objs_of() {
    local o="$build/cli/${1//-/_}.o $build/cli/cli_util.o"
    case $1 in
    svpc-compress | svpc-decompress) o+=" $build/cli/cli_decompress.o" ;;
    simtrace-cat) o+=" $build/cli/cat_merge.o $build/cli/cat_stats.o" ;;
    esac
    echo "$o"
}

found=$(
    for p in svpc-compress svpc-decompress simtrace-pack simtrace-cat; do
        # shellcheck disable=SC2046
        nm -u $(objs_of "$p") | awk '{print $2}' | sort -u | comm -12 - <(echo "$internal") | sed "s/^/$p /"
    done
    for f in "$root"/cli/*.[ch]; do
        sed -n 's/^#include "\(.*\)"/\1/p' "$f" | while read -r h; do
            case $h in
            ../include/* | [!.]*) ;; # include/ or cli/ itself
            *) echo "include cli/$(basename "$f") $h" ;;
            esac
        done
    done | sort -u
)
want=$(grep -v '^#' "$allowed" | grep . | sort -u || true)
new=$(comm -23 <(echo "$found" | grep . | sort -u) <(echo "$want") || true)
gone=$(comm -13 <(echo "$found" | grep . | sort -u) <(echo "$want") || true)
status=0
if [[ -n $new ]]; then
    echo "check-programs: the programs use the library's internals beyond $allowed (use the public API):" >&2
    echo "$new" | sed 's/^/  /' >&2
    status=1
fi
if [[ -n $gone ]]; then
    echo "check-programs: no longer used, remove from $allowed:" >&2
    echo "$gone" | sed 's/^/  /' >&2
    status=1
fi
if ((status == 0)); then
    n=$(echo "$found" | grep -c . || true)
    echo "check-programs: the programs use $n internal symbols and headers, all listed in $(basename "$allowed")"
fi
exit $status
