/*
 * fast.c - the fast entry encoder (7): SIMTRACE.md 6.10, level -1.
 *
 * cm2 reads at about 1,150 instructions an entry, half of them in
 * fourteen predictors whose tables miss the cache.  This encoder trades
 * size for speed: a few predictors per field in two small tables (a line
 * per hashed ip, 256 KiB, and the last value per hashed address, 128 KiB)
 * that stay in the cache; one id byte per entry saying which candidate
 * each field took; and the misses in byte-aligned streams, one per field,
 * each through zstd, whose decoder runs at memory speed.  The level sets
 * zstd's effort alone, so every level decodes alike.
 *
 * One template codes and decodes (ENC a constant): the candidates, their
 * order and the table updates are written once.
 */
#include <string.h>
#include <zstd.h>

#include "codec.h"

#define FAST_IP_BITS 12
#define FAST_MEM_BITS 16
/* varints and fixed misses read past a stream's end land in this many
 * zero bytes, checked after the read: no bound check before each byte */
#define FAST_PAD 16

/* What the last entry at a hashed ip left: one cache line. */
typedef struct {
    uint64_t next[2]; /* the ips that followed this one, latest first */
    uint64_t addr, astride;
    uint64_t data, dstride;
    uint64_t cdelta; /* cycle minus the previous entry's cycle */
    uint64_t meta;
} fast_line;

typedef struct {
    fast_line line[1u << FAST_IP_BITS];
    uint64_t mem[1u << FAST_MEM_BITS]; /* the data last seen at a hashed address */
    ZSTD_CCtx *cctx;
    ZSTD_DCtx *dctx;
} fast_model;

/* Streams: the id byte of every entry, then the misses of each field. */
enum { FS_IDS, FS_IP, FS_ADDR, FS_DATA, FS_FORM, FS_CYCLE, FS_META, FS_COUNT };
static const char *const fast_names[FS_COUNT] = {"ids",        "ip misses",    "address misses", "data misses",
                                                 "data forms", "cycle misses", "meta misses"};

/* The id byte: 2 bits each for ip, address and data (candidate 0..2, or 3:
 * a miss), a bit each for cycle and meta (candidate, or a miss). */
#define FAST_MISS2 3u
#define ID_IP(b) ((b) & 3u)
#define ID_ADDR(b) (((b) >> 2) & 3u)
#define ID_DATA(b) (((b) >> 4) & 3u)
#define ID_CYCLE(b) (((b) >> 6) & 1u)
#define ID_META(b) ((b) >> 7)

/* zstd's level for svpc level 1..9: effort at writing, nothing at reading */
static const int fast_zstd_level[10] = {0, 5, 7, 9, 12, 15, 17, 18, 19, 19};

static inline unsigned fast_hash(uint64_t v, unsigned bits)
{
    return (unsigned)((v * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - bits));
}

static inline uint64_t zigzag(uint64_t d) { return (d << 1) ^ (uint64_t)((int64_t)d >> 63); }
static inline uint64_t unzigzag(uint64_t z) { return (z >> 1) ^ (0 - (z & 1)); }

static inline void put_varint(uint8_t **p, uint64_t v)
{
    while (v >= 0x80) {
        *(*p)++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *(*p)++ = (uint8_t)v;
}

/* A stream being read; pos may pass len by at most FAST_PAD - 1 bytes
 * into the zero padding, which the caller checks after each miss. */
typedef struct {
    const uint8_t *p;
    size_t pos, len;
} fast_rd;

static inline uint64_t get_varint(fast_rd *r)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        uint8_t b = r->p[r->pos++];
        v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80))
            return v;
    }
    r->pos = r->len + 1; /* longer than 10 bytes: corrupt */
    return 0;
}

static inline uint64_t get_fixed(fast_rd *r, unsigned nbytes)
{
    uint64_t v = 0;
    for (unsigned k = 0; k < nbytes; k++)
        v |= (uint64_t)r->p[r->pos + k] << (8 * k);
    r->pos += nbytes;
    return v;
}

/* Field bounds of a type: ip, address and data are 4 or 8 bytes. */
ST_INLINE uint64_t fast_mask(st_entry_type t)
{
    return (t == ST_TYPE_D64 || t == ST_TYPE_M64) ? UINT64_MAX : UINT32_MAX;
}

/* The bytes of a data miss's value half that its size field covers: an
 * access narrower than the value half (fullSize 0, size 1..half) stores
 * (size << half bits) | value, as the ip's last data (ref) says the size
 * is; the whole half otherwise.  A miss whose size half is ref's and
 * whose value fits these bytes is written as them alone (form 0), others
 * whole (form 1). */
ST_INLINE unsigned fast_value_bytes(st_entry_type t, uint64_t meta16, uint64_t ref)
{
    const unsigned half = (t == ST_TYPE_D64 || t == ST_TYPE_M64) ? 4 : 2;
    const uint64_t size = ref >> (8 * half);
    return !(meta16 & 1) && size >= 1 && size < half ? (unsigned)size : half;
}

/* Largest miss bytes of n entries per stream (also the decoder's bounds). */
ST_INLINE void fast_caps(st_entry_type t, size_t n, size_t caps[FS_COUNT])
{
    const unsigned w = fast_mask(t) == UINT64_MAX ? 8 : 4;
    caps[FS_IDS] = n;
    caps[FS_IP] = caps[FS_ADDR] = 10 * n;
    caps[FS_DATA] = st_entry_has_data(t) ? w * n : 0;
    caps[FS_FORM] = st_entry_has_data(t) ? n : 0;
    caps[FS_CYCLE] = 7 * n;
    caps[FS_META] = 2 * n;
}

/* The predictors' pass over entries 0..stop-1: ENC 1 picks ids and writes
 * misses to out[] from raw; ENC 0 reads them from in[] and writes raw.
 * Returns the index of the first entry it could not decode (stop if
 * none): a miss stream that ran out, or a value wider than its field. */
ST_INLINE size_t fast_pass_T(fast_model *m, const int ENC, st_entry_type t, uint8_t *raw, size_t stop,
                             uint8_t *out[FS_COUNT], fast_rd in[FS_COUNT])
{
    const size_t esz = st_entry_size(t);
    const int hasd = st_entry_has_data(t);
    const uint64_t mask = fast_mask(t);
    const unsigned dw = mask == UINT64_MAX ? 8 : 4;
    uint64_t pip = 0, paddr = 0, pcycle = 0;
    fast_line *lp = &m->line[0];
    for (size_t i = 0; i < stop; i++) {
        st_entry e;
        unsigned ids = 0;
        if (ENC)
            st_entry_load(t, raw + i * esz, &e);
        else
            ids = in[FS_IDS].p[i];

        /* ip: what followed the previous entry's ip, latest first, or the same ip */
        const uint64_t cip[3] = {lp->next[0], lp->next[1], pip};
        if (ENC) {
            unsigned id = e.ip == cip[0] ? 0 : e.ip == cip[1] ? 1 : e.ip == cip[2] ? 2 : FAST_MISS2;
            if (id == FAST_MISS2)
                put_varint(&out[FS_IP], zigzag(e.ip - pip));
            ids = id;
        } else {
            unsigned id = ID_IP(ids);
            e.ip = id == FAST_MISS2 ? pip + unzigzag(get_varint(&in[FS_IP])) : cip[id];
        }
        fast_line *l = &m->line[fast_hash(e.ip, FAST_IP_BITS)];

        /* address: the ip's last plus its stride, the ip's last, the previous entry's */
        const uint64_t caddr[3] = {l->addr + l->astride, l->addr, paddr};
        if (ENC) {
            unsigned id = e.addr == caddr[0] ? 0 : e.addr == caddr[1] ? 1 : e.addr == caddr[2] ? 2 : FAST_MISS2;
            if (id == FAST_MISS2)
                put_varint(&out[FS_ADDR], zigzag(e.addr - l->addr));
            ids |= id << 2;
        } else {
            unsigned id = ID_ADDR(ids);
            e.addr = id == FAST_MISS2 ? l->addr + unzigzag(get_varint(&in[FS_ADDR])) : caddr[id];
        }
        uint64_t *mem = &m->mem[fast_hash(e.addr, FAST_MEM_BITS)];

        /* meta: the ip's last */
        if (ENC) {
            if (e.meta16 != l->meta) {
                put_le(&out[FS_META], e.meta16, 2);
                ids |= 1u << 7;
            }
        } else {
            e.meta16 = ID_META(ids) ? get_fixed(&in[FS_META], 2) : l->meta;
        }

        /* data: the ip's last, the address's last, the ip's last plus its
         * stride; a miss, in its form (fast_value_bytes) */
        if (hasd) {
            const uint64_t cdata[3] = {l->data, *mem, l->data + l->dstride};
            if (ENC) {
                unsigned id = e.data == cdata[0]   ? 0
                              : e.data == cdata[1] ? 1
                              : e.data == cdata[2] ? 2
                                                   : FAST_MISS2;
                if (id == FAST_MISS2) {
                    const unsigned nb = fast_value_bytes(t, e.meta16, l->data);
                    const int compact = ((e.data ^ (l->data >> (4 * dw) << (4 * dw))) >> (8 * nb)) == 0;
                    *out[FS_FORM]++ = (uint8_t)!compact;
                    put_le(&out[FS_DATA], e.data, compact ? nb : dw);
                }
                ids |= id << 4;
            } else {
                unsigned id = ID_DATA(ids);
                if (id == FAST_MISS2) {
                    const unsigned nb = fast_value_bytes(t, e.meta16, l->data);
                    const uint8_t form = in[FS_FORM].p[in[FS_FORM].pos++];
                    e.data = form == 0   ? get_fixed(&in[FS_DATA], nb) | (l->data >> (4 * dw) << (4 * dw))
                             : form == 1 ? get_fixed(&in[FS_DATA], dw)
                                         : (in[FS_FORM].pos = in[FS_FORM].len + 1, 0);
                } else {
                    e.data = cdata[id];
                }
            }
        } else {
            e.data = 0;
        }

        /* cycle: the previous entry's plus the step last seen at this ip */
        const uint64_t ccycle = (pcycle + l->cdelta) & ST_CYCLE_MASK;
        if (ENC) {
            if (e.cycle != ccycle) {
                put_varint(&out[FS_CYCLE], (e.cycle - pcycle) & ST_CYCLE_MASK);
                ids |= 1u << 6;
            }
        } else {
            e.cycle = ID_CYCLE(ids) ? (pcycle + get_varint(&in[FS_CYCLE])) & ST_CYCLE_MASK : ccycle;
        }
        if (ENC) {
            *out[FS_IDS]++ = (uint8_t)ids;
        } else {
            /* a miss stream that ran out reads zero padding: found here,
             * as a value the encoder could not have written */
            int bad = ((e.ip | e.addr | e.data) & ~mask) != 0 || e.cycle > ST_CYCLE_MASK;
            for (unsigned s = FS_IP; s < FS_COUNT; s++)
                bad |= in[s].pos > in[s].len;
            if (bad)
                return i;
            st_entry_store(t, raw + i * esz, &e);
        }

        if (lp->next[0] != e.ip) {
            lp->next[1] = lp->next[0];
            lp->next[0] = e.ip;
        }
        l->astride = e.addr - l->addr;
        l->addr = e.addr;
        l->dstride = e.data - l->data;
        l->data = e.data;
        *mem = e.data;
        l->cdelta = (e.cycle - pcycle) & ST_CYCLE_MASK;
        l->meta = e.meta16;
        pip = e.ip;
        paddr = e.addr;
        pcycle = e.cycle;
        lp = l;
    }
    return stop;
}

/* The model, its tables fresh for a frame. */
static st_error fast_ready(svpc_ctx *c, fast_model **out)
{
    void *p;
    /* (a model just made is zeroed: no zstd contexts yet) */
    RETURN_IF_ERROR(svpc_model(c, SVPC_ENC_FAST, sizeof(fast_model), &p));
    fast_model *m = p;
    memset(m->line, 0, sizeof m->line);
    memset(m->mem, 0, sizeof m->mem);
    *out = m;
    return ST_OK;
}

static void fast_model_free(void *p)
{
    fast_model *m = p;
    ZSTD_freeCCtx(m->cctx);
    ZSTD_freeDCtx(m->dctx);
    st_table_free(m, sizeof *m);
}

/* Payload: u8 stream count (6), then per stream u32 raw length and u32
 * stored length (equal: stored as it is; else one zstd frame), then the
 * streams. */
#define FAST_HEADER (1 + 8 * FS_COUNT)

#define FAST_TYPES(X) X(ST_TYPE_D64) X(ST_TYPE_D32) X(ST_TYPE_M64) X(ST_TYPE_M32)
#define AS_CASE_ENC(T)                                                                                        \
    case T: fast_pass_T(m, 1, T, (uint8_t *)(uintptr_t)raw, *n, w, NULL); break;
#define AS_CASE_DEC(T)                                                                                        \
    case T: done = fast_pass_T(m, 0, T, raw, stop, NULL, in); break;

static st_error fast_encode(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw,
                            const svpc_source *src, size_t *n, st_buf *out)
{
    (void)src;
    fast_model *m;
    RETURN_IF_ERROR(fast_ready(c, &m));
    if (!m->cctx && !(m->cctx = ZSTD_createCCtx()))
        return ST_E_NOMEM;
    size_t caps[FS_COUNT];
    fast_caps(t, *n, caps);
    RETURN_IF_ERROR(svpc_streams_reserve(c, caps, FS_COUNT));
    uint8_t *w[FS_COUNT];
    for (unsigned s = 0; s < FS_COUNT; s++)
        w[s] = c->buf[s].data;
    switch (t) {
        FAST_TYPES(AS_CASE_ENC)
    default: return ST_E_USAGE;
    }
    size_t bound = FAST_HEADER;
    for (unsigned s = 0; s < FS_COUNT; s++) {
        c->buf[s].len = (size_t)(w[s] - c->buf[s].data);
        bound += ZSTD_compressBound(c->buf[s].len);
    }
    RETURN_IF_ERROR(st_buf_reserve(out, out->len + bound));
    uint8_t *head = out->data + out->len, *o = head + FAST_HEADER;
    head[0] = FS_COUNT;
    const int zl = fast_zstd_level[p->level];
    c->nstats = FS_COUNT;
    for (unsigned s = 0; s < FS_COUNT; s++) {
        const size_t len = c->buf[s].len;
        size_t z = len ? ZSTD_compressCCtx(m->cctx, o, ZSTD_compressBound(len), c->buf[s].data, len, zl) : 0;
        if (ZSTD_isError(z))
            return ST_E_INTERNAL;
        if (z >= len) { /* zstd did not make it smaller: stored */
            memcpy(o, c->buf[s].data, len);
            z = len;
        }
        st_store32(head + 1 + 8 * s, (uint32_t)len);
        st_store32(head + 5 + 8 * s, (uint32_t)z);
        o += z;
        c->stats[s] = (svpc_stream_stat){fast_names[s], len, z};
    }
    out->len = (size_t)(o - out->data);
    return ST_OK;
}

static st_error fast_decode(svpc_ctx *c, st_entry_type t, const uint8_t *payload, size_t len, size_t n,
                            size_t from, size_t stop, uint8_t *raw, st_diag *d)
{
    /* every entry is stored: a test in fast_pass_T's loop cost 1.9% of
     * decoding 1 GiB, and fast's frames of 2^18 entries leave less to save */
    (void)from;
    fast_model *m;
    RETURN_IF_ERROR(fast_ready(c, &m));
    if (!m->dctx && !(m->dctx = ZSTD_createDCtx()))
        return ST_E_NOMEM;
    size_t caps[FS_COUNT], rawlen[FS_COUNT], stored[FS_COUNT], total = 0, at = FAST_HEADER;
    fast_caps(t, n, caps);
    if (len < FAST_HEADER || payload[0] != FS_COUNT)
        return st_diag_set(d, ST_E_CORRUPT, "fast payload header: %s",
                           len < FAST_HEADER ? "cut short" : "stream count is not 6");
    for (unsigned s = 0; s < FS_COUNT; s++) {
        rawlen[s] = st_load32(payload + 1 + 8 * s);
        stored[s] = st_load32(payload + 5 + 8 * s);
        if (rawlen[s] > caps[s] || stored[s] > rawlen[s] || stored[s] > len - at)
            return st_diag_set(d, ST_E_CORRUPT, "fast %s stream: %zu bytes stored of %zu (at most %zu, %zu left)",
                               fast_names[s], stored[s], rawlen[s], caps[s], len - at);
        at += stored[s];
        total += rawlen[s] + FAST_PAD;
    }
    if (at != len)
        return st_diag_set(d, ST_E_CORRUPT, "fast payload has %zu bytes after its streams", len - at);
    if (rawlen[FS_IDS] != n)
        return st_diag_set(d, ST_E_CORRUPT, "fast ids stream holds %zu bytes, expected %zu", rawlen[FS_IDS], n);
    st_buf arena;
    st_buf_init(&arena, 0);
    RETURN_IF_ERROR(st_buf_reserve(&arena, total));
    fast_rd in[FS_COUNT];
    st_error err = ST_OK;
    uint8_t *a = arena.data;
    at = FAST_HEADER;
    for (unsigned s = 0; s < FS_COUNT && err == ST_OK; s++) {
        if (stored[s] == rawlen[s]) {
            memcpy(a, payload + at, rawlen[s]);
        } else {
            size_t r = ZSTD_decompressDCtx(m->dctx, a, rawlen[s], payload + at, stored[s]);
            if (ZSTD_isError(r) || r != rawlen[s])
                err = st_diag_set(d, ST_E_SECOND_STAGE, "fast %s stream: %s", fast_names[s],
                                  ZSTD_isError(r) ? ZSTD_getErrorName(r) : "shorter than its stated length");
        }
        memset(a + rawlen[s], 0, FAST_PAD);
        in[s] = (fast_rd){a, 0, rawlen[s]};
        at += stored[s];
        a += rawlen[s] + FAST_PAD;
    }
    size_t done = stop;
    if (err == ST_OK)
        switch (t) {
            FAST_TYPES(AS_CASE_DEC)
        default: err = st_diag_set(d, ST_E_UNSUPPORTED, "encoder fast does not code entries of type %s",
                                   st_entry_name(t));
        }
    if (err == ST_OK && done < stop)
        err = st_diag_set(d, ST_E_CORRUPT, "entry %zu: a miss stream ends too early or a value is wider than its field",
                          done);
    /* a prefix leaves the rest of the streams unread, unchecked */
    for (unsigned s = FS_IP; s < FS_COUNT && err == ST_OK && stop == n; s++)
        if (in[s].pos != in[s].len)
            err = st_diag_set(d, ST_E_CORRUPT, "fast %s stream has bytes left over", fast_names[s]);
    st_buf_free(&arena);
    return err;
}

static int fast_supports(st_entry_type t) { return st_entry_is_memory(t); }
/* a zstd decoding context: ZSTD_sizeof_DCtx() of one that decoded a
 * frame, 95,992 bytes with Debian's zstd 1.5.4, rounded up (its size
 * estimate is not in the stable API) */
#define FAST_DCTX_BYTES (128u << 10)
static size_t fast_memory(void) { return sizeof(fast_model) + FAST_DCTX_BYTES; }

const svpc_codec svpc_codec_fast = {SVPC_ENC_FAST, "fast", fast_supports, fast_memory, 0,
                                    fast_encode,   fast_decode, fast_model_free};
