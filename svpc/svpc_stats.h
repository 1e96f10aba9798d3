/*
 * svpc_stats.h - what the memory encoders' predictors make of a frame, for
 * `simtrace-cat --stats`: per field, how often some predictor proposed the
 * true value (a hit: only an id is coded), how often the id the context
 * expected was right (the cheapest case: one likely bit), and which ids
 * were used; and where the bits of a cm2 frame go (per field, ids and
 * misses).  Computed from decoded entries by encoding them again with the
 * codec's own template, in a mode that counts (cm2.c's CM2_ACCOUNT for
 * cm2 frames, cm.c's CM_ACCOUNT with cm's predictors for the others), so
 * the figures are the codec's by construction.
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

/* Count one field's id: field f had id, its expected id was exp, and
 * its predictors have ns slots (ns is the miss). */
static inline void svpc_stats_count_id(svpc_pred_stats *a, unsigned f, unsigned id, unsigned exp, unsigned ns)
{
    a->coded[f]++;
    a->hits[f] += id < ns;
    a->expected[f] += id == exp && id < ns;
    a->ids[f][id < SVPC_STATS_IDS ? id : SVPC_STATS_IDS - 1]++;
}

typedef struct svpc_stats_ctx svpc_stats_ctx;

/* Returns ST_OK or ST_E_NOMEM. */
st_error svpc_stats_new(svpc_stats_ctx **out);
void svpc_stats_free(svpc_stats_ctx *c);

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

/* 1 if svpc_stats_frame() says where the bits of a frame of encoder enc
 * go: cm2 and cmx (cm2_account()). */
int svpc_stats_splits(svpc_encoder enc);

/* 1 for encoders whose frames' first payload byte says how they were
 * coded (cmx, mix): svpc_stats_frame() and svpc_stats_transform() take it. */
int svpc_stats_has_byte0(svpc_encoder enc);
/* cm2_frame_transform(): 1 coded with the transform of recent data values,
 * 0 without, -1 an encoder without it or a byte0 not one of its values. */
int svpc_stats_transform(svpc_encoder enc, int byte0);

/* Add the n entries at raw (one frame of a memory type, coded by encoder
 * enc) to *acc: what the frame's own encoder's predictors make of them
 * (cm2's for cm2 and cmx frames, cm's for the others); and for such a frame
 * (svpc_stats_splits()),
 * unless cost is NULL, where its bits go to *cost.  byte0: the stored
 * payload's first byte (cmx: with the transform or without), or -1 if not
 * known (coded as this release's encoder chooses).  One pass of the
 * frame's entries through the codec (two for a cmx frame of unknown
 * byte0 that its encoder would code twice).  Returns ST_OK; ST_E_USAGE
 * (not a memory type); ST_E_NOMEM. */
st_error svpc_stats_frame(svpc_stats_ctx *c, svpc_encoder enc, st_entry_type t, const uint8_t *raw, size_t n,
                         int byte0, svpc_pred_stats *acc, svpc_cost_stats *cost);

/* "ip", "cycle", "meta", "address", "data". */
const char *svpc_stats_field_name(unsigned f);
/* Predictor slots of field f (its miss id). */
unsigned svpc_stats_nslots(unsigned f);
/* 1 when entries of type t carry field f. */
int svpc_stats_has_field(st_entry_type t, unsigned f);

#endif /* SVPC_STATS_H */
