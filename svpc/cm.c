/*
 * cm.c - the cm1 (3) and cm (4) entry encoders: SIMTRACE.md 6.4 to 6.7.
 *
 * Table 1's predictors (fields.h, family FAM_CM); the ids coded by the
 * adaptive binary range coder in the contexts of what was expected at the
 * same key (expect.h); unpredicted ip, cycle, meta and address values as
 * differences from a reference with a modelled byte length, their bytes in
 * miss streams; unpredicted data values verbatim in theirs; the miss
 * streams through the second stage.  cm1 and cm differ only in how the
 * range coder adapts (rc.h: RC_TWO_RATE and RC_COUNTED) and in cm's LZMA
 * settings.  Legacy VPC pairs (ST_TYPE_VPC) are coded with the same
 * predictors, the pc as the ip and the extended data as the address
 * (6.6).
 *
 * One template codes and decodes (ENC a constant), so the two cannot
 * disagree; a third instance, CM_ACCOUNT, encodes and counts the ids each
 * field used (svpc_stats_frame()).  The decoder does less per entry than
 * the encoder, which must compare slots with the value: predictors only
 * locate their lines and the one slot an id names is read; usage counts,
 * which steer only the encoder's choice (6.5.5), are not kept; each
 * ip-keyed field is its own instance with the field, width and slot count
 * constant.
 */
#include <string.h>

#include "codec.h"
#include "cm.h"
#include "expect.h"
#include "rc.h"

typedef struct {
    rc_prob ipflag[16][32];        /* [expected ip id][flags at this key: 3 bits][last 2 ip flags] */
    rc_prob iptree[16][16];        /* [expected ip id] 4-bit id tree */
    rc_prob allflag[128];          /* [all-flags at this ip: 3][ip flag][last 3 entry flags] */
    rc_prob fflag[F_COUNT][16][32]; /* [field][expected id][last field flag, ip flag, mismatch before,
                                       last 2 field flags at this ip] */
    rc_prob ftree[F_COUNT][16][16];
    rc_prob nbtree[F_COUNT][9][16]; /* [field][previous miss length] */
    rc_prob refsel[4];              /* address miss: reference choice [last 2 choices] */
    /* vpc entries only (their one field's flag is the all-flag): */
    rc_prob vflag[16][128];         /* [expected id][as allflag] */
    rc_prob vtree[16][2][16];       /* [expected id][ip flag] 4-bit id tree */
} cm_probs;

typedef struct {
    cm_probs pr;
    cm_expect x;
} cm_model;

static void cm_reset(cm_model *m)
{
    rc_prob *p = (rc_prob *)(void *)&m->pr;
    for (size_t i = 0; i < sizeof m->pr / sizeof(rc_prob); i++)
        p[i] = RC_PROB_INIT;
    cm_expect_reset(&m->x);
}

/* Streams: the range coder's output, then the miss bytes of ip, cycle,
 * meta, address and data (variable length, least significant byte first). */
enum { CS_RC, CS_MISS0, CS_COUNT = CS_MISS0 + F_COUNT };
static const char *const cm_names[CS_COUNT] = {"ids (range coded)", "ip misses",      "cycle misses",
                                               "meta misses",       "address misses", "data misses"};
static const int cm_compress[CS_COUNT] = {0, 1, 1, 1, 1, 1};
#define RC_MAX_PER_ENTRY 96 /* bound on range-coder bytes per entry (the decoder's stream bound) */

/* The template's ENC: decode, encode, or encode and count the ids. */
enum { CM_DECODE = 0, CM_ENCODE = 1, CM_ACCOUNT = 2 };

typedef struct {
    rc_enc e;
    rc_dec d;
    uint8_t *mp[F_COUNT]; /* encoder: where each miss stream goes on */
    rd miss[F_COUNT];     /* decoder: the miss streams */
    svpc_pred_stats *acc; /* CM_ACCOUNT: the ids counted */
} cm_io;

/* One bit: the encoder writes `bit` and returns it; the decoder returns
 * what it reads, and its `bit` is never evaluated. */
#define CM_BIT(ENC, io, p, bit, rk) \
    ((ENC) ? (rc_encode(&(io)->e, (p), (bit), (rk)), (unsigned)(bit)) : rc_decode(&(io)->d, (p), (rk)))
/* A 4-bit symbol through a bit tree, likewise. */
#define CM_TREE(ENC, io, tree, sym, rk)                                                         \
    ((ENC) ? (rc_encode_tree(&(io)->e, (tree), 4, (sym), (rk)), (unsigned)(sym))                 \
           : rc_decode_tree(&(io)->d, (tree), 4, (rk)))

/* State carried from entry to entry, and within one. */
typedef struct {
    uint64_t prev[F_COUNT];
    unsigned last_nb[F_COUNT], refhist, hist_ip, hist_all;
    unsigned hf;  /* the previous entry's match flags (expect.h: exp_matched) */
    uint32_t kl;  /* the previous ip's key line */
    /* this entry: */
    uint32_t tup;
    unsigned all, flag, mismatch_seen, idbits, matches;
    unsigned ids[4]; /* encoder: the ids chosen */
} cm_state;

/* Reference a miss is coded against: meta by XOR with the previous meta;
 * address by difference from the last value in the ip's LV line (or, when
 * that slot is 0, or when the previous address is nearer, the previous
 * address: one flag says which); ip and cycle by difference from the
 * previous value.  Data misses are stored verbatim, which the second
 * stage compresses better (repeated values stay aligned). */

/* A miss residual r of field f: its byte length through the field's length
 * tree (context: the field's previous length), its bytes into the field's
 * miss stream.  The decoder returns NULL or what is wrong. */
ST_INLINE const char *cm_miss_bytes(cm_io *io, const int ENC, cm_model *m, cm_state *s, unsigned f, uint64_t *r,
                                    unsigned rk)
{
    unsigned nb = CM_TREE(ENC, io, m->pr.nbtree[f][s->last_nb[f]], ENC ? nbytes_of(*r) : 0, rk);
    if (!ENC && nb > 8)
        return "miss length above 8 bytes";
    s->last_nb[f] = nb;
    if (ENC) {
        put_le(&io->mp[f], *r, nb);
        return NULL;
    }
    *r = get_le(&io->miss[f], nb);
    return canonical(*r, nb) ? NULL : "miss longer than needed";
}

/* The miss of ip-keyed field f into v[f] (the encoder codes v[f]). */
ST_INLINE st_error cm_field_miss(cm_io *io, const int ENC, vpc_set *sets, cm_model *m, cm_state *s, st_entry_type t,
                                 const unsigned f, unsigned rk, uint64_t *v, size_t i, st_diag *d)
{
    const uint64_t mask = cm_mask_T(f, t);
    if (f == F_DATA) {
        if (ENC) {
            put_le(&io->mp[f], v[f], miss_width(f, t));
            return ST_OK;
        }
        const uint64_t x = get_le(&io->miss[f], miss_width(f, t));
        if (x & ~mask)
            return st_diag_set(d, ST_E_CORRUPT, "entry %zu: data miss wider than the field", i);
        v[f] = x;
        return ST_OK;
    }
    uint64_t ref = s->prev[f], r = 0;
    if (f == F_ADDR) {
        const uint64_t lv = field_slot(sets, F_ADDR, FAM_CM, EXT_LV_SLOT); /* the ip's last address */
        uint64_t r1 = 0;
        if (lv)
            ref = lv;
        if (ENC) {
            r = zz_delta(v[f], ref, mask, mask_bits(mask));
            r1 = zz_delta(v[f], s->prev[f], mask, mask_bits(mask));
        }
        const unsigned sel = CM_BIT(ENC, io, &m->pr.refsel[s->refhist & 3], r1 < r, rk);
        s->refhist = (s->refhist << 1) | sel;
        if (sel) {
            ref = s->prev[f];
            r = r1;
        }
    } else if (ENC) {
        r = f == F_META ? v[f] ^ ref : zz_delta(v[f], ref, mask, mask_bits(mask));
    }
    const char *bad = cm_miss_bytes(io, ENC, m, s, f, &r, rk);
    if (bad)
        return st_diag_set(d, ST_E_CORRUPT, "entry %zu: %s %s", i, field_names[f], bad);
    if (ENC)
        return ST_OK;
    if (f == F_META) {
        if ((r ^ ref) & ~mask)
            return st_diag_set(d, ST_E_CORRUPT, "entry %zu: meta miss wider than the field", i);
        v[f] = r ^ ref;
    } else {
        v[f] = zz_apply(r, ref, mask);
    }
    return ST_OK;
}

/* Ip-keyed field j of entry i (field cm_field(t, j)). */
ST_INLINE st_error cm_field(cm_io *io, const int ENC, vpc_set *sets, cm_model *m, cm_state *s, st_entry_type t,
                            const unsigned j, const unsigned nf, unsigned rk, uint64_t *v, size_t i, st_diag *d)
{
    const unsigned f = cm_field_of(t, j);
    const unsigned ns = field_nslots(f, FAM_CM);
    const unsigned exp = exp_tup_id(s->tup, j);
    if (!ENC)
        field_locate(sets, f, FAM_CM, v[F_IP], v[F_ADDR]);
    unsigned id = exp, match = 1;
    if (!s->all) {
        /* after all-but-one matched, the last one cannot match */
        const unsigned fh = exp_tup_fh(s->tup, j);
        match = 0;
        if (j + 1 < nf || s->mismatch_seen)
            match = CM_BIT(ENC, io,
                           &m->pr.fflag[f][exp][fh | (s->mismatch_seen << 2) | (s->flag << 3) | (exp_matched(s->hf, j) << 4)],
                           s->ids[j] == exp, rk);
        if (!match) {
            id = CM_TREE(ENC, io,
                         t == ST_TYPE_VPC ? m->pr.vtree[exp][s->flag] : m->pr.ftree[f][exp], s->ids[j], rk);
            s->mismatch_seen = 1;
            if (!ENC && id == exp)
                return st_diag_set(d, ST_E_CORRUPT, "entry %zu: %s id coded as unexpected but equals the expected", i,
                                   field_names[f]);
        }
    }
    /* (an expected id is always <= ns: TUPLE holds only checked ids) */
    if (id == ns) {
        RETURN_IF_ERROR(cm_field_miss(io, ENC, sets, m, s, t, f, rk, v, i, d));
    } else if (id > ns) {
        return st_diag_set(d, ST_E_CORRUPT, "entry %zu: %s predictor id %u out of range", i, field_names[f], id);
    } else if (!ENC) {
        v[f] = field_slot(sets, f, FAM_CM, id) & cm_mask_T(f, t);
    }
    if (ENC == CM_ACCOUNT)
        svpc_stats_count_id(io->acc, f, id, exp, ns);
    if (ENC)
        vpc_set_count(&sets[f], id);
    field_update(sets, f, FAM_CM, v[f]);
    s->idbits |= id << (4 * j);
    s->matches |= exp_match_bit(j, match);
    return ST_OK;
}

/* Entry i: the encoder codes v[], the decoder fills it. */
ST_INLINE st_error cm_entry(cm_io *io, const int ENC, vpc_set *sets, cm_model *m, cm_state *s, st_entry_type t,
                            unsigned rk, uint64_t *v, size_t i, st_diag *d)
{
    const unsigned nf = cm_nfields(t);
    const uint64_t ipmask = cm_mask_T(F_IP, t);

    /* ip: the expected id is the one used after the previous ip last time */
    const uint32_t kl = s->kl;
    const unsigned eip = exp_ip_id(m->x.ipnext[kl]), kh = exp_ip_hist(m->x.ipnext[kl]);
    unsigned id = 0;
    field_locate(sets, F_IP, FAM_CM, 0, 0);
    if (ENC)
        id = field_choose(sets, F_IP, FAM_CM, eip, v[F_IP]);
    const unsigned flag = CM_BIT(ENC, io, &m->pr.ipflag[eip][(kh << 2) | (s->hist_ip & 3)], id == eip, rk);
    if (flag) {
        id = eip;
    } else {
        id = CM_TREE(ENC, io, m->pr.iptree[eip], id, rk);
        if (!ENC && id == eip)
            return st_diag_set(d, ST_E_CORRUPT, "entry %zu: ip id coded as unexpected but equals the expected", i);
    }
    if (id == field_nslots(F_IP, FAM_CM)) {
        uint64_t r = ENC ? zz_delta(v[F_IP], s->prev[F_IP], ipmask, mask_bits(ipmask)) : 0;
        const char *bad = cm_miss_bytes(io, ENC, m, s, F_IP, &r, rk);
        if (bad)
            return st_diag_set(d, ST_E_CORRUPT, "entry %zu: ip %s", i, bad);
        if (!ENC)
            v[F_IP] = zz_apply(r, s->prev[F_IP], ipmask);
    } else if (id > field_nslots(F_IP, FAM_CM)) {
        return st_diag_set(d, ST_E_CORRUPT, "entry %zu: ip predictor id %u out of range", i, id);
    } else if (!ENC) {
        v[F_IP] = field_slot(sets, F_IP, FAM_CM, id) & ipmask;
    }
    if (ENC == CM_ACCOUNT)
        svpc_stats_count_id(io->acc, F_IP, id, eip, field_nslots(F_IP, FAM_CM));
    if (ENC)
        vpc_set_count(&sets[F_IP], id);
    field_update(sets, F_IP, FAM_CM, v[F_IP]);
    m->x.ipnext[kl] = exp_ip_next(m->x.ipnext[kl], id, flag);
    s->hist_ip = (s->hist_ip << 1) | flag;

    /* the ip-keyed fields: the expected ids are those used at this ip last time */
    const uint32_t tl = vpc_key_line(v[F_IP], KEY_BITS);
    s->tup = m->x.tuple[tl];
    s->all = 1;
    s->flag = flag;
    s->mismatch_seen = s->idbits = s->matches = 0;
    if (ENC) {
        for (unsigned j = 0; j < nf; j++) {
            const unsigned f = cm_field_of(t, j), exp = exp_tup_id(s->tup, j);
            field_locate(sets, f, FAM_CM, v[F_IP], v[F_ADDR]);
            s->ids[j] = field_choose(sets, f, FAM_CM, exp, v[f]);
            s->all &= s->ids[j] == exp;
        }
    }
    /* the all-flag's context; a vpc entry has one ip-keyed field, so its
     * all-flag is that field's match flag, and its context also has the
     * expected id (6.6) */
    const unsigned cx = (exp_tup_all(s->tup) << 4) | (flag << 3) | (s->hist_all & 7);
    s->all = CM_BIT(ENC, io, t == ST_TYPE_VPC ? &m->pr.vflag[exp_tup_id(s->tup, 0)][cx] : &m->pr.allflag[cx], s->all,
                    rk);
    s->hist_all = (s->hist_all << 1) | s->all;
    /* one instance per field, each with its field and width constant */
    st_error err;
    if ((err = cm_field(io, ENC, sets, m, s, t, 0, nf, rk, v, i, d)) != ST_OK ||
        (nf > 1 && (err = cm_field(io, ENC, sets, m, s, t, 1, nf, rk, v, i, d)) != ST_OK) ||
        (nf > 2 && (err = cm_field(io, ENC, sets, m, s, t, 2, nf, rk, v, i, d)) != ST_OK) ||
        (nf > 3 && (err = cm_field(io, ENC, sets, m, s, t, 3, nf, rk, v, i, d)) != ST_OK))
        return err;
    m->x.tuple[tl] = exp_tup_next(s->tup, s->idbits, s->matches, s->all);
    s->hf = s->matches;
    memcpy(s->prev, v, sizeof s->prev);
    s->kl = tl;
    return ST_OK;
}

static void cm_state_init(cm_state *s)
{
    memset(s, 0, sizeof *s);
    s->kl = vpc_key_line(0, KEY_BITS);
}

/* ---- frames ------------------------------------------------------------------ */

/* The predictor sets and the model, fresh for a frame (cm1's and cm's
 * alike: one model for both, as svpc_ctx_memory() counts one). */
static st_error cm_ready(svpc_ctx *c, cm_model **m)
{
    RETURN_IF_ERROR(svpc_sets_ready(c, FAM_CM));
    RETURN_IF_ERROR(svpc_model(c, SVPC_ENC_CM, sizeof(cm_model), (void **)m));
    cm_reset(*m);
    return ST_OK;
}

/* The ids and miss streams of n entries into c->buf (CM_ACCOUNT: also
 * counted into acc). */
ST_INLINE st_error encode_T(svpc_ctx *c, cm_model *m, const int ENC, st_entry_type t, unsigned rk,
                            const uint8_t *raw, size_t n, svpc_pred_stats *acc)
{
    const size_t esz = st_entry_size(t);
    const size_t caps[CS_COUNT] = {n * 4 + 64, 8 * n, 8 * n, 2 * n, 8 * n, 8 * n};
    RETURN_IF_ERROR(svpc_streams_reserve(c, caps, CS_COUNT));
    cm_io io;
    rc_enc_init(&io.e, &c->buf[CS_RC]);
    for (unsigned f = 0; f < F_COUNT; f++)
        io.mp[f] = c->buf[CS_MISS0 + f].data;
    io.acc = acc;
    cm_state s;
    cm_state_init(&s);
    st_diag d;
    memset(&d, 0, sizeof d);
    for (size_t i = 0; i < n; i++) {
        uint64_t v[F_COUNT];
        cm_load_entry(t, raw + i * esz, v);
        RETURN_IF_ERROR(cm_entry(&io, ENC, c->set, m, &s, t, rk, v, i, &d));
    }
    RETURN_IF_ERROR(rc_enc_finish(&io.e));
    for (unsigned f = 0; f < F_COUNT; f++)
        c->buf[CS_MISS0 + f].len = (size_t)(io.mp[f] - c->buf[CS_MISS0 + f].data);
    return ST_OK;
}

ST_INLINE st_error decode_T(svpc_ctx *c, cm_model *m, st_entry_type t, unsigned rk, const uint8_t *payload,
                            size_t len, size_t n, size_t stop, uint8_t *raw, st_diag *d)
{
    const size_t esz = st_entry_size(t);
    const size_t maxl[CS_COUNT] = {n * RC_MAX_PER_ENTRY + 64, 8 * n, 8 * n, 2 * n, 8 * n, 8 * n};
    ss_out so;
    st_error err = ss_unpack(payload, len, CS_COUNT, maxl, &so, d);
    if (err != ST_OK) {
        st_buf_free(&so.arena);
        return err;
    }
    cm_io io;
    for (unsigned f = 0; f < F_COUNT; f++)
        io.miss[f] = (rd){so.data[CS_MISS0 + f], so.len[CS_MISS0 + f], 0, 0};
    rc_dec_init(&io.d, so.data[CS_RC], so.len[CS_RC]);
    cm_state s;
    cm_state_init(&s);
    for (size_t i = 0; i < stop && err == ST_OK; i++) {
        uint64_t v[F_COUNT] = {0, 0, 0, 0, 0};
        err = cm_entry(&io, CM_DECODE, c->set, m, &s, t, rk, v, i, d);
        if (err == ST_OK)
            cm_store_entry(t, raw + i * esz, v);
    }
    /* a prefix leaves the rest of the streams unread: only an overrun so
     * far is known to be an error */
    if (err == ST_OK && stop < n && io.d.overrun)
        err = st_diag_set(d, ST_E_CORRUPT, "id stream is corrupt or ends too early");
    if (err == ST_OK && stop == n && (io.d.overrun || io.d.pos != io.d.len))
        err = st_diag_set(d, ST_E_CORRUPT, "id stream %s",
                          io.d.overrun ? "is corrupt or ends too early" : "has bytes left over");
    for (unsigned f = 0; f < F_COUNT && err == ST_OK && stop == n; f++)
        if (io.miss[f].bad || io.miss[f].pos != io.miss[f].len)
            err = st_diag_set(d, ST_E_CORRUPT, "%s stream %s", cm_names[CS_MISS0 + f],
                              io.miss[f].bad ? "ends too early" : "has bytes left over");
    st_buf_free(&so.arena);
    return err;
}

/* cm's LZMA settings (cm1 keeps the preset's, so its bytes stay those of
 * svpc 0.1): residual bytes of varying length have little to gain from the
 * previous byte (lc 1) or position (pb 0); data misses are W-byte values,
 * so their byte position in the value is the context (pb 3 or 2) and the
 * previous byte is not (lc 0).  About 0.7% on the corpus and testdata;
 * readers need nothing, LZMA2 carries these. */
static st_error pack_T(svpc_ctx *c, const svpc_params *p, st_entry_type t, unsigned rk, st_buf *out)
{
    const unsigned wide = miss_width(F_DATA, t) == 8;
    const unsigned props[CS_COUNT] = {0,
                                      SS_LZMA_PROPS(1, 0, 0),
                                      SS_LZMA_PROPS(1, 0, 0),
                                      SS_LZMA_PROPS(1, 0, 0),
                                      SS_LZMA_PROPS(1, 0, 0),
                                      SS_LZMA_PROPS(0, 0, wide ? 3 : 2)};
    return svpc_streams_pack(c, p, cm_names, cm_compress, rk == RC_COUNTED ? props : NULL, CS_COUNT, out);
}

/* Per-type instances: the entry layout and the coder's kind are constants
 * of each, so entry loads and stores compile to fixed-offset moves. */
#define CM_TYPES(X) X(ST_TYPE_D64) X(ST_TYPE_D32) X(ST_TYPE_M64) X(ST_TYPE_M32) X(ST_TYPE_VPC)
#define CM_MEM_TYPES(X) X(ST_TYPE_D64) X(ST_TYPE_D32) X(ST_TYPE_M64) X(ST_TYPE_M32)
#define AS_CASE_ENC(T) \
    case T: e = encode_T(c, m, CM_ENCODE, T, rk, raw, *n, NULL); break;
#define AS_CASE_DEC(T) \
    case T: return decode_T(c, m, T, rk, payload, len, n, stop, raw, d);
#define AS_CASE_ACCOUNT(T) \
    case T: return encode_T(c, m, CM_ACCOUNT, T, RC_COUNTED, raw, n, acc);

#define DEFINE_CM(NAME, RK)                                                                                    \
    static st_error NAME##_encode(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw,        \
                                  const svpc_source *src, size_t *n, st_buf *out)                                \
    {                                                                                                             \
        (void)src;                                                                                                \
        const unsigned rk = RK;                                                                                   \
        cm_model *m;                                                                                              \
        RETURN_IF_ERROR(cm_ready(c, &m));                                                                     \
        st_error e = ST_E_USAGE;                                                                                  \
        switch (t) {                                                                                              \
            CM_TYPES(AS_CASE_ENC)                                                                                 \
        default: break;                                                                                           \
        }                                                                                                         \
        return e == ST_OK ? pack_T(c, p, t, rk, out) : e;                                                         \
    }                                                                                                             \
    static st_error NAME##_decode(svpc_ctx *c, st_entry_type t, const uint8_t *payload, size_t len, size_t n,    \
                                  size_t from, size_t stop, uint8_t *raw, st_diag *d)                             \
    {                                                                                                             \
        (void)from; /* every entry is stored */                                                                   \
        const unsigned rk = RK;                                                                                   \
        cm_model *m;                                                                                              \
        RETURN_IF_ERROR(cm_ready(c, &m));                                                                     \
        switch (t) {                                                                                              \
            CM_TYPES(AS_CASE_DEC)                                                                                 \
        default: return st_diag_set(d, ST_E_UNSUPPORTED, "encoder %s does not code entries of type %s", #NAME,    \
                                    st_entry_name(t));                                                            \
        }                                                                                                         \
    }

DEFINE_CM(cm1, RC_TWO_RATE)
DEFINE_CM(cm, RC_COUNTED)

st_error cm_account(svpc_ctx *c, st_entry_type t, const uint8_t *raw, size_t n, svpc_pred_stats *acc)
{
    cm_model *m;
    RETURN_IF_ERROR(cm_ready(c, &m));
    switch (t) {
        CM_MEM_TYPES(AS_CASE_ACCOUNT)
    default: return ST_E_USAGE;
    }
}

static int cm_supports(st_entry_type t) { return st_entry_is_memory(t) || t == ST_TYPE_VPC; }
static size_t cm_memory(void) { return svpc_sets_memory(FAM_CM) + sizeof(cm_model); }

const svpc_codec svpc_codec_cm1 = {SVPC_ENC_CM1, "cm1", cm_supports, cm_memory, 0, cm1_encode, cm1_decode, NULL};
const svpc_codec svpc_codec_cm = {SVPC_ENC_CM, "cm", cm_supports, cm_memory, 0, cm_encode, cm_decode, NULL};
