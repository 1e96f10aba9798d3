#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/st_io.h"
#include "frame_format.h"
#include "frame_job.h"
#include "container.h"
#include "range.h"

struct st_reader {
    int fd;            /* -1 when reading through in_fn */
    st_in_fn in_fn;
    void *in_arg;
    st_read_opts o;
    int sunk;          /* a data frame just went to the frame sink */
    st_pool pool;
    st_stream_info *s;
    unsigned ns, cap;
    uint64_t off;      /* bytes consumed */
    uint64_t nframes;  /* frames of any kind read */
    st_buf dir;        /* directory entries of the frames read, to check the directory */
    st_buf back;       /* bytes read ahead by pass_over(), served before the input's */
    size_t back_pos;
    int lost;          /* pass_over() passed over bytes: frames are missing */
    /* where st_reader_next stands (see the PH_ values) */
    int phase;
    int held;          /* the pool's head job was handed out: popped at the next call */
    uint8_t hb[ST_FRAME_HEADER_SIZE]; /* PH_CHECK on: the header read, at offset `at` */
    uint64_t at;
    st_frame_header h; /* PH_PAYLOAD on: the header checked, */
    st_stream_info *si; /* its stream (data frames), */
    st_frame_ref ref;  /* its reference (data frames), */
    int decode;        /* whether it is decoded, */
    st_buf tmp;        /* PH_UNDECODED: its payload, when not decoded, */
    int crc_bad;       /* and whether that failed its checksum */
    st_error fin;      /* PH_DRAIN, PH_DONE: how the read ends (stop_after_jobs) */
    st_diag fin_d;
    int fin_jobs;
};

/* The steps of st_reader_next: read a frame header; check it; read its
 * payload (decoded: into a job submitted to the pool); take in a payload
 * not decoded; hand out the frames still decoding, then the end; the end. */
enum { PH_HEADER, PH_CHECK, PH_PAYLOAD, PH_UNDECODED, PH_DRAIN, PH_DONE };

static void diag_at(st_diag *d, uint64_t off, uint64_t frame, uint64_t stream)
{
    if (!d)
        return;
    d->offset = off;
    d->frame = frame;
    d->stream = stream;
}

uint64_t st_frame_decode_memory(uint64_t count, uint64_t esz, uint64_t payload)
{
    return payload + 2 * count * esz + svpc_ctx_memory_max();
}

st_error st_memlimit_check(uint64_t count, uint64_t esz, uint64_t payload, uint64_t memlimit, unsigned threads,
                           st_diag *d)
{
    uint64_t need = st_frame_decode_memory(count, esz, payload), allowed = memlimit / (threads ? threads : 1);
    if (!memlimit || need <= allowed)
        return ST_OK;
    return st_diag_set(d, ST_E_MEMLIMIT, "decoding this frame (%llu entries) needs %llu MiB; the limit allows %llu "
                       "MiB%s (--memlimit)", (unsigned long long)count, (unsigned long long)(need >> 20),
                       (unsigned long long)(allowed >> 20), threads > 1 ? " per thread" : "");
}

unsigned st_memlimit_threads(unsigned threads, uint64_t memlimit)
{
    if (!memlimit)
        return threads;
    uint64_t per = st_frame_decode_memory(ST_DEFAULT_FRAME_ENTRIES, 32, ST_DEFAULT_FRAME_ENTRIES * 32u);
    uint64_t fit = memlimit / per;
    return fit >= threads ? threads : fit ? (unsigned)fit : 1;
}

/* Read n bytes, fewer only at the end of the input: first what
 * pass_over() read ahead, then the input. */
static st_error in_full(st_reader *r, uint8_t *p, size_t n, size_t *got)
{
    size_t b = r->back.len - r->back_pos < n ? r->back.len - r->back_pos : n;
    if (b) {
        memcpy(p, r->back.data + r->back_pos, b);
        r->back_pos += b;
        p += b;
        n -= b;
    }
    *got = b;
    size_t k = 0;
    if (!n)
        return ST_OK;
    if (!r->in_fn) {
        st_error e = st_read_full(r->fd, p, n, &k);
        *got += k;
        return e;
    }
    while (k < n) {
        size_t m = 0;
        RETURN_IF_ERROR(r->in_fn(r->in_arg, p + k, n - k, &m));
        if (m == 0)
            break;
        k += m;
    }
    *got += k;
    return ST_OK;
}

static st_error reader_new(st_reader **out, int fd, st_in_fn fn, void *arg, const st_read_opts *o_in, st_diag *d);

st_error st_reader_new(st_reader **out, int fd, const st_read_opts *o, st_diag *d)
{
    return reader_new(out, fd, NULL, NULL, o, d);
}

st_error st_reader_new_in(st_reader **out, st_in_fn fn, void *arg, const st_read_opts *o, st_diag *d)
{
    return reader_new(out, -1, fn, arg, o, d);
}

static st_error reader_new(st_reader **out, int fd, st_in_fn fn, void *arg, const st_read_opts *o_in, st_diag *d)
{
    st_read_opts oo = *o_in, *o = &oo;
    /* under a memory limit, fewer threads rather than refusing ordinary frames */
    if (o->threads >= 1)
        o->threads = st_memlimit_threads(o->threads, o->memlimit);
    *out = NULL;
    if (o->threads < 1 || o->threads > ST_MAX_THREADS)
        return ST_E_USAGE;
    st_reader *r = calloc(1, sizeof *r);
    if (!r)
        return ST_E_NOMEM;
    r->fd = fd;
    r->in_fn = fn;
    r->in_arg = arg;
    r->o = *o;
    st_buf_init(&r->dir, 0);
    st_buf_init(&r->back, 0);
    st_buf_init(&r->tmp, 0);
    uint8_t h[ST_FILE_HEADER_SIZE];
    size_t got;
    st_error e = in_full(r, h, sizeof h, &got);
    if (e == ST_OK && got < sizeof h) {
        /* a short input that is no container says so (the magic, at
         * offset 0); one that could be is cut off */
        diag_at(d, 0, ST_DIAG_UNKNOWN, ST_DIAG_UNKNOWN);
        e = st_magic_check(h, got, d);
        if (e == ST_OK) {
            diag_at(d, got, ST_DIAG_UNKNOWN, ST_DIAG_UNKNOWN);
            e = got == 0 ? st_diag_set(d, ST_E_TRUNCATED, "empty input, no file header")
                         : st_diag_set(d, ST_E_TRUNCATED, "file header cut off after %zu of %u bytes", got,
                                       ST_FILE_HEADER_SIZE);
        }
    }
    if (e == ST_OK) {
        diag_at(d, 0, ST_DIAG_UNKNOWN, ST_DIAG_UNKNOWN);
        e = st_file_header_parse(h, d);
    }
    r->off = sizeof h;
    /* one slot per worker: payloads are small, so reading the next one while
     * a slot is delivered costs little; each slot holds a frame of output */
    if (e == ST_OK)
        e = st_pool_init(&r->pool, &st_frame_jobs, o->threads, o->threads);
    if (e != ST_OK) {
        st_reader_free(r);
        return e;
    }
    *out = r;
    return ST_OK;
}

static st_stream_info *find_stream(st_reader *r, uint32_t id)
{
    for (unsigned i = 0; i < r->ns; i++)
        if (r->s[i].id == id)
            return &r->s[i];
    return NULL;
}

/* A stream descriptor frame: register the stream. */
static st_error add_stream(st_reader *r, const st_frame_header *h, const uint8_t *p, size_t len, st_diag *d)
{
    if (find_stream(r, h->stream))
        return st_diag_set(d, ST_E_BAD_STREAM, "stream %u declared twice", h->stream);
    st_stream_info si;
    RETURN_IF_ERROR(st_stream_desc_parse(h, p, len, &si, d));
    if (r->ns == r->cap) {
        unsigned nc = r->cap ? r->cap * 2 : 4;
        st_stream_info *ns = realloc(r->s, nc * sizeof *ns);
        if (!ns)
            return ST_E_NOMEM;
        r->s = ns;
        r->cap = nc;
    }
    r->s[r->ns++] = si;
    return r->o.on_stream ? r->o.on_stream(r->o.stream_arg, &r->s[r->ns - 1]) : ST_OK;
}

/* ---- a salvage past damaged frame headers (st_read_opts.resync) ---- */

/* Bytes read at a time while looking for the next frame header. */
#define RESYNC_CHUNK ((size_t)1 << 16)

/* Whether error e of the frame at the reader's position is passed over
 * (resync) instead of ending the read: damage, not a cut-off input, a
 * failed read or a memory limit. */
static int passes_over(const st_reader *r, st_error e)
{
    return r->o.resync && r->o.on_damage && st_error_is_data(e) && e != ST_E_TRUNCATED && e != ST_E_MEMLIMIT;
}

/* After bytes were passed over: stream si's frame `seq`, from entry
 * `first`, comes (first_entry of its next frame, or the end the directory
 * gives it); the entries and frames before it that were not read were in
 * those bytes.  Reports them, and counts them as passed. */
static st_error report_gap(st_reader *r, st_stream_info *si, uint64_t seq, uint64_t first, uint64_t at, st_diag *d)
{
    if (seq <= si->frames || first <= si->entries)
        return ST_OK;
    st_frame_ref g;
    memset(&g, 0, sizeof g);
    g.offset = at;
    g.ordinal = ST_DIAG_UNKNOWN;
    g.stream = si->id;
    g.kind = ST_FRAME_REF_DATA;
    g.seq = seq - si->frames;
    g.first_entry = si->entries;
    g.count = first - si->entries;
    si->frames = seq;
    si->entries = first;
    r->nframes += g.seq; /* the ordinals of the frames after them */
    st_diag gd;
    st_diag_clear(&gd);
    diag_at(&gd, at, ST_DIAG_UNKNOWN, si->id);
    st_diag_set(&gd, ST_E_CORRUPT, "%llu frame%s of stream '%s' (entries %llu..%llu) lay in the bytes passed over",
                (unsigned long long)g.seq, g.seq == 1 ? "" : "s", si->name, (unsigned long long)g.first_entry,
                (unsigned long long)(first - 1));
    (void)d;
    return r->o.on_damage(r->o.damage_arg, si, &g, ST_E_CORRUPT, &gd);
}

/* After bytes were passed over, the directory (dir, dlen bytes, sound:
 * its payload's checksum held) lists every frame: each stream's frames
 * after the last one read lay in those bytes too. */
static st_error report_tails(st_reader *r, const uint8_t *dir, uint64_t dlen, uint64_t dir_off, st_diag *d)
{
    if (dlen % ST_DIR_ENTRY_SIZE)
        return st_diag_set(d, ST_E_BAD_DIRECTORY, "directory of %llu bytes, not whole entries", (unsigned long long)dlen);
    uint64_t *end = calloc(r->ns ? r->ns : 1, 2 * sizeof *end); /* [stream][frames, entries] */
    if (!end)
        return ST_E_NOMEM;
    for (uint64_t k = 0; k < dlen / ST_DIR_ENTRY_SIZE; k++) {
        st_dir_entry de;
        st_dir_entry_parse(dir + k * ST_DIR_ENTRY_SIZE, &de);
        if (de.h.kind != ST_KIND_DATA)
            continue;
        for (unsigned i = 0; i < r->ns; i++)
            if (r->s[i].id == de.h.stream && de.h.seq + 1 > end[2 * i]) {
                end[2 * i] = de.h.seq + 1;
                end[2 * i + 1] = de.h.first_entry + de.h.count;
            }
    }
    st_error e = ST_OK;
    for (unsigned i = 0; i < r->ns && e == ST_OK; i++)
        e = report_gap(r, &r->s[i], end[2 * i], end[2 * i + 1], dir_off, d);
    free(end);
    /* and the frames of streams whose declarations lay there: all lost */
    st_frame_ref g;
    memset(&g, 0, sizeof g);
    g.offset = dir_off;
    g.ordinal = ST_DIAG_UNKNOWN;
    g.kind = ST_FRAME_REF_DATA;
    for (uint64_t k = 0; k < dlen / ST_DIR_ENTRY_SIZE; k++) {
        st_dir_entry de;
        st_dir_entry_parse(dir + k * ST_DIR_ENTRY_SIZE, &de);
        if (de.h.kind == ST_KIND_DATA && !find_stream(r, de.h.stream)) {
            g.seq++;
            g.count += de.h.count;
        }
    }
    if (e == ST_OK && g.seq) {
        st_diag gd;
        st_diag_clear(&gd);
        diag_at(&gd, dir_off, ST_DIAG_UNKNOWN, ST_DIAG_UNKNOWN);
        st_diag_set(&gd, ST_E_BAD_STREAM, "%llu frames (%llu entries) of streams whose declarations were passed over",
                    (unsigned long long)g.seq, (unsigned long long)g.count);
        e = r->o.on_damage(r->o.damage_arg, NULL, &g, ST_E_BAD_STREAM, &gd);
    }
    return e;
}

/* The directory frame: it must list exactly the frames read, then the footer
 * must point at it and end the file. */
static st_error check_directory(st_reader *r, const st_frame_header *h, uint64_t dir_off, const uint8_t *p,
                                size_t len, st_diag *d)
{
    size_t pos = 0;
    unsigned idx = 0;
    uint32_t key, flags;
    const uint8_t *val, *dir = NULL;
    uint64_t vlen, dlen = 0;
    int rr;
    while ((rr = st_attr_next(p, len, &pos, &idx, &key, &flags, &val, &vlen, d)) == 1) {
        if (key == ST_ATTR_DIRECTORY) {
            if (dir)
                return st_diag_set(d, ST_E_BAD_DIRECTORY, "two directory attributes");
            dir = val;
            dlen = vlen;
        } else if (flags & ST_ATTR_CRITICAL) {
            return st_diag_set(d, ST_E_UNSUPPORTED, "directory: unknown critical attribute %u", key);
        }
    }
    if (rr < 0)
        return ST_E_BAD_ATTR;
    if (idx != h->nattrs)
        return st_diag_set(d, ST_E_BAD_ATTR, "header says %u attributes, payload holds %u", h->nattrs, idx);
    if (!dir)
        return st_diag_set(d, ST_E_BAD_DIRECTORY, "directory frame without a directory attribute");
    if (r->lost)
        RETURN_IF_ERROR(report_tails(r, dir, dlen, dir_off, d));
    else if (dlen != r->dir.len || (dlen && memcmp(dir, r->dir.data, r->dir.len) != 0))
        return st_diag_set(d, ST_E_BAD_DIRECTORY, "directory does not match the %llu frames in the file",
                           (unsigned long long)r->nframes);
    uint8_t fb[ST_FOOTER_SIZE + 1];
    size_t got;
    RETURN_IF_ERROR(in_full(r, fb, sizeof fb, &got));
    uint64_t foot_off = dir_off + ST_FRAME_HEADER_SIZE + len;
    diag_at(d, foot_off, ST_DIAG_UNKNOWN, ST_DIAG_UNKNOWN);
    if (got < ST_FOOTER_SIZE)
        return st_diag_set(d, ST_E_TRUNCATED, "footer cut off after %zu of %u bytes", got, ST_FOOTER_SIZE);
    if (got > ST_FOOTER_SIZE) {
        diag_at(d, foot_off + ST_FOOTER_SIZE, ST_DIAG_UNKNOWN, ST_DIAG_UNKNOWN); /* where the extra bytes start */
        return st_diag_set(d, ST_E_CORRUPT, "data after the footer");
    }
    st_footer f;
    RETURN_IF_ERROR(st_footer_parse(fb, &f, d));
    if (f.dir_offset != dir_off || f.dir_size != ST_FRAME_HEADER_SIZE + len ||
        f.nframes != (r->lost ? dlen / ST_DIR_ENTRY_SIZE : r->nframes))
        return st_diag_set(d, ST_E_BAD_FOOTER, "footer does not point at the directory");
    r->off = foot_off + ST_FOOTER_SIZE;
    return ST_OK;
}

/* Hand out finished decode jobs in order: all of them, or (all 0) until a
 * slot is free.  A sound frame's entries go to *out (the job stays at the
 * pool's head until the next call of st_reader_next); a damaged one goes
 * to on_damage, or ends the read with its error (d, if not NULL, says
 * what and where). */
static st_error take(st_reader *r, int all, st_frame_out *out, st_diag *d)
{
    st_job *j;
    while ((all || !st_pool_slot(&r->pool)) && (j = st_pool_head(&r->pool)) != NULL) {
        st_error e = j->err;
        if (e != ST_OK && r->o.on_damage && st_error_is_data(e)) {
            st_diag jd = j->diag;
            st_diag_frame(&jd, j->offset, j->ordinal, j->h.kind, j->h.stream, j->h.seq);
            st_frame_ref ref;
            st_frame_ref_set(&ref, &j->h, j->offset, ST_FRAME_HEADER_SIZE + j->h.payload_size, j->ordinal);
            e = r->o.on_damage(r->o.damage_arg, find_stream(r, j->h.stream), &ref, e, &jd);
        } else if (e != ST_OK) {
            if (d) {
                *d = j->diag;
                st_diag_frame(d, j->offset, j->ordinal, j->h.kind, j->h.stream, j->h.seq);
            }
        } else if (!r->o.verify_only) {
            out->s = find_stream(r, j->h.stream);
            out->first = j->h.first_entry;
            out->seq = j->h.seq;
            out->offset = j->offset;
            out->entries = j->out.data;
            out->n = j->n;
            r->held = 1;
            return ST_OK;
        }
        st_pool_pop(&r->pool);
        if (e != ST_OK)
            return e;
    }
    return ST_OK;
}

/* The read ends with e (ST_OK: the directory and footer were sound) and
 * fd, once the frames still being decoded are handed out.  jobs: an error
 * of one of them ends the read instead, with its own diag; else the first
 * such error stops the handing out, and e is the result all the same. */
static st_error stop_after_jobs(st_reader *r, st_error e, const st_diag *fd, int jobs)
{
    r->phase = PH_DRAIN;
    r->fin = e;
    r->fin_jobs = jobs;
    if (fd)
        r->fin_d = *fd;
    else
        st_diag_clear(&r->fin_d);
    return ST_OK;
}

/* The read ends with e now: frames still being decoded are not handed out. */
static st_error stop_now(st_reader *r, st_error e, const st_diag *d)
{
    stop_after_jobs(r, e, d, 0);
    r->phase = PH_DONE;
    return e;
}

/* PH_DRAIN and PH_DONE: the frames left, then the end (sticky). */
static st_error drain(st_reader *r, st_frame_out *out, st_diag *d)
{
    if (r->phase == PH_DRAIN) {
        st_error e = take(r, 1, out, r->fin_jobs ? d : NULL);
        if (e == ST_OK && out->s)
            return ST_OK;
        r->phase = PH_DONE;
        if (e != ST_OK && r->fin_jobs) {
            r->fin = e;
            if (d)
                r->fin_d = *d;
        }
    }
    if (d && r->fin != ST_OK)
        *d = r->fin_d;
    return r->fin;
}

/* The frame at `at` (its header, hb, read) is damaged (e, d), and the
 * frames before it are handed out: find the next offset after it at which
 * a frame header is sound (its magic and checksum), leave the bytes from
 * there to be read again (r->back), and report the bytes passed over to
 * on_damage.  With no header after it, the rest of the input is passed
 * over, and the read then stops at its end, cut off. */
static st_error pass_over(st_reader *r, uint64_t at, const uint8_t *hb, st_error e, st_diag *d)
{
    st_diag dd = *d;
    /* win holds the bytes from offset base on: the last header's after its
     * first byte, then what the input has beyond */
    st_buf win;
    st_buf_init(&win, 0);
    RETURN_IF_ERROR(st_buf_reserve(&win, RESYNC_CHUNK + ST_FRAME_HEADER_SIZE));
    memcpy(win.data, hb + 1, ST_FRAME_HEADER_SIZE - 1);
    win.len = ST_FRAME_HEADER_SIZE - 1;
    uint64_t base = at + 1;
    size_t found = SIZE_MAX;
    st_error re = ST_OK;
    for (;;) {
        size_t got;
        re = in_full(r, win.data + win.len, win.cap - win.len, &got);
        win.len += got;
        if (re != ST_OK)
            break;
        st_frame_header h;
        found = st_frame_header_find(win.data, 0, win.len, &h);
        if (found != SIZE_MAX || got == 0)
            break;
        /* a header may straddle the next read: keep its first bytes */
        size_t keep = ST_FRAME_HEADER_SIZE - 1 < win.len ? ST_FRAME_HEADER_SIZE - 1 : win.len;
        memmove(win.data, win.data + win.len - keep, keep);
        base += win.len - keep;
        win.len = keep;
    }
    if (re != ST_OK) {
        st_buf_free(&win);
        diag_at(d, base + win.len, r->nframes, ST_DIAG_UNKNOWN);
        return st_diag_set(d, re, "cannot read past a damaged frame");
    }
    /* what follows the header found is read again, before anything still
     * left of an earlier read-ahead; without a header, nothing */
    size_t from = found != SIZE_MAX ? found : win.len;
    if (r->back_pos < r->back.len) {
        re = st_buf_append(&win, r->back.data + r->back_pos, r->back.len - r->back_pos);
        if (re != ST_OK) {
            st_buf_free(&win);
            return re;
        }
    }
    st_buf_free(&r->back);
    r->back = win;
    r->back_pos = from;
    r->off = base + from;
    r->lost = 1;
    st_frame_ref g;
    memset(&g, 0, sizeof g);
    g.offset = at;
    g.size = r->off - at;
    g.ordinal = ST_DIAG_UNKNOWN;
    return r->o.on_damage(r->o.damage_arg, NULL, &g, e, &dd);
}

/* The frame whose header r->hb holds is damaged (e, d): with resync, the
 * frames before it are handed out first (out), then it is passed over;
 * else the read ends with e after them. */
static st_error damaged_header(st_reader *r, st_error e, st_frame_out *out, st_diag *d)
{
    if (!passes_over(r, e))
        return stop_after_jobs(r, e, d, 0);
    st_error te = take(r, 1, out, d);
    if (te != ST_OK)
        return stop_now(r, te, d);
    if (out->s)
        return ST_OK; /* this frame is checked again at the next call */
    te = pass_over(r, r->at, r->hb, e, d);
    if (te != ST_OK)
        return stop_now(r, te, d);
    r->phase = PH_HEADER;
    return ST_OK;
}

/* PH_HEADER: read the next frame header. */
static st_error read_header(st_reader *r, st_diag *d)
{
    size_t got;
    uint64_t at = r->off;
    st_error e = in_full(r, r->hb, sizeof r->hb, &got);
    if (e != ST_OK) {
        diag_at(d, at, r->nframes, ST_DIAG_UNKNOWN);
        st_diag_set(d, e, "cannot read frame header");
        return stop_after_jobs(r, e, d, 0);
    }
    if (got < sizeof r->hb) {
        /* what is complete is handed out before the truncation is reported */
        st_diag fd;
        if (d)
            fd = *d;
        else
            st_diag_clear(&fd);
        diag_at(&fd, at + got, r->nframes, ST_DIAG_UNKNOWN);
        if (got == 0)
            e = st_diag_set(&fd, ST_E_TRUNCATED, "file ends after frame %llu without directory and footer (not "
                            "finished?)", (unsigned long long)(r->nframes ? r->nframes - 1 : 0));
        else
            e = st_diag_set(&fd, ST_E_TRUNCATED, "frame header cut off after %zu of %u bytes", got,
                            ST_FRAME_HEADER_SIZE);
        return stop_after_jobs(r, e, &fd, 1);
    }
    r->at = at;
    r->phase = PH_CHECK;
    return ST_OK;
}

/* PH_CHECK: check the header read against the container; nothing it does
 * before a damaged header is handed to damaged_header() has effects, so it
 * runs again after the frames before that one are handed out. */
static st_error check_header(st_reader *r, st_frame_out *out, st_diag *d)
{
    uint64_t at = r->at;
    st_frame_header h;
    diag_at(d, at, r->nframes, ST_DIAG_UNKNOWN);
    st_error e = st_frame_header_parse(r->hb, &h, d);
    if (e != ST_OK)
        return damaged_header(r, e, out, d);
    st_diag_frame(d, at, r->nframes, h.kind, h.stream, h.seq);
    st_stream_info *si = NULL;
    int gap = 0; /* of si's frames, some lay in bytes passed over */
    size_t limit = ST_MAX_PAYLOAD;
    if (h.kind == ST_KIND_DATA) {
        si = find_stream(r, h.stream);
        st_frame_ref hr;
        st_frame_ref_set(&hr, &h, at, ST_FRAME_HEADER_SIZE + h.payload_size, r->nframes);
        /* after bytes were passed over, a stream's frames may resume
         * later: checked as if the gap were passed, which is reported
         * once the frame has passed every check */
        st_stream_info ahead;
        gap = r->lost && si && h.seq > si->frames && h.first_entry > si->entries;
        if (gap) {
            ahead = *si;
            ahead.frames = h.seq;
            ahead.entries = h.first_entry;
        }
        e = st_data_frame_check(&hr, gap ? &ahead : si, ST_E_CORRUPT, "", d);
        /* encoders never store more than the raw entries plus overhead */
        limit = (size_t)st_data_payload_max(h.count, si ? si->entry_size : 1);
        if (e == ST_OK && si)
            e = st_memlimit_check(h.count, si->entry_size, h.payload_size, r->o.memlimit, r->o.threads, d);
    } else if (h.kind == ST_KIND_STREAM) {
        limit = ST_MAX_DESC_PAYLOAD;
    } else {
        /* after bytes were passed over, the frames read are not all:
         * a frame takes a header at least */
        limit = (size_t)st_dir_payload_max(r->lost ? r->off / ST_FRAME_HEADER_SIZE : r->nframes);
    }
    if (e == ST_OK && h.payload_size > limit)
        e = st_diag_set(d, ST_E_TOO_LARGE, "payload of %llu bytes, at most %zu possible for this frame",
                        (unsigned long long)h.payload_size, limit);
    /* (a user type reaches the codec as bytes: at most
     * SVPC_MAX_FRAME_ENTRIES of them per frame) */
    if (e == ST_OK && h.kind == ST_KIND_DATA && si->type == ST_TYPE_USER &&
        h.count > SVPC_MAX_FRAME_ENTRIES / si->entry_size)
        e = st_diag_set(d, ST_E_CORRUPT, "%llu entries of %u bytes exceed the frame limit of %u bytes",
                        (unsigned long long)h.count, si->entry_size, SVPC_MAX_FRAME_ENTRIES);
    if (e != ST_OK)
        return damaged_header(r, e, out, d);
    if (gap) {
        e = report_gap(r, si, h.seq, h.first_entry, at, d);
        if (e != ST_OK)
            return stop_now(r, e, d);
    }
    r->h = h;
    r->si = si;
    if (h.kind == ST_KIND_DATA)
        st_frame_ref_set(&r->ref, &h, at, ST_FRAME_HEADER_SIZE + h.payload_size, r->nframes);
    /* frames not wanted, and undecoded frames for a frame sink, are read
     * into a buffer of the reader's: only their checksum is checked */
    r->decode = h.kind == ST_KIND_DATA && !r->o.frame_sink && (!r->o.want || r->o.want(r->o.want_arg, si, &r->ref));
    r->phase = PH_PAYLOAD;
    return ST_OK;
}

/* The frame r->h at r->at has passed every check (and its payload's, if
 * read): count it, and submit its decode job j if any. */
static st_error count_frame(st_reader *r, st_job *j)
{
    const st_frame_header *h = &r->h;
    st_dir_entry de = {r->at, ST_FRAME_HEADER_SIZE + h->payload_size, *h};
    uint8_t deb[ST_DIR_ENTRY_SIZE];
    st_dir_entry_write(&de, deb);
    RETURN_IF_ERROR(st_buf_append(&r->dir, deb, sizeof deb));
    r->off = r->at + ST_FRAME_HEADER_SIZE + h->payload_size;
    r->nframes++;
    if (h->kind == ST_KIND_DATA) {
        r->si->frames++;
        r->si->entries += h->count;
    }
    if (j) {
        j->op = JOB_DECODE;
        j->type = r->si->type;
        j->esz = r->si->entry_size;
        j->n = (size_t)h->count;
        j->stop = 0;
        j->from = 0;
        j->h = *h;
        j->offset = r->at;
        j->ordinal = r->nframes - 1;
        j->verify_only = r->o.verify_only;
        j->ignore_check = r->o.ignore_check;
        st_pool_submit(&r->pool);
    }
    r->phase = PH_HEADER;
    return ST_OK;
}

/* PH_PAYLOAD: read the payload of the frame checked, into a free job slot
 * (once the frames before it free one) if it is decoded, else into r->tmp;
 * then PH_UNDECODED for the latter. */
static st_error read_payload(st_reader *r, st_frame_out *out, st_diag *d)
{
    st_job *j = NULL;
    if (r->decode) {
        st_error e = take(r, 0, out, d);
        if (e != ST_OK)
            return stop_now(r, e, d);
        if (out->s)
            return ST_OK;
        j = st_pool_slot(&r->pool);
    }
    const st_frame_header *h = &r->h;
    st_buf *pb = j ? &j->in : &r->tmp;
    size_t got = 0;
    pb->len = 0;
    st_error e = st_buf_reserve(pb, h->payload_size ? (size_t)h->payload_size : 1);
    if (e == ST_OK)
        e = in_full(r, pb->data, (size_t)h->payload_size, &got);
    if (e == ST_OK && got < h->payload_size) {
        st_diag_frame(d, r->at + ST_FRAME_HEADER_SIZE + got, r->nframes, h->kind, h->stream, h->seq);
        e = st_diag_set(d, ST_E_TRUNCATED, "payload cut off after %zu of %llu bytes", got,
                        (unsigned long long)h->payload_size);
    }
    pb->len = (size_t)h->payload_size;
    if (e != ST_OK)
        return stop_after_jobs(r, e, d, 0);
    if (j)
        return count_frame(r, j);
    r->crc_bad = !st_crc_ok(h->payload_crc, pb->data, pb->len);
    r->phase = PH_UNDECODED;
    return ST_OK;
}

/* PH_UNDECODED: the payload of a frame that is not decoded is in r->tmp:
 * a damaged data frame's goes to on_damage, a data frame's to the frame
 * sink, a descriptor's and the directory's are taken in; each after the
 * frames before it are handed out where the order matters. */
static st_error take_undecoded(st_reader *r, st_frame_out *out, st_diag *d)
{
    const st_frame_header *h = &r->h;
    st_buf *pb = &r->tmp;
    st_error e = ST_OK;
    if (r->crc_bad) {
        e = st_diag_set(d, ST_E_PAYLOAD_CRC, "payload checksum mismatch");
        if (h->kind != ST_KIND_DATA || !r->o.on_damage)
            return stop_after_jobs(r, e, d, 0);
        e = take(r, 1, out, d);
        if (e == ST_OK && out->s)
            return ST_OK;
        if (e == ST_OK)
            e = r->o.on_damage(r->o.damage_arg, r->si, &r->ref, ST_E_PAYLOAD_CRC, d);
        if (e != ST_OK)
            return stop_after_jobs(r, e, d, 0);
        r->crc_bad = 0;
        pb->len = 0; /* nothing of it goes to a frame sink */
        if (r->o.frame_sink) {
            e = count_frame(r, NULL);
            return e == ST_OK ? e : stop_now(r, e, d);
        }
    }
    if (h->kind == ST_KIND_DATA && r->o.frame_sink) {
        /* entries of earlier frames go first, then this frame, whose
         * attribute list must be sound even though it is not decoded */
        e = take(r, 1, out, d);
        if (e == ST_OK && out->s)
            return ST_OK;
        st_data_view dv;
        if (e == ST_OK)
            e = st_data_attrs(pb->data, pb->len, h->nattrs, h->count, &dv, d);
        st_raw_frame rf = {pb->data, pb->len};
        if (e == ST_OK) {
            e = r->o.frame_sink(r->o.frame_arg, r->si, &r->ref, &rf);
            r->sunk = e == ST_OK;
            /* a sink that decodes the frame (--concat of a vblock
             * stream) says what is wrong with it, not where */
            if (e != ST_OK && st_error_is_data(e) && d && d->offset == ST_DIAG_UNKNOWN)
                st_diag_frame(d, r->at, r->nframes, h->kind, h->stream, h->seq);
        }
    }
    if (e == ST_OK && h->kind == ST_KIND_STREAM)
        e = add_stream(r, h, pb->data, pb->len, d);
    if (e == ST_OK && h->kind == ST_KIND_DIRECTORY) {
        e = take(r, 1, out, d);
        if (e == ST_OK && out->s)
            return ST_OK;
        if (e == ST_OK)
            e = check_directory(r, h, r->at, pb->data, pb->len, d);
        return stop_now(r, e, d);
    }
    if (e != ST_OK)
        return stop_after_jobs(r, e, d, 0);
    e = count_frame(r, NULL);
    return e == ST_OK ? e : stop_now(r, e, d);
}

st_error st_reader_next(st_reader *r, st_frame_out *out, st_diag *d)
{
    memset(out, 0, sizeof *out);
    if (r->held) {
        st_pool_pop(&r->pool);
        r->held = 0;
    }
    for (;;) {
        st_error e;
        switch (r->phase) {
        case PH_HEADER:
            e = read_header(r, d);
            break;
        case PH_CHECK:
            e = check_header(r, out, d);
            break;
        case PH_PAYLOAD:
            e = read_payload(r, out, d);
            break;
        case PH_UNDECODED:
            e = take_undecoded(r, out, d);
            break;
        default:
            return drain(r, out, d);
        }
        if (e != ST_OK || out->s)
            return e;
        if (r->sunk) {
            r->sunk = 0;
            out->sunk = 1;
            return ST_OK;
        }
    }
}

st_error st_reader_read_all(st_reader *r, st_sink sink, void *arg, st_diag *d)
{
    for (;;) {
        st_frame_out f;
        st_error e = st_reader_next(r, &f, d);
        if (e == ST_OK && f.sunk)
            continue;
        if (e != ST_OK || !f.s)
            return e;
        e = sink ? sink(arg, f.s, f.first, f.entries, f.n) : ST_OK;
        if (e == ST_OK)
            continue;
        /* a read that already ends with its own error keeps it */
        if (r->phase == PH_DRAIN && !r->fin_jobs) {
            r->phase = PH_DONE;
            return drain(r, &f, d);
        }
        return e;
    }
}

st_error st_raw_frame_decode(const st_stream_info *s, const st_frame_ref *f, const st_raw_frame *raw, st_buf *out,
                             st_diag *d)
{
    svpc_ctx *ctx;
    RETURN_IF_ERROR(svpc_ctx_new(&ctx));
    st_frame_header h;
    st_frame_header_of(&h, f);
    h.payload_size = raw->payload_size;
    st_buf in;
    st_buf_init(&in, 0);
    st_error e = st_buf_append(&in, raw->payload, raw->payload_size);
    if (e == ST_OK)
        e = st_decode_frame_now(ctx, &h, s->type, s->entry_size, &in, out, d);
    st_buf_free(&in);
    svpc_ctx_free(ctx);
    return e;
}

int st_raw_frame_byte0(const st_frame_ref *f, const st_raw_frame *raw)
{
    st_data_view v;
    st_diag d;
    memset(&d, 0, sizeof d);
    if (st_data_attrs(raw->payload, raw->payload_size, f->nattrs, f->count, &v, &d) != ST_OK || v.dlen == 0)
        return -1;
    return v.data[0];
}

static const st_stream_info *reader_get(const void *r, unsigned i) { return st_reader_stream(r, i); }

int st_seq_pick_frame(st_seq_pick *p, const st_reader *r, const st_stream_info *s, int *dropped)
{
    *dropped = 0;
    if (!p->chosen) {
        int i = -1;
        if (p->name) {
            for (unsigned k = 0; k < r->ns && i < 0; k++)
                if (strcmp(r->s[k].name, p->name) == 0)
                    i = (int)k;
        } else if (p->types) {
            for (unsigned k = 0; k < r->ns && i < 0; k++)
                if (r->s[k].type < 32 && (p->types >> r->s[k].type & 1u))
                    i = (int)k;
        } else {
            /* later declarations are not known yet: only a memory stream
             * is the default for sure */
            i = st_default_stream(r->ns, reader_get, r);
            if (i >= 0 && !st_entry_is_memory(r->s[i].type))
                i = -1;
        }
        if (i >= 0) {
            p->chosen = 1;
            p->id = r->s[i].id;
            *dropped = p->held;
            p->held = 0;
        }
    }
    if (p->chosen)
        return s->id == p->id ? ST_PICK_READ : ST_PICK_SKIP;
    if (!p->name && !p->types && r->ns && s->id == r->s[0].id) {
        p->held = 1;
        p->hid = s->id;
        return ST_PICK_HOLD;
    }
    return ST_PICK_SKIP;
}

int st_seq_pick_end(st_seq_pick *p)
{
    if (p->chosen || !p->held)
        return 0;
    p->chosen = 1;
    p->id = p->hid;
    p->held = 0;
    return 1;
}

unsigned st_reader_stream_count(const st_reader *r) { return r->ns; }
const st_stream_info *st_reader_stream(const st_reader *r, unsigned i) { return i < r->ns ? &r->s[i] : NULL; }
uint64_t st_reader_offset(const st_reader *r) { return r->off; }

void st_reader_set_frame_sink(st_reader *r, st_frame_sink sink, void *arg)
{
    r->o.frame_sink = sink;
    r->o.frame_arg = arg;
}

void st_reader_free(st_reader *r)
{
    if (!r)
        return;
    st_pool_destroy(&r->pool);
    free(r->s);
    st_buf_free(&r->dir);
    st_buf_free(&r->back);
    st_buf_free(&r->tmp);
    free(r);
}
