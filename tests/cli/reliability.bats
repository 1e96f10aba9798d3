#!/usr/bin/env bats
# Issue 15 (reliability): one stream's damage stays in its stream, cycles
# checked when written, consistent range edges, and the manners of a Unix
# filter (a reader gone from the pipe, -v, warnings).  Interrupted and
# killed writers are in pack_write_fail.bats, files without footer in
# bad_files.bats.

load helpers

PACK="$SVPC_BIN/simtrace-pack"
CAT="$SVPC_BIN/simtrace-cat"
COMPRESS="$SVPC_BIN/svpc-compress"

# two_streams: x.sim with streams ra (a, 20000 entries) and rb (b, 20000
# entries), frames of 1000 entries, interleaved by input order.
two_streams() {
    real_d64 20000 a
    real_d64 20000 b 30000
    "$PACK" -T1 --frame-size 1000 -o x.sim --stream ra a --stream rb b
}

# data_frame_offset FILE N: offset of the N-th data frame (0-based) of the file.
data_frame_offset() {
    frames "$1" | awk -v n="$2" '$3 == 1 { if (k++ == n) { print $1; exit } }'
}

@test "a flipped byte in one stream: another stream reads whole with exit 0 from a file and a pipe, with a note" {
    two_streams
    local off
    off=$(data_frame_offset x.sim 2) # the third frame of ra
    flip_byte x.sim $((off + 96 + 300))
    run to got "$CAT" -s rb x.sim
    expect_status 0
    same got b
    expect_output_has "simtrace-cat: x.sim: passed over damaged frame 3 at byte offset $off of stream 'ra' (payload checksum mismatch), not the stream read"
    run to got2 sh -c "cat x.sim | '$CAT' -s rb"
    expect_status 0
    same got2 b
    expect_output_has "(stdin): passed over damaged frame 3"
    # -q: no note
    run to got3 "$CAT" -q -s rb x.sim
    expect_status 0
    [[ -z $output ]] || fail "-q: $output"
    # ranges of rb too, through the directory
    run to got4 "$CAT" -s rb --entries 0: x.sim
    expect_status 0
    same got4 b
    # the damaged stream itself still fails, naming the damaged frame
    run to bad "$CAT" -s ra x.sim
    expect_status 1
    expect_output_has "x.sim: frame 3 of stream 0 at byte offset $off: payload checksum mismatch"
    is_prefix bad a
    run to bad2 sh -c "cat x.sim | '$CAT' -s ra"
    expect_status 1
    expect_output_has "(stdin): frame 3 of stream 0 at byte offset $off: payload checksum mismatch"
}
