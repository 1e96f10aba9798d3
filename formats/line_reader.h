/*
 * line_reader.h - buffered line reading for the text importers (internal to
 * formats/).
 *
 * Reads a file descriptor in large blocks and returns one line at a time
 * without copying when the line lies within the buffer.  Lines end at '\n';
 * a '\r' before it is dropped (CRLF input), and a last line without '\n' is
 * still returned.  A line longer than ST_LINE_MAX bytes is an error, so the
 * memory used is bounded whatever the input.
 */
#ifndef ST_LINE_READER_H
#define ST_LINE_READER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/st_error.h"

#define ST_LINE_MAX 65536u
#define ST_LINE_BUF (1u << 20)

typedef struct {
    int fd;
    char *buf;       /* ST_LINE_BUF + 1 bytes */
    size_t pos, end; /* unread bytes are buf[pos..end) */
    int eof;
    int pipe;        /* fd is a pipe or FIFO */
    uint64_t line;   /* number of the line last returned, 1-based */
    uint64_t offset; /* byte offset of the line last returned */
    uint64_t next;   /* byte offset of the next line */
    const volatile sig_atomic_t *stopped; /* st_import_opts.stopped */
} st_line_reader;

/* stopped: the caller's stop request (st_import_opts), or NULL.  Returns
 * ST_OK or ST_E_NOMEM. */
st_error st_line_reader_init(st_line_reader *r, int fd, const volatile sig_atomic_t *stopped);
void st_line_reader_free(st_line_reader *r);

/*
 * Next line: *line points at its bytes (not counting "\n" or "\r\n"), NUL
 * terminated, valid until the next call; *len is its length.  Returns ST_OK
 * with *line == NULL at end of input; ST_E_SYNTAX (d->line, d->offset set)
 * for a line over ST_LINE_MAX bytes or containing a NUL byte; ST_E_READ.
 */
st_error st_line_next(st_line_reader *r, const char **line, size_t *len, st_diag *d);

#endif /* ST_LINE_READER_H */
