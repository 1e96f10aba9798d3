#!/usr/bin/env bats
# scripts/bochs-trace --workload linux: Debian's kernel boots untraced in
# Bochs, a busybox initramfs runs one command between two markers, and
# only the command is traced; once on one CPU with the address-space split,
# once on two CPUs.  Each run takes two to four minutes here (most of it
# the untraced boot), so they run in the plain pass of `make check` only,
# not again with the sanitized binaries.  Every run has a limit of Bochs's
# CPU time (LINUX_CPU_LIMIT seconds, about five times what the two-CPU run
# takes; a loaded machine makes the run slower, not costlier): a guest
# that does not reach its command fails the test with a message and the
# end of its serial console instead of holding `make check` for ever.
# (timeout's wall-clock limit only guards against bochs-trace itself not
# ending.)  Skips when
# Bochs, the kernel, busybox-static, cpio or GRUB's tools are not
# installed.

load helpers

TRACE="$ROOT/scripts/bochs-trace"
LINUX_CPU_LIMIT=1200
PACK="$SVPC_BIN/simtrace-pack"
CAT="$SVPC_BIN/simtrace-cat"

need_linux() {
    [[ -x $PACK && -x $CAT ]] || skip "simtrace-pack/simtrace-cat not built in $SVPC_BIN (run 'make all')"
    [[ $SANITIZED == 1 ]] && skip "the linux workload runs in the plain pass only (Bochs dominates its time)"
    command -v bochs >/dev/null 2>&1 && [[ -r /usr/share/bochs/BIOS-bochs-latest ]] ||
        skip "Bochs not installed (apt-get install bochs bochs-term bochsbios vgabios, or make deps)"
    compgen -G '/boot/vmlinuz-*' >/dev/null && [[ -x /bin/busybox ]] && command -v cpio >/dev/null 2>&1 ||
        skip "no Debian kernel, busybox or cpio (apt-get install linux-image-amd64 busybox-static cpio, or make deps)"
    ! LC_ALL=C readelf -l /bin/busybox 2>/dev/null | grep -q INTERP ||
        skip "/bin/busybox is not the static build (apt-get install busybox-static)"
    command -v grub-mkimage >/dev/null 2>&1 && command -v xorriso >/dev/null 2>&1 ||
        skip "GRUB's ISO tools not installed (apt-get install grub-pc-bin grub-common xorriso)"
}

# linux_trace ARGS...: bochs-trace --workload linux ARGS within the limit
linux_trace() {
    timeout -k 30 7200 "$TRACE" --workload linux --cpu-limit "$LINUX_CPU_LIMIT" "$@"
}

setup() {
    export BOCHS_TRACE_PACK="$PACK"
    T="$BATS_TEST_TMPDIR"
    cd "$T" || return 1
}

# events FILE STREAM: "cycle kind ip vector" per event
events() {
    "$CAT" -q -s "$2" "$1" | od -A n -v -t u8 -w24 |
        awk '{ printf "%.0f %d %.0f %.0f\n", $1 % 281474976710656, int($1 / 281474976710656), $2, $3 % 4294967296 }'
}

# in_window FILE START END: every memory stream's cycles lie in START..END;
# except the accesses a CPU makes before its first traced instruction (an
# idle CPU that takes an interrupt reads the IDT first), which the importer
# gives cycle 0 and ip 0 (formats/IMPORT.md 13, "What is lossy")
in_window() {
    local s bad
    for s in $("$CAT" -q -l "$1" | awk 'NR > 1 && $2 == "d64" { print $1 }'); do
        bad=$("$CAT" -s "$s" -F text "$1" | awk -v a="$2" -v b="$3" 'NR == 1 { lead = 1; next }
            lead && $2 == 0 && $3 == "0x0" { next }
            { lead = 0 } $2 < a || $2 > b { print; exit }')
        [[ -z $bad ]] || fail "$s: entry outside the markers' window $2..$3: $bad"
    done
}

@test "bochs-trace --workload linux: only the command is traced, between its two markers; --split-by cr3" {
    need_linux
    run linux_trace --run 'echo svpc-$((6*7))' --split-by cr3 -v -o lx.sim
    expect_status 0
    # the command ran in the guest (its output is on the serial console)
    expect_output_has "svpc-42"
    expect_output_has "first marker at instruction"
    run "$CAT" -t lx.sim
    expect_status 0
    run events lx.sim cpu0.events
    expect_status 0
    local m
    m=$(awk '$2 == 3' <<<"$output")
    [[ $(wc -l <<<"$m") == 2 ]] || fail "markers: $m"
    local c0 c1
    c0=$(awk 'NR == 1 && $4 == 0 { print $1 }' <<<"$m")
    c1=$(awk 'NR == 2 && $4 == 1 { print $1 }' <<<"$m")
    [[ -n $c0 && -n $c1 && $c1 -gt $c0 ]] || fail "markers: $m"
    # both markers resume in the marker program, at 0x400000 + 120 + 3
    [[ $(awk '{ print $3 }' <<<"$m" | sort -u) == $((0x40007b)) ]] || fail "marker ips: $m"
    in_window lx.sim "$c0" "$c1"
    # several address spaces (the marker's, the shell's...), each with
    # user-space accesses of its own
    run "$CAT" -q -l lx.sim
    local spaces
    spaces=$(awk '$1 ~ /^cpu0\.cr3-[0-9a-f]+\.read$/ && $3 > 0' <<<"$output" | wc -l)
    ((spaces >= 2)) || fail "address spaces: $output"
    local user=0 s
    for s in $(awk '$1 ~ /^cpu0\.cr3-[0-9a-f]+\.read$/ { print $1 }' <<<"$output"); do
        # user space is below 0x800000000000: at most 12 hex digits
        "$CAT" -s "$s" -F text lx.sim | awk 'NR > 1 && length($4) <= 14 { f = 1 } END { exit !f }' &&
            user=$((user + 1))
    done
    ((user >= 2)) || fail "only $user address spaces with user-space reads"
}

@test "bochs-trace --workload linux --cpus 2: streams of both CPUs, within the markers" {
    need_linux
    run linux_trace --cpus 2 --run 'echo svpc-smp; cat /sys/devices/system/cpu/online' -v -o smp.sim
    expect_status 0
    expect_output_has "svpc-smp"
    # the guest saw two CPUs
    expect_output_has "0-1"
    run "$CAT" -t smp.sim
    expect_status 0
    run "$CAT" -q -l smp.sim
    local n0 n1
    n0=$(awk '$1 ~ /^cpu0\.(read|write)$/ { n += $3 } END { print n + 0 }' <<<"$output")
    n1=$(awk '$1 ~ /^cpu1\.(read|write)$/ { n += $3 } END { print n + 0 }' <<<"$output")
    ((n0 > 1000 && n1 > 1000)) || fail "accesses: cpu0 $n0, cpu1 $n1; listing: $output"
    # two markers in all, on whichever CPU ran the marker program
    local m
    m=$({ events smp.sim cpu0.events; events smp.sim cpu1.events 2>/dev/null; } | awk '$2 == 3' | sort -n)
    [[ $(wc -l <<<"$m") == 2 ]] || fail "markers: $m"
    in_window smp.sim "$(awk 'NR == 1 { print $1 }' <<<"$m")" "$(awk 'NR == 2 { printf "%.0f", $1 + 1 }' <<<"$m")"
}

@test "bochs-trace --workload linux --jobs 2: a first pass finds the markers; every stream, events included, entry for entry that of --jobs 1" {
    need_linux
    run linux_trace --run 'echo svpc-jobs' -o one.sim
    expect_status 0
    run linux_trace --run 'echo svpc-jobs' --jobs 2 -v -o two.sim
    expect_status 0
    expect_output_has "bochs-trace: first pass: 2 markers, 1 marked ranges of "
    expect_output_has "svpc-jobs"
    run "$CAT" -t two.sim
    expect_status 0
    # raw bytes of every stream; the events hold the timer's interrupts
    # between the two markers, so the markers' places among them count
    local names s n=0
    names=$({ "$CAT" -q -l one.sim; "$CAT" -q -l two.sim; } | awk 'NR > 1 && $1 != "stream" { print $1 }' | sort -u)
    for s in $names; do
        "$CAT" -q -s "$s" one.sim >a.part 2>/dev/null || : >a.part
        "$CAT" -q -s "$s" two.sim >b.part 2>/dev/null || : >b.part
        cmp a.part b.part || fail "stream $s differs"
        n=$((n + 1))
    done
    ((n >= 3)) || fail "only $n streams compared: $names"
    run events two.sim cpu0.events
    [[ $(awk '$2 == 3' <<<"$output" | wc -l) == 2 && $(awk '$2 != 3' <<<"$output" | wc -l) -ge 1 ]] ||
        fail "events: $output"
}
