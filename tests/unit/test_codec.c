/* Codec: round trips for every encoder, entry type and second stage, on
 * structured and random entries; damaged payloads never crash and never
 * decode silently to other entries... unless the damage is undetectable at
 * this layer (the container's CRC catches those), so here we only require
 * "no crash, no out-of-bounds" (run under ASan by make check). */
#include <stdlib.h>
#include <string.h>

#include "../../svpc/svpc.h"
#include "../../svpc/svpc_stats.h"
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
        if (t == ST_TYPE_VPC) {
            /* a legacy pair: u32 pc, u64 extended data (here the address) */
            st_store32(raw + i * esz, (uint32_t)e.ip);
            st_store64(raw + i * esz + 4, e.addr);
            continue;
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
    /* prefixes (random access): exactly the first entries, and a full
     * decode after a prefix is still right (no state left behind) */
    for (size_t stop = 0; stop <= n; stop += 1 + n / 3) {
        memset(dec, 0xEE, n * esz + 1);
        CHECK(svpc_decode_prefix(c, enc, t, out.data, out.len, n, stop, dec, &d) == ST_OK);
        CHECK(memcmp(dec, raw, stop * esz) == 0);
        if (stop < n)
            CHECK(dec[stop * esz] == 0xEE); /* nothing written past the prefix */
    }
    CHECK(svpc_decode_prefix(c, enc, t, out.data, out.len, n, n + 1, dec, &d) == ST_E_USAGE);
    /* parts (one entry deep in a frame): entry 0 and from..stop-1 at their
     * places; the encoders the default levels use store nothing between */
    for (size_t from = 0; from <= n; from += 1 + n / 2) {
        size_t stop = from + (n - from) / 2;
        memset(dec, 0xEE, n * esz + 1);
        CHECK(svpc_decode_part(c, enc, t, out.data, out.len, n, from, stop, dec, &d) == ST_OK);
        CHECK(memcmp(dec + from * esz, raw + from * esz, (stop - from) * esz) == 0);
        CHECK(stop == 0 || memcmp(dec, raw, esz) == 0);
        int skips = enc == SVPC_ENC_CMX || enc == SVPC_ENC_CM2 || enc == SVPC_ENC_MIX || enc == SVPC_ENC_BEST;
        if (skips && from > 1 && stop > from)
            CHECK(dec[esz] == 0xEE && dec[(from - 1) * esz] == 0xEE);
        if (stop < n)
            CHECK(dec[stop * esz] == 0xEE);
    }
    CHECK(svpc_decode_part(c, enc, t, out.data, out.len, n, n / 2 + 1, n / 2, dec, &d) == ST_E_USAGE);
    CHECK(svpc_decode(c, enc, t, out.data, out.len, n, dec, &d) == ST_OK && memcmp(dec, raw, n * esz) == 0);
    /* wrong entry count or truncated payload: an error, not a crash */
    if (n > 0) {
        CHECK(svpc_decode(c, enc, t, out.data, out.len, n - 1, dec, &d) != ST_OK ||
              enc == SVPC_ENC_CM || enc == SVPC_ENC_CM1 || enc == SVPC_ENC_VPC ||
              enc == SVPC_ENC_CM2 || enc == SVPC_ENC_BEST ||
              enc == SVPC_ENC_MIX || enc == SVPC_ENC_CMX /* may decode n-1 entries then find bytes left */);
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

/* Legacy vpc pairs (SIMTRACE.md 6.6): which encoders take them, and what a
 * decoder does with payloads that do not fit. */
static void test_vpc_pairs(svpc_ctx *c)
{
    /* the encoder/type predicate the container layer uses */
    CHECK(svpc_encoder_supports(SVPC_ENC_CM, ST_TYPE_VPC) && svpc_encoder_supports(SVPC_ENC_CM1, ST_TYPE_VPC));
    CHECK(svpc_encoder_supports(SVPC_ENC_GENERIC, ST_TYPE_VPC));
    CHECK(!svpc_encoder_supports(SVPC_ENC_PAPER, ST_TYPE_VPC));
    for (int t = ST_TYPE_D64; t <= ST_TYPE_M32; t++)
        CHECK(svpc_encoder_supports(SVPC_ENC_CM, (st_entry_type)t) &&
              svpc_encoder_supports(SVPC_ENC_PAPER, (st_entry_type)t));
    const st_entry_type others[] = {ST_TYPE_BYTES, ST_TYPE_VBLOCK, ST_TYPE_EVENT, ST_TYPE_USER, ST_TYPE_NONE};
    for (int i = 0; i < 5; i++)
        CHECK(!svpc_encoder_supports(SVPC_ENC_CM, others[i]) && !svpc_encoder_supports(SVPC_ENC_PAPER, others[i]));
    CHECK(svpc_encoder_supports(SVPC_ENC_GENERIC, ST_TYPE_BYTES) && !svpc_encoder_supports(SVPC_ENC_GENERIC, ST_TYPE_USER));
    CHECK(!svpc_encoder_supports((svpc_encoder)9, ST_TYPE_VPC) && !svpc_encoder_supports((svpc_encoder)6, ST_TYPE_VPC) &&
          svpc_encoder_supports(SVPC_ENC_VPC, ST_TYPE_VPC) && !svpc_encoder_supports(SVPC_ENC_VPC, ST_TYPE_D64));

    const size_t n = 4000, esz = st_entry_size(ST_TYPE_VPC);
    CHECK(esz == 12);
    uint8_t *raw = make_entries(ST_TYPE_VPC, n, 0, 77), *dec = malloc(n * 32);
    svpc_params p = {SVPC_ENC_PAPER, SVPC_STAGE_LZMA, 6};
    st_buf out;
    st_buf_init(&out, 0);
    st_diag d;
    st_diag_clear(&d);
    CHECK(svpc_encode(c, &p, ST_TYPE_VPC, raw, n, &out) == ST_E_USAGE && out.len == 0);
    CHECK(svpc_decode(c, SVPC_ENC_PAPER, ST_TYPE_VPC, raw, 16, 1, dec, &d) == ST_E_UNSUPPORTED);

    /* a pair stream costs well under a byte per pair when it is regular */
    p.encoder = SVPC_ENC_CM;
    CHECK(svpc_encode(c, &p, ST_TYPE_VPC, raw, n, &out) == ST_OK);
    CHECK(out.len * 40 < n * esz);
    /* pc and data round-trip bit for bit, the pc's top bits included */
    for (size_t i = 0; i < n; i += 7) {
        st_store32(raw + i * esz, 0xFFFFFFF0u - (uint32_t)i);
        st_store64(raw + i * esz + 4, UINT64_MAX - i);
    }
    out.len = 0;
    CHECK(svpc_encode(c, &p, ST_TYPE_VPC, raw, n, &out) == ST_OK);
    CHECK(svpc_decode(c, SVPC_ENC_CM, ST_TYPE_VPC, out.data, out.len, n, dec, &d) == ST_OK);
    CHECK(memcmp(dec, raw, n * esz) == 0);

    /* a vpc payload is not a memory payload, nor the other way round:
     * wrong type or count is an error, never a crash (ASan) */
    CHECK(svpc_decode(c, SVPC_ENC_CM, ST_TYPE_M32, out.data, out.len, n, dec, &d) != ST_OK);
    CHECK(svpc_decode(c, SVPC_ENC_CM, ST_TYPE_VPC, out.data, out.len, n + 1, dec, &d) != ST_OK);
    /* (n - 1 may decode: the last pair can take no range-coder byte of its
     * own; the container's entry count and CRC catch that) */
    svpc_decode(c, SVPC_ENC_CM, ST_TYPE_VPC, out.data, out.len, n - 1, dec, &d);
    uint8_t *mem = make_entries(ST_TYPE_M32, n, 0, 78);
    st_buf mout;
    st_buf_init(&mout, 0);
    CHECK(svpc_encode(c, &p, ST_TYPE_M32, mem, n, &mout) == ST_OK);
    CHECK(svpc_decode(c, SVPC_ENC_CM, ST_TYPE_VPC, mout.data, mout.len, n, dec, &d) == ST_E_CORRUPT);

    /* every single-byte change of a vpc payload: no crash, and the damage
     * is reported or the entries still decode to something (the container's
     * CRC is what catches the rest); count the reported ones */
    unsigned reported = 0, tried = 0;
    for (size_t k = 0; k < out.len; k += 1 + out.len / 300, tried++) {
        out.data[k] ^= 0x21;
        reported += svpc_decode(c, SVPC_ENC_CM, ST_TYPE_VPC, out.data, out.len, n, dec, &d) != ST_OK;
        out.data[k] ^= 0x21;
    }
    CHECK(reported * 2 > tried); /* most damage is caught by the codec alone */

    /* a data miss stream is not allowed in a vpc payload: the memory
     * stream set above carries none, so make one with d64 entries, which
     * have data misses, and decode it as pairs */
    uint8_t *d64 = make_entries(ST_TYPE_D64, 300, 1, 79);
    st_buf dout;
    st_buf_init(&dout, 0);
    CHECK(svpc_encode(c, &p, ST_TYPE_D64, d64, 300, &dout) == ST_OK);
    CHECK(svpc_decode(c, SVPC_ENC_CM, ST_TYPE_VPC, dout.data, dout.len, 300, dec, &d) == ST_E_CORRUPT);

    free(raw);
    free(mem);
    free(d64);
    free(dec);
    st_buf_free(&out);
    st_buf_free(&mout);
    st_buf_free(&dout);
}

/* Stack-like store pairs: a recursive function's pushes at a depth that
 * changes, a loop storing through a pointer with a stride, and stores whose
 * pc order depends on data. */
static uint8_t *stack_pairs(size_t n, unsigned long long seed)
{
    uint8_t *raw = malloc(n * 12 + 1);
    unsigned long long s = seed;
    uint64_t sp = 0x1fff000800, heap = 0x4ed8000;
    size_t i = 0;
    while (i < n) {
        uint64_t r = check_rand(&s);
        sp += (r & 1) ? 0x40 : (uint64_t)-0x40;
        for (unsigned k = 0; k < 6 && i < n; k++, i++) { /* pushes */
            st_store32(raw + 12 * i, 0x111a00u + 2 * k);
            st_store64(raw + 12 * i + 4, sp - 8 * k);
        }
        for (unsigned k = 0; k < 4 && i < n; k++, i++) { /* p[i] = ..., data-dependent branch */
            heap -= 0x20;
            st_store32(raw + 12 * i, (r >> (k + 1)) & 1 ? 0x111b6fu : 0x111b78u);
            st_store64(raw + 12 * i + 4, heap);
        }
        if (i < n && (r >> 8) % 5 == 0) { /* now and then an address from nowhere */
            st_store32(raw + 12 * i, 0x111c08u);
            st_store64(raw + 12 * i + 4, check_rand(&s) & 0xFFFFFFFFFFull);
            i++;
        }
    }
    return raw;
}

/* The vpc encoder (SIMTRACE.md 6.8): what it takes, its size against cm
 * on pairs of the kind it is for, extreme values, and damaged payloads. */
static void test_vpc_encoder(svpc_ctx *c)
{
    CHECK(svpc_encoder_supports(SVPC_ENC_VPC, ST_TYPE_VPC));
    for (int t = ST_TYPE_D64; t <= ST_TYPE_M32; t++)
        CHECK(!svpc_encoder_supports(SVPC_ENC_VPC, (st_entry_type)t));
    CHECK(!svpc_encoder_supports(SVPC_ENC_VPC, ST_TYPE_BYTES) && !svpc_encoder_supports(SVPC_ENC_VPC, ST_TYPE_USER));
    CHECK(strcmp(svpc_encoder_name(SVPC_ENC_VPC), "vpc") == 0);
    svpc_encoder e;
    CHECK(svpc_encoder_parse("vpc", &e) && e == SVPC_ENC_VPC);

    const size_t n = 20000, esz = 12;
    uint8_t *raw = stack_pairs(n, 5), *dec = malloc(n * 32);
    svpc_params p = {SVPC_ENC_VPC, SVPC_STAGE_LZMA, 6};
    st_buf out, cm;
    st_buf_init(&out, 0);
    st_buf_init(&cm, 0);
    st_diag d;
    st_diag_clear(&d);
    CHECK(svpc_encode(c, &p, ST_TYPE_D64, raw, n / 3, &out) == ST_E_USAGE && out.len == 0);
    CHECK(svpc_decode(c, SVPC_ENC_VPC, ST_TYPE_M32, raw, 64, 1, dec, &d) == ST_E_UNSUPPORTED);
    CHECK(svpc_encode(c, &p, ST_TYPE_VPC, raw, n, &out) == ST_OK);
    CHECK(svpc_decode(c, SVPC_ENC_VPC, ST_TYPE_VPC, out.data, out.len, n, dec, &d) == ST_OK);
    CHECK(memcmp(dec, raw, n * esz) == 0);
    p.encoder = SVPC_ENC_CM;
    CHECK(svpc_encode(c, &p, ST_TYPE_VPC, raw, n, &cm) == ST_OK);
    /* the moving stack and the data-dependent branch are what it is for */
    CHECK(out.len * 4 < cm.len * 3);
    p.encoder = SVPC_ENC_VPC;

    /* pcs and values at the edges of their widths, misses of every length */
    unsigned long long s = 11;
    for (size_t i = 0; i < n; i += 3) {
        uint64_t r = check_rand(&s);
        st_store32(raw + i * esz, (uint32_t)(i % 6 == 0 ? 0xFFFFFFFFu - (r & 0xFF) : r >> 32));
        st_store64(raw + i * esz + 4, i % 9 == 0 ? UINT64_MAX - (r & 3) : r >> (r & 63));
    }
    out.len = 0;
    CHECK(svpc_encode(c, &p, ST_TYPE_VPC, raw, n, &out) == ST_OK);
    CHECK(svpc_decode(c, SVPC_ENC_VPC, ST_TYPE_VPC, out.data, out.len, n, dec, &d) == ST_OK);
    CHECK(memcmp(dec, raw, n * esz) == 0);

    /* damaged payloads: a byte changed anywhere is reported or decodes
     * (the container's CRC catches the rest), most are reported; a
     * truncated one, one with a byte appended to a stream, or one of
     * another encoder is always reported */
    unsigned reported = 0, tried = 0;
    for (size_t k = 0; k < out.len; k += 1 + out.len / 300, tried++) {
        out.data[k] ^= 0x44;
        reported += svpc_decode(c, SVPC_ENC_VPC, ST_TYPE_VPC, out.data, out.len, n, dec, &d) != ST_OK;
        out.data[k] ^= 0x44;
    }
    CHECK(reported * 2 > tried);
    CHECK(svpc_decode(c, SVPC_ENC_VPC, ST_TYPE_VPC, out.data, out.len - 1, n, dec, &d) == ST_E_CORRUPT);
    CHECK(svpc_decode(c, SVPC_ENC_VPC, ST_TYPE_VPC, out.data, out.len, n + 1, dec, &d) == ST_E_CORRUPT);
    CHECK(svpc_decode(c, SVPC_ENC_VPC, ST_TYPE_VPC, cm.data, cm.len, n, dec, &d) == ST_E_CORRUPT);
    CHECK(svpc_decode(c, SVPC_ENC_CM, ST_TYPE_VPC, out.data, out.len, n, dec, &d) == ST_E_CORRUPT);
    /* stored streams (stage none): the range coder's stream gets a byte
     * more (stream set lengths fixed up), then the pc miss stream */
    p.stage = SVPC_STAGE_NONE;
    out.len = 0;
    CHECK(svpc_encode(c, &p, ST_TYPE_VPC, raw, n, &out) == ST_OK);
    CHECK(out.len > 24 && out.data[1] == 2);
    for (int which = 0; which < 2; which++) {
        st_buf bad;
        st_buf_init(&bad, 0);
        uint32_t l0 = st_load32(out.data + 8), l1 = st_load32(out.data + 16);
        size_t at = 24 + l0 + (which ? l1 : 0);
        CHECK(st_buf_append(&bad, out.data, at) == ST_OK);
        uint8_t extra = 0x5C;
        CHECK(st_buf_append(&bad, &extra, 1) == ST_OK);
        CHECK(st_buf_append(&bad, out.data + at, out.len - at) == ST_OK);
        uint8_t *len = bad.data + 8 + 8 * which;
        st_store32(len, st_load32(len) + 1);
        st_store32(len + 4, st_load32(len + 4) + 1);
        st_error r = svpc_decode(c, SVPC_ENC_VPC, ST_TYPE_VPC, bad.data, bad.len, n, dec, &d);
        CHECK(r == ST_E_CORRUPT && strstr(d.detail, "left over") != NULL);
        st_buf_free(&bad);
    }
    free(raw);
    free(dec);
    st_buf_free(&out);
    st_buf_free(&cm);
}

/* Store e as an entry of type t at p, cut to 32 bits for the 32-bit types. */
static void store_entry(st_entry_type t, uint8_t *p, st_entry *e)
{
    if (t == ST_TYPE_D32 || t == ST_TYPE_M32) {
        e->ip &= 0xFFFFFFFFu;
        e->addr &= 0xFFFFFFFFu;
        e->data &= 0xFFFFFFFFu;
    }
    st_entry_store(t, p, e);
}

/* Entries whose data exercise every path of cm2's data misses (6.9): byte
 * stores of text (lanes in memory order, the match model when the text is
 * copied again), word stores of text, values stored again a few misses
 * later (recent values), 2-byte stores, 8-byte values, sizes that change
 * at one ip (the upper half), and values with bits above their size (lanes
 * above the size not zero). */
static uint8_t *make_cm2_entries(st_entry_type t, size_t n, unsigned long long seed)
{
    static const char text[] = "the quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs. ";
    const size_t tl = sizeof text - 1, esz = st_entry_size(t);
    uint8_t *raw = malloc(n * esz + 1);
    unsigned long long s = seed;
    uint64_t recent[8] = {0};
    for (size_t i = 0; i < n; i++) {
        unsigned k = (unsigned)(i % 7), r = (unsigned)(check_rand(&s) % 100);
        st_entry e;
        e.cycle = 100 + 3 * i;
        e.meta16 = (uint16_t)(k == 5);
        e.ip = 0x8000 + 0x10 * k + (r < 3 ? 0x1000 : 0);
        e.addr = 0x100000 + (i % 4096) * 4 + ((uint64_t)k << 20);
        const unsigned char ch = (unsigned char)text[(i / 7 + (i > n / 2 ? 11 : 0)) % tl];
        switch (k) {
        case 0: e.data = ((uint64_t)1 << 32) | ch; break;                      /* a byte of text */
        case 1: e.data = ((uint64_t)4 << 32) | (uint32_t)(ch * 0x01010101u); break; /* a word */
        case 2: e.data = recent[check_rand(&s) % 8]; break;                   /* again, elsewhere */
        case 3: e.data = ((uint64_t)2 << 32) | (check_rand(&s) & 0xFFFF); break;
        case 4: e.data = check_rand(&s); break;                                /* 8 random bytes */
        case 5: e.data = ((uint64_t)(1 + r % 4) << 32) | (check_rand(&s) & 0xFF); break; /* sizes vary */
        default: e.data = ((uint64_t)1 << 32) | (r < 10 ? 0x1234500u : ch);     /* bits above the size */
        }
        recent[i % 8] = e.data;
        store_entry(t, raw + i * esz, &e);
    }
    return raw;
}

/* cm2 (6.9), best (6.11) and mix (6.11.1), cm2's template, as encoder enc
 * named name, whose payload has `head` bytes before the range coder's
 * output: their own round trips, that they refuse vpc pairs, and that a
 * payload cut anywhere is an error. */
static void test_cm2(svpc_ctx *c, svpc_encoder enc, const char *name, size_t head)
{
    CHECK(svpc_encoder_supports(enc, ST_TYPE_D64) && svpc_encoder_supports(enc, ST_TYPE_M32));
    CHECK(!svpc_encoder_supports(enc, ST_TYPE_VPC) && !svpc_encoder_supports(enc, ST_TYPE_BYTES));
    svpc_encoder e;
    CHECK(svpc_encoder_parse(name, &e) && e == enc && strcmp(svpc_encoder_name(e), name) == 0);
    const st_entry_type types[] = {ST_TYPE_D64, ST_TYPE_D32, ST_TYPE_M64, ST_TYPE_M32};
    for (int ti = 0; ti < 4; ti++) {
        const st_entry_type t = types[ti];
        const size_t n = 20000, esz = st_entry_size(t);
        uint8_t *raw = make_cm2_entries(t, n, 7 + ti), *dec = malloc(n * esz + 1);
        svpc_params p = {enc, SVPC_STAGE_LZMA, 6};
        st_buf out;
        st_buf_init(&out, 0);
        CHECK(svpc_encode(c, &p, t, raw, n, &out) == ST_OK);
        st_diag d;
        st_diag_clear(&d);
        st_error r = svpc_decode(c, enc, t, out.data, out.len, n, dec, &d);
        CHECK(r == ST_OK && memcmp(dec, raw, n * esz) == 0);
        if (r != ST_OK)
            fprintf(stderr, "  %s type %d: %s: %s\n", name, t, st_error_name(r), d.detail);
        /* the second stage does not apply: -s gives the same bytes */
        st_buf other;
        st_buf_init(&other, 0);
        p.stage = SVPC_STAGE_NONE;
        CHECK(svpc_encode(c, &p, t, raw, n, &other) == ST_OK);
        CHECK(other.len == out.len && memcmp(other.data, out.data, out.len) == 0);
        /* every cut is an error: the coder needs bytes past the end */
        for (size_t cut = 0; cut < out.len; cut += 1 + out.len / 40)
            CHECK(svpc_decode(c, enc, t, out.data, cut, n, dec, &d) == ST_E_CORRUPT);
        /* a byte more is left over */
        st_buf_append(&out, (const uint8_t *)"", 1);
        CHECK(svpc_decode(c, enc, t, out.data, out.len, n, dec, &d) == ST_E_CORRUPT);
        free(raw);
        free(dec);
        st_buf_free(&out);
        st_buf_free(&other);
    }
    /* a frame of no entries is 5 bytes after the head, the first 0: others
     * are refused */
    static const uint8_t junk[5] = {7, 1, 2, 3, 4};
    uint8_t none[1];
    st_diag dz;
    for (size_t len = 0; len <= 5; len++)
        CHECK(svpc_decode(c, enc, ST_TYPE_D64, junk, len, 0, none, &dz) == ST_E_CORRUPT);
    uint8_t pair[12] = {0};
    st_buf out;
    st_buf_init(&out, 0);
    svpc_params p = {enc, SVPC_STAGE_LZMA, 6};
    CHECK(svpc_encode(c, &p, ST_TYPE_D64, pair, 0, &out) == ST_OK && out.len == head + 5 && out.data[head] == 0);
    CHECK(svpc_decode(c, enc, ST_TYPE_D64, out.data, out.len, 0, none, &dz) == ST_OK);
    out.len = 0;
    CHECK(svpc_encode(c, &p, ST_TYPE_VPC, pair, 1, &out) == ST_E_USAGE);
    st_diag d;
    CHECK(svpc_decode(c, enc, ST_TYPE_VPC, pair, 12, 1, pair, &d) == ST_E_UNSUPPORTED);
    st_buf_free(&out);
}

/* Entries of a hash function's rounds (6.9.1): four state words of 4
 * bytes stored, then loaded back rotated, summed, or new, each load at an
 * ip of its own; byte stores between them (values the transform does not
 * take).  data0: the values all 0 instead (a trace without values). */
static uint8_t *make_hash_entries(st_entry_type t, size_t n, unsigned long long seed, int data0)
{
    const size_t esz = st_entry_size(t);
    uint8_t *raw = malloc(n * esz + 1);
    unsigned long long s = seed;
    uint32_t w[4] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u};
    for (size_t i = 0; i < n; i++) {
        const unsigned k = (unsigned)(i % 10);
        uint32_t v;
        if (k < 4) { /* store the state */
            v = w[k] = (uint32_t)check_rand(&s);
        } else if (k < 6) { /* rotated: by 5 and by 30 */
            const uint32_t y = w[k - 4];
            const unsigned r = k == 4 ? 5 : 30;
            v = (y << r) | (y >> (32 - r));
        } else if (k < 8) { /* summed */
            v = w[k - 6] + w[k - 4];
        } else {
            v = (uint32_t)check_rand(&s) & 0xFFu;
        }
        st_entry e;
        e.cycle = 100 + 3 * i;
        e.meta16 = 0;
        e.ip = 0x401000 + 0x10 * k;
        e.addr = 0x7FFF0000 + 4 * (i % 64);
        e.data = data0 ? 0 : ((uint64_t)(k < 8 ? 4 : 1) << 32) | v;
        store_entry(t, raw + i * esz, &e);
    }
    return raw;
}

/* Encode n entries of type t at raw with encoder enc at level (ST_OK
 * checked) into out, and check that they decode back. */
static void encode_checked(svpc_ctx *c, svpc_encoder enc, int level, st_entry_type t, const uint8_t *raw, size_t n,
                           st_buf *out)
{
    svpc_params p = {enc, SVPC_STAGE_LZMA, level};
    st_buf_init(out, 0);
    CHECK(svpc_encode(c, &p, t, raw, n, out) == ST_OK);
    const size_t esz = st_entry_size(t);
    uint8_t *dec = malloc(n * esz + 1);
    memset(dec, 0xEE, n * esz);
    st_diag d;
    st_diag_clear(&d);
    st_error r = svpc_decode(c, enc, t, out->data, out->len, n, dec, &d);
    CHECK(r == ST_OK && memcmp(dec, raw, n * esz) == 0);
    if (r != ST_OK)
        fprintf(stderr, "  encoder %d level %d type %d: %s: %s\n", enc, level, t, st_error_name(r), d.detail);
    free(dec);
}

/* The transform (6.9.1) in cmx (13) and mix (12): it finds the rotations
 * and sums of a hash's state in d64 entries (the payload much smaller
 * than cm2's and best's); it does nothing on the other types (no values,
 * or 4-byte ones) nor on d64 entries without values (cm2's bytes, and
 * best's for mix's three contexts). */
static void test_xform(svpc_ctx *c)
{
    CHECK(svpc_encoder_ignores(SVPC_ENC_CMX) == (SVPC_IGNORES_STAGE | SVPC_IGNORES_LEVEL));
    const size_t n = 20000;
    const st_entry_type types[] = {ST_TYPE_D64, ST_TYPE_M64, ST_TYPE_D32, ST_TYPE_M32};
    for (int ti = 0; ti < 4; ti++)
        for (int data0 = 0; data0 < 2; data0++) {
            const st_entry_type t = types[ti];
            const int wide = t == ST_TYPE_D64; /* the m types have no values */
            uint8_t *raw = make_hash_entries(t, n, 31 + ti, data0);
            st_buf cm2, cmx, best, mix3, mix1;
            encode_checked(c, SVPC_ENC_CM2, 6, t, raw, n, &cm2);
            encode_checked(c, SVPC_ENC_CMX, 6, t, raw, n, &cmx);
            encode_checked(c, SVPC_ENC_BEST, 6, t, raw, n, &best);
            encode_checked(c, SVPC_ENC_MIX, 9, t, raw, n, &mix3);
            encode_checked(c, SVPC_ENC_MIX, 7, t, raw, n, &mix1);
            CHECK(mix3.len > 1 && mix3.data[0] == 7 && mix1.len > 1 && mix1.data[0] == 5);
            const int same = !wide || data0;
            const int same_cm2 = cmx.len == cm2.len && memcmp(cmx.data, cm2.data, cm2.len) == 0;
            const int same_best = mix3.len == best.len + 1 && memcmp(mix3.data + 1, best.data, best.len) == 0;
            CHECK(same_cm2 == same && same_best == same);
            if (!same) {
                /* four of ten values are the transform's: 4 bytes each to
                 * cm2, a few bits to cmx */
                CHECK(cmx.len * 10 < cm2.len * 8);
                CHECK(mix3.len * 10 < best.len * 8);
                CHECK(mix1.len * 10 < cm2.len * 8);
            }
            st_buf_free(&cm2);
            st_buf_free(&cmx);
            st_buf_free(&best);
            st_buf_free(&mix3);
            st_buf_free(&mix1);
            free(raw);
        }
}

/* d64 entries whose values the transform (6.9.1) finds once at each of
 * ten ips (a rotation by 7 of the value before) and never again
 * (random): after that it is tried at every entry, and never right. */
static uint8_t *make_decoy_entries(size_t n, unsigned long long seed)
{
    uint8_t *raw = malloc(n * 32 + 1);
    unsigned long long s = seed;
    uint32_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        const uint32_t v = i >= 20 && i < 30 ? (prev << 7) | (prev >> 25) : (uint32_t)check_rand(&s);
        st_entry e;
        e.cycle = 100 + 3 * i;
        e.meta16 = 0;
        e.ip = 0x401000 + 0x10 * (i % 10);
        e.addr = 0x7FFF0000 + 4 * (i % 64);
        e.data = (uint64_t)4 << 32 | v;
        store_entry(ST_TYPE_D64, raw + i * 32, &e);
        prev = v;
    }
    return raw;
}

/* svpc_stats_frame's payload size for the n d64 entries at raw coded by
 * enc, the payload's first byte byte0 (-1: not known). */
static size_t stats_bytes(svpc_stats_ctx *k, svpc_encoder enc, const uint8_t *raw, size_t n, int byte0)
{
    svpc_cost_stats cost;
    svpc_pred_stats acc;
    memset(&cost, 0, sizeof cost);
    memset(&acc, 0, sizeof acc);
    CHECK(svpc_stats_frame(k, enc, ST_TYPE_D64, raw, n, byte0, &acc, &cost) == ST_OK);
    return cost.payload_bytes;
}

/* cmx's choice (6.9.1): a frame where the transform is tried and never
 * right is cm2's but for its first byte, 1, and decodes; where it is
 * right, its first byte is 0; --stats accounts each as its first byte
 * says it was coded, and without it as the encoder chooses; a first byte
 * other than 0 or 1 is refused. */
static void test_cmx_choice(svpc_ctx *c)
{
    const size_t n = 20000;
    svpc_stats_ctx *k;
    CHECK(svpc_stats_new(&k) == ST_OK);
    uint8_t *decoy = make_decoy_entries(n, 77), *hash = make_hash_entries(ST_TYPE_D64, n, 41, 0);
    st_buf cm2, cmx, on;
    encode_checked(c, SVPC_ENC_CM2, 6, ST_TYPE_D64, decoy, n, &cm2);
    encode_checked(c, SVPC_ENC_CMX, 6, ST_TYPE_D64, decoy, n, &cmx);
    encode_checked(c, SVPC_ENC_CMX, 6, ST_TYPE_D64, hash, n, &on);
    CHECK(cm2.len > 1 && cm2.data[0] == 0 && cmx.len == cm2.len && cmx.data[0] == 1 &&
          memcmp(cmx.data + 1, cm2.data + 1, cm2.len - 1) == 0);
    CHECK(on.len > 1 && on.data[0] == 0);
    CHECK(stats_bytes(k, SVPC_ENC_CMX, decoy, n, -1) == cmx.len && stats_bytes(k, SVPC_ENC_CMX, hash, n, -1) == on.len);
    CHECK(stats_bytes(k, SVPC_ENC_CMX, decoy, n, 1) == cmx.len && stats_bytes(k, SVPC_ENC_CMX, hash, n, 0) == on.len);
    /* coded the other way (as a writer may): the sizes of that coding,
     * cm2's for the hash states without the transform */
    st_buf hash2;
    encode_checked(c, SVPC_ENC_CM2, 6, ST_TYPE_D64, hash, n, &hash2);
    CHECK(hash2.len > on.len && stats_bytes(k, SVPC_ENC_CMX, hash, n, 1) == hash2.len);
    CHECK(stats_bytes(k, SVPC_ENC_CMX, decoy, n, 0) > cmx.len);
    st_buf_free(&hash2);
    uint8_t *dec = malloc(n * 32);
    for (unsigned b = 2; b < 256; b += 125) {
        st_diag d;
        memset(&d, 0, sizeof d);
        cmx.data[0] = (uint8_t)b;
        char want[64];
        snprintf(want, sizeof want, "first byte is 0x%02x: not 0 (the transform on) or 1 (off)", b);
        CHECK(svpc_decode(c, SVPC_ENC_CMX, ST_TYPE_D64, cmx.data, cmx.len, n, dec, &d) == ST_E_CORRUPT &&
              strstr(d.detail, want) != NULL);
    }
    free(dec);
    st_buf_free(&cm2);
    st_buf_free(&cmx);
    st_buf_free(&on);
    free(decoy);
    free(hash);
    svpc_stats_free(k);
}

/* mix (6.11.1): its parameter byte, levels up to 7 one of best's contexts,
 * 8 two, 9 three, each with the transform; each decodes, each differs
 * from the others and from cm2's and best's bytes; the old parameters 1
 * and 2 (no transform) still decode; every other byte is refused. */
static void test_mix(svpc_ctx *c)
{
    CHECK(svpc_encoder_ignores(SVPC_ENC_MIX) == SVPC_IGNORES_STAGE);
    const st_entry_type types[] = {ST_TYPE_D64, ST_TYPE_M32};
    st_diag d;
    for (int ti = 0; ti < 2; ti++) {
        const st_entry_type t = types[ti];
        const size_t n = 20000, esz = st_entry_size(t);
        uint8_t *raw = make_cm2_entries(t, n, 21 + ti), *dec = malloc(n * esz + 1);
        st_buf by_level[10], cm2, best;
        for (int level = 1; level <= 9; level++) {
            encode_checked(c, SVPC_ENC_MIX, level, t, raw, n, &by_level[level]);
            CHECK(by_level[level].len > 1 && by_level[level].data[0] == (level == 9 ? 7 : level == 8 ? 6 : 5));
        }
        const st_buf *one = &by_level[7], *two = &by_level[8];
        for (int level = 1; level <= 8; level++) {
            const st_buf *same = level == 8 ? two : one;
            CHECK(by_level[level].len == same->len && memcmp(by_level[level].data, same->data, same->len) == 0);
        }
        CHECK(one->len != two->len || memcmp(one->data + 1, two->data + 1, one->len - 1) != 0);
        CHECK(two->len != by_level[9].len || memcmp(two->data + 1, by_level[9].data + 1, two->len - 1) != 0);
        encode_checked(c, SVPC_ENC_CM2, 6, t, raw, n, &cm2);
        encode_checked(c, SVPC_ENC_BEST, 6, t, raw, n, &best);
        /* mix's range coder output with one or two contexts is neither cm2's nor best's */
        for (const st_buf *m = one; m; m = m == one ? two : NULL) {
            CHECK(m->len - 1 != cm2.len || memcmp(m->data + 1, cm2.data, cm2.len) != 0);
            CHECK(m->len - 1 != best.len || memcmp(m->data + 1, best.data, best.len) != 0);
        }
        /* bytes other than 1, 2, 5, 6, 7 are refused (3: best's; 4: no
         * contexts; bits above 2); 1 for 5 and 2 for 6 decode without a
         * memory error, to an error or, where no transform was coded, to
         * the same entries */
        uint8_t *bad = malloc(one->len);
        memcpy(bad, one->data, one->len);
        const uint8_t params[] = {0, 3, 4, 8, 13, 255};
        for (int k = 0; k < 6; k++) {
            bad[0] = params[k];
            CHECK(svpc_decode(c, SVPC_ENC_MIX, t, bad, one->len, n, dec, &d) == ST_E_CORRUPT &&
                  strstr(d.detail, "parameter byte") != NULL);
        }
        bad[0] = 6;
        CHECK(svpc_decode(c, SVPC_ENC_MIX, t, bad, one->len, n, dec, &d) != ST_OK || memcmp(dec, raw, n * esz) != 0);
        bad[0] = 1;
        svpc_decode(c, SVPC_ENC_MIX, t, bad, one->len, n, dec, &d);
        free(bad);
        for (int level = 1; level <= 9; level++)
            st_buf_free(&by_level[level]);
        st_buf_free(&cm2);
        st_buf_free(&best);
        free(raw);
        free(dec);
    }
}

/* fast (6.10): every level reads alike; the edges of a frame and of the
 * fields; cuts, a byte more and a wrong count are errors. */
static void test_fast(svpc_ctx *c)
{
    CHECK(svpc_encoder_supports(SVPC_ENC_FAST, ST_TYPE_D64) && svpc_encoder_supports(SVPC_ENC_FAST, ST_TYPE_M32));
    CHECK(!svpc_encoder_supports(SVPC_ENC_FAST, ST_TYPE_VPC) && !svpc_encoder_supports(SVPC_ENC_FAST, ST_TYPE_BYTES));
    svpc_encoder e;
    CHECK(svpc_encoder_parse("fast", &e) && e == SVPC_ENC_FAST && strcmp(svpc_encoder_name(e), "fast") == 0);
    CHECK(svpc_encoder_ignores(SVPC_ENC_FAST) == SVPC_IGNORES_STAGE);
    const st_entry_type types[] = {ST_TYPE_D64, ST_TYPE_D32, ST_TYPE_M64, ST_TYPE_M32};
    st_diag d;
    for (int ti = 0; ti < 4; ti++) {
        const st_entry_type t = types[ti];
        const size_t esz = st_entry_size(t), n = 20000;
        /* the largest value of every field, alone and after others; then
         * all bits clear */
        uint8_t edge[3 * 32], back[3 * 32];
        memset(edge, 0xFF, sizeof edge);
        memset(edge + 2 * esz, 0, esz);
        for (size_t k = 1; k <= 3; k++) {
            svpc_params p = {SVPC_ENC_FAST, SVPC_STAGE_LZMA, 1};
            st_buf out;
            st_buf_init(&out, 0);
            CHECK(svpc_encode(c, &p, t, edge, k, &out) == ST_OK);
            memset(back, 0xEE, sizeof back);
            CHECK(svpc_decode(c, SVPC_ENC_FAST, t, out.data, out.len, k, back, &d) == ST_OK &&
                  memcmp(back, edge, k * esz) == 0);
            st_buf_free(&out);
        }
        uint8_t *raw = make_entries(t, n, 0, 11 + ti), *dec = malloc(n * esz + 1);
        st_buf first, out;
        st_buf_init(&first, 0);
        st_buf_init(&out, 0);
        for (int level = 1; level <= 9; level++) {
            svpc_params p = {SVPC_ENC_FAST, SVPC_STAGE_LZMA, level};
            out.len = 0;
            CHECK(svpc_encode(c, &p, t, raw, n, &out) == ST_OK);
            if (level == 1)
                st_buf_append(&first, out.data, out.len);
            st_error r = svpc_decode(c, SVPC_ENC_FAST, t, out.data, out.len, n, dec, &d);
            CHECK(r == ST_OK && memcmp(dec, raw, n * esz) == 0);
            if (r != ST_OK)
                fprintf(stderr, "  fast type %d level %d: %s: %s\n", t, level, st_error_name(r), d.detail);
            /* its coder is its own: a second stage changes nothing */
            st_buf other;
            st_buf_init(&other, 0);
            p.stage = SVPC_STAGE_BZIP2;
            CHECK(svpc_encode(c, &p, t, raw, n, &other) == ST_OK);
            CHECK(other.len == out.len && memcmp(other.data, out.data, out.len) == 0);
            st_buf_free(&other);
        }
        /* every cut, a byte more and a count one short are errors */
        for (size_t cut = 0; cut < first.len; cut += 1 + first.len / 40)
            CHECK(svpc_decode(c, SVPC_ENC_FAST, t, first.data, cut, n, dec, &d) == ST_E_CORRUPT);
        st_buf_append(&first, (const uint8_t *)"", 1);
        CHECK(svpc_decode(c, SVPC_ENC_FAST, t, first.data, first.len, n, dec, &d) == ST_E_CORRUPT);
        CHECK(svpc_decode(c, SVPC_ENC_FAST, t, first.data, first.len - 1, n - 1, dec, &d) == ST_E_CORRUPT);
        free(raw);
        free(dec);
        st_buf_free(&first);
        st_buf_free(&out);
    }
    /* an empty frame is a header of 7 empty streams: a byte short, or
     * another count of streams, is refused */
    uint8_t none[1];
    st_buf out;
    st_buf_init(&out, 0);
    svpc_params p = {SVPC_ENC_FAST, SVPC_STAGE_LZMA, 1};
    CHECK(svpc_encode(c, &p, ST_TYPE_D64, none, 0, &out) == ST_OK && out.len == 57);
    CHECK(svpc_decode(c, SVPC_ENC_FAST, ST_TYPE_D64, out.data, out.len, 0, none, &d) == ST_OK);
    CHECK(svpc_decode(c, SVPC_ENC_FAST, ST_TYPE_D64, out.data, out.len - 1, 0, none, &d) == ST_E_CORRUPT);
    out.data[0]++;
    CHECK(svpc_decode(c, SVPC_ENC_FAST, ST_TYPE_D64, out.data, out.len, 0, none, &d) == ST_E_CORRUPT);
    out.len = 0;
    uint8_t pair[12] = {0};
    CHECK(svpc_encode(c, &p, ST_TYPE_VPC, pair, 1, &out) == ST_E_USAGE);
    CHECK(svpc_decode(c, SVPC_ENC_FAST, ST_TYPE_VPC, pair, 12, 1, pair, &d) == ST_E_UNSUPPORTED);
    st_buf_free(&out);
}

int main(void)
{
    svpc_ctx *c;
    CHECK(svpc_ctx_new(&c) == ST_OK);
    const st_entry_type types[] = {ST_TYPE_D64, ST_TYPE_D32, ST_TYPE_M64, ST_TYPE_M32};
    const svpc_encoder encs[] = {SVPC_ENC_CM, SVPC_ENC_CM1, SVPC_ENC_PAPER, SVPC_ENC_GENERIC, SVPC_ENC_CM2,
                                 SVPC_ENC_FAST, SVPC_ENC_BEST, SVPC_ENC_MIX, SVPC_ENC_CMX};
    for (int ei = 0; ei < 9; ei++)
        for (int ti = 0; ti < 4; ti++) {
            roundtrip(c, encs[ei], types[ti], SVPC_STAGE_LZMA, 0, 0);
            roundtrip(c, encs[ei], types[ti], SVPC_STAGE_LZMA, 1, 1);
            roundtrip(c, encs[ei], types[ti], SVPC_STAGE_LZMA, 5000, 0);
            roundtrip(c, encs[ei], types[ti], SVPC_STAGE_LZMA, 3000, 1);
            roundtrip(c, encs[ei], types[ti], SVPC_STAGE_BZIP2, 2000, 0);
            roundtrip(c, encs[ei], types[ti], SVPC_STAGE_ZLIB, 2000, 0);
            roundtrip(c, encs[ei], types[ti], SVPC_STAGE_NONE, 2000, 1);
        }
    /* legacy vpc pairs: vpc, cm, cm1 and generic */
    const svpc_encoder vencs[] = {SVPC_ENC_VPC, SVPC_ENC_CM, SVPC_ENC_CM1, SVPC_ENC_GENERIC};
    for (int ei = 0; ei < 4; ei++) {
        roundtrip(c, vencs[ei], ST_TYPE_VPC, SVPC_STAGE_LZMA, 0, 0);
        roundtrip(c, vencs[ei], ST_TYPE_VPC, SVPC_STAGE_LZMA, 1, 1);
        roundtrip(c, vencs[ei], ST_TYPE_VPC, SVPC_STAGE_LZMA, 5000, 0);
        roundtrip(c, vencs[ei], ST_TYPE_VPC, SVPC_STAGE_LZMA, 3000, 1);
        roundtrip(c, vencs[ei], ST_TYPE_VPC, SVPC_STAGE_BZIP2, 2000, 0);
        roundtrip(c, vencs[ei], ST_TYPE_VPC, SVPC_STAGE_NONE, 2000, 1);
    }
    test_vpc_pairs(c);
    test_vpc_encoder(c);
    test_cm2(c, SVPC_ENC_CM2, "cm2", 0);
    test_cm2(c, SVPC_ENC_BEST, "best", 0);
    test_cm2(c, SVPC_ENC_MIX, "mix", 1);
    test_cm2(c, SVPC_ENC_CMX, "cmx", 0);
    test_mix(c);
    test_xform(c);
    test_cmx_choice(c);
    test_fast(c);
    /* one context, alternating encoders: state must not leak between frames */
    roundtrip(c, SVPC_ENC_PAPER, ST_TYPE_D64, SVPC_STAGE_LZMA, 3000, 0);
    roundtrip(c, SVPC_ENC_CM, ST_TYPE_D64, SVPC_STAGE_LZMA, 3000, 0);
    roundtrip(c, SVPC_ENC_CM1, ST_TYPE_D64, SVPC_STAGE_LZMA, 3000, 0);
    roundtrip(c, SVPC_ENC_CM, ST_TYPE_VPC, SVPC_STAGE_LZMA, 3000, 0);
    roundtrip(c, SVPC_ENC_CM1, ST_TYPE_VPC, SVPC_STAGE_LZMA, 3000, 0);
    roundtrip(c, SVPC_ENC_VPC, ST_TYPE_VPC, SVPC_STAGE_LZMA, 3000, 0);
    roundtrip(c, SVPC_ENC_VPC, ST_TYPE_VPC, SVPC_STAGE_LZMA, 70000, 0); /* larger tables */
    roundtrip(c, SVPC_ENC_VPC, ST_TYPE_VPC, SVPC_STAGE_LZMA, 3000, 1);
    roundtrip(c, SVPC_ENC_CM, ST_TYPE_D32, SVPC_STAGE_LZMA, 3000, 0);
    roundtrip(c, SVPC_ENC_CM2, ST_TYPE_D64, SVPC_STAGE_LZMA, 3000, 0);
    roundtrip(c, SVPC_ENC_FAST, ST_TYPE_D64, SVPC_STAGE_LZMA, 3000, 0);
    roundtrip(c, SVPC_ENC_BEST, ST_TYPE_D64, SVPC_STAGE_LZMA, 3000, 0);
    roundtrip(c, SVPC_ENC_CM2, ST_TYPE_M32, SVPC_STAGE_LZMA, 3000, 0);
    roundtrip(c, SVPC_ENC_BEST, ST_TYPE_M32, SVPC_STAGE_LZMA, 3000, 0);
    roundtrip(c, SVPC_ENC_MIX, ST_TYPE_D64, SVPC_STAGE_LZMA, 3000, 0);
    roundtrip(c, SVPC_ENC_CMX, ST_TYPE_D64, SVPC_STAGE_LZMA, 3000, 0);
    roundtrip(c, SVPC_ENC_BEST, ST_TYPE_D64, SVPC_STAGE_LZMA, 3000, 0);
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
