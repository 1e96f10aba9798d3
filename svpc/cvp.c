/*
 * cvp.c - the cvp entry encoder (9): CVP-1 and CBP-2025 records (entry
 * type cvp, formats/cvp.h), SIMTRACE.md 6.13.
 *
 * Everything in a record is predicted from the records before it, and the
 * range coder (rc.h) codes what the predictions say, as cm2 does:
 *
 *   - the pc: the previous record's target when its taken byte is set,
 *     else its pc + 4; one flag, and a miss as the XOR with that guess;
 *   - the record's shape (type, sizes, register counts and ids: bytes
 *     24..47 but the taken byte) per pc: one flag "as the last time at
 *     this pc", else its bytes;
 *   - the taken byte: 0, 1 or another byte, in the context of the last
 *     four outcomes at this pc and the last four branches overall;
 *   - the effective address (loads, stores), the target (taken branches)
 *     and each value word, by vpc/ predictors keyed by the pc (and the
 *     word's slot): the last two values, an order-4 FCM and a stride
 *     (DFCM of order 1); the id of the predictor that was right, in the
 *     context of the id used last time for the same pc and slot, or a miss
 *     coded as its XOR with the last value: a byte count and the bytes,
 *     each in the context of the count and the byte above it.
 *
 * Fields a record's type does not have (the address of an ALU operation,
 * the value words past its outputs) are 0 in imported entries; they are
 * coded by one flag each, and coded in full when they are not 0, so any
 * 128 bytes round-trip.  One template codes and decodes (ENC a constant),
 * so the two cannot disagree.  The payload is the range coder's output.
 */
#include <string.h>

#include "../formats/cvp.h"
#include "codec.h"
#include "lazy.h"
#include "rc.h"

/* Per-pc state: 2^16 lines, direct-mapped by the pc. */
#define CVP_LINE_BITS 16
#define CVP_SHAPE 24u /* bytes 24..47 of an entry */
enum { CVP_F_EA, CVP_F_TARGET, CVP_F_VALUE, CVP_F_OTHER, CVP_FIELDS }; /* miss models */
enum { CVP_SETS = 3, CVP_NSLOTS = 4, CVP_MISS = CVP_NSLOTS, CVP_IDS = 2 + ST_CVP_WORDS_MAX };

/* The predictors of each of the three sets (address, target, values): the
 * constants of the inline templates below and the set's configuration. */
#define CVP_LV_T 16
#define CVP_FCM_ORDER 4
#define CVP_FCM_S 16
#define CVP_FCM_T 20
#define CVP_DFCM_S 16
#define CVP_DFCM_T 16
static const vpc_pred_cfg cvp_preds[3] = {
    {VPC_LV, 0, 2, 0, CVP_LV_T, 0, 0},
    {VPC_FCM, CVP_FCM_ORDER, 1, CVP_FCM_S, CVP_FCM_T, 0, 0},
    {VPC_DFCM, 1, 1, CVP_DFCM_S, CVP_DFCM_T, 0, 0},
};

typedef struct {
    uint64_t tag;              /* the pc + 1 of the line's record; 0: empty */
    uint8_t shape[CVP_SHAPE];  /* the last shape at this pc, taken byte 0 */
    uint8_t ids[CVP_IDS];      /* the last id per predicted field: address, target, words */
    uint8_t hist;              /* the last taken outcomes at this pc, newest in bit 0 */
} cvp_line;

static inline uint32_t cvp_line_of(uint64_t pc)
{
    return (uint32_t)((pc * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - CVP_LINE_BITS));
}

/* The lines and the miss bytes' trees are reset lazily (lazy.h), by
 * blocks of lines and by trees. */
#define CVP_LINE_BLOCK 64u
typedef struct {
    uint32_t line[(1u << CVP_LINE_BITS) / CVP_LINE_BLOCK];
    uint32_t bytes[CVP_FIELDS][8][8][16];
} cvp_stamps;

typedef struct {
    vpc_set set[CVP_SETS];
    int sets_ok;
    cvp_stamps stamp;
    uint32_t epoch;
    cvp_line line[1u << CVP_LINE_BITS];
    rc_prob pc_hit[2];
    rc_prob shape_same[2];
    rc_prob shape_byte[CVP_SHAPE][256];
    rc_prob taken[512][4];
    rc_prob zero[CVP_FIELDS];
    rc_prob ids[CVP_SETS][CVP_NSLOTS + 1][8];
    rc_prob nbytes[CVP_FIELDS][16];
    rc_prob bytes[CVP_FIELDS][8][8][16][256]; /* by model, length, byte, high nibble of the byte above */
} cvp_model;

typedef struct {
    rc_enc e;
    rc_dec d;
    int bad; /* the decoder read a symbol no encoder writes */
} cvp_io;

/* One bit / nbits of a symbol: the encoder codes `sym` and returns it, the
 * decoder returns what it reads (sym not evaluated). */
#define CVP_BIT(ENC, io, p, bit) \
    ((ENC) ? (rc_encode(&(io)->e, (p), (bit), RC_COUNTED), (unsigned)(bit)) : rc_decode(&(io)->d, (p), RC_COUNTED))
#define CVP_TREE(ENC, io, tree, nbits, sym)                                                             \
    ((ENC) ? (rc_encode_tree(&(io)->e, (tree), (nbits), (sym), RC_COUNTED), (unsigned)(sym)) \
           : rc_decode_tree(&(io)->d, (tree), (nbits), RC_COUNTED))

static void probs_init(rc_prob *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = RC_PROB_INIT;
}

/* The model, fresh for a frame. */
static st_error cvp_ready(svpc_ctx *c, cvp_model **out)
{
    cvp_model *m;
    /* (a model just made is zeroed: no sets, stamps and epoch 0) */
    RETURN_IF_ERROR(svpc_model(c, SVPC_ENC_CVP, sizeof *m, (void **)&m));
    if (!m->sets_ok) {
        memset(m->set, 0, sizeof m->set);
        for (unsigned s = 0; s < CVP_SETS; s++) {
            st_error e = vpc_set_init(&m->set[s], cvp_preds, 3);
            if (e != ST_OK) {
                for (unsigned k = 0; k < s; k++)
                    vpc_set_free(&m->set[k]);
                return e;
            }
        }
        m->sets_ok = 1;
    } else {
        for (unsigned s = 0; s < CVP_SETS; s++)
            vpc_set_reset(&m->set[s]);
    }
    lazy_next(&m->epoch, &m->stamp, sizeof m->stamp);
    probs_init(m->pc_hit, sizeof m->pc_hit / sizeof(rc_prob));
    probs_init(m->shape_same, sizeof m->shape_same / sizeof(rc_prob));
    probs_init(&m->shape_byte[0][0], sizeof m->shape_byte / sizeof(rc_prob));
    probs_init(&m->taken[0][0], sizeof m->taken / sizeof(rc_prob));
    probs_init(m->zero, sizeof m->zero / sizeof(rc_prob));
    probs_init(&m->ids[0][0][0], sizeof m->ids / sizeof(rc_prob));
    probs_init(&m->nbytes[0][0], sizeof m->nbytes / sizeof(rc_prob));
    *out = m;
    return ST_OK;
}

static void cvp_model_free(void *p)
{
    cvp_model *m = p;
    if (m && m->sets_ok)
        for (unsigned s = 0; s < CVP_SETS; s++)
            vpc_set_free(&m->set[s]);
    st_table_free(m, sizeof *m);
}

/* Bytes of x without its leading zero bytes (0 for 0). */
static inline unsigned sig_bytes(uint64_t x)
{
    unsigned n = 0;
    while (n < 8 && x >> (8 * n))
        n++;
    return n;
}

/* x (a residual) of model f: its significant bytes, then those bytes, most
 * significant first. */
VPC_INLINE uint64_t cvp_residual(cvp_model *m, cvp_io *io, const int ENC, unsigned f, uint64_t x)
{
    unsigned nb = CVP_TREE(ENC, io, m->nbytes[f], 4, ENC ? sig_bytes(x) : 0);
    if (nb > 8) {
        io->bad = 1;
        nb = 8;
    }
    uint64_t r = 0;
    unsigned above = 0;
    for (unsigned i = nb; i-- > 0;) {
        rc_prob *tree = lazy_probs(m->bytes[f][nb - 1][i][above >> 4], 256, &m->stamp.bytes[f][nb - 1][i][above >> 4], m->epoch);
        above = CVP_TREE(ENC, io, tree, 8, ENC ? (unsigned)(x >> (8 * i)) & 255u : 0);
        r |= (uint64_t)above << (8 * i);
    }
    return r;
}

/* A field that is 0 in every entry an import writes: a flag, and the
 * value when it is not 0. */
VPC_INLINE uint64_t cvp_zero_field(cvp_model *m, cvp_io *io, const int ENC, unsigned f, uint64_t v)
{
    if (!CVP_BIT(ENC, io, &m->zero[f], ENC ? v != 0 : 0))
        return 0;
    return cvp_residual(m, io, ENC, CVP_F_OTHER, v);
}

/* A predicted field: value v (encoder) of set s at key; *last_id the id
 * coded last time at this pc and slot. */
VPC_INLINE uint64_t cvp_predicted(cvp_model *m, cvp_io *io, const int ENC, unsigned s, unsigned f, uint64_t key,
                                  uint64_t v, uint8_t *last_id)
{
    vpc_pred *p = m->set[s].pred;
    vpc_pred_locate(&p[0], key, VPC_LV, 0, 2, 0, CVP_LV_T, 0);
    vpc_pred_locate(&p[1], key, VPC_FCM, CVP_FCM_ORDER, 1, CVP_FCM_S, CVP_FCM_T, 0);
    vpc_pred_locate(&p[2], key, VPC_DFCM, 1, 1, CVP_DFCM_S, CVP_DFCM_T, 0);
    uint64_t slot[CVP_NSLOTS];
    slot[0] = vpc_pred_slot(&p[0], 0, VPC_LV, 2, 0);
    unsigned id = CVP_MISS, last = *last_id;
    if (ENC) {
        slot[1] = vpc_pred_slot(&p[0], 1, VPC_LV, 2, 0);
        slot[2] = vpc_pred_slot(&p[1], 0, VPC_FCM, 1, 0);
        slot[3] = vpc_pred_slot(&p[2], 0, VPC_DFCM, 1, 0);
        if (last < CVP_NSLOTS && slot[last] == v)
            id = last;
        else
            for (unsigned i = 0; i < CVP_NSLOTS && id == CVP_MISS; i++)
                if (slot[i] == v)
                    id = i;
    }
    id = CVP_TREE(ENC, io, m->ids[s][last], 3, id);
    if (id > CVP_MISS) {
        io->bad = 1;
        id = CVP_MISS;
    }
    if (!ENC) {
        if (id == 0)
            v = slot[0];
        else if (id == 1)
            v = vpc_pred_slot(&p[0], 1, VPC_LV, 2, 0);
        else if (id == 2)
            v = vpc_pred_slot(&p[1], 0, VPC_FCM, 1, 0);
        else if (id == 3)
            v = vpc_pred_slot(&p[2], 0, VPC_DFCM, 1, 0);
        else
            v = cvp_residual(m, io, ENC, f, 0) ^ slot[0];
    } else if (id == CVP_MISS) {
        cvp_residual(m, io, ENC, f, v ^ slot[0]);
    }
    vpc_pred_update(&p[0], v, VPC_LV, 0, 2, 0, CVP_LV_T, 0);
    vpc_pred_update(&p[1], v, VPC_FCM, CVP_FCM_ORDER, 1, CVP_FCM_S, CVP_FCM_T, 0);
    vpc_pred_update(&p[2], v, VPC_DFCM, 1, 1, CVP_DFCM_S, CVP_DFCM_T, 0);
    *last_id = (uint8_t)id;
    return v;
}

/* st_store64() through a word of its own: stored straight into the
 * decoder's output entry, gcc 12 kept the bytes apart, spilled them and
 * put them together again (1,403 M instructions decoding CVP's sample,
 * 1,374 M with this and the shape written in place) */
static inline void cvp_store64(uint8_t *p, uint64_t v)
{
    uint8_t w[8];
    st_store64(w, v);
    memcpy(p, w, 8);
}

/* The key of value word j at pc: each slot its own predictor lines. */
static inline uint64_t word_key(uint64_t pc, unsigned j) { return pc ^ ((uint64_t)(j + 1) << 56); }

/*
 * Code entries [0, stop) of a frame: the encoder reads them from `in`, the
 * decoder writes them to `out`.
 */
VPC_INLINE void cvp_code(cvp_model *m, cvp_io *io, const int ENC, const uint8_t *in, uint8_t *out, size_t stop)
{
    uint64_t prev_pc = 0, prev_target = 0;
    unsigned prev_taken = 0, pc_hit = 1, ghist = 0;
    for (size_t i = 0; i < stop; i++) {
        const uint8_t *src = ENC ? in + i * ST_CVP_ENTRY : NULL;
        uint8_t ent[ST_CVP_ENTRY];
        uint8_t *e = ENC ? ent : out + i * ST_CVP_ENTRY;
        if (ENC)
            memcpy(ent, src, ST_CVP_ENTRY);
        else
            memset(e, 0, ST_CVP_ENTRY); /* what a record's type has not are zeros */

        /* pc */
        uint64_t guess = prev_taken ? prev_target : prev_pc + 4;
        /* the guessed pc's line, asked for while the flag is coded: it is
         * mostly right, and the line is mostly a cache miss */
        VPC_PREFETCH(&m->line[cvp_line_of(guess)]);
        uint64_t pc = ENC ? st_load64(e + CVP_PC) : 0;
        pc_hit = CVP_BIT(ENC, io, &m->pc_hit[pc_hit], ENC ? pc == guess : 0);
        if (pc_hit)
            pc = guess;
        else
            pc = guess ^ cvp_residual(m, io, ENC, CVP_F_OTHER, pc ^ guess);

        /* shape */
        const uint32_t li = cvp_line_of(pc);
        cvp_line *ln = (cvp_line *)lazy_zeros(&m->line[li / CVP_LINE_BLOCK * CVP_LINE_BLOCK], CVP_LINE_BLOCK * sizeof(cvp_line),
                                              &m->stamp.line[li / CVP_LINE_BLOCK], m->epoch) + li % CVP_LINE_BLOCK;
        unsigned seen = ln->tag == pc + 1;
        if (!seen) {
            memset(ln, 0, sizeof *ln);
            ln->tag = pc + 1;
        }
        /* the decoder writes the shape in place: a local copy, moved to
         * the entry as bytes put together again, made it wait for its own
         * stores (11% of its perf samples on CVP's sample sat there) */
        uint8_t shape_enc[CVP_SHAPE];
        uint8_t *const shape = ENC ? shape_enc : e + CVP_TYPE;
        if (ENC) {
            memcpy(shape, e + CVP_TYPE, CVP_SHAPE);
            shape[CVP_TAKEN - CVP_TYPE] = 0;
        }
        unsigned same = CVP_BIT(ENC, io, &m->shape_same[seen],
                                ENC ? memcmp(shape, ln->shape, CVP_SHAPE) == 0 : 0);
        if (same) {
            memcpy(shape, ln->shape, CVP_SHAPE);
        } else {
            for (unsigned k = 0; k < CVP_SHAPE; k++)
                if (k != CVP_TAKEN - CVP_TYPE)
                    shape[k] = (uint8_t)CVP_TREE(ENC, io, m->shape_byte[k], 8, ENC ? shape[k] : 0);
            memcpy(ln->shape, shape, CVP_SHAPE);
        }
        unsigned type = shape[0];

        /* taken byte: 0, 1, or another byte */
        unsigned branch = st_cvp_is_branch(type);
        unsigned taken = ENC ? e[CVP_TAKEN] : 0;
        unsigned tctx = (branch << 8) | ((ln->hist & 15u) << 4) | (ghist & 15u);
        unsigned tsym = CVP_TREE(ENC, io, m->taken[tctx], 2, ENC ? (taken < 2 ? taken : 2) : 0);
        if (tsym >= 2) {
            if (tsym > 2)
                io->bad = 1;
            if (ENC)
                rc_encode_byte_raw(&io->e, taken);
            else
                taken = rc_decode_byte_raw(&io->d);
        } else {
            taken = tsym;
        }
        if (branch) {
            ln->hist = (uint8_t)((ln->hist << 1) | (taken != 0));
            ghist = (ghist << 1) | (taken != 0);
        }

        /* address and target */
        uint64_t ea = ENC ? st_load64(e + CVP_EA) : 0, target = ENC ? st_load64(e + CVP_TARGET) : 0;
        if (st_cvp_is_mem(type))
            ea = cvp_predicted(m, io, ENC, 0, CVP_F_EA, pc, ea, &ln->ids[0]);
        else
            ea = cvp_zero_field(m, io, ENC, CVP_F_EA, ea);
        if (taken)
            target = cvp_predicted(m, io, ENC, 1, CVP_F_TARGET, pc, target, &ln->ids[1]);
        else
            target = cvp_zero_field(m, io, ENC, CVP_F_TARGET, target);

        /* value words: the outputs' words predicted, the rest 0 */
        if (!ENC) {
            cvp_store64(e + CVP_PC, pc);
            cvp_store64(e + CVP_EA, ea);
            cvp_store64(e + CVP_TARGET, target);
            e[CVP_TAKEN] = (uint8_t)taken;
        }
        unsigned k = st_cvp_words(e);
        if (k > ST_CVP_WORDS_MAX)
            k = ST_CVP_WORDS_MAX;
        for (unsigned j = 0; j < k; j++) {
            uint64_t v = ENC ? st_load64(e + CVP_WORDS + 8 * j) : 0;
            v = cvp_predicted(m, io, ENC, 2, CVP_F_VALUE, word_key(pc, j), v, &ln->ids[2 + j]);
            if (!ENC)
                cvp_store64(e + CVP_WORDS + 8 * j, v);
        }
        if (k < ST_CVP_WORDS_MAX) {
            unsigned rest = ENC ? !st_cvp_zeros(e + CVP_WORDS + 8 * k, 8 * (ST_CVP_WORDS_MAX - k)) : 0;
            if (CVP_BIT(ENC, io, &m->zero[CVP_F_VALUE], rest))
                for (unsigned j = k; j < ST_CVP_WORDS_MAX; j++) {
                    uint64_t v = cvp_residual(m, io, ENC, CVP_F_OTHER, ENC ? st_load64(e + CVP_WORDS + 8 * j) : 0);
                    if (!ENC)
                        cvp_store64(e + CVP_WORDS + 8 * j, v);
                }
        }
        prev_pc = pc;
        prev_taken = taken;
        prev_target = target;
    }
}

static st_error cvp_encode(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw,
                           const svpc_source *src, size_t *n, st_buf *out)
{
    (void)p; /* no second stage */
    (void)t;
    (void)src;
    cvp_model *m;
    RETURN_IF_ERROR(cvp_ready(c, &m));
    const size_t start = out->len;
    cvp_io io = {.bad = 0};
    rc_enc_init(&io.e, out);
    cvp_code(m, &io, 1, raw, NULL, *n);
    RETURN_IF_ERROR(rc_enc_finish(&io.e));
    svpc_stats_one(c, "records (range coded)", out->len - start);
    return ST_OK;
}

static st_error cvp_decode(svpc_ctx *c, st_entry_type t, const uint8_t *payload, size_t len, size_t n, size_t from, size_t stop,
                           uint8_t *raw, st_diag *d)
{
    (void)from; /* every entry is stored */
    (void)t;
    cvp_model *m;
    RETURN_IF_ERROR(cvp_ready(c, &m));
    cvp_io io = {.bad = 0};
    rc_dec_init(&io.d, payload, len);
    cvp_code(m, &io, 0, NULL, raw, stop);
    if (io.bad || io.d.overrun)
        return st_diag_set(d, ST_E_CORRUPT, "the range coder's stream is corrupt or too short");
    if (stop == n && io.d.pos != io.d.len)
        return st_diag_set(d, ST_E_CORRUPT, "the range coder's stream has %zu bytes left over", io.d.len - io.d.pos);
    return ST_OK;
}

static int cvp_supports(st_entry_type t) { return t == ST_TYPE_CVP; }
static size_t cvp_memory(void) { return CVP_SETS * vpc_set_memory(cvp_preds, 3) + sizeof(cvp_model); }

const svpc_codec svpc_codec_cvp = {SVPC_ENC_CVP, "cvp", cvp_supports, cvp_memory, 0, cvp_encode, cvp_decode,
                                   cvp_model_free};
