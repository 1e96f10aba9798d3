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

#endif /* SVPC_CM2_H */
