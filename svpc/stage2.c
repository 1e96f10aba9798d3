#include "stage2.h"

#include <bzlib.h>
#include <limits.h>
#include <lzma.h>
#include <zlib.h>
#include <string.h>

#define SS_HEADER 8u
#define SS_PER_STREAM 8u
#define LZMA_DICT_FLOOR 4096u
#define SS_MIN_COMPRESS 64u

static uint32_t pow2_at_least(size_t n)
{
    uint32_t d = LZMA_DICT_FLOOR;
    while (d < n && d < (UINT32_C(1) << 30))
        d <<= 1;
    return d;
}

/* Compress in[0..n) with stage s; on success append to out and return 1 in
 * *ok; if the result is not smaller than n, *ok = 0 and out is unchanged. */
static st_error stage_compress(svpc_stage s, int level, uint32_t dict, unsigned props, const uint8_t *in, size_t n,
                               st_buf *out, int *ok)
{
    size_t start = out->len;
    *ok = 0;
    if (n == 0 || n > UINT32_MAX)
        return ST_OK;
    size_t room = n - 1; /* only a strictly smaller result is kept */
    switch (s) {
    case SVPC_STAGE_LZMA: {
        lzma_options_lzma opt;
        if (lzma_lzma_preset(&opt, (uint32_t)level))
            return ST_E_INTERNAL;
        opt.dict_size = dict;
        if (props) {
            opt.lc = props & 15;
            opt.lp = (props >> 4) & 15;
            opt.pb = (props >> 8) & 15;
        }
        lzma_filter f[2] = {{LZMA_FILTER_LZMA2, &opt}, {LZMA_VLI_UNKNOWN, NULL}};
        RETURN_IF_ERROR(st_buf_reserve(out, start + room));
        size_t pos = 0;
        lzma_ret r = lzma_raw_buffer_encode(f, NULL, in, n, out->data + start, &pos, room);
        if (r == LZMA_BUF_ERROR)
            return ST_OK;
        if (r == LZMA_MEM_ERROR)
            return ST_E_NOMEM;
        if (r != LZMA_OK)
            return ST_E_INTERNAL;
        out->len = start + pos;
        *ok = 1;
        return ST_OK;
    }
    case SVPC_STAGE_BZIP2: {
        RETURN_IF_ERROR(st_buf_reserve(out, start + room));
        unsigned int dl = (unsigned int)(room > UINT_MAX ? UINT_MAX : room);
        int r = BZ2_bzBuffToBuffCompress((char *)out->data + start, &dl, (char *)(uintptr_t)in,
                                         (unsigned int)n, level, 0, 0);
        if (r == BZ_OUTBUFF_FULL)
            return ST_OK;
        if (r == BZ_MEM_ERROR)
            return ST_E_NOMEM;
        if (r != BZ_OK)
            return ST_E_INTERNAL;
        out->len = start + dl;
        *ok = 1;
        return ST_OK;
    }
    case SVPC_STAGE_ZLIB: {
        RETURN_IF_ERROR(st_buf_reserve(out, start + room));
        uLongf dl = (uLongf)room;
        int r = compress2(out->data + start, &dl, in, (uLong)n, level);
        if (r == Z_BUF_ERROR)
            return ST_OK;
        if (r == Z_MEM_ERROR)
            return ST_E_NOMEM;
        if (r != Z_OK)
            return ST_E_INTERNAL;
        out->len = start + dl;
        *ok = 1;
        return ST_OK;
    }
    default:
        return ST_OK;
    }
}

static st_error stage_decompress(svpc_stage s, uint32_t dict, const uint8_t *in, size_t n, uint8_t *out,
                                 size_t out_len)
{
    switch (s) {
    case SVPC_STAGE_LZMA: {
        lzma_options_lzma opt;
        lzma_lzma_preset(&opt, 0);
        /* No match reaches further back than the output is long, so a window
         * of the output's size suffices whatever the header claims: this
         * bounds the decoder's memory by the frame size. */
        uint32_t need = pow2_at_least(out_len);
        opt.dict_size = dict < need ? (dict < LZMA_DICT_FLOOR ? LZMA_DICT_FLOOR : dict) : need;
        lzma_filter f[2] = {{LZMA_FILTER_LZMA2, &opt}, {LZMA_VLI_UNKNOWN, NULL}};
        size_t ipos = 0, opos = 0;
        lzma_ret r = lzma_raw_buffer_decode(f, NULL, in, &ipos, n, out, &opos, out_len);
        if (r == LZMA_MEM_ERROR)
            return ST_E_NOMEM;
        if (r != LZMA_OK || ipos != n || opos != out_len)
            return ST_E_SECOND_STAGE;
        return ST_OK;
    }
    case SVPC_STAGE_BZIP2: {
        if (n > UINT_MAX || out_len > UINT_MAX)
            return ST_E_SECOND_STAGE;
        /* the stream API, so that bytes after the bzip2 stream are caught */
        bz_stream z;
        memset(&z, 0, sizeof z);
        if (BZ2_bzDecompressInit(&z, 0, 0) != BZ_OK)
            return ST_E_NOMEM;
        z.next_in = (char *)(uintptr_t)in;
        z.avail_in = (unsigned int)n;
        z.next_out = (char *)out;
        z.avail_out = (unsigned int)out_len;
        int r = BZ2_bzDecompress(&z);
        int ok = r == BZ_STREAM_END && z.avail_in == 0 && z.avail_out == 0;
        BZ2_bzDecompressEnd(&z);
        if (r == BZ_MEM_ERROR)
            return ST_E_NOMEM;
        return ok ? ST_OK : ST_E_SECOND_STAGE;
    }
    case SVPC_STAGE_ZLIB: {
        uLongf dl = (uLongf)out_len;
        uLong sl = (uLong)n;
        int r = uncompress2(out, &dl, in, &sl);
        if (r == Z_MEM_ERROR)
            return ST_E_NOMEM;
        if (r != Z_OK || dl != out_len || sl != n)
            return ST_E_SECOND_STAGE;
        return ST_OK;
    }
    default:
        return ST_E_UNSUPPORTED;
    }
}

st_error ss_pack(svpc_stage stage, int level, const ss_in *in, unsigned k, st_buf *out, uint64_t *stored_sizes)
{
    if (k > SS_MAX_STREAMS || stage > SVPC_STAGE_ZLIB || level < 1 || level > 9)
        return ST_E_USAGE;
    size_t start = out->len;
    size_t maxlen = 0;
    for (unsigned i = 0; i < k; i++) {
        if (in[i].len > UINT32_MAX)
            return ST_E_USAGE;
        if (in[i].compress && in[i].len > maxlen)
            maxlen = in[i].len;
    }
    uint32_t dict = 0;
    if (stage == SVPC_STAGE_LZMA) {
        lzma_options_lzma opt;
        if (lzma_lzma_preset(&opt, (uint32_t)level))
            return ST_E_INTERNAL;
        uint32_t need = pow2_at_least(maxlen);
        dict = opt.dict_size < need ? opt.dict_size : need;
    }
    st_error err = st_buf_reserve(out, start + SS_HEADER + SS_PER_STREAM * k);
    if (err != ST_OK)
        return err;
    uint8_t *h = out->data + start;
    h[0] = (uint8_t)stage;
    h[1] = (uint8_t)k;
    st_store16(h + 2, 0);
    st_store32(h + 4, dict);
    out->len = start + SS_HEADER + SS_PER_STREAM * k;
    for (unsigned i = 0; i < k; i++) {
        size_t before = out->len;
        int ok = 0;
        /* tiny streams are stored: a second stage cannot gain on them, and
         * setting one up (LZMA's match finder) costs more than a frame of a
         * few entries takes to code */
        if (in[i].compress && stage != SVPC_STAGE_NONE && in[i].len >= SS_MIN_COMPRESS) {
            err = stage_compress(stage, level, dict, in[i].lzma_props, in[i].data, in[i].len, out, &ok);
            if (err != ST_OK) {
                out->len = start;
                return err;
            }
        }
        if (!ok && (err = st_buf_append(out, in[i].data, in[i].len)) != ST_OK) {
            out->len = start;
            return err;
        }
        size_t stored = out->len - before;
        uint8_t *e = out->data + start + SS_HEADER + SS_PER_STREAM * i;
        st_store32(e, (uint32_t)in[i].len);
        st_store32(e + 4, (uint32_t)stored);
        if (stored_sizes)
            stored_sizes[i] = stored;
    }
    return ST_OK;
}

st_error ss_unpack(const uint8_t *p, size_t len, unsigned k, const size_t *max_len, ss_out *out, st_diag *diag)
{
    st_buf_init(&out->arena, 0);
    if (len < SS_HEADER || k > SS_MAX_STREAMS)
        return st_diag_set(diag, ST_E_CORRUPT, "payload shorter than its stream-set header");
    unsigned stage = p[0];
    if (stage > SVPC_STAGE_ZLIB)
        return st_diag_set(diag, ST_E_UNSUPPORTED, "unknown second stage %u", stage);
    if (p[1] != k)
        return st_diag_set(diag, ST_E_CORRUPT, "payload has %u streams, encoder needs %u", p[1], k);
    if (st_load16(p + 2) != 0)
        return st_diag_set(diag, ST_E_CORRUPT, "reserved stream-set bits are set");
    uint32_t dict = st_load32(p + 4);
    if (stage != SVPC_STAGE_LZMA && dict != 0)
        return st_diag_set(diag, ST_E_CORRUPT, "dictionary size set for a %s stream set",
                           svpc_stage_name((svpc_stage)stage));
    size_t table = SS_HEADER + (size_t)SS_PER_STREAM * k;
    if (len < table)
        return st_diag_set(diag, ST_E_CORRUPT, "payload shorter than its stream table");
    /* First pass: validate every length and size the arena. */
    size_t pos = table, arena = 0;
    for (unsigned i = 0; i < k; i++) {
        uint32_t raw = st_load32(p + SS_HEADER + SS_PER_STREAM * i);
        uint32_t stored = st_load32(p + SS_HEADER + SS_PER_STREAM * i + 4);
        if (raw > max_len[i])
            return st_diag_set(diag, ST_E_CORRUPT, "stream %u claims %u bytes, at most %zu possible", i, raw,
                               max_len[i]);
        if (stored > raw)
            return st_diag_set(diag, ST_E_CORRUPT, "stream %u: stored size %u above raw size %u", i, stored, raw);
        if (stored > len - pos)
            return st_diag_set(diag, ST_E_CORRUPT, "stream %u runs past the end of the payload", i);
        if (stored < raw) {
            if (stage == SVPC_STAGE_NONE)
                return st_diag_set(diag, ST_E_CORRUPT, "stream %u compressed but no second stage set", i);
            arena += raw;
        }
        pos += stored;
    }
    if (pos != len)
        return st_diag_set(diag, ST_E_CORRUPT, "%zu bytes after the last stream of the payload", len - pos);
    RETURN_IF_ERROR(st_buf_reserve(&out->arena, arena ? arena : 1));
    pos = table;
    size_t apos = 0;
    for (unsigned i = 0; i < k; i++) {
        uint32_t raw = st_load32(p + SS_HEADER + SS_PER_STREAM * i);
        uint32_t stored = st_load32(p + SS_HEADER + SS_PER_STREAM * i + 4);
        out->len[i] = raw;
        if (stored == raw) {
            out->data[i] = p + pos;
        } else {
            st_error e = stage_decompress((svpc_stage)stage, dict, p + pos, stored, out->arena.data + apos, raw);
            if (e != ST_OK)
                return st_diag_set(diag, e, "stream %u: %s stream does not decode to its %u bytes", i,
                                   svpc_stage_name((svpc_stage)stage), raw);
            out->data[i] = out->arena.data + apos;
            apos += raw;
        }
        pos += stored;
    }
    out->arena.len = apos;
    return ST_OK;
}
