/* st_decomp.c - compressed inputs through a decompressing thread
 * (contract in st_decomp.h). */
#ifndef _GNU_SOURCE /* (the fuzz build defines it for every file) */
#define _GNU_SOURCE /* tee(2) */
#endif
#include "st_decomp.h"

#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "st_bytes.h"
#include "st_io.h"

#define BUF (64u * 1024u)
#define MAGIC_MAX 6u /* the longest magic: xz's */
/* The first bytes of a zstd frame: magic number and frame header
 * descriptor (RFC 8878 3.1.1), from which the decoder asks for the rest. */
#define ZSTD_FRAME_START 5u

typedef enum { K_COPY, K_XZ, K_GZIP, K_ZSTD } kind_t;

struct st_decomp {
    pthread_t th;
    int in;            /* the compressed input (the caller's) */
    int wr;            /* write end of the pipe */
    int rd;            /* read end, given to the consumer */
    int stop[2];       /* a pipe: a byte in it tells the thread the consumer
                          has stopped (st_decomp_close) */
    int stopped;       /* the thread saw it: its result does not count */
    kind_t kind;
    uint8_t head[MAGIC_MAX]; /* the first bytes, when they had to be read */
    size_t head_len, head_pos;
    uint64_t consumed; /* compressed bytes given to the decoder */
    int lines;         /* hold back an unfinished last line (st_decomp_open) */
    st_buf hold;       /* what came after the last newline given */
    st_error hold_err; /* holding failed (no memory): not a consumer that stopped */
    st_error err;
    st_diag d;
};

static kind_t magic(const uint8_t *p, size_t n)
{
    static const uint8_t xz[6] = {0xFD, '7', 'z', 'X', 'Z', 0}, gz[3] = {0x1F, 0x8B, 8},
                         zs[4] = {0x28, 0xB5, 0x2F, 0xFD};
    if (n >= 6 && memcmp(p, xz, 6) == 0)
        return K_XZ;
    /* gzip's magic is 2 bytes, which one raw trace in 65,536 begins with
     * (its first cycle): also the method (8, deflate, the only one) and
     * flags with their reserved bits clear (RFC 1952) */
    if (n >= 4 && memcmp(p, gz, 3) == 0 && (p[3] & 0xE0u) == 0)
        return K_GZIP;
    if (n >= 4 && memcmp(p, zs, 4) == 0)
        return K_ZSTD;
    return K_COPY;
}

/* Up to MAGIC_MAX bytes of fd without taking them: pread on a regular
 * file, tee(2) on a pipe.  Returns the count, or -1 if fd allows neither. */
static ssize_t peek(int fd, uint8_t *p)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
    if (S_ISREG(st.st_mode)) {
        off_t pos = lseek(fd, 0, SEEK_CUR);
        if (pos < 0)
            return -1;
        ssize_t k;
        do
            k = pread(fd, p, MAGIC_MAX, pos);
        while (k < 0 && errno == EINTR);
        return k;
    }
    if (!S_ISFIFO(st.st_mode))
        return -1;
    int t[2];
    if (pipe2(t, O_CLOEXEC) != 0)
        return -1;
    ssize_t got = -1;
    /* tee copies what the pipe holds now; the writer may not have written
     * MAGIC_MAX bytes yet, so wait for more (or its end) a little while */
    for (int tries = 0; tries < 2000; tries++) {
        ssize_t k = tee(fd, t[1], MAGIC_MAX, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            break;
        if (k > 0) {
            got = read(t[0], p, (size_t)k);
            if (got == MAGIC_MAX)
                break;
        } else {
            got = 0; /* the writer has gone: the input is empty */
            break;
        }
        struct timespec ts = {0, 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    close(t[0]);
    close(t[1]);
    return got;
}

/* Hand n bytes to the consumer; 0 when it has stopped reading.  For a
 * text consumer only up to the last newline: the rest waits in z->hold
 * for the newline that ends it, or for the end of the input (thread_main
 * gives it if the input ended cleanly, and drops it otherwise). */
static int give(st_decomp *z, const uint8_t *p, size_t n)
{
    if (!z->lines)
        return st_write_all(z->wr, p, n) == ST_OK;
    size_t cut = n;
    while (cut > 0 && p[cut - 1] != '\n')
        cut--;
    if (cut == 0 && z->hold.len + n <= ST_DECOMP_LINE_MAX)
        return (z->hold_err = st_buf_append(&z->hold, p, n)) == ST_OK;
    if (cut == 0)
        cut = n; /* a line too long to hold: passed on as it comes */
    if (z->hold.len && st_write_all(z->wr, z->hold.data, z->hold.len) != ST_OK)
        return 0;
    z->hold.len = 0;
    if (st_write_all(z->wr, p, cut) != ST_OK)
        return 0;
    return (z->hold_err = st_buf_append(&z->hold, p + cut, n - cut)) == ST_OK;
}

/* Read some compressed input; 0 at its end. */
static st_error take(st_decomp *z, uint8_t *p, size_t *n)
{
    if (z->head_pos < z->head_len) {
        *n = z->head_len - z->head_pos;
        memcpy(p, z->head + z->head_pos, *n);
        z->head_pos = z->head_len;
        return ST_OK;
    }
    /* wait for input or for the consumer to stop: a consumer that stopped
     * (a signal, a write error) must not wait for a slow upstream pipe to
     * write more or end */
    struct pollfd pf[2] = {{z->in, POLLIN, 0}, {z->stop[0], POLLIN, 0}};
    int r;
    do
        r = poll(pf, 2, -1);
    while (r < 0 && errno == EINTR);
    if (r > 0 && pf[1].revents) {
        z->stopped = 1;
        *n = 0;
        return ST_OK;
    }
    ssize_t k;
    do
        k = read(z->in, p, BUF);
    while (k < 0 && errno == EINTR);
    if (k < 0)
        return ST_E_READ;
    *n = (size_t)k;
    return ST_OK;
}

static st_error fail(st_decomp *z, st_error e, const char *what)
{
    z->d.offset = z->consumed;
    return st_diag_set(&z->d, e, "%s", what);
}

static st_error run_copy(st_decomp *z, uint8_t *in)
{
    for (;;) {
        size_t n;
        RETURN_IF_ERROR(take(z, in, &n));
        if (n == 0 || !give(z, in, n))
            return ST_OK;
    }
}

static st_error run_xz(st_decomp *z, uint8_t *in, uint8_t *out)
{
    lzma_stream s = LZMA_STREAM_INIT;
    if (lzma_stream_decoder(&s, ST_DECOMP_MEMLIMIT, LZMA_CONCATENATED) != LZMA_OK)
        return ST_E_NOMEM;
    st_error e = ST_OK;
    int eof = 0;
    for (;;) {
        if (s.avail_in == 0 && !eof) {
            size_t n;
            if ((e = take(z, in, &n)) != ST_OK)
                break;
            s.next_in = in;
            s.avail_in = n;
            eof = n == 0;
        }
        s.next_out = out;
        s.avail_out = BUF;
        size_t before = s.avail_in;
        lzma_ret r = lzma_code(&s, eof ? LZMA_FINISH : LZMA_RUN);
        z->consumed += before - s.avail_in;
        if (BUF - s.avail_out && !give(z, out, BUF - s.avail_out))
            break;
        if (r == LZMA_STREAM_END)
            break;
        if (r == LZMA_OK)
            continue;
        if (r == LZMA_BUF_ERROR && eof)
            e = fail(z, ST_E_TRUNCATED, "the xz data ends early (cut off?)");
        else if (r == LZMA_MEMLIMIT_ERROR)
            e = fail(z, ST_E_MEMLIMIT, "the xz data needs more than 1 GiB of memory to decompress");
        else if (r == LZMA_MEM_ERROR)
            e = ST_E_NOMEM;
        else
            e = fail(z, ST_E_CORRUPT, "damaged xz data");
        break;
    }
    lzma_end(&s);
    return e;
}

static st_error run_gzip(st_decomp *z, uint8_t *in, uint8_t *out)
{
    z_stream s;
    memset(&s, 0, sizeof s);
    if (inflateInit2(&s, 15 + 16) != Z_OK)
        return ST_E_NOMEM;
    st_error e = ST_OK;
    int eof = 0, member_done = 0;
    for (;;) {
        if (s.avail_in == 0 && !eof) {
            size_t n;
            if ((e = take(z, in, &n)) != ST_OK)
                break;
            s.next_in = in;
            s.avail_in = (uInt)n;
            eof = n == 0;
        }
        if (s.avail_in == 0 && eof) {
            if (!member_done)
                e = fail(z, ST_E_TRUNCATED, "the gzip data ends early (cut off?)");
            break;
        }
        if (member_done) {
            /* gzip files may be members one after the other (cat a.gz b.gz) */
            inflateReset(&s);
            member_done = 0;
        }
        s.next_out = out;
        s.avail_out = BUF;
        uInt before = s.avail_in;
        int r = inflate(&s, Z_NO_FLUSH);
        z->consumed += before - s.avail_in;
        if (BUF - s.avail_out && !give(z, out, BUF - s.avail_out))
            break;
        if (r == Z_STREAM_END)
            member_done = 1;
        else if (r == Z_MEM_ERROR) {
            e = ST_E_NOMEM;
            break;
        } else if (r != Z_OK && !(r == Z_BUF_ERROR && s.avail_in == 0)) {
            e = fail(z, ST_E_CORRUPT, "damaged gzip data");
            break;
        }
    }
    inflateEnd(&s);
    return e;
}

static st_error run_zstd(st_decomp *z, uint8_t *in, uint8_t *out)
{
    ZSTD_DStream *s = ZSTD_createDStream();
    if (!s)
        return ST_E_NOMEM;
    ZSTD_DCtx_setParameter(s, ZSTD_d_windowLogMax, 30); /* ST_DECOMP_MEMLIMIT */
    st_error e = ST_OK;
    ZSTD_inBuffer ib = {in, 0, 0};
    size_t last = 0; /* 0: at a frame boundary */
    /* The decoder is given no more than the input it asks for (its hint:
     * the rest of a frame header, or a block with the header of the next),
     * so that damage is placed within those bytes, a block at most (128
     * KiB), not at the start of the 64 KiB read that held it (offset 0 for
     * the first block): a call that fails says nothing of the input it took. */
    size_t want = ZSTD_FRAME_START, unit_len = ZSTD_FRAME_START;
    uint64_t unit_start = 0; /* where the input the decoder asked for begins */
    for (;;) {
        if (ib.pos == ib.size) {
            size_t n;
            if ((e = take(z, in, &n)) != ST_OK)
                break;
            if (n == 0) {
                if (last != 0)
                    e = fail(z, ST_E_TRUNCATED, "the zstd data ends early (cut off?)");
                break;
            }
            ib.size = n;
            ib.pos = 0;
        }
        ZSTD_outBuffer ob = {out, BUF, 0};
        size_t avail = ib.size - ib.pos;
        ZSTD_inBuffer part = {(const uint8_t *)ib.src + ib.pos, want < avail ? want : avail, 0};
        last = ZSTD_decompressStream(s, &ob, &part);
        if (ZSTD_isError(last)) {
            z->consumed = unit_start;
            if (ZSTD_getErrorCode(last) == ZSTD_error_frameParameter_windowTooLarge) {
                e = fail(z, ST_E_MEMLIMIT, "the zstd data needs more than 1 GiB of memory to decompress");
                break;
            }
            char what[96];
            snprintf(what, sizeof what, "damaged zstd data in bytes %llu..%llu", (unsigned long long)unit_start,
                     (unsigned long long)(unit_start + unit_len - 1));
            e = fail(z, ST_E_CORRUPT, what);
            break;
        }
        ib.pos += part.pos;
        z->consumed += part.pos;
        if (ob.pos && !give(z, out, ob.pos))
            break;
        if (part.pos < want) {
            want -= part.pos;
            continue;
        }
        /* all it asked for is in: the next unit (a block, or after a frame
         * the next frame's header) starts here */
        unit_start = z->consumed;
        want = unit_len = last ? last : ZSTD_FRAME_START;
    }
    ZSTD_freeDStream(s);
    return e;
}

static void *thread_main(void *arg)
{
    st_decomp *z = arg;
    uint8_t *in = malloc(BUF), *out = malloc(BUF);
    if (!in || !out)
        z->err = ST_E_NOMEM;
    else if (z->kind == K_XZ)
        z->err = run_xz(z, in, out);
    else if (z->kind == K_GZIP)
        z->err = run_gzip(z, in, out);
    else if (z->kind == K_ZSTD)
        z->err = run_zstd(z, in, out);
    else
        z->err = run_copy(z, in);
    if (z->stopped) {
        /* the end taken for the input's was the consumer's */
        z->err = ST_OK;
        z->hold.len = 0;
    }
    if (z->err == ST_E_READ)
        fail(z, ST_E_READ, "cannot read the input");
    /* the run_* functions took the failed give() for a consumer that
     * stopped: the input did not end there */
    if (z->err == ST_OK && z->hold_err != ST_OK)
        z->err = z->hold_err;
    if (z->err == ST_OK && z->hold.len) {
        (void)st_write_all(z->wr, z->hold.data, z->hold.len); /* a last line without its newline */
    } else if (z->hold.len && z->d.detail[0]) {
        /* a half line read as a whole one would be a wrong entry */
        char what[sizeof z->d.detail];
        memcpy(what, z->d.detail, sizeof what);
        uint64_t at = z->d.offset;
        st_diag_set(&z->d, z->err, "%s; the unfinished line before it (%zu bytes) was left out", what, z->hold.len);
        z->d.offset = at;
    }
    st_buf_free(&z->hold);
    free(in);
    free(out);
    close(z->wr); /* the consumer sees the end */
    z->wr = -1;
    return NULL;
}

static void close_stop(st_decomp *z)
{
    close(z->stop[0]);
    close(z->stop[1]);
}

st_error st_decomp_open(int fd, int lines, int *out, st_decomp **dp, const char **kind)
{
    static const char *const names[] = {NULL, "xz", "gzip", "zstd"};
    *dp = NULL;
    *out = fd;
    *kind = NULL;
    uint8_t head[MAGIC_MAX];
    ssize_t n = peek(fd, head);
    size_t taken = 0;
    if (n < 0) {
        /* neither a file nor a pipe: read the bytes, and pass them on */
        size_t got = 0;
        while (got < MAGIC_MAX) {
            ssize_t k = read(fd, head + got, MAGIC_MAX - got);
            if (k < 0 && errno == EINTR)
                continue;
            if (k < 0)
                return ST_E_READ;
            if (k == 0)
                break;
            got += (size_t)k;
        }
        n = (ssize_t)got;
        taken = got;
    }
    kind_t k = magic(head, (size_t)n);
    if (k == K_COPY && !taken)
        return ST_OK;
    st_decomp *z = calloc(1, sizeof *z);
    if (!z)
        return ST_E_NOMEM;
    z->in = fd;
    z->kind = k;
    z->lines = lines;
    st_buf_init(&z->hold, 0);
    st_diag_clear(&z->d);
    if (taken) {
        memcpy(z->head, head, taken);
        z->head_len = taken;
    }
    int p[2];
    if (pipe2(z->stop, O_CLOEXEC) != 0) {
        free(z);
        return ST_E_NOMEM;
    }
    if (pipe2(p, O_CLOEXEC) != 0) {
        close_stop(z);
        free(z);
        return ST_E_NOMEM;
    }
    z->rd = p[0];
    z->wr = p[1];
    if (st_thread_create(&z->th, thread_main, z) != 0) {
        close(p[0]);
        close(p[1]);
        close_stop(z);
        free(z);
        return ST_E_THREAD;
    }
    *dp = z;
    *out = z->rd;
    *kind = names[k];
    return ST_OK;
}

st_error st_decomp_close(st_decomp *z, int drain, st_diag *d)
{
    if (!z)
        return ST_OK;
    if (drain) {
        uint8_t buf[4096];
        ssize_t k;
        while ((k = read(z->rd, buf, sizeof buf)) > 0 || (k < 0 && errno == EINTR))
            ;
    }
    /* a consumer that stopped early: the thread's writes now fail (EPIPE;
     * SIGPIPE is blocked in it), a wait for input ends at the stop byte,
     * and it ends */
    if (!drain)
        (void)!write(z->stop[1], "", 1);
    close(z->rd);
    pthread_join(z->th, NULL);
    close_stop(z);
    st_error e = z->err;
    if (e != ST_OK && d)
        *d = z->d;
    free(z);
    return e;
}
