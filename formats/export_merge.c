/*
 * export_merge.c - several streams as one lackey, din, xdin, csv or text file,
 * merged by cycle (formats/IMPORT.md 8.6).
 *
 * One entry per source is held: the merge pulls the next entry of the
 * source it wrote from, so memory does not grow with the streams.  A fetch
 * stream made by the lackey, din or xdin importer lists, per instruction,
 * the kinds of the accesses after it (trace_io.h); with its read and write
 * streams beside it, those kinds choose the next source, which gives the
 * records back in their original order.  Where they do not fit the
 * streams (another producer's fetch stream, a stream left out) the merge
 * falls back to cycle order, and within a cycle fetch streams first, then
 * reads, then writes, each in the order of the sources.
 */
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"

const char *const st_merge_formats[] = {"lackey", "din", "xdin", "csv", "text",
                                        "dramsim2",
                                        "gem5",
                                        NULL};

typedef struct {
    const st_export_stream *s;
    st_exporter *x;   /* csv, text: the source's own exporter, writing into out */
    const uint8_t *e; /* head entry, NULL at the end */
    uint64_t index;
    uint64_t cycle;
    char role;        /* st_x_role */
    int rd, wr;       /* a fetch source's read and write sources, or -1 */
} msrc;

typedef struct {
    st_exporter *out;
    msrc *src;
    unsigned k;
    st_next_fn next;
    void *narg;
} merger;

static st_error advance(merger *m, unsigned j)
{
    msrc *s = &m->src[j];
    RETURN_IF_ERROR(m->next(m->narg, j, &s->e, &s->index));
    if (s->e)
        s->cycle = st_load64(s->e) & ST_CYCLE_MASK;
    return ST_OK;
}

/* A csv source's rows go into the shared output buffer (the source flushes
 * after each row, so n is small). */
static st_error into_out(void *arg, const void *buf, size_t n)
{
    st_exporter *o = arg;
    char *p;
    RETURN_IF_ERROR(st_x_room(o, n, &p));
    memcpy(p, buf, n);
    o->len += n;
    return ST_OK;
}

/* Write source j's head as a record of kind `kind` and move on. */
static st_error emit(merger *m, unsigned j, char kind)
{
    msrc *s = &m->src[j];
    if (s->x) {
        RETURN_IF_ERROR(st_exporter_write(s->x, s->index, s->e, 1));
        RETURN_IF_ERROR(st_x_flush(s->x));
    } else {
        st_entry en;
        st_entry_load(s->s->type, s->e, &en);
        RETURN_IF_ERROR(st_x_access(m->out, s->s->type, &en, kind));
    }
    return advance(m, j);
}

/* The source named prefix + suffix, or -1. */
static int find(const merger *m, const char *name, size_t plen, const char *suffix)
{
    size_t sl = strlen(suffix);
    for (unsigned j = 0; j < m->k; j++) {
        const char *n = m->src[j].s->name;
        if (strlen(n) == plen + sl && memcmp(n, name, plen) == 0 && strcmp(n + plen, suffix) == 0)
            return (int)j;
    }
    return -1;
}

static int at(const merger *m, int j, uint64_t cycle)
{
    return j >= 0 && m->src[j].e && m->src[j].cycle == cycle;
}

/* Order of the records of one cycle where no kinds say it. */
static int role_rank(char role)
{
    return role == 'I' ? 0 : role == 'L' ? 1 : 2;
}

static st_error run(merger *m)
{
    for (unsigned j = 0; j < m->k; j++)
        RETURN_IF_ERROR(advance(m, j));
    int pat_src = -1;          /* the fetch source whose kinds are being followed */
    uint32_t pat = 0;          /* its kinds not yet followed */
    unsigned pat_left = 0;
    uint64_t pat_cycle = 0;
    for (;;) {
        if (pat_src >= 0 && pat_left) {
            unsigned kind = pat & 3;
            pat >>= 2;
            pat_left--;
            const msrc *f = &m->src[pat_src];
            int rd = f->rd, wr = f->wr;
            int need_r = kind & ST_KIND_READ, need_w = (kind & ST_KIND_WRITE) != 0;
            if (kind == ST_KIND_END || (need_r && !at(m, rd, pat_cycle)) || (need_w && !at(m, wr, pat_cycle))) {
                pat_left = 0; /* the end, or kinds that do not fit: cycle order */
                continue;
            }
            if (kind == ST_KIND_MODIFY) { /* (csv, text: two entries, two lines) */
                const msrc *r = &m->src[rd], *w = &m->src[wr];
                if (!r->x && r->s->type == w->s->type && memcmp(r->e, w->e, r->s->entry_size) == 0) {
                    /* one lackey M record; the write half was the same entry */
                    RETURN_IF_ERROR(emit(m, (unsigned)rd, 'M'));
                    RETURN_IF_ERROR(advance(m, (unsigned)wr));
                    continue;
                }
            }
            if (need_r)
                RETURN_IF_ERROR(emit(m, (unsigned)rd, 'L'));
            if (need_w)
                RETURN_IF_ERROR(emit(m, (unsigned)wr, 'S'));
            continue;
        }
        /* the smallest cycle; in a tie the instruction, then its reads, then
         * its writes (a read-modify-write reads first), then source order */
        int best = -1;
        for (unsigned j = 0; j < m->k; j++) {
            const msrc *s = &m->src[j];
            if (!s->e)
                continue;
            if (best < 0 || s->cycle < m->src[best].cycle ||
                (s->cycle == m->src[best].cycle && role_rank(s->role) < role_rank(m->src[best].role)))
                best = (int)j;
        }
        if (best < 0)
            return ST_OK;
        msrc *s = &m->src[best];
        if (s->role != 'I') {
            RETURN_IF_ERROR(emit(m, (unsigned)best, s->role));
            continue;
        }
        uint64_t meta = st_load64(s->e);
        if (s->s->type == ST_TYPE_D64 && (s->rd >= 0 || s->wr >= 0)) {
            pat_src = best;
            pat = (uint32_t)st_load64(s->e + 24);
            pat_left = ST_FETCH_KINDS;
            pat_cycle = s->cycle;
        }
        if (meta & ST_FETCH_CONT && !s->x)
            RETURN_IF_ERROR(advance(m, (unsigned)best)); /* kinds only, no record */
        else
            RETURN_IF_ERROR(emit(m, (unsigned)best, 'I'));
    }
}

st_error st_export_merged(const char *format, const st_export_stream *s, unsigned k, st_next_fn next, void *narg,
                          st_write_fn write, void *warg)
{
    return st_export_merged_values(format, s, k, next, narg, NULL, NULL, write, warg);
}

st_error st_export_merged_values(const char *format, const st_export_stream *s, unsigned k, st_next_fn next,
                                 void *narg, const st_value_fn *value, void *const *varg, st_write_fn write,
                                 void *warg)
{
    int ok = 0;
    for (unsigned i = 0; st_merge_formats[i]; i++)
        ok |= format && strcmp(format, st_merge_formats[i]) == 0;
    if (!ok || k == 0 || !s || !next)
        return ST_E_USAGE;
    /* csv and text write entries, each through its stream's own exporter */
    int own = strcmp(format, "csv") == 0 || strcmp(format, "text") == 0;
    if (strcmp(format, "text") == 0 && k > ST_TEXT_PARTS)
        return ST_E_TOO_LARGE;
    merger m = {NULL, calloc(k, sizeof(msrc)), k, next, narg};
    if (!m.src)
        return ST_E_NOMEM;
    st_error e = st_exporter_new(&m.out, format, &s[0], write, warg, NULL, NULL);
    if (e == ST_OK && m.out->kind == X_TEXT)
        m.out->started = 1; /* the streams' exporters write the header lines */
    if (e == ST_OK)
        e = st_exporter_write(m.out, 0, NULL, 0); /* csv: the header row first */
    for (unsigned j = 0; j < k && e == ST_OK; j++) {
        msrc *x = &m.src[j];
        x->s = &s[j];
        x->role = st_x_role(s[j].name ? s[j].name : "");
        x->rd = x->wr = -1;
        if (!st_entry_is_memory(s[j].type) && !(s[j].type == ST_TYPE_EVENT && m.out->kind == X_TEXT))
            e = ST_E_UNSUPPORTED; /* (events: text only, as csv has one header row for all) */
        else if (own) {
            e = st_exporter_new(&x->x, format, &s[j], into_out, m.out, value ? value[j] : NULL,
                                varg ? varg[j] : NULL);
            if (e == ST_OK && m.out->kind == X_CSV)
                x->x->started = 1; /* one header row, written by out */
            if (e == ST_OK && m.out->kind == X_TEXT) {
                /* one header line per stream, all before the first entry */
                x->x->part = (int)j;
                e = st_exporter_write(x->x, 0, NULL, 0);
                if (e == ST_OK)
                    e = st_x_flush(x->x);
            }
        }
    }
    for (unsigned j = 0; j < k && e == ST_OK; j++) {
        msrc *x = &m.src[j];
        if (x->role == 'I') {
            size_t plen = strlen(x->s->name) - strlen(ST_FETCH_STREAM);
            x->rd = find(&m, x->s->name, plen, "read");
            x->wr = find(&m, x->s->name, plen, "write");
        }
    }
    if (e == ST_OK)
        e = run(&m);
    if (e == ST_OK)
        e = st_exporter_finish(m.out);
    for (unsigned j = 0; j < k; j++)
        st_exporter_free(m.src[j].x);
    st_exporter_free(m.out);
    free(m.src);
    return e;
}
