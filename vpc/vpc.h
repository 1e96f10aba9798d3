/*
 * vpc.h - value predictors for trace compression (public header of vpc/).
 *
 * The predictors follow Burtscher's VPC family (see doc/DESIGN.md, "The method"):
 *
 *   LV[n]^t      last n distinct values, LRU order, 2^t lines keyed by IP
 *   FCMr[n]^s_t  finite context method of order r: a history table of 2^s
 *                lines (s = 0: one global line; else keyed by IP) holds the
 *                last r values (as folded hashes); their hash selects one of
 *                2^t value-table lines, which holds the n distinct values that
 *                followed that context, LRU order
 *   DFCMr[n]^s_t as FCM, but on strides (differences of consecutive values);
 *                a prediction is the line's last value plus a stored stride
 *   DCFCMr[n]^s_t a DFCM whose value-table index also mixes in the current
 *                IP ("the cycle stride with the IP added" of the Simutrace
 *                paper): used for the cycle counter, whose strides repeat per
 *                instruction
 *
 * A predictor set (vpc_set) is the group of predictors of one trace field.
 * Each prediction slot of each predictor has an id, numbered in
 * configuration order; id == vpc_set.nslots means "no predictor was right".
 * When several slots are right, the encoder picks by usage count (VPC's
 * rule): the slot used most often so far wins, ties go to the lower id.
 * Counts are halved when one reaches VPC_USAGE_MAX, so recent behaviour
 * dominates.  Every table is zeroed at reset; nothing depends on memory
 * contents, time or thread count.
 *
 * Table layouts (all arrays of plain integers, zero = empty):
 *   value table:   (1 << t) lines x n uint64 values; slot 0 is the most
 *                  recently used value of the line
 *   history table: (1 << s) lines x r uint32 folded values, [0] most recent;
 *                  DFCM lines additionally keep the last full value in
 *                  `last[line]`
 *
 * Shared last values (vpc_pred_cfg.lvn): a predictor keyed by the IP whose
 * history lines are the lines of an LV predictor of the same set (the same
 * key, 2^s = 2^t lines, later in the set) would keep in `last[line]`
 * exactly that LV's slot 0, the last value seen at the line, and an FCM of
 * order 1 would keep in its history that value folded.  Such a predictor
 * reads them from the LV's line instead: no `last` table, and for an
 * order-1 FCM no history table, so a field's IP-keyed state is one line
 * where it was up to six.  The predictions are the same bit for bit.
 *
 * Thread safety: a vpc_set is used by one thread at a time; distinct sets
 * share nothing.
 */
#ifndef VPC_H
#define VPC_H

#include <stddef.h>
#include <stdint.h>

#include "../common/st_error.h"

/* The inline templates below must be inlined to specialize on their
 * constant arguments; compilers otherwise stop inlining in large loops.
 * ST_NO_FORCE_INLINE: as in svpc/fields.h. */
#if defined(__GNUC__) && !defined(ST_NO_FORCE_INLINE)
#define VPC_INLINE static inline __attribute__((always_inline))
#define VPC_PREFETCH(p) __builtin_prefetch((p), 1)
#else
#define VPC_INLINE static inline
#define VPC_PREFETCH(p) ((void)(p))
#endif

#define VPC_MAX_N 8       /* values per line */
#define VPC_MAX_ORDER 4   /* context order r */
#define VPC_MAX_PREDS 6   /* predictors per set */
#define VPC_MAX_SLOTS 15  /* prediction slots per set; id 15 is "miss" at most */
#define VPC_MAX_TBITS 24  /* 2^24 lines at most per table */
#define VPC_USAGE_MAX 0xFFFFu

typedef enum { VPC_LV = 1, VPC_FCM = 2, VPC_DFCM = 3, VPC_DCFCM = 4 } vpc_kind;

/* One predictor's configuration. */
typedef struct {
    uint8_t kind;   /* vpc_kind */
    uint8_t order;  /* r: 1..VPC_MAX_ORDER for (D)(C)FCM; 0 for LV */
    uint8_t n;      /* values per line: 1..VPC_MAX_N */
    uint8_t s_bits; /* history lines 2^s (0 = global); for LV: the 2^t lines are keyed by IP */
    uint8_t t_bits; /* value-table lines 2^t: 0..VPC_MAX_TBITS */
    uint8_t key2;   /* 1: key lines by the second key (e.g. the data address) instead of the IP */
    uint8_t lvn;    /* 0: own last values; else the values per line of the LV partner whose slot 0
                     * is the last value at each history line (shared last values, above):
                     * FCM of order 1, DFCM and DCFCM kinds only */
} vpc_pred_cfg;

/* Reset cost follows use, not table size: every write marks its 4 KiB chunk
 * in a byte map (a plain store, no read-modify-write), and vpc_set_reset()
 * clears only marked chunks.  A frame of a few entries then resets in
 * microseconds instead of clearing 70 MB. */
#define VPC_CHUNK_SHIFT 12

typedef struct {
    vpc_pred_cfg cfg;
    uint64_t *vt;    /* value table: (1<<t_bits) * n */
    uint32_t *hist;  /* history table: (1<<s_bits) * order (FCM kinds only) */
    uint64_t *last;  /* last value per history line (DFCM kinds only); with cfg.lvn, the
                      * LV partner's value table, the line's last value at [line * lvn] */
    uint8_t *dirty_vt, *dirty_hist, *dirty_last; /* 1 per chunk written since reset */
    /* lines selected by the last vpc_set_predict(), reused by the update */
    uint32_t cur_hline;
    uint32_t cur_vline;
} vpc_pred;

typedef struct {
    unsigned npreds;
    unsigned nslots;              /* sum of n over predictors; <= VPC_MAX_SLOTS */
    vpc_pred pred[VPC_MAX_PREDS];
    uint32_t usage[VPC_MAX_SLOTS + 1];
    uint64_t slot[VPC_MAX_SLOTS + 1]; /* predictions of the last vpc_set_predict(); one spare */
    size_t bytes;                 /* bytes of table memory held */
} vpc_set;

/*
 * Validate a configuration of npreds predictors.
 * Returns ST_OK, or ST_E_USAGE if a field is out of range or the slots add up
 * to more than VPC_MAX_SLOTS.
 */
st_error vpc_set_check(const vpc_pred_cfg *cfg, unsigned npreds);

/* Table memory, in bytes, that vpc_set_init() would allocate (0 if invalid). */
size_t vpc_set_memory(const vpc_pred_cfg *cfg, unsigned npreds);

/*
 * Allocate the tables of a predictor set and reset it.
 * Returns ST_OK, ST_E_USAGE (invalid configuration; *set left empty) or
 * ST_E_NOMEM (nothing leaked).
 */
st_error vpc_set_init(vpc_set *set, const vpc_pred_cfg *cfg, unsigned npreds);

/* Zero every table and usage count: the state of a fresh set. */
void vpc_set_reset(vpc_set *set);

/* Free the tables.  Safe on a zeroed or already freed set. */
void vpc_set_free(vpc_set *set);

/* ---- hashing ---------------------------------------------------------- */

/* Fold a 64-bit value into `bits` bits by XOR of its bits-wide chunks
 * (the "fold" of select-fold-shift-xor).  bits in 1..32; 0 gives 0.
 * XOR-ing the shifted words and masking once equals XOR-ing the masked
 * chunks; with a constant `bits` of 16..21 it is two shift/xor pairs. */
VPC_INLINE uint32_t vpc_fold(uint64_t v, unsigned bits)
{
    if (bits == 0)
        return 0;
    uint64_t h = v;
    if (bits >= 16 && bits <= 21) {
        /* exactly four chunks c0..c3 (3 bits < 64 <= 4 bits): fold in two
         * halvings.  h ^ (h >> 2 bits) holds c0 ^ c2 in bits 0..b-1 and
         * c1 ^ c3 in bits b..2b-1; folding that once more gives the XOR of
         * all four.  Bits above 2b are only ever shifted to 2b-b = b and
         * up, which the final mask drops. */
        h ^= h >> (2 * bits);
        h ^= h >> bits;
    } else {
        for (unsigned sh = bits; sh < 64; sh += bits)
            h ^= v >> sh;
    }
    return (uint32_t)(h & ((UINT64_C(1) << bits) - 1u));
}

/* Line of a table of 2^bits lines for key k (IP).  Keys that differ in their
 * low bits go to different lines; higher bits are folded in. */
VPC_INLINE uint32_t vpc_key_line(uint64_t k, unsigned bits)
{
    if (bits == 0)
        return 0;
    uint64_t x = k ^ (k >> 29) ^ (k >> 47);
    return (uint32_t)(x ^ (x >> bits) ^ (x >> (2 * bits))) & ((1u << bits) - 1u);
}

/* Select-fold-shift-xor hash of an order-r context held as folded values
 * h[0] (most recent) .. h[r-1]: each older value is shifted one more bit. */
VPC_INLINE uint32_t vpc_ctx_hash(const uint32_t *h, unsigned order, unsigned tbits)
{
    uint32_t x = 0;
    for (unsigned i = 0; i < order; i++)
        x ^= h[i] << i;
    return tbits ? (x & ((1u << tbits) - 1u)) : 0;
}

/* ---- LRU line of distinct values ------------------------------------- */

/* Move v to the front of an n-value line, keeping values distinct:
 * if v is present it moves up; otherwise the oldest value drops out. */
VPC_INLINE void vpc_line_update(uint64_t *line, unsigned n, uint64_t v)
{
    if (n == 2) {
        /* the common line: a select instead of a search loop */
        uint64_t a = line[0], b = line[1];
        line[1] = a == v ? b : a;
        line[0] = v;
        return;
    }
    unsigned k = 0;
    while (k + 1 < n && line[k] != v)
        k++;
    /* k is v's position, or n-1 (the victim) when v is absent */
    for (; k > 0; k--)
        line[k] = line[k - 1];
    line[0] = v;
}

/* ---- one predictor: inline templates ----------------------------------
 * The workers below take the configuration as arguments.  Called with
 * constants (as the codec's per-field wrappers do, see svpc/fields.h), the
 * compiler unrolls the loops and shares the key-line computation between
 * predictors; called with the runtime configuration (vpc_set_predict2), they
 * are the generic path.  Both give identical results. */

/* Select the lines predictor pr uses for key (history line and value line)
 * and remember them for vpc_pred_slot() and vpc_pred_update().  This is the
 * part of a prediction that depends on the tables' history; the predicted
 * values themselves are read on demand, so a decoder, which needs only the
 * slot the encoder chose, does not copy the others.  The value line is
 * read and written only after the field's id is coded, and on real code it
 * is mostly a cache miss: it is asked for here, so that the misses of a
 * field's predictors overlap each other and the coding (-8% to -10% of the
 * time decoding lackey_cc1.write and grub_work; +3% on the BIOS traces,
 * whose lines are in the cache anyway). */
VPC_INLINE void vpc_pred_locate(vpc_pred *pr, uint64_t key, unsigned kind, unsigned order, unsigned n, unsigned s_bits,
                                unsigned t_bits, unsigned lvn)
{
    if (kind == VPC_LV) {
        pr->cur_vline = vpc_key_line(key, t_bits);
        VPC_PREFETCH(pr->vt + (size_t)pr->cur_vline * n);
        return;
    }
    uint32_t hl = vpc_key_line(key, s_bits);
    /* an order-1 FCM's history is its last value folded (shared: not kept) */
    uint32_t vl = kind == VPC_FCM && lvn ? vpc_fold(pr->last[(size_t)hl * lvn], t_bits)
                                         : vpc_ctx_hash(pr->hist + (size_t)hl * order, order, t_bits);
    if (kind == VPC_DCFCM)
        vl = (vl ^ vpc_key_line(key, t_bits)) & ((1u << t_bits) - 1u);
    VPC_PREFETCH(pr->vt + (size_t)vl * n);
    pr->cur_hline = hl;
    pr->cur_vline = vl;
}

/* Prediction i (0..n-1) of predictor pr at the lines of the last
 * vpc_pred_locate(): the stored value, or for the stride kinds the line's
 * last value plus the stored stride. */
VPC_INLINE uint64_t vpc_pred_slot(const vpc_pred *pr, unsigned i, unsigned kind, unsigned n, unsigned lvn)
{
    uint64_t v = pr->vt[(size_t)pr->cur_vline * n + i];
    if (kind == VPC_DFCM || kind == VPC_DCFCM)
        v += pr->last[(size_t)pr->cur_hline * (lvn ? lvn : 1)];
    return v;
}

/* Write the n predictions of predictor pr for key into out[0..n-1] and
 * remember the lines used. */
VPC_INLINE void vpc_pred_predict(vpc_pred *pr, uint64_t key, uint64_t *out, unsigned kind, unsigned order,
                                 unsigned n, unsigned s_bits, unsigned t_bits, unsigned lvn)
{
    vpc_pred_locate(pr, key, kind, order, n, s_bits, t_bits, lvn);
    for (unsigned i = 0; i < n; i++)
        out[i] = vpc_pred_slot(pr, i, kind, n, lvn);
}

/* Mark the chunk of a line that starts at byte_offset in a table of
 * table_bytes bytes.  Only the chunk of the line's first byte is marked:
 * lines are at most VPC_MAX_LINE bytes and the reset clears that many bytes
 * past each marked chunk, which covers a line that straddles into the next
 * chunk (12-byte history lines of order 3 do).  Tables of at most one chunk
 * (the global history lines) are not marked at all: the reset always
 * clears them.  With constant sizes the test folds away, so a global
 * predictor's update stores nothing into a map. */
#define VPC_MAX_LINE (VPC_MAX_N * 8u)
VPC_INLINE void vpc_mark(uint8_t *map, size_t byte_offset, size_t table_bytes)
{
    if (table_bytes > ((size_t)1 << VPC_CHUNK_SHIFT))
        map[byte_offset >> VPC_CHUNK_SHIFT] = 1;
}

/* Update predictor pr with the true value v (after vpc_pred_locate() or
 * vpc_pred_predict()).  Every field of pr is read before the first table
 * store: a store through the byte maps may alias anything, and would
 * otherwise make the compiler reload the pointers and lines after it.
 * With shared last values (lvn) the LV partner, updated after pr, stores
 * the value; pr only reads the one before it. */
VPC_INLINE void vpc_pred_update(vpc_pred *pr, uint64_t v, unsigned kind, unsigned order, unsigned n,
                                unsigned s_bits, unsigned t_bits, unsigned lvn)
{
    const uint32_t vl = pr->cur_vline, hl = pr->cur_hline;
    uint64_t *const line = pr->vt + (size_t)vl * n;
    uint8_t *const dvt = pr->dirty_vt;
    /* an LV's line, and an order-1 FCM's whose history is its partner's */
    if (kind == VPC_LV || (kind == VPC_FCM && lvn)) {
        vpc_line_update(line, n, v);
        vpc_mark(dvt, (size_t)vl * n * sizeof(uint64_t), ((size_t)n * sizeof(uint64_t)) << t_bits);
        return;
    }
    uint32_t *const h = pr->hist + (size_t)hl * order;
    uint8_t *const dhist = pr->dirty_hist;
    uint64_t *const last = kind != VPC_FCM ? pr->last + (size_t)hl * (lvn ? lvn : 1) : NULL;
    uint8_t *const dlast = kind != VPC_FCM ? pr->dirty_last : NULL;
    uint64_t item = v;
    if (kind != VPC_FCM) {
        item = v - *last;
        if (!lvn) {
            *last = v;
            vpc_mark(dlast, (size_t)hl * sizeof(uint64_t), sizeof(uint64_t) << s_bits);
        }
    }
    vpc_line_update(line, n, item);
    vpc_mark(dvt, (size_t)vl * n * sizeof(uint64_t), ((size_t)n * sizeof(uint64_t)) << t_bits);
    for (unsigned i = order - 1; i > 0; i--)
        h[i] = h[i - 1];
    h[0] = vpc_fold(item, t_bits);
    vpc_mark(dhist, (size_t)hl * order * sizeof(uint32_t), ((size_t)order * sizeof(uint32_t)) << s_bits);
}

/* ---- a set: the generic path ----------------------------------------------- */

/*
 * Fill set->slot[0 .. nslots-1] with the predictions for the next value of
 * this field; key1 is the IP, key2 the second key of predictors configured
 * with key2 = 1 (both ignored by global predictors).  Also remembers the
 * table lines used, for vpc_set_update().
 */
static inline void vpc_set_predict2(vpc_set *set, uint64_t key1, uint64_t key2)
{
    unsigned o = 0;
    for (unsigned p = 0; p < set->npreds; p++) {
        vpc_pred *pr = &set->pred[p];
        const vpc_pred_cfg *c = &pr->cfg;
        vpc_pred_predict(pr, c->key2 ? key2 : key1, set->slot + o, c->kind, c->order, c->n, c->s_bits, c->t_bits,
                         c->lvn);
        o += c->n;
    }
}

/* Predict with the IP as the only key. */
static inline void vpc_set_predict(vpc_set *set, uint64_t key) { vpc_set_predict2(set, key, key); }

/* Update every predictor with the true value v (after vpc_set_predict()). */
static inline void vpc_set_update(vpc_set *set, uint64_t v)
{
    for (unsigned p = 0; p < set->npreds; p++) {
        vpc_pred *pr = &set->pred[p];
        const vpc_pred_cfg *c = &pr->cfg;
        vpc_pred_update(pr, v, c->kind, c->order, c->n, c->s_bits, c->t_bits, c->lvn);
    }
}

/*
 * Choose the id for true value v among the current predictions: `prefer`
 * (an id, or >= nslots for none) wins if it is right; otherwise the right
 * slot with the highest usage count, ties to the lower id.  Returns nslots
 * when no slot is right.  Does not change usage counts.
 */
static inline unsigned vpc_set_choose(const vpc_set *set, uint64_t v, unsigned prefer)
{
    if (prefer < set->nslots && set->slot[prefer] == v)
        return prefer;
    unsigned best = set->nslots;
    uint32_t best_use = 0;
    for (unsigned i = 0; i < set->nslots; i++) {
        if (set->slot[i] == v && (best == set->nslots || set->usage[i] > best_use)) {
            best = i;
            best_use = set->usage[i];
        }
    }
    return best;
}

/* Count one use of id (ids >= nslots, the miss id, are not counted). */
VPC_INLINE void vpc_set_count(vpc_set *set, unsigned id)
{
    if (id >= set->nslots)
        return;
    if (++set->usage[id] >= VPC_USAGE_MAX)
        for (unsigned i = 0; i < set->nslots; i++)
            set->usage[i] >>= 1;
}

#endif /* VPC_H */
