/* Codec: round trips for every encoder, entry type and second stage, on
 * structured and random entries; damaged payloads never crash and never
 * decode silently to other entries... unless the damage is undetectable at
 * this layer (the container's CRC catches those), so here we only require
 * "no crash, no out-of-bounds" (run under ASan by make check). */
#include <stdlib.h>
#include <string.h>

#include "../../svpc/svpc.h"
#include "check.h"

static uint8_t *make_entries(st_entry_type t, size_t n, int random, unsigned long long seed)
{
    size_t esz = st_entry_size(t);
    uint8_t *raw = malloc(n * esz + 1);
    unsigned long long s = seed;
    uint64_t cycle = 1000;
    for (size_t i = 0; i < n; i++) {
        st_entry e;
        if (random) {
            e.cycle = check_rand(&s) & ST_CYCLE_MASK;
            e.meta16 = check_rand(&s) & 0xFFFF;
            e.ip = check_rand(&s);
            e.addr = check_rand(&s);
            e.data = check_rand(&s);
        } else {
            /* a loop of 5 instructions walking two arrays */
            unsigned k = (unsigned)(i % 5);
            cycle += 1 + (k == 0);
            e.cycle = cycle;
            e.meta16 = k == 3;
            e.ip = 0x401000 + 4 * k;
            e.addr = 0x7ff000 + 8 * (i / 5) + (k << 16);
            e.data = k == 3 ? check_rand(&s) % 7 : ((uint64_t)4 << 32) | (i / 5);
        }
        st_entry_store(t, raw + i * esz, &e);
    }
    return raw;
}

static void roundtrip(svpc_ctx *c, svpc_encoder enc, st_entry_type t, svpc_stage stage, size_t n, int random)
{
    size_t esz = st_entry_size(t);
    uint8_t *raw = make_entries(t, n, random, n * 31 + t);
    svpc_params p = {enc, stage, 6};
    st_buf out;
    st_buf_init(&out, 0);
    CHECK(svpc_encode(c, &p, t, raw, n, &out) == ST_OK);
    uint8_t *dec = malloc(n * esz + 1);
    st_diag d;
    st_diag_clear(&d);
    st_error e = svpc_decode(c, enc, t, out.data, out.len, n, dec, &d);
    CHECK(e == ST_OK);
    if (e != ST_OK)
        fprintf(stderr, "  decode: %s: %s (enc %d type %d stage %d n %zu)\n", st_error_name(e), d.detail, enc, t,
                stage, n);
    CHECK(memcmp(dec, raw, n * esz) == 0);
    if (!random && n >= 1000 && enc != SVPC_ENC_GENERIC && stage == SVPC_STAGE_LZMA)
        CHECK(out.len * 20 < n * esz); /* structured entries compress well */
    /* same input, same bytes */
    st_buf again;
    st_buf_init(&again, 0);
    CHECK(svpc_encode(c, &p, t, raw, n, &again) == ST_OK);
    CHECK(again.len == out.len && memcmp(again.data, out.data, out.len) == 0);
    /* wrong entry count or truncated payload: an error, not a crash */
    if (n > 0) {
        CHECK(svpc_decode(c, enc, t, out.data, out.len, n - 1, dec, &d) != ST_OK ||
              enc == SVPC_ENC_CM /* cm may decode n-1 entries then find bytes left: still an error */);
        CHECK(svpc_decode(c, enc, t, out.data, out.len / 2, n, dec, &d) != ST_OK);
    }
    /* flip bytes: must terminate without memory errors (ASan checks) */
    for (size_t k = 0; k < out.len && k < 400; k += 1 + out.len / 50) {
        out.data[k] ^= 0x5A;
        svpc_decode(c, enc, t, out.data, out.len, n, dec, &d);
        out.data[k] ^= 0x5A;
    }
    free(raw);
    free(dec);
    st_buf_free(&out);
    st_buf_free(&again);
}

int main(void)
{
    svpc_ctx *c;
    CHECK(svpc_ctx_new(&c) == ST_OK);
    const st_entry_type types[] = {ST_TYPE_D64, ST_TYPE_D32, ST_TYPE_M64, ST_TYPE_M32};
    const svpc_encoder encs[] = {SVPC_ENC_CM, SVPC_ENC_PAPER, SVPC_ENC_GENERIC};
    for (int ei = 0; ei < 3; ei++)
        for (int ti = 0; ti < 4; ti++) {
            roundtrip(c, encs[ei], types[ti], SVPC_STAGE_LZMA, 0, 0);
            roundtrip(c, encs[ei], types[ti], SVPC_STAGE_LZMA, 1, 1);
            roundtrip(c, encs[ei], types[ti], SVPC_STAGE_LZMA, 5000, 0);
            roundtrip(c, encs[ei], types[ti], SVPC_STAGE_LZMA, 3000, 1);
            roundtrip(c, encs[ei], types[ti], SVPC_STAGE_BZIP2, 2000, 0);
            roundtrip(c, encs[ei], types[ti], SVPC_STAGE_ZLIB, 2000, 0);
            roundtrip(c, encs[ei], types[ti], SVPC_STAGE_NONE, 2000, 1);
        }
    /* one context, alternating encoders: state must not leak between frames */
    roundtrip(c, SVPC_ENC_PAPER, ST_TYPE_D64, SVPC_STAGE_LZMA, 3000, 0);
    roundtrip(c, SVPC_ENC_CM, ST_TYPE_D64, SVPC_STAGE_LZMA, 3000, 0);
    /* bad parameters */
    svpc_params p = {SVPC_ENC_CM, SVPC_STAGE_LZMA, 0};
    st_buf out;
    st_buf_init(&out, 0);
    uint8_t one[32] = {0};
    CHECK(svpc_encode(c, &p, ST_TYPE_D64, one, 1, &out) == ST_E_USAGE);
    p.level = 6;
    CHECK(svpc_encode(c, &p, ST_TYPE_BYTES, one, 1, &out) == ST_E_USAGE);
    CHECK(out.len == 0);
    st_diag d;
    CHECK(svpc_decode(c, (svpc_encoder)9, ST_TYPE_D64, one, 32, 1, one, &d) == ST_E_UNSUPPORTED);
    svpc_ctx_free(c);
    return check_done("test_codec");
}
