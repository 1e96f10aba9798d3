#ifndef _GNU_SOURCE /* (the fuzz build defines it for every file) */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#endif
#include "line_reader.h"
#include "../common/st_io.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

st_error st_line_reader_init(st_line_reader *r, int fd, const volatile sig_atomic_t *stopped)
{
    memset(r, 0, sizeof *r);
    r->fd = fd;
    r->stopped = stopped;
    r->buf = malloc(ST_LINE_BUF + 1);
    struct stat st;
    r->pipe = fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
#ifdef F_SETPIPE_SZ
    /* a writer that flushes every line (Bochs) wakes us per line; a bigger
     * pipe lets it run ahead while we sleep (refill) */
    if (r->pipe)
        (void)fcntl(fd, F_SETPIPE_SZ, (int)ST_LINE_BUF);
#endif
    return r->buf ? ST_OK : ST_E_NOMEM;
}

void st_line_reader_free(st_line_reader *r)
{
    free(r->buf);
    r->buf = NULL;
}

/* Move the unread tail to the front and read more; sets eof at end. */
static st_error refill(st_line_reader *r)
{
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, r->end - r->pos);
        r->end -= r->pos;
        r->pos = 0;
    }
    while (r->end < ST_LINE_BUF) {
        ssize_t k = read(r->fd, r->buf + r->end, ST_LINE_BUF - r->end);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return ST_E_READ;
        }
        if (k == 0) {
            r->eof = 1;
            break;
        }
        r->end += (size_t)k;
        if (r->pipe && (size_t)k < 65536) {
            /* a short read from a pipe: the writer is slower than we are.
             * Waiting 10 ms lets lines pile up, so we read them in one call
             * instead of waking for each (halved the CPU time of a traced
             * Bochs run).  A writer faster than us fills whole reads and
             * never meets this sleep. */
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        break; /* one read per refill keeps pipes responsive */
    }
    return ST_OK;
}

st_error st_line_next(st_line_reader *r, const char **line, size_t *len, st_diag *d)
{
    *line = NULL;
    *len = 0;
    for (;;) {
        char *start = r->buf + r->pos;
        size_t avail = r->end - r->pos;
        char *nl = avail ? memchr(start, '\n', avail) : NULL;
        size_t n;
        if (nl)
            n = (size_t)(nl - start);
        else if (r->eof && avail && r->stopped && *r->stopped)
            return ST_OK; /* the run was interrupted mid-line (st_import_opts): a cut line is no line */
        else if (r->eof && avail)
            n = avail;
        else if (r->eof)
            return ST_OK;
        else {
            if (avail > ST_LINE_MAX)
                n = avail; /* too long: reported below */
            else {
                RETURN_IF_ERROR(refill(r));
                continue;
            }
        }
        r->line++;
        r->offset = r->next;
        if (n > ST_LINE_MAX) {
            if (d) {
                d->line = r->line;
                d->offset = r->offset;
            }
            return st_diag_set(d, ST_E_SYNTAX, "line longer than %u bytes", ST_LINE_MAX);
        }
        size_t used = nl ? n + 1 : n;
        r->pos += used;
        r->next += used;
        if (memchr(start, '\0', n)) {
            if (d) {
                d->line = r->line;
                d->offset = r->offset;
            }
            return st_diag_set(d, ST_E_SYNTAX, "NUL byte in a text line (binary input?)");
        }
        if (n && start[n - 1] == '\r')
            n--;
        start[n] = '\0'; /* overwrites '\n' or '\r', or the spare byte at the end */
        *line = start;
        *len = n;
        return ST_OK;
    }
}
