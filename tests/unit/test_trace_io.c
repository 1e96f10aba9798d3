/* Importers and exporters of formats/trace_io.h: each importer field by
 * field on small samples, the error policy (bad lines at start, middle and
 * end, skip_bad, CRLF, NOT_FORMAT, TOO_LARGE), byte-exact round trips (text,
 * vpc, vpc3, raw -> text -> raw, wide values through vblocks), and the
 * lackey/din exporters against their importers.
 *
 * `test_trace_io --bench FORMAT FILE` instead imports FILE into a sink that
 * discards and prints the throughput (for `make bench`). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "../../common/st_decomp.h"
#include "../../formats/trace_io.h"
#include "check.h"
#include "obuf.h"

/* ---- an in-memory sink ------------------------------------------------------ */

#define MAXS 32 /* ST_IMP_MAX_STREAMS */
typedef struct {
    int ns;
    char name[MAXS][300];
    st_entry_type type[MAXS];
    uint32_t owner[MAXS];
    uint8_t header[MAXS][64];
    size_t header_len[MAXS];
    uint8_t *data[MAXS];
    size_t n[MAXS]; /* entries */
    int order_ok;   /* vblocks never arrived before their owner entry */
} msink;

static st_error m_add(void *arg, const st_stream_decl *d, uint32_t *sid)
{
    msink *m = arg;
    if (m->ns == MAXS || d->header_len > 64)
        return ST_E_INTERNAL;
    int i = m->ns++;
    snprintf(m->name[i], sizeof m->name[i], "%s", d->name);
    m->type[i] = d->type;
    m->owner[i] = d->owner;
    m->header_len[i] = d->header_len;
    if (d->header_len)
        memcpy(m->header[i], d->header, d->header_len);
    *sid = (uint32_t)i;
    return ST_OK;
}

static st_error m_append(void *arg, uint32_t sid, const void *e, size_t n)
{
    msink *m = arg;
    size_t es = st_entry_size(m->type[sid]);
    if (m->type[sid] == ST_TYPE_VBLOCK) {
        /* every block's owner must already be in the owner stream */
        const uint8_t *b = e;
        for (size_t i = 0; i < n; i++)
            if ((st_load64(b + i * 32) & ST_CYCLE_MASK) >= m->n[m->owner[sid]])
                m->order_ok = 0;
    }
    m->data[sid] = realloc(m->data[sid], (m->n[sid] + n) * es);
    memcpy(m->data[sid] + m->n[sid] * es, e, n * es);
    m->n[sid] += n;
    return ST_OK;
}

static void m_init(msink *m)
{
    memset(m, 0, sizeof *m);
    m->order_ok = 1;
}

static void m_free(msink *m)
{
    for (int i = 0; i < MAXS; i++)
        free(m->data[i]);
    memset(m, 0, sizeof *m);
}

static int m_find(const msink *m, const char *name)
{
    for (int i = 0; i < m->ns; i++)
        if (strcmp(m->name[i], name) == 0)
            return i;
    return -1;
}

static int warn_calls;
static void count_warn(void *arg, const st_diag *d)
{
    (void)arg, (void)d;
    warn_calls++;
}

/* Import len bytes of text through a temporary file. */
static st_error imp(const char *fmt, const void *buf, size_t len, const st_import_opts *o, msink *m,
                    st_import_stats *st, st_diag *d)
{
    FILE *f = tmpfile();
    if (!f)
        return ST_E_INTERNAL;
    int fd = fileno(f);
    if (write(fd, buf, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET) != 0) {
        fclose(f);
        return ST_E_INTERNAL;
    }
    m_init(m);
    st_error e = st_import(fmt, fd, o, &(st_import_sink){m, m_add, m_append, NULL}, st, d);
    fclose(f);
    return e;
}

static st_error imp_s(const char *fmt, const char *text, msink *m, st_diag *d)
{
    st_import_stats st;
    return imp(fmt, text, strlen(text), NULL, m, &st, d);
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = malloc(cap);
    size_t k;
    while (b && (k = fread(b + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap)
            b = realloc(b, cap *= 2);
    }
    fclose(f);
    *len = n;
    return b;
}

/* Values of a primary stream from its vblock companion (linear search:
 * the test streams are small). */
typedef struct {
    const msink *m;
    int vs;
    uint8_t v[ST_VALUE_MAX];
} vsrc;

static st_error v_get(void *arg, uint64_t index, const uint8_t **value, size_t *len)
{
    vsrc *s = arg;
    size_t n = 0;
    if (s->vs < 0) {
        *len = 0;
        return ST_OK;
    }
    for (size_t i = 0; i < s->m->n[s->vs]; i++) {
        const uint8_t *b = s->m->data[s->vs] + 32 * i;
        uint64_t key = st_load64(b);
        if ((key & ST_CYCLE_MASK) != index)
            continue;
        size_t valid = (size_t)((key >> 48) & 31);
        memcpy(s->v + n, b + 8, valid);
        n += valid;
    }
    *value = s->v;
    *len = n;
    return ST_OK;
}

/* Export n entries of stream i of m in one or a few calls. */
static st_error exp_stream(const char *fmt, const msink *m, int i, const char *name, obuf *o, int with_values)
{
    memset(o, 0, sizeof *o);
    st_export_stream s = {name ? name : m->name[i], m->type[i], (uint32_t)st_entry_size(m->type[i]),
                          m->header_len[i] ? m->header[i] : NULL, m->header_len[i]};
    vsrc vs = {m, -1, {0}};
    for (int k = 0; k < m->ns; k++)
        if (m->type[k] == ST_TYPE_VBLOCK && m->owner[k] == (uint32_t)i)
            vs.vs = k;
    st_exporter *x;
    RETURN_IF_ERROR(st_exporter_new(&x, fmt, &s, o_write, o, with_values ? v_get : NULL, &vs));
    size_t es = st_entry_size(m->type[i]), half = m->n[i] / 2;
    st_error e = st_exporter_write(x, 0, m->data[i], half);
    if (e == ST_OK)
        e = st_exporter_write(x, half, m->data[i] + half * es, m->n[i] - half);
    if (e == ST_OK)
        e = st_exporter_finish(x);
    st_exporter_free(x);
    return e;
}

static void entry(const msink *m, int s, size_t i, st_entry *e)
{
    st_entry_load(m->type[s], m->data[s] + i * st_entry_size(m->type[s]), e);
}

static int is_entry(const msink *m, int s, size_t i, uint64_t cycle, int full, uint64_t ip, uint64_t addr,
                    uint64_t data)
{
    if (s < 0 || i >= m->n[s])
        return 0;
    st_entry e;
    entry(m, s, i, &e);
    return e.cycle == cycle && e.meta16 == (uint64_t)full && e.ip == ip && e.addr == addr && e.data == data;
}

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

#define K32 (UINT64_C(1) << 32)
/* Import the bytes of a string literal, its NUL left out. */
#define IMP_LIT(fmt, lit, m, st, d) imp(fmt, lit, sizeof lit - 1, NULL, m, st, d)

/* ---- dramsim2, gem5, pixie32/64 (IMPORT.md 14-16) ------------------------------ */

/* gem5's corpus file tgen-simple-mem.trc: a PacketHeader and two packets */
static const uint8_t gem5_tgen[71] = {
    'g', 'e', 'm', '5', 0x29, 0x0a, 0x20, 'C', 'o', 'n', 'v', 'e', 'r', 't', 'e', 'd', ' ', 'A', 'S', 'C',
    'I', 'I', ' ', 't', 'r', 'a', 'c', 'e', ' ', 'o', 'u', 't', 'p', 'u', 't', '.', 't', 'x', 't', 0x18,
    0x80, 0xa0, 0x94, 0xa5, 0x8d, 0x1d, 0x0c, 0x08, 0xe8, 0x07, 0x10, 0x01, 0x18, 0xe7, 0x8a, 0x8d, 0x09,
    0x20, 0x40, 0x0b, 0x08, 0xa0, 0x1f, 0x10, 0x04, 0x18, 0xef, 0xfd, 0x02, 0x20, 0x40};

static void test_dramsim2(void)
{
    msink m;
    st_diag d;
    obuf o;
    const char *canon = "0x2000D5C0 IFETCH  30\n0x1FF96FC0 WRITE   160\n0x40009E00 READ    160\n"
                        "0x400000000 P_LOCK_WR 161\n";
    CHECK(imp_s("dramsim2", canon, &m, &d) == ST_OK);
    int s = m_find(&m, "dramsim2");
    CHECK(s == 0 && m.ns == 1 && m.type[0] == ST_TYPE_M64 && m.n[0] == 4);
    st_entry e;
    entry(&m, 0, 0, &e);
    CHECK(e.cycle == 30 && e.meta16 == 3 << 1 && e.addr == 0x2000D5C0 && e.ip == 0); /* IFETCH: tag 3 */
    entry(&m, 0, 3, &e);
    CHECK(e.cycle == 161 && e.meta16 == 8 << 1 && e.addr == UINT64_C(0x400000000));
    CHECK(exp_stream("dramsim2", &m, 0, NULL, &o, 0) == ST_OK && o.n == strlen(canon) &&
          memcmp(o.p, canon, o.n) == 0);
    free(o.p);
    m_free(&m);
    /* other spellings are read and written in the canonical layout */
    CHECK(imp_s("dramsim2", "  0x1ff96fc0\tP_MEM_RD 161  \n# note\n1F00 READ 162\n", &m, &d) == ST_OK && m.n[0] == 2);
    CHECK(exp_stream("dramsim2", &m, 0, NULL, &o, 0) == ST_OK &&
          strcmp((char *)o.p, "0x1FF96FC0 P_MEM_RD 161\n0x00001F00 READ    162\n") == 0);
    free(o.p);
    m_free(&m);
    /* an unknown command, a cycle beyond 48 bits, a missing cycle: the line named, the lines before kept */
    CHECK(imp_s("dramsim2", "0x10 READ 5\n0x20 FETCH 6\n", &m, &d) == ST_E_SYNTAX && d.line == 2 && d.offset == 12 &&
          m.n[0] == 1);
    m_free(&m);
    CHECK(imp_s("dramsim2", "0x10 READ 1\n0x10 READ 281474976710656\n", &m, &d) == ST_E_TOO_LARGE && d.line == 2);
    m_free(&m);
    CHECK(imp_s("dramsim2", "0x10 READ 1\n0x10 READ\n", &m, &d) == ST_E_SYNTAX && d.line == 2);
    m_free(&m);
    CHECK(imp_s("dramsim2", "", &m, &d) == ST_OK && m.ns == 0);
    m_free(&m);
    /* another producer's streams: by role, k6 spellings; a modify is a read and a write */
    CHECK(imp_s("lackey", "I  00400000,4\n M 00001000,4\n S 00002000,8\n", &m, &d) == ST_OK);
    CHECK(exp_stream("dramsim2", &m, m_find(&m, "write"), NULL, &o, 0) == ST_OK &&
          strcmp((char *)o.p, "0x00001000 P_MEM_WR 1\n0x00002000 P_MEM_WR 1\n") == 0);
    free(o.p);
    CHECK(exp_stream("dramsim2", &m, m_find(&m, "fetch"), NULL, &o, 0) == ST_OK &&
          strcmp((char *)o.p, "0x00400000 P_FETCH 1\n") == 0);
    free(o.p);
    m_free(&m);
}

static void test_gem5(void)
{
    msink m;
    st_diag d;
    st_import_stats st;
    obuf o;
    CHECK(imp("gem5", gem5_tgen, sizeof gem5_tgen, NULL, &m, &st, &d) == ST_OK);
    CHECK(m.ns == 1 && m.type[0] == ST_TYPE_D64 && m.n[0] == 2 && m.header_len[0] == 46 && st.bytes == 71);
    CHECK(is_entry(&m, 0, 0, 1000, (1 + 1) << 1, 0, 0x1234567, 64 * K32)); /* ReadReq = 1, tag cmd + 1 */
    CHECK(is_entry(&m, 0, 1, 4000, (4 + 1) << 1, 0, 0xbeef, 64 * K32));    /* WriteReq = 4 */
    CHECK(exp_stream("gem5", &m, 0, NULL, &o, 0) == ST_OK && o.n == sizeof gem5_tgen &&
          memcmp(o.p, gem5_tgen, o.n) == 0);
    free(o.p);
    m_free(&m);
    /* cut off inside the last packet: the first kept, the second named with its offset */
    CHECK(imp("gem5", gem5_tgen, sizeof gem5_tgen - 1, NULL, &m, &st, &d) == ST_E_PARTIAL_ENTRY && m.n[0] == 1 &&
          d.offset == 59 && strstr(d.detail, "packet 1") != NULL);
    m_free(&m);
    /* header only; no magic; a length beyond the bound; a varint of 11 bytes; a missing field */
    CHECK(imp("gem5", gem5_tgen, 46, NULL, &m, &st, &d) == ST_OK && m.ns == 1 && m.n[0] == 0);
    m_free(&m);
    CHECK(imp("gem5", "gem4", 4, NULL, &m, &st, &d) == ST_E_NOT_FORMAT);
    m_free(&m);
    CHECK(IMP_LIT("gem5", "gem5\x02\x18\x01\xff\xff\x03", &m, &st, &d) == ST_E_TOO_LARGE && d.offset == 7);
    m_free(&m);
    CHECK(IMP_LIT("gem5", "gem5\x02\x18\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", &m, &st, &d) ==
              ST_E_SYNTAX && d.offset == 7 && strstr(d.detail, "over 10 bytes") != NULL);
    m_free(&m);
    CHECK(IMP_LIT("gem5", "gem5\x02\x18\x01\x0e\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x10\x01", &m, &st,
                  &d) == ST_E_SYNTAX && strstr(d.detail, "value is over 10 bytes") != NULL);
    m_free(&m);
    CHECK(IMP_LIT("gem5", "gem5\x02\x18\x01\x04\x08\x01\x10\x01", &m, &st, &d) == ST_E_SYNTAX &&
          strstr(d.detail, "required") != NULL);
    m_free(&m);
    /* pc is the entry's ip and comes back; flags (5) and pkt_id (6) are dropped */
    static const uint8_t pcpkt[] = {'g', 'e', 'm', '5', 2, 0x18, 1, 15, 0x08, 5, 0x10, 1, 0x18, 0x10, 0x20, 8,
                                    0x28, 3, 0x30, 9, 0x38, 0x80, 0x01};
    CHECK(imp("gem5", pcpkt, sizeof pcpkt, NULL, &m, &st, &d) == ST_OK && is_entry(&m, 0, 0, 5, 1 | 2 << 1, 0x80, 0x10, 0));
    CHECK(exp_stream("gem5", &m, 0, NULL, &o, 0) == ST_OK && o.n == sizeof pcpkt - 4 && memcmp(o.p, pcpkt, 7) == 0 &&
          o.p[7] == 11 && memcmp(o.p + 8, pcpkt + 8, 8) == 0 && memcmp(o.p + 16, pcpkt + 20, 3) == 0);
    free(o.p);
    m_free(&m);
    /* another producer's write stream: gem5's own header, WriteReq */
    CHECK(imp_s("lackey", "I  00400000,4\n S 00002000,4\n", &m, &d) == ST_OK);
    CHECK(exp_stream("gem5", &m, m_find(&m, "write"), NULL, &o, 0) == ST_OK);
    static const uint8_t want[] = {'g', 'e', 'm', '5', 17, 0x0a, 8, 's', 'i', 'm', 't', 'r', 'a', 'c', 'e', 0x18,
                                   0x80, 0xa0, 0x94, 0xa5, 0x8d, 0x1d, 14, 0x08, 1, 0x10, 4, 0x18, 0x80, 0x40,
                                   0x20, 4, 0x38, 0x80, 0x80, 0x80, 0x02};
    CHECK(o.n == sizeof want && memcmp(o.p, want, o.n) == 0);
    free(o.p);
    /* a gem5-looking header longer than an import keeps is not copied: a header of its own */
    static uint8_t big[2000] = {'g', 'e', 'm', '5', 0xca, 0x0f}; /* varint 1994 */
    st_export_stream bs = {"write", ST_TYPE_D64, 32, big, sizeof big};
    st_exporter *x;
    memset(&o, 0, sizeof o);
    CHECK(st_exporter_new(&x, "gem5", &bs, o_write, &o, NULL, NULL) == ST_OK &&
          st_exporter_write(x, 0, m.data[m_find(&m, "write")], 1) == ST_OK && st_exporter_finish(x) == ST_OK);
    st_exporter_free(x);
    CHECK(o.n == sizeof want && memcmp(o.p, want, o.n) == 0);
    free(o.p);
    m_free(&m);
}

static void test_pixie(void)
{
    msink m;
    st_diag d;
    st_import_stats st;
    /* a run of 1 at word 0x4c; 3 instructions then a read; one at 0xd2;
     * a system call after 1; 2 instructions then a write (type 11) */
    static const uint8_t w32[] = {0x1c, 0, 0, 0x4c, 0x30, 0xff, 0x2f, 0x80, 0x0d, 0, 0, 0xd2,
                                  0x1e, 0, 0x03, 0xe9, 0x2b, 0x02, 0xda, 0x58};
    CHECK(imp("pixie32", w32, sizeof w32, NULL, &m, &st, &d) == ST_OK);
    int r = m_find(&m, "read"), w = m_find(&m, "write"), f = m_find(&m, "fetch");
    CHECK(r >= 0 && w >= 0 && f >= 0 && m.n[r] == 1 && m.n[w] == 1 && m.n[f] == 11);
    CHECK(is_entry(&m, r, 0, 5, 0, 0x140, 0xff2f80, 0)); /* type 0: tag 0 */
    CHECK(is_entry(&m, w, 0, 11, 11 << 1, 0x35c, 0x02da58, 0));
    st_entry e;
    entry(&m, f, 0, &e);
    CHECK(e.cycle == 1 && e.ip == 0x130);
    entry(&m, f, 5, &e);
    CHECK(e.cycle == 6 && e.ip == 0x348);
    entry(&m, f, 10, &e);
    CHECK(e.cycle == 11 && e.ip == 0x35c && (uint32_t)e.data == ST_KIND_WRITE);
    m_free(&m);
    /* cut off in word 1; type 15; nothing */
    CHECK(imp("pixie32", w32, 6, NULL, &m, &st, &d) == ST_E_PARTIAL_ENTRY && d.offset == 4 &&
          m.n[m_find(&m, "fetch")] == 1);
    m_free(&m);
    CHECK(imp("pixie32", "\x1c\0\0\x4c\xff\0\0\0", 8, NULL, &m, &st, &d) == ST_E_SYNTAX && d.offset == 4 &&
          strstr(d.detail, "word 1") != NULL);
    m_free(&m);
    CHECK(imp("pixie32", "", 0, NULL, &m, &st, &d) == ST_OK && m.ns == 0);
    m_free(&m);
    /* pixie64: 56-bit fields */
    static const uint8_t w64[] = {0x1c, 0, 0, 0, 0, 0, 0, 0x4c, 0x01, 0, 0, 0x7f, 0xff, 0xff, 0x2f, 0x80};
    CHECK(imp("pixie64", w64, sizeof w64, NULL, &m, &st, &d) == ST_OK);
    r = m_find(&m, "read");
    CHECK(r >= 0 && is_entry(&m, r, 0, 2, 1 << 1, 0x134, UINT64_C(0x7fffff2f80), 0));
    m_free(&m);
}

/* ---- importers, field by field ------------------------------------------------ */

static void test_lackey(void)
{
    msink m;
    st_diag d;
    st_import_stats st;
    const char *t = "==12== Lackey\n"
                    "I  0401ab70,3\n"
                    " S 1fff000628,8\n"
                    " L 0000abcd,4\n"
                    "I  0401ab73,5\n"
                    " M 1fff000620,2\n"
                    "SB 0401ab73\n"
                    " L 10,16\n";
    st_import_opts o = {.prefix = "cpu0."};
    CHECK(imp("lackey", t, strlen(t), &o, &m, &st, &d) == ST_OK);
    /* the fetch stream is declared after read and write (read stays first) */
    CHECK(m.ns == 3 && strcmp(m.name[0], "cpu0.write") == 0 && strcmp(m.name[1], "cpu0.read") == 0 &&
          strcmp(m.name[2], "cpu0.fetch") == 0);
    /* one entry per I line: its size, and the kinds of the accesses after it
     * (S then L: 2 | 1 << 2; M then L: 3 | 1 << 2) */
    CHECK(m.n[2] == 2 && is_entry(&m, 2, 0, 1, 0, 0x401ab70, 0x401ab70, 3 * K32 | 6));
    CHECK(is_entry(&m, 2, 1, 2, 0, 0x401ab73, 0x401ab73, 5 * K32 | 7));
    CHECK(st.dropped == 1); /* the SB line, skipped and counted */
    CHECK(m.type[0] == ST_TYPE_D64 && m.owner[0] == UINT32_MAX && m.header_len[0] == 0);
    int r = m_find(&m, "cpu0.read"), w = m_find(&m, "cpu0.write");
    CHECK(m.n[r] == 3 && m.n[w] == 2);
    CHECK(is_entry(&m, w, 0, 1, 1, 0x401ab70, 0x1fff000628, 0));
    CHECK(is_entry(&m, r, 0, 1, 0, 0x401ab70, 0xabcd, 4 * K32));
    CHECK(is_entry(&m, r, 1, 2, 0, 0x401ab73, 0x1fff000620, 2 * K32)); /* M: read ... */
    CHECK(is_entry(&m, w, 1, 2, 0, 0x401ab73, 0x1fff000620, 2 * K32)); /* ... and write */
    CHECK(is_entry(&m, r, 2, 2, 0, 0x401ab73, 0x10, 16 * K32));        /* vector: no vblock */
    CHECK(st.lines == 8 && st.entries == 7 && st.bytes == strlen(t) && st.bad_lines == 0);
    m_free(&m);
    /* SB needs an address; more than 16 accesses of one instruction, and
     * accesses before the first instruction, go to continuation entries */
    CHECK(imp_s("lackey", "I  10,3\nSB\n", &m, &d) == ST_E_SYNTAX && d.line == 2);
    m_free(&m);
    char many[2048];
    size_t k = (size_t)snprintf(many, sizeof many, " S 8,1\nI  10,3\n");
    for (int i = 0; i < 17; i++)
        k += (size_t)snprintf(many + k, sizeof many - k, " L %x,4\n", 0x100 + i);
    CHECK(imp_s("lackey", many, &m, &d) == ST_OK && m.ns == 3 && strcmp(m.name[2], "fetch") == 0);
    /* cycle 0: an S, no I line (meta: the continuation bit, tag bit 0) */
    CHECK(m.n[2] == 3 && st_load64(m.data[2]) == ST_FETCH_CONT && st_load64(m.data[2] + 24) == 2);
    CHECK(st_load64(m.data[2] + 8) == 0 && st_load64(m.data[2] + 16) == 0);
    CHECK(is_entry(&m, 2, 1, 1, 0, 0x10, 0x10, 3 * K32 | 0x55555555)); /* 16 L */
    CHECK(st_load64(m.data[2] + 64) == (ST_FETCH_CONT | 1) && st_load64(m.data[2] + 64 + 8) == 0x10 &&
          st_load64(m.data[2] + 64 + 24) == 1); /* the 17th L */
    m_free(&m);

    /* A real lackey log gives what scripts/lackey2d64.c gives (hashes of its
     * read and write output on the same file). */
    size_t len;
    uint8_t *b = read_file("testdata/good/sample.lackey", &len);
    CHECK(b != NULL);
    if (b) {
        CHECK(imp("lackey", b, len, NULL, &m, &st, &d) == ST_OK);
        r = m_find(&m, "read"), w = m_find(&m, "write");
        CHECK(r >= 0 && w >= 0 && m.n[r] == 3170 && m.n[w] == 190);
        if (r >= 0 && w >= 0) {
            CHECK(fnv(m.data[r], m.n[r] * 32) == 0x3f712e05d1b4e69bull);
            CHECK(fnv(m.data[w], m.n[w] * 32) == 0x143cbf639b5ef768ull);
        }
        CHECK(st.lines == 20000);
        m_free(&m);
        free(b);
    }
}

static void test_din(void)
{
    msink m;
    st_diag d;
    size_t len;
    uint8_t *b = read_file("testdata/good/sample.din", &len);
    st_import_stats st;
    CHECK(b && imp("din", b, len, NULL, &m, &st, &d) == ST_OK);
    int r = m_find(&m, "read"), w = m_find(&m, "write");
    CHECK(m.ns == 3 && r == 0 && w == 1 && m.n[r] == 3 && m.n[w] == 2);
    CHECK(is_entry(&m, r, 0, 1, 0, 0x400100, 0x7ffd1000, 0)); /* size unknown: 0, 0 */
    CHECK(m.n[2] == 5 && is_entry(&m, 2, 1, 2, 0, 0x400104, 0x400104, 2)); /* label 2, then a write */
    CHECK(st.dropped == 2);                                                 /* labels 3 and 4 */
    CHECK(is_entry(&m, r, 1, 3, 0, 0x400108, 0x601040, 0));
    CHECK(is_entry(&m, r, 2, 4, 0, 0x40010c, 0x7ffd1000, 0));
    CHECK(is_entry(&m, w, 0, 2, 0, 0x400104, 0x7ffd1008, 0));
    CHECK(is_entry(&m, w, 1, 4, 0, 0x40010c, 0x7ffd1000, 0));
    m_free(&m);
    free(b);
    CHECK(imp_s("din", "2 400\n0 10\n7 20\n", &m, &d) == ST_E_SYNTAX && d.line == 3 && d.offset == 11);
    CHECK(strstr(d.detail, "unknown label") && strstr(d.detail, "`7 20`"));
    CHECK(m.n[0] == 1);
    m_free(&m);

    b = read_file("testdata/good/sample.xdin", &len);
    CHECK(b && imp("xdin", b, len, NULL, &m, &st, &d) == ST_OK);
    r = m_find(&m, "read"), w = m_find(&m, "write");
    CHECK(r == 0 && w == 1 && m.n[r] == 3 && m.n[w] == 2);
    CHECK(is_entry(&m, r, 0, 1, 1, 0x400100, 0x7ffd1000, 0));
    CHECK(is_entry(&m, r, 1, 3, 0, 0x400108, 0x601040, 1 * K32));
    CHECK(is_entry(&m, r, 2, 4, 0, 0x40010c, 0x7ffd1000, 16 * K32)); /* size 10 is hex */
    CHECK(is_entry(&m, w, 0, 2, 0, 0x400104, 0x7ffd1008, 4 * K32));
    CHECK(is_entry(&m, w, 1, 4, 0, 0x40010c, 0x7ffd1000, 2 * K32));
    CHECK(m.n[2] == 5 && is_entry(&m, 2, 3, 4, 0, 0x40010c, 0x40010c, 4 * K32 | 9)); /* i, then r and w */
    m_free(&m);
    free(b);
}

static void test_pinatrace(void)
{
    msink m;
    st_diag d;
    size_t len;
    st_import_stats st;
    uint8_t *b = read_file("testdata/good/sample.pinatrace", &len);
    CHECK(b && imp("pinatrace", b, len, NULL, &m, &st, &d) == ST_OK);
    int r = m_find(&m, "read"), w = m_find(&m, "write");
    CHECK(w == 0 && r == 1 && m.n[r] == 3 && m.n[w] == 2); /* the line after #eof is not read */
    CHECK(is_entry(&m, w, 0, 1, 0, 0x7f3c2a401b73, 0x7ffd4a1c3e08, 0));
    CHECK(is_entry(&m, r, 0, 2, 1, 0x7f3c2a401b7a, 0x7f3c2a62de68, 0));
    CHECK(is_entry(&m, r, 1, 3, 0, 0x7f3c2a401b81, 0x7f3c2a62de70, 4 * K32));
    CHECK(is_entry(&m, w, 1, 4, 0, 0x7f3c2a401b88, 0x7ffd4a1c3e00, 2 * K32));
    CHECK(is_entry(&m, r, 2, 5, 0, 0x7f3c2a401b8f, 0, 0));
    CHECK(st.entries == 5);
    m_free(&m);
    free(b);
}

/* ---- text files of several streams (IMPORT.md 6.5) ---------------------------------------- */

static void test_text_parts(void)
{
    msink m;
    st_diag d;
    const char *t = "# simtrace text 1 stream=a type=d64 part=0\n"
                    "# simtrace text 1 type=m32 part=1\n"
                    "@1 0 5 0x10 0x20 full\n"
                    "@0 0 5 0x10 0x30 8 0x1\n"
                    "@1 1 6 0x11 0x21\n";
    CHECK(imp_s("text", t, &m, &d) == ST_OK && m.ns == 2 && strcmp(m.name[0], "a") == 0 &&
          strcmp(m.name[1], "trace.1") == 0 && m.type[1] == ST_TYPE_M32 && m.n[0] == 1 && m.n[1] == 2);
    m_free(&m);
    static const struct {
        const char *text, *why;
        unsigned line;
    } bad[] = {
        {"# simtrace text 1 part=1\n", "in order", 1},
        {"# simtrace text 1 part=0\n0 0 1 0x0 0x0 8 0x0\n", "'@PART '", 2},
        {"# simtrace text 1 part=0\n@1 0 1 0x0 0x0 8 0x0\n", "no header line declares", 2},
        {"# simtrace text 1 part=0\n@0 0 1 0x0 0x0 8 0x0\n# simtrace text 1 part=1\n", "after the first entry", 3},
        {"# simtrace text 1\n# simtrace text 1 part=0\n", "a second", 2},
        {"# simtrace text 1 part=0\n# simtrace text 1\n", "a second", 2},
        {"# simtrace text 1 part=x\n", "decimal", 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        st_error e = imp_s("text", bad[i].text, &m, &d);
        CHECK((e == ST_E_SYNTAX || e == ST_E_NOT_FORMAT) && d.line == bad[i].line && strstr(d.detail, bad[i].why));
        m_free(&m);
    }
    char many[4096];
    size_t k = 0;
    for (int i = 0; i <= ST_TEXT_PARTS; i++)
        k += (size_t)snprintf(many + k, sizeof many - k, "# simtrace text 1 stream=s%d part=%d\n", i, i);
    CHECK(imp_s("text", many, &m, &d) == ST_E_TOO_LARGE && d.line == ST_TEXT_PARTS + 1);
    m_free(&m);
}

/* ---- the error policy ------------------------------------------------------------ */

static void test_errors(void)
{
    msink m;
    st_diag d;
    st_import_stats st;

    /* middle: stop there, everything before it appended */
    const char *mid = "I  10,3\n L 20,4\n X bad line\n L 30,4\n";
    CHECK(imp("lackey", mid, strlen(mid), NULL, &m, &st, &d) == ST_E_SYNTAX);
    CHECK(d.line == 3 && d.offset == 16 && strstr(d.detail, "` X bad line`"));
    CHECK(m.ns == 2 && m.n[0] == 1 && st.entries == 2); /* read, and fetch */
    m_free(&m);

    /* end, without a final newline */
    CHECK(imp_s("lackey", "I  10,3\n L 20,4\n L 30,", &m, &d) == ST_E_SYNTAX && d.line == 3);
    CHECK(strstr(d.detail, "decimal size") != NULL && m.n[0] == 1);
    m_free(&m);

    /* start, followed by valid lines: a syntax error, nothing appended */
    CHECK(imp_s("lackey", "garbage\nI  10,3\n L 20,4\n", &m, &d) == ST_E_SYNTAX && d.line == 1 && d.offset == 0);
    CHECK(m.ns == 0);
    m_free(&m);

    /* nothing valid in the first lines: not the format */
    CHECK(imp_s("lackey", "a\nb\nc\nd\ne\nf\ng\nh\ni\n", &m, &d) == ST_E_NOT_FORMAT && m.ns == 0);
    m_free(&m);
    CHECK(imp_s("din", "hello world\n", &m, &d) == ST_E_NOT_FORMAT);
    m_free(&m);
    CHECK(imp_s("text", "I  0401ab70,3\n S 1fff000628,8\n", &m, &d) == ST_E_NOT_FORMAT);
    m_free(&m);
    static const uint8_t bin[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, '\n', 1, 2, 3};
    const char *fmts[] = {"lackey", "din", "xdin", "pinatrace", "text"};
    for (int i = 0; i < 5; i++) {
        CHECK(imp(fmts[i], bin, sizeof bin, NULL, &m, &st, &d) == ST_E_NOT_FORMAT);
        m_free(&m);
    }
    /* a long run without newline (binary) */
    uint8_t *big = malloc(200000);
    memset(big, 0xAB, 200000);
    CHECK(imp("pinatrace", big, 200000, NULL, &m, &st, &d) == ST_E_NOT_FORMAT);
    m_free(&m);
    free(big);

    /* skip_bad: count, warn, go on */
    const char *sk = "I  10,3\n L 20,4\nbad1\n L 30,4\n Q 1,1\n L 1,0\n";
    st_import_opts o = {.skip_bad = 1, .warn = count_warn};
    warn_calls = 0;
    CHECK(imp("lackey", sk, strlen(sk), &o, &m, &st, &d) == ST_OK);
    CHECK(st.bad_lines == 3 && warn_calls == 3 && m.n[0] == 2 && st.lines == 6);
    m_free(&m);

    /* CRLF gives the same entries as LF */
    const char *lf = "I  10,3\n L 20,4\n S 28,8\n";
    const char *crlf = "I  10,3\r\n L 20,4\r\n S 28,8\r\n";
    msink m2;
    CHECK(imp_s("lackey", lf, &m, &d) == ST_OK && imp_s("lackey", crlf, &m2, &d) == ST_OK);
    CHECK(m.n[0] == 1 && m2.n[0] == 1 && memcmp(m.data[0], m2.data[0], 32) == 0);
    CHECK(m.n[1] == 1 && m2.n[1] == 1 && memcmp(m.data[1], m2.data[1], 32) == 0);
    m_free(&m);
    m_free(&m2);

    /* too large */
    CHECK(imp_s("lackey", "I  10,3\n L 12345678901234567,4\n", &m, &d) == ST_E_TOO_LARGE && d.line == 2);
    m_free(&m);
    CHECK(imp_s("text", "0 1 0x1 0x2 8 0x3\n1 281474976710656 0x1 0x2 8 0x3\n", &m, &d) == ST_E_TOO_LARGE);
    CHECK(strstr(d.detail, "48 bits") && m.n[0] == 1);
    m_free(&m);
    CHECK(imp_s("text", "# simtrace text 1 type=d32\n0 1 0x100000000 0x2 4 0x3\n", &m, &d) == ST_E_TOO_LARGE);
    m_free(&m);

    CHECK(imp_s("nosuch", "x", &m, &d) == ST_E_USAGE);
    m_free(&m);
    CHECK(imp_s("lackey", "", &m, &d) == ST_OK && m.ns == 0);
    m_free(&m);
}

/* ---- text ---------------------------------------------------------------------------- */

static void test_text_grammar(void)
{
    /* Pins the exact spelling of each case of IMPORT.md section 6. */
    uint8_t e[4][32];
    st_entry a = {5, 1, 0x400000, 0x1000, 0xdeadbeefcafef00dull};           /* full */
    st_entry b = {6, 0 | (0x12 << 1), 0x400004, 0x1008, 2 * K32 | 0xbeef}; /* 2 bytes, tag */
    st_entry c = {7, 0, 0x400008, 0x1010, 8 * K32 | 0x1234};                /* fullSize 0, size 8 */
    st_entry dd = {8, 0, 0, 0, 12 * K32 | 0x55};                            /* wide, no blocks */
    st_entry_store(ST_TYPE_D64, e[0], &a);
    st_entry_store(ST_TYPE_D64, e[1], &b);
    st_entry_store(ST_TYPE_D64, e[2], &c);
    st_entry_store(ST_TYPE_D64, e[3], &dd);
    obuf o = {0};
    st_export_stream s = {"cpu0.read", ST_TYPE_D64, 32, NULL, 0};
    st_exporter *x;
    CHECK(st_exporter_new(&x, "text", &s, o_write, &o, NULL, NULL) == ST_OK);
    CHECK(st_exporter_write(x, 10, e[0], 4) == ST_OK && st_exporter_finish(x) == ST_OK);
    st_exporter_free(x);
    const char *want = "# simtrace text 1 stream=cpu0.read type=d64\n"
                       "10 5 0x400000 0x1000 8 0xdeadbeefcafef00d\n"
                       "11 6 0x400004 0x1008 2 0xbeef tag=0x12\n"
                       "12 7 0x400008 0x1010 8 0x1234 nf nv\n"
                       "13 8 0x0 0x0 12 0x55 nv\n";
    CHECK(o.p && strcmp((char *)o.p, want) == 0);
    if (o.p && strcmp((char *)o.p, want) != 0)
        fprintf(stderr, "got:\n%s", o.p);
    free(o.p);
}

/* raw -> text -> raw for every memory layout, random bits everywhere, and
 * text -> text byte-identical. */
static void test_text_raw_roundtrip(void)
{
    st_entry_type types[] = {ST_TYPE_D64, ST_TYPE_D32, ST_TYPE_M64, ST_TYPE_M32};
    unsigned long long seed = 0x1234567;
    for (int ti = 0; ti < 4; ti++) {
        st_entry_type t = types[ti];
        size_t es = st_entry_size(t), n = 3000;
        msink src;
        m_init(&src);
        uint32_t sid;
        st_stream_decl decl = {"s", t, UINT32_MAX, NULL, 0};
        m_add(&src, &decl, &sid);
        uint8_t *raw = malloc(n * es);
        for (size_t i = 0; i < n * es; i++)
            raw[i] = (uint8_t)check_rand(&seed);
        for (size_t i = 0; i < n; i++) {
            uint8_t *p = raw + i * es;
            unsigned r = (unsigned)check_rand(&seed) % 6;
            if (r == 0)
                p[6] &= 0xFE, p[6] |= 1; /* fullSize 1 */
            if (r == 1 && st_entry_has_data(t)) { /* fullSize 0, narrow */
                p[6] &= 0xFE;
                if (t == ST_TYPE_D64)
                    st_store64(p + 24, (uint64_t)(1 + r % 4) << 32 | st_load32(p + 24));
                else
                    st_store32(p + 16, (uint32_t)(2u << 16 | (st_load32(p + 16) & 0xFFFF)));
            }
            if (r == 2 && st_entry_has_data(t)) { /* fullSize 0, size == width */
                p[6] &= 0xFE;
                if (t == ST_TYPE_D64)
                    st_store64(p + 24, UINT64_C(8) << 32 | 7);
                else
                    st_store32(p + 16, 4u << 16 | 7);
            }
            if (r == 3)
                p[7] = p[6] = 0; /* tag 0 */
        }
        m_append(&src, sid, raw, n);
        obuf o;
        CHECK(exp_stream("text", &src, 0, NULL, &o, 0) == ST_OK);
        msink back;
        st_diag d;
        st_import_stats st;
        CHECK(imp("text", o.p, o.n, NULL, &back, &st, &d) == ST_OK);
        if (st.entries != n)
            fprintf(stderr, "type %s: %s line %llu: %s\n", st_entry_name(t), st_error_name(ST_OK),
                    (unsigned long long)d.line, d.detail);
        CHECK(back.ns == 1 && back.type[0] == t && strcmp(back.name[0], "s") == 0);
        CHECK(back.n[0] == n && memcmp(back.data[0], raw, n * es) == 0);
        obuf o2;
        CHECK(exp_stream("text", &back, 0, NULL, &o2, 0) == ST_OK);
        CHECK(o2.n == o.n && memcmp(o.p, o2.p, o.n) == 0);
        /* raw exporter: bytes as they are */
        obuf o3;
        CHECK(exp_stream("raw", &back, 0, NULL, &o3, 0) == ST_OK);
        CHECK(o3.n == n * es && memcmp(o3.p, raw, o3.n) == 0);
        free(o.p);
        free(o2.p);
        free(o3.p);
        free(raw);
        m_free(&src);
        m_free(&back);
    }
}

/* Wide values: text -> entries + vblocks -> text, byte-identical. */
static void test_text_vwide(void)
{
    char t[2048];
    char v12[64], v40[128];
    size_t k = 0;
    for (int i = 12; i >= 1; i--)
        k += (size_t)sprintf(v12 + k, "%02x", i);
    k = 0;
    for (int i = 40; i >= 1; i--)
        k += (size_t)sprintf(v40 + k, "%02x", (i * 37) & 0xff);
    snprintf(t, sizeof t,
             "# simtrace text 1 stream=cpu0.write type=d64\n"
             "0 1 0x10 0x100 4 0xaabbccdd\n"
             "1 2 0x14 0x200 12 0x%s\n"
             "2 3 0x18 0x300 8 0x1122334455667788\n"
             "3 4 0x1c 0x400 40 0x%s\n"
             "4 5 0x20 0x500 6 0x0000000000ff\n"
             "5 6 0x24 0x600 16 0x0 nv\n",
             v12, v40);
    msink m;
    st_diag d;
    st_import_stats st;
    CHECK(imp("text", t, strlen(t), NULL, &m, &st, &d) == ST_OK);
    int p = m_find(&m, "cpu0.write"), v = m_find(&m, "cpu0.write.vdata");
    CHECK(p == 0 && v == 1 && m.type[v] == ST_TYPE_VBLOCK && m.owner[v] == 0 && m.order_ok);
    CHECK(m.n[p] == 6 && m.n[v] == 1 + 2 + 1);
    CHECK(is_entry(&m, p, 1, 2, 0, 0x14, 0x200, 12 * K32 | 0x04030201));
    CHECK(is_entry(&m, p, 4, 5, 0, 0x20, 0x500, 6 * K32 | 0xff));
    CHECK(is_entry(&m, p, 5, 6, 0, 0x24, 0x600, 16 * K32));
    uint8_t val[12], blk[32];
    for (int i = 0; i < 12; i++)
        val[i] = (uint8_t)(i + 1);
    st_vblock_split(1, val, 12, blk);
    CHECK(memcmp(m.data[v], blk, 32) == 0);
    CHECK(st_load64(m.data[v] + 32) == (3 | UINT64_C(24) << 48 | ST_VBLOCK_MORE));
    CHECK(st_load64(m.data[v] + 64) == (3 | UINT64_C(16) << 48));
    obuf o;
    CHECK(exp_stream("text", &m, p, NULL, &o, 1) == ST_OK);
    CHECK(o.n == strlen(t) && memcmp(o.p, t, o.n) == 0);
    if (o.p && (o.n != strlen(t) || memcmp(o.p, t, o.n)))
        fprintf(stderr, "got:\n%s", o.p);
    free(o.p);
    m_free(&m);
    /* 7 bytes in a 6-byte value */
    CHECK(imp_s("text", "0 1 0x1 0x2 1 0x3\n1 1 0x10 0x100 6 0x11223344556677\n", &m, &d) == ST_E_SYNTAX);
    CHECK(d.line == 2 && strstr(d.detail, "wider than its size") && m.n[0] == 1);
    m_free(&m);
}

/* ---- vpc ----------------------------------------------------------------------------- */

static void test_vpc(void)
{
    const char *fmts[] = {"vpc", "vpc3"};
    const char *files[] = {"testdata/good/sample.vpc", "testdata/good/sample.vpc3"};
    for (int f = 0; f < 2; f++) {
        size_t len;
        uint8_t *b = read_file(files[f], &len);
        CHECK(b && len == 4 + 50 * 12);
        if (!b)
            continue;
        msink m;
        st_diag d;
        st_import_stats st;
        CHECK(imp(fmts[f], b, len, NULL, &m, &st, &d) == ST_OK);
        CHECK(m.ns == 1 && strcmp(m.name[0], "trace") == 0 && m.type[0] == ST_TYPE_VPC);
        CHECK(m.header_len[0] == 4 && memcmp(m.header[0], b, 4) == 0);
        CHECK(m.n[0] == 50 && st.entries == 50 && st.bytes == len);
        CHECK(st_load32(m.data[0]) == 1 && st_load64(m.data[0] + 4) == 0x7FFF00001000ull);
        CHECK(st_load32(m.data[0] + 12) == 4 && st_load64(m.data[0] + 16) == 0x7FFF00001008ull);
        obuf o;
        CHECK(exp_stream(fmts[f], &m, 0, NULL, &o, 0) == ST_OK);
        CHECK(o.n == len && memcmp(o.p, b, len) == 0);
        free(o.p);
        /* vpc -> text -> vpc */
        CHECK(exp_stream("text", &m, 0, NULL, &o, 0) == ST_OK);
        msink t;
        CHECK(imp("text", o.p, o.n, NULL, &t, &st, &d) == ST_OK);
        CHECK(t.ns == 1 && t.type[0] == ST_TYPE_VPC && t.header_len[0] == 4);
        obuf o2;
        CHECK(exp_stream(fmts[f], &t, 0, NULL, &o2, 0) == ST_OK);
        CHECK(o2.n == len && memcmp(o2.p, b, len) == 0);
        free(o.p);
        free(o2.p);
        m_free(&t);
        m_free(&m);

        /* ends mid-record: whole records appended, then PARTIAL_ENTRY */
        uint8_t *b2 = malloc(len + 5);
        memcpy(b2, b, len);
        memset(b2 + len, 9, 5);
        CHECK(imp(fmts[f], b2, len + 5, NULL, &m, &st, &d) == ST_E_PARTIAL_ENTRY);
        CHECK(m.n[0] == 50 && d.offset == len);
        m_free(&m);
        /* the other flavour's file, and text, are not this format */
        CHECK(imp(fmts[1 - f], b, len, NULL, &m, &st, &d) == ST_E_NOT_FORMAT);
        m_free(&m);
        free(b2);
        free(b);
    }
    msink m;
    st_diag d;
    CHECK(imp_s("vpc", "ab", &m, &d) == ST_E_NOT_FORMAT);
    m_free(&m);
    CHECK(imp_s("vpc3", "", &m, &d) == ST_E_NOT_FORMAT);
    m_free(&m);
    /* header only: the stream still exists and keeps its header */
    CHECK(imp_s("vpc3", "vpc3", &m, &d) == ST_OK && m.ns == 1 && m.n[0] == 0);
    m_free(&m);

    st_exporter *x;
    obuf o = {0};
    st_export_stream s = {"r", ST_TYPE_D64, 32, NULL, 0};
    CHECK(st_exporter_new(&x, "vpc", &s, o_write, &o, NULL, NULL) == ST_E_UNSUPPORTED);
    CHECK(st_exporter_new(&x, "vpc3", &s, o_write, &o, NULL, NULL) == ST_E_UNSUPPORTED);
    CHECK(st_exporter_new(&x, "nosuch", &s, o_write, &o, NULL, NULL) == ST_E_USAGE);
    s.type = ST_TYPE_VPC;
    s.entry_size = 12;
    CHECK(st_exporter_new(&x, "lackey", &s, o_write, &o, NULL, NULL) == ST_E_UNSUPPORTED);
    /* no kept header: vpc gets the widest range, finish alone writes it */
    CHECK(st_exporter_new(&x, "vpc", &s, o_write, &o, NULL, NULL) == ST_OK);
    CHECK(st_exporter_finish(x) == ST_OK && o.n == 4 && st_load32(o.p) == UINT32_MAX);
    st_exporter_free(x);
    free(o.p);
    for (int i = 0; st_export_formats[i]; i++)
        CHECK(st_export_formats[i][0] != 0);
    CHECK(st_import_formats[7] && strcmp(st_import_formats[7], "vpc3") == 0);
    /* NULL-terminated, whatever formats follow vpc3 */
    int nfmt = 0;
    while (nfmt < 64 && st_import_formats[nfmt])
        nfmt++;
    CHECK(nfmt < 64);
}

/* ---- lackey, din, xdin, csv exporters, alone and merged ----------------------------------- */

/* The streams idx[0..k-1] of an msink as sources of st_export_merged. */
typedef struct {
    const msink *m;
    const int *idx;
    size_t pos[MAXS];
} msrc;

static st_error m_next(void *arg, unsigned k, const uint8_t **e, uint64_t *index)
{
    msrc *s = arg;
    int i = s->idx[k];
    *e = NULL;
    if (s->pos[k] < s->m->n[i]) {
        *index = s->pos[k];
        *e = s->m->data[i] + s->pos[k]++ * st_entry_size(s->m->type[i]);
    }
    return ST_OK;
}

static st_error exp_merged(const char *fmt, const msink *m, const int *idx, unsigned k, obuf *o)
{
    memset(o, 0, sizeof *o);
    st_export_stream s[MAXS];
    for (unsigned j = 0; j < k; j++)
        s[j] = (st_export_stream){m->name[idx[j]], m->type[idx[j]], (uint32_t)st_entry_size(m->type[idx[j]]),
                                  NULL, 0};
    msrc src = {m, idx, {0}};
    st_error e = st_export_merged(fmt, s, k, m_next, &src, o_write, o);
    if (e == ST_OK && !o->p)
        o->p = calloc(1, 1);
    return e;
}

static size_t count_lines(const obuf *o)
{
    size_t n = 0;
    for (size_t i = 0; i < o->n; i++)
        n += o->p[i] == '\n';
    return n;
}

static int same_streams(const msink *a, const msink *b)
{
    if (a->ns != b->ns)
        return 0;
    for (int i = 0; i < a->ns; i++) {
        int j = m_find(b, a->name[i]);
        if (j < 0 || b->n[j] != a->n[i] || memcmp(a->data[i], b->data[j], a->n[i] * 32) != 0)
            return 0;
    }
    return 1;
}

static void test_access_exporters(void)
{
    size_t len;
    uint8_t *b = read_file("testdata/good/sample.lackey", &len);
    if (!b)
        return;
    msink m;
    st_diag d;
    st_import_stats st;
    CHECK(imp("lackey", b, len, NULL, &m, &st, &d) == ST_OK);
    /* the real log without valgrind's "==" lines */
    char *want = malloc(len + 1);
    size_t wn = 0;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && b[e] != '\n')
            e++;
        if (!(e - i >= 2 && b[i] == '=' && b[i + 1] == '=')) {
            memcpy(want + wn, b + i, e - i + (e < len));
            wn += e - i + (e < len);
        }
        i = e + 1;
    }
    free(b);
    int r = m_find(&m, "read"), w = m_find(&m, "write"), f = m_find(&m, "fetch");
    CHECK(r >= 0 && w >= 0 && f >= 0);
    if (r < 0 || w < 0 || f < 0)
        return;
    int all[3] = {r, w, f};
    obuf o;
    /* lackey -> entries -> lackey gives the log back byte for byte; and the
     * entries again (the inverse split) */
    CHECK(exp_merged("lackey", &m, all, 3, &o) == ST_OK && o.n == wn && memcmp(o.p, want, wn) == 0);
    msink back;
    CHECK(imp("lackey", o.p, o.n, NULL, &back, &st, &d) == ST_OK && same_streams(&m, &back));
    m_free(&back);
    free(o.p);
    /* the order of the sources does not matter where the kinds decide */
    int rev[3] = {f, w, r};
    CHECK(exp_merged("lackey", &m, rev, 3, &o) == ST_OK && o.n == wn && memcmp(o.p, want, wn) == 0);
    free(o.p);
    /* din and xdin: the same records (M as a read and a write), the same
     * streams back but for sizes (din) and M (its kinds) */
    for (int x = 0; x < 2; x++) {
        const char *fmt = x ? "xdin" : "din";
        CHECK(exp_merged(fmt, &m, all, 3, &o) == ST_OK);
        CHECK(imp(fmt, o.p, o.n, NULL, &back, &st, &d) == ST_OK);
        obuf o2;
        int ball[3] = {m_find(&back, "read"), m_find(&back, "write"), m_find(&back, "fetch")};
        CHECK(exp_merged(fmt, &back, ball, 3, &o2) == ST_OK && o2.n == o.n && memcmp(o.p, o2.p, o.n) == 0);
        CHECK(back.n[ball[0]] == m.n[r] && back.n[ball[1]] == m.n[w] && back.n[ball[2]] == m.n[f]);
        if (x)
            CHECK(memcmp(back.data[ball[0]], m.data[r], m.n[r] * 32) == 0 &&
                  memcmp(back.data[ball[1]], m.data[w], m.n[w] * 32) == 0);
        free(o.p);
        free(o2.p);
        m_free(&back);
    }
    /* text: one file of parts, split back into the same streams (6.5) */
    CHECK(exp_merged("text", &m, all, 3, &o) == ST_OK);
    CHECK(o.n > 60 && memcmp(o.p, "# simtrace text 1 stream=read type=d64 part=0\n", 46) == 0);
    CHECK(imp("text", o.p, o.n, NULL, &back, &st, &d) == ST_OK && same_streams(&m, &back));
    m_free(&back);
    free(o.p);
    /* one stream alone: its own records, none invented */
    for (int s = 0; s < m.ns; s++) {
        CHECK(exp_stream("lackey", &m, s, NULL, &o, 0) == ST_OK && count_lines(&o) == m.n[s]);
        CHECK(o.n && o.p[0] == (s == f ? 'I' : ' '));
        free(o.p);
        CHECK(exp_stream("din", &m, s, NULL, &o, 0) == ST_OK && count_lines(&o) == m.n[s]);
        free(o.p);
    }
    free(want);
    m_free(&m);

    /* accesses before the first instruction and more than 16 after one:
     * continuation entries keep their order */
    char many[2048];
    size_t k = (size_t)snprintf(many, sizeof many, " S 00000008,1\nI  00000010,3\n M 00000020,2\n");
    for (int i = 0; i < 17; i++)
        k += (size_t)snprintf(many + k, sizeof many - k, i == 15 ? " S %08x,4\n" : " L %08x,4\n", 0x100 + i);
    k += (size_t)snprintf(many + k, sizeof many - k, "I  00000013,0\n");
    CHECK(imp_s("lackey", many, &m, &d) == ST_OK);
    int idx[3] = {m_find(&m, "read"), m_find(&m, "write"), m_find(&m, "fetch")};
    CHECK(exp_merged("lackey", &m, idx, 3, &o) == ST_OK && o.n == k && memcmp(o.p, many, k) == 0);
    free(o.p);
    /* a fetch stream whose kinds do not fit its streams: cycle order, every
     * entry once */
    st_store64(m.data[idx[2]] + 32 + 24, 3 * K32 | 0xAAAAAAAA); /* all S */
    CHECK(exp_merged("lackey", &m, idx, 3, &o) == ST_OK && count_lines(&o) == 2 + m.n[idx[0]] + m.n[idx[1]]);
    free(o.p);
    int two[2] = {idx[0], idx[1]}; /* reads and writes without fetches: no I line */
    CHECK(exp_merged("din", &m, two, 2, &o) == ST_OK && count_lines(&o) == m.n[idx[0]] + m.n[idx[1]]);
    CHECK(!memchr(o.p, '2', 1));
    free(o.p);
    m_free(&m);

    /* without the fetch stream, a cycle's reads come before its writes,
     * whatever the order of the streams (a read-modify-write reads first) */
    CHECK(imp_s("din", "2 10\n1 100\n0 200\n", &m, &d) == ST_OK && strcmp(m.name[0], "write") == 0);
    int wr[2] = {0, m_find(&m, "read")};
    CHECK(exp_merged("din", &m, wr, 2, &o) == ST_OK && o.n == 12 && memcmp(o.p, "0 200\n1 100\n", 12) == 0);
    free(o.p);
    /* with it, the order of the records */
    int wrf[3] = {0, m_find(&m, "read"), m_find(&m, "fetch")};
    CHECK(exp_merged("din", &m, wrf, 3, &o) == ST_OK && o.n == 17 && memcmp(o.p, "2 10\n1 100\n0 200\n", 17) == 0);
    free(o.p);
    m_free(&m);

    /* exact spelling */
    uint8_t e[2][32];
    st_entry a = {3, 1, 0x401000, 0x7ff0, 0}, c = {5, 0, 0x401010, 0x7ff8, 4 * K32};
    st_entry_store(ST_TYPE_D64, e[0], &a);
    st_entry_store(ST_TYPE_D64, e[1], &c);
    static const struct {
        const char *fmt, *name, *text;
    } sp[] = {
        {"lackey", "cpu0.write", " S 00007ff0,8\n S 00007ff8,4\n"},
        {"din", "read", "0 7ff0\n0 7ff8\n"},
        {"xdin", "cpu0.write", "w 7ff0 8\nw 7ff8 4\n"},
        {"xdin", "fetch", "i 7ff0 8\ni 7ff8 4\n"},
        {"csv", "a,\"b", "stream,index,cycle,ip,address,size,value,tag,fullsize\n"
                         "\"a,\"\"b\",0,3,4198400,32752,8,0,0,1\n\"a,\"\"b\",1,5,4198416,32760,4,0,0,0\n"},
    };
    for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++) {
        memset(&o, 0, sizeof o);
        st_export_stream s = {sp[i].name, ST_TYPE_D64, 32, NULL, 0};
        st_exporter *x;
        CHECK(st_exporter_new(&x, sp[i].fmt, &s, o_write, &o, NULL, NULL) == ST_OK);
        CHECK(st_exporter_write(x, 0, e[0], 2) == ST_OK && st_exporter_finish(x) == ST_OK);
        st_exporter_free(x);
        CHECK(o.p && o.n == strlen(sp[i].text) && memcmp(o.p, sp[i].text, o.n) == 0);
        free(o.p);
    }
    st_export_stream bad = {"r", ST_TYPE_VPC, 12, NULL, 0};
    msrc none = {NULL, NULL, {0}};
    CHECK(st_export_merged("raw", &bad, 1, m_next, &none, o_write, &o) == ST_E_USAGE);
    CHECK(st_export_merged("lackey", &bad, 1, m_next, &none, o_write, &o) == ST_E_UNSUPPORTED);
}

/* ---- compressed inputs (common/st_decomp.h) -------------------------------------------- */

/* Compress p[0..n) as kind 0 xz, 1 gzip, 2 zstd; *out malloc'd. */
static size_t compress_as(int kind, const uint8_t *p, size_t n, uint8_t **out)
{
    size_t cap = n + n / 2 + 1024, len = 0;
    *out = malloc(cap);
    if (kind == 0) {
        if (lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, p, n, *out, &len, cap) != LZMA_OK)
            len = 0;
    } else if (kind == 1) {
        z_stream z;
        memset(&z, 0, sizeof z);
        deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY); /* gzip wrapper */
        z.next_in = (uint8_t *)p;
        z.avail_in = (uInt)n;
        z.next_out = *out;
        z.avail_out = (uInt)cap;
        len = deflate(&z, Z_FINISH) == Z_STREAM_END ? cap - z.avail_out : 0;
        deflateEnd(&z);
    } else {
        len = ZSTD_compress(*out, cap, p, n, 3);
        if (ZSTD_isError(len))
            len = 0;
    }
    return len;
}

/* Feed buf through a pipe (from a child) or a file, read it back through
 * st_decomp (lines: as for a text importer); returns the decompressed
 * bytes in *out and the close result. */
static st_error through_decomp_as(const uint8_t *buf, size_t n, int use_pipe, int lines, uint8_t **out, size_t *outn,
                                  const char **kind, st_diag *d)
{
    int fd;
    pid_t pid = -1;
    char path[] = "/tmp/test_trace_io_XXXXXX";
    if (use_pipe) {
        int p[2];
        if (pipe(p) != 0)
            return ST_E_INTERNAL;
        pid = fork();
        if (pid == 0) {
            close(p[0]);
            size_t off = 0;
            while (off < n) {
                ssize_t k = write(p[1], buf + off, n - off > 1000 ? 1000 : n - off);
                if (k <= 0)
                    _exit(1);
                off += (size_t)k;
            }
            _exit(0);
        }
        close(p[1]);
        fd = p[0];
    } else {
        fd = mkstemp(path);
        if (fd < 0 || write(fd, buf, n) != (ssize_t)n || lseek(fd, 0, SEEK_SET) != 0)
            return ST_E_INTERNAL;
        unlink(path);
    }
    int rfd;
    st_decomp *z;
    st_error e = st_decomp_open(fd, lines, &rfd, &z, kind);
    size_t cap = 1 << 20, len = 0;
    *out = malloc(cap);
    while (e == ST_OK) {
        if (len == cap)
            *out = realloc(*out, cap *= 2);
        ssize_t k = read(rfd, *out + len, cap - len);
        if (k <= 0)
            break;
        len += (size_t)k;
    }
    *outn = len;
    st_diag_clear(d);
    if (e == ST_OK)
        e = st_decomp_close(z, 0, d);
    close(fd);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    return e;
}

static st_error through_decomp(const uint8_t *buf, size_t n, int use_pipe, uint8_t **out, size_t *outn,
                               const char **kind, st_diag *d)
{
    return through_decomp_as(buf, n, use_pipe, 0, out, outn, kind, d);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A consumer that stops early (a signal, a write error) while the
 * decompressing thread waits for more input: closing does not wait for
 * the upstream pipe to write more or end (it waited as long as the writer
 * held the pipe open: 5.66 s after SIGINT for svpc-compress reading
 * `{ cat part.zst; sleep 6; } |`). */
static void test_decomp_stop_waits_not(void)
{
    size_t len;
    uint8_t *b = read_file("testdata/good/sample.lackey", &len);
    if (!b)
        return;
    uint8_t *c;
    size_t cn = compress_as(2, b, len, &c);
    int p[2];
    CHECK(cn > 1000 && pipe(p) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        /* all but the end (the last block), then a writer that holds the
         * pipe open */
        close(p[0]);
        if (write(p[1], c, cn - 10) != (ssize_t)(cn - 10))
            _exit(1);
        sleep(30);
        _exit(0);
    }
    close(p[1]);
    int rfd;
    st_decomp *z;
    const char *kind;
    CHECK(st_decomp_open(p[0], 0, &rfd, &z, &kind) == ST_OK && z);
    /* all it can give, until it waits for input (nothing for 300 ms) */
    uint8_t buf[4096];
    size_t got = 0;
    struct pollfd pf = {rfd, POLLIN, 0};
    while (poll(&pf, 1, 300) > 0) {
        ssize_t k = read(rfd, buf, sizeof buf);
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    CHECK(got > 0 && got < len);
    double t0 = now_s();
    st_diag d;
    st_diag_clear(&d);
    CHECK(st_decomp_close(z, 0, &d) == ST_OK); /* stopped early: no error */
    double took = now_s() - t0;
    CHECK(took < 5);
    if (took >= 5)
        fprintf(stderr, "st_decomp_close took %.1f s\n", took);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(p[0]);
    free(c);
    free(b);
}

/* A text consumer of a compressed input that ends early or is damaged
 * reads whole lines only: a half line would be imported as a wrong entry
 * (a lackey log cut inside "I  0400522f,11" gave the entry of ",1"). */
static void test_decomp_lines(void)
{
    size_t len;
    uint8_t *b = read_file("testdata/good/sample.lackey", &len);
    if (!b)
        return;
    for (int k = 0; k < 3; k++) {
        uint8_t *c, *back;
        size_t cn = compress_as(k, b, len, &c), bn;
        const char *kind;
        st_diag d;
        /* whole: every byte, as without lines */
        CHECK(through_decomp_as(c, cn, 1, 1, &back, &bn, &kind, &d) == ST_OK && bn == len && memcmp(back, b, len) == 0);
        free(back);
        /* cut off at several places: a prefix of whole lines, and the
         * message counts what was held back */
        unsigned held = 0;
        for (size_t cut = cn / 4; cut < cn; cut += cn / 4) {
            CHECK(through_decomp_as(c, cut, cut % 2, 1, &back, &bn, &kind, &d) == ST_E_TRUNCATED && d.offset == cut);
            CHECK(bn <= len && memcmp(back, b, bn) == 0 && (bn == 0 || back[bn - 1] == '\n'));
            held += strstr(d.detail, "unfinished line") != NULL;
            free(back);
        }
        CHECK(held > 0);
        /* damaged: whole lines too */
        c[cn / 2] ^= 0x55;
        CHECK(through_decomp_as(c, cn, 0, 1, &back, &bn, &kind, &d) == ST_E_CORRUPT);
        CHECK(bn == 0 || back[bn - 1] == '\n');
        free(back);
        free(c);
    }
    /* a clean input whose last line has no newline keeps it; a line longer
     * than ST_DECOMP_LINE_MAX is passed on, not held (bounded memory) */
    size_t ln = ST_DECOMP_LINE_MAX + 5000;
    uint8_t *t = malloc(ln + 20), *c, *back;
    memcpy(t, "I  04000000,3\n", 14);
    memset(t + 14, 'x', ln);
    memcpy(t + 14 + ln, "\n L 7,8", 6);
    for (int k = 0; k < 3; k++) {
        const char *kind;
        st_diag d;
        size_t bn, cn = compress_as(k, t, 20 + ln, &c);
        CHECK(through_decomp_as(c, cn, 1, 1, &back, &bn, &kind, &d) == ST_OK && bn == 20 + ln &&
              memcmp(back, t, bn) == 0);
        free(back);
        free(c);
    }
    free(t);
    free(b);
}

/* Offsets of the first two block headers of the one zstd frame at c
 * (RFC 8878 3.1.1: magic, frame header descriptor, window descriptor
 * unless single segment, dictionary id, frame content size). */
static void zstd_blocks(const uint8_t *c, size_t *b1, size_t *b2)
{
    uint8_t fhd = c[4];
    static const size_t did[4] = {0, 1, 2, 4}, fcs[4] = {0, 2, 4, 8};
    int single = (fhd >> 5) & 1;
    size_t p = 5 + !single + did[fhd & 3] + (fhd >> 6 ? fcs[fhd >> 6] : (size_t)single);
    *b1 = p;
    uint32_t h = c[p] | (uint32_t)c[p + 1] << 8 | (uint32_t)c[p + 2] << 16;
    *b2 = p + 3 + (((h >> 1) & 3) == 1 ? 1 : h >> 3);
}

/* zstd damage is placed within one block, the first one included (it was
 * reported at offset 0, the start of the read that held it):
 * a block header of the reserved type 3 in the first and in the second
 * block, from a file and a pipe. */
static void test_decomp_zstd_place(void)
{
    size_t len;
    uint8_t *b = read_file("testdata/good/sample.lackey", &len);
    if (!b)
        return;
    uint8_t *c;
    size_t cn = compress_as(2, b, len, &c), at[2];
    zstd_blocks(c, &at[0], &at[1]);
    CHECK(len > 2 * 128 * 1024 && at[1] > at[0] && at[1] < cn);
    for (int k = 0; k < 2; k++)
        for (int pipe_in = 0; pipe_in < 2; pipe_in++) {
            uint8_t *d2 = malloc(cn), *back;
            memcpy(d2, c, cn);
            d2[at[k]] |= 6; /* block type 3: reserved */
            size_t bn;
            const char *kind;
            st_diag d;
            CHECK(through_decomp(d2, cn, pipe_in, &back, &bn, &kind, &d) == ST_E_CORRUPT);
            /* the range given (a block and the header of the next, as the
             * decoder asks for them) holds the damaged header; its start
             * is the offset */
            unsigned long long lo, hi;
            const char *r = strstr(d.detail, "in bytes ");
            CHECK(r && sscanf(r, "in bytes %llu..%llu", &lo, &hi) == 2);
            CHECK(d.offset == lo && lo > 0 && lo <= at[k] && hi >= at[k] + 2 && hi - lo < 128 * 1024 + 6);
            free(back);
            free(d2);
        }
    free(c);
    free(b);
}

static void test_decomp(void)
{
    size_t len;
    uint8_t *b = read_file("testdata/good/sample.lackey", &len);
    if (!b)
        return;
    static const char *const names[] = {"xz", "gzip", "zstd"};
    for (int k = 0; k < 3; k++) {
        uint8_t *c, *back;
        size_t cn = compress_as(k, b, len, &c), bn;
        const char *kind;
        st_diag d;
        CHECK(cn > 0);
        for (int pipe_in = 0; pipe_in < 2; pipe_in++) {
            CHECK(through_decomp(c, cn, pipe_in, &back, &bn, &kind, &d) == ST_OK);
            CHECK(kind && strcmp(kind, names[k]) == 0 && bn == len && memcmp(back, b, len) == 0);
            free(back);
        }
        /* cut off: everything before, then TRUNCATED at the end of the input */
        CHECK(through_decomp(c, cn - 9, 1, &back, &bn, &kind, &d) == ST_E_TRUNCATED && d.offset == cn - 9);
        CHECK(bn <= len && memcmp(back, b, bn) == 0 && strstr(d.detail, names[k]));
        free(back);
        /* a damaged byte: CORRUPT, never a clean end */
        c[cn / 2] ^= 0x55;
        st_error e = through_decomp(c, cn, 0, &back, &bn, &kind, &d);
        CHECK(e == ST_E_CORRUPT && strstr(d.detail, "damaged"));
        free(back);
        free(c);
    }
    /* not compressed: the same descriptor, nothing read (file), or the same
     * bytes (pipe) */
    uint8_t *back;
    size_t bn;
    const char *kind;
    st_diag d;
    CHECK(through_decomp(b, len, 1, &back, &bn, &kind, &d) == ST_OK && !kind && bn == len &&
          memcmp(back, b, len) == 0);
    free(back);
    CHECK(through_decomp(b, 3, 0, &back, &bn, &kind, &d) == ST_OK && !kind && bn == 3);
    free(back);
    CHECK(through_decomp(b, 0, 1, &back, &bn, &kind, &d) == ST_OK && !kind && bn == 0);
    free(back);
    free(b);
}

/* ---- bench ------------------------------------------------------------------------------- */

static st_error null_add(void *arg, const st_stream_decl *d, uint32_t *sid)
{
    (void)arg, (void)d;
    static uint32_t next;
    *sid = next++;
    return ST_OK;
}

static st_error null_append(void *arg, uint32_t sid, const void *e, size_t n)
{
    (void)sid, (void)e;
    *(uint64_t *)arg += n;
    return ST_OK;
}

static int bench(const char *fmt, const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        perror(path);
        return 2;
    }
    uint64_t n = 0;
    st_import_stats st;
    st_diag d;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    st_error e = st_import(fmt, fd, NULL, &(st_import_sink){&n, null_add, null_append, NULL}, &st, &d);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    close(fd);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    printf("%s: %s, %llu bytes, %llu lines, %llu entries in %.3f s: %.1f MB/s\n", fmt, st_error_name(e),
           (unsigned long long)st.bytes, (unsigned long long)st.lines, (unsigned long long)st.entries, s,
           (double)st.bytes / s / 1e6);
    return e == ST_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--bench") == 0)
        return bench(argv[2], argv[3]);
    test_lackey();
    test_din();
    test_pinatrace();
    test_errors();
    test_text_grammar();
    test_text_parts();
    test_text_raw_roundtrip();
    test_text_vwide();
    test_vpc();
    test_access_exporters();
    test_dramsim2();
    test_gem5();
    test_pixie();
    test_decomp();
    test_decomp_zstd_place();
    test_decomp_stop_waits_not();
    test_decomp_lines();
    return check_done("test_trace_io");
}
