/* cat_merge.c - simtrace-cat -s A,B / --all / -F lackey: several streams
 * merged by cycle into one file (contract in cat_merge.h).  Each stream is
 * read through the directory one frame at a time, so memory is one decoded
 * frame per stream whatever their length. */
#define _POSIX_C_SOURCE 200809L
#include "cat_merge.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/st_io.h"
#include "../formats/entry.h"
#include "../formats/trace_io.h"
#include "../frames/range.h"
#include "cli_util.h"

static const char **sel;
static unsigned nsel;

void cat_select(const char *arg)
{
    const char **n = realloc(sel, (nsel + 1) * sizeof *sel);
    if (!n)
        return; /* cat_selected() then falls short; cat_merge says so */
    sel = n;
    sel[nsel++] = arg;
}

unsigned cat_selected(void) { return nsel; }

static int is_merge_format(const char *f)
{
    for (unsigned i = 0; simtrace_export_merge_format(i); i++)
        if (strcmp(simtrace_export_merge_format(i), f) == 0)
            return 1;
    return 0;
}

/* Formats that hold reads and writes together, so that by default they get
 * every memory stream (csv too, when asked with --all or a list). */
static int holds_all(const char *f)
{
    return strcmp(f, "lackey") == 0 || strcmp(f, "din") == 0 || strcmp(f, "xdin") == 0
           || strcmp(f, "dramsim2") == 0
           || strcmp(f, "gem5") == 0;
}

/* Whether a stream of type t goes into a merged export as format f: the
 * memory streams, and for text event streams too (IMPORT.md 8.6). */
static int mergeable(const char *f, st_entry_type t)
{
    return st_entry_is_memory(t) || (t == ST_TYPE_EVENT && strcmp(f, "text") == 0);
}

/* Append to b (cap bytes) at *m, cut at its end. */
static void put(char *b, size_t cap, size_t *m, const char *fmt, ...)
{
    if (*m >= cap - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b + *m, cap - *m, fmt, ap);
    va_end(ap);
    if (k > 0)
        *m = *m + (size_t)k < cap - 1 ? *m + (size_t)k : cap - 1;
}

int cat_merge_needs_index(const cat_merge_opts *o)
{
    /* (a list cannot be told from a name with a comma before the
     * container's streams are known: taken as a list) */
    return o->all || nsel > 1 || (nsel == 1 && strchr(sel[0], ',')) || holds_all(o->format);
}

int cat_spill(int *fd, const char *in_name)
{
    struct stat st;
    if (fstat(*fd, &st) == 0 && S_ISREG(st.st_mode))
        return EXIT_OK;
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/simtrace-cat.XXXXXX", dir) >= sizeof path) {
        cli_msg("%s: TMPDIR is too long a path", in_name);
        return EXIT_DATA;
    }
    int t = mkstemp(path);
    if (t < 0) {
        cli_msg("%s: cannot make a temporary file in %s to merge through: %s", in_name, dir, strerror(errno));
        return EXIT_DATA;
    }
    unlink(path); /* gone with the descriptor, whatever ends the program */
    static uint8_t buf[1 << 20];
    st_error e = ST_OK;
    for (;;) {
        ssize_t n = read(*fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            cli_msg("%s: read error: %s", in_name, strerror(errno));
            close(t);
            return EXIT_DATA;
        }
        if (n == 0)
            break;
        if ((e = st_write_all(t, buf, (size_t)n)) != ST_OK) {
            cli_msg("%s: cannot copy it to a temporary file in %s to merge through (it needs as much room as "
                    "the container): %s; set TMPDIR to a directory with room, or save the container to a file",
                    in_name, dir, strerror(errno));
            close(t);
            return EXIT_DATA;
        }
    }
    if (*fd > STDERR_FILENO)
        close(*fd);
    *fd = t;
    return EXIT_OK;
}

typedef struct {
    st_index *ix;
    const char *file; /* its container, for messages */
    unsigned si;     /* stream index */
    uint64_t j, nf;  /* next frame, frames */
    st_buf buf;
    size_t pos, n;
    uint64_t first;  /* index of the first entry in buf */
    uint32_t esz;
    uint64_t last;   /* --cycles: the last cycle seen, to refuse a decrease */
    int seen, done;
} cursor;

typedef struct {
    cursor *cur;
    const cat_merge_opts *o;
    st_diag *d;
    const char *bad; /* the container of the cursor that failed: the
                      * diag's frame and offset are in it */
} mctx;

static st_error cursor_step(mctx *c, cursor *u, const uint8_t **e, uint64_t *index);

static simtrace_error cursor_next(void *arg, unsigned k, const void **e, uint64_t *index)
{
    mctx *c = arg;
    const uint8_t *p;
    st_error err = cursor_step(c, &c->cur[k], &p, index);
    *e = p;
    if (err != ST_OK)
        c->bad = c->cur[k].file;
    return (simtrace_error)err;
}

/* The next entry of cursor u within the range (*e NULL at its end). */
static st_error cursor_step(mctx *c, cursor *u, const uint8_t **e, uint64_t *index)
{
    int cycles = c->o->range == CAT_RANGE_CYCLES;
    *e = NULL;
    for (;;) {
        if (u->done)
            return ST_OK;
        if (u->pos < u->n) {
            const uint8_t *p = u->buf.data + u->pos * u->esz;
            uint64_t cyc = st_load64(p) & ST_CYCLE_MASK;
            if (cycles) {
                if (u->seen && cyc < u->last) {
                    const st_stream_info *s = st_index_stream(u->ix, u->si);
                    return st_diag_set(c->d, ST_E_CORRUPT, "cycles decrease at entry %" PRIu64 " of stream '%s'; "
                                       "--cycles needs non-decreasing cycles", u->first + u->pos, s->name);
                }
                u->seen = 1;
                u->last = cyc;
                if (cyc < c->o->lo) {
                    u->pos++;
                    continue;
                }
                if (cyc >= c->o->hi) {
                    u->done = 1;
                    return ST_OK;
                }
            }
            *e = p;
            *index = u->first + u->pos++;
            return ST_OK;
        }
        if (u->j >= u->nf) {
            u->done = 1;
            return ST_OK;
        }
        const st_frame_ref *r = st_index_stream_frame(u->ix, u->si, u->j++);
        RETURN_IF_ERROR(st_index_decode_frame(u->ix, r->ordinal, &u->buf, c->d));
        u->pos = 0;
        u->n = (size_t)r->count;
        u->first = r->first_entry;
    }
}

/* Whether a vblock stream holds the wide values of stream id. */
static int owns_values(st_index *ix, uint32_t id)
{
    for (unsigned i = 0; i < st_index_stream_count(ix); i++)
        if (st_index_stream(ix, i)->type == ST_TYPE_VBLOCK && st_index_stream(ix, i)->owner == id)
            return 1;
    return 0;
}

static int picked(const unsigned *pick, unsigned n, unsigned si)
{
    for (unsigned i = 0; i < n; i++)
        if (pick[i] == si)
            return 1;
    return 0;
}

/* Add stream si to the selection once; 0 if it was there already. */
static int add(unsigned *pick, unsigned *n, unsigned si)
{
    if (picked(pick, *n, si))
        return 0;
    pick[(*n)++] = si;
    return 1;
}

void cat_salvage_note(const cat_merge_opts *o, const st_reader *r, uint32_t chosen)
{
    if (o->quiet || nsel || o->all || !holds_all(o->format))
        return;
    char names[1024];
    size_t m = 0;
    unsigned left = 0;
    const char *name = "?";
    for (unsigned i = 0; i < st_reader_stream_count(r); i++) {
        const st_stream_info *s = st_reader_stream(r, i);
        if (s->id == chosen)
            name = s->name;
        else if (st_entry_is_memory(s->type))
            put(names, sizeof names, &m, "%s%s", left++ ? ", " : "", s->name);
    }
    if (left)
        cli_msg("%s: note: --salvage writes one stream, '%s', not every memory stream as -F %s does otherwise: "
                "%u not written (%s); salvage each with -s NAME", o->in_name, name, o->format, left, names);
}

/* The fetch stream beside stream si: the name's prefix and "fetch" where
 * the name ends in "read" or "write" (the pairing export_merge.c follows),
 * or -1. */
static int fetch_of(st_index *ix, unsigned si)
{
    const char *nm = st_index_stream(ix, si)->name;
    size_t l = strlen(nm), p = SIZE_MAX;
    if (l >= 4 && strcmp(nm + l - 4, "read") == 0)
        p = l - 4;
    else if (l >= 5 && strcmp(nm + l - 5, "write") == 0)
        p = l - 5;
    char f[512];
    if (p == SIZE_MAX || p + sizeof ST_FETCH_STREAM > sizeof f)
        return -1;
    memcpy(f, nm, p);
    memcpy(f + p, ST_FETCH_STREAM, sizeof ST_FETCH_STREAM);
    return st_index_find_stream(ix, f);
}

/* lackey, din, xdin: the fetch stream of every read or write stream picked
 * comes with it, as its instruction records give the entries their cycles
 * and ips, and lackey's M records, back on import; --no-fetch leaves it
 * out, with a note on what is lost. */
static void with_fetch(st_index *ix, const cat_merge_opts *o, const char *in_name, unsigned *pick, unsigned *n)
{
    if (!holds_all(o->format))
        return;
    unsigned asked = *n;
    for (unsigned f = 0; f < st_index_stream_count(ix); f++) {
        int beside = 0;
        for (unsigned i = 0; i < asked && !beside; i++)
            beside = fetch_of(ix, pick[i]) == (int)f;
        if (!beside || picked(pick, *n, f))
            continue;
        if (!o->no_fetch)
            add(pick, n, f);
        else if (!o->quiet)
            cli_msg("%s: note: --no-fetch: the instruction records of stream '%s' are not written, so an import of "
                    "this %s file gives every entry cycle 0 and ip 0%s", in_name, st_index_stream(ix, f)->name,
                    o->format, strcmp(o->format, "lackey") == 0 ? ", and each M record back as an L and an S" : "");
    }
}

/* The streams asked for in container ix, in order: an exact name first,
 * else a list split at commas; found[a] counts the containers where the
 * a-th name (or list) was found.  A name missing from ix is an error when
 * ix is the only container.  Returns an exit status (EXIT_OK). */
static int resolve(st_index *ix, const cat_merge_opts *o, const char *in_name, int only, unsigned *pick,
                   unsigned *n, unsigned *found)
{
    unsigned ns = st_index_stream_count(ix);
    *n = 0;
    if (nsel == 0 || o->all)
        for (unsigned i = 0; i < ns; i++)
            if (mergeable(o->format, st_index_stream(ix, i)->type) &&
                !(o->no_fetch && holds_all(o->format) && simtrace_export_role(st_index_stream(ix, i)->name) == 'I'))
                add(pick, n, i);
    for (unsigned a = 0; a < nsel; a++) {
        int si = st_index_find_stream(ix, sel[a]);
        if (si >= 0) {
            found[a]++;
            if (!add(pick, n, (unsigned)si) && !o->all) {
                cli_msg("stream '%s' is named twice", sel[a]);
                return EXIT_USAGE;
            }
            continue;
        }
        const char *s = sel[a];
        int any = 0;
        for (;;) {
            size_t l = strcspn(s, ",");
            char name[256];
            if (l == 0 || l >= sizeof name) {
                cli_msg("%s: no stream named '%s' (see --list)", in_name, sel[a]);
                return EXIT_DATA;
            }
            memcpy(name, s, l);
            name[l] = 0;
            si = st_index_find_stream(ix, name);
            if (si < 0 && only) {
                cli_msg("%s: no stream named '%s' (see --list)", in_name, name);
                return EXIT_DATA;
            }
            if (si >= 0) {
                any = 1;
                if (!add(pick, n, (unsigned)si) && !o->all) {
                    cli_msg("stream '%s' is named twice", name);
                    return EXIT_USAGE;
                }
            }
            if (!s[l])
                break;
            s += l + 1;
        }
        found[a] += (unsigned)any;
    }
    with_fetch(ix, o, in_name, pick, n);
    return EXIT_OK;
}

/* errno is kept for the message */
static int write_fd(void *arg, const void *buf, size_t n) { return st_write_all(*(const int *)arg, buf, n) != ST_OK; }

simtrace_error cat_index_value(void *vals, uint64_t index, const void **value, size_t *len)
{
    const uint8_t *p = NULL;
    st_error e = st_values_get(vals, index, &p, len);
    *value = p;
    return (simtrace_error)e;
}

/* One container of a merge. */
typedef struct {
    st_index *ix;
    const char *name;
    unsigned *pick; /* its streams in the merge */
    unsigned n;
} cat_input;

/* After a merge of input c read through its frame headers (no directory):
 * 1 when entries the merge asked for are not in the file, with a message
 * naming it.  The frames after a damaged frame header were not listed
 * (cli_note_recovered() has said so, even with -q); the frame cut off at
 * the end counts when it belongs to a stream merged and the range reaches
 * it (the test the one-stream export makes, simtrace_cat.c say_cut_loss). */
static int cut_loss(const cat_input *c, const cat_merge_opts *o)
{
    if (st_index_frames_after(c->ix))
        return 1;
    const st_frame_ref *f = st_index_cut_frame(c->ix);
    if (!f || (o->range == CAT_RANGE_CYCLES && o->hi <= f->first_cycle))
        return 0;
    for (unsigned i = 0; i < c->n; i++) {
        const st_stream_info *s = st_index_stream(c->ix, c->pick[i]);
        if (s->id == f->stream) {
            cli_say_cut_loss(c->name, f->first_entry, f->count, f->offset, s->name);
            return 1;
        }
    }
    return 0;
}

/* lackey, din and xdin records say only load, store or instruction: the
 * streams merged into one kind (a Bochs container's linear cpuK.read and
 * physical cpuK.phys.read, several CPUs, several containers) cannot be
 * split apart again, which a note says, naming them. */
static void say_one_kind(const cat_input *in, unsigned nc, const cat_merge_opts *o)
{
    static const struct {
        char role;
        const char *what;
    } kinds[] = {{'L', "loads"}, {'S', "stores"}, {'I', "instructions"}};
    char note[2048];
    size_t m = 0;
    for (unsigned k = 0; k < 3; k++) {
        unsigned same = 0;
        for (unsigned c = 0; c < nc; c++)
            for (unsigned i = 0; i < in[c].n; i++)
                same += simtrace_export_role(st_index_stream(in[c].ix, in[c].pick[i])->name) == kinds[k].role;
        if (same < 2)
            continue;
        put(note, sizeof note, &m, "%s%s of ", m ? "; " : "", kinds[k].what);
        unsigned j = 0;
        for (unsigned c = 0; c < nc; c++)
            for (unsigned i = 0; i < in[c].n; i++) {
                const char *nm = st_index_stream(in[c].ix, in[c].pick[i])->name;
                if (simtrace_export_role(nm) == kinds[k].role)
                    put(note, sizeof note, &m, "%s%s%s%s", j++ ? ", " : "", nc > 1 ? in[c].name : "",
                        nc > 1 ? ":" : "", nm);
            }
    }
    if (m)
        cli_msg("%s%snote: -F %s writes these streams as records of one kind each, which an import does not split "
                "apart again: %s (linear and physical addresses, or several CPUs or containers, in one trace); "
                "-s NAME writes one stream, -F text keeps them apart", nc == 1 ? in[0].name : "", nc == 1 ? ": " : "",
                o->format, note);
}

/* The checks, the note on what is left out, and the merge of the streams
 * picked in every input.  Returns an exit status; *lost as for cat_merge. */
static int merge_inputs(cat_input *in, unsigned nc, const cat_merge_opts *o, int out_fd, int *lost)
{
    unsigned n = 0;
    for (unsigned c = 0; c < nc; c++)
        n += in[c].n;
    if (!is_merge_format(o->format)) {
        cli_msg("-F %s writes one stream; several streams are merged into lackey, din, xdin, csv or text",
                o->format);
        return EXIT_USAGE;
    }
    if (o->range == CAT_RANGE_OTHER) {
        cli_msg("--entries and --time count within one stream; give several streams a --cycles range");
        return EXIT_USAGE;
    }
    if (n == 0) {
        if (nc == 1)
            cli_msg("%s: no memory stream to write", in[0].name);
        else
            cli_msg("no memory stream to write in any of the %u containers", nc);
        return EXIT_USAGE;
    }
    for (unsigned c = 0; c < nc; c++)
        for (unsigned i = 0; i < in[c].n; i++) {
            st_index *ix = in[c].ix;
            const st_stream_info *s = st_index_stream(ix, in[c].pick[i]);
            if (!mergeable(o->format, s->type)) {
                cli_msg("%s: stream '%s' of type %s cannot be written as %s", in[c].name, s->name, s->type_name,
                        o->format);
                return EXIT_USAGE;
            }
            if (o->range == CAT_RANGE_CYCLES && !st_index_keys_ordered(ix, in[c].pick[i])) {
                cli_msg("%s: the cycles of stream '%s' decrease between frames; --cycles needs non-decreasing "
                        "cycles", in[c].name, s->name);
                return EXIT_DATA;
            }
        }
    for (unsigned c = 0; c < nc && !o->quiet && (nsel == 0 || o->all); c++) {
        /* what the default leaves out, so that nothing goes missing unsaid */
        char note[1024];
        size_t m = 0;
        unsigned left = 0;
        for (unsigned i = 0; i < st_index_stream_count(in[c].ix); i++) {
            const st_stream_info *s = st_index_stream(in[c].ix, i);
            int inside = picked(in[c].pick, in[c].n, i);
            for (unsigned k = 0; k < in[c].n; k++)
                /* text writes a picked stream's wide values whole */
                inside |= strcmp(o->format, "text") == 0 && s->type == ST_TYPE_VBLOCK &&
                          st_index_stream(in[c].ix, in[c].pick[k])->id == s->owner;
            if (inside)
                continue;
            if (m < sizeof note - 1)
                m += (size_t)snprintf(note + m, sizeof note - m, "%s%s (%s)", left ? ", " : "", s->name,
                                      s->type_name);
            left++;
        }
        if (left)
            cli_msg("%s: note: %u stream%s not written as %s: %s", in[c].name, left, left == 1 ? "" : "s",
                    o->format, note);
    }
    if (!o->quiet && holds_all(o->format))
        say_one_kind(in, nc, o);
    simtrace_export_stream *es = calloc(n, sizeof *es);
    cursor *cur = calloc(n, sizeof *cur);
    char **qual = nc > 1 ? calloc(n, sizeof *qual) : NULL;
    /* the whole values of wide entries, which text writes (6.3), each
     * stream's from its vblock companion through the directory */
    st_values *vals = calloc(n, sizeof *vals);
    simtrace_export_value_fn *vf = calloc(n, sizeof *vf);
    void **va = calloc(n, sizeof *va);
    st_diag d;
    st_diag_clear(&d);
    st_error e = es && cur && (nc == 1 || qual) && vals && vf && va ? ST_OK : ST_E_NOMEM;
    unsigned j = 0;
    for (unsigned c = 0; c < nc && e == ST_OK; c++)
        for (unsigned i = 0; i < in[c].n; i++, j++) {
            st_index *ix = in[c].ix;
            const st_stream_info *s = st_index_stream(ix, in[c].pick[i]);
            const char *name = s->name;
            if (qual) {
                /* "FILE:NAME": the same names in several containers stay
                 * apart, and a fetch stream finds its reads and writes in
                 * its own container (formats/IMPORT.md 8.6) */
                size_t l = strlen(in[c].name) + strlen(s->name) + 2;
                if (!(qual[j] = malloc(l))) {
                    e = ST_E_NOMEM;
                    break;
                }
                snprintf(qual[j], l, "%s:%s", in[c].name, s->name);
                name = qual[j];
            }
            es[j] = (simtrace_export_stream){name, (uint32_t)s->type, s->entry_size, s->header, s->header_len};
            if (owns_values(ix, s->id)) {
                st_values_init(&vals[j], ix, in[c].pick[i], &d);
                vf[j] = cat_index_value;
                va[j] = &vals[j];
            }
            cur[j].ix = ix;
            cur[j].file = in[c].name;
            cur[j].si = in[c].pick[i];
            cur[j].nf = st_index_stream_frames(ix, in[c].pick[i]);
            cur[j].esz = s->entry_size;
            if (o->range == CAT_RANGE_CYCLES)
                cur[j].j = st_index_lower_key(ix, in[c].pick[i], o->lo);
            st_buf_init(&cur[j].buf, 0);
        }
    mctx c = {cur, o, &d, NULL};
    if (e == ST_OK) {
        if (o->verbose)
            cli_msg("merging %u streams of %u container%s by cycle into %s", n, nc, nc == 1 ? "" : "s", o->format);
        e = (st_error)simtrace_export_merged(o->format, es, n, cursor_next, &c, vf, (void *const *)va, write_fd,
                                             &out_fd);
    }
    int rc = EXIT_OK;
    /* an input's error names that input (of several, the one whose frame
     * it is); what no input caused (memory, too many streams for text)
     * names none of several */
    if (e != ST_OK)
        rc = cli_report(e, &d, e == ST_E_WRITE ? o->out_name : c.bad ? c.bad : nc == 1 ? in[0].name : NULL);
    for (unsigned k = 0; k < nc && e == ST_OK; k++)
        if (cut_loss(&in[k], o)) {
            /* what could be read is written: the caller keeps it */
            *lost = 1;
            rc = EXIT_DATA;
        }
    for (unsigned i = 0; cur && i < n; i++) {
        st_buf_free(&cur[i].buf);
        if (va && va[i])
            st_values_free(&vals[i]);
        if (qual)
            free(qual[i]);
    }
    free(qual);
    free(vals);
    free(vf);
    free(va);
    free(cur);
    free(es);
    return rc;
}

int cat_merge(st_index *ix, const cat_merge_opts *o, int out_fd, int *lost)
{
    *lost = 0;
    int several = o->all || nsel > 1 || (nsel == 1 && strchr(sel[0], ',') && st_index_find_stream(ix, sel[0]) < 0);
    if (!several && !holds_all(o->format))
        return -1;
    unsigned ns = st_index_stream_count(ix), *found = calloc(nsel + 1, sizeof *found);
    cat_input in = {ix, o->in_name, calloc(ns + 1, sizeof(unsigned)), 0};
    if (!in.pick || !found) {
        free(in.pick);
        free(found);
        cli_msg("out of memory");
        return EXIT_DATA;
    }
    int rc = resolve(ix, o, o->in_name, 1, in.pick, &in.n, found);
    free(found);
    if (rc == EXIT_OK && in.n <= 1 && !several)
        rc = -1; /* one stream, or none, after all: the one-stream export */
    else if (rc == EXIT_OK)
        rc = merge_inputs(&in, 1, o, out_fd, lost);
    free(in.pick);
    return rc;
}

int cat_merge_files(char *const *paths, unsigned nc, const cat_merge_opts *o, int out_fd, int *lost)
{
    cat_input *in = calloc(nc, sizeof *in);
    unsigned *found = calloc(nsel + 1, sizeof *found);
    int rc = in && found ? EXIT_OK : EXIT_DATA;
    *lost = 0;
    if (rc != EXIT_OK)
        cli_msg("out of memory");
    for (unsigned c = 0; c < nc && rc == EXIT_OK; c++) {
        int fd;
        st_diag d;
        st_diag_clear(&d);
        if ((rc = cli_in_open(paths[c], &fd, &in[c].name)) != EXIT_OK || (rc = cat_spill(&fd, in[c].name)) != EXIT_OK)
            break;
        st_error e = st_index_open(&in[c].ix, fd, &d);
        if (e != ST_OK) {
            rc = cli_report(e, &d, in[c].name);
            cli_msg("%s: several containers are merged through their directories (regular, complete files)",
                    in[c].name);
            break;
        }
        /* as for one container (simtrace_cat.c): the note on a file read
         * through its frame headers; with complete frames past a damaged
         * header, which are not in the list, even with -q */
        if (!o->quiet || st_index_frames_after(in[c].ix))
            cli_note_recovered(in[c].ix, in[c].name);
        in[c].pick = calloc(st_index_stream_count(in[c].ix) + 1, sizeof(unsigned));
        if (!in[c].pick) {
            cli_msg("out of memory");
            rc = EXIT_DATA;
        } else
            rc = resolve(in[c].ix, o, in[c].name, 0, in[c].pick, &in[c].n, found);
    }
    for (unsigned a = 0; a < nsel && rc == EXIT_OK; a++)
        if (!found[a]) {
            cli_msg("no stream named '%s' in any of the %u containers (see --list)", sel[a], nc);
            rc = EXIT_DATA;
        }
    if (rc == EXIT_OK)
        rc = merge_inputs(in, nc, o, out_fd, lost);
    for (unsigned c = 0; in && c < nc; c++) {
        st_index_free(in[c].ix);
        free(in[c].pick);
    }
    free(found);
    free(in);
    return rc;
}
