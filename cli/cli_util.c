#define _GNU_SOURCE /* renameat2 and RENAME_NOREPLACE (glibc 2.28) where there are */
#include "cli_util.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *cli_prog = "svpc";

/* The input being read (cli_stop_input), for -v's share of it read. */
static int prog_fd = -1;
static double prog_t0;
static uint64_t prog_pos0;

/* which of 0..2 were closed at start: bit n for descriptor n */
static unsigned std_closed;

int cli_std_fds(const char *prog)
{
    cli_prog = prog;
    /* past a file-size limit (ulimit -f) a write fails with EFBIG, a write
     * error like a full disk's, instead of SIGXFSZ ending the program
     * before it can remove a temporary output or end an --append */
    signal(SIGXFSZ, SIG_IGN);
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        /* the opposite direction: using it fails with EBADF, as using the
         * closed descriptor would have, instead of reading nothing or
         * writing into nothing with success */
        int n = open("/dev/null", (fd == 0 ? O_WRONLY : O_RDONLY) | O_NOCTTY);
        if (n != fd) {
            /* the lowest free number is fd, so this is an open failure:
             * going on could put an output file at fd */
            int saved = errno;
            if (n >= 0)
                close(n);
            /* (a write to a closed stderr fails harmlessly: nothing else
             * holds descriptor 2 yet) */
            fprintf(stderr, "%s: /dev/null: cannot open in place of closed descriptor %d: %s\n", prog, fd,
                        strerror(saved));
            return EXIT_DATA;
        }
        std_closed |= 1u << fd;
    }
    /* what the programs print through stdio (--help, --list, --stats) is
     * written at cli_stdout_done in one flush, whose errno is kept: a
     * text longer than stdio's 4 KiB would meet a full disk in a write
     * inside printf, whose errno later calls lose ("write error" with no
     * reason); a terminal keeps its line buffering */
    static char out_buf[1 << 16]; /* (glibc takes a size only with a buffer) */
    if (!isatty(1))
        setvbuf(stdout, out_buf, _IOFBF, sizeof out_buf);
    return EXIT_OK;
}

int cli_std_closed(int fd) { return fd >= 0 && fd <= 2 && (std_closed >> fd) & 1u; }

void cli_msg(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", cli_prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_status(int e)
{
    if (e == SIMTRACE_OK)
        return EXIT_OK;
    if (e == SIMTRACE_E_USAGE)
        return EXIT_USAGE;
    return EXIT_DATA;
}

const char cli_usage_tail[] = "  -k, --keep            accepted for xz compatibility (input is never removed)\n"
                              "  -v, --verbose         progress and a summary on standard error\n"
                              "  -q, --quiet           no warnings\n"
                              "  -h, --help            this help\n"
                              "  -V, --version         version\n"
                              "\n"
                              "Exit status: 0 success, 1 bad input or I/O error, 2 bad usage.\n";

int cli_report_place(int e, const simtrace_input_place *place, const char *file)
{
    int saved = errno;
    if (e == SIMTRACE_E_WRITE && saved == EPIPE) {
        /* the reader is gone (`... | head`): end quietly, as cat, xz and
         * zstd do, by the signal that SIGPIPE's default would have sent;
         * SIGPIPE is ignored while writing (cli_out_open) so that writes
         * fail here, after the output file's clean-up, not anywhere */
        signal(SIGPIPE, SIG_DFL);
        sigset_t ss;
        sigemptyset(&ss);
        sigaddset(&ss, SIGPIPE);
        sigprocmask(SIG_UNBLOCK, &ss, NULL);
        raise(SIGPIPE);
        return 128 + SIGPIPE; /* only if the signal could not end us */
    }
    char where[256] = "";
    size_t n = 0;
    if (place && place->line != UINT64_MAX)
        n += (size_t)snprintf(where + n, sizeof where - n, "line %llu", (unsigned long long)place->line);
    if (place && place->frame != UINT64_MAX && n < sizeof where)
        n += (size_t)snprintf(where + n, sizeof where - n, "%sframe %llu", n ? ", " : "", (unsigned long long)place->frame);
    if (place && place->stream != UINT64_MAX && n < sizeof where)
        n += (size_t)snprintf(where + n, sizeof where - n, "%sstream %llu", n ? " of " : "",
                              (unsigned long long)place->stream);
    if (place && place->offset != UINT64_MAX && n < sizeof where)
        n += (size_t)snprintf(where + n, sizeof where - n, "%sbyte offset %llu", n ? " at " : "at ",
                              (unsigned long long)place->offset);
    const char *detail = (place && place->detail[0] && strcmp(place->detail, simtrace_strerror(e)) != 0) ? place->detail : NULL;
    /* for I/O errors the system's reason is the detail that matters */
    if ((e == SIMTRACE_E_READ || e == SIMTRACE_E_WRITE || e == SIMTRACE_E_SEEK) && saved && !detail)
        detail = strerror(saved);
    fprintf(stderr, "%s: %s%s%s%s%s%s%s\n", cli_prog, file ? file : "", file ? ": " : "", where, n ? ": " : "",
            simtrace_strerror(e), detail ? ": " : "", detail ? detail : "");
    return cli_status(e);
}

void cli_place(simtrace_input_place *where, const char *detail)
{
    memset(where, 0, sizeof *where);
    where->offset = where->line = where->frame = where->stream = UINT64_MAX;
    snprintf(where->detail, sizeof where->detail, "%s", detail);
}

int cli_parse_number(const char *s, size_t n, uint64_t *out)
{
    char buf[32];
    if (n == 0 || n >= sizeof buf)
        return 0;
    memcpy(buf, s, n);
    buf[n] = 0;
    /* decimal, or hexadecimal with 0x (cycles are often written so); never
     * octal: a leading 0 is a zero, as 010 is ten */
    int hex = buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X');
    const char *digits = buf + (hex ? 2 : 0);
    if (!(hex ? isxdigit((unsigned char)digits[0]) : isdigit((unsigned char)digits[0])))
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(digits, &end, hex ? 16 : 10);
    if (errno)
        return 0;
    unsigned shift = 0;
    if (!hex && (*end == 'k' || *end == 'K'))
        shift = 10, end++;
    else if (!hex && *end == 'M')
        shift = 20, end++;
    else if (!hex && *end == 'G')
        shift = 30, end++;
    if (*end)
        return 0;
    if (shift && v > (UINT64_MAX >> shift))
        return 0;
    *out = (uint64_t)v << shift;
    return 1;
}

int cli_parse_size(const char *s, uint64_t *out) { return s && cli_parse_number(s, strlen(s), out); }

void cli_bad_option(char **argv, int opt)
{
    extern int optind;
    const char *arg = optind > 0 ? argv[optind - 1] : "?";
    /* a short option inside a group (-xq) leaves optind on its word, so
     * argv[optind - 1] is the word before, which may be a long option */
    const char *cur = argv[optind];
    int in_group = cur && cur[0] == '-' && cur[1] != '-' && opt > 0 && opt < 256 && strchr(cur + 1, opt);
    if (opt && !in_group && strncmp(arg, "--", 2) == 0 && arg[2]) {
        /* a long option that was found: optopt is its value, which names
         * a short option only by chance ('--help=x' is not '-h') */
        size_t len = strcspn(arg, "=");
        if (arg[len])
            cli_msg("option '%.*s' takes no argument (given '%s')", (int)len, arg, arg);
        else
            cli_msg("option '%s' requires an argument", arg);
    } else if (opt)
        cli_msg("invalid option or missing argument: '-%c'", opt);
    else
        cli_msg("unrecognized option or missing argument: '%s'", arg);
}

int cli_opt_threads(const char *arg, unsigned *out)
{
    uint64_t v;
    if (!cli_parse_size(arg, &v) || v > SIMTRACE_THREADS_MAX) {
        cli_msg("invalid thread count '%s' (0 = all CPUs, at most %u)", arg, SIMTRACE_THREADS_MAX);
        return 0;
    }
    *out = v ? (unsigned)v : cli_ncpu();
    return 1;
}

int cli_opt_frame_size(const char *arg, uint32_t *out)
{
    uint64_t v;
    if (!cli_parse_size(arg, &v) || v < 1 || v > SIMTRACE_FRAME_ENTRIES_MAX) {
        cli_msg("invalid frame size '%s' (1 to %u entries)", arg, SIMTRACE_FRAME_ENTRIES_MAX);
        return 0;
    }
    *out = (uint32_t)v;
    return 1;
}

int cli_opt_memlimit(const char *arg, uint64_t *out)
{
    if (!cli_parse_size(arg, out) || *out == 0) {
        cli_msg("invalid memory limit '%s' (bytes, with k, M or G)", arg);
        return 0;
    }
    return 1;
}

int cli_opt_stage(const char *arg, uint32_t *out)
{
    if (simtrace_stage_parse(arg, out) != SIMTRACE_OK) {
        cli_msg("unknown second stage '%s' (use lzma, bzip2, zlib or none)", arg);
        return 0;
    }
    return 1;
}

int cli_opt_encoder(const char *arg, int *profile)
{
    if (simtrace_encoder_check(arg, profile) != SIMTRACE_OK) {
        cli_msg("unknown encoder '%s' (use cmx, cm2, best, mix, fast, cm, cm1, paper, generic or vpc)", arg);
        return 0;
    }
    return 1;
}

int cli_opt_output(const char *arg)
{
    if (!*arg) {
        cli_msg("-o: empty file name");
        return 0;
    }
    return 1;
}

int cli_opt_stream_name(const char *arg)
{
    if (!*arg || strlen(arg) > 255) {
        cli_msg("invalid stream name '%s' (1 to 255 bytes)", arg);
        return 0;
    }
    return 1;
}

void cli_progress_counts(uint64_t entries, uint64_t raw_bytes, uint64_t out_bytes, double t0, int final)
{
    double now = cli_now(), dt = now - t0;
    if (final) {
        /* the ratio only now: before the last frame is written, the output
         * lags the input by up to a frame per thread */
        fprintf(stderr, "\r%s: %llu entries, %.1f MB of entries, %.2f MB out (%.2fx), %.1f s, %.1f MB/s\n", cli_prog,
                (unsigned long long)entries, raw_bytes / 1e6, out_bytes / 1e6,
                out_bytes ? (double)raw_bytes / (double)out_bytes : 0.0, dt, dt > 0 ? raw_bytes / 1e6 / dt : 0.0);
        return;
    }
    char where[128];
    struct stat st;
    off_t pos;
    if (prog_fd >= 0 && fstat(prog_fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (pos = lseek(prog_fd, 0, SEEK_CUR)) >= 0 && (uint64_t)pos >= prog_pos0) {
        /* a file of known size: how far, how fast, how long still */
        double in_dt = now - prog_t0, rate = in_dt > 0 ? ((uint64_t)pos - prog_pos0) / in_dt : 0;
        double left = rate > 0 ? ((double)st.st_size - (double)pos) / rate : -1;
        char eta[32] = "?";
        if (left >= 0)
            snprintf(eta, sizeof eta, "%d:%02d", (int)(left / 60), (int)left % 60);
        snprintf(where, sizeof where, "%.1f%% of the input read, %.1f MB/s, %s left; ",
                 100.0 * (double)pos / (double)st.st_size, rate / 1e6, eta);
    } else {
        snprintf(where, sizeof where, "%.1f MB/s; ", dt > 0 ? raw_bytes / 1e6 / dt : 0.0);
    }
    fprintf(stderr, "\r%s: %s%llu entries, %.2f MB out   ", cli_prog, where, (unsigned long long)entries,
            out_bytes / 1e6);
}

int cli_progress_due(double *last)
{
    double now = cli_now();
    if (now - *last <= 1.0)
        return 0;
    *last = now;
    return 1;
}

int cli_stdout_done(void)
{
    /* an error of an earlier write (its errno is gone), of the flush of
     * what is buffered (all of it, into a file or pipe), or of the close */
    errno = 0;
    int bad = ferror(stdout), saved = 0;
    if (fflush(stdout) != 0)
        bad = 1, saved = errno;
    if (fclose(stdout) != 0 && !saved)
        bad = 1, saved = errno;
    if (!bad)
        return EXIT_OK;
    errno = saved;
    return cli_report_place(SIMTRACE_E_WRITE, NULL, "(stdout)");
}

unsigned cli_ncpu(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (n > 64 ? 64 : (unsigned)n);
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- output ---- */

static char out_tmp[4096];
static char out_final[4096];
static volatile sig_atomic_t out_tmp_live;
static int out_tmp_fd = -1;
static int out_force; /* -f: the commit may replace a file of the final name */

static int out_keep_on_signal; /* a container writer: its finished frames outlive a second signal */

static int rename_noreplace(const char *from, const char *to);

/* ---- messages from a signal handler: write(2) only, no stdio ---- */

static char sig_msg[8192];
static size_t sig_msg_len;

static void sig_say(const char *s)
{
    while (*s && sig_msg_len < sizeof sig_msg - 1)
        sig_msg[sig_msg_len++] = *s++;
}

static const char *sig_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal";
}

/* Send the message built with sig_say, ended by a newline. */
static void sig_say_end(void)
{
    sig_msg[sig_msg_len++] = '\n';
    for (size_t off = 0; off < sig_msg_len;) {
        ssize_t n = write(2, sig_msg + off, sig_msg_len - off);
        if (n <= 0 && errno != EINTR)
            break;
        off += n > 0 ? (size_t)n : 0;
    }
    sig_msg_len = 0;
}

/*
 * A container writer stopped at once (a second signal): what is on disk is
 * its file header and the frames written so far, every one whole but
 * perhaps the last, without the directory and footer that
 * simtrace_writer_close() writes.  Readers find those frames through their
 * headers (simtrace_reader_recovery) and --repair gives the file its end, so
 * the file goes to its final name, or stays under its temporary one when
 * that is taken; only a file that holds nothing past its header is
 * removed.  Async-signal-safe.
 */
static void keep_unfinished(int sig)
{
    struct stat st;
    int empty = fstat(out_tmp_fd, &st) == 0 && st.st_size <= (off_t)SIMTRACE_FILE_HEADER_SIZE;
    sig_say(cli_prog);
    sig_say(": ");
    sig_say(out_final);
    sig_say(": stopped at once by a second ");
    sig_say(sig_name(sig));
    if (empty) {
        unlink(out_tmp);
        sig_say(" before any frame was written: no file is left");
    } else {
        const char *kept = (out_force ? rename(out_tmp, out_final) : rename_noreplace(out_tmp, out_final)) == 0
                               ? out_final
                               : out_tmp;
        sig_say(": the frames written so far are kept");
        if (kept == out_tmp) {
            sig_say(" as ");
            sig_say(out_tmp);
            sig_say(errno == EEXIST ? " (the name was taken)" : " (it could not be renamed into place)");
        }
        sig_say(", without the container's end; 'simtrace-pack --repair ");
        sig_say(kept);
        sig_say("' completes it");
    }
    sig_say_end();
    out_tmp_live = 0;
}

/* A signal that ends the program: the unfinished -o file is removed, or
 * kept when it holds a container's finished frames (keep_unfinished). */
static void on_signal(int sig)
{
    if (out_tmp_live) {
        if (out_keep_on_signal)
            keep_unfinished(sig);
        else
            unlink(out_tmp);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* SIGINT, SIGTERM and SIGHUP: the signals that stop a writer. */
static void stop_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
}

/* Hold the stop signals until sigprocmask(SIG_SETMASK, old, NULL). */
static void block_stop_signals(sigset_t *old)
{
    sigset_t block;
    stop_signals(&block);
    sigprocmask(SIG_BLOCK, &block, old);
}

/* ---- interruption of a writer (cli_stop_arm) ---- */

static volatile sig_atomic_t stop_sig;     /* the first SIGINT, SIGTERM or SIGHUP */
static volatile sig_atomic_t stop_fd = -1; /* the input being read */

/* The input ends here: /dev/null takes its descriptor's place, so the read
 * in progress (interrupted: no SA_RESTART) or the next one finds the end of
 * the input, and every reader of the suite finishes as at a normal end. */
static void stop_input(int fd)
{
    int n = open("/dev/null", O_RDONLY);
    if (n >= 0) {
        dup2(n, fd);
        close(n);
    }
}

/* The sender of the first signal when a process sent it with kill() (0
 * otherwise: the terminal's ^C), and when it came. */
static volatile sig_atomic_t stop_sender;
static struct timespec stop_when;

/*
 * Whether a second signal only repeats the first: the same signal from the
 * same process within a second.  GNU timeout sends its signal to the
 * program and then to the program's process group, and meant one request
 * to finish; a second ^C, or a kill from another process, asks to stop at
 * once.
 */
static int repeats_first(int sig, const siginfo_t *si)
{
    if (sig != stop_sig || !stop_sender || si->si_code != SI_USER || si->si_pid != (pid_t)stop_sender)
        return 0;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec - stop_when.tv_sec < 1 ||
           (now.tv_sec - stop_when.tv_sec == 1 && now.tv_nsec < stop_when.tv_nsec);
}

static void on_stop(int sig, siginfo_t *si, void *context)
{
    (void)context;
    const int saved_errno = errno; /* the interrupted code may be about to read it */
    if (stop_sig) {
        if (!repeats_first(sig, si))
            on_signal(sig); /* asked twice: stop at once */
        errno = saved_errno;
        return;
    }
    stop_sig = sig;
    stop_sender = si->si_code == SI_USER ? si->si_pid : 0;
    clock_gettime(CLOCK_MONOTONIC, &stop_when);
    if (stop_fd >= 0)
        stop_input(stop_fd);
    errno = saved_errno;
}

void cli_stop_arm(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_stop; /* no SA_RESTART: a blocked read returns */
    sa.sa_flags = SA_SIGINFO;
    stop_signals(&sa.sa_mask); /* one handler at a time: a SIGTERM waits for SIGINT's */
    out_keep_on_signal = 1;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

void cli_stop_input(int fd)
{
    sigset_t old;
    block_stop_signals(&old);
    stop_fd = fd;
    if (stop_sig && fd >= 0)
        stop_input(fd);
    sigprocmask(SIG_SETMASK, &old, NULL);
    prog_fd = fd;
    prog_t0 = cli_now();
    off_t pos = fd >= 0 ? lseek(fd, 0, SEEK_CUR) : -1;
    prog_pos0 = pos > 0 ? (uint64_t)pos : 0;
}

int cli_stopped(void) { return stop_sig; }

const volatile sig_atomic_t *cli_stop_flag(void) { return &stop_sig; }

const char *cli_stop_name(void)
{
    return sig_name(stop_sig);
}

int cli_stop_status(void) { return stop_sig ? 128 + stop_sig : EXIT_OK; }

int cli_container_in_open(const char *path, int *fd, const char **name)
{
    int rc = cli_in_open(path, fd, name);
    if (rc == EXIT_OK && *fd == 0 && isatty(0)) {
        /* a container is bytes no one types: waiting for them would hang */
        cli_msg("refusing to read a container from a terminal (give FILE, or a pipe or a redirection)");
        return EXIT_USAGE;
    }
    return rc;
}

int cli_in_open(const char *path, int *fd, const char **name)
{
    if (!path || strcmp(path, "-") == 0) {
        *fd = 0;
        *name = "(stdin)";
        if (cli_std_closed(0)) {
            /* closed at start: the read would fail; say so before any work */
            errno = EBADF;
            return cli_report_place(SIMTRACE_E_READ, NULL, *name);
        }
        return EXIT_OK;
    }
    *name = path;
    *fd = open(path, O_RDONLY);
    if (*fd < 0) {
        cli_msg("%s: cannot open: %s", path, strerror(errno));
        return EXIT_DATA;
    }
    struct stat st;
    if (fstat(*fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_msg("%s: is a directory", path);
        close(*fd);
        return EXIT_DATA;
    }
    return EXIT_OK;
}

/* out_tmp: path with ".tmpXXXXXX" for mkstemp, its file name part cut
 * short where the whole would not fit the directory's limit on names (an
 * -o name of 250 bytes is valid, the 260 of its temporary name are not).
 * Returns 0 after the message when the name of path itself is too long:
 * found out at the end, it would have cost the run. */
static int out_tmp_name(const char *path)
{
    static const char suffix[] = ".tmpXXXXXX";
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    char dir[sizeof out_tmp];
    snprintf(dir, sizeof dir, "%.*s", dir_len ? (int)dir_len : 1, dir_len ? path : ".");
    long max = pathconf(dir, _PC_NAME_MAX);
    if (max <= 0)
        max = NAME_MAX; /* unknown: the usual limit */
    size_t base = strlen(path + dir_len);
    if (base > (size_t)max) {
        cli_msg("%s: file name too long (%zu bytes; at most %ld)", path, base, max);
        return 0;
    }
    size_t room = (size_t)max > sizeof suffix ? (size_t)max - (sizeof suffix - 1) : 1;
    snprintf(out_tmp, sizeof out_tmp, "%.*s%s", (int)(dir_len + (base < room ? base : room)), path, suffix);
    return 1;
}

int cli_out_open(const char *path, int force, int binary, int in_fd, int *fd)
{
    /* a reader that goes away gives a write error, which cli_report turns
     * into a quiet end by SIGPIPE once the output is cleaned up */
    signal(SIGPIPE, SIG_IGN);
    if (!path || strcmp(path, "-") == 0) {
        if (cli_std_closed(1)) {
            /* closed at start: every write would fail; say so before any work */
            errno = EBADF;
            return cli_report_place(SIMTRACE_E_WRITE, NULL, "(stdout)");
        }
        if (binary && !force && isatty(1)) {
            cli_msg("refusing to write binary data to a terminal (use -o FILE, a pipe, or -f)");
            return EXIT_USAGE;
        }
        /* `prog FILE >> FILE` would grow the input while it is read */
        struct stat so1, si1;
        if (in_fd >= 0 && fstat(1, &so1) == 0 && S_ISREG(so1.st_mode) && fstat(in_fd, &si1) == 0 &&
            si1.st_dev == so1.st_dev && si1.st_ino == so1.st_ino) {
            cli_msg("standard output is the input file; refusing to write into it");
            return EXIT_USAGE;
        }
        *fd = 1;
        return EXIT_OK;
    }
    /* programs that do not check -o when they read it (cli_opt_output):
     * still before any work */
    if (!cli_opt_output(path))
        return EXIT_USAGE;
    if (strlen(path) + 16 > sizeof out_tmp) {
        cli_msg("%s: output path too long", path);
        return EXIT_USAGE;
    }
    struct stat so, si;
    if (!force && stat(path, &so) != 0 && lstat(path, &so) == 0) {
        /* a dangling symbolic link: writing would replace the link */
        cli_msg("%s: file exists; use -f to overwrite", path);
        return EXIT_DATA;
    }
    if (stat(path, &so) == 0) {
        if (in_fd >= 0 && fstat(in_fd, &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
            cli_msg("%s: output is the input file; refusing to overwrite it", path);
            return EXIT_USAGE;
        }
        if (!force) {
            cli_msg("%s: file exists; use -f to overwrite", path);
            return EXIT_DATA;
        }
        if (!S_ISREG(so.st_mode)) {
            /* a device or FIFO: write to it directly */
            *fd = open(path, O_WRONLY);
            if (*fd < 0) {
                cli_msg("%s: cannot open: %s", path, strerror(errno));
                return EXIT_DATA;
            }
            return EXIT_OK;
        }
    }
    out_force = force;
    snprintf(out_final, sizeof out_final, "%s", path);
    if (!out_tmp_name(path))
        return EXIT_USAGE;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    /* no signal between creating the file and recording it for removal */
    sigset_t old;
    block_stop_signals(&old);
    *fd = mkstemp(out_tmp);
    if (*fd >= 0)
        out_tmp_live = 1;
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (*fd < 0) {
        cli_msg("%s: cannot create output: %s", path, strerror(errno));
        return EXIT_DATA;
    }
    out_tmp_fd = *fd;
    mode_t um = umask(0);
    umask(um);
    fchmod(*fd, 0666 & ~um); /* mkstemp makes 0600; give the usual mode */
    return EXIT_OK;
}

/* Move the finished temporary file to the final name unless that name
 * exists: without -f, cli_out_open refused an existing file, but a file
 * created there while the program ran (by another command) must not be
 * replaced either, so the check has to be part of the move.  0, or -1 with
 * errno (EEXIST: the name is taken). */
static int rename_noreplace(const char *from, const char *to)
{
#if defined(__linux__) && defined(RENAME_NOREPLACE)
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
        return 0;
    /* EINVAL: a file system without the flag; ENOSYS: a kernel without
     * renameat2 (before 3.15) */
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
#endif
    /* link() never replaces a name either (EEXIST); the temporary name is
     * then dropped, and a signal in between leaves only the final file */
    if (link(from, to) == 0) {
        unlink(from);
        return 0;
    }
    if (errno != EPERM && errno != ENOSYS && errno != EOPNOTSUPP)
        return -1; /* EEXIST among them */
    /* a file system without hard links: the check of cli_out_open, again
     * as late as it can be; a file created in between is still replaced */
    struct stat st;
    if (lstat(to, &st) == 0) {
        errno = EEXIST;
        return -1;
    }
    return rename(from, to);
}

/* The commit with the stop signals held: a second signal in the middle
 * would find the temporary file renamed or removed but still recorded. */
static int out_commit(void)
{
    /* errors that only show at close (NFS, quotas) must fail the run */
    if (close(out_tmp_fd) != 0) {
        out_tmp_fd = -1;
        cli_msg("%s: write error: %s", out_final, strerror(errno));
        unlink(out_tmp);
        out_tmp_live = 0;
        return EXIT_DATA;
    }
    out_tmp_fd = -1;
    if ((out_force ? rename(out_tmp, out_final) : rename_noreplace(out_tmp, out_final)) != 0) {
        /* the output is complete, and its input may have been a pipe that
         * cannot be read again: it stays, under its temporary name */
        int err = errno;
        out_tmp_live = 0;
        if (err == EEXIST)
            cli_msg("%s: file exists (made while this ran); the output is kept as %s: rename it, or use -f", out_final,
                    out_tmp);
        else
            cli_msg("%s: cannot rename output into place: %s; the output is kept as %s", out_final, strerror(err),
                    out_tmp);
        return EXIT_DATA;
    }
    out_tmp_live = 0;
    return EXIT_OK;
}

int cli_out_commit(void)
{
    if (!out_tmp_live)
        return EXIT_OK;
    sigset_t old;
    block_stop_signals(&old);
    int rc = out_commit();
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}

void cli_out_abort(void)
{
    sigset_t old;
    block_stop_signals(&old);
    if (out_tmp_live) {
        unlink(out_tmp);
        out_tmp_live = 0;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
}

void cli_say_cut_loss(const char *file, uint64_t first_entry, uint64_t count, uint64_t offset, const char *stream,
                      int whole)
{
    if (whole)
        cli_msg("%s: entries %" PRIu64 "..%" PRIu64 " of stream '%s' were in the frame at byte offset %" PRIu64
                ", the last before the end, whose payload fails its checksum (damaged, or never written by a crash): "
                "lost", file, first_entry, first_entry + count - 1, stream, offset);
    else
        cli_msg("%s: entries %" PRIu64 "..%" PRIu64 " of stream '%s' were in the frame cut off at byte offset %" PRIu64
                ": lost", file, first_entry, first_entry + count - 1, stream, offset);
}

int cli_encoder_is_asked(const simtrace_write_params *wp, const char *named, const char *enc)
{
    return strcmp(enc, named) == 0 || (wp->profile_name && strcmp(enc, wp->profile_name) == 0);
}

int cli_encoder_codes(const simtrace_write_params *wp, const char *named, int type)
{
    const char *enc = NULL;
    simtrace_write_params_unused(wp, type, &enc);
    if (!named || !wp->profile_name || !enc || cli_encoder_is_asked(wp, named, enc))
        return EXIT_OK;
    cli_msg("encoder %s does not code %s entries%s", named, simtrace_type_name(type),
            simtrace_type_is_memory(type) ? " (use cmx, cm2, best, mix, fast, cm, cm1, paper or generic)" : "");
    return EXIT_USAGE;
}

int cli_say_stream_loss(simtrace_reader *r, const char *file, uint32_t si, const char *name,
                        const simtrace_range *rg)
{
    simtrace_recovery_info ri;
    simtrace_cut_frame c;
    if (simtrace_reader_recovery(r, &ri) != SIMTRACE_OK)
        return 0;
    /* complete frames after a damaged header, not read: of any stream */
    if (ri.frames_after)
        return 1;
    simtrace_stream_info s;
    if (simtrace_reader_stream_info(r, si, &s) != SIMTRACE_OK)
        return 0;
    uint64_t next = s.entries; /* the stream's first entry past those listed */
    int lost = 0;
    if (simtrace_reader_cut_frame(r, &c) == SIMTRACE_OK && c.stream == si) {
        lost = rg->kind == SIMTRACE_RANGE_ALL || (rg->kind == SIMTRACE_RANGE_ENTRIES && rg->hi > c.first_entry) ||
               (rg->kind == SIMTRACE_RANGE_CYCLES && rg->hi > c.first_cycle) ||
               (rg->kind == SIMTRACE_RANGE_TIME && c.has_time && rg->hi > c.first_time);
        if (lost)
            cli_say_cut_loss(file, c.first_entry, c.entries, c.offset, name, (int)c.whole);
        next = c.first_entry + c.entries;
    }
    /* bytes after the last frame (or after a whole one that fails its
     * checksum) that may have held entries: of the stream a cut header
     * names, or of any; past the entries listed */
    if (ri.tail_lost && (ri.tail_stream == UINT32_MAX || ri.tail_stream == si) &&
        (rg->kind != SIMTRACE_RANGE_ENTRIES || rg->hi > next)) {
        cli_say_tail_loss(file, ri.tail_offset, ri.file_size - ri.tail_offset, next, name);
        lost = 1;
    }
    return lost;
}

void cli_say_tail_loss(const char *file, uint64_t offset, uint64_t bytes, uint64_t first_entry, const char *stream)
{
    cli_msg("%s: the %" PRIu64 " bytes from byte offset %" PRIu64 " are not a whole frame (the file ends inside a "
            "frame header, or they are damaged or were never written): entries of stream '%s' from %" PRIu64
            " on may have been there: lost, how many is not known", file, bytes, offset, stream, first_entry);
}

void cli_say_recovered(const char *file, const simtrace_recovery_info *ri, int pipe)
{
    const unsigned long long end = ri->frames_end, tail = ri->file_size - ri->frames_end;
    char lost[4096 + 256] = ""; /* (a path and the words around it) */
    if (ri->frames_after)
        snprintf(lost, sizeof lost, "; a damaged or misplaced frame lies at byte offset %llu, and complete frames "
                 "follow it from byte offset %llu, which are not read here: 'simtrace-cat --salvage' reads past the "
                 "damage%s", end, (unsigned long long)ri->frames_after,
                 pipe ? "" : " ('simtrace-pack --repair' refuses in place; with -o it leaves them out)");
    else if (tail)
        snprintf(lost, sizeof lost, "; the %llu bytes from byte offset %llu hold no readable entry", tail, end);
    if (!pipe && !ri->frames_after) /* (a path: the buffer's 4096 leave room for it) */
        snprintf(lost + strlen(lost), sizeof lost - strlen(lost), "; 'simtrace-pack --repair %s' rebuilds the end",
                 file);
    if (pipe)
        cli_msg("%s: unexpected end of input (truncated): no valid directory and footer (%s): its %llu complete "
                "data frame%s (%llu entries) were read%s", file, ri->reason, (unsigned long long)ri->frames,
                ri->frames == 1 ? "" : "s", (unsigned long long)ri->entries, lost);
    else
        cli_msg("%s: no valid directory and footer (cut off, or an --append that did not finish: %s): found %llu "
                "complete data frames (%llu entries) by scanning%s",
                file, ri->reason, (unsigned long long)ri->frames, (unsigned long long)ri->entries, lost);
}

void cli_warn_if_text(int fd, const char *name, const char *hint)
{
    struct stat st;
    off_t pos = lseek(fd, 0, SEEK_CUR);
    if (pos < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return; /* a pipe cannot be looked at without taking what it holds */
    uint8_t b[4096];
    ssize_t n = pread(fd, b, sizeof b, pos);
    if (n < 16)
        return;
    int lines = 0;
    for (ssize_t i = 0; i < n; i++) {
        if (b[i] == '\n')
            lines++;
        else if ((b[i] < 0x20 || b[i] > 0x7e) && b[i] != '\t' && b[i] != '\r')
            return; /* binary entries hold zero bytes and other controls */
    }
    if (lines)
        cli_msg("%s: warning: this looks like text, not raw entries (it is taken as entries all the same); %s", name,
                hint);
}

int cli_check_levels(int argc, char **argv, const char *shortopts, const struct option *longopts)
{
    if (*shortopts == '-' || *shortopts == '+') /* getopt's ordering, not an option */
        shortopts++;
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || !a[1])
            continue; /* an operand, or "-" for standard input */
        if (a[1] == '-') {
            /* --name VALUE takes the next word; --name=VALUE and optional
             * arguments do not.  A prefix names the option as in
             * getopt_long (an ambiguous one is its error, not ours) */
            const char *name = a + 2;
            size_t n = strcspn(name, "=");
            if (name[n] == '=')
                continue;
            const struct option *hit = NULL;
            for (const struct option *o = longopts; o && o->name; o++) {
                if (strncmp(o->name, name, n) != 0)
                    continue;
                if (strlen(o->name) == n) {
                    hit = o;
                    break;
                }
                if (!hit)
                    hit = o;
            }
            if (hit && hit->has_arg == required_argument)
                i++;
            continue;
        }
        if (isdigit((unsigned char)a[1]) && isdigit((unsigned char)a[2]) &&
            strspn(a + 1, "0123456789") == strlen(a + 1)) {
            cli_msg("invalid compression level '%s' (use -1 .. -9)", a);
            return 0;
        }
        /* a cluster (-vT2, -o FILE): the first option that takes an
         * argument takes the rest of the word, or the next word */
        for (const char *p = a + 1; *p; p++) {
            const char *o = *p == ':' ? NULL : strchr(shortopts, *p);
            if (o && o[1] == ':') {
                if (o[2] != ':' && !p[1])
                    i++;
                break;
            }
        }
    }
    return 1;
}

void cli_help_word(FILE *f, size_t *col, const char *w)
{
    if (*col + 1 + strlen(w) > 79) {
        fputs("\n                       ", f);
        *col = 23;
    }
    fprintf(f, " %s", w);
    *col += 1 + strlen(w);
}

void cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* ---- helpers of several programs' outputs and readers ---- */

int cli_write_all(int fd, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    while (n) {
        /* a write of more than 1 GiB at once is cut short on some systems */
        ssize_t k = write(fd, p, n > ((size_t)1 << 30) ? ((size_t)1 << 30) : n);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

int cli_open_reader(int fd, const char *file, simtrace_read_params *rp, simtrace_reader **r)
{
    rp->keep_failed = 1;
    simtrace_error e = simtrace_reader_open_fd(r, fd, rp);
    if (e == SIMTRACE_OK)
        return EXIT_OK;
    int saved = errno;
    simtrace_input_place at;
    if (!*r || simtrace_reader_place(*r, &at) != SIMTRACE_OK)
        cli_place(&at, "");
    simtrace_reader_free(*r);
    *r = NULL;
    errno = saved;
    return cli_report_place(e, &at, file);
}

void cli_note_reader(simtrace_reader *r, const char *file, int quiet)
{
    simtrace_recovery_info ri;
    if (simtrace_reader_recovery(r, &ri) == SIMTRACE_OK && !ri.complete && (!quiet || ri.frames_after))
        cli_say_recovered(file, &ri, 0);
}
