/*
 * stage2.h - second-stage compressors and the stream set (internal to svpc/).
 *
 * A stream set packs k byte streams into one payload.  Each stream is
 * compressed on its own with the chosen second stage, or stored when that
 * does not make it smaller.  Layout (little-endian), see SIMTRACE.md 6.1:
 *
 *   u8  stage        0 none, 1 lzma (raw LZMA2), 2 bzip2, 3 zlib
 *   u8  k            number of streams
 *   u16 reserved     0
 *   u32 dict         LZMA2 dictionary size used (0 unless stage 1)
 *   k x { u32 raw_len, u32 stored_len }
 *   the k stored streams, in order
 *
 * stored_len == raw_len means stored verbatim; stored_len > raw_len is
 * invalid.  A decoder checks every length against the caller's bound for
 * that stream before it allocates anything.
 */
#ifndef SVPC_STAGE2_H
#define SVPC_STAGE2_H

#include "svpc.h"

#define SS_MAX_STREAMS 12

typedef struct {
    const uint8_t *data;
    size_t len;
    int compress; /* 0: always store (e.g. range coder output) */
    /* LZMA2 literal context, literal position and position bits for this
     * stream, as lc | lp << 4 | pb << 8; 0 = the preset's (3, 0, 2).  The
     * decoder needs nothing: LZMA2 carries them in its chunk headers. */
    unsigned lzma_props;
} ss_in;
#define SS_LZMA_PROPS(lc, lp, pb) ((lc) | (lp) << 4 | (pb) << 8)

/* Append a stream set of k streams to out. */
st_error ss_pack(svpc_stage stage, int level, const ss_in *in, unsigned k, st_buf *out,
                 uint64_t *stored_sizes);

typedef struct {
    /* filled by ss_unpack: pointers into `arena` or into the payload */
    const uint8_t *data[SS_MAX_STREAMS];
    size_t len[SS_MAX_STREAMS];
    st_buf arena;
} ss_out;

/*
 * Parse and decompress a stream set of exactly k streams whose raw lengths
 * must not exceed max_len[i].  The decoded streams live in out->arena (which
 * the caller frees with st_buf_free) or point into payload.
 */
st_error ss_unpack(const uint8_t *payload, size_t len, unsigned k, const size_t *max_len,
                   ss_out *out, st_diag *diag);

#endif
