#!/usr/bin/env bats
# simtrace-pack when writing fails or it is stopped: a full disk, a reader
# that goes away, SIGINT/SIGTERM while writing -o FILE (no output and no
# temporary file left, the input untouched), and SIGINT during --append
# (the container is left without directory and simtrace-cat --salvage
# recovers every complete frame).  The svpc-compress counterparts are in
# usage.bats.

load helpers

PACK="$SVPC_BIN/simtrace-pack"
CAT="$SVPC_BIN/simtrace-cat"

setup() {
    common_setup
    [[ -x $PACK && -x $CAT ]] || fail "no simtrace-pack/simtrace-cat in $SVPC_BIN"
}

# slow_feed FILE CHUNK DELAY FIFO: write FILE into FIFO, CHUNK bytes at a
# time with DELAY seconds between chunks (ends quietly when the reader goes).
slow_feed() {
    exec perl -e '
        use strict; use warnings; use Time::HiRes qw(sleep); use POSIX ();
        my ($f, $chunk, $delay, $fifo) = @ARGV;
        $SIG{PIPE} = "IGNORE";
        open(my $in, "<:raw", $f) or die "$f: $!\n";
        open(my $out, ">:raw", $fifo) or die "$fifo: $!\n";
        select($out); $| = 1;
        while (read($in, my $b, $chunk)) { print $out $b or POSIX::_exit(0); sleep($delay); }
        close($out) or POSIX::_exit(0);
    ' "$@"
}

# with_default_signals CMD...: run CMD with SIGINT and SIGTERM at their
# default disposition (a shell's background jobs start with SIGINT ignored).
# Both helpers exec, so that `helper ... &` gives the program's own pid.
with_default_signals() {
    exec perl -e '$SIG{INT} = "DEFAULT"; $SIG{TERM} = "DEFAULT"; exec @ARGV or die "exec: $!\n"' "$@"
}

# wait_for COND_CMD...: poll (up to 30 s) until the command succeeds.
wait_for() {
    local i
    for ((i = 0; i < 300; i++)); do
        "$@" && return 0
        sleep 0.1
    done
    fail "timed out waiting for: $*"
}

have_tmp() { [[ -n $(leftovers . out.sim) ]]; }
grown() { (($(size "$1") > $2)); }

@test "simtrace-pack to /dev/full: exit 1, the program's name and the system's reason" {
    real_d64 20000 in
    run sh -c "'$PACK' -T1 in > /dev/full"
    expect_status 1
    expect_prefix simtrace-pack
    expect_output_has "No space left on device"
    run "$PACK" -T1 -f -o /dev/full in
    expect_status 1
    expect_prefix simtrace-pack
    expect_output_has "No space left on device"
    # --concat as well
    "$PACK" -T1 --frame-size 1000 in >c.sim
    run sh -c "'$PACK' --concat c.sim > /dev/full"
    expect_status 1
    expect_prefix simtrace-pack
    expect_output_has "No space left on device"
}

@test "simtrace-pack into a pipe whose reader goes away: non-zero exit with a message, no hang" {
    rand_bytes 4000000 in
    # stored, not compressed: the output outgrows the pipe buffer after head exits
    run timeout 60 bash -c "'$PACK' -T1 -e generic -s none in | head -c 100 > /dev/null; exit \${PIPESTATUS[0]}"
    [[ $status -ne 124 ]] || fail "simtrace-pack hung"
    [[ $status -ne 0 ]] || fail "exit 0 after its reader went away"
    [[ $status -lt 128 ]] || fail "killed by signal $((status - 128)) without a message"
    expect_prefix simtrace-pack
    expect_output_has "Broken pipe"
}

# interrupt_pack SIGNAL: simtrace-pack -o out.sim reading a FIFO fed slowly,
# stopped with SIGNAL once its temporary output exists.
interrupt_pack() {
    local sig=$1 pid feeder st
    real_d64 60000 in
    cp in in.orig
    mkfifo fifo
    slow_feed in 32000 0.05 fifo &
    feeder=$!
    with_default_signals "$PACK" -T1 --frame-size 1000 -s none -o out.sim fifo 2>err &
    pid=$!
    wait_for have_tmp
    wait_for grown "$(leftovers . out.sim | head -n 1)" 2000
    kill "-$sig" "$pid"
    st=0
    wait "$pid" || st=$?
    kill "$feeder" 2>/dev/null || true
    wait "$feeder" || true
    [[ $st -eq $((128 + $(kill -l "$sig"))) ]] || fail "exit $st after SIG$sig (want death by the signal): $(cat err)"
    [[ -z $(leftovers . out.sim) ]] || fail "left behind: $(leftovers . out.sim)"
    same in in.orig
}

@test "SIGINT during simtrace-pack -o FILE: no output, no temporary file, input untouched" {
    interrupt_pack INT
}

@test "SIGTERM during simtrace-pack -o FILE: no output, no temporary file, input untouched" {
    interrupt_pack TERM
}

# entries_in_complete_frames FILE: entries of the data frames that lie
# wholly in FILE (walking the frame headers from the file header).
entries_in_complete_frames() {
    perl -e '
        use strict; use warnings;
        open(my $fh, "<:raw", $ARGV[0]) or die; local $/; my $b = <$fh>; my $n = length $b;
        my ($o, $sum) = (64, 0);
        while ($o + 96 <= $n && substr($b, $o, 4) eq "STFR") {
            my $kind = ord(substr($b, $o + 4, 1));
            my $ps = unpack("Q<", substr($b, $o + 72, 8));
            last if $o + 96 + $ps > $n;
            $sum += unpack("Q<", substr($b, $o + 32, 8)) if $kind == 1;
            $o += 96 + $ps;
        }
        print "$sum\n";
    ' "$1"
}

@test "SIGINT during simtrace-pack --append: no directory left, --salvage recovers every complete frame" {
    local pid feeder st before n
    real_d64 3000 a
    real_d64 60000 b 3000
    cat a b >all
    "$PACK" -T1 --frame-size 1000 -s none -o x.sim a
    before=$(size x.sim)
    mkfifo fifo
    slow_feed b 32000 0.05 fifo &
    feeder=$!
    with_default_signals "$PACK" -T1 --frame-size 1000 -s none --append x.sim fifo 2>err &
    pid=$!
    wait_for grown x.sim $((before + 2000))
    kill -INT "$pid"
    st=0
    wait "$pid" || st=$?
    kill "$feeder" 2>/dev/null || true
    wait "$feeder" || true
    [[ $st -eq 130 ]] || fail "exit $st after SIGINT (want death by the signal): $(cat err)"
    # no directory: the random-access readers refuse it, the sequential one
    # reports the missing end
    run "$CAT" --verify x.sim
    expect_status 1
    expect_prefix simtrace-cat
    run to sal "$CAT" --salvage x.sim
    [[ $status -le 1 ]] || fail "--salvage: exit $status: $output"
    expect_prefix simtrace-cat
    n=$(entries_in_complete_frames x.sim)
    ((n > 3000)) || fail "no appended frame complete ($n entries)"
    ((n < 63000)) || fail "the append had finished before SIGINT"
    [[ $(size sal) -eq $((n * 32)) ]] || fail "--salvage gave $(($(size sal) / 32)) entries, complete frames hold $n"
    is_prefix sal all || fail "salvaged entries are not the head of the input"
}
