/*
 * test_cvp.c - CVP-1 and CBP-2025 records: the importers' rules and
 * limits, the exporters' byte-for-byte output, the loads' d64 text, and
 * the cvp encoder's round trip (formats/cvp.h, IMPORT.md 17, SIMTRACE.md
 * 6.13).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../formats/cvp.h"
#include "../../formats/trace_io.h"
#include "../../svpc/svpc.h"
#include "check.h"
#include "obuf.h"

/* ---- records built by hand ---------------------------------------------------- */

typedef struct {
    uint8_t b[1 << 16];
    size_t n;
} rbuf;

static void put(rbuf *r, const void *p, size_t n)
{
    memcpy(r->b + r->n, p, n);
    r->n += n;
}
static void put8(rbuf *r, unsigned v) { r->b[r->n++] = (uint8_t)v; }
static void put64(rbuf *r, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        put8(r, (unsigned)(v >> (8 * i)));
}

/* One record: memory fields when type is 1 or 2, branch fields for 3..5
 * and 9..11; outputs' values from seed. */
static void rec(rbuf *r, int cbp, uint64_t pc, unsigned type, uint64_t ea, unsigned taken, uint64_t target,
                unsigned nin, const uint8_t *in, unsigned nout, const uint8_t *out, uint64_t seed)
{
    put64(r, pc);
    put8(r, type);
    if (type == 1 || type == 2) {
        put64(r, ea);
        put8(r, 8);
        if (cbp)
            put8(r, type == 1 ? 1 : 0);
        if (cbp && type == 2)
            put8(r, 1);
    }
    if ((type >= 3 && type <= 5) || type >= 9) {
        put8(r, taken);
        if (taken)
            put64(r, target);
    }
    put8(r, nin);
    put(r, in, nin);
    put8(r, nout);
    put(r, out, nout);
    for (unsigned i = 0; i < nout; i++) {
        put64(r, seed + i);
        if (out[i] >= 32 && out[i] < 64)
            put64(r, ~(seed + i));
    }
}

/* ---- an in-memory sink of one stream ---------------------------------------- */

typedef struct {
    int streams;
    st_entry_type type;
    char header[16];
    uint8_t *e;
    size_t n;
} sink1;

static st_error s_add(void *arg, const st_stream_decl *d, uint32_t *sid)
{
    sink1 *s = arg;
    s->streams++;
    s->type = d->type;
    snprintf(s->header, sizeof s->header, "%.*s", (int)d->header_len, (const char *)d->header);
    *sid = 0;
    return ST_OK;
}

static st_error s_append(void *arg, uint32_t sid, const void *e, size_t n)
{
    sink1 *s = arg;
    (void)sid;
    s->e = realloc(s->e, (s->n + n) * ST_CVP_ENTRY);
    memcpy(s->e + s->n * ST_CVP_ENTRY, e, n * ST_CVP_ENTRY);
    s->n += n;
    return ST_OK;
}

static st_error import(const char *fmt, const rbuf *r, sink1 *s, st_diag *d)
{
    memset(s, 0, sizeof *s);
    FILE *f = tmpfile();
    if (!f || write(fileno(f), r->b, r->n) != (ssize_t)r->n || lseek(fileno(f), 0, SEEK_SET) != 0)
        return ST_E_INTERNAL;
    st_error e = st_import(fmt, fileno(f), NULL, &(st_import_sink){s, s_add, s_append, NULL}, NULL, d);
    fclose(f);
    return e;
}


static st_error export(const char *fmt, const uint8_t *e, size_t n, obuf *o)
{
    memset(o, 0, sizeof *o);
    st_export_stream s = {"trace", ST_TYPE_CVP, ST_CVP_ENTRY, NULL, 0};
    st_exporter *x;
    RETURN_IF_ERROR(st_exporter_new(&x, fmt, &s, o_write, o, NULL, NULL));
    st_error r = st_exporter_write(x, 0, e, n);
    if (r == ST_OK)
        r = st_exporter_finish(x);
    st_exporter_free(x);
    return r;
}

/* Import r as fmt, export it back, compare. */
static int roundtrip(const char *fmt, const rbuf *r, size_t records)
{
    sink1 s;
    st_diag d;
    obuf o = {0};
    int ok = import(fmt, r, &s, &d) == ST_OK && s.n == records && s.streams == 1 && s.type == ST_TYPE_CVP &&
             export(fmt, s.e, s.n, &o) == ST_OK && o.n == r->n && (r->n == 0 || memcmp(o.p, r->b, r->n) == 0);
    free(o.p);
    free(s.e);
    return ok;
}

/* ---- the importers ------------------------------------------------------------- */

static const uint8_t R8[8] = {0, 1, 2, 3, 4, 5, 6, 7};
static const uint8_t SIMD[8] = {32, 33, 63, 0, 64, 65, 1, 2}; /* 2+2+2+1+1+1+1+1 = 11 words for 8 */

static void test_records(void)
{
    rbuf r = {.n = 0};
    CHECK(roundtrip("cbp2025", &r, 0));
    CHECK(roundtrip("cvp", &r, 0));
    sink1 s;
    st_diag d;
    CHECK(import("cbp2025", &r, &s, &d) == ST_OK && s.streams == 1 && strcmp(s.header, "cbp2025") == 0);
    free(s.e);

    rec(&r, 1, 0x1000, 0, 0, 0, 0, 1, R8, 1, R8, 7);
    CHECK(roundtrip("cbp2025", &r, 1));

    /* every kind: loads and stores with their extra bytes, branches taken
     * and not, calls and returns, odd register counts, SIMD values, the
     * limits themselves */
    rec(&r, 1, 0x1004, 1, 0x8000, 0, 0, 3, R8, 3, SIMD, 9);
    rec(&r, 1, 0x1008, 2, 0x8010, 0, 0, 2, R8, 0, R8, 0);
    rec(&r, 1, 0x100c, 3, 0, 0, 0, 1, R8, 0, R8, 0);
    rec(&r, 1, 0x1010, 3, 0, 1, 0x2000, 1, R8, 1, SIMD + 4, 5);
    rec(&r, 1, 0x2000, 9, 0, 1, 0x3000, 0, R8, 1, R8 + 6, 11);
    rec(&r, 1, 0x3000, 11, 0, 1, 0x2004, 1, R8 + 6, 0, R8, 0);
    rec(&r, 1, 0x2004, 6, 0, 0, 0, ST_CVP_IN_MAX, R8, 5, SIMD + 1, 13);  /* 8 inputs; 2+2+1+1+1 words */
    rec(&r, 1, 0x2008, 0, 0, 0, 0, 0, R8, ST_CVP_OUT_MAX, R8, 17);       /* 8 outputs, 8 words */
    rec(&r, 1, 0x200c, 7, 0, 0, 0, 1, R8, 5, SIMD, 19);                  /* 10 words: the limit */
    const size_t n = 10;
    CHECK(roundtrip("cbp2025", &r, n));

    /* the same records in CVP-1's layout (no calls and returns there) */
    rbuf c = {.n = 0};
    rec(&c, 0, 0x1004, 1, 0x8000, 0, 0, 3, R8, 3, SIMD, 9);
    rec(&c, 0, 0x1008, 2, 0x8010, 0, 0, 2, R8, 0, R8, 0);
    rec(&c, 0, 0x1010, 4, 0, 1, 0x2000, 1, R8, 1, SIMD, 5);
    rec(&c, 0, 0x1014, 5, 0, 0, 0, 1, R8, 0, R8, 0);
    CHECK(roundtrip("cvp", &c, 4));
    rbuf c9 = c;
    rec(&c9, 1, 0x2000, 9, 0, 1, 0x3000, 0, R8, 0, R8, 0);
    CHECK(import("cvp", &c9, &s, &d) == ST_E_SYNTAX && s.n == 4 && d.offset == c.n && strstr(d.detail, "cbp2025"));
    free(s.e);

    /* cut off anywhere in the last record: the records before it kept */
    size_t whole = r.n;
    rec(&r, 1, 0x2010, 1, 0x9000, 0, 0, 2, R8, 2, SIMD, 23);
    int cut_ok = 1;
    for (size_t len = whole + 1; len < r.n; len++) {
        rbuf t = r;
        t.n = len;
        st_error e = import("cbp2025", &t, &s, &d);
        cut_ok &= e == ST_E_PARTIAL_ENTRY && s.n == n && d.offset == whole && strstr(d.detail, "record 10") != NULL;
        free(s.e);
    }
    CHECK(cut_ok);
    CHECK(roundtrip("cbp2025", &r, n + 1));

    /* over the limits */
    static const uint8_t R9[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8}, V6[6] = {32, 33, 34, 35, 36, 37};
    const struct {
        unsigned nin, nout;
        const uint8_t *out;
        const char *why;
    } over[] = {{9, 0, R8, "8 input"}, {0, 9, R9, "8 output"}, {0, 6, V6, "80 bytes"}};
    for (unsigned k = 0; k < 3; k++) {
        rbuf t = r;
        rec(&t, 1, 0x3000, 0, 0, 0, 0, over[k].nin, R9, over[k].nout, over[k].out, 1);
        CHECK(import("cbp2025", &t, &s, &d) == ST_E_SYNTAX && s.n == n + 1 && d.offset == r.n &&
              strstr(d.detail, over[k].why));
        free(s.e);
    }
    rbuf t = r;
    rec(&t, 1, 0x3000, 12, 0, 0, 0, 0, R8, 0, R8, 0);
    CHECK(import("cbp2025", &t, &s, &d) == ST_E_SYNTAX && s.n == n + 1);
    free(s.e);

    /* an entry no record gives is refused by the exporters */
    CHECK(import("cbp2025", &r, &s, &d) == ST_OK);
    obuf o;
    s.e[ST_CVP_ENTRY + CVP_ZERO] = 1;
    CHECK(export("cbp2025", s.e, s.n, &o) == ST_E_CORRUPT);
    free(o.p);
    s.e[ST_CVP_ENTRY + CVP_ZERO] = 0;
    CHECK(export("cvp", s.e, s.n, &o) == ST_E_CORRUPT); /* a call: no CVP-1 type */
    free(o.p);
    s.e[CVP_TAKEN] = 1; /* an ALU operation that says it was taken */
    CHECK(export("cbp2025", s.e, s.n, &o) == ST_E_CORRUPT);
    free(o.p);
    free(s.e);
}

/* The loads as d64 text: the base register (first output, base update set)
 * left out, each destination's low size/n bytes. */
static void test_loads(void)
{
    rbuf r = {.n = 0};
    static const uint8_t ldp_wb[3] = {5, 1, 2};
    rec(&r, 1, 0x10, 0, 0, 0, 0, 0, R8, 0, R8, 0);
    rec(&r, 1, 0x14, 1, 0x8000, 0, 0, 1, R8 + 5, 3, ldp_wb, 0x100); /* size 8: 4 bytes of each of two */
    sink1 s;
    st_diag d;
    obuf o;
    CHECK(import("cbp2025", &r, &s, &d) == ST_OK && s.n == 2);
    CHECK(export("cvp-loads", s.e, s.n, &o) == ST_OK);
    CHECK(o.p && strcmp((char *)o.p, "# simtrace text 1 stream=loads type=d64\n0 1 0x14 0x8000 8 0x10200000101\n") == 0);
    if (o.p && check_fail)
        fprintf(stderr, "%s", (char *)o.p);
    free(o.p);
    free(s.e);
}

/* ---- the encoder ----------------------------------------------------------------- */

static void codec_roundtrip(svpc_ctx *c, const uint8_t *raw, size_t n, const char *what)
{
    svpc_params p = {SVPC_ENC_CVP, SVPC_STAGE_NONE, 6};
    st_buf out;
    st_buf_init(&out, 0);
    st_diag d;
    int ok = svpc_encode(c, &p, ST_TYPE_CVP, raw, n, &out) == ST_OK;
    uint8_t *dec = malloc(n * ST_CVP_ENTRY + 1);
    ok = ok && svpc_decode(c, SVPC_ENC_CVP, ST_TYPE_CVP, out.data, out.len, n, dec, &d) == ST_OK &&
         memcmp(dec, raw, n * ST_CVP_ENTRY) == 0;
    /* a prefix, and a payload cut short */
    size_t stop = n / 3;
    ok = ok && svpc_decode_prefix(c, SVPC_ENC_CVP, ST_TYPE_CVP, out.data, out.len, n, stop, dec, &d) == ST_OK &&
         memcmp(dec, raw, stop * ST_CVP_ENTRY) == 0;
    if (n && out.len > 8)
        ok = ok && svpc_decode(c, SVPC_ENC_CVP, ST_TYPE_CVP, out.data, out.len - 8, n, dec, &d) == ST_E_CORRUPT;
    if (!ok)
        fprintf(stderr, "cvp encoder: %s: round trip failed\n", what);
    CHECK(ok);
    free(dec);
    st_buf_free(&out);
}

static void test_codec(void)
{
    svpc_ctx *c;
    CHECK(svpc_ctx_new(&c) == ST_OK);
    CHECK(svpc_encoder_supports(SVPC_ENC_CVP, ST_TYPE_CVP) && !svpc_encoder_supports(SVPC_ENC_CVP, ST_TYPE_D64));

    /* a loop of records: what the predictors are for */
    rbuf r = {.n = 0};
    for (unsigned it = 0; it < 300; it++) {
        rec(&r, 1, 0x1000, 1, 0x8000 + 8 * it, 0, 0, 1, R8, 1, R8, it * 3);
        rec(&r, 1, 0x1004, 6, 0, 0, 0, 2, R8, 1, SIMD, it & 7);
        rec(&r, 1, 0x1008, 3, 0, it % 5 != 4, 0x1000, 1, R8, 0, R8, 0);
        if (it % 5 == 4)
            rec(&r, 1, 0x100c, 2, 0x9000 + it, 0, 0, 2, R8, 0, R8, 0);
    }
    sink1 s;
    st_diag d;
    CHECK(import("cbp2025", &r, &s, &d) == ST_OK);
    codec_roundtrip(c, s.e, s.n, "a loop");
    codec_roundtrip(c, s.e, 0, "no entries");
    codec_roundtrip(c, s.e, 1, "one entry");

    /* any bytes: the fields no record has, register counts past the
     * limits */
    unsigned long long seed = 42;
    const size_t n = 500;
    uint8_t *any = malloc(n * ST_CVP_ENTRY);
    for (size_t i = 0; i < n * ST_CVP_ENTRY; i++)
        any[i] = (uint8_t)check_rand(&seed);
    for (size_t i = 0; i < n; i += 2) /* half of them near the real ones */
        memcpy(any + i * ST_CVP_ENTRY, s.e + (i % s.n) * ST_CVP_ENTRY, ST_CVP_ENTRY - (i % 50));
    codec_roundtrip(c, any, n, "any bytes");
    free(any);
    free(s.e);
    svpc_ctx_free(c);
}

int main(void)
{
    test_records();
    test_loads();
    test_codec();
    return check_done("test_cvp");
}
