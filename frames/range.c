/* range.c - reading part of one stream: default stream, frame selection,
 * slicing, past-the-end checks, cycle lookup, wide values (range.h). */
#include <inttypes.h>
#include <string.h>

#include "range.h"

int st_default_stream(unsigned n, const st_stream_info *(*get)(const void *src, unsigned i), const void *src)
{
    for (unsigned i = 0; i < n; i++)
        if (st_entry_is_memory(get(src, i)->type))
            return (int)i;
    return n ? 0 : -1;
}

static const st_stream_info *index_get(const void *ix, unsigned i) { return st_index_stream(ix, i); }

int st_index_default_stream(const st_index *ix)
{
    return st_default_stream(st_index_stream_count(ix), index_get, ix);
}

int st_index_values_stream(const st_index *ix, uint32_t owner)
{
    for (unsigned i = 0; i < st_index_stream_count(ix); i++) {
        const st_stream_info *s = st_index_stream(ix, i);
        if (s->type == ST_TYPE_VBLOCK && s->owner == owner)
            return (int)i;
    }
    return -1;
}

st_error st_range_select(const st_index *ix, unsigned si, const st_range *rg, st_range_sel *sel, st_diag *d)
{
    const st_stream_info *s = st_index_stream(ix, si);
    if (!s)
        return ST_E_RANGE;
    uint64_t nf = st_index_stream_frames(ix, si);
    sel->j0 = 0;
    sel->j1 = nf;
    sel->lo = 0;
    sel->hi = s->entries;
    switch (rg->kind) {
    case ST_RANGE_ALL:
        return ST_OK;
    case ST_RANGE_ENTRIES:
        /* what exists of the range */
        sel->lo = rg->lo < s->entries ? rg->lo : s->entries;
        sel->hi = rg->hi < s->entries ? rg->hi : s->entries;
        if (sel->hi < sel->lo)
            sel->hi = sel->lo;
        if (sel->lo == sel->hi) {
            sel->j0 = sel->j1 = 0;
            return ST_OK;
        }
        RETURN_IF_ERROR(st_index_find_entry(ix, si, sel->lo, &sel->j0));
        RETURN_IF_ERROR(st_index_find_entry(ix, si, sel->hi - 1, &sel->j1));
        sel->j1++;
        return ST_OK;
    case ST_RANGE_CYCLES: {
        if (!st_entry_has_key(s->type))
            return st_diag_set(d, ST_E_USAGE, "stream '%s' (%s) has no cycles", s->name, s->type_name);
        if (!st_index_keys_ordered(ix, si))
            return st_diag_set(d, ST_E_CORRUPT, "the cycles of stream '%s' decrease between frames; --cycles "
                               "needs non-decreasing cycles (use --entries)", s->name);
        const st_frame_ref *last = st_index_stream_frame(ix, si, nf ? nf - 1 : 0);
        if (!last || rg->lo > last->last_cycle) {
            sel->j0 = sel->j1 = 0; /* an empty window */
            return ST_OK;
        }
        sel->j0 = st_index_lower_key(ix, si, rg->lo);
        sel->j1 = rg->hi != UINT64_MAX ? st_index_lower_key(ix, si, rg->hi) : nf;
        if (sel->j1 < nf)
            sel->j1++; /* the frame where the cycles reach hi may still hold some below it */
        return ST_OK;
    }
    case ST_RANGE_TIME:
        if (!st_index_times_ordered(ix, si))
            return st_diag_set(d, ST_E_USAGE, "stream '%s' has no ordered frame times (pack with --timestamps)",
                               s->name);
        sel->j0 = st_index_lower_time(ix, si, rg->lo);
        sel->j1 = sel->j0;
        while (sel->j1 < nf && st_index_stream_frame(ix, si, sel->j1)->first_time < rg->hi)
            sel->j1++;
        return ST_OK; /* past the last frame: an empty window */
    }
    return ST_E_USAGE;
}

void st_slicer_init(st_slicer *sl, const st_range *rg, uint64_t lo, uint64_t hi)
{
    sl->rg = *rg;
    sl->lo = lo;
    sl->hi = hi;
    sl->last_cycle = 0;
    sl->seen_any = 0;
    sl->decreased = 0;
}

st_error st_slice(st_slicer *sl, const st_stream_info *s, uint64_t first, const uint8_t *p, size_t n, size_t *a,
                  size_t *b, st_diag *d)
{
    *a = 0;
    *b = n;
    if (sl->rg.kind == ST_RANGE_ENTRIES || sl->rg.kind == ST_RANGE_ALL) {
        uint64_t lo = sl->rg.kind == ST_RANGE_ALL ? 0 : sl->lo, hi = sl->rg.kind == ST_RANGE_ALL ? UINT64_MAX : sl->hi;
        *a = lo > first ? (size_t)(lo - first < n ? lo - first : n) : 0;
        *b = hi > first ? (size_t)(hi - first < n ? hi - first : n) : 0;
        if (*b < *a)
            *b = *a;
        return ST_OK;
    }
    if (sl->rg.kind == ST_RANGE_CYCLES) {
        size_t esz = s->entry_size, i;
        /* every entry decoded is checked: a decrease makes a cycle range ill-defined */
        for (i = 0; i < n; i++) {
            uint64_t c = st_load64(p + i * esz) & ST_CYCLE_MASK;
            if (sl->seen_any && c < sl->last_cycle && (sl->decreased = 1))
                return st_diag_set(d, ST_E_CORRUPT, "cycles decrease at entry %" PRIu64 " of stream '%s'; --cycles "
                                   "needs non-decreasing cycles (use --entries)", first + i, s->name);
            sl->seen_any = 1;
            sl->last_cycle = c;
        }
        for (i = 0; i < n && (st_load64(p + i * esz) & ST_CYCLE_MASK) < sl->rg.lo; i++)
            ;
        *a = i;
        for (; i < n && (st_load64(p + i * esz) & ST_CYCLE_MASK) < sl->rg.hi; i++)
            ;
        *b = i;
    }
    return ST_OK; /* times: whole frames */
}

int st_range_wants_frame(const st_range *rg, const st_frame_ref *f)
{
    if (rg->kind == ST_RANGE_ENTRIES)
        return f->first_entry + f->count > rg->lo && f->first_entry < rg->hi;
    if (rg->kind == ST_RANGE_TIME)
        return (f->flags & ST_FRAME_REF_TIMED) && f->last_time >= rg->lo && f->first_time < rg->hi;
    return 1;
}

st_error st_range_iter_init(st_range_iter *it, st_index *ix, unsigned si, const st_range *rg, unsigned threads,
                            st_diag *d)
{
    memset(it, 0, sizeof *it);
    st_buf_init(&it->buf, 0);
    it->ix = ix;
    it->si = si;
    RETURN_IF_ERROR(st_range_select(ix, si, rg, &it->sel, d));
    st_slicer_init(&it->sl, rg, it->sel.lo, it->sel.hi);
    it->j = it->sel.j0;
    /* (one frame gains nothing from a pool: it decodes on one thread;
     * under a memory limit, fewer threads rather than refusing frames) */
    threads = st_memlimit_threads(threads, st_index_memlimit(ix));
    if (threads > 1 && it->sel.j1 - it->sel.j0 > 1) {
        if (threads > it->sel.j1 - it->sel.j0)
            threads = (unsigned)(it->sel.j1 - it->sel.j0);
        st_error e = st_pool_init(&it->pool, &st_frame_jobs, threads, threads);
        it->pooled = 1; /* (st_pool_destroy undoes a pool made in part) */
        RETURN_IF_ERROR(e);
    }
    return ST_OK;
}

/* Frame position j's entries [from, stop) of the range: an entry range
 * ends inside its last frame (decode no further) and starts inside its
 * first (keep nothing before); a cycle range looks at every entry. */
static const st_frame_ref *range_frame(const st_range_iter *it, uint64_t j, uint64_t *from, uint64_t *stop)
{
    const st_frame_ref *r = st_index_stream_frame(it->ix, it->si, j);
    *stop = r->count;
    *from = 0;
    if (it->sl.rg.kind == ST_RANGE_ENTRIES && it->sel.hi - r->first_entry < *stop)
        *stop = it->sel.hi - r->first_entry;
    if (it->sl.rg.kind == ST_RANGE_ENTRIES && it->sel.lo > r->first_entry)
        *from = it->sel.lo - r->first_entry;
    return r;
}

/* Of a decoded frame (its first entry ffirst, n entries at data), the
 * entries the range takes: *got 1 with *first, *p, *k set when there are
 * some. */
static st_error take_slice(st_range_iter *it, uint64_t ffirst, const uint8_t *data, size_t n, uint64_t *first,
                           const uint8_t **p, size_t *k, int *got, st_diag *d)
{
    const st_stream_info *s = st_index_stream(it->ix, it->si);
    size_t a, b;
    it->decoded++;
    RETURN_IF_ERROR(st_slice(&it->sl, s, ffirst, data, n, &a, &b, d));
    *got = b > a;
    if (*got) {
        *first = ffirst + a;
        *p = data + a * s->entry_size;
        *k = b - a;
    }
    return ST_OK;
}

/* st_range_next with a pool: frames submitted while a slot is free, taken
 * back in order; a frame that could not be submitted (unreadable, over
 * the memory limit) is said once those before it are handed out. */
static st_error next_pooled(st_range_iter *it, uint64_t *first, const uint8_t **p, size_t *n, st_diag *d)
{
    if (it->held) {
        st_pool_pop(&it->pool);
        it->held = 0;
    }
    for (;;) {
        st_job *j;
        while (it->pend == ST_OK && it->j < it->sel.j1 && (j = st_pool_slot(&it->pool)) != NULL) {
            uint64_t from, stop;
            const st_frame_ref *r = range_frame(it, it->j, &from, &stop);
            st_diag_clear(&it->pend_diag);
            it->pend = st_index_frame_job(it->ix, r->ordinal, from, stop, it->pool.nthreads, j, &it->pend_diag);
            if (it->pend == ST_OK) {
                st_pool_submit(&it->pool);
                it->j++;
            }
        }
        if ((j = st_pool_head(&it->pool)) == NULL) {
            if (it->pend != ST_OK && d)
                *d = it->pend_diag;
            return it->pend;
        }
        if (j->err != ST_OK) {
            if (d) {
                *d = j->diag;
                st_diag_frame(d, j->offset, j->ordinal, j->h.kind, j->h.stream, j->h.seq);
            }
            return j->err;
        }
        int got;
        RETURN_IF_ERROR(take_slice(it, j->h.first_entry, j->out.data, j->stop ? j->stop : j->n, first, p, n, &got, d));
        if (got) {
            it->held = 1;
            return ST_OK;
        }
        st_pool_pop(&it->pool);
    }
}

st_error st_range_next(st_range_iter *it, uint64_t *first, const uint8_t **p, size_t *n, st_diag *d)
{
    *n = 0;
    *p = NULL;
    *first = 0;
    if (it->pooled)
        return next_pooled(it, first, p, n, d);
    while (it->j < it->sel.j1) {
        uint64_t from, stop;
        const st_frame_ref *r = range_frame(it, it->j++, &from, &stop);
        RETURN_IF_ERROR(st_index_decode_part(it->ix, r->ordinal, from, stop, &it->buf, d));
        int got;
        RETURN_IF_ERROR(take_slice(it, r->first_entry, it->buf.data, (size_t)stop, first, p, n, &got, d));
        if (got)
            return ST_OK;
    }
    return ST_OK;
}

void st_range_iter_free(st_range_iter *it)
{
    st_buf_free(&it->buf);
    if (it->pooled)
        st_pool_destroy(&it->pool);
}

int st_range_entries_past(const st_range *rg, uint64_t n, uint64_t *from, uint64_t *missing)
{
    int open = rg->hi == UINT64_MAX;
    if (rg->kind != ST_RANGE_ENTRIES || (rg->lo <= n && (open || rg->hi <= n)))
        return 0;
    *from = rg->lo > n ? rg->lo : n;
    *missing = open ? 0 : rg->hi - *from;
    return open || rg->lo >= n ? 1 : 2;
}

int st_range_window_past(const st_range *rg, uint64_t frames, uint64_t last)
{
    if (rg->kind != ST_RANGE_CYCLES && rg->kind != ST_RANGE_TIME)
        return 0;
    return !frames || rg->lo > last;
}

st_error st_index_find_cycle(st_index *ix, unsigned si, uint64_t cycle, uint64_t *entry, st_buf *buf, st_diag *d)
{
    const st_stream_info *s = st_index_stream(ix, si);
    if (!s)
        return ST_E_RANGE;
    if (!st_entry_has_key(s->type))
        return st_diag_set(d, ST_E_USAGE, "stream '%s' (%s) has no cycles", s->name, s->type_name);
    if (!st_index_keys_ordered(ix, si))
        return st_diag_set(d, ST_E_CYCLE_ORDER, "the cycles of stream '%s' decrease between frames", s->name);
    uint64_t nf = st_index_stream_frames(ix, si), j = st_index_lower_key(ix, si, cycle);
    if (j >= nf) {
        *entry = s->entries;
        return ST_OK;
    }
    const st_frame_ref *r = st_index_stream_frame(ix, si, j);
    if (r->first_cycle >= cycle) {
        *entry = r->first_entry; /* the frame's header says it: nothing to decode */
        return ST_OK;
    }
    RETURN_IF_ERROR(st_index_decode_frame(ix, r->ordinal, buf, d));
    /* the frame's cycles must not decrease either, or the answer is not one */
    size_t esz = s->entry_size, at = (size_t)r->count;
    uint64_t prev = 0;
    for (size_t i = 0; i < r->count; i++) {
        uint64_t c = st_load64(buf->data + i * esz) & ST_CYCLE_MASK;
        if (i && c < prev)
            return st_diag_set(d, ST_E_CYCLE_ORDER, "cycles decrease at entry %" PRIu64 " of stream '%s'",
                               r->first_entry + i, s->name);
        if (c >= cycle && at == r->count)
            at = i;
        prev = c;
    }
    *entry = r->first_entry + at;
    return ST_OK;
}

void st_values_init(st_values *v, st_index *ix, unsigned si, st_diag *d)
{
    const st_stream_info *s = st_index_stream(ix, si);
    v->ix = ix;
    v->vs = s ? st_index_values_stream(ix, s->id) : -1;
    v->cached = -1;
    st_buf_init(&v->frame, 0);
    v->d = d;
}

static st_error load_vframe(st_values *v, uint64_t j)
{
    if (v->cached == (int64_t)j)
        return ST_OK;
    const st_frame_ref *r = st_index_stream_frame(v->ix, (unsigned)v->vs, j);
    if (!r)
        return ST_E_RANGE;
    v->cached = -1;
    RETURN_IF_ERROR(st_index_decode_frame(v->ix, r->ordinal, &v->frame, v->d));
    v->cached = (int64_t)j;
    return ST_OK;
}

/* A block's key: owner index, bytes valid, more (SIMTRACE.md 9.2). */
#define VB_VALID_SHIFT 48
#define VB_VALID_MASK 0x1Fu
#define VB_ZERO_BITS (UINT64_C(0x3FF) << 53)

st_error st_values_get(void *arg, uint64_t index, const uint8_t **value, size_t *len)
{
    st_values *v = arg;
    *value = NULL;
    *len = 0;
    if (v->vs < 0)
        return ST_OK; /* no companion: the data field is all there is */
    uint64_t j = st_index_lower_key(v->ix, (unsigned)v->vs, index);
    size_t got = 0;
    int started = 0;
    for (; j < st_index_stream_frames(v->ix, (unsigned)v->vs); j++) {
        RETURN_IF_ERROR(load_vframe(v, j));
        const st_frame_ref *r = st_index_stream_frame(v->ix, (unsigned)v->vs, j);
        /* blocks are in owner order: binary search for the first of this owner */
        size_t lo = 0, hi = (size_t)r->count;
        while (!started && lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if ((st_load64(v->frame.data + mid * ST_VBLOCK_SIZE) & ST_CYCLE_MASK) < index)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (started)
            lo = 0;
        for (size_t b = lo; b < r->count; b++) {
            const uint8_t *blk = v->frame.data + b * ST_VBLOCK_SIZE;
            uint64_t key = st_load64(blk);
            size_t valid = (size_t)((key >> VB_VALID_SHIFT) & VB_VALID_MASK);
            if ((key & ST_CYCLE_MASK) != index)
                break;
            if (valid < 1 || valid > ST_VBLOCK_BYTES || got + valid > ST_VALUE_MAX || (key & VB_ZERO_BITS))
                return st_diag_set(v->d, ST_E_CORRUPT, "vblock of entry %" PRIu64 " is malformed", index);
            memcpy(v->value + got, blk + 8, valid);
            got += valid;
            started = 1;
            if (!(key & ST_VBLOCK_MORE)) {
                *value = v->value;
                *len = got;
                return ST_OK;
            }
        }
        if (!started)
            break;
    }
    return st_diag_set(v->d, ST_E_CORRUPT, "the wide value of entry %" PRIu64 " is missing or incomplete", index);
}

void st_values_free(st_values *v) { st_buf_free(&v->frame); }
