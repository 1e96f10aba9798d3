/*
 * make-bad.c - writes the bad-file corpus testdata/bad/ and the good edge
 * files testdata/good/edge-*.sim (issue 4).
 *
 *   make-bad TRACE.d64.xz BADDIR GOODDIR
 *
 * A small valid base container is made with the public writer from the
 * first 300 entries of TRACE (cm encoder, no second stage, 100 entries per
 * frame: file header, descriptor, 3 data frames, directory, footer).  Each
 * bad file is that container (or a variant) with one structural lie, and
 * every checksum recomputed wherever the point is the lie, so a reader
 * cannot stop at a CRC.  The variants are built from a list of frames
 * ("blobs") and reassembled with a directory and a footer that mirror the
 * frames exactly; lies in the directory or footer are made afterwards and
 * their checksums fixed again.
 *
 * BADDIR/README.md gets one line per file: name, the keyword (an
 * extended regular expression, matched case-insensitively) every reader's
 * message must contain, and what is wrong.  The output depends only on the
 * trace and this program, so `make testdata-bad` can check the committed
 * files.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <lzma.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../frames/frame_format.h"
#include "../frames/container.h"

#define NBASE 300u
#define FRAME_ENTRIES 100u

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("make-bad: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

/* ---- byte buffers ------------------------------------------------------------ */

typedef struct {
    uint8_t *p;
    size_t n, cap;
} buf;

static void b_put(buf *b, const void *src, size_t n)
{
    if (b->n + n > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->n + n)
            nc *= 2;
        uint8_t *q = realloc(b->p, nc);
        if (!q)
            die("out of memory");
        b->p = q;
        b->cap = nc;
    }
    if (n)
        memcpy(b->p + b->n, src, n);
    b->n += n;
}

static buf b_copy(const buf *b)
{
    buf c = {0, 0, 0};
    b_put(&c, b->p, b->n);
    return c;
}

static void b_free(buf *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

static void attr(buf *b, uint32_t key, uint32_t flags, const void *val, uint64_t len)
{
    uint8_t h[16];
    st_store32(h, key);
    st_store32(h + 4, flags);
    st_store64(h + 8, len);
    b_put(b, h, 16);
    b_put(b, val, (size_t)len);
}

/* ---- the input trace ------------------------------------------------------------ */

static uint8_t *read_xz_head(const char *path, size_t want)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("%s: %s", path, strerror(errno));
    lzma_stream s = LZMA_STREAM_INIT;
    if (lzma_stream_decoder(&s, UINT64_MAX, 0) != LZMA_OK)
        die("lzma init");
    uint8_t *out = xmalloc(want), in[4096];
    s.next_out = out;
    s.avail_out = want;
    while (s.avail_out) {
        if (!s.avail_in) {
            s.avail_in = fread(in, 1, sizeof in, f);
            s.next_in = in;
        }
        lzma_ret r = lzma_code(&s, s.avail_in ? LZMA_RUN : LZMA_FINISH);
        if (r == LZMA_STREAM_END && s.avail_out)
            die("%s: fewer than %zu bytes", path, want);
        if (r != LZMA_OK && r != LZMA_STREAM_END)
            die("%s: xz error %d", path, (int)r);
    }
    lzma_end(&s);
    fclose(f);
    return out;
}

/* Run the public writer: streams given by the callback, output in memory. */
typedef void (*fill_fn)(st_writer *w, const uint8_t *entries);

static buf write_container(fill_fn fill, const uint8_t *entries)
{
    FILE *tf = tmpfile();
    if (!tf)
        die("tmpfile: %s", strerror(errno));
    st_write_opts o = {.threads = 1, .frame_entries = FRAME_ENTRIES, .timestamps = 0};
    st_writer *w;
    if (st_writer_new(&w, fileno(tf), &o) != ST_OK)
        die("st_writer_new");
    fill(w, entries);
    if (st_writer_finish(w) != ST_OK)
        die("st_writer_finish");
    st_writer_free(w);
    buf b = {0, 0, 0};
    rewind(tf);
    uint8_t tmp[4096];
    size_t k;
    while ((k = fread(tmp, 1, sizeof tmp, tf)) > 0)
        b_put(&b, tmp, k);
    fclose(tf);
    return b;
}

static const svpc_params CM_NONE = {SVPC_ENC_CM, SVPC_STAGE_NONE, 6};

static void fill_base(st_writer *w, const uint8_t *e)
{
    uint32_t sid;
    if (st_writer_add_stream(w, "trace", ST_TYPE_D64, &CM_NONE, &sid) != ST_OK ||
        st_writer_append(w, sid, e, NBASE) != ST_OK)
        die("base container");
}

static void fill_empty(st_writer *w, const uint8_t *e)
{
    (void)w;
    (void)e;
}

static void fill_one(st_writer *w, const uint8_t *e)
{
    uint32_t sid;
    if (st_writer_add_stream(w, "trace", ST_TYPE_D64, &CM_NONE, &sid) != ST_OK ||
        st_writer_append(w, sid, e, 1) != ST_OK)
        die("one-entry container");
}

static void fill_noframes(st_writer *w, const uint8_t *e)
{
    uint32_t a, b;
    if (st_writer_add_stream(w, "empty", ST_TYPE_D64, &CM_NONE, &a) != ST_OK ||
        st_writer_add_stream(w, "trace", ST_TYPE_D64, &CM_NONE, &b) != ST_OK ||
        st_writer_append(w, b, e, 10) != ST_OK)
        die("no-frames container");
}

/* The base, then what an --append adds: a new stream of 150 entries
 * (frames of 100 and 50), as simtrace-pack --append writes it over the
 * base's directory and footer. */
static void fill_appended(st_writer *w, const uint8_t *e)
{
    uint32_t a, b;
    if (st_writer_add_stream(w, "trace", ST_TYPE_D64, &CM_NONE, &a) != ST_OK ||
        st_writer_append(w, a, e, NBASE) != ST_OK || st_writer_add_stream(w, "added", ST_TYPE_D64, &CM_NONE, &b) != ST_OK ||
        st_writer_append(w, b, e, 150) != ST_OK)
        die("appended container");
}

static const uint8_t USER_GUID[16] = {0x75, 0x73, 0x65, 0x72, 0x2d, 0x74, 0x65, 0x73,
                                      0x74, 0x2d, 0x72, 0x65, 0x63, 0x2d, 0x30, 0x07};

static void fill_user(st_writer *w, const uint8_t *e)
{
    /* 7-byte records: the first 7 bytes of each of 150 entries */
    uint8_t rec[150 * 7];
    for (unsigned i = 0; i < 150; i++)
        memcpy(rec + 7 * i, e + 32 * i + 16, 7);
    st_stream_spec s;
    memset(&s, 0, sizeof s);
    s.name = "records";
    s.type = ST_TYPE_USER;
    s.guid = USER_GUID;
    s.entry_size = 7;
    s.type_name = "rec7";
    s.params = (svpc_params){SVPC_ENC_GENERIC, SVPC_STAGE_NONE, 6};
    s.owner = UINT32_MAX;
    uint32_t sid;
    if (st_writer_add_stream_spec(w, &s, &sid) != ST_OK || st_writer_append(w, sid, rec, 150) != ST_OK)
        die("user-type container");
}

/* ---- containers as lists of frames ------------------------------------------------ */

#define MAXF 16
typedef struct {
    uint8_t fh[ST_FILE_HEADER_SIZE];
    buf f[MAXF]; /* frame header + payload, directory not included */
    int nf;
    buf tail; /* bytes appended after the footer */
} model;

/* Split a valid container into file header and frames (up to the directory). */
static model parse(const buf *c)
{
    model m;
    memset(&m, 0, sizeof m);
    memcpy(m.fh, c->p, ST_FILE_HEADER_SIZE);
    size_t off = ST_FILE_HEADER_SIZE;
    for (;;) {
        st_frame_header h;
        if (st_frame_header_parse(c->p + off, &h, NULL) != ST_OK)
            die("base container: bad frame at %zu", off);
        if (h.kind == ST_KIND_DIRECTORY)
            break;
        if (m.nf == MAXF)
            die("too many frames");
        b_put(&m.f[m.nf++], c->p + off, ST_FRAME_HEADER_SIZE + (size_t)h.payload_size);
        off += ST_FRAME_HEADER_SIZE + (size_t)h.payload_size;
    }
    return m;
}

static model m_copy(const model *m)
{
    model c = *m;
    for (int i = 0; i < m->nf; i++)
        c.f[i] = b_copy(&m->f[i]);
    c.tail = b_copy(&m->tail);
    return c;
}

static void m_free(model *m)
{
    for (int i = 0; i < m->nf; i++)
        b_free(&m->f[i]);
    b_free(&m->tail);
}

static void m_del(model *m, int i)
{
    b_free(&m->f[i]);
    memmove(&m->f[i], &m->f[i + 1], (size_t)(m->nf - i - 1) * sizeof m->f[0]);
    m->nf--;
}

static void m_insert(model *m, int i, buf b)
{
    if (m->nf == MAXF)
        die("too many frames");
    memmove(&m->f[i + 1], &m->f[i], (size_t)(m->nf - i) * sizeof m->f[0]);
    m->f[i] = b;
    m->nf++;
}

static void fix_file_header(model *m) { st_store32(m->fh + 60, st_crc32(m->fh, 60)); }

/* Frame header field offsets (SIMTRACE.md 3). */
enum {
    F_KIND = 4, F_FLAGS = 5, F_ENCODER = 6, F_STREAM = 8, F_NATTRS = 12, F_SEQ = 16, F_FIRST = 24, F_COUNT = 32,
    F_FCYC = 40, F_LCYC = 48, F_FTIME = 56, F_LTIME = 64, F_PSIZE = 72, F_PCRC = 80, F_RES = 84, F_HCRC = 92
};

static void fix_hcrc(uint8_t *h) { st_store32(h + F_HCRC, st_crc32(h, 92)); }

static void fix_pcrc(buf *f)
{
    st_store32(f->p + F_PCRC, st_crc32(f->p + ST_FRAME_HEADER_SIZE, f->n - ST_FRAME_HEADER_SIZE));
    fix_hcrc(f->p);
}

/* Set a header field of frame i (width 1, 2, 4 or 8) and fix the header CRC:
 * the directory, built later from the headers, mirrors the lie. */
static void set_field(model *m, int i, unsigned off, unsigned width, uint64_t v)
{
    uint8_t *h = m->f[i].p;
    switch (width) {
    case 1: h[off] = (uint8_t)v; break;
    case 2: st_store16(h + off, (uint16_t)v); break;
    case 4: st_store32(h + off, (uint32_t)v); break;
    default: st_store64(h + off, v);
    }
    fix_hcrc(h);
}

/* Replace frame i's payload (payload_size and both CRCs follow). */
static void set_payload(model *m, int i, const buf *p, uint32_t nattrs)
{
    buf f = {0, 0, 0};
    b_put(&f, m->f[i].p, ST_FRAME_HEADER_SIZE);
    b_put(&f, p->p, p->n);
    st_store64(f.p + F_PSIZE, p->n);
    st_store32(f.p + F_NATTRS, nattrs);
    fix_pcrc(&f);
    b_free(&m->f[i]);
    m->f[i] = f;
}

/* A descriptor frame with the given payload. */
static buf mk_frame(uint8_t kind, uint16_t encoder, uint32_t stream, const buf *p, uint32_t nattrs)
{
    st_frame_header h;
    memset(&h, 0, sizeof h);
    h.kind = kind;
    h.encoder = encoder;
    h.stream = stream;
    h.nattrs = nattrs;
    h.payload_size = p->n;
    h.payload_crc = st_crc32(p->p, p->n);
    uint8_t hb[ST_FRAME_HEADER_SIZE];
    st_frame_header_write(&h, hb);
    buf f = {0, 0, 0};
    b_put(&f, hb, sizeof hb);
    b_put(&f, p->p, p->n);
    return f;
}

/* Descriptor payload: NAME, TYPE_GUID, TYPE_NAME, ENTRY_SIZE, ENCODER_NAME. */
static buf desc_payload(const char *name, const uint8_t guid[16], uint32_t esz, unsigned *nattrs)
{
    buf p = {0, 0, 0};
    uint8_t e4[4];
    st_store32(e4, esz);
    attr(&p, ST_ATTR_NAME, 1, name, strlen(name));
    attr(&p, ST_ATTR_TYPE_GUID, 1, guid, 16);
    attr(&p, ST_ATTR_TYPE_NAME, 0, "user", 4);
    attr(&p, ST_ATTR_ENTRY_SIZE, 1, e4, 4);
    *nattrs = 4;
    return p;
}

/* The directory payload for the frames of m: offsets as laid out, sizes
 * and fields mirrored from the headers (so a payload_size lie shows). */
static buf dir_entries(const model *m)
{
    buf d = {0, 0, 0};
    uint64_t off = ST_FILE_HEADER_SIZE;
    for (int i = 0; i < m->nf; i++) {
        st_dir_entry e;
        memset(&e, 0, sizeof e);
        const uint8_t *h = m->f[i].p;
        e.offset = off;
        e.size = ST_FRAME_HEADER_SIZE + st_load64(h + F_PSIZE);
        e.h.kind = h[F_KIND];
        e.h.flags = h[F_FLAGS];
        e.h.encoder = st_load16(h + F_ENCODER);
        e.h.stream = st_load32(h + F_STREAM);
        e.h.seq = st_load64(h + F_SEQ);
        e.h.first_entry = st_load64(h + F_FIRST);
        e.h.count = st_load64(h + F_COUNT);
        e.h.first_cycle = st_load64(h + F_FCYC);
        e.h.last_cycle = st_load64(h + F_LCYC);
        e.h.first_time = st_load64(h + F_FTIME);
        e.h.last_time = st_load64(h + F_LTIME);
        uint8_t eb[ST_DIR_ENTRY_SIZE];
        st_dir_entry_write(&e, eb);
        b_put(&d, eb, sizeof eb);
        off += m->f[i].n;
    }
    return d;
}

/* Where the pieces of an assembled file are. */
typedef struct {
    size_t frame_off[MAXF];
    size_t dir_off, dir_size, footer_off;
} layout;

/* Assemble file header, frames, a directory frame (DIRECTORY attribute of
 * dir_entries plus `extra` attributes), footer, tail. */
static buf assemble_x(const model *m, const buf *extra, uint32_t extra_n, layout *lay)
{
    buf out = {0, 0, 0};
    b_put(&out, m->fh, ST_FILE_HEADER_SIZE);
    for (int i = 0; i < m->nf; i++) {
        lay->frame_off[i] = out.n;
        b_put(&out, m->f[i].p, m->f[i].n);
    }
    buf ents = dir_entries(m), pay = {0, 0, 0};
    attr(&pay, ST_ATTR_DIRECTORY, ST_ATTR_CRITICAL, ents.p, ents.n);
    if (extra)
        b_put(&pay, extra->p, extra->n);
    buf dirf = mk_frame(ST_KIND_DIRECTORY, 0, UINT32_MAX, &pay, 1 + extra_n);
    lay->dir_off = out.n;
    lay->dir_size = dirf.n;
    b_put(&out, dirf.p, dirf.n);
    st_footer ft = {lay->dir_off, lay->dir_size, (uint64_t)m->nf};
    uint8_t fb[ST_FOOTER_SIZE];
    st_footer_write(&ft, fb);
    lay->footer_off = out.n;
    b_put(&out, fb, sizeof fb);
    b_put(&out, m->tail.p, m->tail.n);
    b_free(&ents);
    b_free(&pay);
    b_free(&dirf);
    return out;
}

static buf assemble(const model *m, layout *lay) { return assemble_x(m, NULL, 0, lay); }

/* Lies in an assembled file, checksums fixed. */
static void fix_dir(buf *c, const layout *lay)
{
    uint8_t *h = c->p + lay->dir_off;
    size_t ps = lay->dir_size - ST_FRAME_HEADER_SIZE;
    st_store32(h + F_PCRC, st_crc32(h + ST_FRAME_HEADER_SIZE, ps));
    fix_hcrc(h);
}

/* Set field (offset off, width 4 or 8) of directory entry k. */
static void set_dir_entry(buf *c, const layout *lay, unsigned k, unsigned off, unsigned width, uint64_t v)
{
    uint8_t *e = c->p + lay->dir_off + ST_FRAME_HEADER_SIZE + ST_ATTR_HEADER_SIZE + k * ST_DIR_ENTRY_SIZE + off;
    if (width == 1)
        *e = (uint8_t)v;
    else if (width == 4)
        st_store32(e, (uint32_t)v);
    else
        st_store64(e, v);
    fix_dir(c, lay);
}

static void set_dir_header(buf *c, const layout *lay, unsigned off, unsigned width, uint64_t v)
{
    uint8_t *h = c->p + lay->dir_off;
    if (width == 1)
        h[off] = (uint8_t)v;
    else if (width == 2)
        st_store16(h + off, (uint16_t)v);
    else if (width == 4)
        st_store32(h + off, (uint32_t)v);
    else
        st_store64(h + off, v);
    fix_hcrc(h);
}

/* Footer fields: 0 dir_offset, 8 dir_size, 16 nframes. */
static void set_footer(buf *c, const layout *lay, unsigned off, uint64_t v)
{
    uint8_t *f = c->p + lay->footer_off;
    st_store64(f + off, v);
    st_store32(f + 28, st_crc32(f, 28));
}

/* ---- output ------------------------------------------------------------------------ */

static const char *bad_dir;
static FILE *readme;
static unsigned nbad;

static void save(const char *dir, const char *name, const buf *c)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || (c->n && fwrite(c->p, 1, c->n, f) != c->n) || fclose(f) != 0)
        die("%s: %s", path, strerror(errno));
}

/* One bad file: name, keyword (ERE), description. */
static void bad(const char *name, const buf *c, const char *keyword, const char *what)
{
    save(bad_dir, name, c);
    fprintf(readme, "| `%s` | `%s` | %s |\n", name, keyword, what);
    nbad++;
}

static void bad_model(const char *name, const model *m, const char *keyword, const char *what)
{
    layout lay;
    buf c = assemble(m, &lay);
    bad(name, &c, keyword, what);
    b_free(&c);
}

static buf cut(const buf *c, size_t n)
{
    buf t = {0, 0, 0};
    b_put(&t, c->p, n < c->n ? n : c->n);
    return t;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: make-bad TRACE.d64.xz BADDIR GOODDIR\n");
        return 2;
    }
    bad_dir = argv[2];
    const char *good_dir = argv[3];
    uint8_t *ent = read_xz_head(argv[1], NBASE * 32);

    /* ---- good edge files ---- */
    buf g;
    g = write_container(fill_empty, ent);
    save(good_dir, "edge-empty.sim", &g);
    b_free(&g);
    g = write_container(fill_one, ent);
    save(good_dir, "edge-one-entry.sim", &g);
    b_free(&g);
    g = write_container(fill_noframes, ent);
    save(good_dir, "edge-stream-without-frames.sim", &g);
    b_free(&g);
    g = write_container(fill_user, ent);
    save(good_dir, "edge-user-type.sim", &g);
    b_free(&g);

    /* ---- the base: header, descriptor (frame 0), data frames 1..3 ---- */
    buf base = write_container(fill_base, ent);
    model B = parse(&base);
    if (B.nf != 4)
        die("base container has %d frames, expected 4", B.nf);
    layout L;
    {
        buf chk = assemble(&B, &L);
        if (chk.n != base.n || memcmp(chk.p, base.p, base.n) != 0)
            die("reassembling the base container does not reproduce it");
        b_free(&chk);
    }
    const size_t D1 = L.frame_off[2]; /* second data frame */

    char rpath[4096];
    snprintf(rpath, sizeof rpath, "%s/README.md", bad_dir);
    readme = fopen(rpath, "w");
    if (!readme)
        die("%s: %s", rpath, strerror(errno));
    fprintf(readme,
            "# Malformed containers\n\n"
            "Written by `tests/make-bad.c` (`make testdata-bad` regenerates them into the build directory and\n"
            "checks that the committed files are identical; `make testdata-bad-update` rewrites them).\n"
            "Each is a small valid container (one d64 stream `trace`, 300 real entries of\n"
            "`../good/bios_write_300k.d64.xz`, cm encoder without second stage, 100 entries per frame:\n"
            "file header, descriptor, 3 data frames, directory, footer) with one lie. Every checksum is\n"
            "correct unless the line says otherwise, and lies in a frame header are mirrored in the\n"
            "directory, so readers must find the structural problem itself.\n\n"
            "`tests/cli/bad_files.bats` runs `svpc-decompress -t`, `simtrace-cat --verify`,\n"
            "`simtrace-cat --entries 0:` (random access) and plain `simtrace-cat` on every file: each must\n"
            "exit 1 with a message that starts with the program name and matches the keyword (an extended\n"
            "regular expression, case-insensitive), except that random access reads a file whose file\n"
            "header is valid and whose footer is not (cut off, an `--append` killed, a damaged footer)\n"
            "through its frame headers (`formats/SIMTRACE.md` 7.4), writing what `--salvage` writes.\n\n"
            "| file | keyword | what is wrong |\n|---|---|---|\n");

    buf t;
    model m;

    /* -- truncation at every structure boundary -- */
    t = cut(&base, 0);
    bad("trunc-empty.sim", &t, "truncated|too short|empty", "0 bytes");
    b_free(&t);
    t = cut(&base, 40);
    bad("trunc-in-file-header.sim", &t, "truncated|too short", "cut inside the file header (40 of 64 bytes)");
    b_free(&t);
    t = cut(&base, ST_FILE_HEADER_SIZE);
    bad("trunc-after-file-header.sim", &t, "truncated|too short", "the file header only");
    b_free(&t);
    t = cut(&base, D1 + 50);
    bad("trunc-in-frame-header.sim", &t, "truncated|footer", "cut inside the header of the second data frame");
    b_free(&t);
    t = cut(&base, D1 + ST_FRAME_HEADER_SIZE + 40);
    bad("trunc-in-payload.sim", &t, "truncated|footer", "cut inside the payload of the second data frame");
    b_free(&t);
    t = cut(&base, L.dir_off);
    bad("trunc-before-directory.sim", &t, "truncated|footer", "cut where the directory frame starts");
    b_free(&t);
    t = cut(&base, L.dir_off + 60);
    bad("trunc-in-directory-header.sim", &t, "truncated|footer", "cut inside the directory frame header");
    b_free(&t);
    t = cut(&base, L.dir_off + ST_FRAME_HEADER_SIZE + 100);
    bad("trunc-in-directory.sim", &t, "truncated|footer", "cut inside the directory payload");
    b_free(&t);
    t = cut(&base, L.footer_off);
    bad("trunc-before-footer.sim", &t, "truncated|footer", "cut where the footer starts");
    b_free(&t);
    t = cut(&base, L.footer_off + 20);
    bad("trunc-in-footer.sim", &t, "truncated|footer", "cut inside the footer (20 of 32 bytes)");
    b_free(&t);

    /* -- an --append killed (SIGKILL, a crash): the base's frames, then the
     * new frames, no directory and footer; every frame of the base stays
     * readable (SIMTRACE.md 7.4) -- */
    {
        buf two = write_container(fill_appended, ent);
        model M2 = parse(&two);
        layout L2;
        buf chk = assemble(&M2, &L2);
        if (M2.nf != 7 || chk.n != two.n)
            die("appended container has %d frames, expected 7", M2.nf);
        b_free(&chk);
        t = cut(&two, L2.frame_off[6] + ST_FRAME_HEADER_SIZE + 20);
        bad("append-killed-in-frame.sim", &t, "truncated|footer|2 streams",
            "an --append killed: the base's 4 frames, a new stream's descriptor and first data frame, then 20 bytes "
            "of the payload of its second; no directory and footer");
        b_free(&t);
        t = cut(&two, L2.frame_off[6]);
        bad("append-killed-at-frame.sim", &t, "truncated|footer|2 streams",
            "an --append killed between frames: the base's 4 frames, a new stream's descriptor and first data "
            "frame; no directory and footer");
        b_free(&t);
        m_free(&M2);
        b_free(&two);
    }

    /* -- file header -- */
    m = m_copy(&B);
    memcpy(m.fh, "simtracf", 8);
    fix_file_header(&m);
    bad_model("header-magic.sim", &m, "magic|simtrace", "file magic \"simtracf\"");
    m_free(&m);
    m = m_copy(&B);
    st_store16(m.fh + 8, 2);
    fix_file_header(&m);
    bad_model("header-major-2.sim", &m, "version", "format major version 2");
    m_free(&m);
    m = m_copy(&B);
    st_store32(m.fh + 12, 80);
    fix_file_header(&m);
    bad_model("header-size-80.sim", &m, "header size", "header_size 80");
    m_free(&m);
    m = m_copy(&B);
    m.fh[33] = 1;
    fix_file_header(&m);
    bad_model("header-reserved.sim", &m, "reserved", "reserved file header byte 33 is 1");
    m_free(&m);
    m = m_copy(&B);
    m.fh[59] ^= 0x80;
    bad_model("header-crc.sim", &m, "checksum", "file header CRC wrong (the one checksum lie of this group)");
    m_free(&m);

    /* -- frame headers (frame 2 = second data frame unless said) -- */
    m = m_copy(&B);
    memcpy(m.f[2].p, "STFX", 4);
    fix_hcrc(m.f[2].p);
    bad_model("frame-magic.sim", &m, "magic|STFR", "second data frame's magic \"STFX\"");
    m_free(&m);
    m = m_copy(&B);
    set_field(&m, 2, F_RES + 3, 1, 1);
    bad_model("frame-reserved.sim", &m, "reserved", "reserved frame header byte 87 is 1");
    m_free(&m);
    m = m_copy(&B);
    set_field(&m, 2, F_KIND, 1, 4);
    bad_model("frame-kind-4.sim", &m, "kind", "frame kind 4");
    m_free(&m);
    m = m_copy(&B);
    set_field(&m, 2, F_FLAGS, 1, 0x02);
    bad_model("frame-flags.sim", &m, "flag", "frame flag bit 1 set");
    m_free(&m);
    m = m_copy(&B);
    set_field(&m, 2, F_PSIZE, 8, UINT64_C(1) << 40);
    bad_model("frame-payload-2p40.sim", &m, "limit|too large|payload", "payload_size 2^40 (> 2^31)");
    m_free(&m);
    m = m_copy(&B);
    set_field(&m, 3, F_PSIZE, 8, 7000);
    bad_model("frame-payload-past-eof.sim", &m, "truncated|directory|past|payload",
              "last data frame's payload_size 7000: within the bound, past the end of the file");
    m_free(&m);
    m = m_copy(&B);
    set_field(&m, 0, F_PSIZE, 8, 0x7fffff00);
    bad_model("desc-payload-2g.sim", &m, "payload|directory|too large|limit",
              "descriptor payload_size 2^31-256: above the 4096 bound, past the end of the file");
    m_free(&m);
    m = m_copy(&B);
    set_field(&m, 2, F_NATTRS, 4, 65);
    bad_model("frame-nattrs-65.sim", &m, "attribute", "nattrs 65");
    m_free(&m);
    m = m_copy(&B);
    set_field(&m, 1, F_FIRST, 8, UINT64_MAX - 50);
    bad_model("frame-first-entry-overflow.sim", &m, "overflow|first entry|order",
              "first data frame: first_entry 2^64-51, count 100 (first_entry + count > 2^64-1)");
    m_free(&m);
    m = m_copy(&B);
    set_field(&m, 0, F_COUNT, 8, 1);
    bad_model("desc-count-1.sim", &m, "count|descriptor", "descriptor with count 1");
    m_free(&m);
    m = m_copy(&B);
    set_field(&m, 0, F_SEQ, 8, 5);
    bad_model("desc-seq-5.sim", &m, "index fields|descriptor", "descriptor with seq 5");
    m_free(&m);
    m = m_copy(&B);
    set_field(&m, 1, F_FTIME, 8, 5);
    set_field(&m, 1, F_LTIME, 8, 9);
    bad_model("frame-time-without-flag.sim", &m, "time", "times set without the TIME flag");
    m_free(&m);
    m = m_copy(&B);
    set_field(&m, 1, F_FLAGS, 1, ST_FF_TIME);
    set_field(&m, 1, F_FTIME, 8, 9);
    set_field(&m, 1, F_LTIME, 8, 5);
    bad_model("frame-time-reversed.sim", &m, "time", "TIME set, first_time 9 > last_time 5");
    m_free(&m);
    m = m_copy(&B);
    set_field(&m, 0, F_STREAM, 4, 70000);
    for (int i = 1; i < 4; i++)
        set_field(&m, i, F_STREAM, 4, 70000);
    bad_model("stream-id-70000.sim", &m, "stream id|exceeds|descriptor", "stream id 70000 (> 65535) everywhere");
    m_free(&m);

    /* -- directory frame header (assembled, then lied about) -- */
    t = b_copy(&base);
    set_dir_header(&t, &L, F_ENCODER, 2, 1);
    bad("dir-encoder-1.sim", &t, "directory", "directory frame with encoder 1");
    b_free(&t);
    t = b_copy(&base);
    set_dir_header(&t, &L, F_STREAM, 4, 7);
    bad("dir-stream-7.sim", &t, "directory", "directory frame with stream id 7");
    b_free(&t);
    t = b_copy(&base);
    set_dir_header(&t, &L, F_COUNT, 8, 1);
    bad("dir-count-1.sim", &t, "count|directory", "directory frame with count 1");
    b_free(&t);

    /* -- data frame headers against the stream -- */
    m = m_copy(&B);
    set_field(&m, 2, F_STREAM, 4, 5);
    bad_model("data-undeclared-stream.sim", &m, "undeclared|stream 5", "second data frame of stream 5, never declared");
    m_free(&m);
    m = m_copy(&B);
    set_field(&m, 2, F_ENCODER, 2, SVPC_ENC_PAPER);
    bad_model("data-encoder-paper.sim", &m, "encoder", "data frame with encoder 2 in a cm stream");
    m_free(&m);
    m = m_copy(&B);
    set_field(&m, 2, F_SEQ, 8, 2);
    set_field(&m, 3, F_SEQ, 8, 3);
    bad_model("data-seq-gap.sim", &m, "seq", "data frames numbered 0, 2, 3");
    m_free(&m);
    m = m_copy(&B);
    set_field(&m, 2, F_FIRST, 8, 150);
    bad_model("data-first-entry-gap.sim", &m, "first entry", "second data frame's first_entry 150 (want 100)");
    m_free(&m);
    m = m_copy(&B);
    set_field(&m, 2, F_COUNT, 8, 0);
    set_field(&m, 3, F_FIRST, 8, 100);
    bad_model("data-count-0.sim", &m, "count", "data frame with count 0");
    m_free(&m);
    m = m_copy(&B);
    set_field(&m, 3, F_COUNT, 8, (UINT64_C(1) << 24) + 1);
    bad_model("data-count-2p24-plus-1.sim", &m, "count", "last data frame with count 2^24 + 1");
    m_free(&m);
    m = m_copy(&B);
    set_field(&m, 3, F_COUNT, 8, (UINT64_C(1) << 27) + 2);
    bad_model("data-count-wrap32.sim", &m, "count",
              "count 2^27 + 2: count x 32 wraps 32 bits to 64");
    m_free(&m);
    m = m_copy(&B);
    set_field(&m, 3, F_COUNT, 8, (UINT64_C(1) << 59) + 2);
    bad_model("data-count-wrap64.sim", &m, "count", "count 2^59 + 2: count x 32 wraps 64 bits to 64");
    m_free(&m);
    {
        /* one data frame claiming 2^24 entries with a 100-byte payload */
        m = m_copy(&B);
        m_del(&m, 3);
        m_del(&m, 2);
        buf p = {0, 0, 0};
        attr(&p, ST_ATTR_DATA, 1, m.f[1].p + ST_FRAME_HEADER_SIZE + 16, 84);
        set_payload(&m, 1, &p, 1);
        set_field(&m, 1, F_COUNT, 8, UINT64_C(1) << 24);
        b_free(&p);
        bad_model("data-2p24-entries-100-bytes.sim", &m, "corrupt|stream|short|length|bytes|memory",
                  "one data frame claiming 2^24 d64 entries (512 MiB) with a 100-byte payload: must fail fast "
                  "(and --memlimit 100M refuses it before allocating)");
        m_free(&m);
    }
    m = m_copy(&B);
    set_field(&m, 1, F_FCYC, 8, st_load64(m.f[1].p + F_FCYC) + 1);
    bad_model("data-first-cycle.sim", &m, "cycle", "first data frame's first_cycle one above its first entry's");
    m_free(&m);

    /* -- payloads and attributes -- */
    m = m_copy(&B);
    m.f[2].p[ST_FRAME_HEADER_SIZE + 40] ^= 1;
    bad_model("payload-crc.sim", &m, "checksum", "a payload bit flipped, payload CRC not fixed (checksum lie)");
    m_free(&m);
    m = m_copy(&B);
    st_store64(m.f[2].p + ST_FRAME_HEADER_SIZE + 8, m.f[2].n - ST_FRAME_HEADER_SIZE - 16 + 10);
    fix_pcrc(&m.f[2]);
    bad_model("attr-past-payload.sim", &m, "attribute|past", "DATA attribute length 10 bytes past the payload");
    m_free(&m);
    m = m_copy(&B);
    st_store64(m.f[2].p + ST_FRAME_HEADER_SIZE + 8, UINT64_MAX - 8);
    fix_pcrc(&m.f[2]);
    bad_model("attr-length-huge.sim", &m, "attribute|past", "DATA attribute length 2^64 - 9");
    m_free(&m);
    m = m_copy(&B);
    st_store32(m.f[2].p + ST_FRAME_HEADER_SIZE + 4, 3);
    fix_pcrc(&m.f[2]);
    bad_model("attr-flags.sim", &m, "attribute|flag", "DATA attribute flags 3");
    m_free(&m);
    m = m_copy(&B);
    set_field(&m, 2, F_NATTRS, 4, 3);
    bad_model("attr-nattrs-mismatch.sim", &m, "attribute", "nattrs 3, two attributes in the payload");
    m_free(&m);
    {
        buf p = {0, 0, 0};
        m = m_copy(&B);
        b_put(&p, m.f[2].p + ST_FRAME_HEADER_SIZE, m.f[2].n - ST_FRAME_HEADER_SIZE);
        b_put(&p, "\0\0\0\0\0", 5);
        set_payload(&m, 2, &p, 1);
        bad_model("attr-trailing-bytes.sim", &m, "attribute", "5 bytes after the last attribute");
        m_free(&m);
        b_free(&p);

        m = m_copy(&B);
        b_put(&p, m.f[2].p + ST_FRAME_HEADER_SIZE, m.f[2].n - ST_FRAME_HEADER_SIZE);
        attr(&p, 77, ST_ATTR_CRITICAL, "x", 1);
        set_payload(&m, 2, &p, 3);
        bad_model("data-unknown-critical-attr.sim", &m, "critical|attribute|unsupported",
                  "data frame with a critical attribute of key 77");
        m_free(&m);
        b_free(&p);

        m = m_copy(&B);
        b_put(&p, m.f[2].p + ST_FRAME_HEADER_SIZE, m.f[2].n - ST_FRAME_HEADER_SIZE);
        b_put(&p, m.f[2].p + ST_FRAME_HEADER_SIZE, m.f[2].n - ST_FRAME_HEADER_SIZE);
        set_payload(&m, 2, &p, 4);
        bad_model("data-two-data-attrs.sim", &m, "DATA|attribute", "data frame with two DATA attributes");
        m_free(&m);
        b_free(&p);

        /* the ENTRY_CRC attribute (key 10) follows DATA in the writer's frames */
        size_t crc_at = ST_FRAME_HEADER_SIZE + 16 + (size_t)st_load64(B.f[2].p + ST_FRAME_HEADER_SIZE + 8);
        if (st_load32(B.f[2].p + crc_at) != 10 || st_load64(B.f[2].p + crc_at + 8) != 4)
            die("base data frame: no ENTRY_CRC attribute after DATA");
        m = m_copy(&B);
        m.f[2].p[crc_at + 16] ^= 1;
        fix_pcrc(&m.f[2]);
        bad_model("data-entry-crc.sim", &m, "entries.*checksum",
                  "ENTRY_CRC one bit off: the entries decode, but not to what was packed");
        m_free(&m);
        m = m_copy(&B);
        b_put(&p, m.f[2].p + ST_FRAME_HEADER_SIZE, crc_at - ST_FRAME_HEADER_SIZE);
        attr(&p, 10, 0, m.f[2].p + crc_at + 16, 3);
        set_payload(&m, 2, &p, 2);
        bad_model("data-entry-crc-3-bytes.sim", &m, "checksum attribute", "ENTRY_CRC attribute of 3 bytes");
        m_free(&m);
        b_free(&p);
        m = m_copy(&B);
        b_put(&p, m.f[2].p + ST_FRAME_HEADER_SIZE, m.f[2].n - ST_FRAME_HEADER_SIZE);
        b_put(&p, m.f[2].p + crc_at, 20);
        set_payload(&m, 2, &p, 3);
        bad_model("data-two-entry-crcs.sim", &m, "two entry checksum", "data frame with two ENTRY_CRC attributes");
        m_free(&m);
        b_free(&p);

        m = m_copy(&B);
        attr(&p, 77, 0, "x", 1);
        set_payload(&m, 2, &p, 1);
        bad_model("data-no-data-attr.sim", &m, "DATA|attribute", "data frame without DATA attribute");
        m_free(&m);
        b_free(&p);

        /* stream set lies inside the DATA value */
        m = m_copy(&B);
        m.f[2].p[ST_FRAME_HEADER_SIZE + 16] = 4;
        fix_pcrc(&m.f[2]);
        bad_model("set-stage-4.sim", &m, "stage|unsupported", "stream set with second stage 4");
        m_free(&m);
        m = m_copy(&B);
        st_store32(m.f[2].p + ST_FRAME_HEADER_SIZE + 16 + 8, 0xfffffff0u);
        fix_pcrc(&m.f[2]);
        bad_model("set-raw-len-huge.sim", &m, "corrupt|length|bound|raw", "stream set: stream 0 raw_len 2^32 - 16");
        m_free(&m);
    }

    /* -- stream descriptors -- */
    {
        const uint8_t *d64 = st_entry_guid(ST_TYPE_D64);
        unsigned na;
        buf p;

        m = m_copy(&B);
        m_insert(&m, 1, b_copy(&m.f[0]));
        bad_model("desc-stream-twice.sim", &m, "twice|declared", "stream 0 declared twice");
        m_free(&m);

        m = m_copy(&B);
        set_field(&m, 0, F_ENCODER, 2, 9);
        m_del(&m, 3);
        m_del(&m, 2);
        m_del(&m, 1);
        bad_model("desc-encoder-9.sim", &m, "encoder", "descriptor with unknown encoder 9 (no data frames)");
        m_free(&m);

        m = m_copy(&B);
        set_field(&m, 0, F_ENCODER, 2, 9);
        bad_model("desc-encoder-9-with-data.sim", &m, "encoder", "descriptor with encoder 9, data frames with 3");
        m_free(&m);

        m = m_copy(&B);
        p = desc_payload("trace", d64, 32, &na);
        attr(&p, 40, ST_ATTR_CRITICAL, "?", 1);
        set_payload(&m, 0, &p, na + 1);
        bad_model("desc-unknown-critical-attr.sim", &m, "critical", "descriptor with a critical attribute of key 40");
        m_free(&m);
        b_free(&p);

        m = m_copy(&B);
        p = desc_payload("trace", d64, 32, &na);
        attr(&p, ST_ATTR_NAME, 1, "again", 5);
        set_payload(&m, 0, &p, na + 1);
        bad_model("desc-name-twice.sim", &m, "twice", "descriptor with two NAME attributes");
        m_free(&m);
        b_free(&p);

        m = m_copy(&B);
        p = (buf){0, 0, 0};
        {
            uint8_t e4[4];
            st_store32(e4, 32);
            attr(&p, ST_ATTR_NAME, 1, "tr\0ce", 5);
            attr(&p, ST_ATTR_TYPE_GUID, 1, d64, 16);
            attr(&p, ST_ATTR_ENTRY_SIZE, 1, e4, 4);
        }
        set_payload(&m, 0, &p, 3);
        bad_model("desc-name-nul.sim", &m, "name", "stream name with a NUL byte");
        m_free(&m);
        b_free(&p);

        m = m_copy(&B);
        p = (buf){0, 0, 0};
        {
            uint8_t e4[4];
            st_store32(e4, 32);
            attr(&p, ST_ATTR_TYPE_GUID, 1, d64, 16);
            attr(&p, ST_ATTR_ENTRY_SIZE, 1, e4, 4);
        }
        set_payload(&m, 0, &p, 2);
        bad_model("desc-no-name.sim", &m, "name", "descriptor without NAME");
        m_free(&m);
        b_free(&p);

        m = m_copy(&B);
        p = (buf){0, 0, 0};
        {
            uint8_t e4[4];
            st_store32(e4, 32);
            attr(&p, ST_ATTR_NAME, 1, "trace", 5);
            attr(&p, ST_ATTR_TYPE_GUID, 1, d64, 15);
            attr(&p, ST_ATTR_ENTRY_SIZE, 1, e4, 4);
        }
        set_payload(&m, 0, &p, 3);
        bad_model("desc-guid-15-bytes.sim", &m, "GUID", "TYPE_GUID of 15 bytes");
        m_free(&m);
        b_free(&p);

        m = m_copy(&B);
        p = desc_payload("trace", d64, 24, &na);
        set_payload(&m, 0, &p, na);
        bad_model("desc-d64-size-24.sim", &m, "entry size", "d64 stream with ENTRY_SIZE 24");
        m_free(&m);
        b_free(&p);

        m = m_copy(&B);
        p = (buf){0, 0, 0};
        for (int i = 0; i < 300; i++)
            attr(&p, 100, 0, "0123456789", 10);
        set_payload(&m, 0, &p, 300);
        bad_model("desc-payload-7800.sim", &m, "payload|limit|too large|attribute",
                  "descriptor payload of 7800 bytes (bound 4096; also 300 attributes)");
        m_free(&m);
        b_free(&p);

        /* user types: descriptor only */
        const char *what[3] = {"user type with ENTRY_SIZE 0", "user type with ENTRY_SIZE 70000",
                               "user type with encoder 3 (cm)"};
        const char *names[3] = {"desc-user-size-0.sim", "desc-user-size-70000.sim", "desc-user-cm.sim"};
        const uint32_t sizes[3] = {0, 70000, 7};
        for (int k = 0; k < 3; k++) {
            model u;
            memset(&u, 0, sizeof u);
            memcpy(u.fh, B.fh, sizeof u.fh);
            p = desc_payload("records", USER_GUID, sizes[k], &na);
            u.f[0] = mk_frame(ST_KIND_STREAM, k == 2 ? SVPC_ENC_CM : SVPC_ENC_GENERIC, 0, &p, na);
            u.nf = 1;
            bad_model(names[k], &u, k == 2 ? "encoder|memory" : "entry size", what[k]);
            m_free(&u);
            b_free(&p);
        }
    }

    /* -- directory and footer -- */
    t = b_copy(&base);
    set_dir_entry(&t, &L, 2, 0, 8, L.frame_off[2] + 1);
    bad("dir-not-contiguous.sim", &t, "directory", "directory entry 2's offset one byte late");
    b_free(&t);
    t = b_copy(&base);
    set_dir_entry(&t, &L, 2, 0, 8, L.frame_off[1]);
    bad("dir-overlap.sim", &t, "directory", "directory entry 2 at entry 1's offset (overlapping frames)");
    b_free(&t);
    t = b_copy(&base);
    set_dir_entry(&t, &L, 3, 0, 8, L.dir_off);
    set_dir_entry(&t, &L, 3, 8, 8, L.dir_size);
    bad("dir-entry-is-directory.sim", &t, "directory", "last directory entry points at the directory frame itself");
    b_free(&t);
    t = b_copy(&base);
    set_dir_entry(&t, &L, 3, 8, 8, UINT64_MAX - 100);
    bad("dir-entry-size-huge.sim", &t, "directory", "last directory entry's size 2^64 - 101");
    b_free(&t);
    t = b_copy(&base);
    set_dir_entry(&t, &L, 1, 40, 8, 99);
    bad("dir-count-differs.sim", &t, "directory", "directory entry 1 says count 99, the frame 100");
    b_free(&t);
    t = b_copy(&base);
    set_dir_entry(&t, &L, 1, 20, 1, 3);
    bad("dir-entry-kind-3.sim", &t, "directory", "directory entry 1 of kind 3");
    b_free(&t);
    {
        /* the directory lists frames 0..2 only: the footer agrees */
        model s = m_copy(&B);
        buf ents = {0, 0, 0}, pay = {0, 0, 0};
        buf all = dir_entries(&s);
        b_put(&ents, all.p, 3 * ST_DIR_ENTRY_SIZE);
        attr(&pay, ST_ATTR_DIRECTORY, 1, ents.p, ents.n);
        buf dirf = mk_frame(ST_KIND_DIRECTORY, 0, UINT32_MAX, &pay, 1);
        t = cut(&base, L.dir_off);
        b_put(&t, dirf.p, dirf.n);
        st_footer ft = {L.dir_off, dirf.n, 3};
        uint8_t fb[ST_FOOTER_SIZE];
        st_footer_write(&ft, fb);
        b_put(&t, fb, sizeof fb);
        bad("dir-missing-frame.sim", &t, "directory", "directory and footer list 3 of the 4 frames");
        b_free(&t);
        b_free(&ents);
        b_free(&pay);
        b_free(&all);
        b_free(&dirf);
        m_free(&s);
    }
    {
        buf ex = {0, 0, 0};
        buf all = dir_entries(&B);
        attr(&ex, ST_ATTR_DIRECTORY, 1, all.p, all.n);
        t = assemble_x(&B, &ex, 1, &L);
        bad("dir-two-directory-attrs.sim", &t, "directory", "directory frame with two DIRECTORY attributes");
        b_free(&t);
        b_free(&ex);
        attr(&ex, 99, 1, "z", 1);
        t = assemble_x(&B, &ex, 1, &L);
        bad("dir-unknown-critical-attr.sim", &t, "directory|critical|attribute",
            "directory frame with a critical attribute of key 99");
        b_free(&t);
        b_free(&ex);
        b_free(&all);
        buf chk = assemble(&B, &L); /* L back to the base layout */
        b_free(&chk);
    }
    t = b_copy(&base);
    set_footer(&t, &L, 0, UINT64_C(1) << 40);
    bad("footer-dir-outside.sim", &t, "footer|directory", "footer dir_offset 2^40, outside the file");
    b_free(&t);
    t = b_copy(&base);
    set_footer(&t, &L, 0, 0);
    bad("footer-dir-at-0.sim", &t, "footer|directory|magic", "footer dir_offset 0 (the file header)");
    b_free(&t);
    t = b_copy(&base);
    set_footer(&t, &L, 0, L.frame_off[2]);
    set_footer(&t, &L, 8, L.footer_off - L.frame_off[2]);
    bad("footer-dir-at-data-frame.sim", &t, "footer|directory",
        "footer points at the second data frame, dir_size reaching the footer");
    b_free(&t);
    t = b_copy(&base);
    set_footer(&t, &L, 0, L.footer_off);
    set_footer(&t, &L, 8, 32);
    bad("footer-dir-is-footer.sim", &t, "footer|directory", "footer points at itself (dir_offset = its own offset)");
    b_free(&t);
    t = b_copy(&base);
    set_footer(&t, &L, 8, L.dir_size + 80);
    bad("footer-dir-size.sim", &t, "footer|directory", "footer dir_size 80 bytes too large");
    b_free(&t);
    t = b_copy(&base);
    set_footer(&t, &L, 16, 1000);
    bad("footer-nframes-1000.sim", &t, "footer|directory|frames", "footer nframes 1000 (4 frames)");
    b_free(&t);
    t = b_copy(&base);
    set_footer(&t, &L, 16, UINT64_MAX);
    bad("footer-nframes-huge.sim", &t, "footer|directory|frames", "footer nframes 2^64 - 1");
    b_free(&t);
    t = b_copy(&base);
    set_footer(&t, &L, 16, UINT64_C(230584300921369396));
    bad("footer-nframes-wrap64.sim", &t, "footer|directory|frames",
        "footer nframes 230584300921369396: x 80 wraps 64 bits to 64");
    b_free(&t);
    t = b_copy(&base);
    set_footer(&t, &L, 16, UINT64_C(53687092));
    bad("footer-nframes-wrap32.sim", &t, "footer|directory|frames",
        "footer nframes 53687092: x 80 wraps 32 bits to 64");
    b_free(&t);
    t = b_copy(&base);
    memcpy(t.p + L.footer_off + 24, "STEM", 4);
    set_footer(&t, &L, 16, 4);
    bad("footer-magic.sim", &t, "footer|STEN", "footer magic \"STEM\"");
    b_free(&t);
    {
        /* garbage and a second copy of the footer after the footer */
        m = m_copy(&B);
        b_put(&m.tail, "garbage!", 8);
        buf c2 = assemble(&m, &L);
        b_put(&c2, c2.p + L.footer_off, ST_FOOTER_SIZE);
        bad("footer-data-after.sim", &c2, "after|footer|directory", "8 bytes and a copy of the footer after the footer");
        b_free(&c2);
        m_free(&m);
        buf chk = assemble(&B, &L);
        b_free(&chk);
    }

    fclose(readme);
    fprintf(stderr, "make-bad: %u bad files in %s, 4 good edge files in %s\n", nbad, bad_dir, good_dir);
    m_free(&B);
    b_free(&base);
    free(ent);
    return 0;
}
