/*
 * st_io.h - whole reads and writes on file descriptors, retrying on EINTR
 * and short transfers (errno is left as the failing call set it, for the
 * message), and the library's threads.
 */
#ifndef ST_IO_H
#define ST_IO_H

#include <stddef.h>
#include <stdint.h>

#include <pthread.h>

#include "st_error.h"

/*
 * Start a thread of the library (a pool worker, a decompressor, a cursor's
 * reader) with every signal blocked, as xz's mythread_create does: the
 * signals of the process go to its own threads, whose handlers (a host
 * simulator's SIGINT, the programs' stop) expect to run there and not in
 * the middle of the library's work.  The caller's mask is unchanged.
 * Returns 0 or pthread_create's error number.
 */
int st_thread_create(pthread_t *th, void *(*fn)(void *), void *arg);

/* Write all n bytes.  Returns ST_OK or ST_E_WRITE. */
st_error st_write_all(int fd, const uint8_t *p, size_t n);

/* Read n bytes, or fewer at end of file; *got tells how many.
 * Returns ST_OK (also at end of file) or ST_E_READ. */
st_error st_read_full(int fd, uint8_t *p, size_t n, size_t *got);

/* Read n bytes at offset off (pread: the file position stays).
 * Returns ST_OK, ST_E_READ, or ST_E_TRUNCATED (the file ends first). */
st_error st_pread_full(int fd, uint8_t *p, size_t n, uint64_t off);

#endif
