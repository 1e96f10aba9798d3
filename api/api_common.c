/* api_common.c - the calls of the public API that need no handle:
 * version, errors, types, entry packing; and the allocator. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/entry.h"
#include "api_internal.h"

/* The public type values are the internal ones (formats/entry.h); both are
 * fixed by the file format's documentation, and this says so at build time. */
_Static_assert(SIMTRACE_TYPE_D64 == (int)ST_TYPE_D64 && SIMTRACE_TYPE_D32 == (int)ST_TYPE_D32 &&
                   SIMTRACE_TYPE_M64 == (int)ST_TYPE_M64 && SIMTRACE_TYPE_M32 == (int)ST_TYPE_M32 &&
                   SIMTRACE_TYPE_BYTES == (int)ST_TYPE_BYTES && SIMTRACE_TYPE_VBLOCK == (int)ST_TYPE_VBLOCK &&
                   SIMTRACE_TYPE_VPC == (int)ST_TYPE_VPC && SIMTRACE_TYPE_EVENT == (int)ST_TYPE_EVENT &&
                   SIMTRACE_TYPE_USER == (int)ST_TYPE_USER &&
                   SIMTRACE_TYPE_CHAMPSIM == (int)ST_TYPE_CHAMPSIM &&
                   SIMTRACE_TYPE_CHAMPSIM_CS == (int)ST_TYPE_CHAMPSIM_CS,
               "public and internal entry types differ");
_Static_assert(SIMTRACE_TYPE_CVP == (int)ST_TYPE_CVP, "public and internal entry types differ");
_Static_assert(SIMTRACE_TYPE_DRMEMTRACE == (int)ST_TYPE_DRMEMTRACE, "public and internal entry types differ");
_Static_assert(SIMTRACE_NAME_MAX == ST_MAX_NAME && SIMTRACE_TYPE_NAME_MAX == ST_MAX_TYPE_NAME &&
                   SIMTRACE_USER_ENTRY_MAX == ST_MAX_USER_ENTRY && SIMTRACE_VALUE_MAX == ST_VALUE_MAX &&
                   SIMTRACE_CYCLE_MAX == ST_CYCLE_MASK,
               "public and internal limits differ");

SIMTRACE_API uint32_t simtrace_version(void) { return SIMTRACE_VERSION; }

SIMTRACE_API const char *simtrace_version_string(void) { return SIMTRACE_VERSION_STRING; }

/* The public error values are the internal ones (common/st_error.h), pinned
 * here one by one, and the internal list holds every public value: the
 * public enum is fixed forever, and the two lists are one list. */
#define API_ERROR_PINNED(name, cls, msg) \
    _Static_assert((int)ST_##name == (int)SIMTRACE_##name, "SIMTRACE_" #name " differs from ST_" #name);
ST_ERROR_LIST(API_ERROR_PINNED)
#undef API_ERROR_PINNED
_Static_assert((int)ST_ERROR_COUNT == (int)SIMTRACE_E_BUFFER + 1, "a public error the internal list lacks");

#define API_ERROR_SYMBOL(name, cls, msg) "SIMTRACE_" #name,
static const char *const error_symbols[] = {ST_ERROR_LIST(API_ERROR_SYMBOL)};
#undef API_ERROR_SYMBOL

simtrace_error api_error(st_error e)
{
    return (unsigned)e < (unsigned)ST_ERROR_COUNT ? (simtrace_error)e : SIMTRACE_E_INTERNAL;
}

SIMTRACE_API const char *simtrace_strerror(int e) { return st_error_name((st_error)e); }

SIMTRACE_API const char *simtrace_error_name(int e)
{
    return e >= 0 && e < (int)ST_ERROR_COUNT ? error_symbols[e] : NULL;
}

SIMTRACE_API int simtrace_error_is_data(int e) { return st_error_is_data((st_error)e); }

simtrace_error api_fail(char *msg, st_error e, const st_diag *d)
{
    char where[96] = "";
    size_t n = 0;
    if (d && d->offset != ST_DIAG_UNKNOWN)
        n += (size_t)snprintf(where + n, sizeof where - n, "byte offset %" PRIu64 ", ", d->offset);
    if (d && d->frame != ST_DIAG_UNKNOWN && n < sizeof where)
        n += (size_t)snprintf(where + n, sizeof where - n, "frame %" PRIu64 ", ", d->frame);
    if (d && d->stream != ST_DIAG_UNKNOWN && n < sizeof where)
        snprintf(where + n, sizeof where - n, "stream %" PRIu64 ", ", d->stream);
    const char *what = d && d->detail[0] ? d->detail : st_error_name(e);
    snprintf(msg, API_MSG_MAX, "%s%s", where, what);
    return api_error(e);
}

void api_place_set(simtrace_input_place *p, const st_diag *d)
{
    memset(p, 0, sizeof *p);
    p->offset = d ? d->offset : UINT64_MAX;
    p->line = d ? d->line : UINT64_MAX;
    p->frame = d ? d->frame : UINT64_MAX;
    p->stream = d ? d->stream : UINT64_MAX;
    if (d)
        snprintf(p->detail, sizeof p->detail, "%s", d->detail);
}

SIMTRACE_API int simtrace_type_parse(const char *name) { return name ? (int)st_entry_parse(name) : SIMTRACE_TYPE_NONE; }

SIMTRACE_API size_t simtrace_type_size(int type)
{
    return type > SIMTRACE_TYPE_NONE && type <= (int)ST_TYPE_LAST ? st_entry_size((st_entry_type)type) : 0;
}

SIMTRACE_API const char *simtrace_type_name(int type)
{
    return type > SIMTRACE_TYPE_NONE && type <= (int)ST_TYPE_LAST ? st_entry_name((st_entry_type)type) : "?";
}

static int is_memory(int type)
{
    return type > SIMTRACE_TYPE_NONE && type <= (int)ST_TYPE_LAST && st_entry_is_memory((st_entry_type)type);
}

SIMTRACE_API simtrace_error simtrace_entry_unpack(int type, const void *raw, simtrace_entry *out)
{
    if (!is_memory(type) || !raw || !out)
        return SIMTRACE_E_USAGE;
    st_entry e;
    st_entry_load((st_entry_type)type, raw, &e);
    out->cycle = e.cycle;
    out->meta16 = e.meta16;
    out->ip = e.ip;
    out->address = e.addr;
    out->data = e.data;
    return SIMTRACE_OK;
}

/* One type's loop of simtrace_access_unpack, the type t constant (the
 * layouts are st_entry_load()'s): a value narrower than the data field
 * (fullSize 0) is its lower half, and its size the upper half. */
static inline void access_unpack_T(const uint8_t *p, size_t n, simtrace_access *o, const st_entry_type t)
{
    const size_t esz = st_entry_size(t);
    const int data = t == ST_TYPE_D64 || t == ST_TYPE_D32, wide = t == ST_TYPE_D64 || t == ST_TYPE_M64;
    const unsigned half = wide ? 32 : 16;
    for (size_t i = 0; i < n; i++, p += esz, o++) {
        st_entry e;
        st_entry_load(t, p, &e);
        o->cycle = e.cycle;
        o->meta16 = (uint16_t)e.meta16;
        o->reserved = 0;
        o->ip = e.ip;
        o->address = e.addr;
        if (!data) {
            o->value = 0;
            o->size = 0;
        } else if (e.meta16 & 1) { /* fullSize */
            o->value = e.data;
            o->size = wide ? 8 : 4;
        } else {
            o->value = e.data & ((UINT64_C(1) << half) - 1u);
            o->size = (uint32_t)(e.data >> half);
        }
    }
}

SIMTRACE_API simtrace_error simtrace_access_unpack(int type, const void *raw, size_t count, simtrace_access *out)
{
    if (!is_memory(type) || (count && (!raw || !out)))
        return SIMTRACE_E_USAGE;
    const uint8_t *p = raw;
    switch (type) {
    case SIMTRACE_TYPE_D64: access_unpack_T(p, count, out, ST_TYPE_D64); break;
    case SIMTRACE_TYPE_D32: access_unpack_T(p, count, out, ST_TYPE_D32); break;
    case SIMTRACE_TYPE_M64: access_unpack_T(p, count, out, ST_TYPE_M64); break;
    default: access_unpack_T(p, count, out, ST_TYPE_M32); break;
    }
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_entry_pack(int type, const simtrace_entry *in, void *raw)
{
    if (!is_memory(type) || !raw || !in)
        return SIMTRACE_E_USAGE;
    st_entry e = {in->cycle & ST_CYCLE_MASK, in->meta16 & 0xFFFFu, in->ip, in->address, in->data};
    st_entry_store((st_entry_type)type, raw, &e);
    return SIMTRACE_OK;
}

void api_alloc_init(api_alloc *al, const simtrace_allocator *a)
{
    al->set = a && a->alloc && a->free;
    if (al->set)
        al->a = *a;
}

void *api_malloc(const api_alloc *al, size_t n)
{
    if (n == 0)
        n = 1;
    return al->set ? al->a.alloc(al->a.opaque, n) : malloc(n);
}

void *api_calloc(const api_alloc *al, size_t n)
{
    void *p = api_malloc(al, n);
    if (p)
        memset(p, 0, n);
    return p;
}

void api_free(const api_alloc *al, void *p)
{
    if (!p)
        return;
    if (al->set)
        al->a.free(al->a.opaque, p);
    else
        free(p);
}

st_error api_read_io(void *arg, uint8_t *p, size_t n, size_t *got)
{
    const simtrace_read_io *io = arg;
    int64_t k = io->read(io->opaque, p, n);
    if (k < 0 || (uint64_t)k > n)
        return ST_E_READ;
    *got = (size_t)k;
    return ST_OK;
}
