/*
 * import_internal.h - what the importers of formats/ share (not public).
 *
 * Each importer is one function with the signature of st_import minus the
 * format name; trace_io.c dispatches on the name.
 *
 * The text importers are written as a per-line parser plugged into one
 * driver (st_imp_run_lines), which owns the error policy of trace_io.h:
 * stop at the first bad line or skip it (skip_bad), ST_E_NOT_FORMAT when no
 * line among the first few content lines is valid, diagnostics with line,
 * offset and an escaped excerpt.  Entries go through st_imp_out, which
 * batches them per stream, declares each stream when its first entry is
 * flushed (in order of first appearance) and keeps the sink's ordering rule
 * for vblock streams (owner entries are always flushed first).
 */
#ifndef ST_IMPORT_INTERNAL_H
#define ST_IMPORT_INTERNAL_H

#include "line_reader.h"
#include "trace_io.h"

typedef st_error (*st_import_fn)(int fd, const st_import_opts *o, const st_import_sink *sink,
                                 st_import_stats *stats, st_diag *d);

st_error st_import_bochs(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                         st_diag *d);
st_error st_import_lackey(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                          st_diag *d);
st_error st_import_din(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                       st_diag *d);
st_error st_import_xdin(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                        st_diag *d);
st_error st_import_pinatrace(int fd, const st_import_opts *o, const st_import_sink *sink,
                             st_import_stats *stats, st_diag *d);
st_error st_import_text(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                        st_diag *d);
st_error st_import_vpc(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                       st_diag *d);
st_error st_import_vpc3(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                        st_diag *d);
st_error st_import_dramsim2(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                            st_diag *d);
st_error st_import_gem5(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                        st_diag *d);
st_error st_import_pixie32(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                           st_diag *d);
st_error st_import_pixie64(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                           st_diag *d);

/* Read fd to its end in blocks of whole records of rec bytes (rec << 16
 * bytes a block), each block handed to fn; stops at fn's first error.
 * *bytes grows by the input read; *left: the bytes of a last, incomplete
 * record (the caller names the error).  ST_OK, ST_E_READ, ST_E_NOMEM, or
 * fn's error. */
typedef st_error (*st_imp_block_fn)(void *arg, const uint8_t *recs, size_t n);
st_error st_imp_read_records(int fd, size_t rec, st_imp_block_fn fn, void *arg, uint64_t *bytes, size_t *left);
st_error st_import_cvp(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                       st_diag *d);
st_error st_import_cbp2025(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                           st_diag *d);
st_error st_import_drmemtrace(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                              st_diag *d);
st_error st_import_champsim(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                            st_diag *d);
st_error st_import_champsim_cs(int fd, const st_import_opts *o, const st_import_sink *sink,
                               st_import_stats *stats, st_diag *d);
st_error st_import_champsim_mem(int fd, const st_import_opts *o, const st_import_sink *sink,
                                st_import_stats *stats, st_diag *d);
st_error st_import_champsim_cs_mem(int fd, const st_import_opts *o, const st_import_sink *sink,
                                   st_import_stats *stats, st_diag *d);

/* ---- batched output to the sink ------------------------------------------- */

#define ST_IMP_MAX_STREAMS (2 * ST_TEXT_PARTS) /* text: each stream and its vblocks */
#define ST_IMP_BATCH 4096u      /* entries buffered per stream before append */
#define ST_IMP_NAME_MAX 256u    /* longest stream name, prefix included */
#define ST_IMP_HEADER_MAX 1024u /* longest kept stream header */

typedef struct {
    char name[ST_IMP_NAME_MAX + 1];
    st_entry_type type;
    size_t esize;
    int owner;          /* index of the owner stream in st_imp_out (vblock), or -1 */
    uint8_t header[ST_IMP_HEADER_MAX];
    size_t header_len;
    int declared;
    uint32_t sid;
    uint8_t *buf;       /* ST_IMP_BATCH entries */
    uint64_t *lines;    /* the input line of each buffered entry */
    size_t n;           /* entries buffered */
    uint64_t appended;  /* entries handed to the sink so far */
    int seen;           /* order of first appearance + 1; 0 = no entry yet */
    int late;           /* declared after every other stream seen so far
                           (the fetch stream: read stays the first stream) */
} st_imp_stream;

typedef struct {
    const st_import_sink *sink;
    const char *prefix;
    st_imp_stream s[ST_IMP_MAX_STREAMS];
    int ns;
    int next_seen;
    uint64_t entries; /* appended to the sink, all streams */
    uint64_t line;    /* the line being read (st_imp_run_lines), given to its entries */
    uint64_t refused_line; /* the line of an entry the sink refused (ST_E_CYCLE_ORDER); 0: not known */
} st_imp_out;

void st_imp_out_init(st_imp_out *out, const st_import_sink *sink, const st_import_opts *o);
/* Release the buffers; does not flush. */
void st_imp_out_free(st_imp_out *out);
/*
 * Add stream number `index` (0, 1, ... in call order) named prefix + name.
 * owner: index of the stream a vblock stream belongs to, or -1.  header
 * (may be NULL) is kept with the declaration.  Returns ST_OK, ST_E_NOMEM,
 * ST_E_TOO_LARGE (name or header too long).
 */
st_error st_imp_out_add(st_imp_out *out, const char *name, st_entry_type type, int owner,
                        const uint8_t *header, size_t header_len);
/* Declare stream i now (before any entry), if not yet declared. */
st_error st_imp_out_declare(st_imp_out *out, int i);
/* Room for one entry of stream i: flushes when the batch is full.  Returns
 * the slot in *slot (entry_size bytes, to be filled by the caller). */
static inline st_error st_imp_slot(st_imp_out *out, int i, uint8_t **slot);
/* Hand every buffered entry to the sink, owners before their vblocks. */
st_error st_imp_out_flush(st_imp_out *out);
/* Index the next entry of stream i will have in its stream. */
static inline uint64_t st_imp_next_index(const st_imp_out *out, int i)
{
    return out->s[i].appended + out->s[i].n;
}

st_error st_imp_flush_stream(st_imp_out *out, int i);

static inline st_error st_imp_slot(st_imp_out *out, int i, uint8_t **slot)
{
    st_imp_stream *s = &out->s[i];
    if (s->n == ST_IMP_BATCH)
        RETURN_IF_ERROR(s->owner >= 0 ? st_imp_out_flush(out) : st_imp_flush_stream(out, i));
    if (!s->seen)
        s->seen = ++out->next_seen;
    *slot = s->buf + s->n * s->esize;
    s->lines[s->n] = out->line;
    s->n++;
    return ST_OK;
}

/* ---- number parsing (the hot path of every text importer) ------------------ */

extern const signed char st_hexval[256]; /* digit value, or -1 */

/*
 * Parse hex digits at *p (no prefix).  Leading zeros are free; more than 16
 * significant digits give overflow.  Advances *p past the digits.
 * Returns the number of digits read (0: none), or -1 on overflow.
 */
static inline int st_parse_hex(const char **p, uint64_t *v)
{
    const unsigned char *s = (const unsigned char *)*p;
    uint64_t x = 0;
    int n = 0;
    signed char h;
    while (*s == '0')
        s++, n++;
    const unsigned char *sig = s;
    while ((h = st_hexval[*s]) >= 0) {
        x = (x << 4) | (uint64_t)h;
        s++;
    }
    if (s - sig > 16)
        return -1;
    n += (int)(s - sig);
    *p = (const char *)s;
    *v = x;
    return n;
}

/* Decimal digits at *p; same return convention, overflow beyond 2^64-1. */
static inline int st_parse_dec(const char **p, uint64_t *v)
{
    const char *s = *p;
    uint64_t x = 0;
    int n = 0;
    while (*s >= '0' && *s <= '9') {
        unsigned dgt = (unsigned)(*s - '0');
        if (x > (UINT64_MAX - dgt) / 10)
            return -1;
        x = x * 10 + dgt;
        s++, n++;
    }
    *p = s;
    *v = x;
    return n;
}

static inline const char *st_skip_blank(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* ---- the line driver -------------------------------------------------------- */

typedef enum {
    ST_LINE_ENTRY = 0, /* a valid line (entries may or may not have been produced) */
    ST_LINE_SKIP,      /* blank, comment or tool message: neither valid nor bad */
    ST_LINE_BAD,       /* malformed: *why says what is wrong, *code the error */
    ST_LINE_END,       /* an end marker (pinatrace "#eof"): stop reading */
    ST_LINE_FATAL,     /* the sink or a buffer failed: *code is returned as is */
} st_line_result;

/*
 * Parse one line (NUL-terminated, without its end of line).  On ST_LINE_BAD
 * set *why to a static message and *code to ST_E_SYNTAX or ST_E_TOO_LARGE;
 * on ST_LINE_FATAL set *code.
 */
typedef st_line_result (*st_line_fn)(void *state, st_imp_out *out, const char *line, size_t len,
                                     const char **why, st_error *code);

/* For line parsers: set *why (a static message) and, for IMP_TOO_LARGE,
 * *code = ST_E_TOO_LARGE, and return ST_LINE_BAD. */
#define IMP_BAD(msg)            \
    do {                        \
        *why = (msg);           \
        return ST_LINE_BAD;     \
    } while (0)
#define IMP_TOO_LARGE(msg)      \
    do {                        \
        *why = (msg);           \
        *code = ST_E_TOO_LARGE; \
        return ST_LINE_BAD;     \
    } while (0)

/* Content lines inspected for at least one valid line before the input is
 * declared not to be in the format. */
#define ST_IMP_PROBE_LINES 8

/*
 * Read fd line by line through parse, applying the error policy of
 * trace_io.h, then flush out.  Fills stats and d.  `format` names the format
 * in NOT_FORMAT messages.
 */
st_error st_imp_run_lines(int fd, const char *format, st_line_fn parse, void *state, st_imp_out *out,
                          const st_import_opts *o, st_import_stats *stats, st_diag *d);

/* Write "why: `excerpt`" into d->detail, the excerpt being the first ~40
 * bytes of line with non-printable bytes escaped as \xNN. */
void st_imp_line_detail(st_diag *d, const char *why, const char *line, size_t len);

#endif /* ST_IMPORT_INTERNAL_H */
