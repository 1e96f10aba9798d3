/* api_concat.c - concatenation by copying frames, and repair, of the
 * public API (include/simtrace.h, advanced: packing). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/st_io.h"
#include "../formats/entry.h"
#include "api_internal.h"

SIMTRACE_API void simtrace_concat_params_init(simtrace_concat_params *p)
{
    if (!p)
        return;
    memset(p, 0, sizeof *p);
    p->threads = 1;
}

SIMTRACE_API void simtrace_repair_params_init(simtrace_repair_params *p)
{
    if (p)
        memset(p, 0, sizeof *p);
}

/* Where d says, into a report's place and detail. */
static void place_out(const st_diag *d, uint64_t *offset, uint64_t *frame, uint64_t *stream, char *detail,
                      size_t size)
{
    *offset = d->offset;
    *frame = d->frame;
    *stream = d->stream;
    snprintf(detail, size, "%s", d->detail);
}

/* ---- concatenation ---- */

typedef struct {
    simtrace_writer *w;
    st_reader *r;
    const simtrace_concat_params *p;
    simtrace_concat_report *rep;
    st_diag *d;
    uint32_t *map;   /* input stream id -> w's stream; UINT32_MAX: not yet */
    uint32_t nmap;
    uint64_t *base;  /* entries of each of w's streams before this input */
    uint32_t nbase;  /* w's streams before this input */
    st_buf tmp;
    int writer_err;  /* the failure is the container writer's */
    simtrace_read_io io; /* _io: the caller's callback */
} concat_ctx;

/* The failure of a call on the container writer is noted: it decides
 * whether the writer stays usable. */
static st_error by_writer(concat_ctx *cc, st_error e)
{
    if (e != ST_OK)
        cc->writer_err = 1;
    return e;
}

/* w's stream named as sp, added if new; one of that name must have sp's
 * type and entry size (api_writer_take).  Refusing the stream (its type,
 * its name) leaves the writer as it was; a failure to add it is the
 * writer's. */
static st_error stream_for(concat_ctx *cc, const st_stream_spec *sp, uint32_t *sid)
{
    int had = st_writer_find_stream(cc->w->w, sp->name, sid);
    st_error e = api_writer_take(cc->w, sp, sid, cc->d);
    return had || e == ST_E_USAGE ? e : by_writer(cc, e);
}

/* w's stream for the input's stream id, its owner first (depth: an owner
 * has no owner). */
static st_error map_stream(concat_ctx *cc, uint32_t id, uint32_t *out, int depth)
{
    if (id < cc->nmap && cc->map[id] != UINT32_MAX) {
        *out = cc->map[id];
        return ST_OK;
    }
    const st_stream_info *si = NULL;
    for (unsigned i = 0; i < st_reader_stream_count(cc->r); i++)
        if (st_reader_stream(cc->r, i)->id == id)
            si = st_reader_stream(cc->r, i);
    if (!si || depth > 1)
        return st_diag_set(cc->d, ST_E_BAD_STREAM, "stream %u: owner stream not declared", id);
    st_stream_spec sp = {.name = si->name, .type = si->type, .guid = si->guid, .entry_size = si->entry_size,
                         .type_name = si->type_name, .owner = UINT32_MAX, .header = si->header,
                         .header_len = si->header_len};
    /* the frames keep their encoder; the writer's second stage serves the
     * block frames encoded again */
    sp.params = cc->w->params;
    sp.params.encoder = (svpc_encoder)si->encoder;
    if (si->type == ST_TYPE_VBLOCK && si->owner != UINT32_MAX)
        RETURN_IF_ERROR(map_stream(cc, si->owner, &sp.owner, depth + 1));
    uint32_t sid;
    RETURN_IF_ERROR(stream_for(cc, &sp, &sid));
    uint16_t enc;
    st_writer_stream_type(cc->w->w, sid, &enc, NULL);
    if (enc != si->encoder)
        return st_diag_set(cc->d, ST_E_BAD_STREAM, "stream '%s': encoder %s here, %s in the output", si->name,
                           svpc_encoder_name((svpc_encoder)si->encoder), svpc_encoder_name((svpc_encoder)enc));
    if (id >= cc->nmap) {
        /* ids are 16 bits: the table grows to the largest met */
        uint32_t n = id + 1 > 2 * cc->nmap ? id + 1 : 2 * cc->nmap;
        uint32_t *m = api_malloc(&cc->w->al, n * sizeof *m);
        if (!m)
            return ST_E_NOMEM;
        for (uint32_t i = 0; i < n; i++)
            m[i] = i < cc->nmap ? cc->map[i] : UINT32_MAX;
        api_free(&cc->w->al, cc->map);
        cc->map = m;
        cc->nmap = n;
    }
    cc->map[id] = sid;
    *out = sid;
    return ST_OK;
}

static st_error copy_frame(void *arg, const st_stream_info *s, const st_frame_ref *f, const st_raw_frame *raw)
{
    concat_ctx *cc = arg;
    uint32_t sid;
    RETURN_IF_ERROR(map_stream(cc, s->id, &sid, 0));
    /* blocks name owner entries counted from this input's first */
    uint64_t shift = 0;
    if (s->type == ST_TYPE_VBLOCK && s->owner != UINT32_MAX && s->owner < cc->nmap && cc->map[s->owner] < cc->nbase)
        shift = cc->base[cc->map[s->owner]];
    if (cc->p->progress)
        cc->p->progress(cc->p->progress_opaque);
    if (shift == 0) {
        RETURN_IF_ERROR(by_writer(cc, st_writer_copy_frame(cc->w->w, sid, f, raw)));
    } else {
        RETURN_IF_ERROR(st_raw_frame_decode(s, f, raw, &cc->tmp, cc->d));
        if (!st_vblock_shift_owners(cc->tmp.data, (size_t)f->count, shift))
            return st_diag_set(cc->d, ST_E_TOO_LARGE, "stream '%s': owner index beyond 48 bits", s->name);
        RETURN_IF_ERROR(by_writer(cc, st_writer_append(cc->w->w, sid, cc->tmp.data, (size_t)f->count)));
        cc->rep->renumbered++;
    }
    cc->rep->frames++;
    cc->rep->entries += f->count;
    return ST_OK;
}

/* Read the container on fd (or io) into w, frame by frame. */
static simtrace_error concat(simtrace_writer *w, int fd, const simtrace_read_io *io,
                             const simtrace_concat_params *pp, simtrace_concat_report *rep)
{
    simtrace_concat_report own;
    if (!rep)
        rep = &own;
    memset(rep, 0, sizeof *rep);
    rep->at_offset = rep->at_frame = rep->at_stream = SIMTRACE_UNKNOWN;
    simtrace_concat_params def;
    if (!pp) {
        simtrace_concat_params_init(&def);
        pp = &def;
    }
    if (pp->threads > ST_MAX_THREADS)
        return SIMTRACE_E_USAGE;
    simtrace_error pe = api_writer_usable(w);
    if (pe != SIMTRACE_OK)
        return pe;
    st_diag d;
    st_diag_clear(&d);
    concat_ctx cc = {.w = w, .p = pp, .rep = rep, .d = &d};
    if (io)
        cc.io = *io;
    while (st_writer_stream_type(w->w, cc.nbase, NULL, NULL) != ST_TYPE_NONE)
        cc.nbase++;
    if (cc.nbase && !(cc.base = api_malloc(&w->al, cc.nbase * sizeof *cc.base)))
        return SIMTRACE_E_NOMEM;
    for (uint32_t i = 0; i < cc.nbase; i++)
        cc.base[i] = st_writer_stream_entries(w->w, i);
    st_buf_init(&cc.tmp, 0);
    st_read_opts ro = {.threads = pp->threads ? pp->threads : 1, .frame_sink = copy_frame, .frame_arg = &cc};
    st_error e = io ? st_reader_new_in(&cc.r, api_read_io, &cc.io, &ro, &d) : st_reader_new(&cc.r, fd, &ro, &d);
    if (e == ST_OK) {
        e = st_reader_read_all(cc.r, NULL, NULL, &d);
        /* streams without data frames are added too */
        for (unsigned i = 0; e == ST_OK && i < st_reader_stream_count(cc.r); i++) {
            uint32_t sid;
            e = map_stream(&cc, st_reader_stream(cc.r, i)->id, &sid, 0);
        }
        rep->streams = st_reader_stream_count(cc.r);
    }
    API_KEEP_ERRNO(st_reader_free(cc.r); st_buf_free(&cc.tmp); api_free(&w->al, cc.base);
                   api_free(&w->al, cc.map));
    if (e == ST_OK)
        return SIMTRACE_OK;
    /* a cycle below its stream's last: which stream and entry is what the
     * writer knows (the input's place is kept) */
    if (cc.writer_err && e == ST_E_CYCLE_ORDER && (!d.detail[0] || strcmp(d.detail, st_error_name(e)) == 0))
        snprintf(d.detail, sizeof d.detail, "%s", st_writer_diag(w->w)->detail);
    place_out(&d, &rep->at_offset, &rep->at_frame, &rep->at_stream, rep->detail, sizeof rep->detail);
    if (!cc.writer_err)
        return api_fail(w->msg, e, &d);
    return api_writer_fail(w, e, e == ST_E_CYCLE_ORDER ? st_writer_diag(w->w) : &d);
}

SIMTRACE_API simtrace_error simtrace_writer_concat_fd(simtrace_writer *w, int fd, const simtrace_concat_params *params,
                                                      simtrace_concat_report *rep)
{
    if (fd < 0) {
        if (rep)
            memset(rep, 0, sizeof *rep);
        return SIMTRACE_E_USAGE;
    }
    return concat(w, fd, NULL, params, rep);
}

SIMTRACE_API simtrace_error simtrace_writer_concat_io(simtrace_writer *w, const simtrace_read_io *io,
                                                      const simtrace_concat_params *params,
                                                      simtrace_concat_report *rep)
{
    if (!io || !io->read) {
        if (rep)
            memset(rep, 0, sizeof *rep);
        return SIMTRACE_E_USAGE;
    }
    return concat(w, -1, io, params, rep);
}

SIMTRACE_API simtrace_error simtrace_writer_concat_path(simtrace_writer *w, const char *path,
                                                        const simtrace_concat_params *params,
                                                        simtrace_concat_report *rep)
{
    if (!path || !w)
        return simtrace_writer_concat_fd(w, -1, params, rep);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (rep)
            memset(rep, 0, sizeof *rep);
        snprintf(w->msg, sizeof w->msg, "%.400s: cannot open", path);
        return SIMTRACE_E_READ;
    }
    simtrace_error e = concat(w, fd, NULL, params, rep);
    API_KEEP_ERRNO(close(fd));
    return e;
}

/* ---- repair ---- */

/* Opens the new file of simtrace_repair once the input is known good:
 * its descriptor, or -1 with errno set. */
typedef int (*open_out_fn)(void *arg);

/* The frames [0, end) of fd, byte for byte, to out_fd.  The place of a
 * read failure goes to d. */
static st_error copy_frames(int fd, int out_fd, uint64_t end, st_diag *d, int *output_failed)
{
    enum { CHUNK = 1 << 16 };
    uint8_t *buf = malloc(CHUNK);
    if (!buf)
        return ST_E_NOMEM;
    st_error e = ST_OK;
    for (uint64_t off = 0; off < end && e == ST_OK;) {
        size_t n = end - off < CHUNK ? (size_t)(end - off) : CHUNK;
        ssize_t k = pread(fd, buf, n, (off_t)off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            d->offset = off;
            e = k < 0 ? ST_E_READ : ST_E_TRUNCATED;
            break;
        }
        e = st_write_all(out_fd, buf, (size_t)k);
        *output_failed = e == ST_E_WRITE;
        off += (uint64_t)k;
    }
    free(buf);
    return e;
}

/*
 * The repair: fd the container; the new file is out_fd, or opened by
 * open_out when the input has proved repairable, or neither (out_fd < 0,
 * open_out NULL): in place.
 */
static simtrace_error repair(int fd, int out_fd, open_out_fn open_out, void *out_arg,
                             const simtrace_repair_params *pp, simtrace_repair_report *rep)
{
    memset(rep, 0, sizeof *rep);
    rep->at_offset = rep->at_frame = rep->at_stream = SIMTRACE_UNKNOWN;
    simtrace_repair_params def;
    if (!pp) {
        simtrace_repair_params_init(&def);
        pp = &def;
    }
    if (pp->check_only > 1 || fd < 0)
        return SIMTRACE_E_USAGE;
    st_diag d;
    st_diag_clear(&d);
    st_index *ix;
    st_error e = st_index_open(&ix, fd, &d);
    if (e != ST_OK) {
        place_out(&d, &rep->at_offset, &rep->at_frame, &rep->at_stream, rep->detail, sizeof rep->detail);
        return api_error(e);
    }
    uint64_t end;
    int cut = st_index_recovered(ix, &end, NULL);
    rep->complete = !cut;
    rep->file_size = st_index_file_size(ix);
    rep->frames_end = end;
    rep->lost_bytes = cut ? rep->file_size - end : 0; /* bytes of no frame listed */
    /* complete frames past a damaged header: a directory cannot list them
     * (their sequence numbers would not follow), and cutting them off
     * would destroy their entries */
    rep->frames_after = st_index_frames_after(ix);
    rep->frames = st_index_frame_count(ix);
    for (unsigned i = 0; i < st_index_stream_count(ix); i++)
        rep->entries += st_index_stream(ix, i)->entries;
    int in_place = out_fd < 0 && !open_out;
    if (pp->check_only || (!cut && in_place)) {
        st_index_free(ix);
        return SIMTRACE_OK;
    }
    if (rep->frames_after && in_place) {
        st_index_free(ix);
        rep->refused = 1;
        rep->at_offset = end;
        snprintf(rep->detail, sizeof rep->detail, "a damaged or misplaced frame lies here and complete frames "
                 "follow it from byte offset %llu, which a repair in place would cut off",
                 (unsigned long long)rep->frames_after);
        return SIMTRACE_E_CORRUPT;
    }
    if (!in_place) {
        if (open_out && (out_fd = open_out(out_arg)) < 0) {
            st_index_free(ix);
            rep->output_failed = 1;
            return SIMTRACE_E_WRITE;
        }
        /* the complete frames; the writer adds the end */
        int out_failed = 0;
        e = copy_frames(fd, out_fd, end, &d, &out_failed);
        if (e != ST_OK) {
            st_index_free(ix);
            rep->output_failed = (uint32_t)out_failed;
            place_out(&d, &rep->at_offset, &rep->at_frame, &rep->at_stream, rep->detail, sizeof rep->detail);
            return api_error(e);
        }
    }
    /* no entry is added: the write options only shape the end */
    svpc_params p = {SVPC_ENC_DEFAULT, SVPC_STAGE_LZMA, 6};
    st_write_opts o = {1, ST_DEFAULT_FRAME_ENTRIES, 0, 0};
    st_writer *w;
    e = st_writer_resume(&w, in_place ? fd : out_fd, &o, &p, ix);
    if (e == ST_OK) {
        e = st_writer_finish(w);
        /* a repair in place that could not write its end (a full disk)
         * leaves the file as it was, not with half a directory */
        rep->restored = e != ST_OK && in_place && st_writer_restore(w) == ST_OK;
        st_writer_free(w);
    }
    st_index_free(ix);
    if (e != ST_OK) {
        /* what the index said of the file is not where writing failed */
        rep->output_failed = 1;
        return api_error(e);
    }
    rep->written = 1;
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_repair_fd(int fd, int out_fd, const simtrace_repair_params *params,
                                               simtrace_repair_report *rep)
{
    simtrace_repair_report own;
    return repair(fd, out_fd, NULL, NULL, params, rep ? rep : &own);
}

/* The new file of simtrace_repair: written under a temporary name beside
 * out_path and renamed over it only once complete and on the disk, so
 * that a failure, a crash or a full disk leaves a file of that name as it
 * was.  Something not a regular file at out_path (a device, a FIFO) is
 * written directly: renaming would replace the node. */
typedef struct {
    const char *path;
    char *tmp; /* the temporary name; NULL: writing path directly */
    int fd;
} out_file;

static int open_out_file(void *arg)
{
    static atomic_uint serial; /* distinct names for repairs run in parallel */
    out_file *of = arg;
    struct stat so;
    if (stat(of->path, &so) == 0 && !S_ISREG(so.st_mode))
        return of->fd = open(of->path, O_WRONLY | O_CLOEXEC);
    size_t room = strlen(of->path) + 40;
    if (!(of->tmp = malloc(room)))
        return -1;
    for (unsigned tries = 0; tries < 100; tries++) {
        snprintf(of->tmp, room, "%s.tmp%ld.%u", of->path, (long)getpid(), atomic_fetch_add(&serial, 1u));
        /* (O_EXCL: never another's file; 0666 as a plain create, less umask) */
        if ((of->fd = open(of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666)) >= 0 || errno != EEXIST)
            break;
    }
    if (of->fd < 0) {
        free(of->tmp);
        of->tmp = NULL;
    }
    return of->fd;
}

/* The end of out_file's writing: on success synced, closed and renamed
 * into place; otherwise the temporary file removed.  Returns e, or
 * SIMTRACE_E_WRITE when finishing failed. */
static simtrace_error close_out_file(out_file *of, simtrace_error e, simtrace_repair_report *rep)
{
    if (e == SIMTRACE_OK && (fsync(of->fd) != 0 || close(of->fd) != 0 || (of->tmp && rename(of->tmp, of->path) != 0)))
        e = SIMTRACE_E_WRITE, rep->output_failed = 1;
    else if (e != SIMTRACE_OK)
        API_KEEP_ERRNO(close(of->fd));
    if (e != SIMTRACE_OK && of->tmp)
        API_KEEP_ERRNO(unlink(of->tmp));
    free(of->tmp);
    return e;
}

SIMTRACE_API simtrace_error simtrace_repair(const char *path, const char *out_path,
                                            const simtrace_repair_params *params, simtrace_repair_report *rep)
{
    simtrace_repair_report own;
    if (!rep)
        rep = &own;
    memset(rep, 0, sizeof *rep);
    if (!path)
        return SIMTRACE_E_USAGE;
    int check = params && params->check_only;
    int fd = open(path, out_path || check ? O_RDONLY | O_CLOEXEC : O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return SIMTRACE_E_READ;
    struct stat si, so;
    if (out_path && !check && fstat(fd, &si) == 0 && stat(out_path, &so) == 0 && si.st_dev == so.st_dev &&
        si.st_ino == so.st_ino) {
        close(fd);
        return SIMTRACE_E_USAGE;
    }
    out_file of = {out_path, NULL, -1};
    simtrace_error e = repair(fd, -1, out_path ? open_out_file : NULL, &of, params, rep);
    if (of.fd >= 0)
        e = close_out_file(&of, e, rep);
    else if (e == SIMTRACE_OK && rep->written && fsync(fd) != 0) /* in place: on the disk before we say so */
        e = SIMTRACE_E_WRITE, rep->output_failed = 1;
    API_KEEP_ERRNO(close(fd));
    return e;
}
