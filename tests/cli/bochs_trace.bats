#!/usr/bin/env bats
# scripts/bochs-trace: a short real Bochs run (300,000 instructions of the
# BIOS POST, about 40 MB of debugger log) packed into a container, checked
# with simtrace-cat; and its usage errors.  Skips when simtrace-pack is not
# built or Bochs is not installed.  Runs Bochs once (the first test); the
# container is shared through $BATS_FILE_TMPDIR.

load helpers

TRACE="$ROOT/scripts/bochs-trace"
PACK="$SVPC_BIN/simtrace-pack"
CAT="$SVPC_BIN/simtrace-cat"

need_tools() {
    [[ -x $PACK && -x $CAT ]] || skip "simtrace-pack/simtrace-cat not built in $SVPC_BIN (run 'make all')"
    command -v bochs >/dev/null 2>&1 && [[ -r /usr/share/bochs/BIOS-bochs-latest ]] ||
        skip "Bochs not installed (apt-get install bochs bochs-term bochsbios vgabios, or make deps)"
}

setup() {
    export BOCHS_TRACE_PACK="$PACK" # the simtrace-pack under test
    T="$BATS_TEST_TMPDIR"
    cd "$T" || return 1
}

# the container of the one Bochs run, made by the first test that needs it
C="$BATS_FILE_TMPDIR/post.sim"
post_container() {
    if [[ ! -s $C ]]; then
        run "$TRACE" --instructions 300000 -v -o "$C"
        expect_status 0 || return 1
    fi
}

@test "bochs-trace --instructions 300000: a valid container of the BIOS POST" {
    need_tools
    post_container
    run "$CAT" -t "$C"
    expect_status 0
    run "$CAT" -l "$C"
    expect_status 0
    expect_output_has "cpu0.read"
    expect_output_has "cpu0.write"
    # 300,000 instructions of the POST make about 87,000 reads and writes each
    local n
    n=$(awk '$1 == "cpu0.read" { print $3 }' <<<"$output")
    [[ $n -gt 50000 ]] || fail "cpu0.read has $n entries; listing: $output"
    n=$(awk '$1 == "cpu0.write" { print $3 }' <<<"$output")
    [[ $n -gt 50000 ]] || fail "cpu0.write has $n entries; listing: $output"
}

@test "bochs-trace: entries field by field (the POST's first write and read)" {
    need_tools
    post_container
    # "(0).[25] ... f000:e0af: mov byte ptr ds:0x04b0, bl" writes 1 byte 0x00
    run "$CAT" -s cpu0.write -F text --entries 0:1 "$C"
    expect_status 0
    expect_output_has "0 25 0xe0af 0x4b0 1 0x0"
    # cycles never decrease within a stream, and stay within the run
    run bash -c "'$CAT' -s cpu0.read -F text '$C' | awk 'NR > 1 { if (\$2 < last || \$2 > 300000) { print \"bad cycle: \" \$0; exit 1 } last = \$2 } END { print NR - 1 }'"
    expect_status 0
}

@test "bochs-trace to standard output equals -o (the run is repeatable)" {
    need_tools
    run bash -c "'$TRACE' --instructions 2000 > out.sim"
    expect_status 0
    run "$TRACE" --instructions 2000 -o o.sim
    expect_status 0
    same out.sim o.sim
}

@test "bochs-trace: usage errors exit 2" {
    run "$TRACE" --instructions 0 -o x.sim
    expect_status 2
    expect_output_has "--instructions"
    run "$TRACE" --bogus
    expect_status 2
    run "$TRACE" --workload nope -o x.sim
    expect_status 2
    run "$TRACE" --iso /nonexistent.iso -o x.sim
    expect_status 2
    run "$TRACE" --iso /dev/null --workload grub -o x.sim
    expect_status 2
    [[ ! -e x.sim ]]
    run "$TRACE" --help
    expect_status 0
    expect_output_has "Usage: bochs-trace"
}

@test "bochs-trace: refuses a terminal as output" {
    command -v script >/dev/null || skip "script (util-linux) not installed"
    run script -qec "'$TRACE' --instructions 10" /dev/null </dev/null
    expect_status 2
    expect_output_has "terminal"
}

@test "bochs-trace: no temporary files or processes left behind" {
    need_tools
    local before after
    before=$(ls -d "${TMPDIR:-/tmp}"/bochs-trace.* 2>/dev/null | wc -l)
    run "$TRACE" --instructions 1000 -o small.sim
    expect_status 0
    after=$(ls -d "${TMPDIR:-/tmp}"/bochs-trace.* 2>/dev/null | wc -l)
    [[ $after -le $before ]] || fail "temporary directories left: $after (before: $before)"
}

@test "bochs-trace: SIGINT mid-run finishes a valid container of what was traced, exit 130, and says so" {
    need_tools
    # (a background job of a script starts with SIGINT ignored; env gives
    # it back its default, as in a terminal)
    env --default-signal=INT "$TRACE" --instructions 50000000 -o int.sim 2>err &
    local pid=$! i
    # wait until Bochs runs and has traced for a while
    for i in $(seq 100); do
        pgrep -f "bochs.*$T" >/dev/null 2>&1 && break
        pgrep -P "$pid" >/dev/null 2>&1 && [[ $i -gt 20 ]] && break
        sleep 0.2
    done
    sleep 4
    kill -INT "$pid"
    local rc=0
    wait "$pid" || rc=$?
    [[ $rc -eq 130 ]] || fail "exit status $rc, expected 130; said: $(cat err)"
    grep -q "bochs-trace: interrupted by SIGINT: int.sim is a complete container of [0-9]* entries" err ||
        fail "no message of the container kept; said: $(cat err)"
    run "$CAT" --verify int.sim
    expect_status 0
    run "$CAT" -l int.sim
    expect_status 0
    expect_output_has "cpu0.read"
}
