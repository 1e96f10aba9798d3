/* frame_job.c - encoding and decoding one data frame: the jobs of the
 * worker pool (frame_job.h). */
#include "frame_job.h"

#include <stdlib.h>
#include <string.h>

/* First and last key of n raw entries of type t: what a data frame's
 * header records.  0 and 0 for an empty frame or a type without keys. */
static void cycles_of(st_entry_type t, size_t esz, const uint8_t *raw, size_t n, uint64_t *first, uint64_t *last)
{
    *first = *last = 0;
    if (!st_entry_has_key(t) || n == 0)
        return;
    *first = st_load64(raw) & ST_CYCLE_MASK;
    *last = st_load64(raw + (n - 1) * esz) & ST_CYCLE_MASK;
}

/* The codec knows user types only as bytes (generic encoder only; the
 * writer and readers keep such frames within SVPC_MAX_FRAME_ENTRIES bytes). */
static st_entry_type codec_type(const st_job *j, size_t *n)
{
    *n = j->n;
    if (j->type != ST_TYPE_USER)
        return j->type;
    *n = j->n * j->esz;
    return ST_TYPE_BYTES;
}

/* Block b of the ENTRY_CRC blocks of entries of esz bytes: its bytes
 * off..off+len of the first end bytes of the entries (the last block may
 * be shorter). */
static void crc_block(size_t b, size_t esz, size_t end, size_t *off, size_t *len)
{
    size_t bb = (size_t)ST_ENTRY_CRC_BLOCK * esz;
    *off = b * bb;
    *len = end - *off < bb ? end - *off : bb;
}

/* ---- fed frames (st_feed) ---- */

void st_feed_start(st_job *j)
{
    atomic_store(&j->feed.ready, 0);
    atomic_store(&j->feed.ended, 0);
    atomic_store(&j->feed.waiting, 0);
}

/* A sleeping worker is woken under the mutex: it set `waiting` and looked
 * at `ready` under it, so a publication it missed finds it asleep. */
static void feed_wake(st_feed *f)
{
    if (atomic_load(&f->waiting)) {
        pthread_mutex_lock(&f->mu);
        pthread_cond_signal(&f->cv);
        pthread_mutex_unlock(&f->mu);
    }
}

void st_feed_publish(st_job *j, size_t ready)
{
    atomic_store(&j->feed.ready, ready);
    feed_wake(&j->feed);
}

void st_feed_end(st_job *j)
{
    atomic_store(&j->feed.ready, j->n);
    atomic_store(&j->feed.ended, 1);
    feed_wake(&j->feed);
}

/* The worker's svpc_source: `ended` is read before `ready`, so once the
 * frame has ended the count read is its last. */
static size_t feed_more(void *arg, size_t have)
{
    st_feed *f = &((st_job *)arg)->feed;
    int end = atomic_load(&f->ended);
    size_t r = atomic_load(&f->ready);
    if (r > have || end)
        return r;
    pthread_mutex_lock(&f->mu);
    atomic_store(&f->waiting, 1);
    for (;;) {
        end = atomic_load(&f->ended);
        r = atomic_load(&f->ready);
        if (r > have || end)
            break;
        pthread_cond_wait(&f->cv, &f->mu);
    }
    atomic_store(&f->waiting, 0);
    pthread_mutex_unlock(&f->mu);
    return r;
}

static void run_encode(st_job *j, svpc_ctx *ctx)
{
    j->out.len = 0;
    uint8_t ah[ST_ATTR_HEADER_SIZE] = {0};
    j->err = st_buf_append(&j->out, ah, sizeof ah);
    if (j->op == JOB_ENCODE_FED) {
        /* j->n is the owner's until the frame has ended */
        svpc_source src = {feed_more, j};
        size_t got = 0;
        if (j->err == ST_OK)
            j->err = svpc_encode_source(ctx, &j->params, j->type, j->in.data, &src, &got, &j->out);
        if (j->err == ST_OK && got != j->n)
            j->err = ST_E_INTERNAL;
    }
    if (j->err != ST_OK)
        return;
    size_t esz = j->esz, cn;
    st_entry_type ct = codec_type(j, &cn);
    if (j->op == JOB_ENCODE)
        j->err = svpc_encode(ctx, &j->params, ct, j->in.data, cn, &j->out);
    /* A memory encoder can expand incompressible entries.  Past raw size +
     * 1 KiB, fall back to the generic encoder (at most raw + 16 bytes of
     * stream set, + 16 of attribute header; ENTRY_CRC adds 16 + 4 per block
     * of entries below, at most 1040), so every payload stays within the
     * raw size + 4 KiB that readers allow (SIMTRACE.md 6, 8). */
    if (j->err == ST_OK && j->params.encoder != SVPC_ENC_GENERIC && j->out.len > j->n * esz + 1024) {
        svpc_params g = j->params;
        g.encoder = SVPC_ENC_GENERIC;
        j->out.len = ST_ATTR_HEADER_SIZE;
        j->err = svpc_encode(ctx, &g, ct, j->in.data, cn, &j->out);
        j->h.encoder = SVPC_ENC_GENERIC;
    }
    if (j->err != ST_OK)
        return;
    st_store32(j->out.data, ST_ATTR_DATA);
    st_store32(j->out.data + 4, ST_ATTR_CRITICAL);
    st_store64(j->out.data + 8, j->out.len - ST_ATTR_HEADER_SIZE);
    /* The payload CRC covers the stored bytes; these cover what they must
     * decode to, so a reader also catches an encoder or decoder that went
     * wrong (SIMTRACE.md 5.2, key 10): one per block of entries, so that a
     * reader after one entry checks it without decoding the whole frame. */
    uint8_t crc[4 * (SVPC_MAX_FRAME_ENTRIES / ST_ENTRY_CRC_BLOCK)];
    size_t nb = (size_t)st_entry_crc_len(j->n) / 4;
    for (size_t b = 0; b < nb; b++) {
        size_t off, len;
        crc_block(b, esz, j->n * esz, &off, &len);
        st_store32(crc + 4 * b, st_crc32(j->in.data + off, len));
    }
    j->err = st_attr_append(&j->out, ST_ATTR_ENTRY_CRC, 0, crc, 4 * nb);
    if (j->err != ST_OK)
        return;
    j->h.kind = ST_KIND_DATA;
    j->h.nattrs = 2;
    j->h.count = j->n;
    j->h.payload_size = j->out.len;
    j->h.payload_crc = st_crc32(j->out.data, j->out.len);
    cycles_of(j->type, esz, j->in.data, j->n, &j->h.first_cycle, &j->h.last_cycle);
}

/* The decoded entries of j->out from block b0 up to entry dec (the
 * frame's count, or a multiple of the block) against the ENTRY_CRC value
 * crc. */
static st_error check_blocks(st_job *j, const uint8_t *crc, size_t b0, size_t dec)
{
    size_t end = dec * j->esz, off, len;
    for (size_t b = b0; b * ST_ENTRY_CRC_BLOCK < dec; b++) {
        crc_block(b, j->esz, end, &off, &len);
        if (!st_crc_ok(st_load32(crc + 4 * b), j->out.data + off, len))
            return st_diag_set(&j->diag, ST_E_ENTRY_CRC,
                               "entries %zu..%zu of the frame have CRC-32 0x%08x, its ENTRY_CRC says 0x%08x",
                               b * ST_ENTRY_CRC_BLOCK, off / j->esz + len / j->esz - 1,
                               (unsigned)st_crc32(j->out.data + off, len), (unsigned)st_load32(crc + 4 * b));
    }
    return ST_OK;
}

static void run_decode(st_job *j, svpc_ctx *ctx)
{
    st_diag *d = &j->diag;
    if (!st_crc_ok(j->h.payload_crc, j->in.data, j->in.len)) {
        j->err = st_diag_set(d, ST_E_PAYLOAD_CRC, "payload checksum mismatch");
        return;
    }
    st_data_view v;
    j->err = st_data_attrs(j->in.data, j->in.len, j->h.nattrs, j->h.count, &v, d);
    if (j->err != ST_OK)
        return;
    size_t esz = j->esz, cn;
    st_entry_type ct = codec_type(j, &cn);
    j->out.len = 0;
    j->err = st_buf_reserve(&j->out, j->n * esz + 1);
    if (j->err != ST_OK)
        return;
    size_t stop = j->stop && j->stop < j->n ? j->stop : j->n;
    /* ENTRY_CRC checks whole blocks, so a prefix is decoded to the end of
     * its last block, and the entries kept from the start of the first
     * block wanted, unless the caller chose speed over the check.  The
     * blocks before are decoded for their predictors' state only: an entry
     * not returned needs no check, and one decoded wrong would put those
     * after it wrong too, where their own blocks tell. */
    int check = v.entry_crc && !j->ignore_check;
    size_t dec = stop, from = j->from < stop ? j->from : stop ? stop - 1 : 0; /* the last entry is kept */
    if (check && dec < j->n) {
        dec = (dec + ST_ENTRY_CRC_BLOCK - 1) / ST_ENTRY_CRC_BLOCK * ST_ENTRY_CRC_BLOCK;
        dec = dec < j->n ? dec : j->n;
    }
    if (check)
        from = from / ST_ENTRY_CRC_BLOCK * ST_ENTRY_CRC_BLOCK;
    /* user types are bytes to the codec, so scale the counts like n */
    size_t cdec = j->type == ST_TYPE_USER ? dec * esz : dec, cfrom = j->type == ST_TYPE_USER ? from * esz : from;
    j->err = svpc_decode_part(ctx, (svpc_encoder)j->h.encoder, ct, v.data, (size_t)v.dlen, cn, cfrom, cdec,
                              j->out.data, d);
    if (j->err != ST_OK)
        return;
    /* the header's cycle range must be the decoded one (0..0 for streams
     * without cycles); of a prefix only the first cycle is known */
    uint64_t fc, lc;
    cycles_of(j->type, esz, j->out.data, dec, &fc, &lc);
    if (dec < j->n && fc != j->h.first_cycle)
        j->err = st_diag_set(d, ST_E_CORRUPT, "decoded first cycle %llu differs from the header's %llu",
                             (unsigned long long)fc, (unsigned long long)j->h.first_cycle);
    else if (dec == j->n && (fc != j->h.first_cycle || lc != j->h.last_cycle))
        j->err = st_diag_set(d, ST_E_CORRUPT, "decoded cycles %llu..%llu differ from the header's %llu..%llu",
                             (unsigned long long)fc, (unsigned long long)lc, (unsigned long long)j->h.first_cycle,
                             (unsigned long long)j->h.last_cycle);
    else if (check)
        j->err = check_blocks(j, v.entry_crc, from / ST_ENTRY_CRC_BLOCK, dec);
    j->out.len = stop * esz;
}

void st_job_run(st_job *j, svpc_ctx *ctx)
{
    j->err = ST_OK;
    st_diag_clear(&j->diag);
    /* JOB_READY: the payload was built by the owner; nothing to do */
    if (j->op == JOB_ENCODE || j->op == JOB_ENCODE_FED)
        run_encode(j, ctx);
    else if (j->op == JOB_DECODE)
        run_decode(j, ctx);
}

st_error st_decode_frame_now(svpc_ctx *ctx, const st_frame_header *h, st_entry_type t, size_t esz, st_buf *in,
                             st_buf *out, st_diag *d)
{
    st_job j;
    memset(&j, 0, sizeof j);
    j.op = JOB_DECODE;
    j.type = t;
    j.esz = esz;
    j.n = (size_t)h->count;
    j.h = *h;
    j.in = *in; /* lent for the call: the job owns no buffer */
    j.out = *out;
    st_job_run(&j, ctx);
    *in = j.in;
    *out = j.out;
    if (j.err != ST_OK && d)
        *d = j.diag;
    return j.err;
}

/* ---- what the pool needs of these jobs ---- */

static void job_run(void *job, void *ctx) { st_job_run(job, ctx); }

static st_error ctx_new(void **out)
{
    svpc_ctx *c;
    RETURN_IF_ERROR(svpc_ctx_new(&c));
    *out = c;
    return ST_OK;
}

static void ctx_free(void *c) { svpc_ctx_free(c); }

static void slot_init(void *job)
{
    st_job *j = job;
    st_buf_init(&j->in, 0);
    st_buf_init(&j->out, 0);
    pthread_mutex_init(&j->feed.mu, NULL);
    pthread_cond_init(&j->feed.cv, NULL);
}

static void slot_free(void *job)
{
    st_job *j = job;
    st_buf_free(&j->in);
    st_buf_free(&j->out);
    pthread_mutex_destroy(&j->feed.mu);
    pthread_cond_destroy(&j->feed.cv);
}

const st_pool_kind st_frame_jobs = {sizeof(st_job), job_run, ctx_new, ctx_free, slot_init, slot_free};
