/* api_export.c - the exporters of the public API (include/simtrace.h,
 * "advanced: exporting"): formats/'s exporters and merged export behind
 * the public callbacks, whose int and simtrace_error returns the internal
 * st_error callbacks cannot take directly. */
#include <stdlib.h>

#include "../formats/export_internal.h"
#include "api_internal.h"

/* The i-th name of a NULL-terminated list, NULL past its end. */
static const char *nth(const char *const *list, unsigned index)
{
    for (unsigned i = 0; list[i]; i++)
        if (i == index)
            return list[i];
    return NULL;
}

SIMTRACE_API const char *simtrace_export_format(unsigned index) { return nth(st_export_formats, index); }

SIMTRACE_API const char *simtrace_export_merge_format(unsigned index) { return nth(st_merge_formats, index); }

SIMTRACE_API char simtrace_export_role(const char *name) { return st_x_role(name ? name : ""); }

SIMTRACE_API int simtrace_export_is_text(const char *format) { return st_export_is_text(format ? format : ""); }

SIMTRACE_API int simtrace_export_accepts(const char *format, uint32_t type)
{
    int known = type <= ST_TYPE_LAST && st_entry_known((int)type);
    int r = st_export_accepts(format, known ? (st_entry_type)type : ST_TYPE_NONE);
    return r < 0 ? -1 : known && r;
}

/* A caller's write or value callback, as formats/ calls them. */
typedef struct {
    simtrace_export_write_fn fn;
    void *opaque;
} write_cb;

typedef struct {
    simtrace_export_value_fn fn;
    void *opaque;
} value_cb;

static st_error call_write(void *arg, const void *buf, size_t n)
{
    const write_cb *w = arg;
    return w->fn(w->opaque, buf, n) == 0 ? ST_OK : ST_E_WRITE;
}

/* A caller's error as formats/ passes it on: the same number (pinned in
 * api_common.c), anything beyond the list an internal error. */
static st_error from_public(simtrace_error e)
{
    return (unsigned)e < (unsigned)ST_ERROR_COUNT ? (st_error)e : ST_E_INTERNAL;
}

static st_error call_value(void *arg, uint64_t index, const uint8_t **value, size_t *len)
{
    const value_cb *v = arg;
    const void *p = NULL;
    *len = 0;
    st_error e = from_public(v->fn(v->opaque, index, &p, len));
    *value = p;
    return e;
}

/* s as formats/ takes it, after the checks the public calls promise. */
static st_error to_stream(const simtrace_export_stream *s, st_export_stream *out)
{
    if (!s || (s->type != SIMTRACE_TYPE_USER && simtrace_type_size((int)s->type) == 0))
        return ST_E_USAGE;
    *out = (st_export_stream){s->name, (st_entry_type)s->type, s->entry_size, s->header, s->header_len};
    return ST_OK;
}

struct simtrace_exporter {
    st_exporter *x;
    write_cb w;
    value_cb v;
};

SIMTRACE_API simtrace_error simtrace_exporter_new(simtrace_exporter **xp, const char *format,
                                                  const simtrace_export_stream *s, simtrace_export_write_fn write,
                                                  void *wopaque, simtrace_export_value_fn value, void *vopaque)
{
    if (!xp)
        return SIMTRACE_E_USAGE;
    *xp = NULL;
    st_export_stream es;
    st_error e = to_stream(s, &es);
    if (e != ST_OK || !write)
        return api_error(e != ST_OK ? e : ST_E_USAGE);
    simtrace_exporter *x = calloc(1, sizeof *x);
    if (!x)
        return SIMTRACE_E_NOMEM;
    x->w = (write_cb){write, wopaque};
    x->v = (value_cb){value, vopaque};
    e = st_exporter_new(&x->x, format, &es, call_write, &x->w, value ? call_value : NULL, &x->v);
    if (e != ST_OK) {
        free(x);
        return api_error(e);
    }
    *xp = x;
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_exporter_write(simtrace_exporter *x, uint64_t first, const void *entries,
                                                    size_t count)
{
    if (!x || (count && !entries))
        return SIMTRACE_E_USAGE;
    return api_error(st_exporter_write(x->x, first, entries, count));
}

SIMTRACE_API const char *simtrace_exporter_message(const simtrace_exporter *x)
{
    return x ? st_exporter_why(x->x) : "";
}

SIMTRACE_API simtrace_error simtrace_exporter_finish(simtrace_exporter *x)
{
    return x ? api_error(st_exporter_finish(x->x)) : SIMTRACE_E_USAGE;
}

SIMTRACE_API void simtrace_exporter_free(simtrace_exporter *x)
{
    if (!x)
        return;
    st_exporter_free(x->x);
    free(x);
}

/* The caller's next callback, and the streams' value callbacks. */
typedef struct {
    simtrace_export_next_fn fn;
    void *opaque;
} next_cb;

static st_error call_next(void *arg, unsigned k, const uint8_t **entry, uint64_t *index)
{
    const next_cb *n = arg;
    const void *p = NULL;
    st_error e = from_public(n->fn(n->opaque, k, &p, index));
    *entry = p;
    return e;
}

SIMTRACE_API simtrace_error simtrace_export_merged(const char *format, const simtrace_export_stream *s, unsigned k,
                                                   simtrace_export_next_fn next, void *nopaque,
                                                   const simtrace_export_value_fn *value, void *const *vopaque,
                                                   simtrace_export_write_fn write, void *wopaque)
{
    if (!s || !k || !next || !write)
        return SIMTRACE_E_USAGE;
    st_export_stream *es = calloc(k, sizeof *es);
    value_cb *vc = calloc(k, sizeof *vc);
    st_value_fn *vf = calloc(k, sizeof *vf);
    void **va = calloc(k, sizeof *va);
    st_error e = es && vc && vf && va ? ST_OK : ST_E_NOMEM;
    for (unsigned j = 0; j < k && e == ST_OK; j++) {
        e = to_stream(&s[j], &es[j]);
        if (value && value[j]) {
            vc[j] = (value_cb){value[j], vopaque ? vopaque[j] : NULL};
            vf[j] = call_value;
            va[j] = &vc[j];
        }
    }
    next_cb nc = {next, nopaque};
    write_cb wc = {write, wopaque};
    if (e == ST_OK)
        e = st_export_merged_values(format, es, k, call_next, &nc, vf, (void *const *)va, call_write, &wc);
    free(es);
    free(vc);
    free(vf);
    free(va);
    return api_error(e);
}
