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

#include "cli_util.h"

/* The name of the instruction stream beside CPU.read and CPU.write, with
 * the same prefix (simtrace_export_role: 'I'). */
#define FETCH_STREAM "fetch"

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
static int mergeable(const char *f, uint32_t t)
{
    return simtrace_type_is_memory((int)t) || (t == SIMTRACE_TYPE_EVENT && strcmp(f, "text") == 0);
}

/* Append to b (cap bytes) at *m, cut at its end. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
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
        if (cli_write_all(t, buf, (size_t)n) != 0) {
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

/* One container of a merge. */
typedef struct {
    simtrace_reader *r;
    const char *name;
    simtrace_stream_info *s; /* its streams */
    unsigned ns;
    unsigned *pick; /* its streams in the merge */
    unsigned n;
} cat_input;

/* One stream of a merge, read frame by frame through a public cursor (a
 * cycle range from the frame it starts in: every entry from there on is
 * checked for a decrease). */
typedef struct {
    simtrace_cursor *c;
    const cat_input *in; /* its container */
    const simtrace_stream_info *s;
    const uint8_t *p; /* the entries at hand, of one decoded frame */
    size_t pos, n;
    uint64_t first;  /* index of the first entry at p */
    uint64_t last;   /* --cycles: the last cycle seen, to refuse a decrease */
    int seen, done;
} cursor;

typedef struct {
    cursor *cur;
    const cat_merge_opts *o;
    simtrace_input_place at; /* where the failure is */
    const char *bad; /* the container of the cursor that failed: the
                      * place's frame and offset are in it */
} mctx;

/* A stream's wide values, whose failure's place goes to *at. */
typedef struct {
    simtrace_values *v;
    simtrace_reader *r;
    simtrace_input_place *at;
} mvalues;

static simtrace_error merge_value(void *arg, uint64_t entry, const void **value, size_t *len)
{
    mvalues *m = arg;
    simtrace_error e = simtrace_values_get(m->v, entry, value, len);
    if (e != SIMTRACE_OK)
        simtrace_reader_place(m->r, m->at);
    return e;
}

/* The 48-bit cycle of the memory or event entry at p (its first word,
 * little-endian, holds the cycle in its low 48 bits). */
static uint64_t cycle_of(const uint8_t *p)
{
    uint64_t c = 0;
    for (int i = 5; i >= 0; i--)
        c = c << 8 | p[i];
    return c;
}

static simtrace_error cursor_step(mctx *c, cursor *u, const uint8_t **e, uint64_t *index);

static simtrace_error cursor_next(void *arg, unsigned k, const void **e, uint64_t *index)
{
    mctx *c = arg;
    const uint8_t *p;
    simtrace_error err = cursor_step(c, &c->cur[k], &p, index);
    *e = p;
    if (err != SIMTRACE_OK)
        c->bad = c->cur[k].in->name;
    return err;
}

/* The next entry of cursor u within the range (*e NULL at its end). */
static simtrace_error cursor_step(mctx *c, cursor *u, const uint8_t **e, uint64_t *index)
{
    int cycles = c->o->range == CAT_RANGE_CYCLES;
    *e = NULL;
    for (;;) {
        if (u->done)
            return SIMTRACE_OK;
        if (u->pos < u->n) {
            const uint8_t *p = u->p + u->pos * u->s->entry_size;
            uint64_t cyc = cycle_of(p);
            if (cycles) {
                if (u->seen && cyc < u->last) {
                    char why[SIMTRACE_NAME_MAX + 128];
                    snprintf(why, sizeof why, "cycles decrease at entry %" PRIu64 " of stream '%s'; --cycles needs "
                             "non-decreasing cycles", u->first + u->pos, u->s->name);
                    cli_place(&c->at, why); /* cut as the place's detail is */
                    return SIMTRACE_E_CORRUPT;
                }
                u->seen = 1;
                u->last = cyc;
                if (cyc < c->o->lo) {
                    u->pos++;
                    continue;
                }
                if (cyc >= c->o->hi) {
                    u->done = 1;
                    return SIMTRACE_OK;
                }
            }
            *e = p;
            *index = u->first + u->pos++;
            return SIMTRACE_OK;
        }
        const void *p;
        uint64_t n;
        simtrace_error err = simtrace_cursor_peek(u->c, &p, &n, &u->first);
        if (err != SIMTRACE_OK) {
            simtrace_reader_place(u->in->r, &c->at);
            return err;
        }
        if (n == 0) {
            u->done = 1;
            return SIMTRACE_OK;
        }
        u->p = p;
        u->pos = 0;
        u->n = (size_t)n;
    }
}

/* Open cursor u on stream si of input in: from the frame a cycle range
 * starts in (o->lo), or from the first entry. */
static simtrace_error cursor_open(cursor *u, const cat_input *in, unsigned si, const cat_merge_opts *o,
                                  simtrace_input_place *at)
{
    u->in = in;
    u->s = &in->s[si];
    simtrace_range from = {SIMTRACE_RANGE_ENTRIES, 0, 0, UINT64_MAX};
    uint64_t k;
    simtrace_frame_info fi;
    if (o->range == CAT_RANGE_CYCLES && simtrace_reader_find_cycle_frame(in->r, si, o->lo, &k) == SIMTRACE_OK)
        from.lo = simtrace_reader_frame_info(in->r, si, k, &fi) == SIMTRACE_OK ? fi.first_entry : u->s->entries;
    simtrace_error e = simtrace_cursor_open(&u->c, in->r, u->s->name, &from);
    if (e != SIMTRACE_OK)
        simtrace_reader_place(in->r, at);
    return e;
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

void cat_salvage_note(const cat_merge_opts *o, const simtrace_stream_info *s, unsigned n, unsigned chosen)
{
    if (o->quiet || nsel || o->all || !holds_all(o->format))
        return;
    char names[1024];
    size_t m = 0;
    unsigned left = 0;
    const char *name = "?";
    for (unsigned i = 0; i < n; i++) {
        if (i == chosen)
            name = s[i].name;
        else if (simtrace_type_is_memory((int)s[i].type))
            put(names, sizeof names, &m, "%s%s", left++ ? ", " : "", s[i].name);
    }
    if (left)
        cli_msg("%s: note: --salvage writes one stream, '%s', not every memory stream as -F %s does otherwise: "
                "%u not written (%s); salvage each with -s NAME", o->in_name, name, o->format, left, names);
}

/* The stream named name in input in, or -1. */
static int find(const cat_input *in, const char *name)
{
    uint32_t i;
    return simtrace_reader_find_stream(in->r, name, &i) == SIMTRACE_OK ? (int)i : -1;
}

/* The fetch stream beside stream si: the name's prefix and "fetch" where
 * the name ends in "read" or "write" (the pairing export_merge.c follows),
 * or -1. */
static int fetch_of(const cat_input *in, unsigned si)
{
    const char *nm = in->s[si].name;
    size_t l = strlen(nm), p = SIZE_MAX;
    if (l >= 4 && strcmp(nm + l - 4, "read") == 0)
        p = l - 4;
    else if (l >= 5 && strcmp(nm + l - 5, "write") == 0)
        p = l - 5;
    char f[512];
    if (p == SIZE_MAX || p + sizeof FETCH_STREAM > sizeof f)
        return -1;
    memcpy(f, nm, p);
    memcpy(f + p, FETCH_STREAM, sizeof FETCH_STREAM);
    return find(in, f);
}

/* lackey, din, xdin: the fetch stream of every read or write stream picked
 * comes with it, as its instruction records give the entries their cycles
 * and ips, and lackey's M records, back on import; --no-fetch leaves it
 * out, with a note on what is lost. */
static void with_fetch(const cat_input *in, const cat_merge_opts *o, const char *in_name, unsigned *pick,
                       unsigned *n)
{
    if (!holds_all(o->format))
        return;
    unsigned asked = *n;
    for (unsigned f = 0; f < in->ns; f++) {
        int beside = 0;
        for (unsigned i = 0; i < asked && !beside; i++)
            beside = fetch_of(in, pick[i]) == (int)f;
        if (!beside || picked(pick, *n, f))
            continue;
        if (!o->no_fetch)
            add(pick, n, f);
        else if (!o->quiet)
            cli_msg("%s: note: --no-fetch: the instruction records of stream '%s' are not written, so an import of "
                    "this %s file gives every entry cycle 0 and ip 0%s", in_name, in->s[f].name,
                    o->format, strcmp(o->format, "lackey") == 0 ? ", and each M record back as an L and an S" : "");
    }
}

/* The streams asked for in container ix, in order: an exact name first,
 * else a list split at commas; found[a] counts the containers where the
 * a-th name (or list) was found.  A name missing from ix is an error when
 * ix is the only container.  Returns an exit status (EXIT_OK). */
static int resolve(const cat_input *in, const cat_merge_opts *o, const char *in_name, int only, unsigned *pick,
                   unsigned *n, unsigned *found)
{
    *n = 0;
    if (nsel == 0 || o->all)
        for (unsigned i = 0; i < in->ns; i++)
            if (mergeable(o->format, in->s[i].type) &&
                !(o->no_fetch && holds_all(o->format) && simtrace_export_role(in->s[i].name) == 'I'))
                add(pick, n, i);
    for (unsigned a = 0; a < nsel; a++) {
        int si = find(in, sel[a]);
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
            si = find(in, name);
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
    with_fetch(in, o, in_name, pick, n);
    return EXIT_OK;
}

/* errno is kept for the message */
static int write_fd(void *arg, const void *buf, size_t n) { return cli_write_all(*(const int *)arg, buf, n); }

/* After a merge of input c read through its frame headers (no directory):
 * 1 when entries the merge asked for are not in the file, with a message
 * naming it: of each stream merged, what the one-stream export would say
 * (cli_say_stream_loss).  A merge's range is of cycles, or reads whole. */
static int cut_loss(const cat_input *c, const cat_merge_opts *o)
{
    const simtrace_range rg = {o->range == CAT_RANGE_CYCLES ? SIMTRACE_RANGE_CYCLES : SIMTRACE_RANGE_ALL, 0, o->lo,
                               o->hi};
    int lost = 0;
    for (unsigned i = 0; i < c->n; i++)
        lost |= cli_say_stream_loss(c->r, c->name, c->pick[i], c->s[c->pick[i]].name, &rg);
    return lost;
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
                same += simtrace_export_role(in[c].s[in[c].pick[i]].name) == kinds[k].role;
        if (same < 2)
            continue;
        put(note, sizeof note, &m, "%s%s of ", m ? "; " : "", kinds[k].what);
        unsigned j = 0;
        for (unsigned c = 0; c < nc; c++)
            for (unsigned i = 0; i < in[c].n; i++) {
                const char *nm = in[c].s[in[c].pick[i]].name;
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
            const simtrace_stream_info *s = &in[c].s[in[c].pick[i]];
            if (!mergeable(o->format, s->type)) {
                cli_msg("%s: stream '%s' of type %s cannot be written as %s", in[c].name, s->name, s->type_name,
                        o->format);
                return EXIT_USAGE;
            }
            if (o->range == CAT_RANGE_CYCLES && !s->cycles_ordered) {
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
        for (unsigned i = 0; i < in[c].ns; i++) {
            const simtrace_stream_info *s = &in[c].s[i];
            int inside = picked(in[c].pick, in[c].n, i);
            for (unsigned k = 0; k < in[c].n; k++)
                /* text writes a picked stream's wide values whole */
                inside |= strcmp(o->format, "text") == 0 && s->type == SIMTRACE_TYPE_VBLOCK && in[c].pick[k] == s->owner;
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
    mvalues *vals = calloc(n, sizeof *vals);
    simtrace_export_value_fn *vf = calloc(n, sizeof *vf);
    void **va = calloc(n, sizeof *va);
    mctx c = {cur, o, {0}, NULL};
    cli_place(&c.at, "");
    simtrace_error e = es && cur && (nc == 1 || qual) && vals && vf && va ? SIMTRACE_OK : SIMTRACE_E_NOMEM;
    unsigned j = 0;
    for (unsigned k = 0; k < nc && e == SIMTRACE_OK; k++)
        for (unsigned i = 0; i < in[k].n && e == SIMTRACE_OK; i++, j++) {
            uint32_t si = in[k].pick[i];
            const simtrace_stream_info *s = &in[k].s[si];
            const char *name = s->name;
            if (qual) {
                /* "FILE:NAME": the same names in several containers stay
                 * apart, and a fetch stream finds its reads and writes in
                 * its own container (formats/IMPORT.md 8.6) */
                size_t l = strlen(in[k].name) + strlen(s->name) + 2;
                if (!(qual[j] = malloc(l))) {
                    e = SIMTRACE_E_NOMEM;
                    break;
                }
                snprintf(qual[j], l, "%s:%s", in[k].name, s->name);
                name = qual[j];
            }
            es[j] = (simtrace_export_stream){name, s->type, s->entry_size, NULL, 0};
            simtrace_reader_stream_header(in[k].r, si, &es[j].header, &es[j].header_len);
            if (s->values != UINT32_MAX) {
                vals[j] = (mvalues){NULL, in[k].r, &c.at};
                if ((e = simtrace_values_open(&vals[j].v, in[k].r, si)) != SIMTRACE_OK)
                    break;
                vf[j] = merge_value;
                va[j] = &vals[j];
            }
            e = cursor_open(&cur[j], &in[k], si, o, &c.at);
        }
    if (e == SIMTRACE_OK) {
        if (o->verbose)
            cli_msg("merging %u streams of %u container%s by cycle into %s", n, nc, nc == 1 ? "" : "s", o->format);
        e = simtrace_export_merged(o->format, es, n, cursor_next, &c, vf, (void *const *)va, write_fd, &out_fd);
    }
    int rc = EXIT_OK;
    /* an input's error names that input (of several, the one whose frame
     * it is); what no input caused (memory, too many streams for text)
     * names none of several */
    if (e != SIMTRACE_OK)
        rc = cli_report_place(e, &c.at, e == SIMTRACE_E_WRITE ? o->out_name : c.bad ? c.bad : nc == 1 ? in[0].name : NULL);
    for (unsigned k = 0; k < nc && e == SIMTRACE_OK; k++)
        if (cut_loss(&in[k], o)) {
            /* what could be read is written: the caller keeps it */
            *lost = 1;
            rc = EXIT_DATA;
        }
    for (unsigned i = 0; cur && i < n; i++) {
        simtrace_cursor_free(cur[i].c);
        if (vals)
            simtrace_values_free(vals[i].v);
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

/* The streams of in->r into in->s, and room for its picks.  Returns an
 * exit status (message printed). */
static int input_streams(cat_input *in)
{
    uint32_t ns = 0;
    simtrace_reader_stream_count(in->r, &ns);
    in->ns = ns;
    in->s = calloc(ns + 1, sizeof *in->s);
    in->pick = calloc(ns + 1, sizeof *in->pick);
    if (!in->s || !in->pick) {
        cli_msg("out of memory");
        return EXIT_DATA;
    }
    for (uint32_t i = 0; i < ns; i++)
        simtrace_reader_stream_info(in->r, i, &in->s[i]);
    return EXIT_OK;
}

int cat_merge(simtrace_reader *r, const cat_merge_opts *o, int out_fd, int *lost)
{
    *lost = 0;
    cat_input in = {r, o->in_name, NULL, 0, NULL, 0};
    int several = o->all || nsel > 1 || (nsel == 1 && strchr(sel[0], ',') && find(&in, sel[0]) < 0);
    if (!several && !holds_all(o->format))
        return -1;
    unsigned *found = calloc(nsel + 1, sizeof *found);
    int rc = found ? input_streams(&in) : EXIT_DATA;
    if (!found)
        cli_msg("out of memory");
    if (rc == EXIT_OK)
        rc = resolve(&in, o, o->in_name, 1, in.pick, &in.n, found);
    free(found);
    if (rc == EXIT_OK && in.n <= 1 && !several)
        rc = -1; /* one stream, or none, after all: the one-stream export */
    else if (rc == EXIT_OK)
        rc = merge_inputs(&in, 1, o, out_fd, lost);
    free(in.pick);
    free(in.s);
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
        if ((rc = cli_container_in_open(paths[c], &fd, &in[c].name)) != EXIT_OK || (rc = cat_spill(&fd, in[c].name)) != EXIT_OK)
            break;
        simtrace_read_params rp;
        simtrace_read_params_init(&rp);
        if ((rc = cli_open_reader(fd, in[c].name, &rp, &in[c].r)) != EXIT_OK) {
            cli_msg("%s: several containers are merged through their directories (regular, complete files)",
                    in[c].name);
            break;
        }
        /* as for one container (simtrace_cat.c): the note on a file read
         * through its frame headers; with complete frames past a damaged
         * header, which are not in the list, even with -q */
        cli_note_reader(in[c].r, in[c].name, o->quiet);
        if ((rc = input_streams(&in[c])) == EXIT_OK)
            rc = resolve(&in[c], o, in[c].name, 0, in[c].pick, &in[c].n, found);
    }
    for (unsigned a = 0; a < nsel && rc == EXIT_OK; a++)
        if (!found[a]) {
            cli_msg("no stream named '%s' in any of the %u containers (see --list)", sel[a], nc);
            rc = EXIT_DATA;
        }
    if (rc == EXIT_OK)
        rc = merge_inputs(in, nc, o, out_fd, lost);
    for (unsigned c = 0; in && c < nc; c++) {
        simtrace_reader_free(in[c].r);
        free(in[c].pick);
        free(in[c].s);
    }
    free(found);
    free(in);
    return rc;
}
