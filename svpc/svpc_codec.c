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
#include "vpcx.h"
#include "fields.h"
#include "cm2.h"

/* ---- context model of the CM encoder ----------------------------------- */

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
    int sets_fam;          /* the predictor family whose sets are allocated (fields.h); -1: none */
    cm_model *cm;
    cm2_model *cm2;
    vpcx_model *vx;
    st_buf buf[SS_MAX_STREAMS];
    svpc_stream_stat stats[SS_MAX_STREAMS];
    unsigned nstats;
};

/* cm1, cm and cm2 share predictors; cm1 and cm also their model, and differ
 * in the range coder's adaptation only (rc.h); cm2 has a model of its own. */
static int is_cm(svpc_encoder e) { return e == SVPC_ENC_CM1 || e == SVPC_ENC_CM || e == SVPC_ENC_CM2; }
/* The predictor family (fields.h) of a memory encoder. */
static unsigned fam_of(svpc_encoder e) { return e == SVPC_ENC_CM2 ? FAM_CM2 : is_cm(e) ? FAM_CM : FAM_PAPER; }


st_error svpc_ctx_new(svpc_ctx **out)
{
    svpc_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return ST_E_NOMEM;
    for (unsigned i = 0; i < SS_MAX_STREAMS; i++)
        st_buf_init(&c->buf[i], 0);
    c->sets_fam = -1;
    *out = c;
    return ST_OK;
}

void svpc_ctx_free(svpc_ctx *c)
{
    if (!c)
        return;
    field_sets_free(c->set, &c->sets_fam);
    for (unsigned i = 0; i < SS_MAX_STREAMS; i++)
        st_buf_free(&c->buf[i]);
    free(c->cm);
    cm2_model_free(c->cm2);
    vpcx_free(c->vx);
    free(c);
}

size_t svpc_ctx_memory(svpc_encoder enc)
{
    if (enc == SVPC_ENC_GENERIC)
        return 0;
    if (enc == SVPC_ENC_VPC)
        return vpcx_memory(SVPC_MAX_FRAME_ENTRIES);
    size_t total = 0;
    const field_cfg_t *fc = field_cfg[fam_of(enc)];
    for (unsigned f = 0; f < F_COUNT; f++)
        total += vpc_set_memory(fc[f].cfg, fc[f].n);
    return total + (enc == SVPC_ENC_CM2 ? cm2_model_memory() : sizeof(cm_model));
}

size_t svpc_ctx_memory_max(void)
{
    size_t most = 0;
    for (unsigned e = SVPC_ENC_GENERIC; e <= SVPC_ENC_LAST; e++) {
        size_t m = svpc_ctx_memory((svpc_encoder)e);
        most = m > most ? m : most;
    }
    return most;
}

static st_error ctx_ready(svpc_ctx *c, svpc_encoder enc)
{
    RETURN_IF_ERROR(field_sets_ready(c->set, &c->sets_fam, (int)fam_of(enc)));
    if (enc == SVPC_ENC_CM2)
        return cm2_model_ready(&c->cm2);
    if (is_cm(enc)) {
        if (!c->cm && !(c->cm = malloc(sizeof *c->cm)))
            return ST_E_NOMEM;
        cm_reset(c->cm);
    }
    return ST_OK;
}

/* ---- names --------------------------------------------------------------- */

static const char *const stage_names[] = {"none", "lzma", "bzip2", "zlib"};
static const char *const enc_names[] = {NULL, "generic", "paper", "cm1", "cm", "vpc", "cm2"};

const char *svpc_stage_name(svpc_stage s) { return (unsigned)s <= SVPC_STAGE_ZLIB ? stage_names[s] : NULL; }
const char *svpc_encoder_name(svpc_encoder e)
{
    return (e >= SVPC_ENC_GENERIC && e <= SVPC_ENC_LAST) ? enc_names[e] : NULL;
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
    for (unsigned i = SVPC_ENC_GENERIC; i <= SVPC_ENC_LAST; i++)
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
                             const unsigned *lzma_props, unsigned k, st_buf *out)
{
    ss_in in[SS_MAX_STREAMS];
    uint64_t stored[SS_MAX_STREAMS];
    for (unsigned i = 0; i < k; i++) {
        in[i].data = c->buf[i].data;
        in[i].len = c->buf[i].len;
        in[i].compress = compress ? compress[i] : 1;
        in[i].lzma_props = lzma_props ? lzma_props[i] : 0;
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
            field_predict(c->set, f, FAM_PAPER, e.ip, e.addr);
            unsigned id = vpc_set_choose(s, v[f], VPC_MAX_SLOTS);
            vpc_set_count(s, id);
            field_update(c->set, f, FAM_PAPER, v[f]);
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
    return pack_streams(c, p, paper_names, NULL, NULL, PS_COUNT, out);
}

ST_INLINE st_error decode_paper_T(svpc_ctx *c, st_entry_type t, const uint8_t *payload, size_t len, size_t n,
                             size_t stop, uint8_t *raw, st_diag *d)
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
    for (size_t i = 0; i < stop && err == ST_OK; i++) {
        st_entry e;
        uint64_t v[F_COUNT] = {0, 0, 0, 0, 0};
        for (unsigned j = 0; j < nf; j++) {
            unsigned f = paper_fields[j];
            vpc_set *s = &c->set[f];
            field_predict(c->set, f, FAM_PAPER, v[F_IP], v[F_ADDR]);
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
            field_update(c->set, f, FAM_PAPER, v[f]);
        }
        e.ip = v[F_IP];
        e.cycle = v[F_CYCLE];
        e.addr = v[F_ADDR];
        e.data = v[F_DATA];
        e.meta16 = st_load16(meta + 2 * i);
        st_entry_store(t, raw + i * esz, &e);
    }
    /* a prefix leaves the rest of the streams unread, unchecked */
    for (unsigned j = 0; j < 4 && err == ST_OK && stop == n; j++)
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


/* A miss residual: its byte length through the field's length tree (context:
 * the field's previous length), its bytes into the field's miss stream. */
ST_INLINE void cm_put_miss(rc_enc *rc, rc_prob tree[9][16], unsigned *last_nb, uint8_t **mp, uint64_t r, unsigned rk)
{
    unsigned nb = nbytes_of(r);
    rc_encode_tree(rc, tree[*last_nb], 4, nb, rk);
    *last_nb = nb;
    put_le(mp, r, nb);
}

/* The decoder's side of cm_put_miss().  Returns NULL, or what is wrong: a
 * length above 8, or a length longer than the residual needs. */
ST_INLINE const char *cm_get_miss(rc_dec *rc, rc_prob tree[9][16], unsigned *last_nb, rd *ms, uint64_t *r,
                                   unsigned rk)
{
    unsigned nb = rc_decode_tree(rc, tree[*last_nb], 4, rk);
    if (nb > 8)
        return "miss length above 8 bytes";
    *last_nb = nb;
    *r = get_le(ms, nb);
    return canonical(*r, nb) ? NULL : "miss longer than needed";
}

/* Context of the all-flag.  A vpc entry has one ip-keyed field, so its
 * all-flag is that field's match flag, and its context also has the
 * expected id (6.6): whether the id seen last time at this pc was a hit or
 * the miss id says much about this time. */
ST_INLINE rc_prob *cm_allflag(cm_model *m, st_entry_type t, unsigned tup, unsigned flag, unsigned hist_all)
{
    unsigned ah = (tup >> 16) & 7u, cx = (ah << 4) | (flag << 3) | (hist_all & 7);
    return t == ST_TYPE_VPC ? &m->pr.vflag[tup & 15u][cx] : &m->pr.allflag[cx];
}

/* Tree of an unexpected id of field f (vpc: also by the ip flag). */
ST_INLINE rc_prob *cm_ftree(cm_model *m, st_entry_type t, unsigned f, unsigned exp, unsigned flag)
{
    return t == ST_TYPE_VPC ? m->pr.vtree[exp][flag] : m->pr.ftree[f][exp];
}

ST_INLINE st_error encode_cm_T(svpc_ctx *c, const svpc_params *p, st_entry_type t, unsigned rk, const uint8_t *raw,
                               size_t n, st_buf *out)
{
    size_t esz = st_entry_size(t);
    const unsigned nf = cm_nfields(t);
    size_t caps[CS_COUNT] = {n * 4 + 64, 8 * n, 8 * n, 2 * n, 8 * n, 8 * n};
    RETURN_IF_ERROR(reserve_streams(c, caps, CS_COUNT));
    cm_model *m = c->cm;
    uint64_t mask[F_COUNT];
    unsigned bits[F_COUNT];
    uint8_t *mp[F_COUNT];
    for (unsigned f = 0; f < F_COUNT; f++) {
        mask[f] = cm_mask_T(f, t);
        bits[f] = mask_bits(mask[f]);
        mp[f] = c->buf[CS_MISS0 + f].data;
    }
    rc_enc rc;
    rc_enc_init(&rc, &c->buf[CS_RC]);
    uint64_t prev[F_COUNT] = {0, 0, 0, 0, 0};
    unsigned hist_ip = 0, hist_all = 0, hist_f[F_COUNT] = {0}, last_nb[F_COUNT] = {0}, refhist = 0;

    for (size_t i = 0; i < n; i++) {
        uint64_t v[F_COUNT];
        cm_load_entry(t, raw + i * esz, v);

        /* ip: expected id is the one used after the previous ip last time */
        uint32_t kl = vpc_key_line(prev[F_IP], KEY_BITS);
        unsigned eip = m->ipnext[kl] & 15u, kh = (m->ipnext[kl] >> 4) & 7u;
        vpc_set *s = &c->set[F_IP];
        predict_ip(s, 0, 0);
        unsigned id = vpc_set_choose(s, v[F_IP], eip);
        unsigned flag = id == eip;
        rc_encode(&rc, &m->pr.ipflag[eip][(kh << 2) | (hist_ip & 3)], flag, rk);
        if (!flag)
            rc_encode_tree(&rc, m->pr.iptree[eip], 4, id, rk);
        if (id == s->nslots)
            cm_put_miss(&rc, m->pr.nbtree[F_IP], &last_nb[F_IP], &mp[F_IP],
                        zz_delta(v[F_IP], prev[F_IP], mask[F_IP], bits[F_IP]), rk);
        vpc_set_count(s, id);
        update_ip(s, v[F_IP]);
        m->ipnext[kl] = (uint8_t)(id | (((kh << 1) | flag) & 7u) << 4);
        hist_ip = (hist_ip << 1) | flag;

        /* the ip-keyed fields: expected ids are those used at this ip last time */
        uint32_t tl = vpc_key_line(v[F_IP], KEY_BITS);
        unsigned tup = m->tuple[tl], ids[4], all = 1;
        for (unsigned j = 0; j < nf; j++) {
            unsigned f = cm_field(t, j);
            s = &c->set[f];
            field_predict(c->set, f, FAM_CM, v[F_IP], v[F_ADDR]);
            unsigned exp = (tup >> (4 * j)) & 15u;
            ids[j] = vpc_set_choose(s, v[f], exp);
            all &= ids[j] == exp;
        }
        rc_encode(&rc, cm_allflag(m, t, tup, flag, hist_all), all, rk);
        hist_all = (hist_all << 1) | all;
        unsigned newtup = 0, mismatch_seen = 0;
        for (unsigned j = 0; j < nf; j++) {
            unsigned f = cm_field(t, j);
            unsigned exp = (tup >> (4 * j)) & 15u;
            unsigned match = ids[j] == exp;
            if (!all) {
                /* after all-but-one matched, the last one cannot match */
                unsigned fh = (tup >> (20 + 2 * j)) & 3u;
                if (j + 1 < nf || mismatch_seen)
                    rc_encode(&rc, &m->pr.fflag[f][exp][fh | (mismatch_seen << 2) | (flag << 3) | ((hist_f[f] & 1) << 4)],
                              match, rk);
                if (!match) {
                    rc_encode_tree(&rc, cm_ftree(m, t, f, exp, flag), 4, ids[j], rk);
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
                    rc_encode(&rc, &m->pr.refsel[refhist & 3], sel, rk);
                    refhist = (refhist << 1) | sel;
                    r = sel ? r1 : r;
                }
                cm_put_miss(&rc, m->pr.nbtree[f], &last_nb[f], &mp[f], r, rk);
            }
            vpc_set_count(s, ids[j]);
            field_update(c->set, f, FAM_CM, v[f]);
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
    /* cm's LZMA settings (cm1 keeps the preset's, so its bytes stay those
     * of svpc 0.1): residual bytes of varying length have little to gain
     * from the previous byte (lc 1) or position (pb 0); data misses are
     * W-byte values, so their byte position in the value is the context
     * (pb 3 or 2) and the previous byte is not (lc 0).  About 0.7% on the
     * corpus and testdata; readers need nothing, LZMA2 carries these. */
    const unsigned wide = miss_width(F_DATA, t) == 8;
    const unsigned props[CS_COUNT] = {0,
                                      SS_LZMA_PROPS(1, 0, 0),
                                      SS_LZMA_PROPS(1, 0, 0),
                                      SS_LZMA_PROPS(1, 0, 0),
                                      SS_LZMA_PROPS(1, 0, 0),
                                      SS_LZMA_PROPS(0, 0, wide ? 3 : 2)};
    return pack_streams(c, p, cm_names, cm_compress, rk == RC_COUNTED ? props : NULL, CS_COUNT, out);
}

/* ---- CM decoder -------------------------------------------------------------
 * Follows SIMTRACE.md 6.4.4 symbol by symbol, but does less per entry than
 * the encoder, which must compare every slot with the value:
 *   - predictors only locate their lines; the one slot the coded id names
 *     is read (a DFCM slot is line value + last value, so nothing else
 *     needs computing), the others are never copied;
 *   - no usage counts: they steer only the encoder's choice (6.5.5);
 *   - each ip-keyed field is its own instance of cm_dec_field() with the
 *     field, its width and its slot count as constants, so its
 *     predictors, masks and context arrays are fixed at compile time.
 * The checks and the order of the checks are those of the specification. */

/* Decoder state: across entries (first group) and within one entry. */
typedef struct {
    rc_dec rc;
    rd miss[F_COUNT];
    uint64_t prev[F_COUNT];
    unsigned last_nb[F_COUNT], refhist;
    unsigned hf; /* bit j: field j matched in the previous entry (hist_f[f] & 1 of 6.4.4) */
    uint64_t v[F_COUNT];
    /* ids and match flags of this entry's fields, kept only when all = 0
     * (when all = 1 both follow from tup): bits 4j..4j+3 and bit j */
    unsigned tup, ids, matches, all, flag, mismatch_seen;
} cm_dec;

/* A miss of ip-keyed field f: its value from the miss streams.  Out of
 * line of the hit path in practice (misses are rare), but inlined for the
 * constant field. */
ST_INLINE st_error cm_dec_miss(svpc_ctx *c, cm_dec *s, st_entry_type t, unsigned rk, unsigned f, size_t i,
                               st_diag *d)
{
    const uint64_t mask = cm_mask_T(f, t);
    cm_model *m = c->cm;
    if (f == F_DATA) {
        uint64_t v = get_le(&s->miss[f], (t == ST_TYPE_D64) ? 8 : 4);
        if (v & ~mask)
            return st_diag_set(d, ST_E_CORRUPT, "entry %zu: data miss wider than the field", i);
        s->v[f] = v;
        return ST_OK;
    }
    unsigned sel = 0;
    if (f == F_ADDR) {
        sel = rc_decode(&s->rc, &m->pr.refsel[s->refhist & 3], rk);
        s->refhist = (s->refhist << 1) | sel;
    }
    uint64_t ref = s->prev[f];
    if (f == F_ADDR && !sel) {
        uint64_t lv = cm_slot(c->set, F_ADDR, EXT_LV_SLOT); /* cm_ref(): the ip's last address */
        ref = lv ? lv : ref;
    }
    uint64_t r;
    const char *bad = cm_get_miss(&s->rc, m->pr.nbtree[f], &s->last_nb[f], &s->miss[f], &r, rk);
    if (bad)
        return st_diag_set(d, ST_E_CORRUPT, "entry %zu: %s %s", i, field_names[f], bad);
    if (f == F_META) {
        if ((r ^ ref) & ~mask)
            return st_diag_set(d, ST_E_CORRUPT, "entry %zu: meta miss wider than the field", i);
        s->v[f] = r ^ ref;
    } else {
        s->v[f] = zz_apply(r, ref, mask);
    }
    return ST_OK;
}

/* Ip-keyed field j (field j + 1: cycle, meta, address, data) of entry i. */
ST_INLINE st_error cm_dec_field(svpc_ctx *c, cm_dec *s, st_entry_type t, unsigned rk, unsigned j, unsigned nf,
                                size_t i, st_diag *d)
{
    const unsigned f = cm_field(t, j);
    const unsigned ns = cm_nslots(f);
    cm_model *m = c->cm;
    cm_locate(c->set, f, FAM_CM, s->v[F_IP], s->v[F_ADDR]);
    unsigned exp = (s->tup >> (4 * j)) & 15u, id = exp;
    if (!s->all) {
        unsigned fh = (s->tup >> (20 + 2 * j)) & 3u, match = 0;
        /* after all-but-one matched, the last one cannot match */
        if (j + 1 < nf || s->mismatch_seen)
            match = rc_decode(&s->rc, &m->pr.fflag[f][exp][fh | (s->mismatch_seen << 2) | (s->flag << 3) |
                                                          (((s->hf >> j) & 1u) << 4)], rk);
        if (!match) {
            id = rc_decode_tree(&s->rc, cm_ftree(m, t, f, exp, s->flag), 4, rk);
            s->mismatch_seen = 1;
            if (id == exp)
                return st_diag_set(d, ST_E_CORRUPT, "entry %zu: %s id coded as unexpected but equals the expected",
                                   i, field_names[f]);
        }
        s->ids |= id << (4 * j);
        s->matches |= match << j;
    }
    /* (an expected id is always <= ns: TUPLE holds only checked ids) */
    if (id < ns) {
        s->v[f] = cm_slot(c->set, f, id) & cm_mask_T(f, t);
    } else if (id == ns) {
        RETURN_IF_ERROR(cm_dec_miss(c, s, t, rk, f, i, d));
    } else {
        return st_diag_set(d, ST_E_CORRUPT, "entry %zu: %s predictor id %u out of range", i, field_names[f], id);
    }
    field_update(c->set, f, FAM_CM, s->v[f]);
    return ST_OK;
}

ST_INLINE st_error decode_cm_T(svpc_ctx *c, st_entry_type t, unsigned rk, const uint8_t *payload, size_t len,
                               size_t n, size_t stop, uint8_t *raw, st_diag *d)
{
    const size_t esz = st_entry_size(t);
    const unsigned nf = cm_nfields(t);
    const uint64_t ipmask = cm_mask_T(F_IP, t);
    size_t maxl[CS_COUNT] = {n * RC_MAX_PER_ENTRY + 64, 8 * n, 8 * n, 2 * n, 8 * n, 8 * n};
    ss_out so;
    st_error err = ss_unpack(payload, len, CS_COUNT, maxl, &so, d);
    if (err != ST_OK) {
        st_buf_free(&so.arena);
        return err;
    }
    cm_model *m = c->cm;
    cm_dec s;
    memset(&s, 0, sizeof s);
    for (unsigned f = 0; f < F_COUNT; f++)
        s.miss[f] = (rd){so.data[CS_MISS0 + f], so.len[CS_MISS0 + f], 0, 0};
    rc_dec_init(&s.rc, so.data[CS_RC], so.len[CS_RC]);
    unsigned hist_ip = 0, hist_all = 0;
    vpc_set *ipset = &c->set[F_IP];
    uint32_t kl = vpc_key_line(0, KEY_BITS); /* line of prev[ip]: the previous entry's tl */

    for (size_t i = 0; i < stop; i++) {
        /* ip: expected id is the one used after the previous ip last time */
        unsigned eip = m->ipnext[kl] & 15u, kh = (m->ipnext[kl] >> 4) & 7u;
        locate_ip(ipset, 0, 0);
        unsigned flag = rc_decode(&s.rc, &m->pr.ipflag[eip][(kh << 2) | (hist_ip & 3)], rk);
        unsigned id = eip;
        if (!flag) {
            id = rc_decode_tree(&s.rc, m->pr.iptree[eip], 4, rk);
            if (id == eip) {
                err = st_diag_set(d, ST_E_CORRUPT, "entry %zu: ip id coded as unexpected but equals the expected", i);
                break;
            }
        }
        if (id < nslots_ip) {
            s.v[F_IP] = slot_ip(ipset, id) & ipmask;
        } else if (id == nslots_ip) {
            uint64_t r;
            const char *bad = cm_get_miss(&s.rc, m->pr.nbtree[F_IP], &s.last_nb[F_IP], &s.miss[F_IP], &r, rk);
            if (bad) {
                err = st_diag_set(d, ST_E_CORRUPT, "entry %zu: ip %s", i, bad);
                break;
            }
            s.v[F_IP] = zz_apply(r, s.prev[F_IP], ipmask);
        } else {
            err = st_diag_set(d, ST_E_CORRUPT, "entry %zu: ip predictor id %u out of range", i, id);
            break;
        }
        update_ip(ipset, s.v[F_IP]);
        m->ipnext[kl] = (uint8_t)(id | (((kh << 1) | flag) & 7u) << 4);
        hist_ip = (hist_ip << 1) | flag;

        /* the ip-keyed fields: expected ids are those used at this ip last time */
        uint32_t tl = vpc_key_line(s.v[F_IP], KEY_BITS);
        s.tup = m->tuple[tl];
        unsigned ah = (s.tup >> 16) & 7u;
        s.all = rc_decode(&s.rc, cm_allflag(m, t, s.tup, flag, hist_all), rk);
        hist_all = (hist_all << 1) | s.all;
        s.flag = flag;
        s.ids = s.matches = 0;
        s.mismatch_seen = 0;
        if ((err = cm_dec_field(c, &s, t, rk, 0, nf, i, d)) != ST_OK ||
            (nf > 1 && (err = cm_dec_field(c, &s, t, rk, 1, nf, i, d)) != ST_OK) ||
            (nf > 2 && (err = cm_dec_field(c, &s, t, rk, 2, nf, i, d)) != ST_OK) ||
            (nf > 3 && (err = cm_dec_field(c, &s, t, rk, 3, nf, i, d)) != ST_OK))
            break;
        /* the new TUPLE line (6.4.4: newtup): ids, each field's match
         * flags shifted in (bits 20+2j: ((fh << 1) | match) & 3), ah */
        const unsigned used = (1u << nf) - 1u; /* bit j per coded field */
        unsigned mt = s.all ? used : s.matches;
        unsigned spread = (mt & 1u) | ((mt & 2u) << 1) | ((mt & 4u) << 2) | ((mt & 8u) << 3);
        unsigned fhs = ((((s.tup >> 20) & 0xFFu) << 1) & 0xAAu) | spread;
        m->tuple[tl] = (s.all ? (s.tup & 0xFFFFu) : s.ids) | (fhs << 20) | ((((ah << 1) | s.all) & 7u) << 16);
        s.hf = mt;
        cm_store_entry(t, raw + i * esz, s.v);
        memcpy(s.prev, s.v, sizeof s.prev);
        kl = tl;
    }
    /* a prefix leaves the rest of the streams unread: only an overrun so
     * far is known to be an error */
    if (err == ST_OK && stop < n && s.rc.overrun)
        err = st_diag_set(d, ST_E_CORRUPT, "id stream is corrupt or ends too early");
    if (err == ST_OK && stop == n && (s.rc.overrun || s.rc.pos != s.rc.len))
        err = st_diag_set(d, ST_E_CORRUPT, "id stream %s", s.rc.overrun ? "is corrupt or ends too early"
                                                                          : "has bytes left over");
    for (unsigned f = 0; f < F_COUNT && err == ST_OK && stop == n; f++)
        if (s.miss[f].bad || s.miss[f].pos != s.miss[f].len)
            err = st_diag_set(d, ST_E_CORRUPT, "%s stream %s", cm_names[CS_MISS0 + f],
                              s.miss[f].bad ? "ends too early" : "has bytes left over");
    st_buf_free(&so.arena);
    return err;
}

/* ---- per-type instances of the workers -------------------------------------
 * Thin wrappers pick the entry layout outside the per-entry loop, so entry
 * loads and stores compile to fixed-offset moves. */
typedef st_error (*enc_fn)(svpc_ctx *, const svpc_params *, st_entry_type, const uint8_t *, size_t, st_buf *);
typedef st_error (*dec_fn)(svpc_ctx *, st_entry_type, const uint8_t *, size_t, size_t, size_t, uint8_t *,
                           st_diag *);
#define DEFINE_CM(NAME, T, RK)                                                                                  \
    static st_error enc_##NAME(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw, size_t n, \
                               st_buf *out)                                                                   \
    {                                                                                                         \
        (void)t;                                                                                              \
        return encode_cm_T(c, p, T, RK, raw, n, out);                                                         \
    }                                                                                                         \
    static st_error dec_##NAME(svpc_ctx *c, st_entry_type t, const uint8_t *pl, size_t len, size_t n,          \
                               size_t stop, uint8_t *raw, st_diag *d)                                         \
    {                                                                                                         \
        (void)t;                                                                                              \
        return decode_cm_T(c, T, RK, pl, len, n, stop, raw, d);                                               \
    }
#define DEFINE_TYPED(T)                                                                                        \
    static st_error enc_paper_##T(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw,   \
                                  size_t n, st_buf *out)                                                    \
    {                                                                                                       \
        (void)t;                                                                                            \
        return encode_paper_T(c, p, T, raw, n, out);                                                        \
    }                                                                                                       \
    static st_error dec_paper_##T(svpc_ctx *c, st_entry_type t, const uint8_t *pl, size_t len, size_t n,    \
                                  size_t stop, uint8_t *raw, st_diag *d)                                    \
    {                                                                                                       \
        (void)t;                                                                                            \
        return decode_paper_T(c, T, pl, len, n, stop, raw, d);                                              \
    }                                                                                                       \
    DEFINE_CM(cm1_##T, T, RC_TWO_RATE)                                                                      \
    DEFINE_CM(cm_##T, T, RC_COUNTED)
DEFINE_TYPED(ST_TYPE_D64)
DEFINE_TYPED(ST_TYPE_D32)
DEFINE_TYPED(ST_TYPE_M64)
DEFINE_TYPED(ST_TYPE_M32)
/* vpc pairs through cm1 and cm (6.6 and 6.7 of SIMTRACE.md; the vpc encoder, 6.8, is below) */
DEFINE_CM(cm1_vpc, ST_TYPE_VPC, RC_TWO_RATE)
DEFINE_CM(cm_vpc, ST_TYPE_VPC, RC_COUNTED)

/* [type - ST_TYPE_D64: d64, d32, m64, m32, vpc][encoder - SVPC_ENC_PAPER] */
static const enc_fn enc_table[5][4] = {
    {enc_paper_ST_TYPE_D64, enc_cm1_ST_TYPE_D64, enc_cm_ST_TYPE_D64},
    {enc_paper_ST_TYPE_D32, enc_cm1_ST_TYPE_D32, enc_cm_ST_TYPE_D32},
    {enc_paper_ST_TYPE_M64, enc_cm1_ST_TYPE_M64, enc_cm_ST_TYPE_M64},
    {enc_paper_ST_TYPE_M32, enc_cm1_ST_TYPE_M32, enc_cm_ST_TYPE_M32},
    {NULL, enc_cm1_vpc, enc_cm_vpc}};
static const dec_fn dec_table[5][4] = {
    {dec_paper_ST_TYPE_D64, dec_cm1_ST_TYPE_D64, dec_cm_ST_TYPE_D64},
    {dec_paper_ST_TYPE_D32, dec_cm1_ST_TYPE_D32, dec_cm_ST_TYPE_D32},
    {dec_paper_ST_TYPE_M64, dec_cm1_ST_TYPE_M64, dec_cm_ST_TYPE_M64},
    {dec_paper_ST_TYPE_M32, dec_cm1_ST_TYPE_M32, dec_cm_ST_TYPE_M32},
    {NULL, dec_cm1_vpc, dec_cm_vpc}};

/* Row of a type supported by paper or cm in the tables above. */
static unsigned type_row(st_entry_type t) { return t == ST_TYPE_VPC ? 4 : (unsigned)(t - ST_TYPE_D64); }

/* ---- generic encoder: the raw bytes through the second stage ---------------- */

static const char *const generic_names[1] = {"raw"};

/* ---- vpc encoder (5): vpcx.c ------------------------------------------------------ */

static const char *const vx_names[VX_NSTREAMS] = {"flags and misses (range coded)", "pc misses"};
static const int vx_compress[VX_NSTREAMS] = {0, 1};

/* ---- entry points -------------------------------------------------------------- */

int svpc_encoder_supports(svpc_encoder enc, st_entry_type t)
{
    switch (enc) {
    case SVPC_ENC_GENERIC: return st_entry_size(t) != 0;
    case SVPC_ENC_PAPER:
    case SVPC_ENC_CM2: return st_entry_is_memory(t);
    case SVPC_ENC_CM1:
    case SVPC_ENC_CM: return st_entry_is_memory(t) || t == ST_TYPE_VPC;
    case SVPC_ENC_VPC: return t == ST_TYPE_VPC;
    default: return 0;
    }
}

int svpc_encoder_codes_as_fed(svpc_encoder enc) { return enc == SVPC_ENC_CM2; }

/* svpc_encode() and svpc_encode_source(): *n entries at raw when src is
 * NULL, else those src makes ready. */
static st_error encode_frame(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw,
                             const svpc_source *src, size_t *np, st_buf *out)
{
    if (src && !svpc_encoder_codes_as_fed(p->encoder)) {
        /* the other encoders look at a frame as a whole: wait for it */
        size_t k = 0, r;
        while ((r = src->more(src->arg, k)) > k && r <= SVPC_MAX_FRAME_ENTRIES)
            k = r;
        if (r > SVPC_MAX_FRAME_ENTRIES)
            return ST_E_USAGE;
        *np = k;
        src = NULL;
    }
    size_t esz = st_entry_size(t), n = src ? 0 : *np;
    if (!esz || n > SVPC_MAX_FRAME_ENTRIES || p->level < 1 || p->level > 9 || (unsigned)p->stage > SVPC_STAGE_ZLIB)
        return ST_E_USAGE;
    size_t start = out->len;
    st_error e;
    switch (p->encoder) {
    case SVPC_ENC_GENERIC:
        c->buf[0].len = 0;
        e = st_buf_append(&c->buf[0], raw, n * esz);
        if (e == ST_OK)
            e = pack_streams(c, p, generic_names, NULL, NULL, 1, out);
        break;
    case SVPC_ENC_PAPER:
    case SVPC_ENC_CM1:
    case SVPC_ENC_CM:
    case SVPC_ENC_CM2:
        if (!svpc_encoder_supports(p->encoder, t))
            return ST_E_USAGE;
        e = ctx_ready(c, p->encoder);
        if (e == ST_OK)
            e = p->encoder == SVPC_ENC_CM2 ? cm2_encode(c->set, c->cm2, t, raw, np, src, out)
                                            : enc_table[type_row(t)][p->encoder - SVPC_ENC_PAPER](c, p, t, raw, n, out);
        if (e == ST_OK && p->encoder == SVPC_ENC_CM2) {
            c->nstats = 1;
            c->stats[0] = (svpc_stream_stat){"entries (range coded)", out->len - start, out->len - start};
        }
        break;
    case SVPC_ENC_VPC:
        if (t != ST_TYPE_VPC)
            return ST_E_USAGE;
        for (unsigned i = 0; i < VX_NSTREAMS; i++)
            c->buf[i].len = 0;
        e = vpcx_encode(&c->vx, raw, n, c->buf);
        if (e == ST_OK)
            e = pack_streams(c, p, vx_names, vx_compress, NULL, VX_NSTREAMS, out);
        break;
    default:
        return ST_E_USAGE;
    }
    if (e != ST_OK)
        out->len = start;
    return e;
}

st_error svpc_encode(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw, size_t n,
                     st_buf *out)
{
    return encode_frame(c, p, t, raw, NULL, &n, out);
}

st_error svpc_encode_source(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw,
                            const svpc_source *src, size_t *n, st_buf *out)
{
    *n = 0;
    return encode_frame(c, p, t, raw, src, n, out);
}

st_error svpc_decode(svpc_ctx *c, svpc_encoder enc, st_entry_type t, const uint8_t *payload, size_t len, size_t n,
                     uint8_t *raw, st_diag *d)
{
    return svpc_decode_prefix(c, enc, t, payload, len, n, n, raw, d);
}

st_error svpc_decode_prefix(svpc_ctx *c, svpc_encoder enc, st_entry_type t, const uint8_t *payload, size_t len,
                            size_t n, size_t stop, uint8_t *raw, st_diag *d)
{
    size_t esz = st_entry_size(t);
    if (!esz)
        return st_diag_set(d, ST_E_UNSUPPORTED, "unknown entry type %d", (int)t);
    if (n > SVPC_MAX_FRAME_ENTRIES)
        return st_diag_set(d, ST_E_CORRUPT, "frame of %zu entries exceeds the limit", n);
    if (stop > n)
        return st_diag_set(d, ST_E_USAGE, "prefix of %zu entries of a frame of %zu", stop, n);
    switch (enc) {
    case SVPC_ENC_GENERIC: {
        size_t maxl = n * esz;
        ss_out so;
        st_error e = ss_unpack(payload, len, 1, &maxl, &so, d);
        if (e == ST_OK && so.len[0] != maxl)
            e = st_diag_set(d, ST_E_CORRUPT, "payload holds %zu bytes, frame needs %zu", so.len[0], maxl);
        if (e == ST_OK && stop)
            memcpy(raw, so.data[0], stop * esz);
        st_buf_free(&so.arena);
        return e;
    }
    case SVPC_ENC_PAPER:
    case SVPC_ENC_CM1:
    case SVPC_ENC_CM:
    case SVPC_ENC_CM2:
        if (!svpc_encoder_supports(enc, t))
            return st_diag_set(d, ST_E_UNSUPPORTED, "encoder %s does not code entries of type %s",
                               svpc_encoder_name(enc), st_entry_name(t));
        RETURN_IF_ERROR(ctx_ready(c, enc));
        if (enc == SVPC_ENC_CM2)
            return cm2_decode(c->set, c->cm2, t, payload, len, n, stop, raw, d);
        return dec_table[type_row(t)][enc - SVPC_ENC_PAPER](c, t, payload, len, n, stop, raw, d);
    case SVPC_ENC_VPC: {
        if (t != ST_TYPE_VPC)
            return st_diag_set(d, ST_E_UNSUPPORTED, "encoder vpc does not code entries of type %s", st_entry_name(t));
        size_t maxl[VX_NSTREAMS] = {VX_RC_MAX_PER_ENTRY * n + 64, 4 * n};
        ss_out so;
        st_error e = ss_unpack(payload, len, VX_NSTREAMS, maxl, &so, d);
        if (e == ST_OK)
            e = vpcx_decode(&c->vx, so.data, so.len, n, stop, raw, d);
        st_buf_free(&so.arena);
        return e;
    }
    default:
        return st_diag_set(d, ST_E_UNSUPPORTED, "unknown encoder %d", (int)enc);
    }
}
