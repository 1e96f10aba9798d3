/* The importers on arbitrary input: byte 0 picks the format, skip_bad and
 * whether the input goes through st_decomp (xz, gzip, zstd by magic), the
 * rest is the file.  Beyond "no crash, no leak", the sink checks the
 * sink contract (declared sids, vblocks after their owner), and every text
 * input that imports cleanly must come back identical through the text
 * exporter and the importer again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/st_decomp.h"
#include "../../formats/cvp.h"
#include "../../formats/trace_io.h"
#include "../../svpc/svpc.h"
#include "fuzz_util.h"

#define MAXS 32 /* ST_IMP_MAX_STREAMS */
typedef struct {
    int ns;
    char name[MAXS][300];
    st_entry_type type[MAXS];
    uint32_t owner[MAXS];
    uint8_t header[MAXS][1024];
    size_t header_len[MAXS];
    uint8_t *data[MAXS];
    size_t n[MAXS];
} sink;

static st_error add(void *arg, const st_stream_decl *d, uint32_t *sid)
{
    sink *s = arg;
    if (s->ns == MAXS || d->header_len > 1024 || !d->name)
        abort();
    int i = s->ns++;
    snprintf(s->name[i], sizeof s->name[i], "%s", d->name);
    s->type[i] = d->type;
    s->owner[i] = d->owner;
    if (d->type == ST_TYPE_VBLOCK && d->owner >= (uint32_t)i)
        abort();
    memcpy(s->header[i], d->header ? d->header : (const uint8_t *)"", d->header_len);
    s->header_len[i] = d->header_len;
    *sid = (uint32_t)i;
    return ST_OK;
}

static st_error append(void *arg, uint32_t sid, const void *e, size_t n)
{
    sink *s = arg;
    if (sid >= (uint32_t)s->ns || n == 0)
        abort();
    size_t es = st_entry_size(s->type[sid]);
    if (s->type[sid] == ST_TYPE_VBLOCK)
        for (size_t i = 0; i < n; i++)
            if ((st_load64((const uint8_t *)e + 32 * i) & ST_CYCLE_MASK) >= s->n[s->owner[sid]])
                abort();
    s->data[sid] = realloc(s->data[sid], (s->n[sid] + n) * es);
    if (!s->data[sid])
        abort();
    memcpy(s->data[sid] + s->n[sid] * es, e, n * es);
    s->n[sid] += n;
    return ST_OK;
}

static void sink_free(sink *s)
{
    for (int i = 0; i < MAXS; i++)
        free(s->data[i]);
}

typedef struct {
    uint8_t *p;
    size_t n;
} obuf;

static st_error owrite(void *arg, const void *b, size_t n)
{
    obuf *o = arg;
    o->p = realloc(o->p, o->n + n);
    if (!o->p)
        abort();
    memcpy(o->p + o->n, b, n);
    o->n += n;
    return ST_OK;
}

static const sink *vs_sink;
static int vs_stream;
static uint8_t vs_buf[ST_VALUE_MAX + 32];

/* The value of entry `index` from the vblock stream (linear: inputs are small). */
static st_error value(void *arg, uint64_t index, const uint8_t **v, size_t *len)
{
    (void)arg;
    size_t n = 0;
    if (vs_stream >= 0)
        for (size_t i = 0; i < vs_sink->n[vs_stream]; i++) {
            const uint8_t *b = vs_sink->data[vs_stream] + 32 * i;
            uint64_t key = st_load64(b);
            if ((key & ST_CYCLE_MASK) != index)
                continue;
            size_t valid = (size_t)((key >> 48) & 31);
            if (n + valid > ST_VALUE_MAX)
                abort();
            memcpy(vs_buf + n, b + 8, valid);
            n += valid;
        }
    *v = vs_buf;
    *len = n;
    return ST_OK;
}

/* The streams of a sink as sources of st_export_merged. */
typedef struct {
    const sink *s;
    size_t *pos;
} msrc;

static st_error m_next(void *arg, unsigned k, const uint8_t **e, uint64_t *index)
{
    msrc *m = arg;
    *e = NULL;
    if (m->pos[k] < m->s->n[k]) {
        *index = m->pos[k];
        *e = m->s->data[k] + st_entry_size(m->s->type[k]) * m->pos[k]++;
    }
    return ST_OK;
}

/* CVP-1 / CBP-2025 (byte 0's top bits all set; bit 3: cbp2025): whatever
 * imports comes back byte for byte through the exporter, up to the first
 * bad record, and through the cvp encoder entry for entry. */
static int fuzz_cvp(const uint8_t *data, size_t size)
{
    const char *fmt = (data[0] >> 3) & 1 ? "cbp2025" : "cvp";
    int fd = fuzz_memfd(data + 1, size - 1);
    sink s;
    memset(&s, 0, sizeof s);
    st_import_stats st;
    st_diag d;
    st_error e = st_import(fmt, fd, NULL, &(st_import_sink){&s, add, append, NULL}, &st, &d);
    close(fd);
    if (s.ns != 1 || s.type[0] != ST_TYPE_CVP)
        abort();
    size_t whole = e == ST_OK ? size - 1 : (size_t)d.offset;
    if (e != ST_OK && e != ST_E_SYNTAX && e != ST_E_PARTIAL_ENTRY)
        abort();
    obuf out = {NULL, 0};
    st_export_stream es = {"trace", ST_TYPE_CVP, ST_CVP_ENTRY, NULL, 0};
    st_exporter *x;
    if (st_exporter_new(&x, fmt, &es, owrite, &out, NULL, NULL) != ST_OK ||
        st_exporter_write(x, 0, s.data[0], s.n[0]) != ST_OK || st_exporter_finish(x) != ST_OK)
        abort();
    st_exporter_free(x);
    if (out.n != whole || (whole && memcmp(out.p, data + 1, whole)))
        abort();
    free(out.p);
    static svpc_ctx *c; /* one for every run: a model's tables are tens of MB */
    st_buf enc;
    st_buf_init(&enc, 0);
    svpc_params p = {SVPC_ENC_CVP, SVPC_STAGE_NONE, 6};
    uint8_t *dec = malloc(s.n[0] * ST_CVP_ENTRY + 1);
    if ((!c && svpc_ctx_new(&c) != ST_OK) || svpc_encode(c, &p, ST_TYPE_CVP, s.data[0], s.n[0], &enc) != ST_OK ||
        svpc_decode(c, SVPC_ENC_CVP, ST_TYPE_CVP, enc.data, enc.len, s.n[0], dec, &d) != ST_OK ||
        (s.n[0] && memcmp(dec, s.data[0], s.n[0] * ST_CVP_ENTRY)))
        abort();
    free(dec);
    st_buf_free(&enc);
    sink_free(&s);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    /* byte 0, bit 7 clear: bits 0-2 pick one of fmts; bit 7 set: bits 5-6
     * pick one of foreign, and the last of them by bits 0-1: 00 cvp (its
     * own round trip), 01 pixie64, 1x drmemtrace */
    const char *fmts[] = {"lackey", "din", "xdin", "pinatrace", "text", "vpc", "vpc3", "bochs"};
    const char *fmt = fmts[data[0] % 8];
    /* bit 7 set: the formats of other tools instead; bits 0-1 say which
     * group and bits 5-6 pick in it: 0 dramsim2, gem5, pixie32 (and 0xe0
     * the cvp round trip), 1 dramsim2, gem5, pixie32, pixie64, 2
     * drmemtrace, 3 the ChampSim importers */
    const char *foreign[] = {"dramsim2", "gem5", "pixie32", "pixie64"};
    const char *cs_fmts[] = {"champsim", "champsim-cloudsuite", "champsim-mem", "champsim-cloudsuite-mem"};
    int is_foreign = (data[0] >> 7) & 1, champsim = 0;
    unsigned sel = (data[0] >> 5) & 3, group = data[0] & 3;
    if (is_foreign && group == 0 && sel == 3)
        return fuzz_cvp(data, size);
    if (is_foreign && group == 3) {
        champsim = 1;
        is_foreign = 0;
        fmt = cs_fmts[sel];
    } else if (is_foreign) {
        fmt = group == 2 ? "drmemtrace" : foreign[sel];
    }
    /* bit 4: the bochs importer's address-space split */
    st_import_opts o = {.skip_bad = (data[0] >> 3) & 1, .split_cr3 = (data[0] >> 4) & 1};
    int fd = fuzz_memfd(data + 1, size - 1);
    sink s;
    memset(&s, 0, sizeof s);
    st_import_stats st;
    st_diag d;
    st_decomp *z = NULL;
    int rfd = fd;
    const char *kind;
    st_error e = (data[0] >> 4) & 1 ? st_decomp_open(fd, st_import_is_text(fmt), &rfd, &z, &kind) : ST_OK;
    if (e == ST_OK)
        e = st_import(fmt, rfd, &o, &(st_import_sink){&s, add, append, NULL}, &st, &d);
    if (z && st_decomp_close(z, e != ST_OK, &d) != ST_OK)
        e = ST_E_CORRUPT;
    close(fd);
    if (e == ST_OK && s.ns == 1 && is_foreign && group < 2 && sel < 2) {
        /* dramsim2, gem5 -> one stream -> the format -> the same entries
         * (the text in its canonical layout, the gem5 header as it was) */
        obuf out = {NULL, 0};
        st_export_stream es = {s.name[0], s.type[0], (uint32_t)st_entry_size(s.type[0]), s.header[0], s.header_len[0]};
        st_exporter *x;
        if (st_exporter_new(&x, fmt, &es, owrite, &out, NULL, NULL) != ST_OK ||
            (s.n[0] && st_exporter_write(x, 0, s.data[0], s.n[0]) != ST_OK) || st_exporter_finish(x) != ST_OK)
            abort();
        st_exporter_free(x);
        int fd2 = fuzz_memfd(out.p ? out.p : (const uint8_t *)"", out.n);
        sink s2;
        memset(&s2, 0, sizeof s2);
        st_error e2 = st_import(fmt, fd2, NULL, &(st_import_sink){&s2, add, append, NULL}, &st, &d);
        close(fd2);
        size_t esz = st_entry_size(s.type[0]);
        if (s.n[0] && (e2 != ST_OK || s2.ns != 1 || s2.n[0] != s.n[0] || memcmp(s2.data[0], s.data[0], s.n[0] * esz) ||
                       s2.header_len[0] != s.header_len[0] || memcmp(s2.header[0], s.header[0], s.header_len[0])))
            abort();
        sink_free(&s2);
        free(out.p);
    }
    if (champsim && !z && (e == ST_OK || e == ST_E_PARTIAL_ENTRY)) {
        /* the records, whole ones, come back byte for byte through -F champsim */
        if (s.ns < 1 || strcmp(s.name[0], "trace") != 0)
            abort();
        const size_t esz = st_entry_size(s.type[0]), whole = (size - 1) / esz * esz;
        if (s.n[0] * esz != whole || (e == ST_OK) != (whole == size - 1))
            abort();
        obuf out = {NULL, 0};
        st_exporter *x;
        st_export_stream es = {s.name[0], s.type[0], (uint32_t)esz, NULL, 0};
        if (st_exporter_new(&x, "champsim", &es, owrite, &out, NULL, NULL) != ST_OK ||
            (s.n[0] && st_exporter_write(x, 0, s.data[0], s.n[0]) != ST_OK) || st_exporter_finish(x) != ST_OK)
            abort();
        st_exporter_free(x);
        if (out.n != whole || (whole && memcmp(out.p, data + 1, whole) != 0))
            abort();
        free(out.p);
    }
    /* drmemtrace records not in a zip are kept as they are */
    if (e == ST_OK && strcmp(fmt, "drmemtrace") == 0 && !(size >= 5 && memcmp(data + 1, "PK\3\4", 4) == 0) &&
        !((data[0] >> 4) & 1) && (s.ns != 1 || s.n[0] * 12 != size - 1 || (s.n[0] && memcmp(s.data[0], data + 1, size - 1))))
        abort();
    if (e == ST_OK && s.ns >= 1 && data[0] % 8 < 3 && !is_foreign) {
        /* lackey, din, xdin -> entries -> the same format, merged -> the
         * same entries in every stream (the fetch stream's kinds restore the
         * order, formats/IMPORT.md 8.6) */
        obuf out = {NULL, 0};
        st_export_stream es[MAXS];
        for (int i = 0; i < s.ns; i++)
            es[i] = (st_export_stream){s.name[i], s.type[i], 32, NULL, 0};
        size_t pos[MAXS] = {0};
        msrc src = {&s, pos};
        if (st_export_merged(fmt, es, (unsigned)s.ns, m_next, &src, owrite, &out) != ST_OK)
            abort();
        int fd2 = fuzz_memfd(out.p ? out.p : (const uint8_t *)"", out.n);
        sink s2;
        memset(&s2, 0, sizeof s2);
        if (st_import(fmt, fd2, NULL, &(st_import_sink){&s2, add, append, NULL}, &st, &d) != ST_OK)
            abort();
        close(fd2);
        if (s2.ns != s.ns)
            abort();
        for (int i = 0; i < s.ns; i++)
            if (s2.n[i] != s.n[i] || strcmp(s2.name[i], s.name[i]) || (s.n[i] && memcmp(s2.data[i], s.data[i], s.n[i] * 32)))
                abort();
        sink_free(&s2);
        free(out.p);
    }
    int vblocks = 0;
    for (int i = 0; i < s.ns; i++)
        vblocks += s.type[i] == ST_TYPE_VBLOCK;
    if (e == ST_OK && strcmp(fmt, "text") == 0 && s.ns > 1 && !vblocks) {
        /* several parts (IMPORT.md 6.5) -> merged text -> the same streams */
        obuf out = {NULL, 0};
        st_export_stream es[MAXS];
        for (int i = 0; i < s.ns; i++)
            es[i] = (st_export_stream){s.name[i], s.type[i], (uint32_t)st_entry_size(s.type[i]), NULL, 0};
        size_t pos[MAXS] = {0};
        msrc src = {&s, pos};
        int mem = 1;
        for (int i = 0; i < s.ns; i++)
            mem &= st_entry_is_memory(s.type[i]);
        st_error me = st_export_merged("text", es, (unsigned)s.ns, m_next, &src, owrite, &out);
        if (me != (mem ? ST_OK : ST_E_UNSUPPORTED))
            abort();
        if (mem) {
            int fd2 = fuzz_memfd(out.p, out.n);
            sink s2;
            memset(&s2, 0, sizeof s2);
            if (st_import("text", fd2, NULL, &(st_import_sink){&s2, add, append, NULL}, &st, &d) != ST_OK || s2.ns != s.ns)
                abort();
            close(fd2);
            for (int i = 0; i < s.ns; i++) {
                size_t esz = st_entry_size(s.type[i]);
                if (s2.n[i] != s.n[i] || s2.type[i] != s.type[i] || (s.n[i] && memcmp(s2.data[i], s.data[i], s.n[i] * esz)))
                    abort();
            }
            sink_free(&s2);
        }
        free(out.p);
    } else if (e == ST_OK && strcmp(fmt, "text") == 0 && (s.ns == 1 || (s.ns == 2 && s.type[1] == ST_TYPE_VBLOCK))) {
        /* text -> entries -> text -> entries: the same entries */
        obuf out = {NULL, 0};
        vs_sink = &s;
        vs_stream = s.ns > 1 ? 1 : -1;
        st_export_stream es = {"t", s.type[0], (uint32_t)st_entry_size(s.type[0]),
                               s.header_len[0] ? s.header[0] : NULL, s.header_len[0]};
        st_exporter *x;
        if (st_exporter_new(&x, "text", &es, owrite, &out, value, NULL) != ST_OK)
            abort();
        if (st_exporter_write(x, 0, s.data[0], s.n[0]) != ST_OK || st_exporter_finish(x) != ST_OK)
            abort();
        st_exporter_free(x);
        int fd2 = fuzz_memfd(out.p, out.n);
        sink s2;
        memset(&s2, 0, sizeof s2);
        if (st_import("text", fd2, NULL, &(st_import_sink){&s2, add, append, NULL}, &st, &d) != ST_OK)
            abort();
        close(fd2);
        size_t esz = st_entry_size(s.type[0]);
        if (s2.ns != s.ns || s2.n[0] != s.n[0] || (s.n[0] && memcmp(s2.data[0], s.data[0], s.n[0] * esz)))
            abort();
        if (s.ns > 1 && (s2.n[1] != s.n[1] || (s.n[1] && memcmp(s2.data[1], s.data[1], s.n[1] * 32))))
            abort();
        sink_free(&s2);
        free(out.p);
    }
    sink_free(&s);
    return 0;
}
