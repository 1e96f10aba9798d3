/*
 * svpc_codec.c - svpc.h's entry points over the codec table.
 *
 * Each encoder is one descriptor (codec.h) in a file of its own; this
 * file lists them, looks the frame's encoder up, and checks what every
 * encoder would otherwise check for itself: the type, the frame's size,
 * the stage and level.  Adding an encoder is one file and one line of
 * svpc_codecs[].
 */
#include <stdlib.h>
#include <string.h>

#include "codec.h"

/* [id]: every encoder that can be read, by the id frames store */
static const svpc_codec *const svpc_codecs[SVPC_ENC_LAST + 1] = {
    [SVPC_ENC_GENERIC] = &svpc_codec_generic, [SVPC_ENC_PAPER] = &svpc_codec_paper,
    [SVPC_ENC_CM1] = &svpc_codec_cm1,         [SVPC_ENC_CM] = &svpc_codec_cm,
    [SVPC_ENC_VPC] = &svpc_codec_vpc,         [SVPC_ENC_CM2] = &svpc_codec_cm2,
    [SVPC_ENC_CVP] = &svpc_codec_cvp,
    [SVPC_ENC_FAST] = &svpc_codec_fast,
    [SVPC_ENC_DRMEMTRACE] = &svpc_codec_drmemtrace,
    [SVPC_ENC_DRMX] = &svpc_codec_drmx,
    [SVPC_ENC_CHAMPSIM] = &svpc_codec_champsim,
    [SVPC_ENC_BEST] = &svpc_codec_best,
    [SVPC_ENC_MIX] = &svpc_codec_mix,
    [SVPC_ENC_CMX] = &svpc_codec_cmx,
};

/* The descriptor of encoder e, or NULL. */
static const svpc_codec *codec_of(svpc_encoder e)
{
    return (unsigned)e <= SVPC_ENC_LAST ? svpc_codecs[e] : NULL;
}

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
    for (unsigned e = 0; e <= SVPC_ENC_LAST; e++)
        if (c->model[e]) {
            const svpc_codec *k = codec_of((svpc_encoder)e);
            if (k->model_free)
                k->model_free(c->model[e]);
            else
                st_table_free(c->model[e], c->model_size[e]);
        }
    free(c);
}

size_t svpc_ctx_memory(svpc_encoder enc)
{
    const svpc_codec *k = codec_of(enc);
    return k ? k->memory() : 0;
}

size_t svpc_ctx_memory_max(void)
{
    size_t most = 0;
    for (unsigned e = 0; e <= SVPC_ENC_LAST; e++) {
        size_t m = svpc_ctx_memory((svpc_encoder)e);
        most = m > most ? m : most;
    }
    return most;
}

int svpc_encoder_supports(svpc_encoder enc, st_entry_type t)
{
    const svpc_codec *k = codec_of(enc);
    return k && k->supports(t);
}

int svpc_encoder_codes_as_fed(svpc_encoder enc)
{
    const svpc_codec *k = codec_of(enc);
    return k && k->codes_as_fed;
}

/* ---- names --------------------------------------------------------------- */

static const char *const stage_names[] = {"none", "lzma", "bzip2", "zlib"};

const char *svpc_stage_name(svpc_stage s) { return (unsigned)s <= SVPC_STAGE_ZLIB ? stage_names[s] : NULL; }

int svpc_stage_parse(const char *name, svpc_stage *out)
{
    for (unsigned i = 0; i <= SVPC_STAGE_ZLIB; i++)
        if (strcmp(name, stage_names[i]) == 0) {
            *out = (svpc_stage)i;
            return 1;
        }
    return 0;
}

const char *svpc_encoder_name(svpc_encoder e)
{
    const svpc_codec *k = codec_of(e);
    return k ? k->name : NULL;
}

int svpc_encoder_parse(const char *name, svpc_encoder *out)
{
    for (unsigned e = 0; e <= SVPC_ENC_LAST; e++)
        if (svpc_codecs[e] && strcmp(name, svpc_codecs[e]->name) == 0) {
            *out = (svpc_encoder)e;
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

/* ---- internal streams (codec.h) --------------------------------------------- */

st_error svpc_streams_reserve(svpc_ctx *c, const size_t *caps, unsigned k)
{
    for (unsigned i = 0; i < k; i++) {
        c->buf[i].len = 0;
        RETURN_IF_ERROR(st_buf_reserve(&c->buf[i], caps[i] ? caps[i] : 1));
    }
    return ST_OK;
}

st_error svpc_streams_pack(svpc_ctx *c, const svpc_params *p, const char *const *names, const int *compress,
                           const unsigned *lzma_props, unsigned k, st_buf *out)
{
    ss_in in[SS_MAX_STREAMS] = {{0}};
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

/* ---- entry points -------------------------------------------------------------- */

/* svpc_encode() and svpc_encode_source(): *n entries at raw when src is
 * NULL, else those src makes ready. */
static st_error encode_frame(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw,
                             const svpc_source *src, size_t *np, st_buf *out)
{
    const svpc_codec *k = codec_of(p->encoder);
    if (!k || !k->supports(t) || p->level < 1 || p->level > 9 || (unsigned)p->stage > SVPC_STAGE_ZLIB)
        return ST_E_USAGE;
    if (src && !k->codes_as_fed) {
        /* the other encoders look at a frame as a whole: wait for it */
        size_t have = 0, r;
        while ((r = src->more(src->arg, have)) > have && r <= SVPC_MAX_FRAME_ENTRIES)
            have = r;
        if (r > SVPC_MAX_FRAME_ENTRIES)
            return ST_E_USAGE;
        *np = have;
        src = NULL;
    }
    if (!src && *np > SVPC_MAX_FRAME_ENTRIES)
        return ST_E_USAGE;
    const size_t start = out->len;
    st_error e = k->encode(c, p, t, raw, src, np, out);
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
    return svpc_decode_part(c, enc, t, payload, len, n, 0, stop, raw, d);
}

st_error svpc_decode_part(svpc_ctx *c, svpc_encoder enc, st_entry_type t, const uint8_t *payload, size_t len,
                          size_t n, size_t from, size_t stop, uint8_t *raw, st_diag *d)
{
    if (!st_entry_size(t))
        return st_diag_set(d, ST_E_UNSUPPORTED, "unknown entry type %d", (int)t);
    if (n > SVPC_MAX_FRAME_ENTRIES)
        return st_diag_set(d, ST_E_CORRUPT, "frame of %zu entries exceeds the limit", n);
    if (stop > n)
        return st_diag_set(d, ST_E_USAGE, "prefix of %zu entries of a frame of %zu", stop, n);
    if (from > stop)
        return st_diag_set(d, ST_E_USAGE, "part from entry %zu of a prefix of %zu", from, stop);
    const svpc_codec *k = codec_of(enc);
    if (!k)
        return st_diag_set(d, ST_E_UNSUPPORTED, "unknown encoder %d", (int)enc);
    if (!k->supports(t))
        return st_diag_set(d, ST_E_UNSUPPORTED, "encoder %s does not code entries of type %s", k->name,
                           st_entry_name(t));
    return k->decode(c, t, payload, len, n, from, stop, raw, d);
}
