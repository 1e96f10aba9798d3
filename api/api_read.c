/* api_read.c - the reader and cursors of the public API
 * (include/simtrace.h): random access through the index of frames/, and
 * sequential reading, where a thread of the cursor runs the container
 * reader and hands each decoded frame's entries over as the caller pulls. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/st_io.h"
#include "../formats/entry.h"
#include "../frames/range.h"
#include "api_internal.h"

struct simtrace_reader {
    api_alloc al;
    int fd, own_fd;
    simtrace_read_params p;
    char msg[API_MSG_MAX];
    /* random access */
    st_index *ix;
    st_buf tmp;          /* a frame decoded by a lookup */
    /* sequential: the container reader, run by the cursor's thread */
    st_reader *r;
    simtrace_read_io io;
    simtrace_cursor *cur; /* the one cursor, NULL before it */
    int cursor_made;
    /* the streams seen so far, copied for the caller's thread; guarded by
     * mu while the cursor's thread runs */
    pthread_mutex_t mu;
    st_stream_info *seen;
    uint32_t nseen, capseen;
};

struct simtrace_cursor {
    simtrace_reader *rd;
    uint32_t index;       /* the stream's position in the reader's list */
    size_t esz;
    simtrace_error failed; /* sticky */
    /* random access */
    st_range_iter it;
    int it_live;
    const uint8_t *pend;  /* entries decoded and not yet copied out */
    size_t pend_n;
    uint64_t pend_first;
    int done;
    /* sequential: the reading thread and what it hands over */
    const char *want;     /* the name asked for; NULL: the first memory stream */
    char name[ST_MAX_NAME + 1];
    st_range rg;
    st_slicer sl;
    pthread_t th;
    int th_started;
    pthread_cond_t cv;    /* with rd->mu */
    int bound;            /* the stream is declared: id is its id */
    uint32_t id;
    const uint8_t *batch; /* published by the thread, taken by next() */
    size_t batch_n;
    uint64_t batch_first;
    int held;             /* peek() handed the batch out: released by the next call */
    int finished, stop;
    st_error result;
    st_diag d;
};

SIMTRACE_API void simtrace_read_params_init(simtrace_read_params *p)
{
    if (!p)
        return;
    memset(p, 0, sizeof *p);
    p->threads = 1;
}

/* ---- opening ---- */

static st_error io_read(void *arg, uint8_t *p, size_t n, size_t *got)
{
    simtrace_reader *rd = arg;
    int64_t k = rd->io.read(rd->io.opaque, p, n);
    if (k < 0 || (uint64_t)k > n)
        return ST_E_READ;
    *got = (size_t)k;
    return ST_OK;
}

/* Called by the reading thread (sequential reads). */
static void on_stream(void *arg, const st_stream_info *s);
static int seq_want(void *arg, const st_stream_info *s, const st_frame_ref *f);

static simtrace_error open_reader(simtrace_reader **out, const char *path, int fd, const simtrace_read_io *io,
                                  const simtrace_read_params *pp)
{
    if (!out)
        return SIMTRACE_E_USAGE;
    *out = NULL;
    simtrace_read_params def;
    if (!pp) {
        simtrace_read_params_init(&def);
        pp = &def;
    }
    if (pp->threads > ST_MAX_THREADS || pp->ignore_check > 1)
        return SIMTRACE_E_USAGE;
    api_alloc al;
    api_alloc_init(&al, pp->allocator);
    simtrace_reader *rd = api_calloc(&al, sizeof *rd);
    if (!rd)
        return SIMTRACE_E_NOMEM;
    rd->al = al;
    rd->p = *pp;
    if (!rd->p.threads)
        rd->p.threads = 1;
    rd->fd = fd;
    st_buf_init(&rd->tmp, 0);
    if (pthread_mutex_init(&rd->mu, NULL) != 0) {
        api_free(&al, rd);
        return SIMTRACE_E_THREAD;
    }
    if (path) {
        rd->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (rd->fd < 0) {
            API_KEEP_ERRNO(simtrace_reader_free(rd));
            return SIMTRACE_E_READ;
        }
        rd->own_fd = 1;
    }
    st_diag d;
    st_diag_clear(&d);
    struct stat st;
    st_error e;
    if (!io && fstat(rd->fd, &st) == 0 && S_ISREG(st.st_mode)) {
        e = st_index_open(&rd->ix, rd->fd, &d);
        if (e == ST_OK) {
            st_index_set_memlimit(rd->ix, rd->p.memlimit);
            st_index_set_ignore_check(rd->ix, (int)rd->p.ignore_check);
        }
    } else {
        st_read_opts ro = {.threads = rd->p.threads, .ignore_check = (int)rd->p.ignore_check,
                           .memlimit = rd->p.memlimit, .want = seq_want, .want_arg = rd,
                           .on_stream = on_stream, .stream_arg = rd};
        if (io) {
            rd->io = *io;
            e = st_reader_new_in(&rd->r, io_read, rd, &ro, &d);
        } else {
            e = st_reader_new(&rd->r, rd->fd, &ro, &d);
        }
    }
    if (e != ST_OK) {
        API_KEEP_ERRNO(simtrace_reader_free(rd));
        return api_error(e);
    }
    *out = rd;
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_reader_open_path(simtrace_reader **r, const char *path,
                                                      const simtrace_read_params *params)
{
    if (!path)
        return SIMTRACE_E_USAGE;
    return open_reader(r, path, -1, NULL, params);
}

SIMTRACE_API simtrace_error simtrace_reader_open_fd(simtrace_reader **r, int fd, const simtrace_read_params *params)
{
    if (fd < 0)
        return SIMTRACE_E_USAGE;
    return open_reader(r, NULL, fd, NULL, params);
}

SIMTRACE_API simtrace_error simtrace_reader_open_io(simtrace_reader **r, const simtrace_read_io *io,
                                                    const simtrace_read_params *params)
{
    if (!io || !io->read)
        return SIMTRACE_E_USAGE;
    return open_reader(r, NULL, -1, io, params);
}

SIMTRACE_API int simtrace_reader_random_access(const simtrace_reader *r) { return r ? r->ix != NULL : -1; }

SIMTRACE_API const char *simtrace_reader_message(const simtrace_reader *r) { return r ? r->msg : ""; }

SIMTRACE_API int simtrace_reader_complete(simtrace_reader *r)
{
    if (!r || !r->ix)
        return -1; /* a sequential reader meets the end at the cursor's end */
    r->msg[0] = 0;
    uint64_t end;
    st_diag why;
    if (!st_index_recovered(r->ix, &end, &why))
        return 1;
    const st_frame_ref *cut = st_index_cut_frame(r->ix);
    const char *cut_stream = "?";
    uint64_t entries = 0, frames = 0;
    for (unsigned i = 0; i < st_index_stream_count(r->ix); i++) {
        const st_stream_info *s = st_index_stream(r->ix, i);
        entries += s->entries;
        frames += s->frames;
        if (cut && s->id == cut->stream)
            cut_stream = s->name;
    }
    int n = snprintf(r->msg, sizeof r->msg, "no valid directory and footer (%.160s): read through its frame "
                     "headers, %" PRIu64 " complete data frame%s (%" PRIu64 " entries) up to byte offset %" PRIu64
                     " of %" PRIu64, why.detail[0] ? why.detail : st_error_name(ST_E_BAD_FOOTER), frames,
                     frames == 1 ? "" : "s", entries, end, st_index_file_size(r->ix));
    size_t room = n >= 0 && (size_t)n < sizeof r->msg ? sizeof r->msg - (size_t)n : 0;
    if (room && st_index_frames_after(r->ix))
        snprintf(r->msg + n, room, "; complete frames from byte offset %" PRIu64 " on, after a damaged one, are not "
                 "read", st_index_frames_after(r->ix));
    else if (room && cut)
        snprintf(r->msg + n, room, "; entries %" PRIu64 "..%" PRIu64 " of stream '%.255s' are in the frame cut off "
                 "there", cut->first_entry, cut->first_entry + cut->count - 1, cut_stream);
    return 0;
}

SIMTRACE_API void simtrace_reader_free(simtrace_reader *r)
{
    if (!r)
        return;
    simtrace_cursor_free(r->cur);
    st_index_free(r->ix);
    st_reader_free(r->r);
    st_buf_free(&r->tmp);
    if (r->own_fd)
        close(r->fd);
    pthread_mutex_destroy(&r->mu);
    api_alloc al = r->al;
    api_free(&al, r->seen);
    api_free(&al, r);
}

/* ---- streams ---- */

static void info_out(const simtrace_reader *rd, uint32_t index, const st_stream_info *s, simtrace_stream_info *o)
{
    memset(o, 0, sizeof *o);
    o->index = index;
    o->id = s->id;
    memcpy(o->name, s->name, sizeof o->name);
    o->type = (uint32_t)s->type;
    o->entry_size = s->entry_size;
    memcpy(o->type_name, s->type_name, sizeof o->type_name);
    memcpy(o->guid, s->guid, sizeof o->guid);
    o->entries = s->entries;
    o->frames = s->frames;
    o->has_cycles = (uint32_t)st_entry_has_key(s->type);
    o->owner = UINT32_MAX;
    o->values = UINT32_MAX;
    if (rd->ix) {
        const st_index *ix = rd->ix;
        o->stored_bytes = s->stored;
        uint64_t nf = st_index_stream_frames(ix, index);
        if (nf && o->has_cycles) {
            o->first_cycle = st_index_stream_frame(ix, index, 0)->first_cycle;
            o->last_cycle = st_index_stream_frame(ix, index, nf - 1)->last_cycle;
        }
        o->cycles_ordered = (uint32_t)(o->has_cycles && st_index_keys_ordered(ix, index));
        o->times_ordered = (uint32_t)st_index_times_ordered(ix, index);
        int v = st_index_values_stream(ix, s->id);
        o->values = v < 0 ? UINT32_MAX : (uint32_t)v;
        for (unsigned i = 0; s->owner != UINT32_MAX && i < st_index_stream_count(ix); i++)
            if (st_index_stream(ix, i)->id == s->owner)
                o->owner = i;
    } else {
        for (uint32_t i = 0; i < rd->nseen; i++) {
            if (s->owner != UINT32_MAX && rd->seen[i].id == s->owner)
                o->owner = i;
            if (rd->seen[i].type == ST_TYPE_VBLOCK && rd->seen[i].owner == s->id)
                o->values = i;
        }
    }
}

SIMTRACE_API simtrace_error simtrace_reader_stream_count(const simtrace_reader *r, uint32_t *count)
{
    if (!r || !count)
        return SIMTRACE_E_USAGE;
    if (r->ix) {
        *count = st_index_stream_count(r->ix);
        return SIMTRACE_OK;
    }
    pthread_mutex_lock((pthread_mutex_t *)&r->mu);
    *count = r->nseen;
    pthread_mutex_unlock((pthread_mutex_t *)&r->mu);
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_reader_stream_info(const simtrace_reader *r, uint32_t index,
                                                        simtrace_stream_info *info)
{
    if (!r || !info)
        return SIMTRACE_E_USAGE;
    if (r->ix) {
        const st_stream_info *s = st_index_stream(r->ix, index);
        if (!s)
            return SIMTRACE_E_RANGE;
        info_out(r, index, s, info);
        return SIMTRACE_OK;
    }
    simtrace_error e = SIMTRACE_E_RANGE;
    pthread_mutex_lock((pthread_mutex_t *)&r->mu);
    if (index < r->nseen) {
        info_out(r, index, &r->seen[index], info);
        e = SIMTRACE_OK;
    }
    pthread_mutex_unlock((pthread_mutex_t *)&r->mu);
    return e;
}

static const st_stream_info *seen_get(const void *rd, unsigned i) { return &((const simtrace_reader *)rd)->seen[i]; }

SIMTRACE_API simtrace_error simtrace_reader_find_stream(const simtrace_reader *r, const char *name, uint32_t *index)
{
    if (!r || !index)
        return SIMTRACE_E_USAGE;
    int i = -1;
    if (r->ix) {
        i = name ? st_index_find_stream(r->ix, name) : st_index_default_stream(r->ix);
    } else {
        pthread_mutex_lock((pthread_mutex_t *)&r->mu);
        if (!name)
            i = st_default_stream(r->nseen, seen_get, r);
        for (uint32_t k = 0; name && k < r->nseen && i < 0; k++)
            if (strcmp(r->seen[k].name, name) == 0)
                i = (int)k;
        pthread_mutex_unlock((pthread_mutex_t *)&r->mu);
    }
    if (i < 0)
        return SIMTRACE_E_NOT_FOUND;
    *index = (uint32_t)i;
    return SIMTRACE_OK;
}

/* ---- random access ---- */

/* The reader has random access and stream index exists: its info. */
static simtrace_error random_stream(simtrace_reader *r, uint32_t index, const st_stream_info **s)
{
    if (!r)
        return SIMTRACE_E_USAGE;
    r->msg[0] = 0;
    if (!r->ix) {
        snprintf(r->msg, sizeof r->msg, "this call needs random access (a regular file); read a pipe with a cursor");
        return SIMTRACE_E_STATE;
    }
    *s = st_index_stream(r->ix, index);
    if (!*s) {
        snprintf(r->msg, sizeof r->msg, "no stream %u (the trace has %u)", index, st_index_stream_count(r->ix));
        return SIMTRACE_E_RANGE;
    }
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_reader_read(simtrace_reader *r, uint32_t index, uint64_t a, uint64_t b,
                                                 void *buf, size_t size, uint64_t *count)
{
    const st_stream_info *s;
    simtrace_error pe = random_stream(r, index, &s);
    if (pe != SIMTRACE_OK)
        return pe;
    if (!count || (!buf && size))
        return SIMTRACE_E_USAGE;
    if (a > b || a > s->entries) {
        snprintf(r->msg, sizeof r->msg, "entries %" PRIu64 "..%" PRIu64 " are not in stream '%s' (%" PRIu64
                 " entries)", a, b, s->name, s->entries);
        return SIMTRACE_E_RANGE;
    }
    uint64_t hi = b < s->entries ? b : s->entries, n = hi - a;
    if (n > size / s->entry_size) {
        *count = n;
        snprintf(r->msg, sizeof r->msg, "%" PRIu64 " entries need %" PRIu64 " bytes; the buffer has %zu", n,
                 n * s->entry_size, size);
        return SIMTRACE_E_BUFFER;
    }
    st_range rg = {ST_RANGE_ENTRIES, a, hi};
    st_range_iter it;
    st_diag d;
    st_diag_clear(&d);
    st_error e = st_range_iter_init(&it, r->ix, index, &rg, &d);
    uint8_t *o = buf;
    uint64_t got = 0;
    while (e == ST_OK) {
        uint64_t first;
        const uint8_t *p;
        size_t k;
        e = st_range_next(&it, &first, &p, &k, &d);
        if (e != ST_OK || k == 0)
            break;
        memcpy(o + got * s->entry_size, p, k * s->entry_size);
        got += k;
    }
    st_range_iter_free(&it);
    if (e != ST_OK)
        return api_fail(r->msg, e, &d);
    if (got != n)
        return api_fail(r->msg, ST_E_INTERNAL, NULL);
    *count = n;
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_reader_find_cycle(simtrace_reader *r, uint32_t index, uint64_t cycle,
                                                       uint64_t *entry)
{
    const st_stream_info *s;
    simtrace_error pe = random_stream(r, index, &s);
    if (pe != SIMTRACE_OK)
        return pe;
    if (!entry)
        return SIMTRACE_E_USAGE;
    st_diag d;
    st_diag_clear(&d);
    st_error e = st_index_find_cycle(r->ix, index, cycle, entry, &r->tmp, &d);
    return e == ST_OK ? SIMTRACE_OK : api_fail(r->msg, e, &d);
}

SIMTRACE_API simtrace_error simtrace_reader_find_time(simtrace_reader *r, uint32_t index, uint64_t t,
                                                      uint64_t *entry)
{
    const st_stream_info *s;
    simtrace_error pe = random_stream(r, index, &s);
    if (pe != SIMTRACE_OK)
        return pe;
    if (!entry)
        return SIMTRACE_E_USAGE;
    if (!st_index_times_ordered(r->ix, index)) {
        snprintf(r->msg, sizeof r->msg, "stream '%s' has no ordered frame times (written without timestamps)",
                 s->name);
        return SIMTRACE_E_UNSUPPORTED;
    }
    uint64_t j = st_index_lower_time(r->ix, index, t);
    const st_frame_ref *f = st_index_stream_frame(r->ix, index, j);
    *entry = f ? f->first_entry : s->entries;
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_reader_frame_info(simtrace_reader *r, uint32_t index, uint64_t k,
                                                       simtrace_frame_info *info)
{
    const st_stream_info *s;
    simtrace_error pe = random_stream(r, index, &s);
    if (pe != SIMTRACE_OK)
        return pe;
    if (!info)
        return SIMTRACE_E_USAGE;
    const st_frame_ref *f = st_index_stream_frame(r->ix, index, k);
    if (!f) {
        snprintf(r->msg, sizeof r->msg, "stream '%s' has no frame %" PRIu64 " (it has %" PRIu64 ")", s->name, k,
                 st_index_stream_frames(r->ix, index));
        return SIMTRACE_E_RANGE;
    }
    memset(info, 0, sizeof *info);
    info->first_entry = f->first_entry;
    info->entries = f->count;
    info->first_cycle = f->first_cycle;
    info->last_cycle = f->last_cycle;
    info->has_time = (f->flags & ST_FRAME_REF_TIMED) != 0;
    if (info->has_time) {
        info->first_time = f->first_time;
        info->last_time = f->last_time;
    }
    info->offset = f->offset;
    info->stored_bytes = f->size;
    info->encoder = f->encoder;
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_reader_value(simtrace_reader *r, uint32_t index, uint64_t entry, void *buf,
                                                  size_t size, size_t *len)
{
    const st_stream_info *s;
    simtrace_error pe = random_stream(r, index, &s);
    if (pe != SIMTRACE_OK)
        return pe;
    if (!len || (!buf && size) || (s->type != ST_TYPE_D64 && s->type != ST_TYPE_D32))
        return SIMTRACE_E_USAGE;
    uint8_t raw[32];
    uint64_t n;
    pe = simtrace_reader_read(r, index, entry, entry + 1, raw, sizeof raw, &n);
    if (pe != SIMTRACE_OK)
        return pe;
    if (n != 1) {
        snprintf(r->msg, sizeof r->msg, "no entry %" PRIu64 " in stream '%s' (%" PRIu64 " entries)", entry, s->name,
                 s->entries);
        return SIMTRACE_E_RANGE;
    }
    st_entry en;
    st_entry_load(s->type, raw, &en);
    /* the data field: full width, or size and value in its halves */
    size_t half = s->type == ST_TYPE_D64 ? 4 : 2;
    uint8_t field[8];
    size_t flen = (en.meta16 & 1) ? 2 * half : (size_t)(en.data >> (8 * half));
    if (flen > half && !(en.meta16 & 1))
        flen = half;
    for (size_t i = 0; i < sizeof field; i++)
        field[i] = (uint8_t)(en.data >> (8 * i));
    const uint8_t *v = field;
    size_t vlen = flen;
    st_values vals;
    st_diag d;
    st_diag_clear(&d);
    st_values_init(&vals, r->ix, index, &d);
    st_error e = ST_OK;
    if (st_entry_is_vwide(s->type, en.meta16, en.data) && vals.vs >= 0) {
        e = st_values_get(&vals, entry, &v, &vlen);
        if (e == ST_OK && vlen != (size_t)(en.data >> (8 * half)))
            e = st_diag_set(&d, ST_E_CORRUPT, "the wide value of entry %" PRIu64 " has %zu bytes, its entry says %"
                            PRIu64, entry, vlen, en.data >> (8 * half));
    }
    simtrace_error out = SIMTRACE_OK;
    if (e != ST_OK) {
        out = api_fail(r->msg, e, &d);
    } else if (vlen > size) {
        *len = vlen;
        snprintf(r->msg, sizeof r->msg, "the value has %zu bytes; the buffer %zu", vlen, size);
        out = SIMTRACE_E_BUFFER;
    } else {
        if (vlen)
            memcpy(buf, v, vlen);
        *len = vlen;
    }
    st_values_free(&vals);
    return out;
}

/* ---- cursors ---- */

/* The reading thread's side (sequential). */

static void on_stream(void *arg, const st_stream_info *s)
{
    simtrace_reader *rd = arg;
    simtrace_cursor *c = rd->cur;
    pthread_mutex_lock(&rd->mu);
    if (rd->nseen == rd->capseen) {
        uint32_t nc = rd->capseen ? 2 * rd->capseen : 8;
        st_stream_info *ns = api_malloc(&rd->al, nc * sizeof *ns);
        if (ns) {
            if (rd->nseen)
                memcpy(ns, rd->seen, rd->nseen * sizeof *ns);
            api_free(&rd->al, rd->seen);
            rd->seen = ns;
            rd->capseen = nc;
        }
    }
    if (rd->nseen < rd->capseen) {
        rd->seen[rd->nseen] = *s;
        rd->seen[rd->nseen].entries = rd->seen[rd->nseen].frames = 0;
        rd->nseen++;
    }
    /* later declarations cannot be known on a pipe: the first match binds */
    if (c && !c->bound && (c->want ? strcmp(s->name, c->want) == 0 : st_entry_is_memory(s->type))) {
        c->bound = 1;
        c->id = s->id;
        c->index = rd->nseen - 1;
        c->esz = s->entry_size;
        pthread_cond_broadcast(&c->cv);
    }
    pthread_mutex_unlock(&rd->mu);
}

static int seq_want(void *arg, const st_stream_info *s, const st_frame_ref *f)
{
    simtrace_reader *rd = arg;
    simtrace_cursor *c = rd->cur;
    pthread_mutex_lock(&rd->mu);
    for (uint32_t i = 0; i < rd->nseen; i++)
        if (rd->seen[i].id == s->id) {
            rd->seen[i].frames++;
            rd->seen[i].entries += f->count;
        }
    /* a freed cursor's frame is decoded all the same: its sink ends the read */
    int want = c && (c->stop || (c->bound && s->id == c->id && st_range_wants_frame(&c->rg, f)));
    pthread_mutex_unlock(&rd->mu);
    return want;
}

/* Hand n entries at p over to next(), and wait until it took them. */
static st_error seq_sink(void *arg, const st_stream_info *s, uint64_t first, const uint8_t *p, size_t n)
{
    simtrace_cursor *c = arg;
    pthread_mutex_lock(&c->rd->mu);
    int stop = c->stop;
    pthread_mutex_unlock(&c->rd->mu);
    if (stop)
        return ST_E_INTERNAL; /* the cursor is freed: end the read; nobody hears of it */
    if (!c->bound || s->id != c->id)
        return ST_OK;
    size_t a, b;
    st_error e = st_slice(&c->sl, s, first, p, n, &a, &b, &c->d);
    if (e != ST_OK)
        return e;
    if (b == a)
        return ST_OK;
    pthread_mutex_lock(&c->rd->mu);
    c->batch = p + a * s->entry_size;
    c->batch_n = b - a;
    c->batch_first = first + a;
    pthread_cond_broadcast(&c->cv);
    while (c->batch && !c->stop)
        pthread_cond_wait(&c->cv, &c->rd->mu);
    stop = c->stop;
    c->batch = NULL;
    pthread_mutex_unlock(&c->rd->mu);
    return stop ? ST_E_INTERNAL : ST_OK;
}

static void *seq_thread(void *arg)
{
    simtrace_cursor *c = arg;
    st_diag d;
    st_diag_clear(&d);
    st_error e = st_reader_read_all(c->rd->r, seq_sink, c, &d);
    pthread_mutex_lock(&c->rd->mu);
    if (e != ST_OK && c->d.detail[0] == 0)
        c->d = d;
    c->result = e;
    c->finished = 1;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->rd->mu);
    return NULL;
}

static simtrace_error range_in(const simtrace_range *in, st_range *rg)
{
    if (!in) {
        *rg = (st_range){ST_RANGE_ALL, 0, UINT64_MAX};
        return SIMTRACE_OK;
    }
    if (in->kind > SIMTRACE_RANGE_TIME || in->lo > in->hi)
        return SIMTRACE_E_USAGE;
    static const st_range_kind kinds[] = {ST_RANGE_ALL, ST_RANGE_ENTRIES, ST_RANGE_CYCLES, ST_RANGE_TIME};
    *rg = (st_range){kinds[in->kind], in->kind == SIMTRACE_RANGE_ALL ? 0 : in->lo,
                     in->kind == SIMTRACE_RANGE_ALL ? UINT64_MAX : in->hi};
    return SIMTRACE_OK;
}

static simtrace_error open_random(simtrace_cursor *c, simtrace_reader *r, const char *name)
{
    int i = name ? st_index_find_stream(r->ix, name) : st_index_default_stream(r->ix);
    if (i < 0) {
        snprintf(r->msg, sizeof r->msg, name ? "no stream named '%.255s'" : "the trace holds no stream%s",
                 name ? name : "");
        return SIMTRACE_E_NOT_FOUND;
    }
    const st_stream_info *s = st_index_stream(r->ix, (unsigned)i);
    if (c->rg.kind == ST_RANGE_CYCLES && !st_entry_has_key(s->type)) {
        snprintf(r->msg, sizeof r->msg, "stream '%s' (%s) has no cycles", s->name, s->type_name);
        return SIMTRACE_E_USAGE;
    }
    c->index = (uint32_t)i;
    c->esz = s->entry_size;
    st_diag d;
    st_diag_clear(&d);
    st_error e = st_range_iter_init(&c->it, r->ix, (unsigned)i, &c->rg, &d);
    c->it_live = 1;
    if (e == ST_E_CORRUPT && c->rg.kind == ST_RANGE_CYCLES) /* decrease between frames */
        e = ST_E_CYCLE_ORDER;
    else if (e == ST_E_USAGE && c->rg.kind == ST_RANGE_TIME)
        e = ST_E_UNSUPPORTED;
    return e == ST_OK ? SIMTRACE_OK : api_fail(r->msg, e, &d);
}

static simtrace_error open_sequential(simtrace_cursor *c, simtrace_reader *r, const char *name)
{
    if (r->cursor_made) {
        snprintf(r->msg, sizeof r->msg, "a sequential reader reads its input once: one cursor");
        return SIMTRACE_E_STATE;
    }
    r->cursor_made = 1;
    if (name) {
        snprintf(c->name, sizeof c->name, "%s", name);
        c->want = c->name;
    }
    st_slicer_init(&c->sl, &c->rg, c->rg.lo, c->rg.hi);
    if (pthread_cond_init(&c->cv, NULL) != 0)
        return SIMTRACE_E_THREAD;
    pthread_mutex_lock(&r->mu);
    r->cur = c;
    pthread_mutex_unlock(&r->mu);
    if (st_thread_create(&c->th, seq_thread, c) != 0) {
        r->cur = NULL;
        pthread_cond_destroy(&c->cv);
        return SIMTRACE_E_THREAD;
    }
    c->th_started = 1;
    pthread_mutex_lock(&r->mu);
    while (!c->bound && !c->finished)
        pthread_cond_wait(&c->cv, &r->mu);
    int bound = c->bound;
    st_error res = c->result;
    st_diag d = c->d;
    pthread_mutex_unlock(&r->mu);
    if (bound)
        return SIMTRACE_OK;
    /* the input ended (or failed) before the stream was declared */
    if (res != ST_OK && res != ST_E_TRUNCATED)
        return api_fail(r->msg, res, &d);
    snprintf(r->msg, sizeof r->msg, name ? "no stream named '%.255s'" : "no memory stream in the input%s",
             name ? name : "");
    return SIMTRACE_E_NOT_FOUND;
}

SIMTRACE_API simtrace_error simtrace_cursor_open(simtrace_cursor **out, simtrace_reader *r, const char *name,
                                                 const simtrace_range *range)
{
    if (!out || !r)
        return SIMTRACE_E_USAGE;
    *out = NULL;
    r->msg[0] = 0;
    st_range rg;
    if (range_in(range, &rg) != SIMTRACE_OK)
        return SIMTRACE_E_USAGE;
    simtrace_cursor *c = api_calloc(&r->al, sizeof *c);
    if (!c)
        return SIMTRACE_E_NOMEM;
    c->rd = r;
    c->rg = rg;
    simtrace_error e = r->ix ? open_random(c, r, name) : open_sequential(c, r, name);
    if (e != SIMTRACE_OK) {
        simtrace_cursor_free(c);
        return e;
    }
    *out = c;
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_cursor_stream_info(const simtrace_cursor *c, simtrace_stream_info *info)
{
    if (!c)
        return SIMTRACE_E_USAGE;
    return simtrace_reader_stream_info(c->rd, c->index, info);
}

/* Random access: fill buf from the decoded frames; the entries of one
 * call are consecutive (a cycle range may skip some between frames). */
static st_error next_random(simtrace_cursor *c, uint8_t *buf, size_t room, uint64_t *count, uint64_t *first,
                            st_diag *d)
{
    *count = 0;
    while (room && !c->done) {
        if (!c->pend_n) {
            RETURN_IF_ERROR(st_range_next(&c->it, &c->pend_first, &c->pend, &c->pend_n, d));
            if (!c->pend_n) {
                c->done = 1;
                break;
            }
        }
        if (*count == 0)
            *first = c->pend_first;
        else if (c->pend_first != *first + *count)
            break;
        size_t k = c->pend_n < room ? c->pend_n : room;
        memcpy(buf + *count * c->esz, c->pend, k * c->esz);
        c->pend += k * c->esz;
        c->pend_n -= k;
        c->pend_first += k;
        *count += k;
        room -= k;
    }
    return ST_OK;
}

/* What peek() handed out is done with: the thread may go on (rd->mu held). */
static void release_held(simtrace_cursor *c)
{
    if (!c->held)
        return;
    c->held = 0;
    c->batch = NULL;
    pthread_cond_broadcast(&c->cv);
}

/* Sequential: take from the batches the thread hands over. */
static st_error next_sequential(simtrace_cursor *c, uint8_t *buf, size_t room, uint64_t *count, uint64_t *first,
                                st_diag *d)
{
    *count = 0;
    pthread_mutex_lock(&c->rd->mu);
    release_held(c);
    st_error e = ST_OK;
    while (room) {
        while (!c->batch && !c->finished)
            pthread_cond_wait(&c->cv, &c->rd->mu);
        if (!c->batch) {
            /* the end; an error stays, for this call or the next */
            if (c->result != ST_OK) {
                e = c->result;
                *d = c->d;
            } else {
                c->done = 1;
            }
            break;
        }
        if (*count == 0)
            *first = c->batch_first;
        else if (c->batch_first != *first + *count)
            break; /* a gap: entries of one call are consecutive */
        size_t k = c->batch_n < room ? c->batch_n : room;
        memcpy(buf + *count * c->esz, c->batch, k * c->esz);
        c->batch += k * c->esz;
        c->batch_n -= k;
        c->batch_first += k;
        *count += k;
        room -= k;
        if (!c->batch_n) {
            c->batch = NULL;
            pthread_cond_broadcast(&c->cv);
        }
    }
    pthread_mutex_unlock(&c->rd->mu);
    /* entries delivered before an error are the caller's; the error comes
     * with the next call */
    return *count ? ST_OK : e;
}

SIMTRACE_API simtrace_error simtrace_cursor_next(simtrace_cursor *c, void *buf, size_t size, uint64_t *count,
                                                 uint64_t *first)
{
    if (!c || !buf || !count)
        return SIMTRACE_E_USAGE;
    *count = 0;
    if (c->failed)
        return c->failed;
    if (size < c->esz) {
        snprintf(c->rd->msg, sizeof c->rd->msg, "the buffer (%zu bytes) holds no entry (%zu bytes)", size, c->esz);
        return SIMTRACE_E_BUFFER;
    }
    if (c->done)
        return SIMTRACE_OK;
    st_diag d;
    st_diag_clear(&d);
    uint64_t f0 = 0;
    st_error e = c->rd->ix ? next_random(c, buf, size / c->esz, count, &f0, &d)
                           : next_sequential(c, buf, size / c->esz, count, &f0, &d);
    if (e != ST_OK) {
        *count = 0;
        if (e == ST_E_CORRUPT && (c->rd->ix ? c->it.sl.decreased : c->sl.decreased))
            e = ST_E_CYCLE_ORDER;
        c->failed = api_fail(c->rd->msg, e, &d);
        return c->failed;
    }
    if (first)
        *first = f0;
    return SIMTRACE_OK;
}

/* The next frame's part, without a copy: random access. */
static st_error peek_random(simtrace_cursor *c, const uint8_t **p, uint64_t *count, uint64_t *first, st_diag *d)
{
    if (!c->pend_n && !c->done) {
        RETURN_IF_ERROR(st_range_next(&c->it, &c->pend_first, &c->pend, &c->pend_n, d));
        if (!c->pend_n)
            c->done = 1;
    }
    *p = c->pend;
    *count = c->pend_n;
    *first = c->pend_first;
    c->pend_first += c->pend_n;
    c->pend_n = 0; /* handed out: valid until the next call */
    return ST_OK;
}

/* Sequential: the batch the thread holds out, kept until the next call. */
static st_error peek_sequential(simtrace_cursor *c, const uint8_t **p, uint64_t *count, uint64_t *first, st_diag *d)
{
    st_error e = ST_OK;
    pthread_mutex_lock(&c->rd->mu);
    release_held(c);
    while (!c->batch && !c->finished)
        pthread_cond_wait(&c->cv, &c->rd->mu);
    if (c->batch) {
        *p = c->batch;
        *count = c->batch_n;
        *first = c->batch_first;
        c->held = 1;
    } else if (c->result != ST_OK) {
        e = c->result;
        *d = c->d;
    } else {
        c->done = 1;
    }
    pthread_mutex_unlock(&c->rd->mu);
    return e;
}

SIMTRACE_API simtrace_error simtrace_cursor_peek(simtrace_cursor *c, const void **entries, uint64_t *count,
                                                 uint64_t *first)
{
    if (!c || !entries || !count)
        return SIMTRACE_E_USAGE;
    *count = 0;
    *entries = NULL;
    if (c->failed)
        return c->failed;
    if (c->done)
        return SIMTRACE_OK;
    st_diag d;
    st_diag_clear(&d);
    const uint8_t *p = NULL;
    uint64_t n = 0, f0 = 0;
    st_error e = c->rd->ix ? peek_random(c, &p, &n, &f0, &d) : peek_sequential(c, &p, &n, &f0, &d);
    if (e != ST_OK) {
        if (e == ST_E_CORRUPT && (c->rd->ix ? c->it.sl.decreased : c->sl.decreased))
            e = ST_E_CYCLE_ORDER;
        c->failed = api_fail(c->rd->msg, e, &d);
        return c->failed;
    }
    *entries = n ? p : NULL;
    *count = n;
    if (first)
        *first = f0;
    return SIMTRACE_OK;
}

SIMTRACE_API void simtrace_cursor_free(simtrace_cursor *c)
{
    if (!c)
        return;
    simtrace_reader *r = c->rd;
    if (c->th_started) {
        pthread_mutex_lock(&r->mu);
        c->stop = 1;
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&r->mu);
        pthread_join(c->th, NULL);
        pthread_cond_destroy(&c->cv);
    }
    if (r->cur == c) {
        pthread_mutex_lock(&r->mu);
        r->cur = NULL;
        pthread_mutex_unlock(&r->mu);
    }
    if (c->it_live)
        st_range_iter_free(&c->it);
    api_free(&r->al, c);
}

/* ---- for the statistics (api_stats.c) ---- */

st_index *api_reader_index(simtrace_reader *r) { return r->ix; }

const st_stream_info *api_reader_stream(const simtrace_reader *r, uint32_t index)
{
    return r->ix ? st_index_stream(r->ix, index) : st_reader_stream(r->r, index);
}

st_error api_reader_claim(simtrace_reader *r)
{
    if (r->ix || r->cursor_made)
        return ST_E_STATE;
    r->cursor_made = 1;
    return ST_OK;
}

st_error api_reader_frames(simtrace_reader *r, st_frame_sink sink, void *arg, st_diag *d)
{
    st_reader_set_frame_sink(r->r, sink, arg);
    return st_reader_read_all(r->r, NULL, NULL, d);
}
