/*
 * codec.h - the codec table's shape, internal to svpc/ (as liblzma's
 * encoders[] and decoders[]).  Each encoder is one descriptor in one file
 * (generic.c, paper.c, cm.c for cm1 and cm, vpcx.c, cm2.c), and
 * svpc_codec.c's table lists them; svpc.h's entry points look an encoder
 * up there and hold no switch over encoders of their own.  This header
 * also holds what the encoders' files share: the context, the internal
 * streams through the second stage, and little-endian miss bytes.
 */
#ifndef SVPC_CODEC_H
#define SVPC_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../vpc/vpc.h"
#include "fields.h"
#include "stage2.h"
#include "svpc.h"

struct svpc_ctx {
    vpc_set set[F_COUNT];
    int sets_fam;                       /* the predictor family whose sets are allocated (fields.h); -1: none */
    void *model[SVPC_ENC_LAST + 1];     /* each encoder's own model, allocated on first use */
    size_t model_size[SVPC_ENC_LAST + 1]; /* its bytes, when svpc_model() allocated it */
    st_buf buf[SS_MAX_STREAMS];         /* the internal streams of an encoder that has them */
    svpc_stream_stat stats[SS_MAX_STREAMS];
    unsigned nstats;
};

typedef struct {
    svpc_encoder id;
    const char *name;
    /* 1 if it codes entries of type t (svpc_encoder_supports()) */
    int (*supports)(st_entry_type t);
    /* bytes its model and predictor tables take in a context */
    size_t (*memory)(void);
    /* 1 if encode() codes entries as a source makes them ready; the
     * others get a whole frame */
    int codes_as_fed;
    /* Encode *n entries of a supported type t at raw, appending the
     * payload to out; with src (codes_as_fed only), those src makes
     * ready, their number then set in *n.  p's stage and level are
     * checked.  On failure out may hold part of a payload: the caller cuts
     * it off. */
    st_error (*encode)(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw,
                       const svpc_source *src, size_t *n, st_buf *out);
    /* svpc_decode_part() for a supported type, n, from and stop checked.
     * Entries 1..from-1 need not be stored (svpc_decode_part); those that
     * keep nothing but their predictors' state skip the stores. */
    st_error (*decode)(svpc_ctx *c, st_entry_type t, const uint8_t *payload, size_t len, size_t n, size_t from,
                       size_t stop, uint8_t *raw, st_diag *d);
    /* frees c->model[id] and what it holds; NULL: it is svpc_model()'s
     * and holds nothing else (svpc_ctx_free frees it) */
    void (*model_free)(void *model);
} svpc_codec;

extern const svpc_codec svpc_codec_generic, svpc_codec_paper, svpc_codec_cm1, svpc_codec_cm, svpc_codec_vpc,
    svpc_codec_cm2;
extern const svpc_codec svpc_codec_cvp;
extern const svpc_codec svpc_codec_fast;
extern const svpc_codec svpc_codec_drmemtrace, svpc_codec_drmx;
extern const svpc_codec svpc_codec_champsim;
extern const svpc_codec svpc_codec_best;
extern const svpc_codec svpc_codec_mix;
extern const svpc_codec svpc_codec_cmx;

/* Whether a decoder keeps entry i of a part from `from` on
 * (svpc_decode_part): entry 0, for the header's first cycle, and those
 * asked for. */
static inline int svpc_part_keeps(size_t i, size_t from) { return i >= from || i == 0; }

/* The predictor sets of family fam, fresh for a new frame. */
static inline st_error svpc_sets_ready(svpc_ctx *c, int fam) { return field_sets_ready(c->set, &c->sets_fam, fam); }

/* The memory of family fam's predictor sets. */
static inline size_t svpc_sets_memory(int fam)
{
    size_t total = 0;
    for (unsigned f = 0; f < F_COUNT; f++)
        total += vpc_set_memory(field_cfg[fam][f].cfg, field_cfg[fam][f].n);
    return total;
}

/* c->model[id] of `size` bytes, allocated zeroed on first use; freed
 * with st_table_free(model, c->model_size[id]).  st_table_alloc: from
 * 1 MiB in huge pages, since models are touched at random; in 4 KiB pages
 * a decoder of a few hundred thousand records spent about a seventh of
 * its time in page faults (champsim on the corpus's hello_pin317: 33.8
 * against 29.3 ms, 3,137 against 686 faults; doc/BENCHMARKS.md). */
static inline st_error svpc_model(svpc_ctx *c, svpc_encoder id, size_t size, void **out)
{
    if (!c->model[id]) {
        if (!(c->model[id] = st_table_alloc(size)))
            return ST_E_NOMEM;
        c->model_size[id] = size;
    }
    *out = c->model[id];
    return ST_OK;
}

/* Internal streams: c->buf[0..k-1] emptied, with room for caps[i] bytes. */
st_error svpc_streams_reserve(svpc_ctx *c, const size_t *caps, unsigned k);

/* c->buf[0..k-1] through the second stage into out (stage2.h: compress[i]
 * 0 stores stream i; lzma_props per stream, NULL for the preset's), and
 * their names and sizes as svpc_last_stats()'s. */
st_error svpc_streams_pack(svpc_ctx *c, const svpc_params *p, const char *const *names, const int *compress,
                           const unsigned *lzma_props, unsigned k, st_buf *out);

/* The last encode's one stream, for svpc_last_stats(): a payload of `bytes`. */
static inline void svpc_stats_one(svpc_ctx *c, const char *name, uint64_t bytes)
{
    c->nstats = 1;
    c->stats[0] = (svpc_stream_stat){name, bytes, bytes};
}

/* Whether entry i of a frame being encoded is there: *ready counts the
 * entries known to be ready (all of them without src); when they run out,
 * src (svpc_source) is asked for more.  0 at the frame's end, where a
 * *ready above SVPC_MAX_FRAME_ENTRIES says the source passed the limit. */
static inline int svpc_entry_ready(const svpc_source *src, size_t i, size_t *ready)
{
    return i < *ready || (src && (*ready = src->more(src->arg, i)) > i && *ready <= SVPC_MAX_FRAME_ENTRIES);
}

/* ---- miss bytes: least significant first ---------------------------------- */

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

/* A miss of nb bytes must need all of them: its top byte is not 0. */
static inline int canonical(uint64_t r, unsigned nb) { return nb == 0 || (r >> (8 * (nb - 1))) != 0; }

/* Bytes of a verbatim miss of field f: cycle 8, the others the entry's
 * width (a constant for a constant type, unlike st_entry_is_wide()). */
static inline unsigned miss_width(unsigned f, st_entry_type t)
{
    return (f == F_CYCLE || t == ST_TYPE_D64 || t == ST_TYPE_M64) ? 8 : 4;
}

#endif /* SVPC_CODEC_H */
