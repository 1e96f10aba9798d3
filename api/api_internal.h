/*
 * api_internal.h - what the files of the public API (api/) share: the
 * allocator, the error translation, messages.  Not installed.
 */
#ifndef ST_API_INTERNAL_H
#define ST_API_INTERNAL_H

#define SIMTRACE_BUILDING 1
#include "../include/simtrace.h"

#include <errno.h>

#include "../common/st_error.h"
#include "../frames/container.h"
#include "../frames/frame_format.h"

/* Bytes of a handle's message (simtrace_*_message). */
#define API_MSG_MAX 512u

/* The caller's allocator, or malloc/free. */
typedef struct {
    simtrace_allocator a;
    int set;
} api_alloc;

void api_alloc_init(api_alloc *al, const simtrace_allocator *a);
void *api_malloc(const api_alloc *al, size_t n);
void *api_calloc(const api_alloc *al, size_t n); /* zeroed */
void api_free(const api_alloc *al, void *p);

/* The public value of an internal error: the same number (api_common.c
 * asserts it); SIMTRACE_E_INTERNAL for a value outside the list. */
simtrace_error api_error(st_error e);

/* Write "where: what" of e and d into msg (API_MSG_MAX bytes); returns
 * api_error(e).  d may be NULL. */
simtrace_error api_fail(char *msg, st_error e, const st_diag *d);

/* The st_in_fn of a caller's read callback: arg is the simtrace_read_io. */
st_error api_read_io(void *arg, uint8_t *p, size_t n, size_t *got);

/* Run stmt (the cleanup of an open that failed: a free, a close) with
 * errno kept: the _path and _fd opens promise the system's reason of a
 * SIMTRACE_E_READ or _E_WRITE in errno, and cleanup must not overwrite it. */
#define API_KEEP_ERRNO(stmt)         \
    do {                             \
        int api_errno_ = errno;      \
        stmt;                        \
        errno = api_errno_;          \
    } while (0)

/* ---- the writer (api_write.c), shared with concatenation (api_concat.c) ---- */

/* What the writer holds per stream beyond the container writer. */
typedef struct {
    char name[ST_MAX_NAME + 1];
    uint32_t vdata; /* id of its ".vdata" companion, UINT32_MAX before the first wide value */
} api_wstream;

struct simtrace_writer {
    api_alloc al;
    st_writer *w;
    int fd, own_fd;
    simtrace_write_io io;
    svpc_params params; /* the profile's, for memory types */
    int closed;
    st_error failed;    /* sticky: a failure the container writer cannot recover from */
    api_wstream *s;
    uint32_t ns, cap;
    char msg[API_MSG_MAX];
};

/* SIMTRACE_OK for a writer that may take more (open, not failed); else
 * the error, with the message set. */
simtrace_error api_writer_usable(simtrace_writer *w);

/* A failure of the container writer: everything but a cycle out of order
 * and a refused argument leaves w unusable.  Sets the message from e and
 * d (NULL allowed); returns api_error(e). */
simtrace_error api_writer_fail(simtrace_writer *w, st_error e, const st_diag *d);

/* Add stream sp (its name not in w yet) and record it; *id its number. */
simtrace_error api_writer_add(simtrace_writer *w, const st_stream_spec *sp, uint32_t *id);

/*
 * For simtrace-pack until its main uses the public writer: a handle over
 * the container writer cw, which has no stream yet and stays the
 * caller's (cw's streams and entries go through the handle's calls from
 * then on; it is finished and freed by the caller, after
 * api_writer_unwrap).  p: the second stage and level of frames the
 * handle encodes.  Returns SIMTRACE_OK, SIMTRACE_E_USAGE, SIMTRACE_E_NOMEM.
 */
simtrace_error api_writer_wrap(simtrace_writer **w, st_writer *cw, const svpc_params *p);
/* Free the handle of api_writer_wrap, not its container writer.  NULL allowed. */
void api_writer_unwrap(simtrace_writer *w);

#endif /* ST_API_INTERNAL_H */
