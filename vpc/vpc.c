#define _DEFAULT_SOURCE /* madvise */
#include "vpc.h"

#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/* Tables of 2 MiB and more are aligned to 2 MiB and, where the system has
 * transparent huge pages, asked to use them: the predictors touch these
 * tables at random, and 4 KiB pages would cost a TLB miss on most lookups. */
#define HUGE_PAGE ((size_t)2 << 20)
static void *table_alloc(size_t n)
{
    if (n < HUGE_PAGE)
        return malloc(n);
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, n) != 0)
        return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    madvise(p, n, MADV_HUGEPAGE); /* advice only: failure changes nothing */
#endif
    return p;
}

static int pred_cfg_ok(const vpc_pred_cfg *c)
{
    if (c->key2 > 1 || c->n < 1 || c->n > VPC_MAX_N || c->t_bits > VPC_MAX_TBITS || c->s_bits > VPC_MAX_TBITS)
        return 0;
    switch (c->kind) {
    case VPC_LV:
        return c->order == 0 && c->s_bits == 0;
    case VPC_FCM:
    case VPC_DFCM:
    case VPC_DCFCM:
        return c->order >= 1 && c->order <= VPC_MAX_ORDER;
    default:
        return 0;
    }
}

st_error vpc_set_check(const vpc_pred_cfg *cfg, unsigned npreds)
{
    if (npreds < 1 || npreds > VPC_MAX_PREDS)
        return ST_E_USAGE;
    unsigned slots = 0;
    for (unsigned p = 0; p < npreds; p++) {
        if (!pred_cfg_ok(&cfg[p]))
            return ST_E_USAGE;
        slots += cfg[p].n;
    }
    return slots <= VPC_MAX_SLOTS ? ST_OK : ST_E_USAGE;
}

/* Sizes of one predictor's three tables. */
static void pred_sizes(const vpc_pred_cfg *c, size_t *vt, size_t *hist, size_t *last)
{
    *vt = ((size_t)1 << c->t_bits) * c->n * sizeof(uint64_t);
    *hist = *last = 0;
    if (c->kind != VPC_LV)
        *hist = ((size_t)1 << c->s_bits) * c->order * sizeof(uint32_t);
    if (c->kind == VPC_DFCM || c->kind == VPC_DCFCM)
        *last = ((size_t)1 << c->s_bits) * sizeof(uint64_t);
}

/* Words of a dirty bitmap for a table of `bytes` bytes (at least 1). */
static size_t bitmap_words(size_t bytes)
{
    size_t chunks = (bytes + ((size_t)1 << VPC_CHUNK_SHIFT) - 1) >> VPC_CHUNK_SHIFT;
    return chunks / 64 + 1;
}

/* Zero the chunks of a table marked in its bitmap, and the bitmap. */
static void clear_dirty(void *table, size_t bytes, uint64_t *bitmap)
{
    if (!table)
        return;
    size_t words = bitmap_words(bytes);
    for (size_t w = 0; w < words; w++) {
        uint64_t m = bitmap[w];
        while (m) {
            unsigned b = (unsigned)__builtin_ctzll(m);
            m &= m - 1;
            size_t off = ((w << 6) + b) << VPC_CHUNK_SHIFT;
            size_t len = (size_t)1 << VPC_CHUNK_SHIFT;
            if (off < bytes)
                memset((uint8_t *)table + off, 0, bytes - off < len ? bytes - off : len);
        }
        bitmap[w] = 0;
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
        pr->vt = table_alloc(a);
        pr->hist = b ? table_alloc(b) : NULL;
        pr->last = c ? table_alloc(c) : NULL;
        pr->dirty_vt = calloc(bitmap_words(a), sizeof(uint64_t));
        pr->dirty_hist = calloc(bitmap_words(b), sizeof(uint64_t));
        pr->dirty_last = calloc(bitmap_words(c), sizeof(uint64_t));
        if (!pr->vt || (b && !pr->hist) || (c && !pr->last) || !pr->dirty_vt || !pr->dirty_hist ||
            !pr->dirty_last) {
            vpc_set_free(set);
            return ST_E_NOMEM;
        }
        /* the whole table is unknown memory: the first reset clears it all */
        memset(pr->vt, 0, a);
        if (b)
            memset(pr->hist, 0, b);
        if (c)
            memset(pr->last, 0, c);
        set->nslots += cfg[p].n;
        set->bytes += a + b + c;
    }
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
        clear_dirty(pr->last, c, pr->dirty_last);
        pr->cur_hline = pr->cur_vline = 0;
    }
    memset(set->usage, 0, sizeof set->usage);
    memset(set->slot, 0, sizeof set->slot);
}

void vpc_set_free(vpc_set *set)
{
    for (unsigned p = 0; p < VPC_MAX_PREDS; p++) {
        vpc_pred *pr = &set->pred[p];
        free(pr->vt);
        free(pr->hist);
        free(pr->last);
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
