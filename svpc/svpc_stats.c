/* svpc_stats.c - predictor hit statistics of decoded frames (svpc_stats.h). */
#include "svpc_stats.h"

#include <stdlib.h>
#include <string.h>

#include "cm.h"
#include "cm2.h"
#include "fields.h"

_Static_assert(SVPC_COST_UNIT == CM2_COST_UNIT && SVPC_STATS_FIELDS == CM2_COST_FIELDS,
               "svpc_cost_stats holds cm2_account()'s categories");

struct svpc_stats_ctx {
    svpc_ctx *codec; /* whose templates count */
};

st_error svpc_stats_new(svpc_stats_ctx **out)
{
    svpc_stats_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return ST_E_NOMEM;
    st_error e = svpc_ctx_new(&c->codec);
    if (e != ST_OK) {
        free(c);
        return e;
    }
    *out = c;
    return ST_OK;
}

void svpc_stats_free(svpc_stats_ctx *c)
{
    if (!c)
        return;
    svpc_ctx_free(c->codec);
    free(c);
}

const char *svpc_stats_field_name(unsigned f) { return f < F_COUNT ? field_names[f] : "?"; }

/* (cm's and cm2's slots are the same: FAM_CM2 would give the same) */
unsigned svpc_stats_nslots(unsigned f) { return f < F_COUNT ? field_nslots(f, FAM_CM) : 0; }

int svpc_stats_has_field(st_entry_type t, unsigned f)
{
    return f < F_DATA || (f == F_DATA && (t == ST_TYPE_D64 || t == ST_TYPE_D32));
}

int svpc_stats_splits(svpc_encoder enc) { return cm2_accounts(enc); }
int svpc_stats_has_byte0(svpc_encoder enc) { return enc == SVPC_ENC_CMX || enc == SVPC_ENC_MIX; }
int svpc_stats_transform(svpc_encoder enc, int byte0) { return cm2_frame_transform(enc, byte0); }

st_error svpc_stats_frame(svpc_stats_ctx *c, svpc_encoder enc, st_entry_type t, const uint8_t *raw, size_t n,
                         int byte0, svpc_pred_stats *acc, svpc_cost_stats *cost)
{
    if (!st_entry_is_memory(t))
        return ST_E_USAGE;
    /* frames of paper and generic are shown what cm's predictors make of
     * them (paper's are cm's but for the data's address-keyed one) */
    if (!svpc_stats_splits(enc)) {
        RETURN_IF_ERROR(cm_account(c->codec, t, raw, n, acc));
        acc->entries += n;
        return ST_OK;
    }
    uint64_t cat[CM2_COST_CATS] = {0};
    size_t bytes;
    RETURN_IF_ERROR(cm2_account(c->codec, enc, t, raw, n, byte0, cat, acc, &bytes));
    acc->entries += n;
    if (!cost)
        return ST_OK;
    uint64_t sum = 0;
    for (unsigned f = 0; f < SVPC_STATS_FIELDS; f++) {
        cost->ids[f] += cat[CM2_COST_IDS(f)];
        cost->misses[f] += cat[CM2_COST_MISSES(f)];
    }
    cost->all_flag += cat[CM2_COST_ALL];
    for (unsigned k = 0; k < CM2_COST_CATS; k++)
        sum += cat[k];
    cost->rounding += (int64_t)((uint64_t)bytes * 8u * SVPC_COST_UNIT) - (int64_t)sum;
    cost->payload_bytes += bytes;
    cost->frames++;
    cost->entries += n;
    return ST_OK;
}
