/* test_drmemtrace.c - the drmemtrace encoder (svpc/drmem.c) and importer
 * (formats/import_drmemtrace.c): round trips of made-up traces with every
 * kind of record, escapes and edge sizes; prefixes; payloads cut short;
 * the importer's handling of empty, cut-off and foreign input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../formats/trace_io.h"
#include "../../svpc/svpc.h"
#include "check.h"

#define ESZ 12u

static void put(uint8_t *p, size_t *n, unsigned t, unsigned s, uint64_t a)
{
    st_store16(p + *n * ESZ, (uint16_t)t);
    st_store16(p + *n * ESZ + 2, (uint16_t)s);
    st_store64(p + *n * ESZ + 4, a);
    (*n)++;
}

/* A made-up thread: a header, then loops of instructions with encodings
 * the first time, loads and stores with strides, calls and returns,
 * branch-target markers, timestamps; then random records of any type,
 * size and value; then a footer.  At most cap records. */
static size_t make_trace(uint8_t *p, size_t cap, unsigned long long seed)
{
    size_t n = 0;
    put(p, &n, 25, 0, 4);
    put(p, &n, 22, 4, 1234);
    put(p, &n, 24, 4, 1234);
    uint64_t base = 0x7f0000001000ull, stack = 0x7ffe00000000ull;
    for (unsigned it = 0; n + 64 < cap / 2; it++) {
        put(p, &n, 28, 2, 13186525363117589ull + it * 17);
        for (unsigned k = 0; k < 12 && n + 16 < cap; k++) {
            uint64_t pc = base + k * 5;
            if (it == 0) /* encodings precede an instruction's first execution */
                put(p, &n, 47, 5, 0x48890424ull + k);
            put(p, &n, k == 11 ? 13 : 10, 5, pc);
            if (k % 3 == 0)
                put(p, &n, 0, 8, stack - 8 * (it % 7) + k);
            if (k % 4 == 1)
                put(p, &n, 1, 4, 0x601000ull + 16 * it);
        }
        if (it % 5 == 0) {
            put(p, &n, 14, 5, base + 60);
            put(p, &n, 10, 1, 0x401000);
            put(p, &n, 28, 29, base + 65);
            put(p, &n, 16, 1, 0x401001);
        }
    }
    while (n + 1 < cap) {
        unsigned long long r = check_rand(&seed);
        unsigned t = (unsigned)(r % 80) == 79 ? (unsigned)(r >> 20) & 0xFFFF : (unsigned)(r % 64);
        put(p, &n, t, (unsigned)(r >> 40) & (r & 1 ? 0xFFFF : 15), check_rand(&seed) >> (r % 64));
    }
    put(p, &n, 26, 0, 0);
    return n;
}

static size_t grow_more(void *arg, size_t have)
{
    size_t *avail = arg;
    return have < *avail ? (have + 1000 < *avail ? have + 1000 : *avail) : have;
}

static void codec_round_trips(void)
{
    svpc_ctx *c;
    CHECK(svpc_ctx_new(&c) == ST_OK);
    svpc_params p = {SVPC_ENC_DRMEMTRACE, SVPC_STAGE_LZMA, 6};
    CHECK(svpc_encoder_supports(SVPC_ENC_DRMEMTRACE, ST_TYPE_DRMEMTRACE));
    CHECK(!svpc_encoder_supports(SVPC_ENC_DRMEMTRACE, ST_TYPE_D64));
    CHECK(!svpc_encoder_supports(SVPC_ENC_CM2, ST_TYPE_DRMEMTRACE));
    svpc_encoder e;
    CHECK(svpc_encoder_parse("drmemtrace", &e) && e == SVPC_ENC_DRMEMTRACE);
    CHECK(st_entry_size(ST_TYPE_DRMEMTRACE) == 12 && strcmp(st_entry_name(ST_TYPE_DRMEMTRACE), "drmemtrace") == 0);
    CHECK(st_entry_parse("drmemtrace") == ST_TYPE_DRMEMTRACE);
    CHECK(st_entry_from_guid(st_entry_guid(ST_TYPE_DRMEMTRACE)) == ST_TYPE_DRMEMTRACE);
    CHECK(st_entry_size((st_entry_type)13) == 0 && strcmp(st_entry_name((st_entry_type)13), "?") == 0);

    const size_t cap = 60000;
    uint8_t *raw = malloc(cap * ESZ), *back = malloc((cap + 1) * ESZ); /* n + 1 are asked for below */
    size_t sizes[] = {0, 1, 2, 3, 200, 5000, cap};
    for (unsigned z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        size_t n = sizes[z] ? make_trace(raw, sizes[z], 77 + z) : 0;
        if (sizes[z] == 1)
            n = 1; /* the header alone */
        st_buf out;
        st_buf_init(&out, 0);
        CHECK(svpc_encode(c, &p, ST_TYPE_DRMEMTRACE, raw, n, &out) == ST_OK);
        st_diag d;
        memset(back, 0xAA, cap * ESZ);
        CHECK(svpc_decode(c, SVPC_ENC_DRMEMTRACE, ST_TYPE_DRMEMTRACE, out.data, out.len, n, back, &d) == ST_OK);
        CHECK(memcmp(raw, back, n * ESZ) == 0);
        /* a prefix decodes to the same entries */
        size_t stop = n / 3;
        CHECK(svpc_decode_prefix(c, SVPC_ENC_DRMEMTRACE, ST_TYPE_DRMEMTRACE, out.data, out.len, n, stop, back, &d) ==
              ST_OK);
        CHECK(memcmp(raw, back, stop * ESZ) == 0);
        /* entries that arrive while coding: the same payload */
        st_buf fed;
        st_buf_init(&fed, 0);
        size_t avail = n, got = 0;
        svpc_source src = {grow_more, &avail};
        CHECK(svpc_encode_source(c, &p, ST_TYPE_DRMEMTRACE, raw, &src, &got, &fed) == ST_OK);
        CHECK(got == n && fed.len == out.len && memcmp(fed.data, out.data, out.len) == 0);
        /* a payload cut short, or one entry too many asked for: an error */
        if (n > 1) {
            CHECK(svpc_decode(c, SVPC_ENC_DRMEMTRACE, ST_TYPE_DRMEMTRACE, out.data, out.len / 2, n, back, &d) ==
                  ST_E_CORRUPT);
            CHECK(svpc_decode(c, SVPC_ENC_DRMEMTRACE, ST_TYPE_DRMEMTRACE, out.data, out.len, n + 1, back, &d) ==
                  ST_E_CORRUPT);
        }
        /* a damaged payload never crashes */
        for (size_t k = 0; k < out.len && k < 64; k++) {
            out.data[k] ^= 0x5A;
            (void)svpc_decode(c, SVPC_ENC_DRMEMTRACE, ST_TYPE_DRMEMTRACE, out.data, out.len, n, back, &d);
            out.data[k] ^= 0x5A;
        }
        st_buf_free(&out);
        st_buf_free(&fed);
    }
    /* a repeated loop costs little: under half a bit per entry */
    size_t n = 0;
    for (unsigned it = 0; n + 8 < 40000; it++)
        for (unsigned k = 0; k < 4; k++) {
            put(raw, &n, 10, 4, 0x400000 + 4 * k);
            put(raw, &n, 0, 8, 0x600000 + 8 * (it % 100));
        }
    st_buf out;
    st_buf_init(&out, 0);
    CHECK(svpc_encode(c, &p, ST_TYPE_DRMEMTRACE, raw, n, &out) == ST_OK);
    CHECK(out.len * 8 < n / 2);
    st_buf_free(&out);
    free(raw);
    free(back);
    svpc_ctx_free(c);
}

/* ---- the importer ---- */

typedef struct {
    int ns;
    char name[4][300];
    uint8_t *data;
    size_t n;
} sink;

static st_error add(void *arg, const st_stream_decl *d, uint32_t *sid)
{
    sink *s = arg;
    if (s->ns == 4 || d->type != ST_TYPE_DRMEMTRACE)
        return ST_E_USAGE;
    snprintf(s->name[s->ns], sizeof s->name[0], "%s", d->name);
    *sid = (uint32_t)s->ns++;
    return ST_OK;
}

static st_error append(void *arg, uint32_t sid, const void *e, size_t n)
{
    sink *s = arg;
    if (sid != 0)
        return ST_E_USAGE;
    s->data = realloc(s->data, (s->n + n) * ESZ);
    memcpy(s->data + s->n * ESZ, e, n * ESZ);
    s->n += n;
    return ST_OK;
}

/* Import len bytes of p through a temporary file. */
static st_error import_bytes(const uint8_t *p, size_t len, sink *s, st_diag *d)
{
    FILE *f = tmpfile();
    if (!f || fwrite(p, 1, len, f) != len || fflush(f) != 0 || lseek(fileno(f), 0, SEEK_SET) != 0)
        abort();
    memset(s, 0, sizeof *s);
    st_import_opts o = {.prefix = "x."};
    st_error e = st_import("drmemtrace", fileno(f), &o, &(st_import_sink){s, add, append, NULL}, NULL, d);
    fclose(f);
    return e;
}

static void importer(void)
{
    const size_t cap = 3000;
    uint8_t *raw = malloc(cap * ESZ);
    size_t n = make_trace(raw, cap, 5);
    sink s;
    st_diag d;
    CHECK(import_bytes(raw, n * ESZ, &s, &d) == ST_OK);
    CHECK(s.ns == 1 && strcmp(s.name[0], "x.tid1234") == 0 && s.n == n && memcmp(s.data, raw, n * ESZ) == 0);
    free(s.data);
    /* cut off: the whole records kept, the cut one named with its offset */
    CHECK(import_bytes(raw, 100 * ESZ + 7, &s, &d) == ST_E_PARTIAL_ENTRY);
    CHECK(s.n == 100 && memcmp(s.data, raw, 100 * ESZ) == 0 && d.offset == 100 * ESZ && strstr(d.detail, "record 100"));
    free(s.data);
    /* fewer records than the naming window, then cut off: kept too */
    CHECK(import_bytes(raw, 2 * ESZ + 1, &s, &d) == ST_E_PARTIAL_ENTRY && s.n == 2);
    free(s.data);
    /* empty: one stream of no records, named "trace" */
    CHECK(import_bytes(raw, 0, &s, &d) == ST_OK && s.ns == 1 && s.n == 0 && strcmp(s.name[0], "x.trace") == 0);
    free(s.data);
    /* not a trace: nothing declared */
    CHECK(import_bytes(raw + ESZ, 10 * ESZ, &s, &d) == ST_E_NOT_FORMAT && s.ns == 0 && d.offset == 0);
    free(s.data);
    CHECK(import_bytes((const uint8_t *)"PK\3\4 not really a zip", 22, &s, &d) == ST_E_CORRUPT && s.ns == 0);
    free(s.data);
    free(raw);
}

int main(void)
{
    codec_round_trips();
    importer();
    return check_done("test_drmemtrace");
}
