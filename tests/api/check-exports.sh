#!/usr/bin/env bash
# check-exports.sh LIB HEADER - libsvpc.so exports exactly the calls that
# HEADER marks SIMTRACE_API: no internal symbol (st_*, svpc_*...) leaks,
# and no call of the header is missing.
set -euo pipefail
lib=$1 header=$2
declared=$(grep -A3 '^SIMTRACE_API' "$header" | grep -o 'simtrace_[a-z0-9_]*(' | tr -d '(' | sort -u)
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort -u)
if [ "$declared" != "$exported" ]; then
    echo "check-exports: $lib exports other symbols than $header declares:" >&2
    diff <(echo "$declared") <(echo "$exported") | sed 's/^</  declared only:/; s/^>/  exported only:/' | grep ':' >&2
    exit 1
fi
echo "check-exports: $lib exports the $(echo "$exported" | wc -l) calls of $(basename "$header") and nothing else"
