/*
 * cm2.c - the cm2 entry encoder (6): SIMTRACE.md 6.9.
 *
 * cm2 keeps cm's predictors and expectations (6.4, 6.7), codes the ids
 * in somewhat richer contexts, and codes every miss with the range coder
 * itself, through models of its own, instead of writing raw miss bytes for
 * a second stage.  On real code the second stage was most of the time
 * (LZMA took 79% of compressing grub_work.read) and, with its encoder's
 * match-finder tables taken fresh from the kernel for every frame, most of
 * the memory too.
 *
 *   - A match model per miss kind (ip residuals, address residuals, data
 *     values) remembers where the last K misses of its kind were last
 *     followed by another, and proposes that one: LZ77 without offsets.
 *     A copy in the trace (inflate's output, a memmove, a call sequence
 *     that repeats) repeats a run of earlier misses, which is what LZMA
 *     found in the miss streams.  Ip and address misses look for the
 *     longest of 3, 2 and 1 misses of context that has been seen before.
 *     One flag says whether the proposal is right; its context is the
 *     match's length so far.
 *   - Other ip, cycle, meta and address residuals (cm's zigzag differences
 *     or XOR against the same references) are coded as a byte length and
 *     then their bytes, most significant first, each through a bit tree
 *     whose context is the field, the length, the byte's position and the
 *     high nibble of the byte above it.
 *   - A data miss may also be one of the last 16 data misses (a hash's
 *     state moving between variables, a saved register), coded by how far
 *     back it is.
 *   - Other data values are coded by halves against the last value seen
 *     at the same ip.  The upper half holds the access size for accesses
 *     narrower than 8 bytes: one flag says it is the reference's.  The
 *     lower half then goes lane by lane in memory order, up to the size:
 *     a flag per lane (the reference's byte?) and, if not, the byte, by
 *     three models mixed: the byte before it in memory (for the lowest
 *     lane, the last byte of the previous miss of the same upper half),
 *     the two bytes before it, and the reference's byte.  So copied text
 *     or code, stored a byte or a word at a time, has the bytes before it
 *     as context, as LZMA's literals and short matches had.
 *   - Random values (hash states: two thirds of the value bytes of
 *     grub_work's writes, at 8.06 bits each under the models) are found by
 *     ip and coded raw, 8 bits at once, which is no larger and several
 *     times faster to code and decode.
 *
 * One template codes and decodes (ENC a constant), so the two cannot
 * disagree; a third instance encodes and accounts each bit's cost by
 * field (cm2_account(), for simtrace-cat --stats).  The payload is the
 * range coder's output alone.
 *
 * The same template with EXTRA 3 is the best encoder (11, SIMTRACE.md
 * 6.11, -9): where cm2 codes a bit by one probability, best mixes it with
 * three more contexts (cm2_flag(), cm2_ctx_tree(), cm2_mix_tree()).  With
 * EXTRA 1 or 2 it is the mix encoder (12, 6.11.1, -7 and -8), which mixes
 * only the first one or two of best's three (one instance for both, the
 * count read at run time: MIX_EXTRA()).  With EXTRA 0 every one of
 * these additions folds away, so cm2's bytes are the same as they were
 * without them.
 *
 * Every instance also takes the transform of recent data values (6.9.1,
 * s->xf, a run-time flag: its cost when off is one predictable branch per
 * data miss): cmx (13, -6) is cm2 with it, and mix (12) sets it in its
 * parameter byte (-7..-9).
 */
#include "cm2.h"

#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "expect.h"
#include "fields.h"
#include "mix.h"
#include "rc.h"

/* The transform of recent data values (6.9.1).  Hash functions (md5, sha1,
 * sha256) rotate and add their state words and spill them to the stack:
 * the value a 4-byte load reads back is often a rotation of one of the
 * last few entries' data values, or the sum of two of them, and the
 * same one each time at an ip.  Candidate c < XF_NROT is the j-th last
 * entry's value (j = c / 31, 0 the previous entry's) rotated left by
 * c % 31 + 1 bits; c >= XF_NROT the sum of the j-th and k-th last
 * (j < k, in the order (0,1), (0,2) .. (0,11), (1,2) ..).  Each ip line
 * keeps the candidate that last gave its value (XF, 2^16 lines of 16
 * bits: 128 KiB, reset per frame).  12 values back, rotations and
 * pairwise sums: the sources the prototype's analysis of grub_work's
 * data misses chose (branch grubval, scripts/grubval/candidates.py and
 * xform_estimate.py). */
#define XF_K 12
#define XF_NROT (XF_K * 31)
#define XF_N (XF_NROT + XF_K * (XF_K - 1) / 2) /* 438 candidates: 9 bits */
#define XF_CAND_MASK 1023u                    /* per ip line: bits 0..9 1 + the candidate (0: none) */
#define XF_HIST_SHIFT 12                      /* bits 12..14: its last 3 flags */
_Static_assert(XF_N < XF_CAND_MASK, "a candidate and 1 fit in the line's 10 bits");

/* What the transform did in a frame: the candidates it proposed, and how
 * many were right (cmx_encode()'s choice). */
typedef struct {
    uint32_t tries, hits;
} cmx_tally;

/* The value of candidate c over the last XF_K entries' data values h[]
 * (h[(hn - 1 - j) % XF_K] the j-th last; hn >= XF_K). */
static uint32_t xf_apply(const uint32_t *h, unsigned hn, unsigned c)
{
    if (c < XF_NROT) {
        const uint32_t y = h[(hn - 1 - c / 31) % XF_K];
        const unsigned r = c % 31 + 1;
        return (y << r) | (y >> (32 - r));
    }
    c -= XF_NROT;
    unsigned a = 0;
    while (c >= XF_K - 1 - a)
        c -= XF_K - 1 - a++;
    return h[(hn - 1 - a) % XF_K] + h[(hn - 1 - (a + 1 + c)) % XF_K];
}

/* The first candidate whose value is x, XF_N if none.  A rotation of 0,
 * of ~0 or of x itself is no candidate: those say nothing of a rotation
 * (0 and ~0 are their own rotations, and x is the recent values'). */
static unsigned xf_find(const uint32_t *h, unsigned hn, uint32_t x)
{
    uint32_t r[XF_K];
    for (unsigned j = 0; j < XF_K; j++)
        r[j] = h[(hn - 1 - j) % XF_K];
    const int px = __builtin_popcount(x);
    for (unsigned j = 0; j < XF_K; j++) {
        uint32_t y = r[j];
        /* a rotation keeps the count of ones: most values are out at once */
        if (y == x || !y || y == UINT32_MAX || __builtin_popcount(y) != px)
            continue;
        for (unsigned k = 1; k < 32; k++) {
            y = (y << 1) | (y >> 31);
            if (y == x)
                return j * 31 + k - 1;
        }
    }
    unsigned c = XF_NROT;
    for (unsigned a = 0; a < XF_K; a++)
        for (unsigned b = a + 1; b < XF_K; b++, c++)
            if (r[a] + r[b] == x)
                return c;
    return XF_N;
}

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
/* Context lengths of each kind's match model, longest first, 0: none (ip:
 * call and jump sequences; address: the strides of a walk that repeats;
 * data: runs of copied values).  Where there is no match, the longest
 * context seen before proposes: a long context is right more often, a
 * short one finds a repeat sooner (-1.0% on lackey_bzip2.write and -0.3%
 * on lackey_cc1.read against one context of 2). */
static const unsigned mm_orders[MM_COUNT][3] = {{3, 2, 1}, {3, 2, 1}, {3, 0, 0}};
#define CM2_MAX_ORDER 3

/* The lower lanes of a data miss are coded by three models at once, mixed
 * (6.9): the byte before, a hash of the two bytes before (x86 code and
 * text copied through memory, which LZMA's literals and short matches
 * found), and the reference's byte (a counter, a pointer that moved).
 * Mixing in the logistic domain, with weights learned per lane and bit
 * and for full or narrow values, takes from each model the contexts where
 * it predicts well: 13% smaller than the single model of the byte before
 * on bios_post.write, 2.5% on grub_work.write.  The models' trees are
 * shared by the lanes, which learns faster than a tree per lane. */
#define CM2_O2_BITS 10
#define CM2_O2_CTX (1u << CM2_O2_BITS)
#define CM2_MIX_NM 3
#define CM2_MIX_IN (CM2_MIX_NM + 1)      /* models and a bias */
#define CM2_MIX_MAXIN 8 /* the most inputs of any mixer, cm2's or best's */
#define CM2_MIX_BIAS 256  /* the bias input */
#define CM2_MIX_W0 19661  /* initial weight of a model, 0.3 in 1/65536 */
#define CM2_MIX_SHIFT 10  /* learning rate: 2^-10 of input times error */

/* Raw lanes.  Hash states and other random values cost 8 bits a byte
 * whatever the model (grub_work's writes: 67% of the lane bytes, at 8.06
 * bits), and a model's bit-by-bit work is most of the time spent on them.
 * So each ip line keeps a running average of what its model-coded lane
 * bytes cost (cm2_cost16, in 1/256 bits, weight 1/8 to the newest); at
 * CM2_RAW_COST or more, its bytes are coded raw, 8 equally likely bits at
 * once, except every CM2_RAW_PROBE-th, which the model codes (and learns)
 * to see whether the values have become predictable again. */
#define CM2_RAW_PROBE 8
#define CM2_RAW_COST (126 * 16) /* 7.875 bits */
/* -log2((i + 1/2) / 128) in 1/16 bits, rounded */
static const uint8_t cm2_cost16[128] = {
    128, 103, 91, 83, 77, 73, 69, 65, 63, 60, 58, 56, 54, 52, 50, 49, 47, 46, 45, 43, 42, 41, 40, 39, 38, 37,
    36,  35,  35, 34, 33, 32, 32, 31, 30, 30, 29, 28, 28, 27, 27, 26, 25, 25, 24, 24, 23, 23, 22, 22, 21, 21,
    21,  20,  20, 19, 19, 18, 18, 18, 17, 17, 17, 16, 16, 15, 15, 15, 14, 14, 14, 13, 13, 13, 12, 12, 12, 12,
    11,  11,  11, 10, 10, 10, 10, 9,  9,  9,  9,  8,  8,  8,  7,  7,  7,  7,  7,  6,  6,  6,  6,  5,  5,  5,
    5,   4,   4,  4,  4,  4,  3,  3,  3,  3,  3,  2,  2,  2,  2,  2,  1,  1,  1,  1,  1,  0,  0,  0};

typedef struct {
    uint64_t ring[1u << CM2_RING_BITS];
    uint32_t hash[3][1u << CM2_HASH_BITS];
} cm2_mtab;

typedef struct {
    rc_prob ipflag[16][32];
    rc_prob iptree[16][16][16];         /* [expected id][the previous entry's ip id] */
    rc_prob allflag[1024];              /* [TUPLE's all-flags][ip flag][the last 6 all-flags] */
    rc_prob fflag[F_COUNT][16][32];
    rc_prob ftree[F_COUNT][16][16][16]; /* [field][expected id][the previous entry's id of the field] */
    rc_prob refsel[4];
    rc_prob match[MM_COUNT][16][2];    /* [kind][match length][its last flag] */
    rc_prob nbtree[F_DATA][9][16];     /* [field][previous miss length] 4-bit length tree */
    rc_prob rbyte[F_DATA][36][16][256]; /* [field][length and byte position][high nibble of the byte above] byte tree */
    rc_prob recent[2][4];              /* data miss is among the last CM2_RECENT misses: [byte access][last two flags] */
    rc_prob rdist[2][CM2_RECENT];      /* which one, back from the last: [byte access] tree */
    rc_prob dup[4];                    /* upper half equals the reference's: [last two flags] */
    rc_prob dhieq[4][2];               /* upper lane equals the reference's: [lane - W/2][all lanes above equal] */
    rc_prob dhi[4][256];               /* upper lane [lane - W/2] byte tree */
    rc_prob deq[4][5][2];              /* lower lane equals the reference's: [lane][size 1..4][its last flag] */
    rc_prob dzero[5];                  /* the lower lanes above the size are zero: [size] */
    rc_prob dlo1[256][256];            /* lower lane [the byte before it] byte tree */
    rc_prob dlo2[CM2_O2_CTX][256];     /* lower lane [hash of the two bytes before it] byte tree */
    rc_prob dlor[256][256];            /* lower lane [the reference's byte] byte tree */
    rc_prob xflag[8];                  /* the ip's transform gives the value (6.9.1): [its last 3 flags] */
} cm2_probs;

typedef struct cm2_model {
    cm2_probs pr;
    /* 64 bits: a step changes a weight by at most 2047 * 4095 / 2^10 < 2^13,
     * and a frame makes fewer than 2^30 steps, so no weight nor product
     * (below 2^43 * 2^11) nor their sum can overflow, and none is clamped */
    int64_t mixw[2][4][8][CM2_MIX_IN]; /* mixer weights [full size][lower lane][bit, most significant first] */
    int16_t stretch[4096];          /* stretch(q) for a 12-bit probability q: squash's inverse */
    uint16_t rawcost[1u << KEY_BITS]; /* the average cost of a lane byte at an ip line, 1/256 bits */
    uint8_t rawn[1u << KEY_BITS];     /* raw bytes since the last probe, at an ip line */
    uint16_t xform[1u << KEY_BITS];   /* the transform (6.9.1) at an ip line: XF_CAND_MASK, XF_HIST_SHIFT */
    cm2_mtab mm[MM_COUNT];
    cm_expect x; /* what happened last time at each key, as in cm (6.4.4) */
} cm2_model;

/* best (11, SIMTRACE.md 6.11): cm2's template with EXTRA 3.  The flags that
 * say whether an id was the expected one (ip, all fields, each field), the
 * id trees and the residual bytes are coded by cm2's counter mixed with
 * the counters of three more contexts (cm2_flag(), cm2_ctx_tree()):
 * longer histories of the same flag at the same ip line, of the flag at
 * all ips, and the pair of the last two ip lines; the lower data lanes mix
 * three more with cm2's three trees.  Those counters share one table,
 * indexed by a hash of the context (a collision costs only some
 * prediction), of 2^22: 2^24 was 0.01% smaller on 1M-entry samples of
 * the corpus. */
#define BEST_HASH_BITS 22
#define BEST_NM 4 /* cm2's counter and three hashed contexts (mix, 12: the first one or two) */
enum { BS_IP, BS_ALL, BS_FIELD, BS_IPTREE = BS_FIELD + 4, BS_FTREE, BS_RES = BS_FTREE + 4, BS_LANE = BS_RES + 4, BS_SITES };
#define BEST_WSEL 64 /* weight sets per site */
#define BEST_LANE_NH 3 /* hashed contexts mixed with cm2's three lower-lane trees */
#define BEST_LANE_IN (CM2_MIX_NM + BEST_LANE_NH + 1)
#define BEST_W0 65536 /* cm2's counter starts with weight 1, the others 0: cm2's prediction */

typedef struct {
    rc_prob h[1u << BEST_HASH_BITS];
    int64_t w[BS_SITES][BEST_WSEL][BEST_NM + 1];
    int64_t lw[2][4][8][BEST_LANE_IN]; /* the lower lanes' mixer weights, as cm2's W */
    uint32_t lhist[1u << KEY_BITS]; /* per ip line: bits 0..7 the last all-flags, 8 + 6j.. field j's last 6 match flags */
    uint16_t khist[1u << KEY_BITS]; /* per line of the previous ip: the last 16 ip flags */
} cm2_best;

typedef struct {
    cm2_model m;
    cm2_best b;
} best_model;

/* Reset m to the state of a new frame (the stretch table, filled once
 * when the model is made, stays). */
static void cm2_model_reset(cm2_model *m)
{
    for (unsigned z = 0; z < 2; z++)
    for (unsigned k = 0; k < 4; k++)
        for (unsigned b = 0; b < 8; b++)
            for (unsigned i = 0; i < CM2_MIX_IN; i++)
                m->mixw[z][k][b][i] = i + 1 < CM2_MIX_IN ? CM2_MIX_W0 : 0;
    rc_prob *p = (rc_prob *)(void *)&m->pr;
    for (size_t i = 0; i < sizeof m->pr / sizeof(rc_prob); i++)
        p[i] = RC_PROB_INIT;
    /* the rings need no clearing: only indices the hashes hold are read */
    for (unsigned k = 0; k < MM_COUNT; k++)
        for (unsigned o = 0; o < 3 && mm_orders[k][o]; o++)
            memset(m->mm[k].hash[o], 0, sizeof m->mm[k].hash[o]);
    memset(m->rawcost, 0, sizeof m->rawcost);
    memset(m->rawn, 0, sizeof m->rawn);
    memset(m->xform, 0, sizeof m->xform);
    cm_expect_reset(&m->x);
}

/* ---- coding primitives: one call site for encoder and decoder ------------ */

typedef struct {
    rc_enc e;
    rc_dec d;
    /* CM2_ACCOUNT only: what each category's bits cost, and the category
     * of the bits coded now (CM2_CAT) */
    uint64_t *cost;
    unsigned cat;
    svpc_pred_stats *acc; /* CM2_ACCOUNT: the ids each field used */
} cm2_io;

/* The template's ENC: decode, encode, or encode and add each bit's cost
 * to its category (cm2_account(), for simtrace-cat --stats).  Only
 * CM2_ACCOUNT's instance has accounting code: in the others every test of
 * ENC == CM2_ACCOUNT is a constant 0. */
enum { CM2_DECODE = 0, CM2_ENCODE = 1, CM2_ACCOUNT = 2 };

_Static_assert(CM2_COST_FIELDS == F_COUNT, "cm2.h's cost categories are per field of fields.h");

/* -log2(q / 65536) in 1/65536 bits (CM2_COST_UNIT) for a probability q
 * of 1..65535 in 1/65536: log2 by repeated squaring in Q30, each square
 * giving one bit of the fraction (truncated: a cost is at most 16 units
 * high; whatever it is off by goes to the coder's rounding). */
static uint32_t cm2_cost_of(uint32_t q)
{
    unsigned e = 0;
    while (q >> (e + 1))
        e++;
    uint64_t x = (uint64_t)q << (30 - e); /* q / 2^e in [1, 2), Q30 */
    uint32_t frac = 0;
    for (unsigned i = 16; i-- > 0;) {
        x = (x * x) >> 30;
        if (x >= (UINT64_C(2) << 30)) {
            x >>= 1;
            frac |= 1u << i;
        }
    }
    return ((16u - e) << 16) - frac;
}

/* Account a bit coded with probability p0 of a 0 (16 bits). */
static inline void cm2_account_bit(cm2_io *io, uint32_t p0, unsigned bit)
{
    io->cost[io->cat] += cm2_cost_of(bit ? 65536u - p0 : p0);
}

/* The bits coded from here on belong to category c (cm2.h). */
#define CM2_CAT(ENC, io, c) ((ENC) == CM2_ACCOUNT ? (void)((io)->cat = (c)) : (void)0)

/* One bit: the encoder writes `bit` and returns it; the decoder returns
 * what it reads, and its `bit` is never evaluated. */
#define CM2_BIT(ENC, io, p, bit)                                                                                     \
    ((ENC) ? ((ENC) == CM2_ACCOUNT ? cm2_account_bit((io), rc_p0(*(p), RC_COUNTED), (bit)) : (void)0,               \
              rc_encode(&(io)->e, (p), (bit), RC_COUNTED), (unsigned)(bit))                                          \
           : rc_decode(&(io)->d, (p), RC_COUNTED))
/* nbits of sym through a bit tree, likewise. */
#define CM2_TREE(ENC, io, tree, nbits, sym)                                                           \
    ((ENC) == CM2_ACCOUNT                                                                                 \
         ? (rc_encode_tree_hook(&(io)->e, (tree), (nbits), (sym), RC_COUNTED, cm2_account_tree_bit, (io)),     \
            (unsigned)(sym))                                                                                  \
     : (ENC)              ? (rc_encode_tree(&(io)->e, (tree), (nbits), (sym), RC_COUNTED), (unsigned)(sym)) \
                          : rc_decode_tree(&(io)->d, (tree), (nbits), RC_COUNTED))

/* rc_encode_tree()'s hook in CM2_ACCOUNT: each bit of a tree accounted. */
static void cm2_account_tree_bit(void *io, uint32_t p0, unsigned bit) { cm2_account_bit(io, p0, bit); }

/* A bit with probability p0 of a 0 (16 bits), nothing adapted: the
 * encoder codes `bit`, the decoder returns what it reads.  Adds its cost,
 * by cm2_cost16, to *cost. */
ST_INLINE unsigned cm2_code_p0(cm2_io *io, const int ENC, uint32_t p0, unsigned bit, unsigned *cost)
{
    if (ENC == CM2_ACCOUNT)
        cm2_account_bit(io, p0, bit);
    if (ENC)
        rc_encode_p0(&io->e, p0, bit);
    else
        bit = rc_decode_p0(&io->d, p0);
    *cost += cm2_cost16[(bit ? 65536u - p0 : p0) >> 9];
    return bit;
}

/* One bit by the n counters *q[0..n-1] at once, mixed with the weights
 * w[0..n] (the last for the bias input): the mixed probability codes the
 * bit, and then every counter and the weights learn it. */
ST_INLINE unsigned cm2_mix_bit(cm2_io *io, const int ENC, const int16_t *stretch, rc_prob *const *q, const unsigned n,
                               int64_t *w, unsigned bit, unsigned *cost)
{
    int x[CM2_MIX_MAXIN];
    for (unsigned j = 0; j < n; j++)
        x[j] = stretch[mix_p12(rc_p0(*q[j], RC_COUNTED))];
    x[n] = CM2_MIX_BIAS;
    const int p = mix_predict(x, w, n + 1); /* of a 1 */
    const unsigned b = cm2_code_p0(io, ENC, (uint32_t)(4096 - p) << 4, bit, cost);
    mix_learn(w, x, n + 1, ((int)b << 12) - p, CM2_MIX_SHIFT);
    for (unsigned j = 0; j < n; j++)
        *q[j] = rc_adapt(*q[j], b, RC_COUNTED);
    return b;
}

/* A byte through the tree t (6.4.3's tree of 8 bits), adding what it cost
 * to *cost (1/16 bits, cm2_cost16). */
ST_INLINE unsigned cm2_tree8(cm2_io *io, const int ENC, rc_prob *t, unsigned sym, unsigned *cost)
{
    unsigned node = 1;
    for (unsigned i = 8; i-- > 0;) {
        const unsigned b = cm2_code_p0(io, ENC, rc_p0(t[node], RC_COUNTED), (sym >> i) & 1u, cost);
        t[node] = rc_adapt(t[node], b, RC_COUNTED);
        node = (node << 1) | b;
    }
    return node - 256;
}

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
    unsigned idbits; /* the previous entry's ids */
    unsigned ipid;   /* and its ip id */
    unsigned last_nb[F_DATA];
    uint32_t kl; /* key line of the previous ip */
    /* match models */
    cm2_mstate ms[MM_COUNT];
    /* data lanes */
    unsigned dlane;      /* bit k: lower lane k equalled its reference at the last data miss */
    unsigned uphist;     /* the last upper-half flags */
    unsigned rchist;     /* the last recent-value flags */

    uint64_t dprev[16];  /* the last data miss of each (hashed) upper half */
    uint32_t tl;         /* the key line of this entry's ip */
    uint16_t dctx[16];   /* and its last two lower lanes, in memory order (the later lower) */
    /* the transform (6.9.1) */
    unsigned xf;             /* on (cmx, mix with its bit 2) */
    uint32_t dhist[XF_K];    /* the last XF_K entries' data values (lower 32 bits), dhist[dhn % XF_K] the next */
    uint32_t dhn;            /* entries so far */
    uint32_t xtries, xhits;  /* candidates proposed, and right (cmx's choice, cmx_encode()) */
    /* best and mix (EXTRA > 0) only */
    cm2_best *xb;        /* its tables; NULL in cm2 */
    uint32_t kl2;        /* the key line of the ip before the previous */
    unsigned ipid2;      /* the ip id of the entry before the previous */
    unsigned fhist[4];   /* the last match flags of each ip-keyed field, all ips */
} cm2_state;

/* The counter of context (site, a, b, c) in best's shared table. */
ST_INLINE rc_prob *best_ctx(cm2_best *b, unsigned site, uint64_t a, uint64_t c1, uint64_t c2)
{
    uint64_t h = (a + 1) * UINT64_C(0x9E3779B97F4A7C15);
    h = (h ^ (h >> 29) ^ c1) * UINT64_C(0xBF58476D1CE4E5B9);
    h = (h ^ (h >> 31) ^ c2 ^ ((uint64_t)site << 56)) * UINT64_C(0x94D049BB133111EB);
    return &b->h[h >> (64 - BEST_HASH_BITS)];
}

/* An id flag: cm2 codes it by its counter p; best and mix mix p with the
 * counters of EXTRA more contexts q[0..EXTRA-1], with the weights of set
 * wsel of the site. */
ST_INLINE unsigned cm2_flag(cm2_io *io, const int ENC, const int EXTRA, cm2_model *m, cm2_state *s, rc_prob *p,
                            rc_prob *const *q, unsigned site, unsigned wsel, unsigned bit)
{
    if (!EXTRA)
        return CM2_BIT(ENC, io, p, bit);
    rc_prob *const all[BEST_NM] = {p, q[0], q[1], q[2]};
    unsigned cost = 0;
    return cm2_mix_bit(io, ENC, m->stretch, all, 1 + EXTRA, s->xb->w[site][wsel & (BEST_WSEL - 1u)], bit, &cost);
}

/* nbits of sym (an id of 4 bits, a residual byte of 8) through the tree
 * t; best and mix mix each node's counter with the counters of the
 * contexts (site, c[2k], c[2k+1], node), k = 0..EXTRA-1, with the weights
 * of set node (4 bits) or wbase * 8 + the bit's rank (8 bits). */
ST_INLINE unsigned cm2_ctx_tree(cm2_io *io, const int ENC, const int EXTRA, cm2_model *m, cm2_state *s, rc_prob *t,
                                const unsigned nbits, const uint64_t *c, unsigned site, unsigned wbase, unsigned sym)
{
    if (!EXTRA)
        return CM2_TREE(ENC, io, t, nbits, sym);
    unsigned node = 1, cost = 0;
    for (unsigned i = nbits; i-- > 0;) {
        rc_prob *q[BEST_NM] = {&t[node]};
        for (int k = 0; k < EXTRA; k++)
            q[1 + k] = best_ctx(s->xb, site, c[2 * k], c[2 * k + 1], node);
        const unsigned ws = nbits <= 4 ? node : wbase * 8 + nbits - 1 - i;
        node = (node << 1) | cm2_mix_bit(io, ENC, m->stretch, q, 1 + EXTRA, s->xb->w[site][ws & (BEST_WSEL - 1u)],
                                         (sym >> i) & 1u, &cost);
    }
    return node - (1u << nbits);
}

/* A byte through the three lower-lane trees t[0..2] at once, and in best
 * and mix (nh = EXTRA) the counters of the hashed contexts (BS_LANE, hc[2h], hc[2h+1])
 * and the node, mixed with the weights w[bit * (3 + nh + 1)..]
 * (cm2_mix_bit() at each node).  Returns the byte. */
ST_INLINE unsigned cm2_mix_tree(cm2_io *io, const int ENC, const int16_t *stretch, rc_prob *const t[CM2_MIX_NM],
                                int64_t *w, const unsigned nh, cm2_best *xb, const uint64_t *hc, unsigned sym,
                                unsigned *cost)
{
    const unsigned nin = CM2_MIX_NM + nh;
    unsigned node = 1;
    for (unsigned i = 8; i-- > 0;) {
        rc_prob *q[CM2_MIX_MAXIN] = {&t[0][node], &t[1][node], &t[2][node]};
        for (unsigned h = 0; h < nh; h++)
            q[CM2_MIX_NM + h] = best_ctx(xb, BS_LANE, hc[2 * h], hc[2 * h + 1], node);
        node = (node << 1) | cm2_mix_bit(io, ENC, stretch, q, nin, w + (7 - i) * (nin + 1), (sym >> i) & 1u, cost);
    }
    return node - 256;
}

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
    const unsigned K = mm_orders[k][0];
    for (unsigned j = K - 1; j > 0; j--)
        ms->h[j] = ms->h[j - 1];
    ms->h[0] = x;
    if (hit) {
        ms->ptr++;
        ms->len++;
    } else {
        ms->len = 0;
    }
    /* the hashes of the last 1, 2, .. K misses */
    uint64_t hk[CM2_MAX_ORDER + 1], a = 0;
    for (unsigned j = 0; j < K; j++)
        hk[j + 1] = a = (a + ms->h[j]) * UINT64_C(0x9E3779B97F4A7C15);
    for (unsigned o = 0; o < 3 && mm_orders[k][o]; o++) {
        uint32_t *slot = &t->hash[o][(uint32_t)(hk[mm_orders[k][o]] >> (64 - CM2_HASH_BITS))];
        if (!ms->len && *slot && ms->n - (*slot - 1) < CM2_RING_MASK) {
            ms->ptr = *slot - 1;
            ms->len = 1;
        }
        *slot = ms->n + 1;
    }
    /* the proposal is read at the kind's next miss: load it meanwhile */
    if (ms->len)
        VPC_PREFETCH(&t->ring[ms->ptr & CM2_RING_MASK]);
}

/* A residual r of field f (ip, cycle, meta, address): its byte length, then
 * its bytes, most significant first.  Returns NULL or what is wrong. */
ST_INLINE const char *cm2_residual(cm2_io *io, const int ENC, const int EXTRA, cm2_model *m, cm2_state *s,
                                   const unsigned f, uint64_t *r)
{
    cm2_probs *pr = &m->pr;
    uint64_t x = ENC ? *r : 0;
    const unsigned nb = CM2_TREE(ENC, io, pr->nbtree[f][s->last_nb[f]], 4, nbytes_of(x));
    if (!ENC && nb > 8)
        return "miss length above 8 bytes";
    s->last_nb[f] = nb;
    for (unsigned k = nb; k-- > 0;) {
        /* the byte above it (none for the first) is known to both sides */
        const unsigned hb = k + 1 < nb ? (unsigned)(x >> (8 * k + 12)) & 15u : 0;
        /* (length, position) pairs with position < length, 1 <= length <= 8, counted from 0 */
        rc_prob *const tree = pr->rbyte[f][nb * (nb - 1) / 2 + k][hb];
        const uint64_t above = k + 1 < nb ? x >> (8 * k + 8) : 0, pos = nb << 4 | k;
        const uint64_t c[6] = {s->tl, pos << 8 | (above & 255u), ~above, pos, (uint64_t)s->tl << 32 | s->kl, pos};
        unsigned b = cm2_ctx_tree(io, ENC, EXTRA, m, s, tree, 8, c, BS_RES + f, k,
                                  (unsigned)(x >> (8 * k)) & 255u);
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
ST_INLINE const char *cm2_miss(cm2_io *io, const int ENC, const int EXTRA, cm2_model *m, cm2_state *s, const unsigned f,
                               const unsigned mk, uint64_t *r)
{
    unsigned hit = 0, proposed = 0;
    uint64_t mv = 0;
    if (mk < MM_COUNT)
        hit = cm2_match_code(io, ENC, m, s, mk, r, &mv, &proposed);
    if (!hit) {
        const char *bad = cm2_residual(io, ENC, EXTRA, m, s, f, r);
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

/* Lane k of a data miss: whether it equals ref's lane (flag *pe), and if
 * not the byte, through the context tree `tree`, or (mix not NULL) the
 * three trees mix[] mixed with the weights w.  Returns the byte. */
ST_INLINE unsigned cm2_lane(cm2_io *io, const int ENC, cm2_model *m, cm2_state *s, rc_prob *pe, rc_prob *tree,
                            rc_prob *const *mix, int64_t *w, const unsigned nh, const uint64_t *hc, const unsigned k,
                            uint64_t ref, uint64_t x, unsigned *same, unsigned *bad)
{
    const unsigned rb = (unsigned)(ref >> (8 * k)) & 255u, xb = (unsigned)(x >> (8 * k)) & 255u;
    *same = CM2_BIT(ENC, io, pe, xb == rb);
    if (*same)
        return rb;
    uint16_t *avg = &m->rawcost[s->tl];
    uint8_t *nraw = &m->rawn[s->tl];
    unsigned b;
    if (*avg >= CM2_RAW_COST && *nraw < CM2_RAW_PROBE - 1) {
        if (ENC == CM2_ACCOUNT)
            io->cost[io->cat] += (uint64_t)8 << 16; /* 8 bits, exactly */
        if (ENC)
            rc_encode_byte_raw(&io->e, b = xb);
        else
            b = rc_decode_byte_raw(&io->d);
        ++*nraw;
    } else {
        unsigned cost = 0;
        b = mix ? cm2_mix_tree(io, ENC, m->stretch, mix, w, nh, s->xb, hc, xb, &cost)
                : cm2_tree8(io, ENC, tree, xb, &cost);
        const unsigned c = (cost < 255 ? cost : 255) << 4;
        *avg = (uint16_t)(c >= *avg ? *avg + ((c - *avg) >> 3) : *avg - ((*avg - c) >> 3));
        *nraw = 0;
    }
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
ST_INLINE uint64_t cm2_lanes(cm2_io *io, const int ENC, const int EXTRA, cm2_model *m, cm2_state *s, const unsigned W,
                             uint64_t ref, uint64_t x, unsigned *bad)
{
    cm2_probs *pr = &m->pr;
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
            const unsigned b = cm2_lane(io, ENC, m, s, &pr->dhieq[k - H][eq], pr->dhi[k - H], NULL, NULL, 0, NULL, k, ref,
                                        x, &same, bad);
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
    unsigned c2 = s->dctx[slot];
    for (; k < H; k++) {
        if (k == sz && CM2_BIT(ENC, io, &pr->dzero[sz], ((x & hmask) >> (8 * sz)) == 0))
            break; /* the lanes above the size are zero */
        rc_prob *const mix[CM2_MIX_NM] = {pr->dlo1[cx],
                                 pr->dlo2[((c2 * UINT32_C(0x9E37)) >> 6) & (CM2_O2_CTX - 1u)], pr->dlor[(ref >> (8 * k)) & 255u]};
        /* the trees' first bits are read after the lane's flag */
        for (unsigned j = 0; j < CM2_MIX_NM; j++)
            VPC_PREFETCH(mix[j]);
        const unsigned rb = (unsigned)(ref >> (8 * k)) & 255u, ks = k | sz << 4;
        const uint64_t hc[2 * BEST_LANE_NH] = {s->tl, ks << 8 | cx, s->tl, ks << 8 | rb | 1u << 16, ~(uint64_t)ks,
                                               (uint64_t)c2 << 32 | (uint32_t)(s->dprev[slot] >> (8 * sz))};
        const unsigned b = cm2_lane(io, ENC, m, s, &pr->deq[k][sz][(s->dlane >> k) & 1u], NULL, mix,
                                    EXTRA ? &s->xb->lw[sz == H][k][0][0] : &m->mixw[sz == H][k][0][0],
                                    EXTRA, hc, k, ref, x, &same, bad);
        dl |= same << k;
        cx = b;
        c2 = ((c2 << 8) | b) & 0xFFFFu;
        if (!ENC)
            x |= (uint64_t)b << (8 * k);
    }
    if (!ENC && sz < H && k == H && ((x & hmask) >> (8 * sz)) == 0)
        *bad = 1; /* lanes above the size coded as not zero, and zero */
    s->dlane = dl;
    s->dprev[slot] = x;
    s->dctx[slot] = (uint16_t)c2;
    return x;
}

/* A data miss: the match model, the transform (6.9.1), recent values,
 * then the lanes; the first of them that has the value codes it. */
ST_INLINE const char *cm2_data_miss(cm2_io *io, const int ENC, const int EXTRA, cm2_model *m, cm2_state *s, const unsigned W,
                                    uint64_t ref, uint64_t *v)
{
    uint64_t x = ENC ? *v : 0;
    unsigned proposed;
    uint64_t mv = 0;
    const unsigned hit = cm2_match_code(io, ENC, m, s, MM_DATA, &x, &mv, &proposed);
    unsigned bad = 0;
    /* the transform: 4-byte values of 8-byte entries (the reference's
     * upper half, 6.9), once XF_K entries are known */
    const unsigned xfuse = s->xf && W == 8 && (ref >> 32) == 4 && s->dhn >= XF_K;
    unsigned xprop = 0, xhit = 0;
    uint64_t xpred = 0;
    if (xfuse && !hit) {
        uint16_t *xl = &m->xform[s->tl];
        if (*xl & XF_CAND_MASK) {
            xprop = 1;
            xpred = (ref & ~UINT64_C(0xFFFFFFFF)) | xf_apply(s->dhist, s->dhn, (*xl & XF_CAND_MASK) - 1);
            const unsigned fh = (*xl >> XF_HIST_SHIFT) & 7u;
            xhit = CM2_BIT(ENC, io, &m->pr.xflag[fh], x == xpred);
            s->xtries++;
            s->xhits += xhit;
            *xl = (uint16_t)((*xl & XF_CAND_MASK) | ((fh << 1 | xhit) & 7u) << XF_HIST_SHIFT);
            if (xhit) {
                /* one coding per value: the match model's proposal is its */
                if (!ENC && proposed && xpred == mv)
                    return "data miss coded as the transform's, but is the match model's";
                x = xpred;
            }
        }
    }
    if (!hit && !xhit) {
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
            x = cm2_lanes(io, ENC, EXTRA, m, s, W, ref, x, &bad);
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
            if (xprop && x == xpred)
                return "data miss coded as not the transform's, but is";
        }
        /* the candidate that gives this value, for the ip's next */
        if (xfuse && (x >> 32) == 4) {
            const unsigned c = xf_find(s->dhist, s->dhn, (uint32_t)x);
            if (c < XF_N) {
                uint16_t *xl = &m->xform[s->tl];
                *xl = (uint16_t)((*xl & ~XF_CAND_MASK) | (c + 1));
            }
        }
    }
    if (bad)
        return "lane coded as different but equal to its reference";
    cm2_match_add(m, s, MM_DATA, x, hit);
    *v = x;
    return NULL;
}

/* Reference of an address or data miss: the last value at the ip (the first
 * slot of the ip-keyed LV predictor). */
ST_INLINE uint64_t cm2_lv(vpc_set *sets, unsigned f) { return field_slot(sets, f, FAM_CM2, EXT_LV_SLOT); }

/* ---- one entry ------------------------------------------------------------- */

/* The fields after the ip: the entry's expectations and what its fields
 * have coded so far. */
typedef struct {
    unsigned tup, all, flag, mismatch_seen;
    unsigned idbits, hf; /* the ids (4 bits per field) and match flags (expect.h) coded */
    unsigned ids[4]; /* encoder: the ids chosen */
} cm2_ent;

/* The miss of ip-keyed field f: data lanes, or a residual against cm's
 * reference (6.4.5). */
ST_INLINE const char *cm2_field_miss(cm2_io *io, const int ENC, const int EXTRA, vpc_set *sets, cm2_model *m, cm2_state *s,
                                     st_entry_type t, const unsigned f, uint64_t *v)
{
    const uint64_t mask = cm_mask_T(f, t);
    if (f == F_DATA)
        return cm2_data_miss(io, ENC, EXTRA, m, s, (t == ST_TYPE_D64 || t == ST_TYPE_M64) ? 8 : 4, cm2_lv(sets, F_DATA),
                             &v[f]);
    uint64_t ref = s->prev[f], r = 0;
    if (f == F_ADDR) {
        /* against the ip's last address, or the previous address if shorter */
        const uint64_t lv = cm2_lv(sets, F_ADDR);
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
    const char *bad = cm2_miss(io, ENC, EXTRA, m, s, f, f == F_ADDR ? MM_ADDR : MM_COUNT, &r);
    if (!ENC && !bad)
        v[f] = f == F_META ? r ^ ref : zz_apply(r, ref, mask);
    return bad;
}

/* Ip-keyed field j (cycle, meta, address, data for j = 0..3) of entry i. */
ST_INLINE st_error cm2_field(vpc_set *sets, cm2_model *m, cm2_io *io, const int ENC, const int EXTRA, st_entry_type t,
                             cm2_state *s, cm2_ent *e, uint64_t *v, const unsigned j, const unsigned nf, size_t i,
                             st_diag *d)
{
    cm2_probs *pr = &m->pr;
    const unsigned f = F_CYCLE + j;
    const unsigned exp = exp_tup_id(e->tup, j);
    const unsigned ns = field_nslots(f, FAM_CM2);
    const uint64_t mask = cm_mask_T(f, t);
    if (!ENC)
        field_locate(sets, f, FAM_CM2, v[F_IP], v[F_ADDR]);
    CM2_CAT(ENC, io, CM2_COST_IDS(f));
    unsigned id = exp, match = 1;
    if (!e->all) {
        /* after all-but-one matched, the last one cannot match */
        const unsigned fh = exp_tup_fh(e->tup, j);
        match = 0;
        if (j + 1 < nf || e->mismatch_seen) {
            rc_prob *const p = &pr->fflag[f][exp][fh | (e->mismatch_seen << 2) | (e->flag << 3) | (exp_matched(s->hf, j) << 4)];
            const unsigned ms = e->mismatch_seen | e->flag << 1;
            rc_prob *q[3] = {NULL, NULL, NULL};
            if (EXTRA) {
                cm2_best *b = s->xb;
                q[0] = best_ctx(b, BS_FIELD + j, s->tl, exp | ms << 4, (b->lhist[s->tl] >> (8 + 6 * j)) & 63u);
                q[1] = best_ctx(b, BS_FIELD + j, ~(uint64_t)exp, ms, s->fhist[j] & 0xFFFu);
                q[2] = best_ctx(b, BS_FIELD + j, (uint64_t)s->tl << 32 | s->kl, ms, exp);
            }
            match = cm2_flag(io, ENC, EXTRA, m, s, p, q, BS_FIELD + j, exp << 2 | ms, e->ids[j] == exp);
        }
        if (!match) {
            const uint64_t c[6] = {s->tl, exp, (uint64_t)s->tl << 32 | s->kl, exp, ~(uint64_t)exp, s->idbits};
            id = cm2_ctx_tree(io, ENC, EXTRA, m, s, pr->ftree[f][exp][(s->idbits >> (4 * j)) & 15u], 4, c, BS_FTREE + j,
                              0, e->ids[j]);
            e->mismatch_seen = 1;
            if (!ENC && id == exp)
                return st_diag_set(d, ST_E_CORRUPT, "entry %zu: %s id coded as unexpected but equals the expected", i,
                                   field_names[f]);
        }
    }
    /* (an expected id is always <= ns: TUPLE holds only checked ids) */
    if (id == ns) {
        CM2_CAT(ENC, io, CM2_COST_MISSES(f));
        const char *bad = cm2_field_miss(io, ENC, EXTRA, sets, m, s, t, f, v);
        if (bad)
            return st_diag_set(d, ST_E_CORRUPT, "entry %zu: %s %s", i, field_names[f], bad);
        if (!ENC && (v[f] & ~mask))
            return st_diag_set(d, ST_E_CORRUPT, "entry %zu: %s miss wider than the field", i, field_names[f]);
    } else if (id > ns) {
        return st_diag_set(d, ST_E_CORRUPT, "entry %zu: %s predictor id %u out of range", i, field_names[f], id);
    } else if (!ENC) {
        v[f] = field_slot(sets, f, FAM_CM2, id) & mask;
    }
    if (ENC == CM2_ACCOUNT && io->acc)
        svpc_stats_count_id(io->acc, f, id, exp, ns);
    if (ENC)
        vpc_set_count(&sets[f], id);
    field_update(sets, f, FAM_CM2, v[f]);
    e->idbits |= id << (4 * j);
    e->hf |= exp_match_bit(j, match);
    return ST_OK;
}

/* Entry i: the encoder codes v[], the decoder fills it. */
ST_INLINE st_error cm2_entry(vpc_set *sets, cm2_model *m, cm2_io *io, const int ENC, const int EXTRA, st_entry_type t,
                             cm2_state *s, uint64_t *v, size_t i, st_diag *d)
{
    cm2_probs *pr = &m->pr;
    const unsigned nf = cm_nfields(t);

    /* ip: the expected id is the one used after the previous ip last time */
    const uint32_t kl = s->kl;
    const unsigned eip = exp_ip_id(m->x.ipnext[kl]), kh = exp_ip_hist(m->x.ipnext[kl]);
    unsigned id = 0;
    field_locate(sets, F_IP, FAM_CM2, 0, 0);
    if (ENC)
        id = field_choose(sets, F_IP, FAM_CM2, eip, v[F_IP]);
    CM2_CAT(ENC, io, CM2_COST_IDS(F_IP));
    rc_prob *q[3] = {NULL, NULL, NULL};
    if (EXTRA) {
        cm2_best *b = s->xb;
        q[0] = best_ctx(b, BS_IP, kl, eip, b->khist[kl]);
        q[1] = best_ctx(b, BS_IP, ~(uint64_t)eip, s->hist_ip & 0xFFFu, s->hist_all & 15u);
        q[2] = best_ctx(b, BS_IP, (uint64_t)kl << 32 | s->kl2, eip, 0);
    }
    const unsigned flag = cm2_flag(io, ENC, EXTRA, m, s, &pr->ipflag[eip][(kh << 2) | (s->hist_ip & 3)], q, BS_IP,
                                   eip << 2 | (s->hist_ip & 3), id == eip);
    if (EXTRA)
        s->xb->khist[kl] = (uint16_t)(s->xb->khist[kl] << 1 | flag);
    if (flag) {
        id = eip;
    } else {
        const uint64_t c[6] = {kl, eip, (uint64_t)kl << 32 | s->kl2, eip, ~(uint64_t)eip, s->ipid | s->ipid2 << 4};
        id = cm2_ctx_tree(io, ENC, EXTRA, m, s, pr->iptree[eip][s->ipid], 4, c, BS_IPTREE, 0, id);
        if (!ENC && id == eip)
            return st_diag_set(d, ST_E_CORRUPT, "entry %zu: ip id coded as unexpected but equals the expected", i);
    }
    const uint64_t ipmask = cm_mask_T(F_IP, t);
    if (id == field_nslots(F_IP, FAM_CM2)) {
        CM2_CAT(ENC, io, CM2_COST_MISSES(F_IP));
        uint64_t r = ENC ? zz_delta(v[F_IP], s->prev[F_IP], ipmask, mask_bits(ipmask)) : 0;
        const char *bad = cm2_miss(io, ENC, EXTRA, m, s, F_IP, MM_IP, &r);
        if (bad)
            return st_diag_set(d, ST_E_CORRUPT, "entry %zu: ip %s", i, bad);
        if (!ENC)
            v[F_IP] = zz_apply(r, s->prev[F_IP], ipmask);
    } else if (id > field_nslots(F_IP, FAM_CM2)) {
        return st_diag_set(d, ST_E_CORRUPT, "entry %zu: ip predictor id %u out of range", i, id);
    } else if (!ENC) {
        v[F_IP] = field_slot(sets, F_IP, FAM_CM2, id) & ipmask;
    }
    if (ENC == CM2_ACCOUNT && io->acc)
        svpc_stats_count_id(io->acc, F_IP, id, eip, field_nslots(F_IP, FAM_CM2));
    if (ENC)
        vpc_set_count(&sets[F_IP], id);
    field_update(sets, F_IP, FAM_CM2, v[F_IP]);
    m->x.ipnext[kl] = exp_ip_next(m->x.ipnext[kl], id, flag);
    s->ipid2 = s->ipid;
    s->ipid = id;
    s->hist_ip = (s->hist_ip << 1) | flag;

    /* the ip-keyed fields: the expected ids are those used at this ip last time */
    const uint32_t tl = vpc_key_line(v[F_IP], KEY_BITS);
    cm2_ent e = {m->x.tuple[tl], 1, flag, 0, 0, 0, {0, 0, 0, 0}};
    s->tl = tl;
    if (ENC) {
        for (unsigned j = 0; j < nf; j++) {
            const unsigned f = F_CYCLE + j, exp = exp_tup_id(e.tup, j);
            field_locate(sets, f, FAM_CM2, v[F_IP], v[F_ADDR]);
            e.ids[j] = field_choose(sets, f, FAM_CM2, exp, v[f]);
            e.all &= e.ids[j] == exp;
        }
    }
    CM2_CAT(ENC, io, CM2_COST_ALL);
    if (EXTRA) {
        cm2_best *b = s->xb;
        q[0] = best_ctx(b, BS_ALL, tl, flag, b->lhist[tl] & 255u);
        q[1] = best_ctx(b, BS_ALL, ~(uint64_t)flag, s->hist_all & 0xFFFu, s->hist_ip & 3u);
        q[2] = best_ctx(b, BS_ALL, (uint64_t)tl << 32 | kl, flag, 0);
    }
    e.all = cm2_flag(io, ENC, EXTRA, m, s, &pr->allflag[(exp_tup_all(e.tup) << 7) | (flag << 6) | (s->hist_all & 63)], q,
                     BS_ALL, exp_tup_all(e.tup) << 1 | flag, e.all);
    s->hist_all = (s->hist_all << 1) | e.all;
    /* one instance per field, each with its field and width constant */
    st_error err;
    if ((err = cm2_field(sets, m, io, ENC, EXTRA, t, s, &e, v, 0, nf, i, d)) != ST_OK ||
        (nf > 1 && (err = cm2_field(sets, m, io, ENC, EXTRA, t, s, &e, v, 1, nf, i, d)) != ST_OK) ||
        (nf > 2 && (err = cm2_field(sets, m, io, ENC, EXTRA, t, s, &e, v, 2, nf, i, d)) != ST_OK) ||
        (nf > 3 && (err = cm2_field(sets, m, io, ENC, EXTRA, t, s, &e, v, 3, nf, i, d)) != ST_OK))
        return err;
    if (EXTRA) {
        /* the longer histories of best's contexts */
        uint32_t lh = s->xb->lhist[tl];
        lh = (lh & ~255u) | ((lh << 1 | e.all) & 255u);
        for (unsigned j = 0; j < nf; j++) {
            const unsigned mj = exp_matched(e.hf, j);
            lh = (lh & ~(63u << (8 + 6 * j))) | ((((lh >> (8 + 6 * j)) << 1) | mj) & 63u) << (8 + 6 * j);
            s->fhist[j] = s->fhist[j] << 1 | mj;
        }
        s->xb->lhist[tl] = lh;
        s->kl2 = kl;
    }
    /* TUPLE's new line (6.4.4's newtup) */
    m->x.tuple[tl] = exp_tup_next(e.tup, e.idbits, e.hf, e.all);
    s->hf = e.hf;
    s->idbits = e.idbits;
    memcpy(s->prev, v, sizeof s->prev);
    s->kl = tl;
    if (s->xf)
        s->dhist[s->dhn++ % XF_K] = (uint32_t)v[F_DATA];
    return ST_OK;
}

static void cm2_state_init(cm2_state *s, cm2_best *xb, unsigned xf)
{
    memset(s, 0, sizeof *s);
    s->xb = xb;
    s->xf = xf;
    s->kl = vpc_key_line(0, KEY_BITS);
}

/* ---- frames: per-type instances ---------------------------------------------- */

ST_INLINE st_error encode_T(vpc_set *sets, cm2_model *m, cm2_best *xb, const int ENC, const int EXTRA, unsigned xf,
                            st_entry_type t, const uint8_t *raw, size_t *n, const svpc_source *src, st_buf *out, uint64_t *cost,
                            svpc_pred_stats *acc, cmx_tally *xt)
{
    const size_t esz = st_entry_size(t);
    cm2_io io;
    rc_enc_init(&io.e, out);
    io.cost = cost;
    io.cat = 0;
    io.acc = acc;
    cm2_state s;
    cm2_state_init(&s, xb, xf);
    st_diag d;
    memset(&d, 0, sizeof d);
    /* entries fed as they arrive (src) are asked for only when those
     * ready run out: one comparison per entry */
    size_t i = 0, ready = src ? 0 : *n;
    for (; svpc_entry_ready(src, i, &ready); i++) {
        uint64_t v[F_COUNT];
        cm_load_entry(t, raw + i * esz, v);
        RETURN_IF_ERROR(cm2_entry(sets, m, &io, ENC, EXTRA, t, &s, v, i, &d));
    }
    if (ready > SVPC_MAX_FRAME_ENTRIES)
        return ST_E_USAGE;
    *n = i;
    if (xt)
        *xt = (cmx_tally){s.xtries, s.xhits};
    return rc_enc_finish(&io.e);
}

ST_INLINE st_error decode_T(vpc_set *sets, cm2_model *m, cm2_best *xb, const int EXTRA, unsigned xf, int first_is_flag,
                            st_entry_type t, const uint8_t *payload, size_t len, size_t n, size_t from, size_t stop,
                            uint8_t *raw, st_diag *d)
{
    const size_t esz = st_entry_size(t);
    cm2_io io;
    rc_dec_init_with(&io.d, payload, len, first_is_flag);
    cm2_state s;
    cm2_state_init(&s, xb, xf);
    for (size_t i = 0; i < stop; i++) {
        uint64_t v[F_COUNT] = {0, 0, 0, 0, 0};
        RETURN_IF_ERROR(cm2_entry(sets, m, &io, CM2_DECODE, EXTRA, t, &s, v, i, d));
        /* past its end the decoder reads zeros: what it made of them is not an entry */
        if (io.d.overrun)
            return st_diag_set(d, ST_E_CORRUPT, "entry %zu: the range coder's stream is corrupt or ends too early", i);
        if (svpc_part_keeps(i, from))
            cm_store_entry(t, raw + i * esz, v);
    }
    /* (a frame of no entries is checked here: its loop never ran) */
    return rc_dec_end(&io.d, stop == n, d);
}

/* The bytes of encoder id's model: best's and mix's hold more tables. */
static size_t cm2_model_size(svpc_encoder id)
{
    return id == SVPC_ENC_BEST || id == SVPC_ENC_MIX ? sizeof(best_model) : sizeof(cm2_model);
}

/* The predictor sets and the model of encoder id, fresh for a frame:
 * cm2's (EXTRA 0), or best's or mix's, whose tables *xb gets (NULL for
 * cm2) with the weights of EXTRA hashed contexts. */
static st_error cm2_ready(svpc_ctx *c, svpc_encoder id, const int EXTRA, cm2_model **m, cm2_best **xb)
{
    if (EXTRA && cm2_model_size(id) < sizeof(best_model))
        return ST_E_INTERNAL;
    RETURN_IF_ERROR(svpc_sets_ready(c, FAM_CM2));
    const int fresh = !c->model[id];
    void *p;
    RETURN_IF_ERROR(svpc_model(c, id, cm2_model_size(id), &p));
    cm2_model *have = p;
    if (fresh)
        mix_stretch_init(have->stretch);
    cm2_model_reset(have);
    *m = have;
    *xb = NULL;
    if (EXTRA) {
        cm2_best *b = *xb = &((best_model *)(void *)have)->b;
        for (size_t i = 0; i < sizeof b->h / sizeof b->h[0]; i++)
            b->h[i] = RC_PROB_INIT;
        for (unsigned k = 0; k < BS_SITES; k++)
            for (unsigned w = 0; w < BEST_WSEL; w++)
                for (unsigned i = 0; i <= BEST_NM; i++)
                    b->w[k][w][i] = i == 0 ? BEST_W0 : 0;
        /* a lane's 8 bits use CM2_MIX_NM + EXTRA + 1 weights each
         * (cm2_mix_tree()), from the start of its row */
        const unsigned nin = CM2_MIX_NM + (unsigned)EXTRA + 1;
        for (unsigned z = 0; z < 2; z++)
            for (unsigned k = 0; k < 4; k++) {
                int64_t *row = &b->lw[z][k][0][0];
                for (unsigned j = 0; j < 8 * BEST_LANE_IN; j++)
                    row[j] = j < 8 * nin && j % nin < CM2_MIX_NM ? CM2_MIX_W0 : 0;
            }
        memset(b->lhist, 0, sizeof b->lhist);
        memset(b->khist, 0, sizeof b->khist);
    }
    return ST_OK;
}

#define CM2_TYPES(X) X(ST_TYPE_D64) X(ST_TYPE_D32) X(ST_TYPE_M64) X(ST_TYPE_M32)
#define AS_CASE_ENC(T) \
    case T: e = encode_T(c->set, m, xb, CM2_ENCODE, EXTRA, xf, T, raw, n, src, out, NULL, NULL, xt); break;
#define AS_CASE_ACCOUNT(T) \
    case T: e = encode_T(c->set, m, NULL, CM2_ACCOUNT, 0, xf, T, raw, &n, NULL, &c->buf[0], cost, acc, xt); break;
#define AS_CASE_DEC(T) \
    case T: return decode_T(c->set, m, xb, EXTRA, xf, first_is_flag, T, payload, len, n, from, stop, raw, d);

/* The codec's encode and decode, for cm2 (EXTRA 0), mix (1, 2) and best
 * (3), encoder id, with the transform (6.9.1) if xf. */
ST_INLINE st_error encode_B(svpc_ctx *c, svpc_encoder id, const int EXTRA, unsigned xf, st_entry_type t, const uint8_t *raw,
                            const svpc_source *src, size_t *n, st_buf *out, cmx_tally *xt)
{
    cm2_model *m;
    cm2_best *xb;
    RETURN_IF_ERROR(cm2_ready(c, id, EXTRA, &m, &xb));
    const size_t start = out->len;
    st_error e = ST_E_USAGE;
    switch (t) {
        CM2_TYPES(AS_CASE_ENC)
    default: break;
    }
    if (e == ST_OK)
        svpc_stats_one(c, "entries (range coded)", out->len - start);
    return e;
}

ST_INLINE st_error decode_B(svpc_ctx *c, svpc_encoder id, const int EXTRA, unsigned xf, int first_is_flag, st_entry_type t,
                            const uint8_t *payload, size_t len, size_t n, size_t from, size_t stop, uint8_t *raw, st_diag *d)
{
    cm2_model *m;
    cm2_best *xb;
    RETURN_IF_ERROR(cm2_ready(c, id, EXTRA, &m, &xb));
    switch (t) {
        CM2_TYPES(AS_CASE_DEC)
    default:
        return st_diag_set(d, ST_E_UNSUPPORTED, "encoder %s does not code entries of type %s", svpc_encoder_name(id),
                           st_entry_name(t));
    }
}

/* mix's parameter byte (6.11.1): bits 0..1 the count m of best's contexts
 * mixed, bit 2 the transform (6.9.1).  m = 3 with the transform is -9;
 * m = 3 without it is best (11), so it is refused: one coding per value. */
#define MIX_PARAM_M 3u
#define MIX_PARAM_XF 4u
static int mix_param_ok(unsigned b)
{
    const unsigned mc = b & MIX_PARAM_M;
    return !(b & ~(MIX_PARAM_M | MIX_PARAM_XF)) && mc != 0 && (mc < 3 || (b & MIX_PARAM_XF));
}

/* mix's parameter byte for a level (svpc_method(), svpc.h): -7 one
 * context, -8 two, -9 three, each with the transform; with -e mix, levels
 * up to 7 one. */
static const uint8_t mix_param_of_level[10] = {5, 5, 5, 5, 5, 5, 5, 5, 6, 7};

/* mix's count of contexts x (1 or 2) as the template's EXTRA.  Both
 * counts share one instance, with EXTRA a run-time value: an instance
 * per count made cm2.c's compile time 2.4 times main's (1.8 times with
 * one), and reading was not measurably faster for it.  Written
 * 1 + (x == 2), EXTRA is known to be 1 or 2, so
 * the compiler may still drop cm2's own paths (!EXTRA) from that
 * instance; cm2's and best's instances keep their constants.  Three
 * contexts (-9) are best's instance (best_enc(), best_dec()), with its
 * speed. */
#define MIX_EXTRA(x) (1 + ((x) == 2))

/* best's instance (EXTRA 3), for best (11) and mix with three contexts:
 * one copy of the template, called from both */
static st_error best_enc(svpc_ctx *c, svpc_encoder id, unsigned xf, st_entry_type t, const uint8_t *raw,
                         const svpc_source *src, size_t *n, st_buf *out)
{
    return encode_B(c, id, BEST_NM - 1, xf, t, raw, src, n, out, NULL);
}
static st_error best_dec(svpc_ctx *c, svpc_encoder id, unsigned xf, st_entry_type t, const uint8_t *payload, size_t len,
                         size_t n, size_t from, size_t stop, uint8_t *raw, st_diag *d)
{
    return decode_B(c, id, BEST_NM - 1, xf, 0, t, payload, len, n, from, stop, raw, d);
}
/* cm2's instance (EXTRA 0), for cm2 (6) and cmx (13) */
static st_error cm2_enc(svpc_ctx *c, svpc_encoder id, unsigned xf, st_entry_type t, const uint8_t *raw,
                        const svpc_source *src, size_t *n, st_buf *out, cmx_tally *xt)
{
    return encode_B(c, id, 0, xf, t, raw, src, n, out, xt);
}
static st_error cm2_dec(svpc_ctx *c, svpc_encoder id, unsigned xf, int first_is_flag, st_entry_type t, const uint8_t *payload,
                        size_t len, size_t n, size_t from, size_t stop, uint8_t *raw, st_diag *d)
{
    return decode_B(c, id, 0, xf, first_is_flag, t, payload, len, n, from, stop, raw, d);
}

/* cmx's payload (6.9.1) is the range coder's output with the transform or
 * without it, and its first byte, the coder's initial 0, says which: 0
 * with, 1 without.  The encoder codes a frame with it; when the
 * transform's candidates were proposed and right less than once in
 * CMX_SURE tries, it codes the frame again without and keeps the smaller
 * (the one with, if the same size).  Without the transform a frame is
 * cm2's, byte for byte but the first, so cmx is never larger than cm2 in
 * those frames: the transform's flags cost more than it saves only where
 * it is seldom right (no frame of the corpus, testdata or the Linux
 * traces of doc/BENCHMARKS.md at 1 in 8 or more lost), and there the
 * second coding costs a frame's time again.  Frames with no try at all
 * (no values, as lackey's) are cm2's already and are coded once. */
#define CMX_XF_ON 0u
#define CMX_XF_OFF 1u
#define CMX_SURE 8u
static int cmx_unsure(cmx_tally x) { return x.tries != 0 && (uint64_t)x.hits * CMX_SURE < x.tries; }

/* (no second stage: p's stage and level are not used) */
static st_error cm2_encode(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw,
                           const svpc_source *src, size_t *n, st_buf *out)
{
    (void)p;
    return cm2_enc(c, SVPC_ENC_CM2, 0, t, raw, src, n, out, NULL);
}
static st_error cmx_encode(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw,
                           const svpc_source *src, size_t *n, st_buf *out)
{
    (void)p;
    const size_t start = out->len;
    cmx_tally xt;
    RETURN_IF_ERROR(cm2_enc(c, SVPC_ENC_CMX, 1, t, raw, src, n, out, &xt));
    if (!cmx_unsure(xt))
        return ST_OK;
    /* all *n entries are in raw now: no source to wait for.  A failure
     * here fails the frame rather than keeping the first coding, so that
     * the bytes written never depend on memory pressure. */
    st_buf *off = &c->buf[0];
    off->len = 0;
    RETURN_IF_ERROR(cm2_enc(c, SVPC_ENC_CMX, 0, t, raw, NULL, n, off, NULL));
    if (off->len < out->len - start) {
        out->len = start;
        RETURN_IF_ERROR(st_buf_append(out, off->data, off->len));
        out->data[start] = CMX_XF_OFF;
    }
    svpc_stats_one(c, "entries (range coded)", out->len - start);
    return ST_OK;
}
static st_error best_encode(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw,
                            const svpc_source *src, size_t *n, st_buf *out)
{
    (void)p;
    return best_enc(c, SVPC_ENC_BEST, 0, t, raw, src, n, out);
}
/* mix's payload: its parameter byte (the level's), then the range
 * coder's output (6.11.1) */
static st_error mix_encode(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw,
                           const svpc_source *src, size_t *n, st_buf *out)
{
    const unsigned b = mix_param_of_level[p->level], mc = b & MIX_PARAM_M, xf = (b & MIX_PARAM_XF) != 0;
    RETURN_IF_ERROR(st_buf_append(out, &(uint8_t){(uint8_t)b}, 1));
    if (mc == 3)
        return best_enc(c, SVPC_ENC_MIX, xf, t, raw, src, n, out);
    return encode_B(c, SVPC_ENC_MIX, MIX_EXTRA(mc), xf, t, raw, src, n, out, NULL);
}
static st_error cm2_decode(svpc_ctx *c, st_entry_type t, const uint8_t *payload, size_t len, size_t n, size_t from, size_t stop,
                           uint8_t *raw, st_diag *d)
{
    return cm2_dec(c, SVPC_ENC_CM2, 0, 0, t, payload, len, n, from, stop, raw, d);
}
static st_error cmx_decode(svpc_ctx *c, st_entry_type t, const uint8_t *payload, size_t len, size_t n, size_t from, size_t stop,
                           uint8_t *raw, st_diag *d)
{
    /* (a payload of no bytes is the range coder's to reject) */
    const unsigned b = len ? payload[0] : CMX_XF_ON;
    if (b != CMX_XF_ON && b != CMX_XF_OFF)
        return st_diag_set(d, ST_E_CORRUPT, "cmx payload's first byte is 0x%02x: not 0 (the transform on) or 1 (off)", b);
    return cm2_dec(c, SVPC_ENC_CMX, b == CMX_XF_ON, 1, t, payload, len, n, from, stop, raw, d);
}
static st_error best_decode(svpc_ctx *c, st_entry_type t, const uint8_t *payload, size_t len, size_t n, size_t from, size_t stop,
                            uint8_t *raw, st_diag *d)
{
    return best_dec(c, SVPC_ENC_BEST, 0, t, payload, len, n, from, stop, raw, d);
}
static st_error mix_decode(svpc_ctx *c, st_entry_type t, const uint8_t *payload, size_t len, size_t n, size_t from, size_t stop,
                           uint8_t *raw, st_diag *d)
{
    if (len < 1)
        return st_diag_set(d, ST_E_CORRUPT, "mix payload without its parameter byte");
    const unsigned b = payload[0], mc = b & MIX_PARAM_M, xf = (b & MIX_PARAM_XF) != 0;
    if (!mix_param_ok(b))
        return st_diag_set(d, ST_E_CORRUPT,
                           "mix payload's parameter byte is 0x%02x: not 1, 2, 5, 6 or 7 (count of contexts 1..3, "
                           "bit 2 the transform; 3 contexts only with it)",
                           b);
    if (mc == 3)
        return best_dec(c, SVPC_ENC_MIX, xf, t, payload + 1, len - 1, n, from, stop, raw, d);
    return decode_B(c, SVPC_ENC_MIX, MIX_EXTRA(mc), xf, 0, t, payload + 1, len - 1, n, from, stop, raw, d);
}

/* One accounting pass of cm2's template, with the transform if xf, adding
 * to cost[] and acc. */
static st_error cm2_account_pass(svpc_ctx *c, svpc_encoder enc, unsigned xf, st_entry_type t, const uint8_t *raw, size_t n,
                                 uint64_t cost[CM2_COST_CATS], svpc_pred_stats *acc, size_t *payload_bytes, cmx_tally *xt)
{
    cm2_model *m;
    cm2_best *xb;
    RETURN_IF_ERROR(cm2_ready(c, enc, 0, &m, &xb));
    c->buf[0].len = 0;
    st_error e = ST_E_USAGE;
    switch (t) {
        CM2_TYPES(AS_CASE_ACCOUNT)
    default: break;
    }
    *payload_bytes = c->buf[0].len;
    return e;
}

static void pred_stats_add(svpc_pred_stats *a, const svpc_pred_stats *b)
{
    for (unsigned f = 0; f < SVPC_STATS_FIELDS; f++) {
        a->coded[f] += b->coded[f];
        a->hits[f] += b->hits[f];
        a->expected[f] += b->expected[f];
        for (unsigned k = 0; k < SVPC_STATS_IDS; k++)
            a->ids[f][k] += b->ids[f][k];
    }
}

/* cmx's frames are accounted as their first byte says they were coded,
 * or without it (byte0 -1) as cmx_encode() would code them: with the
 * transform or, by the same choice, without */
int cm2_frame_transform(svpc_encoder enc, int byte0)
{
    if (enc == SVPC_ENC_CMX && (byte0 == CMX_XF_ON || byte0 == CMX_XF_OFF))
        return byte0 == CMX_XF_ON;
    if (enc == SVPC_ENC_MIX && byte0 >= 0 && byte0 <= 255 && mix_param_ok((unsigned)byte0))
        return (byte0 & MIX_PARAM_XF) != 0;
    return -1;
}

st_error cm2_account(svpc_ctx *c, svpc_encoder enc, st_entry_type t, const uint8_t *raw, size_t n, int byte0,
                     uint64_t cost[CM2_COST_CATS], svpc_pred_stats *acc, size_t *payload_bytes)
{
    if (!cm2_accounts(enc))
        return ST_E_USAGE;
    if (enc == SVPC_ENC_CM2)
        return cm2_account_pass(c, enc, 0, t, raw, n, cost, acc, payload_bytes, NULL);
    if (byte0 == CMX_XF_ON || byte0 == CMX_XF_OFF)
        return cm2_account_pass(c, enc, byte0 == CMX_XF_ON, t, raw, n, cost, acc, payload_bytes, NULL);
    uint64_t won[CM2_COST_CATS] = {0}, woff[CM2_COST_CATS] = {0};
    svpc_pred_stats aon = {0}, aoff = {0};
    cmx_tally xt;
    size_t bon = 0, boff = 0;
    RETURN_IF_ERROR(cm2_account_pass(c, enc, 1, t, raw, n, won, &aon, &bon, &xt));
    int off = 0;
    if (cmx_unsure(xt)) {
        RETURN_IF_ERROR(cm2_account_pass(c, enc, 0, t, raw, n, woff, &aoff, &boff, NULL));
        off = boff < bon;
    }
    for (unsigned k = 0; k < CM2_COST_CATS; k++)
        cost[k] += off ? woff[k] : won[k];
    if (acc)
        pred_stats_add(acc, off ? &aoff : &aon);
    *payload_bytes = off ? boff : bon;
    return ST_OK;
}

static int cm2_supports(st_entry_type t) { return st_entry_is_memory(t); }
static size_t cm2_memory(void) { return svpc_sets_memory(FAM_CM2) + sizeof(cm2_model); }
static size_t best_memory(void) { return svpc_sets_memory(FAM_CM2) + sizeof(best_model); }

/* the models are svpc_model()'s, of cm2_model_size() (cm2_ready) */
const svpc_codec svpc_codec_cm2 = {SVPC_ENC_CM2, "cm2", cm2_supports, cm2_memory, 1, cm2_encode, cm2_decode, NULL};
const svpc_codec svpc_codec_cmx = {SVPC_ENC_CMX, "cmx", cm2_supports, cm2_memory, 1, cmx_encode, cmx_decode, NULL};
const svpc_codec svpc_codec_best = {SVPC_ENC_BEST, "best", cm2_supports, best_memory, 1, best_encode, best_decode,
                                    NULL};
const svpc_codec svpc_codec_mix = {SVPC_ENC_MIX, "mix", cm2_supports, best_memory, 1, mix_encode, mix_decode,
                                   NULL};
