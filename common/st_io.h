/*
 * st_io.h - whole reads and writes on file descriptors, retrying on EINTR
 * and short transfers.  errno is left as the failing call set it, for the
 * message.
 */
#ifndef ST_IO_H
#define ST_IO_H

#include <stddef.h>
#include <stdint.h>

#include "st_error.h"

/* Write all n bytes.  Returns ST_OK or ST_E_WRITE. */
st_error st_write_all(int fd, const uint8_t *p, size_t n);

/* Read n bytes, or fewer at end of file; *got tells how many.
 * Returns ST_OK (also at end of file) or ST_E_READ. */
st_error st_read_full(int fd, uint8_t *p, size_t n, size_t *got);

/* Read n bytes at offset off (pread: the file position stays).
 * Returns ST_OK, ST_E_READ, or ST_E_TRUNCATED (the file ends first). */
st_error st_pread_full(int fd, uint8_t *p, size_t n, uint64_t off);

#endif
