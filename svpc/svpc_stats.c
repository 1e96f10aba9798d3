/* svpc_stats.c - predictor hit statistics of decoded frames (svpc_stats.h). */
#include "svpc_stats.h"

#include <stdlib.h>
#include <string.h>

#include "cm2.h"
#include "fields.h"

_Static_assert(SVPC_COST_UNIT == CM2_COST_UNIT && SVPC_STATS_FIELDS == CM2_COST_FIELDS,
               "svpc_cost_stats holds cm2_account()'s categories");

struct svpc_stats_ctx {
    vpc_set set[F_COUNT];
    int fam; /* the predictor family the sets are allocated for; -1: none */
    /* the codec's expectations (cm and cm2 alike): the ip id used after the
     * previous ip last time, and the other fields' ids last time at this ip */
    uint8_t ipnext[1u << KEY_BITS];
    uint16_t tuple[1u << KEY_BITS];
    cm2_model *cm2; /* svpc_stats_cost()'s, allocated on first use */
    st_buf payload; /* and its output */
};

st_error svpc_stats_new(svpc_stats_ctx **out)
{
    svpc_stats_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return ST_E_NOMEM;
    c->fam = -1;
    st_buf_init(&c->payload, 0);
    *out = c;
    return ST_OK;
}

/* The sets of family fam, fresh (allocated when the family changes). */
static st_error sets_ready(svpc_stats_ctx *c, int fam) { return field_sets_ready(c->set, &c->fam, fam); }

void svpc_stats_free(svpc_stats_ctx *c)
{
    if (!c)
        return;
    field_sets_free(c->set, &c->fam);
    cm2_model_free(c->cm2);
    st_buf_free(&c->payload);
    free(c);
}

const char *svpc_stats_field_name(unsigned f) { return f < F_COUNT ? field_names[f] : "?"; }

unsigned svpc_stats_nslots(unsigned f) { return f == F_IP ? nslots_ip : f < F_COUNT ? cm_nslots(f) : 0; }

int svpc_stats_has_field(st_entry_type t, unsigned f)
{
    return f < F_DATA || (f == F_DATA && (t == ST_TYPE_D64 || t == ST_TYPE_D32));
}

/* One field's outcome: the id the codec would choose (the expected one
 * when right, else the most used right one), counted and learnt. */
static unsigned take(vpc_set *set, uint64_t v, unsigned exp, unsigned f, svpc_pred_stats *acc)
{
    const unsigned id = vpc_set_choose(set, v, exp), ns = set->nslots;
    acc->coded[f]++;
    acc->hits[f] += id < ns;
    acc->expected[f] += id == exp && id < ns;
    acc->ids[f][id < SVPC_STATS_IDS ? id : SVPC_STATS_IDS - 1]++;
    vpc_set_count(set, id);
    return id;
}

st_error svpc_stats_frame(svpc_stats_ctx *c, svpc_encoder enc, st_entry_type t, const uint8_t *raw, size_t n,
                         svpc_pred_stats *acc)
{
    if (t != ST_TYPE_D64 && t != ST_TYPE_D32 && t != ST_TYPE_M64 && t != ST_TYPE_M32)
        return ST_E_USAGE;
    /* the frame's own encoder's predictors: cm2's, or cm's (cm and cm1;
     * frames of paper and generic are shown what cm's make of them:
     * paper's predictors are cm's but for the data's address-keyed one) */
    const int fam = enc == SVPC_ENC_CM2 ? FAM_CM2 : FAM_CM;
    RETURN_IF_ERROR(sets_ready(c, fam));
    memset(c->ipnext, 0, sizeof c->ipnext);
    memset(c->tuple, 0, sizeof c->tuple);
    const size_t esz = st_entry_size(t);
    const unsigned nf = cm_nfields(t);
    uint32_t kl = vpc_key_line(0, KEY_BITS);
    for (size_t i = 0; i < n; i++) {
        uint64_t v[F_COUNT];
        cm_load_entry(t, raw + i * esz, v);
        field_predict(c->set, F_IP, (unsigned)fam, 0, 0);
        c->ipnext[kl] = (uint8_t)take(&c->set[F_IP], v[F_IP], c->ipnext[kl], F_IP, acc);
        field_update(c->set, F_IP, (unsigned)fam, v[F_IP]);
        const uint32_t tl = vpc_key_line(v[F_IP], KEY_BITS);
        unsigned tup = c->tuple[tl], ids = 0;
        for (unsigned j = 0; j < nf; j++) {
            const unsigned f = cm_field(t, j);
            field_predict(c->set, f, (unsigned)fam, v[F_IP], v[F_ADDR]);
            ids |= take(&c->set[f], v[f] & cm_mask_T(f, t), (tup >> (4 * j)) & 15u, f, acc) << (4 * j);
            field_update(c->set, f, (unsigned)fam, v[f] & cm_mask_T(f, t));
        }
        c->tuple[tl] = (uint16_t)ids;
        kl = tl;
    }
    acc->entries += n;
    return ST_OK;
}

st_error svpc_stats_cost(svpc_stats_ctx *c, st_entry_type t, const uint8_t *raw, size_t n, svpc_cost_stats *acc)
{
    if (t != ST_TYPE_D64 && t != ST_TYPE_D32 && t != ST_TYPE_M64 && t != ST_TYPE_M32)
        return ST_E_USAGE;
    /* fresh sets and model, as the codec starts every frame */
    RETURN_IF_ERROR(sets_ready(c, FAM_CM2));
    RETURN_IF_ERROR(cm2_model_ready(&c->cm2));
    uint64_t cost[CM2_COST_CATS] = {0};
    c->payload.len = 0;
    RETURN_IF_ERROR(cm2_account(c->set, c->cm2, t, raw, n, &c->payload, cost));
    uint64_t sum = 0;
    for (unsigned f = 0; f < SVPC_STATS_FIELDS; f++) {
        acc->ids[f] += cost[CM2_COST_IDS(f)];
        acc->misses[f] += cost[CM2_COST_MISSES(f)];
    }
    acc->all_flag += cost[CM2_COST_ALL];
    for (unsigned k = 0; k < CM2_COST_CATS; k++)
        sum += cost[k];
    acc->rounding += (int64_t)((uint64_t)c->payload.len * 8u * SVPC_COST_UNIT) - (int64_t)sum;
    acc->payload_bytes += c->payload.len;
    acc->frames++;
    acc->entries += n;
    return ST_OK;
}
