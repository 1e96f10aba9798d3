/* cat_stats.c - simtrace-cat --stats (cat_stats.h). */
#define _POSIX_C_SOURCE 200809L
#include "cat_stats.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/entry.h"
#include "../svpc/svpc_stats.h"
#include "cli_util.h"

#define LINE_BITS 6  /* 64-byte cache lines */
#define PAGE_BITS 12 /* 4 KiB pages */
/* Distinct lines and pages are counted exactly up to this many each; past
 * it the count is a lower bound (said so), so memory stays bounded
 * (2 x 8 bytes x 2^22 slots at most) whatever the trace. */
#define DISTINCT_CAP (UINT32_C(1) << 21)
/* The slots of the sets alive at once, at most: a stream's two sets read
 * from a regular file (one stream at a time), or every stream's together
 * read from a pipe (all at once), so memory stays bounded however many
 * streams there are; a set refused slots counts no more keys (a lower
 * bound, said so). */
#define SLOT_BUDGET ((size_t)4 * DISTINCT_CAP)
#define SIZE_HIST 65 /* access sizes 0..64 bytes; larger ones counted together */

/* ---- a set of 64-bit keys (open addressing, linear probing) ---- */

typedef struct {
    uint64_t *slot; /* key + 1; 0 is empty */
    size_t cap, n;
    int full; /* reached DISTINCT_CAP or the budget: later keys not counted */
    size_t *left; /* the slots that the sets sharing this budget may still take */
} keyset;

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static st_error keyset_add(keyset *s, uint64_t k)
{
    if (s->full)
        return ST_OK;
    if (2 * (s->n + 1) > s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 1024;
        if (s->n >= DISTINCT_CAP || nc - s->cap > *s->left) {
            s->full = 1;
            return ST_OK;
        }
        *s->left -= nc - s->cap;
        uint64_t *ns = calloc(nc, sizeof *ns);
        if (!ns)
            return ST_E_NOMEM;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->slot[i])
                continue;
            size_t j = mix64(s->slot[i]) & (nc - 1);
            while (ns[j])
                j = (j + 1) & (nc - 1);
            ns[j] = s->slot[i];
        }
        free(s->slot);
        s->slot = ns;
        s->cap = nc;
    }
    uint64_t key = k + 1; /* k = UINT64_MAX >> bits at most: no wrap to 0 */
    size_t j = mix64(key) & (s->cap - 1);
    while (s->slot[j]) {
        if (s->slot[j] == key)
            return ST_OK;
        j = (j + 1) & (s->cap - 1);
    }
    s->slot[j] = key;
    s->n++;
    return ST_OK;
}

/* ---- one stream ---- */

typedef struct {
    uint64_t entries, stored, frames;
    keyset lines, pages;
    uint64_t sizes[SIZE_HIST + 1];
    svpc_pred_stats pred;
    /* where the bits go: cm2 frames by cm2's accounting; the others not */
    svpc_cost_stats cost;
    uint64_t cm2_stored;                 /* bytes of the cm2 frames */
    uint64_t other_frames, other_stored; /* frames of other encoders */
} stream_stats;

/* "read", "write" or NULL, from the stream's name: the importers and
 * bochs-trace name streams CPU.read, CPU.write (and .phys.read...), the
 * API's users likewise by convention. */
static const char *stream_kind(const char *name)
{
    const char *last = strrchr(name, '.');
    last = last ? last + 1 : name;
    if (strstr(last, "read") || strstr(last, "load"))
        return "read";
    if (strstr(last, "write") || strstr(last, "store"))
        return "write";
    return NULL;
}

static int is_memory(st_entry_type t)
{
    return t == ST_TYPE_D64 || t == ST_TYPE_D32 || t == ST_TYPE_M64 || t == ST_TYPE_M32;
}

/* The access size of entry e (d64, d32): the target's width with
 * fullSize, else the size field (as simtrace-cat -F text prints it). */
static uint64_t access_size(st_entry_type t, const st_entry *e)
{
    int wide = t == ST_TYPE_D64;
    if (e->meta16 & 1)
        return wide ? 8 : 4;
    return wide ? e->data >> 32 : (e->data >> 16) & 0xFFFF;
}

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0.0; }

/* Per frame, in JSON: entries, bytes, and each field's hit rate. */
static void json_frame(FILE *out, int first, const st_frame_ref *r, st_entry_type t, const svpc_pred_stats *p)
{
    fprintf(out, "%s{\"first_entry\": %" PRIu64 ", \"entries\": %" PRIu64 ", \"stored_bytes\": %" PRIu64, first ? "" : ", ",
            r->first_entry, r->count, r->size);
    if (is_memory(t)) {
        fputs(", \"hit_rate\": {", out);
        int k = 0;
        for (unsigned f = 0; f < SVPC_STATS_FIELDS; f++) {
            if (!svpc_stats_has_field(t, f))
                continue;
            fprintf(out, "%s\"%s\": %.6f", k++ ? ", " : "", svpc_stats_field_name(f), ratio(p->hits[f], p->coded[f]));
        }
        fputc('}', out);
    }
    fputc('}', out);
}

/* The parts of the stream's stored bits, in SVPC_COST_UNIT per bit: they
 * add up to stored bytes x 8 exactly (frames of other encoders count
 * whole, unsplit). */
static int64_t headers_units(const stream_stats *ss)
{
    return (int64_t)(ss->cm2_stored - ss->cost.payload_bytes) * 8 * SVPC_COST_UNIT;
}

static int64_t other_units(const stream_stats *ss) { return (int64_t)ss->other_stored * 8 * SVPC_COST_UNIT; }

static double per_entry(int64_t units, uint64_t entries)
{
    return entries ? (double)units / SVPC_COST_UNIT / (double)entries : 0.0;
}

static void print_split_text(FILE *out, const st_stream_info *s, const stream_stats *ss)
{
    const uint64_t n = ss->entries;
    fputs("  bits/entry by what they code (cm2's own costs): they add up to the stored size\n", out);
    fprintf(out, "  %-8s %9s %9s\n", "field", "ids", "misses");
    for (unsigned f = 0; f < SVPC_STATS_FIELDS; f++)
        if (svpc_stats_has_field(s->type, f))
            fprintf(out, "  %-8s %9.4f %9.4f\n", svpc_stats_field_name(f), per_entry((int64_t)ss->cost.ids[f], n),
                    per_entry((int64_t)ss->cost.misses[f], n));
    fprintf(out, "  %-52s %9.4f\n", "all fields after the ip as expected (a flag)", per_entry((int64_t)ss->cost.all_flag, n));
    fprintf(out, "  %-52s %9.4f\n", "frame headers (container bytes, not payload)", per_entry(headers_units(ss), n));
    fprintf(out, "  %-52s %9.4f\n", "coder rounding (range coder's flush and rounding)", per_entry(ss->cost.rounding, n));
    if (ss->other_frames)
        fprintf(out, "  frames of other encoders (%" PRIu64 " of %" PRIu64 ", split unavailable) %9.4f\n",
                ss->other_frames, ss->frames, per_entry(other_units(ss), n));
    fprintf(out, "  %-52s %9.4f\n", "total (stored bytes x 8 / entries)", ratio(8 * ss->stored, n));
}

static void print_text(FILE *out, const st_stream_info *s, const stream_stats *ss)
{
    fprintf(out, "stream %s (%s, encoder %s)\n", s->name, s->type_name,
            svpc_encoder_name((svpc_encoder)s->encoder) ? svpc_encoder_name((svpc_encoder)s->encoder) : "?");
    fprintf(out, "  entries %" PRIu64 ", frames %" PRIu64 ", raw bytes %" PRIu64 ", stored bytes %" PRIu64
                 ", %.3f bits/entry\n",
            ss->entries, ss->frames, ss->entries * s->entry_size, ss->stored, ratio(8 * ss->stored, ss->entries));
    if (!is_memory(s->type))
        return;
    fprintf(out, "  distinct cache lines (64 B) %s%zu, pages (4 KiB) %s%zu\n", ss->lines.full ? ">= " : "",
            ss->lines.n, ss->pages.full ? ">= " : "", ss->pages.n);
    const char *kind = stream_kind(s->name);
    if (kind)
        fprintf(out, "  %ss %" PRIu64 " (by the stream's name)\n", kind, ss->entries);
    if (s->type == ST_TYPE_D64 || s->type == ST_TYPE_D32) {
        fputs("  access sizes:", out);
        for (unsigned z = 0; z <= SIZE_HIST; z++)
            if (ss->sizes[z])
                fprintf(out, " %s%u: %" PRIu64, z == SIZE_HIST ? ">" : "", z == SIZE_HIST ? SIZE_HIST - 1 : z,
                        ss->sizes[z]);
        fputc('\n', out);
    }
    fprintf(out, "  %-8s %9s %9s %9s  %s\n", "field", "hit", "expected", "miss", "uses of predictor ids 0.. (last: miss)");
    for (unsigned f = 0; f < SVPC_STATS_FIELDS; f++) {
        const svpc_pred_stats *p = &ss->pred;
        if (!svpc_stats_has_field(s->type, f))
            continue;
        fprintf(out, "  %-8s %8.2f%% %8.2f%% %8.2f%% ", svpc_stats_field_name(f), 100 * ratio(p->hits[f], p->coded[f]),
                100 * ratio(p->expected[f], p->coded[f]), 100 * ratio(p->coded[f] - p->hits[f], p->coded[f]));
        for (unsigned id = 0; id <= svpc_stats_nslots(f); id++)
            fprintf(out, " %" PRIu64, p->ids[f][id]);
        fputc('\n', out);
    }
    print_split_text(out, s, ss);
}

static void print_json(FILE *out, const st_stream_info *s, const stream_stats *ss)
{
    fputs("{\"name\": ", out);
    cli_json_string(out, s->name);
    fputs(", \"type\": ", out);
    cli_json_string(out, s->type_name);
    const char *en = svpc_encoder_name((svpc_encoder)s->encoder);
    fputs(", \"encoder\": ", out);
    cli_json_string(out, en ? en : "?");
    fprintf(out, ", \"entries\": %" PRIu64 ", \"frames\": %" PRIu64 ", \"raw_bytes\": %" PRIu64
                 ", \"stored_bytes\": %" PRIu64 ", \"bits_per_entry\": %.6f",
            ss->entries, ss->frames, ss->entries * s->entry_size, ss->stored, ratio(8 * ss->stored, ss->entries));
    if (!is_memory(s->type))
        return;
    fprintf(out, ", \"distinct_lines\": %zu, \"distinct_pages\": %zu, \"distinct_exact\": %s", ss->lines.n,
            ss->pages.n, ss->lines.full || ss->pages.full ? "false" : "true");
    const char *kind = stream_kind(s->name);
    fputs(", \"kind\": ", out);
    if (kind)
        cli_json_string(out, kind);
    else
        fputs("null", out);
    fprintf(out, ", \"reads\": %" PRIu64 ", \"writes\": %" PRIu64, kind && kind[0] == 'r' ? ss->entries : 0,
            kind && kind[0] == 'w' ? ss->entries : 0);
    if (s->type == ST_TYPE_D64 || s->type == ST_TYPE_D32) {
        fputs(", \"sizes\": {", out);
        int k = 0;
        for (unsigned z = 0; z <= SIZE_HIST; z++)
            if (ss->sizes[z])
                fprintf(out, "%s\"%s%u\": %" PRIu64, k++ ? ", " : "", z == SIZE_HIST ? ">" : "",
                        z == SIZE_HIST ? SIZE_HIST - 1 : z, ss->sizes[z]);
        fputc('}', out);
    }
    fputs(", \"fields\": {", out);
    int k = 0;
    for (unsigned f = 0; f < SVPC_STATS_FIELDS; f++) {
        const svpc_pred_stats *p = &ss->pred;
        if (!svpc_stats_has_field(s->type, f))
            continue;
        fprintf(out, "%s\"%s\": {\"hit_rate\": %.6f, \"expected_rate\": %.6f, \"misses\": %" PRIu64 ", \"ids\": [",
                k++ ? ", " : "", svpc_stats_field_name(f), ratio(p->hits[f], p->coded[f]),
                ratio(p->expected[f], p->coded[f]), p->coded[f] - p->hits[f]);
        for (unsigned id = 0; id <= svpc_stats_nslots(f); id++)
            fprintf(out, "%s%" PRIu64, id ? ", " : "", p->ids[f][id]);
        fprintf(out, "], \"ids_bits_per_entry\": %.6f, \"misses_bits_per_entry\": %.6f}",
                per_entry((int64_t)ss->cost.ids[f], ss->entries), per_entry((int64_t)ss->cost.misses[f], ss->entries));
    }
    fputc('}', out);
    /* the same split exactly, in integers */
    fprintf(out, ", \"bits\": {\"unit\": %u, \"stored\": %" PRIu64 ", \"ids\": {", SVPC_COST_UNIT,
            ss->stored * 8 * SVPC_COST_UNIT);
    k = 0;
    for (unsigned f = 0; f < SVPC_STATS_FIELDS; f++)
        if (svpc_stats_has_field(s->type, f))
            fprintf(out, "%s\"%s\": %" PRIu64, k++ ? ", " : "", svpc_stats_field_name(f), ss->cost.ids[f]);
    fputs("}, \"misses\": {", out);
    k = 0;
    for (unsigned f = 0; f < SVPC_STATS_FIELDS; f++)
        if (svpc_stats_has_field(s->type, f))
            fprintf(out, "%s\"%s\": %" PRIu64, k++ ? ", " : "", svpc_stats_field_name(f), ss->cost.misses[f]);
    fprintf(out,
            "}, \"all_expected_flag\": %" PRIu64 ", \"frame_headers\": %" PRId64 ", \"coder_rounding\": %" PRId64
            ", \"other_encoders\": %" PRId64 ", \"other_encoder_frames\": %" PRIu64 ", \"payload_bytes\": %" PRIu64 "}",
            ss->cost.all_flag, headers_units(ss), ss->cost.rounding, other_units(ss), ss->other_frames,
            ss->cost.payload_bytes);
}

/* Frame r of stream s, whose entries (memory streams) are decoded at
 * entries: its sizes, and for memory streams the predictors' figures,
 * where its bits go, its lines, pages and access sizes (and, for JSON,
 * its own figures). */
static st_error frame_pass(const st_stream_info *s, const st_frame_ref *r, const uint8_t *entries,
                           svpc_stats_ctx *sc, stream_stats *ss, FILE *json)
{
    const int first = ss->frames == 0, sized = s->type == ST_TYPE_D64 || s->type == ST_TYPE_D32;
    ss->frames++;
    ss->stored += r->size;
    ss->entries += r->count;
    if (!is_memory(s->type)) {
        if (json)
            json_frame(json, first, r, s->type, NULL);
        return ST_OK;
    }
    svpc_pred_stats fp;
    memset(&fp, 0, sizeof fp);
    /* one pass through the codec: the predictors' figures, and for a cm2
     * frame where its bits go */
    RETURN_IF_ERROR(svpc_stats_frame(sc, (svpc_encoder)r->encoder, s->type, entries, (size_t)r->count, &fp,
                                     &ss->cost));
    ss->pred.entries += fp.entries;
    for (unsigned f = 0; f < SVPC_STATS_FIELDS; f++) {
        ss->pred.coded[f] += fp.coded[f];
        ss->pred.hits[f] += fp.hits[f];
        ss->pred.expected[f] += fp.expected[f];
        for (unsigned id = 0; id < SVPC_STATS_IDS; id++)
            ss->pred.ids[f][id] += fp.ids[f][id];
    }
    if (r->encoder == SVPC_ENC_CM2) {
        ss->cm2_stored += r->size;
    } else {
        ss->other_frames++;
        ss->other_stored += r->size;
    }
    if (json)
        json_frame(json, first, r, s->type, &fp);
    for (uint64_t i = 0; i < r->count; i++) {
        st_entry en;
        st_entry_load(s->type, entries + i * s->entry_size, &en);
        RETURN_IF_ERROR(keyset_add(&ss->lines, en.addr >> LINE_BITS));
        RETURN_IF_ERROR(keyset_add(&ss->pages, en.addr >> PAGE_BITS));
        if (sized) {
            uint64_t z = access_size(s->type, &en);
            ss->sizes[z < SIZE_HIST ? z : SIZE_HIST]++;
        }
    }
    return ST_OK;
}

/* One stream's statistics while they are gathered, and, for JSON, its
 * frames' figures: the summary needs the whole pass, the frames are
 * printed during it, so they go first to a memory stream. */
typedef struct {
    st_stream_info info;
    stream_stats *ss;
    FILE *frames;
    char *fbuf;
    size_t flen;
} stream_out;

static st_error out_begin(stream_out *o, const st_stream_info *s, int json, size_t *slots_left)
{
    memset(o, 0, sizeof *o);
    o->info = *s;
    if (!(o->ss = calloc(1, sizeof *o->ss)))
        return ST_E_NOMEM;
    o->ss->lines.left = o->ss->pages.left = slots_left;
    if (json) {
        if (!(o->frames = open_memstream(&o->fbuf, &o->flen)))
            return ST_E_NOMEM;
        fputs(", \"frame_stats\": [", o->frames);
    }
    return ST_OK;
}

/* Print o (after `printed` streams) if print, and free it. */
static void out_end(FILE *out, stream_out *o, int json, int print, unsigned printed)
{
    if (o->frames) {
        fputc(']', o->frames);
        fclose(o->frames);
    }
    if (print && o->ss) {
        if (json) {
            fputs(printed ? ",\n  " : "\n  ", out);
            print_json(out, &o->info, o->ss);
            fwrite(o->fbuf, 1, o->flen, out);
            fputc('}', out);
        } else {
            print_text(out, &o->info, o->ss);
        }
    }
    free(o->fbuf);
    if (o->ss) {
        free(o->ss->lines.slot);
        free(o->ss->pages.slot);
        free(o->ss);
    }
    memset(o, 0, sizeof *o);
}

static void json_begin(FILE *out, const char *file)
{
    fputs("{\"file\": ", out);
    cli_json_string(out, file);
    fputs(", \"streams\": [", out);
}

static int stats_end(FILE *out, int json)
{
    if (json)
        fputs("\n]}\n", out);
    return fflush(out) == 0 ? EXIT_OK : cli_report(ST_E_WRITE, NULL, "(stdout)");
}

/* Decode every frame of stream si of ix, through o. */
static st_error stream_pass(st_index *ix, unsigned si, svpc_stats_ctx *sc, stream_out *o, st_diag *d)
{
    const st_stream_info *s = st_index_stream(ix, si);
    st_buf buf;
    st_buf_init(&buf, 0);
    st_error e = ST_OK;
    for (uint64_t j = 0; j < st_index_stream_frames(ix, si) && e == ST_OK; j++) {
        const st_frame_ref *r = st_index_stream_frame(ix, si, j);
        st_diag_clear(d);
        if (is_memory(s->type) && (e = st_index_decode_frame(ix, r->ordinal, &buf, d)) != ST_OK)
            break;
        e = frame_pass(s, r, buf.data, sc, o->ss, o->frames);
    }
    st_buf_free(&buf);
    return e;
}

int cat_stats(st_index *ix, const char *file, const char *name, int json, FILE *out)
{
    unsigned n = st_index_stream_count(ix), lo = 0, hi = n;
    if (name) {
        int si = st_index_find_stream(ix, name);
        if (si < 0) {
            cli_msg("%s: no stream named '%s' (see --list)", file, name);
            return EXIT_DATA;
        }
        lo = (unsigned)si;
        hi = lo + 1;
    }
    svpc_stats_ctx *sc;
    st_error e = svpc_stats_new(&sc);
    if (e != ST_OK)
        return cli_report(e, NULL, file);
    st_diag d;
    st_diag_clear(&d);
    if (json)
        json_begin(out, file);
    for (unsigned i = lo; i < hi && e == ST_OK; i++) {
        stream_out o;
        size_t left = SLOT_BUDGET;
        if ((e = out_begin(&o, st_index_stream(ix, i), json, &left)) == ST_OK)
            e = stream_pass(ix, i, sc, &o, &d);
        out_end(out, &o, json, e == ST_OK, i - lo);
    }
    svpc_stats_free(sc);
    if (e != ST_OK)
        return cli_report(e, &d, file);
    return stats_end(out, json);
}

/* ---- a pipe: every frame in file order ---- */

typedef struct {
    const char *name; /* -s NAME, or NULL */
    int json;
    svpc_stats_ctx *sc;
    stream_out *s; /* the streams seen, in file order */
    unsigned n, cap;
    st_buf buf;
    st_diag *d;
    st_error err; /* of on_stream, which cannot return one */
    size_t slots_left; /* of the sets of every stream (SLOT_BUDGET) */
} seq_stats;

static void seq_on_stream(void *arg, const st_stream_info *s)
{
    seq_stats *q = arg;
    if (q->err != ST_OK)
        return;
    if (q->n == q->cap) {
        unsigned nc = q->cap ? 2 * q->cap : 8;
        stream_out *ns = realloc(q->s, nc * sizeof *ns);
        if (!ns) {
            q->err = ST_E_NOMEM;
            return;
        }
        q->s = ns;
        q->cap = nc;
    }
    q->err = out_begin(&q->s[q->n++], s, q->json, &q->slots_left);
}

static st_error seq_frame(void *arg, const st_stream_info *s, const st_frame_ref *f, const st_raw_frame *raw)
{
    seq_stats *q = arg;
    RETURN_IF_ERROR(q->err);
    if (q->name && strcmp(s->name, q->name) != 0)
        return ST_OK;
    stream_out *o = NULL;
    for (unsigned i = 0; i < q->n && !o; i++)
        if (q->s[i].info.id == s->id)
            o = &q->s[i];
    if (!o)
        return st_diag_set(q->d, ST_E_INTERNAL, "frame of stream %s before its descriptor", s->name);
    if (is_memory(s->type))
        RETURN_IF_ERROR(st_raw_frame_decode(s, f, raw, &q->buf, q->d));
    return frame_pass(s, f, q->buf.data, q->sc, o->ss, o->frames);
}

int cat_stats_pipe(int fd, const char *file, const char *name, int json, unsigned threads, int ignore_check,
                   uint64_t memlimit, FILE *out)
{
    st_diag d;
    st_diag_clear(&d);
    seq_stats q = {.name = name, .json = json, .d = &d, .err = ST_OK, .slots_left = SLOT_BUDGET};
    st_buf_init(&q.buf, 0);
    st_error e = svpc_stats_new(&q.sc);
    if (e != ST_OK)
        return cli_report(e, NULL, file);
    st_read_opts ro = {.threads = threads, .ignore_check = ignore_check, .memlimit = memlimit,
                       .frame_sink = seq_frame, .frame_arg = &q, .on_stream = seq_on_stream, .stream_arg = &q};
    st_reader *r;
    e = st_reader_new(&r, fd, &ro, &d);
    if (e == ST_OK) {
        e = st_reader_read_all(r, NULL, NULL, &d);
        st_reader_free(r);
    }
    if (e == ST_OK)
        e = q.err;
    int found = !name;
    for (unsigned i = 0; i < q.n; i++)
        found |= name && strcmp(q.s[i].info.name, name) == 0;
    const int missing = e == ST_OK && !found;
    if (missing)
        cli_msg("%s: no stream named '%s' (see --list)", file, name);
    else if (e == ST_OK && json)
        json_begin(out, file);
    unsigned printed = 0;
    for (unsigned i = 0; i < q.n; i++) {
        const int print = e == ST_OK && !missing && (!name || strcmp(q.s[i].info.name, name) == 0);
        out_end(out, &q.s[i], json, print, printed);
        printed += print;
    }
    free(q.s);
    st_buf_free(&q.buf);
    svpc_stats_free(q.sc);
    if (missing)
        return EXIT_DATA;
    if (e != ST_OK)
        return cli_report(e, &d, file);
    return stats_end(out, json);
}
