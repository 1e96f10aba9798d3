/* ChampSim records (formats/entry.h types champsim and champsim-cloudsuite)
 * through encoder 8 (svpc/champsim.c) and the champsim importer:
 *   - round trips of made-up traces, loops with strides, stack pushes and
 *     branches, and of random bytes (every byte kept, padding included);
 *   - prefixes (svpc_decode_prefix) give the first records;
 *   - a payload cut short, with a byte changed or with bytes left over is
 *     refused, never read outside its bounds;
 *   - the importer keeps the whole records before one cut off and says
 *     where it is. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../formats/trace_io.h"
#include "../../svpc/svpc.h"
#include "check.h"

/* A made-up trace of n records of type t: a loop over a few
 * instructions, each with its registers, a strided load, pushes on a
 * stack, a branch taken every 7th time; with noise, random records. */
static uint8_t *make_trace(st_entry_type t, size_t n, int noise, unsigned long long seed)
{
    const size_t esz = st_entry_size(t);
    uint8_t *raw = calloc(n ? n : 1, esz);
    unsigned long long s = seed;
    const unsigned moff = ST_CS_MEM_OFF(t), nd = ST_CS_NDST(t);
    uint64_t sp = 0x7ffe00001000u, arr = 0x601000;
    for (size_t i = 0; i < n; i++) {
        uint8_t *r = raw + i * esz;
        if (noise && check_rand(&s) % 5 == 0) {
            for (size_t j = 0; j < esz; j++)
                r[j] = (uint8_t)check_rand(&s);
            continue;
        }
        const unsigned k = (unsigned)(i % 6);
        st_store64(r, 0x401000 + 4 * k);
        for (unsigned j = 0; j < ST_CS_REGS(t); j++)
            r[10 + j] = (uint8_t)(k * 3 + j);
        if (k == 1)
            st_store64(r + moff + 8 * nd, arr += 8);
        if (k == 2)
            st_store64(r + moff, sp -= 8);
        if (k == 5) {
            r[8] = 1;
            r[9] = (i / 6) % 7 != 0;
        }
        if (t == ST_TYPE_CHAMPSIM_CS) {
            r[ST_CS_TAIL_OFF] = 1;
            r[ST_CS_TAIL_OFF + 1] = (uint8_t)(i / 1000);
        }
    }
    return raw;
}

static void roundtrip(svpc_ctx *c, st_entry_type t, size_t n, int noise)
{
    const size_t esz = st_entry_size(t);
    uint8_t *raw = make_trace(t, n, noise, 0x1234567 + n);
    st_buf out;
    st_buf_init(&out, 0);
    svpc_params p = {SVPC_ENC_CHAMPSIM, SVPC_STAGE_LZMA, 6};
    CHECK(svpc_encode(c, &p, t, raw, n, &out) == ST_OK);
    uint8_t *dec = malloc(n * esz + 1);
    st_diag d;
    memset(&d, 0, sizeof d);
    CHECK(svpc_decode(c, SVPC_ENC_CHAMPSIM, t, out.data, out.len, n, dec, &d) == ST_OK);
    CHECK(memcmp(dec, raw, n * esz) == 0);
    if (!noise && n >= 6000)
        CHECK(out.len * 20 < n * esz); /* the loop is nearly free */
    /* a prefix decodes to the same first records */
    if (n > 10) {
        memset(dec, 0, n * esz);
        CHECK(svpc_decode_prefix(c, SVPC_ENC_CHAMPSIM, t, out.data, out.len, n, n / 2, dec, &d) == ST_OK);
        CHECK(memcmp(dec, raw, n / 2 * esz) == 0);
    }
    /* cut short, a byte changed, a byte too many: refused (a changed byte
     * may still decode to other records: never silently to these ones) */
    if (n > 0 && out.len > 8) {
        CHECK(svpc_decode(c, SVPC_ENC_CHAMPSIM, t, out.data, out.len - 3, n, dec, &d) == ST_E_CORRUPT);
        out.data[out.len / 2] ^= 0x40;
        st_error e = svpc_decode(c, SVPC_ENC_CHAMPSIM, t, out.data, out.len, n, dec, &d);
        CHECK(e == ST_E_CORRUPT || (e == ST_OK && memcmp(dec, raw, n * esz) != 0));
        out.data[out.len / 2] ^= 0x40;
        CHECK(st_buf_reserve(&out, out.len + 1) == ST_OK);
        out.data[out.len] = 0;
        CHECK(svpc_decode(c, SVPC_ENC_CHAMPSIM, t, out.data, out.len + 1, n, dec, &d) == ST_E_CORRUPT);
    }
    free(dec);
    free(raw);
    st_buf_free(&out);
}

/* A frame depends on nothing before it: encoded in a context that coded
 * another trace before, it decodes in a fresh context, and in one that
 * decoded yet another trace (the lines the codec keeps from frame to
 * frame must look empty). */
static void independent(svpc_ctx *c)
{
    const size_t n = 3000;
    uint8_t *a = make_trace(ST_TYPE_CHAMPSIM, n, 1, 5), *b = make_trace(ST_TYPE_CHAMPSIM, n, 1, 6);
    /* a uses line 0 (ip 0x10001: 0x0001 ^ 0x1), which is the previous
     * record's line at a frame's start; b's ips are a's in another order */
    st_store64(a + 10 * 64, 0x10001);
    a[10 * 64 + 10] = 7;
    for (size_t i = 0; i < n; i += 2)
        st_store64(b + i * 64, st_load64(a + (n - 1 - i) * 64));
    st_buf out, junkbuf;
    st_buf_init(&out, 0);
    st_buf_init(&junkbuf, 0);
    svpc_params p = {SVPC_ENC_CHAMPSIM, SVPC_STAGE_LZMA, 6};
    CHECK(svpc_encode(c, &p, ST_TYPE_CHAMPSIM, a, n, &junkbuf) == ST_OK);
    CHECK(svpc_encode(c, &p, ST_TYPE_CHAMPSIM, b, n, &out) == ST_OK);
    svpc_ctx *fresh;
    CHECK(svpc_ctx_new(&fresh) == ST_OK);
    uint8_t *dec = malloc(n * 64);
    st_diag d;
    memset(&d, 0, sizeof d);
    CHECK(svpc_decode(fresh, SVPC_ENC_CHAMPSIM, ST_TYPE_CHAMPSIM, out.data, out.len, n, dec, &d) == ST_OK);
    CHECK(memcmp(dec, b, n * 64) == 0);
    CHECK(svpc_decode(fresh, SVPC_ENC_CHAMPSIM, ST_TYPE_CHAMPSIM, junkbuf.data, junkbuf.len, n, dec, &d) == ST_OK);
    CHECK(svpc_decode(fresh, SVPC_ENC_CHAMPSIM, ST_TYPE_CHAMPSIM, out.data, out.len, n, dec, &d) == ST_OK);
    CHECK(memcmp(dec, b, n * 64) == 0);
    svpc_ctx_free(fresh);
    free(dec);
    free(a);
    free(b);
    st_buf_free(&out);
    st_buf_free(&junkbuf);
}

/* Random payloads decode to an error or to records, within bounds (ASan). */
static void junk(svpc_ctx *c)
{
    unsigned long long s = 99;
    uint8_t buf[512], dec[96 * 64];
    for (int i = 0; i < 400; i++) {
        size_t len = check_rand(&s) % sizeof buf;
        for (size_t j = 0; j < len; j++)
            buf[j] = (uint8_t)check_rand(&s);
        if (len)
            buf[0] = 0; /* the range coder's first byte, so the rest is read */
        st_diag d;
        memset(&d, 0, sizeof d);
        st_entry_type t = i % 2 ? ST_TYPE_CHAMPSIM : ST_TYPE_CHAMPSIM_CS;
        st_error e = svpc_decode(c, SVPC_ENC_CHAMPSIM, t, buf, len, 64, dec, &d);
        CHECK(e == ST_OK || e == ST_E_CORRUPT);
    }
}

/* ---- the importer: a sink that keeps one stream's entries ---- */

typedef struct {
    uint8_t *p;
    size_t n, esz;
    int streams;
} one_sink;

static st_error s_add(void *arg, const st_stream_decl *decl, uint32_t *sid)
{
    one_sink *k = arg;
    *sid = (uint32_t)k->streams++;
    if (*sid == 0)
        k->esz = st_entry_size(decl->type);
    return ST_OK;
}

static st_error s_append(void *arg, uint32_t sid, const void *e, size_t n)
{
    one_sink *k = arg;
    if (sid != 0)
        return ST_OK;
    uint8_t *p = realloc(k->p, (k->n + n) * k->esz);
    if (!p)
        return ST_E_NOMEM;
    memcpy(p + k->n * k->esz, e, n * k->esz);
    k->p = p;
    k->n += n;
    return ST_OK;
}

static void import_cut(void)
{
    const size_t n = 5000; /* more than a batch of the importer's */
    uint8_t *raw = make_trace(ST_TYPE_CHAMPSIM, n, 1, 7);
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f)
        return;
    int fd = fileno(f);
    const size_t len = n * 64 - 10;
    CHECK(write(fd, raw, len) == (ssize_t)len && lseek(fd, 0, SEEK_SET) == 0);
    one_sink k = {0};
    st_diag d;
    st_import_stats st;
    CHECK(st_import("champsim", fd, NULL, &(st_import_sink){&k, s_add, s_append, NULL}, &st, &d) ==
          ST_E_PARTIAL_ENTRY);
    CHECK(k.n == n - 1 && memcmp(k.p, raw, (n - 1) * 64) == 0);
    CHECK(d.offset == (n - 1) * 64 && strstr(d.detail, "record 5000 is cut off: 54 of its 64 bytes") != NULL);
    CHECK(st.bytes == len && st.entries == n - 1);
    /* the -mem importer: the records, and one entry per nonzero operand */
    free(k.p);
    memset(&k, 0, sizeof k);
    CHECK(lseek(fd, 0, SEEK_SET) == 0 && ftruncate(fd, 64 * 6) == 0);
    CHECK(st_import("champsim-mem", fd, NULL, &(st_import_sink){&k, s_add, s_append, NULL}, &st, &d) == ST_OK);
    size_t ops = 0;
    for (size_t i = 0; i < 6; i++)
        for (unsigned j = 0; j < 6; j++)
            ops += st_load64(raw + i * 64 + 16 + 8 * j) != 0;
    CHECK(k.n == 6 && st.entries == 6 + ops && k.streams == 1 + (ops > 0) + (ops > 0));
    free(k.p);
    fclose(f);
    free(raw);
}

int main(void)
{
    svpc_ctx *c;
    CHECK(svpc_ctx_new(&c) == ST_OK);
    CHECK(svpc_encoder_supports(SVPC_ENC_CHAMPSIM, ST_TYPE_CHAMPSIM));
    CHECK(svpc_encoder_supports(SVPC_ENC_CHAMPSIM, ST_TYPE_CHAMPSIM_CS));
    CHECK(!svpc_encoder_supports(SVPC_ENC_CHAMPSIM, ST_TYPE_D64));
    CHECK(!svpc_encoder_supports(SVPC_ENC_CM2, ST_TYPE_CHAMPSIM));
    svpc_encoder e;
    CHECK(svpc_encoder_parse("champsim", &e) && e == SVPC_ENC_CHAMPSIM);
    CHECK(st_entry_size(ST_TYPE_CHAMPSIM) == 64 && st_entry_size(ST_TYPE_CHAMPSIM_CS) == 96);
    CHECK(st_entry_parse("champsim-cloudsuite") == ST_TYPE_CHAMPSIM_CS);
    CHECK(st_entry_from_guid(st_entry_guid(ST_TYPE_CHAMPSIM)) == ST_TYPE_CHAMPSIM);
    CHECK(st_entry_from_guid(st_entry_guid(ST_TYPE_CHAMPSIM_CS)) == ST_TYPE_CHAMPSIM_CS);
    const size_t sizes[] = {0, 1, 2, 7, 100, 6000, 40000};
    for (int t = 0; t < 2; t++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            for (int noise = 0; noise < 2; noise++)
                roundtrip(c, t ? ST_TYPE_CHAMPSIM_CS : ST_TYPE_CHAMPSIM, sizes[i], noise);
    junk(c);
    independent(c);
    import_cut();
    svpc_ctx_free(c);
    return check_done("test_champsim");
}
