/* bochs-logbuf.c - bochs-trace preloads this into Debian's Bochs
 * (LD_PRELOAD) to take the cost of its unbuffered output off the traced
 * run.
 *
 * Bochs 2.7's debugger calls fflush() after every piece of every trace
 * line it prints, into its debugger log and again into its standard
 * output: 8 to 9 write calls per traced instruction into each
 * (doc/TRACE-SOURCES.md, "What bounds a traced run").  Those calls cost
 * more than the simulation itself.  Here the two streams get a large
 * buffer and their fflush() calls do nothing; they are written out
 *   - when Bochs waits for a debugger command (readline(), or fgets() on
 *     standard input), so a controller reading standard output still sees
 *     each stop before it answers, and every trace line of a step or run
 *     is out before the command after it (a "q") is read;
 *   - when Bochs exits (the C library flushes every stream);
 *   - when Bochs is killed by a crash signal (best effort: Bochs 2.7 with
 *     the term display sometimes crashes while tearing down).
 * The bytes written are the same, in the same order; only the number of
 * write calls changes.
 *
 * Active only in bochs-bin, and only when BOCHS_LOGBUF_LOG names the
 * debugger log (the path as bochsrc gives it); BOCHS_LOGBUF_STDOUT=1 also
 * buffers standard output.  Elsewhere (the /usr/bin/bochs wrapper shell)
 * every call goes straight to the C library.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a few thousand trace lines per write call */
#define LOGBUF_SIZE (256u * 1024u)

/* readline's prototype, without needing its development headers */
char *readline(const char *prompt);

static int active;
static const char *log_path;
static FILE *held_log, *held_out; /* the buffered streams, or NULL */
/* their buffers (setvbuf with a NULL buffer would take the size as a hint
 * only, and the C library allocates one of the file's block size, 4 KiB
 * for a FIFO); they outlive every stream they serve */
static char log_mem[LOGBUF_SIZE], out_mem[LOGBUF_SIZE];

#define REAL(ret, name, args)                                                                                         \
    static ret(*real_##name) args;                                                                                    \
    if (!real_##name)                                                                                                 \
        *(void **)&real_##name = dlsym(RTLD_NEXT, #name);

static int is_held(FILE *f) { return active && f != NULL && (f == held_log || f == held_out); }

static void flush_held(void)
{
    REAL(int, fflush, (FILE *))
    if (!real_fflush)
        return;
    if (held_log)
        real_fflush(held_log);
    if (held_out)
        real_fflush(held_out);
}

/* A stream no other thread is writing: flush it (its lock is recursive,
 * so a crash inside stdio in this thread still gets here). */
static void flush_if_free(FILE *f)
{
    if (f && ftrylockfile(f) == 0) {
        fflush_unlocked(f);
        funlockfile(f);
    }
}

static void on_crash(int sig)
{
    /* Bochs 2.7 crashes now and then in its sound mixer's thread while
     * tearing down after a clean quit.  Every trace line is out by then
     * (Bochs read the "q" after a flush), so this matters only for a crash
     * in mid-run.  Not async-signal-safe, but the process is going down
     * either way; a stream another thread holds is left alone, since
     * waiting for it could hang the crash. */
    flush_if_free(held_log);
    flush_if_free(held_out);
    signal(sig, SIG_DFL);
    raise(sig);
}

__attribute__((constructor)) static void logbuf_init(void)
{
    const char *lp = getenv("BOCHS_LOGBUF_LOG"), *so = getenv("BOCHS_LOGBUF_STDOUT");
    if (!lp || !*lp || strcmp(program_invocation_short_name, "bochs-bin") != 0)
        return;
    active = 1;
    log_path = lp;
    if (so && strcmp(so, "1") == 0 && setvbuf(stdout, out_mem, _IOFBF, sizeof out_mem) == 0)
        held_out = stdout;
    static const int crash[] = {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE};
    for (size_t i = 0; i < sizeof crash / sizeof crash[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_crash;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        sigaction(crash[i], &sa, NULL);
    }
}

static FILE *opened(FILE *f, const char *path)
{
    if (active && f && !held_log && strcmp(path, log_path) == 0 && setvbuf(f, log_mem, _IOFBF, sizeof log_mem) == 0)
        held_log = f;
    return f;
}

FILE *fopen(const char *path, const char *mode)
{
    REAL(FILE *, fopen, (const char *, const char *))
    if (!real_fopen) {
        errno = ENOSYS;
        return NULL;
    }
    return opened(real_fopen(path, mode), path);
}

FILE *fopen64(const char *path, const char *mode)
{
    REAL(FILE *, fopen64, (const char *, const char *))
    if (!real_fopen64) {
        errno = ENOSYS;
        return NULL;
    }
    return opened(real_fopen64(path, mode), path);
}

int fclose(FILE *f)
{
    REAL(int, fclose, (FILE *))
    if (f && f == held_log)
        held_log = NULL;
    if (f && f == held_out)
        held_out = NULL;
    return real_fclose ? real_fclose(f) : EOF;
}

int fflush(FILE *f)
{
    REAL(int, fflush, (FILE *))
    if (is_held(f))
        return 0;
    return real_fflush ? real_fflush(f) : EOF;
}

/* Bochs makes standard output unbuffered at start; it stays buffered */
void setbuf(FILE *f, char *buf)
{
    REAL(void, setbuf, (FILE *, char *))
    if (is_held(f) && buf == NULL)
        return;
    if (real_setbuf)
        real_setbuf(f, buf);
}

char *readline(const char *prompt)
{
    REAL(char *, readline, (const char *))
    flush_held();
    return real_readline ? real_readline(prompt) : NULL;
}

char *fgets(char *s, int n, FILE *f)
{
    REAL(char *, fgets, (char *, int, FILE *))
    if (f == stdin)
        flush_held();
    return real_fgets ? real_fgets(s, n, f) : NULL;
}
