/*
 * st_decomp.h - compressed inputs (xz, gzip, zstd) read as if they were
 * not compressed, recognised by their magic bytes, not by their names.
 *
 * The consumers (importers, the raw entry reader of frames/) read a file
 * descriptor; so a compressed input is decompressed by a thread into a pipe
 * whose read end they are given.  An input that is not compressed is given
 * back as it is when its first bytes can be looked at without reading them
 * (a regular file: pread; a pipe: tee(2)); otherwise (a terminal, a socket)
 * a thread copies it.  Memory is the decoder's (bounded: ST_DECOMP_MEMLIMIT)
 * and a 64 KiB buffer each way, whatever the input's size.
 */
#ifndef ST_DECOMP_H
#define ST_DECOMP_H

#include "st_error.h"

/* The most memory a decoder may take (an xz dictionary, a zstd window). */
#define ST_DECOMP_MEMLIMIT (UINT64_C(1) << 30)

typedef struct st_decomp st_decomp;

/*
 * Look at the start of fd.  Sets *out to the descriptor to read instead
 * (fd itself when nothing was needed, *dp = NULL), and *kind to "xz",
 * "gzip", "zstd" or NULL.  fd stays open and is the caller's.
 * With lines (a text consumer), what a decompressing or copying thread
 * gives ends with a newline unless the input ended cleanly: the bytes
 * after the last newline are held back until more arrive, and dropped
 * when the input turns out cut off, damaged or unreadable, so that a half
 * line is never read as a whole one (the held bytes are counted in the
 * close's message).  A line longer than ST_DECOMP_LINE_MAX is not held.
 * Returns ST_OK, ST_E_READ, ST_E_NOMEM, ST_E_THREAD.
 */
#define ST_DECOMP_LINE_MAX ((size_t)1 << 20)
st_error st_decomp_open(int fd, int lines, int *out, st_decomp **dp, const char **kind);

/*
 * Once the consumer has stopped reading *out: with drain, read and drop the
 * rest, so that damage after where the consumer stopped (a malformed line
 * that damaged data made, say) is still found; then close *out, stop the
 * thread and return its result: ST_OK; ST_E_CORRUPT (damaged data) or
 * ST_E_TRUNCATED (the compressed input ends early), with d->offset the
 * byte offset in the compressed input and d->detail what is wrong;
 * ST_E_MEMLIMIT (d->detail says how much); ST_E_READ.  Without drain, a
 * consumer that stopped before the end is not an error, and the thread is
 * stopped at once, not after the input's writer writes more or ends.
 * dp NULL: ST_OK.
 */
st_error st_decomp_close(st_decomp *dp, int drain, st_diag *d);

#endif
