/*
 * cm2.h - the cm2 entry encoder (6), internal to svpc/: cm's predictors and
 * id contexts, with every miss coded by the range coder through models of
 * its own (SIMTRACE.md 6.9).  svpc_codec.c owns the predictor sets and
 * calls these.
 *
 * Thread safety: a cm2_model belongs to one thread at a time.
 */
#ifndef SVPC_CM2_H
#define SVPC_CM2_H

#include <stddef.h>
#include <stdint.h>

#include "../common/st_bytes.h"
#include "../common/st_error.h"
#include "../formats/entry.h"
#include "../vpc/vpc.h"
#include "svpc.h"

typedef struct cm2_model cm2_model;

/* Bytes of a model. */
size_t cm2_model_memory(void);

/* Allocate *m if NULL, and reset it to the state of a new frame.  ST_OK or
 * ST_E_NOMEM. */
st_error cm2_model_ready(cm2_model **m);

void cm2_model_free(cm2_model *m);

/* Encode entries of memory type t at raw with the predictor sets `sets`
 * (the cm configuration, reset) and model m (ready), appending the range
 * coder's output to out: *n entries when src is NULL, else those src makes
 * ready, their number then stored in *n (svpc_encode_source). */
st_error cm2_encode(vpc_set *sets, cm2_model *m, st_entry_type t, const uint8_t *raw, size_t *n,
                    const svpc_source *src, st_buf *out);

/* Decode the first `stop` of n entries from payload[0 .. len-1] into raw.
 * ST_E_CORRUPT (d says what and at which entry) on any inconsistency;
 * when stop == n the payload must also end exactly where the entries do. */
st_error cm2_decode(vpc_set *sets, cm2_model *m, st_entry_type t, const uint8_t *payload, size_t len, size_t n,
                    size_t stop, uint8_t *raw, st_diag *d);

/* What cm2_account() says a frame's bits went to, in CM2_COST_UNIT per
 * bit: for each field f in fields.h's order (ip, cycle, meta, address,
 * data) its ids (the flags and id trees that say which predictor was
 * right, CM2_COST_IDS(f)) and its misses (everything that codes a value no
 * predictor had: match flags, residual lengths and bytes, recent values,
 * lanes, raw bytes, CM2_COST_MISSES(f)); and CM2_COST_ALL, the flag per
 * entry that every field after the ip had its expected id, which belongs
 * to all of them at once. */
#define CM2_COST_FIELDS 5
#define CM2_COST_IDS(f) (2u * (f))
#define CM2_COST_MISSES(f) (2u * (f) + 1u)
#define CM2_COST_ALL (2u * CM2_COST_FIELDS)
#define CM2_COST_CATS (2u * CM2_COST_FIELDS + 1u)
#define CM2_COST_UNIT 65536u

/* cm2_encode() that also adds to cost[] what each coded bit cost,
 * -log2 of its probability (exact integer arithmetic: the same figures on
 * every machine), by category.  The output is cm2_encode()'s, byte for
 * byte; out->len * 8 * CM2_COST_UNIT less the costs' sum is the range
 * coder's flush and rounding. */
st_error cm2_account(vpc_set *sets, cm2_model *m, st_entry_type t, const uint8_t *raw, size_t n, st_buf *out,
                     uint64_t cost[CM2_COST_CATS]);

#endif /* SVPC_CM2_H */
