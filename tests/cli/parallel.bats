#!/usr/bin/env bats
# scripts/svpc-parallel, the scale-out recipe on GNU parallel (doc/PROGRAMS.md,
# "Beyond one machine"), run on this machine on a real trace: the joined
# container holds exactly the entries of the whole trace, numbered on
# across pieces, and is the container the serial path writes, byte for
# byte; ranges read in parallel are those read serially; the Slurm array
# form (scripts/svpc-parallel.slurm) and the ssh form (-S) give the same
# file; a piece that fails makes the run fail, naming it, with no output.

load helpers

SP="$ROOT/scripts/svpc-parallel"
SLURM="$ROOT/scripts/svpc-parallel.slurm"

setup() {
    common_setup || return 1
    command -v parallel >/dev/null 2>&1 || fail "GNU parallel is not installed (make deps)"
    export SVPC_BIN # the programs under test, for the script and its jobs
    # entries and frame size: 12 frames in 4 pieces of 3 frames; fewer
    # entries under the sanitizers
    if [[ $SANITIZED == 1 ]]; then N=48000 FS=4000; else N=300000 FS=25000; fi
    PF=3
}

# trace.d64: the first N entries of a real trace, the Bochs BIOS reads of
# testdata/good (300,000 entries)
real_trace() {
    local src="$ROOT/testdata/good/bios_read_300k.d64.xz"
    xz -dc -- "$src" | head -c $((N * 32)) >trace.d64
    [[ $(size trace.d64) == $((N * 32)) ]] || fail "$src: fewer than $N entries"
}

@test "compress: the joined container is the serial one, byte for byte, and holds every entry" {
    real_trace
    run "$SP" compress -j 2 --frame-size "$FS" --piece-frames "$PF" --stream cpu0.read -o joined.sim trace.d64
    expect_status 0
    expect_output_has "from 4 pieces"
    "$COMPRESS" -T2 --frame-size "$FS" --stream cpu0.read -o serial.sim trace.d64
    same joined.sim serial.sim
    "$DECOMPRESS" joined.sim | cmp - trace.d64
    run "$SIMTRACE_CAT" --verify joined.sim
    expect_status 0
    # the pieces' directory was beside the output, and is gone
    [[ -z $(leftovers . .svpc-parallel) ]] || fail "left behind: $(leftovers . .svpc-parallel)"
}

@test "compress: entry numbering continues across pieces (--entries across every piece boundary)" {
    real_trace
    "$SP" compress -q --frame-size "$FS" --piece-frames "$PF" -o joined.sim trace.d64
    # the frames' first entries run on: 0, FS, 2 FS, ...
    local want="" i
    for ((i = 0; i < N / FS; i++)); do want+="$((i * FS)) "; done
    got=$("$SIMTRACE_CAT" --list --frames joined.sim | awk 'NR > 1 { printf "%s ", $3 }')
    [[ $got == "$want" ]] || fail "frame first entries: $got, want $want"
    # a range across each boundary between pieces, read through the directory
    local first a b
    while read -r _ first _ _ _; do
        ((first > 0)) || continue
        a=$((first - 7)) b=$((first + 9))
        "$SIMTRACE_CAT" --entries "$a:$b" joined.sim >r.out
        slice_entries trace.d64 32 "$a" "$b" >r.want
        same r.out r.want
    done < <("$SP" plan --frame-size "$FS" --piece-frames "$PF" trace.d64)
    [[ $("$SP" plan --frame-size "$FS" --piece-frames "$PF" trace.d64 | wc -l) == 4 ]]
}

@test "cat: ranges extracted in parallel are those extracted serially" {
    real_trace
    "$SP" compress -q --frame-size "$FS" --piece-frames "$PF" -o joined.sim trace.d64
    # the whole stream, a job per few frames, in order
    "$SP" cat -j 2 -o whole.out joined.sim
    same whole.out trace.d64
    # ranges across piece and frame boundaries, in the order given
    local ranges=("$((3 * FS - 5)):$((3 * FS + 5))" "0:10" "$((N - 3)):" "$((FS + 1)):$((7 * FS - 1))" "$((6 * FS)):$((6 * FS))")
    "$SP" cat -j 2 joined.sim "${ranges[@]}" >par.out
    : >ser.out
    local r
    for r in "${ranges[@]}"; do "$SIMTRACE_CAT" -q --entries "$r" joined.sim >>ser.out; done
    same par.out ser.out
    [[ $(size par.out) == $(((10 + 10 + 3 + 6 * FS - 2) * 32)) ]] || fail "par.out has $(size par.out) bytes"
    # a range that fails (no such stream) fails the run: exit 1, no file
    run "$SP" cat -s nosuch -o bad.out joined.sim 0:10
    expect_status 1
    expect_prefix simtrace-cat
    [[ ! -e bad.out && -z $(leftovers . .bad.out) ]] || fail "bad.out or its temporary left"
}

@test "Slurm array form: svpc-parallel.slurm per task, then join, gives the same container" {
    real_trace
    "$SP" compress -q --frame-size "$FS" --piece-frames "$PF" -e cm2 -o joined.sim trace.d64
    n=$("$SP" plan --frame-size "$FS" --piece-frames "$PF" trace.d64 | wc -l)
    # what sbatch --array=0-$((n - 1)) does, the tasks in reverse order
    for ((k = n - 1; k >= 0; k--)); do
        SLURM_ARRAY_TASK_ID=$k SVPC_PARALLEL="$SP" "$SLURM" pieces trace.d64 --frame-size "$FS" --piece-frames "$PF" -e cm2
    done
    run "$SP" join --frame-size "$FS" --piece-frames "$PF" -d pieces -o slurm.sim trace.d64
    expect_status 0
    same slurm.sim joined.sim
    # outside an array job the task script says so
    run "$SLURM" pieces trace.d64
    expect_status 1
    expect_output_has "not a task of an array job"
}

@test "ssh form: -S with the local login (:) gives the same container" {
    real_trace
    "$SP" compress -q --frame-size "$FS" --piece-frames "$PF" -o joined.sim trace.d64
    run "$SP" compress -q -S 2/: --frame-size "$FS" --piece-frames "$PF" -o ssh.sim trace.d64
    expect_status 0
    same ssh.sim joined.sim
    "$SP" cat -S : -o ssh.out ssh.sim "$((FS - 2)):$((FS + 2))"
    slice_entries trace.d64 32 $((FS - 2)) $((FS + 2)) | cmp - ssh.out
}

@test "other entry types: d32 pieces of whole frames join into the serial container" {
    real_of d32 $((N / 3)) t.d32
    "$SP" compress -q -t d32 --frame-size $((FS / 5)) --piece-frames 2 -o p.sim t.d32
    "$COMPRESS" -t d32 --frame-size $((FS / 5)) -o s.sim t.d32
    same p.sim s.sim
    "$DECOMPRESS" p.sim | cmp - t.d32
}

@test "a piece that begins like gzip data is packed as raw entries (--no-unpack), and the result is unchanged" {
    real_trace
    # shift every cycle by one amount (their order is kept) so that entry
    # 2*FS*PF, where piece 2 begins, starts with the bytes 1f 8b 08 00: a
    # gzip header as far as simtrace-pack can tell
    perl -e '
        use strict; use warnings;
        my ($f, $at) = @ARGV; open(my $h, "<:raw", $f) or die; binmode STDOUT;
        seek($h, $at * 32, 0) or die; read($h, my $x, 8) == 8 or die;
        my $d = (0x00088b1f - (unpack("Q<", $x) & 0xffffffff)) & 0xffffffff;
        seek($h, 0, 0); local $/ = \32;
        while (my $e = <$h>) { my ($m, @r) = unpack("Q<4", $e); print pack("Q<4", $m + $d, @r); }
    ' trace.d64 $((2 * FS * PF)) >magic.d64
    [[ $(od -An -tx1 -j $((2 * FS * PF * 32)) -N 4 magic.d64 | tr -d ' ') == 1f8b0800 ]]
    # simtrace-pack takes such a piece for gzip data, unless told not to
    run bash -c "tail -c +$((2 * FS * PF * 32 + 1)) magic.d64 | '$SIMTRACE_PACK' -o x.sim -"
    expect_status 1
    expect_output_has "damaged gzip data"
    expect_output_has "if it is not, give --no-unpack"
    tail -c +$((2 * FS * PF * 32 + 1)) magic.d64 | "$SIMTRACE_PACK" --no-unpack -o x.sim -
    # the pieces keep their places
    run "$SP" plan --frame-size "$FS" --piece-frames "$PF" magic.d64
    expect_status 0
    [[ $(sed -n 3p <<<"$output") == "2 $((2 * FS * PF)) $((PF * FS)) "* ]] || fail "plan: $output"
    "$SP" compress -q --frame-size "$FS" --piece-frames "$PF" -o joined.sim magic.d64
    "$COMPRESS" --frame-size "$FS" -o serial.sim magic.d64
    same joined.sim serial.sim
}

@test "a piece that fails: exit 1, the piece named, no container" {
    real_trace
    # the cycle of an entry inside piece 1 set to 0: simtrace-pack refuses
    # the decrease within the piece
    printf '\0\0\0\0\0\0' | dd of=trace.d64 bs=1 seek=$(((FS * PF + 100) * 32)) conv=notrunc status=none
    run "$SP" compress --frame-size "$FS" --piece-frames "$PF" -o joined.sim trace.d64
    expect_status 1
    expect_output_has "svpc-parallel: piece 1 of"
    expect_output_has "piece 1 failed"
    expect_output_has "joined.sim not written"
    [[ ! -e joined.sim ]] || fail "joined.sim exists"
    [[ -z $(leftovers . .svpc-parallel) && -z $(leftovers . .joined.sim) ]] || fail "temporaries left: $(ls -A)"
}

@test "join: a missing, foreign or unfinished piece is named, and nothing is written" {
    real_trace
    mkdir pieces
    for k in 0 1 2 3; do "$SP" piece -q --frame-size "$FS" --piece-frames "$PF" -d pieces "$k" trace.d64; done
    run "$SP" join --frame-size "$FS" --piece-frames "$PF" -d pieces -o j.sim trace.d64
    expect_status 0
    # missing
    mv pieces/piece.000002.sim p2.sim
    run "$SP" join --frame-size "$FS" --piece-frames "$PF" -d pieces -o j2.sim trace.d64
    expect_status 1
    expect_output_has "piece 2 of"
    expect_output_has "is missing"
    [[ ! -e j2.sim ]]
    # a container of fewer entries in its place (what an interrupted job
    # left under another name, or a piece of another trace)
    "$SIMTRACE_CAT" --entries 0:$((FS * PF - 1)) p2.sim >short.d64
    "$COMPRESS" --frame-size "$FS" -o pieces/piece.000002.sim short.d64
    run "$SP" join --frame-size "$FS" --piece-frames "$PF" -d pieces -o j2.sim trace.d64
    expect_status 1
    expect_output_has "holds $((FS * PF - 1)) entries, not $((FS * PF))"
    [[ ! -e j2.sim ]]
    # a piece whose job was stopped leaves only its temporary, which join ignores
    mv p2.sim pieces/piece.000002.sim.tmp.123
    rm pieces/piece.000002.sim
    run "$SP" join --frame-size "$FS" --piece-frames "$PF" -d pieces -o j2.sim trace.d64
    expect_status 1
    expect_output_has "is missing"
}

@test "bad input and usage: compressed or partial traces, existing output, bad options" {
    real_d64 1000 t.d64
    xz -c t.d64 >t.d64.xz
    run "$SP" compress -o o.sim t.d64.xz
    expect_status 1
    expect_output_has "decompress it first"
    head -c 1000 t.d64 >part.d64
    run "$SP" compress -o o.sim part.d64
    expect_status 1
    expect_output_has "not a whole 32-byte entry"
    : >o.sim
    run "$SP" compress -o o.sim t.d64
    expect_status 1
    expect_output_has "file exists"
    run "$SP" compress -f --frame-size 100 -o o.sim t.d64
    expect_status 0
    "$DECOMPRESS" o.sim | cmp - t.d64
    run "$SP" compress -f -e nosuch -o o.sim t.d64
    expect_status 2
    expect_output_has "unknown encoder"
    run "$SP" compress -t vpc -o o2.sim t.d64
    expect_status 2
    run "$SP" frobnicate
    expect_status 2
    expect_prefix svpc-parallel
    run "$SP" piece -d . 9 t.d64
    expect_status 1
    expect_output_has "has only 1 pieces"
}

@test "SIGTERM or SIGINT stops every job at once: exit 143 or 130, no container, no pieces left" {
    real_trace
    # a simtrace-pack whose piece jobs hang, so the signal comes mid-run
    mkdir slowbin
    ln -s "$SIMTRACE_CAT" slowbin/simtrace-cat
    cat >slowbin/simtrace-pack <<EOS
#!/bin/bash
case "\$*" in *piece.*) echo \$\$ >>"$T/pids"; sleep 60 ;; esac
exec "$SIMTRACE_PACK" "\$@"
EOS
    chmod +x slowbin/simtrace-pack
    local sig want pid t0 t1 p
    for sig in TERM INT; do
        [[ $sig == TERM ]] && want=143 || want=130
        : >pids
        # (a background job of a shell starts with SIGINT ignored: reset it)
        SVPC_BIN="$T/slowbin" perl -e '$SIG{INT} = $SIG{TERM} = "DEFAULT"; exec @ARGV or die "exec: $!\n"' \
            "$SP" compress -q -j 2 --frame-size "$FS" --piece-frames "$PF" -o joined.sim trace.d64 &
        pid=$!
        for ((i = 0; i < 100; i++)); do [[ $(wc -l <pids) -ge 2 ]] && break; sleep 0.1; done
        [[ $(wc -l <pids) -ge 2 ]] || fail "the piece jobs did not start"
        t0=$SECONDS
        kill -$sig "$pid"
        wait "$pid" && rc=0 || rc=$?
        t1=$SECONDS
        [[ $rc == "$want" ]] || fail "SIG$sig: exit status $rc, want $want"
        ((t1 - t0 <= 5)) || fail "SIG$sig: $((t1 - t0)) s to stop"
        [[ ! -e joined.sim ]] || fail "SIG$sig: joined.sim exists"
        [[ -z $(leftovers . .svpc-parallel) ]] || fail "SIG$sig: the pieces' directory is left"
        sleep 0.5
        while read -r p; do
            ! kill -0 "$p" 2>/dev/null || fail "SIG$sig: job $p still runs"
        done <pids
    done
}
