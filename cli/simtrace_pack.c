/* simtrace-pack - build a multi-stream simtrace container from raw entries,
 * imported trace formats, or other containers (copied without re-encoding). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_util.h"

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: simtrace-pack [OPTION]... [--stream NAME] [--type T] [--from FORMAT] [FILE|-]...\n"
            "       simtrace-pack --concat [OPTION]... CONTAINER...\n"
            "       simtrace-pack --append CONTAINER [OPTION]... [--stream NAME] [FILE|-]...\n"
            "       simtrace-pack --repair CONTAINER [-o NEW]\n"
            "Build a simtrace container from the inputs, in order, on standard output\n"
            "(or -o FILE).  With no FILE, or FILE -, read standard input.\n"
            "\n"
            "Options that apply to the inputs after them:\n"
            "      --stream=NAME     stream of the raw inputs that follow (default \"trace\");\n"
            "                        with --from, a prefix \"NAME.\" for the imported streams.\n"
            "                        Inputs naming the same stream are appended to it\n"
            "      --type=T          entry type of raw inputs: d64 (default), d32, m64, m32,\n"
            "                        vpc, event, bytes, or NAME:SIZE for a user type of SIZE\n"
            "                        bytes (1..%u); NAME is not a built-in type's\n"
            "      --from=FORMAT     import FORMAT instead of raw entries (raw, the default,\n"
            "                        switches back):",
            SIMTRACE_USER_ENTRY_MAX);
    size_t col = strlen("                        switches back):");
    for (unsigned i = 0; simtrace_import_format(i, NULL); i++)
        cli_help_word(f, &col, simtrace_import_format(i, NULL));
    fprintf(f, "%s",
            "\n"
            "\n"
            "Modes:\n"
            "      --concat          the inputs are containers: copy their frames without\n"
            "                        re-encoding; streams of the same name are joined\n"
            "      --append=FILE     add the inputs to container FILE in place\n"
            "      --repair=FILE     rebuild the directory and footer of FILE, cut off or\n"
            "                        left by an --append that did not finish (in place,\n"
            "                        or -o NEW)\n"
            "\n"
            "Other options:\n"
            "  -o, --output=FILE     write to FILE (replaced only with -f)\n"
            "  -c, --stdout          write to standard output (the default; not with\n"
            "                        --repair, which writes in place or into -o NEW)\n"
            "  -e, --encoder=NAME    for memory types cmx (the default), cm2, best,\n"
            "                        mix, fast, cm, cm1 (what 1.1 readers read),\n"
            "                        paper, generic; for vpc pairs vpc (default), cm,\n"
            "                        cm1, generic; champsim, cvp and drmemtrace records\n"
            "                        their own encoder, or generic; other types generic\n"
            "  -s, --stage=NAME      second stage of cm, cm1, paper, generic and vpc\n"
            "                        (cm2, cmx, best, mix and fast have none): lzma\n"
            "                        (default), bzip2, zlib, none\n"
            "  -1 .. -9              the method, as svpc-compress's: -1 .. -5 the fast\n"
            "                        encoder, -6 cmx (the default), mix at -7 .. -9;\n"
            "                        with -e, that encoder's level; also the second\n"
            "                        stage's level\n"
            "      --fast, --best    -1, -9\n"
            "  -T, --threads=N       worker threads (default: online CPUs)\n"
            "      --frame-size=N    entries per frame (default 1048576, 262144 with\n"
            "                        fast; suffixes k M)\n"
            "      --timestamps      record wall-clock time per frame (for --time ranges;\n"
            "                        output then differs between runs)\n"
            "      --skip-bad        importers: count, report and skip malformed lines\n"
            "      --split-by=cr3    --from bochs: linear accesses in streams per address\n"
            "                        space (cpuK.cr3-HEX.read, ...), the page-table base\n"
            "                        of the CPU's last page walk\n"
            "      --allow-cycle-reset  keep entries whose cycle is below the one before\n"
            "                        them in their stream (refused otherwise: exit 1)\n"
            "      --no-unpack       take inputs as they are even if they begin like xz,\n"
            "                        gzip or zstd data (read decompressed otherwise)\n"
            "  -f, --force           write to a terminal; overwrite an existing output\n"
            "  -k, --keep            accepted for xz compatibility (inputs are never changed)\n"
            "  -v, --verbose         progress and a summary on standard error\n"
            "  -q, --quiet           no warnings\n"
            "  -h, --help, -V, --version\n"
            "\n"
            "Exit status: 0 success, 1 bad input or I/O error, 2 bad usage.  Bad input\n"
            "(a partial entry, a malformed line, cycles that decrease) still gives a valid\n"
            "container of everything before it, and exit status 1.  SIGINT, SIGTERM and\n"
            "SIGHUP finish the container of every entry read (exit 130, 143, 129).\n");
}

enum { OPT_FRAME = 256, OPT_STREAM, OPT_TYPE, OPT_FROM, OPT_CONCAT, OPT_APPEND, OPT_TIMESTAMPS, OPT_SKIP_BAD,
       OPT_REPAIR, OPT_ALLOW_CYCLE_RESET, OPT_SPLIT_BY, OPT_NO_UNPACK };

static const struct option longopts[] = {
    {"output", required_argument, NULL, 'o'},  {"stdout", no_argument, NULL, 'c'},
    {"stage", required_argument, NULL, 's'},   {"encoder", required_argument, NULL, 'e'},
    {"threads", required_argument, NULL, 'T'}, {"frame-size", required_argument, NULL, OPT_FRAME},
    {"stream", required_argument, NULL, OPT_STREAM}, {"type", required_argument, NULL, OPT_TYPE},
    {"from", required_argument, NULL, OPT_FROM}, {"concat", no_argument, NULL, OPT_CONCAT},
    {"append", required_argument, NULL, OPT_APPEND}, {"timestamps", no_argument, NULL, OPT_TIMESTAMPS},
    {"skip-bad", no_argument, NULL, OPT_SKIP_BAD}, {"repair", required_argument, NULL, OPT_REPAIR},
    {"allow-cycle-reset", no_argument, NULL, OPT_ALLOW_CYCLE_RESET},
    {"split-by", required_argument, NULL, OPT_SPLIT_BY}, {"no-unpack", no_argument, NULL, OPT_NO_UNPACK},
    {"force", no_argument, NULL, 'f'},         {"keep", no_argument, NULL, 'k'},
    {"verbose", no_argument, NULL, 'v'},       {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},          {"version", no_argument, NULL, 'V'},
    {"fast", no_argument, NULL, '1'},          {"best", no_argument, NULL, '9'}, /* levels 1 and 9 */
    {NULL, 0, NULL, 0}};

/* One input, with the options in force where it was named. */
typedef struct {
    const char *path;
    const char *stream;  /* NULL: default */
    const char *from;    /* NULL: raw */
    int type;            /* simtrace_type */
    uint32_t user_size;  /* SIMTRACE_TYPE_USER */
    const char *user_name;
    const char *type_arg; /* --type as given; NULL: d64, the default */
    int fd;              /* open_inputs() */
    const char *name;    /* for messages: the path or "(stdin)" */
} input;

typedef struct {
    simtrace_writer *api;
    simtrace_write_params wp; /* -e, -s, -1..-9, -T, --frame-size... */
    const char *enc_name; /* -e as given; NULL: none */
    int verbose, quiet, skip_bad;
    int split_cr3; /* --split-by cr3 */
    double t0, last;
    uint64_t kept; /* entries this run stored, all streams (simtrace_writer_stats) */
    int writer_failed; /* the writer refused an imported batch (its failure sticks) */
    int warn_text;     /* the input being read is raw entries, not bytes: warn if it is text */
    const char *in_name; /* input being read, for messages */
    const char *out_name; /* the container, for messages */
    uint8_t enc_noted[65536]; /* note_kept_encoder() spoke of the stream */
    uint64_t base[65536]; /* output entries of each handle before this input */
} packer;

static void progress(packer *pk, int final)
{
    if (pk->verbose && (cli_progress_due(&pk->last) || final)) {
        simtrace_write_stats ws;
        simtrace_writer_stats(pk->api, &ws);
        cli_progress_counts(ws.entries, ws.entry_bytes, ws.out_bytes, pk->t0, final);
    }
}

/* A deterministic GUID for a user type, from its name: a user type is
 * identified by name and size wherever it is packed.  Two FNV-1a-64 hashes
 * of the name with different seeds, big-endian. */
static void user_guid(const char *name, uint32_t size, uint8_t g[16])
{
    uint64_t h1 = UINT64_C(0xcbf29ce484222325), h2 = UINT64_C(0x84222325cbf29ce4);
    const char *prefix = "simtrace-user-type:";
    for (const char *s = prefix; *s; s++)
        h1 = (h1 ^ (uint8_t)*s) * UINT64_C(0x100000001b3);
    for (const char *s = name; *s; s++) {
        h1 = (h1 ^ (uint8_t)*s) * UINT64_C(0x100000001b3);
        h2 = (h2 ^ (uint8_t)*s) * UINT64_C(0x100000001b3);
    }
    for (int i = 0; i < 4; i++) {
        h1 = (h1 ^ ((size >> (8 * i)) & 0xFF)) * UINT64_C(0x100000001b3);
        h2 = (h2 ^ ((size >> (8 * i)) & 0xFF)) * UINT64_C(0x100000001b3);
    }
    for (int i = 0; i < 8; i++) {
        g[i] = (uint8_t)(h1 >> (56 - 8 * i));
        g[8 + i] = (uint8_t)(h2 >> (56 - 8 * i));
    }
    /* keep clear of the built-in GUIDs, which all start 73 74 9a 41 */
    if (g[0] == 0x73)
        g[0] ^= 0x80;
}

/*
 * Entries added to a stream that was in the container before this run
 * (--append) are coded with that stream's encoder, whatever -e says: a
 * stream has one encoder, the old frames are not re-encoded, and the new
 * entries are raw, so nothing is lost by using it.  -e chooses the encoder
 * of the streams the run creates, as it already yields to a type it cannot
 * code.  When -e asked for another encoder that could code the stream's
 * type, say so once per stream (unlike --concat, whose frames are coded
 * already and cannot join a stream of another encoder).
 */
static void note_kept_encoder(packer *pk, uint32_t sid, const char *name)
{
    int t;
    const char *enc, *fresh = NULL; /* the encoder of a stream of type t created now */
    if (!pk->enc_name || pk->quiet || pk->enc_noted[sid] ||
        simtrace_writer_stream_coding(pk->api, sid, &t, &enc) != SIMTRACE_OK)
        return;
    simtrace_write_params_unused(&pk->wp, t, &fresh);
    if (!fresh || cli_encoder_is_asked(&pk->wp, pk->enc_name, enc))
        return;
    if (strcmp(fresh, enc) == 0) {
        /* an import's stream created now, of a type -e's encoder does not
         * code (raw inputs are refused before: cli_encoder_codes) */
        pk->enc_noted[sid] = 1;
        cli_msg("%s: stream '%s' holds %s entries, which encoder %s does not code: it is encoded with %s", pk->out_name,
                name, simtrace_type_name(t), pk->enc_name, enc);
        return;
    }
    if (strcmp(fresh, pk->enc_name) != 0)
        return;
    pk->enc_noted[sid] = 1;
    cli_msg("%s: stream '%s' is encoded with %s: the entries appended to it use %s too, not -e %s "
            "(a stream keeps the encoder it was created with)",
            pk->out_name, name, enc, enc, pk->enc_name);
}

/* ---- raw entries and imports, through the public API ---- */

/* The descriptor an input's entries come from (the input, or the pipe of
 * its decompressor): a signal ends it, and the decompressing thread then
 * finds its pipe closed and ends too; -1 once read.  A raw input that is
 * text is warned about. */
static void reading_cb(void *arg, int fd)
{
    packer *pk = arg;
    cli_stop_input(fd);
    if (fd >= 0 && pk->warn_text && !pk->quiet)
        cli_warn_if_text(fd, pk->in_name, "a text trace is imported with --from FORMAT (lackey, din, ...: see --help)");
}

static void progress_cb(void *pk) { progress(pk, 0); }

/* Skipped lines (--skip-bad), and why an import could not take a stream. */
static void imp_warn(void *arg, int error, const simtrace_input_place *where)
{
    packer *pk = arg;
    if (error != SIMTRACE_E_SYNTAX)
        cli_msg("%s: %s", pk->in_name, where->detail);
    else if (!pk->quiet)
        cli_report_place(error, where, pk->in_name);
}

static void imp_taken(void *arg, uint32_t id, const char *name) { note_kept_encoder(arg, id, name); }

static simtrace_import_params import_params(packer *pk, int no_unpack)
{
    simtrace_import_params ip;
    simtrace_import_params_init(&ip);
    ip.no_unpack = (uint32_t)no_unpack;
    ip.stop = cli_stop_flag();
    ip.progress = progress_cb;
    ip.reading = reading_cb;
    ip.opaque = pk;
    return ip;
}

/* The reading's own result (rep: the unpacking's), with its place. */
static simtrace_error read_result(const simtrace_import_report *rep, simtrace_input_place *where)
{
    *where = rep->where;
    return (simtrace_error)rep->read_error;
}

static simtrace_error pack_raw(packer *pk, const input *in, int fd, int no_unpack, simtrace_import_report *rep,
                               simtrace_input_place *d)
{
    uint8_t guid[16];
    const char *name = in->stream ? in->stream : "trace";
    const int user = in->type == SIMTRACE_TYPE_USER;
    if (user)
        user_guid(in->user_name, in->user_size, guid);
    /* the stream of that name (an --append container's, an earlier
     * input's), else a new one */
    uint32_t sid;
    simtrace_error e = simtrace_writer_take_stream(pk->api, name, in->type, user ? guid : NULL,
                                                   user ? in->user_size : 0, user ? in->user_name : NULL, &sid);
    if (e != SIMTRACE_OK) {
        cli_place(d, simtrace_writer_message(pk->api));
        return e;
    }
    note_kept_encoder(pk, sid, name);
    pk->warn_text = in->type != SIMTRACE_TYPE_BYTES;
    simtrace_import_params ip = import_params(pk, no_unpack);
    simtrace_writer_append_fd(pk->api, sid, fd, &ip, rep);
    pk->warn_text = 0;
    e = read_result(rep, d);
    if (e == SIMTRACE_E_PARTIAL_ENTRY) {
        size_t esz = in->type == SIMTRACE_TYPE_USER ? in->user_size : simtrace_type_size(in->type);
        snprintf(d->detail, sizeof d->detail, "%llu trailing byte%s (entry size %zu); the %llu whole entries were packed",
                 (unsigned long long)rep->partial_bytes, rep->partial_bytes == 1 ? "" : "s", esz,
                 (unsigned long long)(d->offset / esz));
    }
    return e;
}

static simtrace_error pack_import(packer *pk, const input *in, int fd, int no_unpack, simtrace_import_report *rep,
                                  simtrace_input_place *d)
{
    simtrace_import_params ip = import_params(pk, no_unpack);
    ip.prefix = in->stream;
    ip.skip_bad = (uint32_t)pk->skip_bad;
    ip.split_cr3 = (uint32_t)pk->split_cr3;
    ip.warn = imp_warn;
    ip.taken = imp_taken;
    simtrace_writer_import(pk->api, fd, in->from, &ip, rep);
    pk->writer_failed |= !rep->usable;
    if (pk->verbose || (rep->bad_lines && !pk->quiet))
        cli_msg("%s: %llu lines, %llu entries%s%llu malformed line%s skipped", pk->in_name,
                (unsigned long long)rep->lines, (unsigned long long)rep->entries, ", ",
                (unsigned long long)rep->bad_lines, rep->bad_lines == 1 ? "" : "s");
    if (rep->dropped && !pk->quiet) /* valid records without an entry: say so (IMPORT.md 10) */
        cli_msg("%s: %llu record%s not kept (lackey SB, din labels 3 and 4, xdin m, c, v)", pk->in_name,
                (unsigned long long)rep->dropped, rep->dropped == 1 ? "" : "s");
    return read_result(rep, d);
}

/* ---- containers, copied frame by frame ---- */

/* The place of a failure of a concatenation or repair (simtrace_concat_report,
 * simtrace_repair_report). */
static simtrace_input_place report_place(uint64_t offset, uint64_t frame, uint64_t stream, const char *detail)
{
    simtrace_input_place p = {offset, UINT64_MAX, "", frame, stream};
    snprintf(p.detail, sizeof p.detail, "%s", detail);
    return p;
}

static simtrace_error pack_container(packer *pk, int fd, unsigned threads, simtrace_input_place *d)
{
    simtrace_concat_params cp;
    simtrace_concat_params_init(&cp);
    cp.threads = threads;
    cp.progress = progress_cb;
    cp.progress_opaque = pk;
    simtrace_concat_report rep;
    simtrace_error e = simtrace_writer_concat_fd(pk->api, fd, &cp, &rep);
    if (e != SIMTRACE_OK)
        *d = report_place(rep.at_offset, rep.at_frame, rep.at_stream, rep.detail);
    return e;
}

/* Parse --type: a built-in name or NAME:SIZE.  Returns 1, 0 if s is not
 * a type, -1 if NAME is a built-in type's name. */
static int parse_type(const char *s, input *in)
{
    const char *colon = strrchr(s, ':');
    if (!colon) {
        in->type = simtrace_type_parse(s);
        return in->type != SIMTRACE_TYPE_NONE && in->type != SIMTRACE_TYPE_USER;
    }
    uint64_t v;
    size_t nl = (size_t)(colon - s);
    if (nl == 0 || nl > SIMTRACE_TYPE_NAME_MAX || !cli_parse_size(colon + 1, &v) || v < 1 ||
        v > SIMTRACE_USER_ENTRY_MAX)
        return 0;
    static char names[64][SIMTRACE_TYPE_NAME_MAX + 1];
    static unsigned nnames;
    if (nnames == 64)
        return 0;
    memcpy(names[nnames], s, nl);
    names[nnames][nl] = 0;
    /* a user type named d64 would be listed as d64 while holding other
     * entries, and messages about it would contradict themselves */
    if (simtrace_type_parse(names[nnames]) != SIMTRACE_TYPE_NONE)
        return -1;
    in->type = SIMTRACE_TYPE_USER;
    in->user_name = names[nnames++];
    in->user_size = (uint32_t)v;
    return 1;
}

/* Raw inputs packed into one stream must agree on its entry type.  Said
 * before any input is read: found at the second input, the first one was
 * already packed and the run stopped half done.  Returns 0 after the
 * message when two disagree. */
static int same_types_per_stream(const input *ins, size_t nin)
{
    for (size_t i = 0; i < nin; i++)
        for (size_t j = 0; j < i && !ins[i].from; j++) {
            const input *a = &ins[j], *b = &ins[i];
            const char *name = b->stream ? b->stream : "trace";
            if (a->from || strcmp(a->stream ? a->stream : "trace", name) != 0)
                continue;
            if (a->type == b->type && (a->type != SIMTRACE_TYPE_USER || (a->user_size == b->user_size &&
                                                                   strcmp(a->user_name, b->user_name) == 0)))
                continue;
            cli_msg("stream '%s': input '%s' is --type %s, but input '%s' is --type %s; a stream holds entries of "
                    "one type (give one of them another --stream)", name, a->path, a->type_arg ? a->type_arg : "d64",
                    b->path, b->type_arg ? b->type_arg : "d64");
            return 0;
        }
    return 1;
}

static int known_import(const char *f)
{
    for (unsigned i = 0; simtrace_import_format(i, NULL); i++)
        if (strcmp(simtrace_import_format(i, NULL), f) == 0)
            return 1;
    return 0;
}

/* Whether fd is the output file (out: its stat, NULL if there is none).
 * Character devices (/dev/null, a terminal) hold nothing to lose. */
static int is_output(int fd, const struct stat *out)
{
    struct stat st;
    return out && fstat(fd, &st) == 0 && st.st_dev == out->st_dev && st.st_ino == out->st_ino &&
           !S_ISCHR(st.st_mode);
}

static void say_is_output(const char *name, const char *out_name, int append, int to_stdout)
{
    cli_msg("%s: input is the output file %s; refusing to %s", name, out_name,
            append ? "append it to itself" : to_stdout ? "write it into itself" : "overwrite it");
}

/*
 * Open every input, standard input included, before anything is written:
 * an input that cannot be read then stops the run while the output (an
 * --append container above all) is still as it was.  An input that is the
 * output file itself is refused: -o would replace what is being read, and
 * --append would read its own new frames for ever.  Regular files are
 * closed again and reopened when their turn comes, so that any number of
 * them can be named; pipes, FIFOs and devices cannot be opened twice and
 * stay open (fd -1: reopen).  Returns an exit status.
 */
static int open_inputs(input *ins, size_t nin, const struct stat *out, const char *out_name, int append,
                       int to_stdout)
{
    for (size_t i = 0; i < nin; i++) {
        int rc = cli_in_open(ins[i].path, &ins[i].fd, &ins[i].name);
        if (rc != EXIT_OK)
            return rc;
        if (is_output(ins[i].fd, out)) {
            say_is_output(ins[i].name, out_name, append, to_stdout);
            return EXIT_USAGE;
        }
        struct stat st;
        if (ins[i].fd != 0 && fstat(ins[i].fd, &st) == 0 && S_ISREG(st.st_mode)) {
            close(ins[i].fd);
            ins[i].fd = -1;
        }
    }
    return EXIT_OK;
}

/* ---- drmemtrace directories ---- */

/* A drmemtrace trace file of a directory: one thread's records, as
 * "NAME.trace", or compressed ".trace.zip", ".trace.gz", ".trace.xz",
 * ".trace.zst"; not the schedule files beside them (cpu_schedule.bin.zip,
 * serial_schedule.bin.gz). */
static int is_drm_trace_name(const struct dirent *e)
{
    static const char *const ends[] = {".trace", ".trace.zip", ".trace.gz", ".trace.xz", ".trace.zst"};
    size_t n = strlen(e->d_name);
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        size_t k = strlen(ends[i]);
        if (n > k && strcmp(e->d_name + n - k, ends[i]) == 0)
            return 1;
    }
    return 0;
}

/* A --from drmemtrace input that is a directory (DynamoRIO's -offline
 * output: one file per thread) becomes its trace files in name order, one
 * input each with the directory's options: the library's import reads one
 * descriptor, so the directory is the program's to list.  *ins is
 * replaced; the old array's inputs are copied.  Returns an exit status. */
static int expand_drm_dirs(input **ins, size_t *nin)
{
    size_t n = 0, cap = *nin;
    input *out = calloc(cap ? cap : 1, sizeof *out);
    if (!out)
        goto nomem;
    for (size_t i = 0; i < *nin; i++) {
        const input *in = &(*ins)[i];
        struct stat sb;
        struct dirent **names = NULL;
        int k = 0;
        if (in->from && strcmp(in->from, "drmemtrace") == 0 && strcmp(in->path, "-") != 0 &&
            stat(in->path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            k = scandir(in->path, &names, is_drm_trace_name, alphasort);
            if (k <= 0) {
                cli_msg("%s: %s", in->path, k < 0 ? strerror(errno) : "no drmemtrace trace files (NAME.trace[.zip|.gz|.xz|.zst]) in the directory");
                free(names);
                free(out);
                return EXIT_DATA;
            }
        }
        size_t want = n + (k ? (size_t)k : 1);
        if (want > cap) {
            input *grown = realloc(out, want * sizeof *out);
            if (!grown)
                goto nomem;
            out = grown;
            cap = want;
        }
        if (!k)
            out[n++] = *in;
        for (int j = 0; j < k; j++) {
            size_t len = strlen(in->path) + strlen(names[j]->d_name) + 2;
            char *path = malloc(len);
            if (path)
                snprintf(path, len, "%s/%s", in->path, names[j]->d_name);
            free(names[j]);
            out[n] = *in;
            out[n++].path = path;
            if (!path)
                goto nomem;
        }
        free(names);
    }
    free(*ins); /* its paths are argv's */
    *ins = out; /* the new paths stay reachable from it until exit */
    *nin = n;
    return EXIT_OK;
nomem:
    cli_msg("out of memory");
    return EXIT_DATA;
}

/* ---- interrupted and failed runs (issue 15) ---- */

/*
 * An input that a signal ended (cli_stop_input): what its reader made of
 * the early end.  Part of an entry, read before the signal, is dropped, as
 * the line reader drops a cut line; every other error stands.  Returns 1
 * (no further input is read).
 */
static int stopped_input_end(packer *pk, simtrace_error *e, simtrace_input_place *d)
{
    if (*e == SIMTRACE_E_PARTIAL_ENTRY || *e == SIMTRACE_E_TRUNCATED) {
        /* the end the signal made: an entry, a record or a frame read in
         * part; what came before it is whole */
        if (!pk->quiet)
            cli_msg("%s: interrupted inside %s: the part read is dropped (%s)", pk->in_name,
                    *e == SIMTRACE_E_PARTIAL_ENTRY ? "an entry" : "a frame or record", d->detail);
        *e = SIMTRACE_OK;
        cli_place(d, "");
    }
    return 1;
}

/* Whether a finished -o file is kept: an interrupted or failed run that
 * stored no entry leaves nothing behind, so the corrected command does not
 * meet "file exists".  A run that succeeded keeps even an empty container. */
static int keep_output(packer *pk, const char *out_path, int failed)
{
    if (!out_path || strcmp(out_path, "-") == 0 || !(failed || cli_stopped()) || pk->kept)
        return 1;
    if (!pk->quiet)
        cli_msg("%s: no entry was stored; the file is not written", out_path);
    return 0;
}

/* The message and exit status of an interrupted run whose container is
 * finished (128 + the signal, as a shell reports it). */
static int say_stopped(packer *pk, const char *out_name, int append)
{
    cli_msg("%s: interrupted by %s: %s %llu entries%s", out_name, cli_stop_name(),
            append ? "the container is complete; it gained" : "the container is complete with",
            (unsigned long long)pk->kept, append ? "" : " (every entry read before the signal)");
    return cli_stop_status();
}

/*
 * --repair FILE [-o NEW]: the directory and footer of a container that has
 * none (cut off, an --append killed), rebuilt from its frame headers
 * (simtrace_repair_fd decides and writes; this says what it did).  In
 * place, the bytes after the last complete frame, which hold no readable
 * entry, are cut off; with -o, FILE is not changed and NEW gets its
 * complete frames with a new directory.
 */
static int repair_main(const char *file, const char *out_path, int force, int quiet)
{
    int in_place = !out_path;
    int fd = open(file, in_place ? O_RDWR : O_RDONLY);
    if (fd < 0) {
        cli_msg("%s: cannot open: %s", file, strerror(errno));
        return EXIT_DATA;
    }
    simtrace_repair_params rp;
    simtrace_repair_params_init(&rp);
    simtrace_repair_report rep;
    simtrace_error e = SIMTRACE_OK;
    int out_fd = -1, rc;
    if (!in_place) {
        /* NEW is created only for a container a repair can read */
        rp.check_only = 1;
        e = simtrace_repair_fd(fd, -1, &rp, &rep);
        rp.check_only = 0;
        if (e == SIMTRACE_OK && (rc = cli_out_open(out_path, force, 1, fd, &out_fd)) != EXIT_OK) {
            close(fd);
            return rc;
        }
    }
    if (e == SIMTRACE_OK)
        e = simtrace_repair_fd(fd, out_fd, &rp, &rep);
    if (rep.refused) {
        cli_msg("%s: not repaired, nothing changed: a damaged or misplaced frame lies at byte offset %llu and complete frames "
                "follow it from byte offset %llu, which a repair in place would cut off; 'simtrace-cat --salvage %s' "
                "writes the entries of every intact frame, and '--repair %s -o NEW' the frames before the damage",
                file, (unsigned long long)rep.frames_end, (unsigned long long)rep.frames_after, file, file);
        close(fd);
        return EXIT_DATA;
    }
    if (e != SIMTRACE_OK) {
        close(fd);
        if (out_fd >= 0)
            cli_out_abort();
        simtrace_input_place at = report_place(rep.at_offset, rep.at_frame, rep.at_stream, rep.detail);
        rc = cli_report_place(e, &at, rep.output_failed && !in_place ? out_path : file);
        if (rep.restored)
            cli_msg("%s: not repaired: the file is as it was before", file);
        return rc;
    }
    if (rep.complete && in_place) {
        if (!quiet)
            cli_msg("%s: its directory and footer are valid: nothing to repair", file);
        close(fd);
        return EXIT_OK;
    }
    if (in_place ? fsync(fd) != 0 || close(fd) != 0 : (close(fd), (rc = cli_out_commit()) != EXIT_OK)) {
        if (in_place)
            cli_msg("%s: write error: %s", file, strerror(errno));
        return EXIT_DATA;
    }
    uint64_t after = rep.frames_after;
    if (!quiet || after) {
        char tail[4096 + 256] = ""; /* (a path and the words around it) */
        if (after)
            snprintf(tail, sizeof tail, "; left out: the %llu bytes from byte offset %llu, a damaged or misplaced frame and complete "
                     "frames from byte offset %llu on ('simtrace-cat --salvage %s' writes their entries)",
                     (unsigned long long)rep.lost_bytes, (unsigned long long)rep.frames_end, (unsigned long long)after,
                     file);
        else if (rep.lost_bytes)
            snprintf(tail, sizeof tail, "; the %llu bytes from byte offset %llu, no complete frame, %s",
                     (unsigned long long)rep.lost_bytes, (unsigned long long)rep.frames_end,
                     in_place ? "were cut off" : "were left out");
        /* (the frames kept include the streams' declarations, which
         * --list does not count among a stream's frames) */
        cli_msg("%s: %s: directory and footer written for %llu entries in %llu frame%s, the streams' declarations "
                "counted%s", in_place ? file : out_path, rep.complete ? "copied, nothing to repair" : "repaired",
                (unsigned long long)rep.entries, (unsigned long long)rep.frames, rep.frames == 1 ? "" : "s", tail);
    }
    return after ? EXIT_DATA : EXIT_OK;
}

/* What one run does: the command line, and what happened. */
typedef struct {
    const char *out_path, *append, *repair;
    int force, concat, no_unpack, stdout_given;
    input *ins; /* the inputs named, in order */
    size_t nin;
    int out_fd;
    const char *out_name; /* the container, for messages */
    struct stat out_st;   /* the output file as it is at the start, for open_inputs() */
    int have_out_st;
    simtrace_error e;     /* a failure that loses the output (I/O, a bad container) */
    simtrace_input_place d; /* its place */
    const char *err_file; /* and the file it names */
    /* bad data in an input ends the run but keeps what came before it in a
     * valid container (exit 1) */
    simtrace_error data_err;
    char data_zkind[8]; /* the data error is in input that began like this ("xz"...) */
    simtrace_input_place data_diag;
    const char *data_file;
    size_t data_at; /* the input of data_err: the inputs after it are not read */
} run;

/* The options and inputs into *pk and *r.  Returns -1 to go on, or the
 * exit status (usage errors said; --help and --version done). */
static int parse_args(int argc, char **argv, packer *pk, run *r)
{
    simtrace_write_params_init(&pk->wp);
    pk->wp.threads = cli_ncpu();
    pk->wp.check_cycles = 1; /* a stream's cycles may not decrease unless --allow-cycle-reset */
    int profile, c;
    input cur = {NULL, NULL, NULL, SIMTRACE_TYPE_D64, 0, NULL, NULL, -1, NULL};
    /* in the static run: reachable until exit on every return path */
    r->ins = calloc((size_t)argc + 1, sizeof *r->ins);
    if (!r->ins) {
        cli_msg("out of memory");
        return EXIT_DATA;
    }
    opterr = 0;
    /* '-': inputs come back in order (as option 1), so --stream and --type
     * apply to the inputs after them */
    static const char shortopts[] = "-o:cs:e:T:fkvqhV123456789";
    if (!cli_check_levels(argc, argv, shortopts, longopts))
        return EXIT_USAGE;
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        switch (c) {
        case 1:
            cur.path = optarg;
            r->ins[r->nin++] = cur;
            break;
        case 'o': r->out_path = optarg; break;
        case 'c':
            r->out_path = NULL;
            r->stdout_given = 1;
            break;
        case 's':
            if (!cli_opt_stage(optarg, &pk->wp.stage))
                return EXIT_USAGE;
            break;
        case 'e':
            if (!cli_opt_encoder(optarg, &profile))
                return EXIT_USAGE;
            /* vpc codes vpc pairs only, and a writer gives them the vpc
             * encoder unless its profile is cm or cm1: -e vpc names cm2,
             * the default encoder, for the other types, with the level as
             * its own (not the method's) */
            pk->wp.profile_name = profile ? optarg : "cm2";
            pk->enc_name = optarg;
            break;
        case 'T':
            if (!cli_opt_threads(optarg, &pk->wp.threads))
                return EXIT_USAGE;
            break;
        case OPT_FRAME:
            if (!cli_opt_frame_size(optarg, &pk->wp.frame_entries))
                return EXIT_USAGE;
            break;
        case OPT_STREAM:
            if (!cli_opt_stream_name(optarg))
                return EXIT_USAGE;
            cur.stream = optarg;
            break;
        case OPT_TYPE:
            if ((c = parse_type(optarg, &cur)) < 0) {
                cli_msg("--type %s: '%.*s' is the name of a built-in entry type; give the user type another name",
                        optarg, (int)(strrchr(optarg, ':') - optarg), optarg);
                return EXIT_USAGE;
            }
            if (c == 0) {
                cli_msg("unknown entry type '%s' (use d64, d32, m64, m32, vpc, event, bytes or NAME:SIZE with "
                        "SIZE 1..%u)", optarg, SIMTRACE_USER_ENTRY_MAX);
                return EXIT_USAGE;
            }
            cur.type_arg = optarg;
            break;
        case OPT_FROM:
            if (strcmp(optarg, "raw") == 0)
                cur.from = NULL;
            else if (known_import(optarg))
                cur.from = optarg;
            else {
                cli_msg("unknown input format '%s' (see --help)", optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_CONCAT: r->concat = 1; break;
        case OPT_APPEND: r->append = optarg; break;
        case OPT_REPAIR: r->repair = optarg; break;
        case OPT_ALLOW_CYCLE_RESET: pk->wp.check_cycles = 0; break;
        case OPT_NO_UNPACK: r->no_unpack = 1; break;
        case OPT_TIMESTAMPS: pk->wp.timestamps = 1; break;
        case OPT_SKIP_BAD: pk->skip_bad = 1; break;
        case OPT_SPLIT_BY:
            if (strcmp(optarg, "cr3") != 0) {
                cli_msg("--split-by %s: the only split is cr3", optarg);
                return EXIT_USAGE;
            }
            pk->split_cr3 = 1;
            break;
        case 'f': r->force = 1; break;
        case 'k': break;
        case 'v': pk->verbose = 1; break;
        case 'q': pk->quiet = 1; break;
        case 'h': usage(stdout); return cli_stdout_done();
        case 'V': printf("simtrace-pack (svpc) %s\n", SVPC_VERSION); return cli_stdout_done();
        default:
            if (c >= '1' && c <= '9') {
                pk->wp.level = (uint32_t)(c - '0'); /* the method, or -e's level */
                break;
            }
            cli_bad_option(argv, optopt);
            fprintf(stderr, "Try 'simtrace-pack --help' for more information.\n");
            return EXIT_USAGE;
        }
    }
    /* after "--" getopt stops: the rest are inputs, even if they start with '-' */
    for (; optind < argc; optind++) {
        cur.path = argv[optind];
        r->ins[r->nin++] = cur;
    }
    if (r->nin == 0) { /* no input named: standard input, with the options given */
        cur.path = "-";
        r->ins[r->nin++] = cur;
    }
    {
        int drc = expand_drm_dirs(&r->ins, &r->nin);
        if (drc != EXIT_OK)
            return drc;
    }
    return -1;
}

/* --repair: the combinations it refuses, then the repair.  Returns the
 * exit status. */
static int repair_args(const packer *pk, const run *r)
{
    if (strcmp(r->repair, "-") == 0) {
        /* a repair rewrites the end of a file, in place or from it into -o */
        cli_msg("--repair -: a repair reads its container by random access; name the file (standard input "
                "cannot be repaired; 'simtrace-cat --salvage' reads a pipe)");
        return EXIT_USAGE;
    }
    if (r->append || r->concat || r->nin != 1 || strcmp(r->ins[0].path, "-") != 0 || r->ins[0].from) {
        cli_msg("--repair takes one container and no inputs, --append or --concat");
        return EXIT_USAGE;
    }
    /* without -o a repair writes in place: -c, asking for standard
     * output, would change the file the user meant to keep */
    if (r->stdout_given) {
        cli_msg("--repair writes in place, or into -o NEW; -c (standard output) cannot be used with it");
        return EXIT_USAGE;
    }
    return repair_main(r->repair, r->out_path, r->force, pk->quiet);
}

/* Options that do not go together, said before anything is opened.
 * Returns EXIT_OK or EXIT_USAGE. */
static int check_args(const packer *pk, const run *r)
{
    if (r->append && strcmp(r->append, "-") == 0) {
        /* an append rewrites the end of a file in place */
        cli_msg("--append -: an append writes into its container in place; name the file (a container on "
                "standard input cannot be appended to)");
        return EXIT_USAGE;
    }
    if (r->append && (r->out_path || r->stdout_given)) {
        cli_msg("--append writes into its container; %s cannot be used with it", r->out_path ? "-o" : "-c");
        return EXIT_USAGE;
    }
    if (r->append && r->concat) {
        cli_msg("--append and --concat cannot be combined (use --concat -o NEW A B)");
        return EXIT_USAGE;
    }
    if (!r->concat && !same_types_per_stream(r->ins, r->nin))
        return EXIT_USAGE;
    /* raw inputs' types are known now: an encoder named that codes one of
     * them not would be replaced without a word (svpc-compress refuses it
     * too); an import's streams are noted as they come (note_kept_encoder) */
    for (size_t i = 0; !r->concat && pk->enc_name && i < r->nin; i++)
        if (!r->ins[i].from && cli_encoder_codes(&pk->wp, pk->enc_name, r->ins[i].type) != EXIT_OK)
            return EXIT_USAGE;
    unsigned nstdin = 0, nbochs = 0;
    for (size_t i = 0; i < r->nin; i++) {
        if (strcmp(r->ins[i].path, "-") == 0)
            nstdin++;
        if (r->ins[i].from && strcmp(r->ins[i].from, "bochs") == 0)
            nbochs++;
    }
    if (pk->split_cr3 && nbochs == 0) {
        cli_msg("--split-by cr3 needs a --from bochs input");
        return EXIT_USAGE;
    }
    if (nstdin > 1) {
        cli_msg("standard input can be named only once");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* The container written (--append: reopened for appending, after the
 * checks that leave it as it is), and the inputs opened.  Returns -1 to go
 * on, or the exit status (said). */
static int open_output(packer *pk, run *r)
{
    int rc;
    r->out_fd = -1;
    cli_place(&r->d, "");
    /* the output file as it is now, for open_inputs(); standard output only
     * when it is a regular file (>> FILE) */
    r->out_name = r->append ? r->append : r->out_path && strcmp(r->out_path, "-") != 0 ? r->out_path : "(stdout)";
    int to_stdout = !r->append && (!r->out_path || strcmp(r->out_path, "-") == 0);
    simtrace_reopen_report rep;
    if (r->append) {
        r->out_fd = open(r->append, O_RDWR);
        if (r->out_fd < 0) {
            cli_msg("%s: cannot open: %s", r->append, strerror(errno));
            return EXIT_DATA;
        }
        r->have_out_st = fstat(r->out_fd, &r->out_st) == 0;
        r->e = simtrace_reopen_check_fd(r->out_fd, &rep);
        if (rep.refused) {
            cli_msg("%s: nothing appended, nothing changed: a damaged or misplaced frame lies at byte offset %llu and complete "
                    "frames follow it from byte offset %llu, which appending would overwrite; 'simtrace-cat "
                    "--salvage %s' writes the entries of every intact frame", r->append,
                    (unsigned long long)rep.found.frames_end, (unsigned long long)rep.found.frames_after, r->append);
            close(r->out_fd);
            return EXIT_DATA;
        }
        if (r->e != SIMTRACE_OK)
            return cli_report_place(r->e, &rep.where, r->append);
        if (!pk->quiet && !rep.found.complete) /* read through its frame headers: say what it lacks */
            cli_say_recovered(r->append, &rep.found, 0);
    } else if (r->out_path && strcmp(r->out_path, "-") != 0)
        r->have_out_st = stat(r->out_path, &r->out_st) == 0;
    else
        r->have_out_st = fstat(1, &r->out_st) == 0 && S_ISREG(r->out_st.st_mode);
    if ((rc = open_inputs(r->ins, r->nin, r->have_out_st ? &r->out_st : NULL, r->out_name, r->append != NULL, to_stdout)) != EXIT_OK)
        return rc;
    if (r->append) {
        /* from here on the container has no directory until simtrace_writer_end */
        r->e = simtrace_writer_reopen_fd(&pk->api, r->out_fd, &pk->wp, &rep);
        r->d = rep.where;
    } else {
        if ((rc = cli_out_open(r->out_path, r->force, 1, -1, &r->out_fd)) != EXIT_OK)
            return rc;
        r->e = simtrace_writer_create_fd(&pk->api, r->out_fd, &pk->wp);
    }
    r->err_file = r->out_name;
    pk->out_name = r->out_name;
    if (r->e != SIMTRACE_OK) {
        cli_out_abort();
        return cli_report_place(r->e, &r->d, r->err_file);
    }
    return -1;
}

/* Every input into the container, in order, until one fails. */
static void pack_inputs(packer *pk, run *r)
{
    cli_stop_arm();
    pk->t0 = pk->last = cli_now();
    for (size_t i = 0; i < r->nin && r->e == SIMTRACE_OK && r->data_err == SIMTRACE_OK && !cli_stopped(); i++) {
        int fd = r->ins[i].fd;
        pk->in_name = r->ins[i].name;
        cli_place(&r->d, "");
        if (fd < 0) {
            /* a regular file checked by open_inputs(): one that has gone
             * since, or been replaced by the output, is bad input, and what
             * came before it is kept */
            fd = open(r->ins[i].path, O_RDONLY);
            if (fd < 0 || is_output(fd, r->have_out_st ? &r->out_st : NULL)) {
                cli_place(&r->data_diag, "");
                if (fd < 0)
                    snprintf(r->data_diag.detail, sizeof r->data_diag.detail, "cannot open: %s", strerror(errno));
                else {
                    snprintf(r->data_diag.detail, sizeof r->data_diag.detail,
                             "it has become the output file %s since the run began", r->out_name);
                    close(fd);
                }
                r->data_err = SIMTRACE_E_READ;
                r->data_file = pk->in_name;
                r->data_at = i;
                break;
            }
        }
        /* xz, gzip, zstd inputs are read decompressed (by the library's
         * calls; not containers) */
        if (r->concat) {
            cli_stop_input(fd);
            r->e = pack_container(pk, fd, pk->wp.threads, &r->d);
            cli_stop_input(-1);
        } else {
            simtrace_import_report rep;
            memset(&rep, 0, sizeof rep);
            r->e = r->ins[i].from ? pack_import(pk, &r->ins[i], fd, r->no_unpack, &rep, &r->d)
                            : pack_raw(pk, &r->ins[i], fd, r->no_unpack, &rep, &r->d);
            /* damaged compressed data is what went wrong, whatever the
             * reader of its output made of the early end (an input a
             * signal ended was not searched for damage past the end) */
            if (rep.unpack_error != SIMTRACE_OK && r->e != SIMTRACE_E_WRITE) {
                if (r->e != SIMTRACE_OK && !pk->quiet)
                    cli_report_place(r->e, &r->d, pk->in_name); /* what the damage did, then the damage */
                r->e = (simtrace_error)rep.unpack_error;
                r->d = rep.unpack_where;
                snprintf(r->data_zkind, sizeof r->data_zkind, "%s", rep.unpacked);
            }
        }
        if (fd != 0)
            close(fd);
        if (cli_stopped() && stopped_input_end(pk, &r->e, &r->d))
            break;
        /* A number beyond the format's limits in an imported line is bad
         * input like any malformed line, and the writer can still finish;
         * from the writer (its directory full: the only source with raw
         * input or --concat) it is not. */
        int too_large_input = r->e == SIMTRACE_E_TOO_LARGE && !r->concat && r->ins[i].from && !pk->writer_failed;
        if (r->e != SIMTRACE_OK && (!r->concat || r->e == SIMTRACE_E_CYCLE_ORDER || r->e == SIMTRACE_E_TRUNCATED) &&
            r->e != SIMTRACE_E_WRITE && r->e != SIMTRACE_E_NOMEM && (r->e != SIMTRACE_E_TOO_LARGE || too_large_input) &&
            r->e != SIMTRACE_E_INTERNAL && simtrace_error_is_data(r->e)) {
            r->data_err = r->e;
            r->data_diag = r->d;
            r->data_file = pk->in_name;
            r->data_at = i;
            r->e = SIMTRACE_OK;
            cli_place(&r->d, ""); /* a later error is reported with its own place */
        } else if (r->e != SIMTRACE_OK) {
            r->err_file = pk->in_name;
            if (r->e == SIMTRACE_E_WRITE)
                r->err_file = r->out_name;
        }
    }
}

/* The container finished, or its failure handled; what happened said.
 * Returns the exit status. */
static int finish_run(packer *pk, run *r)
{
    int rc;
    /* An append that failed (a full disk, say) does not leave the
     * container without its directory: simtrace_writer_end keeps the new
     * frames written whole, or puts the container back as it was.  A bad
     * input before does not stop the container from finishing. */
    uint32_t end = SIMTRACE_END_NO_DIRECTORY;
    if (r->e == SIMTRACE_OK) {
        r->e = simtrace_writer_end(pk->api, 1, &end);
        if (r->e != SIMTRACE_OK)
            r->err_file = r->out_name;
    } else if (r->append) {
        simtrace_writer_end(pk->api, 0, &end);
    }
    if (r->e == SIMTRACE_OK)
        progress(pk, 1);
    simtrace_write_stats ws; /* entries: all read; entries_written: those of the frames kept */
    simtrace_writer_stats(pk->api, &ws);
    pk->kept = ws.entries;
    const uint64_t entries_read = ws.entries;
    simtrace_writer_free(pk->api);
    if (r->e != SIMTRACE_OK) {
        if (end == SIMTRACE_END_KEPT)
            cli_msg("%s: the container is complete with the %llu entries appended before the error (%llu more read "
                    "were not written)",
                    r->append, (unsigned long long)ws.entries_written,
                    (unsigned long long)(entries_read - ws.entries_written));
        else if (end == SIMTRACE_END_RESTORED)
            cli_msg("%s: nothing appended: the container is as it was before", r->append);
        else if (r->append)
            cli_msg("%s: the container now lacks its directory; 'simtrace-cat --salvage' reads what it holds", r->append);
        cli_out_abort();
        return cli_report_place(r->e, &r->d, r->err_file);
    }
    if (r->append) {
        if (close(r->out_fd) != 0) {
            cli_msg("%s: write error: %s", r->append, strerror(errno));
            return EXIT_DATA;
        }
    } else if (!keep_output(pk, r->out_path, r->data_err != SIMTRACE_OK)) {
        cli_out_abort();
    } else if ((rc = cli_out_commit()) != EXIT_OK)
        return rc;
    if (cli_stopped())
        return say_stopped(pk, r->out_name, r->append != NULL);
    if (r->data_err != SIMTRACE_OK) {
        rc = cli_report_place(r->data_err, &r->data_diag, r->data_file);
        /* a container without its end (cut off, an --append killed): its
         * complete frames are as good as any, and were copied */
        if (r->data_err == SIMTRACE_E_TRUNCATED && r->concat && !pk->quiet)
            cli_msg("%s: its complete frames were copied to %s, which is complete", r->data_file, r->out_name);
        if (r->data_err == SIMTRACE_E_CYCLE_ORDER && !pk->quiet)
            cli_msg("%s: the entries before it were kept; --allow-cycle-reset keeps such entries, or give them "
                    "another --stream", r->out_name);
        if (r->data_zkind[0] && !pk->quiet)
            cli_msg("%s: it begins like %s data; if it is not, give --no-unpack", r->data_file, r->data_zkind);
        /* (what is lost, so even with -q) */
        size_t left = r->nin - r->data_at - 1;
        if (left == 1)
            cli_msg("%s: %s, the input after %s, was not read", r->out_name, r->ins[r->data_at + 1].name,
                    r->data_file);
        else if (left)
            cli_msg("%s: the %zu inputs after %s (from %s on) were not read", r->out_name, left, r->data_file,
                    r->ins[r->data_at + 1].name);
        return rc;
    }
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    if (cli_std_fds("simtrace-pack") != EXIT_OK) /* first: before any file takes 0, 1 or 2 */
        return EXIT_DATA;
    static packer pk;
    static run r;
    int rc = parse_args(argc, argv, &pk, &r);
    if (rc >= 0)
        return rc;
    if (r.repair)
        return repair_args(&pk, &r);
    if ((rc = check_args(&pk, &r)) != EXIT_OK || (rc = open_output(&pk, &r)) >= 0)
        return rc;
    pack_inputs(&pk, &r);
    return finish_run(&pk, &r);
}
