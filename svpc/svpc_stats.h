/*
 * svpc_stats.h - what the memory encoders' predictors make of a frame, for
 * `simtrace-cat --stats`: per field, how often some predictor proposed the
 * true value (a hit: only an id is coded), how often the id the context
 * expected was right (the cheapest case: one likely bit), and which ids
 * were used.  Computed from decoded entries by re-running the predictors
 * of the frame's encoder (svpc/fields.h: cm2's, else cm's) from
 * fresh state per frame as the codec does: hits and misses depend only on
 * the values, so they are the codec's own; the expected ids and the ids
 * chosen follow cm, cm1 and cm2's choice.  Nothing inside the codec is
 * instrumented for that.  Where the bits of a cm2 frame go (per field, ids
 * and misses) is cm2's own accounting instead (svpc_stats_cost, through
 * cm2_account(): cm2's coding template in a mode of its own).
 */
#ifndef SVPC_STATS_H
#define SVPC_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "../common/st_error.h"
#include "../formats/entry.h"
#include "svpc.h"
#include "../common/st_bytes.h"

#define SVPC_STATS_FIELDS 5 /* ip, cycle, meta, address, data */
#define SVPC_STATS_IDS 16   /* ids 0..nslots-1 and nslots, the miss */

typedef struct {
    uint64_t entries;
    uint64_t coded[SVPC_STATS_FIELDS];    /* entries that carry the field */
    uint64_t hits[SVPC_STATS_FIELDS];     /* a predictor was right */
    uint64_t expected[SVPC_STATS_FIELDS]; /* the id expected at this ip was right */
    uint64_t ids[SVPC_STATS_FIELDS][SVPC_STATS_IDS]; /* uses of each id; [nslots] the misses */
} svpc_pred_stats;

typedef struct svpc_stats_ctx svpc_stats_ctx;

/* Returns ST_OK or ST_E_NOMEM. */
st_error svpc_stats_new(svpc_stats_ctx **out);
void svpc_stats_free(svpc_stats_ctx *c);

/* Add the n entries at raw (one frame of a memory type, coded by encoder
 * enc: its predictors, cm2's or cm's, are run) to *acc.  Returns ST_OK;
 * ST_E_USAGE (not a memory type); ST_E_NOMEM. */
st_error svpc_stats_frame(svpc_stats_ctx *c, svpc_encoder enc, st_entry_type t, const uint8_t *raw, size_t n,
                         svpc_pred_stats *acc);

/* Where the bits of cm2 frames go, by cm2's own coding (svpc/cm2.h), in
 * SVPC_COST_UNIT per bit: per field the ids and the misses, the
 * all-expected flag, and the range coder's flush and rounding; plus the
 * payload bytes they account for.  For each frame, payload_bytes * 8 *
 * SVPC_COST_UNIT is exactly the sum of ids, misses, all_flag and rounding. */
#define SVPC_COST_UNIT 65536u
typedef struct {
    uint64_t frames, entries;     /* cm2 frames (and their entries) accounted */
    uint64_t payload_bytes;       /* their codec payloads */
    uint64_t ids[SVPC_STATS_FIELDS], misses[SVPC_STATS_FIELDS];
    uint64_t all_flag;
    int64_t rounding;             /* payload bits less the costs: the coder's flush and rounding */
} svpc_cost_stats;

/* Add to *acc what cm2 frame of the n entries at raw (a memory type)
 * costs, by re-encoding it with cm2 from fresh state, accounting every
 * bit (the payload is cm2's, byte for byte: the frame's own when it was
 * written by cm2).  Returns ST_OK; ST_E_USAGE (not a memory type);
 * ST_E_NOMEM. */
st_error svpc_stats_cost(svpc_stats_ctx *c, st_entry_type t, const uint8_t *raw, size_t n, svpc_cost_stats *acc);

/* "ip", "cycle", "meta", "address", "data". */
const char *svpc_stats_field_name(unsigned f);
/* Predictor slots of field f (its miss id). */
unsigned svpc_stats_nslots(unsigned f);
/* 1 when entries of type t carry field f. */
int svpc_stats_has_field(st_entry_type t, unsigned f);

#endif /* SVPC_STATS_H */
