/* The entry decoders on arbitrary payloads: byte 0 picks encoder (generic,
 * paper, cm1, cm, vpc, cm2; best when byte 0 % 7 is 6, mix when % 11 is 10,
 * cmx when % 13 is 12) and type (d64, d32, m64, m32, vpc; always vpc
 * for the vpc encoder; 0xF0 and above: drmemtrace entries and encoder,
 * drmx from 0xF8), bytes 1..2 the entry count, the rest is the payload. */
#include <stdlib.h>

#include "../../svpc/svpc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static svpc_ctx *ctx;
    if (!ctx && svpc_ctx_new(&ctx) != ST_OK)
        abort();
    if (size < 3)
        return 0;
    svpc_encoder enc = (svpc_encoder)(1 + data[0] % 6); /* generic, paper, cm1, cm, vpc, cm2 */
    if (data[0] % 7 == 6)
        enc = SVPC_ENC_BEST;
    if (data[0] % 11 == 10) /* mix (12): payload byte 0 its parameter byte */
        enc = SVPC_ENC_MIX;
    if (data[0] % 13 == 12) /* cmx (13): byte 0 12, 25.. */
        enc = SVPC_ENC_CMX;
    if (data[0] >= 0xE0 && enc == SVPC_ENC_GENERIC) /* fast (7): byte 0 0xE4, 0xEA... */
        enc = SVPC_ENC_FAST;
    unsigned ti = (data[0] >> 2) % 5u;
    st_entry_type t = ti == 4 || enc == SVPC_ENC_VPC ? ST_TYPE_VPC : (st_entry_type)(1 + ti);
    if (data[0] >= 0xF0) { /* drmemtrace entries, their encoders: drmemtrace (10), drmx (14) from 0xF8 */
        enc = data[0] >= 0xF8 ? SVPC_ENC_DRMX : SVPC_ENC_DRMEMTRACE;
        t = ST_TYPE_DRMEMTRACE;
    }
    size_t n = (size_t)(data[1] | (data[2] << 8)) % 4096;
    uint8_t *raw = malloc(n * st_entry_size(t) + 1);
    st_diag d;
    svpc_decode(ctx, enc, t, data + 3, size - 3, n, raw, &d);
    free(raw);
    return 0;
}
