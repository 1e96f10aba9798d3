/*
 * range.h - reading part of one stream (internal to the library): which
 * stream is the default, which frames a range of entries, cycles or times
 * needs, which entries of a decoded frame it takes, what a range asks for
 * past the stream's end, and the whole value of a wide access.  The one
 * home of these rules: simtrace-cat and the public API (api/) both read
 * ranges through here.
 */
#ifndef ST_RANGE_H
#define ST_RANGE_H

#include <stdint.h>

#include "container.h"
#include "frame_job.h"

typedef enum { ST_RANGE_ALL, ST_RANGE_ENTRIES, ST_RANGE_CYCLES, ST_RANGE_TIME } st_range_kind;

/* Half-open [lo, hi); hi = UINT64_MAX: to the end. */
typedef struct {
    st_range_kind kind;
    uint64_t lo, hi;
} st_range;

/* The default stream among n (get(src, i) gives stream i): the first
 * memory stream, else the first stream; -1 when n is 0. */
int st_default_stream(unsigned n, const st_stream_info *(*get)(const void *src, unsigned i), const void *src);
int st_index_default_stream(const st_index *ix);

/* The vblock stream whose OWNER is stream id `owner` among the index's
 * streams: its position, or -1. */
int st_index_values_stream(const st_index *ix, uint32_t owner);

/*
 * Which frames of stream si the range needs: positions [j0, j1) in the
 * stream's frame table, and (entry ranges) the entries [lo, hi) that exist
 * of it (hi clipped to the stream's end; lo = hi: none).
 * Returns ST_OK; ST_E_USAGE (cycles of a type without them; times not
 * recorded: d says which), ST_E_CORRUPT (cycles decrease between frames).
 */
typedef struct {
    uint64_t j0, j1;
    uint64_t lo, hi;
} st_range_sel;
st_error st_range_select(const st_index *ix, unsigned si, const st_range *rg, st_range_sel *sel, st_diag *d);

/* The part [*a, *b) of n decoded entries (the first of them entry `first`
 * of stream s) that the range takes.  Cycle ranges check that the cycles
 * never decrease across every entry offered (ST_E_CORRUPT, d says where). */
typedef struct {
    st_range rg;
    uint64_t lo, hi; /* entries: what exists of the range */
    uint64_t last_cycle;
    int seen_any;
    int decreased; /* the ST_E_CORRUPT returned was a cycle decrease */
} st_slicer;
void st_slicer_init(st_slicer *sl, const st_range *rg, uint64_t lo, uint64_t hi);
st_error st_slice(st_slicer *sl, const st_stream_info *s, uint64_t first, const uint8_t *p, size_t n, size_t *a,
                  size_t *b, st_diag *d);

/* Whether a sequential reader must decode a frame for the range: its
 * entries or times may fall in it. */
int st_range_wants_frame(const st_range *rg, const st_frame_ref *f);

/* Data frame k of ix as a decode job for entries from..stop-1
 * (st_index_decode_part): its payload read into j->in (bounded before
 * allocating), the rest of *j set, its memory checked against the index's
 * limit divided among `share` threads.  Returns as st_index_decode_part
 * (the errors found before decoding). */
st_error st_index_frame_job(st_index *ix, uint64_t k, uint64_t from, uint64_t stop, unsigned share, st_job *j,
                            st_diag *d);

/*
 * Through the index, frame by frame: the entries of stream si that the
 * range selects.  st_range_next sets *p to the next *n entries (the first
 * of them entry *first), valid until the next call; *n = 0 at the end.
 * Only the frames needed are decoded, an entry range's last one only up to
 * its last entry, its first one storing nothing before it.  With threads
 * > 1 and more than one frame to decode, up to `threads` frames decode at
 * once on worker threads of the iterator's own (each frame within the
 * index's memory limit divided among them), and are handed out in order:
 * the same entries, and the same error after them, as with one.
 */
typedef struct {
    st_index *ix;
    unsigned si;
    st_range_sel sel;
    st_slicer sl;
    uint64_t j;        /* next frame position (to decode, or with a pool, to submit) */
    uint64_t decoded;  /* frames decoded so far */
    st_buf buf;
    st_pool pool;      /* threads > 1: the frames in flight */
    int pooled, held;  /* the pool is in use; its head is handed out */
    st_error pend;     /* a frame that could not be submitted: said after those before it */
    st_diag pend_diag;
} st_range_iter;
st_error st_range_iter_init(st_range_iter *it, st_index *ix, unsigned si, const st_range *rg, unsigned threads,
                            st_diag *d);
st_error st_range_next(st_range_iter *it, uint64_t *first, const uint8_t **p, size_t *n, st_diag *d);
void st_range_iter_free(st_range_iter *it);

/* Past the end: for an entry range over a stream of n entries, 0 when all
 * of it exists, 1 when it starts at or past the end (and asks for
 * something: an open end counts), 2 when it runs past the end: then
 * *from is the first missing entry and *missing how many are. */
int st_range_entries_past(const st_range *rg, uint64_t n, uint64_t *from, uint64_t *missing);
/* For a cycle or time window over a stream of `frames` data frames whose
 * last key (cycles) or time is `last`: 1 when the window starts after it
 * (or the stream has no frames), else 0. */
int st_range_window_past(const st_range *rg, uint64_t frames, uint64_t last);

/* The first entry of stream si whose cycle is >= cycle (the stream's entry
 * count if none), decoding at most one frame into *buf.  ST_E_USAGE (no
 * cycles in the type), ST_E_CYCLE_ORDER (the cycles decrease), data
 * errors. */
st_error st_index_find_cycle(st_index *ix, unsigned si, uint64_t cycle, uint64_t *entry, st_buf *buf, st_diag *d);

/* The whole values of wide accesses of one stream, from its vblock
 * companion (SIMTRACE.md 9.2), through the index. */
typedef struct {
    st_index *ix;
    int vs;         /* position of the companion vblock stream, -1 none */
    int64_t cached; /* position of the decoded vblock frame, -1 none */
    st_buf frame;
    uint8_t value[ST_VALUE_MAX];
    st_diag *d;     /* where errors are described */
} st_values;
void st_values_init(st_values *v, st_index *ix, unsigned si, st_diag *d);
/* The value of entry `index` (*value into v, *len bytes), or *value NULL
 * and *len 0 when the stream keeps no wide values.  ST_E_CORRUPT when its
 * blocks are missing or malformed.  The signature of st_value_fn. */
st_error st_values_get(void *v, uint64_t index, const uint8_t **value, size_t *len);
void st_values_free(st_values *v);

#endif /* ST_RANGE_H */
