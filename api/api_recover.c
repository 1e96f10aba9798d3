/* api_recover.c - the recovery calls of the public API (include/simtrace.h,
 * advanced: recovery): frames/recover.c decides what is lost and what can
 * be read on; this passes its reports on in the public structs. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../frames/recover.h"
#include "api_internal.h"

_Static_assert(SIMTRACE_DAMAGE_FRAME == (int)ST_DAMAGE_FRAME && SIMTRACE_DAMAGE_CUT == (int)ST_DAMAGE_CUT &&
                   SIMTRACE_DAMAGE_OTHER == (int)ST_DAMAGE_OTHER && SIMTRACE_DAMAGE_STOP == (int)ST_DAMAGE_STOP,
               "public and internal damage kinds differ");
_Static_assert(sizeof(((simtrace_recovery_info *)0)->reason) == sizeof(((st_diag *)0)->detail),
               "the reason of simtrace_recovery_info holds a diagnostic's detail");

/* The caller's callbacks behind frames/recover.c's. */
typedef struct {
    const st_index *ix;
    simtrace_salvage_fn entries_fn;
    simtrace_damage_fn damage_fn;
    void *opaque;
    int refused, refused_errno; /* a callback returned nonzero, and errno then */
    st_diag stop;               /* where a SIMTRACE_DAMAGE_STOP failure was */
} relay;

/* The reader's list index of stream id, UINT32_MAX if none. */
static uint32_t index_of(const st_index *ix, uint32_t id)
{
    for (unsigned i = 0; i < st_index_stream_count(ix); i++)
        if (st_index_stream(ix, i)->id == id)
            return i;
    return UINT32_MAX;
}

static st_error refuse(relay *rl)
{
    rl->refused = 1;
    rl->refused_errno = errno;
    return ST_E_WRITE;
}

static st_error relay_entries(void *arg, uint64_t first, const uint8_t *p, size_t n)
{
    relay *rl = arg;
    return rl->entries_fn(rl->opaque, first, p, n) == 0 ? ST_OK : refuse(rl);
}

static st_error relay_damage(void *arg, const st_damage *dm)
{
    relay *rl = arg;
    if (dm->kind == ST_DAMAGE_STOP)
        rl->stop = *dm->d;
    if (!rl->damage_fn)
        return ST_OK;
    simtrace_damage o;
    memset(&o, 0, sizeof o);
    o.kind = (uint32_t)dm->kind;
    o.stream = index_of(rl->ix, dm->f->stream);
    o.error = (uint32_t)api_error(dm->e);
    o.seq = dm->f->seq;
    o.offset = dm->f->offset;
    o.first_entry = dm->f->first_entry;
    o.entries = dm->f->count;
    o.at_offset = dm->d->offset;
    o.at_frame = dm->d->frame;
    o.at_stream = dm->d->stream;
    o.detail = dm->d->detail;
    /* a stop ends the call whatever the callback says */
    return rl->damage_fn(rl->opaque, &o) == 0 || dm->kind == ST_DAMAGE_STOP ? ST_OK : refuse(rl);
}

static st_recover_cb relay_init(relay *rl, const st_index *ix, simtrace_salvage_fn entries_fn,
                                simtrace_damage_fn damage_fn, void *opaque)
{
    memset(rl, 0, sizeof *rl);
    rl->ix = ix;
    rl->entries_fn = entries_fn;
    rl->damage_fn = damage_fn;
    rl->opaque = opaque;
    st_diag_clear(&rl->stop);
    return (st_recover_cb){relay_entries, relay_damage, rl};
}

/* The end of a recovery call: its message, and errno as a refusing
 * callback left it. */
static simtrace_error finish(char *msg, st_error e, const relay *rl, const st_diag *d)
{
    if (e == ST_OK)
        return SIMTRACE_OK;
    if (rl->refused) {
        snprintf(msg, API_MSG_MAX, "stopped by the caller's callback");
        errno = rl->refused_errno;
        return SIMTRACE_E_WRITE;
    }
    return api_fail(msg, e, d);
}

/* r's index, or NULL with the message and *pe set. */
st_index *api_random_index(simtrace_reader *r, const char *what, simtrace_error *pe)
{
    char *msg = api_reader_msg(r);
    msg[0] = 0;
    st_index *ix = api_reader_index(r);
    if (!ix) {
        snprintf(msg, API_MSG_MAX, "%s needs random access (a regular file)", what);
        *pe = SIMTRACE_E_STATE;
    }
    return ix;
}

SIMTRACE_API simtrace_error simtrace_salvage(simtrace_reader *r, const char *stream, simtrace_salvage_fn entries_fn,
                                             simtrace_damage_fn damage_fn, void *opaque,
                                             simtrace_salvage_report *report)
{
    if (!r || !entries_fn)
        return SIMTRACE_E_USAGE;
    simtrace_error pe;
    st_index *ix = api_random_index(r, "a salvage", &pe);
    if (!ix)
        return pe;
    char *msg = api_reader_msg(r);
    uint32_t si;
    if (simtrace_reader_find_stream(r, stream, &si) != SIMTRACE_OK) {
        if (stream)
            snprintf(msg, API_MSG_MAX, "no stream named '%.255s'", stream);
        else
            snprintf(msg, API_MSG_MAX, "the trace holds no stream");
        return SIMTRACE_E_NOT_FOUND;
    }
    relay rl;
    st_recover_cb cb = relay_init(&rl, ix, entries_fn, damage_fn, opaque);
    st_salvage_report rep;
    st_error e = st_salvage(ix, si, &cb, &rep);
    if (report) {
        memset(report, 0, sizeof *report);
        report->stream = si;
        report->no_directory = (uint32_t)rep.no_directory;
        report->entries_salvaged = rep.salvaged;
        report->frames_lost = rep.lost_frames;
        report->entries_lost = rep.lost_entries;
        report->cut_off = rep.cut != NULL;
        if (rep.cut) {
            report->cut_offset = rep.cut->offset;
            report->cut_first_entry = rep.cut->first_entry;
            report->cut_entries = rep.cut->count;
        }
        report->frames_after = st_index_frames_after(ix);
    }
    if (e == ST_E_STATE) {
        uint64_t end = 0;
        st_index_recovered(ix, &end, NULL);
        snprintf(msg, API_MSG_MAX, "no valid directory and footer, and a damaged frame at byte offset %" PRIu64
                 " that complete frames follow from byte offset %" PRIu64 ": read the file in file order",
                 end, st_index_frames_after(ix));
        return SIMTRACE_E_STATE;
    }
    return finish(msg, e, &rl, &rl.stop);
}

SIMTRACE_API simtrace_error simtrace_resume(simtrace_reader *r, uint32_t index, uint64_t from,
                                            uint64_t damage_offset, simtrace_salvage_fn entries_fn,
                                            simtrace_damage_fn damage_fn, void *opaque)
{
    if (!r || !entries_fn)
        return SIMTRACE_E_USAGE;
    simtrace_error pe;
    st_index *ix = api_random_index(r, "reading past damage", &pe);
    if (!ix)
        return pe;
    char *msg = api_reader_msg(r);
    const st_stream_info *s = st_index_stream(ix, index);
    if (!s) {
        snprintf(msg, API_MSG_MAX, "no stream %u (the trace has %u)", index, st_index_stream_count(ix));
        return SIMTRACE_E_RANGE;
    }
    relay rl;
    st_recover_cb cb = relay_init(&rl, ix, entries_fn, damage_fn, opaque);
    st_diag d;
    st_diag_clear(&d);
    st_error e = st_resume(ix, index, damage_offset, from, &cb, &d);
    if (e == ST_E_NOT_FOUND) {
        snprintf(msg, API_MSG_MAX, "byte offset %" PRIu64 " lies in no frame of another stream than '%s': the "
                 "stream does not go on past it", damage_offset, s->name);
        return SIMTRACE_E_NOT_FOUND;
    }
    return finish(msg, e, &rl, &d);
}

void api_recovery_info(const st_index *ix, simtrace_recovery_info *info)
{
    st_recovery rc;
    st_index_recovery(ix, &rc);
    memset(info, 0, sizeof *info);
    info->complete = !rc.recovered;
    info->frames = rc.frames;
    info->entries = rc.entries;
    info->frames_end = rc.frames_end;
    info->file_size = rc.file_size;
    info->frames_after = rc.frames_after;
    info->tail_lost = (uint32_t)rc.tail_lost;
    info->tail_stream = UINT32_MAX;
    info->tail_offset = rc.tail_offset;
    for (unsigned i = 0; rc.tail_lost && i < st_index_stream_count(ix); i++)
        if (st_index_stream(ix, i)->id == rc.tail_stream)
            info->tail_stream = i;
    if (rc.recovered)
        memcpy(info->reason, rc.why.detail, sizeof info->reason);
}

SIMTRACE_API simtrace_error simtrace_reader_recovery(simtrace_reader *r, simtrace_recovery_info *info)
{
    if (!r || !info)
        return SIMTRACE_E_USAGE;
    simtrace_error pe;
    st_index *ix = api_random_index(r, "the state of repair", &pe);
    if (!ix)
        return pe;
    api_recovery_info(ix, info);
    return SIMTRACE_OK;
}
