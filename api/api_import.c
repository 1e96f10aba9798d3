/* api_import.c - imports into a writer of the public API (include/simtrace.h,
 * "advanced: packing"): raw entries from a descriptor and the importers of
 * formats/, each reading its input decompressed when it is xz, gzip or
 * zstd data (common/st_decomp.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/st_bytes.h"
#include "../common/st_decomp.h"
#include "../formats/trace_io.h"
#include "api_internal.h"

SIMTRACE_API const char *simtrace_import_format(unsigned index, int *is_text)
{
    for (unsigned i = 0; st_import_formats[i]; i++)
        if (i == index) {
            if (is_text)
                *is_text = st_import_is_text(st_import_formats[i]);
            return st_import_formats[i];
        }
    return NULL;
}

SIMTRACE_API void simtrace_import_params_init(simtrace_import_params *p)
{
    if (p)
        memset(p, 0, sizeof *p);
}

static void report_init(simtrace_import_report *rep)
{
    memset(rep, 0, sizeof *rep);
    api_place_set(&rep->where, NULL);
    api_place_set(&rep->unpack_where, NULL);
}

/* A call refused before reading anything. */
static simtrace_error refused(simtrace_import_report *rep, simtrace_error e)
{
    rep->read_error = (uint32_t)e;
    return e;
}

/* The start of an append or import: *rep (own if NULL) cleared, *params
 * (def if NULL) set, and whether w takes more. */
static simtrace_error begin(simtrace_writer *w, simtrace_import_report **rep, simtrace_import_report *own,
                            const simtrace_import_params **params, simtrace_import_params *def)
{
    if (!*rep)
        *rep = own;
    report_init(*rep);
    if (!*params) {
        simtrace_import_params_init(def);
        *params = def;
    }
    return refused(*rep, api_writer_usable(w));
}

static void tell_reading(const simtrace_import_params *p, int fd)
{
    if (p->reading)
        p->reading(p->opaque, fd);
}

/* The input as its consumer reads it: decompressed when it is compressed. */
typedef struct {
    st_decomp *dz;
    int fd; /* what to read */
} unpacked_input;

static st_error unpack_open(int fd, int lines, const simtrace_import_params *p, unpacked_input *u,
                            simtrace_import_report *rep)
{
    u->dz = NULL;
    u->fd = fd;
    if (p->no_unpack)
        return ST_OK;
    const char *kind = NULL;
    st_error e = st_decomp_open(fd, lines, &u->fd, &u->dz, &kind);
    if (kind)
        snprintf(rep->unpacked, sizeof rep->unpacked, "%s", kind);
    return e;
}

/*
 * The end of an append or import that ended with e (d: where): stop the
 * decompressor, and return the call's result.  Damage in compressed data
 * explains what its reader found, so it is the result unless writing
 * failed.  A bad input is
 * drained so that damage after where its consumer stopped is still
 * found, unless a stop was requested (its upstream may never end).
 * writer_failed: e came from the container writer, which takes nothing
 * more; a data error of the input (and the damage) leaves it usable.
 */
static simtrace_error finish(simtrace_writer *w, st_error e, st_diag *d, unpacked_input *u, int writer_failed,
                             const simtrace_import_params *p, simtrace_import_report *rep)
{
    st_diag zd;
    st_diag_clear(&zd);
    int drain = e != ST_OK && st_error_is_data(e) && !(p->stop && *p->stop);
    st_error ze;
    API_KEEP_ERRNO(ze = st_decomp_close(u->dz, drain, &zd)); /* errno: the reason of a read error */
    rep->unpack_error = (uint32_t)api_error(ze);
    rep->read_error = (uint32_t)api_error(e);
    api_place_set(&rep->unpack_where, &zd);
    api_place_set(&rep->where, d);
    rep->usable = e == ST_OK || ((st_error_is_data(e) || e == ST_E_USAGE) && !writer_failed);
    if (ze != ST_OK && e != ST_E_WRITE) {
        e = ze;
        d = &zd;
    }
    if (e == ST_OK)
        return SIMTRACE_OK;
    if (!rep->usable)
        return api_writer_fail(w, e, d);
    return api_fail(api_writer_msg(w), e, d);
}

/* Raw entries from fd into stream id. */
static st_error read_raw(simtrace_writer *w, uint32_t id, int fd, const simtrace_import_params *p,
                         simtrace_import_report *rep, st_diag *d, int *writer_failed)
{
    st_writer *core = api_writer_core(w);
    const uint64_t had = st_writer_stream_entries(core, id);
    st_error e = st_writer_append_fd(core, id, fd, p->progress, p->opaque, &rep->bytes, d);
    rep->entries = st_writer_stream_entries(core, id) - had;
    if (e == ST_E_PARTIAL_ENTRY)
        rep->partial_bytes = rep->bytes - d->offset;
    /* the rest is the writer's own failure, or reading's */
    *writer_failed = e != ST_OK && e != ST_E_PARTIAL_ENTRY && e != ST_E_CYCLE_ORDER;
    return e;
}

/* ---- importers ---- */

typedef struct {
    simtrace_writer *w;
    const simtrace_import_params *p;
    size_t before_refusal; /* entries of the last append before the one refused for its cycle */
    int writer_failed;     /* the writer refused a batch (its failure sticks) */
    st_diag sink_diag;     /* what the sink refused, and why */
    /* per output stream id: what to add to the owner index of the blocks
     * a vblock stream receives (its owner's entries before this import),
     * and the entries each stream declared by this import held then */
    uint64_t *shift, *base;
    uint32_t nids;
    st_buf tmp;
} import_ctx;

static st_error grow_ids(import_ctx *ic, uint32_t sid)
{
    if (sid < ic->nids)
        return ST_OK;
    uint32_t n = sid + 64;
    uint64_t *s = realloc(ic->shift, n * sizeof *s), *b;
    if (!s)
        return ST_E_NOMEM;
    ic->shift = s;
    if (!(b = realloc(ic->base, n * sizeof *b)))
        return ST_E_NOMEM;
    ic->base = b;
    memset(s + ic->nids, 0, (n - ic->nids) * sizeof *s);
    memset(b + ic->nids, 0, (n - ic->nids) * sizeof *b);
    ic->nids = n;
    return ST_OK;
}

/* A refusal of the sink, said as it happens through warn (a program
 * names its input), or else in the call's report. */
static st_error sink_refuses(import_ctx *ic, st_error e, const char *detail)
{
    snprintf(ic->sink_diag.detail, sizeof ic->sink_diag.detail, "%s", detail);
    if (ic->p->warn) {
        simtrace_input_place where;
        api_place_set(&where, NULL);
        snprintf(where.detail, sizeof where.detail, "%s", detail);
        ic->p->warn(ic->p->opaque, api_error(e), &where);
        ic->sink_diag.detail[0] = 0; /* said */
    }
    return e;
}

static st_error imp_add(void *arg, const st_stream_decl *decl, uint32_t *sid)
{
    import_ctx *ic = arg;
    st_writer *core = api_writer_core(ic->w);
    const char *prefix = ic->p->prefix;
    char name[512];
    int n = snprintf(name, sizeof name, "%s%s%s", prefix ? prefix : "", prefix ? "." : "", decl->name);
    if (n < 1 || n > (int)ST_MAX_NAME)
        return ST_E_USAGE; /* the prefix is too long: the line that needed the stream is the place */
    /* an earlier import's stream of that name receives the entries */
    st_stream_spec sp = {.name = name, .type = decl->type, .owner = decl->owner, .header = decl->header,
                         .header_len = decl->header_len};
    sp.params = api_stream_params(api_writer_params(ic->w), decl->type);
    st_diag d;
    st_diag_clear(&d);
    st_error e = api_writer_take(ic->w, &sp, sid, &d);
    if (e != ST_OK) {
        ic->writer_failed = e != ST_E_USAGE && e != ST_E_BAD_STREAM;
        return sink_refuses(ic, e, d.detail[0] ? d.detail : st_error_name(e));
    }
    RETURN_IF_ERROR(grow_ids(ic, *sid));
    /* An importer numbers the owner entries of its blocks from the first
     * entry it gives the owner; the owner may hold entries already (an
     * earlier import).  A stream is declared before its first entry of
     * this input, and an owner before its blocks, so its count now is
     * what the blocks' owner indexes are shifted by. */
    ic->base[*sid] = st_writer_stream_entries(core, *sid);
    ic->shift[*sid] = decl->type == ST_TYPE_VBLOCK && decl->owner < ic->nids ? ic->base[decl->owner] : 0;
    if (ic->p->taken)
        ic->p->taken(ic->p->opaque, *sid, name);
    return ST_OK;
}

static st_error imp_append(void *arg, uint32_t sid, const void *entries, size_t n)
{
    import_ctx *ic = arg;
    st_writer *core = api_writer_core(ic->w);
    uint64_t shift = sid < ic->nids ? ic->shift[sid] : 0;
    if (shift) {
        /* the importer's buffer is its own: rewrite a copy */
        RETURN_IF_ERROR(st_buf_reserve(&ic->tmp, n * ST_VBLOCK_SIZE));
        memcpy(ic->tmp.data, entries, n * ST_VBLOCK_SIZE);
        if (!st_vblock_shift_owners(ic->tmp.data, n, shift))
            return sink_refuses(ic, ST_E_TOO_LARGE,
                                "the owner index of a wide value would pass the 48 bits of an entry index");
        entries = ic->tmp.data;
    }
    const uint64_t had = st_writer_stream_entries(core, sid);
    st_error e = st_writer_append(core, sid, entries, n);
    /* the writer stays usable after refusing entries whose cycles
     * decrease (it appends those before the refused one); after any other
     * refusal it can write nothing more */
    if (e == ST_E_CYCLE_ORDER) {
        ic->before_refusal = (size_t)(st_writer_stream_entries(core, sid) - had);
        snprintf(ic->sink_diag.detail, sizeof ic->sink_diag.detail, "%s", st_writer_diag(core)->detail);
    } else if (e != ST_OK)
        ic->writer_failed = 1;
    if (ic->p->progress)
        ic->p->progress(ic->p->opaque);
    return e;
}

static size_t imp_before_refusal(void *arg) { return ((import_ctx *)arg)->before_refusal; }

static void imp_warn(void *arg, const st_diag *d)
{
    const simtrace_import_params *p = ((import_ctx *)arg)->p;
    simtrace_input_place where;
    api_place_set(&where, d);
    p->warn(p->opaque, SIMTRACE_E_SYNTAX, &where);
}

/* Import fd, of format, into w's streams. */
static st_error read_import(simtrace_writer *w, const char *format, int fd, const simtrace_import_params *p,
                            simtrace_import_report *rep, st_diag *d, int *writer_failed)
{
    import_ctx ic = {.w = w, .p = p};
    st_diag_clear(&ic.sink_diag);
    st_buf_init(&ic.tmp, 0);
    st_import_sink sink = {&ic, imp_add, imp_append, imp_before_refusal};
    st_import_opts o = {.skip_bad = (int)p->skip_bad, .warn = p->warn ? imp_warn : NULL, .warn_arg = &ic,
                        .split_cr3 = (int)p->split_cr3, .stopped = p->stop};
    st_import_stats stats;
    memset(&stats, 0, sizeof stats);
    st_error e = st_import(format, fd, &o, &sink, &stats, d);
    rep->bytes = stats.bytes;
    rep->lines = stats.lines;
    rep->entries = stats.entries;
    rep->bad_lines = stats.bad_lines;
    rep->dropped = stats.dropped;
    /* the sink's refusal: the importer knows the line, the sink why */
    if (e != ST_OK && !d->detail[0] && ic.sink_diag.detail[0])
        snprintf(d->detail, sizeof d->detail, "%s", ic.sink_diag.detail);
    *writer_failed = ic.writer_failed;
    free(ic.shift);
    free(ic.base);
    st_buf_free(&ic.tmp);
    return e;
}

/* An append (format NULL: raw entries into stream id) or an import. */
static simtrace_error run(simtrace_writer *w, int fd, const char *format, uint32_t id,
                          const simtrace_import_params *params, simtrace_import_report *rep)
{
    simtrace_import_report own;
    simtrace_import_params def;
    simtrace_error pe = begin(w, &rep, &own, &params, &def);
    if (pe != SIMTRACE_OK)
        return pe;
    int known = 0;
    for (unsigned i = 0; format && st_import_formats[i]; i++)
        known |= strcmp(st_import_formats[i], format) == 0;
    if (format && !known) {
        snprintf(api_writer_msg(w), API_MSG_MAX, "unknown import format '%.64s'", format);
        return refused(rep, SIMTRACE_E_USAGE);
    }
    if (fd < 0 || (!format && st_writer_stream_type(api_writer_core(w), id, NULL, NULL) == ST_TYPE_NONE))
        return refused(rep, SIMTRACE_E_USAGE);
    st_diag d;
    st_diag_clear(&d);
    unpacked_input u;
    int writer_failed = 0;
    st_error e = unpack_open(fd, format && st_import_is_text(format), params, &u, rep);
    if (e == ST_OK) {
        tell_reading(params, u.fd);
        e = format ? read_import(w, format, u.fd, params, rep, &d, &writer_failed)
                   : read_raw(w, id, u.fd, params, rep, &d, &writer_failed);
        tell_reading(params, -1);
    }
    return finish(w, e, &d, &u, writer_failed, params, rep);
}

SIMTRACE_API simtrace_error simtrace_writer_append_fd(simtrace_writer *w, uint32_t id, int fd,
                                                      const simtrace_import_params *params,
                                                      simtrace_import_report *rep)
{
    return run(w, fd, NULL, id, params, rep);
}

SIMTRACE_API simtrace_error simtrace_writer_import(simtrace_writer *w, int fd, const char *format,
                                                   const simtrace_import_params *params,
                                                   simtrace_import_report *rep)
{
    return run(w, fd, format ? format : "", 0, params, rep); /* "": no such format */
}
