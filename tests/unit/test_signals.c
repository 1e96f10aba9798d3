/* A host program with its own SIGINT handler (a simulator that stops on
 * ^C) using the library: the library's threads (a writer's workers, a
 * sequential cursor's reader) block every signal, so a SIGINT sent to the
 * process reaches the host's thread, never one of the library's, where the
 * host's handler would run in the middle of the library's work.  Only
 * <simtrace.h> is included, as a user of the installed library would. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../include/simtrace.h"
#include "check.h"

#define ENTRIES 20000u
#define FRAME 500u

static pthread_t host;
static volatile sig_atomic_t in_host, elsewhere;

static void on_int(int sig)
{
    (void)sig;
    if (pthread_equal(pthread_self(), host))
        in_host++;
    else
        elsewhere++;
}

/*
 * SIGINT to the process while the host's thread holds it blocked: a thread
 * that does not block it takes it within the pause; the library's threads
 * must not, so it waits for the host, which then takes it.  Checks that the
 * host has taken `want` in all, and no other thread any.
 */
static void interrupt_host(int want)
{
    sigset_t s, old;
    sigemptyset(&s);
    sigaddset(&s, SIGINT);
    pthread_sigmask(SIG_BLOCK, &s, &old);
    kill(getpid(), SIGINT);
    struct timespec pause = {0, 200 * 1000 * 1000};
    nanosleep(&pause, NULL);
    CHECK(elsewhere == 0);
    pthread_sigmask(SIG_SETMASK, &old, NULL); /* pending: delivered here */
    CHECK(in_host == want);
}

/* d64 entries with rising cycles and a few addresses. */
static void make_entries(uint8_t *raw)
{
    unsigned long long seed = 12345;
    for (uint32_t i = 0; i < ENTRIES; i++) {
        uint64_t f[4] = {0x400000u + (check_rand(&seed) % 64) * 4, 0x7f0000u + (i % 97) * 8, 1000u + 3u * i,
                         check_rand(&seed) % 256};
        for (int k = 0; k < 4; k++)
            for (int b = 0; b < 8; b++)
                raw[32 * i + 8 * k + b] = (uint8_t)(f[k] >> (8 * b));
    }
}

int main(void)
{
    host = pthread_self();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_int;
    sigaction(SIGINT, &sa, NULL);

    static uint8_t raw[32 * ENTRIES];
    make_entries(raw);
    char path[] = "/tmp/test_signals.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return check_done("test_signals");
    unlink(path);

    /* a writer with worker threads, while it has frames to code */
    simtrace_write_params wp;
    simtrace_write_params_init(&wp);
    wp.threads = 3;
    wp.frame_entries = FRAME;
    simtrace_writer *w;
    uint32_t sid;
    CHECK(simtrace_writer_create_fd(&w, fd, &wp) == SIMTRACE_OK);
    CHECK(simtrace_writer_add_stream(w, "s", SIMTRACE_TYPE_D64, &sid) == SIMTRACE_OK);
    CHECK(simtrace_writer_write(w, sid, raw, ENTRIES / 2) == SIMTRACE_OK);
    interrupt_host(1);
    CHECK(simtrace_writer_write(w, sid, raw + 32 * (ENTRIES / 2), ENTRIES - ENTRIES / 2) == SIMTRACE_OK);
    CHECK(simtrace_writer_close(w) == SIMTRACE_OK);
    simtrace_writer_free(w);

    off_t len = lseek(fd, 0, SEEK_END);
    uint8_t *file = malloc(len > 0 ? (size_t)len : 1);
    CHECK(len > 4096 && file && pread(fd, file, (size_t)len, 0) == len);
    close(fd);

    /* a sequential cursor, whose thread reads a pipe: the first part of the
     * container is there, so the cursor is bound and its thread waits in a
     * read for the rest */
    int pfd[2];
    CHECK(pipe(pfd) == 0);
    size_t part = (size_t)len / 2 < 32768 ? (size_t)len / 2 : 32768;
    CHECK(write(pfd[1], file, part) == (ssize_t)part);
    simtrace_read_params rp;
    simtrace_read_params_init(&rp);
    rp.threads = 2;
    simtrace_reader *r;
    simtrace_cursor *c;
    CHECK(simtrace_reader_open_fd(&r, pfd[0], &rp) == SIMTRACE_OK);
    CHECK(simtrace_cursor_open(&c, r, "s", NULL) == SIMTRACE_OK);
    interrupt_host(2);

    /* the rest, from a child (the pipe may be full), and every entry back */
    pid_t pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        size_t at = part;
        while (at < (size_t)len) {
            ssize_t k = write(pfd[1], file + at, (size_t)len - at);
            if (k <= 0)
                _exit(1);
            at += (size_t)k;
        }
        _exit(0);
    }
    close(pfd[1]);
    uint8_t buf[32 * 128];
    uint64_t got = 0, n;
    int same = 1;
    simtrace_error e;
    while ((e = simtrace_cursor_next(c, buf, sizeof buf, &n, NULL)) == SIMTRACE_OK && n) {
        same &= got + n <= ENTRIES && memcmp(buf, raw + 32 * got, (size_t)n * 32) == 0;
        got += n;
    }
    CHECK(e == SIMTRACE_OK && got == ENTRIES && same);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    simtrace_cursor_free(c);
    simtrace_reader_free(r);
    close(pfd[0]);
    free(file);
    return check_done("test_signals");
}
