/*
 * generic.c - the generic encoder (1): the raw entry bytes through the
 * second stage alone, for any entry type of known size (SIMTRACE.md 6.2).
 */
#include <string.h>

#include "codec.h"

static const char *const generic_names[1] = {"raw"};

static st_error generic_encode(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw,
                               const svpc_source *src, size_t *n, st_buf *out)
{
    (void)src;
    c->buf[0].len = 0;
    RETURN_IF_ERROR(st_buf_append(&c->buf[0], raw, *n * st_entry_size(t)));
    return svpc_streams_pack(c, p, generic_names, NULL, NULL, 1, out);
}

static st_error generic_decode(svpc_ctx *c, st_entry_type t, const uint8_t *payload, size_t len, size_t n,
                               size_t from, size_t stop, uint8_t *raw, st_diag *d)
{
    (void)from; /* every entry is stored */
    (void)c;
    const size_t esz = st_entry_size(t), maxl = n * esz;
    ss_out so;
    st_error e = ss_unpack(payload, len, 1, &maxl, &so, d);
    if (e == ST_OK && so.len[0] != maxl)
        e = st_diag_set(d, ST_E_CORRUPT, "payload holds %zu bytes, frame needs %zu", so.len[0], maxl);
    if (e == ST_OK && stop)
        memcpy(raw, so.data[0], stop * esz);
    st_buf_free(&so.arena);
    return e;
}

static int generic_supports(st_entry_type t) { return st_entry_size(t) != 0; }
static size_t generic_memory(void) { return 0; }

const svpc_codec svpc_codec_generic = {SVPC_ENC_GENERIC, "generic", generic_supports, generic_memory, 0,
                                       generic_encode,   generic_decode, NULL};
