/*
 * vpcx.c - the vpc encoder (5): legacy VPC pairs (SIMTRACE.md 6.8).
 *
 * Each entry is a pc (u32) and an extended datum (u64, e.g. a store
 * address).  Both are coded the same way: several predictors each propose
 * a value (a *source*); the sources are walked in a ranked order, and one
 * range-coded flag per distinct proposal says whether it is the value.  A
 * value no source proposed is a miss, coded as a residual.  Each flag's
 * probability mixes two adaptive estimates (a shared context and the
 * source's own line) in the logistic domain.  Everything a flag depends on
 * is known to the decoder before it needs it.
 *
 * The per-entry code (vx_pc, vx_ed) is an inline template on DEC: with
 * DEC = 0 it encodes the value it is given, with DEC = 1 it returns the
 * value it decodes, and the same statements update the model in both
 * cases, so encoder and decoder cannot disagree.
 */
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "mix.h"
#include "rc.h"

/* Streams of the stream set (6.8.2): the range coder's output, the pc
 * miss bytes. */
enum { VX_S_RC, VX_S_PC, VX_NSTREAMS };

/* Bound on the range coder's bytes per entry (6.8.2): at most 32 flags of
 * at most 12 bits, 2 + 4 + 4 + 64 tree bits of at most 10, and the flush. */
#define VX_RC_MAX_PER_ENTRY 160

#if defined(__GNUC__)
#define VX_INLINE static inline __attribute__((always_inline))
#else
#define VX_INLINE static inline
#endif

/* Adaptive probabilities learn as cm's do (SIMTRACE.md 6.7): a frame
 * starts every context afresh, and most of them see few bits. */
#define VX_RK RC_COUNTED

/* ---- configuration (6.8.3) ------------------------------------------------ */

/* pc contexts, in source order: the last k pcs, with or without the last
 * extended datum; tag starts the hash */
#define PC_NCTX 8
static const struct {
    uint8_t k, ed, tag;
} pc_ctx[PC_NCTX] = {{2, 1, 102}, {1, 1, 101}, {8, 0, 8}, {6, 0, 6}, {4, 0, 4}, {3, 0, 3}, {2, 0, 2}, {1, 0, 1}};
#define PC_NSRC (2 * PC_NCTX) /* two values per context line */
#define PC_HIST 8
#define ED_NSRC 16
#define RG_BITS 12  /* region table lines */
#define RG_SHIFT 16 /* a region is 2^16 bytes */
#define MAX_TBITS 18
#define MAX_LBITS 16
#define MIX_SHIFT 10
#define MIX_W0 (3 << 14)
#define MIX_WMAX (1 << 24)

static unsigned bitlen(size_t n)
{
    unsigned b = 0;
    for (; n; n >>= 1)
        b++;
    return b;
}
/* Table sizes follow the frame, so a small frame resets little memory:
 * 2^tb lines for the context tables, 2^lb for the per-pc lines. */
static unsigned tbits_of(size_t n)
{
    unsigned b = bitlen(n) + 1;
    return b < 8 ? 8 : b > MAX_TBITS ? MAX_TBITS : b;
}
static unsigned lbits_of(size_t n)
{
    unsigned b = bitlen(n);
    return b < 8 ? 8 : b > MAX_LBITS ? MAX_LBITS : b;
}

/* ---- logistic mixing (mix.h: squash, stretch, p12, floor shifts) ---------- */

#define MIX_N 3 /* inputs: the shared context's estimate, the line's, a bias */
typedef struct {
    int32_t w[MIX_N];
} vx_mix;

/* ---- model ------------------------------------------------------------------- */

/* Per-pc line of the extended-data model. */
typedef struct {
    uint64_t lv[4];     /* last 4 distinct values, most recent first */
    uint64_t stride;    /* last stride (value - previous value of the line) */
    uint64_t stride2;   /* 2-delta stride: a stride seen twice in a row */
    uint64_t rdelta;    /* value - last value of its region, last time */
    uint64_t gdelta;    /* value - previous entry's value, last time */
    uint32_t sh[3];     /* hashes of the last 3 strides, [0] most recent */
    uint16_t m1, m2;    /* sources that were right the last two times */
    uint8_t lastref, lastnb;
    uint8_t pad[2];
    rc_prob p[ED_NSRC]; /* per source: "it is the value" */
} vx_line;

typedef struct {
    rc_prob pflag[PC_NSRC][9][4][2][2][2]; /* [source][line state][rank][agree][pc0][ed0] */
    rc_prob pnb[5][16];                    /* [last pc miss length][tree] */
    rc_prob eflag[ED_NSRC][4][4][2][2][2]; /* [source][key][rank][agree][pc0][ed0] */
    rc_prob eref[4][4];                    /* [last reference of the line][tree] */
    rc_prob enb[4][9][16];                 /* [reference][last length of the line][tree] */
    rc_prob ebyte[4][9][8][256];           /* [reference][length][byte][tree] */
    vx_mix pmix[4][2];                     /* [rank][agree] */
    vx_mix emix[4][4];                     /* [rank][key] */
} vx_probs;

typedef struct vpcx_model vpcx_model;
struct vpcx_model {
    unsigned tb, lb, alloc_tb, alloc_lb;
    uint32_t *pcv;  /* [PC_NCTX][2^tb][2] pc values, most recent first */
    uint8_t *pcst;  /* [PC_NCTX][2^tb] line state: 3 * older outcome + newer */
    rc_prob *pcp;   /* [PC_NCTX][2^tb][2] per slot: "it is the pc" */
    vx_line *line;  /* [2^lb] */
    uint64_t *d1;   /* [2^tb][2] strides after a stride (DFCM1) */
    uint64_t *d3;   /* [2^tb][2] strides after 3 strides (DFCM3) */
    uint64_t *f1;   /* [2^tb][2] values after a value (FCM1) */
    uint64_t rg[1u << RG_BITS];
    int16_t stretch[4096];
    vx_probs pr;
};

/* Bytes of model memory for a frame of n entries. */
static size_t vpcx_memory(size_t n)
{
    size_t t = (size_t)1 << tbits_of(n), l = (size_t)1 << lbits_of(n);
    return sizeof(vpcx_model) + PC_NCTX * t * (2 * sizeof(uint32_t) + 1 + 2 * sizeof(rc_prob)) +
           l * sizeof(vx_line) + 3 * t * 2 * sizeof(uint64_t);
}

static void free_tables(vpcx_model *m)
{
    free(m->pcv);
    free(m->pcst);
    free(m->pcp);
    free(m->line);
    free(m->d1);
    free(m->d3);
    free(m->f1);
    m->pcv = NULL;
    m->pcst = NULL;
    m->pcp = NULL;
    m->line = NULL;
    m->d1 = m->d3 = m->f1 = NULL;
    m->alloc_tb = m->alloc_lb = 0;
}

static void vpcx_free(void *model)
{
    vpcx_model *m = model;
    if (!m)
        return;
    free_tables(m);
    free(m);
}

/* The state of 6.8.3 at the start of a frame of n entries. */
static st_error vx_ready(vpcx_model **mp, size_t n)
{
    vpcx_model *m = *mp;
    if (!m) {
        if (!(m = calloc(1, sizeof *m)))
            return ST_E_NOMEM;
        *mp = m;
    }
    unsigned tb = tbits_of(n), lb = lbits_of(n);
    size_t t = (size_t)1 << tb, l = (size_t)1 << lb;
    if (tb > m->alloc_tb || lb > m->alloc_lb) {
        free_tables(m);
        m->pcv = malloc(PC_NCTX * t * 2 * sizeof *m->pcv);
        m->pcst = malloc(PC_NCTX * t);
        m->pcp = malloc(PC_NCTX * t * 2 * sizeof *m->pcp);
        m->line = malloc(l * sizeof *m->line);
        m->d1 = malloc(t * 2 * sizeof *m->d1);
        m->d3 = malloc(t * 2 * sizeof *m->d3);
        m->f1 = malloc(t * 2 * sizeof *m->f1);
        if (!m->pcv || !m->pcst || !m->pcp || !m->line || !m->d1 || !m->d3 || !m->f1) {
            free_tables(m);
            return ST_E_NOMEM;
        }
        m->alloc_tb = tb;
        m->alloc_lb = lb;
    }
    m->tb = tb;
    m->lb = lb;
    memset(m->pcv, 0, PC_NCTX * t * 2 * sizeof *m->pcv);
    memset(m->pcst, 0, PC_NCTX * t);
    for (size_t i = 0; i < PC_NCTX * t * 2; i++)
        m->pcp[i] = RC_PROB_INIT;
    memset(m->line, 0, l * sizeof *m->line);
    for (size_t i = 0; i < l; i++)
        for (unsigned c = 0; c < ED_NSRC; c++)
            m->line[i].p[c] = RC_PROB_INIT;
    memset(m->d1, 0, t * 2 * sizeof *m->d1);
    memset(m->d3, 0, t * 2 * sizeof *m->d3);
    memset(m->f1, 0, t * 2 * sizeof *m->f1);
    memset(m->rg, 0, sizeof m->rg);
    rc_prob *p = (rc_prob *)(void *)&m->pr;
    for (size_t i = 0; i < offsetof(vx_probs, pmix) / sizeof(rc_prob); i++)
        p[i] = RC_PROB_INIT;
    for (unsigned i = 0; i < 4; i++) {
        for (unsigned j = 0; j < 2; j++)
            m->pr.pmix[i][j] = (vx_mix){{MIX_W0, MIX_W0, 0}};
        for (unsigned j = 0; j < 4; j++)
            m->pr.emix[i][j] = (vx_mix){{MIX_W0, MIX_W0, 0}};
    }
    mix_stretch_init(m->stretch);
    return ST_OK;
}

/* ---- hashing ------------------------------------------------------------------ */

#define HMUL UINT64_C(0x9E3779B97F4A7C15)
static inline uint32_t hline(uint64_t x, unsigned bits) { return (uint32_t)((x * HMUL) >> (64 - bits)); }

/* ---- the coder: one template for both directions ------------------------------- */

typedef struct {
    rc_enc e;
    rc_dec d;
    st_buf *pcm;       /* encoder: the pc miss stream */
    const uint8_t *pcp; /* decoder: the pc miss stream */
    size_t pcl, pcpos;
    int bad;           /* the pc miss stream ran out (decoder) or could not grow (encoder) */
} vx_io;

VX_INLINE unsigned vx_tree(vx_io *io, int DEC, rc_prob *t, unsigned nbits, unsigned sym)
{
    unsigned node = 1;
    for (unsigned i = nbits; i-- > 0;) {
        unsigned b;
        if (DEC) {
            b = rc_decode(&io->d, &t[node], VX_RK);
        } else {
            b = (sym >> i) & 1u;
            rc_encode(&io->e, &t[node], b, VX_RK);
        }
        node = (node << 1) | b;
    }
    return node - (1u << nbits);
}

/* P(1) of an adaptive probability, in 12 bits */
static inline int p12(rc_prob p) { return mix_p12(rc_p0(p, VX_RK)); }

/* Code bit b with the mix of the estimates *pa and *pb (weights mx), then
 * adapt the weights and both estimates. */
VX_INLINE unsigned vx_mbit(vx_io *io, int DEC, const int16_t *stretch, vx_mix *mx, rc_prob *pa, rc_prob *pb,
                           unsigned b)
{
    const int x[MIX_N] = {stretch[p12(*pa)], stretch[p12(*pb)], 256};
    int64_t dot = 0;
    for (unsigned i = 0; i < MIX_N; i++)
        dot += (int64_t)mx->w[i] * x[i];
    int64_t xs = mix_asr64(dot, 16);
    const int p = mix_squash(xs > 2047 ? 2047 : xs < -2047 ? -2047 : (int)xs);
    const uint32_t p0 = (uint32_t)(4096 - p) << 4;
    if (DEC)
        b = rc_decode_p0(&io->d, p0);
    else
        rc_encode_p0(&io->e, p0, b);
    const int err = ((int)b << 12) - p;
    for (unsigned i = 0; i < MIX_N; i++) {
        int64_t w = mx->w[i] + mix_asr64((int64_t)x[i] * err, MIX_SHIFT);
        mx->w[i] = (int32_t)(w > MIX_WMAX ? MIX_WMAX : w < -MIX_WMAX ? -MIX_WMAX : w);
    }
    *pa = rc_adapt(*pa, b, VX_RK);
    *pb = rc_adapt(*pb, b, VX_RK);
    return b;
}

/* zigzag of a 64-bit difference, and back (unsigned arithmetic only) */
static inline uint64_t zz(uint64_t d) { return (d << 1) ^ (0 - (d >> 63)); }
static inline uint64_t unzz(uint64_t r) { return (r >> 1) ^ (0 - (r & 1)); }

VX_INLINE void lru4(uint64_t *l, uint64_t v)
{
    unsigned k = 0;
    while (k < 3 && l[k] != v)
        k++;
    for (; k > 0; k--)
        l[k] = l[k - 1];
    l[0] = v;
}

VX_INLINE void lru2(uint64_t *l, uint64_t v)
{
    if (l[0] != v) {
        l[1] = l[0];
        l[0] = v;
    }
}

VX_INLINE void lru2_32(uint32_t *l, uint32_t v)
{
    if (l[0] != v) {
        l[1] = l[0];
        l[0] = v;
    }
}

/* Coder state across entries (6.8.3). */
typedef struct {
    uint32_t ph[PC_HIST]; /* last pcs, [0] most recent */
    uint64_t prev, prev2; /* last two extended data */
    unsigned pclastnb;
    unsigned pc0;         /* the last pc was the first flag's candidate */
    unsigned ed0;         /* the last extended datum was the first flag's candidate */
} vx_state;

/* Walk the ranked sources: skip a value already rejected, code one flag per
 * distinct value.  Returns the source that is right, or nsrc.  prob(c,
 * rank, agree) gives the shared-context estimate, line(c) the line's,
 * mixw(c, rank, agree) the weights. */
#define VX_WALK(nsrc, order, cand, SHARED, LINE, MIXW, hit, rank)                                        \
    do {                                                                                              \
        for (unsigned q_ = 0; q_ < (nsrc); q_++) {                                                    \
            unsigned c = (order)[q_], dup_ = 0, agree = 0;                                           \
            for (unsigned k_ = 0; k_ < q_; k_++)                                                      \
                dup_ |= (cand)[(order)[k_]] == (cand)[c];                                             \
            if (dup_)                                                                                 \
                continue; /* an earlier source proposed this value, and it was not it */              \
            for (unsigned k_ = q_ + 1; k_ < (nsrc); k_++)                                             \
                agree |= (cand)[(order)[k_]] == (cand)[c];                                            \
            unsigned r3 = (rank) < 3 ? (rank) : 3;                                                    \
            unsigned b_ = vx_mbit(io, DEC, m->stretch, MIXW, SHARED, LINE, !DEC && (cand)[c] == v); \
            (rank)++;                                                                                 \
            if (b_) {                                                                                 \
                (hit) = c;                                                                            \
                break;                                                                                \
            }                                                                                         \
        }                                                                                             \
    } while (0)

/* Code one pc (6.8.4).  Returns it; *err is set on corrupt input. */
VX_INLINE uint32_t vx_pc(vpcx_model *m, vx_io *io, vx_state *s, int DEC, uint32_t v, const char **err)
{
    const unsigned tb = m->tb;
    const size_t t = (size_t)1 << tb;
    size_t base[PC_NCTX];
    uint32_t cand[PC_NSRC];
    unsigned st[PC_NSRC], key[PC_NSRC];
    for (unsigned o = 0; o < PC_NCTX; o++) {
        uint64_t h = pc_ctx[o].tag;
        for (unsigned i = 0; i < pc_ctx[o].k; i++)
            h = (h ^ s->ph[i]) * HMUL;
        if (pc_ctx[o].ed)
            h = (h ^ s->prev) * HMUL;
        base[o] = (size_t)o * t + (size_t)(h >> (64 - tb));
        cand[o] = m->pcv[2 * base[o]];
        cand[PC_NCTX + o] = m->pcv[2 * base[o] + 1];
        st[o] = st[PC_NCTX + o] = m->pcst[base[o]];
    }
    /* rank: the slot was right at the line's last outcome, the one before
     * (outcome 1 = slot 0, 2 = slot 1, 0 = neither); then by source */
    unsigned order[PC_NSRC], no = 0;
    for (unsigned c = 0; c < PC_NSRC; c++) {
        unsigned want = c < PC_NCTX ? 1u : 2u;
        key[c] = (unsigned)((st[c] % 3u) == want) << 1 | (unsigned)((st[c] / 3u) == want);
    }
    for (unsigned k = 4; k-- > 0;)
        for (unsigned c = 0; c < PC_NSRC; c++)
            if (key[c] == k)
                order[no++] = c;
    unsigned hit = PC_NSRC, rank = 0;
    VX_WALK(PC_NSRC, order, cand, &m->pr.pflag[c][st[c]][r3][agree][s->pc0][s->ed0],
            &m->pcp[2 * base[c % PC_NCTX] + c / PC_NCTX], &m->pr.pmix[r3][agree], hit, rank);
    s->pc0 = hit < PC_NSRC && rank == 1;
    if (hit < PC_NSRC) {
        v = cand[hit];
    } else {
        /* residual: zigzag of the 32-bit signed difference from the last pc */
        uint32_t d32 = v - s->ph[0];
        uint64_t r = DEC ? 0 : zz((uint64_t)d32 | (d32 >> 31 ? UINT64_C(0xFFFFFFFF00000000) : 0));
        unsigned nb = vx_tree(io, DEC, m->pr.pnb[s->pclastnb], 4, nbytes_of(r));
        if (DEC && nb > 4) {
            *err = "pc miss length above 4 bytes";
            return 0;
        }
        s->pclastnb = nb;
        if (DEC) {
            if (nb > io->pcl - io->pcpos) {
                io->bad = 1;
                return 0;
            }
            for (unsigned k = 0; k < nb; k++)
                r |= (uint64_t)io->pcp[io->pcpos++] << (8 * k);
            if (nb && (r >> (8 * (nb - 1))) == 0) {
                *err = "pc miss longer than needed";
                return 0;
            }
        } else {
            uint8_t b[4];
            for (unsigned k = 0; k < nb; k++)
                b[k] = (uint8_t)(r >> (8 * k));
            if (st_buf_append(io->pcm, b, nb) != ST_OK)
                io->bad = 1;
        }
        v = s->ph[0] + (uint32_t)unzz(r);
    }
    for (unsigned o = 0; o < PC_NCTX; o++) {
        unsigned out = cand[o] == v ? 1 : cand[PC_NCTX + o] == v ? 2 : 0;
        m->pcst[base[o]] = (uint8_t)((m->pcst[base[o]] % 3) * 3 + out);
        lru2_32(&m->pcv[2 * base[o]], v);
    }
    for (unsigned i = PC_HIST - 1; i > 0; i--)
        s->ph[i] = s->ph[i - 1];
    s->ph[0] = v;
    return v;
}

/* Code the extended datum of an entry whose pc is pc (6.8.5). */
VX_INLINE uint64_t vx_ed(vpcx_model *m, vx_io *io, vx_state *s, int DEC, uint32_t pc, uint64_t v, const char **err)
{
    const unsigned tb = m->tb;
    vx_line *L = &m->line[hline(pc, m->lb)];
    const uint64_t last = L->lv[0];
    const uint32_t i1 = hline(L->stride, tb), i3 = (L->sh[0] ^ (L->sh[1] << 1) ^ (L->sh[2] << 2)) & ((1u << tb) - 1u);
    const uint32_t f1 = hline(last, tb), rl = hline(last >> RG_SHIFT, RG_BITS);
    uint64_t cand[ED_NSRC];
    cand[0] = s->prev + L->gdelta;     /* as far from the previous entry's as last time */
    cand[1] = m->rg[rl] + L->rdelta;   /* as far from the last of its region as last time */
    cand[2] = L->lv[0];                /* the last value at this pc */
    cand[3] = last + L->stride2;       /* 2-delta stride */
    cand[4] = last + L->stride;        /* last stride */
    cand[5] = last + m->d1[2 * i1];    /* DFCM1 */
    cand[6] = last + m->d1[2 * i1 + 1];
    cand[7] = last + m->d3[2 * i3];    /* DFCM3 */
    cand[8] = last + m->d3[2 * i3 + 1];
    cand[9] = m->f1[2 * f1];           /* FCM1 */
    cand[10] = m->f1[2 * f1 + 1];
    cand[11] = L->lv[1];               /* LV */
    cand[12] = L->lv[2];
    cand[13] = L->lv[3];
    cand[14] = s->prev;                /* the previous entry's */
    cand[15] = s->prev2;
    /* rank: right both last times, last time only, the time before only,
     * neither; then by source */
    unsigned order[ED_NSRC], no = 0;
    for (unsigned k = 4; k-- > 0;)
        for (unsigned c = 0; c < ED_NSRC; c++)
            if (((((unsigned)L->m1 >> c) & 1u) << 1 | (((unsigned)L->m2 >> c) & 1u)) == k)
                order[no++] = c;
#define EKEY(c) (((((unsigned)L->m1 >> (c)) & 1u) << 1) | (((unsigned)L->m2 >> (c)) & 1u))
    unsigned hit = ED_NSRC, rank = 0;
    VX_WALK(ED_NSRC, order, cand, &m->pr.eflag[c][EKEY(c)][r3][agree][s->pc0][s->ed0], &L->p[c],
            &m->pr.emix[r3][EKEY(c)], hit, rank);
#undef EKEY
    s->ed0 = hit < ED_NSRC && rank == 1;
    if (hit < ED_NSRC) {
        v = cand[hit];
    } else {
        /* residual against the nearest of four references */
        const uint64_t ref[4] = {last, s->prev, m->rg[rl], cand[3]};
        unsigned sel = 0;
        uint64_t r = 0;
        if (!DEC) {
            r = zz(v - ref[0]);
            for (unsigned k = 1; k < 4; k++) {
                uint64_t rk = zz(v - ref[k]);
                if (rk < r) {
                    r = rk;
                    sel = k;
                }
            }
        }
        sel = vx_tree(io, DEC, m->pr.eref[L->lastref], 2, sel);
        L->lastref = (uint8_t)sel;
        unsigned nb = vx_tree(io, DEC, m->pr.enb[sel][L->lastnb], 4, nbytes_of(r));
        if (DEC && nb > 8) {
            *err = "miss length above 8 bytes";
            return 0;
        }
        L->lastnb = (uint8_t)nb;
        uint64_t rr = 0;
        for (unsigned k = nb; k-- > 0;) {
            unsigned byte = vx_tree(io, DEC, m->pr.ebyte[sel][nb][k], 8, (unsigned)(r >> (8 * k)) & 255u);
            rr |= (uint64_t)byte << (8 * k);
        }
        if (DEC && nb && (rr >> (8 * (nb - 1))) == 0) {
            *err = "miss longer than needed";
            return 0;
        }
        v = ref[sel] + unzz(rr);
    }
    /* learn */
    uint16_t mask = 0;
    for (unsigned c = 0; c < ED_NSRC; c++)
        mask |= (uint16_t)((cand[c] == v) << c);
    L->m2 = L->m1;
    L->m1 = mask;
    const uint64_t ns = v - last;
    lru2(&m->d1[2 * i1], ns);
    lru2(&m->d3[2 * i3], ns);
    lru2(&m->f1[2 * f1], v);
    if (ns == L->stride)
        L->stride2 = ns;
    L->stride = ns;
    L->sh[2] = L->sh[1];
    L->sh[1] = L->sh[0];
    L->sh[0] = hline(ns, tb);
    lru4(L->lv, v);
    const uint32_t rv = hline(v >> RG_SHIFT, RG_BITS);
    L->rdelta = v - m->rg[rv];
    m->rg[rv] = v;
    L->gdelta = v - s->prev;
    s->prev2 = s->prev;
    s->prev = v;
    return v;
}

/* Encode n 12-byte pairs at raw into the streams (appended to
 * out[0..VX_NSTREAMS-1], which must be empty).  *mp is allocated or grown
 * as needed. */
static st_error vpcx_encode(vpcx_model **mp, const uint8_t *raw, size_t n, st_buf out[VX_NSTREAMS])
{
    RETURN_IF_ERROR(vx_ready(mp, n));
    vpcx_model *m = *mp;
    vx_io io;
    memset(&io, 0, sizeof io);
    rc_enc_init(&io.e, &out[VX_S_RC]);
    io.pcm = &out[VX_S_PC];
    vx_state s;
    memset(&s, 0, sizeof s);
    const char *err = NULL;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = raw + 12 * i;
        uint32_t pc = st_load32(p);
        vx_pc(m, &io, &s, 0, pc, &err);
        vx_ed(m, &io, &s, 0, pc, st_load64(p + 4), &err);
    }
    RETURN_IF_ERROR(rc_enc_finish(&io.e));
    return io.bad ? ST_E_NOMEM : ST_OK;
}

/* Decode the first `stop` of n pairs from the streams into raw.  With
 * stop == n the streams must be consumed exactly.  Returns ST_OK,
 * ST_E_CORRUPT (diag says what), ST_E_NOMEM. */
static st_error vpcx_decode(vpcx_model **mp, const uint8_t *const data[VX_NSTREAMS], const size_t len[VX_NSTREAMS],
                     size_t n, size_t stop, uint8_t *raw, st_diag *d)
{
    RETURN_IF_ERROR(vx_ready(mp, n));
    vpcx_model *m = *mp;
    vx_io io;
    memset(&io, 0, sizeof io);
    rc_dec_init(&io.d, data[VX_S_RC], len[VX_S_RC]);
    io.pcp = data[VX_S_PC];
    io.pcl = len[VX_S_PC];
    vx_state s;
    memset(&s, 0, sizeof s);
    const char *err = NULL;
    for (size_t i = 0; i < stop; i++) {
        uint32_t pc = vx_pc(m, &io, &s, 1, 0, &err);
        uint64_t v = (err || io.bad) ? 0 : vx_ed(m, &io, &s, 1, pc, 0, &err);
        if (err)
            return st_diag_set(d, ST_E_CORRUPT, "entry %zu: %s", i, err);
        if (io.bad)
            return st_diag_set(d, ST_E_CORRUPT, "entry %zu: pc miss stream ends too early", i);
        if (io.d.overrun)
            return st_diag_set(d, ST_E_CORRUPT, "entry %zu: range coder stream ends too early", i);
        st_store32(raw + 12 * i, pc);
        st_store64(raw + 12 * i + 4, v);
    }
    if (stop == n) {
        if (io.d.pos != io.d.len)
            return st_diag_set(d, ST_E_CORRUPT, "range coder stream has bytes left over");
        if (io.pcpos != io.pcl)
            return st_diag_set(d, ST_E_CORRUPT, "pc miss stream has bytes left over");
    }
    return ST_OK;
}

/* ---- the codec's descriptor --------------------------------------------------- */

static const char *const vx_names[VX_NSTREAMS] = {"flags and misses (range coded)", "pc misses"};
static const int vx_compress[VX_NSTREAMS] = {0, 1};

static st_error vx_encode(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw,
                          const svpc_source *src, size_t *n, st_buf *out)
{
    (void)t;
    (void)src;
    for (unsigned i = 0; i < VX_NSTREAMS; i++)
        c->buf[i].len = 0;
    vpcx_model *m = c->model[SVPC_ENC_VPC];
    st_error e = vpcx_encode(&m, raw, *n, c->buf);
    c->model[SVPC_ENC_VPC] = m;
    return e == ST_OK ? svpc_streams_pack(c, p, vx_names, vx_compress, NULL, VX_NSTREAMS, out) : e;
}

static st_error vx_decode(svpc_ctx *c, st_entry_type t, const uint8_t *payload, size_t len, size_t n, size_t from, size_t stop,
                          uint8_t *raw, st_diag *d)
{
    (void)from; /* every entry is stored */
    (void)t;
    const size_t maxl[VX_NSTREAMS] = {VX_RC_MAX_PER_ENTRY * n + 64, 4 * n};
    ss_out so;
    st_error e = ss_unpack(payload, len, VX_NSTREAMS, maxl, &so, d);
    if (e == ST_OK) {
        vpcx_model *m = c->model[SVPC_ENC_VPC];
        e = vpcx_decode(&m, so.data, so.len, n, stop, raw, d);
        c->model[SVPC_ENC_VPC] = m;
    }
    st_buf_free(&so.arena);
    return e;
}

static int vx_supports(st_entry_type t) { return t == ST_TYPE_VPC; }
static size_t vx_memory(void) { return vpcx_memory(SVPC_MAX_FRAME_ENTRIES); }

const svpc_codec svpc_codec_vpc = {SVPC_ENC_VPC, "vpc", vx_supports, vx_memory, 0, vx_encode, vx_decode, vpcx_free};
