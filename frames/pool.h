/*
 * pool.h - ordered job queue with worker threads (internal to frames/).
 *
 * A ring of q job slots.  The owner fills the slot at the tail and submits
 * it; workers run jobs in submission order as they become free; the owner
 * collects finished jobs strictly from the head.  So results come back in
 * submission order whatever the thread count.  With one thread no thread is
 * started: submit runs the job at once, and the bytes are the same.
 * Only the owner thread calls these functions.
 */
#ifndef ST_POOL_H
#define ST_POOL_H

#include <pthread.h>
#include <stdint.h>

#include "../common/st_bytes.h"
#include "../svpc/svpc.h"
#include "frame_format.h"

enum { JOB_ENCODE = 1, JOB_DECODE = 2, JOB_READY = 3 };

typedef struct {
    int op;
    st_entry_type type;
    size_t esz;         /* entry size (a user type's comes from its stream) */
    svpc_params params; /* encode */
    st_buf in;          /* encode: raw entries; decode: frame payload */
    size_t n;           /* entries */
    size_t stop;        /* decode: only the first stop entries (0: all n) */
    st_buf out;         /* encode: frame payload; decode: raw entries */
    st_frame_header h;  /* encode: completed by the worker; decode: as read */
    uint64_t offset;    /* decode: file offset of the frame header */
    uint64_t ordinal;   /* frame ordinal in the file */
    int verify_only;
    int ignore_check;   /* decode: skip the ENTRY_CRC comparison */
    st_error err;
    st_diag diag;
    int state; /* 0 free, 1 queued, 2 running, 3 done */
} st_job;

typedef struct {
    unsigned nthreads;
    unsigned q;
    st_job *slot;
    svpc_ctx **ctx;
    unsigned nctx;
    pthread_t *th;
    unsigned started;
    uint64_t head, tail, next;
    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_done;
    int stop;
} st_pool;

st_error st_pool_init(st_pool *p, unsigned nthreads, unsigned q);
/* The free slot at the tail, or NULL when all q are in use. */
st_job *st_pool_slot(st_pool *p);
void st_pool_submit(st_pool *p);
/* The finished job at the head (waits for it); NULL when none is pending. */
st_job *st_pool_head(st_pool *p);
/* Release the head slot for reuse (its buffers are kept). */
void st_pool_pop(st_pool *p);
unsigned st_pool_pending(const st_pool *p);
void st_pool_destroy(st_pool *p);

/* The work of one job, run by a worker with its own codec context. */
void st_job_run(st_job *j, svpc_ctx *ctx);

/* Decode one data frame on the calling thread, outside any pool: header h
 * (as read and checked), payload *in (checked against h->payload_crc
 * here), entries of type t and size esz.  stop = 0 decodes the whole frame,
 * else returns its first stop entries (decoding to the end of the ENTRY_CRC
 * block of the last, to check them, unless ignore_check).  The entries replace *out's contents.
 * Returns the job's error; on failure *d (if not NULL) says what and where
 * within the frame, and the caller adds the frame's place. */
st_error st_decode_frame_now(svpc_ctx *ctx, const st_frame_header *h, st_entry_type t, size_t esz, st_buf *in,
                             size_t stop, int ignore_check, st_buf *out, st_diag *d);

#endif
