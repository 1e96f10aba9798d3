/* cat_merge.c - simtrace-cat -s A,B / --all / -F lackey: several streams
 * merged by cycle into one file (contract in cat_merge.h).  Each stream is
 * read through the directory one frame at a time, so memory is one decoded
 * frame per stream whatever their length. */
#define _POSIX_C_SOURCE 200809L
#include "cat_merge.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/st_io.h"
#include "../formats/entry.h"
#include "../formats/trace_io.h"
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
    for (unsigned i = 0; st_merge_formats[i]; i++)
        if (strcmp(st_merge_formats[i], f) == 0)
            return 1;
    return 0;
}

/* Formats that hold reads and writes together, so that by default they get
 * every memory stream (csv too, when asked with --all or a list). */
static int holds_all(const char *f)
{
    return strcmp(f, "lackey") == 0 || strcmp(f, "din") == 0 || strcmp(f, "xdin") == 0;
}

int cat_merge_sequential_ok(const cat_merge_opts *o)
{
    if (!o->all && nsel <= 1)
        return 1;
    cli_msg("%s: several streams are merged through the directory of a regular file; "
            "standard input is not one (save it to a file first)", o->in_name);
    return 0;
}

void cat_merge_note_sequential(const cat_merge_opts *o, const st_reader *r, uint32_t chosen)
{
    if (o->quiet || nsel || o->all || !holds_all(o->format))
        return;
    char note[1024];
    size_t m = 0;
    unsigned left = 0;
    const char *name = "?";
    for (unsigned i = 0; i < st_reader_stream_count(r); i++) {
        const st_stream_info *s = st_reader_stream(r, i);
        if (s->id == chosen)
            name = s->name;
        else if (st_entry_is_memory(s->type)) {
            if (m < sizeof note - 1)
                m += (size_t)snprintf(note + m, sizeof note - m, "%s%s", left ? ", " : "", s->name);
            left++;
        }
    }
    if (left)
        cli_msg("%s: note: read sequentially, only stream '%s' was written as %s, not %s (from a regular file "
                "every memory stream is merged)", o->in_name, name, o->format, note);
}

typedef struct {
    st_index *ix;
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
} mctx;

static st_error cursor_next(void *arg, unsigned k, const uint8_t **e, uint64_t *index)
{
    mctx *c = arg;
    cursor *u = &c->cur[k];
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

/* Add stream si to the selection once; 0 if it was there already. */
static int add(unsigned *pick, unsigned *n, unsigned si)
{
    for (unsigned i = 0; i < *n; i++)
        if (pick[i] == si)
            return 0;
    pick[(*n)++] = si;
    return 1;
}

/* The streams asked for, in order: an exact name first, else a list split
 * at commas.  Returns an exit status (EXIT_OK). */
static int resolve(st_index *ix, const cat_merge_opts *o, unsigned *pick, unsigned *n)
{
    unsigned ns = st_index_stream_count(ix);
    *n = 0;
    if (nsel == 0) {
        for (unsigned i = 0; i < ns; i++)
            if (st_entry_is_memory(st_index_stream(ix, i)->type))
                add(pick, n, i);
        return EXIT_OK;
    }
    for (unsigned a = 0; a < nsel; a++) {
        int si = st_index_find_stream(ix, sel[a]);
        if (si >= 0) {
            if (!add(pick, n, (unsigned)si)) {
                cli_msg("stream '%s' is named twice", sel[a]);
                return EXIT_USAGE;
            }
            continue;
        }
        const char *s = sel[a];
        for (;;) {
            size_t l = strcspn(s, ",");
            char name[256];
            if (l == 0 || l >= sizeof name) {
                cli_msg("%s: no stream named '%s' (see --list)", o->in_name, sel[a]);
                return EXIT_DATA;
            }
            memcpy(name, s, l);
            name[l] = 0;
            si = st_index_find_stream(ix, name);
            if (si < 0) {
                cli_msg("%s: no stream named '%s' (see --list)", o->in_name, name);
                return EXIT_DATA;
            }
            if (!add(pick, n, (unsigned)si)) {
                cli_msg("stream '%s' is named twice", name);
                return EXIT_USAGE;
            }
            if (!s[l])
                break;
            s += l + 1;
        }
    }
    return EXIT_OK;
}

static st_error write_fd(void *arg, const void *buf, size_t n)
{
    return st_write_all(*(const int *)arg, buf, n);
}

int cat_merge(st_index *ix, const cat_merge_opts *o, int out_fd)
{
    int several = o->all || nsel > 1 || (nsel == 1 && strchr(sel[0], ',') && st_index_find_stream(ix, sel[0]) < 0);
    if (!several && !(nsel == 0 && holds_all(o->format)))
        return -1;
    unsigned ns = st_index_stream_count(ix), n = 0;
    unsigned *pick = calloc(ns + 1, sizeof *pick);
    if (!pick) {
        cli_msg("out of memory");
        return EXIT_DATA;
    }
    int rc = resolve(ix, o, pick, &n);
    if (rc == EXIT_OK && o->all)
        for (unsigned i = 0; i < ns; i++)
            if (st_entry_is_memory(st_index_stream(ix, i)->type))
                add(pick, &n, i);
    if (rc == EXIT_OK && n == 0) {
        cli_msg("%s: the container holds no memory stream to write as %s", o->in_name, o->format);
        rc = EXIT_DATA;
    }
    if (rc == EXIT_OK && n == 1 && !several) {
        free(pick);
        return -1; /* one stream after all: as it was */
    }
    if (rc == EXIT_OK && !is_merge_format(o->format)) {
        cli_msg("-F %s writes one stream; several streams are merged into lackey, din, xdin, csv or text",
                o->format);
        rc = EXIT_USAGE;
    }
    if (rc == EXIT_OK && o->range == CAT_RANGE_OTHER) {
        cli_msg("--entries and --time count within one stream; give several streams a --cycles range");
        rc = EXIT_USAGE;
    }
    for (unsigned i = 0; rc == EXIT_OK && i < n; i++) {
        const st_stream_info *s = st_index_stream(ix, pick[i]);
        if (!st_entry_is_memory(s->type)) {
            cli_msg("%s: stream '%s' of type %s cannot be written as %s", o->in_name, s->name, s->type_name,
                    o->format);
            rc = EXIT_USAGE;
        } else if (strcmp(o->format, "text") == 0 && owns_values(ix, s->id)) {
            /* the merge has no way to the values (st_export_merged) */
            cli_msg("%s: stream '%s' has wide values in a vblock stream; write it alone with -F text",
                    o->in_name, s->name);
            rc = EXIT_USAGE;
        } else if (o->range == CAT_RANGE_CYCLES && !st_index_keys_ordered(ix, pick[i])) {
            cli_msg("%s: the cycles of stream '%s' decrease between frames; --cycles needs non-decreasing cycles",
                    o->in_name, s->name);
            rc = EXIT_DATA;
        }
    }
    if (rc != EXIT_OK) {
        free(pick);
        return rc;
    }
    if (!o->quiet && (nsel == 0 || o->all)) {
        /* what the default leaves out, so that nothing goes missing unsaid */
        char note[1024];
        size_t m = 0;
        unsigned left = 0;
        for (unsigned i = 0; i < ns; i++) {
            int in = 0;
            for (unsigned k = 0; k < n; k++)
                in |= pick[k] == i;
            if (in)
                continue;
            const st_stream_info *s = st_index_stream(ix, i);
            if (m < sizeof note - 1)
                m += (size_t)snprintf(note + m, sizeof note - m, "%s%s (%s)", left ? ", " : "", s->name,
                                      s->type_name);
            left++;
        }
        if (left)
            cli_msg("%s: note: %u stream%s not written as %s: %s", o->in_name, left, left == 1 ? "" : "s",
                    o->format, note);
    }
    st_export_stream *es = calloc(n, sizeof *es);
    cursor *cur = calloc(n, sizeof *cur);
    st_diag d;
    st_diag_clear(&d);
    st_error e = es && cur ? ST_OK : ST_E_NOMEM;
    for (unsigned i = 0; e == ST_OK && i < n; i++) {
        const st_stream_info *s = st_index_stream(ix, pick[i]);
        es[i] = (st_export_stream){s->name, s->type, s->entry_size, s->header, s->header_len};
        cur[i].ix = ix;
        cur[i].si = pick[i];
        cur[i].nf = st_index_stream_frames(ix, pick[i]);
        cur[i].esz = s->entry_size;
        if (o->range == CAT_RANGE_CYCLES)
            cur[i].j = st_index_lower_key(ix, pick[i], o->lo);
        st_buf_init(&cur[i].buf, 0);
    }
    mctx c = {cur, o, &d};
    if (e == ST_OK) {
        if (o->verbose)
            cli_msg("%s: merging %u streams by cycle into %s", o->in_name, n, o->format);
        e = st_export_merged(o->format, es, n, cursor_next, &c, write_fd, &out_fd);
    }
    if (e != ST_OK)
        rc = cli_report(e, &d, e == ST_E_WRITE ? o->out_name : o->in_name);
    for (unsigned i = 0; cur && i < n; i++)
        st_buf_free(&cur[i].buf);
    free(cur);
    free(es);
    free(pick);
    return rc;
}
