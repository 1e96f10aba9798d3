#!/usr/bin/env bats
# scripts/bochs-trace: a short real Bochs run (300,000 instructions of the
# BIOS POST, about 40 MB of debugger log) packed into a container, checked
# with simtrace-cat; and its usage errors.  Skips when simtrace-pack is not
# built or Bochs is not installed.  The POST's container and the GRUB
# range that the --jobs and --piece tests compare with are each traced once
# and shared through $BATS_FILE_TMPDIR.

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

@test "bochs-trace -v: --instructions N reports N instructions, in whole lines, and what the container holds" {
    need_tools
    run "$TRACE" --instructions 2000 -v -o v.sim
    expect_status 0
    # Bochs prints the instruction it stopped at again when it quits
    # without running it; that one is not counted (it said 2001)
    expect_output_has ", 2000 instructions, "
    expect_output_has "bochs-trace: CPU time: Bochs"
    local n
    n=$("$CAT" -q -l v.sim | awk 'NR > 1 { n += $3 } END { print n }')
    expect_output_has "bochs-trace: v.sim: $n entries in 2 streams"
    # every progress line is a line of its own: no carriage return (the
    # packer's self-rewriting progress line broke bochs-trace's up)
    [[ $output != *$'\r'* ]] || fail "a carriage return in: $(cat -A <<<"$output")"
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
    run "$TRACE" --megs 3 -o x.sim
    expect_status 2
    expect_output_has "--megs needs a number of MB from 4 to 2048, not '3'"
    run "$TRACE" --megs 2049 -o x.sim
    expect_status 2
    run "$TRACE" --cpu-limit 0 -o x.sim
    expect_status 2
    expect_output_has "--cpu-limit needs a positive number of seconds, not '0'"
    run "$TRACE" --cpu-limit 1x -o x.sim
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
    before=$(ls -d "${TMPDIR:-/tmp}"/bochs-trace.* "${TMPDIR:-/tmp}"/bochs-trace-stop.* 2>/dev/null | wc -l)
    run "$TRACE" --instructions 1000 -o small.sim
    expect_status 0
    after=$(ls -d "${TMPDIR:-/tmp}"/bochs-trace.* "${TMPDIR:-/tmp}"/bochs-trace-stop.* 2>/dev/null | wc -l)
    [[ $after -le $before ]] || fail "temporary directories left: $after (before: $before)"
}

# interrupt PID: SIGINT to a run in the background (its messages in err),
# which ends with exit status 130
interrupt() {
    kill -INT "$1"
    local rc=0
    wait "$1" || rc=$?
    [[ $rc -eq 130 ]] || fail "exit status $rc, expected 130; said: $(cat err)"
}

@test "bochs-trace: SIGINT mid-run finishes a valid container of what was traced, exit 130, and says so" {
    need_tools
    # a background job of a script, which starts with SIGINT ignored: it
    # must stop as from a terminal (it ran on to the end)
    "$TRACE" --instructions 50000000 -v -o int.sim 2>err &
    local pid=$! i
    # wait until Bochs runs and has traced for a while
    for i in $(seq 100); do
        pgrep -f "bochs.*$T" >/dev/null 2>&1 && break
        pgrep -P "$pid" >/dev/null 2>&1 && [[ $i -gt 20 ]] && break
        sleep 0.2
    done
    sleep 4
    interrupt "$pid"
    grep -q "bochs-trace: interrupted by SIGINT: int.sim is a complete container of [0-9]* entries" err ||
        fail "no message of the container kept; said: $(cat err)"
    # -v's summary, after the signal too
    grep -q "bochs-trace: CPU time: Bochs" err && grep -q "bochs-trace: int.sim: [0-9]* entries in" err ||
        fail "no summary; said: $(cat err)"
    run "$CAT" --verify int.sim
    expect_status 0
    run "$CAT" -l int.sim
    expect_status 0
    expect_output_has "cpu0.read"
}

@test "bochs-trace --cpu-limit: stops Bochs, keeps a valid container of what was traced, exit 1, says so" {
    need_tools
    run "$TRACE" --instructions 50000000 --cpu-limit 2 -o tl.sim
    expect_status 1
    expect_output_has "bochs-trace: Bochs used up its 2 s of CPU time (--cpu-limit) at instruction "
    expect_output_has "tl.sim holds what was traced before"
    run "$CAT" --verify tl.sim
    expect_status 0
    run "$CAT" -l tl.sim
    expect_output_has "cpu0.read"
}

# ---- --skip ------------------------------------------------------------------

@test "bochs-trace --workload grub: --help's --skip starts the trace where the BIOS jumps to GRUB" {
    need_tools
    command -v grub-mkimage >/dev/null 2>&1 && command -v xorriso >/dev/null 2>&1 ||
        skip "GRUB's tools not installed (apt-get install grub-pc-bin grub-common xorriso)"
    local at
    at=$("$TRACE" --help | grep -o -- '--skip [0-9]* traces GRUB' | awk '{ print $2 }')
    [[ -n $at ]] || fail "--help names no --skip for GRUB"
    export XDG_CACHE_HOME="$T/cache"
    run "$TRACE" --workload grub --skip "$at" --instructions 1000 -v -o grub.sim
    expect_status 0
    expect_output_has "the BIOS jumped to the boot code at instruction $at "
    # GRUB's accesses, from that instruction on
    run bash -c "'$CAT' -s cpu0.read -F text grub.sim | sed -n 2p"
    expect_status 0
    local c
    c=$(awk '{ print $2 }' <<<"$output")
    [[ -n $c && $c -ge $at && $c -lt $((at + 1000)) ]] || fail "first read: $output"
}

@test "bochs-trace --skip N: the full trace's entries from cycle N on, stream by stream, byte for byte" {
    need_tools
    post_container
    run "$TRACE" --skip 280000 --instructions 20000 -o skip.sim
    expect_status 0
    run "$CAT" -t skip.sim
    expect_status 0
    # every keyed stream of either container (vdata blocks are keyed by
    # their owner's index, which a shorter trace numbers differently)
    local names s n=0
    names=$({ "$CAT" -q -l "$C"; "$CAT" -q -l skip.sim; } | awk 'NR > 1 && $2 != "vblock" && $1 != "stream" { print $1 }' | sort -u)
    for s in $names; do
        "$CAT" -q -s "$s" --cycles 280000: "$C" >full.part 2>/dev/null || : >full.part
        "$CAT" -q -s "$s" skip.sim >skip.part 2>/dev/null || : >skip.part
        cmp full.part skip.part || fail "stream $s differs from the full trace's from cycle 280000 on"
        n=$((n + $(stat -c %s skip.part)))
    done
    ((n > 100000)) || fail "only $n bytes of entries compared; streams: $names"
    # the first traced instruction is the one Bochs numbers 280000
    run bash -c "'$CAT' -s cpu0.read -F text '$C' --cycles 280000: | sed -n 2p | awk '{ print \$2 }'"
    local first_full=$output
    run bash -c "'$CAT' -s cpu0.read -F text skip.sim | sed -n 2p | awk '{ print \$2 }'"
    [[ $output == "$first_full" && $output -ge 280000 ]] || fail "first read at cycle $output, full trace: $first_full"
}

@test "bochs-trace --fast: the same entries, stream by stream, in the packer's fast encoding" {
    need_tools
    run "$TRACE" --skip 280000 --instructions 20000 -o cm2.sim
    expect_status 0
    run "$TRACE" --fast --skip 280000 --instructions 20000 -o fast.sim
    expect_status 0
    ! cmp -s cm2.sim fast.sim || fail "--fast gave the same container: the packer did not get it"
    local names s n=0
    names=$({ "$CAT" -q -l cm2.sim; "$CAT" -q -l fast.sim; } | awk 'NR > 1 && $1 != "stream" { print $1 }' | sort -u)
    for s in $names; do
        "$CAT" -q -s "$s" cm2.sim >cm2.part || fail "stream $s: not in the default container"
        "$CAT" -q -s "$s" fast.sim >fast.part || fail "stream $s: not in the --fast container"
        cmp cm2.part fast.part || fail "stream $s differs with --fast"
        n=$((n + $(stat -c %s fast.part)))
    done
    ((n > 100000)) || fail "only $n bytes of entries compared; streams: $names"
}

@test "bochs-trace --skip past the end of the run: exit 1, a message, a valid empty container" {
    need_tools
    run "$TRACE" --skip 40000000 -o past.sim
    expect_status 1
    expect_output_has "before --skip's instruction 40000000: nothing traced"
    run "$CAT" -t past.sim
    expect_status 0
}

@test "bochs-trace: usage errors of --skip, --markers, --cpus, --run" {
    run "$TRACE" --skip x -o x.sim
    expect_status 2
    expect_output_has "--skip"
    run "$TRACE" --skip -5 -o x.sim
    expect_status 2
    run "$TRACE" --markers --instructions 10 --cpus 2 -o x.sim
    expect_status 2
    expect_output_has "--instructions with --markers (or --workload linux) needs one CPU"
    run "$TRACE" --cpus 0 -o x.sim
    expect_status 2
    run "$TRACE" --cpus 99 -o x.sim
    expect_status 2
    run "$TRACE" --cpus 2 --skip 100 -o x.sim
    expect_status 2
    expect_output_has "one CPU"
    run "$TRACE" --run 'ls' -o x.sim
    expect_status 2
    expect_output_has "--workload linux"
    run "$TRACE" --workload linux --run '' -o x.sim
    expect_status 2
    [[ ! -e x.sim ]]
}

# ---- --markers ---------------------------------------------------------------

# boot_sector FILE: a 512-byte boot sector, written byte by byte (no
# assembler), that runs three times through a loop of one store outside the
# marked region and two inside it, then halts:
#   7c00 fa              cli
#   7c01 31 c0           xor ax, ax
#   7c03 8e d8           mov ds, ax
#   7c05 b9 03 00        mov cx, 3
#   7c08 89 0e 00 06     mov [0x600], cx        (not traced)
#   7c0c 87 db           xchg bx, bx            (marker: tracing starts)
#   7c0e 89 0e 00 05     mov [0x500], cx
#   7c12 c6 06 02 05 ab  mov byte [0x502], 0xab
#   7c17 87 db           xchg bx, bx            (marker: tracing stops)
#   7c19 e2 ed           loop 7c08
#   7c1b f4              hlt
boot_sector() {
    {
        printf '\xfa\x31\xc0\x8e\xd8\xb9\x03\x00'
        printf '\x89\x0e\x00\x06'
        printf '\x87\xdb'
        printf '\x89\x0e\x00\x05'
        printf '\xc6\x06\x02\x05\xab'
        printf '\x87\xdb'
        printf '\xe2\xed'
        printf '\xf4'
        head -c $((510 - 28)) /dev/zero
        printf '\x55\xaa'
    } >"$1"
    [[ $(stat -c %s "$1") == 512 ]]
}

# events FILE: the events of cpu0.events as "cycle kind ip vector" lines
events() {
    "$CAT" -q -s cpu0.events "$1" | od -A n -v -t u8 -w24 |
        awk '{ printf "%.0f %d %.0f %.0f\n", $1 % 281474976710656, int($1 / 281474976710656), $2, $3 % 4294967296 }'
}

@test "bochs-trace --markers: a boot sector's marked stores only, entry by entry, and its markers as events" {
    need_tools
    boot_sector boot.img
    run "$TRACE" --disk boot.img --markers -o m.sim
    expect_status 0
    run "$CAT" -t m.sim
    expect_status 0
    # six markers (three regions), cycle | kind 3 | ip after the marker | ordinal
    run events m.sim
    expect_status 0
    local ev=$output
    [[ $(wc -l <<<"$ev") == 6 ]] || fail "markers: $ev"
    local i=0 cyc kind ip vec starts=() stops=()
    while read -r cyc kind ip vec; do
        [[ $kind == 3 && $vec == "$i" ]] || fail "marker $i: $cyc $kind $ip $vec"
        if ((i % 2 == 0)); then
            [[ $ip == $((0x7c0e)) ]] || fail "start marker $i resumes at $ip"
            starts+=("$cyc")
        else
            [[ $ip == $((0x7c19)) ]] || fail "stop marker $i resumes at $ip"
            stops+=("$cyc")
        fi
        i=$((i + 1))
    done <<<"$ev"
    # the stores of each region: index cycle ip address size value; the
    # store to 0x600 between the regions is not there
    run "$CAT" -s cpu0.write -F text m.sim
    expect_status 0
    local want="" r
    for r in 0 1 2; do
        want+="$((2 * r)) $((starts[r] + 1)) 0x7c0e 0x500 2 0x$((3 - r))"$'\n'
        want+="$((2 * r + 1)) $((starts[r] + 2)) 0x7c12 0x502 1 0xab"$'\n'
        [[ ${stops[r]} == $((starts[r] + 3)) ]] || fail "region $r: markers at ${starts[r]} and ${stops[r]}"
    done
    [[ $(sed 1d <<<"$output") == "${want%$'\n'}" ]] || fail "stores: $output; expected: $want"
    # nothing else was traced: no reads, no other stream but the events
    run "$CAT" -q -l m.sim
    [[ $(awk 'NR > 1' <<<"$output" | wc -l) == 2 ]] || fail "streams: $output"
}

# mem_sector FILE: a boot sector that reads the memory above 16 MB in 64 KB
# blocks from the CMOS (registers 0x34, 0x35, which Bochs sets from megs:)
# and stores it to 0x500 between two markers, then halts:
#   31 c0 8e d8        xor ax, ax; mov ds, ax
#   b0 35 e6 70 e4 71  mov al, 0x35; out 0x70, al; in al, 0x71
#   88 c4              mov ah, al
#   b0 34 e6 70 e4 71  mov al, 0x34; out 0x70, al; in al, 0x71
#   87 db              xchg bx, bx       (marker)
#   a3 00 05           mov [0x500], ax
#   87 db              xchg bx, bx       (marker)
#   fa f4              cli; hlt
mem_sector() {
    {
        printf '\x31\xc0\x8e\xd8\xb0\x35\xe6\x70\xe4\x71\x88\xc4\xb0\x34\xe6\x70\xe4\x71'
        printf '\x87\xdb\xa3\x00\x05\x87\xdb\xfa\xf4'
        head -c $((510 - 27)) /dev/zero
        printf '\x55\xaa'
    } >"$1"
}

@test "bochs-trace --megs: the guest's memory (32 MB by default, 64 with --megs 64)" {
    need_tools
    mem_sector mem.img
    run "$TRACE" --disk mem.img --markers -o m32.sim
    expect_status 0
    run "$TRACE" --disk mem.img --markers --megs 64 -o m64.sim
    expect_status 0
    # (MB - 16) x 16 blocks of 64 KB
    run bash -c "'$CAT' -s cpu0.write -F text m32.sim | awk 'NR > 1 { print \$4, \$6 }'"
    [[ $output == "0x500 0x100" ]] || fail "32 MB: $output"
    run bash -c "'$CAT' -s cpu0.write -F text m64.sim | awk 'NR > 1 { print \$4, \$6 }'"
    [[ $output == "0x500 0x300" ]] || fail "64 MB: $output"
}

# panic_sector FILE: a boot sector that sets the serial port to 8 data bits,
# writes "Kernel panic - not syncing: svpc test" to it (waiting for the
# transmitter each time) and then loops for ever, interrupts on:
#   31 c0 8e d8 fc     xor ax, ax; mov ds, ax; cld
#   ba fb 03 b0 03 ee  mov dx, 0x3fb; mov al, 3; out dx, al
#   be 22 7c           mov si, 0x7c22 (the text)
#   ba fd 03           mov dx, 0x3fd
#   ec a8 20 74 fb     in al, dx; test al, 0x20; jz back to the in
#   ac 84 c0 74 05     lodsb; test al, al; jz to the end
#   b2 f8 ee           mov dl, 0xf8; out dx, al
#   eb ee              jmp to mov dx, 0x3fd
#   eb fe              jmp $
panic_sector() {
    {
        printf '\x31\xc0\x8e\xd8\xfc\xba\xfb\x03\xb0\x03\xee\xbe\x22\x7c\xba\xfd\x03'
        printf '\xec\xa8\x20\x74\xfb\xac\x84\xc0\x74\x05\xb2\xf8\xee\xeb\xee\xeb\xfe'
        printf 'Kernel panic - not syncing: svpc test\n\0'
        head -c $((510 - 34 - 39)) /dev/zero
        printf '\x55\xaa'
    } >"$1"
    [[ $(stat -c %s "$1") == 512 ]]
}

@test "bochs-trace: a guest whose serial console says it panicked is stopped: exit 1, its console, in bounded time" {
    need_tools
    panic_sector panic.img
    local t0=$EPOCHSECONDS
    # (it would loop until the time limit)
    run "$TRACE" --disk panic.img --markers --cpu-limit 120 -o p.sim
    expect_status 1
    expect_output_has "bochs-trace: the guest's serial console reports a failure by instruction "
    expect_output_has "'Kernel panic - not syncing: svpc test'"
    expect_output_has "  | Kernel panic - not syncing: svpc test"
    expect_output_has "p.sim holds what was traced before"
    ((EPOCHSECONDS - t0 < 100)) || fail "took $((EPOCHSECONDS - t0)) s"
    run "$CAT" -t p.sim
    expect_status 0
}

@test "bochs-trace --markers --instructions N: N traced instructions across the marked regions, then the end" {
    need_tools
    boot_sector boot.img
    # region 1: its two stores and the closing marker (3); region 2: one
    # store, which makes 4
    run "$TRACE" --disk boot.img --markers --instructions 4 -v -o mi.sim
    expect_status 0
    expect_output_has "--instructions: the count was reached at instruction "
    expect_output_has "traced 4 instructions"
    run bash -c "'$CAT' -s cpu0.write -F text mi.sim | awk 'NR > 1 { print \$3, \$4, \$6 }'"
    [[ $output == $'0x7c0e 0x500 0x3\n0x7c12 0x502 0xab\n0x7c0e 0x500 0x2' ]] || fail "stores: $output"
    run events mi.sim
    [[ $(wc -l <<<"$output") == 3 ]] || fail "markers: $output"
}

@test "bochs-trace --markers: a guest that executes no marker: exit 1, a message, a valid empty container" {
    need_tools
    run "$TRACE" --markers -o none.sim
    expect_status 1
    expect_output_has "the guest executed no marker (xchg bx, bx)"
    run "$CAT" -t none.sim
    expect_status 0
}

# ---- --jobs and --piece --------------------------------------------------------

# The range the tests cut: 200,000 instructions of GRUB, from where the
# BIOS jumps to it; --jobs 2 and 3 cut it into 4 pieces of 50,000.
GRUB_AT=16617287
REF="$BATS_FILE_TMPDIR/grub-ref.sim"
# grub_ref: the range traced by one run (--jobs 1), made once
grub_ref() {
    command -v grub-mkimage >/dev/null 2>&1 && command -v xorriso >/dev/null 2>&1 ||
        skip "GRUB's tools not installed (apt-get install grub-pc-bin grub-common xorriso)"
    export XDG_CACHE_HOME="$BATS_FILE_TMPDIR/cache"
    if [[ ! -s $REF ]]; then
        run "$TRACE" --workload grub --skip $GRUB_AT --instructions 200000 --jobs 1 -o "$REF"
        expect_status 0 || return 1
    fi
}

# same_streams A B [MIN]: every stream of A and of B, events and vdata
# included, the same entry for entry (raw bytes of each stream); at least
# MIN streams (default 3)
same_streams() {
    local names s n=0
    names=$({ "$CAT" -q -l "$1"; "$CAT" -q -l "$2"; } | awk 'NR > 1 && $1 != "stream" { print $1 }' | sort -u)
    for s in $names; do
        "$CAT" -q -s "$s" "$1" >a.part 2>/dev/null || : >a.part
        "$CAT" -q -s "$s" "$2" >b.part 2>/dev/null || : >b.part
        cmp a.part b.part || fail "stream $s of $1 and $2 differ"
        n=$((n + 1))
    done
    ((n >= ${3:-3})) || fail "only $n streams compared: $names"
}

@test "bochs-trace --jobs 2 and --jobs 3: every stream entry for entry that of --jobs 1" {
    need_tools
    grub_ref
    grep -q 'cpu0.events' <("$CAT" -q -l "$REF") || fail "the range has no events to compare"
    run "$TRACE" --workload grub --skip $GRUB_AT --instructions 200000 --jobs 2 -o j2.sim
    expect_status 0
    same_streams "$REF" j2.sim
    # -v: the cut, each piece, progress over all pieces, what was joined
    run "$TRACE" --workload grub --skip $GRUB_AT --instructions 200000 --jobs 3 -v -o j3.sim
    expect_status 0
    expect_output_has "bochs-trace: instructions $GRUB_AT to $((GRUB_AT + 199999)) in 4 pieces, 3 at a time"
    expect_output_has "bochs-trace: piece 4/4 (instructions $((GRUB_AT + 150000)) to $((GRUB_AT + 199999))) traced in "
    expect_output_has "bochs-trace: traced 200000 instructions in 4 pieces, 3 at a time, in "
    expect_output_has "bochs-trace: j3.sim: "
    same_streams "$REF" j3.sim
}

@test "bochs-trace --piece K/N: pieces traced by GNU parallel and joined by simtrace-pack --concat equal one run" {
    need_tools
    command -v parallel >/dev/null 2>&1 || skip "GNU parallel not installed (apt-get install parallel)"
    grub_ref
    run parallel --will-cite "$TRACE" --workload grub --skip $GRUB_AT --instructions 200000 --piece {}/3 -o p{}.sim ::: 1 2 3
    expect_status 0
    run "$PACK" --concat -o p.sim p1.sim p2.sim p3.sim
    expect_status 0
    same_streams "$REF" p.sim
}

@test "bochs-trace --jobs: SIGINT keeps the finished pieces, in order, and names the missing range, exit 130" {
    need_tools
    grub_ref
    # 4 pieces of 200,000: the first is the reference's range
    "$TRACE" --workload grub --skip $GRUB_AT --instructions 800000 --jobs 2 -v -o int.sim 2>err &
    local pid=$! i
    for i in $(seq 1200); do
        grep -q "piece 1/4 .* traced in" err && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.25
    done
    interrupt "$pid"
    grep -q "^bochs-trace: interrupted by SIGINT: int.sim is a complete container of pieces\? 1.* of 4, instructions $GRUB_AT to " err ||
        fail "no message of what was kept; said: $(cat err)"
    local miss
    miss=$(grep -o "^bochs-trace: missing: .*" err) || fail "no missing range named; said: $(cat err)"
    [[ $miss == *"to $((GRUB_AT + 799999)) (--skip "*" --instructions "* ]] || fail "missing: $miss"
    run "$CAT" --verify int.sim
    expect_status 0
    # piece 1 is there, entry for entry; nothing of the missing range
    "$CAT" -q -s cpu0.read --cycles $GRUB_AT:$((GRUB_AT + 200000)) int.sim >int.part
    "$CAT" -q -s cpu0.read "$REF" | cmp - int.part || fail "piece 1's reads differ"
    local from=${miss#*instructions }
    from=${from%% *}
    run bash -c "'$CAT' -s cpu0.read -F text int.sim | tail -n 1 | awk '{ print \$2 }'"
    ((output < from)) || fail "an entry of cycle $output, in the missing range from $from"
}

@test "bochs-trace --jobs: a failing piece is named, the other pieces are kept, exit 1" {
    need_tools
    grub_ref
    # a packer that fails for piece 2 only (after reading all of its log)
    cat >fakepack <<FAKE
#!/usr/bin/env bash
case " \$* " in
*"/piece-2.sim "*) cat >/dev/null; echo "fakepack: piece 2 refused" >&2; exit 1 ;;
esac
exec "$PACK" "\$@"
FAKE
    chmod +x fakepack
    local before after
    before=$(ls -d "${TMPDIR:-/tmp}"/bochs-trace.* 2>/dev/null | wc -l)
    BOCHS_TRACE_PACK="$PWD/fakepack" run "$TRACE" --workload grub --skip $GRUB_AT --instructions 200000 --jobs 2 -o f.sim
    expect_status 1
    local a=$((GRUB_AT + 50000)) b=$((GRUB_AT + 100000))
    expect_output_has "bochs-trace: piece 2/4 (instructions $a to $((b - 1))) failed (exit status 1):"
    expect_output_has "  | fakepack: piece 2 refused"
    expect_output_has "bochs-trace: 1 of 4 pieces failed: f.sim is a complete container of piece 1 of 4, instructions $GRUB_AT to $((a - 1)); pieces 3-4 of 4, instructions $b to $((GRUB_AT + 199999))"
    expect_output_has "bochs-trace: missing: piece 2 of 4, instructions $a to $((b - 1)) (--skip $a --instructions 50000)"
    after=$(ls -d "${TMPDIR:-/tmp}"/bochs-trace.* 2>/dev/null | wc -l)
    [[ $after -le $before ]] || fail "temporary directories left: $after (before: $before)"
    # the reference without piece 2's range, stream by stream
    local s
    for s in $("$CAT" -q -l "$REF" | awk 'NR > 1 { print $1 }'); do
        { "$CAT" -q -s "$s" --cycles $GRUB_AT:$a "$REF"; "$CAT" -q -s "$s" --cycles $b: "$REF"; } >want.part
        "$CAT" -q -s "$s" f.sim >f.part 2>/dev/null || : >f.part
        cmp want.part f.part || fail "stream $s differs from the reference without piece 2"
    done
}

# ---- --jobs --markers: a first pass finds the marked ranges ------------------

@test "bochs-trace --jobs 2 and 3 --markers: every stream, the markers' events included, entry for entry that of --jobs 1" {
    need_tools
    boot_sector boot.img
    run "$TRACE" --disk boot.img --markers --jobs 1 -o m1.sim
    expect_status 0
    run "$TRACE" --disk boot.img --markers --jobs 2 -o m2.sim
    expect_status 0
    same_streams m1.sim m2.sim 2
    # -v: the first pass, then the pieces (one per marked range here)
    run "$TRACE" --disk boot.img --markers --jobs 3 -v -o m3.sim
    expect_status 0
    expect_output_has "bochs-trace: first pass, untraced: where the markers are"
    expect_output_has "bochs-trace: first pass: 6 markers, 3 marked ranges of 9 instructions in all, in "
    expect_output_has "bochs-trace: the marked ranges in 3 pieces, 3 at a time"
    expect_output_has "bochs-trace: traced 9 instructions in 3 pieces, 3 at a time, in "
    expect_output_has "bochs-trace: m3.sim: 12 entries in 2 streams"
    same_streams m1.sim m3.sim 2
    # the six markers, in their places among the stores
    run events m3.sim
    [[ $(wc -l <<<"$output") == 6 && $(awk '{ print $2 $4 }' <<<"$output" | paste -s -d ' ') == "30 31 32 33 34 35" ]] ||
        fail "markers: $output"
    run bash -c "'$CAT' --all -F text m1.sim | cmp - <('$CAT' --all -F text m3.sim)"
    expect_status 0
}

@test "bochs-trace --jobs 2 --markers --instructions N: the count across the marked ranges, as --jobs 1" {
    need_tools
    boot_sector boot.img
    run "$TRACE" --disk boot.img --markers --instructions 4 -o i1.sim
    expect_status 0
    run "$TRACE" --disk boot.img --markers --instructions 4 --jobs 2 -v -o i2.sim
    expect_status 0
    # the closing marker of the first range is traced: 3 + 1
    expect_output_has "bochs-trace: first pass: 3 markers, 2 marked ranges of 4 instructions in all"
    same_streams i1.sim i2.sim 2
    run events i2.sim
    [[ $(wc -l <<<"$output") == 3 ]] || fail "markers: $output"
}

@test "bochs-trace --jobs 2 --markers: a guest that executes no marker: exit 1, the message of --jobs 1, a valid empty container" {
    need_tools
    # the BIOS workload executes no marker
    run "$TRACE" --markers --jobs 2 -o none.sim
    expect_status 1
    expect_output_has "bochs-trace: the guest executed no marker (xchg bx, bx) before the run ended at instruction "
    expect_output_has "nothing traced (none.sim is a valid, empty container)"
    run "$CAT" -t none.sim
    expect_status 0
}

@test "bochs-trace --jobs --markers: SIGINT in the first pass says that nothing was traced, exit 130" {
    need_tools
    # a boot sector that loops for ever (jmp $), without a marker
    {
        printf '\xeb\xfe'
        head -c 508 /dev/zero
        printf '\x55\xaa'
    } >loop.img
    "$TRACE" --disk loop.img --markers --jobs 2 --cpu-limit 60 -v -o int.sim 2>err &
    local pid=$! i
    for i in $(seq 100); do
        grep -q "first pass, untraced" err && break
        sleep 0.1
    done
    sleep 3
    interrupt "$pid"
    grep -q "^bochs-trace: interrupted by SIGINT in the first pass (untraced, where the markers are): nothing traced (int.sim not written)" err ||
        fail "said: $(cat err)"
    [[ ! -e int.sim ]] || fail "int.sim written"
}

@test "bochs-trace: usage errors of --jobs and --piece" {
    run "$TRACE" --jobs 2 --cpus 2 --instructions 1000 -o x.sim
    expect_status 2
    expect_output_has "--jobs needs one CPU (each piece starts at a time breakpoint; Bochs's time breakpoints do not work with --cpus > 1)"
    run "$TRACE" --piece 1/2 --cpus 2 --instructions 1000 -o x.sim
    expect_status 2
    expect_output_has "--piece needs one CPU"
    run "$TRACE" --jobs 2 -o x.sim
    expect_status 2
    expect_output_has "--jobs needs --instructions"
    run "$TRACE" --piece 1/2 --markers --instructions 1000 -o x.sim
    expect_status 2
    expect_output_has "--piece does not go with --markers or --workload linux"
    run "$TRACE" --piece 1/2 --workload linux --instructions 1000 -o x.sim
    expect_status 2
    expect_output_has "--piece does not go with --markers or --workload linux"
    local bad
    for bad in 0 x 65 -1; do
        run "$TRACE" --jobs "$bad" --instructions 1000 -o x.sim
        expect_status 2
        expect_output_has "--jobs needs a number from 1 to 64, not '$bad'"
    done
    for bad in 0/3 4/3 3 1/1001 x/y; do
        run "$TRACE" --piece "$bad" --instructions 100000 -o x.sim
        expect_status 2
        expect_output_has "--piece needs K/N"
    done
    run "$TRACE" --piece 1/3 --jobs 2 --instructions 1000 -o x.sim
    expect_status 2
    run "$TRACE" --piece 3/3 --instructions 2 -o x.sim
    expect_status 2
    expect_output_has "would leave some empty"
    [[ ! -e x.sim ]]
}

@test "bochs-trace --jobs, --piece: a range past the end of the run ends where one run ends (later pieces are empty)" {
    need_tools
    # the BIOS workload ends at instruction 20915229 (no boot device): the
    # first of 4 pieces of 100,000 traces to the end, the others are empty
    local at=20815229
    run "$TRACE" --skip $at --instructions 400000 -o one.sim
    expect_status 0
    run "$TRACE" --skip $at --instructions 400000 --jobs 2 -o four.sim
    expect_status 0
    same_streams one.sim four.sim
    # the joined container to standard output is the same bytes
    run bash -c "'$TRACE' --skip $at --instructions 400000 --jobs 2 | cat >four.out"
    expect_status 0
    same four.sim four.out
    run "$TRACE" --skip $at --instructions 400000 --piece 3/4 -o p3.sim
    expect_status 0
    expect_output_has "bochs-trace: piece 3/4: the run ended at instruction "
    expect_output_has ", before the piece's first instruction $((at + 200000)): the piece is empty"
    run "$CAT" -t p3.sim
    expect_status 0
}
