/*
 * api-bench - the public API (include/simtrace.h) against the programs,
 * for scripts/bench.sh's part "api" (issue 12's targets):
 *
 *   api-bench write RAW OUT   the d64 entries of RAW (- : standard input), read in 1 MiB pieces
 *                             and submitted with simtrace_writer_write, to
 *                             OUT, as `svpc-compress -T1 < RAW > OUT` does
 *                             (1 thread, default profile and frames,
 *                             stream "trace": the same bytes)
 *   api-bench read SIM A B    entries [A, B) of the default stream with
 *                             simtrace_reader_read into one buffer, then to
 *                             standard output, as `simtrace-cat --entries
 *                             A:B SIM` writes them
 *   api-bench cursor SIM A B [T]  the same through a cursor, 4 MiB at a time
 *   api-bench peek SIM A B [T]    the same through a cursor without a copy
 *                             (SIM - : standard input, a pipe read
 *                             sequentially, with T decoder threads, 1 if
 *                             not given)
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../include/simtrace.h"

#define CHUNK (1u << 20)

static int fail(const char *what, simtrace_error e, const char *msg)
{
    fprintf(stderr, "api-bench: %s: %s%s%s\n", what, simtrace_strerror(e), msg && *msg ? ": " : "", msg ? msg : "");
    return 1;
}

static int write_all(const uint8_t *p, size_t len)
{
    size_t at = 0;
    while (at < len) {
        ssize_t k = write(1, p + at, len - at);
        if (k <= 0) {
            perror("api-bench: write");
            return 1;
        }
        at += (size_t)k;
    }
    return 0;
}

static int bench_write(const char *raw, const char *out)
{
    int in = strcmp(raw, "-") == 0 ? 0 : open(raw, O_RDONLY);
    if (in < 0) {
        perror(raw);
        return 1;
    }
    static uint8_t buf[CHUNK];
    simtrace_writer *w;
    uint32_t id;
    simtrace_error e = simtrace_writer_create_path(&w, out, NULL);
    if (e != SIMTRACE_OK)
        return fail(out, e, NULL);
    e = simtrace_writer_add_stream(w, "trace", SIMTRACE_TYPE_D64, &id);
    size_t have = 0;
    for (;;) {
        ssize_t k = read(in, buf + have, sizeof buf - have);
        if (k < 0) {
            perror(raw);
            return 1;
        }
        have += (size_t)k;
        size_t whole = have / 32;
        if (e == SIMTRACE_OK && whole)
            e = simtrace_writer_write(w, id, buf, whole);
        memmove(buf, buf + whole * 32, have - whole * 32);
        have -= whole * 32;
        if (k == 0 || e != SIMTRACE_OK)
            break;
    }
    if (e == SIMTRACE_OK)
        e = simtrace_writer_close(w);
    if (e != SIMTRACE_OK)
        fail(out, e, simtrace_writer_message(w));
    simtrace_writer_free(w);
    if (in != 0)
        close(in);
    return e != SIMTRACE_OK;
}

static int bench_read(const char *sim, uint64_t a, uint64_t b)
{
    simtrace_reader *r;
    simtrace_error e = simtrace_reader_open_path(&r, sim, NULL);
    if (e != SIMTRACE_OK)
        return fail(sim, e, NULL);
    uint32_t s;
    simtrace_stream_info info;
    uint64_t n = 0;
    e = simtrace_reader_find_stream(r, NULL, &s);
    if (e == SIMTRACE_OK)
        e = simtrace_reader_stream_info(r, s, &info);
    uint8_t *buf = NULL;
    if (e == SIMTRACE_OK) {
        uint64_t hi = b < info.entries ? b : info.entries, len = hi > a ? (hi - a) * info.entry_size : 0;
        buf = malloc(len ? len : 1);
        e = buf ? simtrace_reader_read(r, s, a, b, buf, len, &n) : SIMTRACE_E_NOMEM;
    }
    if (e != SIMTRACE_OK) {
        int rc = fail(sim, e, simtrace_reader_message(r));
        simtrace_reader_free(r);
        free(buf);
        return rc;
    }
    int rc = write_all(buf, (size_t)(n * info.entry_size));
    free(buf);
    simtrace_reader_free(r);
    return rc;
}

static int bench_cursor(const char *sim, uint64_t a, uint64_t b, int peek, unsigned threads)
{
    simtrace_reader *r;
    simtrace_cursor *c = NULL;
    simtrace_read_params rp;
    simtrace_read_params_init(&rp);
    rp.threads = threads;
    simtrace_error e = strcmp(sim, "-") == 0 ? simtrace_reader_open_fd(&r, 0, &rp)
                                             : simtrace_reader_open_path(&r, sim, &rp);
    if (e != SIMTRACE_OK)
        return fail(sim, e, NULL);
    simtrace_range rg = {SIMTRACE_RANGE_ENTRIES, 0, a, b};
    e = simtrace_cursor_open(&c, r, NULL, &rg);
    simtrace_stream_info info;
    if (e == SIMTRACE_OK)
        e = simtrace_cursor_stream_info(c, &info);
    static uint8_t buf[4u << 20];
    uint64_t n = 0;
    int rc = 0;
    const void *p = buf;
    while (e == SIMTRACE_OK &&
           (e = peek ? simtrace_cursor_peek(c, &p, &n, NULL) : simtrace_cursor_next(c, buf, sizeof buf, &n, NULL)) ==
               SIMTRACE_OK &&
           n)
        if ((rc = write_all(p, (size_t)(n * info.entry_size))) != 0)
            break;
    if (e != SIMTRACE_OK)
        rc = fail(sim, e, simtrace_reader_message(r));
    simtrace_cursor_free(c);
    simtrace_reader_free(r);
    return rc;
}

int main(int argc, char **argv)
{
    if ((argc == 5 || argc == 6) && (strcmp(argv[1], "cursor") == 0 || strcmp(argv[1], "peek") == 0))
        return bench_cursor(argv[2], strtoull(argv[3], NULL, 0), strtoull(argv[4], NULL, 0), argv[1][0] == 'p',
                            argc == 6 ? (unsigned)strtoul(argv[5], NULL, 0) : 1);
    if (argc == 4 && strcmp(argv[1], "write") == 0)
        return bench_write(argv[2], argv[3]);
    if (argc == 5 && strcmp(argv[1], "read") == 0)
        return bench_read(argv[2], strtoull(argv[3], NULL, 0), strtoull(argv[4], NULL, 0));
    fprintf(stderr, "usage: api-bench write RAW OUT | api-bench read SIM A B | api-bench cursor|peek SIM A B [THREADS]\n");
    return 2;
}
