/*
 * frame_job.h - the work of frames/ that worker threads do (internal): a
 * job encodes or decodes one data frame with a codec context of its own.
 * The writer and the readers queue these jobs in a pool (pool.h), which
 * knows nothing of them but their size and how to run, set up and free
 * them (st_frame_jobs).
 */
#ifndef ST_FRAME_JOB_H
#define ST_FRAME_JOB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "../common/st_bytes.h"
#include "../svpc/svpc.h"
#include "frame_format.h"
#include "pool.h"

enum { JOB_ENCODE = 1, JOB_DECODE = 2, JOB_READY = 3, JOB_ENCODE_FED = 4 };

/* A frame handed to a worker before its entries are all there
 * (JOB_ENCODE_FED): the owner writes entries into the job's `in` beyond
 * `ready` and then publishes them; the worker codes those published.
 * Only these fields are shared while the job runs. */
typedef struct {
    atomic_size_t ready; /* entries the worker may read */
    atomic_int ended;    /* no more come: ready and the job's n are final */
    atomic_int waiting;  /* the worker sleeps on cv for more */
    pthread_mutex_t mu;
    pthread_cond_t cv;
} st_feed;

typedef struct {
    int op;
    st_entry_type type;
    size_t esz;         /* entry size (a user type's comes from its stream) */
    svpc_params params; /* encode */
    st_buf in;          /* encode: raw entries; decode: frame payload */
    size_t n;           /* entries */
    size_t stop;        /* decode: only the first stop entries (0: all n) */
    size_t from;        /* decode: entries before it are not wanted (svpc_decode_part) */
    st_buf out;         /* encode: frame payload; decode: raw entries */
    st_frame_header h;  /* encode: completed by the worker; decode: as read */
    uint64_t offset;    /* decode: file offset of the frame header */
    uint64_t ordinal;   /* frame ordinal in the file */
    int verify_only;
    int ignore_check;   /* decode: skip the ENTRY_CRC comparison */
    int discard;        /* the owner drops the result (a fed frame given up) */
    st_feed feed;       /* JOB_ENCODE_FED */
    st_error err;
    st_diag diag;
} st_job;

/* What the pool needs to hold and run st_jobs: their size, a codec
 * context per worker, the buffers of each slot. */
extern const st_pool_kind st_frame_jobs;

/* The owner's side of a JOB_ENCODE_FED job (already submitted): make its
 * first `ready` entries visible to the worker; end the frame at its n
 * entries (set j->n first), after which it reads no more. */
void st_feed_publish(st_job *j, size_t ready);
void st_feed_end(st_job *j);
/* Before submitting a JOB_ENCODE_FED job: nothing published yet. */
void st_feed_start(st_job *j);

/* The work of one job, run by a worker with its own codec context. */
void st_job_run(st_job *j, svpc_ctx *ctx);

/* Decode one whole data frame on the calling thread, outside any pool
 * and any index (st_raw_frame_decode): header h (as read and checked),
 * payload *in (checked against h->payload_crc here), entries of type t
 * and size esz, checked against its ENTRY_CRC.  The entries replace *out's
 * contents.  Returns the job's error; on failure *d (if not NULL) says
 * what and where within the frame, and the caller adds the frame's place.
 * (The index fills a job itself: st_index_frame_job.) */
st_error st_decode_frame_now(svpc_ctx *ctx, const st_frame_header *h, st_entry_type t, size_t esz, st_buf *in,
                             st_buf *out, st_diag *d);

#endif /* ST_FRAME_JOB_H */
