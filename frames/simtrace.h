/*
 * simtrace.h - the simtrace container (public header of frames/).
 *
 * A container is a file header, then frames in any interleaving of streams,
 * then a directory frame and a fixed-size footer (formats/SIMTRACE.md).  It
 * is written in one forward pass, so the output may be a pipe.  This reader
 * reads it sequentially (works on pipes) and checks the directory against
 * the frames; the footer and directory are laid out for random access by
 * entry index, cycle and time (SIMTRACE.md 7).
 *
 * Frames are encoded and decoded by a pool of worker threads; frames are
 * written and delivered in submission order, so the bytes and the output do
 * not depend on the thread count.
 *
 * Errors: every function returns an st_error; where the cause lies in the
 * input, the st_diag says where (byte offset, frame ordinal, stream).
 */
#ifndef SIMTRACE_H
#define SIMTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/st_error.h"
#include "../formats/entry.h"
#include "../svpc/svpc.h"

#define ST_DEFAULT_FRAME_ENTRIES (UINT32_C(1) << 20)
#define ST_MAX_THREADS 64u

/* ---- writing ---------------------------------------------------------------- */

typedef struct {
    unsigned threads;       /* worker threads, 1..ST_MAX_THREADS */
    uint32_t frame_entries; /* entries per frame, 1..SVPC_MAX_FRAME_ENTRIES */
    int timestamps;         /* 1: record wall-clock time per frame (output then
                               differs run to run); 0: time fields unset */
} st_write_opts;

typedef struct {
    uint64_t entries;   /* entries appended, all streams */
    uint64_t raw_bytes; /* their size */
    uint64_t out_bytes; /* container bytes written so far */
    uint64_t frames;    /* data frames written */
} st_write_stats;

typedef struct st_writer st_writer;

/*
 * Start a container on file descriptor fd (any kind: pipe, file, socket) and
 * write its file header.
 * Returns ST_OK, ST_E_USAGE (bad options), ST_E_NOMEM, ST_E_THREAD, ST_E_WRITE;
 * on failure *w is NULL.
 */
st_error st_writer_new(st_writer **w, int fd, const st_write_opts *o);

/*
 * Declare a stream: writes its descriptor frame.  Stream ids are given in
 * order from 0.  p->encoder must suit t (paper and cm need a memory type).
 * Returns ST_OK, ST_E_USAGE (bad name, type or encoder; too many streams),
 * ST_E_NOMEM, ST_E_WRITE.
 */
st_error st_writer_add_stream(st_writer *w, const char *name, st_entry_type t, const svpc_params *p,
                              uint32_t *sid);

/*
 * Append n whole entries (n * entry size bytes) to stream sid.  Frames are
 * cut every frame_entries entries and handed to the workers.
 * Returns ST_OK, ST_E_USAGE (unknown sid), ST_E_NOMEM, ST_E_WRITE,
 * ST_E_INTERNAL (an encoder failed), ST_E_TOO_LARGE (the directory would
 * exceed the 2 GiB payload limit: about 26.8 million frames).
 */
st_error st_writer_append(st_writer *w, uint32_t sid, const void *entries, size_t n);

/*
 * Flush the partial frames of all streams, wait for the workers, write the
 * directory and the footer.  After an error the container is left without a
 * directory: still readable sequentially up to its last complete frame.
 */
st_error st_writer_finish(st_writer *w);

void st_writer_stats(const st_writer *w, st_write_stats *s);

/* Free the writer (stops the workers).  Does not close fd.  NULL allowed. */
void st_writer_free(st_writer *w);

/* ---- reading ------------------------------------------------------------------ */

typedef struct {
    unsigned threads;  /* decoder threads, 1..ST_MAX_THREADS */
    int verify_only;   /* 1: check everything, deliver no entries */
} st_read_opts;

typedef struct {
    uint32_t id;
    char name[256];
    st_entry_type type;
    uint32_t entry_size;
    uint16_t encoder;
    uint64_t entries; /* entries seen so far */
    uint64_t frames;  /* data frames seen so far */
} st_stream_info;

/* Receives decoded entries in file order.  Returning non-ST_OK stops the read
 * with that error. */
typedef st_error (*st_sink)(void *arg, const st_stream_info *s, const uint8_t *entries, size_t n);

typedef struct st_reader st_reader;

/*
 * Open a container on fd and check its file header.
 * Returns ST_OK, ST_E_BAD_MAGIC, ST_E_VERSION, ST_E_HEADER_CRC,
 * ST_E_TRUNCATED, ST_E_READ, ST_E_NOMEM, ST_E_THREAD; on failure *r is NULL.
 */
st_error st_reader_new(st_reader **r, int fd, const st_read_opts *o, st_diag *d);

/*
 * Read every frame in file order, decode data frames in parallel and hand
 * the entries to sink in order.  Checks every checksum, the sequence numbers
 * and entry indices of every stream, the directory against the frames seen,
 * the footer, and that nothing follows it.
 * Returns ST_OK or the first error: ST_E_TRUNCATED (file ends inside a frame,
 * or after the last complete frame without directory and footer: all
 * complete frames were delivered), any ST_E_* data error with d filled in,
 * ST_E_READ, ST_E_NOMEM, or the sink's error.
 */
st_error st_reader_read_all(st_reader *r, st_sink sink, void *arg, st_diag *d);

/* Streams declared so far (after st_reader_read_all: all of them). */
unsigned st_reader_stream_count(const st_reader *r);
const st_stream_info *st_reader_stream(const st_reader *r, unsigned i);

/* Container bytes consumed so far. */
uint64_t st_reader_offset(const st_reader *r);

void st_reader_free(st_reader *r);

/* ---- random access: a seekable file through its footer and directory ---- */

/* One frame as the directory describes it. */
typedef struct {
    uint64_t offset;      /* file offset of the frame header */
    uint64_t size;        /* header + payload bytes */
    uint32_t stream;      /* stream id; UINT32_MAX never appears here */
    uint8_t kind;         /* 1 data, 2 stream descriptor */
    uint8_t flags;        /* bit 0: time fields valid */
    uint16_t encoder;
    uint64_t seq;         /* per-stream sequence number of a data frame */
    uint64_t first_entry; /* index of its first entry within the stream */
    uint64_t count;       /* entries */
    uint64_t first_cycle, last_cycle;
    uint64_t first_time, last_time;
} st_frame_ref;

typedef struct st_index st_index;

/*
 * Open a container on a seekable fd through its footer and directory,
 * reading nothing else but the stream descriptors: the cost does not
 * depend on the number of entries.  Checks the footer, the directory frame
 * and every directory entry: frames lie end to end between the file header
 * and the directory, each stream's descriptor precedes its data frames,
 * sequence numbers count 0, 1, 2, ... and first entries add up.
 * Returns ST_OK; ST_E_SEEK (fd not seekable); ST_E_BAD_MAGIC, ST_E_VERSION,
 * ST_E_BAD_FOOTER (no footer: a cut-off file, read it sequentially),
 * ST_E_BAD_DIRECTORY, ST_E_HEADER_CRC, ST_E_PAYLOAD_CRC, ST_E_TOO_LARGE,
 * ST_E_BAD_STREAM, ST_E_UNSUPPORTED (d says where); ST_E_READ; ST_E_NOMEM.
 * On failure *ix is NULL.
 */
st_error st_index_open(st_index **ix, int fd, st_diag *d);

unsigned st_index_stream_count(const st_index *ix);
/* Stream i in declaration order, with its total entries and frames; NULL if
 * i is out of range. */
const st_stream_info *st_index_stream(const st_index *ix, unsigned i);
/* Frames (data and descriptors) in file order. */
uint64_t st_index_frame_count(const st_index *ix);
/* Frame k in file order; NULL if k is out of range. */
const st_frame_ref *st_index_frame(const st_index *ix, uint64_t k);

/*
 * Read and decode data frame k into out (replacing its content): exactly
 * count x entry-size bytes.  The frame header on disk must equal its
 * directory entry.  Returns ST_OK; ST_E_RANGE (k out of range or not a data
 * frame); any data error with d filled in; ST_E_READ; ST_E_NOMEM.
 */
st_error st_index_decode_frame(st_index *ix, uint64_t k, st_buf *out, st_diag *d);

void st_index_free(st_index *ix);

#endif /* SIMTRACE_H */
