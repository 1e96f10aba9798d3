/*
 * container.h - the simtrace container, internal interface of frames/ (the
 * public API over it is include/simtrace.h).
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
#ifndef ST_CONTAINER_H
#define ST_CONTAINER_H

#include <stddef.h>
#include <stdint.h>

#include "../common/st_error.h"
#include "../formats/entry.h"
#include "../svpc/svpc.h"

#define ST_DEFAULT_FRAME_ENTRIES (UINT32_C(1) << 20)
#define ST_MAX_THREADS 64u

/* One frame as the directory describes it. */
#define ST_FRAME_REF_DATA 1u   /* kind: a data frame */
#define ST_FRAME_REF_STREAM 2u /* kind: a stream descriptor */
#define ST_FRAME_REF_TIMED 1u  /* flags: the time fields are valid */
typedef struct {
    uint64_t offset;      /* file offset of the frame header */
    uint64_t size;        /* header + payload bytes */
    uint64_t ordinal;     /* position of the frame in the file, from 0 */
    uint32_t stream;      /* stream id; UINT32_MAX never appears here */
    uint8_t kind;         /* 1 data, 2 stream descriptor */
    uint8_t flags;        /* bit 0: time fields valid */
    uint16_t encoder;
    uint32_t nattrs;      /* attributes of its payload */
    uint32_t payload_crc;
    uint64_t seq;         /* per-stream sequence number of a data frame */
    uint64_t first_entry; /* index of its first entry within the stream */
    uint64_t count;       /* entries */
    uint64_t first_cycle, last_cycle; /* keys of the first and last entry (SIMTRACE.md 3) */
    uint64_t first_time, last_time;
} st_frame_ref;

/* ---- writing ---------------------------------------------------------------- */

typedef struct {
    unsigned threads;       /* worker threads, 1..ST_MAX_THREADS */
    uint32_t frame_entries; /* entries per frame, at most SVPC_MAX_FRAME_ENTRIES;
                               0: each stream's method's own
                               (svpc_method_frame_entries) */
    int timestamps;         /* 1: record wall-clock time per frame (output then
                               differs run to run); 0: time fields unset */
    int check_keys;         /* 1: refuse entries of a keyed type whose key
                               (cycle) is below the key of the stream's entry
                               before them (ST_E_CYCLE_ORDER) */
} st_write_opts;

typedef struct {
    uint64_t entries;   /* entries appended, all streams */
    uint64_t raw_bytes; /* their size */
    uint64_t out_bytes; /* container bytes written so far */
    uint64_t frames;    /* data frames written */
    uint64_t entries_written; /* the entries of those frames */
    uint64_t fill_peak; /* the most bytes the frames being filled of a
                           writer of several streams held together, as
                           counted against ST_WRITER_HELD_FRAMES */
} st_write_stats;

/* A writer of several streams holds at most this many frames (of its
 * largest frame size, in bytes) in the frames being filled, together:
 * past that the largest is cut early, as a shorter frame, so that memory
 * does not grow with the number of streams (frame_writer.c says how it is
 * counted; the buffers take at most about twice that). */
#define ST_WRITER_HELD_FRAMES 8u

typedef struct st_writer st_writer;

/*
 * Start a container on file descriptor fd (any kind: pipe, file, socket) and
 * write its file header.
 * Returns ST_OK, ST_E_USAGE (bad options), ST_E_NOMEM, ST_E_THREAD, ST_E_WRITE;
 * on failure *w is NULL.
 */
st_error st_writer_new(st_writer **w, int fd, const st_write_opts *o);

/* Where a writer's bytes go: all n bytes, or ST_E_WRITE. */
typedef st_error (*st_out_fn)(void *arg, const uint8_t *p, size_t n);

/* st_writer_new writing through fn(arg, ...) instead of a descriptor (fn
 * NULL: fd).  fn is called on the thread that calls the writer. */
st_error st_writer_new_out(st_writer **w, st_out_fn fn, void *arg, int fd, const st_write_opts *o);

#define ST_MAX_HEADER 256u       /* bytes of a stream's kept header (HEADER attribute) */
#define ST_MAX_USER_ENTRY 65536u /* largest entry of a user-defined type */
#define ST_MAX_TYPE_NAME 31u

/* Everything that describes a stream. */
typedef struct {
    const char *name;      /* 1..255 bytes, no NUL */
    st_entry_type type;
    const uint8_t *guid;   /* ST_TYPE_USER only: its 16-byte GUID (not one of the built-in ones) */
    uint32_t entry_size;   /* ST_TYPE_USER only: 1..ST_MAX_USER_ENTRY */
    const char *type_name; /* ST_TYPE_USER only: label, 1..31 bytes; NULL gives "user" */
    svpc_params params;    /* paper and cm need a memory type */
    uint32_t owner;        /* vblock streams: id of the stream whose wide entries
                              they hold; UINT32_MAX otherwise */
    const uint8_t *header; /* bytes kept with the stream (a legacy file header), or NULL */
    size_t header_len;     /* 0..ST_MAX_HEADER */
} st_stream_spec;

/*
 * Declare a stream: writes its descriptor frame.  Stream ids are given in
 * order from 0.
 * Returns ST_OK, ST_E_USAGE (bad name, type, GUID, size or encoder; owner
 * not an earlier stream; header too long; too many streams), ST_E_NOMEM,
 * ST_E_WRITE.
 */
st_error st_writer_add_stream_spec(st_writer *w, const st_stream_spec *spec, uint32_t *sid);

/* The same for a built-in type without owner or header. */
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
 * With st_write_opts.check_keys, st_writer_append, st_writer_append_fd and
 * st_writer_copy_frame append the entries before the first whose key is
 * below its predecessor's (within the call or across calls, and across an
 * --append through st_writer_resume), then return ST_E_CYCLE_ORDER; the
 * writer stays usable, the rest of that call's entries are dropped, and
 * st_writer_diag() says which stream and entry, with both keys.
 */
const st_diag *st_writer_diag(const st_writer *w);

/*
 * Append the raw entries read from fd, up to its end, to stream sid.  The
 * input is read straight into the frame being filled, with no copy in
 * between: for a raw trace this is all the calling thread does while the
 * workers encode.  progress(arg), if not NULL, is called after each read.
 * *in_bytes receives the number of bytes read (also on failure).
 * Returns what st_writer_append() returns, and:
 *   ST_E_READ           reading fd failed (d->offset: input byte offset,
 *                       d->detail: the system's message);
 *   ST_E_PARTIAL_ENTRY  the input ends inside an entry: every whole entry
 *                       was appended and the writer stays usable; the
 *                       trailing bytes are dropped, d->offset is where they
 *                       start, and *in_bytes - d->offset is their number.
 */
st_error st_writer_append_fd(st_writer *w, uint32_t sid, int fd, void (*progress)(void *), void *arg,
                             uint64_t *in_bytes, st_diag *d);

/* The payload of an encoded data frame as found in a container, for
 * copying; what its header says is the st_frame_ref that goes with it. */
typedef struct {
    const uint8_t *payload;
    size_t payload_size;
} st_raw_frame;

/*
 * Append an encoded data frame unchanged (no re-encoding) as the next frame
 * of stream sid: f says what its header said (flags, encoder, attributes,
 * count, cycles, times, payload CRC), raw holds its payload; its sequence
 * number and first entry are the stream's next; its payload and CRC are
 * kept.  Entries appended to sid before are
 * cut into a frame first, so the order of entries is kept.  The caller
 * has checked the payload CRC.
 * Returns ST_OK; ST_E_USAGE (unknown sid, count 0 or above the frame
 * limit, encoder that is neither the stream's nor generic); ST_E_NOMEM;
 * ST_E_WRITE; ST_E_TOO_LARGE (directory full).
 */
st_error st_writer_copy_frame(st_writer *w, uint32_t sid, const st_frame_ref *f, const st_raw_frame *raw);

/*
 * Cut the partial frames of all streams into frames and wait until every
 * frame so far is written (a crash after this loses none of them).
 * Returns ST_OK or the writer's failure (ST_E_WRITE, ST_E_NOMEM...).
 */
st_error st_writer_flush(st_writer *w);

/*
 * Flush the partial frames of all streams, wait for the workers, write the
 * directory and the footer.  After an error the container is left without a
 * directory: still readable sequentially up to its last complete frame, and
 * through its frame headers (st_index_open).
 */
st_error st_writer_finish(st_writer *w);

void st_writer_stats(const st_writer *w, st_write_stats *s);

/* The stream named name: 1 and *sid set, or 0. */
int st_writer_find_stream(const st_writer *w, const char *name, uint32_t *sid);
/* Type of stream sid (ST_TYPE_NONE if unknown), with its encoder and
 * entry size (either pointer may be NULL). */
st_entry_type st_writer_stream_type(const st_writer *w, uint32_t sid, uint16_t *encoder, size_t *esz);
/* Entries appended or copied to stream sid so far (0 if sid is unknown). */
uint64_t st_writer_stream_entries(const st_writer *w, uint32_t sid);

typedef struct st_index st_index;

/*
 * Continue the container that ix was opened on, in place: fd is the same
 * regular file, open for reading and writing.  The directory and footer
 * are dropped (the file is truncated where the directory began) and
 * st_writer_finish writes new ones listing old and new frames.  Existing
 * streams keep their ids and are found with st_writer_find_stream; entries
 * appended to them continue their numbering and use their encoder with
 * p's second stage and level.  Until st_writer_finish succeeds the file
 * has no directory: sequential readers still read every complete frame, and
 * st_index_open finds them by their headers (SIMTRACE.md 7.4), so an
 * interrupted or killed append loses only what it was adding.  ix may come
 * from such a file: the new frames then follow its last complete frame.
 * Returns ST_OK, ST_E_USAGE, ST_E_NOMEM, ST_E_THREAD, ST_E_WRITE.
 */
st_error st_writer_resume(st_writer **w, int fd, const st_write_opts *o, const svpc_params *p, const st_index *ix);

/* The most of a container's end (directory and footer, or what follows
 * the last complete frame of one without them) that st_writer_resume
 * keeps, so that st_writer_restore can put it back. */
#define ST_WRITER_RESTORE_MAX ((size_t)64 << 20)

/*
 * For a writer from st_writer_resume whose st_writer_finish has not
 * succeeded (a write failed: a full disk, say): put the file back as it
 * was before the resume, byte for byte, dropping every frame written
 * since.  Only st_writer_free may follow.  The space it needs is what the
 * truncation frees: the file was that long before.
 * Returns ST_OK; ST_E_WRITE (the file is then left without its end, as
 * without the call); ST_E_USAGE (not a resumed writer, already finished,
 * or its end was longer than ST_WRITER_RESTORE_MAX and not kept).
 */
st_error st_writer_restore(st_writer *w);

/*
 * For a writer on a file whose writing failed (a full disk, say) and that
 * has not finished: cut the file back to the end of its last frame written
 * whole and write the directory and footer of the frames written so far
 * (entries not yet in a written frame are dropped), so that what reached
 * the file stays a valid container; where the directory does not fit (a
 * full disk), the newest frames this writer wrote give way to it, one by
 * one (st_writer_stats then counts those kept).  Only st_writer_free (or,
 * if this fails, st_writer_restore) may follow.
 * Returns ST_OK; ST_E_WRITE; ST_E_USAGE (no file, or finished).
 */
st_error st_writer_end_written(st_writer *w);

/* Free the writer (stops the workers).  Does not close fd.  NULL allowed. */
void st_writer_free(st_writer *w);

/* ---- reading ------------------------------------------------------------------ */

typedef struct {
    uint32_t id;
    char name[256];
    st_entry_type type;       /* ST_TYPE_USER for a GUID this library does not know */
    uint8_t guid[16];
    char type_name[ST_MAX_TYPE_NAME + 1]; /* "d64"...; a user type's TYPE_NAME, or "user" */
    uint32_t entry_size;
    uint16_t encoder;
    uint32_t owner;           /* vblock streams: the owner stream's id; UINT32_MAX otherwise */
    uint16_t header_len;
    uint8_t header[ST_MAX_HEADER];
    uint64_t entries; /* entries seen so far (index: all) */
    uint64_t frames;  /* data frames seen so far (index: all) */
    uint64_t stored;  /* index only: bytes of its data frames, headers included */
} st_stream_info;


/* Receives data frames undecoded (st_read_opts.frame_sink).  payload is
 * valid during the call only. */
typedef st_error (*st_frame_sink)(void *arg, const st_stream_info *s, const st_frame_ref *f,
                                  const st_raw_frame *raw);

/* Hears of a data frame whose payload is damaged (st_read_opts.on_damage):
 * e and d say what is wrong.  Returning non-ST_OK stops the read with it. */
typedef st_error (*st_frame_damage)(void *arg, const st_stream_info *s, const st_frame_ref *f, st_error e,
                                    const st_diag *d);

/* Says whether a data frame is wanted (st_read_opts.want). */
typedef int (*st_frame_want)(void *arg, const st_stream_info *s, const st_frame_ref *f);

/*
 * Memory of a reader.  Decoding a data frame of `count` entries of
 * `esz` bytes with a payload of `p` bytes takes at most
 * st_frame_decode_memory(count, esz, p): the payload, the decoded entries,
 * the codec's second-stage output (at most as large as the entries plus
 * the codec's per-stream bounds, counted as the entries again) and the
 * predictor tables.  A reader holds at most `threads` frames at once, so
 * without a limit its memory is bounded by threads x
 * st_frame_decode_memory(2^24, 32, 2^24 x 32 + 4096), about 1.8 GiB per
 * thread, whatever the file claims; with memlimit set, a frame that would
 * need more than memlimit / threads is refused (ST_E_MEMLIMIT) before
 * anything is allocated for it, and the thread count is lowered so that
 * default-size frames fit.
 */
uint64_t st_frame_decode_memory(uint64_t count, uint64_t esz, uint64_t payload);
/* The threads (1..threads) a reader under memlimit (0: none) runs, so
 * that default-size frames fit in its share of the limit. */
unsigned st_memlimit_threads(unsigned threads, uint64_t memlimit);
/* A data frame of count entries of esz bytes and a payload of `payload`
 * bytes against memlimit (0: none) shared by `threads` threads: ST_OK, or
 * ST_E_MEMLIMIT with d saying what it needs and what is allowed. */
st_error st_memlimit_check(uint64_t count, uint64_t esz, uint64_t payload, uint64_t memlimit, unsigned threads,
                           st_diag *d);
/* An index's memory limit (st_index_set_memlimit; 0: none). */
uint64_t st_index_memlimit(const st_index *ix);

typedef struct {
    unsigned threads;  /* decoder threads, 1..ST_MAX_THREADS */
    int verify_only;   /* 1: check everything, deliver no entries */
    int ignore_check;  /* 1: do not compare decoded entries with their
                          frame's ENTRY_CRC (payload and header CRCs are
                          still checked), as xz --ignore-check */
    uint64_t memlimit; /* bytes; 0: no limit beyond the format's own */
    /* Optional (NULL: all frames decoded): frames for which want returns 0
     * are read and their payload checksum checked, but not decoded or
     * delivered. */
    st_frame_want want;
    void *want_arg;
    /* Optional (NULL: decode): data frames are not decoded; after the
     * header, sequence and payload checksum checks each goes to
     * frame_sink instead of the entry sink. */
    st_frame_sink frame_sink;
    void *frame_arg;
    /* Optional (NULL: a damaged frame ends the read with its error): a data
     * frame whose header is sound but whose payload fails its checksum or
     * does not decode is reported here and skipped; reading goes on. */
    st_frame_damage on_damage;
    void *damage_arg;
    /* With on_damage (a salvage): a frame whose header is damaged, or does
     * not fit the container (an undeclared stream, a sequence number out of
     * turn), does not end the read either.  The bytes from it to the next
     * sound frame header are reported to on_damage with s NULL (f's offset
     * and size say where; nothing else of f is known), and the entries a
     * stream lost in them when its next frame, or the directory, shows the
     * gap: f's first_entry and count are the entries, its seq the frames
     * lost, its ordinal ST_DIAG_UNKNOWN.  Frames the directory lists of
     * streams whose declarations were lost come last, with s NULL, f's kind
     * ST_FRAME_REF_DATA, seq and count their frames and entries.  A pipe is
     * then read to its end as a regular file is through its directory. */
    int resync;
    /* Optional: hears of each stream as its descriptor is read (s is
     * valid during the call); an error it returns (ST_E_NOMEM: it could
     * not record the stream) stops the read, as a bad descriptor would. */
    st_error (*on_stream)(void *arg, const st_stream_info *s);
    void *stream_arg;
} st_read_opts;

/* Receives decoded entries in file order: n entries of stream s, the first
 * of them entry `first` of the stream.  Returning non-ST_OK stops the read
 * with that error. */
typedef st_error (*st_sink)(void *arg, const st_stream_info *s, uint64_t first, const uint8_t *entries, size_t n);

typedef struct st_reader st_reader;

/*
 * Open a container on fd and check its file header.
 * Returns ST_OK, ST_E_BAD_MAGIC, ST_E_VERSION, ST_E_HEADER_CRC,
 * ST_E_TRUNCATED, ST_E_READ, ST_E_NOMEM, ST_E_THREAD; on failure *r is NULL.
 */
st_error st_reader_new(st_reader **r, int fd, const st_read_opts *o, st_diag *d);

/* Where a reader's bytes come from: up to n bytes at p, *got of them (0 at
 * the end), or ST_E_READ. */
typedef st_error (*st_in_fn)(void *arg, uint8_t *p, size_t n, size_t *got);

/* st_reader_new reading through fn(arg, ...) instead of a descriptor; fn
 * is called on the thread that calls the reader. */
st_error st_reader_new_in(st_reader **r, st_in_fn fn, void *arg, const st_read_opts *o, st_diag *d);

/* A data frame's decoded entries (st_reader_next): n entries of stream s,
 * the first of them entry `first` of the stream; the frame is the seq-th
 * of its stream and its header at byte `offset` of the input.  s NULL:
 * the end, unless sunk: a data frame went to the frame sink
 * (st_read_opts.frame_sink) and the read goes on, so that a sink's user
 * pulls one frame at a time too. */
typedef struct {
    const st_stream_info *s;
    uint64_t first;
    const uint8_t *entries;
    size_t n;
    uint64_t seq, offset;
    int sunk;
} st_frame_out;

/*
 * The next data frame's entries, in file order, in the style of
 * lzma_code: each call reads input on the caller's thread (in_fn too)
 * until a decoded frame can be handed out, keeping up to `threads` frames
 * decoding on the pool's threads meanwhile.  The callbacks of the options
 * (want, frame_sink, on_damage, on_stream) are called from inside it, on
 * the caller's thread.  *out (its entries and s) is valid until the next
 * call or st_reader_free.  Frames that are not wanted, are verify_only or
 * go to a frame sink are not handed out.  out->s NULL: the input ended
 * with a sound directory and footer.  Checks and errors as
 * st_reader_read_all; after the end or an error every call returns the
 * same (d is filled in again).
 */
st_error st_reader_next(st_reader *r, st_frame_out *out, st_diag *d);

/*
 * Read every frame in file order, decode data frames in parallel and hand
 * the entries to sink in order (a loop over st_reader_next).  Checks every checksum, the sequence numbers
 * and entry indices of every stream, the directory against the frames seen,
 * the footer, and that nothing follows it.
 * Returns ST_OK or the first error: ST_E_TRUNCATED (file ends inside a frame,
 * or after the last complete frame without directory and footer: all
 * complete frames were delivered), any ST_E_* data error with d filled in,
 * ST_E_READ, ST_E_NOMEM, or the sink's error.
 */
st_error st_reader_read_all(st_reader *r, st_sink sink, void *arg, st_diag *d);

/*
 * Which stream a sequential read reads: simtrace-cat on a pipe and a
 * cursor of the public API on a sequential reader, one rule.  The stream
 * named name; without a name, the default stream of a file
 * (st_default_stream): the first memory stream, else the first stream.
 * Read in one pass, the first stream's frames can come before it is known
 * whether a memory stream follows: when it is not a memory stream its
 * entries are held back (ST_PICK_HOLD) until a memory stream is declared,
 * which replaces it, or the input ends (st_seq_pick_end), where it becomes
 * the stream read.  What is held is bounded by ST_SEQ_HOLD_MAX bytes:
 * beyond, the reader must name the stream.  A reader for a format that
 * writes only some types (simtrace-cat -F cvp) asks instead for the first
 * stream of those types (types), which needs no look ahead.
 */
typedef struct {
    const char *name; /* NULL: the default stream, or (types) */
    uint32_t types;   /* without a name, nonzero: the first stream declared
                         whose type's bit (1u << type) is set (nothing held
                         back); chosen at the next data frame of any stream,
                         though no later declaration can change the choice */
    int chosen;       /* the stream read is known: id */
    uint32_t id;
    int held;         /* the first stream's frames are held back: hid */
    uint32_t hid;
} st_seq_pick;

enum { ST_PICK_SKIP, ST_PICK_READ, ST_PICK_HOLD };

#define ST_SEQ_HOLD_MAX ((size_t)64 << 20)

/* For a data frame of stream s (r's streams: those declared so far), the
 * frame's entries are read, held back or skipped; *dropped is set to 1
 * when a held stream was just replaced (what was held of it is not read). */
int st_seq_pick_frame(st_seq_pick *p, const st_reader *r, const st_stream_info *s, int *dropped);

/* At the end of the input: a held stream becomes the stream read (1). */
int st_seq_pick_end(st_seq_pick *p);

/*
 * Decode a data frame delivered undecoded (st_read_opts.frame_sink: its
 * frame f and payload raw) of stream s into out (replacing its content:
 * count x entry-size bytes).
 * Returns ST_OK, any data error with d filled in, ST_E_NOMEM.
 */
st_error st_raw_frame_decode(const st_stream_info *s, const st_frame_ref *f, const st_raw_frame *raw, st_buf *out,
                             st_diag *d);

/*
 * The first byte of data frame f's encoder output (its DATA value), which
 * for some encoders says how the frame was coded (cmx: with the transform
 * or without, SIMTRACE.md 6.9.1), for statistics of frames that are
 * decoded besides: -1 if the value is empty or the attributes do not
 * parse (the decoder then says why).  raw: as st_raw_frame_decode's.
 */
int st_raw_frame_byte0(const st_frame_ref *f, const st_raw_frame *raw);

/* Streams declared so far (after st_reader_read_all: all of them). */
unsigned st_reader_stream_count(const st_reader *r);
const st_stream_info *st_reader_stream(const st_reader *r, unsigned i);

/* Container bytes consumed so far. */
uint64_t st_reader_offset(const st_reader *r);

/* Hand the data frames read from now on to sink undecoded, as
 * st_read_opts.frame_sink does (for a reader made before its user knew). */
void st_reader_set_frame_sink(st_reader *r, st_frame_sink sink, void *arg);

void st_reader_free(st_reader *r);

/* ---- random access: a seekable file through its footer and directory ---- */

/*
 * Open a container on a seekable fd through its footer and directory,
 * reading nothing else but the stream descriptors: the cost does not
 * depend on the number of entries.  Checks the footer, the directory frame
 * and every directory entry: frames lie end to end between the file header
 * and the directory, each stream's descriptor precedes its data frames,
 * sequence numbers count 0, 1, 2, ... and first entries add up.
 * When the footer is missing or invalid (a file cut off by a crash, an
 * --append that did not finish), the frames are found by
 * reading their headers from the start instead, up to the first frame that
 * is incomplete or invalid (SIMTRACE.md 7.4): st_index_recovered says so.
 * Returns ST_OK; ST_E_SEEK (fd not seekable); ST_E_BAD_MAGIC, ST_E_VERSION,
 * ST_E_HEADER_CRC, ST_E_TRUNCATED (file header), ST_E_BAD_STREAM,
 * ST_E_PAYLOAD_CRC and others for a bad stream descriptor (d says where);
 * ST_E_READ; ST_E_NOMEM.  On failure *ix is NULL.
 */
st_error st_index_open(st_index **ix, int fd, st_diag *d);

/*
 * 1 when st_index_open found no valid footer and listed the
 * frames by scanning; then *frames_end (if not NULL) is where the last
 * complete frame ends (the file's bytes after it belong to no listed
 * frame), and *why (if not NULL) says what was wrong with the directory
 * or footer.  0 for a complete file (*frames_end: the directory's offset).
 */
int st_index_recovered(const st_index *ix, uint64_t *frames_end, st_diag *why);

/* After a scan: the offset of the first sound data frame header after
 * frames_end whose frame is complete in the file, or 0.  The scan stops at
 * a damaged frame header; frames after it are not listed, but they hold
 * entries, which a sequential salvage reads (st_read_opts.resync). */
uint64_t st_index_frames_after(const st_index *ix);

/* After a scan: the data frame whose header lies at frames_end but whose
 * payload is cut off or damaged (its stream, first entry and count say
 * which entries are lost), or NULL if none is known. */
const st_frame_ref *st_index_cut_frame(const st_index *ix);

/* 1 when st_index_cut_frame's frame is whole in the file and its payload
 * fails its CRC (damage, or blocks a crash left unwritten); 0 when the
 * file ends inside it, or there is none. */
int st_index_cut_whole(const st_index *ix);

/* After a scan with no frames after, and no cut frame or a whole one
 * (st_index_cut_whole): 1 when the bytes after frames_end, or after that
 * whole frame, may have held entries (the file ends inside a data
 * frame's header; or they are no frame: damage, blocks a crash left
 * unwritten), with *offset (if not NULL) where they begin and *stream
 * (if not NULL) the stream id that the cut header names, UINT32_MAX when
 * it does not reach it or they are no header (entries of any stream); 0
 * when there are no such bytes, or they begin a directory frame or a
 * stream descriptor cut off (SIMTRACE.md 7.4). */
int st_index_tail_lost(const st_index *ix, uint32_t *stream, uint64_t *offset);

unsigned st_index_stream_count(const st_index *ix);
/* Stream i in declaration order, with its total entries and frames; NULL if
 * i is out of range. */
const st_stream_info *st_index_stream(const st_index *ix, unsigned i);
/* Frames (data and descriptors) in file order. */
uint64_t st_index_frame_count(const st_index *ix);
/* Frame k in file order; NULL if k is out of range. */
const st_frame_ref *st_index_frame(const st_index *ix, uint64_t k);

/* Stream i in declaration order whose name is `name`; -1 if none. */
int st_index_find_stream(const st_index *ix, const char *name);

/* Data frames of stream i, and the j-th of them in sequence order (NULL if
 * i or j is out of range): the one checked accessor of the per-stream
 * tables. */
uint64_t st_index_stream_frames(const st_index *ix, unsigned i);
const st_frame_ref *st_index_stream_frame(const st_index *ix, unsigned i, uint64_t j);

/*
 * Lookups in stream i, O(log frames), reading nothing:
 *   st_index_find_entry: position j of the frame holding entry `entry`;
 *     ST_E_RANGE if entry >= the stream's entries (or i is out of range).
 *   st_index_lower_key: the first position j whose frame's last key
 *     (cycle) is >= key; the frame count if none.  Meaningful when
 *     st_index_keys_ordered(i).
 *   st_index_lower_time: the first position j whose frame's last_time is
 *     >= t; the frame count if none.  Meaningful when st_index_times_ordered(i).
 * ordered: 1 when every frame's first key <= its last key <= the next
 * frame's first key (resp. times, all frames with TIME set).
 */
st_error st_index_find_entry(const st_index *ix, unsigned i, uint64_t entry, uint64_t *j);
uint64_t st_index_lower_key(const st_index *ix, unsigned i, uint64_t key);
uint64_t st_index_lower_time(const st_index *ix, unsigned i, uint64_t t);
int st_index_keys_ordered(const st_index *ix, unsigned i);
int st_index_times_ordered(const st_index *ix, unsigned i);

/* Bytes of the file, and of what st_index_open read (footer, directory,
 * descriptors), for --list and the benchmark. */
uint64_t st_index_file_size(const st_index *ix);
uint64_t st_index_bytes_read(const st_index *ix);

/*
 * Read and decode data frame k into out (replacing its content): exactly
 * count x entry-size bytes.  The frame header on disk must equal its
 * directory entry.  Returns ST_OK; ST_E_RANGE (k out of range or not a data
 * frame); any data error with d filled in; ST_E_READ; ST_E_NOMEM.
 */
st_error st_index_decode_frame(st_index *ix, uint64_t k, st_buf *out, st_diag *d);

/*
 * Entries from..stop-1 of data frame k (stop 1..count; larger is count):
 * decoding stops at stop (svpc_decode_prefix), which halves the average
 * cost of reaching one entry; in a frame with ENTRY_CRC (format 1.3) it
 * stops at the end of the checksummed block of 65,536 entries that holds
 * entry stop - 1, and checks the blocks from the one that holds entry
 * `from`, so that every entry returned is checked, unless
 * st_index_set_ignore_check.  The payload checksum is always checked.
 * out gets stop x entry-size bytes, each entry at its place; those before
 * `from` but entry 0 may be left as they were (svpc_decode_part), so that
 * one entry deep in a frame costs no memory for those before it.
 * Returns as st_index_decode_frame.
 */
st_error st_index_decode_part(st_index *ix, uint64_t k, uint64_t from, uint64_t stop, st_buf *out, st_diag *d);

/* st_raw_frame_byte0 of data frame k, whose payload is read again: *byte0
 * gets it.  Returns ST_OK; ST_E_RANGE (k not a data frame); ST_E_READ,
 * ST_E_TRUNCATED, ST_E_BAD_DIRECTORY, ST_E_TOO_LARGE or ST_E_PAYLOAD_CRC
 * (d filled in); ST_E_NOMEM. */
st_error st_index_frame_byte0(st_index *ix, uint64_t k, int *byte0, st_diag *d);

/* Refuse (ST_E_MEMLIMIT) to decode frames that would need more than bytes
 * (st_frame_decode_memory); 0 = no limit. */
void st_index_set_memlimit(st_index *ix, uint64_t bytes);

/* on = 1: do not compare decoded entries with ENTRY_CRC (st_read_opts
 * .ignore_check); prefixes are then decoded as prefixes. */
void st_index_set_ignore_check(st_index *ix, int on);

void st_index_free(st_index *ix);

#endif /* ST_CONTAINER_H */
