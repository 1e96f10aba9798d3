/*
 * bochs_count - test driver of the Bochs importer: reads a Bochs debugger
 * log on stdin (or FILE), prints each stream with its entry count, the
 * import statistics and the speed.  Stands in for `simtrace-pack --from
 * bochs` in tests and measurements until that program exists.
 *
 * Usage: bochs-count [--from bochs] [-o OUT] [-v] [-k|--skip-bad] [-p PREFIX] [-d] [FILE|-]
 *   -k  skip malformed lines (skip_bad)   -d  dump every entry as text
 *   -o  write the summary to OUT instead of stdout
 * --from, -o and --skip-bad take simtrace-pack's spelling, so
 * scripts/bochs-trace can run it in simtrace-pack's place
 * (BOCHS_TRACE_PACK=build/tests/bochs-count).
 * Exit status: 0 ok, 1 import error, 2 usage.
 */
#include "../../formats/import_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAXS 64

typedef struct {
    char name[128];
    st_entry_type type;
    uint32_t owner;
    uint64_t count;
} dstream;

typedef struct {
    dstream s[MAXS];
    uint32_t n;
    int dump;
} dsink;

static st_error add(void *arg, const st_stream_decl *decl, uint32_t *sid)
{
    dsink *k = arg;
    if (k->n == MAXS)
        return ST_E_TOO_LARGE;
    dstream *s = &k->s[k->n];
    snprintf(s->name, sizeof s->name, "%s", decl->name);
    s->type = decl->type;
    s->owner = decl->owner;
    *sid = k->n++;
    return ST_OK;
}

static st_error append(void *arg, uint32_t sid, const void *entries, size_t n)
{
    dsink *k = arg;
    if (sid >= k->n)
        return ST_E_BAD_STREAM;
    dstream *s = &k->s[sid];
    const uint8_t *p = entries;
    size_t es = st_entry_size(s->type);
    for (size_t i = 0; k->dump && i < n; i++, p += es) {
        printf("%s %llu:", s->name, (unsigned long long)(s->count + i));
        if (s->type == ST_TYPE_EVENT)
            printf(" cycle=%llu kind=%llu ip=0x%llx vector=0x%x error=0x%x\n",
                   (unsigned long long)(st_load64(p) & ST_CYCLE_MASK), (unsigned long long)(st_load64(p) >> 48),
                   (unsigned long long)st_load64(p + 8), st_load32(p + 16), st_load32(p + 20));
        else if (s->type == ST_TYPE_VBLOCK) {
            printf(" key=0x%016llx bytes=", (unsigned long long)st_load64(p));
            for (int b = 0; b < 24; b++)
                printf("%02x", p[8 + b]);
            printf("\n");
        } else
            printf(" cycle=%llu full=%llu ip=0x%llx addr=0x%llx data=0x%llx\n",
                   (unsigned long long)(st_load64(p) & ST_CYCLE_MASK), (unsigned long long)(st_load64(p) >> 48),
                   (unsigned long long)st_load64(p + 8), (unsigned long long)st_load64(p + 16),
                   (unsigned long long)st_load64(p + 24));
    }
    s->count += n;
    return ST_OK;
}

static void warn(void *arg, const st_diag *d)
{
    (void)arg;
    fprintf(stderr, "bochs-count: line %llu: skipped: %s\n", (unsigned long long)d->line, d->detail);
}

int main(int argc, char **argv)
{
    st_import_opts o = {.warn = warn};
    static dsink k;
    const char *file = NULL, *out = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-k") == 0 || strcmp(a, "--skip-bad") == 0)
            o.skip_bad = 1;
        else if (strcmp(a, "-d") == 0)
            k.dump = 1;
        else if (strcmp(a, "-v") == 0 || strcmp(a, "-f") == 0)
            ; /* the speed line is always printed; OUT is always replaced */
        else if (strcmp(a, "-p") == 0 && i + 1 < argc)
            o.prefix = argv[++i];
        else if (strcmp(a, "-o") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(a, "--from") == 0 && i + 1 < argc) {
            if (strcmp(argv[++i], "bochs") != 0) {
                fprintf(stderr, "bochs-count: only --from bochs\n");
                return 2;
            }
        } else if ((a[0] != '-' || strcmp(a, "-") == 0) && !file)
            file = a;
        else {
            fprintf(stderr, "usage: bochs-count [--from bochs] [-o OUT] [-v] [-k|--skip-bad] [-p PREFIX] [-d] [FILE|-]\n");
            return 2;
        }
    }
    if (out && !freopen(out, "w", stdout)) {
        perror(out);
        return 1;
    }
    int fd = 0;
    if (file && strcmp(file, "-") != 0) {
        fd = open(file, O_RDONLY);
        if (fd < 0) {
            perror(file);
            return 1;
        }
    }
    st_import_sink sink = {&k, add, append, NULL};
    st_import_stats st;
    st_diag d;
    st_diag_clear(&d);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    st_error e = st_import_bochs(fd, &o, &sink, &st, &d);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double sec = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    for (uint32_t i = 0; i < k.n; i++)
        printf("stream %u %s %s owner=%d entries=%llu\n", i, k.s[i].name, st_entry_name(k.s[i].type),
               k.s[i].owner == UINT32_MAX ? -1 : (int)k.s[i].owner, (unsigned long long)k.s[i].count);
    printf("bytes=%llu lines=%llu entries=%llu bad_lines=%llu\n", (unsigned long long)st.bytes,
           (unsigned long long)st.lines, (unsigned long long)st.entries, (unsigned long long)st.bad_lines);
    fflush(stdout);
    fprintf(stderr, "bochs-count: %.3f s, %.1f MB/s\n", sec, sec > 0 ? (double)st.bytes / sec / 1e6 : 0.0);
    if (e != ST_OK) {
        fprintf(stderr, "bochs-count: line %llu offset %llu: %s: %s\n",
                (unsigned long long)d.line, (unsigned long long)d.offset, st_error_name(e), d.detail);
        return 1;
    }
    return 0;
}
