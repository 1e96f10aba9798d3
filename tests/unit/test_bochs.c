/* Bochs debugger-log importer: every line kind field by field, wide values
 * through vblocks, malformed and binary input, skip_bad, and the bundled
 * real sample (testdata/good/sample.bochs.xz; the Makefile runs unit tests
 * from the repository root). */
#include "../../formats/import_internal.h"
#include "check.h"

#include <lzma.h>
#include <stdlib.h>
#include <string.h>

/* ---- a sink that keeps everything ---------------------------------------- */

#define MAXS 32
typedef struct {
    char name[96];
    st_entry_type type;
    uint32_t owner;
    uint8_t *buf;
    size_t n, cap; /* entries */
} cstream;

typedef struct {
    cstream s[MAXS];
    uint32_t n;
    int order_ok;    /* every vblock arrived after its owner entry */
    int fail_append; /* >0: the n-th append fails */
    unsigned warned;
} csink;

static st_error c_add(void *arg, const st_stream_decl *d, uint32_t *sid)
{
    csink *k = arg;
    if (k->n == MAXS)
        return ST_E_TOO_LARGE;
    cstream *s = &k->s[k->n];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", d->name);
    s->type = d->type;
    s->owner = d->owner;
    *sid = k->n++;
    return ST_OK;
}

static st_error c_append(void *arg, uint32_t sid, const void *e, size_t n)
{
    csink *k = arg;
    if (k->fail_append > 0 && --k->fail_append == 0)
        return ST_E_WRITE;
    if (sid >= k->n)
        return ST_E_BAD_STREAM;
    cstream *s = &k->s[sid];
    size_t es = st_entry_size(s->type);
    if (s->n + n > s->cap) {
        size_t cap = (s->n + n) * 2;
        uint8_t *b = realloc(s->buf, cap * es);
        if (!b)
            return ST_E_NOMEM;
        s->buf = b;
        s->cap = cap;
    }
    memcpy(s->buf + s->n * es, e, n * es);
    if (s->type == ST_TYPE_VBLOCK) /* owners must be there already */
        for (size_t i = 0; i < n; i++)
            if ((st_load64((const uint8_t *)e + i * 32) & ST_CYCLE_MASK) >= k->s[s->owner].n)
                k->order_ok = 0;
    s->n += n;
    return ST_OK;
}

static void c_warn(void *arg, const st_diag *d)
{
    (void)d;
    ((csink *)arg)->warned++;
}

static void c_free(csink *k)
{
    for (uint32_t i = 0; i < k->n; i++)
        free(k->s[i].buf);
    memset(k, 0, sizeof *k);
}

static cstream *find(csink *k, const char *name)
{
    for (uint32_t i = 0; i < k->n; i++)
        if (strcmp(k->s[i].name, name) == 0)
            return &k->s[i];
    return NULL;
}

static st_entry mem(cstream *s, size_t i)
{
    st_entry e;
    memset(&e, 0xEE, sizeof e);
    if (s && i < s->n)
        st_entry_load(ST_TYPE_D64, s->buf + i * 32, &e);
    return e;
}

/* ---- running the importer on a buffer ------------------------------------ */

static st_error import_buf(const void *text, size_t len, int skip_bad, const char *prefix, csink *k,
                           st_import_stats *st, st_diag *d)
{
    c_free(k);
    k->order_ok = 1;
    FILE *f = tmpfile();
    if (!f || fwrite(text, 1, len, f) != len || fflush(f) != 0) {
        if (f)
            fclose(f);
        return ST_E_WRITE;
    }
    rewind(f);
    st_import_opts o = {.skip_bad = skip_bad, .prefix = prefix, .warn = c_warn, .warn_arg = k};
    st_import_sink sink = {k, c_add, c_append, NULL};
    st_diag_clear(d);
    st_error e = st_import_bochs(fileno(f), &o, &sink, st, d);
    fclose(f);
    return e;
}

static st_error import_str(const char *text, int skip_bad, csink *k, st_import_stats *st, st_diag *d)
{
    return import_buf(text, strlen(text), skip_bad, NULL, k, st, d);
}

/* ---- every line kind ------------------------------------------------------ */

static const char kinds[] =
    "Next at t=0\n"
    "(0) [0x0000fffffff0] f000:fff0 (unk. ctxt): jmpf 0xf000:e05b          ; ea5be000f0\n"
    "trace-mem on\n"
    "Memory-Tracing enabled for CPU0\n"
    "trace on\n"
    "Tracing enabled for CPU0\n"
    "s 200000\n"
    "(0).[25] [0x0000000fe0af] f000:e0af (unk. ctxt): mov byte ptr ds:0x04b0, bl ; 881eb004\n"
    "[CPU0 WR]: LIN 0x00000000000004b0 PHY 0x0000000004b0 (len=1, UC): 0x7F\n"
    "[CPU0 RD]: LIN 0x000000000000ffec PHY 0x00000000ffec (len=2, UC): 0xFFFA\n"
    "(0).[26] [0x0000000f0cab] f000:0cab (unk. ctxt): lock xchg dword ptr ds:[bx], eax ; f0678707\n"
    "[CPU0 RW]: LIN 0x0000000000000400 PHY 0x000000000400 (len=4, UC): 0x12345678\n"
    "[CPU0 WR]: PHY 0x000000000400 (len=4, UC): 0x9ABCDEF0\n"
    "[CPU0 RD]: LIN 0x0000000000007000 PHY 0x000000007000 (len=8, UC): 0x89ABCDEF 0x01234567\n"
    "[CPU0 RD]: PHY 0x0000000a8000 (len=4, WB): 0xDEADBEEF\t; SMRAM\n"
    "CPU 0: Interrupt 0x10 occurred (error_code=0x0000)\n"
    "(0).[27] [0x0000000f0000] f000:0000 (unk. ctxt): hlt ; f4\n"
    "CPU 0: HALTED\n"
    "\n"
    "(1).[28] [0x000000100000] 0008:00100000 (unk. ctxt): movdqu xmmword ptr ds:[eax], xmm0 ; f30f7f00\n"
    "[CPU1 WR]: LIN 0x0000000000200000 PHY 0x000000200000 (len=16, UC): 0x00112233 0x44556677 0x8899AABB "
    "0xCCDDEEFF\n"
    "[CPU1 RD]: LIN 0x0000000000200010 PHY 0x000000200010 (len=6, UC) 01 02 03 04 05 06\n"
    "[CPU1 RD]: LIN 0x0000000000200020 PHY 0x000000200020 (len=3, UC) 0a 0b 0c\n"
    "[CPU1 WR]: LIN 0x0000000000200040 PHY 0x000000200040 (len=32, UC): 0x00000007 0x00000006 0x00000005 "
    "0x00000004 0x00000003 0x00000002 0x00000001 0x00000000\n"
    "CPU 1: Exception 0x0e occurred (error_code=0x0002)\n"
    "(0).[29] ??? (physical address not available)\n"
    "[CPU0 WR]: LIN 0x0000000000000500 PHY 0x000000000500 (len=2, UC): 0x0001\n"
    "q\n";

static void test_kinds(void)
{
    csink k = {0};
    st_import_stats st;
    st_diag d;
    CHECK(import_str(kinds, 0, &k, &st, &d) == ST_OK);
    CHECK(st.lines == 28);
    CHECK(st.bytes == sizeof kinds - 1);
    CHECK(st.bad_lines == 0);
    CHECK(k.order_ok);
    /* streams in the order of their first entry */
    static const char *const names[] = {"cpu0.write", "cpu0.read", "cpu0.phys.write", "cpu0.phys.read",
                                        "cpu0.events", "cpu1.write", "cpu1.write.vdata", "cpu1.read",
                                        "cpu1.read.vdata", "cpu1.events"};
    CHECK(k.n == 10);
    for (uint32_t i = 0; i < k.n && i < 10; i++)
        CHECK(strcmp(k.s[i].name, names[i]) == 0);

    cstream *w = find(&k, "cpu0.write"), *r = find(&k, "cpu0.read");
    CHECK(w && w->type == ST_TYPE_D64 && w->owner == UINT32_MAX && w->n == 3);
    CHECK(r && r->n == 3);
    st_entry e = mem(w, 0);
    CHECK(e.cycle == 25 && e.meta16 == 0 && e.ip == 0xe0af && e.addr == 0x4b0 && e.data == (1ull << 32 | 0x7F));
    e = mem(r, 0);
    CHECK(e.cycle == 25 && e.ip == 0xe0af && e.addr == 0xffec && e.data == (2ull << 32 | 0xFFFA));
    /* RW: read first, then write, both with the linear address */
    e = mem(r, 1);
    CHECK(e.cycle == 26 && e.ip == 0x0cab && e.addr == 0x400 && e.data == (4ull << 32 | 0x12345678));
    e = mem(w, 1);
    CHECK(e.cycle == 26 && e.addr == 0x400 && e.data == (4ull << 32 | 0x12345678));
    /* len=8: fullSize, two words high first */
    e = mem(r, 2);
    CHECK(e.cycle == 26 && e.meta16 == 1 && e.addr == 0x7000 && e.data == 0x89ABCDEF01234567ull);
    /* the "???" line keeps the ip, takes the counter */
    e = mem(w, 2);
    CHECK(e.cycle == 29 && e.ip == 0 && e.addr == 0x500 && e.data == (2ull << 32 | 1));

    cstream *pw = find(&k, "cpu0.phys.write"), *pr = find(&k, "cpu0.phys.read");
    CHECK(pw && pw->n == 1 && pr && pr->n == 1);
    e = mem(pw, 0);
    CHECK(e.cycle == 26 && e.ip == 0x0cab && e.addr == 0x400 && e.data == (4ull << 32 | 0x9ABCDEF0));
    e = mem(pr, 0);
    CHECK(e.addr == 0xa8000 && e.data == (4ull << 32 | 0xDEADBEEF));

    cstream *ev = find(&k, "cpu0.events");
    CHECK(ev && ev->type == ST_TYPE_EVENT && ev->n == 2);
    if (ev && ev->n == 2) {
        const uint8_t *p = ev->buf;
        CHECK(st_load64(p) == (26 | (uint64_t)ST_EVENT_INTERRUPT << 48));
        CHECK(st_load64(p + 8) == 0x0cab && st_load32(p + 16) == 0x10 && st_load32(p + 20) == 0);
        p += 24;
        CHECK(st_load64(p) == (27 | (uint64_t)ST_EVENT_HALT << 48));
        CHECK(st_load64(p + 8) == 0 && st_load32(p + 16) == 0 && st_load32(p + 20) == 0);
    }
    cstream *ev1 = find(&k, "cpu1.events");
    CHECK(ev1 && ev1->n == 1);
    if (ev1 && ev1->n == 1) {
        CHECK(st_load64(ev1->buf) == (28 | (uint64_t)ST_EVENT_INTERRUPT << 48));
        CHECK(st_load64(ev1->buf + 8) == 0x100000);
        CHECK(st_load32(ev1->buf + 16) == 0x0e && st_load32(ev1->buf + 20) == 2);
    }

    /* wide values: owner entry keeps size and low 32 bits, vblocks hold all */
    cstream *w1 = find(&k, "cpu1.write"), *w1v = find(&k, "cpu1.write.vdata");
    cstream *r1 = find(&k, "cpu1.read"), *r1v = find(&k, "cpu1.read.vdata");
    CHECK(w1 && w1->n == 2 && w1v && w1v->type == ST_TYPE_VBLOCK && w1v->n == 3);
    CHECK(r1 && r1->n == 2 && r1v && r1v->n == 1);
    CHECK(w1 && w1v && w1v->owner == (uint32_t)(w1 - k.s));
    CHECK(r1 && r1v && r1v->owner == (uint32_t)(r1 - k.s));
    e = mem(w1, 0);
    CHECK(e.cycle == 28 && e.meta16 == 0 && e.ip == 0x100000 && e.addr == 0x200000 &&
          e.data == (16ull << 32 | 0xCCDDEEFF));
    CHECK(st_entry_is_vwide(ST_TYPE_D64, e.meta16, e.data));
    if (w1v && w1v->n == 3) {
        static const uint8_t v16[16] = {0xFF, 0xEE, 0xDD, 0xCC, 0xBB, 0xAA, 0x99, 0x88,
                                        0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00};
        uint8_t blk[32];
        st_vblock_split(0, v16, 16, blk);
        CHECK(memcmp(w1v->buf, blk, 32) == 0);
        /* the 32-byte value: two blocks, owner 1, 24 + 8 bytes */
        uint64_t k0 = st_load64(w1v->buf + 32), k1 = st_load64(w1v->buf + 64);
        CHECK(k0 == (1 | 24ull << 48 | ST_VBLOCK_MORE));
        CHECK(k1 == (1 | 8ull << 48));
        CHECK(w1v->buf[32 + 8] == 0 && w1v->buf[32 + 8 + 4] == 1 && w1v->buf[32 + 8 + 20] == 5);
        CHECK(w1v->buf[64 + 8] == 6 && w1v->buf[64 + 8 + 4] == 7 && w1v->buf[64 + 8 + 8] == 0);
    }
    e = mem(w1, 1);
    CHECK(e.data == (32ull << 32 | 0));
    e = mem(r1, 0);
    CHECK(e.meta16 == 0 && e.data == (6ull << 32 | 0x03040506));
    if (r1v && r1v->n == 1) {
        static const uint8_t v6[6] = {6, 5, 4, 3, 2, 1};
        uint8_t blk[32];
        st_vblock_split(0, v6, 6, blk);
        CHECK(memcmp(r1v->buf, blk, 32) == 0);
    }
    /* 3 bytes in the byte form fit the entry */
    e = mem(r1, 1);
    CHECK(e.data == (3ull << 32 | 0x0a0b0c));
    CHECK(st.entries == 3 + 3 + 1 + 1 + 2 + 2 + 3 + 2 + 1 + 1);

    /* testdata/good/wide.bochs holds the same text */
    FILE *f = fopen("testdata/good/wide.bochs", "rb");
    CHECK(f != NULL);
    if (f) {
        char fbuf[sizeof kinds + 16];
        size_t n = fread(fbuf, 1, sizeof fbuf, f);
        fclose(f);
        CHECK(n == sizeof kinds - 1 && memcmp(fbuf, kinds, n) == 0);
    }

    /* prefix */
    CHECK(import_buf(kinds, sizeof kinds - 1, 0, "vm1.", &k, &st, &d) == ST_OK);
    CHECK(k.n == 10 && strcmp(k.s[0].name, "vm1.cpu0.write") == 0 &&
          strcmp(k.s[6].name, "vm1.cpu1.write.vdata") == 0);
    c_free(&k);
}

/* ---- malformed input ------------------------------------------------------ */

static const char good3[] = "(0).[5] [0x0000000fe05b] f000:e05b (unk. ctxt): push ax ; 50\n"
                            "[CPU0 WR]: LIN 0x000000000000fffe PHY 0x00000000fffe (len=2, UC): 0x0001\n"
                            "[CPU0 RD]: LIN 0x000000000000fffe PHY 0x00000000fffe (len=2, UC): 0x0001\n";

static void test_bad_at(const char *bad, int where, const char *what)
{
    char buf[2048];
    /* where: 0 start, 1 middle, 2 end (no newline) */
    if (where == 0)
        snprintf(buf, sizeof buf, "%s\n%s%s", bad, good3, good3);
    else if (where == 1)
        snprintf(buf, sizeof buf, "%s%s\n%s", good3, bad, good3);
    else
        snprintf(buf, sizeof buf, "%s%s%s", good3, good3, bad);
    uint64_t line = where == 0 ? 1 : where == 1 ? 4 : 7;
    csink k = {0};
    st_import_stats st;
    st_diag d;
    st_error e = import_str(buf, 0, &k, &st, &d);
    if (e != ST_E_SYNTAX || d.line != line)
        fprintf(stderr, "  case %s at %d: %s line %llu: %s\n", what, where, st_error_name(e),
                (unsigned long long)d.line, d.detail);
    CHECK(e == ST_E_SYNTAX);
    CHECK(d.line == line);
    CHECK(strlen(d.detail) > 0 && strchr(d.detail, '`') != NULL);
    /* what came before the error reached the sink */
    cstream *w = find(&k, "cpu0.write");
    CHECK(where == 0 ? k.n == 0 : (w && w->n == (where == 1 ? 1u : 2u)));
    CHECK(d.offset == (where == 0 ? 0 : where == 1 ? sizeof good3 - 1 : 2 * (sizeof good3 - 1)));
    /* skip_bad: all 6 accesses, one bad line, a warning */
    e = import_str(buf, 1, &k, &st, &d);
    CHECK(e == ST_OK && st.bad_lines == 1 && k.warned == 1);
    CHECK(st.entries == 4 && (w = find(&k, "cpu0.write")) && w->n == 2);
    c_free(&k);
}

static void test_malformed(void)
{
    static const char *const bad[] = {
        "[CPU0 RD]: LIN 0x00000000000004b0 PHY 0x0000000004b0 (len=1, UC): 0xZZ",
        "[CPU0 RD]: LIN 0x00000000000004b0 PHY 0x0000000004b0 (len=1, UC): 0x1234",
        "[CPU0 RD]: LIN 0x00000000000004b0 PHY 0x0000000004b0 (len=0, UC): 0x12",
        "[CPU0 XX]: LIN 0x00000000000004b0 PHY 0x0000000004b0 (len=1, UC): 0x12",
        "[CPU0 RD]: LIN 0x00000000000004b0 PHY 0x0000000004b0 (len=8, UC): 0x12",
        "[CPU0 RD]: LIN 0x00000000000004b0 PHY 0x0000000004b0 (len=16, UC): 0x1 0x2 0x3",
        "[CPU0 RD]: LIN 0x00000000000004b0 PHY 0x0000000004b0 (len=3, UC) 01 02",
        "[CPU0 RD]: LIN 0x00000000000004b0 PHY 0x0000000004b0 (len=1, UC): 0x12 junk",
        "[CPU0 RD]: LIN 0x00000000000004b0",
        "[CPU999 RD]: LIN 0x00000000000004b0 PHY 0x0000000004b0 (len=1, UC): 0x12",
        "(0).[12] [0x0000000fe05b] f000:",
        "(0).[x] [0x0000000fe05b] f000:e05b (unk. ctxt): nop ; 90",
        "CPU 0: Interrupt 0x1000 occurred (error_code=0x0000)",
        "CPU 0: Rebooted",
        "hello world",
        "(0).[12] [0x00000000000000000fe05b] f000:e05b (unk. ctxt): nop ; 90",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        for (int where = 0; where < 3; where++) {
            test_bad_at(bad[i], where, bad[i]);
        }

    csink k = {0};
    st_import_stats st;
    st_diag d;
    /* CRLF line ends are fine, and CR-only damage is a syntax error */
    char crlf[1024];
    size_t cl = 0;
    for (const char *p = good3; *p; p++) {
        if (*p == '\n')
            crlf[cl++] = '\r';
        crlf[cl++] = *p;
    }
    crlf[cl] = '\0';
    CHECK(import_str(crlf, 0, &k, &st, &d) == ST_OK && st.entries == 2 && st.lines == 3);
    cstream *w = find(&k, "cpu0.write");
    CHECK(w && mem(w, 0).data == (2ull << 32 | 1) && mem(w, 0).ip == 0xe05b);

    /* binary input */
    uint8_t bin[4096];
    unsigned long long seed = 99;
    for (size_t i = 0; i < sizeof bin; i++)
        bin[i] = (uint8_t)check_rand(&seed);
    bin[10] = 0;
    CHECK(import_buf(bin, sizeof bin, 0, NULL, &k, &st, &d) == ST_E_NOT_FORMAT);
    CHECK(import_buf(bin, sizeof bin, 1, NULL, &k, &st, &d) == ST_E_NOT_FORMAT);
    CHECK(k.n == 0);
    /* another text format (lackey) */
    const char *lackey = "==123== Lackey\n I  04222cac,4\n L  04222cac,4\n S  7ff0001c0,8\n";
    CHECK(import_str(lackey, 0, &k, &st, &d) == ST_E_NOT_FORMAT);
    /* with skip_bad, 8 foreign lines and no Bochs line is not the format */
    char many[4096] = "";
    for (int i = 0; i < 70; i++)
        strcat(many, " L  04222cac,4\n");
    CHECK(import_str(many, 1, &k, &st, &d) == ST_E_NOT_FORMAT);
    /* empty input: nothing, no error */
    CHECK(import_str("", 0, &k, &st, &d) == ST_OK && k.n == 0 && st.entries == 0);
    /* a NUL byte after good lines: syntax error, skippable */
    char nul[512];
    size_t n = sizeof good3 - 1;
    memcpy(nul, good3, n);
    memcpy(nul + n, "ab\0cd\n", 6);
    memcpy(nul + n + 6, good3, n);
    CHECK(import_buf(nul, 2 * n + 6, 0, NULL, &k, &st, &d) == ST_E_SYNTAX && d.line == 4);
    /* not skippable (the reader cannot resynchronise after an overlong
     * line, and binary data is no malformed text line); what came before
     * still reaches the sink */
    CHECK(import_buf(nul, 2 * n + 6, 1, NULL, &k, &st, &d) == ST_E_SYNTAX && st.entries == 2);
    CHECK((w = find(&k, "cpu0.read")) && w->n == 1);
    /* one bad line and nothing else: not the format */
    CHECK(import_str("[CPU0 RD]: LIN 0x0\n", 0, &k, &st, &d) == ST_E_NOT_FORMAT);
    /* bad lines then a valid one: the first bad line is reported, and
     * nothing reaches the sink */
    char two[1024];
    snprintf(two, sizeof two, "junk 1\njunk 2\n%s", good3);
    CHECK(import_str(two, 0, &k, &st, &d) == ST_E_SYNTAX && d.line == 1 && k.n == 0);
    CHECK(strstr(d.detail, "junk 1") != NULL);
    CHECK(import_str(two, 1, &k, &st, &d) == ST_OK && st.bad_lines == 2 && st.entries == 2 && k.warned == 2);
    /* only debugger echo: fine, nothing */
    CHECK(import_str("Next at t=0\nc\nq\n", 0, &k, &st, &d) == ST_OK && k.n == 0);
    /* too wide an access: ST_E_TOO_LARGE, skippable like a malformed line */
    char huge[1024];
    snprintf(huge, sizeof huge, "%s[CPU0 RD]: LIN 0x0 PHY 0x0 (len=5000, UC) 00\n%s", good3, good3);
    CHECK(import_str(huge, 0, &k, &st, &d) == ST_E_TOO_LARGE && d.line == 4 && st.entries == 2);
    CHECK(import_str(huge, 1, &k, &st, &d) == ST_OK && st.bad_lines == 1 && st.entries == 4);
    /* counter beyond 48 bits */
    snprintf(huge, sizeof huge, "%s(0).[281474976710656] [0x0] f000:0000 (unk. ctxt): nop ; 90\n", good3);
    CHECK(import_str(huge, 0, &k, &st, &d) == ST_E_TOO_LARGE && d.line == 4);
    /* the sink's error comes back */
    static char big[1000 * sizeof good3];
    size_t len = 0;
    for (int i = 0; i < 1000; i++) {
        memcpy(big + len, good3, sizeof good3 - 1);
        len += sizeof good3 - 1;
    }
    c_free(&k);
    k.order_ok = 1;
    k.fail_append = 1;
    FILE *f = tmpfile();
    if (f) {
        fwrite(big, 1, len, f);
        fflush(f);
        rewind(f);
        st_import_opts o = {.skip_bad = 0};
        st_import_sink sink = {&k, c_add, c_append, NULL};
        CHECK(st_import_bochs(fileno(f), &o, &sink, &st, &d) == ST_E_WRITE);
        fclose(f);
    }
    c_free(&k);
}

/* ---- many entries: batches and vblocks across flushes --------------------- */

static void test_batches(void)
{
    /* 10000 wide writes with a 6-byte value: the owner and vdata buffers fill
     * at different times; every block must follow its owner */
    size_t cap = 10000 * 160, len = 0;
    char *buf = malloc(cap);
    if (!buf)
        return;
    for (unsigned i = 0; i < 10000; i++) {
        len += (size_t)snprintf(buf + len, cap - len,
                                "(0).[%u] [0x0000000fe05b] f000:%04x (unk. ctxt): x ; 90\n"
                                "[CPU0 WR]: LIN 0x%016x PHY 0x%012x (len=6, UC) 01 02 03 04 05 %02x\n",
                                i, i & 0xFFFF, i * 8, i * 8, i & 0xFF);
    }
    csink k = {0};
    st_import_stats st;
    st_diag d;
    CHECK(import_buf(buf, len, 0, NULL, &k, &st, &d) == ST_OK);
    CHECK(k.order_ok);
    cstream *w = find(&k, "cpu0.write"), *v = find(&k, "cpu0.write.vdata");
    CHECK(w && w->n == 10000 && v && v->n == 10000);
    if (w && v && w->n == 10000 && v->n == 10000) {
        st_entry e = mem(w, 9999);
        CHECK(e.cycle == 9999 && e.addr == 9999 * 8 && e.data == (6ull << 32 | 0x030405 << 8 | (9999 & 0xFF)));
        CHECK((st_load64(v->buf + 9999 * 32) & ST_CYCLE_MASK) == 9999 && v->buf[9999 * 32 + 8] == (9999 & 0xFF));
    }
    free(buf);
    c_free(&k);
}

/* ---- the real sample ------------------------------------------------------ */

static uint8_t *load_xz(const char *path, size_t *out_len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static uint8_t in[1 << 20];
    size_t n = fread(in, 1, sizeof in, f);
    fclose(f);
    size_t cap = 64u << 20, pos = 0, ipos = 0;
    uint8_t *out = malloc(cap);
    uint64_t limit = UINT64_MAX;
    if (!out || lzma_stream_buffer_decode(&limit, 0, NULL, in, &ipos, n, out, &pos, cap) != LZMA_OK) {
        free(out);
        return NULL;
    }
    *out_len = pos;
    return out;
}

static void test_sample(void)
{
    size_t len;
    uint8_t *text = load_xz("testdata/good/sample.bochs.xz", &len);
    CHECK(text != NULL);
    if (!text) {
        fprintf(stderr, "  testdata/good/sample.bochs.xz not found (run from the repository root)\n");
        return;
    }
    csink k = {0};
    st_import_stats st;
    st_diag d;
    st_error err = import_buf(text, len, 0, NULL, &k, &st, &d);
    if (err != ST_OK)
        fprintf(stderr, "  sample: %s line %llu: %s\n", st_error_name(err), (unsigned long long)d.line, d.detail);
    CHECK(err == ST_OK);
    CHECK(st.bytes == len && st.bad_lines == 0);
    /* counts: grep -c of each line form (RW lines count in both streams) */
    CHECK(st.lines == 7182 && st.entries == 3365);
    CHECK(k.n == 5);
    cstream *w = find(&k, "cpu0.write"), *r = find(&k, "cpu0.read");
    cstream *pw = find(&k, "cpu0.phys.write"), *pr = find(&k, "cpu0.phys.read"), *ev = find(&k, "cpu0.events");
    CHECK(w && w->n == 1516 + 8 && r && r->n == 1563 + 8);
    CHECK(pw && pw->n == 136 && pr && pr->n == 128 && ev && ev->n == 6);
    if (!w || !r || !pw || !pr || !ev || ev->n != 6) {
        free(text);
        c_free(&k);
        return;
    }
    /* first write: "(0).[25] ... f000:e0af" then "[CPU0 WR]: LIN 0x..04b0 ... (len=1, UC): 0x00" */
    st_entry e = mem(w, 0);
    CHECK(e.cycle == 25 && e.meta16 == 0 && e.ip == 0xe0af && e.addr == 0x4b0 && e.data == 1ull << 32);
    /* first len=8 read: the GDT descriptor read by the far jump into protected mode */
    e = mem(r, 722);
    CHECK(e.cycle == 320311 && e.meta16 == 1 && e.ip == 0x9a57 && e.addr == 0xf9ae7 && e.data == 0x00CF9B000000FFFFull);
    /* the first RW line: read 796 and write 831, then its physical-only write */
    e = mem(r, 796);
    CHECK(e.cycle == 320678 && e.ip == 0xe0819 && e.addr == 0x9f73c && e.data == (4ull << 32 | 0x9F798));
    e = mem(w, 831);
    CHECK(e.cycle == 320678 && e.ip == 0xe0819 && e.addr == 0x9f73c && e.data == (4ull << 32 | 0x9F798));
    e = mem(pw, 0);
    CHECK(e.cycle == 320678 && e.ip == 0xe0819 && e.addr == 0x9f73c && e.data == (4ull << 32 | 0x9F7AB));
    /* SMRAM state restore by rsm (3000:802b) */
    e = mem(pr, 0);
    CHECK(e.cycle == 443047 && e.ip == 0x802b && e.addr == 0x3fffc && e.data == 4ull << 32);
    /* the last write: "(0).[1103610] ... f000:fea8" (push) */
    e = mem(w, w->n - 1);
    CHECK(e.cycle == 1103610 && e.ip == 0xfea8 && e.addr == 0xff90 && e.data == 2ull << 32);
    /* events: int 0x10 at c000:0149, then hlt at f000:0871 */
    CHECK(st_load64(ev->buf) == (608101 | (uint64_t)ST_EVENT_INTERRUPT << 48));
    CHECK(st_load64(ev->buf + 8) == 0x0149 && st_load32(ev->buf + 16) == 0x10 && st_load32(ev->buf + 20) == 0);
    CHECK(st_load64(ev->buf + 24) == (852254 | (uint64_t)ST_EVENT_HALT << 48));
    CHECK(st_load64(ev->buf + 32) == 0x0871 && st_load32(ev->buf + 40) == 0);
    CHECK((st_load64(ev->buf + 48) >> 48) == ST_EVENT_INTERRUPT && st_load32(ev->buf + 64) == 0x08);
    free(text);
    c_free(&k);
}

/* ---- guest markers (magic breakpoints) ----------------------------------- */

/* A real Bochs 2.7 log of bochs-trace --markers on a boot sector: the first
 * marker stops the untraced run (its xchg is not in the log), the second
 * is traced; then an SMP stop where CPU 0's display comes first, and a
 * marker the log ends after. */
static const char markers[] =
    "Next at t=0\n"
    "(0) [0x0000fffffff0] f000:fff0 (unk. ctxt): jmpf 0xf000:e05b          ; ea5be000f0\n"
    "c\n"
    "(0) Magic breakpoint\n"
    "Next at t=16280096\n"
    "(0) [0x000000007c0e] 0000:7c0e (unk. ctxt): mov word ptr ds:0x0500, cx ; 890e0005\n"
    "trace-mem on\n"
    "Memory-Tracing enabled for CPU0\n"
    "trace on\n"
    "Tracing enabled for CPU0\n"
    "c\n"
    "(0).[16280096] [0x000000007c0e] 0000:7c0e (unk. ctxt): mov word ptr ds:0x0500, cx ; 890e0005\n"
    "[CPU0 WR]: LIN 0x0000000000000500 PHY 0x000000000500 (len=2, UC): 0x0003\n"
    "(0).[16280098] [0x000000007c17] 0000:7c17 (unk. ctxt): xchg bx, bx               ; 87db\n"
    "(0) Magic breakpoint\n"
    "Next at t=16280099\n"
    "(0) [0x000000007c19] 0000:7c19 (unk. ctxt): loop .-19  (0x00007c08)   ; e2ed\n"
    "set $cpu=1\n"
    "sba 20000000\n"
    "Time breakpoint inserted. Delta = 20000000\n"
    "(1) Magic breakpoint\n"
    "Next at t=17000000\n"
    "(0) [0x000000007c19] 0000:7c19 (unk. ctxt): loop .-19  (0x00007c08)   ; e2ed\n"
    "(1) [0x00000330c07b] 0033:000000000040007b (unk. ctxt): mov eax, 0x0000003c       ; b83c000000\n"
    /* a real SMP stop at a marker of CPU 1: Bochs names it after the stop
     * line and CPU 0's display */
    "c\n"
    "Next at t=5342591305\n"
    "(0) [0x000001a591f8] 0010:ffffffff81a591f8 (unk. ctxt): jmp .+6  (0xffffffff81a59200) ; eb06\n"
    "(1) Magic breakpoint\n"
    "(1) [0x00000448507b] 0033:000000000040007b (unk. ctxt): mov eax, 0x0000003c       ; b83c000000\n"
    "(0) Caught time breakpoint\n"
    "bx_dbg_read_linear: physical address not available for linear 0x00007f2a6bd4e000\n"
    "CPU 0: Exception 0x0e - (#PF) page fault occured (error_code=0x0004)\n"
    "(0) Magic breakpoint\n";

static void check_marker(cstream *ev, size_t i, uint64_t cycle, uint64_t ip, uint32_t n)
{
    CHECK(ev && i < ev->n);
    if (!ev || i >= ev->n)
        return;
    const uint8_t *e = ev->buf + i * 24;
    CHECK(st_load64(e) == (cycle | (uint64_t)ST_EVENT_MARKER << 48));
    CHECK(st_load64(e + 8) == ip);
    CHECK(st_load32(e + 16) == n && st_load32(e + 20) == 0);
}

static void test_markers(void)
{
    csink k = {0};
    st_import_stats st;
    st_diag d;
    CHECK(import_str(markers, 0, &k, &st, &d) == ST_OK);
    CHECK(st.bad_lines == 0);
    cstream *ev0 = find(&k, "cpu0.events"), *ev1 = find(&k, "cpu1.events"), *w = find(&k, "cpu0.write");
    CHECK(w && w->n == 1 && mem(w, 0).cycle == 16280096);
    /* cycle: one before "Next at t="; ip: where the guest resumes */
    check_marker(ev0, 0, 16280095, 0x7c0e, 0);
    check_marker(ev0, 1, 16280098, 0x7c19, 1);
    CHECK(ev1 && ev1->n == 2);
    check_marker(ev1, 0, 16999999, 0x40007b, 2);
    check_marker(ev1, 1, 5342591304, 0x40007b, 3);
    /* Bochs 2.7's named exception (an interrupt event like the others) */
    CHECK(ev0 && ev0->n == 4 && st_load64(ev0->buf + 48) == (16280098 | (uint64_t)ST_EVENT_INTERRUPT << 48) &&
          st_load32(ev0->buf + 64) == 0x0e && st_load32(ev0->buf + 68) == 4);
    /* the last: no "Next at t=", so CPU 0's last instruction's cycle and ip */
    CHECK(ev0 && ev0->n == 4);
    check_marker(ev0, 3, 16280098, 0x7c17, 4);
    c_free(&k);
}

/* ---- address spaces (--split-by cr3) --------------------------------------- */

static const char spaces[] =
    "(0).[100] [0x000000001000] 0010:ffffffff81000000 (unk. ctxt): mov eax, dword ptr ds:[rbx] ; 8b03\n"
    /* before any page walk: the plain streams */
    "[CPU0 RD]: LIN 0xffffffff81400000 PHY 0x000001400000 (len=4, WB): 0x00000001\n"
    /* a walk through the PML4 at 0x2a3b000 (index 0x1ff) */
    "[CPU0 RD]: PHY 0x000002a3bff8 (len=8, WB): 0x00000000 0x02a3c067\t; PML4E\n"
    "[CPU0 RD]: PHY 0x000002a3c000 (len=8, WB): 0x00000000 0x02a3d067\t; PDPTE\n"
    "[CPU0 RD]: LIN 0x00007ffc00000010 PHY 0x000003000010 (len=4, WB): 0x00000002\n"
    "[CPU0 WR]: LIN 0x00007ffc00000018 PHY 0x000003000018 (len=8, WB): 0x00000000 0x00000003\n"
    /* another space, then the first again (index 0: base itself) */
    "(0).[101] [0x000000001004] 0033:0000000000401000 (unk. ctxt): push rbp ; 55\n"
    "[CPU0 RD]: PHY 0x000005000008 (len=8, WB): 0x00000000 0x05001067\t; PML4E\n"
    "[CPU0 WR]: LIN 0x0000000000600000 PHY 0x000006000000 (len=6, WB) 01 02 03 04 05 06\n"
    "[CPU0 RD]: PHY 0x000002a3b000 (len=8, WB): 0x00000000 0x02a3e067\t; PML4E\n"
    "[CPU0 RD]: LIN 0x0000000000001000 PHY 0x000000002000 (len=1, WB): 0x04\n"
    /* PAE: the PDPTRs loaded with CR3 = 0x7000020 (32-byte aligned) */
    "[CPU1 RD]: PHY 0x000007000030 (len=8, WB): 0x00000000 0x00001001\t; PDPTR2\n"
    "[CPU1 RD]: LIN 0x00000000c0000000 PHY 0x000000100000 (len=2, WB): 0x0005\n";

static void test_spaces(void)
{
    csink k = {0};
    st_import_stats st;
    st_diag d;
    st_import_opts o = {.warn = c_warn, .warn_arg = &k, .split_cr3 = 1};
    st_import_sink sink = {&k, c_add, c_append, NULL};
    FILE *f = tmpfile();
    CHECK(f && fwrite(spaces, 1, sizeof spaces - 1, f) == sizeof spaces - 1 && fflush(f) == 0);
    rewind(f);
    k.order_ok = 1;
    st_diag_clear(&d);
    CHECK(st_import_bochs(fileno(f), &o, &sink, &st, &d) == ST_OK);
    fclose(f);
    static const char *const names[] = {"cpu0.read", "cpu0.phys.read", "cpu0.cr3-2a3b000.read",
                                        "cpu0.cr3-2a3b000.write", "cpu0.cr3-5000000.write",
                                        "cpu0.cr3-5000000.write.vdata", "cpu1.phys.read", "cpu1.cr3-7000020.read"};
    CHECK(k.n == 8);
    for (uint32_t i = 0; i < k.n && i < 8; i++)
        CHECK(strcmp(k.s[i].name, names[i]) == 0);
    CHECK(k.order_ok);
    cstream *plain = find(&k, "cpu0.read"), *a = find(&k, "cpu0.cr3-2a3b000.read");
    cstream *aw = find(&k, "cpu0.cr3-2a3b000.write"), *b = find(&k, "cpu0.cr3-5000000.write");
    cstream *pae = find(&k, "cpu1.cr3-7000020.read"), *walks = find(&k, "cpu0.phys.read");
    CHECK(plain && plain->n == 1 && mem(plain, 0).addr == 0xffffffff81400000ull);
    CHECK(a && a->n == 2 && mem(a, 0).addr == 0x7ffc00000010ull && mem(a, 1).addr == 0x1000 && mem(a, 1).cycle == 101);
    CHECK(aw && aw->n == 1 && mem(aw, 0).data == 3);
    CHECK(b && b->n == 1 && b->type == ST_TYPE_D64 && mem(b, 0).addr == 0x600000);
    CHECK(pae && pae->n == 1 && mem(pae, 0).data == (2ull << 32 | 5));
    /* the walks themselves stay physical */
    CHECK(walks && walks->n == 4);
    c_free(&k);

    /* without the option: no split */
    CHECK(import_str(spaces, 0, &k, &st, &d) == ST_OK);
    CHECK(find(&k, "cpu0.read") && find(&k, "cpu0.read")->n == 3 && k.n == 6);
    c_free(&k);
}

int main(void)
{
    test_kinds();
    test_spaces();
    test_markers();
    test_malformed();
    test_batches();
    test_sample();
    return check_done("test_bochs");
}
