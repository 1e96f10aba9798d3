#!/usr/bin/env bash
# make-bochs-sample.sh - rebuild testdata/good/sample.bochs.xz: a real Bochs
# 2.7 debugger log (trace on + trace-mem on) of seven short windows of the
# BIOS POST of Debian's BIOS-bochs-latest, chosen so that every line kind
# occurs: the reset code, the switch to protected mode (len=8 descriptor
# reads), locked read-modify-writes (RW lines and their physical-only WR
# lines), the SMI handler (physical-only SMRAM lines), the video BIOS
# (interrupts) and an idle wait (HALTED).  Between windows the debugger
# steps untraced.  The RTC start time is fixed, so the log is reproducible.
#
# Usage: scripts/make-bochs-sample.sh [OUT]   (default testdata/good/sample.bochs.xz)
# Needs: bochs bochs-term bochsbios vgabios xz-utils.
set -euo pipefail
out=${1:-"$(cd "$(dirname "$0")/.." && pwd)/testdata/good/sample.bochs.xz"}
command -v bochs >/dev/null || { echo "make-bochs-sample.sh: bochs not installed (apt-get install bochs bochs-term bochsbios vgabios)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/bochsrc" <<RC
display_library: term
megs: 32
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/vgabios/vgabios.bin
clock: sync=none, time0=946684800
debugger_log: $tmp/sample.bochs
log: $tmp/bochs.out
RC
# window: "untraced-steps traced-steps"; they start at instruction
# 0, 320300, 443020, 487150, 608090 and 852240.
{
    prev=0
    for w in "0 2000" "318300 900" "121820 600" "43530 20" "120920 120" "244030 100"; do
        set -- $w
        if (($1 > 0)); then echo "s $1"; fi
        printf 'trace-mem on\ntrace on\ns %s\ntrace off\ntrace-mem off\n' "$2"
    done
    echo q
} >"$tmp/cmds"
(cd "$tmp" && TERM=dumb bochs -q -f bochsrc -rc cmds </dev/null >/dev/null 2>&1) || true
[[ -s $tmp/sample.bochs ]] || { echo "make-bochs-sample.sh: bochs wrote no log (see $tmp/bochs.out)" >&2; exit 1; }
xz -9 -c "$tmp/sample.bochs" >"$out"
echo "$out: $(wc -l <"$tmp/sample.bochs") lines, $(stat -c %s "$tmp/sample.bochs") bytes before xz"
