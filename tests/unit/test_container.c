/* Container: multi-stream write/read, byte-identical output for any thread
 * count, frame boundaries, truncation and directory checks. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../../frames/frame_format.h" /* st_crc32, byte offsets: to forge a frame */
#include "../../frames/container.h"
#include "check.h"

typedef struct {
    uint8_t *buf[4];
    size_t len[4];
    unsigned calls;
} collect;

static st_error sink(void *arg, const st_stream_info *s, uint64_t first, const uint8_t *e, size_t n)
{
    collect *c = arg;
    if (s->id >= 4)
        return ST_E_INTERNAL;
    /* deliveries of a stream are contiguous and say where they start */
    if (first * s->entry_size != c->len[s->id])
        return ST_E_INTERNAL;
    size_t b = n * s->entry_size;
    c->buf[s->id] = realloc(c->buf[s->id], c->len[s->id] + b + 1);
    memcpy(c->buf[s->id] + c->len[s->id], e, b);
    c->len[s->id] += b;
    c->calls++;
    return ST_OK;
}

static void collect_free(collect *c)
{
    for (int i = 0; i < 4; i++)
        free(c->buf[i]);
    memset(c, 0, sizeof *c);
}

/* Write two streams (d64 and m32) interleaved into a temp file; return it. */
static FILE *write_container(unsigned threads, uint32_t frame, size_t n, const uint8_t *a, const uint8_t *b)
{
    FILE *f = tmpfile();
    st_write_opts o = {threads, frame, 0, 0};
    st_writer *w;
    CHECK(st_writer_new(&w, fileno(f), &o) == ST_OK);
    svpc_params p = {SVPC_ENC_CM, SVPC_STAGE_LZMA, 6}, g = {SVPC_ENC_GENERIC, SVPC_STAGE_ZLIB, 6};
    uint32_t sa, sb;
    CHECK(st_writer_add_stream(w, "cpu0.read", ST_TYPE_D64, &p, &sa) == ST_OK);
    CHECK(st_writer_add_stream(w, "cpu0.write", ST_TYPE_M32, &g, &sb) == ST_OK);
    CHECK(sa == 0 && sb == 1);
    for (size_t i = 0; i < n; i += 37) {
        size_t k = n - i < 37 ? n - i : 37;
        CHECK(st_writer_append(w, sa, a + i * 32, k) == ST_OK);
        CHECK(st_writer_append(w, sb, b + i * 16, k) == ST_OK);
    }
    CHECK(st_writer_append(w, 7, a, 1) == ST_E_USAGE);
    CHECK(st_writer_finish(w) == ST_OK);
    st_writer_free(w);
    fflush(f);
    return f;
}

static uint8_t *slurp(FILE *f, size_t *len)
{
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(*len + 1);
    CHECK(fread(p, 1, *len, f) == *len);
    return p;
}

/* Read the container bytes file (len) sequentially with options *ro, the
 * entries to sk(arg, ...). */
static st_error read_with(const uint8_t *file, size_t len, const st_read_opts *ro, st_sink sk, void *arg, st_diag *d)
{
    FILE *f = tmpfile();
    fwrite(file, 1, len, f);
    fflush(f);
    lseek(fileno(f), 0, SEEK_SET);
    st_reader *r = NULL;
    st_error e = st_reader_new(&r, fileno(f), ro, d);
    if (e == ST_OK)
        e = st_reader_read_all(r, sk, arg, d);
    st_reader_free(r);
    fclose(f);
    return e;
}

static st_error read_back(const uint8_t *file, size_t len, unsigned threads, collect *c, st_diag *d)
{
    st_read_opts ro = {.threads = threads}; /* designated: the struct grew optional hooks */
    return read_with(file, len, &ro, sink, c, d);
}

/* Finish writer w on the temporary file f: the file's bytes (*len of
 * them); f is closed. */
static uint8_t *finish_slurp(st_writer *w, FILE *f, size_t *len)
{
    CHECK(st_writer_finish(w) == ST_OK);
    st_writer_free(w);
    fflush(f);
    uint8_t *c = slurp(f, len);
    fclose(f);
    return c;
}

/* One d64 stream of n entries e, coded with *p, frames of `frame`
 * entries: the file's bytes (*len of them). */
static uint8_t *pack_d64_with(const uint8_t *e, size_t n, uint32_t frame, const svpc_params *p, size_t *len)
{
    FILE *f = tmpfile();
    st_write_opts o = {1, frame, 0, 0};
    st_writer *w;
    CHECK(st_writer_new(&w, fileno(f), &o) == ST_OK);
    uint32_t sid;
    CHECK(st_writer_add_stream(w, "t", ST_TYPE_D64, p, &sid) == ST_OK);
    CHECK(st_writer_append(w, sid, e, n) == ST_OK);
    return finish_slurp(w, f, len);
}

/* The same with cm. */
static uint8_t *pack_d64(const uint8_t *e, size_t n, uint32_t frame, size_t *len)
{
    svpc_params p = {SVPC_ENC_CM, SVPC_STAGE_LZMA, 6};
    return pack_d64_with(e, n, frame, &p, len);
}

/* After a change to the payload of the frame whose header is at h: its
 * payload and header CRCs made right again, so only the lie is left. */
static void fix_crcs(uint8_t *h)
{
    st_store32(h + 80, st_crc32(h + ST_FRAME_HEADER_SIZE, (size_t)st_load64(h + 72)));
    st_store32(h + 92, st_crc32(h, 92));
}

/* bytes as a file to read (rewound) */
static FILE *as_file(const uint8_t *c, size_t len)
{
    FILE *g = tmpfile();
    fwrite(c, 1, len, g);
    fflush(g);
    lseek(fileno(g), 0, SEEK_SET);
    return g;
}

/* A frame sink that decodes each frame itself, as simtrace-pack --concat
 * does for vblock streams. */
static st_error decoding_sink(void *arg, const st_stream_info *s, const st_frame_ref *f, const st_raw_frame *raw)
{
    st_buf out;
    st_buf_init(&out, 0);
    st_error e = st_raw_frame_decode(s, f, raw, &out, arg);
    st_buf_free(&out);
    return e;
}

/* ENTRY_CRC (SIMTRACE.md 5.2, 8.2 items 87-89): a frame whose entries
 * decode, but not to its ENTRY_CRC, is rejected by every reader, with its
 * place, prefix reads included, unless the check is ignored. */
static void entry_crc_checks(const uint8_t *a)
{
    size_t len;
    uint8_t *c = pack_d64(a, 300, 100, &len);
    /* frame 2 (the second data frame, seq 1): DATA, then ENTRY_CRC; the
     * diag names it as seq 1 of stream 0 */
    st_index *ix = NULL;
    st_diag d;
    st_diag_clear(&d);
    FILE *g = as_file(c, len);
    CHECK(st_index_open(&ix, fileno(g), &d) == ST_OK);
    const st_frame_ref *r = ix ? st_index_frame(ix, 2) : NULL;
    CHECK(r && r->kind == 1 && r->first_entry == 100);
    uint64_t off = r ? r->offset : 0;
    st_index_free(ix);
    fclose(g);
    uint8_t *h = c + off, *pay = h + ST_FRAME_HEADER_SIZE;
    CHECK(st_load32(h + 12) == 2); /* nattrs */
    uint8_t *crc = pay + ST_ATTR_HEADER_SIZE + st_load64(pay + 8);
    CHECK(st_load32(crc) == ST_ATTR_ENTRY_CRC && st_load64(crc + 8) == 4);
    CHECK(st_load32(crc + 16) == st_crc32(a + 100 * 32, 100 * 32));
    crc[16] ^= 1;
    fix_crcs(h);

    /* sequential read */
    collect col = {0};
    st_diag_clear(&d);
    CHECK(read_back(c, len, 1, &col, &d) == ST_E_ENTRY_CRC);
    CHECK(d.frame == 1 && d.stream == 0 && d.offset == off);
    CHECK(col.len[0] == 100 * 32); /* the frame before it, never an entry of it */
    collect_free(&col);
    /* random access */
    g = as_file(c, len);
    ix = NULL;
    CHECK(st_index_open(&ix, fileno(g), &d) == ST_OK);
    st_buf out;
    st_buf_init(&out, 0);
    st_diag_clear(&d);
    CHECK(ix && st_index_decode_frame(ix, 2, &out, &d) == ST_E_ENTRY_CRC && d.frame == 1 &&
          d.stream == 0 && d.offset == off);
    /* a prefix is decoded whole to be checked, unless the check is ignored */
    CHECK(ix && st_index_decode_part(ix, 2, 0, 50, &out, &d) == ST_E_ENTRY_CRC);
    if (ix)
        st_index_set_ignore_check(ix, 1);
    CHECK(ix && st_index_decode_part(ix, 2, 0, 50, &out, &d) == ST_OK && out.len == 50 * 32 &&
          memcmp(out.data, a + 100 * 32, 50 * 32) == 0);
    CHECK(ix && st_index_decode_frame(ix, 2, &out, &d) == ST_OK && out.len == 100 * 32);
    st_buf_free(&out);
    st_index_free(ix);
    /* a sink that decodes: the reader adds the place the sink's decoder
     * cannot know */
    lseek(fileno(g), 0, SEEK_SET);
    st_read_opts ro = {.threads = 1, .frame_sink = decoding_sink};
    ro.frame_arg = &d; /* as simtrace-pack's sink: the reader's own diag */
    st_reader *rd = NULL;
    st_diag_clear(&d);
    st_error e = st_reader_new(&rd, fileno(g), &ro, &d);
    if (e == ST_OK)
        e = st_reader_read_all(rd, sink, &col, &d);
    CHECK(e == ST_E_ENTRY_CRC);
    CHECK(d.frame == 1 && d.stream == 0 && d.offset == off);
    st_reader_free(rd);
    collect_free(&col);
    fclose(g);
    free(c);
}

/* A frame of more than one ENTRY_CRC block: a prefix read checks the
 * blocks it decodes (to the end of its last one), no more. */
static void entry_crc_blocks(void)
{
    const size_t n = 2 * ST_ENTRY_CRC_BLOCK + 1000;
    uint8_t *e = calloc(n, 32);
    for (size_t i = 0; i < n; i++) {
        st_store64(e + 32 * i, i);              /* cycle */
        st_store64(e + 32 * i + 8, 0x1000 + (i % 7) * 4); /* ip */
        st_store64(e + 32 * i + 16, 0x8000 + (i % 1000) * 8);
        st_store64(e + 32 * i + 24, i * 2654435761u);
    }
    size_t len;
    uint8_t *c = pack_d64(e, n, (uint32_t)n, &len);
    /* frame 1 is the one data frame: three CRCs, the last of 1000 entries */
    uint8_t *h = c + 64 + 96 + st_load64(c + 64 + 72), *pay = h + ST_FRAME_HEADER_SIZE;
    CHECK(memcmp(h, "STFR", 4) == 0 && h[4] == 1); /* a data frame */
    uint8_t *crc = pay + ST_ATTR_HEADER_SIZE + st_load64(pay + 8);
    CHECK(st_load32(crc) == ST_ATTR_ENTRY_CRC && st_load64(crc + 8) == 12);
    CHECK(st_load32(crc + 16 + 8) == st_crc32(e + 2 * ST_ENTRY_CRC_BLOCK * 32, 1000 * 32));
    crc[16 + 4] ^= 1; /* block 1's */
    fix_crcs(h);
    FILE *g = as_file(c, len);
    st_index *ix = NULL;
    st_diag d;
    st_diag_clear(&d);
    CHECK(st_index_open(&ix, fileno(g), &d) == ST_OK);
    st_buf out;
    st_buf_init(&out, 0);
    if (ix) {
        CHECK(st_index_decode_part(ix, 1, 0, 10, &out, &d) == ST_OK && out.len == 10 * 32 &&
              memcmp(out.data, e, out.len) == 0);
        CHECK(st_index_decode_part(ix, 1, 0, ST_ENTRY_CRC_BLOCK, &out, &d) == ST_OK &&
              out.len == ST_ENTRY_CRC_BLOCK * 32);
        CHECK(st_index_decode_part(ix, 1, 0, ST_ENTRY_CRC_BLOCK + 1, &out, &d) == ST_E_ENTRY_CRC);
        CHECK(st_index_decode_part(ix, 1, 0, n - 1, &out, &d) == ST_E_ENTRY_CRC);
        /* a part is checked from the block that holds its first entry: the
         * damaged block before it is decoded, not returned, so not judged */
        CHECK(st_index_decode_part(ix, 1, ST_ENTRY_CRC_BLOCK + 5, ST_ENTRY_CRC_BLOCK + 6, &out, &d) ==
              ST_E_ENTRY_CRC);
        CHECK(st_index_decode_part(ix, 1, 2 * ST_ENTRY_CRC_BLOCK + 3, n, &out, &d) == ST_OK && out.len == n * 32 &&
              memcmp(out.data + (2 * ST_ENTRY_CRC_BLOCK + 3) * 32, e + (2 * ST_ENTRY_CRC_BLOCK + 3) * 32,
                     (n - 2 * ST_ENTRY_CRC_BLOCK - 3) * 32) == 0);
        CHECK(st_index_decode_part(ix, 1, 2 * ST_ENTRY_CRC_BLOCK, 2 * ST_ENTRY_CRC_BLOCK + 1, &out, &d) == ST_OK &&
              memcmp(out.data + 2 * ST_ENTRY_CRC_BLOCK * 32, e + 2 * ST_ENTRY_CRC_BLOCK * 32, 32) == 0);
        CHECK(st_index_decode_frame(ix, 1, &out, &d) == ST_E_ENTRY_CRC);
        st_index_set_ignore_check(ix, 1);
        CHECK(st_index_decode_frame(ix, 1, &out, &d) == ST_OK && out.len == n * 32 &&
              memcmp(out.data, e, out.len) == 0);
    }
    st_buf_free(&out);
    st_index_free(ix);
    fclose(g);
    free(c);
    free(e);
}

/* st_crc32_update (folded 16 bytes at a time where the CPU can, zlib
 * otherwise) gives zlib's values: every alignment, every length around
 * its 16- and 64-byte steps, any starting CRC, and in pieces. */
static void test_crc(void)
{
    size_t n = 70000;
    uint8_t *b = malloc(n + 16);
    unsigned long long s = 7;
    for (size_t i = 0; i < n + 16; i++)
        b[i] = (uint8_t)check_rand(&s);
    unsigned bad = 0;
    for (size_t off = 0; off < 16; off++)
        for (size_t len = 0; len < 700; len++) {
            uint32_t init = (uint32_t)check_rand(&s);
            bad += st_crc32_update(init, b + off, len) != (uint32_t)crc32(init, b + off, (uInt)len);
        }
    CHECK(bad == 0);
    uint32_t whole = st_crc32(b, n), parts = 0;
    for (size_t i = 0, k = 1; i < n; i += k, k = k * 3 % 1001 + 1)
        parts = st_crc32_update(parts, b + i, n - i < k ? n - i : k);
    CHECK(whole == (uint32_t)crc32(0, b, (uInt)n) && parts == whole);
    free(b);
}

/* A container written by `threads` workers, cm2 (whose frames are fed to
 * a worker as their entries arrive, with threads > 1): stream A gets
 * `before` entries, then a stream B is added (which ends feeding, with a
 * frame of A half full unless `before` is a multiple of `frame`), then
 * both get the rest; with before = n, A alone, through append_fd from two
 * files, the first ending where a frame does (a fed frame is opened for
 * entries that come only with the next input, or never).  The file's
 * bytes. */
static uint8_t *write_fed(unsigned threads, uint32_t frame, size_t n, size_t before, const uint8_t *a,
                          const uint8_t *b, size_t *len)
{
    FILE *f = tmpfile();
    st_write_opts o = {threads, frame, 0, 0};
    st_writer *w;
    CHECK(st_writer_new(&w, fileno(f), &o) == ST_OK);
    svpc_params p = {SVPC_ENC_CM2, SVPC_STAGE_LZMA, 6};
    uint32_t sa, sb = 0;
    CHECK(st_writer_add_stream(w, "a", ST_TYPE_D64, &p, &sa) == ST_OK);
    if (before == n) {
        /* two inputs, the first ending where a frame does (or empty) */
        size_t cut = n / 2 / frame * frame;
        for (unsigned k = 0; k < 2; k++) {
            size_t from = k ? cut : 0, to = k ? n : cut;
            FILE *in = tmpfile();
            CHECK(fwrite(a + from * 32, 32, to - from, in) == to - from);
            fflush(in);
            lseek(fileno(in), 0, SEEK_SET);
            uint64_t got = 0;
            st_diag d;
            st_diag_clear(&d);
            CHECK(st_writer_append_fd(w, sa, fileno(in), NULL, NULL, &got, &d) == ST_OK && got == (to - from) * 32);
            fclose(in);
        }
    } else {
        for (size_t i = 0; i < before; i += 301)
            CHECK(st_writer_append(w, sa, a + i * 32, before - i < 301 ? before - i : 301) == ST_OK);
        CHECK(st_writer_add_stream(w, "b", ST_TYPE_M32, &p, &sb) == ST_OK);
        for (size_t i = before; i < n; i += 113) {
            size_t k = n - i < 113 ? n - i : 113;
            CHECK(st_writer_append(w, sa, a + i * 32, k) == ST_OK);
            CHECK(st_writer_append(w, sb, b + i * 16, k) == ST_OK);
        }
    }
    return finish_slurp(w, f, len);
}

static void test_fed(const uint8_t *a, const uint8_t *b, size_t n)
{
    static const struct {
        uint32_t frame;
        size_t before;
    } cases[] = {{1000, 2500}, {1000, 3000}, {1000, 1}, {1000, 0}, {1000, 5000}, {700, 5000}, {5000, 5000}};
    for (unsigned ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
        size_t l1, lt;
        uint8_t *c1 = write_fed(1, cases[ci].frame, n, cases[ci].before, a, b, &l1);
        for (unsigned t = 2; t <= 3; t++) {
            uint8_t *ct = write_fed(t, cases[ci].frame, n, cases[ci].before, a, b, &lt);
            CHECK(lt == l1 && memcmp(c1, ct, l1) == 0);
            free(ct);
        }
        collect c = {0};
        st_diag d;
        st_diag_clear(&d);
        CHECK(read_back(c1, l1, 2, &c, &d) == ST_OK);
        CHECK(c.len[0] == n * 32 && memcmp(c.buf[0], a, n * 32) == 0);
        CHECK(cases[ci].before == n || (c.len[1] == (n - cases[ci].before) * 16 &&
                                        memcmp(c.buf[1], b + cases[ci].before * 16, c.len[1]) == 0));
        collect_free(&c);
        free(c1);
    }
    /* a writer freed while a worker waits for a fed frame's entries:
     * returns (the test would hang otherwise) and writes no more */
    FILE *f = tmpfile();
    st_write_opts o = {2, 1000, 0, 0};
    st_writer *w;
    CHECK(st_writer_new(&w, fileno(f), &o) == ST_OK);
    svpc_params p = {SVPC_ENC_CM2, SVPC_STAGE_LZMA, 6};
    uint32_t sa;
    CHECK(st_writer_add_stream(w, "a", ST_TYPE_D64, &p, &sa) == ST_OK);
    CHECK(st_writer_append(w, sa, a, 1500) == ST_OK);
    st_writer_free(w);
    fclose(f);
}

/* Entry i of stream k of write_many(): cycle i, the stream in the
 * address, the rest a short loop. */
static void many_entry(unsigned k, size_t i, uint8_t *e)
{
    st_store64(e, i);
    st_store64(e + 8, 0x1000 + (i % 5) * 4);
    st_store64(e + 16, (uint64_t)k << 20 | (i % 64) * 8);
    st_store64(e + 24, i * 3);
}

/* Reading write_many()'s file back: each stream's entries, in order. */
typedef struct {
    size_t got[32];
    unsigned bad;
} many_check;

static st_error many_sink(void *arg, const st_stream_info *s, uint64_t first, const uint8_t *e, size_t n)
{
    many_check *c = arg;
    if (s->id >= 32 || first != c->got[s->id])
        return ST_E_INTERNAL;
    uint8_t want[32];
    for (size_t i = 0; i < n; i++) {
        many_entry(s->id, first + i, want);
        c->bad += memcmp(e + 32 * i, want, 32) != 0;
    }
    c->got[s->id] += n;
    return ST_OK;
}

/* ns d64 streams of `per` entries each, frames of `frame` entries, by
 * `threads` workers: in turn, 37 entries at a time (seq 0), or one stream
 * after another (seq 1; the odd ones through append_fd), so that each
 * fills a frame and then holds part of one, or in turn after stream 0 has
 * had a frame and 10 entries alone (seq 2: fed frames with cm2 and
 * threads, given up when the second stream comes, which the others then
 * outgrow before stream 0 fills its second frame).  The file's bytes; *st the
 * writer's counts. */
static uint8_t *write_many(unsigned threads, int seq, unsigned ns, size_t per, uint32_t frame, st_write_stats *st,
                           size_t *len)
{
    FILE *f = tmpfile();
    st_write_opts o = {threads, frame, 0, 0};
    st_writer *w;
    CHECK(st_writer_new(&w, fileno(f), &o) == ST_OK);
    svpc_params p = {SVPC_ENC_CM2, SVPC_STAGE_LZMA, 6};
    uint32_t sid[32];
    size_t pos[32] = {0};
    uint8_t *e = malloc(per * 32);
    for (unsigned k = 0; k < ns; k++) {
        char name[16];
        snprintf(name, sizeof name, "s%u", k);
        CHECK(st_writer_add_stream(w, name, ST_TYPE_D64, &p, &sid[k]) == ST_OK);
        while (seq == 2 && k == 0 && pos[0] < frame + 10) {
            size_t n = frame + 10 - pos[0] < 37 ? frame + 10 - pos[0] : 37;
            for (size_t j = 0; j < n; j++)
                many_entry(0, pos[0] + j, e + 32 * j);
            CHECK(st_writer_append(w, sid[0], e, n) == ST_OK);
            pos[0] += n;
        }
    }
    for (unsigned k = 0; seq == 1 && k < ns; k++) {
        for (size_t j = 0; j < per; j++)
            many_entry(k, j, e + 32 * j);
        if (k % 2) {
            FILE *in = tmpfile();
            CHECK(fwrite(e, 32, per, in) == per);
            fflush(in);
            lseek(fileno(in), 0, SEEK_SET);
            uint64_t got = 0;
            st_diag d;
            st_diag_clear(&d);
            CHECK(st_writer_append_fd(w, sid[k], fileno(in), NULL, NULL, &got, &d) == ST_OK && got == per * 32);
            fclose(in);
        } else {
            CHECK(st_writer_append(w, sid[k], e, per) == ST_OK);
        }
    }
    for (int more = seq != 1; more;) {
        more = 0;
        for (unsigned k = 0; k < ns; k++) {
            size_t n = per - pos[k] < 37 ? per - pos[k] : 37;
            if (!n)
                continue;
            for (size_t j = 0; j < n; j++)
                many_entry(k, pos[k] + j, e + 32 * j);
            CHECK(st_writer_append(w, sid[k], e, n) == ST_OK);
            pos[k] += n;
            more = 1;
        }
    }
    free(e);
    CHECK(st_writer_flush(w) == ST_OK);
    st_writer_stats(w, st);
    return finish_slurp(w, f, len);
}

/* A writer of many streams holds at most ST_WRITER_HELD_FRAMES frames in
 * the frames being filled (a frame per stream, 24 here, before the bound:
 * 1.4 GB for 40 streams of 1.2 M entries), cutting the largest early, with
 * the same bytes for every thread count; a few streams are not cut early. */
static void test_many_streams(void)
{
    const uint32_t frame = 300;
    const size_t lim = ST_WRITER_HELD_FRAMES * frame * 32;
    static const struct {
        unsigned ns;
        size_t per;
        int seq;
    } cases[] = {{24, 1000, 0}, {24, 1000, 1}, {24, 300, 1}, {24, 1000, 2}, {4, 2000, 0}};
    for (unsigned ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
        const unsigned ns = cases[ci].ns;
        const size_t per = cases[ci].per;
        st_write_stats st1, st;
        size_t l1, lt;
        uint8_t *c1 = write_many(1, cases[ci].seq, ns, per, frame, &st1, &l1);
        for (unsigned t = 2; t <= 3; t++) {
            uint8_t *ct = write_many(t, cases[ci].seq, ns, per, frame, &st, &lt);
            CHECK(lt == l1 && memcmp(c1, ct, l1) == 0);
            CHECK(st.fill_peak == st1.fill_peak && st.frames == st1.frames);
            free(ct);
        }
        /* within the bound, which a frame for each stream would pass;
         * frames beyond ns x ceil(per / frame) are cut early (the streams
         * that come one after another are cut early at their last, part
         * frame, which is one frame either way) */
        const uint64_t whole = ns * ((per + frame - 1) / frame);
        const int bound = ns * frame * 32 > lim;
        CHECK(st1.fill_peak <= lim && (bound ? st1.fill_peak > lim - frame * 32 : st1.fill_peak == ns * frame * 32));
        CHECK(bound && cases[ci].seq != 1 ? st1.frames > whole : st1.frames == whole);
        st_read_opts ro = {.threads = 2};
        st_diag d;
        st_diag_clear(&d);
        many_check mc;
        memset(&mc, 0, sizeof mc);
        CHECK(read_with(c1, l1, &ro, many_sink, &mc, &d) == ST_OK);
        CHECK(mc.bad == 0);
        for (unsigned k = 0; k < ns; k++)
            CHECK(mc.got[k] == per);
        free(c1);
    }
}

/* Reading a salvage past damaged frame headers (st_read_opts.resync):
 * entries land where their index says, and the losses reported. */
typedef struct {
    const uint8_t *orig[2];
    size_t esz[2], got[2];
    unsigned bad, passed;
    uint64_t gap_first[2], gap_count[2], gap_frames[2];
} resync_check;

static st_error resync_sink(void *arg, const st_stream_info *s, uint64_t first, const uint8_t *e, size_t n)
{
    resync_check *c = arg;
    if (s->id >= 2)
        return ST_E_INTERNAL;
    c->bad += memcmp(c->orig[s->id] + first * c->esz[s->id], e, n * c->esz[s->id]) != 0;
    c->got[s->id] += n;
    return ST_OK;
}

static st_error resync_damage(void *arg, const st_stream_info *s, const st_frame_ref *f, st_error e, const st_diag *d)
{
    resync_check *c = arg;
    (void)e;
    (void)d;
    if (!s) {
        c->passed++;
        return ST_OK;
    }
    if (s->id >= 2 || f->ordinal != ST_DIAG_UNKNOWN || c->gap_count[s->id])
        return ST_E_INTERNAL; /* only the gaps of passed-over bytes, one per stream here */
    c->gap_first[s->id] = f->first_entry;
    c->gap_count[s->id] = f->count;
    c->gap_frames[s->id] = f->seq;
    return ST_OK;
}

/* Read container bytes c (len), write_container()'s streams a and b, as
 * a sequential salvage (resync or not) by `threads`: what came, in *rc. */
static st_error resync_read(const uint8_t *c, size_t len, const uint8_t *a, const uint8_t *b, unsigned threads,
                            int resync, resync_check *rc, st_diag *d)
{
    memset(rc, 0, sizeof *rc);
    rc->orig[0] = a;
    rc->orig[1] = b;
    rc->esz[0] = 32;
    rc->esz[1] = 16;
    st_read_opts ro = {.threads = threads, .on_damage = resync_damage, .damage_arg = rc, .resync = resync};
    st_diag_clear(d);
    return read_with(c, len, &ro, resync_sink, rc, d);
}

/* A damaged frame header in a sequential read: without resync the read
 * stops there; with it, the frames after it are read, and the frames lost
 * are told by the next frame of their stream (stream 1, the middle) or by
 * the directory (stream 0, its last frame). */
static void test_resync(const uint8_t *a, const uint8_t *b, size_t n)
{
    FILE *f = write_container(1, 999, n, a, b);
    size_t len;
    uint8_t *c = slurp(f, &len);
    st_index *ix = NULL;
    st_diag d;
    st_diag_clear(&d);
    CHECK(st_index_open(&ix, fileno(f), &d) == ST_OK);
    fclose(f);
    if (!ix) {
        free(c);
        return;
    }
    const st_frame_ref *mid = NULL, *last = NULL;
    for (uint64_t k = 0; k < st_index_frame_count(ix); k++) {
        const st_frame_ref *r = st_index_frame(ix, k);
        if (r->kind == ST_FRAME_REF_DATA && r->stream == 1 && r->first_entry == 1998)
            mid = r;
        if (r->kind == ST_FRAME_REF_DATA && r->stream == 0)
            last = r;
    }
    CHECK(mid && last && last->first_entry + last->count == n);
    if (mid && last) {
        c[mid->offset + 30] ^= 0x10;
        c[last->offset + 41] ^= 0x01;
        for (int resync = 0; resync <= 1; resync++) {
            resync_check rc;
            st_error e = resync_read(c, len, a, b, 2, resync, &rc, &d);
            CHECK(rc.bad == 0);
            if (!resync) {
                CHECK(e != ST_OK && d.offset == mid->offset && rc.got[1] == 1998 && rc.passed == 0);
                continue;
            }
            CHECK(e == ST_OK && rc.passed == 2);
            CHECK(rc.got[0] == n - last->count && rc.got[1] == n - mid->count);
            CHECK(rc.gap_first[1] == 1998 && rc.gap_count[1] == mid->count && rc.gap_frames[1] == 1);
            CHECK(rc.gap_first[0] == last->first_entry && rc.gap_count[0] == last->count && rc.gap_frames[0] == 1);
        }
    }
    st_index_free(ix);
    free(c);
    /* more frames lost than the directory's slack covers (4096 bytes: 51
     * entries): stream 0's last 60 frames of 50 entries, every header
     * damaged; the directory, larger than the frames read would allow,
     * still tells the loss */
    f = write_container(1, 50, n, a, b);
    c = slurp(f, &len);
    ix = NULL;
    st_diag_clear(&d);
    CHECK(st_index_open(&ix, fileno(f), &d) == ST_OK);
    fclose(f);
    unsigned hit = 0;
    for (uint64_t k = 0; ix && k < st_index_frame_count(ix); k++) {
        const st_frame_ref *r = st_index_frame(ix, k);
        if (r->kind == ST_FRAME_REF_DATA && r->stream == 0 && r->first_entry >= n - 60 * 50) {
            c[r->offset + 50] ^= 0x20;
            hit++;
        }
    }
    CHECK(hit == 60);
    resync_check rc;
    st_error e = resync_read(c, len, a, b, 1, 1, &rc, &d);
    CHECK(e == ST_OK && rc.bad == 0 && rc.passed >= 1 && rc.passed <= 60);
    CHECK(rc.got[0] == n - 60 * 50 && rc.got[1] == n);
    CHECK(rc.gap_first[0] == n - 60 * 50 && rc.gap_count[0] == 60 * 50 && rc.gap_frames[0] == 60);
    st_index_free(ix);
    free(c);
}

/* st_index_frames_after: a file without its end whose first data frame's
 * header is damaged.  The frame after it is found wherever it lies against
 * the 64 KiB steps the search reads in (its header's offset from the start
 * of the search swept across a step's last 95 bytes, where a header spans
 * two reads), and a directory frame after it is no data frame. */
static void test_frames_after(void)
{
    const size_t n = 2100;
    uint8_t *e = malloc(n * 32);
    unsigned long long r = 5;
    for (size_t i = 0; i < n * 32; i++)
        e[i] = (uint8_t)check_rand(&r);
    unsigned boundary = 0;
    for (size_t first = 2038; first <= 2050; first++) {
        svpc_params p = {SVPC_ENC_GENERIC, SVPC_STAGE_NONE, 6};
        size_t len;
        uint8_t *c = pack_d64_with(e, n, (uint32_t)first, &p, &len);
        /* file header 64, the descriptor, then data frames 1 and 2, the directory */
        const size_t d1 = 64 + 96 + st_load64(c + 64 + 72), d2 = d1 + 96 + st_load64(c + d1 + 72),
                     dir = d2 + 96 + st_load64(c + d2 + 72);
        CHECK(memcmp(c + d2, "STFR", 4) == 0 && c[dir + 4] == 3);
        const size_t j = d2 - (d1 + 1); /* from where the search starts */
        boundary += j >= 65536 - 95 && j < 65536;
        c[d1 + 40] ^= 1;
        for (int keep_dir = 0; keep_dir <= 1; keep_dir++) {
            /* without the footer (and the directory too, or not) */
            FILE *g = as_file(c, keep_dir ? len - 32 : dir);
            st_index *ix = NULL;
            st_diag d;
            st_diag_clear(&d);
            CHECK(st_index_open(&ix, fileno(g), &d) == ST_OK);
            uint64_t end = 0;
            CHECK(ix && st_index_recovered(ix, &end, NULL) && end == d1 && st_index_frames_after(ix) == d2);
            st_index_free(ix);
            fclose(g);
        }
        /* frame 2 damaged too: only the directory follows, no data frame */
        c[d2 + 40] ^= 1;
        FILE *g = as_file(c, len - 32);
        st_index *ix = NULL;
        st_diag d;
        st_diag_clear(&d);
        CHECK(st_index_open(&ix, fileno(g), &d) == ST_OK);
        CHECK(ix && st_index_frames_after(ix) == 0);
        st_index_free(ix);
        fclose(g);
        free(c);
    }
    CHECK(boundary >= 2); /* the sweep did cross the steps' seam */
    free(e);
}

/* `test_container fed`: only the fed writer's cases (make check runs them
 * under ThreadSanitizer). */
int main(int argc, char **argv)
{
    size_t n = 5000;
    uint8_t *a = malloc(n * 32), *b = malloc(n * 16);
    unsigned long long s = 42;
    for (size_t i = 0; i < n * 32; i++)
        a[i] = (uint8_t)(i % 32 < 6 ? i / 32 : (i % 32 < 16 ? 0x40 : check_rand(&s) % 3));
    for (size_t i = 0; i < n * 16; i++)
        b[i] = (uint8_t)check_rand(&s);
    alarm(600); /* a writer that waits for itself fails the test, not CI's clock */
    test_crc();
    test_fed(a, b, n);
    test_many_streams();
    test_resync(a, b, n);
    test_frames_after();
    if (argc > 1 && strcmp(argv[1], "fed") == 0) {
        free(a);
        free(b);
        return check_done("test_container fed");
    }

    /* frame boundaries: 1 entry per frame, exactly n, n-1, n+1 */
    const uint32_t frames[] = {1, 999, 1000, 4999, 5000, 5001};
    for (unsigned fi = 0; fi < sizeof frames / sizeof *frames; fi++) {
        FILE *f1 = write_container(1, frames[fi], n, a, b);
        FILE *f3 = write_container(3, frames[fi], n, a, b);
        size_t l1, l3;
        uint8_t *c1 = slurp(f1, &l1), *c3 = slurp(f3, &l3);
        CHECK(l1 == l3 && memcmp(c1, c3, l1) == 0);
        for (unsigned t = 1; t <= 2; t++) {
            collect c = {0};
            st_diag d;
            st_diag_clear(&d);
            CHECK(read_back(c1, l1, t, &c, &d) == ST_OK);
            CHECK(c.len[0] == n * 32 && memcmp(c.buf[0], a, n * 32) == 0);
            CHECK(c.len[1] == n * 16 && memcmp(c.buf[1], b, n * 16) == 0);
            collect_free(&c);
        }
        /* truncation at every 97th byte: an error; entries delivered are a prefix */
        for (size_t cut = 0; cut < l1; cut += 97 + l1 / 40) {
            collect c = {0};
            st_diag d;
            st_diag_clear(&d);
            st_error e = read_back(c1, cut, 2, &c, &d);
            CHECK(e != ST_OK);
            CHECK(c.len[0] <= n * 32 && (c.len[0] == 0 || memcmp(c.buf[0], a, c.len[0]) == 0));
            CHECK(c.len[1] <= n * 16 && (c.len[1] == 0 || memcmp(c.buf[1], b, c.len[1]) == 0));
            collect_free(&c);
        }
        /* random access: the index finds every frame; each decodes to its slice */
        {
            st_index *ix = NULL;
            st_diag d;
            st_diag_clear(&d);
            CHECK(st_index_open(&ix, fileno(f1), &d) == ST_OK);
            if (ix) {
                CHECK(st_index_stream_count(ix) == 2);
                const st_stream_info *s0 = st_index_stream(ix, 0), *s1 = st_index_stream(ix, 1);
                CHECK(s0 && strcmp(s0->name, "cpu0.read") == 0 && s0->type == ST_TYPE_D64 && s0->entries == n);
                CHECK(s1 && strcmp(s1->name, "cpu0.write") == 0 && s1->type == ST_TYPE_M32 && s1->entries == n);
                CHECK(s0 && s0->frames == (n + frames[fi] - 1) / frames[fi]);
                CHECK(st_index_stream(ix, 2) == NULL);
                CHECK(st_index_frame(ix, st_index_frame_count(ix)) == NULL); /* one past the end */
                st_buf out;
                st_buf_init(&out, 0);
                unsigned bad = 0, seen = 0;
                /* last frame first, then every frame: order must not matter */
                for (uint64_t k = st_index_frame_count(ix); k-- > 0;) {
                    const st_frame_ref *r = st_index_frame(ix, k);
                    if (r->kind != 1)
                        continue;
                    const uint8_t *src = r->stream == 0 ? a : b;
                    size_t esz = r->stream == 0 ? 32 : 16;
                    if (st_index_decode_frame(ix, k, &out, &d) != ST_OK || out.len != r->count * esz ||
                        memcmp(out.data, src + r->first_entry * esz, out.len) != 0)
                        bad++;
                    seen++;
                }
                CHECK(bad == 0);
                CHECK(seen == 2 * ((n + frames[fi] - 1) / frames[fi]));
                CHECK(st_index_decode_frame(ix, 0, &out, &d) == ST_E_RANGE); /* a descriptor */
                CHECK(st_index_decode_frame(ix, 1u << 30, &out, &d) == ST_E_RANGE);
                st_buf_free(&out);
                st_index_free(ix);
            }
            /* a cut (no footer): the complete frames are found by scanning
             * their headers, and decode to the entries packed */
            for (size_t cut = l1 - 1; cut + 200 > l1 && cut > 0; cut -= 13) {
                FILE *g = tmpfile();
                fwrite(c1, 1, cut, g);
                fflush(g);
                ix = NULL;
                CHECK(st_index_open(&ix, fileno(g), &d) == ST_OK && ix != NULL);
                if (ix) {
                    uint64_t end = 0;
                    CHECK(st_index_recovered(ix, &end, NULL) == 1 && end <= cut);
                    st_buf out;
                    st_buf_init(&out, 0);
                    for (uint64_t k = 0; k < st_index_frame_count(ix); k++) {
                        const st_frame_ref *r = st_index_frame(ix, k);
                        const uint8_t *src = r->stream == 0 ? a : b;
                        size_t esz = r->stream == 0 ? 32 : 16;
                        if (r->kind == 1)
                            CHECK(st_index_decode_frame(ix, k, &out, &d) == ST_OK &&
                                  out.len == r->count * esz &&
                                  memcmp(out.data, src + r->first_entry * esz, out.len) == 0);
                    }
                    st_buf_free(&out);
                    st_index_free(ix);
                }
                fclose(g);
            }
            /* damage to the directory behind a valid footer: open fails;
             * damage to the footer: read as a cut file */
            for (size_t pos = l1 - 100; pos < l1; pos += 7) {
                FILE *g = tmpfile();
                fwrite(c1, 1, l1, g);
                fflush(g);
                uint8_t byte = c1[pos] ^ 0x10;
                CHECK(pwrite(fileno(g), &byte, 1, (off_t)pos) == 1);
                ix = NULL;
                st_error oe = st_index_open(&ix, fileno(g), &d);
                if (pos < l1 - ST_FOOTER_SIZE)
                    CHECK(oe != ST_OK && ix == NULL);
                else
                    CHECK(oe == ST_OK && ix != NULL && st_index_recovered(ix, NULL, NULL) == 1);
                st_index_free(ix);
                fclose(g);
            }
        }
        /* data after the footer */
        uint8_t *x = malloc(l1 + 1);
        memcpy(x, c1, l1);
        x[l1] = 0;
        collect c = {0};
        st_diag d;
        CHECK(read_back(x, l1 + 1, 1, &c, &d) != ST_OK);
        collect_free(&c);
        free(x);
        free(c1);
        free(c3);
        fclose(f1);
        fclose(f3);
    }
    entry_crc_checks(a);
    entry_crc_blocks();
    /* writer rejects bad options and stream declarations */
    st_writer *w;
    st_write_opts bad = {0, 10, 0, 0};
    CHECK(st_writer_new(&w, 1, &bad) == ST_E_USAGE);
    st_write_opts ok = {1, 10, 0, 0};
    FILE *f = tmpfile();
    CHECK(st_writer_new(&w, fileno(f), &ok) == ST_OK);
    svpc_params cm = {SVPC_ENC_CM, SVPC_STAGE_LZMA, 6};
    uint32_t sid;
    CHECK(st_writer_add_stream(w, "", ST_TYPE_D64, &cm, &sid) == ST_E_USAGE);
    CHECK(st_writer_add_stream(w, "bytes", ST_TYPE_BYTES, &cm, &sid) == ST_E_USAGE);
    st_writer_free(w);
    fclose(f);
    free(a);
    free(b);
    return check_done("test_container");
}
