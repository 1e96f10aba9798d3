/*
 * trace_io.h - importers and exporters of trace formats (public header of
 * formats/, beside entry.h).
 *
 * An importer reads a text or legacy binary trace in one pass from a file
 * descriptor (a pipe is fine), in constant memory, and hands entries to a
 * sink, one stream per kind of access.  An exporter turns decoded entries
 * back into a format.  The mappings of every format are in
 * formats/IMPORT.md.
 *
 * This layer knows nothing of the container: simtrace-pack connects an
 * importer's sink to st_writer_add_stream / st_writer_append, and
 * simtrace-cat feeds st_exporter_write from decoded frames.
 *
 * Errors: every function returns an st_error.  A malformed line gives
 * ST_E_SYNTAX with d->line (1-based), d->offset (byte offset of the line)
 * and d->detail (what is wrong, then the line's first bytes); input that is
 * not the format at all gives ST_E_NOT_FORMAT within its first lines.
 */
#ifndef ST_TRACE_IO_H
#define ST_TRACE_IO_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/st_error.h"
#include "entry.h"

/* ---- importers ------------------------------------------------------------ */

/* A stream an importer creates. */
typedef struct {
    const char *name;      /* e.g. "cpu0.read"; the importer's prefix applied */
    st_entry_type type;    /* d64, vblock, vpc, event, ... */
    uint32_t owner;        /* vblock streams: sid of the stream whose wide
                              entries they hold; UINT32_MAX otherwise */
    const uint8_t *header; /* bytes to keep with the stream (vpc: the file
                              header), or NULL */
    size_t header_len;
} st_stream_decl;

typedef struct {
    void *arg;
    /* Declare a stream before its first entry; sets *sid.  Streams are
     * declared in the order their first entry appears, so the result is
     * deterministic. */
    st_error (*add_stream)(void *arg, const st_stream_decl *decl, uint32_t *sid);
    /* Append n whole entries of the stream's type.  Entries of one stream
     * arrive in order; entries of a vblock stream arrive after their owner
     * entry was appended.  A block's owner index counts the entries this
     * import gave the owner stream (0: its first); a sink whose stream
     * already held entries adds their number (simtrace-pack does). */
    st_error (*append)(void *arg, uint32_t sid, const void *entries, size_t n);
    /* Optional (NULL: not told): after append refused an entry whose cycle
     * is below the one before it (ST_E_CYCLE_ORDER), how many of that
     * call's entries it appended before the refused one.  The importers
     * that read lines then name the refused entry's line. */
    size_t (*appended_before_refusal)(void *arg);
} st_import_sink;

typedef struct {
    int skip_bad;         /* 1: count malformed lines, report the first few
                             through warn, and go on; 0: stop at the first */
    const char *prefix;   /* prepended to every stream name; NULL = "" */
    /* Called for each skipped line when skip_bad is set (may be NULL). */
    void (*warn)(void *arg, const st_diag *d);
    void *warn_arg;
    int split_cr3;        /* bochs: linear accesses in streams per address
                             space, from the page walks (IMPORT.md 13) */
    /* The caller's stop request (NULL: none): nonzero once the run was
     * interrupted and its input ended early (a signal handler sets it, and
     * then ends the input).  A text line cut off at that end is dropped,
     * not read as a line, since the part of a line may look like a whole
     * one with other values. */
    const volatile sig_atomic_t *stopped;
} st_import_opts;

typedef struct {
    uint64_t bytes;     /* input bytes consumed */
    uint64_t lines;     /* lines read (text formats) */
    uint64_t entries;   /* entries appended, all streams */
    uint64_t bad_lines; /* malformed lines skipped (skip_bad) */
    uint64_t dropped;   /* valid records the importer does not keep: lackey
                           "SB" lines, din labels 3 and 4, xdin m, c, v */
} st_import_stats;

/*
 * The fetch stream of the lackey, din and xdin importers (IMPORT.md 1.6):
 * one d64 entry per instruction record (cycle = its ordinal, ip = address =
 * the instruction's address, fullSize 0, data = size << 32 | kinds), whose
 * low 32 data bits list the kinds of the access records that follow it, 2
 * bits each from bit 0 (ST_KIND_*, ST_KIND_END after the last).  More than
 * ST_FETCH_KINDS accesses, or accesses before the first instruction, go to
 * continuation entries: tag bit 0 set, no instruction record of their own,
 * the cycle and ip of the accesses, size 0.  The read and write streams are
 * what they would be without it; with it, lackey, din and xdin exports give
 * the records back in their order.
 */
#define ST_FETCH_STREAM "fetch"
#define ST_FETCH_CONT (UINT64_C(1) << 49)
#define ST_FETCH_KINDS 16u
enum { ST_KIND_END = 0, ST_KIND_READ = 1, ST_KIND_WRITE = 2, ST_KIND_MODIFY = 3 };

/* Names of the importers: "bochs", "lackey", "din", "xdin", "pinatrace",
 * "text", "vpc", "vpc3",
 * "dramsim2", "gem5", "pixie32", "pixie64", "cvp", "cbp2025"; NULL-terminated. */
extern const char *const st_import_formats[];

/*
 * Read all of fd in format `format` and send its entries to sink.
 * Everything complete before an error has been appended when it returns,
 * so the caller can still finish a valid container.
 * Returns ST_OK; ST_E_USAGE (unknown format); ST_E_SYNTAX; ST_E_NOT_FORMAT;
 * ST_E_TOO_LARGE (a value wider than ST_VALUE_MAX, a cycle or an index
 * beyond 48 bits); ST_E_PARTIAL_ENTRY (a binary format ending mid-record);
 * ST_E_READ; ST_E_NOMEM; or the sink's error.  On the sink's
 * ST_E_CYCLE_ORDER, d->line is the refused entry's line where the importer
 * knows it (lackey, din, xdin, pinatrace and text, with a sink that has
 * appended_before_refusal), else ST_DIAG_UNKNOWN, as d->offset is.
 * stats (may be NULL) is filled in on success and failure.
 */
st_error st_import(const char *format, int fd, const st_import_opts *o, const st_import_sink *sink,
                   st_import_stats *stats, st_diag *d);

/* 1 when importer `format` reads lines of text (all but vpc and vpc3): a
 * compressed input of it that ends early or is damaged is cut back to its
 * last whole line (common/st_decomp.h), not read up to a half line. */
int st_import_is_text(const char *format);

/* ---- exporters ------------------------------------------------------------ */

/* Writes bytes of exported output; returns ST_OK or ST_E_WRITE. */
typedef st_error (*st_write_fn)(void *arg, const void *buf, size_t n);

/* Gives the variable-sized value of entry `index` (st_entry_is_vwide): its
 * bytes, least significant first, and length.  Returns ST_OK, or an error
 * (missing or damaged blocks) that the exporter passes on.  ST_OK with
 * *len == 0 means the entry has no stored value (e.g. a lackey access wider
 * than 8 bytes, imported without a value): the text exporter then writes
 * the entry's own fields with the "nv" flag (formats/IMPORT.md 6.3).  A
 * nonzero *len must equal the size in the entry (else ST_E_CORRUPT). */
typedef st_error (*st_value_fn)(void *arg, uint64_t index, const uint8_t **value, size_t *len);

typedef struct st_exporter st_exporter;

/* What the exporter needs to know of the stream. */
typedef struct {
    const char *name;
    st_entry_type type;
    uint32_t entry_size;
    const uint8_t *header; /* the stream's kept header (vpc), or NULL */
    size_t header_len;
} st_export_stream;

/* Names of the exporters: "raw", "text", "lackey", "din", "vpc", "vpc3",
 * "dramsim2", "gem5", "cvp", "cbp2025", "cvp-loads" (IMPORT.md 14, 15,
 * 17); NULL-terminated. */
extern const char *const st_export_formats[];

/* 1 when exporter format writes text lines, 0 bytes that are not text,
 * -1 no such format. */
int st_export_is_text(const char *format);
/* Whether exporter `format` writes entries of type t: 1 yes, 0 no, -1 no
 * such format.  st_exporter_new refuses the others (ST_E_UNSUPPORTED). */
int st_export_accepts(const char *format, st_entry_type t);

/*
 * Start an exporter of format `format` for stream s, writing through
 * write(warg, ...).  value (may be NULL) resolves vblock values for the
 * text exporter.  Writes any file header the format has (vpc, vpc3) when
 * the first entries are written or at st_exporter_finish, whichever comes
 * first.
 * Returns ST_OK; ST_E_USAGE (unknown format); ST_E_UNSUPPORTED (the format
 * cannot hold entries of this type, e.g. vpc from d64); ST_E_NOMEM.
 */
st_error st_exporter_new(st_exporter **x, const char *format, const st_export_stream *s, st_write_fn write,
                         void *warg, st_value_fn value, void *varg);

/*
 * Export n entries (n * entry_size bytes) whose first has index `first` in
 * the stream.  Calls are in increasing index order, possibly with gaps
 * (ranges).  Returns ST_OK, the write or value callback's error.
 */
st_error st_exporter_write(st_exporter *x, uint64_t first, const uint8_t *entries, size_t n);
/* What the entry st_exporter_write refused (ST_E_CORRUPT) lacks, naming
 * it; "" when no entry was refused. */
const char *st_exporter_why(const st_exporter *x);

/* Flush; returns ST_OK or the write callback's error. */
st_error st_exporter_finish(st_exporter *x);

void st_exporter_free(st_exporter *x);

/* ---- several streams merged into one file (export_merge.c) ---------------- */

/* The next entry of source k (entry_size bytes of its type), and its index
 * in its stream; *entry NULL at the source's end.  The entry stays valid
 * until the next call for the same k. */
typedef st_error (*st_next_fn)(void *arg, unsigned k, const uint8_t **entry, uint64_t *index);

/* Streams one text file holds at most (IMPORT.md 6.5). */
#define ST_TEXT_PARTS 16

/* Names of the formats st_export_merged writes: "lackey", "din", "xdin",
 * "csv", "text"; NULL-terminated. */
extern const char *const st_merge_formats[];

/*
 * Write the k streams s[0..k-1] as one file of format `format`, their
 * entries merged by cycle (formats/IMPORT.md 8.6): a fetch stream's
 * instruction record before the accesses of its cycle, which follow in the
 * order its kinds give; otherwise, within a cycle, reads before writes,
 * each in the order of s.
 * Pulls entries through next(narg, ...), holding one per source.
 * text: entries as -F text writes them, each line "@K " for s[K], after one
 * header line per stream (IMPORT.md 6.5); wide values are written with
 * "nv" (no value callback here: st_export_merged_values gives them).
 * Returns ST_OK; ST_E_USAGE (not a merge format, k == 0); ST_E_UNSUPPORTED
 * (a stream the format cannot hold: memory streams only, and for text
 * event streams too); ST_E_TOO_LARGE (text: more than
 * ST_TEXT_PARTS streams); ST_E_NOMEM; next's or write's error.
 */
st_error st_export_merged(const char *format, const st_export_stream *s, unsigned k, st_next_fn next, void *narg,
                          st_write_fn write, void *warg);
/* The same, with the whole value of a wide entry of s[K] from
 * value[K](varg[K], ...) (as st_exporter_new's callback; text writes it
 * whole, 6.3); value, or value[K], NULL: none. */
st_error st_export_merged_values(const char *format, const st_export_stream *s, unsigned k, st_next_fn next,
                                 void *narg, const st_value_fn *value, void *const *varg, st_write_fn write,
                                 void *warg);

#endif /* ST_TRACE_IO_H */
