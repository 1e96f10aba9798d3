/*
 * paper.c - the paper entry encoder (2): SVPC exactly as published
 * (Simutrace white paper, Sect. 3.3, Table 1), kept for comparison
 * (SIMTRACE.md 6.3).  One byte per predictor id, unpredicted values
 * verbatim, meta verbatim, each stream through the second stage.
 */
#include <string.h>

#include "codec.h"

/* Streams: ids of ip, cycle, address, data (1 byte per entry each), meta
 * (2 bytes per entry), then the unpredicted values of ip, cycle, address,
 * data (8 bytes each for cycle; 4 or 8 for the others by entry width).  */
enum { PS_ID_IP, PS_ID_CYCLE, PS_ID_ADDR, PS_ID_DATA, PS_META, PS_MISS_IP, PS_MISS_CYCLE, PS_MISS_ADDR,
       PS_MISS_DATA, PS_COUNT };
static const char *const paper_names[PS_COUNT] = {"ip ids",       "cycle ids",   "address ids",
                                                  "data ids",     "meta",        "ip misses",
                                                  "cycle misses", "address misses", "data misses"};
static const unsigned paper_fields[4] = {F_IP, F_CYCLE, F_ADDR, F_DATA};

ST_INLINE st_error encode_paper_T(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw, size_t n,
                             st_buf *out)
{
    size_t esz = st_entry_size(t);
    int hasd = st_entry_has_data(t);
    unsigned nf = hasd ? 4 : 3;
    size_t caps[PS_COUNT] = {n, n, n, hasd ? n : 0, 2 * n, 8 * n, 8 * n, 8 * n, hasd ? 8 * n : 0};
    RETURN_IF_ERROR(svpc_streams_reserve(c, caps, PS_COUNT));
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
    return svpc_streams_pack(c, p, paper_names, NULL, NULL, PS_COUNT, out);
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
            if (v[f] & ~cm_mask_T(f, t)) {
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


/* Per-type instances: the entry layout is a constant of each. */
#define PAPER_TYPES(X) X(ST_TYPE_D64) X(ST_TYPE_D32) X(ST_TYPE_M64) X(ST_TYPE_M32)
#define AS_CASE_ENC(T) \
    case T: return encode_paper_T(c, p, T, raw, *n, out);
#define AS_CASE_DEC(T) \
    case T: return decode_paper_T(c, T, payload, len, n, stop, raw, d);

static st_error paper_encode(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw,
                             const svpc_source *src, size_t *n, st_buf *out)
{
    (void)src;
    RETURN_IF_ERROR(svpc_sets_ready(c, FAM_PAPER));
    switch (t) {
        PAPER_TYPES(AS_CASE_ENC)
    default: return ST_E_USAGE;
    }
}

static st_error paper_decode(svpc_ctx *c, st_entry_type t, const uint8_t *payload, size_t len, size_t n, size_t from, size_t stop,
                             uint8_t *raw, st_diag *d)
{
    (void)from; /* every entry is stored */
    RETURN_IF_ERROR(svpc_sets_ready(c, FAM_PAPER));
    switch (t) {
        PAPER_TYPES(AS_CASE_DEC)
    default: return st_diag_set(d, ST_E_UNSUPPORTED, "encoder paper does not code entries of type %s", st_entry_name(t));
    }
}

static int paper_supports(st_entry_type t) { return st_entry_is_memory(t); }
static size_t paper_memory(void) { return svpc_sets_memory(FAM_PAPER); }

const svpc_codec svpc_codec_paper = {SVPC_ENC_PAPER, "paper", paper_supports, paper_memory, 0,
                                     paper_encode,   paper_decode, NULL};
