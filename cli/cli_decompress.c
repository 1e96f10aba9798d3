/* The decompressor of svpc-decompress and of svpc-compress -d (as xz -d and
 * zstd -d): a single-stream simtrace container in, raw entries out. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/st_error.h"
#include "../common/st_io.h"
#include "../frames/container.h"
#include "cli_util.h"

static void usage(FILE *f, const char *cmd)
{
    fprintf(f, "Usage: %s [OPTION]... [FILE]\n"
               "Decompress a simtrace container from FILE (or standard input) into raw\n"
               "entries on standard output (or -o FILE).  The container must hold one\n"
               "stream; simtrace-cat reads containers of many.\n"
               "\n"
               "  -o, --output=FILE     write to FILE (replaced only with -f)\n"
               "  -c, --stdout          write to standard output (the default)\n"
               "  -t, --test            check the container completely; write nothing\n"
               "  -T, --threads=N       decoder threads (default: online CPUs)\n"
            "  -M, --memlimit=SIZE   refuse frames that would need more memory than SIZE\n"
            "                        (bytes; suffixes k M G); fewer threads if needed\n"
               "  -f, --force           write to a terminal; overwrite an existing output\n"
               "      --ignore-check    do not check decoded entries against their frame's\n"
               "                        entry checksum (stored checksums are still checked)\n"
               "%s"
               "A damaged or cut-off container: every entry of the frames before the\n"
               "damage is written (never an entry of a bad frame), then the program\n"
               "reports where the damage is and exits 1; with -o FILE no file is left.\n",
            cmd, cli_usage_tail);
}

static const struct option longopts[] = {
    {"output", required_argument, NULL, 'o'}, {"stdout", no_argument, NULL, 'c'},
    {"test", no_argument, NULL, 't'},         {"threads", required_argument, NULL, 'T'}, {"memlimit", required_argument, NULL, 'M'},
    {"force", no_argument, NULL, 'f'},        {"keep", no_argument, NULL, 'k'},
    {"verbose", no_argument, NULL, 'v'},      {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},         {"version", no_argument, NULL, 'V'},
    {"decompress", no_argument, NULL, 'd'},   {"uncompress", no_argument, NULL, 'd'},
    {"ignore-check", no_argument, NULL, 'I'},
    {NULL, 0, NULL, 0}};

typedef struct {
    int fd;
    uint32_t stream;
    int have_stream;
    uint64_t entries, bytes;
    double t0, last;
    int verbose;
    const st_reader *r;
} sink_state;

static st_error sink(void *arg, const st_stream_info *s, uint64_t first, const uint8_t *entries, size_t n)
{
    sink_state *st = arg;
    (void)first;
    if (!st->have_stream) {
        st->stream = s->id;
        st->have_stream = 1;
    }
    /* (testing, fd < 0, goes through every stream: a second one is
     * reported after the read, as the check of a whole container) */
    if (s->id != st->stream && st->fd >= 0)
        return ST_E_BAD_STREAM;
    size_t bytes = n * s->entry_size;
    st->entries += n;
    st->bytes += bytes;
    if (st->verbose && cli_progress_due(&st->last)) {
        fprintf(stderr, "\r%s: %llu entries, %.1f MB %s, %.1f MB/s", cli_prog, (unsigned long long)st->entries,
                st->bytes / 1e6, st->fd >= 0 ? "out" : "checked", st->bytes / 1e6 / (st->last - st->t0));
    }
    return st->fd >= 0 ? st_write_all(st->fd, entries, bytes) : ST_OK;
}

int cli_decompress_main(int argc, char **argv, const char *prog, const char *cmd)
{
    cli_prog = prog;
    const char *out_path = NULL;
    st_read_opts ro = {.threads = cli_ncpu()};
    int force = 0, verbose = 0, test = 0, c;
    opterr = 0; /* our messages start with the program name, not argv[0] */
    while ((c = getopt_long(argc, argv, "o:ctT:M:fkvqhVd", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            if (!cli_opt_output(optarg))
                return EXIT_USAGE;
            out_path = optarg;
            break;
        case 'c': out_path = NULL; break;
        case 't': test = 1; break;
        case 'I': ro.ignore_check = 1; break;
        case 'M':
            if (!cli_opt_memlimit(optarg, &ro.memlimit))
                return EXIT_USAGE;
            break;
        case 'T':
            if (!cli_opt_threads(optarg, &ro.threads))
                return EXIT_USAGE;
            break;
        case 'f': force = 1; break;
        case 'k': case 'q': case 'd': break;
        case 'v': verbose = 1; break;
        case 'h': usage(stdout, cmd); return cli_stdout_done();
        case 'V': printf("%s (svpc) %s\n", prog, SVPC_VERSION); return cli_stdout_done();
        default:
            cli_bad_option(argv, optopt);
            fprintf(stderr, "Try '%s --help' for more information.\n", cmd);
            return EXIT_USAGE;
        }
    }
    if (argc - optind > 1) {
        cli_msg("only one input file may be given (got %d)", argc - optind);
        return EXIT_USAGE;
    }
    const char *in_name;
    int in_fd, out_fd = -1, rc;
    if ((rc = cli_in_open(optind < argc ? argv[optind] : NULL, &in_fd, &in_name)) != EXIT_OK)
        return rc;
    /* a regular file, named or on standard input (< FILE): look at the
     * directory first, so that a container this program cannot write out is
     * refused before any output exists.  st_index_open reads with pread and
     * leaves the offset alone; it sees the whole file, so only when the read
     * below starts at its beginning (standard input may have been read from
     * already).  A file whose directory is damaged is read sequentially
     * below, which reports the damage after the intact frames. */
    st_index *ix = NULL;
    st_diag d;
    st_diag_clear(&d);
    struct stat st;
    int whole_file = fstat(in_fd, &st) == 0 && S_ISREG(st.st_mode) && lseek(in_fd, 0, SEEK_CUR) == 0;
    if (whole_file && st_index_open(&ix, in_fd, &d) == ST_OK) {
        unsigned ns = st_index_stream_count(ix);
        st_index_free(ix);
        if (ns > 1) {
            cli_msg("%s: container holds %u streams; %s writes one (use simtrace-cat --stream NAME)", in_name, ns,
                    cmd);
            return EXIT_DATA;
        }
    }
    st_diag_clear(&d);
    if (!test && (rc = cli_out_open(out_path, force, 1, in_fd, &out_fd)) != EXIT_OK)
        return rc;
    /* -t decodes and checks everything as a read does, and the entries go
     * to the sink, which counts them for -v and writes nothing (out_fd -1):
     * with the reader's verify_only they were never delivered, and -t -v
     * said "0 entries" */
    sink_state ss = {out_fd, 0, 0, 0, 0, cli_now(), cli_now(), verbose, NULL};
    st_reader *r = NULL;
    st_error e = st_reader_new(&r, in_fd, &ro, &d);
    if (e == ST_OK) {
        ss.r = r;
        e = st_reader_read_all(r, sink, &ss, &d);
    }
    if (e == ST_OK && st_reader_stream_count(r) > 1) {
        e = ST_E_BAD_STREAM;
        snprintf(d.detail, sizeof d.detail, "container holds %u streams; use simtrace-cat --stream NAME",
                 st_reader_stream_count(r));
    } else if (e == ST_E_BAD_STREAM && !d.detail[0]) {
        snprintf(d.detail, sizeof d.detail, "container holds more than one stream; use simtrace-cat --stream NAME");
    }
    const char *err_file = in_name;
    if (e == ST_E_WRITE) {
        err_file = out_path ? out_path : "(stdout)";
        st_diag_clear(&d);
    }
    st_reader_free(r);
    if (verbose && e == ST_OK)
        fprintf(stderr, "\r%s: %llu entries, %.1f MB %s, %.1f MB/s\n", cli_prog, (unsigned long long)ss.entries,
                ss.bytes / 1e6, test ? "checked" : "out", ss.bytes / 1e6 / (cli_now() - ss.t0 + 1e-9));
    if (e != ST_OK) {
        cli_out_abort();
        return cli_report(e, &d, err_file);
    }
    return cli_out_commit();
}
