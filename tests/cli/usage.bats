#!/usr/bin/env bats
# Command line: help, version, usage errors, terminals, input and output
# files.

load helpers

# in_tty CMDLINE: run a shell command line with a terminal as its standard
# output (util-linux script); sets $status and $output like `run`.
in_tty() {
    command -v script >/dev/null || skip "script (util-linux) not installed"
    run script -qec "$1" /dev/null </dev/null
}

# small real input and its container, shared by several tests
small_pair() {
    real_d64 64 in 500
    "$COMPRESS" -e generic in >c
}

@test "--help and -h print usage on stdout and exit 0" {
    local p
    for p in "$COMPRESS" "$DECOMPRESS"; do
        run "$p" --help
        expect_status 0
        expect_output_has "Usage: $(basename "$p") [OPTION]... [FILE]"
        expect_output_has "Exit status"
        run "$p" -h
        expect_status 0
        expect_output_has "Usage:"
    done
    run "$COMPRESS" --help
    expect_output_has "--frame-size"
    expect_output_has "partial entry"
    run "$DECOMPRESS" --help
    expect_output_has "--test"
}

@test "--version and -V print the program name and version" {
    local p
    for p in "$COMPRESS" "$DECOMPRESS"; do
        run "$p" --version
        expect_status 0
        # the library's release, as include/simtrace.h has it
        [[ $output == "$(basename "$p") (svpc) $(sed -n 's/^#define SIMTRACE_VERSION_STRING "\(.*\)"$/\1/p' "$ROOT/include/simtrace.h")" ]] ||
            fail "bad version line: $output"
        run "$p" -V
        expect_status 0
        [[ $output == "$(basename "$p") (svpc) "* ]] || fail "bad version line: $output"
    done
}

@test "svpc-compress: unknown option is a usage error (exit 2, 'svpc-compress:' message)" {
    run "$COMPRESS" --no-such-option
    expect_status 2
    expect_prefix svpc-compress
    expect_output_has "no-such-option"
    run "$COMPRESS" -Z
    expect_status 2
    expect_prefix svpc-compress
}

@test "svpc-decompress: unknown option is a usage error (exit 2, 'svpc-decompress:' message)" {
    run "$DECOMPRESS" --no-such-option
    expect_status 2
    expect_prefix svpc-decompress
    expect_output_has "no-such-option"
    run "$DECOMPRESS" -Z
    expect_status 2
    expect_prefix svpc-decompress
}

@test "bad -t, -s, -e are usage errors naming the value" {
    run to out "$COMPRESS" -t d128
    expect_status 2
    expect_prefix svpc-compress
    expect_output_has "d128"
    run to out "$COMPRESS" -t bytes
    expect_status 2
    expect_prefix svpc-compress
    run to out "$COMPRESS" --type=
    expect_status 2
    expect_prefix svpc-compress
    run to out "$COMPRESS" -s lz4
    expect_status 2
    expect_prefix svpc-compress
    expect_output_has "lz4"
    run to out "$COMPRESS" --stage=XZ
    expect_status 2
    expect_prefix svpc-compress
    run to out "$COMPRESS" -e huffman
    expect_status 2
    expect_prefix svpc-compress
    expect_output_has "huffman"
    [[ ! -s out ]] || fail "a usage error wrote output"
}

@test "bad -T and --frame-size are usage errors" {
    local v
    for v in abc -1 65 1x 99999999999999999999999; do
        run to out "$COMPRESS" -T "$v"
        expect_status 2
        expect_prefix svpc-compress
        expect_output_has "thread"
        run to out "$DECOMPRESS" -T "$v"
        expect_status 2
        expect_prefix svpc-decompress
        expect_output_has "thread"
    done
    for v in 0 abc -5 1T 99999999999; do
        run to out "$COMPRESS" --frame-size "$v"
        expect_status 2
        expect_prefix svpc-compress
        expect_output_has "frame size"
    done
    run to out "$COMPRESS" -T
    expect_status 2
    expect_prefix svpc-compress
}

@test "-T0 and -T64 are accepted (0 = all CPUs)" {
    small_pair
    "$COMPRESS" -e generic -T0 in >c0
    "$COMPRESS" -e generic -T64 in >c64
    same c c0
    same c c64
    "$DECOMPRESS" -T0 c >o0
    "$DECOMPRESS" -T64 c >o64
    same in o0
    same in o64
}

@test "two input files are a usage error" {
    small_pair
    cp in in2
    run to out "$COMPRESS" in in2
    expect_status 2
    expect_prefix svpc-compress
    expect_output_has "one input file"
    [[ ! -s out ]] || fail "wrote output"
    run to out "$DECOMPRESS" c c
    expect_status 2
    expect_prefix svpc-decompress
    expect_output_has "one input file"
    [[ ! -s out ]] || fail "wrote output"
}

@test "bad stream name is a usage error" {
    run to out "$COMPRESS" --stream=
    expect_status 2
    expect_prefix svpc-compress
    run to out "$COMPRESS" --stream="$(printf 'x%.0s' {1..256})"
    expect_status 2
    expect_prefix svpc-compress
}

@test "missing input file: exit 1, the message names the file" {
    run to out "$COMPRESS" no-such-file.d64
    expect_status 1
    expect_prefix svpc-compress
    expect_output_has "no-such-file.d64"
    [[ ! -s out ]] || fail "wrote output"
    run to out "$DECOMPRESS" no-such-file.svpc
    expect_status 1
    expect_prefix svpc-decompress
    expect_output_has "no-such-file.svpc"
    [[ ! -s out ]] || fail "wrote output"
    # with -o, no output file is created either
    run "$COMPRESS" -o o1 no-such-file.d64
    expect_status 1
    [[ -z $(leftovers . o1) ]] || fail "left $(leftovers . o1)"
    run "$DECOMPRESS" -o o2 no-such-file.svpc
    expect_status 1
    [[ -z $(leftovers . o2) ]] || fail "left $(leftovers . o2)"
}

@test "a directory as input: exit 1, the message names it" {
    mkdir adir
    run to out "$COMPRESS" adir
    expect_status 1
    expect_prefix svpc-compress
    expect_output_has "adir"
    run to out "$DECOMPRESS" adir
    expect_status 1
    expect_prefix svpc-decompress
    expect_output_has "adir"
}

@test "-o to an existing file: exit 1 'exists' without -f, file untouched; -f overwrites" {
    small_pair
    echo precious >existing
    local before
    before=$(sum existing)
    run "$COMPRESS" -e generic -o existing in
    expect_status 1
    expect_prefix svpc-compress
    expect_output_has "exists"
    expect_output_has "existing"
    [[ $(sum existing) == "$before" ]] || fail "existing file was changed"
    run "$DECOMPRESS" -o existing c
    expect_status 1
    expect_prefix svpc-decompress
    expect_output_has "exists"
    [[ $(sum existing) == "$before" ]] || fail "existing file was changed"

    run "$COMPRESS" -e generic -f -o existing in
    expect_status 0
    same c existing
    echo precious >existing2
    run "$DECOMPRESS" --force --output=existing2 c
    expect_status 0
    same in existing2
    [[ -z $(leftovers . 'existing*.tmp') ]] || fail "temporary files left: $(leftovers . 'existing*.tmp')"
}

@test "-o naming the input file is refused (exit 2) and the input is unchanged" {
    small_pair
    local si sc
    si=$(sum in)
    sc=$(sum c)
    run "$COMPRESS" -o in in
    expect_status 2
    expect_prefix svpc-compress
    expect_output_has "input"
    [[ $(sum in) == "$si" ]] || fail "input changed"
    run "$COMPRESS" -f -o in in
    expect_status 2
    expect_prefix svpc-compress
    [[ $(sum in) == "$si" ]] || fail "input changed (with -f)"
    ln -s in in.link
    run "$COMPRESS" -f -o in.link in
    expect_status 2
    [[ $(sum in) == "$si" ]] || fail "input changed (output through a symlink)"
    run "$DECOMPRESS" -f -o c c
    expect_status 2
    expect_prefix svpc-decompress
    [[ $(sum c) == "$sc" ]] || fail "container changed"
    [[ -z $(leftovers . 'in.tmp') && -z $(leftovers . 'c.tmp') ]] || fail "temporary files left"
}

@test "standard output appended to the input file (prog FILE >> FILE) is refused (exit 2) and the input is unchanged" {
    small_pair
    local si sc
    si=$(sum in)
    sc=$(sum c)
    run sh -c '"$0" in >>in' "$COMPRESS"
    expect_status 2
    [[ $output == "svpc-compress: "*"standard output is the input file"* ]] || fail "message: $output"
    run sh -c '"$0" <in >>in' "$COMPRESS"
    expect_status 2
    [[ $(sum in) == "$si" ]] || fail "input changed"
    run sh -c '"$0" c >>c' "$DECOMPRESS"
    expect_status 2
    run sh -c '"$0" -d c >>c' "$COMPRESS"
    expect_status 2
    run sh -c '"$0" c >>c' "$SVPC_BIN/simtrace-cat"
    expect_status 2
    [[ $output == "simtrace-cat: "* ]] || fail "message: $output"
    [[ $(sum c) == "$sc" ]] || fail "container changed"
    # other regular files and devices are fine
    "$COMPRESS" in >>other
    "$COMPRESS" in >/dev/null
}

@test "the input file is never modified or removed" {
    real_d64 300 in 900
    local si sc
    si=$(sum in)
    "$COMPRESS" in >c
    "$COMPRESS" -k -o c2 in
    "$COMPRESS" -f -o c2 in
    [[ -f in && $(sum in) == "$si" ]] || fail "svpc-compress modified its input"
    sc=$(sum c)
    "$DECOMPRESS" c >d
    "$DECOMPRESS" -o d2 c
    "$DECOMPRESS" -t c
    [[ -f c && $(sum c) == "$sc" ]] || fail "svpc-decompress modified its input"
    # a failing run leaves its input alone too
    head -c 40 in >part
    local sp
    sp=$(sum part)
    run to c3 "$COMPRESS" part
    expect_status 1
    [[ $(sum part) == "$sp" ]] || fail "input changed"
    head -c 100 c >cut
    sp=$(sum cut)
    run to d3 "$DECOMPRESS" cut
    expect_status 1
    [[ $(sum cut) == "$sp" ]] || fail "input changed"
}

@test "terminal on stdout: svpc-compress refuses (exit 2, 'terminal'); -f writes" {
    small_pair
    in_tty "$(printf '%q' "$COMPRESS") -e generic < in"
    expect_status 2
    expect_output_has "svpc-compress:"
    expect_output_has "terminal"
    in_tty "$(printf '%q' "$COMPRESS") -e generic -f < in"
    expect_status 0
    expect_output_has "simtrace"
    # -o to a file is fine with a terminal on stdout
    in_tty "$(printf '%q' "$COMPRESS") -e generic -o $(printf '%q' "$T/tty.svpc") < in"
    expect_status 0
    same c tty.svpc
}

@test "terminal on stdout: svpc-decompress refuses (exit 2, 'terminal'); -f and -t work" {
    small_pair
    in_tty "$(printf '%q' "$DECOMPRESS") < c"
    expect_status 2
    expect_output_has "svpc-decompress:"
    expect_output_has "terminal"
    in_tty "$(printf '%q' "$DECOMPRESS") -f < c"
    expect_status 0
    in_tty "$(printf '%q' "$DECOMPRESS") -t < c"
    expect_status 0
}

@test "terminal on stdout: simtrace-cat refuses formats that are not text (raw, drmemtrace, vpc: exit 2), writes text ones; -f writes" {
    local sim="$ROOT/testdata/good/encoder14-drmx.sim" cat
    cat=$(printf '%q' "$SIMTRACE_CAT")
    for f in raw drmemtrace; do
        in_tty "$cat -F $f $sim"
        expect_status 2
        expect_output_has "simtrace-cat: refusing to write binary data to a terminal"
        in_tty "$cat -f -F $f $sim >/dev/null"
        expect_status 0
    done
    in_tty "$cat -F lackey $sim"
    expect_status 0
    "$SIMTRACE_PACK" -o v.sim --from vpc "$ROOT/testdata/good/sample.vpc"
    in_tty "$cat -F vpc v.sim"
    expect_status 2
    expect_output_has "terminal"
    in_tty "$cat -F text v.sim"
    expect_status 0
}

@test "terminal on stdin: svpc-decompress and simtrace-cat refuse to read a container from it at once (exit 2)" {
    local p
    for p in "$DECOMPRESS" "$SIMTRACE_CAT" "$SIMTRACE_CAT --list" "$COMPRESS -d"; do
        in_tty "timeout 20 $p -o /dev/null"
        expect_status 2
        expect_output_has "refusing to read a container from a terminal"
    done
    # a file named, or a redirection, is read as before
    small_pair
    in_tty "$(printf '%q' "$DECOMPRESS") -t c"
    expect_status 0
}

@test "decompress reads '-' as standard input; -d and -q are accepted" {
    small_pair
    "$DECOMPRESS" -d -q - <c >out
    same in out
}

@test "svpc-compress -d (--decompress, --uncompress, in any place among the options) is svpc-decompress" {
    small_pair
    "$COMPRESS" -d <c >out
    same in out
    "$COMPRESS" -T1 -dc c >out2
    same in out2
    "$COMPRESS" -f -o out3 --decompress c
    same in out3
    "$COMPRESS" -v c --uncompress -o out4 2>/dev/null
    same in out4
    # decompression's -t is --test, not compression's --type
    run "$COMPRESS" -d -t c
    expect_status 0
    [[ -z $output ]] || fail "-d -t wrote: $output"
    # compression options are usage errors there, named by this program
    run "$COMPRESS" -d -e cm c
    expect_status 2
    [[ $output == "svpc-compress: "*"-e"* ]] || fail "message: $output"
    # its data errors are named by this program too
    run "$COMPRESS" -d -o out5 "$ROOT/testdata/bad/data-entry-crc.sim"
    expect_status 1
    [[ ! -e out5 ]] || fail "a damaged container left out5"
    [[ $output == "svpc-compress: "*"checksum"* ]] || fail "message: $output"
    # after --, -d is a file name: of raw entries, which are compressed
    cp in ./-d
    "$COMPRESS" -- -d >out6
    [[ $(head -c 8 out6) == simtrace ]] || fail "'-- -d' did not compress the file named -d"
    "$DECOMPRESS" out6 >out7
    same in out7
    # the help and the hints of -d name "svpc-compress -d"
    run "$COMPRESS" -d --help
    expect_status 0
    [[ ${lines[0]} == "Usage: svpc-compress -d "* ]] || fail "help: ${lines[0]}"
    run "$COMPRESS" -d -e cm c
    [[ $output == *"Try 'svpc-compress -d --help'"* ]] || fail "hint: $output"
}

@test "svpc-decompress refuses a container of two streams, before writing (file, < file) or at the second stream (pipe)" {
    local f="$BATS_TEST_DIRNAME/../../testdata/good/two_streams.sim"
    run "$SVPC_BIN/svpc-decompress" -o "$BATS_TEST_TMPDIR/out" "$f"
    [ "$status" -eq 1 ]
    [[ "$output" == "svpc-decompress: "*"2 streams"* ]]
    [ ! -e "$BATS_TEST_TMPDIR/out" ]
    # standard input redirected from the file is a regular file too: refused
    # up front, nothing written
    run sh -c "'$SVPC_BIN/svpc-decompress' < '$f' > '$BATS_TEST_TMPDIR/out.stdin'"
    [ "$status" -eq 1 ]
    [[ "$output" == "svpc-decompress: (stdin): container holds 2 streams"* ]]
    [ ! -s "$BATS_TEST_TMPDIR/out.stdin" ]
    run sh -c "cat '$f' | '$SVPC_BIN/svpc-decompress' > /dev/null"
    [ "$status" -eq 1 ]
    [[ "$output" == "svpc-decompress: (stdin): "*"more than one stream"* ]]
}

@test "write failures: a full disk gives exit 1 and the system's reason; a reader that goes away a quiet SIGPIPE" {
    rand_bytes 2000000 "$BATS_TEST_TMPDIR/in"
    run sh -c "'$SVPC_BIN/svpc-compress' < '$BATS_TEST_TMPDIR/in' > /dev/full"
    expect_status 1
    expect_prefix svpc-compress
    expect_output_has "No space left on device"
    # stored, not compressed: the output outgrows the pipe buffer after head exits
    # a reader that goes away: a quiet end by SIGPIPE, as cat, xz and zstd
    run bash -c "'$SVPC_BIN/svpc-compress' -e generic -s none < '$BATS_TEST_TMPDIR/in' | head -c 1 > /dev/null; exit \${PIPESTATUS[0]}"
    expect_status 141
    [[ -z $output ]] || fail "not quiet: $output"
    "$SVPC_BIN/svpc-compress" < "$BATS_TEST_TMPDIR/in" > "$BATS_TEST_TMPDIR/c.sim"
    run sh -c "'$SVPC_BIN/svpc-decompress' < '$BATS_TEST_TMPDIR/c.sim' > /dev/full"
    expect_status 1
    expect_prefix svpc-decompress
    expect_output_has "No space left on device"
}

@test "simtrace-pack: two --type for one stream are refused before any input is read (exit 2, both named)" {
    real_d64 64 a 500
    real_d64 64 b 900
    # d64 then d32 into 's': found at the second input, the first was
    # already packed (exit 1 after work); now found at the command line
    run "$SIMTRACE_PACK" -o p.sim --stream s --type d64 a --type d32 b
    expect_status 2
    expect_prefix simtrace-pack
    expect_output_has "stream 's': input 'a' is --type d64, but input 'b' is --type d32"
    [[ ! -e p.sim ]] || fail "p.sim written"
    # the default stream and the default type, against a user type
    run "$SIMTRACE_PACK" -o p.sim a --type rec:16 b
    expect_status 2
    expect_output_has "stream 'trace': input 'a' is --type d64, but input 'b' is --type rec:16"
    run "$SIMTRACE_PACK" -o p.sim --type rec:16 a --type rec:8 b
    expect_status 2
    # one type given twice, or two types in two streams, are fine
    "$SIMTRACE_PACK" -o p.sim --type d64 a --type d64 b
    "$SIMTRACE_PACK" -o q.sim --type d64 a --stream t --type bytes b
    [[ -s p.sim && -s q.sim ]]
}

@test "simtrace-pack --repair - and --append - are bad usage (exit 2) that say a file is needed" {
    local opt
    for opt in "--repair -: a repair reads its container by random access" \
        "--append -: an append writes into its container in place"; do
        run "$SIMTRACE_PACK" "${opt%% *}" - </dev/null
        expect_status 2
        expect_prefix simtrace-pack
        expect_output_has "$opt; name the file"
        [[ $output != *"No such file"* ]] || fail "$output"
    done
}

@test "the README quick start, pasted in order into a shell, works (its make lines left out: the programs are built)" {
    local qs
    # the sh block of the section, without the make lines (this test
    # runs the programs under test; make install is tested elsewhere)
    qs=$(sed -n '/^## Quick start/,/^## /p' "$ROOT/README.md" | sed -n '/^```sh$/,/^```$/p' | grep -v '^```' |
        grep -v '^make\b')
    [[ $qs == *svpc-compress* ]] || fail "no quick start found in README.md"
    # a fresh checkout as a new user has it: build/ and testdata/ beside
    mkdir q
    ln -s "$SVPC_BIN" q/build
    ln -s "$ROOT/testdata" q/testdata
    run bash -c "cd q && set -e -o pipefail && $qs" 2>&1
    expect_status 0
    [[ $output != *"file exists"* && $output != *"not found"* ]] || fail "$output"
    cmp q/trace.d64 q/back.d64
    "$DECOMPRESS" q/run.sim | cmp - <(xz -dc "$ROOT/testdata/good/lackey_sort_write.d64.xz")
}
