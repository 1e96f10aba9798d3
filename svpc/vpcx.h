/*
 * vpcx.h - the vpc encoder (5) for legacy VPC pairs (internal to svpc/).
 *
 * SIMTRACE.md 6.8.  One model codes both directions: the per-entry logic is
 * written once, as an inline template on "decoding or not", so encoder and
 * decoder cannot disagree on the order of symbols or on any update.
 */
#ifndef SVPC_VPCX_H
#define SVPC_VPCX_H

#include <stddef.h>
#include <stdint.h>

#include "../common/st_bytes.h"
#include "../common/st_error.h"

/* Streams of the stream set (6.8.2): the range coder's output, the pc
 * miss bytes. */
enum { VX_S_RC, VX_S_PC, VX_NSTREAMS };

/* Bound on the range coder's bytes per entry (6.8.2): at most 32 flags of
 * at most 12 bits, 2 + 4 + 4 + 64 tree bits of at most 10, and the flush. */
#define VX_RC_MAX_PER_ENTRY 160

typedef struct vpcx_model vpcx_model;

/* Bytes of model memory for a frame of n entries. */
size_t vpcx_memory(size_t n);

void vpcx_free(vpcx_model *m);

/* Encode n 12-byte pairs at raw into the streams (appended to
 * out[0..VX_NSTREAMS-1], which must be empty).  *mp is allocated or grown as needed. */
st_error vpcx_encode(vpcx_model **mp, const uint8_t *raw, size_t n, st_buf out[VX_NSTREAMS]);

/* Decode the first `stop` of n pairs from the streams into raw.
 * With stop == n the streams must be consumed exactly.  Returns ST_OK,
 * ST_E_CORRUPT (diag says what), ST_E_NOMEM. */
st_error vpcx_decode(vpcx_model **mp, const uint8_t *const data[VX_NSTREAMS], const size_t len[VX_NSTREAMS],
                     size_t n, size_t stop, uint8_t *raw, st_diag *d);

#endif
