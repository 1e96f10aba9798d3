#define _POSIX_C_SOURCE 200809L
#include "st_io.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>

int st_thread_create(pthread_t *th, void *(*fn)(void *), void *arg)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the new thread inherits it */
    int rc = pthread_create(th, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

st_error st_write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n > ((size_t)1 << 30) ? ((size_t)1 << 30) : n);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return ST_E_WRITE;
        }
        p += k;
        n -= (size_t)k;
    }
    return ST_OK;
}

st_error st_read_full(int fd, uint8_t *p, size_t n, size_t *got)
{
    *got = 0;
    while (*got < n) {
        ssize_t k = read(fd, p + *got, n - *got);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return ST_E_READ;
        }
        if (k == 0)
            break;
        *got += (size_t)k;
    }
    return ST_OK;
}

st_error st_pread_full(int fd, uint8_t *p, size_t n, uint64_t off)
{
    while (n) {
        ssize_t k = pread(fd, p, n, (off_t)off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return ST_E_READ;
        if (k == 0)
            return ST_E_TRUNCATED;
        p += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return ST_OK;
}
