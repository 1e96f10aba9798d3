#!/usr/bin/env bats
# simtrace-pack when writing fails or it is stopped: a full disk, a reader
# that goes away, SIGINT/SIGTERM/SIGHUP while writing -o FILE or during
# --append (interrupted means finished: a complete container of every
# entry read, exit 128 + signal; no file when nothing was read), SIGKILL
# during --append (every earlier entry stays readable; --repair writes the
# end).  The svpc-compress counterparts are in usage.bats.

load helpers

PACK="$SVPC_BIN/simtrace-pack"
CAT="$SVPC_BIN/simtrace-cat"

setup() {
    common_setup
    [[ -x $PACK && -x $CAT ]] || fail "no simtrace-pack/simtrace-cat in $SVPC_BIN"
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

@test "--append that cannot write (a file size limit, as a full disk): exit 1; the frames written whole are kept, or with none the container as it was" {
    real_d64 20000 in
    "$PACK" -T1 --frame-size 5000 --stream a -o c.sim in
    # a container without its end too: cut inside its directory
    cp c.sim d.sim
    truncate -s -200 d.sim
    rand_bytes 2000000 more
    for f in c.sim d.sim; do
        cp "$f" orig.sim
        limit=$(( ($(stat -c %s "$f") + 65536) / 1024 ))
        # SIGXFSZ ignored: a write past the limit fails with EFBIG, as one
        # past the end of a full disk fails with ENOSPC
        run bash -c "trap '' XFSZ; ulimit -f $limit; '$PACK' -T2 --append $f --stream b --type bytes more"
        expect_status 1
        expect_prefix simtrace-pack
        expect_output_has "File too large"
        expect_output_has "$f: nothing appended: the container is as it was before"
        cmp "$f" orig.sim
    done
    "$CAT" --verify c.sim
    [ "$("$CAT" -s a c.sim | wc -c)" -eq $((20000 * 32)) ]
    # frames written whole before the error are kept (their entries may
    # have come from a pipe): the container ends after them
    cp c.sim orig.sim
    limit=$(( ($(stat -c %s c.sim) + 262144) / 1024 ))
    run bash -c "trap '' XFSZ; ulimit -f $limit; cat more | '$PACK' -T2 --append c.sim --stream b --type bytes --frame-size 20000 -"
    expect_status 1
    expect_output_has "File too large"
    [[ $output =~ c.sim:\ the\ container\ is\ complete\ with\ the\ ([0-9]+)\ entries\ appended\ before\ the\ error ]] ||
        fail "$output"
    n=${BASH_REMATCH[1]}
    [ "$n" -gt 0 ] && [ $((n % 20000)) -eq 0 ]
    "$CAT" --verify c.sim
    "$CAT" -s a c.sim | cmp - <("$CAT" -s a orig.sim)
    "$CAT" -s b c.sim | cmp - <(head -c "$n" more)
    # -c asks for standard output, which an append does not write
    cp c.sim c0.sim
    run "$PACK" --append c.sim -c in
    expect_status 2
    expect_output_has "--append writes into its container; -c cannot be used with it"
    cmp c.sim c0.sim
}

@test "--repair in place that cannot write its end: exit 1 naming the write error, the file as it was" {
    real_d64 50000 in
    "$PACK" -T1 --frame-size 100 -o r.sim in
    truncate -s -5000 r.sim # inside its directory of 500 frames
    cp r.sim r0.sim
    limit=$(( ($(stat -c %s r.sim) + 1023) / 1024 ))
    run bash -c "trap '' XFSZ; ulimit -f $limit; '$PACK' --repair r.sim"
    expect_status 1
    expect_prefix simtrace-pack
    [[ ${lines[0]} == "simtrace-pack: r.sim: write error: File too large" ]] || fail "first line: ${lines[0]}"
    expect_output_has "r.sim: not repaired: the file is as it was before"
    cmp r.sim r0.sim
    "$PACK" -q --repair r.sim
    "$CAT" --verify r.sim
}

@test "simtrace-pack into a pipe whose reader goes away: a quiet end by SIGPIPE (as cat and xz), no hang" {
    rand_bytes 4000000 in
    # stored, not compressed: the output outgrows the pipe buffer after head exits
    run timeout 60 bash -c "'$PACK' -T1 --allow-cycle-reset -e generic -s none in | head -c 100 > /dev/null; exit \${PIPESTATUS[0]}"
    [[ $status -ne 124 ]] || fail "simtrace-pack hung"
    [[ $status -eq 141 ]] || fail "exit $status, not death by SIGPIPE (141): $output"
    [[ -z $output ]] || fail "not quiet: $output"
}

# interrupt_pack SIGNAL: simtrace-pack -o out.sim reading a FIFO fed slowly,
# stopped with SIGNAL once its temporary output has grown: interrupted
# means finished (issue 15): out.sim is a complete container of the whole
# entries read before the signal, a prefix of the input, the program says
# how many, and it exits 128 + the signal's number.
interrupt_pack() {
    local sig=$1 pid feeder st n
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
    [[ $st -eq $((128 + $(kill -l "$sig"))) ]] || fail "exit $st after SIG$sig (want 128 + signal): $(cat err)"
    [[ $(leftovers . out.sim) == out.sim ]] || fail "files: $(leftovers . out.sim)"
    run "$CAT" --verify out.sim
    expect_status 0
    "$CAT" out.sim >back
    n=$(($(size back) / 32))
    ((n >= 1000 && n < 60000)) || fail "$n entries kept"
    is_prefix back in || fail "the entries kept are not the head of the input"
    grep -q "^simtrace-pack: out.sim: interrupted by SIG$sig: the container is complete with $n entries" err ||
        fail "message: $(cat err)"
    same in in.orig
}

@test "SIGINT during simtrace-pack -o FILE: a complete container of the entries read, exit 130" {
    interrupt_pack INT
}

@test "SIGTERM during simtrace-pack -o FILE: a complete container of the entries read, exit 143" {
    interrupt_pack TERM
}

@test "SIGHUP during simtrace-pack -o FILE: a complete container of the entries read, exit 129" {
    interrupt_pack HUP
}

@test "a signal before the first entry: no file is left, exit 130" {
    local pid feeder st
    mkfifo fifo
    # the FIFO is open for writing but nothing comes
    perl -e 'open(my $o, ">", $ARGV[0]) or die; sleep 30' fifo &
    feeder=$!
    with_default_signals "$PACK" -T1 -o out.sim fifo 2>err &
    pid=$!
    wait_for have_tmp
    kill -INT "$pid"
    st=0
    wait "$pid" || st=$?
    kill "$feeder" 2>/dev/null || true
    wait "$feeder" || true
    [[ $st -eq 130 ]] || fail "exit $st: $(cat err)"
    [[ -z $(leftovers . out.sim) ]] || fail "left behind: $(leftovers . out.sim)"
    grep -q "no entry was stored; the file is not written" err || fail "message: $(cat err)"
}

@test "SIGINT while simtrace-pack --from lackey waits on an open pipe: the lines read are kept, at once" {
    local pid feeder st
    mkfifo fifo
    # a lackey log of which a part is written, the last line cut short
    # (" S 04222cac,8" cut to " S 0422" would be a valid line of another
    # address), then the writer waits
    { head -n 3000 "$ROOT/testdata/good/sample.lackey"; sed -n '3001{s/,.*//;p}' "$ROOT/testdata/good/sample.lackey" | head -c 6; touch fed; sleep 30; } >fifo &
    feeder=$!
    with_default_signals "$PACK" -T1 --from lackey -o out.sim fifo 2>err &
    pid=$!
    wait_for have_tmp
    # all is written; what the pipe still holds (64 KiB at most) the packer
    # takes at once
    wait_for test -e fed
    sleep 0.5
    kill -INT "$pid"
    st=0
    timeout 10 tail --pid="$pid" -f /dev/null || fail "still running 10 s after SIGINT"
    wait "$pid" || st=$?
    kill "$feeder" 2>/dev/null || true
    [[ $st -eq 130 ]] || fail "exit $st: $(cat err)"
    run "$CAT" --verify out.sim
    expect_status 0
    # the same lines packed whole give the same container
    head -n 3000 "$ROOT/testdata/good/sample.lackey" >part
    "$PACK" -T1 --from lackey -o whole.sim part
    same out.sim whole.sim
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

@test "SIGINT during simtrace-pack --append: the container is complete with the entries read, exit 130" {
    local pid feeder st n
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
    [[ $st -eq 130 ]] || fail "exit $st after SIGINT: $(cat err)"
    run "$CAT" --verify x.sim
    expect_status 0
    "$CAT" x.sim >back
    n=$(($(size back) / 32))
    ((n > 4000 && n < 63000)) || fail "$n entries"
    is_prefix back all || fail "not the head of the input"
    grep -q "^simtrace-pack: x.sim: interrupted by SIGINT: the container is complete; it gained $((n - 3000)) entries" err ||
        fail "message: $(cat err)"
}

@test "SIGKILL during simtrace-pack --append: every earlier entry stays readable without repair; --repair ends it" {
    local pid feeder n
    real_d64 3000 a
    real_d64 60000 b 3000
    real_d64 5000 c 70000
    cat a b >all
    "$PACK" -T1 --frame-size 1000 -s none -o x.sim a --stream other c
    before=$(size x.sim)
    mkfifo fifo
    slow_feed b 32000 0.05 fifo &
    feeder=$!
    with_default_signals "$PACK" -T1 --frame-size 1000 -s none --append x.sim fifo 2>err &
    pid=$!
    wait_for grown x.sim $((before + 2000))
    kill -KILL "$pid"
    wait "$pid" || true
    kill "$feeder" 2>/dev/null || true
    wait "$feeder" || true
    # the other stream, whole, by every random-access reader
    run to oc "$CAT" -s other x.sim
    expect_status 0
    expect_output_has "no valid directory and footer"
    same oc c
    run to oc2 "$CAT" -s other --entries 1000:4000 x.sim
    expect_status 0
    cmp oc2 <(tail -c +$((1000 * 32 + 1)) c | head -c $((3000 * 32)))
    run "$CAT" --list x.sim
    expect_status 0
    [[ $output == *"other "*" 5000 "* ]] || fail "--list: $output"
    # the stream appended to: its first entries and every complete new frame
    "$CAT" -q -s trace x.sim >t
    n=$(($(size t) / 32))
    ((n >= 3000)) || fail "$n entries"
    is_prefix t all || fail "not the head of the input"
    # --repair -o leaves the file alone; in place it writes the end
    cp x.sim x.orig
    run "$PACK" --repair x.sim -o fixed.sim
    expect_status 0
    expect_output_has "fixed.sim: repaired: directory and footer written"
    same x.sim x.orig
    run "$PACK" --repair x.sim
    expect_status 0
    run "$CAT" --verify x.sim
    expect_status 0
    same x.sim fixed.sim
    "$CAT" -s trace x.sim | cmp - t
    run "$PACK" --repair x.sim
    expect_status 0
    expect_output_has "nothing to repair"
    # and it can be appended to again
    run "$PACK" -T1 --frame-size 1000 -s none --append x.sim --stream more a
    expect_status 0
    run "$CAT" --verify x.sim
    expect_status 0
}

@test "--append to a container whose append was killed continues after its complete frames" {
    real_d64 3000 a
    real_d64 3000 b 5000
    "$PACK" -T1 --frame-size 1000 -s none -o x.sim a
    # a half-written frame after the complete ones, no directory
    head -c $(($(size x.sim) - 100)) x.sim >cut.sim
    head -c 300 x.sim | tail -c 200 >>cut.sim
    run "$PACK" -T1 --frame-size 1000 -s none --append cut.sim --stream s2 b
    expect_status 0
    expect_output_has "no valid directory and footer"
    run "$CAT" --verify cut.sim
    expect_status 0
    run to got "$CAT" -s s2 cut.sim
    same got b
}

# SIGXFSZ at its default (killing the program) is what a shell gives; the
# programs ignore it themselves, so a file-size limit is a write error.
@test "a file-size limit with SIGXFSZ at its default: every program fails with a write error (exit 1), no temporary file is left, --append ends its container" {
    real_d64 20000 a.d64
    "$SVPC_BIN/svpc-compress" -T1 -o a.svpc a.d64
    "$PACK" -T1 --frame-size 5000 -o c.sim a.d64
    local cmd
    for cmd in "'$SVPC_BIN/svpc-decompress' -o out a.svpc" "'$CAT' -F text -o out c.sim" \
        "'$SVPC_BIN/svpc-compress' -e generic -s none -o out a.d64" "'$PACK' -s none -e generic -o out a.d64"; do
        run bash -c "trap - XFSZ; ulimit -f 20; $cmd"
        expect_status 1
        expect_output_has "out: write error: File too large"
        [[ -z $(ls out* 2>/dev/null) ]] || fail "$cmd left $(ls out*)"
    done
    local limit=$(( ($(stat -c %s c.sim) + 40000) / 1024 ))
    real_d64 20000 b.d64 7000
    run bash -c "trap - XFSZ; ulimit -f $limit; '$PACK' -T1 --append c.sim --frame-size 1000 -s none -e generic --stream x b.d64"
    expect_status 1
    expect_output_has "File too large"
    "$CAT" --verify c.sim
    "$CAT" -s trace c.sim | cmp - a.d64
}
