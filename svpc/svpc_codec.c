/*
 * svpc_codec.c - frame encoder and decoder for the SVPC encoders.
 *
 * Field order inside an entry is fixed: ip first (its predictors are global),
 * then cycle, meta, address, data, which are all keyed by the entry's ip, so
 * the decoder knows every key before it needs it.
 */
#include <stdlib.h>
#include <string.h>

#include "../vpc/vpc.h"
#include "rc.h"
#include "stage2.h"
#include "svpc.h"

/* Inline templates must really be inlined for their constant arguments to
 * fold away; GCC and clang otherwise keep the larger ones out of line. */
#if defined(__GNUC__)
#define ST_INLINE static inline __attribute__((always_inline))
#else
#define ST_INLINE static inline
#endif

enum { F_IP, F_CYCLE, F_META, F_ADDR, F_DATA, F_COUNT };
static const char *const field_names[F_COUNT] = {"ip", "cycle", "meta", "address", "data"};

/*
 * Predictor configurations, one X-macro list per field:
 * X(kind, order r, values n, history bits s, value-table bits t, keyed by
 * address).  Each list generates the configuration table and the field's
 * predict/update wrappers, which call the vpc inline workers with constant
 * parameters (unrolled, one key-line computation per key): the hot loop
 * pays for no configuration lookups.
 *
 * Table 1 of the Simutrace white paper: FCMr[n]^s_t.
 */
#define MEM_BITS 18
#define CFG_IP(X) X(VPC_FCM, 1, 2, 0, 17, 0) X(VPC_FCM, 3, 2, 0, 19, 0)
#define CFG_CYCLE(X) X(VPC_DCFCM, 1, 2, 0, 17, 0) X(VPC_DCFCM, 3, 2, 0, 19, 0)
#define CFG_EXT(X)                                                                                             \
    X(VPC_FCM, 1, 2, 16, 19, 0) X(VPC_DFCM, 1, 2, 16, 17, 0) X(VPC_DFCM, 3, 2, 16, 19, 0) X(VPC_LV, 0, 4, 0, 16, 0)
/* Not in the paper: the meta field (fullSize, tag) as the last 2 values seen
 * at the same IP; and data also predicted from the last 2 values seen at the
 * same address (memory contents). */
#define CFG_META(X) X(VPC_LV, 0, 2, 0, 16, 0)
#define CFG_DATA_CM(X) CFG_EXT(X) X(VPC_LV, 0, 2, 0, MEM_BITS, 1)
#define EXT_LV_SLOT 6 /* first slot of the LV predictor in CFG_EXT */

#define AS_CFG(k, r, n, s, t, k2) {k, r, n, s, t, k2},
#define AS_NSLOTS(k, r, n, s, t, k2) +n
#define AS_PREDICT(k, r, n, s, t, k2)                                                 \
    vpc_pred_predict(&set->pred[p_], (k2) ? key2 : key1, set->slot + o_, k, r, n, s, t); \
    o_ += n;                                                                          \
    p_++;
#define AS_UPDATE(k, r, n, s, t, k2) vpc_pred_update(&set->pred[p_++], v, k, r, n, t);
#define DEFINE_FIELD(name, LIST)                                                               \
    static const vpc_pred_cfg cfg_##name[] = {LIST(AS_CFG)};                                    \
    enum { nslots_##name = 0 LIST(AS_NSLOTS) };                                                 \
    ST_INLINE void predict_##name(vpc_set *set, uint64_t key1, uint64_t key2)                   \
    {                                                                                           \
        unsigned o_ = 0, p_ = 0;                                                                \
        (void)key1;                                                                             \
        (void)key2;                                                                             \
        LIST(AS_PREDICT)                                                                        \
        (void)o_;                                                                               \
    }                                                                                           \
    ST_INLINE void update_##name(vpc_set *set, uint64_t v)                                       \
    {                                                                                           \
        unsigned p_ = 0;                                                                        \
        LIST(AS_UPDATE)                                                                         \
    }

DEFINE_FIELD(ip, CFG_IP)
DEFINE_FIELD(cycle, CFG_CYCLE)
DEFINE_FIELD(ext, CFG_EXT)
DEFINE_FIELD(meta, CFG_META)
DEFINE_FIELD(data_cm, CFG_DATA_CM)

typedef struct {
    const vpc_pred_cfg *cfg;
    unsigned n;
} field_cfg_t;
#define NPREDS(a) (unsigned)(sizeof(a) / sizeof(a)[0])
/* [encoder == cm][field] */
static const field_cfg_t field_cfg[2][F_COUNT] = {
    {{cfg_ip, NPREDS(cfg_ip)}, {cfg_cycle, NPREDS(cfg_cycle)}, {cfg_meta, NPREDS(cfg_meta)},
     {cfg_ext, NPREDS(cfg_ext)}, {cfg_ext, NPREDS(cfg_ext)}},
    {{cfg_ip, NPREDS(cfg_ip)}, {cfg_cycle, NPREDS(cfg_cycle)}, {cfg_meta, NPREDS(cfg_meta)},
     {cfg_ext, NPREDS(cfg_ext)}, {cfg_data_cm, NPREDS(cfg_data_cm)}},
};

/* Predict field f of an entry whose ip (and address) are known; with f and
 * cm constant after inlining this is straight-line code. */
ST_INLINE void field_predict(vpc_set *sets, unsigned f, int cm, uint64_t ip, uint64_t addr)
{
    switch (f) {
    case F_IP: predict_ip(&sets[F_IP], 0, 0); break;
    case F_CYCLE: predict_cycle(&sets[F_CYCLE], ip, ip); break;
    case F_META: predict_meta(&sets[F_META], ip, ip); break;
    case F_ADDR: predict_ext(&sets[F_ADDR], ip, ip); break;
    default:
        if (cm)
            predict_data_cm(&sets[F_DATA], ip, addr);
        else
            predict_ext(&sets[F_DATA], ip, ip);
    }
}

ST_INLINE void field_update(vpc_set *sets, unsigned f, int cm, uint64_t v)
{
    switch (f) {
    case F_IP: update_ip(&sets[F_IP], v); break;
    case F_CYCLE: update_cycle(&sets[F_CYCLE], v); break;
    case F_META: update_meta(&sets[F_META], v); break;
    case F_ADDR: update_ext(&sets[F_ADDR], v); break;
    default:
        if (cm)
            update_data_cm(&sets[F_DATA], v);
        else
            update_ext(&sets[F_DATA], v);
    }
}

/* ---- context model of the CM encoder ----------------------------------- */

#define KEY_BITS 16
typedef struct {
    rc_prob ipflag[16][32];        /* [expected ip id][flags at this key: 3 bits][last 2 ip flags] */
    rc_prob iptree[16][16];        /* [expected ip id] 4-bit id tree */
    rc_prob allflag[128];          /* [all-flags at this ip: 3][ip flag][last 3 entry flags] */
    rc_prob fflag[F_COUNT][16][32]; /* [field][expected id][last field flag, ip flag, mismatch before,
                                       last 2 field flags at this ip] */
    rc_prob ftree[F_COUNT][16][16];
    rc_prob nbtree[F_COUNT][9][16]; /* [field][previous miss length] */
    rc_prob refsel[4];              /* address miss: reference choice [last 2 choices] */
} cm_probs;

typedef struct {
    cm_probs pr;
    /* Packed expectation tables (what happened last time at this key):
     * ipnext[line(previous ip)]: bits 0..3 the ip id, bits 4..6 the last
     *   three ip flags seen at this key (1 = the id was the expected one);
     * tuple[line(ip)]: bits 0..15 the ids of cycle, meta, address, data
     *   (4 bits each, in that order); bits 16..18 the last three "all as
     *   expected" flags at this ip; bits 20..27 the last two match flags of
     *   each field at this ip (2 bits per field, same order). */
    uint8_t ipnext[1u << KEY_BITS];
    uint32_t tuple[1u << KEY_BITS];
} cm_model;

static void cm_reset(cm_model *m)
{
    rc_prob *p = (rc_prob *)(void *)&m->pr;
    for (size_t i = 0; i < sizeof m->pr / sizeof(rc_prob); i++)
        p[i] = RC_PROB_INIT;
    memset(m->ipnext, 0, sizeof m->ipnext);
    memset(m->tuple, 0, sizeof m->tuple);
}

struct svpc_ctx {
    vpc_set set[F_COUNT];
    svpc_encoder sets_for; /* encoder whose predictor sets are allocated, 0 = none */
    cm_model *cm;
    st_buf buf[SS_MAX_STREAMS];
    svpc_stream_stat stats[SS_MAX_STREAMS];
    unsigned nstats;
};

st_error svpc_ctx_new(svpc_ctx **out)
{
    svpc_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return ST_E_NOMEM;
    for (unsigned i = 0; i < SS_MAX_STREAMS; i++)
        st_buf_init(&c->buf[i], 0);
    *out = c;
    return ST_OK;
}

void svpc_ctx_free(svpc_ctx *c)
{
    if (!c)
        return;
    for (unsigned f = 0; f < F_COUNT; f++)
        vpc_set_free(&c->set[f]);
    for (unsigned i = 0; i < SS_MAX_STREAMS; i++)
        st_buf_free(&c->buf[i]);
    free(c->cm);
    free(c);
}

size_t svpc_ctx_memory(svpc_encoder enc)
{
    if (enc == SVPC_ENC_GENERIC)
        return 0;
    size_t total = 0;
    const field_cfg_t *fc = field_cfg[enc == SVPC_ENC_CM];
    for (unsigned f = 0; f < F_COUNT; f++)
        total += vpc_set_memory(fc[f].cfg, fc[f].n);
    return total + (enc == SVPC_ENC_CM ? sizeof(cm_model) : 0);
}

static st_error ctx_ready(svpc_ctx *c, svpc_encoder enc)
{
    if (c->sets_for != enc) {
        const field_cfg_t *fc = field_cfg[enc == SVPC_ENC_CM];
        c->sets_for = 0;
        for (unsigned f = 0; f < F_COUNT; f++)
            vpc_set_free(&c->set[f]);
        for (unsigned f = 0; f < F_COUNT; f++) {
            st_error e = vpc_set_init(&c->set[f], fc[f].cfg, fc[f].n);
            if (e != ST_OK) {
                for (unsigned g = 0; g < f; g++)
                    vpc_set_free(&c->set[g]);
                return e;
            }
        }
        c->sets_for = enc;
    } else {
        for (unsigned f = 0; f < F_COUNT; f++)
            vpc_set_reset(&c->set[f]);
    }
    if (enc == SVPC_ENC_CM) {
        if (!c->cm && !(c->cm = malloc(sizeof *c->cm)))
            return ST_E_NOMEM;
        cm_reset(c->cm);
    }
    return ST_OK;
}

/* ---- names --------------------------------------------------------------- */

static const char *const stage_names[] = {"none", "lzma", "bzip2", "zlib"};
static const char *const enc_names[] = {NULL, "generic", "paper", "cm"};

const char *svpc_stage_name(svpc_stage s) { return (unsigned)s <= SVPC_STAGE_ZLIB ? stage_names[s] : NULL; }
const char *svpc_encoder_name(svpc_encoder e)
{
    return (e >= SVPC_ENC_GENERIC && e <= SVPC_ENC_CM) ? enc_names[e] : NULL;
}

int svpc_stage_parse(const char *name, svpc_stage *out)
{
    for (unsigned i = 0; i <= SVPC_STAGE_ZLIB; i++)
        if (strcmp(name, stage_names[i]) == 0) {
            *out = (svpc_stage)i;
            return 1;
        }
    return 0;
}

int svpc_encoder_parse(const char *name, svpc_encoder *out)
{
    for (unsigned i = SVPC_ENC_GENERIC; i <= SVPC_ENC_CM; i++)
        if (strcmp(name, enc_names[i]) == 0) {
            *out = (svpc_encoder)i;
            return 1;
        }
    return 0;
}

unsigned svpc_last_stats(const svpc_ctx *c, svpc_stream_stat *out, unsigned max)
{
    unsigned k = c->nstats < max ? c->nstats : max;
    memcpy(out, c->stats, k * sizeof *out);
    return k;
}

/* ---- helpers ------------------------------------------------------------- */

/* Width mask of field f in entries of type t. */
static uint64_t field_mask(unsigned f, st_entry_type t)
{
    if (f == F_CYCLE)
        return ST_CYCLE_MASK;
    if (f == F_META)
        return 0xFFFF;
    return st_entry_is_wide(t) ? UINT64_MAX : 0xFFFFFFFFu;
}

static unsigned mask_bits(uint64_t mask) { return mask == UINT64_MAX ? 64 : (unsigned)__builtin_popcountll(mask); }

/* Signed difference v - ref in a field `bits` wide, zigzag-mapped so that
 * small differences of either sign become small numbers. */
static inline uint64_t zz_delta(uint64_t v, uint64_t ref, uint64_t mask, unsigned bits)
{
    uint64_t d = (v - ref) & mask;
    if (bits < 64 && (d >> (bits - 1)) & 1)
        d |= ~mask;
    return (d << 1) ^ (uint64_t)(0 - (d >> 63));
}

static inline uint64_t zz_apply(uint64_t r, uint64_t ref, uint64_t mask)
{
    uint64_t d = (r >> 1) ^ (uint64_t)(0 - (r & 1));
    return (ref + d) & mask;
}

static inline void put_le(uint8_t **p, uint64_t v, unsigned nbytes)
{
    for (unsigned k = 0; k < nbytes; k++)
        *(*p)++ = (uint8_t)(v >> (8 * k));
}

/* Reader of a byte stream that reports running past its end. */
typedef struct {
    const uint8_t *p;
    size_t len, pos;
    int bad;
} rd;

/* A miss of nb bytes must need all of them: its top byte is not 0. */
static inline int canonical(uint64_t r, unsigned nb) { return nb == 0 || (r >> (8 * (nb - 1))) != 0; }

static inline uint64_t get_le(rd *r, unsigned nbytes)
{
    if (nbytes > r->len - r->pos) {
        r->bad = 1;
        r->pos = r->len;
        return 0;
    }
    uint64_t v = 0;
    for (unsigned k = 0; k < nbytes; k++)
        v |= (uint64_t)r->p[r->pos++] << (8 * k);
    return v;
}

static st_error reserve_streams(svpc_ctx *c, const size_t *caps, unsigned k)
{
    for (unsigned i = 0; i < k; i++) {
        c->buf[i].len = 0;
        RETURN_IF_ERROR(st_buf_reserve(&c->buf[i], caps[i] ? caps[i] : 1));
    }
    return ST_OK;
}

static st_error pack_streams(svpc_ctx *c, const svpc_params *p, const char *const *names, const int *compress,
                             unsigned k, st_buf *out)
{
    ss_in in[SS_MAX_STREAMS];
    uint64_t stored[SS_MAX_STREAMS];
    for (unsigned i = 0; i < k; i++) {
        in[i].data = c->buf[i].data;
        in[i].len = c->buf[i].len;
        in[i].compress = compress ? compress[i] : 1;
    }
    RETURN_IF_ERROR(ss_pack(p->stage, p->level, in, k, out, stored));
    c->nstats = k;
    for (unsigned i = 0; i < k; i++) {
        c->stats[i].name = names[i];
        c->stats[i].raw = in[i].len;
        c->stats[i].stored = stored[i];
    }
    return ST_OK;
}

/* ---- paper encoder --------------------------------------------------------
 * Streams: ids of ip, cycle, address, data (1 byte per entry each), meta
 * (2 bytes per entry), then the unpredicted values of ip, cycle, address,
 * data (8 bytes each for cycle; 4 or 8 for the others by entry width).  */
enum { PS_ID_IP, PS_ID_CYCLE, PS_ID_ADDR, PS_ID_DATA, PS_META, PS_MISS_IP, PS_MISS_CYCLE, PS_MISS_ADDR,
       PS_MISS_DATA, PS_COUNT };
static const char *const paper_names[PS_COUNT] = {"ip ids",       "cycle ids",   "address ids",
                                                  "data ids",     "meta",        "ip misses",
                                                  "cycle misses", "address misses", "data misses"};
static const unsigned paper_fields[4] = {F_IP, F_CYCLE, F_ADDR, F_DATA};

static inline unsigned miss_width(unsigned f, st_entry_type t)
{
    return (f == F_CYCLE || st_entry_is_wide(t)) ? 8 : 4;
}

ST_INLINE st_error encode_paper_T(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw, size_t n,
                             st_buf *out)
{
    size_t esz = st_entry_size(t);
    int hasd = st_entry_has_data(t);
    unsigned nf = hasd ? 4 : 3;
    size_t caps[PS_COUNT] = {n, n, n, hasd ? n : 0, 2 * n, 8 * n, 8 * n, 8 * n, hasd ? 8 * n : 0};
    RETURN_IF_ERROR(reserve_streams(c, caps, PS_COUNT));
    uint8_t *ids[4], *miss[4];
    for (unsigned j = 0; j < 4; j++) {
        ids[j] = c->buf[PS_ID_IP + j].data;
        miss[j] = c->buf[PS_MISS_IP + j].data;
    }
    uint8_t *meta = c->buf[PS_META].data;
    for (size_t i = 0; i < n; i++) {
        st_entry e;
        st_entry_load(t, raw + i * esz, &e);
        const uint64_t v[F_COUNT] = {e.ip, e.cycle, e.meta16, e.addr, e.data};
        for (unsigned j = 0; j < nf; j++) {
            unsigned f = paper_fields[j];
            vpc_set *s = &c->set[f];
            field_predict(c->set, f, 0, e.ip, e.addr);
            unsigned id = vpc_set_choose(s, v[f], VPC_MAX_SLOTS);
            vpc_set_count(s, id);
            field_update(c->set, f, 0, v[f]);
            *ids[j]++ = (uint8_t)id;
            if (id == s->nslots)
                put_le(&miss[j], v[f], miss_width(f, t));
        }
        put_le(&meta, e.meta16, 2);
    }
    for (unsigned j = 0; j < 4; j++) {
        c->buf[PS_ID_IP + j].len = (size_t)(ids[j] - c->buf[PS_ID_IP + j].data);
        c->buf[PS_MISS_IP + j].len = (size_t)(miss[j] - c->buf[PS_MISS_IP + j].data);
    }
    c->buf[PS_META].len = 2 * n;
    return pack_streams(c, p, paper_names, NULL, PS_COUNT, out);
}

ST_INLINE st_error decode_paper_T(svpc_ctx *c, st_entry_type t, const uint8_t *payload, size_t len, size_t n,
                             uint8_t *raw, st_diag *d)
{
    size_t esz = st_entry_size(t);
    int hasd = st_entry_has_data(t);
    unsigned nf = hasd ? 4 : 3;
    size_t maxl[PS_COUNT] = {n, n, n, hasd ? n : 0, 2 * n, 8 * n, 8 * n, 8 * n, hasd ? 8 * n : 0};
    ss_out so;
    st_error err = ss_unpack(payload, len, PS_COUNT, maxl, &so, d);
    if (err == ST_OK)
        for (unsigned i = 0; i <= PS_META && err == ST_OK; i++)
            if (so.len[i] != maxl[i])
                err = st_diag_set(d, ST_E_CORRUPT, "%s stream holds %zu bytes, expected %zu", paper_names[i],
                                  so.len[i], maxl[i]);
    if (err != ST_OK) {
        st_buf_free(&so.arena);
        return err;
    }
    rd miss[4];
    for (unsigned j = 0; j < 4; j++)
        miss[j] = (rd){so.data[PS_MISS_IP + j], so.len[PS_MISS_IP + j], 0, 0};
    const uint8_t *meta = so.data[PS_META];
    for (size_t i = 0; i < n && err == ST_OK; i++) {
        st_entry e;
        uint64_t v[F_COUNT] = {0, 0, 0, 0, 0};
        for (unsigned j = 0; j < nf; j++) {
            unsigned f = paper_fields[j];
            vpc_set *s = &c->set[f];
            field_predict(c->set, f, 0, v[F_IP], v[F_ADDR]);
            unsigned id = so.data[PS_ID_IP + j][i];
            if (id > s->nslots) {
                err = st_diag_set(d, ST_E_CORRUPT, "entry %zu: %s predictor id %u out of range", i,
                                  field_names[f], id);
                break;
            }
            v[f] = id < s->nslots ? s->slot[id] : get_le(&miss[j], miss_width(f, t));
            if (v[f] & ~field_mask(f, t)) {
                err = st_diag_set(d, ST_E_CORRUPT, "entry %zu: %s miss wider than the field", i, field_names[f]);
                break;
            }
            vpc_set_count(s, id);
            field_update(c->set, f, 0, v[f]);
        }
        e.ip = v[F_IP];
        e.cycle = v[F_CYCLE];
        e.addr = v[F_ADDR];
        e.data = v[F_DATA];
        e.meta16 = st_load16(meta + 2 * i);
        st_entry_store(t, raw + i * esz, &e);
    }
    for (unsigned j = 0; j < 4 && err == ST_OK; j++)
        if (miss[j].bad || miss[j].pos != miss[j].len)
            err = st_diag_set(d, ST_E_CORRUPT, "%s stream %s", paper_names[PS_MISS_IP + j],
                              miss[j].bad ? "ends too early" : "has bytes left over");
    st_buf_free(&so.arena);
    return err;
}

/* ---- CM encoder -------------------------------------------------------------
 * Streams: the range coder's output, then the miss bytes of ip, cycle, meta,
 * address and data (variable length, least significant byte first). */
enum { CS_RC, CS_MISS0, CS_COUNT = CS_MISS0 + F_COUNT };
static const char *const cm_names[CS_COUNT] = {"ids (range coded)", "ip misses",      "cycle misses",
                                               "meta misses",       "address misses", "data misses"};
static const int cm_compress[CS_COUNT] = {0, 1, 1, 1, 1, 1};
/* Coding order of the ip-keyed fields, and their nibble in the tuple. */
static const unsigned cm_fields[4] = {F_CYCLE, F_META, F_ADDR, F_DATA};
#define RC_MAX_PER_ENTRY 96 /* bound on range-coder bytes per entry, see decoder */

/* Reference a miss is coded against: meta by XOR with the previous meta;
 * address by difference from the last value in the ip's LV line (or, when
 * that slot is 0, the previous address); ip and cycle by difference from the
 * previous value.  Data misses are not coded here: they are stored verbatim,
 * which the second stage compresses better (repeated values stay aligned). */
static inline uint64_t cm_ref(const vpc_set *s, unsigned f, const uint64_t *prev)
{
    if (f == F_ADDR && s->slot[EXT_LV_SLOT] != 0)
        return s->slot[EXT_LV_SLOT];
    return prev[f];
}

static inline uint64_t cm_residual(unsigned f, uint64_t v, uint64_t ref, uint64_t mask, unsigned bits)
{
    return f == F_META ? (v ^ ref) : zz_delta(v, ref, mask, bits);
}

static inline unsigned nbytes_of(uint64_t r) { return r ? (unsigned)((64 - __builtin_clzll(r) + 7) >> 3) : 0; }

/* A miss residual: its byte length through the field's length tree (context:
 * the field's previous length), its bytes into the field's miss stream. */
ST_INLINE void cm_put_miss(rc_enc *rc, rc_prob tree[9][16], unsigned *last_nb, uint8_t **mp, uint64_t r)
{
    unsigned nb = nbytes_of(r);
    rc_encode_tree(rc, tree[*last_nb], 4, nb);
    *last_nb = nb;
    put_le(mp, r, nb);
}

/* The decoder's side of cm_put_miss().  Returns NULL, or what is wrong: a
 * length above 8, or a length longer than the residual needs. */
ST_INLINE const char *cm_get_miss(rc_dec *rc, rc_prob tree[9][16], unsigned *last_nb, rd *ms, uint64_t *r)
{
    unsigned nb = rc_decode_tree(rc, tree[*last_nb], 4);
    if (nb > 8)
        return "miss length above 8 bytes";
    *last_nb = nb;
    *r = get_le(ms, nb);
    return canonical(*r, nb) ? NULL : "miss longer than needed";
}

ST_INLINE st_error encode_cm_T(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw, size_t n,
                          st_buf *out)
{
    size_t esz = st_entry_size(t);
    unsigned nf = st_entry_has_data(t) ? 4 : 3;
    size_t caps[CS_COUNT] = {n * 4 + 64, 8 * n, 8 * n, 2 * n, 8 * n, 8 * n};
    RETURN_IF_ERROR(reserve_streams(c, caps, CS_COUNT));
    cm_model *m = c->cm;
    uint64_t mask[F_COUNT];
    unsigned bits[F_COUNT];
    uint8_t *mp[F_COUNT];
    for (unsigned f = 0; f < F_COUNT; f++) {
        mask[f] = field_mask(f, t);
        bits[f] = mask_bits(mask[f]);
        mp[f] = c->buf[CS_MISS0 + f].data;
    }
    rc_enc rc;
    rc_enc_init(&rc, &c->buf[CS_RC]);
    uint64_t prev[F_COUNT] = {0, 0, 0, 0, 0};
    unsigned hist_ip = 0, hist_all = 0, hist_f[F_COUNT] = {0}, last_nb[F_COUNT] = {0}, refhist = 0;

    for (size_t i = 0; i < n; i++) {
        st_entry e;
        st_entry_load(t, raw + i * esz, &e);
        const uint64_t v[F_COUNT] = {e.ip, e.cycle, e.meta16, e.addr, e.data};

        /* ip: expected id is the one used after the previous ip last time */
        uint32_t kl = vpc_key_line(prev[F_IP], KEY_BITS);
        unsigned eip = m->ipnext[kl] & 15u, kh = (m->ipnext[kl] >> 4) & 7u;
        vpc_set *s = &c->set[F_IP];
        predict_ip(s, 0, 0);
        unsigned id = vpc_set_choose(s, v[F_IP], eip);
        unsigned flag = id == eip;
        rc_encode(&rc, &m->pr.ipflag[eip][(kh << 2) | (hist_ip & 3)], flag);
        if (!flag)
            rc_encode_tree(&rc, m->pr.iptree[eip], 4, id);
        if (id == s->nslots)
            cm_put_miss(&rc, m->pr.nbtree[F_IP], &last_nb[F_IP], &mp[F_IP],
                        zz_delta(v[F_IP], prev[F_IP], mask[F_IP], bits[F_IP]));
        vpc_set_count(s, id);
        update_ip(s, v[F_IP]);
        m->ipnext[kl] = (uint8_t)(id | (((kh << 1) | flag) & 7u) << 4);
        hist_ip = (hist_ip << 1) | flag;

        /* the ip-keyed fields: expected ids are those used at this ip last time */
        uint32_t tl = vpc_key_line(e.ip, KEY_BITS);
        unsigned tup = m->tuple[tl], ids[4], all = 1;
        for (unsigned j = 0; j < nf; j++) {
            unsigned f = cm_fields[j];
            s = &c->set[f];
            field_predict(c->set, f, 1, e.ip, e.addr);
            unsigned exp = (tup >> (4 * j)) & 15u;
            ids[j] = vpc_set_choose(s, v[f], exp);
            all &= ids[j] == exp;
        }
        unsigned ah = (tup >> 16) & 7u;
        rc_encode(&rc, &m->pr.allflag[(ah << 4) | (flag << 3) | (hist_all & 7)], all);
        hist_all = (hist_all << 1) | all;
        unsigned newtup = 0, mismatch_seen = 0;
        for (unsigned j = 0; j < nf; j++) {
            unsigned f = cm_fields[j];
            unsigned exp = (tup >> (4 * j)) & 15u;
            unsigned match = ids[j] == exp;
            if (!all) {
                /* after all-but-one matched, the last one cannot match */
                unsigned fh = (tup >> (20 + 2 * j)) & 3u;
                if (j + 1 < nf || mismatch_seen)
                    rc_encode(&rc, &m->pr.fflag[f][exp][fh | (mismatch_seen << 2) | (flag << 3) | ((hist_f[f] & 1) << 4)],
                              match);
                if (!match) {
                    rc_encode_tree(&rc, m->pr.ftree[f][exp], 4, ids[j]);
                    mismatch_seen = 1;
                }
            }
            hist_f[f] = (hist_f[f] << 1) | match;
            s = &c->set[f];
            if (ids[j] == s->nslots && f == F_DATA) {
                put_le(&mp[f], v[f], miss_width(f, t));
            } else if (ids[j] == s->nslots) {
                uint64_t r = cm_residual(f, v[f], cm_ref(s, f, prev), mask[f], bits[f]);
                if (f == F_ADDR) {
                    /* or against the previous address, if that is shorter */
                    uint64_t r1 = zz_delta(v[f], prev[f], mask[f], bits[f]);
                    unsigned sel = r1 < r;
                    rc_encode(&rc, &m->pr.refsel[refhist & 3], sel);
                    refhist = (refhist << 1) | sel;
                    r = sel ? r1 : r;
                }
                cm_put_miss(&rc, m->pr.nbtree[f], &last_nb[f], &mp[f], r);
            }
            vpc_set_count(s, ids[j]);
            field_update(c->set, f, 1, v[f]);
            newtup |= ids[j] << (4 * j);
            newtup |= ((((tup >> (20 + 2 * j)) << 1) | match) & 3u) << (20 + 2 * j);
        }
        newtup |= ((((tup >> 16) << 1) | all) & 7u) << 16;
        m->tuple[tl] = newtup;
        for (unsigned f = 0; f < F_COUNT; f++)
            prev[f] = v[f];
    }
    RETURN_IF_ERROR(rc_enc_finish(&rc));
    for (unsigned f = 0; f < F_COUNT; f++)
        c->buf[CS_MISS0 + f].len = (size_t)(mp[f] - c->buf[CS_MISS0 + f].data);
    return pack_streams(c, p, cm_names, cm_compress, CS_COUNT, out);
}

ST_INLINE st_error decode_cm_T(svpc_ctx *c, st_entry_type t, const uint8_t *payload, size_t len, size_t n,
                          uint8_t *raw, st_diag *d)
{
    size_t esz = st_entry_size(t);
    unsigned nf = st_entry_has_data(t) ? 4 : 3;
    size_t maxl[CS_COUNT] = {n * RC_MAX_PER_ENTRY + 64, 8 * n, 8 * n, 2 * n, 8 * n, 8 * n};
    ss_out so;
    st_error err = ss_unpack(payload, len, CS_COUNT, maxl, &so, d);
    if (err != ST_OK) {
        st_buf_free(&so.arena);
        return err;
    }
    cm_model *m = c->cm;
    uint64_t mask[F_COUNT];
    rd miss[F_COUNT];
    for (unsigned f = 0; f < F_COUNT; f++) {
        mask[f] = field_mask(f, t);
        miss[f] = (rd){so.data[CS_MISS0 + f], so.len[CS_MISS0 + f], 0, 0};
    }
    rc_dec rc;
    rc_dec_init(&rc, so.data[CS_RC], so.len[CS_RC]);
    uint64_t prev[F_COUNT] = {0, 0, 0, 0, 0};
    unsigned hist_ip = 0, hist_all = 0, hist_f[F_COUNT] = {0}, last_nb[F_COUNT] = {0}, refhist = 0;

    for (size_t i = 0; i < n; i++) {
        uint64_t v[F_COUNT] = {0, 0, 0, 0, 0};
        uint32_t kl = vpc_key_line(prev[F_IP], KEY_BITS);
        unsigned eip = m->ipnext[kl] & 15u, kh = (m->ipnext[kl] >> 4) & 7u;
        vpc_set *s = &c->set[F_IP];
        predict_ip(s, 0, 0);
        unsigned flag = rc_decode(&rc, &m->pr.ipflag[eip][(kh << 2) | (hist_ip & 3)]);
        unsigned id = flag ? eip : rc_decode_tree(&rc, m->pr.iptree[eip], 4);
        if (!flag && id == eip) {
            err = st_diag_set(d, ST_E_CORRUPT, "entry %zu: ip id coded as unexpected but equals the expected", i);
            break;
        }
        if (id > s->nslots) {
            err = st_diag_set(d, ST_E_CORRUPT, "entry %zu: ip predictor id %u out of range", i, id);
            break;
        }
        if (id == s->nslots) {
            uint64_t r;
            const char *bad = cm_get_miss(&rc, m->pr.nbtree[F_IP], &last_nb[F_IP], &miss[F_IP], &r);
            if (bad) {
                err = st_diag_set(d, ST_E_CORRUPT, "entry %zu: ip %s", i, bad);
                break;
            }
            v[F_IP] = zz_apply(r, prev[F_IP], mask[F_IP]);
        } else {
            v[F_IP] = s->slot[id] & mask[F_IP];
        }
        vpc_set_count(s, id);
        update_ip(s, v[F_IP]);
        m->ipnext[kl] = (uint8_t)(id | (((kh << 1) | flag) & 7u) << 4);
        hist_ip = (hist_ip << 1) | flag;

        uint32_t tl = vpc_key_line(v[F_IP], KEY_BITS);
        unsigned tup = m->tuple[tl];
        unsigned ah = (tup >> 16) & 7u;
        unsigned all = rc_decode(&rc, &m->pr.allflag[(ah << 4) | (flag << 3) | (hist_all & 7)]);
        hist_all = (hist_all << 1) | all;
        unsigned newtup = 0, mismatch_seen = 0;
        for (unsigned j = 0; j < nf; j++) {
            unsigned f = cm_fields[j];
            s = &c->set[f];
            field_predict(c->set, f, 1, v[F_IP], v[F_ADDR]);
            unsigned exp = (tup >> (4 * j)) & 15u, match = 1, fid = exp;
            if (!all) {
                unsigned fh = (tup >> (20 + 2 * j)) & 3u;
                match = (j + 1 < nf || mismatch_seen)
                            ? rc_decode(&rc, &m->pr.fflag[f][exp][fh | (mismatch_seen << 2) | (flag << 3) |
                                                                    ((hist_f[f] & 1) << 4)])
                            : 0;
                if (!match) {
                    fid = rc_decode_tree(&rc, m->pr.ftree[f][exp], 4);
                    mismatch_seen = 1;
                    if (fid == exp) {
                        err = st_diag_set(d, ST_E_CORRUPT, "entry %zu: %s id coded as unexpected but equals the expected",
                                          i, field_names[f]);
                        break;
                    }
                }
            }
            hist_f[f] = (hist_f[f] << 1) | match;
            if (fid > s->nslots) {
                err = st_diag_set(d, ST_E_CORRUPT, "entry %zu: %s predictor id %u out of range", i,
                                  field_names[f], fid);
                break;
            }
            if (fid == s->nslots && f == F_DATA) {
                v[f] = get_le(&miss[f], miss_width(f, t));
                if (v[f] & ~mask[f]) {
                    err = st_diag_set(d, ST_E_CORRUPT, "entry %zu: data miss wider than the field", i);
                    break;
                }
            } else if (fid == s->nslots) {
                unsigned sel = 0;
                if (f == F_ADDR) {
                    sel = rc_decode(&rc, &m->pr.refsel[refhist & 3]);
                    refhist = (refhist << 1) | sel;
                }
                uint64_t r, ref = sel ? prev[f] : cm_ref(s, f, prev);
                const char *bad = cm_get_miss(&rc, m->pr.nbtree[f], &last_nb[f], &miss[f], &r);
                if (bad) {
                    err = st_diag_set(d, ST_E_CORRUPT, "entry %zu: %s %s", i, field_names[f], bad);
                    break;
                }
                if (f == F_META && ((r ^ ref) & ~mask[f])) {
                    err = st_diag_set(d, ST_E_CORRUPT, "entry %zu: meta miss wider than the field", i);
                    break;
                }
                v[f] = f == F_META ? (r ^ ref) : zz_apply(r, ref, mask[f]);
            } else {
                v[f] = s->slot[fid] & mask[f];
            }
            vpc_set_count(s, fid);
            field_update(c->set, f, 1, v[f]);
            newtup |= fid << (4 * j);
            newtup |= ((((tup >> (20 + 2 * j)) << 1) | match) & 3u) << (20 + 2 * j);
        }
        if (err != ST_OK)
            break;
        newtup |= ((((tup >> 16) << 1) | all) & 7u) << 16;
        m->tuple[tl] = newtup;
        st_entry e = {v[F_CYCLE], v[F_META], v[F_IP], v[F_ADDR], v[F_DATA]};
        st_entry_store(t, raw + i * esz, &e);
        for (unsigned f = 0; f < F_COUNT; f++)
            prev[f] = v[f];
    }
    if (err == ST_OK && (rc.overrun || rc.pos != rc.len))
        err = st_diag_set(d, ST_E_CORRUPT, "id stream %s", rc.overrun ? "is corrupt or ends too early"
                                                                        : "has bytes left over");
    for (unsigned f = 0; f < F_COUNT && err == ST_OK; f++)
        if (miss[f].bad || miss[f].pos != miss[f].len)
            err = st_diag_set(d, ST_E_CORRUPT, "%s stream %s", cm_names[CS_MISS0 + f],
                              miss[f].bad ? "ends too early" : "has bytes left over");
    st_buf_free(&so.arena);
    return err;
}

/* ---- per-type instances of the workers -------------------------------------
 * Thin wrappers pick the entry layout outside the per-entry loop, so entry
 * loads and stores compile to fixed-offset moves. */
typedef st_error (*enc_fn)(svpc_ctx *, const svpc_params *, st_entry_type, const uint8_t *, size_t, st_buf *);
typedef st_error (*dec_fn)(svpc_ctx *, st_entry_type, const uint8_t *, size_t, size_t, uint8_t *, st_diag *);
#define DEFINE_TYPED(T)                                                                                        \
    static st_error enc_paper_##T(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw,   \
                                  size_t n, st_buf *out)                                                    \
    {                                                                                                       \
        (void)t;                                                                                            \
        return encode_paper_T(c, p, T, raw, n, out);                                                        \
    }                                                                                                       \
    static st_error enc_cm_##T(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw,      \
                               size_t n, st_buf *out)                                                       \
    {                                                                                                       \
        (void)t;                                                                                            \
        return encode_cm_T(c, p, T, raw, n, out);                                                           \
    }                                                                                                       \
    static st_error dec_paper_##T(svpc_ctx *c, st_entry_type t, const uint8_t *pl, size_t len, size_t n,    \
                                  uint8_t *raw, st_diag *d)                                                 \
    {                                                                                                       \
        (void)t;                                                                                            \
        return decode_paper_T(c, T, pl, len, n, raw, d);                                                    \
    }                                                                                                       \
    static st_error dec_cm_##T(svpc_ctx *c, st_entry_type t, const uint8_t *pl, size_t len, size_t n,       \
                               uint8_t *raw, st_diag *d)                                                    \
    {                                                                                                       \
        (void)t;                                                                                            \
        return decode_cm_T(c, T, pl, len, n, raw, d);                                                       \
    }
DEFINE_TYPED(ST_TYPE_D64)
DEFINE_TYPED(ST_TYPE_D32)
DEFINE_TYPED(ST_TYPE_M64)
DEFINE_TYPED(ST_TYPE_M32)

/* [type - 1][0 paper, 1 cm] */
static const enc_fn enc_table[4][2] = {{enc_paper_ST_TYPE_D64, enc_cm_ST_TYPE_D64},
                                       {enc_paper_ST_TYPE_D32, enc_cm_ST_TYPE_D32},
                                       {enc_paper_ST_TYPE_M64, enc_cm_ST_TYPE_M64},
                                       {enc_paper_ST_TYPE_M32, enc_cm_ST_TYPE_M32}};
static const dec_fn dec_table[4][2] = {{dec_paper_ST_TYPE_D64, dec_cm_ST_TYPE_D64},
                                       {dec_paper_ST_TYPE_D32, dec_cm_ST_TYPE_D32},
                                       {dec_paper_ST_TYPE_M64, dec_cm_ST_TYPE_M64},
                                       {dec_paper_ST_TYPE_M32, dec_cm_ST_TYPE_M32}};

/* ---- generic encoder: the raw bytes through the second stage ---------------- */

static const char *const generic_names[1] = {"raw"};

/* ---- entry points -------------------------------------------------------------- */

st_error svpc_encode(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw, size_t n,
                     st_buf *out)
{
    size_t esz = st_entry_size(t);
    if (!esz || n > SVPC_MAX_FRAME_ENTRIES || p->level < 1 || p->level > 9 || (unsigned)p->stage > SVPC_STAGE_ZLIB)
        return ST_E_USAGE;
    size_t start = out->len;
    st_error e;
    switch (p->encoder) {
    case SVPC_ENC_GENERIC:
        c->buf[0].len = 0;
        e = st_buf_append(&c->buf[0], raw, n * esz);
        if (e == ST_OK)
            e = pack_streams(c, p, generic_names, NULL, 1, out);
        break;
    case SVPC_ENC_PAPER:
    case SVPC_ENC_CM:
        if (!st_entry_is_memory(t))
            return ST_E_USAGE;
        e = ctx_ready(c, p->encoder);
        if (e == ST_OK)
            e = enc_table[t - ST_TYPE_D64][p->encoder == SVPC_ENC_CM](c, p, t, raw, n, out);
        break;
    default:
        return ST_E_USAGE;
    }
    if (e != ST_OK)
        out->len = start;
    return e;
}

st_error svpc_decode(svpc_ctx *c, svpc_encoder enc, st_entry_type t, const uint8_t *payload, size_t len, size_t n,
                     uint8_t *raw, st_diag *d)
{
    size_t esz = st_entry_size(t);
    if (!esz)
        return st_diag_set(d, ST_E_UNSUPPORTED, "unknown entry type %d", (int)t);
    if (n > SVPC_MAX_FRAME_ENTRIES)
        return st_diag_set(d, ST_E_CORRUPT, "frame of %zu entries exceeds the limit", n);
    switch (enc) {
    case SVPC_ENC_GENERIC: {
        size_t maxl = n * esz;
        ss_out so;
        st_error e = ss_unpack(payload, len, 1, &maxl, &so, d);
        if (e == ST_OK && so.len[0] != maxl)
            e = st_diag_set(d, ST_E_CORRUPT, "payload holds %zu bytes, frame needs %zu", so.len[0], maxl);
        if (e == ST_OK && maxl)
            memcpy(raw, so.data[0], maxl);
        st_buf_free(&so.arena);
        return e;
    }
    case SVPC_ENC_PAPER:
    case SVPC_ENC_CM:
        if (!st_entry_is_memory(t))
            return st_diag_set(d, ST_E_UNSUPPORTED, "encoder %s needs a memory entry type", svpc_encoder_name(enc));
        RETURN_IF_ERROR(ctx_ready(c, enc));
        return dec_table[t - ST_TYPE_D64][enc == SVPC_ENC_CM](c, t, payload, len, n, raw, d);
    default:
        return st_diag_set(d, ST_E_UNSUPPORTED, "unknown encoder %d", (int)enc);
    }
}
