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
#include "../frames/range.h"

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

/* *p: the place d gives (d NULL: nothing known). */
void api_place_set(simtrace_input_place *p, const st_diag *d);

/* The parts of a reader (api_read.c) that the recovery calls
 * (api_recover.c) use: its index (NULL for a sequential reader) and its
 * message buffer (API_MSG_MAX bytes). */
st_index *api_reader_index(simtrace_reader *r);
char *api_reader_msg(simtrace_reader *r);
/* A failure of a read on r (simtrace_reader_read, a cursor, wide values):
 * its message, and its place for simtrace_reader_place; returns
 * api_error(e).  d may be NULL. */
simtrace_error api_reader_fail(simtrace_reader *r, st_error e, const st_diag *d);
/* The internal range of a public one (NULL: everything); SIMTRACE_E_USAGE
 * for a bad kind or lo > hi (api_range.c). */
simtrace_error api_range_in(const simtrace_range *in, st_range *rg);
/* r's index, or NULL when r is sequential: then *pe is SIMTRACE_E_STATE and
 * r's message says that `what` needs random access (api_recover.c). */
st_index *api_random_index(simtrace_reader *r, const char *what, simtrace_error *pe);
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
    int reopened;       /* from simtrace_writer_reopen_*: simtrace_writer_end keeps
                           what was appended, or puts the container back */
    st_error failed;    /* sticky: a failure the container writer cannot recover from */
    api_wstream *s;
    uint32_t ns, cap;
    char msg[API_MSG_MAX];
};

/* For the statistics (api_stats.c), with api_reader_index above. */
/* Stream index of r's list (sequential: declared so far), or NULL. */
const st_stream_info *api_reader_stream(const simtrace_reader *r, uint32_t index);
/* Claim sequential reader r for api_reader_pull_frame, as a cursor does
 * (it then takes no cursor); ST_E_STATE when it is random access or was
 * claimed before. */
st_error api_reader_claim(simtrace_reader *r);
/* A claimed reader's input up to its next data frame, which goes to sink
 * undecoded (on the caller's thread): *more is 1 after a frame, 0 at the
 * end of a sound input or on an error (returned as st_reader_next). */
st_error api_reader_pull_frame(simtrace_reader *r, st_frame_sink sink, void *arg, int *more, st_diag *d);
/* The writer's parts that api_import.c and api_concat.c work with. */
/* SIMTRACE_OK when w may take more; else why not, in its message. */
simtrace_error api_writer_usable(simtrace_writer *w);
/* A failure of the container writer, into w's message; every failure but
 * a cycle out of order and a usage error makes w take nothing more. */
simtrace_error api_writer_fail(simtrace_writer *w, st_error e, const st_diag *d);
/* Declare a stream (a unique name) and keep its record. */
simtrace_error api_writer_add(simtrace_writer *w, const st_stream_spec *sp, uint32_t *id);
/* The stream named sp->name: one that w holds must have sp's type and
 * entry size (ST_E_BAD_STREAM, d says so), else it is added with sp. */
st_error api_writer_take(simtrace_writer *w, const st_stream_spec *sp, uint32_t *sid, st_diag *d);
st_writer *api_writer_core(simtrace_writer *w);
char *api_writer_msg(simtrace_writer *w); /* API_MSG_MAX bytes */
svpc_params api_writer_params(const simtrace_writer *w); /* the profile's codec */

/* The encoder of a stream of type t that p's encoder does not code (an
 * encoder of another tool's records, -e champsim, and memory entries):
 * the one p's level chooses when no encoder is named (-6: cmx), where it
 * codes t, else generic. */
svpc_encoder api_level_encoder(svpc_params p, st_entry_type t);
/* The codec of a new imported or raw stream of type t in a writer of codec
 * p: p where its encoder codes t; else vpc pairs take the vpc encoder,
 * cvp, champsim and drmemtrace records theirs, the rest api_level_encoder. */
svpc_params api_stream_params(svpc_params p, st_entry_type t);

/* The start of simtrace_writer_create_* and _reopen_*: *out NULL until
 * the caller completes the handle; *w the handle of params pp (NULL: the
 * defaults) on fd, or on path opened with flags (closed by
 * simtrace_writer_free), without its container writer, which the caller
 * makes with *o.  Returns SIMTRACE_OK; SIMTRACE_E_USAGE (out NULL, bad
 * params); SIMTRACE_E_NOMEM; open_error when path cannot be opened (errno
 * says why). */
simtrace_error api_writer_prepare(simtrace_writer **out, const simtrace_write_params *pp, const char *path, int flags,
                                  simtrace_error open_error, int fd, simtrace_writer **w, st_write_opts *o);

/* What the recovery of ix found, as simtrace_reader_recovery says it
 * (api_recover.c). */
void api_recovery_info(const st_index *ix, simtrace_recovery_info *info);

#endif /* ST_API_INTERNAL_H */
