/*
 * cm2.h - the cm2 entry encoder (6), internal to svpc/: cm's predictors and
 * id contexts, with every miss coded by the range coder through models of
 * its own (SIMTRACE.md 6.9).  Its codec descriptor is svpc_codec_cm2
 * (codec.h); this header holds its accounting, for the statistics.
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
#include "svpc_stats.h"

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

/* 1 if cm2_account() accounts frames of encoder enc: cm2 (6) and cmx (13),
 * cm2's template without best's contexts. */
static inline int cm2_accounts(svpc_encoder enc) { return enc == SVPC_ENC_CM2 || enc == SVPC_ENC_CMX; }

/* enc's encoding (cm2 or cmx, cm2_accounts(); else ST_E_USAGE) of the n
 * entries of memory type t at raw, from fresh state in c, that adds to
 * cost[] what each coded bit cost, -log2 of its probability (exact
 * integer arithmetic: the same figures on every machine), by category,
 * and to acc (unless NULL) the id each field used (svpc_stats_frame()).
 * *payload_bytes is set to the size of the payload, enc's byte for byte;
 * its bits * CM2_COST_UNIT less the costs' sum is the range coder's
 * flush and rounding.  byte0 is the stored payload's first byte, which for
 * cmx says whether the frame was coded with the transform (0) or without
 * (1); -1 (unknown) codes it as cmx's encoder chooses. */
st_error cm2_account(svpc_ctx *c, svpc_encoder enc, st_entry_type t, const uint8_t *raw, size_t n, int byte0,
                     uint64_t cost[CM2_COST_CATS], svpc_pred_stats *acc, size_t *payload_bytes);

/* Whether a frame of encoder enc whose stored payload begins with byte0
 * was coded with the transform of recent data values (6.9.1): 1, 0, or -1
 * for an encoder without the transform (or byte0 -1, or not one of its
 * values).  cmx's first byte says so, as does bit 2 of mix's parameter
 * byte (6.11.1). */
int cm2_frame_transform(svpc_encoder enc, int byte0);

#endif /* SVPC_CM2_H */
