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

#include "../include/simtrace.h"
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

/* The input, read sequentially through the public reader's callback. */
static int64_t read_input(void *opaque, void *buf, size_t size)
{
    for (;;) {
        ssize_t n = read(*(const int *)opaque, buf, size);
        if (n >= 0 || errno != EINTR)
            return n;
    }
}

/* -v's line: entries and megabytes so far, and the rate. */
static void progress(uint64_t entries, uint64_t bytes, int test, double t0, double now, const char *end)
{
    fprintf(stderr, "\r%s: %llu entries, %.1f MB %s, %.1f MB/s%s", cli_prog, (unsigned long long)entries,
            bytes / 1e6, test ? "checked" : "out", bytes / 1e6 / (now - t0 + 1e-9), end);
}

/* A regular file read from its start (named, or on standard input as
 * < FILE): its directory, when whole, says how many streams it holds, so
 * that a container this program cannot write out is refused before any
 * output exists (a file without its directory is listed through its
 * frame headers).  The reader uses pread and leaves the offset alone.
 * Returns the streams, or 0 when not known; a file that cannot be listed
 * is read sequentially all the same, which reports the damage after the
 * intact frames. */
static uint32_t streams_of_file(int fd)
{
    struct stat st;
    simtrace_reader *ix;
    uint32_t n = 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || lseek(fd, 0, SEEK_CUR) != 0 ||
        simtrace_reader_open_fd(&ix, fd, NULL) != SIMTRACE_OK)
        return 0;
    if (simtrace_reader_stream_count(ix, &n) != SIMTRACE_OK)
        n = 0;
    simtrace_reader_free(ix);
    return n;
}

/* Every frame of the input to out_fd (-1: checked only, -t), which must
 * all be of one stream when written; the place of a failure in *where. */
static simtrace_error decompress(int in_fd, int out_fd, const simtrace_read_params *rp, int verbose, int test,
                                 simtrace_input_place *where)
{
    simtrace_read_io io = {read_input, &in_fd};
    simtrace_reader *r = NULL;
    simtrace_frame f;
    uint64_t entries = 0, bytes = 0;
    uint32_t first = UINT32_MAX, streams = 0;
    double t0 = cli_now(), last = t0;
    simtrace_error e = simtrace_reader_open_io(&r, &io, rp);
    while (e == SIMTRACE_OK && (e = simtrace_reader_next_frame(r, &f)) == SIMTRACE_OK && f.count) {
        simtrace_stream_info si;
        if ((e = simtrace_reader_stream_info(r, f.index, &si)) != SIMTRACE_OK)
            break;
        if (first == UINT32_MAX)
            first = f.index;
        /* (testing goes through every stream: a second one is reported
         * after the read, as the check of a whole container) */
        if (f.index != first && out_fd >= 0) {
            cli_place(where, "container holds more than one stream; use simtrace-cat --stream NAME");
            where->offset = f.offset;
            where->frame = f.seq;
            where->stream = si.id;
            simtrace_reader_free(r);
            return SIMTRACE_E_BAD_STREAM;
        }
        entries += f.count;
        bytes += f.count * si.entry_size;
        if (verbose && cli_progress_due(&last))
            progress(entries, bytes, test, t0, last, "");
        if (out_fd >= 0 && cli_write_all(out_fd, f.entries, f.count * si.entry_size) != 0) {
            int why = errno; /* EPIPE: a quiet end (cli_report) */
            simtrace_reader_free(r);
            errno = why;
            return SIMTRACE_E_WRITE;
        }
    }
    if (r && e != SIMTRACE_OK)
        simtrace_reader_place(r, where);
    if (e == SIMTRACE_OK && simtrace_reader_stream_count(r, &streams) == SIMTRACE_OK && streams > 1) {
        e = SIMTRACE_E_BAD_STREAM;
        cli_place(where, "");
        snprintf(where->detail, sizeof where->detail, "container holds %u streams; use simtrace-cat --stream NAME",
                 streams);
    }
    simtrace_reader_free(r);
    if (verbose && e == SIMTRACE_OK)
        progress(entries, bytes, test, t0, cli_now(), "\n");
    return e;
}

int cli_decompress_main(int argc, char **argv, const char *prog, const char *cmd)
{
    cli_prog = prog;
    const char *out_path = NULL;
    simtrace_read_params rp;
    simtrace_read_params_init(&rp);
    rp.threads = cli_ncpu();
    rp.keep_failed = 1; /* its message says what and where */
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
        case 'I': rp.ignore_check = 1; break;
        case 'M':
            if (!cli_opt_memlimit(optarg, &rp.memlimit))
                return EXIT_USAGE;
            break;
        case 'T':
            if (!cli_opt_threads(optarg, &rp.threads))
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
    if ((rc = cli_container_in_open(optind < argc ? argv[optind] : NULL, &in_fd, &in_name)) != EXIT_OK)
        return rc;
    uint32_t ns = streams_of_file(in_fd);
    if (ns > 1) {
        cli_msg("%s: container holds %u streams; %s writes one (use simtrace-cat --stream NAME)", in_name, ns, cmd);
        return EXIT_DATA;
    }
    if (!test && (rc = cli_out_open(out_path, force, 1, in_fd, &out_fd)) != EXIT_OK)
        return rc;
    simtrace_input_place where;
    cli_place(&where, "");
    simtrace_error e = decompress(in_fd, test ? -1 : out_fd, &rp, verbose, test, &where);
    if (e == SIMTRACE_OK)
        return cli_out_commit();
    cli_out_abort();
    if (e == SIMTRACE_E_WRITE)
        return cli_report_place(e, NULL, out_path ? out_path : "(stdout)");
    return cli_report_place(e, &where, in_name);
}
