/* api_range.c - the public API's calls for reading parts of streams and
 * merging them (include/simtrace.h, "ranges and merging"): the entry
 * types' kinds, ranges past a stream's end, the frame a cycle range starts
 * from, the frame cut off at a file's end, and wide values through the
 * index.  The rules themselves live in formats/entry.c and frames/range.c;
 * these calls put them behind the public types. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/entry.h"
#include "../frames/range.h"
#include "api_internal.h"

SIMTRACE_API int simtrace_type_is_memory(int type) { return st_entry_is_memory((st_entry_type)type); }

SIMTRACE_API int simtrace_type_has_cycles(int type) { return st_entry_has_key((st_entry_type)type); }

simtrace_error api_range_in(const simtrace_range *in, st_range *rg)
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

SIMTRACE_API int simtrace_range_entries_past(const simtrace_range *range, uint64_t entries, uint64_t *from,
                                             uint64_t *missing)
{
    st_range rg;
    uint64_t f = 0, m = 0;
    if (!range || api_range_in(range, &rg) != SIMTRACE_OK)
        return 0;
    int past = st_range_entries_past(&rg, entries, &f, &m);
    if (past == 2 && from)
        *from = f;
    if (past == 2 && missing)
        *missing = m;
    return past;
}

SIMTRACE_API int simtrace_range_window_past(const simtrace_range *range, uint64_t frames, uint64_t last)
{
    st_range rg;
    if (!range || api_range_in(range, &rg) != SIMTRACE_OK)
        return 0;
    return st_range_window_past(&rg, frames, last);
}

/* r's index, with stream *index in it (index NULL: any), else the failure
 * (and r's message); out is the call's out parameter, which may not be
 * NULL. */
static simtrace_error random_index(simtrace_reader *r, const uint32_t *index, const void *out, st_index **ix)
{
    if (!r || !out)
        return SIMTRACE_E_USAGE;
    simtrace_error pe = SIMTRACE_OK;
    if (!(*ix = api_random_index(r, "this call", &pe)))
        return pe;
    if (index && !st_index_stream(*ix, *index)) {
        snprintf(api_reader_msg(r), API_MSG_MAX, "no stream %u (the trace has %u)", *index,
                 st_index_stream_count(*ix));
        return SIMTRACE_E_RANGE;
    }
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_reader_find_cycle_frame(simtrace_reader *r, uint32_t index, uint64_t cycle,
                                                             uint64_t *frame)
{
    st_index *ix;
    simtrace_error pe = random_index(r, &index, frame, &ix);
    if (pe != SIMTRACE_OK)
        return pe;
    if (!st_entry_has_key(st_index_stream(ix, index)->type))
        return SIMTRACE_E_USAGE;
    *frame = st_index_lower_key(ix, index, cycle);
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_reader_cut_frame(simtrace_reader *r, simtrace_cut_frame *cut)
{
    st_index *ix;
    simtrace_error pe = random_index(r, NULL, cut, &ix);
    if (pe != SIMTRACE_OK)
        return pe;
    const st_frame_ref *c = st_index_cut_frame(ix);
    if (!c)
        return SIMTRACE_E_NOT_FOUND;
    memset(cut, 0, sizeof *cut);
    cut->stream = UINT32_MAX;
    for (unsigned i = 0; i < st_index_stream_count(ix); i++)
        if (st_index_stream(ix, i)->id == c->stream)
            cut->stream = i;
    cut->has_time = (c->flags & ST_FRAME_REF_TIMED) != 0;
    cut->offset = c->offset;
    cut->first_entry = c->first_entry;
    cut->entries = c->count;
    cut->first_cycle = c->first_cycle;
    cut->first_time = cut->has_time ? c->first_time : 0;
    cut->whole = (uint64_t)st_index_cut_whole(ix);
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_reader_stream_header(const simtrace_reader *r, uint32_t index,
                                                          const void **header, size_t *len)
{
    uint32_t n;
    if (!header || !len || simtrace_reader_stream_count(r, &n) != SIMTRACE_OK)
        return SIMTRACE_E_USAGE;
    if (index >= n)
        return SIMTRACE_E_RANGE;
    const st_stream_info *s = api_reader_stream(r, index);
    *header = s->header_len ? s->header : NULL;
    *len = s->header_len;
    return SIMTRACE_OK;
}

/* ---- wide values ---- */

struct simtrace_values {
    simtrace_reader *r;
    st_values v;
    st_diag d; /* where v describes its failures */
};

SIMTRACE_API simtrace_error simtrace_values_open(simtrace_values **v, simtrace_reader *r, uint32_t index)
{
    if (!v)
        return SIMTRACE_E_USAGE;
    *v = NULL;
    st_index *ix;
    simtrace_error pe = random_index(r, &index, v, &ix);
    if (pe != SIMTRACE_OK)
        return pe;
    simtrace_values *h = malloc(sizeof *h);
    if (!h)
        return SIMTRACE_E_NOMEM;
    h->r = r;
    st_diag_clear(&h->d);
    st_values_init(&h->v, ix, index, &h->d);
    *v = h;
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_values_get(void *v, uint64_t entry, const void **value, size_t *len)
{
    simtrace_values *h = v;
    if (!h || !value || !len)
        return SIMTRACE_E_USAGE;
    const uint8_t *p = NULL;
    st_diag_clear(&h->d);
    st_error e = st_values_get(&h->v, entry, &p, len);
    *value = p;
    return e == ST_OK ? SIMTRACE_OK : api_reader_fail(h->r, e, &h->d);
}

SIMTRACE_API void simtrace_values_free(simtrace_values *v)
{
    if (!v)
        return;
    st_values_free(&v->v);
    free(v);
}
