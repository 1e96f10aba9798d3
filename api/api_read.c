/* api_read.c - the reader and cursors of the public API
 * (include/simtrace.h): random access through the index of frames/, and
 * sequential reading, where the cursor pulls the container reader's
 * decoded frames (st_reader_next) on the caller's thread. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/st_io.h"
#include "../formats/entry.h"
#include "../frames/range.h"
#include "../frames/recover.h"
#include "api_internal.h"

struct simtrace_reader {
    api_alloc al;
    int fd, own_fd;
    simtrace_read_params p;
    char msg[API_MSG_MAX];
    /* random access */
    st_index *ix;
    st_buf tmp;          /* a frame decoded by a lookup */
    /* sequential: the container reader, pulled by the cursor */
    st_reader *r;
    simtrace_read_io io;
    simtrace_cursor *cur; /* the one cursor, NULL before it */
    int cursor_made;      /* a cursor, or simtrace_reader_next_frame, reads the input */
    int all_frames;       /* simtrace_reader_next_frame: every frame is decoded */
    st_diag next_d;       /* the reader's own, through simtrace_reader_next_frame,
                             or the open's (open_failed) */
    st_error open_failed; /* kept by keep_failed: every read gives it */
    int next_failed;      /* simtrace_reader_next_frame failed: next_d says where */
    /* the streams seen so far, with the frames and entries read of each */
    st_stream_info *seen;
    uint32_t nseen, capseen;
    /* simtrace_reader_open_seq: the caller's options, and the pick rule's state */
    simtrace_seq_params seq;
    int seq_open;
    char seq_name[ST_MAX_NAME + 1];
    st_seq_pick seq_pk;
    st_range seq_rg;      /* simtrace_seq_params.range, cutting the stream read */
    st_slicer seq_sl;
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
    /* sequential: the frame pulled last, and how the reading ended */
    char name[ST_MAX_NAME + 1];
    st_range rg;
    st_slicer sl;
    st_seq_pick pk;       /* which stream is read: chosen, pk.id */
    st_buf hold;          /* the entries of a stream held back (ST_PICK_HOLD) */
    uint64_t hold_first;
    const uint8_t *batch; /* entries of the range not yet taken, of the frame */
    size_t batch_n;       /* pulled last (valid until the next pull) */
    uint64_t batch_first;
    int ended;            /* the reader gave its end or an error: result */
    st_error result;
    st_diag d;            /* what result says */
    st_diag rd_d;         /* the reader's own, through the pulls */
};

SIMTRACE_API void simtrace_read_params_init(simtrace_read_params *p)
{
    if (!p)
        return;
    memset(p, 0, sizeof *p);
    p->threads = 1;
}

/* ---- opening ---- */

/* Called from st_reader_next (sequential reads). */
static st_error on_stream(void *arg, const st_stream_info *s);
static int seq_want(void *arg, const st_stream_info *s, const st_frame_ref *f);
static void seq_options(simtrace_reader *rd, const simtrace_seq_params *seq, st_read_opts *ro);
static uint32_t seq_pick_now(const simtrace_reader *rd, const st_stream_info *s);
static st_error seq_cut(simtrace_reader *rd, st_frame_out *o);

static simtrace_error open_reader(simtrace_reader **out, const char *path, int fd, const simtrace_read_io *io,
                                  const simtrace_read_params *pp, const simtrace_seq_params *seq)
{
    if (!out)
        return SIMTRACE_E_USAGE;
    *out = NULL;
    simtrace_read_params def;
    if (!pp) {
        simtrace_read_params_init(&def);
        pp = &def;
    }
    if (pp->threads > ST_MAX_THREADS || pp->ignore_check > 1 || pp->keep_failed > 1)
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
    if (!io && !seq && fstat(rd->fd, &st) == 0 && S_ISREG(st.st_mode)) {
        e = st_index_open(&rd->ix, rd->fd, &d);
        if (e == ST_OK) {
            st_index_set_memlimit(rd->ix, rd->p.memlimit);
            st_index_set_ignore_check(rd->ix, (int)rd->p.ignore_check);
        }
    } else {
        st_read_opts ro = {.threads = rd->p.threads, .ignore_check = (int)rd->p.ignore_check,
                           .memlimit = rd->p.memlimit, .want = seq_want, .want_arg = rd,
                           .on_stream = on_stream, .stream_arg = rd};
        if (seq)
            seq_options(rd, seq, &ro);
        if (io) {
            rd->io = *io;
            e = st_reader_new_in(&rd->r, api_read_io, &rd->io, &ro, &d);
        } else {
            e = st_reader_new(&rd->r, rd->fd, &ro, &d);
        }
    }
    if (e != ST_OK && rd->p.keep_failed && e != ST_E_NOMEM && e != ST_E_USAGE) {
        /* the handle stays to say what and where; it reads nothing more */
        st_index_free(rd->ix);
        st_reader_free(rd->r);
        rd->ix = NULL;
        rd->r = NULL;
        rd->next_d = d;
        rd->open_failed = e;
        *out = rd;
        return api_fail(rd->msg, e, &d);
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
    return open_reader(r, path, -1, NULL, params, NULL);
}

SIMTRACE_API simtrace_error simtrace_reader_open_fd(simtrace_reader **r, int fd, const simtrace_read_params *params)
{
    if (fd < 0)
        return SIMTRACE_E_USAGE;
    return open_reader(r, NULL, fd, NULL, params, NULL);
}

SIMTRACE_API simtrace_error simtrace_reader_open_io(simtrace_reader **r, const simtrace_read_io *io,
                                                    const simtrace_read_params *params)
{
    if (!io || !io->read)
        return SIMTRACE_E_USAGE;
    return open_reader(r, NULL, -1, io, params, NULL);
}

SIMTRACE_API int simtrace_reader_random_access(const simtrace_reader *r) { return r ? r->ix != NULL : -1; }

SIMTRACE_API const char *simtrace_reader_message(const simtrace_reader *r) { return r ? r->msg : ""; }

st_index *api_reader_index(simtrace_reader *r) { return r->ix; }

char *api_reader_msg(simtrace_reader *r) { return r->msg; }

SIMTRACE_API int simtrace_reader_complete(simtrace_reader *r)
{
    if (!r || !r->ix)
        return -1; /* a sequential reader meets the end at the cursor's end */
    r->msg[0] = 0;
    st_recovery rc;
    st_index_recovery(r->ix, &rc);
    if (!rc.recovered)
        return 1;
    const st_frame_ref *cut = st_index_cut_frame(r->ix);
    const char *cut_stream = "?", *tail_stream = NULL;
    for (unsigned i = 0; i < st_index_stream_count(r->ix); i++) {
        if (cut && st_index_stream(r->ix, i)->id == cut->stream)
            cut_stream = st_index_stream(r->ix, i)->name;
        if (rc.tail_lost && st_index_stream(r->ix, i)->id == rc.tail_stream)
            tail_stream = st_index_stream(r->ix, i)->name;
    }
    int n = snprintf(r->msg, sizeof r->msg, "no valid directory and footer (%.160s): read through its frame "
                     "headers, %" PRIu64 " complete data frame%s (%" PRIu64 " entries) up to byte offset %" PRIu64
                     " of %" PRIu64, rc.why.detail, rc.frames, rc.frames == 1 ? "" : "s", rc.entries, rc.frames_end,
                     rc.file_size);
    size_t room = n >= 0 && (size_t)n < sizeof r->msg ? sizeof r->msg - (size_t)n : 0;
    if (room && rc.frames_after)
        snprintf(r->msg + n, room, "; complete frames from byte offset %" PRIu64 " on, after a damaged one, are not "
                 "read", rc.frames_after);
    if (room && !rc.frames_after && cut) {
        int m = snprintf(r->msg + n, room, "; entries %" PRIu64 "..%" PRIu64 " of stream '%.255s' are in the frame %s "
                         "there", cut->first_entry, cut->first_entry + cut->count - 1, cut_stream,
                         st_index_cut_whole(r->ix) ? "whose payload fails its checksum" : "cut off");
        n += m > 0 ? m : 0;
        room = (size_t)n < sizeof r->msg ? sizeof r->msg - (size_t)n : 0;
    }
    if (room && rc.tail_lost)
        snprintf(r->msg + n, room, "; the %" PRIu64 " bytes from byte offset %" PRIu64 " are not a whole frame, and "
                 "may have held entries of %s%.255s%s", rc.file_size - rc.tail_offset, rc.tail_offset,
                 tail_stream ? "stream '" : "any stream", tail_stream ? tail_stream : "", tail_stream ? "'" : "");
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
    *count = r->nseen;
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
    if (index >= r->nseen)
        return SIMTRACE_E_RANGE;
    info_out(r, index, &r->seen[index], info);
    return SIMTRACE_OK;
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
        if (!name)
            i = st_default_stream(r->nseen, seen_get, r);
        for (uint32_t k = 0; name && k < r->nseen && i < 0; k++)
            if (strcmp(r->seen[k].name, name) == 0)
                i = (int)k;
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
    st_error e = st_range_iter_init(&it, r->ix, index, &rg, r->p.threads, &d);
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
        return api_reader_fail(r, e, &d);
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

/* The reader's callbacks (sequential), called inside st_reader_next. */

static int seq_head_want(simtrace_reader *rd, const st_stream_info *s, const st_frame_ref *f);

/* The reader's list grows with each descriptor read: a stream it could
 * not record would shift every later stream's index, so that fails the
 * read instead. */
static st_error on_stream(void *arg, const st_stream_info *s)
{
    simtrace_reader *rd = arg;
    if (rd->nseen == rd->capseen) {
        uint32_t nc = rd->capseen ? 2 * rd->capseen : 8;
        st_stream_info *ns = api_malloc(&rd->al, nc * sizeof *ns);
        if (!ns)
            return ST_E_NOMEM;
        if (rd->nseen)
            memcpy(ns, rd->seen, rd->nseen * sizeof *ns);
        api_free(&rd->al, rd->seen);
        rd->seen = ns;
        rd->capseen = nc;
    }
    rd->seen[rd->nseen] = *s;
    rd->seen[rd->nseen].entries = rd->seen[rd->nseen].frames = 0;
    rd->nseen++;
    return ST_OK;
}

static int seq_want(void *arg, const st_stream_info *s, const st_frame_ref *f)
{
    simtrace_reader *rd = arg;
    simtrace_cursor *c = rd->cur;
    for (uint32_t i = 0; i < rd->nseen; i++)
        if (rd->seen[i].id == s->id) {
            rd->seen[i].frames++;
            rd->seen[i].entries += f->count;
        }
    if (rd->seq_open)
        return seq_head_want(rd, s, f);
    if (!c)
        return rd->all_frames;
    int dropped;
    int pick = st_seq_pick_frame(&c->pk, rd->r, s, &dropped);
    if (dropped) {
        /* a memory stream replaces the held stream, which starts over */
        c->hold.len = 0;
        st_slicer_init(&c->sl, &c->rg, c->rg.lo, c->rg.hi);
    }
    return pick != ST_PICK_SKIP && st_range_wants_frame(&c->rg, f);
}

/* The stream read is known (c->pk): the cursor takes it. */
static void seq_bind(simtrace_cursor *c)
{
    const simtrace_reader *rd = c->rd;
    for (uint32_t i = 0; i < rd->nseen; i++)
        if (rd->seen[i].id == c->pk.id)
            c->index = i;
    for (unsigned i = 0; i < st_reader_stream_count(rd->r); i++)
        if (st_reader_stream(rd->r, i)->id == c->pk.id)
            c->esz = st_reader_stream(rd->r, i)->entry_size;
}

/* A frame of the held stream: keep its part of the range (bounded). */
static st_error seq_hold(simtrace_cursor *c, const st_frame_out *f)
{
    size_t a, b;
    RETURN_IF_ERROR(st_slice(&c->sl, f->s, f->first, f->entries, f->n, &a, &b, &c->d));
    if (b > a && !c->hold.len)
        c->hold_first = f->first + a;
    st_error e = st_buf_append(&c->hold, f->entries + a * f->s->entry_size, (b - a) * f->s->entry_size);
    if (e != ST_E_MEMLIMIT)
        return e;
    /* a pipe cannot be read twice: only the caller can settle it */
    return st_diag_set(&c->d, ST_E_USAGE, "cannot choose the default stream: the first stream, '%s' (%s), is not "
                       "a memory stream, and read sequentially it is the default only if no memory stream is "
                       "declared after it, which is known only at the end of the input; more than %u MiB of it "
                       "would have to be held until then: name the stream", f->s->name, f->s->type_name,
                       (unsigned)(ST_SEQ_HOLD_MAX >> 20));
}

/* The input ended: a held stream, or a named stream without data frames,
 * is the stream read after all. */
static void seq_end(simtrace_cursor *c)
{
    const simtrace_reader *rd = c->rd;
    if (st_seq_pick_end(&c->pk)) {
        seq_bind(c);
        c->batch = c->hold.data;
        c->batch_n = c->esz ? c->hold.len / c->esz : 0;
        c->batch_first = c->hold_first;
    }
    for (uint32_t i = 0; !c->pk.chosen && c->pk.name && i < rd->nseen; i++)
        if (strcmp(rd->seen[i].name, c->pk.name) == 0) {
            c->pk.chosen = 1;
            c->pk.id = rd->seen[i].id;
        }
}

/* Pull the reader's next frame: its part of the range becomes the batch,
 * or the reading ends (c->ended, with c->result and c->d). */
static void seq_pull(simtrace_cursor *c)
{
    st_frame_out f;
    st_error e = st_reader_next(c->rd->r, &f, &c->rd_d);
    if (e != ST_OK)
        c->d = c->rd_d;
    /* frames come out after want() saw them: a held stream's may be
     * replaced by then */
    if (e == ST_OK && f.s && c->pk.chosen && f.s->id == c->pk.id) {
        size_t a, b;
        e = st_slice(&c->sl, f.s, f.first, f.entries, f.n, &a, &b, &c->d);
        c->batch = f.entries + a * f.s->entry_size;
        c->batch_n = e == ST_OK ? b - a : 0;
        c->batch_first = f.first + a;
    } else if (e == ST_OK && f.s && c->pk.held && f.s->id == c->pk.hid) {
        e = seq_hold(c, &f);
    }
    if (e == ST_OK && !f.s)
        seq_end(c);
    if (e != ST_OK || !f.s) {
        c->ended = 1;
        c->result = e;
    }
}

/* Pull until entries of the range are at hand, or the end. */
static void seq_fill(simtrace_cursor *c)
{
    while (!c->batch_n && !c->ended)
        seq_pull(c);
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
    /* (a cycle range of a type without cycles: st_range_iter_init says so) */
    c->index = (uint32_t)i;
    c->esz = s->entry_size;
    st_diag d;
    st_diag_clear(&d);
    st_error e = st_range_iter_init(&c->it, r->ix, (unsigned)i, &c->rg, r->p.threads, &d);
    c->it_live = 1;
    if (e == ST_E_CORRUPT && c->rg.kind == ST_RANGE_CYCLES) /* decrease between frames */
        e = ST_E_CYCLE_ORDER;
    else if (e == ST_E_USAGE && c->rg.kind == ST_RANGE_TIME)
        e = ST_E_UNSUPPORTED;
    return e == ST_OK ? SIMTRACE_OK : api_reader_fail(r, e, &d);
}

static simtrace_error open_sequential(simtrace_cursor *c, simtrace_reader *r, const char *name)
{
    if (r->cursor_made || r->seq_open) {
        snprintf(r->msg, sizeof r->msg, "a sequential reader reads its input once: one cursor");
        return SIMTRACE_E_STATE;
    }
    r->cursor_made = 1;
    if (name) {
        snprintf(c->name, sizeof c->name, "%s", name);
        c->pk.name = c->name;
    }
    st_slicer_init(&c->sl, &c->rg, c->rg.lo, c->rg.hi);
    st_buf_init(&c->hold, ST_SEQ_HOLD_MAX);
    st_diag_clear(&c->rd_d);
    r->cur = c;
    while (!c->pk.chosen && !c->ended)
        seq_pull(c);
    if (c->pk.chosen) {
        seq_bind(c);
        return SIMTRACE_OK;
    }
    /* the input ended (or failed) before a frame of the stream came */
    if (c->result != ST_OK && c->result != ST_E_TRUNCATED)
        return api_fail(r->msg, c->result, &c->d);
    snprintf(r->msg, sizeof r->msg, name ? "no stream named '%.255s'" : "the trace holds no stream%s",
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
    if (api_range_in(range, &rg) != SIMTRACE_OK)
        return SIMTRACE_E_USAGE;
    if (r->open_failed)
        return api_fail(r->msg, r->open_failed, &r->next_d);
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

/* Sequential: take from the frames pulled. */
static st_error next_sequential(simtrace_cursor *c, uint8_t *buf, size_t room, uint64_t *count, uint64_t *first,
                                st_diag *d)
{
    *count = 0;
    st_error e = ST_OK;
    while (room) {
        seq_fill(c);
        if (!c->batch_n) {
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
    }
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
        c->failed = api_reader_fail(c->rd, e, &d);
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

/* Sequential: what is left of the frame pulled last, or of the next; it
 * stays the reader's until the next pull, at the next call. */
static st_error peek_sequential(simtrace_cursor *c, const uint8_t **p, uint64_t *count, uint64_t *first, st_diag *d)
{
    seq_fill(c);
    *p = c->batch;
    *count = c->batch_n;
    *first = c->batch_first;
    if (c->batch_n) {
        c->batch_first += c->batch_n;
        c->batch_n = 0;
    } else if (c->result != ST_OK) {
        *d = c->d;
        return c->result;
    } else {
        c->done = 1;
    }
    return ST_OK;
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
        c->failed = api_reader_fail(c->rd, e, &d);
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
    if (r->cur == c)
        r->cur = NULL;
    st_buf_free(&c->hold);
    if (c->it_live)
        st_range_iter_free(&c->it);
    api_free(&r->al, c);
}

/* ---- advanced: frames ---- */

SIMTRACE_API simtrace_error simtrace_reader_next_frame(simtrace_reader *r, simtrace_frame *f)
{
    if (!r || !f)
        return SIMTRACE_E_USAGE;
    memset(f, 0, sizeof *f);
    if (r->open_failed)
        return api_fail(r->msg, r->open_failed, &r->next_d);
    if (!r->r || (r->cursor_made && !r->all_frames)) {
        snprintf(r->msg, sizeof r->msg, r->r ? "a sequential reader reads its input once: its cursor does"
                                             : "this call reads sequentially (a pipe); a file has random access");
        return SIMTRACE_E_STATE;
    }
    if (!r->cursor_made) {
        r->cursor_made = 1;
        r->all_frames = 1;
        st_diag_clear(&r->next_d);
    }
    r->msg[0] = 0;
    st_frame_out o;
    st_error e;
    uint32_t pick = SIMTRACE_PICK_SKIP;
    /* (a frame of no entries, or none in the range, would read as the end) */
    while ((e = st_reader_next(r->r, &o, &r->next_d)) == ST_OK && o.s) {
        pick = seq_pick_now(r, o.s);
        if (pick != SIMTRACE_PICK_SKIP && r->seq_rg.kind != ST_RANGE_ALL)
            e = seq_cut(r, &o);
        if (e != ST_OK || o.n)
            break;
    }
    if (e != ST_OK) {
        r->next_failed = 1;
        return api_fail(r->msg, e, &r->next_d);
    }
    if (!o.s)
        return SIMTRACE_OK;
    for (uint32_t i = 0; i < r->nseen; i++)
        if (r->seen[i].id == o.s->id)
            f->index = i;
    f->pick = pick;
    f->first_entry = o.first;
    f->seq = o.seq;
    f->offset = o.offset;
    f->count = o.n;
    f->entries = o.n ? o.entries : NULL;
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_reader_place(const simtrace_reader *r, simtrace_input_place *where)
{
    if (!r || !where)
        return SIMTRACE_E_USAGE;
    api_place_set(where, r->next_failed || r->open_failed ? &r->next_d : NULL);
    return SIMTRACE_OK;
}

/* ---- for the ranges (api_range.c) ---- */

simtrace_error api_reader_fail(simtrace_reader *r, st_error e, const st_diag *d)
{
    if (d)
        r->next_d = *d;
    else
        st_diag_clear(&r->next_d);
    r->next_failed = 1;
    return api_fail(r->msg, e, d);
}

SIMTRACE_API simtrace_error simtrace_cursor_frames_decoded(const simtrace_cursor *c, uint64_t *frames)
{
    if (!c || !frames)
        return SIMTRACE_E_USAGE;
    if (!c->rd->ix)
        return SIMTRACE_E_STATE;
    *frames = c->it.decoded;
    return SIMTRACE_OK;
}

/* ---- for the statistics (api_stats.c) ---- */

const st_stream_info *api_reader_stream(const simtrace_reader *r, uint32_t index)
{
    return r->ix ? st_index_stream(r->ix, index) : st_reader_stream(r->r, index);
}

st_error api_reader_claim(simtrace_reader *r)
{
    if (r->open_failed)
        return r->open_failed;
    if (r->ix || r->cursor_made)
        return ST_E_STATE;
    r->cursor_made = 1;
    return ST_OK;
}

st_error api_reader_pull_frame(simtrace_reader *r, st_frame_sink sink, void *arg, int *more, st_diag *d)
{
    st_reader_set_frame_sink(r->r, sink, arg);
    st_frame_out o;
    st_error e = st_reader_next(r->r, &o, d);
    *more = e == ST_OK && o.sunk;
    return e;
}

/* ---- advanced: the sequential reader's options ---- */

_Static_assert(SIMTRACE_SEQ_HOLD_MAX == ST_SEQ_HOLD_MAX, "the public hold bound is the pick rule's own");
_Static_assert((int)SIMTRACE_PICK_SKIP == (int)ST_PICK_SKIP && (int)SIMTRACE_PICK_READ == (int)ST_PICK_READ &&
                   (int)SIMTRACE_PICK_HOLD == (int)ST_PICK_HOLD, "simtrace_pick is the pick rule's own word");

static uint32_t seen_index(const simtrace_reader *rd, const st_stream_info *s)
{
    for (uint32_t i = 0; s && i < rd->nseen; i++)
        if (rd->seen[i].id == s->id)
            return i;
    return UINT32_MAX;
}

/* A data frame's header, for the caller's want: the pick rule's word on
 * it first, so that the rule stays the library's (st_seq_pick_frame). */
static int seq_head_want(simtrace_reader *rd, const st_stream_info *s, const st_frame_ref *f)
{
    simtrace_frame_head h;
    memset(&h, 0, sizeof h);
    int dropped;
    h.pick = (uint32_t)st_seq_pick_frame(&rd->seq_pk, rd->r, s, &dropped);
    h.dropped = (uint32_t)dropped;
    if (dropped) /* the memory stream's range starts over, as a cursor's does */
        st_slicer_init(&rd->seq_sl, &rd->seq_rg, rd->seq_rg.lo, rd->seq_rg.hi);
    h.index = seen_index(rd, s);
    h.timed = (f->flags & ST_FRAME_REF_TIMED) != 0;
    h.seq = f->seq;
    h.offset = f->offset;
    h.size = f->size;
    h.first_entry = f->first_entry;
    h.count = f->count;
    h.first_cycle = f->first_cycle;
    h.last_cycle = f->last_cycle;
    h.first_time = f->first_time;
    h.last_time = f->last_time;
    int want = rd->seq.want ? rd->seq.want(rd->seq.want_opaque, &h) : 1;
    /* frames of the stream read that its range cannot touch: not decoded */
    return want && (h.pick == SIMTRACE_PICK_SKIP || st_range_wants_frame(&rd->seq_rg, f));
}

/* The pick rule's word on the stream of a frame delivered now (frames come
 * out after want() saw them: a held stream's may be replaced by then). */
static uint32_t seq_pick_now(const simtrace_reader *rd, const st_stream_info *s)
{
    if (!rd->seq_open)
        return SIMTRACE_PICK_SKIP;
    if (rd->seq_pk.chosen)
        return s->id == rd->seq_pk.id ? SIMTRACE_PICK_READ : SIMTRACE_PICK_SKIP;
    return rd->seq_pk.held && s->id == rd->seq_pk.hid ? SIMTRACE_PICK_HOLD : SIMTRACE_PICK_SKIP;
}

/* A frame of the stream read (or held) cut to simtrace_seq_params.range by
 * the library's slicer, the one home of the range rule and its errors. */
static st_error seq_cut(simtrace_reader *rd, st_frame_out *o)
{
    size_t a, b;
    /* (next_d is the frame reader's running place: a damaged frame after
     * this one is reported where it says, so only a failure here sets it) */
    st_diag sd;
    st_diag_clear(&sd);
    st_error e = st_slice(&rd->seq_sl, o->s, o->first, o->entries, o->n, &a, &b, &sd);
    if (e != ST_OK) {
        rd->next_d = sd;
        return e;
    }
    o->entries += a * o->s->entry_size;
    o->first += a;
    o->n = b - a;
    return ST_OK;
}

/* The frame reader's damage (st_read_opts.on_damage, its cases told apart
 * as its comment says) as the caller's simtrace_damage. */
static st_error seq_damage(void *arg, const st_stream_info *s, const st_frame_ref *f, st_error e, const st_diag *d)
{
    simtrace_reader *rd = arg;
    simtrace_damage o;
    memset(&o, 0, sizeof o);
    o.kind = !s ? (f->kind == ST_FRAME_REF_DATA ? SIMTRACE_DAMAGE_UNDECLARED : SIMTRACE_DAMAGE_GAP)
           : f->ordinal == ST_DIAG_UNKNOWN ? SIMTRACE_DAMAGE_LOST : SIMTRACE_DAMAGE_FRAME;
    o.stream = seen_index(rd, s);
    o.error = (uint32_t)api_error(e);
    o.seq = f->seq;
    o.offset = f->offset;
    o.size = f->size;
    o.first_entry = f->first_entry;
    o.entries = f->count;
    o.at_offset = d ? d->offset : ST_DIAG_UNKNOWN;
    o.at_frame = d ? d->frame : ST_DIAG_UNKNOWN;
    o.at_stream = d ? d->stream : ST_DIAG_UNKNOWN;
    o.detail = d ? d->detail : "";
    return rd->seq.damage(rd->seq.damage_opaque, &o) == 0 ? ST_OK : ST_E_WRITE;
}

static void seq_options(simtrace_reader *rd, const simtrace_seq_params *seq, st_read_opts *ro)
{
    rd->seq = *seq;
    rd->seq_open = 1;
    if (seq->stream) {
        snprintf(rd->seq_name, sizeof rd->seq_name, "%s", seq->stream);
        rd->seq_pk.name = rd->seq_name;
    }
    rd->seq_pk.types = seq->stream ? 0 : seq->stream_types;
    rd->seq.stream = NULL; /* (the copy in seq_name is the one kept) */
    api_range_in(seq->range, &rd->seq_rg); /* (checked by simtrace_reader_open_seq) */
    rd->seq.range = NULL;  /* (so is seq_rg) */
    st_slicer_init(&rd->seq_sl, &rd->seq_rg, rd->seq_rg.lo, rd->seq_rg.hi);
    ro->verify_only = (int)seq->verify_only;
    ro->resync = (int)seq->resync;
    if (seq->damage) {
        ro->on_damage = seq_damage;
        ro->damage_arg = rd;
    }
}

SIMTRACE_API simtrace_error simtrace_reader_open_seq(simtrace_reader **r, int fd, const simtrace_read_params *params,
                                                     const simtrace_seq_params *seq)
{
    if (r)
        *r = NULL;
    if (fd < 0 || !seq || seq->verify_only > 1 || seq->resync > 1 || (seq->resync && !seq->damage) ||
        (seq->stream && strlen(seq->stream) > ST_MAX_NAME))
        return SIMTRACE_E_USAGE;
    st_range rg;
    if (api_range_in(seq->range, &rg) != SIMTRACE_OK)
        return SIMTRACE_E_USAGE;
    if ((seq->stream && seq->stream_types) || seq->reserved32)
        return SIMTRACE_E_USAGE;
    for (int t = 0; t < 32; t++)
        if ((seq->stream_types >> t & 1u) && !st_entry_known(t))
            return SIMTRACE_E_USAGE;
    for (size_t i = 0; i < sizeof seq->reserved / sizeof seq->reserved[0]; i++)
        if (seq->reserved[i])
            return SIMTRACE_E_USAGE;
    return open_reader(r, NULL, fd, NULL, params, seq);
}

SIMTRACE_API simtrace_error simtrace_reader_pick_end(simtrace_reader *r, uint32_t *index, int *first_held)
{
    if (!r || !index || !first_held)
        return SIMTRACE_E_USAGE;
    if (!r->seq_open)
        return SIMTRACE_E_STATE;
    *first_held = st_seq_pick_end(&r->seq_pk);
    if (!r->seq_pk.chosen)
        return SIMTRACE_E_NOT_FOUND;
    for (uint32_t i = 0; i < r->nseen; i++)
        if (r->seen[i].id == r->seq_pk.id)
            *index = i;
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_reader_pick_state(const simtrace_reader *r, uint32_t *read, uint32_t *held)
{
    if (!r || !read || !held)
        return SIMTRACE_E_USAGE;
    if (!r->seq_open)
        return SIMTRACE_E_STATE;
    *read = *held = UINT32_MAX;
    for (uint32_t i = 0; i < r->nseen; i++) {
        if (r->seq_pk.chosen && r->seen[i].id == r->seq_pk.id)
            *read = i;
        if (!r->seq_pk.chosen && r->seq_pk.held && r->seen[i].id == r->seq_pk.hid)
            *held = i;
    }
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_reader_bytes_read(const simtrace_reader *r, uint64_t *bytes)
{
    if (!r || !bytes)
        return SIMTRACE_E_USAGE;
    if (r->r)
        *bytes = st_reader_offset(r->r);
    else if (r->ix)
        *bytes = st_index_bytes_read(r->ix);
    else
        return SIMTRACE_E_STATE;
    return SIMTRACE_OK;
}
