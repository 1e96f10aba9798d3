/* pool.c - the ordered job queue (pool.h). */
#include "pool.h"

#include <stdlib.h>
#include <string.h>

#include "../common/st_io.h"

static void *worker(void *arg)
{
    st_pool *p = arg;
    pthread_mutex_lock(&p->mu);
    unsigned me = p->started++;
    for (;;) {
        while (!p->stop && p->next == p->tail)
            pthread_cond_wait(&p->cv_work, &p->mu);
        if (p->stop)
            break;
        size_t s = (size_t)(p->next % p->q);
        p->next++;
        p->state[s] = 2;
        pthread_mutex_unlock(&p->mu);
        p->k->run(p->slot + s * p->k->job_size, p->ws[me]);
        pthread_mutex_lock(&p->mu);
        p->state[s] = 3;
        pthread_cond_broadcast(&p->cv_done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

st_error st_pool_init(st_pool *p, const st_pool_kind *k, unsigned nthreads, unsigned q)
{
    memset(p, 0, sizeof *p);
    p->k = k;
    p->nthreads = nthreads;
    p->q = q;
    p->slot = calloc(q, k->job_size);
    p->state = calloc(q, sizeof *p->state);
    p->ws = calloc(nthreads, sizeof *p->ws);
    if (!p->slot || !p->state || !p->ws) {
        free(p->slot);
        free(p->state);
        free(p->ws);
        p->slot = NULL; /* st_pool_destroy() then has nothing to undo */
        p->state = NULL;
        p->ws = NULL;
        return ST_E_NOMEM;
    }
    for (unsigned i = 0; i < q; i++)
        k->slot_init(p->slot + (size_t)i * k->job_size);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv_work, NULL);
    pthread_cond_init(&p->cv_done, NULL);
    for (unsigned i = 0; i < nthreads; i++, p->nws++)
        RETURN_IF_ERROR(k->state_new(&p->ws[i]));
    if (nthreads > 1) {
        p->th = calloc(nthreads, sizeof *p->th);
        if (!p->th)
            return ST_E_NOMEM;
        for (unsigned i = 0; i < nthreads; i++)
            /* no signals here: the thread that reads the input takes
             * those that end a run (a handler run in a worker could not
             * wake its blocked read) */
            if (st_thread_create(&p->th[i], worker, p) != 0) {
                p->nthreads = i; /* only these get joined */
                return ST_E_THREAD;
            }
    }
    return ST_OK;
}

void *st_pool_slot(st_pool *p)
{
    if (p->tail - p->head >= p->q)
        return NULL;
    return p->slot + (size_t)(p->tail % p->q) * p->k->job_size;
}

void st_pool_submit(st_pool *p)
{
    size_t s = (size_t)(p->tail % p->q);
    if (!p->th) {
        p->k->run(p->slot + s * p->k->job_size, p->ws[0]);
        p->state[s] = 3;
        p->tail++;
        p->next = p->tail;
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->state[s] = 1;
    p->tail++;
    pthread_cond_signal(&p->cv_work);
    pthread_mutex_unlock(&p->mu);
}

void *st_pool_head(st_pool *p)
{
    if (p->head == p->tail)
        return NULL;
    size_t s = (size_t)(p->head % p->q);
    pthread_mutex_lock(&p->mu);
    while (p->state[s] != 3)
        pthread_cond_wait(&p->cv_done, &p->mu);
    pthread_mutex_unlock(&p->mu);
    return p->slot + s * p->k->job_size;
}

void st_pool_pop(st_pool *p)
{
    p->state[p->head % p->q] = 0;
    p->head++;
}

unsigned st_pool_pending(const st_pool *p) { return (unsigned)(p->tail - p->head); }

void *st_pool_find(st_pool *p, int (*want)(const void *job, void *arg), void *arg, int wait)
{
    if (p->th)
        pthread_mutex_lock(&p->mu);
    void *found = NULL;
    for (;;) {
        int busy = 0;
        for (size_t s = 0; s < p->q && !found; s++) {
            if (p->state[s] == 1 || p->state[s] == 2)
                busy = 1; /* queued or running: a worker's */
            else if (want(p->slot + s * p->k->job_size, arg))
                found = p->slot + s * p->k->job_size;
        }
        if (found || !busy || !wait)
            break;
        pthread_cond_wait(&p->cv_done, &p->mu);
    }
    if (p->th)
        pthread_mutex_unlock(&p->mu);
    return found;
}

void st_pool_destroy(st_pool *p)
{
    if (!p->slot)
        return;
    if (p->th) {
        pthread_mutex_lock(&p->mu);
        p->stop = 1;
        pthread_cond_broadcast(&p->cv_work);
        pthread_mutex_unlock(&p->mu);
        for (unsigned i = 0; i < p->nthreads; i++)
            pthread_join(p->th[i], NULL);
        free(p->th);
    }
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv_work);
    pthread_cond_destroy(&p->cv_done);
    for (unsigned i = 0; i < p->q; i++)
        p->k->slot_free(p->slot + (size_t)i * p->k->job_size);
    for (unsigned i = 0; i < p->nws; i++)
        p->k->state_free(p->ws[i]);
    free(p->ws);
    free(p->state);
    free(p->slot);
    memset(p, 0, sizeof *p);
}
