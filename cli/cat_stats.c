/* cat_stats.c - simtrace-cat --stats (cat_stats.h): the public API's
 * statistics (simtrace_stats_*), printed as text or JSON. */
#define _POSIX_C_SOURCE 200809L
#include "cat_stats.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"

#define FIELDS SIMTRACE_STATS_FIELDS
#define SIZE_HIST (SIMTRACE_STATS_SIZES - 1) /* the last bin: sizes above 64 */
#define COST_UNIT SIMTRACE_STATS_COST_UNIT

static int is_memory(uint32_t t)
{
    return t == SIMTRACE_TYPE_D64 || t == SIMTRACE_TYPE_D32 || t == SIMTRACE_TYPE_M64 || t == SIMTRACE_TYPE_M32;
}

static int has_field(const simtrace_stream_stats *ss, unsigned f) { return ss->fields >> f & 1; }

static const char *kind_name(uint32_t kind)
{
    return kind == SIMTRACE_STATS_KIND_READ ? "read" : kind == SIMTRACE_STATS_KIND_WRITE ? "write" : NULL;
}

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0.0; }

/* Per frame, in JSON: entries, bytes, and each field's hit rate. */
static void json_frame(FILE *out, int first, const simtrace_frame_stats *f)
{
    fprintf(out, "%s{\"first_entry\": %" PRIu64 ", \"entries\": %" PRIu64 ", \"stored_bytes\": %" PRIu64, first ? "" : ", ",
            f->first_entry, f->entries, f->stored_bytes);
    if (f->transform != SIMTRACE_STATS_TRANSFORM_NONE)
        fprintf(out, ", \"transform\": %s", f->transform == SIMTRACE_STATS_TRANSFORM_ON ? "true" : "false");
    if (f->fields) {
        fputs(", \"hit_rate\": {", out);
        int k = 0;
        for (unsigned i = 0; i < FIELDS; i++) {
            if (!(f->fields >> i & 1))
                continue;
            fprintf(out, "%s\"%s\": %.6f", k++ ? ", " : "", simtrace_stats_field_name(i),
                    ratio(f->pred.hits[i], f->pred.coded[i]));
        }
        fputc('}', out);
    }
    fputc('}', out);
}

static double per_entry(int64_t units, uint64_t entries)
{
    return entries ? (double)units / COST_UNIT / (double)entries : 0.0;
}

static void print_split_text(FILE *out, const simtrace_stream_stats *ss)
{
    const uint64_t n = ss->entries;
    fputs("  bits/entry by what they code (cm2's own costs): they add up to the stored size\n", out);
    fprintf(out, "  %-8s %9s %9s\n", "field", "ids", "misses");
    for (unsigned f = 0; f < FIELDS; f++)
        if (has_field(ss, f))
            fprintf(out, "  %-8s %9.4f %9.4f\n", simtrace_stats_field_name(f), per_entry((int64_t)ss->bits_ids[f], n),
                    per_entry((int64_t)ss->bits_misses[f], n));
    fprintf(out, "  %-52s %9.4f\n", "all fields after the ip as expected (a flag)", per_entry((int64_t)ss->bits_all_flag, n));
    fprintf(out, "  %-52s %9.4f\n", "frame headers (container bytes, not payload)", per_entry(ss->bits_headers, n));
    fprintf(out, "  %-52s %9.4f\n", "coder rounding (range coder's flush and rounding)", per_entry(ss->bits_rounding, n));
    if (ss->other_frames)
        fprintf(out, "  frames of other encoders (%" PRIu64 " of %" PRIu64 ", split unavailable) %9.4f\n",
                ss->other_frames, ss->frames, per_entry(ss->bits_other, n));
    fprintf(out, "  %-52s %9.4f\n", "total (stored bytes x 8 / entries)", ratio(8 * ss->stored_bytes, n));
}

static void print_text(FILE *out, const simtrace_stream_info *s, const simtrace_stream_stats *ss)
{
    fprintf(out, "stream %s (%s, encoder %s)\n", s->name, s->type_name, ss->encoder_name);
    fprintf(out, "  entries %" PRIu64 ", frames %" PRIu64 ", raw bytes %" PRIu64 ", stored bytes %" PRIu64
                 ", %.3f bits/entry\n",
            ss->entries, ss->frames, ss->raw_bytes, ss->stored_bytes, ratio(8 * ss->stored_bytes, ss->entries));
    if (!is_memory(s->type))
        return;
    fprintf(out, "  distinct cache lines (64 B) %s%" PRIu64 ", pages (4 KiB) %s%" PRIu64 "\n",
            ss->lines_exact ? "" : ">= ", ss->distinct_lines, ss->pages_exact ? "" : ">= ", ss->distinct_pages);
    const char *kind = kind_name(ss->kind);
    if (kind)
        fprintf(out, "  %ss %" PRIu64 " (by the stream's name)\n", kind, ss->entries);
    uint64_t xf_frames = ss->transform_on_frames + ss->transform_off_frames;
    if (xf_frames)
        fprintf(out, "  frames coded with the transform of recent data values: %" PRIu64 " of %" PRIu64 "%s\n",
                ss->transform_on_frames, xf_frames, xf_frames < ss->frames ? " (cmx and mix frames)" : "");
    if (s->type == SIMTRACE_TYPE_D64 || s->type == SIMTRACE_TYPE_D32) {
        fputs("  access sizes:", out);
        for (unsigned z = 0; z <= SIZE_HIST; z++)
            if (ss->sizes[z])
                fprintf(out, " %s%u: %" PRIu64, z == SIZE_HIST ? ">" : "", z == SIZE_HIST ? SIZE_HIST - 1 : z,
                        ss->sizes[z]);
        fputc('\n', out);
    }
    fprintf(out, "  %-8s %9s %9s %9s  %s\n", "field", "hit", "expected", "miss", "uses of predictor ids 0.. (last: miss)");
    for (unsigned f = 0; f < FIELDS; f++) {
        const simtrace_stats_pred *p = &ss->pred;
        if (!has_field(ss, f))
            continue;
        fprintf(out, "  %-8s %8.2f%% %8.2f%% %8.2f%% ", simtrace_stats_field_name(f),
                100 * ratio(p->hits[f], p->coded[f]), 100 * ratio(p->expected[f], p->coded[f]),
                100 * ratio(p->coded[f] - p->hits[f], p->coded[f]));
        for (unsigned id = 0; id <= simtrace_stats_field_slots(f); id++)
            fprintf(out, " %" PRIu64, p->ids[f][id]);
        fputc('\n', out);
    }
    print_split_text(out, ss);
}

/* A JSON object of one integer per field the stream carries. */
static void json_per_field(FILE *out, const simtrace_stream_stats *ss, const uint64_t *v)
{
    int k = 0;
    for (unsigned f = 0; f < FIELDS; f++)
        if (has_field(ss, f))
            fprintf(out, "%s\"%s\": %" PRIu64, k++ ? ", " : "", simtrace_stats_field_name(f), v[f]);
}

static void print_json(FILE *out, const simtrace_stream_info *s, const simtrace_stream_stats *ss)
{
    fputs("{\"name\": ", out);
    cli_json_string(out, s->name);
    fputs(", \"type\": ", out);
    cli_json_string(out, s->type_name);
    fputs(", \"encoder\": ", out);
    cli_json_string(out, ss->encoder_name);
    fprintf(out, ", \"entries\": %" PRIu64 ", \"frames\": %" PRIu64 ", \"raw_bytes\": %" PRIu64
                 ", \"stored_bytes\": %" PRIu64 ", \"bits_per_entry\": %.6f",
            ss->entries, ss->frames, ss->raw_bytes, ss->stored_bytes, ratio(8 * ss->stored_bytes, ss->entries));
    if (!is_memory(s->type))
        return;
    fprintf(out, ", \"distinct_lines\": %" PRIu64 ", \"distinct_pages\": %" PRIu64 ", \"distinct_exact\": %s",
            ss->distinct_lines, ss->distinct_pages, ss->lines_exact && ss->pages_exact ? "true" : "false");
    const char *kind = kind_name(ss->kind);
    fputs(", \"kind\": ", out);
    if (kind)
        cli_json_string(out, kind);
    else
        fputs("null", out);
    fprintf(out, ", \"reads\": %" PRIu64 ", \"writes\": %" PRIu64,
            ss->kind == SIMTRACE_STATS_KIND_READ ? ss->entries : 0, ss->kind == SIMTRACE_STATS_KIND_WRITE ? ss->entries : 0);
    fprintf(out, ", \"transform_on_frames\": %" PRIu64 ", \"transform_off_frames\": %" PRIu64,
            ss->transform_on_frames, ss->transform_off_frames);
    if (s->type == SIMTRACE_TYPE_D64 || s->type == SIMTRACE_TYPE_D32) {
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
    for (unsigned f = 0; f < FIELDS; f++) {
        const simtrace_stats_pred *p = &ss->pred;
        if (!has_field(ss, f))
            continue;
        fprintf(out, "%s\"%s\": {\"hit_rate\": %.6f, \"expected_rate\": %.6f, \"misses\": %" PRIu64 ", \"ids\": [",
                k++ ? ", " : "", simtrace_stats_field_name(f), ratio(p->hits[f], p->coded[f]),
                ratio(p->expected[f], p->coded[f]), p->coded[f] - p->hits[f]);
        for (unsigned id = 0; id <= simtrace_stats_field_slots(f); id++)
            fprintf(out, "%s%" PRIu64, id ? ", " : "", p->ids[f][id]);
        fprintf(out, "], \"ids_bits_per_entry\": %.6f, \"misses_bits_per_entry\": %.6f}",
                per_entry((int64_t)ss->bits_ids[f], ss->entries), per_entry((int64_t)ss->bits_misses[f], ss->entries));
    }
    fputc('}', out);
    /* the same split exactly, in integers */
    fprintf(out, ", \"bits\": {\"unit\": %u, \"stored\": %" PRIu64 ", \"ids\": {", COST_UNIT,
            ss->stored_bytes * 8 * COST_UNIT);
    json_per_field(out, ss, ss->bits_ids);
    fputs("}, \"misses\": {", out);
    json_per_field(out, ss, ss->bits_misses);
    fprintf(out,
            "}, \"all_expected_flag\": %" PRIu64 ", \"frame_headers\": %" PRId64 ", \"coder_rounding\": %" PRId64
            ", \"other_encoders\": %" PRId64 ", \"other_encoder_frames\": %" PRIu64 ", \"payload_bytes\": %" PRIu64 "}",
            ss->bits_all_flag, ss->bits_headers, ss->bits_rounding, ss->bits_other, ss->other_frames, ss->payload_bytes);
}

/* One stream's output while its frames come: for JSON, its frames'
 * figures go to a memory stream, printed after the stream's summary,
 * which needs all of them. */
typedef struct {
    int chosen, printed;
    FILE *frames;
    char *fbuf;
    size_t flen;
    uint64_t nframes;
} stream_out;

typedef struct {
    FILE *out;
    const char *file;
    int json;
    simtrace_reader *r;
    simtrace_stats *st;
    stream_out **s;     /* each apart: its memory stream holds &fbuf and
                           &flen, which must not move when streams come */
    uint32_t n;
    unsigned printed; /* streams printed so far */
} stats_run;

static void json_begin(FILE *out, const char *file)
{
    fputs("{\"file\": ", out);
    cli_json_string(out, file);
    fputs(", \"streams\": [", out);
}

/* Print the chosen streams from the first not printed on, while their
 * figures are final. */
static void print_complete(stats_run *q)
{
    for (uint32_t i = 0; i < q->n; i++) {
        stream_out *o = q->s[i];
        simtrace_stream_stats ss;
        simtrace_stream_info info;
        if (!o->chosen || o->printed)
            continue;
        if (simtrace_stats_stream(q->st, i, &ss) != SIMTRACE_OK || !ss.complete ||
            simtrace_reader_stream_info(q->r, i, &info) != SIMTRACE_OK)
            return;
        o->printed = 1;
        if (q->json) {
            fputs(q->printed++ ? ",\n  " : "\n  ", q->out);
            print_json(q->out, &info, &ss);
            fputs(", \"frame_stats\": [", q->out);
            if (o->frames) {
                fclose(o->frames);
                o->frames = NULL;
                fwrite(o->fbuf, 1, o->flen, q->out);
            }
            fputs("]}", q->out);
        } else {
            print_text(q->out, &info, &ss);
        }
        free(o->fbuf);
        o->fbuf = NULL;
    }
}

/* q->s covers the reader's streams known so far. */
static int grow(stats_run *q)
{
    uint32_t n = 0;
    simtrace_reader_stream_count(q->r, &n);
    if (n <= q->n)
        return 0;
    stream_out **ns = realloc(q->s, n * sizeof *ns);
    if (!ns)
        return -1;
    q->s = ns;
    for (; q->n < n; q->n++) {
        simtrace_stream_stats ss;
        if (!(ns[q->n] = calloc(1, sizeof **ns)))
            return -1;
        ns[q->n]->chosen = simtrace_stats_stream(q->st, q->n, &ss) == SIMTRACE_OK;
    }
    return 0;
}

/* Every frame's figures; the streams printed as they are final. */
static simtrace_error run(stats_run *q)
{
    int random = simtrace_reader_random_access(q->r) == 1;
    if (random && q->json)
        json_begin(q->out, q->file);
    for (;;) {
        simtrace_frame_stats f;
        uint32_t got;
        simtrace_error e = simtrace_stats_next(q->st, &f, &got);
        if (e == SIMTRACE_OK && grow(q) != 0)
            e = SIMTRACE_E_NOMEM;
        if (e != SIMTRACE_OK || !got) {
            if (e == SIMTRACE_OK && !random && q->json)
                json_begin(q->out, q->file);
            if (e == SIMTRACE_OK || random)
                print_complete(q);
            return e;
        }
        if (random)
            print_complete(q);
        stream_out *o = q->s[f.stream];
        if (q->json) {
            if (!o->frames && !(o->frames = open_memstream(&o->fbuf, &o->flen)))
                return SIMTRACE_E_NOMEM;
            json_frame(o->frames, o->nframes == 0, &f);
        }
        o->nframes++;
    }
}

/* The exit status of e, after its message (msg: the library's, or ""). */
static int failure(simtrace_error e, const char *msg, const char *file, const char *name)
{
    if (e == SIMTRACE_E_NOT_FOUND) {
        cli_msg("%s: no stream named '%s' (see --list)", file, name);
        return EXIT_DATA;
    }
    if (msg[0]) {
        cli_msg("%s: %s", file, msg);
        return e == SIMTRACE_E_USAGE ? EXIT_USAGE : EXIT_DATA;
    }
    return cli_report_place(e, NULL, file);
}

int cat_stats(int fd, const char *file, const char *name, int json, const simtrace_read_params *p, FILE *out)
{
    stats_run q = {.out = out, .file = file, .json = json};
    simtrace_error e = simtrace_reader_open_fd(&q.r, fd, p);
    int rc = EXIT_OK;
    if (e == SIMTRACE_OK && (e = simtrace_stats_open(&q.st, q.r, name)) == SIMTRACE_OK)
        e = run(&q);
    if (e != SIMTRACE_OK)
        rc = failure(e, q.st ? simtrace_stats_message(q.st) : "", file, name);
    for (uint32_t i = 0; i < q.n; i++) {
        if (q.s[i]->frames)
            fclose(q.s[i]->frames);
        free(q.s[i]->fbuf);
        free(q.s[i]);
    }
    free(q.s);
    simtrace_stats_free(q.st);
    simtrace_reader_free(q.r);
    if (rc != EXIT_OK)
        return rc;
    if (json)
        fputs("\n]}\n", out);
    return fflush(out) == 0 ? EXIT_OK : cli_report_place(SIMTRACE_E_WRITE, NULL, "(stdout)");
}
