/*
 * read_range - print the entries of a stream whose cycles lie in C1..C2-1,
 * read with libsvpc from a trace file (random access: only the frames that
 * hold them are decoded) or from standard input (a pipe: read in order).
 *
 *   cc read_range.c $(pkg-config --cflags --libs svpc) -o read_range
 *   ./read_range trace.sim cpu0.write 1000:2000
 *   simtrace-pack ... | ./read_range - cpu0.read 0:500
 *
 * One line per entry, as `simtrace-cat -F text` writes them: index, cycle,
 * ip, address, size, value (a wide access: all its bytes), then tag=0x...
 * when tagged.  Builds as C and as C++.
 */
#include <simtrace.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(simtrace_error e, simtrace_reader *r, const char *what)
{
    fprintf(stderr, "read_range: %s: %s%s%s\n", what, simtrace_strerror(e), r ? ": " : "",
            r ? simtrace_reader_message(r) : "");
    return 1;
}

static void print_entry(simtrace_reader *r, uint32_t stream, uint64_t index, const uint8_t *raw)
{
    simtrace_entry e;
    simtrace_entry_unpack(SIMTRACE_TYPE_D64, raw, &e);
    int full = (int)(e.meta16 & 1);
    uint64_t size = full ? 8 : e.data >> 32, value = full ? e.data : (e.data & 0xffffffffu);
    printf("%" PRIu64 " %" PRIu64 " 0x%" PRIx64 " 0x%" PRIx64 " %" PRIu64 " 0x", index, e.cycle, e.ip, e.address,
           size);
    uint8_t wide[SIMTRACE_VALUE_MAX];
    size_t len = 0;
    /* a wide access: its whole value, most significant byte first (random
     * access only: on a pipe the value may come after the entry) */
    if (!full && size > 4 && r && simtrace_reader_value(r, stream, index, wide, sizeof wide, &len) == SIMTRACE_OK &&
        len > 4) {
        for (size_t b = len; b-- > 0;)
            printf("%02x", wide[b]);
    } else {
        printf("%" PRIx64, value);
    }
    if (e.meta16 >> 1)
        printf(" tag=0x%" PRIx64, e.meta16 >> 1);
    if (!full && size == 8)
        printf(" nf");
    putchar('\n');
}

int main(int argc, char **argv)
{
    if (argc != 4 || !strchr(argv[3], ':')) {
        fprintf(stderr, "usage: read_range FILE|- STREAM C1:C2\n");
        return 2;
    }
    simtrace_range range;
    memset(&range, 0, sizeof range);
    range.kind = SIMTRACE_RANGE_CYCLES;
    range.lo = strtoull(argv[3], NULL, 0);
    const char *hi = strchr(argv[3], ':') + 1;
    range.hi = *hi ? strtoull(hi, NULL, 0) : UINT64_MAX;

    simtrace_reader *r = NULL;
    simtrace_error e = strcmp(argv[1], "-") == 0 ? simtrace_reader_open_fd(&r, 0, NULL)
                                                 : simtrace_reader_open_path(&r, argv[1], NULL);
    if (e != SIMTRACE_OK)
        return fail(e, NULL, argv[1]);
    simtrace_cursor *c = NULL;
    e = simtrace_cursor_open(&c, r, argv[2], &range);
    if (e != SIMTRACE_OK) {
        int rc = fail(e, r, argv[2]);
        simtrace_reader_free(r);
        return rc;
    }
    simtrace_stream_info info;
    simtrace_cursor_stream_info(c, &info);
    if (info.type != SIMTRACE_TYPE_D64) {
        fprintf(stderr, "read_range: %s is %s; this example prints d64 streams\n", info.name, info.type_name);
        simtrace_cursor_free(c);
        simtrace_reader_free(r);
        return 1;
    }
    int random = simtrace_reader_random_access(r) == 1;
    static uint8_t buf[4096 * 32];
    uint64_t n = 0, first = 0;
    while ((e = simtrace_cursor_next(c, buf, sizeof buf, &n, &first)) == SIMTRACE_OK && n > 0)
        for (uint64_t i = 0; i < n; i++)
            print_entry(random ? r : NULL, info.index, first + i, buf + 32 * i);
    int rc = e == SIMTRACE_OK ? 0 : fail(e, r, argv[1]);
    simtrace_cursor_free(c);
    simtrace_reader_free(r);
    return fflush(stdout) == 0 ? rc : 1;
}
