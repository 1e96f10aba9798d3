/* Round trip: the input as raw entries -> encode -> decode must be equal.
 * Byte 0 picks encoder, type and second stage (byte 0 mod 6: generic,
 * paper, cm1, cm, vpc on vpc pairs, or cm2; with bit 7, fast for generic
 * and mix for cm2, at -7, -8 or -9 by bits 5..6; without bit 7 and with
 * bit 6, cmx for cm2; with bit 7, drmemtrace entries for vpc, coded by
 * drmemtrace or, with bit 6, drmx). */
#include <stdlib.h>
#include <string.h>

#include "../../svpc/svpc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static svpc_ctx *ctx;
    if (!ctx && svpc_ctx_new(&ctx) != ST_OK)
        abort();
    if (size < 1)
        return 0;
    svpc_params p = {(svpc_encoder)(1 + data[0] % 6), (svpc_stage)((data[0] >> 4) % 4), 1 + (data[0] >> 6)};
    if ((data[0] & 0x80) && p.encoder == SVPC_ENC_GENERIC) /* fast (7): byte 0 0x84, 0x8A... */
        p.encoder = SVPC_ENC_FAST;
    if ((data[0] & 0x80) && p.encoder == SVPC_ENC_CM2) { /* mix (12) at -7 (byte 0 0xC5), -8 (0x83), -9 (0xA1) */
        p.encoder = SVPC_ENC_MIX;
        p.level = 7 + (data[0] >> 5) % 3;
    } else if ((data[0] & 0x40) && p.encoder == SVPC_ENC_CM2) { /* cmx (13): byte 0 0x41, 0x47.. */
        p.encoder = SVPC_ENC_CMX;
    }
    st_entry_type t = p.encoder == SVPC_ENC_VPC ? ST_TYPE_VPC : (st_entry_type)(1 + (data[0] >> 2) % 4);
    if ((data[0] & 0x80) && p.encoder == SVPC_ENC_VPC) { /* drmemtrace (10), drmx (14) with bit 6: byte 0 0x82, 0xC4.. */
        p.encoder = data[0] & 0x40 ? SVPC_ENC_DRMX : SVPC_ENC_DRMEMTRACE;
        t = ST_TYPE_DRMEMTRACE;
    }
    size_t esz = st_entry_size(t), n = (size - 1) / esz;
    st_buf out;
    st_buf_init(&out, 0);
    if (svpc_encode(ctx, &p, t, data + 1, n, &out) != ST_OK)
        abort();
    uint8_t *raw = malloc(n * esz + 1);
    st_diag d;
    if (svpc_decode(ctx, p.encoder, t, out.data, out.len, n, raw, &d) != ST_OK || memcmp(raw, data + 1, n * esz))
        abort();
    /* a part from an entry the input picks (its length): that entry on,
     * and entry 0, at their places */
    size_t from = n ? size % n : 0;
    if (svpc_decode_part(ctx, p.encoder, t, out.data, out.len, n, from, n, raw, &d) != ST_OK ||
        memcmp(raw + from * esz, data + 1 + from * esz, (n - from) * esz) || (n && memcmp(raw, data + 1, esz)))
        abort();
    free(raw);
    st_buf_free(&out);
    return 0;
}
