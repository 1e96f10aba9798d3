/* api_append.c - appending in place (include/simtrace.h, advanced:
 * appending in place): a container reopened for writing, streams taken by
 * name, and the end of a writer that says what became of its container. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../formats/entry.h"
#include "api_internal.h"

/* Open the index of the container at fd and say what it holds; *ix is
 * left open only on success.  The one home of the rule that complete
 * frames after a damaged one refuse an append. */
static simtrace_error examine(int fd, st_index **ix, simtrace_reopen_report *rep)
{
    memset(rep, 0, sizeof *rep);
    api_place_set(&rep->where, NULL);
    *ix = NULL;
    if (fd < 0)
        return SIMTRACE_E_USAGE;
    st_diag d;
    st_diag_clear(&d);
    st_error e = st_index_open(ix, fd, &d);
    if (e != ST_OK) {
        api_place_set(&rep->where, &d);
        return api_error(e);
    }
    api_recovery_info(*ix, &rep->found);
    if (rep->found.frames_after) {
        /* appending starts where the frames listed end: the complete
         * frames after the damage would be overwritten */
        st_index_free(*ix);
        *ix = NULL;
        rep->refused = 1;
        rep->where.offset = rep->found.frames_end;
        snprintf(rep->where.detail, sizeof rep->where.detail,
                 "a damaged or misplaced frame lies here and complete frames follow it from byte offset %llu, "
                 "which appending would overwrite",
                 (unsigned long long)rep->found.frames_after);
        return SIMTRACE_E_CORRUPT;
    }
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_reopen_check_fd(int fd, simtrace_reopen_report *rep)
{
    simtrace_reopen_report own;
    st_index *ix;
    simtrace_error e = examine(fd, &ix, rep ? rep : &own);
    st_index_free(ix);
    return e;
}

/* w's records of the streams of the container it continues (ix's, in
 * their order, which is the container writer's): their names, and the
 * companion of each owner of wide values, for simtrace_writer_write and
 * _write_wide on them. */
static simtrace_error keep_records(simtrace_writer *w, const st_index *ix)
{
    unsigned n = st_index_stream_count(ix);
    if (!n)
        return SIMTRACE_OK;
    if (!(w->s = api_malloc(&w->al, n * sizeof *w->s)))
        return SIMTRACE_E_NOMEM;
    w->cap = w->ns = n;
    for (unsigned i = 0; i < n; i++) {
        w->s[i].vdata = UINT32_MAX;
        snprintf(w->s[i].name, sizeof w->s[i].name, "%s", st_index_stream(ix, i)->name);
    }
    for (unsigned i = 0; i < n; i++) {
        const st_stream_info *si = st_index_stream(ix, i);
        for (unsigned o = 0; si->type == ST_TYPE_VBLOCK && o < n; o++)
            if (st_index_stream(ix, o)->id == si->owner && w->s[o].vdata == UINT32_MAX)
                w->s[o].vdata = i;
    }
    return SIMTRACE_OK;
}

/* The reopening; exactly one of path, fd >= 0 is the container. */
static simtrace_error reopen(simtrace_writer **out, const char *path, int fd, const simtrace_write_params *pp,
                             simtrace_reopen_report *rep)
{
    simtrace_reopen_report own;
    if (!rep)
        rep = &own;
    memset(rep, 0, sizeof *rep);
    api_place_set(&rep->where, NULL);
    simtrace_writer *w;
    st_write_opts o;
    simtrace_error e = api_writer_prepare(out, pp, path, O_RDWR | O_CLOEXEC, SIMTRACE_E_READ, fd, &w, &o);
    if (e != SIMTRACE_OK)
        return e;
    st_index *ix = NULL;
    e = examine(w->fd, &ix, rep);
    if (e == SIMTRACE_OK)
        e = keep_records(w, ix);
    /* from here on the container has no directory until the writer ends */
    if (e == SIMTRACE_OK)
        e = api_error(st_writer_resume(&w->w, w->fd, &o, &w->params, ix));
    API_KEEP_ERRNO(st_index_free(ix));
    if (e != SIMTRACE_OK) {
        API_KEEP_ERRNO(simtrace_writer_free(w));
        return e;
    }
    w->reopened = 1;
    *out = w;
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_writer_reopen_path(simtrace_writer **w, const char *path,
                                                        const simtrace_write_params *params,
                                                        simtrace_reopen_report *rep)
{
    return reopen(w, path, -1, params, rep); /* path NULL: no container (SIMTRACE_E_USAGE) */
}

SIMTRACE_API simtrace_error simtrace_writer_reopen_fd(simtrace_writer **w, int fd, const simtrace_write_params *params,
                                                      simtrace_reopen_report *rep)
{
    return reopen(w, NULL, fd, params, rep);
}

SIMTRACE_API simtrace_error simtrace_writer_take_stream(simtrace_writer *w, const char *name, int type,
                                                        const uint8_t *guid, uint32_t entry_size,
                                                        const char *type_name, uint32_t *id)
{
    simtrace_error pe = api_writer_usable(w);
    if (pe != SIMTRACE_OK)
        return pe;
    if (!name || !id || type <= ST_TYPE_NONE || type > ST_TYPE_LAST)
        return SIMTRACE_E_USAGE;
    st_stream_spec sp = {.name = name, .type = (st_entry_type)type, .owner = UINT32_MAX};
    if (type == ST_TYPE_USER) {
        sp.guid = guid;
        sp.entry_size = entry_size;
        sp.type_name = type_name;
    }
    sp.params = api_stream_params(api_writer_params(w), sp.type);
    st_diag d;
    st_diag_clear(&d);
    uint32_t sid;
    st_error e = api_writer_take(w, &sp, &sid, &d);
    if (e == ST_OK) {
        *id = sid;
        return SIMTRACE_OK;
    }
    /* a failure of the writer is in its message already */
    return d.detail[0] ? api_fail(w->msg, e, &d) : (simtrace_error)api_error(e);
}

SIMTRACE_API simtrace_error simtrace_writer_end(simtrace_writer *w, int finish, uint32_t *state)
{
    if (!w || (finish != 0 && finish != 1))
        return SIMTRACE_E_USAGE;
    if (w->closed) {
        snprintf(w->msg, sizeof w->msg, "the trace is closed");
        return SIMTRACE_E_STATE;
    }
    w->closed = 1;
    w->msg[0] = 0;
    /* the container writer knows whether its output failed: a failure of
     * this layer alone (a bad input) leaves what it wrote sound */
    st_error e = finish ? st_writer_finish(w->w) : ST_OK;
    uint32_t end = e == ST_OK && finish ? SIMTRACE_END_COMPLETE : SIMTRACE_END_NO_DIRECTORY;
    if (end != SIMTRACE_END_COMPLETE && w->reopened) {
        /* not left without its directory: with new frames written whole
         * it ends after them (their entries may have come from a pipe, and
         * cannot be read again); with none, or if that end cannot be
         * written either, it is put back as it was */
        st_write_stats st;
        st_writer_stats(w->w, &st);
        if (st.entries_written && st_writer_end_written(w->w) == ST_OK)
            end = SIMTRACE_END_KEPT;
        else if (st_writer_restore(w->w) == ST_OK)
            end = SIMTRACE_END_RESTORED;
        else if (e == ST_OK)
            e = ST_E_WRITE;
    }
    if (state)
        *state = end;
    return e == ST_OK ? SIMTRACE_OK : api_fail(w->msg, e, NULL);
}
