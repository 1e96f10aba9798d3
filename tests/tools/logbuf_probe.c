/* logbuf_probe.c - what scripts/bochs-logbuf.c does to a program, seen from
 * inside it.  Built as build/tests/logbuf/bochs-bin, the name the library
 * acts in (tests/cli/bochs_logbuf.bats).
 *
 * Usage: bochs-bin LOG OTHER [crash]
 * Writes a line into LOG and into OTHER, flushing each, and a line to
 * standard output, then reports on standard error the sizes of LOG, OTHER
 * and standard output (a regular file) at each step:
 *   "flushed L O S"  after the flushes;
 *   "read L O S"     after reading a line of standard input;
 *   "second L O S"   after a second line into LOG, flushed.
 * Then exits (or, with "crash", raises SIGSEGV).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static long long size_of_fd(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 ? (long long)st.st_size : -1;
}

static long long size_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static void report(const char *what, const char *log, const char *other)
{
    fprintf(stderr, "%s %lld %lld %lld\n", what, size_of(log), size_of(other), size_of_fd(1));
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s LOG OTHER [crash]\n", argv[0]);
        return 2;
    }
    FILE *log = fopen(argv[1], "w"), *other = fopen(argv[2], "w");
    if (!log || !other) {
        perror("fopen");
        return 1;
    }
    setbuf(stdout, NULL); /* as Bochs does */
    fputs("trace line one\n", log);
    fflush(log);
    fputs("other\n", other);
    fflush(other);
    fputs("stdout\n", stdout);
    fflush(stdout);
    report("flushed", argv[1], argv[2]);
    char line[64];
    if (!fgets(line, sizeof line, stdin))
        line[0] = 0;
    report("read", argv[1], argv[2]);
    fputs("trace line two\n", log);
    fflush(log);
    report("second", argv[1], argv[2]);
    if (argc > 3 && strcmp(argv[3], "crash") == 0)
        raise(SIGSEGV);
    fclose(other);
    return 0;
}
