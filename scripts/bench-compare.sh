#!/usr/bin/env bash
# bench-compare.sh - what moved between two runs of `make bench`
#
# Usage: scripts/bench-compare.sh OLD.tsv NEW.tsv [PERCENT]
#
# OLD.tsv and NEW.tsv are build/bench.tsv files (section, trace, figure,
# value).  Prints every figure whose value moved by at least PERCENT
# (default 1) or whose text changed (the targets' verdicts), with the change
# and whether it is better or worse, then the figures found in one run only.
# Sizes are exact; speeds and times vary between runs on a shared machine
# (by up to 2x in absolute terms): compare the ratios (x_vs_gzip,
# x_vs_reference, T2_vs_T1), which are measured within one run.
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 || $1 == -h || $1 == --help ]]; then
    sed -n '2,12s/^# \{0,1\}//p' "$0"
    exit 2
fi
for f in "$1" "$2"; do
    [[ -r $f ]] || { echo "bench-compare.sh: cannot read $f" >&2; exit 2; }
done
threshold=${3:-1}

awk -F '\t' -v thr="$threshold" '
function num(v) { return v ~ /^[-+]?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ }
# +1: higher is better, -1: lower is better, 0: neither
function sense(sec, fig) {
    if (fig ~ /^(gzip6|gunzip)_/ || fig ~ /^(entries|frames)$/) return 0
    if (fig ~ /size_vs|bytes|bits_per_entry|_s$|MiB|_pct|overhead/) return -1
    if (fig ~ /MBps|_vs_gzip|_vs_reference|T2_vs_T1/) return 1
    return 0
}
FNR == 1 { f++ }
/^#/ { w = (f == 1) ? "old" : "new"; hdr[w] = hdr[w] w ": " substr($0, 3) "\n" }
/^#/ || $1 == "section" { next }
f == 1 { k = $1 FS $2 FS $3; old[k] = $4; if (!(k in seen)) { seen[k] = 1; order[++n] = k }; next }
{ k = $1 FS $2 FS $3; new[k] = $4; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
END {
    printf "%s%s", hdr["old"], hdr["new"]
    so = hdr["old"]; sn = hdr["new"]
    sub(/^.*parts:/, "", so); sub(/^.*parts:/, "", sn)
    if (so != sn) print "note: the runs differ in parts, traces or runs: the ALL and target rows cover different traces"
    printf "figures that moved by at least %s%% (or changed text):\n", thr
    printf "%-10s %-22s %-30s %14s %14s %9s  %s\n", "section", "trace", "figure", "old", "new", "change", ""
    moved = 0
    for (i = 1; i <= n; i++) {
        k = order[i]
        if (!(k in old) || !(k in new)) continue
        split(k, p, FS)
        a = old[k]; b = new[k]
        if (num(a) && num(b)) {
            if (a + 0 == b + 0) continue
            ch = (a + 0 != 0) ? 100 * (b - a) / (a < 0 ? -a : a) : 100
            if ((ch < 0 ? -ch : ch) < thr) continue
            s = sense(p[1], p[3])
            w = (s == 0) ? "" : ((b - a) * s > 0 ? "better" : "worse")
            printf "%-10s %-22s %-30s %14s %14s %+8.1f%%  %s\n", p[1], p[2], p[3], a, b, ch, w
        } else if (a != b) {
            w = ""
            if (p[3] == "verdict") w = (b == "met") ? "better" : (a == "met" ? "worse" : "")
            printf "%-10s %-22s %-30s %14s %14s %9s  %s\n", p[1], p[2], p[3], a, b, "", w
        } else continue
        moved++
    }
    if (!moved) print "  (none)"
    only = 0
    for (i = 1; i <= n; i++) {
        k = order[i]
        if ((k in old) && (k in new)) continue
        only++
        split(k, p, FS)
        g = ((k in old) ? "old" : "new") " " p[1]
        if (!(g in cnt)) gorder[++ng] = g
        cnt[g]++
        if (index(" " tr[g] " ", " " p[2] " ") == 0) tr[g] = tr[g] (tr[g] == "" ? "" : " ") p[2]
        line[only] = sprintf("  %-6s %-10s %-22s %-30s %s", (k in old) ? "old" : "new", p[1], p[2], p[3], (k in old) ? old[k] : new[k])
    }
    if (only) print "figures in one run only:"
    if (only <= 20) for (i = 1; i <= only; i++) print line[i]
    else for (i = 1; i <= ng; i++) printf "  %-14s %4d figures: %s\n", gorder[i], cnt[gorder[i]], tr[gorder[i]]
}' "$1" "$2"
