/*
 * pool.h - an ordered job queue with worker threads (internal to frames/).
 *
 * A ring of q job slots.  The owner fills the slot at the tail and submits
 * it; workers run jobs in submission order as they become free; the owner
 * collects finished jobs strictly from the head.  So results come back in
 * submission order whatever the thread count.  With one thread no thread is
 * started: submit runs the job at once, and the results are the same.
 * Only the owner thread calls these functions.
 *
 * The pool knows nothing of what a job is: an st_pool_kind says how large
 * a job is, how to run one, what state each worker keeps (a codec
 * context) and how a slot's resources are set up and freed.
 */
#ifndef ST_POOL_H
#define ST_POOL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/st_error.h"

typedef struct {
    size_t job_size;
    /* run a job with the state of the worker that runs it */
    void (*run)(void *job, void *worker_state);
    /* a worker's state, made before the worker starts, freed at the end */
    st_error (*state_new)(void **state);
    void (*state_free)(void *state);
    /* a slot's resources (its buffers), kept from job to job */
    void (*slot_init)(void *job);
    void (*slot_free)(void *job);
} st_pool_kind;

typedef struct {
    const st_pool_kind *k;
    unsigned nthreads;
    unsigned q;
    unsigned char *slot; /* q jobs of k->job_size bytes */
    int *state;          /* per slot: 0 free, 1 queued, 2 running, 3 done */
    void **ws;           /* per worker: its state */
    unsigned nws;
    pthread_t *th;
    unsigned started;
    uint64_t head, tail, next;
    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_done;
    int stop;
} st_pool;

st_error st_pool_init(st_pool *p, const st_pool_kind *k, unsigned nthreads, unsigned q);
/* The free slot at the tail, or NULL when all q are in use. */
void *st_pool_slot(st_pool *p);
void st_pool_submit(st_pool *p);
/* The finished job at the head (waits for it); NULL when none is pending. */
void *st_pool_head(st_pool *p);
/* Release the head slot for reuse (its resources are kept). */
void st_pool_pop(st_pool *p);
unsigned st_pool_pending(const st_pool *p);
/* A slot whose job is finished, or that holds no pending job, for which
 * want(job, arg) holds: its resources are the owner's to take, whether or
 * not the job has been collected (the worker that ran it is done with
 * them).  With wait, while there is none and some job is queued or
 * running, waits for one to finish.  NULL when there is none. */
void *st_pool_find(st_pool *p, int (*want)(const void *job, void *arg), void *arg, int wait);
void st_pool_destroy(st_pool *p);

#endif
