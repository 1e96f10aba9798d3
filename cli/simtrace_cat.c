/* simtrace-cat - write the entries of one stream of a simtrace container,
 * whole or a range by entry index, cycle or wall-clock time; list, verify
 * and salvage containers. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../include/simtrace.h"
#include "cat_merge.h"
#include "cat_stats.h"
#include "cli_util.h"

static void usage(FILE *f)
{
    fprintf(f, "%s",
            "Usage: simtrace-cat [OPTION]... [FILE]\n"
            "       simtrace-cat -F lackey|din|xdin|csv|text [OPTION]... FILE FILE...\n"
            "Write the entries of one stream of the simtrace container FILE (or standard\n"
            "input) to standard output (or -o FILE); several streams, or the streams of\n"
            "several containers (named FILE:NAME), merged by cycle into one file.\n"
            "\n"
            "  -l, --list            list the streams: name, type, entries, frames, raw and\n"
            "                        stored bytes, ratio, first and last cycle\n"
            "      --frames          with --list: one line per data frame instead (stream,\n"
            "                        sequence, first entry, entries, first and last cycle,\n"
            "                        first and last time, offset, bytes)\n"
            "      --json            with --list: the same as one JSON object\n"
            "      --stats[=json]    what is in each stream (or the -s one): entries, frames,\n"
            "                        raw and stored bytes, bits per entry; memory streams:\n"
            "                        distinct cache lines and pages, access sizes, reads or\n"
            "                        writes (known from the stream's name), and per field\n"
            "                        the predictors' hit rates and ids, and the bits per\n"
            "                        entry of each field's ids and misses (decodes every\n"
            "                        frame; a pipe too); =json: one JSON object, with the\n"
            "                        figures of every frame\n"
            "  -t, --verify          check every checksum, frame and the directory; write\n"
            "                        nothing; report the first bad frame\n"
            "      --salvage         write every intact frame of the stream of a damaged or\n"
            "                        cut-off container; report what was lost and where\n"
            "  -s, --stream=NAME     the stream (default: the only one, else the first\n"
            "                        memory stream; lackey, din, xdin: every memory stream;\n"
            "                        cvp, cbp2025, cvp-loads, drmemtrace, champsim, vpc,\n"
            "                        vpc3: the first stream of a type the format writes).\n"
            "                        Several (-s A,B or -s A -s B) are merged by cycle\n"
            "                        into one lackey, din, xdin, csv or text file\n"
            "      --all             every memory stream (text: events too), merged\n"
            "      --no-fetch        lackey, din, xdin: leave out the fetch streams\n"
            "      --entries=A:B     entries A to B-1 (either end may be omitted)\n"
            "      --cycles=C1:C2    entries whose cycle is in C1..C2-1 (cycles must not\n"
            "                        decrease within the stream); A, B, C1, C2 are decimal\n"
            "                        with an optional k, M or G (a leading 0 is not octal),\n"
            "                        or hexadecimal with 0x.  What a range asks for past the\n"
            "                        end of the stream is not there: a note says so (exit 0)\n"
            "      --time=T1:T2      the frames written between T1 and T2 (ns since 1970,\n"
            "                        or with a suffix s, ms, us; needs --timestamps when\n"
            "                        packed)\n"
            "  -F, --format=FORMAT   raw (default, byte-identical to what was packed), text,\n"
            "                        csv (decimal, for awk and spreadsheets), or another\n"
            "                        exporter:");
    size_t col = strlen("                        exporter:");
    for (unsigned i = 0; simtrace_export_format(i); i++) {
        const char *x = simtrace_export_format(i);
        if (strcmp(x, "raw") && strcmp(x, "text") && strcmp(x, "csv"))
            cli_help_word(f, &col, x);
    }
    fprintf(f, "%s",
            "\n"
            "  -o, --output=FILE     write to FILE (replaced only with -f)\n"
            "  -c, --stdout          write to standard output (the default)\n"
            "  -T, --threads=N       decoder threads (default: online CPUs)\n"
            "  -M, --memlimit=SIZE   refuse frames that would need more memory than SIZE\n"
            "                        (bytes; suffixes k M G); fewer threads if needed\n"
            "  -f, --force           write binary to a terminal; overwrite an existing output\n"
            "      --ignore-check    do not check decoded entries against their frame's\n"
            "                        entry checksums (one per 65536 entries; a range ends\n"
            "                        its decoding at the end of one); stored checksums\n"
            "                        are still checked\n"
            "  -v, --verbose         what was read, on standard error\n"
            "  -q, --quiet           no warnings\n"
            "  -h, --help, -V, --version\n"
            "\n"
            "A range read from a regular file decodes only the frames it needs, found\n"
            "through the directory, and checks every entry it writes.  A file without\n"
            "directory (cut off, an --append killed) is read through its frame headers,\n"
            "with a note.  Damage in another stream's frames is passed over, with a note.\n"
            "Exit status: 0 success, 1 bad data or I/O error, 2 bad usage.\n");
}

enum { OPT_ENTRIES = 256, OPT_CYCLES, OPT_TIME, OPT_SALVAGE, OPT_IGNORE_CHECK, OPT_ALL, OPT_FRAMES, OPT_JSON, OPT_STATS,
       OPT_NO_FETCH };

static const struct option longopts[] = {
    {"list", no_argument, NULL, 'l'},          {"verify", no_argument, NULL, 't'},
    {"test", no_argument, NULL, 't'},          {"salvage", no_argument, NULL, OPT_SALVAGE},
    {"stream", required_argument, NULL, 's'},  {"entries", required_argument, NULL, OPT_ENTRIES},
    {"cycles", required_argument, NULL, OPT_CYCLES}, {"time", required_argument, NULL, OPT_TIME},
    {"format", required_argument, NULL, 'F'},  {"output", required_argument, NULL, 'o'},
    {"stdout", no_argument, NULL, 'c'},        {"threads", required_argument, NULL, 'T'}, {"memlimit", required_argument, NULL, 'M'},
    {"force", no_argument, NULL, 'f'},         {"keep", no_argument, NULL, 'k'},
    {"verbose", no_argument, NULL, 'v'},       {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},          {"version", no_argument, NULL, 'V'},
    {"ignore-check", no_argument, NULL, OPT_IGNORE_CHECK}, {"all", no_argument, NULL, OPT_ALL},
    {"frames", no_argument, NULL, OPT_FRAMES},   {"json", no_argument, NULL, OPT_JSON},
    {"stats", optional_argument, NULL, OPT_STATS},
    {"no-fetch", no_argument, NULL, OPT_NO_FETCH},
    {NULL, 0, NULL, 0}};

/* the library's range kinds */
#define R_NONE SIMTRACE_RANGE_ALL
#define R_ENTRIES SIMTRACE_RANGE_ENTRIES
#define R_CYCLES SIMTRACE_RANGE_CYCLES
#define R_TIME SIMTRACE_RANGE_TIME

#define ST_MAX_STREAMS_CLI 65536u /* stream ids are 0..65535 (SIMTRACE.md 8.1) */

typedef struct {
    simtrace_range r; /* half-open [lo, hi); hi = UINT64_MAX when omitted */
    const char *text; /* as given: messages quote it, not what it was taken for */
} range;

/* Parse "A:B" with either side optional; unit parser for each side. */
static int parse_range(const char *s, range *r, int kind, int (*num)(const char *, size_t, uint64_t *))
{
    const char *colon = strchr(s, ':');
    if (!colon)
        return 0;
    r->r.kind = (uint32_t)kind;
    r->text = s;
    r->r.lo = 0;
    r->r.hi = UINT64_MAX;
    if (colon > s && !num(s, (size_t)(colon - s), &r->r.lo))
        return 0;
    if (colon[1]) {
        if (!num(colon + 1, strlen(colon + 1), &r->r.hi))
            return 0;
    }
    return r->r.lo <= r->r.hi;
}

/* entries and cycles: decimal (k, M, G suffixes) or 0x hexadecimal */
static int num_plain(const char *s, size_t n, uint64_t *v) { return cli_parse_number(s, n, v); }

static int num_time(const char *s, size_t n, uint64_t *v)
{
    static const struct {
        const char *suffix;
        uint64_t mul;
    } units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
    for (unsigned i = 0; i < 4; i++) {
        size_t l = strlen(units[i].suffix);
        if (n > l && memcmp(s + n - l, units[i].suffix, l) == 0 && (s[n - l - 1] >= '0' && s[n - l - 1] <= '9')) {
            uint64_t x;
            if (!num_plain(s, n - l, &x) || x > UINT64_MAX / units[i].mul)
                return 0;
            *v = x * units[i].mul;
            return 1;
        }
    }
    return num_plain(s, n, v);
}

/* ---- output ---- */

typedef struct {
    int fd;
    simtrace_exporter *x; /* NULL: raw */
    uint64_t written;
} out_t;

static simtrace_error out_write(void *arg, const void *buf, size_t n)
{
    out_t *o = arg;
    o->written += n;
    return cli_write_all(o->fd, buf, n) ? SIMTRACE_E_WRITE : SIMTRACE_OK;
}

/* out_write as an exporter's output (errno kept for the message) */
static int out_export(void *arg, const void *buf, size_t n) { return out_write(arg, buf, n) != SIMTRACE_OK; }

/* Start the exporter of format for stream es, writing to o. */
static simtrace_error out_exporter(out_t *o, const char *format, const simtrace_export_stream *es,
                             simtrace_export_value_fn value, void *varg)
{
    return (simtrace_error)simtrace_exporter_new(&o->x, format, es, out_export, o, value, varg);
}

static simtrace_error out_entries(out_t *o, uint64_t first, const uint8_t *p, size_t n, size_t esz)
{
    if (n == 0)
        return SIMTRACE_OK;
    if (!o->x)
        return out_write(o, p, n * esz);
    return (simtrace_error)simtrace_exporter_write(o->x, first, p, n);
}

/* ---- range edges (issue 15): what exists is written, exit 0, and a note
 * (not with -q) says what was asked for beyond the end ---- */

static int cat_quiet; /* -q */


static void note_entries_past_end(const char *file, const range *rg, const char *stream, uint64_t n)
{
    uint64_t from = 0, missing = 0;
    simtrace_range pr = rg->r;
    int past = simtrace_range_entries_past(&pr, n, &from, &missing);
    if (cat_quiet || !past)
        return;
    if (past == 1)
        cli_msg("%s: --entries %s starts past the end of stream '%s' (%" PRIu64 " entries): nothing written", file,
                rg->text, stream, n);
    else
        cli_msg("%s: --entries %s runs past the end of stream '%s' (%" PRIu64 " entries): the %" PRIu64
                " entries from %" PRIu64 " on do not exist and were not written", file, rg->text, stream, n,
                missing, from);
}

/* A window of cycles or times that starts after the stream's last entry
 * (frames: 0 when the stream has none). */
static void note_window_past_end(const char *file, const range *rg, const char *stream, uint64_t frames,
                                 uint64_t last)
{
    simtrace_range pr = rg->r;
    if (cat_quiet || !simtrace_range_window_past(&pr, frames, last))
        return;
    const char *opt = rg->r.kind == R_CYCLES ? "--cycles" : "--time";
    if (!frames)
        cli_msg("%s: stream '%s' has no entries: %s %s writes nothing", file, stream, opt, rg->text);
    else
        cli_msg("%s: %s %s starts after the last %s of stream '%s' (%" PRIu64 "): nothing written", file, opt,
                rg->text, rg->r.kind == R_CYCLES ? "cycle" : "frame time", stream, last);
}

/* What the public exporter needs of stream si of r. */
static simtrace_export_stream export_stream_of(const simtrace_reader *r, uint32_t si, const simtrace_stream_info *s)
{
    simtrace_export_stream es = {s->name, s->type, s->entry_size, NULL, 0};
    simtrace_reader_stream_header(r, si, &es.header, &es.header_len);
    return es;
}

/* The error of a cursor as simtrace-cat has always named it: the library's
 * cursor calls a decrease of cycles SIMTRACE_E_CYCLE_ORDER and a time
 * range without timestamps SIMTRACE_E_UNSUPPORTED (opening), where the
 * program says corrupt data and bad usage. */
static simtrace_error cat_cursor_error(simtrace_error e, const range *rg, int opening)
{
    if (e == SIMTRACE_E_CYCLE_ORDER)
        return SIMTRACE_E_CORRUPT;
    if (opening && e == SIMTRACE_E_UNSUPPORTED && rg->r.kind == R_TIME)
        return SIMTRACE_E_USAGE;
    return e;
}

/* The range of stream si through the directory: the library's cursor
 * chooses the frames, decodes them (an entry range's last only up to its
 * last entry) and slices them; this writes and says what is past the end.
 * A failure's place goes to *at (nothing known for the output's). */
static simtrace_error cat_index(simtrace_reader *r, uint32_t si, const range *rg, out_t *o, int verbose,
                                const char *file, simtrace_input_place *at)
{
    simtrace_stream_info s;
    simtrace_reader_stream_info(r, si, &s);
    simtrace_range pr = rg->r;
    simtrace_cursor *c = NULL;
    cli_place(at, "");
    simtrace_error e = cat_cursor_error(simtrace_cursor_open(&c, r, s.name, &pr), rg, 1);
    int lib = 1; /* the failure is the library's (the reader says where) */
    while (e == SIMTRACE_OK) {
        uint64_t first, n;
        const void *p;
        e = cat_cursor_error(simtrace_cursor_peek(c, &p, &n, &first), rg, 0);
        if (e != SIMTRACE_OK || n == 0)
            break;
        e = (simtrace_error)out_entries(o, first, p, (size_t)n, s.entry_size);
        lib = e != SIMTRACE_E_WRITE; /* else a wide value's */
    }
    if (e != SIMTRACE_OK && o->x && *simtrace_exporter_message(o->x))
        cli_place(at, simtrace_exporter_message(o->x)); /* an entry the format has no record for */
    else if (e != SIMTRACE_OK && lib)
        simtrace_reader_place(r, at);
    uint64_t decoded = 0, bytes = 0;
    if (c)
        simtrace_cursor_frames_decoded(c, &decoded);
    simtrace_cursor_free(c);
    if (e == SIMTRACE_OK) {
        simtrace_frame_info lf;
        int any = s.frames && simtrace_reader_frame_info(r, si, s.frames - 1, &lf) == SIMTRACE_OK;
        note_entries_past_end(file, rg, s.name, s.entries);
        note_window_past_end(file, rg, s.name, s.frames, !any ? 0 : rg->r.kind == R_CYCLES ? lf.last_cycle : lf.last_time);
    }
    if (verbose) {
        simtrace_reader_bytes_read(r, &bytes);
        cli_msg("decoded %" PRIu64 " of the %" PRIu64 " frames of stream '%s'; read %" PRIu64
                " bytes of directory and descriptors", decoded, s.frames, s.name, bytes);
    }
    return e;
}

/* --list --frames, --list --json (issue 15): one line or one JSON object
 * per data frame, in file order, from the directory or as a pipe goes by;
 * the streams' JSON follows the frames', so a pipe needs no memory for them. */
static struct {
    int frames, json;
    uint64_t printed; /* frames so far */
    int name_w;       /* width of the text's stream column */
    int header_done;  /* the text's frame header is printed */
} lf;

/* The stream column fits the longest of the n names known (at least 24
 * wide), so that long names such as cpu0.cr3-487c000.write.vdata do not
 * push the columns after them out of line. */
#define LIST_NAME_MIN 24
static int list_name_width(const simtrace_reader *r)
{
    size_t w = LIST_NAME_MIN;
    uint32_t n = 0;
    simtrace_reader_stream_count(r, &n);
    for (uint32_t i = 0; i < n; i++) {
        simtrace_stream_info s;
        if (simtrace_reader_stream_info(r, i, &s) == SIMTRACE_OK && strlen(s.name) > w)
            w = strlen(s.name);
    }
    return (int)w;
}

static void list_begin(FILE *f)
{
    if (lf.json)
        fputs(lf.frames ? "{\"frames\": [" : "{", f);
}

/* The text's frame header, once, before the first frame (read from a pipe,
 * the streams declared by then give the width) or alone when there is none. */
static void list_frames_header(FILE *f)
{
    if (lf.header_done || !lf.frames || lf.json)
        return;
    lf.header_done = 1;
    fprintf(f, "%-*s %8s %14s %10s %16s %16s %20s %20s %14s %10s\n", lf.name_w, "stream", "seq", "first entry",
            "entries", "first cycle", "last cycle", "first time", "last time", "offset", "bytes");
}

static void list_frame(FILE *f, const simtrace_stream_info *s, const simtrace_frame_head *r)
{
    if (!lf.frames)
        return;
    int keyed = simtrace_type_has_cycles((int)s->type), timed = r->timed != 0;
    if (lf.json) {
        fputs(lf.printed ? ",\n  {\"stream\": " : "\n  {\"stream\": ", f);
        cli_json_string(f, s->name);
        fprintf(f, ", \"seq\": %" PRIu64 ", \"first_entry\": %" PRIu64 ", \"entries\": %" PRIu64, r->seq,
                r->first_entry, r->count);
        if (keyed)
            fprintf(f, ", \"first_cycle\": %" PRIu64 ", \"last_cycle\": %" PRIu64, r->first_cycle, r->last_cycle);
        if (timed)
            fprintf(f, ", \"first_time\": %" PRIu64 ", \"last_time\": %" PRIu64, r->first_time, r->last_time);
        fprintf(f, ", \"offset\": %" PRIu64 ", \"bytes\": %" PRIu64 "}", r->offset, r->size);
    } else {
        char fc[24] = "-", lc[24] = "-", ft[24] = "-", lt[24] = "-";
        if (keyed) {
            snprintf(fc, sizeof fc, "%" PRIu64, r->first_cycle);
            snprintf(lc, sizeof lc, "%" PRIu64, r->last_cycle);
        }
        if (timed) {
            snprintf(ft, sizeof ft, "%" PRIu64, r->first_time);
            snprintf(lt, sizeof lt, "%" PRIu64, r->last_time);
        }
        list_frames_header(f);
        fprintf(f, "%-*s %8" PRIu64 " %14" PRIu64 " %10" PRIu64 " %16s %16s %20s %20s %14" PRIu64 " %10" PRIu64 "\n",
                lf.name_w, s->name, r->seq, r->first_entry, r->count, fc, lc, ft, lt, r->offset, r->size);
    }
    lf.printed++;
}

/* The streams as JSON, closing the object list_begin opened. */
static void list_json_streams(FILE *f, const simtrace_stream_info *s, unsigned n)
{
    fputs(lf.frames ? "\n],\n\"streams\": [" : "\"streams\": [", f);
    for (unsigned i = 0; i < n; i++) {
        fputs(i ? ",\n  {\"name\": " : "\n  {\"name\": ", f);
        cli_json_string(f, s[i].name);
        fputs(", \"type\": ", f);
        cli_json_string(f, s[i].type_name);
        fprintf(f, ", \"entries\": %" PRIu64 ", \"frames\": %" PRIu64 ", \"raw_bytes\": %" PRIu64
                   ", \"stored_bytes\": %" PRIu64, s[i].entries, s[i].frames, s[i].entries * s[i].entry_size,
                s[i].stored_bytes);
        if (simtrace_type_has_cycles((int)s[i].type) && s[i].frames)
            fprintf(f, ", \"first_cycle\": %" PRIu64 ", \"last_cycle\": %" PRIu64, s[i].first_cycle, s[i].last_cycle);
        fputc('}', f);
    }
    fputs("\n]}\n", f);
}

/* --verify: every frame is decoded; on the way, a stream whose cycles
 * decrease from one frame to the next (packed with --allow-cycle-reset, or
 * by a writer that did not check) is reported once, as --cycles cannot
 * select from it.  Inside a frame, only a last cycle below the first is
 * seen here (the headers' cycles); a dip that recovers within the frame
 * is not. */
typedef struct {
    const char *file;
    int quiet;
    const simtrace_reader *r;
    /* by stream index: a container has at most as many streams as ids */
    uint64_t last[ST_MAX_STREAMS_CLI];
    uint8_t seen[ST_MAX_STREAMS_CLI], noted[ST_MAX_STREAMS_CLI];
} verify_t;

static int verify_want(void *arg, const simtrace_frame_head *f)
{
    verify_t *v = arg;
    simtrace_stream_info s;
    uint32_t i = f->index;
    if (i >= ST_MAX_STREAMS_CLI || simtrace_reader_stream_info(v->r, i, &s) != SIMTRACE_OK || !s.has_cycles)
        return 1;
    int between = v->seen[i] && f->first_cycle < v->last[i], within = f->first_cycle > f->last_cycle;
    if ((between || within) && !v->noted[i]) {
        v->noted[i] = 1;
        if (!v->quiet && between)
            cli_msg("%s: stream '%s': the cycles decrease at entry %" PRIu64 " (frame %" PRIu64 "): cycle %" PRIu64
                    " after cycle %" PRIu64 "; --cycles cannot select from this stream (use --entries)",
                    v->file, s.name, f->first_entry, f->seq, f->first_cycle, v->last[i]);
        else if (!v->quiet)
            cli_msg("%s: stream '%s': the cycles decrease within frame %" PRIu64 " (entries %" PRIu64 "..%" PRIu64
                    "): from cycle %" PRIu64 " to %" PRIu64 "; --cycles cannot select from this stream (use --entries)",
                    v->file, s.name, f->seq, f->first_entry, f->first_entry + f->count - 1, f->first_cycle,
                    f->last_cycle);
    }
    v->seen[i] = 1;
    v->last[i] = f->last_cycle;
    return 1;
}

/* fd opened as a sequential reader with the options sp, keeping the
 * handle of an open that fails on the input (it says where). */
static simtrace_error open_seq(simtrace_reader **r, int fd, const simtrace_read_params *rp,
                               const simtrace_seq_params *sp)
{
    simtrace_read_params p = *rp;
    p.keep_failed = 1;
    return simtrace_reader_open_seq(r, fd, &p, sp);
}

/* Every frame of r pulled, for what its callbacks do with them: the end,
 * or the first failure. */
static simtrace_error read_seq(simtrace_reader *r)
{
    simtrace_frame f;
    simtrace_error e;
    do
        e = simtrace_reader_next_frame(r, &f);
    while (e == SIMTRACE_OK && f.entries);
    return e;
}

/* The failure e of a sequential read of file, reported where r (NULL: not
 * opened) says it lies.  Returns the exit status. */
static int seq_failed(const simtrace_reader *r, simtrace_error e, const char *file)
{
    simtrace_input_place at;
    int saved = errno; /* (a read's reason, for the message) */
    if (!r || simtrace_reader_place(r, &at) != SIMTRACE_OK)
        cli_place(&at, "");
    errno = saved;
    return cli_report_place(e, &at, file);
}

/* --verify: every frame of the input decoded and checked in file order
 * (a regular file too: its directory is checked against the frames), none
 * delivered.  Returns the exit status. */
static int verify_seq(int fd, const char *file, const simtrace_read_params *rp, int quiet, int verbose)
{
    static verify_t vt;
    vt.file = file;
    vt.quiet = quiet;
    simtrace_seq_params sp = {.want = verify_want, .want_opaque = &vt, .verify_only = 1};
    simtrace_reader *r;
    simtrace_error e = open_seq(&r, fd, rp, &sp);
    vt.r = r;
    if (e == SIMTRACE_OK)
        e = read_seq(r);
    int status = EXIT_OK;
    if (e != SIMTRACE_OK) {
        status = seq_failed(r, e, file);
    } else if (verbose) {
        uint32_t n;
        uint64_t bytes;
        simtrace_reader_stream_count(r, &n);
        simtrace_reader_bytes_read(r, &bytes);
        cli_msg("%s: ok: %u streams, %" PRIu64 " bytes checked", file, n, bytes);
    }
    simtrace_reader_free(r);
    return status;
}

/* ---- --salvage of a regular file through its directory or its frame headers ---- */

/* A damaged frame left out of a salvage, numbered as --list --frames
 * numbers it: by its seq in its stream. */
static void say_skipped(const char *file, const char *stream, uint64_t seq, uint64_t first, uint64_t count)
{
    cli_msg("%s: skipped frame %" PRIu64 " of stream '%s' (entries %" PRIu64 "..%" PRIu64 ")", file, seq, stream,
            first, first + count - 1);
}

/* What the library's recovery calls (simtrace_salvage, simtrace_resume)
 * report, said here: the output, the messages, the failure to report. */
typedef struct {
    const char *file;
    simtrace_reader *r;
    out_t *o;
    size_t esz;
    int quiet;
    simtrace_error out_e;    /* the output's failure, which stopped the call */
    uint64_t out_first; /* the first entry it failed on */
    simtrace_error stop_e;   /* SIMTRACE_DAMAGE_STOP: the failure, and where */
    simtrace_input_place stop;
    /* a resume: */
    const simtrace_stream_info *own; /* the stream read */
    const simtrace_reader *seq_r; /* the sequential reader, which knows the stream (its
                                     kept header: vpc) as seq_i, UINT32_MAX when it
                                     has not seen it */
    uint32_t seq_i;
    const char *format;          /* an exporter to start, or NULL */
    simtrace_error seq_e;              /* what stopped the sequential read */
    int declined;                /* the exporter could not start */
    int delivered;
} recover_t;

static void damage_diag(const simtrace_damage *dm, simtrace_input_place *d)
{
    cli_place(d, "");
    d->offset = dm->at_offset;
    d->frame = dm->at_frame;
    d->stream = dm->at_stream;
    snprintf(d->detail, sizeof d->detail, "%s", dm->detail);
}

static const char *damage_stream(const recover_t *rv, const simtrace_damage *dm, simtrace_stream_info *info)
{
    return simtrace_reader_stream_info(rv->r, dm->stream, info) == SIMTRACE_OK ? info->name : "?";
}

static int recover_entries(void *arg, uint64_t first, const void *p, size_t n)
{
    recover_t *rv = arg;
    rv->delivered = 1;
    rv->out_e = out_entries(rv->o, first, p, n, rv->esz);
    rv->out_first = first;
    return rv->out_e != SIMTRACE_OK;
}

/* The place of the frame that holds the entry delivered last (d: its
 * offset, seq and stream id): a failure of the output names the frame
 * being written, as every failure while a frame is at hand does.  errno is
 * kept for the message. */
static void frame_place(const recover_t *rv, simtrace_input_place *d)
{
    int saved = errno;
    cli_place(d, "");
    simtrace_frame_info fi;
    for (uint64_t k = 0; simtrace_reader_frame_info(rv->r, rv->own->index, k, &fi) == SIMTRACE_OK; k++) {
        if (rv->out_first >= fi.first_entry && rv->out_first - fi.first_entry < fi.entries) {
            d->offset = fi.offset;
            d->frame = k;
            d->stream = rv->own->id;
            break;
        }
    }
    errno = saved;
}

static int recover_damage(void *arg, const simtrace_damage *dm)
{
    recover_t *rv = arg;
    simtrace_stream_info info;
    simtrace_input_place d;
    damage_diag(dm, &d);
    switch (dm->kind) {
    case SIMTRACE_DAMAGE_FRAME:
        if (!rv->quiet) {
            cli_report_place(dm->error, &d, rv->file);
            say_skipped(rv->file, damage_stream(rv, dm, &info), dm->seq, dm->first_entry, dm->entries);
        }
        break;
    case SIMTRACE_DAMAGE_CUT: {
        simtrace_cut_frame c;
        int whole = simtrace_reader_cut_frame(rv->r, &c) == SIMTRACE_OK && c.offset == dm->offset && c.whole;
        if (!rv->quiet)
            cli_msg("%s: the frame at byte offset %" PRIu64 " is %s: entries %" PRIu64 "..%" PRIu64
                    " of stream '%s' are lost", rv->file, dm->offset,
                    whole ? "whole but fails its payload checksum (damaged, or never written by a crash)" : "cut off",
                    dm->first_entry, dm->first_entry + dm->entries - 1, damage_stream(rv, dm, &info));
        break;
    }
    case SIMTRACE_DAMAGE_OTHER: {
        /* an exporter not started yet (the damage came before the stream's
         * entries) starts here, without values: a stream with wide values
         * is read through the directory from the start, never here */
        const simtrace_stream_info *own = rv->own;
        simtrace_export_stream es = {own->name, own->type, own->entry_size, NULL, 0};
        simtrace_stream_info s;
        if (rv->seq_i != UINT32_MAX && simtrace_reader_stream_info(rv->seq_r, rv->seq_i, &s) == SIMTRACE_OK)
            es = export_stream_of(rv->seq_r, rv->seq_i, &s);
        if (rv->format && !rv->o->x && out_exporter(rv->o, rv->format, &es, NULL, NULL) != SIMTRACE_OK)
            return rv->declined = 1;
        if (!rv->quiet)
            cli_msg("%s: passed over damaged frame %" PRIu64 " of stream '%s' at byte offset %" PRIu64 " (%s), not "
                    "the stream read: the rest of '%s' is read through the directory", rv->file, dm->seq,
                    damage_stream(rv, dm, &info), dm->offset, simtrace_strerror(rv->seq_e), own->name);
        break;
    }
    default:
        rv->stop_e = dm->error;
        rv->stop = d;
        break;
    }
    return 0;
}

/*
 * --salvage through the library (simtrace_salvage): every frame of the
 * stream decoded on its own, damage costing only that frame; this says
 * what was lost and where: the damaged frames, the frame cut off at the
 * end, and the totals.  Returns 0 when the file has no usable index, or
 * complete frames follow a damaged header (a sequential salvage then reads
 * what it can, past the damage), else 1 with *status set.
 */
static int salvage_index(int fd, const char *file, const char *stream, const char *out_path, int force, int quiet,
                         int *status)
{
    simtrace_reader *r;
    if (simtrace_reader_open_fd(&r, fd, NULL) != SIMTRACE_OK)
        return 0;
    simtrace_recovery_info ri;
    simtrace_reader_recovery(r, &ri);
    uint32_t si;
    int go = !ri.frames_after && simtrace_reader_find_stream(r, stream, &si) == SIMTRACE_OK;
    /* frames_after: read in order, past the damage; no stream: the
     * sequential salvage says what is missing */
    if (!quiet && !ri.complete && (go || ri.frames_after))
        cli_say_recovered(file, &ri, 0);
    int out_fd, rc;
    if (go && (rc = cli_out_open(out_path, force, 1, fd, &out_fd)) != EXIT_OK) {
        simtrace_reader_free(r);
        *status = rc;
        return 1;
    }
    if (!go) {
        simtrace_reader_free(r);
        return 0;
    }
    simtrace_stream_info s;
    simtrace_reader_stream_info(r, si, &s);
    out_t o = {out_fd, NULL, 0};
    recover_t rv = {.file = file, .r = r, .o = &o, .esz = s.entry_size, .quiet = quiet, .own = &s};
    simtrace_salvage_report rep;
    simtrace_error e = simtrace_salvage(r, stream, recover_entries, recover_damage, &rv, &rep);
    if (e != SIMTRACE_OK) {
        simtrace_input_place d;
        frame_place(&rv, &d);
        int saved = errno;
        simtrace_reader_free(r);
        errno = saved;
        cli_out_abort();
        if (e == SIMTRACE_E_WRITE && rv.out_e != SIMTRACE_OK)
            *status = cli_report_place(rv.out_e, &d, out_path ? out_path : "(stdout)");
        else
            *status = cli_report_place(rv.stop_e != SIMTRACE_OK ? rv.stop_e : (simtrace_error)e, &rv.stop, file);
        return 1;
    }
    uint64_t wrote = rep.entries_salvaged, lost_f = rep.frames_lost, lost_e = rep.entries_lost;
    if (rep.no_directory)
        cli_msg("%s: salvaged %" PRIu64 " entries of stream '%s'; lost %" PRIu64 " frame%s (%" PRIu64 " entries) "
                "that the file shows; it has no directory, so what was never written is not known", file, wrote,
                s.name, lost_f, lost_f == 1 ? "" : "s", lost_e);
    else
        cli_msg("%s: salvaged %" PRIu64 " of the %" PRIu64 " entries of stream '%s'; lost %" PRIu64 " frame%s (%" PRIu64
                " entries)", file, wrote, wrote + lost_e, s.name, lost_f, lost_f == 1 ? "" : "s", lost_e);
    simtrace_reader_free(r);
    rc = cli_out_commit();
    /* an unfinished file lost its end, whatever the stream */
    *status = rc != EXIT_OK ? rc : lost_f || rep.no_directory ? EXIT_DATA : EXIT_OK;
    return 1;
}

/* The index of the stream named name among those r knows (a sequential
 * reader: so far), or UINT32_MAX. */
static uint32_t stream_named(const simtrace_reader *r, const char *name)
{
    uint32_t n = 0;
    simtrace_stream_info s;
    simtrace_reader_stream_count(r, &n);
    for (uint32_t i = 0; i < n; i++)
        if (simtrace_reader_stream_info(r, i, &s) == SIMTRACE_OK && strcmp(s.name, name) == 0)
            return i;
    return UINT32_MAX;
}

/*
 * A whole stream read sequentially from a regular file (r) stopped at
 * damage that the sequential reader cannot step over (a frame header: the
 * next frame cannot be found without it).  When the damaged frame belongs
 * to another stream, the library reads on through the directory
 * (simtrace_resume; issue 15: one stream's damage stays in its stream).
 * Returns SIMTRACE_OK when the rest was written, else the original error e (d
 * untouched) or the new one.
 */
static simtrace_error resume_past_damage(int fd, const simtrace_reader *sr, const char *file, const char *name,
                                         uint64_t done, out_t *o, const char *format, int quiet, simtrace_error e,
                                         simtrace_input_place *d)
{
    simtrace_reader *r;
    uint32_t si;
    if (d->offset == UINT64_MAX || simtrace_reader_open_fd(&r, fd, NULL) != SIMTRACE_OK)
        return e;
    if (simtrace_reader_find_stream(r, name, &si) != SIMTRACE_OK) {
        simtrace_reader_free(r);
        return e;
    }
    simtrace_stream_info s;
    simtrace_reader_stream_info(r, si, &s);
    recover_t rv = {.file = file, .r = r, .o = o, .esz = s.entry_size, .quiet = quiet, .own = &s, .format = format,
                  .seq_e = e, .seq_r = sr, .seq_i = stream_named(sr, name)};
    simtrace_error re = simtrace_resume(r, si, done, d->offset, recover_entries, recover_damage, &rv);
    simtrace_input_place at; /* the last frame delivered: where its decoding left d */
    if (rv.delivered)
        frame_place(&rv, &at);
    int saved = errno;
    simtrace_reader_free(r);
    errno = saved;
    if (re == SIMTRACE_E_NOT_FOUND || rv.declined)
        return e;
    if (rv.delivered && (re == SIMTRACE_OK || rv.out_e != SIMTRACE_OK))
        *d = at;
    if (re == SIMTRACE_OK)
        return SIMTRACE_OK;
    if (re == SIMTRACE_E_WRITE && rv.out_e != SIMTRACE_OK)
        return rv.out_e;
    *d = rv.stop;
    return rv.stop_e != SIMTRACE_OK ? rv.stop_e : (simtrace_error)re;
}

/* ---- sequential reading (pipes, cut-off files, --salvage, --verify, --list) ---- */

/* The entries of the first stream held back (SIMTRACE_PICK_HOLD) until
 * the end shows that no memory stream replaces it: at most
 * SIMTRACE_SEQ_HOLD_MAX bytes, the bound of the library's pick rule. */
typedef struct {
    uint8_t *data;
    size_t len, cap;
} hold_buf;

/* SIMTRACE_E_MEMLIMIT past the bound, SIMTRACE_E_NOMEM. */
static simtrace_error hold_append(hold_buf *h, const void *p, size_t n)
{
    if (n > SIMTRACE_SEQ_HOLD_MAX - h->len)
        return SIMTRACE_E_MEMLIMIT;
    if (h->len + n > h->cap) {
        size_t cap = h->cap ? h->cap : 4096;
        while (cap < h->len + n)
            cap *= 2;
        uint8_t *d = realloc(h->data, cap < SIMTRACE_SEQ_HOLD_MAX ? cap : SIMTRACE_SEQ_HOLD_MAX);
        if (!d)
            return SIMTRACE_E_NOMEM;
        h->data = d;
        h->cap = cap < SIMTRACE_SEQ_HOLD_MAX ? cap : SIMTRACE_SEQ_HOLD_MAX;
    }
    if (n)
        memcpy(h->data + h->len, p, n);
    h->len += n;
    return SIMTRACE_OK;
}

typedef struct {
    simtrace_reader *r;
    const char *name;      /* -s, or NULL: the default stream (the library's pick rule) */
    uint32_t types;        /* without name: the types -F writes (format_types), or 0 */
    uint32_t read;         /* index of the stream written, once known; else UINT32_MAX */
    out_t *o;
    int salvage, quiet;
    /* --salvage's losses by stream index, [2 i] frames and [2 i + 1]
     * entries: which stream is written may be settled only after them (a
     * stream's first frame lost in bytes passed over is told by its
     * second); NULL until a loss, or when out of memory: then lost_* count
     * every loss */
    uint64_t *loss;
    uint64_t lost_frames, lost_entries;
    uint64_t lost_unknown; /* frames of streams whose declarations were lost */
    uint64_t passed_over; /* damaged frames of other streams */
    uint64_t gap_lo, gap_hi; /* a pipe: the last bytes passed over (a damaged frame header), [lo, hi) */
    /* the first bytes passed over before the stream read was settled,
     * [lo, hi); hi 0: none.  A declaration lost there may have been the
     * stream read's, so frames of undeclared streams may be its. */
    uint64_t unsettled_lo, unsettled_hi;
    uint64_t written_end; /* entries of the chosen stream written so far (whole-stream reads) */
    uint64_t *gap_entries; /* by stream index: entries of frames lost in bytes passed over,
                              which the stream's count of entries includes (NULL: none) */
    const char *file;
    const char *format; /* NULL: raw */
    /* the chosen stream's frames, for range checks after a pipe is read */
    uint64_t frames_seen, last_key, last_time;
    int untimed;
    /* the entries of a stream held back (SIMTRACE_PICK_HOLD) */
    hold_buf hold;
    uint64_t hold_first;
    int hold_any;
    /* the error a damage callback stopped the read with (the reader
     * returns SIMTRACE_E_WRITE for it) */
    simtrace_error damage_e;
    /* a callback has printed the message of the error it returned: the
     * reader's position, which main() would add, is not where it lies */
    int said;
} seq_t;

/* On a pipe the companion vblock stream may come later than the entries
 * that need it, so wide values need random access; an entry of a stream
 * that no vblock stream owns has no value beyond its data field. */
static simtrace_error value_none(void *arg, uint64_t index, const void **value, size_t *len)
{
    seq_t *q = arg;
    *value = NULL;
    *len = 0;
    uint32_t n = 0;
    simtrace_stream_info s;
    simtrace_reader_stream_count(q->r, &n);
    for (uint32_t i = 0; i < n; i++)
        if (simtrace_reader_stream_info(q->r, i, &s) == SIMTRACE_OK && s.type == SIMTRACE_TYPE_VBLOCK &&
            s.owner == q->read) {
            fprintf(stderr, "%s: %s: entry %" PRIu64 " has a wide value, which only a regular file (read through "
                            "its directory) can supply\n", cli_prog, q->file, index);
            q->said = 1;
            return SIMTRACE_E_UNSUPPORTED;
        }
    return SIMTRACE_OK;
}

static int seq_want(void *arg, const simtrace_frame_head *h)
{
    seq_t *q = arg;
    if (h->dropped) {
        q->hold.len = 0;
        q->hold_any = 0;
        q->frames_seen = 0;
        q->untimed = 0;
        /* losses so far were of the held stream, which is not written
         * (lost_* count them only when the tally by stream could not be
         * had: count_loss) */
        if (!q->loss) {
            q->lost_frames = 0;
            q->lost_entries = 0;
        }
    }
    if (h->pick == SIMTRACE_PICK_SKIP)
        return 0;
    q->frames_seen++;
    q->last_key = h->last_cycle;
    q->last_time = h->last_time;
    if (!h->timed)
        q->untimed = 1;
    /* (the library leaves out the frames that the range cannot touch) */
    return 1;
}

/* Write entries of the chosen stream (index i, described by s), starting
 * the exporter first. */
static simtrace_error start_and_write(seq_t *q, uint32_t i, const simtrace_stream_info *s, uint64_t first,
                                      const uint8_t *p, size_t n)
{
    if (q->format && !q->o->x) {
        /* the exporter needs the stream's description, known from now on */
        simtrace_export_stream es = export_stream_of(q->r, i, s);
        simtrace_error e = out_exporter(q->o, q->format, &es, value_none, q);
        if (e == SIMTRACE_E_UNSUPPORTED) {
            cli_msg("%s: stream '%s' of type %s cannot be written as %s", q->file, s->name, s->type_name, q->format);
            q->said = 1;
            return SIMTRACE_E_USAGE;
        }
        if (e != SIMTRACE_OK)
            return e;
    }
    simtrace_error e = out_entries(q->o, first, p, n, s->entry_size);
    if (e != SIMTRACE_OK && q->o->x && *simtrace_exporter_message(q->o->x)) {
        /* an entry the format has no record for: which, and why */
        cli_msg("%s: %s: %s", q->file, simtrace_strerror(e), simtrace_exporter_message(q->o->x));
        q->said = 1;
    }
    return e;
}

/* A frame the reader delivered, cut to the range: written, or held back
 * while the pick rule holds its stream (SIMTRACE_PICK_HOLD). */
static simtrace_error seq_frame(seq_t *q, const simtrace_frame *f)
{
    simtrace_stream_info s;
    simtrace_reader_stream_info(q->r, f->index, &s);
    const uint8_t *p = f->entries;
    size_t n = (size_t)f->count;
    /* deliveries lag behind want(): a held stream may have been replaced */
    if (f->pick == SIMTRACE_PICK_SKIP)
        return SIMTRACE_OK;
    if (f->pick == SIMTRACE_PICK_HOLD) {
        /* held back, within a bound */
        if (!q->hold_any) {
            q->hold_first = f->first_entry;
            q->hold_any = 1;
        }
        simtrace_error e = hold_append(&q->hold, p, n * s.entry_size);
        if (e == SIMTRACE_E_MEMLIMIT) {
            /* nothing can be written before the end decides, and a pipe
             * cannot be read twice: only the user can settle it */
            cli_msg("%s: cannot choose the default stream: the first stream, '%s' (%s), is not a memory "
                    "stream, and read sequentially it is the default only if no memory stream is declared "
                    "after it, which is known only at the end of the input; more than %u MiB of it would "
                    "have to be held until then: name the stream with -s '%s'",
                    q->file, s.name, s.type_name, (unsigned)(SIMTRACE_SEQ_HOLD_MAX >> 20), s.name);
            q->said = 1;
            return SIMTRACE_E_USAGE;
        }
        return e;
    }
    q->read = f->index;
    simtrace_error e = start_and_write(q, f->index, &s, f->first_entry, p, n);
    if (e == SIMTRACE_OK)
        q->written_end = f->first_entry + n;
    return e;
}

/* Whether stream i is the stream read, or (not chosen yet) the one held
 * back: its losses are the output's. */
static int read_or_held(const seq_t *q, uint32_t i)
{
    uint32_t read = UINT32_MAX, held = UINT32_MAX;
    simtrace_reader_pick_state(q->r, &read, &held);
    return read != UINT32_MAX ? i == read : i == held;
}

/* Whether the stream read is chosen. */
static int pick_chosen(const seq_t *q)
{
    uint32_t read = UINT32_MAX, held;
    simtrace_reader_pick_state(q->r, &read, &held);
    return read != UINT32_MAX;
}

/* The first stream of r (in the order declared) whose type's bit is set
 * in types, its index into *si: 1, or 0 when there is none. */
static int first_of_types(const simtrace_reader *r, uint32_t types, uint32_t *si)
{
    uint32_t n = 0;
    simtrace_reader_stream_count(r, &n);
    for (uint32_t i = 0; i < n; i++) {
        simtrace_stream_info s;
        if (simtrace_reader_stream_info(r, i, &s) == SIMTRACE_OK && s.type < 32 && (types >> s.type & 1u)) {
            *si = i;
            return 1;
        }
    }
    return 0;
}

/* Whether the stream read is settled by what is declared so far: chosen,
 * or named and declared, or the first of -F's types declared, or (the
 * default) a memory stream declared.  A declaration lost after that is a
 * later one's, which cannot change the choice. */
static int read_settled(const seq_t *q)
{
    uint32_t first, memory = 0;
    /* (the library's rule of which types are memory, as a mask) */
    for (int t = 0; t < 32; t++)
        memory |= simtrace_type_is_memory(t) ? 1u << t : 0;
    if (pick_chosen(q))
        return 1;
    if (q->name)
        return stream_named(q->r, q->name) != UINT32_MAX;
    return first_of_types(q->r, q->types ? q->types : memory, &first);
}

/* Whether stream i (s) is, or may become, the stream being read: only
 * damage there stops a read that is not a salvage. */
static int may_be_read(const seq_t *q, uint32_t i, const simtrace_stream_info *s)
{
    if (q->name)
        return strcmp(s->name, q->name) == 0;
    uint32_t read = UINT32_MAX, held = UINT32_MAX;
    simtrace_reader_pick_state(q->r, &read, &held);
    if (read != UINT32_MAX)
        return i == read;
    uint32_t first;
    if (q->types)
        /* the first declared of the types is read, though the library
         * settles on it only at the next data frame (of any stream) */
        return first_of_types(q->r, q->types, &first) && i == first;
    return i == held || simtrace_type_is_memory((int)s->type);
}

/* One stream's damage stays in its stream: a damaged frame of another
 * stream is passed over, with a note naming it (issue 15). */
static simtrace_error other_stream_damage(seq_t *q, const simtrace_stream_info *s, const simtrace_damage *dm,
                                          const simtrace_input_place *d)
{
    simtrace_error e = dm->error;
    if (may_be_read(q, dm->stream, s)) {
        /* the reader's own position is past this frame by now: say where */
        cli_report_place(e, d, q->file);
        q->said = 1;
        return e;
    }
    q->passed_over++;
    if (!q->quiet)
        cli_msg("%s: passed over damaged frame %" PRIu64 " of stream '%s' at byte offset %" PRIu64 " (%s), "
                "not the stream read", q->file, dm->seq, s->name, d->offset != UINT64_MAX ? d->offset : 0,
                simtrace_strerror(e));
    return SIMTRACE_OK;
}

/* An export read from a pipe (simtrace_seq_params.resync) reads on past a
 * damaged frame header: whose frames the bytes passed over held is told by
 * that stream's next frame or the directory, and only a loss of the stream
 * read (or, before it is chosen, of any stream that may be it) stops it. */
static simtrace_error pipe_gap(seq_t *q, const simtrace_stream_info *s, const simtrace_damage *dm,
                               const simtrace_input_place *d)
{
    simtrace_error e = dm->error;
    int settled = read_settled(q);
    if (dm->kind == SIMTRACE_DAMAGE_GAP) {
        /* bytes of no known stream */
        q->gap_lo = dm->offset;
        q->gap_hi = dm->offset + dm->size;
        if (!settled && !q->unsettled_hi) {
            q->unsettled_lo = q->gap_lo;
            q->unsettled_hi = q->gap_hi;
        }
        if (!q->quiet) {
            cli_report_place(e, d, q->file);
            cli_msg("%s: passed over bytes %" PRIu64 "..%" PRIu64 " (a damaged frame header); reading on from the "
                    "next sound frame", q->file, q->gap_lo, q->gap_hi - 1);
        }
        return SIMTRACE_OK;
    }
    const char *name = s ? s->name : "(undeclared)";
    /* (the declaration of the stream asked for may have been lost: in
     * bytes passed over before it was settled; a name, once declared, is
     * no lost stream's) */
    if (!s ? !settled || (!q->name && q->unsettled_hi) : may_be_read(q, dm->stream, s)) {
        if (s)
            cli_msg("%s: entries %" PRIu64 "..%" PRIu64 " of stream '%s' were in the damaged bytes %" PRIu64
                    "..%" PRIu64 ": lost; --salvage writes the rest", q->file, dm->first_entry,
                    dm->first_entry + dm->entries - 1, name, q->gap_lo, q->gap_hi - 1);
        else
            cli_msg("%s: the declarations of streams were lost in damaged bytes (from %" PRIu64 "..%" PRIu64
                    " on), and the stream read may be one of them; --salvage writes what is left", q->file,
                    q->unsettled_hi ? q->unsettled_lo : q->gap_lo, (q->unsettled_hi ? q->unsettled_hi : q->gap_hi) - 1);
        q->said = 1;
        return SIMTRACE_E_CORRUPT;
    }
    q->passed_over += dm->seq;
    if (!q->quiet)
        cli_msg("%s: %" PRIu64 " frame%s (%" PRIu64 " entries) of stream '%s' were in the damaged bytes %" PRIu64
                "..%" PRIu64 ", not the stream read", q->file, dm->seq, dm->seq == 1 ? "" : "s", dm->entries, name,
                q->gap_lo, q->gap_hi - 1);
    return SIMTRACE_OK;
}

/* --salvage: count frames of stream i lost (by stream: say_seq_salvage
 * takes the stream written) */
static void count_loss(seq_t *q, uint32_t i, uint64_t frames, uint64_t entries)
{
    if (!q->loss)
        q->loss = calloc(2 * (size_t)ST_MAX_STREAMS_CLI, sizeof *q->loss);
    if (q->loss && i < ST_MAX_STREAMS_CLI) {
        q->loss[2 * (size_t)i] += frames;
        q->loss[2 * (size_t)i + 1] += entries;
    } else if (read_or_held(q, i)) {
        q->lost_frames += frames;
        q->lost_entries += entries;
    }
}

/* --salvage: a damaged frame (dm; s its stream, NULL when not declared),
 * said, and counted against its stream. */
static void salvage_damage(seq_t *q, const simtrace_stream_info *s, const simtrace_damage *dm,
                           const simtrace_input_place *d)
{
    simtrace_error e = dm->error;
    if (dm->kind == SIMTRACE_DAMAGE_UNDECLARED) {
        /* frames of streams whose declarations were lost: the stream read
         * may have been one of them */
        q->lost_unknown += dm->seq;
        if (!q->quiet)
            cli_report_place(e, d, q->file);
        return;
    }
    if (!s) {
        /* (resync) bytes of no known stream: what they held is said when
         * a stream's next frame, or the directory, shows what is missing */
        if (!q->quiet) {
            cli_report_place(e, d, q->file);
            cli_msg("%s: passed over bytes %" PRIu64 "..%" PRIu64 " (a damaged or misplaced frame)", q->file,
                    dm->offset, dm->offset + dm->size - 1);
        }
        return;
    }
    if (dm->kind == SIMTRACE_DAMAGE_LOST) {
        /* frames that lay in bytes passed over */
        count_loss(q, dm->stream, dm->seq, dm->entries);
        if (!q->quiet)
            cli_msg("%s: lost %" PRIu64 " frame%s (entries %" PRIu64 "..%" PRIu64 " of stream '%s') in the bytes "
                    "passed over", q->file, dm->seq, dm->seq == 1 ? "" : "s", dm->first_entry,
                    dm->first_entry + dm->entries - 1, s->name);
        return;
    }
    count_loss(q, dm->stream, 1, dm->entries);
    if (!q->quiet) {
        cli_report_place(e, d, q->file);
        say_skipped(q->file, s->name, dm->seq, dm->first_entry, dm->entries);
    }
}

static int seq_damage(void *arg, const simtrace_damage *dm)
{
    seq_t *q = arg;
    simtrace_input_place d;
    damage_diag(dm, &d);
    simtrace_stream_info info;
    const simtrace_stream_info *s =
        dm->stream != UINT32_MAX && simtrace_reader_stream_info(q->r, dm->stream, &info) == SIMTRACE_OK ? &info
                                                                                                         : NULL;
    if (s && dm->kind == SIMTRACE_DAMAGE_LOST && dm->stream < ST_MAX_STREAMS_CLI) {
        if (!q->gap_entries)
            q->gap_entries = calloc(ST_MAX_STREAMS_CLI, sizeof *q->gap_entries);
        if (q->gap_entries)
            q->gap_entries[dm->stream] += dm->entries;
    }
    q->damage_e = SIMTRACE_OK;
    if (q->salvage)
        salvage_damage(q, s, dm, &d);
    else if (dm->kind == SIMTRACE_DAMAGE_FRAME)
        q->damage_e = other_stream_damage(q, s, dm, &d);
    else
        q->damage_e = pipe_gap(q, s, dm, &d);
    return q->damage_e != SIMTRACE_OK;
}

/* The streams s[0..n) of r, after their frames when those are listed. */
static void print_list(FILE *f, const simtrace_reader *r, const simtrace_stream_info *s, unsigned n)
{
    if (lf.json) {
        list_json_streams(f, s, n);
        return;
    }
    if (lf.frames) {
        list_frames_header(f);
        return;
    }
    int w = list_name_width(r);
    fprintf(f, "%-*s %-8s %14s %8s %14s %12s %8s %16s %16s\n", w, "stream", "type", "entries", "frames", "raw bytes",
            "stored", "ratio", "first cycle", "last cycle");
    for (unsigned i = 0; i < n; i++) {
        uint64_t raw = s[i].entries * s[i].entry_size, stored = s[i].stored_bytes;
        char fcs[24] = "-", lcs[24] = "-";
        if (simtrace_type_has_cycles((int)s[i].type) && s[i].frames) {
            snprintf(fcs, sizeof fcs, "%" PRIu64, s[i].first_cycle);
            snprintf(lcs, sizeof lcs, "%" PRIu64, s[i].last_cycle);
        }
        fprintf(f, "%-*s %-8s %14" PRIu64 " %8" PRIu64 " %14" PRIu64 " %12" PRIu64 " %8.2f %16s %16s\n", w, s[i].name,
                s[i].type_name, s[i].entries, s[i].frames, raw, stored, stored ? (double)raw / (double)stored : 0.0,
                fcs, lcs);
    }
}

/* Frame k of stream index of a random-access reader as a sequential
 * reader describes a frame going by: its sequence number is k (the
 * reader checks it). */
static simtrace_frame_head frame_head_of(uint32_t index, uint64_t k, const simtrace_frame_info *fi)
{
    return (simtrace_frame_head){.index = index, .timed = fi->has_time != 0, .seq = k, .offset = fi->offset,
                                 .size = fi->stored_bytes, .first_entry = fi->first_entry, .count = fi->entries,
                                 .first_cycle = fi->first_cycle, .last_cycle = fi->last_cycle,
                                 .first_time = fi->first_time, .last_time = fi->last_time};
}

static int by_offset(const void *a, const void *b)
{
    const simtrace_frame_head *x = a, *y = b;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

/* --list of a regular file, through the public reader: its directory, or
 * its frame headers when it has none (a note says so, not with -q unless
 * complete frames follow a damaged one). */
static int list_file(int fd, const char *file, int quiet)
{
    simtrace_read_params rp;
    simtrace_read_params_init(&rp);
    simtrace_reader *r = NULL;
    int rc = cli_open_reader(fd, file, &rp, &r);
    if (rc != EXIT_OK)
        return rc;
    cli_note_reader(r, file, quiet);
    uint32_t n = 0;
    simtrace_reader_stream_count(r, &n);
    simtrace_stream_info *info = calloc(n + 1, sizeof *info);
    uint64_t nf = 0;
    rc = info ? EXIT_OK : EXIT_DATA;
    for (uint32_t i = 0; i < n && rc == EXIT_OK; i++) {
        simtrace_reader_stream_info(r, i, &info[i]);
        nf += info[i].frames;
    }
    /* every data frame, in file order: the directory's are held already */
    simtrace_frame_head *fr = rc == EXIT_OK && lf.frames ? calloc(nf + 1, sizeof *fr) : NULL;
    if (lf.frames && !fr)
        rc = EXIT_DATA;
    if (rc != EXIT_OK)
        cli_msg("out of memory");
    if (rc == EXIT_OK) {
        lf.name_w = list_name_width(r);
        list_begin(stdout);
        uint64_t m = 0;
        for (uint32_t i = 0; fr && i < n; i++)
            for (uint64_t k = 0; k < info[i].frames; k++) {
                simtrace_frame_info fi;
                if (simtrace_reader_frame_info(r, i, k, &fi) == SIMTRACE_OK)
                    fr[m++] = frame_head_of(i, k, &fi);
            }
        if (fr)
            qsort(fr, m, sizeof *fr, by_offset);
        for (uint64_t k = 0; k < m; k++)
            list_frame(stdout, &info[fr[k].index], &fr[k]);
        print_list(stdout, r, info, n);
        rc = fflush(stdout) == 0 ? EXIT_OK : cli_report_place(SIMTRACE_E_WRITE, NULL, "(stdout)");
    }
    free(fr);
    free(info);
    simtrace_reader_free(r);
    return rc;
}

/* --list of a pipe: the frames' headers as they go by (none decoded:
 * their payload checksums are checked), then the streams as the reader
 * knows them at the end, with what was counted of their frames. */
typedef struct {
    const simtrace_reader *r;
    uint64_t *stored;  /* by stream index: bytes of data frames */
    uint64_t *fc, *lc; /* by stream index: first and last cycle */
} list_pipe_t;

static int list_want(void *arg, const simtrace_frame_head *h)
{
    list_pipe_t *l = arg;
    simtrace_stream_info s;
    if (h->index >= ST_MAX_STREAMS_CLI || simtrace_reader_stream_info(l->r, h->index, &s) != SIMTRACE_OK)
        return 0;
    if (!lf.header_done)
        lf.name_w = list_name_width(l->r);
    list_frame(stdout, &s, h);
    l->stored[h->index] += h->size;
    if (h->seq == 0)
        l->fc[h->index] = h->first_cycle;
    l->lc[h->index] = h->last_cycle;
    return 0;
}

static int list_pipe(int fd, const char *file, const simtrace_read_params *rp)
{
    list_pipe_t l = {.stored = calloc(3 * (size_t)ST_MAX_STREAMS_CLI, sizeof *l.stored)};
    if (!l.stored) {
        cli_msg("out of memory");
        return EXIT_DATA;
    }
    l.fc = l.stored + ST_MAX_STREAMS_CLI;
    l.lc = l.stored + 2 * ST_MAX_STREAMS_CLI;
    simtrace_seq_params sp = {.want = list_want, .want_opaque = &l};
    simtrace_reader *r;
    simtrace_error e = open_seq(&r, fd, rp, &sp);
    l.r = r;
    if (e == SIMTRACE_OK) {
        list_begin(stdout);
        e = read_seq(r);
    }
    int status = e == SIMTRACE_OK ? EXIT_OK : seq_failed(r, e, file);
    if (e == SIMTRACE_OK) {
        uint32_t n = 0;
        simtrace_reader_stream_count(r, &n);
        simtrace_stream_info *s = calloc(n + 1, sizeof *s);
        for (uint32_t i = 0; s && i < n; i++) {
            simtrace_reader_stream_info(r, i, &s[i]);
            s[i].stored_bytes = l.stored[i];
            s[i].first_cycle = l.fc[i];
            s[i].last_cycle = l.lc[i];
        }
        if (s)
            print_list(stdout, r, s, n);
        free(s);
        status = cli_stdout_done(); /* a listing that could not be written (a full disk) */
    }
    simtrace_reader_free(r);
    free(l.stored);
    return status;
}

/* cat_salvage_note of the streams r knows, stream index chosen written:
 * their names and types (out of memory: no note). */
static void salvage_note(const cat_merge_opts *mo, const simtrace_reader *r, uint32_t chosen)
{
    uint32_t n = 0;
    simtrace_reader_stream_count(r, &n);
    simtrace_stream_info *s = calloc(n + 1, sizeof *s);
    for (uint32_t i = 0; s && i < n; i++) {
        simtrace_stream_info si;
        simtrace_reader_stream_info(r, i, &si);
        snprintf(s[i].name, sizeof s[i].name, "%s", si.name);
        s[i].type = si.type;
    }
    if (s)
        cat_salvage_note(mo, s, n, chosen);
    free(s);
}

/* --salvage read sequentially (e: what stopped it, at d): what was
 * saved and what lost of stream `read` (when chosen).  Returns 1 when
 * entries were lost. */
static int say_seq_salvage(seq_t *q, simtrace_error e, const simtrace_input_place *d, int regular, int chosen,
                           uint32_t read)
{
    if (chosen && q->loss && read < ST_MAX_STREAMS_CLI) {
        q->lost_frames += q->loss[2 * (size_t)read];
        q->lost_entries += q->loss[2 * (size_t)read + 1];
    }
    if (!chosen && e == SIMTRACE_OK && (q->lost_unknown || q->name || q->types)) {
        /* the stream asked for was not found (said above): nothing was
         * written, and with declarations lost, that is a loss */
        cli_msg("%s: salvaged nothing", q->file);
        return q->lost_unknown != 0;
    }
    /* read sequentially, a stop leaves the rest unknown: say so, with
     * where, rather than let the count above pass for the whole loss */
    char rest[200] = "";
    if (e != SIMTRACE_OK && d->offset != UINT64_MAX)
        snprintf(rest, sizeof rest, "; the reading stopped at byte offset %" PRIu64 ": the %s there and everything "
                 "after it are lost, how many entries %s", d->offset,
                 e == SIMTRACE_E_TRUNCATED ? "frame cut off" : "damaged frame",
                 regular ? "is not known" : "a pipe cannot tell (a regular file can)");
    cli_msg("%s: salvaged %s; %" PRIu64 " damaged frame%s of the stream skipped (%" PRIu64 " entries)%s", q->file,
            e != SIMTRACE_OK ? "up to the damage reported above" : q->lost_frames ? "to the end of the container"
                                                                              : "the whole container", q->lost_frames,
            q->lost_frames == 1 ? "" : "s", q->lost_entries, rest);
    return q->lost_frames || q->lost_unknown;
}

/* What the merge of several streams (cat_merge.c) needs of the options. */
static cat_merge_opts merge_opts(const char *in_name, const char *out_path, const char *format, int all,
                                 int no_fetch, int quiet, int verbose, const range *rg)
{
    cat_merge_opts mo = {.in_name = in_name, .out_name = out_path ? out_path : "(stdout)", .format = format,
                         .all = all, .no_fetch = no_fetch, .quiet = quiet, .verbose = verbose,
                         .range = CAT_RANGE_OTHER, .lo = rg->r.lo, .hi = rg->r.hi};
    if (rg->r.kind == R_NONE || rg->r.kind == R_CYCLES)
        mo.range = rg->r.kind == R_NONE ? CAT_RANGE_NONE : CAT_RANGE_CYCLES;
    return mo;
}

/* The names of the types whose bits are set: "cvp", "champsim, champsim-cloudsuite". */
static const char *types_said(uint32_t types, char *buf, size_t size)
{
    size_t n = 0;
    unsigned k = 0;
    buf[0] = 0;
    for (uint32_t t = 1; t < 32; t++)
        if (types >> t & 1u) {
            int w = snprintf(buf + n, size - n, "%s%s", k++ ? ", " : "", simtrace_type_name((int)t));
            if (w < 0 || (size_t)w >= size - n)
                break;
            n += (size_t)w;
        }
    return buf;
}

/* What -F writes when the input has none of it: exit status 2. */
static int say_no_stream_of_types(const char *in_name, const char *format, uint32_t types)
{
    char names[256];
    cli_msg("%s: no stream of a type that -F %s writes (%s; see --list)", in_name, format,
            types_said(types, names, sizeof names));
    return EXIT_USAGE;
}

/* One stream of a regular file through its directory (r, freed here):
 * a range, a whole stream with wide values, or that of a recovered
 * index, to o.  Returns an exit status, or -1 when the whole stream is
 * read sequentially instead: *stream then names it, and in_fd is back
 * at its start. */
static int export_index(simtrace_reader *r, int in_fd, const char *in_name, const char **stream, uint32_t types,
                        const char *out_path, const char *format, int raw, const range *rg, int verbose, out_t *o)
{
    simtrace_input_place at;
    cli_place(&at, "");
    simtrace_error e = SIMTRACE_OK;
    int rc = EXIT_OK;
    simtrace_values *vals = NULL; /* wide values of the chosen stream, through the index */
    simtrace_stream_info chosen;
    uint32_t si = 0;
    static char typed[256];
    if (!*stream && types) {
        /* the first stream -F can write (format_types) */
        if (!first_of_types(r, types, &si)) {
            /* a file without its end may have declared it in what is missing */
            int incomplete = simtrace_reader_complete(r) == 0;
            simtrace_reader_free(r);
            cli_out_abort();
            if (incomplete) {
                char names[256];
                cli_msg("%s: no stream of a type that -F %s writes (%s) is in the complete frames of this file "
                        "without its end: it may have been declared in what is missing", in_name, format,
                        types_said(types, names, sizeof names));
                return EXIT_DATA;
            }
            return say_no_stream_of_types(in_name, format, types);
        }
        simtrace_reader_stream_info(r, si, &chosen);
        snprintf(typed, sizeof typed, "%s", chosen.name);
        *stream = typed;
    }
    uint32_t nstreams = 0;
    if (!*stream && simtrace_reader_stream_count(r, &nstreams) == SIMTRACE_OK && nstreams == 0 &&
        simtrace_reader_complete(r) == 1) {
        /* a whole container of no stream (an empty text trace imported):
         * nothing to write, as from a pipe */
        simtrace_reader_free(r);
        return cli_out_commit();
    }
    if (simtrace_reader_find_stream(r, *stream, &si) != SIMTRACE_OK) {
        if (*stream)
            cli_msg("%s: no stream named '%s' (see --list)", in_name, *stream);
        else
            cli_msg("%s: the container holds no stream", in_name);
        e = SIMTRACE_E_BAD_STREAM;
    }
    if (e == SIMTRACE_OK) {
        simtrace_reader_stream_info(r, si, &chosen);
        simtrace_recovery_info ri;
        simtrace_reader_recovery(r, &ri);
        /* a recovered index lists only the complete frames; the
         * sequential reader would also meet the cut at the end */
        if (rg->r.kind == R_NONE && (raw || chosen.values == UINT32_MAX) && ri.complete) {
            /* the whole stream: the sequential reader decodes on every
             * thread; wide values need the index, so not for them */
            static char whole[256];
            snprintf(whole, sizeof whole, "%s", chosen.name);
            *stream = whole;
            simtrace_reader_free(r);
            if (lseek(in_fd, 0, SEEK_SET) != 0) {
                cli_out_abort();
                at.offset = 0;
                return cli_report_place(SIMTRACE_E_SEEK, &at, in_name);
            }
            return -1;
        }
        if (!raw && chosen.values != UINT32_MAX && (e = simtrace_values_open(&vals, r, si)) != SIMTRACE_OK)
            rc = cli_report_place(e, NULL, in_name);
        if (!raw && e == SIMTRACE_OK) {
            simtrace_export_stream es = export_stream_of(r, si, &chosen);
            e = (simtrace_error)out_exporter(o, format, &es, vals ? simtrace_values_get : NULL, vals);
            if (e == SIMTRACE_E_UNSUPPORTED) {
                /* the format chosen cannot hold this stream: bad usage */
                cli_msg("%s: stream '%s' of type %s cannot be written as %s", in_name, chosen.name,
                        chosen.type_name, format);
                e = SIMTRACE_E_USAGE;
            } else if (e != SIMTRACE_OK) {
                rc = cli_report_place(e, NULL, in_name);
            }
        }
        if (e == SIMTRACE_OK) {
            e = cat_index(r, si, rg, o, verbose, in_name, &at);
            if (e == SIMTRACE_OK && o->x)
                e = simtrace_exporter_finish(o->x);
            if (e != SIMTRACE_OK && e != SIMTRACE_E_BAD_STREAM)
                rc = cli_report_place(e, &at, e == SIMTRACE_E_WRITE ? (out_path ? out_path : "(stdout)") : in_name);
        }
    }
    int lost = e == SIMTRACE_OK && cli_say_stream_loss(r, in_name, si, chosen.name, &rg->r);
    simtrace_exporter_free(o->x);
    simtrace_values_free(vals);
    simtrace_reader_free(r);
    if (e != SIMTRACE_OK) {
        cli_out_abort();
        return e == SIMTRACE_E_BAD_STREAM ? EXIT_DATA : (e == SIMTRACE_E_USAGE ? EXIT_USAGE : rc);
    }
    rc = cli_out_commit();
    return rc != EXIT_OK ? rc : lost ? EXIT_DATA : EXIT_OK;
}

/* What the sequential read (cat_seq) takes of the command line. */
typedef struct {
    const char *in_name, *stream, *out_path;
    uint32_t types;     /* without stream: cat_opts.types */
    const char *format; /* NULL: raw */
    const range *rg;
    int salvage, quiet, regular, want_out;
    const cat_merge_opts *mo;
} seq_opts;

/* The input read in file order: a pipe, --salvage of a file without
 * directory, a whole stream.  Returns the exit status. */
static int cat_seq(int in_fd, const seq_opts *so, const simtrace_read_params *rp, out_t *o)
{
    const char *in_name = so->in_name, *stream = so->stream, *out_path = so->out_path;
    const range *rg = so->rg;
    int salvage = so->salvage, quiet = so->quiet, regular = so->regular, want_out = so->want_out;
    const cat_merge_opts *mo = so->mo;
    seq_t q;
    memset(&q, 0, sizeof q);
    q.name = stream;
    q.types = so->types;
    q.read = UINT32_MAX;
    q.o = o;
    q.salvage = salvage;
    q.quiet = quiet;
    q.file = in_name;
    q.format = so->format;
    simtrace_range pr = rg->r;
    simtrace_seq_params sp = {.stream = stream, .want = seq_want, .want_opaque = &q, .damage = seq_damage,
                              .damage_opaque = &q, .resync = salvage || (want_out && !regular),
                              .range = rg->r.kind == R_NONE ? NULL : &pr, .stream_types = so->types};
    simtrace_reader *r;
    simtrace_error e = open_seq(&r, in_fd, rp, &sp);
    if (e != SIMTRACE_OK) {
        cli_out_abort();
        int status = seq_failed(r, e, in_name);
        simtrace_reader_free(r);
        free(q.gap_entries); /* (damage met while opening) */
        free(q.loss);
        return status;
    }
    q.r = r;
    simtrace_input_place d;
    cli_place(&d, "");
    simtrace_frame f;
    simtrace_error re;
    while ((re = simtrace_reader_next_frame(r, &f)) == SIMTRACE_OK && f.entries &&
           (e = seq_frame(&q, &f)) == SIMTRACE_OK)
        ;
    if (e == SIMTRACE_OK && re != SIMTRACE_OK) {
        /* a damage callback that stopped the read: its own error */
        e = re == SIMTRACE_E_WRITE && q.damage_e != SIMTRACE_OK ? q.damage_e : re;
        simtrace_reader_place(r, &d);
    }
    int chosen = pick_chosen(&q);
    /* from a regular file, a whole stream is read here with its name */
    if (e != SIMTRACE_OK && simtrace_error_is_data(e) && !q.said && regular && !salvage && stream &&
        rg->r.kind == R_NONE) {
        e = resume_past_damage(in_fd, r, in_name, stream, q.written_end, o, q.format, quiet, e, &d);
        if (e == SIMTRACE_OK)
            chosen = 1; /* the stream was read, through the directory */
    }
    int status = EXIT_OK;
    if (e != SIMTRACE_OK && q.said)
        status = cli_status(e);
    else if (e != SIMTRACE_OK)
        status = cli_report_place(e, &d, e == SIMTRACE_E_WRITE ? (out_path ? out_path : "(stdout)") : in_name);
    uint32_t ti;
    if (e == SIMTRACE_OK && !chosen && !stream && so->types && !first_of_types(r, so->types, &ti)) {
        char names[256];
        if (q.lost_unknown) {
            /* --salvage: the stream -F would write may be one whose
             * declaration was lost; the summary below says what was */
            cli_msg("%s: no stream of a type that -F %s writes (%s) is left: the declarations of the streams of "
                    "%" PRIu64 " frame%s were lost, and it may have been one of them", in_name, q.format,
                    types_said(so->types, names, sizeof names), q.lost_unknown, q.lost_unknown == 1 ? "" : "s");
            status = EXIT_DATA;
        } else {
            /* -F writes none of the streams there are */
            status = say_no_stream_of_types(in_name, q.format, so->types);
        }
    } else if (e == SIMTRACE_OK && !chosen && !stream && so->types) {
        /* the first stream -F can write has no data frames: its headers */
        chosen = 1;
        q.read = ti;
        simtrace_stream_info s;
        simtrace_reader_stream_info(r, ti, &s);
        e = start_and_write(&q, ti, &s, 0, NULL, 0);
        if (e != SIMTRACE_OK)
            status = q.said ? cli_status(e) : cli_report_place(e, NULL, out_path ? out_path : "(stdout)");
    }
    if (e == SIMTRACE_OK && !chosen && stream) {
        /* a stream without data frames: nothing went by, but it exists */
        uint32_t i = stream_named(r, stream);
        if (i == UINT32_MAX) {
            cli_msg("%s: no stream named '%s' (see --list)", in_name, stream);
            status = EXIT_DATA;
        } else {
            chosen = 1;
            q.read = i;
            simtrace_stream_info s;
            simtrace_reader_stream_info(r, i, &s);
            if (q.format)
                e = start_and_write(&q, i, &s, 0, NULL, 0);
            if (e != SIMTRACE_OK)
                status = q.said ? cli_status(e) : cli_report_place(e, NULL, out_path ? out_path : "(stdout)");
        }
    }
    int first_held = 0;
    if (e == SIMTRACE_OK && !chosen && simtrace_reader_pick_end(r, &q.read, &first_held) == SIMTRACE_OK &&
        first_held) {
        /* no memory stream came: the first stream it is */
        chosen = 1;
        simtrace_stream_info s;
        simtrace_reader_stream_info(r, q.read, &s);
        if (q.hold_any)
            e = start_and_write(&q, q.read, &s, q.hold_first, q.hold.data, q.hold.len / s.entry_size);
        else if (q.format)
            e = start_and_write(&q, q.read, &s, 0, NULL, 0);
        if (e != SIMTRACE_OK)
            status = q.said ? cli_status(e) : cli_report_place(e, NULL, out_path ? out_path : "(stdout)");
    }
    simtrace_stream_info cs; /* the stream written */
    if (chosen && q.read == UINT32_MAX)
        simtrace_reader_pick_state(r, &q.read, &(uint32_t){0});
    if (!chosen || simtrace_reader_stream_info(r, q.read, &cs) != SIMTRACE_OK)
        snprintf(cs.name, sizeof cs.name, "?");
    if (e == SIMTRACE_OK && chosen && rg->r.kind == R_TIME && q.untimed) {
        cli_msg("%s: stream '%s' has no ordered frame times (pack with --timestamps)", in_name, cs.name);
        status = EXIT_USAGE;
    } else if (e == SIMTRACE_OK && chosen && (rg->r.kind == R_TIME || rg->r.kind == R_CYCLES)) {
        note_window_past_end(in_name, rg, cs.name, q.frames_seen, rg->r.kind == R_TIME ? q.last_time : q.last_key);
    }
    if (e == SIMTRACE_OK && rg->r.kind == R_ENTRIES && chosen && q.read != UINT32_MAX) {
        /* the stream's entries, those of the frames lost in a gap included */
        uint64_t gap = q.gap_entries && q.read < ST_MAX_STREAMS_CLI ? q.gap_entries[q.read] : 0;
        note_entries_past_end(in_name, rg, cs.name, cs.entries + gap);
    }
    if (o->x) {
        /* flush what the exporter holds: the entries of intact frames */
        if (status != EXIT_USAGE) {
            simtrace_error fe = simtrace_exporter_finish(o->x);
            if (fe != SIMTRACE_OK && status == EXIT_OK)
                status = cli_report_place(fe, &d, out_path ? out_path : "(stdout)");
        }
        simtrace_exporter_free(o->x);
        o->x = NULL;
    }
    if (salvage && want_out && chosen)
        salvage_note(mo, r, q.read);
    if (salvage && status != EXIT_USAGE && say_seq_salvage(&q, e, &d, regular, chosen, q.read))
        status = EXIT_DATA;
    simtrace_reader_free(r);
    free(q.hold.data);
    free(q.gap_entries);
    free(q.loss);
    if (want_out) {
        /* --salvage keeps what it saved, but a usage error saves nothing */
        if (status != EXIT_OK && (!salvage || status == EXIT_USAGE)) {
            cli_out_abort();
            return status;
        }
        int rc = cli_out_commit();
        if (rc != EXIT_OK)
            return rc;
    }
    return status;
}

/* The end of a merge (cat_merge.c) that returned status rc: entries lost
 * in an input (lost) keep what could be read, with that status. */
static int merge_done(int rc, int lost)
{
    if (rc != EXIT_OK && !lost) {
        cli_out_abort();
        return rc;
    }
    int cr = cli_out_commit();
    return cr != EXIT_OK ? cr : rc;
}

/* A pipe held in a temporary file (cat_spill) whose container has no
 * valid directory and footer: what a sequential reader says of a pipe
 * that ends early (SIMTRACE.md 7.4), with what was read of it; 1 when
 * so (the run then exits 1, as when reading the pipe in order). */
static int pipe_end_missing(simtrace_reader *r, const char *in_name)
{
    simtrace_recovery_info ri;
    if (simtrace_reader_recovery(r, &ri) != SIMTRACE_OK || ri.complete)
        return 0;
    cli_say_recovered(in_name, &ri, 1);
    return 1;
}

/* The options, as parse_args() leaves them. */
typedef struct {
    const char *out_path, *format;
    const char *stream; /* -s NAME or NULL; cat_file may name the whole stream it leaves to the sequential reader */
    int force, verbose, quiet, list, verify, salvage, stats, ignore_check, raw;
    int binary; /* -F writes bytes that are not text: refused to a terminal without -f */
    int all, no_fetch, list_frames, list_json; /* stats: 1 text, 2 json */
    uint32_t types; /* without -s: the types -F writes when it writes no memory entries (format_types) */
    unsigned threads;
    uint64_t memlimit;
    range rg;
} cat_opts;

/*
 * One container (in_fd, named in_name; *regular: a regular file) through
 * the library's random access where it can: --salvage and --list of a
 * regular file, --stats, a merge of several streams (a pipe first held in
 * a temporary file: *in_fd and *regular then say so), and a range or a
 * whole stream with wide values through the directory.  Opens the output
 * into o->fd when the run writes entries.  Returns an exit status, or -1
 * when the sequential reader is to read the input (from its start):
 * co->stream then names the stream when it was chosen here.
 */
static int cat_file(cat_opts *co, const cat_merge_opts *mo, int *in_fd, const char *in_name, int *regular, out_t *o)
{
    int want_out = !co->list && !co->verify, rc, spilled = 0;
    const range *rg = &co->rg;
    if (want_out && !*regular && !co->salvage && !co->stats && cat_merge_needs_index(mo)) {
        /* a merge goes through the directory: a pipe is held in a file */
        if ((rc = cat_spill(in_fd, in_name)) != EXIT_OK)
            return rc;
        *regular = 1;
        spilled = 1;
    }
    /* --salvage of a regular file: frame by frame through its index */
    if (*regular && co->salvage && co->raw && rg->r.kind == R_NONE) {
        int status;
        if (salvage_index(*in_fd, in_name, co->stream, co->out_path, co->force, co->quiet, &status))
            return status;
    }
    if (co->list && *regular)
        return list_file(*in_fd, in_name, co->quiet);
    /* a complete regular file: everything through the directory */
    simtrace_reader *r = NULL;
    if (*regular && !co->salvage && !co->verify) {
        simtrace_read_params rp;
        simtrace_read_params_init(&rp);
        rp.memlimit = co->memlimit;
        rp.ignore_check = (uint32_t)co->ignore_check;
        /* a range of several frames decodes on -T threads; a merge's cursor
         * per stream would each start as many, with decoder tables of
         * their own, so a merge reads each stream on one */
        rp.threads = cat_merge_needs_index(mo) ? 1 : co->threads;
        if ((rc = cli_open_reader(*in_fd, in_name, &rp, &r)) != EXIT_OK)
            return rc;
        if (!spilled)
            cli_note_reader(r, in_name, co->quiet);
    }
    if (co->stats) {
        /* every frame decoded: through the directory of a regular file
         * (its note said above), else in one pass */
        simtrace_reader_free(r);
        simtrace_read_params rp = {.threads = co->threads, .ignore_check = (uint32_t)co->ignore_check,
                                   .memlimit = co->memlimit};
        return cat_stats(*in_fd, in_name, co->stream, co->stats == 2, &rp, stdout);
    }
    if (want_out && (rc = cli_out_open(co->out_path, co->force, co->binary, *in_fd, &o->fd)) != EXIT_OK) {
        simtrace_reader_free(r);
        return rc;
    }
    int merge_lost;
    if (want_out && r && (rc = cat_merge(r, mo, o->fd, &merge_lost)) >= 0) {
        /* several streams, merged (cat_merge.c) */
        int cut = spilled && pipe_end_missing(r, in_name);
        simtrace_reader_free(r);
        rc = merge_done(rc, merge_lost || cut);
        return rc == EXIT_OK && cut ? EXIT_DATA : rc;
    }
    if (r) {
        int cut = spilled && pipe_end_missing(r, in_name);
        rc = export_index(r, *in_fd, in_name, &co->stream, co->types, co->out_path, co->format, co->raw, rg,
                          co->verbose, o);
        return rc == EXIT_OK && cut ? EXIT_DATA : rc;
    }
    return -1;
}

/* The types (bit 1u << type) that exporter `format` writes, when it
 * writes no memory entries (cvp, cbp2025, cvp-loads, drmemtrace, champsim,
 * vpc, vpc3): without -s, the stream read is then the first of those
 * types, and no other stream is read.  0 for the others, whose default
 * stream is the library's (the first memory stream). */
static uint32_t format_types(const char *format)
{
    uint32_t types = 0;
    for (uint32_t t = 1; t < 32; t++) {
        if (simtrace_export_accepts(format, t) != 1)
            continue;
        if (simtrace_type_is_memory((int)t))
            return 0;
        types |= 1u << t;
    }
    return types;
}

/* Parse the command line into *co (optind is then at the first FILE) and
 * check what goes together.  Returns -1 to go on, or the exit status of
 * --help, --version or a usage error (message printed). */
static int parse_args(int argc, char **argv, cat_opts *co)
{
    *co = (cat_opts){.format = "raw", .threads = cli_ncpu(), .rg = {{.kind = R_NONE, .hi = UINT64_MAX}, NULL}};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "lts:F:o:cT:M:fkvqhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'l': co->list = 1; break;
        case 't': co->verify = 1; break;
        case OPT_SALVAGE: co->salvage = 1; break;
        case OPT_IGNORE_CHECK: co->ignore_check = 1; break;
        case 's':
            co->stream = optarg;
            cat_select(optarg);
            break;
        case OPT_ALL: co->all = 1; break;
        case OPT_NO_FETCH: co->no_fetch = 1; break;
        case OPT_FRAMES: co->list_frames = 1; break;
        case OPT_JSON: co->list_json = 1; break;
        case OPT_STATS:
            if (optarg && strcmp(optarg, "json") != 0) {
                cli_msg("--stats takes no value or =json (got '%s')", optarg);
                return EXIT_USAGE;
            }
            co->stats = optarg ? 2 : 1;
            break;
        case OPT_ENTRIES:
        case OPT_CYCLES:
        case OPT_TIME:
            if (co->rg.r.kind != R_NONE) {
                cli_msg("give one of --entries, --cycles, --time");
                return EXIT_USAGE;
            }
            if (!parse_range(optarg, &co->rg, c == OPT_ENTRIES ? R_ENTRIES : c == OPT_CYCLES ? R_CYCLES : R_TIME,
                             c == OPT_TIME ? num_time : num_plain)) {
                cli_msg("invalid range '%s' (A:B, A <= B, decimal with k, M, G or 0x hexadecimal, either end may be omitted)",
                        optarg);
                return EXIT_USAGE;
            }
            break;
        case 'F': co->format = optarg; break;
        case 'o': co->out_path = optarg; break;
        case 'c': co->out_path = NULL; break;
        case 'M':
            if (!cli_opt_memlimit(optarg, &co->memlimit))
                return EXIT_USAGE;
            break;
        case 'T':
            if (!cli_opt_threads(optarg, &co->threads))
                return EXIT_USAGE;
            break;
        case 'f': co->force = 1; break;
        case 'k': break;
        case 'v': co->verbose = 1; break;
        case 'q': co->quiet = cat_quiet = 1; break;
        case 'h': usage(stdout); return cli_stdout_done();
        case 'V': printf("simtrace-cat (svpc) %s\n", SVPC_VERSION); return cli_stdout_done();
        default:
            cli_bad_option(argv, optopt);
            fprintf(stderr, "Try 'simtrace-cat --help' for more information.\n");
            return EXIT_USAGE;
        }
    }
    if (argc - optind > 1 && (co->list || co->verify || co->salvage)) {
        cli_msg("--list, --verify and --salvage take one container (got %d)", argc - optind);
        return EXIT_USAGE;
    }
    if (co->list + co->verify + co->salvage + !!co->stats > 1) {
        cli_msg("give at most one of --list, --verify, --salvage, --stats");
        return EXIT_USAGE;
    }
    if ((co->list_frames || co->list_json) && !co->list) {
        cli_msg("--frames and --json go with --list");
        return EXIT_USAGE;
    }
    lf.frames = co->list_frames;
    lf.json = co->list_json;
    /* before the merge of several containers, which would take --stats
     * for an export and write entries instead */
    if (co->stats && (argc - optind > 1 || co->rg.r.kind != R_NONE || co->all || cat_selected() > 1 || co->out_path)) {
        cli_msg("--stats takes one container, at most one -s NAME, no range, and writes to standard output");
        return EXIT_USAGE;
    }
    if ((co->list || co->verify || co->stats) && strcmp(co->format, "raw") != 0) {
        /* -F would change nothing: refused, as other options that do */
        cli_msg("-F %s: --list, --verify and --stats write no entries (-F is the format of the entries written)",
                co->format);
        return EXIT_USAGE;
    }
    co->raw = strcmp(co->format, "raw") == 0;
    co->binary = simtrace_export_is_text(co->format) == 0;
    co->types = co->stream ? 0 : format_types(co->format);
    return -1;
}

int main(int argc, char **argv)
{
    if (cli_std_fds("simtrace-cat") != EXIT_OK) /* first: before any file takes 0, 1 or 2 */
        return EXIT_DATA;
    cat_opts co;
    int rc = parse_args(argc, argv, &co);
    if (rc >= 0)
        return rc;
    /* (the sequential reading below takes the options by these names) */
    const char *out_path = co.out_path, *stream = co.stream, *format = co.format;
    int verbose = co.verbose, quiet = co.quiet, list = co.list, verify = co.verify, salvage = co.salvage;
    int ignore_check = co.ignore_check, raw = co.raw;
    unsigned threads = co.threads;
    uint64_t memlimit = co.memlimit;
    range rg = co.rg;
    if (argc - optind > 1) {
        /* several containers: their streams merged by cycle (cat_merge.c) */
        cat_merge_opts mo = merge_opts(NULL, out_path, format, co.all, co.no_fetch, quiet, verbose, &rg);
        int out_fd, lost;
        if ((rc = cli_out_open(out_path, co.force, co.binary, -1, &out_fd)) != EXIT_OK)
            return rc;
        rc = cat_merge_files(argv + optind, (unsigned)(argc - optind), &mo, out_fd, &lost);
        return merge_done(rc, lost);
    }
    if ((list || verify) && rg.r.kind != R_NONE) {
        cli_msg("--list and --verify take no range");
        return EXIT_USAGE;
    }
    if (!raw) {
        int ok = 0;
        for (unsigned i = 0; simtrace_export_format(i); i++)
            ok |= strcmp(simtrace_export_format(i), format) == 0;
        if (!ok) {
            cli_msg("unknown output format '%s' (see --help)", format);
            return EXIT_USAGE;
        }
    }
    const char *in_name;
    int in_fd;
    if ((rc = cli_container_in_open(optind < argc ? argv[optind] : NULL, &in_fd, &in_name)) != EXIT_OK)
        return rc;
    struct stat st;
    int regular = fstat(in_fd, &st) == 0 && S_ISREG(st.st_mode);
    int want_out = !list && !verify;
    cat_merge_opts mo = merge_opts(in_name, out_path, format, co.all, co.no_fetch, quiet, verbose, &rg);
    out_t o = {-1, NULL, 0};
    if ((rc = cat_file(&co, &mo, &in_fd, in_name, &regular, &o)) >= 0)
        return rc;
    stream = co.stream;

    /* sequential: a pipe, --verify, --salvage, --list of a pipe, a whole stream */
    simtrace_read_params rp = {.threads = threads, .ignore_check = (uint32_t)ignore_check, .memlimit = memlimit};
    if (verify)
        return verify_seq(in_fd, in_name, &rp, quiet, verbose);
    if (list)
        return list_pipe(in_fd, in_name, &rp);
    seq_opts so = {in_name, stream, out_path, stream ? 0 : co.types, raw ? NULL : format, &rg, salvage, quiet,
                   regular, want_out, &mo};
    return cat_seq(in_fd, &so, &rp, &o);
}
