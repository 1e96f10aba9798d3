#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/st_io.h"
#include "frame_format.h"
#include "frame_job.h"
#include "container.h"

typedef struct {
    uint32_t id; /* stream id in the file; the API's sid is the index in st_writer.s */
    char name[ST_MAX_NAME + 1];
    st_entry_type type;
    size_t esz;
    size_t frame_entries; /* entries per frame for this stream */
    svpc_params params;
    st_buf fill;       /* entries of the frame being filled, unless fed */
    size_t hold;       /* bytes the fill counts as holding (fill_room) */
    size_t fill_n;     /* entries in the frame being filled */
    st_job *fed;       /* the job the frame being filled is fed to, or NULL */
    size_t published;  /* of those, the entries the job may read */
    uint64_t seq;      /* next data frame's sequence number */
    uint64_t next_entry;
    uint64_t t_first;  /* wall time of the fill's first entry */
    uint64_t last_key; /* key of the last entry appended (check_keys) */
    int have_key;
} w_stream;

struct st_writer {
    int fd;            /* -1 when writing through out_fn */
    st_out_fn out_fn;  /* where the bytes go */
    void *out_arg;
    st_write_opts o;
    st_pool pool;
    w_stream *s;
    unsigned ns, cap;
    uint64_t off;      /* bytes written */
    st_buf dir;        /* directory entries, ST_DIR_ENTRY_SIZE each */
    uint64_t nframes;  /* frames of any kind written */
    st_write_stats st;
    uint32_t next_id;  /* id of the next new stream */
    st_error failed;   /* sticky: after a failure nothing more is written */
    int no_feed;       /* frames are no longer fed (a second stream came) */
    size_t held;       /* the sum of the streams' hold */
    size_t frame_max;  /* bytes of the largest frame of a stream */
    unsigned frame_bufs; /* frame buffers made for a writer's only stream (frame_buffer) */
    st_diag diag;      /* of the last ST_E_CYCLE_ORDER */
    /* st_writer_resume: the file's end as it was (st_writer_restore) */
    int resumed, finished;
    uint64_t resume_at; /* where the new frames began */
    uint64_t resume_frames; /* frames listed when resumed (st_writer_end_written keeps them) */
    st_buf old_end;     /* the bytes from there to the old end of file */
};

const st_diag *st_writer_diag(const st_writer *w) { return &w->diag; }

/* Whether the keys of stream s are checked (st_write_opts.check_keys). */
static int checks_keys(const st_writer *w, const w_stream *s)
{
    return w->o.check_keys && st_entry_has_key(s->type);
}

/* Of the n entries at p of stream s, the number before the first whose key
 * is below its predecessor's (n if none); the keys accepted become the
 * stream's last. */
static size_t keys_in_order(w_stream *s, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t k = st_load64(p + i * s->esz) & ST_CYCLE_MASK;
        if (s->have_key && k < s->last_key)
            return i;
        s->last_key = k;
        s->have_key = 1;
    }
    return n;
}

/* Refuse entry `entry` of stream s, whose key is `key`. */
static st_error key_break(st_writer *w, const w_stream *s, uint64_t entry, uint64_t key)
{
    st_diag_clear(&w->diag);
    w->diag.stream = s->id;
    return st_diag_set(&w->diag, ST_E_CYCLE_ORDER,
                       "stream '%s': entry %llu has cycle %llu, below cycle %llu of the entry before it", s->name,
                       (unsigned long long)entry, (unsigned long long)key, (unsigned long long)s->last_key);
}

static uint64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The default output: the descriptor. */
static st_error out_fd(void *arg, const uint8_t *p, size_t n)
{
    const st_writer *w = arg;
    return st_write_all(w->fd, p, n);
}

/* Write one finished frame and record it in the directory. */
static st_error emit(st_writer *w, st_job *j)
{
    uint8_t hb[ST_FRAME_HEADER_SIZE], de[ST_DIR_ENTRY_SIZE];
    /* the directory is one frame payload: keep it within what readers
     * accept, and refuse before the frame is written, not after */
    if (w->dir.len + sizeof de + ST_ATTR_HEADER_SIZE > ST_MAX_PAYLOAD)
        return ST_E_TOO_LARGE;
    st_frame_header_write(&j->h, hb);
    RETURN_IF_ERROR(w->out_fn(w->out_arg, hb, sizeof hb));
    RETURN_IF_ERROR(w->out_fn(w->out_arg, j->out.data, j->out.len));
    st_dir_entry e = {w->off, ST_FRAME_HEADER_SIZE + j->out.len, j->h};
    st_dir_entry_write(&e, de);
    RETURN_IF_ERROR(st_buf_append(&w->dir, de, sizeof de));
    w->off += e.size;
    w->nframes++;
    if (j->h.kind == ST_KIND_DATA) {
        w->st.frames++;
        w->st.entries_written += j->h.count;
    }
    w->st.out_bytes = w->off;
    return ST_OK;
}

/* Frames in the workers' hands at most: a writer of several streams
 * keeps one per worker, as its fills hold frames of their own (one more
 * took up to 33 MB more at -T2 with two streams); a writer's only stream's
 * frame buffers are counted instead (frame_buffer). */
static unsigned depth(const st_writer *w) { return w->ns > 1 ? w->o.threads : w->pool.q; }

/* Write finished frames from the head; wait for them only when `all` or
 * when no more may be handed out. */
static st_error drain(st_writer *w, int all)
{
    st_job *j;
    while ((all || st_pool_pending(&w->pool) >= depth(w)) && (j = st_pool_head(&w->pool)) != NULL) {
        st_error e = j->discard ? ST_OK : j->err;
        if (e == ST_OK && !j->discard)
            e = emit(w, j);
        st_pool_pop(&w->pool);
        if (e != ST_OK)
            return e;
    }
    return ST_OK;
}

static st_error fail(st_writer *w, st_error e)
{
    if (w->failed == ST_OK)
        w->failed = e;
    return e;
}

static st_error get_slot(st_writer *w, st_job **out)
{
    st_error e = drain(w, 0);
    if (e != ST_OK)
        return fail(w, e);
    *out = st_pool_slot(&w->pool);
    (*out)->discard = 0;
    return ST_OK;
}

/*
 * The fills of several streams hold at most ST_WRITER_HELD_FRAMES frames
 * of the writer's largest frame size together; a fill that would grow past
 * that cuts the largest fill first, early, as a shorter frame.  Without a
 * bound a writer of many streams (an address space each, with --split-by
 * cr3) held up to a frame for every stream.  What a fill holds is counted
 * from the calls alone (hold: the most room its frame has been given, up
 * to a read's worth beyond its entries, or a whole frame for a fill given
 * a frame's buffer again; from the second stream on), not from the
 * buffers' sizes, which depend on which job's buffer came back: so which
 * fill is cut, and where, and the bytes written, do not depend on the
 * thread count.  The memory is at most about twice that (buffers grow by
 * doubling).  Eight frames: the streams of a Bochs trace (reads, writes,
 * their physical twins, events, wide values) are not cut early.
 */

/* Stream s's fill now holds `bytes` (its hold). */
static void fill_hold(st_writer *w, w_stream *s, size_t bytes)
{
    w->held = w->held - s->hold + bytes;
    s->hold = bytes;
    if (w->ns > 1 && w->held > w->st.fill_peak)
        w->st.fill_peak = w->held;
}

/*
 * Fed frames.  A frame is handed to a worker when its first entry arrives
 * and coded as the rest arrive, so that the writer holds no frame buffer
 * besides the workers' own: at -T2 that is 32 MiB of a peak of about 200
 * (issue 11's bound is 192).  Only with worker threads (with one, a job
 * runs within st_pool_submit()), only for encoders that code entries as
 * they come (svpc_encoder_codes_as_fed), and only while the writer has
 * one stream: frames reach the file in the order they are handed over,
 * and a second stream's frames would land after a fed frame that the
 * unfed writer (-T1) cuts later, so the bytes would depend on the thread
 * count.  A second stream therefore ends feeding (unfeed()).
 */
static int has_workers(const st_writer *w) { return w->pool.nthreads > 1; }

static int feeds(const st_writer *w, const w_stream *s)
{
    return has_workers(w) && w->ns == 1 && !w->no_feed && s->type != ST_TYPE_USER &&
           svpc_encoder_codes_as_fed(s->params.encoder);
}

/* Entries published to a fed job at a time: few wake-ups, and a worker
 * never far behind. */
#define FEED_STEP 4096

/* The header fields of the next frame of stream s, which job j codes. */
static void frame_begin(w_stream *s, st_job *j)
{
    j->type = s->type;
    j->esz = s->esz;
    j->params = s->params;
    memset(&j->h, 0, sizeof j->h);
    j->h.encoder = (uint16_t)s->params.encoder;
    j->h.stream = s->id;
    j->h.seq = s->seq++;
    j->h.first_entry = s->next_entry;
}

/* The frame's last fields, once its s->fill_n entries are all there. */
static void frame_end(st_writer *w, w_stream *s, st_job *j)
{
    j->n = s->fill_n;
    if (w->o.timestamps) {
        j->h.flags |= ST_FF_TIME;
        /* the wall clock may step back; a frame's span may not */
        uint64_t now = wall_ns();
        j->h.first_time = s->t_first;
        j->h.last_time = now > s->t_first ? now : s->t_first;
    }
    s->next_entry += s->fill_n;
    s->fill_n = 0;
}

static int holds_frame(const void *job, void *arg)
{
    return ((const st_job *)job)->in.cap >= *(const size_t *)arg;
}

/* Room for a frame of `need` bytes in *b, a fed job's buffer or the fill
 * of a writer's only stream.  Such a writer makes at most `most` frame
 * buffers (a fed frame per worker; unfed, the fill's too); past that *b
 * takes the buffer of a job done with it (written or not), waiting for
 * one, so that the pool's one slot more than the workers holds no frame
 * more than they do. */
static st_error frame_buffer(st_writer *w, st_buf *b, size_t need, unsigned most)
{
    if (b->cap < need && w->frame_bufs >= most) {
        st_job *d = st_pool_find(&w->pool, holds_frame, &need, 1);
        if (d) {
            st_buf t = d->in;
            d->in = *b;
            *b = t;
        }
    }
    if (b->cap == 0)
        w->frame_bufs++;
    return st_buf_reserve(b, need);
}

/* Make room for stream sid's next frame, whose first entry is arriving:
 * a fed job's buffer or the fill. */
static st_error frame_open(st_writer *w, uint32_t sid)
{
    w_stream *s = &w->s[sid];
    if (s->fed)
        return ST_OK; /* opened for entries that did not come (an input that ended) */
    if (!feeds(w, s)) {
        /* the fill of a writer's only stream is one frame (the kernel
         * faults it in 2 MiB at a time, where a buffer grown by doubling
         * took 2.7 times the faults); one of several grows as entries
         * come (fill_room) */
        st_error e = w->ns == 1 ? frame_buffer(w, &s->fill, s->frame_entries * s->esz, w->o.threads + 1) : ST_OK;
        return e == ST_OK ? ST_OK : fail(w, e);
    }
    st_job *j;
    RETURN_IF_ERROR(get_slot(w, &j));
    st_error e = frame_buffer(w, &j->in, s->frame_entries * s->esz, w->o.threads);
    if (e != ST_OK)
        return fail(w, e);
    j->op = JOB_ENCODE_FED;
    j->n = 0;
    frame_begin(s, j);
    st_feed_start(j);
    st_pool_submit(&w->pool);
    s->fed = j;
    s->published = 0;
    return ST_OK;
}

/* Where stream s's frame being filled is. */
static uint8_t *frame_data(const w_stream *s) { return s->fed ? s->fed->in.data : s->fill.data; }

/* Let a fed job read what has arrived, in steps of FEED_STEP entries. */
static void frame_publish(w_stream *s)
{
    if (s->fed && s->fill_n - s->published >= FEED_STEP) {
        st_feed_publish(s->fed, s->fill_n);
        s->published = s->fill_n;
    }
}

/* Drop stream s's fed job: ended at the entries it has, never written;
 * its frame will be cut again (the same sequence number). */
static void fed_drop(w_stream *s)
{
    s->fed->discard = 1;
    s->fed->n = s->fill_n;
    st_feed_end(s->fed);
    s->fed = NULL;
    s->seq--;
}

/* Give up feeding: each fed frame's entries go back to its stream's fill
 * and its job, ended there, is dropped unwritten; from here on frames are
 * cut as by an unfed writer, with the same bytes. */
static st_error unfeed(st_writer *w)
{
    st_error e = ST_OK;
    w->no_feed = 1;
    for (unsigned i = 0; i < w->ns; i++) {
        w_stream *s = &w->s[i];
        st_job *j = s->fed;
        if (!j)
            continue;
        st_error r = st_buf_reserve(&s->fill, s->fill_n * s->esz);
        if (r == ST_OK) {
            if (s->fill_n)
                memcpy(s->fill.data, j->in.data, s->fill_n * s->esz);
            s->fill.len = s->fill_n * s->esz;
        } else if (e == ST_OK) {
            e = r;
        }
        fed_drop(s);
    }
    return e == ST_OK ? ST_OK : fail(w, e);
}

/* A writer on fd with its worker pool, before anything is written. */
static st_error writer_alloc(st_writer **out, int fd, const st_write_opts *o)
{
    *out = NULL;
    if (o->threads < 1 || o->threads > ST_MAX_THREADS || o->frame_entries > SVPC_MAX_FRAME_ENTRIES)
        return ST_E_USAGE;
    st_writer *w = calloc(1, sizeof *w);
    if (!w)
        return ST_E_NOMEM;
    w->fd = fd;
    w->out_fn = out_fd;
    w->out_arg = w;
    w->o = *o;
    st_buf_init(&w->dir, 0);
    /* a slot per worker and one more: a worker that finishes a frame
     * before the one handed out before it takes the next frame at once,
     * where it waited for that one to be written; the buffer of the frame
     * it finished goes to the next (frame_buffer).  -T2 on the bench's
     * 1 GiB: 1.96 s to 1.86 s (medians of 5, doc/BENCHMARKS.md) */
    st_error e = st_pool_init(&w->pool, &st_frame_jobs, o->threads, o->threads > 1 ? o->threads + 1 : 1);
    if (e != ST_OK) {
        st_writer_free(w);
        return e;
    }
    *out = w;
    return ST_OK;
}

/* Entries per frame of a stream: the writer's, else its encoder's own
 * (the fast encoder's are smaller); user-type frames reach the codec as
 * bytes, which it takes up to SVPC_MAX_FRAME_ENTRIES at a time. */
static size_t frame_entries_for(const st_writer *w, st_entry_type t, size_t esz, svpc_encoder enc)
{
    size_t fe = w->o.frame_entries ? w->o.frame_entries : svpc_method_frame_entries(enc, ST_DEFAULT_FRAME_ENTRIES);
    if (t == ST_TYPE_USER && fe > SVPC_MAX_FRAME_ENTRIES / esz)
        fe = SVPC_MAX_FRAME_ENTRIES / esz;
    return fe;
}

/* The writer's largest frame, in bytes (for ST_WRITER_HELD_FRAMES). */
static void note_frame_size(st_writer *w, const w_stream *s)
{
    if (s->frame_entries * s->esz > w->frame_max)
        w->frame_max = s->frame_entries * s->esz;
}

st_error st_writer_new(st_writer **out, int fd, const st_write_opts *o)
{
    return st_writer_new_out(out, NULL, NULL, fd, o);
}

st_error st_writer_new_out(st_writer **out, st_out_fn fn, void *arg, int fd, const st_write_opts *o)
{
    st_writer *w;
    if (!fn && fd < 0)
        return ST_E_USAGE;
    RETURN_IF_ERROR(writer_alloc(&w, fn ? -1 : fd, o));
    if (fn) {
        w->out_fn = fn;
        w->out_arg = arg;
    }
    *out = NULL;
    uint8_t h[ST_FILE_HEADER_SIZE];
    st_file_header_write(h);
    st_error e = w->out_fn(w->out_arg, h, sizeof h);
    if (e != ST_OK) {
        st_writer_free(w);
        return e;
    }
    w->off = sizeof h;
    w->st.out_bytes = w->off;
    *out = w;
    return ST_OK;
}

st_error st_writer_add_stream_spec(st_writer *w, const st_stream_spec *sp, uint32_t *sid)
{
    if (w->failed)
        return w->failed;
    const svpc_params *p = &sp->params;
    st_entry_type t = sp->type;
    size_t nlen = sp->name ? strlen(sp->name) : 0;
    size_t esz = t == ST_TYPE_USER ? sp->entry_size : st_entry_size(t);
    const uint8_t *guid = t == ST_TYPE_USER ? sp->guid : st_entry_guid(t);
    const char *tn = t == ST_TYPE_USER ? (sp->type_name ? sp->type_name : "user") : st_entry_name(t);
    if (nlen == 0 || nlen > ST_MAX_NAME || !esz || esz > ST_MAX_USER_ENTRY || !guid || w->ns >= ST_MAX_STREAMS ||
        !svpc_encoder_name(p->encoder) || (t != ST_TYPE_USER && !svpc_encoder_supports(p->encoder, t)) ||
        (t == ST_TYPE_USER && p->encoder != SVPC_ENC_GENERIC) ||
        !svpc_stage_name(p->stage) || p->level < 1 || p->level > 9 || sp->header_len > ST_MAX_HEADER ||
        (sp->header_len && !sp->header) || strlen(tn) == 0 || strlen(tn) > ST_MAX_TYPE_NAME)
        return ST_E_USAGE;
    /* a user type must not pass itself off as a built-in one */
    if (t == ST_TYPE_USER && st_entry_from_guid(guid) != ST_TYPE_NONE)
        return ST_E_USAGE;
    if (sp->owner != UINT32_MAX && (t != ST_TYPE_VBLOCK || sp->owner >= w->ns))
        return ST_E_USAGE;
    if (w->next_id >= ST_MAX_STREAMS)
        return ST_E_USAGE;
    if (w->ns)
        RETURN_IF_ERROR(unfeed(w));
    /* holds count from the second stream on (fill_room), from the entries
     * the first holds: fed or not (the thread count), the same */
    if (w->ns == 1)
        fill_hold(w, &w->s[0], w->s[0].fill_n * w->s[0].esz);
    if (w->ns == w->cap) {
        unsigned nc = w->cap ? w->cap * 2 : 4;
        w_stream *ns = realloc(w->s, nc * sizeof *ns);
        if (!ns)
            return ST_E_NOMEM;
        w->s = ns;
        w->cap = nc;
    }
    w_stream *s = &w->s[w->ns];
    memset(s, 0, sizeof *s);
    memcpy(s->name, sp->name, nlen + 1);
    s->id = w->next_id++;
    s->type = t;
    s->esz = esz;
    s->params = *p;
    s->frame_entries = frame_entries_for(w, t, esz, p->encoder);
    st_buf_init(&s->fill, 0);
    note_frame_size(w, s);
    *sid = w->ns++;

    st_job *j;
    RETURN_IF_ERROR(get_slot(w, &j));
    j->op = JOB_READY;
    j->out.len = 0;
    uint8_t es[4], ow[4];
    st_store32(es, (uint32_t)esz);
    st_store32(ow, sp->owner != UINT32_MAX ? w->s[sp->owner].id : UINT32_MAX);
    const char *en = svpc_encoder_name(p->encoder);
    uint32_t nattrs = 5;
    st_error e = st_attr_append(&j->out, ST_ATTR_NAME, ST_ATTR_CRITICAL, sp->name, nlen);
    if (e == ST_OK)
        e = st_attr_append(&j->out, ST_ATTR_TYPE_GUID, ST_ATTR_CRITICAL, guid, 16);
    if (e == ST_OK)
        e = st_attr_append(&j->out, ST_ATTR_TYPE_NAME, 0, tn, strlen(tn));
    if (e == ST_OK)
        e = st_attr_append(&j->out, ST_ATTR_ENTRY_SIZE, ST_ATTR_CRITICAL, es, 4);
    if (e == ST_OK)
        e = st_attr_append(&j->out, ST_ATTR_ENCODER_NAME, 0, en, strlen(en));
    if (e == ST_OK && sp->owner != UINT32_MAX) {
        e = st_attr_append(&j->out, ST_ATTR_OWNER, 0, ow, 4);
        nattrs++;
    }
    if (e == ST_OK && sp->header_len) {
        e = st_attr_append(&j->out, ST_ATTR_HEADER, 0, sp->header, sp->header_len);
        nattrs++;
    }
    if (e != ST_OK)
        return fail(w, e);
    memset(&j->h, 0, sizeof j->h);
    j->h.kind = ST_KIND_STREAM;
    j->h.encoder = (uint16_t)p->encoder;
    j->h.stream = s->id;
    j->h.nattrs = nattrs;
    j->h.payload_size = j->out.len;
    j->h.payload_crc = st_crc32(j->out.data, j->out.len);
    st_pool_submit(&w->pool);
    return ST_OK;
}

st_error st_writer_add_stream(st_writer *w, const char *name, st_entry_type t, const svpc_params *p, uint32_t *sid)
{
    if (t == ST_TYPE_USER)
        return ST_E_USAGE;
    st_stream_spec sp = {.name = name, .type = t, .params = *p, .owner = UINT32_MAX};
    return st_writer_add_stream_spec(w, &sp, sid);
}

static st_error cut_frame(st_writer *w, uint32_t sid);

/* End stream sid's frame being filled, if it holds entries; a fed job
 * opened for entries that did not come (the input ended) is dropped. */
static st_error frame_close(st_writer *w, uint32_t sid)
{
    w_stream *s = &w->s[sid];
    if (s->fed && s->fill_n == 0)
        fed_drop(s);
    return s->fill_n ? cut_frame(w, sid) : ST_OK;
}

/* Stream s's fill and the buffer *b trade places. */
static void fill_swap(w_stream *s, st_buf *b)
{
    st_buf t = s->fill;
    s->fill = *b;
    s->fill.len = 0;
    *b = t;
}

/* Hand the stream's filled entries to a worker as one frame: the job takes
 * the fill's buffer, and the fill takes the job's previous one, used again
 * instead of memory fresh from the kernel.  Of a writer of several
 * streams, only a fill that filled its frame does (a stream that fills
 * frames will fill this one); another's starts empty and grows as entries
 * come (fill_room).  A frame's buffer left with every stream that once
 * filled one held a frame per stream, 1.4 GB for 40 streams of 1.2 M
 * entries, whatever they still held. */
static st_error cut_frame(st_writer *w, uint32_t sid)
{
    w_stream *s = &w->s[sid];
    if (s->fed) {
        st_job *fj = s->fed;
        s->fed = NULL;
        frame_end(w, s, fj);
        st_feed_end(fj);
        return ST_OK;
    }
    st_job *j;
    RETURN_IF_ERROR(get_slot(w, &j));
    const int reuse = w->ns == 1 || s->fill_n == s->frame_entries;
    if (!reuse)
        st_buf_free(&j->in);
    fill_swap(s, &j->in);
    fill_hold(w, s, reuse ? s->frame_entries * s->esz : 0);
    j->op = JOB_ENCODE;
    frame_begin(s, j);
    frame_end(w, s, j);
    st_pool_submit(&w->pool);
    if (!has_workers(w) && w->ns == 1) {
        /* the job ran within st_pool_submit(): its buffer takes the next
         * frame, and the writer holds one frame buffer, not two (32 MiB
         * less, and as much less memory fresh from the kernel to clear) */
        fill_swap(s, &j->in);
    }
    return ST_OK;
}

/* Make room in stream sid's fill for up to *k more entries, the first of
 * them completing the `part` bytes of an entry already there (then sid's
 * own fill is not cut): lower *k to what the bound lets in (at least 1). */
static st_error fill_room(st_writer *w, uint32_t sid, size_t part, size_t *k)
{
    w_stream *s = &w->s[sid];
    if (s->fed)
        return ST_OK; /* a fed job's buffer holds the whole frame */
    if (w->ns > 1 && (s->fill_n + *k) * s->esz > s->hold) {
        const size_t lim = ST_WRITER_HELD_FRAMES * w->frame_max;
        /* the others' hold, and sid's fill with one more entry */
        while (w->held - s->hold + (s->fill_n + 1) * s->esz > lim) {
            uint32_t big = UINT32_MAX;
            size_t most = 0;
            for (uint32_t i = 0; i < w->ns; i++)
                if (w->s[i].hold > most && !(i == sid && part)) {
                    most = w->s[i].hold;
                    big = i;
                }
            if (big == UINT32_MAX)
                break; /* what is held is sid's, within an entry */
            if (w->s[big].fill_n) {
                RETURN_IF_ERROR(cut_frame(w, big));
            } else { /* a buffer kept for entries that did not come */
                st_buf_free(&w->s[big].fill);
                fill_hold(w, &w->s[big], 0);
            }
        }
        const size_t others = w->held - s->hold;
        size_t fit = others < lim ? (lim - others) / s->esz : 0;
        fit = fit > s->fill_n ? fit - s->fill_n : 1;
        if (*k > fit)
            *k = fit;
        if ((s->fill_n + *k) * s->esz > s->hold)
            fill_hold(w, s, (s->fill_n + *k) * s->esz);
    }
    st_error e = st_buf_reserve(&s->fill, (s->fill_n + *k) * s->esz);
    return e == ST_OK ? ST_OK : fail(w, e);
}

/* k whole entries arrived in stream s's frame being filled. */
static void fill_add(st_writer *w, w_stream *s, size_t k)
{
    s->fill_n += k;
    w->st.entries += k;
    w->st.raw_bytes += k * s->esz;
}

st_error st_writer_append(st_writer *w, uint32_t sid, const void *entries, size_t n)
{
    if (w->failed)
        return w->failed;
    if (sid >= w->ns)
        return ST_E_USAGE;
    w_stream *s = &w->s[sid];
    const uint8_t *p = entries;
    size_t fe = s->frame_entries, all = n;
    if (checks_keys(w, s))
        n = keys_in_order(s, p, n);
    uint64_t brk = s->next_entry + s->fill_n + n; /* the entry refused, if n < all */
    while (n) {
        if (s->fill_n == 0)
            RETURN_IF_ERROR(frame_open(w, sid));
        size_t k = fe - s->fill_n < n ? fe - s->fill_n : n;
        RETURN_IF_ERROR(fill_room(w, sid, 0, &k));
        if (s->fill_n == 0 && w->o.timestamps)
            s->t_first = wall_ns();
        memcpy(frame_data(s) + s->fill_n * s->esz, p, k * s->esz);
        fill_add(w, s, k);
        p += k * s->esz;
        n -= k;
        if (s->fill_n == fe)
            RETURN_IF_ERROR(cut_frame(w, sid));
        else
            frame_publish(s);
    }
    if (p != (const uint8_t *)entries + all * s->esz)
        return key_break(w, s, brk, st_load64(p) & ST_CYCLE_MASK);
    return ST_OK;
}

/* Bytes per read(): large enough that system calls cost nothing, small
 * enough that progress and a pipe's writer are served often. */
#define FD_CHUNK ((size_t)4 << 20)

st_error st_writer_append_fd(st_writer *w, uint32_t sid, int fd, void (*progress)(void *), void *arg,
                             uint64_t *in_bytes, st_diag *d)
{
    *in_bytes = 0;
    if (w->failed)
        return w->failed;
    if (sid >= w->ns)
        return ST_E_USAGE;
    w_stream *s = &w->s[sid];
    const size_t esz = s->esz, chunk = FD_CHUNK / esz ? FD_CHUNK / esz : 1;
    size_t part = 0; /* bytes of an incomplete entry after the fill's whole entries */
    for (;;) {
        if (s->fill_n == 0 && part == 0)
            RETURN_IF_ERROR(frame_open(w, sid));
        /* the fill never holds more than one frame, so a frame is cut
         * exactly at its last entry and `part` is then 0 */
        size_t room = s->frame_entries - s->fill_n < chunk ? s->frame_entries - s->fill_n : chunk;
        RETURN_IF_ERROR(fill_room(w, sid, part, &room));
        size_t at = s->fill_n * esz + part;
        ssize_t k = read(fd, frame_data(s) + at, room * esz - part);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            d->offset = *in_bytes;
            return st_diag_set(d, ST_E_READ, "%s", strerror(errno));
        }
        if (k == 0)
            break;
        *in_bytes += (uint64_t)k;
        part += (size_t)k;
        size_t whole = part / esz;
        part -= whole * esz;
        const uint8_t *fresh = frame_data(s) + s->fill_n * esz;
        size_t ok = checks_keys(w, s) ? keys_in_order(s, fresh, whole) : whole;
        if (ok < whole) {
            /* keep the entries before the one refused; drop the rest read */
            uint64_t entry = s->next_entry + s->fill_n + ok;
            d->offset = *in_bytes - part - (whole - ok) * esz;
            fill_add(w, s, ok);
            if (s->fill_n == s->frame_entries)
                RETURN_IF_ERROR(cut_frame(w, sid));
            st_error e = key_break(w, s, entry, st_load64(fresh + ok * esz) & ST_CYCLE_MASK);
            st_diag_set(d, e, "%s", w->diag.detail);
            return e;
        }
        /* a frame's time starts when its first entry arrives, as with
         * st_writer_append(), not when the read for it began */
        if (w->o.timestamps && s->fill_n == 0 && whole)
            s->t_first = wall_ns();
        fill_add(w, s, whole);
        if (s->fill_n == s->frame_entries)
            RETURN_IF_ERROR(cut_frame(w, sid));
        else
            frame_publish(s);
        if (progress)
            progress(arg);
    }
    if (part) {
        d->offset = *in_bytes - part;
        return st_diag_set(d, ST_E_PARTIAL_ENTRY, "%zu trailing byte%s (entry size %zu)", part,
                           part == 1 ? "" : "s", esz);
    }
    return ST_OK;
}

st_error st_writer_copy_frame(st_writer *w, uint32_t sid, const st_frame_ref *f, const st_raw_frame *raw)
{
    if (w->failed)
        return w->failed;
    if (sid >= w->ns || f->kind != ST_KIND_DATA || f->count == 0 || f->count > SVPC_MAX_FRAME_ENTRIES ||
        (f->flags & ~ST_FF_KNOWN) || (f->encoder != w->s[sid].params.encoder && f->encoder != SVPC_ENC_GENERIC) ||
        raw->payload_size > st_data_payload_max(f->count, w->s[sid].esz))
        return ST_E_USAGE;
    w_stream *s = &w->s[sid];
    if (checks_keys(w, s)) {
        uint64_t entry = s->next_entry + s->fill_n;
        if (s->have_key && f->first_cycle < s->last_key)
            return key_break(w, s, entry, f->first_cycle);
        s->last_key = f->first_cycle;
        s->have_key = 1;
        if (f->last_cycle < f->first_cycle)
            return key_break(w, s, entry + f->count - 1, f->last_cycle);
        s->last_key = f->last_cycle;
    }
    RETURN_IF_ERROR(frame_close(w, sid));
    st_job *j;
    RETURN_IF_ERROR(get_slot(w, &j));
    j->op = JOB_READY;
    j->out.len = 0;
    st_error e = st_buf_append(&j->out, raw->payload, raw->payload_size);
    if (e != ST_OK)
        return fail(w, e);
    /* the header as it was, but in this stream, at its next place */
    st_frame_header_of(&j->h, f);
    j->h.stream = s->id;
    j->h.seq = s->seq++;
    j->h.first_entry = s->next_entry;
    j->h.payload_size = raw->payload_size;
    s->next_entry += f->count;
    w->st.entries += f->count;
    w->st.raw_bytes += f->count * s->esz;
    st_pool_submit(&w->pool);
    return ST_OK;
}

st_error st_writer_flush(st_writer *w)
{
    if (w->failed)
        return w->failed;
    for (uint32_t i = 0; i < w->ns; i++)
        RETURN_IF_ERROR(frame_close(w, i));
    st_error e = drain(w, 1);
    return e == ST_OK ? ST_OK : fail(w, e);
}

/* The directory frame and the footer, after the frames written. */
static st_error write_end(st_writer *w)
{
    st_error e;
    /* the directory frame: one attribute holding every frame's entry */
    st_buf pay;
    st_buf_init(&pay, 0);
    e = st_attr_append(&pay, ST_ATTR_DIRECTORY, ST_ATTR_CRITICAL, w->dir.data, w->dir.len);
    if (e == ST_OK) {
        st_frame_header h;
        memset(&h, 0, sizeof h);
        h.kind = ST_KIND_DIRECTORY;
        h.stream = UINT32_MAX;
        h.nattrs = 1;
        h.payload_size = pay.len;
        h.payload_crc = st_crc32(pay.data, pay.len);
        uint8_t hb[ST_FRAME_HEADER_SIZE], fb[ST_FOOTER_SIZE];
        st_frame_header_write(&h, hb);
        st_footer f = {w->off, ST_FRAME_HEADER_SIZE + pay.len, w->nframes};
        st_footer_write(&f, fb);
        e = w->out_fn(w->out_arg, hb, sizeof hb);
        if (e == ST_OK)
            e = w->out_fn(w->out_arg, pay.data, pay.len);
        if (e == ST_OK)
            e = w->out_fn(w->out_arg, fb, sizeof fb);
        if (e == ST_OK)
            w->off += f.dir_size + ST_FOOTER_SIZE;
        w->st.out_bytes = w->off;
    }
    st_buf_free(&pay);
    if (e == ST_OK)
        w->finished = 1;
    return e == ST_OK ? ST_OK : fail(w, e);
}

st_error st_writer_finish(st_writer *w)
{
    RETURN_IF_ERROR(st_writer_flush(w));
    return write_end(w);
}

st_error st_writer_end_written(st_writer *w)
{
    if (!w || w->fd < 0 || w->finished)
        return ST_E_USAGE;
    for (;;) {
        /* a frame half written when the write failed lies past w->off */
        if (ftruncate(w->fd, (off_t)w->off) != 0 || lseek(w->fd, (off_t)w->off, SEEK_SET) < 0)
            return ST_E_WRITE;
        w->failed = ST_OK;
        st_error e = write_end(w);
        if (e != ST_E_WRITE || w->nframes <= w->resume_frames)
            return e;
        /* no room for the directory (a full disk): the newest frame gives
         * its place to it, and so on while this writer's frames last */
        st_dir_entry de;
        st_dir_entry_parse(w->dir.data + w->dir.len - ST_DIR_ENTRY_SIZE, &de);
        w->dir.len -= ST_DIR_ENTRY_SIZE;
        w->nframes--;
        w->off = de.offset;
        if (de.h.kind == ST_KIND_DATA) {
            w->st.frames--;
            w->st.entries_written -= de.h.count;
        }
        w->st.out_bytes = w->off;
    }
}

st_error st_writer_restore(st_writer *w)
{
    if (!w || !w->resumed || w->finished || w->fd < 0)
        return ST_E_USAGE;
    /* nothing more may be written: the workers' frames are dropped */
    w->failed = w->failed != ST_OK ? w->failed : ST_E_WRITE;
    w->resumed = 0;
    if (ftruncate(w->fd, (off_t)w->resume_at) != 0 || lseek(w->fd, (off_t)w->resume_at, SEEK_SET) < 0 ||
        st_write_all(w->fd, w->old_end.data, w->old_end.len) != ST_OK)
        return ST_E_WRITE;
    return fsync(w->fd) == 0 ? ST_OK : ST_E_WRITE;
}

void st_writer_stats(const st_writer *w, st_write_stats *s) { *s = w->st; }

int st_writer_find_stream(const st_writer *w, const char *name, uint32_t *sid)
{
    for (uint32_t i = 0; i < w->ns; i++)
        if (strcmp(w->s[i].name, name) == 0) {
            *sid = i;
            return 1;
        }
    return 0;
}

st_entry_type st_writer_stream_type(const st_writer *w, uint32_t sid, uint16_t *encoder, size_t *esz)
{
    if (sid >= w->ns)
        return ST_TYPE_NONE;
    if (encoder)
        *encoder = (uint16_t)w->s[sid].params.encoder;
    if (esz)
        *esz = w->s[sid].esz;
    return w->s[sid].type;
}

uint64_t st_writer_stream_entries(const st_writer *w, uint32_t sid)
{
    return sid < w->ns ? w->s[sid].next_entry + w->s[sid].fill_n : 0;
}

st_error st_writer_resume(st_writer **out, int fd, const st_write_opts *o, const svpc_params *p, const st_index *ix)
{
    *out = NULL;
    if (!svpc_stage_name(p->stage) || p->level < 1 || p->level > 9)
        return ST_E_USAGE;
    st_writer *w;
    RETURN_IF_ERROR(writer_alloc(&w, fd, o));
    *out = NULL; /* until it is complete */
    st_error e = ST_OK;
    unsigned ns = st_index_stream_count(ix);
    if (e == ST_OK && ns && !(w->s = calloc(ns, sizeof *w->s)))
        e = ST_E_NOMEM;
    w->cap = ns;
    for (unsigned i = 0; e == ST_OK && i < ns; i++) {
        const st_stream_info *si = st_index_stream(ix, i);
        w_stream *s = &w->s[w->ns++];
        s->id = si->id;
        snprintf(s->name, sizeof s->name, "%s", si->name);
        s->type = si->type;
        s->esz = si->entry_size;
        s->params = *p;
        s->params.encoder = (svpc_encoder)si->encoder;
        s->frame_entries = frame_entries_for(w, s->type, s->esz, s->params.encoder);
        note_frame_size(w, s);
        s->seq = si->frames;
        s->next_entry = si->entries;
        /* entries appended continue the stream's cycles */
        if (si->frames) {
            s->last_key = st_index_stream_frame(ix, i, si->frames - 1)->last_cycle;
            s->have_key = 1;
        }
        st_buf_init(&s->fill, 0);
        if (si->id >= w->next_id)
            w->next_id = si->id + 1;
    }
    /* the directory so far: every frame, as the index checked it */
    uint64_t end = ST_FILE_HEADER_SIZE;
    for (uint64_t k = 0; e == ST_OK && k < st_index_frame_count(ix); k++) {
        const st_frame_ref *r = st_index_frame(ix, k);
        st_dir_entry de;
        memset(&de, 0, sizeof de);
        de.offset = r->offset;
        de.size = r->size;
        de.h.stream = r->stream;
        de.h.kind = r->kind;
        de.h.flags = r->flags;
        de.h.encoder = r->encoder;
        de.h.seq = r->seq;
        de.h.first_entry = r->first_entry;
        de.h.count = r->count;
        de.h.first_cycle = r->first_cycle;
        de.h.last_cycle = r->last_cycle;
        de.h.first_time = r->first_time;
        de.h.last_time = r->last_time;
        uint8_t b[ST_DIR_ENTRY_SIZE];
        st_dir_entry_write(&de, b);
        e = st_buf_append(&w->dir, b, sizeof b);
        end = r->offset + r->size;
        w->nframes++;
    }
    /* what the new frames replace, kept for st_writer_restore */
    struct stat st;
    st_buf_init(&w->old_end, 0);
    if (e == ST_OK && fstat(fd, &st) != 0)
        e = ST_E_READ;
    w->resumed = 1;
    w->resume_at = end;
    w->resume_frames = w->nframes;
    if (e == ST_OK && (uint64_t)st.st_size > end && (uint64_t)st.st_size - end <= ST_WRITER_RESTORE_MAX) {
        const size_t n = (size_t)((uint64_t)st.st_size - end);
        e = st_buf_reserve(&w->old_end, n);
        if (e == ST_OK)
            e = st_pread_full(fd, w->old_end.data, n, end) == ST_OK ? ST_OK : ST_E_READ;
        if (e == ST_OK)
            w->old_end.len = n;
    } else if (e == ST_OK && (uint64_t)st.st_size > end) {
        w->resumed = 0; /* too long to keep: no restore */
    }
    /* new frames replace the old directory and footer */
    if (e == ST_OK && (ftruncate(fd, (off_t)end) != 0 || lseek(fd, (off_t)end, SEEK_SET) < 0))
        e = ST_E_WRITE;
    w->off = end;
    w->st.out_bytes = end;
    if (e != ST_OK) {
        st_writer_free(w);
        return e;
    }
    *out = w;
    return ST_OK;
}

void st_writer_free(st_writer *w)
{
    if (!w)
        return;
    /* a fed worker waits for entries that will not come */
    for (unsigned i = 0; i < w->ns; i++)
        if (w->s[i].fed)
            fed_drop(&w->s[i]);
    st_pool_destroy(&w->pool);
    for (unsigned i = 0; i < w->ns; i++)
        st_buf_free(&w->s[i].fill);
    free(w->s);
    st_buf_free(&w->dir);
    st_buf_free(&w->old_end);
    free(w);
}
