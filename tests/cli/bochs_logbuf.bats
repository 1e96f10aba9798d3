#!/usr/bin/env bats
# scripts/bochs-logbuf.c, which bochs-trace preloads into Bochs: seen from
# inside a test program run under Bochs's name (build/tests/logbuf/bochs-bin,
# tests/tools/logbuf_probe.c), it holds the debugger log's and standard
# output's flushes, writes them out when standard input is read, at exit and
# on a crash, and leaves other files, and programs of other names, alone;
# and bochs-trace writes the same container with it as without it.

load helpers

LOGBUF="$ROOT/build/bochs-logbuf.so" # bochs-trace's, built without sanitizers
PROBE="$ROOT/build/tests/logbuf/bochs-bin"
TRACE="$ROOT/scripts/bochs-trace"

setup() {
    [[ -r $LOGBUF && -x $PROBE ]] || fail "$LOGBUF or $PROBE not built (make cli-test builds them)"
    T="$BATS_TEST_TMPDIR"
    cd "$T" || return 1
}

# probe PROGRAM [ARG]: PROGRAM L O [ARG] with the library, L as the log,
# standard output to S, "q" on standard input; $output its reports
probe() {
    run bash -c "echo q | LD_PRELOAD='$LOGBUF' BOCHS_LOGBUF_LOG=L BOCHS_LOGBUF_STDOUT=1 '$1' L O ${2:-} >S"
}

@test "bochs-logbuf: the log's and standard output's flushes held until input is read, then at exit" {
    probe "$PROBE"
    expect_status 0
    # line one (15 bytes) held, OTHER's (6) written, standard output's (7) held
    expect_output_has "flushed 0 6 0"
    expect_output_has "read 15 6 7"
    # line two held again until the exit
    expect_output_has "second 15 6 7"
    [[ $(cat L) == $'trace line one\ntrace line two' ]] || fail "L: $(cat L)"
    [[ $(cat S) == stdout ]] || fail "S: $(cat S)"
}

@test "bochs-logbuf: a crash still writes out what was held" {
    probe "$PROBE" crash
    expect_status 139
    expect_output_has "second 15 6 7"
    [[ $(cat L) == $'trace line one\ntrace line two' ]] || fail "L: $(cat L)"
}

@test "bochs-logbuf: no effect without BOCHS_LOGBUF_LOG, or in a program of another name" {
    run bash -c "echo q | LD_PRELOAD='$LOGBUF' '$PROBE' L O >S"
    expect_status 0
    expect_output_has "flushed 15 6 7"
    cp "$PROBE" other-program
    probe ./other-program
    expect_status 0
    expect_output_has "flushed 15 6 7"
    expect_output_has "second 30 6 7"
}

@test "bochs-trace: the same container with Bochs's output buffered and without (BOCHS_TRACE_LOGBUF=0)" {
    command -v bochs >/dev/null 2>&1 && [[ -r /usr/share/bochs/BIOS-bochs-latest ]] ||
        skip "Bochs not installed (apt-get install bochs bochs-term bochsbios vgabios, or make deps)"
    export BOCHS_TRACE_PACK="$SVPC_BIN/simtrace-pack"
    # the BIOS's first 100,000 instructions; -v reads Bochs's standard output
    run "$TRACE" --instructions 100000 -v -o buf.sim
    expect_status 0
    # -v's counts of instructions and accesses, from the last progress line
    local counts
    counts=$(grep -o '[0-9]* instructions, [0-9]* accesses' <<<"$output" | tail -n 1)
    [[ -n $counts ]] || fail "no counts in: $output"
    BOCHS_TRACE_LOGBUF=0 run "$TRACE" --instructions 100000 -v -o unbuf.sim
    expect_status 0
    cmp buf.sim unbuf.sim || fail "the containers differ"
    expect_output_has "$counts"
}
