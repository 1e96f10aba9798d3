#include "vpc.h"

#include <stdlib.h>
#include <string.h>

#include "../common/st_bytes.h"

static int pred_cfg_ok(const vpc_pred_cfg *c)
{
    if (c->key2 > 1 || c->n < 1 || c->n > VPC_MAX_N || c->t_bits > VPC_MAX_TBITS || c->s_bits > VPC_MAX_TBITS)
        return 0;
    switch (c->kind) {
    case VPC_LV:
        return c->order == 0 && c->s_bits == 0 && c->lvn == 0;
    case VPC_FCM:
        if (c->lvn && c->order != 1)
            return 0; /* a longer history is not the last value */
        /* fall through */
    case VPC_DFCM:
    case VPC_DCFCM:
        return c->order >= 1 && c->order <= VPC_MAX_ORDER;
    default:
        return 0;
    }
}

/* The LV partner of predictor p of cfg[0..npreds-1] with shared last values
 * (vpc.h): the first LV after it with the same key whose 2^t lines are its
 * 2^s history lines, and whose line has cfg[p].lvn values; npreds if none.
 * After p, so that p's update reads the last value before the partner's
 * update replaces it. */
static unsigned lv_partner(const vpc_pred_cfg *cfg, unsigned npreds, unsigned p)
{
    for (unsigned q = p + 1; q < npreds; q++)
        if (cfg[q].kind == VPC_LV && cfg[q].key2 == cfg[p].key2 && cfg[q].t_bits == cfg[p].s_bits)
            return cfg[q].n == cfg[p].lvn ? q : npreds;
    return npreds;
}

st_error vpc_set_check(const vpc_pred_cfg *cfg, unsigned npreds)
{
    if (npreds < 1 || npreds > VPC_MAX_PREDS)
        return ST_E_USAGE;
    unsigned slots = 0;
    for (unsigned p = 0; p < npreds; p++) {
        if (!pred_cfg_ok(&cfg[p]) || (cfg[p].lvn && lv_partner(cfg, npreds, p) == npreds))
            return ST_E_USAGE;
        slots += cfg[p].n;
    }
    return slots <= VPC_MAX_SLOTS ? ST_OK : ST_E_USAGE;
}

/* Sizes of the tables one predictor owns (0: none; with shared last
 * values, no `last` table, and no history for an FCM). */
static void pred_sizes(const vpc_pred_cfg *c, size_t *vt, size_t *hist, size_t *last)
{
    *vt = ((size_t)1 << c->t_bits) * c->n * sizeof(uint64_t);
    *hist = *last = 0;
    if (c->kind != VPC_LV && !(c->kind == VPC_FCM && c->lvn))
        *hist = ((size_t)1 << c->s_bits) * c->order * sizeof(uint32_t);
    if ((c->kind == VPC_DFCM || c->kind == VPC_DCFCM) && !c->lvn)
        *last = ((size_t)1 << c->s_bits) * sizeof(uint64_t);
}

/* Entries of the dirty map of a table of `bytes` bytes (at least 1). */
static size_t map_len(size_t bytes) { return ((bytes + ((size_t)1 << VPC_CHUNK_SHIFT) - 1) >> VPC_CHUNK_SHIFT) + 1; }

/* Zero the chunks of a table marked in its dirty map, and the map.  Each
 * marked chunk is cleared with the VPC_MAX_LINE - 1 bytes after it, where a
 * line that starts in the chunk may end (vpc_mark() marks only a line's
 * first chunk).  A table of one chunk is never marked and always cleared. */
static void clear_dirty(void *table, size_t bytes, uint8_t *map)
{
    if (!table)
        return;
    const size_t chunk = (size_t)1 << VPC_CHUNK_SHIFT;
    if (bytes <= chunk) {
        memset(table, 0, bytes);
        return;
    }
    size_t chunks = map_len(bytes);
    for (size_t c = 0; c < chunks; c++) {
        if (!map[c])
            continue;
        map[c] = 0;
        size_t off = c << VPC_CHUNK_SHIFT, len = chunk + VPC_MAX_LINE - 1;
        if (off < bytes)
            memset((uint8_t *)table + off, 0, bytes - off < len ? bytes - off : len);
    }
}

size_t vpc_set_memory(const vpc_pred_cfg *cfg, unsigned npreds)
{
    if (vpc_set_check(cfg, npreds) != ST_OK)
        return 0;
    size_t total = 0;
    for (unsigned p = 0; p < npreds; p++) {
        size_t a, b, c;
        pred_sizes(&cfg[p], &a, &b, &c);
        total += a + b + c;
    }
    return total;
}

st_error vpc_set_init(vpc_set *set, const vpc_pred_cfg *cfg, unsigned npreds)
{
    memset(set, 0, sizeof *set);
    RETURN_IF_ERROR(vpc_set_check(cfg, npreds));
    set->npreds = npreds;
    for (unsigned p = 0; p < npreds; p++) {
        vpc_pred *pr = &set->pred[p];
        size_t a, b, c;
        pr->cfg = cfg[p];
        pred_sizes(&cfg[p], &a, &b, &c);
        pr->vt = st_table_alloc(a);
        pr->hist = b ? st_table_alloc(b) : NULL;
        pr->last = c ? st_table_alloc(c) : NULL;
        pr->dirty_vt = calloc(map_len(a), 1);
        pr->dirty_hist = calloc(map_len(b), 1);
        pr->dirty_last = calloc(map_len(c), 1);
        if (!pr->vt || (b && !pr->hist) || (c && !pr->last) || !pr->dirty_vt || !pr->dirty_hist ||
            !pr->dirty_last) {
            vpc_set_free(set);
            return ST_E_NOMEM;
        }
        set->nslots += cfg[p].n;
        set->bytes += a + b + c;
    }
    for (unsigned p = 0; p < npreds; p++)
        if (cfg[p].lvn)
            set->pred[p].last = set->pred[lv_partner(cfg, npreds, p)].vt;
    vpc_set_reset(set);
    return ST_OK;
}


void vpc_set_reset(vpc_set *set)
{
    for (unsigned p = 0; p < set->npreds; p++) {
        vpc_pred *pr = &set->pred[p];
        size_t a, b, c;
        pred_sizes(&pr->cfg, &a, &b, &c);
        clear_dirty(pr->vt, a, pr->dirty_vt);
        clear_dirty(pr->hist, b, pr->dirty_hist);
        clear_dirty(c ? pr->last : NULL, c, pr->dirty_last); /* a shared one is the partner's */
        pr->cur_hline = pr->cur_vline = 0;
    }
    memset(set->usage, 0, sizeof set->usage);
    memset(set->slot, 0, sizeof set->slot);
}

void vpc_set_free(vpc_set *set)
{
    for (unsigned p = 0; p < VPC_MAX_PREDS; p++) {
        vpc_pred *pr = &set->pred[p];
        size_t a = 0, b = 0, c = 0;
        if (pr->vt)
            pred_sizes(&pr->cfg, &a, &b, &c);
        st_table_free(pr->vt, a);
        st_table_free(pr->hist, b);
        st_table_free(c ? pr->last : NULL, c); /* a shared one is the partner's */
        free(pr->dirty_vt);
        free(pr->dirty_hist);
        free(pr->dirty_last);
        pr->vt = NULL;
        pr->hist = NULL;
        pr->last = NULL;
        pr->dirty_vt = pr->dirty_hist = pr->dirty_last = NULL;
    }
    set->npreds = set->nslots = 0;
    set->bytes = 0;
}
