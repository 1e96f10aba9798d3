#!/usr/bin/env bats
# The bad-file corpus testdata/bad/ (written by tests/make-bad.c, one README
# line per file with the keyword its message must match) and the good files
# of testdata/good/: every bad file is rejected by every reader with exit 1
# and a message that starts with the program's name and names the problem;
# every good file reads back and round-trips byte for byte.  No run may crash.

load helpers

BAD="$ROOT/testdata/bad"
GOOD="$ROOT/testdata/good"
PACK="$SVPC_BIN/simtrace-pack"
CAT="$SVPC_BIN/simtrace-cat"

# bad_list: "NAME KEYWORD" per line, from testdata/bad/README.md.
bad_list() {
    sed -n 's/^| `\([^`]*\.sim\)` | `\([^`]*\)` |.*/\1 \2/p' "$BAD/README.md"
}

# check_all PROG ARGS...: run `PROG -T1 ARGS... FILE` on every bad file
# (stdout discarded) and check exit 1, the "PROG:" prefix and the keyword;
# report every file that fails, then fail.
# no_footer NAME: a bad file whose file header is valid and whose footer
# is not (cut off after its first frame, or a damaged footer)
no_footer() {
    shopt -s extglob
    [[ $1 == @(trunc-@(before-directory|before-footer|in-directory-header|in-directory|in-footer|in-frame-header|in-payload)|footer-@(data-after|dir-at-0|dir-is-footer|dir-outside|dir-size|magic|nframes-*)|append-killed-*).sim ]]
}

check_all() {
    local prog=$1 name kw st msg n=0 bad=0
    shift
    while read -r name kw; do
        n=$((n + 1))
        # random access reads a file without valid footer through its frame
        # headers (check_no_footer)
        [[ -n ${SKIP_NO_FOOTER:-} ]] && no_footer "$name" && continue
        st=0
        msg="$("$SVPC_BIN/$prog" -T1 "$@" "$BAD/$name" 2>&1 >/dev/null)" || st=$?
        if ((st != 1)); then
            echo "$name: $prog $*: exit $st (want 1): $msg" >&2
            bad=$((bad + 1))
        elif [[ $msg != "$prog: "* ]]; then
            echo "$name: $prog $*: message does not start with '$prog:': $msg" >&2
            bad=$((bad + 1))
        elif ! grep -qiE -- "$kw" <<<"$msg"; then
            echo "$name: $prog $*: message does not match /$kw/: $msg" >&2
            bad=$((bad + 1))
        fi
    done < <(bad_list)
    echo "$prog $*: $n files, $bad bad" >&2
    ((n > 50)) || fail "only $n bad files listed in $BAD/README.md"
    ((bad == 0))
}

@test "every file in testdata/bad has a README line, and every README line a file" {
    local listed present
    listed="$(bad_list | cut -d' ' -f1 | sort)"
    present="$(cd "$BAD" && ls -- *.sim | sort)"
    [[ $listed == "$present" ]] || fail "README and files differ: $(diff <(echo "$listed") <(echo "$present"))"
}

@test "the committed testdata/bad and edge files are what tests/make-bad writes" {
    local gen="$SVPC_BIN/tests/make-bad" f
    [[ -x $gen ]] || skip "no $gen (make testdata-bad builds it)"
    mkdir bad good
    run "$gen" "$ROOT/testdata/good/bios_write_300k.d64.xz" bad good
    expect_status 0
    diff -r bad "$BAD"
    for f in good/*; do
        cmp "$f" "$GOOD/${f##*/}"
    done
}

@test "svpc-decompress -t rejects every bad file (exit 1, named problem)" {
    check_all svpc-decompress -t
}

@test "simtrace-cat --verify rejects every bad file (exit 1, named problem)" {
    check_all simtrace-cat --verify
}

@test "simtrace-cat --entries 0: (random access) rejects every bad file with a footer" {
    SKIP_NO_FOOTER=1 check_all simtrace-cat --entries 0:
}

@test "simtrace-cat (plain read of a regular file) rejects every bad file with a footer" {
    SKIP_NO_FOOTER=1 check_all simtrace-cat
}

# A file without valid footer (cut off, a footer damaged, an --append
# killed): random access finds its frames by their headers, writes what
# --salvage writes, says so, and exits 0, or 1 when the frame cut off at
# the end held entries of the stream read (and says which), or when the
# bytes after its last frame may have (the file ends inside a frame
# header: which entries is not known).
@test "simtrace-cat reads a bad file without valid footer through its frame headers, as --salvage does" {
    local name kw st n=0 args
    while read -r name kw; do
        no_footer "$name" || continue
        n=$((n + 1))
        "$CAT" -q --salvage "$BAD/$name" >salvaged 2>/dev/null || true
        for args in "" "--entries 0:"; do
            st=0
            "$CAT" -T1 $args "$BAD/$name" >out 2>err || st=$?
            cmp -s out salvaged || fail "$name ($args): output differs from --salvage's: $(cat err)"
            grep -q "^simtrace-cat: .*$name: no valid directory and footer .* by scanning" err ||
                fail "$name ($args): no note: $(cat err)"
            if grep -q "were in the frame cut off at byte offset\|may have been there: lost" err; then
                ((st == 1)) || fail "$name ($args): entries lost, exit $st"
            else
                ((st == 0)) || fail "$name ($args): exit $st: $(cat err)"
            fi
        done
    done < <(bad_list)
    ((n >= 17)) || fail "only $n such files"
    # the entries of the frame cut off are named
    run "$CAT" -T1 "$BAD/trunc-in-payload.sim"
    expect_status 1
    expect_output_has "entries 100..199 of stream 'trace' were in the frame cut off at byte offset 508: lost"
    # cut inside the next frame's header: its entries are lost all the
    # same, though its header cannot say which; a range short of them is not
    run "$CAT" -T1 "$BAD/trunc-in-frame-header.sim"
    expect_status 1
    expect_output_has "the 50 bytes from byte offset 508 are not a whole frame"
    expect_output_has "entries of stream 'trace' from 100 on may have been there: lost, how many is not known"
    run "$CAT" -T1 --entries 0:100 "$BAD/trunc-in-frame-header.sim"
    expect_status 0
}

@test "2^24 entries claimed with a 100-byte payload: fails fast, and --memlimit 100M refuses it before allocating" {
    local f="$BAD/data-2p24-entries-100-bytes.sim"
    # no limit: refused from the stream set's lengths, at once (the reader
    # reserves, but never touches, the 512 MiB the header claims)
    local t0=$SECONDS
    run "$CAT" -T1 --verify "$f"
    expect_status 1
    expect_output_has "runs past the end of the payload"
    run "$CAT" -T1 --entries 0:10 "$f"
    expect_status 1
    expect_output_has "runs past the end of the payload"
    ((SECONDS - t0 <= 5)) || fail "took $((SECONDS - t0)) s"
    local p
    for p in "$CAT --entries 0:10" "$CAT" "$CAT --verify" "$DECOMPRESS -t"; do
        run $p -T1 --memlimit 100M "$f"
        expect_status 1
        expect_output_has "memlimit"
        [[ $output == *"16777216 entries"* ]] || fail "$p: $output"
    done
}

@test "data after the footer: the message gives where the extra bytes start, not the footer's offset" {
    # footer-data-after.sim ends with 8 bytes and a copy of the 32-byte footer
    local f="$BAD/footer-data-after.sim" extra
    extra=$(($(size "$f") - 8 - 32))
    run "$DECOMPRESS" -T1 -t "$f"
    expect_status 1
    expect_output_has "at byte offset $extra: corrupt data: data after the footer"
    run "$CAT" -T1 --verify "$f"
    expect_status 1
    expect_output_has "at byte offset $extra: corrupt data: data after the footer"
}

# ---- good files --------------------------------------------------------------

# streams FILE: "NAME TYPE ENTRIES" per stream, from --list.
streams() { "$CAT" --list "$1" | awk 'NR > 1 { print $1, $2, $3 }'; }

@test "every good container reads back the same through every path and round-trips through simtrace-pack" {
    local f name type n esz t
    for f in "$GOOD"/*.sim; do
        run "$CAT" --verify "$f"
        expect_status 0
        "$PACK" --concat "$f" >concat.sim
        while read -r name type n; do
            "$CAT" -s "$name" "$f" >seq.raw
            "$CAT" -s "$name" <"$f" >pipe.raw
            "$CAT" -s "$name" --entries 0: "$f" >ra.raw
            same seq.raw pipe.raw
            same seq.raw ra.raw
            "$CAT" -s "$name" concat.sim >cc.raw
            same seq.raw cc.raw
            # repack the raw entries as a new container
            case $type in
            d64 | d32 | m64 | m32 | vpc | event | bytes | drmemtrace) t=$type ;;
            *)
                ((n > 0)) || continue
                esz=$(($(size seq.raw) / n))
                t="$type:$esz"
                ;;
            esac
            "$PACK" --stream "$name" --type "$t" seq.raw >re.sim
            "$CAT" -s "$name" re.sim >re.raw
            same seq.raw re.raw || fail "$f: stream $name does not round-trip"
            case $type in vpc | drmemtrace) esz=12 ;; event) esz=24 ;; bytes) esz=1 ;; esac
            [[ $(size seq.raw) -eq $((n * ${ESIZE[$type]:-${esz:-1}})) ]] || fail "$f: $name: $(size seq.raw) bytes for $n entries"
        done < <(streams "$f")
    done
}

@test "good edge files: the expected streams and entries" {
    [[ -z $(streams "$GOOD/edge-empty.sim") ]]
    [[ $(streams "$GOOD/edge-one-entry.sim") == "trace d64 1" ]]
    [[ $(streams "$GOOD/edge-stream-without-frames.sim" | tr '\n' ';') == "empty d64 0;trace d64 10;" ]]
    [[ $(streams "$GOOD/edge-user-type.sim") == "records rec7 150" ]]
    run "$DECOMPRESS" -t "$GOOD/edge-one-entry.sim"
    expect_status 0
    "$DECOMPRESS" "$GOOD/edge-one-entry.sim" >one.raw
    { xz -dc "$GOOD/bios_write_300k.d64.xz" || true; } | head -c 32 >want
    same one.raw want
}

@test "the bundled traces round-trip through simtrace-pack and simtrace-cat (first 20000 entries each)" {
    local f n=20000 k=0
    [[ $SANITIZED == 1 ]] && n=5000 # and only two of the traces
    for f in "$GOOD"/*.d64.xz; do
        [[ $SANITIZED == 1 ]] && ((k++ >= 2)) && break
        { xz -dc "$f" || true; } | head -c $((n * 32)) >in.raw
        "$PACK" -T1 --frame-size 5000 in.raw >c.sim
        "$CAT" -T1 c.sim >out.raw
        same in.raw out.raw || fail "$f does not round-trip"
    done
}

@test "simtrace-pack --concat refuses every bad file (frames with bad attribute lists included); encoder-level damage it copies undecoded stays detectable" {
    # these five are sound down to the attributes: their damage is in the
    # encoded entries (or in what they must decode to), which --concat copies
    # without decoding
    local -A undecoded=([data-2p24-entries-100-bytes.sim]=1 [data-first-cycle.sim]=1 [set-raw-len-huge.sim]=1
        [set-stage-4.sim]=1 [data-entry-crc.sim]=1)
    local name kw st msg bad=0
    while read -r name kw; do
        st=0
        msg="$("$PACK" -T1 --concat "$BAD/$name" 2>&1 >c.sim)" || st=$?
        if [[ -n ${undecoded[$name]:-} ]]; then
            run "$CAT" -T1 --verify c.sim
            if ((st == 0 && status != 1)); then
                echo "$name: --concat output passes --verify (exit $status)" >&2
                bad=$((bad + 1))
            fi
        elif ((st != 1)) || [[ $msg != "simtrace-pack: "* ]] || ! grep -qiE -- "$kw" <<<"$msg"; then
            echo "$name: simtrace-pack --concat: exit $st: $msg" >&2
            bad=$((bad + 1))
        fi
    done < <(bad_list)
    ((bad == 0))
}

@test "entries that do not match their frame's ENTRY_CRC are never written with exit 0, ranges ending inside the frame included; --ignore-check skips that check only" {
    local f="$BAD/data-entry-crc.sim" # frame 2, seq 1 (entries 100..199) lies about its entries' CRC
    xz -dc "$GOOD/bios_write_300k.d64.xz" | head -c $((300 * 32)) >want || true
    # a range that ends inside the frame decodes it whole to check it
    run "$CAT" -T1 --entries 150:151 -o out "$f"
    expect_status 1
    [[ $output == "simtrace-cat: "*"frame 1 of stream 0 "*"checksum"* ]] || fail "message: $output"
    [[ ! -e out ]] || fail "a failed read left its output"
    # ranges that stay out of the frame are served
    "$CAT" -T1 --entries 50:60 "$f" >out1
    same out1 <(tail -c +$((50 * 32 + 1)) want | head -c $((10 * 32)))
    # --ignore-check: only the prefix is decoded, unchecked (here the entries
    # are in fact intact: only the checksum was changed)
    "$CAT" -T1 --ignore-check --entries 150:151 "$f" >out2
    same out2 <(tail -c +$((150 * 32 + 1)) want | head -c 32)
    "$CAT" -T1 --ignore-check "$f" >out3
    same out3 want
    "$SVPC_BIN/svpc-decompress" -T1 --ignore-check "$f" >out4
    same out4 want
    run "$SVPC_BIN/svpc-decompress" -T1 "$f"
    expect_status 1
    # stored checksums are checked all the same
    run "$CAT" -T1 --ignore-check "$BAD/payload-crc.sim"
    expect_status 1
    [[ $output == *"payload checksum"* ]] || fail "message: $output"
}

@test "an --append killed: the earlier stream reads whole by every random-access reader; --repair and --append finish it" {
    local f want
    xz -dc "$GOOD/bios_write_300k.d64.xz" | head -c $((300 * 32)) >want || true
    for f in append-killed-in-frame append-killed-at-frame; do
        cp "$BAD/$f.sim" x.sim
        run to got "$CAT" -T1 -s trace x.sim
        expect_status 0
        expect_output_has "x.sim: no valid directory and footer"
        same got want
        run to got "$CAT" -T1 -s trace --entries 250:300 x.sim
        expect_status 0
        same got <(tail -c +$((250 * 32 + 1)) want)
        run "$CAT" -T1 --list x.sim
        expect_status 0
        [[ $output == *"trace "*" 300 "* && $output == *"added "*" 100 "* ]] || fail "--list: $output"
        # the new stream: its complete frame; the frame cut off is named
        run to got "$CAT" -T1 -s added x.sim
        same got <(head -c $((100 * 32)) want)
        if [[ $f == append-killed-in-frame ]]; then
            expect_status 1
            expect_output_has "entries 100..149 of stream 'added' were in the frame cut off at byte offset"
        else
            expect_status 0
        fi
        # sequential readers still report the missing end
        run "$CAT" -T1 --verify x.sim
        expect_status 1
        run "$PACK" --repair x.sim
        expect_status 0
        expect_output_has "x.sim: repaired: directory and footer written for 400 entries in 6 frames, the streams' declarations counted"
        run "$CAT" -T1 --verify x.sim
        expect_status 0
        cp "$BAD/$f.sim" y.sim
        run "$PACK" -T1 --append y.sim --stream more want
        expect_status 0
        run "$CAT" -T1 --verify y.sim
        expect_status 0
        run to got "$CAT" -T1 -s more y.sim
        same got want
    done
}

# The promise behind the exit status of a read through frame headers: a
# container cut at any byte gives status 0 only with every entry of the
# stream, or with those of its complete frames when the cut falls between
# two frames (nothing of the next was written: a writer stopped there).
# A cut inside a frame's header, or inside its payload, exits 1.
@test "a container cut at every byte: status 0 only with every entry, or at a frame boundary" {
    real_d64 150 in.d64
    "$PACK" -T1 --frame-size 50 -o full.sim in.d64
    local size ends n st bad=""
    size=$(size full.sim)
    # where the first data frame starts and each ends (offset + bytes)
    ends=" $("$CAT" --list --frames full.sim | awk 'NR == 2 { printf "%d ", $(NF - 1) }
                                                   NR > 1 { printf "%d ", $(NF - 1) + $NF }')"
    [[ $ends =~ ^(\ [0-9]+){4}\ $ ]] || fail "frame list: $ends"
    for ((n = 64; n < size; n++)); do
        head -c "$n" full.sim >cut.sim
        st=0
        "$CAT" -T1 -q cut.sim >out 2>err || st=$?
        if ((st == 0)); then
            cmp -s out in.d64 || [[ $ends == *" $n "* ]] || bad+=" $n"
        elif ((st != 1)) || ! grep -q "^simtrace-cat: cut.sim: " err; then
            bad+=" $n(exit $st)"
        fi
    done
    [[ -z $bad ]] || fail "cut lengths with status 0 but entries missing, or a bad failure:$bad"
}

@test "a cut frame header names its stream once it reaches the stream field: other streams read whole, exit 0" {
    real_d64 200 r.d64
    real_d64 200 w.d64 5000
    "$PACK" -T1 --frame-size 100 --stream read r.d64 --stream write w.d64 -o two.sim
    local last
    last=$("$CAT" --list --frames two.sim | awk 'END { print $(NF - 1) }')
    # 20 bytes of write's last frame header: its stream field is in them
    head -c $((last + 20)) two.sim >cut.sim
    run to got "$CAT" -s read cut.sim
    expect_status 0
    same got r.d64
    run to got "$CAT" -s write cut.sim
    expect_status 1
    expect_output_has "cut.sim: the 20 bytes from byte offset $last are not a whole frame"
    expect_output_has "entries of stream 'write' from 100 on may have been there: lost"
    same got <(head -c $((100 * 32)) w.d64)
    run to got "$CAT" -s write --entries 0:100 cut.sim
    expect_status 0
    run to got "$CAT" -F lackey cut.sim
    expect_status 1
    expect_output_has "stream 'write' from 100 on may have been there"
    # 8 bytes: which stream is not known, so every stream read says so
    head -c $((last + 8)) two.sim >cut.sim
    run to got "$CAT" -s read cut.sim
    expect_status 1
    expect_output_has "entries of stream 'read' from 200 on may have been there: lost"
    same got r.d64
    # a merge says it of each stream it reads, as the one-stream export does
    run to got "$CAT" -F lackey cut.sim
    expect_status 1
    expect_output_has "entries of stream 'read' from 200 on may have been there: lost"
    expect_output_has "entries of stream 'write' from 100 on may have been there: lost"
}

@test "the last whole frame damaged and the next cut off: the damaged one is not called cut, and the loss after it is said" {
    real_d64 400 in.d64
    "$PACK" -T1 --frame-size 100 -o full.sim in.d64
    local f1 f2
    f1=$("$CAT" --list --frames full.sim | awk '$2 == 1 { print $(NF - 1) }')
    f2=$("$CAT" --list --frames full.sim | awk '$2 == 2 { print $(NF - 1) }')
    cp full.sim d.sim
    printf '\377' | dd of=d.sim bs=1 seek=$((f1 + 150)) conv=notrunc status=none
    head -c $((f2 + 120)) d.sim >cut.sim
    run to got "$CAT" cut.sim
    expect_status 1
    expect_output_has "entries 100..199 of stream 'trace' were in the frame at byte offset $f1, the last before the end, whose payload fails its checksum"
    expect_output_has "the 120 bytes from byte offset $f2 are not a whole frame"
    expect_output_has "entries of stream 'trace' from 200 on may have been there: lost"
    same got <(head -c $((100 * 32)) in.d64)
    run to got "$CAT" --salvage cut.sim
    expect_status 1
    expect_output_has "the frame at byte offset $f1 is whole but fails its payload checksum"
    # cut at its end: the same frame, nothing after it
    head -c "$f2" d.sim >cut2.sim
    run to got "$CAT" cut2.sim
    expect_status 1
    expect_output_has "were in the frame at byte offset $f1, the last before the end, whose payload fails its checksum"
    [[ $output != *"not a whole frame"* ]] || fail "$output"
}
