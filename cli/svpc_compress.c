/* svpc-compress - raw memory trace entries in, a simtrace container out. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../include/simtrace.h"
#include "cli_util.h"

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: svpc-compress [OPTION]... [FILE]\n"
            "       svpc-compress -d [OPTION]... [FILE]   (svpc-decompress; -d -h: its options)\n"
            "Compress raw memory trace entries from FILE (or standard input) into a\n"
            "simtrace container on standard output (or -o FILE).\n"
            "\n"
            "  -d, --decompress      decompress instead, as svpc-decompress does (put it\n"
            "                        before a -t meant as --test)\n"
            "  -o, --output=FILE     write to FILE (replaced only with -f)\n"
            "  -c, --stdout          write to standard output (the default)\n"
            "  -t, --type=TYPE       entry layout: d64 (default), d32, m64, m32\n"
            "  -1 .. -9              the method: -1 .. -5 the fast encoder (several times\n"
            "                        faster to read, larger; more effort at writing each),\n"
            "                        -6 cmx (the default: every miss range-coded, values\n"
            "                        found as rotations and sums of recent ones;\n"
            "                        container 1.5), -7 .. -9 mix (cmx with one, two\n"
            "                        or three more contexts mixed; -9 the smallest,\n"
            "                        slower to read)\n"
            "      --fast, --best    -1, -9\n"
            "  -e, --encoder=NAME    an encoder instead, a level then its own: cmx, cm2,\n"
            "                        best, mix (one context up to level 7, two at 8,\n"
            "                        three at 9), fast\n"
            "                        (level 1 unless given), cm (the default of svpc 0.1:\n"
            "                        misses through a second stage), cm1 (readable by\n"
            "                        svpc 0.1 and other container 1.1 readers), paper\n"
            "                        (SVPC as published), generic\n"
            "  -s, --stage=NAME      second stage of cm, cm1, paper and generic: lzma\n"
            "                        (default), bzip2, zlib, none.  Options that would\n"
            "                        change nothing (-s or a level with cm2, cmx or best,\n"
            "                        -s with fast or mix, a level with -s none) are\n"
            "                        refused\n"
            "  -T, --threads=N       worker threads (default: online CPUs); output is\n"
            "                        identical for every N\n"
            "      --frame-size=N    entries per frame (default 1M, 256k with fast and\n"
            "                        -1 .. -5; suffixes k M)\n"
            "      --stream=NAME     stream name (default \"trace\")\n"
            "      --timestamps      record wall-clock time per frame (output then\n"
            "                        differs between runs)\n"
            "      --no-unpack       take the input as raw entries even if it begins\n"
            "                        like xz, gzip or zstd data (read decompressed\n"
            "                        otherwise)\n"
            "  -f, --force           write to a terminal; overwrite an existing output\n"
            "%s"
            "Input that ends with a partial entry: the whole entries are compressed into a\n"
            "valid container, then the program reports the partial entry and exits 1.\n",
            cli_usage_tail);
}

enum { OPT_FRAME = 256, OPT_STREAM, OPT_TIMESTAMPS, OPT_NO_UNPACK };

/* --fast and --best are levels 1 and 9 (as gzip's), the option's value */

static const struct option longopts[] = {
    {"output", required_argument, NULL, 'o'},  {"stdout", no_argument, NULL, 'c'},
    {"type", required_argument, NULL, 't'},    {"stage", required_argument, NULL, 's'},
    {"encoder", required_argument, NULL, 'e'}, {"threads", required_argument, NULL, 'T'},
    {"frame-size", required_argument, NULL, OPT_FRAME}, {"stream", required_argument, NULL, OPT_STREAM},
    {"timestamps", no_argument, NULL, OPT_TIMESTAMPS}, {"no-unpack", no_argument, NULL, OPT_NO_UNPACK},
    {"force", no_argument, NULL, 'f'},         {"keep", no_argument, NULL, 'k'},
    {"verbose", no_argument, NULL, 'v'},       {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},          {"version", no_argument, NULL, 'V'},
    {"decompress", no_argument, NULL, 'd'},    {"uncompress", no_argument, NULL, 'd'},
    {"fast", no_argument, NULL, '1'},          {"best", no_argument, NULL, '9'},
    {NULL, 0, NULL, 0}};
#define SHORTOPTS "o:ct:s:e:T:fkvqhVd123456789"

/* -d anywhere among the options (as getopt_long reads them with this
 * program's options, where -t takes a value: so -d must come before a -t
 * meant as decompression's --test; getopt_long stops at "--"): then the
 * whole command line is svpc-decompress's, which accepts -d too.  Returns
 * 1 or 0, or -1 when out of memory. */
static int wants_decompress(int argc, char **argv)
{
    char **copy = malloc(((size_t)argc + 1) * sizeof *copy);
    if (!copy)
        return -1;
    memcpy(copy, argv, ((size_t)argc + 1) * sizeof *copy); /* getopt_long may permute it */
    int c, found = 0;
    opterr = 0;
    while (!found && (c = getopt_long(argc, copy, SHORTOPTS, longopts, NULL)) != -1)
        found = c == 'd';
    free(copy);
    optind = 0; /* the next getopt_long starts afresh */
    return found;
}

/* The memory type named name (d64, d32, m64, m32), or 0. */
static int memory_type(const char *name)
{
    for (int t = SIMTRACE_TYPE_D64; t <= SIMTRACE_TYPE_M32; t++)
        if (strcmp(simtrace_type_name(t), name) == 0)
            return t;
    return 0;
}

/* What the callbacks of the append need: -v's progress line at most once a
 * second, the text warning, and the input a signal ends. */
typedef struct {
    simtrace_writer *w;
    size_t esz;
    int quiet;
    const char *in_name;
    double t0, last;
} run_state;

static void progress_line(const run_state *rs, int final)
{
    uint64_t entries = 0, out = 0;
    simtrace_writer_entries(rs->w, UINT32_MAX, &entries, &out);
    cli_progress_counts(entries, entries * rs->esz, out, rs->t0, final);
}

static void prog_cb(void *arg)
{
    run_state *rs = arg;
    if (cli_progress_due(&rs->last))
        progress_line(rs, 0);
}

/* The descriptor the entries come from (the input, or the decompressor's
 * pipe): a signal ends it; -1 once read.  A raw input that is text is
 * warned about (a regular file: a pipe cannot be looked at). */
static void reading_cb(void *arg, int fd)
{
    const run_state *rs = arg;
    cli_stop_input(fd);
    if (fd >= 0 && !rs->quiet)
        cli_warn_if_text(fd, rs->in_name, "a text trace is imported with simtrace-pack --from FORMAT");
}

int main(int argc, char **argv)
{
    if (cli_std_fds("svpc-compress") != EXIT_OK) /* first: before any file takes 0, 1 or 2 */
        return EXIT_DATA;
    int dec = wants_decompress(argc, argv);
    if (dec < 0)
        return cli_report_place(SIMTRACE_E_NOMEM, NULL, NULL);
    if (dec)
        return cli_decompress_main(argc, argv, "svpc-compress", "svpc-compress -d");
    const char *out_path = NULL, *stream = "trace";
    int type = SIMTRACE_TYPE_D64;
    /* cycles as they come (no check_cycles): a raw trace is kept whole */
    simtrace_write_params wp;
    simtrace_write_params_init(&wp);
    wp.threads = cli_ncpu();
    int force = 0, verbose = 0, quiet = 0, no_unpack = 0, c;
    opterr = 0; /* our messages start with the program name, not argv[0] */
    if (!cli_check_levels(argc, argv, SHORTOPTS, longopts))
        return EXIT_USAGE;
    while ((c = getopt_long(argc, argv, SHORTOPTS, longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            if (!cli_opt_output(optarg))
                return EXIT_USAGE;
            out_path = optarg;
            break;
        case 'c': out_path = NULL; break;
        case 't':
            if (!(type = memory_type(optarg))) {
                cli_msg("unknown entry type '%s' (use d64, d32, m64 or m32)", optarg);
                return EXIT_USAGE;
            }
            break;
        case 's':
            if (!cli_opt_stage(optarg, &wp.stage))
                return EXIT_USAGE;
            break;
        case 'e': {
            int profile;
            if (!cli_opt_encoder(optarg, &profile))
                return EXIT_USAGE;
            if (!profile) {
                cli_msg("encoder vpc codes legacy VPC pairs only (simtrace-pack --type vpc)");
                return EXIT_USAGE;
            }
            wp.profile_name = optarg; /* the writer's profiles include the encoders by name */
            break;
        }
        case 'T':
            if (!cli_opt_threads(optarg, &wp.threads))
                return EXIT_USAGE;
            break;
        case OPT_FRAME:
            if (!cli_opt_frame_size(optarg, &wp.frame_entries))
                return EXIT_USAGE;
            break;
        case OPT_STREAM:
            if (!cli_opt_stream_name(optarg))
                return EXIT_USAGE;
            stream = optarg;
            break;
        case OPT_TIMESTAMPS: wp.timestamps = 1; break;
        case OPT_NO_UNPACK: no_unpack = 1; break;
        case 'f': force = 1; break;
        case 'k': break;
        case 'v': verbose = 1; break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return cli_stdout_done();
        case 'V': printf("svpc-compress (svpc) %s\n", SVPC_VERSION); return cli_stdout_done();
        default:
            if (c >= '1' && c <= '9') {
                wp.level = (uint32_t)(c - '0');
                break;
            }
            cli_bad_option(argv, optopt);
            fprintf(stderr, "Try 'svpc-compress --help' for more information.\n");
            return EXIT_USAGE;
        }
    }
    if (argc - optind > 1) {
        cli_msg("only one input file may be given (got %d)", argc - optind);
        return EXIT_USAGE;
    }
    const char *enc_name = NULL, *unused = simtrace_write_params_unused(&wp, type, &enc_name);
    if (cli_encoder_codes(&wp, wp.profile_name, type) != EXIT_OK)
        return EXIT_USAGE;
    if (unused) {
        cli_msg("encoder %s: %s (-1 .. -9 choose the whole method; -s and a level with -e are for the "
                "encoders that use them)",
                enc_name, unused);
        return EXIT_USAGE;
    }

    const char *in_name;
    int in_fd, out_fd, rc;
    if ((rc = cli_in_open(optind < argc ? argv[optind] : NULL, &in_fd, &in_name)) != EXIT_OK)
        return rc;
    if ((rc = cli_out_open(out_path, force, 1, in_fd, &out_fd)) != EXIT_OK)
        return rc;

    simtrace_writer *w = NULL;
    uint32_t sid = 0;
    simtrace_error e = simtrace_writer_create_fd(&w, out_fd, &wp);
    if (e == SIMTRACE_OK)
        e = simtrace_writer_add_stream(w, stream, type, &sid);
    run_state rs = {w, simtrace_type_size(type), quiet, in_name, cli_now(), 0};
    rs.last = rs.t0;
    const char *err_file = out_path ? out_path : "(stdout)";
    /* xz, gzip, zstd input is read decompressed, unless --no-unpack */
    simtrace_import_params ip;
    simtrace_import_params_init(&ip);
    ip.no_unpack = (uint32_t)no_unpack;
    ip.stop = cli_stop_flag();
    ip.progress = verbose ? prog_cb : NULL;
    ip.reading = reading_cb;
    ip.opaque = &rs;
    simtrace_import_report rep;
    memset(&rep, 0, sizeof rep);
    const simtrace_input_place *where = NULL;
    uint64_t have = 0, have_at = 0;
    if (e == SIMTRACE_OK) {
        /* from the file header on, a signal finishes the container: also
         * while the kind of the input is found out from its first bytes,
         * which may be slow to come from a pipe */
        cli_stop_arm();
        cli_stop_input(in_fd);
        if (simtrace_writer_append_fd(w, sid, in_fd, &ip, &rep) != SIMTRACE_OK)
            e = (simtrace_error)rep.read_error; /* damaged compressed data: below */
        where = &rep.where;
        /* the writer reads nothing: a read error is the input's (a
         * directory on stdin, say) */
        if (e == SIMTRACE_E_READ)
            err_file = in_name;
        /* damaged or cut compressed data: the entries before it make a
         * valid container, as a partial entry does, and the damage is
         * reported after it is written; the cut, not a partial entry, is
         * what went wrong */
        if (e == SIMTRACE_E_PARTIAL_ENTRY && rep.unpack_error != SIMTRACE_OK)
            e = SIMTRACE_OK;
        if (e == SIMTRACE_E_PARTIAL_ENTRY) {
            /* a partial entry at the end: the whole entries make a valid
             * container, reported after it is written */
            have = rep.partial_bytes;
            have_at = rep.where.offset;
            e = SIMTRACE_OK;
        }
        if (e == SIMTRACE_OK)
            where = NULL; /* a later error is reported with its own place */
    }
    if (e == SIMTRACE_OK)
        e = simtrace_writer_close(w);
    if (e == SIMTRACE_OK && verbose)
        progress_line(&rs, 1);
    uint64_t entries = 0;
    if (w) /* NULL when the file header could not be written */
        simtrace_writer_entries(w, UINT32_MAX, &entries, NULL);
    simtrace_writer_free(w);
    if (e != SIMTRACE_OK) {
        cli_out_abort();
        return cli_report_place(e, where, err_file);
    }
    if (cli_stopped()) {
        /* interrupted means finished: the container holds every whole
         * entry read before the signal; a file holding none is removed */
        if (entries == 0)
            cli_out_abort();
        else if ((rc = cli_out_commit()) != EXIT_OK)
            return rc;
        cli_msg("%s: interrupted by %s: %s %llu entries%s", out_path ? out_path : "(stdout)", cli_stop_name(),
                entries || !out_path ? "the container is complete with" : "not written: it would hold",
                (unsigned long long)entries, have ? " (the part of an entry read last is dropped)" : "");
        return cli_stop_status();
    }
    if ((rc = cli_out_commit()) != EXIT_OK)
        return rc;
    if (rep.unpack_error != SIMTRACE_OK) {
        rc = cli_report_place((int)rep.unpack_error, &rep.unpack_where, in_name);
        if (!quiet)
            cli_msg("%s: it begins like %s data; if it is not, give --no-unpack", in_name, rep.unpacked);
        return rc;
    }
    if (have) {
        cli_msg("%s: input ends with a partial entry: %llu trailing byte%s at byte offset %llu (entry size %zu); "
                "the %llu whole entries were compressed",
                in_name, (unsigned long long)have, have == 1 ? "" : "s", (unsigned long long)have_at, rs.esz,
                (unsigned long long)(have_at / rs.esz));
        return EXIT_DATA;
    }
    return EXIT_OK;
}
