/*
 * cm.h - what cm.c offers besides its codec descriptors (internal to
 * svpc/): cm's coding template in a mode that counts ids.
 */
#ifndef SVPC_CM_H
#define SVPC_CM_H

#include <stddef.h>
#include <stdint.h>

#include "svpc.h"
#include "svpc_stats.h"

/* Encode the n entries of memory type t at raw with cm from fresh state
 * in c (its predictor sets and model), adding to acc the id each field
 * used: svpc_stats_frame() for every frame not coded by cm2.  Returns
 * ST_OK; ST_E_USAGE (not a memory type); ST_E_NOMEM. */
st_error cm_account(svpc_ctx *c, st_entry_type t, const uint8_t *raw, size_t n, svpc_pred_stats *acc);

#endif /* SVPC_CM_H */
