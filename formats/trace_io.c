/*
 * trace_io.c - dispatch of the importers by name, and the exporter object
 * with the raw, lackey, din, vpc and vpc3 exporters (text is in
 * export_text.c).  Mappings: formats/IMPORT.md.
 */
#include "trace_io.h"

#include <stdlib.h>
#include <string.h>

#include "export_internal.h"
#include "import_internal.h"

/* ---- importers -------------------------------------------------------------- */

static const struct {
    const char *name;
    st_import_fn fn;
    int text;         /* reads lines */
    int names_refused; /* names the line of an entry the sink refused (st_imp_run_lines) */
} importers[] = {
    {"bochs", st_import_bochs, 1, 0},   {"lackey", st_import_lackey, 1, 1}, {"din", st_import_din, 1, 1},
    {"xdin", st_import_xdin, 1, 1},     {"pinatrace", st_import_pinatrace, 1, 1}, {"text", st_import_text, 1, 1},
    {"vpc", st_import_vpc, 0, 0},       {"vpc3", st_import_vpc3, 0, 0},
    {"dramsim2", st_import_dramsim2, 1, 1},
    {"gem5", st_import_gem5, 0, 0},
    {"pixie32", st_import_pixie32, 0, 0},
    {"pixie64", st_import_pixie64, 0, 0},
    {"cvp", st_import_cvp, 0, 0},
    {"cbp2025", st_import_cbp2025, 0, 0},
    {"drmemtrace", st_import_drmemtrace, 0, 0},
    {"champsim", st_import_champsim, 0, 0}, {"champsim-cloudsuite", st_import_champsim_cs, 0, 0},
    {"champsim-mem", st_import_champsim_mem, 0, 0}, {"champsim-cloudsuite-mem", st_import_champsim_cs_mem, 0, 0},
};

int st_import_is_text(const char *format)
{
    for (size_t i = 0; format && i < sizeof importers / sizeof importers[0]; i++)
        if (strcmp(format, importers[i].name) == 0)
            return importers[i].text;
    return 0;
}

const char *const st_import_formats[] = {"bochs", "lackey", "din", "xdin", "pinatrace", "text", "vpc", "vpc3",
                                         "dramsim2",
                                         "gem5",
                                         "pixie32",
                                         "pixie64",
                                         "cvp", "cbp2025",
                                         "drmemtrace",
                                         "champsim", "champsim-cloudsuite", "champsim-mem", "champsim-cloudsuite-mem",
                                         NULL};

st_error st_import(const char *format, int fd, const st_import_opts *o, const st_import_sink *sink,
                   st_import_stats *stats, st_diag *d)
{
    st_import_stats tmp;
    st_import_stats *st = stats ? stats : &tmp;
    memset(st, 0, sizeof *st);
    st_diag_clear(d);
    if (!format || !sink || !sink->add_stream || !sink->append)
        return st_diag_set(d, ST_E_USAGE, "no format or no sink");
    for (size_t i = 0; i < sizeof importers / sizeof importers[0]; i++)
        if (strcmp(format, importers[i].name) == 0) {
            st_error e = importers[i].fn(fd, o, sink, st, d);
            /* where another importer was reading when the sink refused a
             * batch is not the refused entry's place */
            if (e == ST_E_CYCLE_ORDER && d && !importers[i].names_refused)
                d->line = d->offset = ST_DIAG_UNKNOWN;
            return e;
        }
    return st_diag_set(d, ST_E_USAGE, "unknown import format \"%.40s\"", format);
}

/* ---- exporter object ---------------------------------------------------------- */

/* In the order of st_xkind. */
const char *const st_export_formats[] = {"raw", "text", "lackey", "din", "xdin", "csv", "vpc", "vpc3",
                                         "dramsim2",
                                         "gem5",
                                         "cvp", "cbp2025", "cvp-loads",
                                         "drmemtrace",
                                         "champsim",
                                         NULL};

st_error st_x_flush(st_exporter *x)
{
    if (x->len == 0)
        return ST_OK;
    size_t n = x->len;
    x->len = 0;
    return x->write(x->warg, x->buf, n);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

/* Index of format in st_export_formats, or -1. */
static int export_kind(const char *format)
{
    for (int i = 0; format && st_export_formats[i]; i++)
        if (strcmp(format, st_export_formats[i]) == 0)
            return i;
    return -1;
}

/* Whether exporter kind writes entries of type t: each exporter's types,
 * said once. */
static int kind_accepts(st_xkind kind, st_entry_type t)
{
    switch (kind) {
    case X_RAW: return 1;
    case X_TEXT: return st_entry_is_memory(t) || t == ST_TYPE_VPC || t == ST_TYPE_EVENT;
    case X_CSV: return st_entry_is_memory(t) || t == ST_TYPE_EVENT;
    case X_LACKEY:
    case X_DIN:
    case X_XDIN: return st_entry_is_memory(t) || t == ST_TYPE_DRMEMTRACE;
    case X_DRAMSIM2: return st_entry_is_memory(t);
    case X_GEM5: return st_entry_is_memory(t);
    case X_CVP:
    case X_CBP2025:
    case X_CVP_LOADS: return t == ST_TYPE_CVP;
    case X_DRMEMTRACE: return t == ST_TYPE_DRMEMTRACE;
    case X_CHAMPSIM: return t == ST_TYPE_CHAMPSIM || t == ST_TYPE_CHAMPSIM_CS;
    case X_VPC:
    case X_VPC3: return t == ST_TYPE_VPC;
    }
    return 0;
}

int st_export_is_text(const char *format)
{
    int kind = export_kind(format);
    switch (kind) {
    case X_TEXT:
    case X_CSV:
    case X_LACKEY:
    case X_DIN:
    case X_XDIN:
    case X_DRAMSIM2:
    case X_CVP_LOADS: return 1;
    default: return kind < 0 ? -1 : 0;
    }
}

int st_export_accepts(const char *format, st_entry_type t)
{
    int kind = export_kind(format);
    return kind < 0 ? -1 : kind_accepts((st_xkind)kind, t);
}

st_error st_exporter_new(st_exporter **xp, const char *format, const st_export_stream *s, st_write_fn write,
                         void *warg, st_value_fn value, void *varg)
{
    *xp = NULL;
    int kind = export_kind(format);
    if (kind < 0 || !s || !write)
        return ST_E_USAGE;
    st_entry_type t = s->type;
    size_t known = st_entry_size(t);
    if (s->entry_size == 0 || (known && t != ST_TYPE_USER && known != s->entry_size))
        return ST_E_USAGE;
    int ok = kind_accepts((st_xkind)kind, t);
    if (kind == X_TEXT && s->header && s->header_len > ST_IMP_HEADER_MAX)
        ok = 0; /* the importer keeps at most this much (IMPORT.md 6.1) */
    if (!ok)
        return ST_E_UNSUPPORTED;

    st_exporter *x = calloc(1, sizeof *x);
    if (!x)
        return ST_E_NOMEM;
    x->kind = (st_xkind)kind;
    x->type = t;
    x->esize = s->entry_size;
    x->write = write;
    x->warg = warg;
    x->value = value;
    x->varg = varg;
    const char *nm = s->name ? s->name : "";
    x->name = malloc(strlen(nm) + 1);
    x->buf = malloc(ST_XBUF);
    if (s->header && s->header_len) {
        x->header = malloc(s->header_len);
        if (x->header) {
            memcpy(x->header, s->header, s->header_len);
            x->header_len = s->header_len;
        }
    }
    if (!x->name || !x->buf || (s->header && s->header_len && !x->header)) {
        st_exporter_free(x);
        return ST_E_NOMEM;
    }
    strcpy(x->name, nm);
    x->role = st_x_role(nm);
    x->part = -1;
    *xp = x;
    return ST_OK;
}

/* The format's file header, once. */
static st_error start(st_exporter *x)
{
    if (x->started)
        return ST_OK;
    x->started = 1;
    char *p;
    switch (x->kind) {
    case X_VPC:
        RETURN_IF_ERROR(st_x_room(x, 4, &p));
        /* The kept range word, unless there is none or it is vpc3's magic:
         * then the widest range, which every 32-bit PC satisfies. */
        if (x->header_len == 4 && memcmp(x->header, "vpc3", 4) != 0)
            memcpy(p, x->header, 4);
        else
            memset(p, 0xFF, 4);
        x->len += 4;
        return ST_OK;
    case X_VPC3:
        RETURN_IF_ERROR(st_x_room(x, 4, &p));
        memcpy(p, "vpc3", 4);
        x->len += 4;
        return ST_OK;
    case X_TEXT:
        return st_x_text_start(x);
    case X_CSV:
        return st_x_csv_start(x);
    case X_GEM5:
        return st_x_gem5_start(x);
    case X_CVP_LOADS:
        return st_x_cvp_loads_start(x);
    default:
        return ST_OK;
    }
}

/* Copy n entries of esize bytes through the buffer; whole buffers'
 * worth, when the buffer is empty, go to the write callback as they are
 * (the callbacks still see at most ST_XBUF bytes at a time): copying the
 * 19 MB of a ChampSim trace was 9% of simtrace-cat -F champsim's
 * instructions. */
static st_error put_bytes(st_exporter *x, const uint8_t *p, size_t bytes)
{
    for (; x->len == 0 && bytes >= ST_XBUF; p += ST_XBUF, bytes -= ST_XBUF)
        RETURN_IF_ERROR(x->write(x->warg, p, ST_XBUF));
    while (bytes) {
        if (x->len == ST_XBUF)
            RETURN_IF_ERROR(st_x_flush(x));
        size_t k = ST_XBUF - x->len;
        if (k > bytes)
            k = bytes;
        memcpy(x->buf + x->len, p, k);
        x->len += k;
        p += k;
        bytes -= k;
    }
    return ST_OK;
}

char st_x_role(const char *name)
{
    if (ends_with(name, ST_FETCH_STREAM))
        return 'I';
    return ends_with(name, "write") ? 'S' : 'L';
}

/* The size an entry records (fullSize: the full width 8 or 4), 0 if none
 * (m64/m32 without fullSize, a zero size field). */
static uint64_t size_field(st_entry_type t, const st_entry *e)
{
    if (e->meta16 & 1)
        return st_entry_is_wide(t) ? 8 : 4;
    if (t == ST_TYPE_D64)
        return e->data >> 32;
    if (t == ST_TYPE_D32)
        return (e->data >> 16) & 0xFFFF;
    return 0;
}

uint64_t st_x_size(st_entry_type t, const st_entry *e) { return size_field(t, e); }

st_error st_x_access(st_exporter *x, st_entry_type t, const st_entry *e, char kind)
{
    if (x->kind == X_DRAMSIM2)
        return st_x_dramsim2(x, e, kind);
    if (x->kind == X_GEM5)
        return st_x_gem5(x, t, e, kind);
    char *p;
    RETURN_IF_ERROR(st_x_room(x, 128, &p));
    size_t m = 0;
    uint64_t size = size_field(t, e);
    switch (x->kind) {
    case X_LACKEY:
        /* valgrind's "I  %08lx,%lu" and " L %08lx,%lu"; an access without
         * a size gets the full width, which lackey readers need */
        if (kind == 'I') {
            memcpy(p, "I  ", 3);
        } else {
            p[0] = ' ';
            p[1] = kind;
            p[2] = ' ';
            if (!size)
                size = st_entry_is_wide(t) ? 8 : 4;
        }
        m = 3 + st_x_hex(p + 3, e->addr, 8);
        p[m++] = ',';
        m += st_x_dec(p + m, size);
        p[m++] = '\n';
        break;
    default: /* din: "LABEL ADDR"; xdin: "ATYPE ADDR [SIZE]", SIZE hex */
        for (int half = 0; half < 2; half++) {
            char k = kind == 'M' ? (half ? 'S' : 'L') : kind;
            if (half && kind != 'M')
                break;
            if (x->kind == X_DIN)
                p[m++] = k == 'I' ? '2' : k == 'S' ? '1' : '0';
            else
                p[m++] = k == 'I' ? 'i' : k == 'S' ? 'w' : 'r';
            p[m++] = ' ';
            m += st_x_hex(p + m, e->addr, 1);
            if (x->kind == X_XDIN && size) {
                p[m++] = ' ';
                m += st_x_hex(p + m, size, 1);
            }
            p[m++] = '\n';
        }
        break;
    }
    x->len += m;
    return ST_OK;
}

/* A drmemtrace stream's view as accesses (IMPORT.md 18.3): instructions
 * as fetches of their length at their pc, reads, prefetches and writes as
 * loads and stores of their size; the other records have none. */
static st_error drmemtrace_lines(st_exporter *x, const uint8_t *entries, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = entries + i * 12;
        unsigned type = st_load16(p);
        char kind = (type >= 10 && type <= 16) || type == 29 ? 'I' : type == 1 ? 'S' : type <= 9 ? 'L' : 0;
        if (!kind)
            continue;
        st_entry e = {.addr = st_load64(p + 4), .data = (uint64_t)st_load16(p + 2) << 32};
        e.ip = e.addr;
        RETURN_IF_ERROR(st_x_access(x, ST_TYPE_D64, &e, kind));
    }
    return ST_OK;
}

/* One stream alone: its records, none invented (IMPORT.md 8.3); the
 * continuation entries of a fetch stream are no records. */
static st_error access_lines(st_exporter *x, const uint8_t *entries, size_t n)
{
    if (x->type == ST_TYPE_DRMEMTRACE)
        return drmemtrace_lines(x, entries, n);
    for (size_t i = 0; i < n; i++) {
        st_entry e;
        st_entry_load(x->type, entries + i * x->esize, &e);
        if (x->role == 'I' && ((e.meta16 << 48) & ST_FETCH_CONT))
            continue;
        RETURN_IF_ERROR(st_x_access(x, x->type, &e, x->role));
    }
    return ST_OK;
}

const char *st_exporter_why(const st_exporter *x) { return x->why; }

st_error st_exporter_write(st_exporter *x, uint64_t first, const uint8_t *entries, size_t n)
{
    RETURN_IF_ERROR(start(x));
    switch (x->kind) {
    case X_TEXT:
        return st_x_text_write(x, first, entries, n);
    case X_CSV:
        return st_x_csv_write(x, first, entries, n);
    case X_LACKEY:
    case X_DIN:
    case X_XDIN:
    case X_DRAMSIM2:
    case X_GEM5:
        return access_lines(x, entries, n);
    case X_CVP:
    case X_CBP2025:
        return st_x_cvp_write(x, first, entries, n);
    case X_CVP_LOADS:
        return st_x_cvp_loads_write(x, first, entries, n);
    default:
        return put_bytes(x, entries, n * x->esize);
    }
}

st_error st_exporter_finish(st_exporter *x)
{
    RETURN_IF_ERROR(start(x));
    if (x->inner)
        RETURN_IF_ERROR(st_exporter_finish(x->inner));
    return st_x_flush(x);
}

void st_exporter_free(st_exporter *x)
{
    if (!x)
        return;
    st_exporter_free(x->inner);
    free(x->name);
    free(x->header);
    free(x->buf);
    free(x);
}
