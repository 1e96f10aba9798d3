/*
 * cm2.c - the cm2 entry encoder (6): SIMTRACE.md 6.9.
 *
 * cm2 keeps cm's predictors, expectations and id contexts (6.4, 6.7) and
 * codes every miss with the range coder itself, through models of its
 * own, instead of writing raw miss bytes for a second stage.  On real code
 * the second stage was most of the time (LZMA took 79% of compressing
 * grub_work.read) and, with its encoder's match-finder tables taken fresh
 * from the kernel for every frame, most of the memory too.
 *
 *   - A match model per miss kind (ip residuals, address residuals, data
 *     values) remembers where the last K misses of its kind were last
 *     followed by another, and proposes that one: LZ77 without offsets.
 *     A copy in the trace (inflate's output, a memmove, a call sequence
 *     that repeats) repeats a run of earlier misses, which is what LZMA
 *     found in the miss streams.  One flag says whether the proposal is
 *     right; its context is the match's length so far.
 *   - Other ip, cycle, meta and address residuals (cm's zigzag differences
 *     or XOR against the same references) are coded as a byte length and
 *     then their bytes, most significant first, each through a bit tree
 *     whose context is the field, the length and the byte's position.
 *   - A data miss may also be one of the last 16 data misses (a hash's
 *     state moving between variables, a saved register), coded by how far
 *     back it is.
 *   - Other data values are coded by halves against the last value seen
 *     at the same ip.  The upper half holds the access size for accesses
 *     narrower than 8 bytes: one flag says it is the reference's.  The
 *     lower half then goes lane by lane in memory order, up to the size:
 *     a flag per lane (the reference's byte?) and, if not, the byte in the
 *     context of the high nibble of the byte before it (for the lowest
 *     lane, the last byte of the previous miss of the same upper half), so
 *     that copied text or code, stored a byte or a word at a time, has the
 *     previous byte as context.  Fewer contexts learn faster: 16 here were
 *     2.4% smaller on grub_work than 256.
 *
 * One template codes and decodes (ENC a constant), so the two cannot
 * disagree.  The payload is the range coder's output alone.
 */
#include "cm2.h"

#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "rc.h"

/* Match models: the ring of a kind's misses, and per hashed context of its
 * last K misses the index (plus 1; 0: none) of the miss that followed. */
#define CM2_RING_BITS 17
#define CM2_HASH_BITS 16
#define CM2_RING_MASK ((UINT32_C(1) << CM2_RING_BITS) - 1u)
enum { MM_IP, MM_ADDR, MM_DATA, MM_COUNT };
/* How far back a data miss is looked for among the data misses before it
 * (a value stored or loaded again elsewhere: hash state moving between
 * variables, a saved register, a pointer), a power of 2. */
#define CM2_RECENT_BITS 4
#define CM2_RECENT (1u << CM2_RECENT_BITS)
/* context length of each kind's match model (ip: call and jump sequences;
 * address: the strides of a walk that repeats; data: runs of copied values) */
static const unsigned mm_order[MM_COUNT] = {2, 2, 3};
#define CM2_MAX_ORDER 3

typedef struct {
    uint64_t ring[1u << CM2_RING_BITS];
    uint32_t hash[1u << CM2_HASH_BITS];
} cm2_mtab;

typedef struct {
    rc_prob ipflag[16][32];
    rc_prob iptree[16][16];
    rc_prob allflag[128];
    rc_prob fflag[F_COUNT][16][32];
    rc_prob ftree[F_COUNT][16][16];
    rc_prob refsel[4];
    rc_prob match[MM_COUNT][16][2];    /* [kind][match length][its last flag] */
    rc_prob nbtree[F_DATA][9][16];     /* [field][previous miss length] 4-bit length tree */
    rc_prob rbyte[F_DATA][9][8][256];  /* [field][length][byte position] byte tree */
    rc_prob recent[2][4];              /* data miss is among the last CM2_RECENT misses: [byte access][last two flags] */
    rc_prob rdist[2][CM2_RECENT];      /* which one, back from the last: [byte access] tree */
    rc_prob dup[4];                    /* upper half equals the reference's: [last two flags] */
    rc_prob dhieq[4][2];               /* upper lane equals the reference's: [lane - W/2][all lanes above equal] */
    rc_prob dhi[4][256];               /* upper lane [lane - W/2] byte tree */
    rc_prob deq[4][5][2];              /* lower lane equals the reference's: [lane][size 1..4][its last flag] */
    rc_prob dlo[4][16][256];           /* lower lane [the high nibble of the byte before it in memory] byte tree */
    rc_prob dzero[5];                  /* the lower lanes above the size are zero: [size] */
} cm2_probs;

struct cm2_model {
    cm2_probs pr;
    cm2_mtab mm[MM_COUNT];
    /* what happened last time at this key, as in cm (6.4.4): ipnext by the
     * previous ip's line, tuple by the ip's line */
    uint8_t ipnext[1u << KEY_BITS];
    uint32_t tuple[1u << KEY_BITS];
};

size_t cm2_model_memory(void) { return sizeof(cm2_model); }

void cm2_model_free(cm2_model *m) { free(m); }

st_error cm2_model_ready(cm2_model **mp)
{
    cm2_model *m = *mp;
    if (!m && !(m = *mp = malloc(sizeof *m)))
        return ST_E_NOMEM;
    rc_prob *p = (rc_prob *)(void *)&m->pr;
    for (size_t i = 0; i < sizeof m->pr / sizeof(rc_prob); i++)
        p[i] = RC_PROB_INIT;
    /* the rings need no clearing: only indices the hashes hold are read */
    for (unsigned k = 0; k < MM_COUNT; k++)
        memset(m->mm[k].hash, 0, sizeof m->mm[k].hash);
    memset(m->ipnext, 0, sizeof m->ipnext);
    memset(m->tuple, 0, sizeof m->tuple);
    return ST_OK;
}

/* ---- coding primitives: one call site for encoder and decoder ------------ */

typedef struct {
    rc_enc e;
    rc_dec d;
} cm2_io;

/* One bit: the encoder writes `bit` and returns it; the decoder returns
 * what it reads, and its `bit` is never evaluated. */
#define CM2_BIT(ENC, io, p, bit)                                                                   \
    ((ENC) ? (rc_encode(&(io)->e, (p), (bit), RC_COUNTED), (unsigned)(bit)) : rc_decode(&(io)->d, (p), RC_COUNTED))
/* nbits of sym through a bit tree, likewise. */
#define CM2_TREE(ENC, io, tree, nbits, sym)                                                           \
    ((ENC) ? (rc_encode_tree(&(io)->e, (tree), (nbits), (sym), RC_COUNTED), (unsigned)(sym))           \
           : rc_decode_tree(&(io)->d, (tree), (nbits), RC_COUNTED))

/* A match model's state in a frame. */
typedef struct {
    uint64_t h[CM2_MAX_ORDER]; /* the kind's last misses, most recent first */
    uint32_t n;                /* misses of the kind so far */
    uint32_t ptr;              /* index of the proposed miss */
    uint32_t len;              /* length of the match; 0: no proposal */
    unsigned last;             /* the last flag */
} cm2_mstate;

/* State carried from entry to entry. */
typedef struct {
    uint64_t prev[F_COUNT];
    unsigned hist_ip, hist_all, hf, refhist;
    unsigned last_nb[F_DATA];
    uint32_t kl; /* key line of the previous ip */
    /* match models */
    cm2_mstate ms[MM_COUNT];
    /* data lanes */
    unsigned dlane;      /* bit k: lower lane k equalled its reference at the last data miss */
    unsigned uphist;     /* the last upper-half flags */
    unsigned rchist;     /* the last recent-value flags */

    uint64_t dprev[16];  /* the last data miss of each (hashed) upper half */
} cm2_state;

/* The match model of kind k: if it proposes a value (*mvp; *proposed = 1),
 * code whether *x is it; 1 if so (the decoder's *x is then set). */
ST_INLINE unsigned cm2_match_code(cm2_io *io, const int ENC, cm2_model *m, cm2_state *s, const unsigned k,
                                  uint64_t *x, uint64_t *mvp, unsigned *proposed)
{
    *proposed = s->ms[k].len != 0;
    if (!*proposed)
        return 0;
    const uint64_t mv = *mvp = m->mm[k].ring[s->ms[k].ptr & CM2_RING_MASK];
    const unsigned len = s->ms[k].len < 15 ? s->ms[k].len : 15;
    const unsigned hit = CM2_BIT(ENC, io, &m->pr.match[k][len][s->ms[k].last], *x == mv);
    s->ms[k].last = hit;
    if (hit)
        *x = mv;
    return hit;
}

/* After a miss x of kind k (hit: the match model proposed it): into the
 * ring; follow the match, or look for one after the new context. */
ST_INLINE void cm2_match_add(cm2_model *m, cm2_state *s, const unsigned k, uint64_t x, unsigned hit)
{
    cm2_mtab *t = &m->mm[k];
    cm2_mstate *ms = &s->ms[k];
    t->ring[ms->n & CM2_RING_MASK] = x;
    ms->n++;
    const unsigned K = mm_order[k];
    for (unsigned j = K - 1; j > 0; j--)
        ms->h[j] = ms->h[j - 1];
    ms->h[0] = x;
    if (hit) {
        ms->ptr++;
        ms->len++;
    } else {
        ms->len = 0;
    }
    uint64_t hk = 0;
    for (unsigned j = 0; j < K; j++)
        hk = (hk + ms->h[j]) * UINT64_C(0x9E3779B97F4A7C15);
    uint32_t *slot = &t->hash[(uint32_t)(hk >> (64 - CM2_HASH_BITS))];
    if (!ms->len && *slot && ms->n - (*slot - 1) < CM2_RING_MASK) {
        ms->ptr = *slot - 1;
        ms->len = 1;
    }
    *slot = ms->n + 1;
}

/* A residual r of field f (ip, cycle, meta, address): its byte length, then
 * its bytes, most significant first.  Returns NULL or what is wrong. */
ST_INLINE const char *cm2_residual(cm2_io *io, const int ENC, cm2_probs *pr, cm2_state *s, const unsigned f,
                                   uint64_t *r)
{
    uint64_t x = ENC ? *r : 0;
    const unsigned nb = CM2_TREE(ENC, io, pr->nbtree[f][s->last_nb[f]], 4, nbytes_of(x));
    if (!ENC && nb > 8)
        return "miss length above 8 bytes";
    s->last_nb[f] = nb;
    for (unsigned k = nb; k-- > 0;) {
        unsigned b = CM2_TREE(ENC, io, pr->rbyte[f][nb][k], 8, (unsigned)(x >> (8 * k)) & 255u);
        if (!ENC) {
            if (k == nb - 1 && b == 0)
                return "miss longer than needed";
            x |= (uint64_t)b << (8 * k);
        }
    }
    *r = x;
    return NULL;
}

/* A residual of field f, through the kind's match model if it has one
 * (mk < MM_COUNT), else as bytes. */
ST_INLINE const char *cm2_miss(cm2_io *io, const int ENC, cm2_model *m, cm2_state *s, const unsigned f,
                               const unsigned mk, uint64_t *r)
{
    unsigned hit = 0, proposed = 0;
    uint64_t mv = 0;
    if (mk < MM_COUNT)
        hit = cm2_match_code(io, ENC, m, s, mk, r, &mv, &proposed);
    if (!hit) {
        const char *bad = cm2_residual(io, ENC, &m->pr, s, f, r);
        if (bad)
            return bad;
        if (!ENC && proposed && *r == mv)
            return "miss coded as not the match model's, but is";
    }
    if (mk < MM_COUNT)
        cm2_match_add(m, s, mk, *r, hit);
    return NULL;
}

/* Slot of the dprev context for an upper half u of a data value. */
static inline unsigned cm2_upper_slot(uint64_t u) { return (unsigned)((u * UINT64_C(0x9E3779B97F4A7C15)) >> 60); }

/* Lane k of a data miss in the context tree `tree`: whether it equals
 * ref's lane (flag *pe), and if not the byte.  Returns the byte. */
ST_INLINE unsigned cm2_lane(cm2_io *io, const int ENC, rc_prob *pe, rc_prob *tree, const unsigned k, uint64_t ref,
                            uint64_t x, unsigned *same, unsigned *bad)
{
    const unsigned rb = (unsigned)(ref >> (8 * k)) & 255u, xb = (unsigned)(x >> (8 * k)) & 255u;
    *same = CM2_BIT(ENC, io, pe, xb == rb);
    if (*same)
        return rb;
    const unsigned b = CM2_TREE(ENC, io, tree, 8, xb);
    if (!ENC && b == rb)
        *bad = 1;
    return b;
}

/* The lanes of a data miss of W bytes against ref.  The upper half first:
 * for accesses narrower than 8 bytes it holds the size, mostly the same as
 * ref's, so one flag says so.  Then the lower half from its least
 * significant lane up, in the order of the bytes in memory, as far as the
 * size (or the whole half): each lane a flag (equal to ref's?) and, if not,
 * its byte in the context of the byte before it in memory, for the lowest
 * lane the last byte of the previous miss of the same upper half: copied
 * text, stored a byte or a word at a time, has the previous character as
 * its context.  Last, for a size below the half, a flag says that the
 * lanes above the size are zero (else they follow as any lane).  Returns
 * the value; sets *bad if a lane or half coded as different equals ref's. */
ST_INLINE uint64_t cm2_lanes(cm2_io *io, const int ENC, cm2_probs *pr, cm2_state *s, const unsigned W, uint64_t ref,
                             uint64_t x, unsigned *bad)
{
    const unsigned H = W / 2;
    const uint64_t hmask = H == 4 ? UINT64_C(0xFFFFFFFF) : UINT64_C(0xFFFF);
    unsigned same;
    const unsigned upeq = CM2_BIT(ENC, io, &pr->dup[s->uphist & 3], (x >> (8 * H)) == (ref >> (8 * H)));
    s->uphist = (s->uphist << 1) | upeq;
    if (upeq) {
        if (!ENC)
            x = ref & ~hmask;
    } else {
        unsigned eq = 1;
        for (unsigned k = W; k-- > H;) {
            const unsigned b = cm2_lane(io, ENC, &pr->dhieq[k - H][eq], pr->dhi[k - H], k, ref, x, &same, bad);
            eq &= same;
            if (!ENC)
                x |= (uint64_t)b << (8 * k);
        }
        if (!ENC && eq)
            *bad = 1;
    }
    const uint64_t upper = x >> (8 * H);
    const unsigned slot = cm2_upper_slot(upper);
    const unsigned sz = upper >= 1 && upper < H ? (unsigned)upper : H;
    unsigned cx = (unsigned)(s->dprev[slot] >> (8 * (sz - 1))) & 255u, dl = 0, k = 0;
    for (; k < H; k++) {
        if (k == sz && CM2_BIT(ENC, io, &pr->dzero[sz], ((x & hmask) >> (8 * sz)) == 0))
            break; /* the lanes above the size are zero */
        const unsigned b =
            cm2_lane(io, ENC, &pr->deq[k][sz][(s->dlane >> k) & 1u], pr->dlo[k][cx >> 4], k, ref, x, &same, bad);
        dl |= same << k;
        cx = b;
        if (!ENC)
            x |= (uint64_t)b << (8 * k);
    }
    if (!ENC && sz < H && k == H && ((x & hmask) >> (8 * sz)) == 0)
        *bad = 1; /* lanes above the size coded as not zero, and zero */
    s->dlane = dl;
    s->dprev[slot] = x;
    return x;
}

/* A data miss: the match model, then the lanes. */
ST_INLINE const char *cm2_data_miss(cm2_io *io, const int ENC, cm2_model *m, cm2_state *s, const unsigned W,
                                    uint64_t ref, uint64_t *v)
{
    uint64_t x = ENC ? *v : 0;
    unsigned proposed;
    uint64_t mv = 0;
    const unsigned hit = cm2_match_code(io, ENC, m, s, MM_DATA, &x, &mv, &proposed);
    unsigned bad = 0;
    if (!hit) {
        /* among the last data misses (the match model's ring)?  Byte
         * accesses (by the reference's upper half) have their own
         * contexts: their values are a small alphabet the lanes code well */
        const unsigned cls = (ref >> (4 * W)) == 1;
        const uint32_t n = s->ms[MM_DATA].n, lim = n < CM2_RECENT ? n : CM2_RECENT;
        const uint64_t *ring = m->mm[MM_DATA].ring;
        unsigned dist = CM2_RECENT;
        if (ENC)
            for (unsigned k = 0; k < lim; k++)
                if (ring[(n - 1 - k) & CM2_RING_MASK] == x) {
                    dist = k;
                    break;
                }
        const unsigned in = lim ? CM2_BIT(ENC, io, &m->pr.recent[cls][s->rchist & 3], dist < CM2_RECENT) : 0;
        s->rchist = (s->rchist << 1) | in;
        if (in) {
            dist = CM2_TREE(ENC, io, m->pr.rdist[cls], CM2_RECENT_BITS, dist);
            if (!ENC && dist >= lim)
                return "recent value further back than the misses so far";
            x = ring[(n - 1 - dist) & CM2_RING_MASK];
        } else {
            x = cm2_lanes(io, ENC, &m->pr, s, W, ref, x, &bad);
            dist = lim;
        }
        /* one coding per value (6.9): the nearest recent value, and never
         * the lanes for a recent value or a missed match's proposal */
        if (!ENC) {
            for (unsigned k = 0; k < dist; k++)
                if (ring[(n - 1 - k) & CM2_RING_MASK] == x)
                    return in ? "recent value coded further back than where it first is"
                              : "recent value coded by its lanes";
            if (proposed && x == mv)
                return "data miss coded as not the match model's, but is";
        }
    }
    if (bad)
        return "lane coded as different but equal to its reference";
    cm2_match_add(m, s, MM_DATA, x, hit);
    *v = x;
    return NULL;
}

/* Reference of an address or data miss: the last value at the ip (the first
 * slot of the ip-keyed LV predictor), as the template's side has it (the
 * encoder predicted every slot, the decoder only located the lines). */
ST_INLINE uint64_t cm2_lv(const int ENC, vpc_set *sets, unsigned f)
{
    return ENC ? sets[f].slot[EXT_LV_SLOT] : cm_slot(sets, f, EXT_LV_SLOT);
}

/* ---- one entry ------------------------------------------------------------- */

/* The fields after the ip: the entry's expectations and what its fields
 * have coded so far. */
typedef struct {
    unsigned tup, all, flag, mismatch_seen;
    unsigned idbits, hf; /* the ids (4 bits per field) and match flags (1 bit per field) coded */
    unsigned ids[4]; /* encoder: the ids chosen */
} cm2_ent;

/* The miss of ip-keyed field f: data lanes, or a residual against cm's
 * reference (6.4.5). */
ST_INLINE const char *cm2_field_miss(cm2_io *io, const int ENC, vpc_set *sets, cm2_model *m, cm2_state *s,
                                     st_entry_type t, const unsigned f, uint64_t *v)
{
    const uint64_t mask = cm_mask_T(f, t);
    if (f == F_DATA)
        return cm2_data_miss(io, ENC, m, s, (t == ST_TYPE_D64 || t == ST_TYPE_M64) ? 8 : 4, cm2_lv(ENC, sets, F_DATA),
                             &v[f]);
    uint64_t ref = s->prev[f], r = 0;
    if (f == F_ADDR) {
        /* against the ip's last address, or the previous address if shorter */
        const uint64_t lv = cm2_lv(ENC, sets, F_ADDR);
        uint64_t r1 = 0;
        if (lv)
            ref = lv;
        if (ENC) {
            r = zz_delta(v[f], ref, mask, mask_bits(mask));
            r1 = zz_delta(v[f], s->prev[f], mask, mask_bits(mask));
        }
        const unsigned sel = CM2_BIT(ENC, io, &m->pr.refsel[s->refhist & 3], r1 < r);
        s->refhist = (s->refhist << 1) | sel;
        if (sel) {
            ref = s->prev[f];
            r = r1;
        }
    } else if (ENC) {
        r = f == F_META ? v[f] ^ ref : zz_delta(v[f], ref, mask, mask_bits(mask));
    }
    const char *bad = cm2_miss(io, ENC, m, s, f, f == F_ADDR ? MM_ADDR : MM_COUNT, &r);
    if (!ENC && !bad)
        v[f] = f == F_META ? r ^ ref : zz_apply(r, ref, mask);
    return bad;
}

/* Ip-keyed field j (cycle, meta, address, data for j = 0..3) of entry i. */
ST_INLINE st_error cm2_field(vpc_set *sets, cm2_model *m, cm2_io *io, const int ENC, st_entry_type t, cm2_state *s,
                             cm2_ent *e, uint64_t *v, const unsigned j, const unsigned nf, size_t i, st_diag *d)
{
    cm2_probs *pr = &m->pr;
    const unsigned f = F_CYCLE + j;
    const unsigned exp = (e->tup >> (4 * j)) & 15u;
    const unsigned ns = cm_nslots(f);
    const uint64_t mask = cm_mask_T(f, t);
    if (!ENC)
        cm_locate(sets, f, v[F_IP], v[F_ADDR]);
    unsigned id = exp, match = 1;
    if (!e->all) {
        /* after all-but-one matched, the last one cannot match */
        const unsigned fh = (e->tup >> (20 + 2 * j)) & 3u;
        match = 0;
        if (j + 1 < nf || e->mismatch_seen)
            match = CM2_BIT(ENC, io,
                            &pr->fflag[f][exp][fh | (e->mismatch_seen << 2) | (e->flag << 3) | (((s->hf >> j) & 1u) << 4)],
                            e->ids[j] == exp);
        if (!match) {
            id = CM2_TREE(ENC, io, pr->ftree[f][exp], 4, e->ids[j]);
            e->mismatch_seen = 1;
            if (!ENC && id == exp)
                return st_diag_set(d, ST_E_CORRUPT, "entry %zu: %s id coded as unexpected but equals the expected", i,
                                   field_names[f]);
        }
    }
    /* (an expected id is always <= ns: TUPLE holds only checked ids) */
    if (id == ns) {
        const char *bad = cm2_field_miss(io, ENC, sets, m, s, t, f, v);
        if (bad)
            return st_diag_set(d, ST_E_CORRUPT, "entry %zu: %s %s", i, field_names[f], bad);
        if (!ENC && (v[f] & ~mask))
            return st_diag_set(d, ST_E_CORRUPT, "entry %zu: %s miss wider than the field", i, field_names[f]);
    } else if (id > ns) {
        return st_diag_set(d, ST_E_CORRUPT, "entry %zu: %s predictor id %u out of range", i, field_names[f], id);
    } else if (!ENC) {
        v[f] = cm_slot(sets, f, id) & mask;
    }
    if (ENC)
        vpc_set_count(&sets[f], id);
    field_update(sets, f, 1, v[f]);
    e->idbits |= id << (4 * j);
    e->hf |= match << j;
    return ST_OK;
}

/* Entry i: the encoder codes v[], the decoder fills it. */
ST_INLINE st_error cm2_entry(vpc_set *sets, cm2_model *m, cm2_io *io, const int ENC, st_entry_type t, cm2_state *s,
                             uint64_t *v, size_t i, st_diag *d)
{
    cm2_probs *pr = &m->pr;
    const unsigned nf = cm_nfields(t);

    /* ip: the expected id is the one used after the previous ip last time */
    const uint32_t kl = s->kl;
    const unsigned eip = m->ipnext[kl] & 15u, kh = (m->ipnext[kl] >> 4) & 7u;
    vpc_set *ips = &sets[F_IP];
    unsigned id = 0;
    if (ENC) {
        predict_ip(ips, 0, 0);
        id = vpc_set_choose(ips, v[F_IP], eip);
    } else {
        locate_ip(ips, 0, 0);
    }
    const unsigned flag = CM2_BIT(ENC, io, &pr->ipflag[eip][(kh << 2) | (s->hist_ip & 3)], id == eip);
    if (flag) {
        id = eip;
    } else {
        id = CM2_TREE(ENC, io, pr->iptree[eip], 4, id);
        if (!ENC && id == eip)
            return st_diag_set(d, ST_E_CORRUPT, "entry %zu: ip id coded as unexpected but equals the expected", i);
    }
    const uint64_t ipmask = cm_mask_T(F_IP, t);
    if (id == nslots_ip) {
        uint64_t r = ENC ? zz_delta(v[F_IP], s->prev[F_IP], ipmask, mask_bits(ipmask)) : 0;
        const char *bad = cm2_miss(io, ENC, m, s, F_IP, MM_IP, &r);
        if (bad)
            return st_diag_set(d, ST_E_CORRUPT, "entry %zu: ip %s", i, bad);
        if (!ENC)
            v[F_IP] = zz_apply(r, s->prev[F_IP], ipmask);
    } else if (id > nslots_ip) {
        return st_diag_set(d, ST_E_CORRUPT, "entry %zu: ip predictor id %u out of range", i, id);
    } else if (!ENC) {
        v[F_IP] = slot_ip(ips, id) & ipmask;
    }
    if (ENC)
        vpc_set_count(ips, id);
    update_ip(ips, v[F_IP]);
    m->ipnext[kl] = (uint8_t)(id | (((kh << 1) | flag) & 7u) << 4);
    s->hist_ip = (s->hist_ip << 1) | flag;

    /* the ip-keyed fields: the expected ids are those used at this ip last time */
    const uint32_t tl = vpc_key_line(v[F_IP], KEY_BITS);
    cm2_ent e = {m->tuple[tl], 1, flag, 0, 0, 0, {0, 0, 0, 0}};
    if (ENC) {
        for (unsigned j = 0; j < nf; j++) {
            const unsigned f = F_CYCLE + j, exp = (e.tup >> (4 * j)) & 15u;
            field_predict(sets, f, 1, v[F_IP], v[F_ADDR]);
            e.ids[j] = vpc_set_choose(&sets[f], v[f], exp);
            e.all &= e.ids[j] == exp;
        }
    }
    e.all = CM2_BIT(ENC, io, &pr->allflag[(((e.tup >> 16) & 7u) << 4) | (flag << 3) | (s->hist_all & 7)], e.all);
    s->hist_all = (s->hist_all << 1) | e.all;
    /* one instance per field, each with its field and width constant */
    st_error err;
    if ((err = cm2_field(sets, m, io, ENC, t, s, &e, v, 0, nf, i, d)) != ST_OK ||
        (nf > 1 && (err = cm2_field(sets, m, io, ENC, t, s, &e, v, 1, nf, i, d)) != ST_OK) ||
        (nf > 2 && (err = cm2_field(sets, m, io, ENC, t, s, &e, v, 2, nf, i, d)) != ST_OK) ||
        (nf > 3 && (err = cm2_field(sets, m, io, ENC, t, s, &e, v, 3, nf, i, d)) != ST_OK))
        return err;
    /* TUPLE's new line (6.4.4's newtup): the ids; each field's two match
     * flags, the older one shifted up (bits 21, 23, .. from bits 20, 22,
     * ..) and this entry's below; the all-flags likewise */
    const unsigned hf2 = (e.hf & 1u) | ((e.hf & 2u) << 1) | ((e.hf & 4u) << 2) | ((e.hf & 8u) << 3);
    const unsigned fhs = (((e.tup >> 20) << 1) & 0xAAu) | hf2;
    m->tuple[tl] = e.idbits | fhs << 20 | ((((e.tup >> 16) << 1) | e.all) & 7u) << 16;
    s->hf = e.hf;
    memcpy(s->prev, v, sizeof s->prev);
    s->kl = tl;
    return ST_OK;
}

static void cm2_state_init(cm2_state *s)
{
    memset(s, 0, sizeof *s);
    s->kl = vpc_key_line(0, KEY_BITS);
}

/* ---- frames: per-type instances ---------------------------------------------- */

ST_INLINE st_error encode_T(vpc_set *sets, cm2_model *m, st_entry_type t, const uint8_t *raw, size_t n, st_buf *out)
{
    const size_t esz = st_entry_size(t);
    cm2_io io;
    rc_enc_init(&io.e, out);
    cm2_state s;
    cm2_state_init(&s);
    st_diag d;
    memset(&d, 0, sizeof d);
    for (size_t i = 0; i < n; i++) {
        uint64_t v[F_COUNT];
        cm_load_entry(t, raw + i * esz, v);
        RETURN_IF_ERROR(cm2_entry(sets, m, &io, 1, t, &s, v, i, &d));
    }
    return rc_enc_finish(&io.e);
}

ST_INLINE st_error decode_T(vpc_set *sets, cm2_model *m, st_entry_type t, const uint8_t *payload, size_t len,
                            size_t n, size_t stop, uint8_t *raw, st_diag *d)
{
    const size_t esz = st_entry_size(t);
    cm2_io io;
    rc_dec_init(&io.d, payload, len);
    cm2_state s;
    cm2_state_init(&s);
    for (size_t i = 0; i < stop; i++) {
        uint64_t v[F_COUNT] = {0, 0, 0, 0, 0};
        RETURN_IF_ERROR(cm2_entry(sets, m, &io, 0, t, &s, v, i, d));
        /* past its end the decoder reads zeros: what it made of them is not an entry */
        if (io.d.overrun)
            return st_diag_set(d, ST_E_CORRUPT, "entry %zu: the range coder's stream is corrupt or ends too early", i);
        cm_store_entry(t, raw + i * esz, v);
    }
    /* (a frame of no entries is checked here: its loop never ran) */
    if (stop == n && io.d.overrun)
        return st_diag_set(d, ST_E_CORRUPT, "the range coder's stream is corrupt or too short");
    if (stop == n && io.d.pos != io.d.len)
        return st_diag_set(d, ST_E_CORRUPT, "the range coder's stream has %zu bytes left over", io.d.len - io.d.pos);
    return ST_OK;
}

#define CM2_TYPES(X) X(ST_TYPE_D64) X(ST_TYPE_D32) X(ST_TYPE_M64) X(ST_TYPE_M32)
#define AS_CASE_ENC(T) \
    case T: return encode_T(sets, m, T, raw, n, out);
#define AS_CASE_DEC(T) \
    case T: return decode_T(sets, m, T, payload, len, n, stop, raw, d);

st_error cm2_encode(vpc_set *sets, cm2_model *m, st_entry_type t, const uint8_t *raw, size_t n, st_buf *out)
{
    switch (t) {
        CM2_TYPES(AS_CASE_ENC)
    default: return ST_E_USAGE;
    }
}

st_error cm2_decode(vpc_set *sets, cm2_model *m, st_entry_type t, const uint8_t *payload, size_t len, size_t n,
                    size_t stop, uint8_t *raw, st_diag *d)
{
    switch (t) {
        CM2_TYPES(AS_CASE_DEC)
    default: return st_diag_set(d, ST_E_UNSUPPORTED, "encoder cm2 does not code entries of type %s", st_entry_name(t));
    }
}
