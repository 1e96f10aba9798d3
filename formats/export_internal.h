/*
 * export_internal.h - the exporter object shared by trace_io.c and the
 * per-format exporter files (not public).
 *
 * Output goes through a 64 KiB buffer handed to the write callback when
 * full and at finish, so callers may pass small entry ranges cheaply.
 */
#ifndef ST_EXPORT_INTERNAL_H
#define ST_EXPORT_INTERNAL_H

#include "cvp.h"
#include "trace_io.h"

#define ST_XBUF (64u * 1024u)

typedef enum {
    X_RAW, X_TEXT, X_LACKEY, X_DIN, X_XDIN, X_CSV, X_VPC, X_VPC3,
    X_DRAMSIM2,
    X_GEM5,
    X_CVP, X_CBP2025, X_CVP_LOADS,
    X_DRMEMTRACE,
    X_CHAMPSIM, /* the records of a champsim or champsim-cloudsuite stream as they were */
} st_xkind;

struct st_exporter {
    st_xkind kind;
    st_entry_type type;
    uint32_t esize;
    char *name;           /* copy of the stream name ("" if none) */
    uint8_t *header;      /* copy of the kept header, or NULL */
    size_t header_len;
    st_write_fn write;
    void *warg;
    st_value_fn value;
    void *varg;
    int started;          /* the format's file header has been written */
    int part;             /* text in a merged file: the stream's number K
                             (header "part=K", lines "@K ..."); -1 alone */
    char role;            /* lackey/din/xdin: the record kind of the stream's
                             entries: 'I' fetch, 'S' write, 'L' other */
    uint8_t *buf;         /* ST_XBUF bytes */
    size_t len;
    struct st_exporter *inner; /* cvp-loads: the text exporter of the loads' d64 entries */
    uint8_t load_value[8 * ST_CVP_WORDS_MAX];
    size_t load_len;      /* cvp-loads: the value of the load being written; 0: none */
    uint64_t loads;       /* cvp-loads: loads written, the index of the next d64 entry */
    char why[200];        /* st_exporter_why: what the last refused entry lacks ("" if none) */
};

/* Hand the buffer to the write callback. */
st_error st_x_flush(st_exporter *x);
/* Make room for `need` (<= ST_XBUF) bytes and return where to put them;
 * the caller adds what it wrote to x->len. */
static inline st_error st_x_room(st_exporter *x, size_t need, char **p)
{
    if (x->len + need > ST_XBUF)
        RETURN_IF_ERROR(st_x_flush(x));
    *p = (char *)x->buf + x->len;
    return ST_OK;
}

/* Decimal / lowercase hex without prefix; return the characters written. */
static inline size_t st_x_dec(char *p, uint64_t v)
{
    char t[20];
    size_t n = 0;
    do {
        t[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        p[i] = t[n - 1 - i];
    return n;
}

/* At least `min` digits (zero-padded), at most 16. */
static inline size_t st_x_hex(char *p, uint64_t v, unsigned min)
{
    static const char dig[] = "0123456789abcdef";
    unsigned n = 1;
    while (n < 16 && (v >> (4 * n)))
        n++;
    if (n < min)
        n = min;
    for (unsigned i = 0; i < n; i++)
        p[i] = dig[(v >> (4 * (n - 1 - i))) & 15];
    return n;
}

/* The text format (export_text.c). */
st_error st_x_text_start(st_exporter *x);
st_error st_x_text_write(st_exporter *x, uint64_t first, const uint8_t *entries, size_t n);
/* csv (export_text.c): the header row, and one row per entry. */
st_error st_x_csv_start(st_exporter *x);
st_error st_x_csv_write(st_exporter *x, uint64_t first, const uint8_t *entries, size_t n);

/* One record of a lackey, din or xdin file (trace_io.c): kind 'I' (an
 * instruction), 'L', 'S', or 'M' (lackey's modify; din and xdin write it
 * as a read and a write) for entry e of type t. */
st_error st_x_access(st_exporter *x, st_entry_type t, const st_entry *e, char kind);
/* The records of n cvp entries, the first `first` (import_cvp.c);
 * ST_E_CORRUPT for an entry that gives no record of the format, x->why
 * then saying which and why. */
st_error st_x_cvp_write(st_exporter *x, uint64_t first, const uint8_t *entries, size_t n);
/* cvp-loads (import_cvp.c): the text exporter of the loads as d64 entries,
 * made at the start; the loads among n cvp entries, the first `first`. */
st_error st_x_cvp_loads_start(st_exporter *x);
st_error st_x_cvp_loads_write(st_exporter *x, uint64_t first, const uint8_t *entries, size_t n);
/* The record kind a stream named name holds: 'I', 'S' or 'L'. */
char st_x_role(const char *name);
/* The size an entry records (fullSize: the full width), 0 if none. */
uint64_t st_x_size(st_entry_type t, const st_entry *e);
/* One DRAMSim2 line (two for 'M') for entry e (dramsim2.c). */
st_error st_x_dramsim2(st_exporter *x, const st_entry *e, char kind);
/* gem5 packet trace (gem5.c): the file header, and one packet (two for 'M'). */
st_error st_x_gem5_start(st_exporter *x);
st_error st_x_gem5(st_exporter *x, st_entry_type t, const st_entry *e, char kind);

#endif /* ST_EXPORT_INTERNAL_H */
