# helpers.bash - shared setup and input generators for the svpc CLI tests.
#
# Loaded by every tests/cli/*.bats file with `load helpers`.
#
# Environment:
#   SVPC_BIN         directory holding svpc-compress, svpc-decompress,
#                    simtrace-pack and simtrace-cat (default: <repo>/build)
#   SVPC_SANITIZED   1 when the binaries are built with ASan/UBSan: the tests
#                    then use fewer/lighter cases where noted, so the suite
#                    stays within about two minutes.
#
# Inputs: random bytes come from /dev/urandom; "real" trace data comes from
# testdata/good/*.d64.xz when present, else from the reference corpus beside
# the clone (<repo>/../shared/corpus), else from a small synthetic generator
# written in Perl (perl-base is essential on Debian), so every test always
# has an input.  Tests that need the corpus itself skip with a message when
# it is absent.

ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
SVPC_BIN="${SVPC_BIN:-$ROOT/build}"
COMPRESS="$SVPC_BIN/svpc-compress"
DECOMPRESS="$SVPC_BIN/svpc-decompress"
SIMTRACE_PACK="$SVPC_BIN/simtrace-pack"
SIMTRACE_CAT="$SVPC_BIN/simtrace-cat"
CORPUS_DIR="$(cd "$ROOT/.." && pwd)/shared/corpus"
SANITIZED="${SVPC_SANITIZED:-0}"

# Entry sizes in bytes.
declare -gA ESIZE=([d64]=32 [d32]=20 [m64]=24 [m32]=16 [vpc]=12)

# Container layout constants (formats/SIMTRACE.md).
FILE_HDR=64
FRAME_HDR=96
FOOTER=32

# common_setup: check the binaries, make the per-test temporary directory the
# working directory ($T).  Files that need more define their own setup()
# calling this.
common_setup() {
    if [[ ! -x $COMPRESS || ! -x $DECOMPRESS || ! -x $SIMTRACE_PACK || ! -x $SIMTRACE_CAT ]]; then
        echo "svpc binaries not found in SVPC_BIN=$SVPC_BIN (run 'make all')" >&2
        return 1
    fi
    T="$BATS_TEST_TMPDIR"
    cd "$T" || return 1
}

setup() { common_setup; }

# ---- small utilities --------------------------------------------------------

# fail MESSAGE: print to the test's output and fail.
fail() {
    printf '%s\n' "$*" >&2
    return 1
}

# size FILE: byte count.
size() { stat -c %s "$1"; }

# sum FILE: content checksum.
sum() { sha256sum <"$1" | cut -d' ' -f1; }

# to FILE CMD...: run CMD with stdout to FILE.  Meant for `run to FILE CMD...`,
# which then captures only CMD's standard error in $output.
to() {
    local f=$1
    shift
    "$@" >"$f"
}

# first_line: the first line of $output.
first_line() { printf '%s\n' "$output" | head -n 1; }

# expect_status N: check $status, showing $output when it differs.
expect_status() {
    if [[ $status -ne $1 ]]; then
        printf 'expected exit status %s, got %s; output:\n%s\n' "$1" "$status" "$output" >&2
        return 1
    fi
}

# expect_output_has TEXT: $output contains TEXT.
expect_output_has() {
    if [[ $output != *"$1"* ]]; then
        printf 'expected the message to contain "%s"; output:\n%s\n' "$1" "$output" >&2
        return 1
    fi
}

# expect_prefix PROG: the first line of $output starts with "PROG:".
expect_prefix() {
    local l
    l="$(first_line)"
    if [[ $l != "$1:"* ]]; then
        printf 'expected the message to start with "%s:"; output:\n%s\n' "$1" "$output" >&2
        return 1
    fi
}

# same A B: files are byte-identical (cmp's message on failure).
same() { cmp -- "$1" "$2"; }

# is_prefix SHORT LONG: SHORT is a byte prefix of LONG.
is_prefix() {
    local n
    n=$(size "$1")
    [[ $n -le $(size "$2") ]] && cmp -n "$n" -- "$1" "$2"
}

# ---- input generators -------------------------------------------------------

# rand_bytes N FILE: N random bytes.
rand_bytes() { head -c "$1" /dev/urandom >"$2"; }

# synth_d64 N FILE: N trace-like d64 entries (loops over strided addresses,
# a few instruction pointers, rising cycles, small data values).  Fallback
# when no real trace is at hand.
synth_d64() {
    perl -e '
        use strict; use warnings;
        my ($n, $seed) = @ARGV; srand($seed);
        binmode STDOUT;
        my ($cyc, $i, $buf) = (1000, 0, "");
        my @ips = map { 0xf0000 + 0x40 * $_ } 0 .. 15;
        while ($i < $n) {
            my $base = 0x7000 + 0x1000 * int(rand(8));
            my $len = 1 + int(rand(200));
            for my $k (0 .. $len - 1) {
                last if $i >= $n;
                $cyc += 1 + int(rand(3));
                my $full = rand() < 0.8 ? 1 : 0;
                my $meta = $cyc | ($full << 48);
                my $ip = $ips[($k % 4) + 4 * int($base / 0x1000 % 4)];
                my $addr = $base + 8 * $k;
                my $data = $full ? ($k * 3 + ($base >> 4)) : ((2 << 32) | ($k & 0xffff));
                $buf .= pack("Q<4", $meta, $ip, $addr, $data);
                $i++;
            }
            if (length($buf) > 65536) { print $buf; $buf = ""; }
        }
        print $buf;
    ' "$1" "${2:-42}" >"$3"
}

# real_source: prints where real trace data comes from (for messages).
real_source() {
    local f
    for f in "$ROOT"/testdata/good/*.d64.xz; do
        [[ -f $f ]] && { echo "testdata/good"; return; }
    done
    for f in "$CORPUS_DIR"/*.d64.zst; do
        [[ -f $f ]] && { echo "corpus $CORPUS_DIR"; return; }
    done
    echo "synthetic entries (no testdata, no corpus)"
}

# real_pool: path of a cached 4 MiB d64 pool of real trace data (made once
# per bats run): the testdata/good traces (largest first), then the corpus,
# repeated when they hold less; synthetic entries when there is neither.
POOL_BYTES=4194304
real_pool() {
    local pool="$BATS_RUN_TMPDIR/real-pool.d64"
    if [[ ! -s $pool ]]; then
        local tmp="$pool.$$" f have=0 n
        : >"$tmp"
        local -a srcs=()
        mapfile -t srcs < <(ls -S -- "$ROOT"/testdata/good/*.d64.xz 2>/dev/null; ls -- "$CORPUS_DIR"/*.d64.zst 2>/dev/null)
        for f in "${srcs[@]}"; do
            ((have < POOL_BYTES)) || break
            case $f in
            *.xz) { xz -dc -- "$f" 2>/dev/null || true; } | head -c $((POOL_BYTES - have)) >>"$tmp" ;;
            *.zst) { zstd -dc -q -- "$f" 2>/dev/null || true; } | head -c $((POOL_BYTES - have)) >>"$tmp" ;;
            esac
            have=$(size "$tmp")
            have=$((have / 32 * 32))
            truncate -s "$have" "$tmp" # whole entries only
        done
        if ((have == 0)); then
            synth_d64 $((POOL_BYTES / 32)) 7 "$tmp"
        fi
        while (($(size "$tmp") < POOL_BYTES)); do
            head -c $((POOL_BYTES - $(size "$tmp"))) "$tmp" >"$tmp.more"
            cat "$tmp.more" >>"$tmp"
            rm -f "$tmp.more"
        done
        mv -f "$tmp" "$pool"
    fi
    echo "$pool"
}

# real_d64 N FILE [SKIP]: N entries of real trace data, starting SKIP entries
# into the pool (default 0; wraps around when the pool is short).
real_d64() {
    local n=$1 out=$2 skip=${3:-0} pool total
    pool="$(real_pool)"
    total=$(($(size "$pool") / 32))
    ((n <= total)) || fail "real_d64: at most $total entries"
    skip=$((skip % (total - n + 1)))
    tail -c +$((skip * 32 + 1)) "$pool" | head -c $((n * 32)) >"$out"
}

# convert_d64 TYPE < d64 > TYPE: repack d64 entries into another layout
# (fields wider than the layout are truncated, as st_entry_store does).
convert_d64() {
    perl -e '
        use strict; use warnings;
        my $t = shift; binmode STDIN; binmode STDOUT;
        local $/ = \32;
        while (my $e = <STDIN>) {
            last if length($e) < 32;
            my ($m, $ip, $a, $d) = unpack("Q<4", $e);
            if    ($t eq "d64") { print $e }
            elsif ($t eq "d32") { print pack("Q<L<L<L<", $m, $ip & 0xffffffff, $a & 0xffffffff, $d & 0xffffffff) }
            elsif ($t eq "m64") { print pack("Q<3", $m, $ip, $a) }
            elsif ($t eq "m32") { print pack("Q<L<L<", $m, $ip & 0xffffffff, $a & 0xffffffff) }
            else { die "bad type $t\n" }
        }
    ' "$1"
}

# real_of TYPE N FILE [SKIP]: N entries of real-trace-derived data of TYPE.
real_of() {
    local t=$1 n=$2 out=$3 skip=${4:-0}
    real_d64 "$n" "$out.d64src" "$skip"
    convert_d64 "$t" <"$out.d64src" >"$out"
    rm -f "$out.d64src"
}

# slow_feed FILE CHUNK DELAY FIFO: write FILE into FIFO, CHUNK bytes at a
# time with DELAY seconds between chunks (ends quietly when the reader goes).
# The function execs perl, so that the caller's $! is the writer itself:
# killing only a subshell left its perl writing one more chunk into the
# FIFO's next reader (stop 28's CI failure of reliability.bats).
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

# ---- container inspection and damage ----------------------------------------

# u64 FILE OFFSET: little-endian u64 at OFFSET.
u64() { od -An -t u8 -j "$2" -N 8 -- "$1" | tr -d ' \n'; }

# frames FILE: one line per frame: "OFFSET TOTALSIZE KIND" (kind 1 data,
# 2 stream, 3 directory), walking the headers from the file header on.
frames() {
    perl -e '
        use strict; use warnings;
        open(my $fh, "<:raw", $ARGV[0]) or die "$ARGV[0]: $!\n";
        local $/; my $b = <$fh>; my $n = length $b; my $o = 64;
        while ($o + 96 <= $n - 32) {
            die "no frame magic at $o\n" unless substr($b, $o, 4) eq "STFR";
            my $kind = ord(substr($b, $o + 4, 1));
            my $ps = unpack("Q<", substr($b, $o + 72, 8));
            print "$o ", 96 + $ps, " $kind\n";
            $o += 96 + $ps;
            last if $kind == 3;
        }
    ' "$1"
}

# frame_field FILE INDEX FIELD: field (offset|size|kind) of the INDEX-th frame
# (0-based, any kind).
frame_field() {
    local line
    line="$(frames "$1" | sed -n "$(($2 + 1))p")"
    [[ -n $line ]] || fail "no frame $2 in $1"
    set -- $line "$3"
    case $4 in
    offset) echo "$1" ;;
    size) echo "$2" ;;
    kind) echo "$3" ;;
    esac
}

# flip FILE BITINDEX: invert one bit (bit 0 = lowest bit of byte 0).
flip() {
    perl -e '
        use strict; use warnings;
        my ($f, $bit) = @ARGV;
        open(my $fh, "+<:raw", $f) or die "$f: $!\n";
        my $pos = int($bit / 8);
        seek($fh, $pos, 0) or die; my $c; read($fh, $c, 1) == 1 or die "offset $pos past end of $f\n";
        seek($fh, $pos, 0) or die; print $fh chr(ord($c) ^ (1 << ($bit % 8)));
        close($fh) or die;
    ' "$1" "$2"
}

# flip_byte FILE OFFSET [BIT]: invert bit BIT (default 0) of byte OFFSET.
flip_byte() { flip "$1" $(($2 * 8 + ${3:-0})); }

# cut FILE LEN OUT: the first LEN bytes of FILE into OUT.
cut_to() { head -c "$2" -- "$1" >"$3"; }

# leftovers DIR PREFIX: files in DIR whose name starts with PREFIX (output
# files and their temporaries).
leftovers() { find "$1" -maxdepth 1 -name "$2*" -printf '%f\n' | sort; }

# damage_loop MODE SRC ORIG POSITIONS CMD...: for each position (comma
# separated), make a damaged copy of the container SRC -- MODE "flip": bit
# POSITION inverted; MODE "cut": only the first POSITION bytes -- run
# `CMD... COPY` with stdout and stderr to files, and check the promise of
# the readers: exit 0 with output equal to ORIG, or exit 1 with a message
# that starts with the program's name and output that is a prefix of ORIG (whole
# entries of intact frames only; with DL_ALLOWED set to a comma-separated
# list of byte counts, the output on exit 1 must be one of them, e.g. the
# frame boundaries).  MODE "cut" requires exit 1.  One Perl
# process drives the loop (one fork per run), which keeps it fast on slow
# machines.  Prints one line per bad case and a summary; fails if any.
damage_loop() {
    perl -e '
        use strict; use warnings;
        my ($mode, $src, $orig, $list, @cmd) = @ARGV;
        (my $prog = $cmd[0]) =~ s{.*/}{};
        my %allowed = map { $_ => 1 } split /,/, ($ENV{DL_ALLOWED} // "");
        sub slurp { open(my $f, "<:raw", $_[0]) or die "$_[0]: $!\n"; local $/; my $d = <$f>; return defined $d ? $d : ""; }
        my $c = slurp($src); my $o = slurp($orig);
        my ($bad, $exact, $rejected) = (0, 0, 0);
        for my $p (split /,/, $list) {
            my $x = $c;
            if ($mode eq "flip") { vec($x, $p, 1) ^= 1; } else { $x = substr($c, 0, $p); }
            open(my $w, ">:raw", "dl.in") or die; print $w $x; close $w or die;
            my $pid = fork(); die "fork: $!\n" unless defined $pid;
            if (!$pid) {
                open(STDOUT, ">", "dl.out") or die; open(STDERR, ">", "dl.err") or die;
                exec(@cmd, "dl.in") or exit 127;
            }
            waitpid($pid, 0);
            my ($rc, $sig) = ($? >> 8, $? & 127);
            my $out = slurp("dl.out"); my $err = slurp("dl.err");
            my $what = $mode eq "flip" ? sprintf("bit %d (byte %d)", $p, $p >> 3) : "cut at $p bytes";
            my $why;
            if ($sig) { $why = "killed by signal $sig"; }
            elsif ($rc == 0) {
                if ($mode eq "cut") { $why = "exit 0 for a cut-off container"; }
                elsif ($out ne $o) { $why = "EXIT 0 WITH WRONG OUTPUT (" . length($out) . " bytes)"; }
                else { $exact++; }
            } elsif ($rc == 1) {
                if ($err !~ /^\Q$prog\E: /) { $why = "message does not start with $prog:"; }
                elsif (length($out) > length($o) || $out ne substr($o, 0, length($out))) {
                    $why = "exit 1 but the " . length($out) . "-byte output is not a prefix of the original";
                } elsif (%allowed && !$allowed{length($out)}) {
                    $why = "exit 1 with " . length($out) . " bytes of output: not a frame boundary ($ENV{DL_ALLOWED})";
                } else { $rejected++; }
            } else { $why = "exit status $rc (want 0 or 1)"; }
            if (defined $why) { $bad++; $err =~ s/\n/ | /g; print STDERR "$what: $why; stderr: $err\n"; }
        }
        unlink("dl.in", "dl.out", "dl.err");
        print STDERR "damage_loop $mode: $rejected rejected, $exact exact, $bad bad\n";
        exit($bad ? 1 : 0);
    ' "$@"
}

# spread TOTAL N [JITTER]: N positions spread evenly over 0..TOTAL-1, each
# moved by (i * 5) mod JITTER (default 8: a different bit of each byte),
# comma separated.
spread() {
    local total=$1 n=$2 j=${3:-8} i out=""
    for ((i = 0; i < n; i++)); do
        out+="$(((i * total / n + (i * 5) % j) % total)),"
    done
    echo "${out%,}"
}

# frame_table FILE: one line per frame, walking the headers (SIMTRACE.md 3):
# "ORDINAL OFFSET TOTALSIZE KIND STREAM FIRST_ENTRY COUNT FIRST_TIME LAST_TIME".
# The directory frame ends the walk; a cut-off frame is listed with the size
# its header claims, so callers can tell what a cut leaves whole.
frame_table() {
    perl -e '
        use strict; use warnings;
        open(my $fh, "<:raw", $ARGV[0]) or die "$ARGV[0]: $!\n";
        local $/; my $b = <$fh>; my $n = length $b; my ($o, $k) = (64, 0);
        while ($o + 96 <= $n) {
            last unless substr($b, $o, 4) eq "STFR";
            my ($kind, $stream) = (ord(substr($b, $o + 4, 1)), unpack("L<", substr($b, $o + 8, 4)));
            my ($fe, $cnt) = unpack("Q<2", substr($b, $o + 24, 16));
            my ($ft, $lt, $ps) = unpack("Q<3", substr($b, $o + 56, 24));
            print join(" ", $k++, $o, 96 + $ps, $kind, $stream, $fe, $cnt, $ft, $lt), "\n";
            $o += 96 + $ps;
            last if $kind == 3;
        }
    ' "$1"
}

# cycle_slices ESZ FILE PREFIX LO:HI...: for each range i, the entries of
# FILE whose cycle (low 48 bits of their first u64, little-endian) lies in
# [LO, HI) into PREFIX.i (an empty LO is 0, an empty HI no upper end): the
# reference for simtrace-cat --cycles, a plain filter in one pass over the
# input.  Fails if the cycles ever decrease (--cycles needs them ordered).
cycle_slices() {
    perl -e '
        use strict; use warnings;
        my ($esz, $file, $prefix, @r) = @ARGV;
        open(my $in, "<:raw", $file) or die "$file: $!\n";
        my (@lo, @hi, @fh);
        for my $i (0 .. $#r) {
            my ($l, $h) = split /:/, $r[$i], -1;
            push @lo, ($l eq "" ? 0 : $l); push @hi, ($h eq "" ? undef : $h);
            open($fh[$i], ">:raw", "$prefix.$i") or die "$prefix.$i: $!\n";
        }
        local $/ = \$esz;
        my ($prev, $k) = (-1, 0);
        while (my $e = <$in>) {
            my $c = unpack("Q<", $e) & ((1 << 48) - 1);
            die "cycles decrease at entry $k of $file\n" if $c < $prev;
            ($prev, $k) = ($c, $k + 1);
            for my $i (0 .. $#r) {
                print { $fh[$i] } $e if $c >= $lo[$i] && (!defined $hi[$i] || $c < $hi[$i]);
            }
        }
        close($_) or die for @fh;
    ' "$@"
}

# cycle_stats ESZ < entries: "COUNT FIRST LAST DECREASES EQUAL_NEIGHBOURS" of
# the cycles of the entries.
cycle_stats() {
    perl -e '
        use strict; use warnings;
        my $esz = shift; binmode STDIN; local $/ = \$esz;
        my ($n, $first, $prev, $dec, $eq) = (0, 0, -1, 0, 0);
        while (my $e = <STDIN>) {
            my $c = unpack("Q<", $e) & ((1 << 48) - 1);
            $first = $c if $n == 0;
            $dec++ if $n && $c < $prev;
            $eq++ if $n && $c == $prev;
            ($prev, $n) = ($c, $n + 1);
        }
        print "$n $first $prev $dec $eq\n";
    ' "$1"
}

# cycle_of FILE ESZ I: cycle of entry I of FILE.
cycle_of() {
    perl -e '
        use strict; use warnings;
        my ($f, $esz, $i) = @ARGV; open(my $fh, "<:raw", $f) or die; seek($fh, $esz * $i, 0) or die;
        read($fh, my $e, 8) == 8 or die "no entry $i in $f\n";
        print unpack("Q<", $e) & ((1 << 48) - 1), "\n";
    ' "$@"
}

# slice_entries FILE ESZ A [B]: entries [A, B) of FILE (B empty or absent:
# to the end), cut with dd -- the reference for simtrace-cat --entries.
slice_entries() {
    local f=$1 esz=$2 a=$3 b=${4:-}
    if [[ -z $b ]]; then
        dd if="$f" bs=1M iflag=skip_bytes skip=$((a * esz)) status=none
    else
        dd if="$f" bs=1M iflag=skip_bytes,count_bytes skip=$((a * esz)) count=$(((b - a) * esz)) status=none
    fi
}
