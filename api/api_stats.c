/* api_stats.c - the statistics of the public API (include/simtrace.h,
 * "advanced: statistics"): per data frame and per stream, what
 * simtrace-cat --stats prints. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/entry.h"
#include "../svpc/svpc_stats.h"
#include "api_internal.h"

_Static_assert(SIMTRACE_STATS_FIELDS == SVPC_STATS_FIELDS && SIMTRACE_STATS_IDS == SVPC_STATS_IDS &&
                   SIMTRACE_STATS_COST_UNIT == SVPC_COST_UNIT,
               "the public figures are svpc_stats.h's");

#define LINE_BITS 6  /* 64-byte cache lines */
#define PAGE_BITS 12 /* 4 KiB pages */
/* Distinct lines and pages are counted exactly up to this many each; past
 * it the count is a lower bound (said so), so memory stays bounded
 * (2 x 8 bytes x 2^22 slots at most) whatever the trace. */
#define DISTINCT_CAP (UINT32_C(1) << 21)
/* The slots of the sets alive at once, at most: a stream's two sets on a
 * random-access reader (one stream at a time), or every stream's together
 * on a sequential one (all at once), so memory stays bounded however many
 * streams there are; a set refused slots counts no more keys (a lower
 * bound, said so). */
#define SLOT_BUDGET ((size_t)4 * DISTINCT_CAP)

/* ---- a set of 64-bit keys (open addressing, linear probing) ---- */

typedef struct {
    uint64_t *slot; /* key + 1; 0 is empty */
    size_t cap, n;
    int full;     /* reached DISTINCT_CAP or the budget: later keys not counted */
    size_t *left; /* the slots that the sets sharing this budget may still take */
} keyset;

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static st_error keyset_add(keyset *s, uint64_t k)
{
    if (s->full)
        return ST_OK;
    if (2 * (s->n + 1) > s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 1024;
        if (s->n >= DISTINCT_CAP || nc - s->cap > *s->left) {
            s->full = 1;
            return ST_OK;
        }
        *s->left -= nc - s->cap;
        uint64_t *ns = calloc(nc, sizeof *ns);
        if (!ns)
            return ST_E_NOMEM;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->slot[i])
                continue;
            size_t j = mix64(s->slot[i]) & (nc - 1);
            while (ns[j])
                j = (j + 1) & (nc - 1);
            ns[j] = s->slot[i];
        }
        free(s->slot);
        s->slot = ns;
        s->cap = nc;
    }
    uint64_t key = k + 1; /* k = UINT64_MAX >> bits at most: no wrap to 0 */
    size_t j = mix64(key) & (s->cap - 1);
    while (s->slot[j]) {
        if (s->slot[j] == key)
            return ST_OK;
        j = (j + 1) & (s->cap - 1);
    }
    s->slot[j] = key;
    s->n++;
    return ST_OK;
}

/* Free the set's slots and give them back to its budget; its count stays. */
static void keyset_drop(keyset *s)
{
    if (s->left)
        *s->left += s->cap;
    free(s->slot);
    s->slot = NULL;
    s->cap = 0;
}

/* ---- the handle ---- */

typedef struct {
    int chosen;              /* counted (every stream, or the one named) */
    simtrace_stream_stats o; /* the figures but the sets' and the split's */
    keyset lines, pages;
    svpc_cost_stats cost;    /* cm2 frames, by cm2's accounting */
    uint64_t cm2_stored, other_stored;
} stream_acc;

struct simtrace_stats {
    simtrace_reader *r;
    st_index *ix;       /* random access; NULL: sequential */
    char *name;         /* the stream asked for; NULL: every stream */
    svpc_stats_ctx *sc;
    stream_acc *acc;    /* by the stream's index in the reader's list */
    uint32_t nacc;
    size_t left;        /* slots of the sets alive at once (SLOT_BUDGET) */
    st_buf buf;         /* a decoded frame */
    simtrace_error failed; /* sticky */
    char msg[API_MSG_MAX];
    /* random access: the next frame is frame j of stream i, of [i, hi) */
    uint32_t i, hi;
    uint64_t j;
    /* sequential: frames pulled one at a time; a chosen stream's figures
     * wait in `pending` for next() to hand them out */
    int read;           /* the input's end was reached */
    st_diag *d;         /* of the read, for its frame sink */
    simtrace_frame_stats pending;
    int have_pending;
};

SIMTRACE_API const char *simtrace_stats_field_name(uint32_t f)
{
    return f < SIMTRACE_STATS_FIELDS ? svpc_stats_field_name(f) : "?";
}

SIMTRACE_API uint32_t simtrace_stats_field_slots(uint32_t f) { return svpc_stats_nslots(f); }

static uint32_t kind_of(const char *name)
{
    const char *last = strrchr(name, '.');
    last = last ? last + 1 : name;
    if (strstr(last, "read") || strstr(last, "load"))
        return SIMTRACE_STATS_KIND_READ;
    if (strstr(last, "write") || strstr(last, "store"))
        return SIMTRACE_STATS_KIND_WRITE;
    return SIMTRACE_STATS_KIND_NONE;
}

static uint32_t fields_of(st_entry_type t)
{
    uint32_t m = 0;
    for (unsigned f = 0; st_entry_is_memory(t) && f < SIMTRACE_STATS_FIELDS; f++)
        m |= (uint32_t)svpc_stats_has_field(t, f) << f;
    return m;
}

/* The access size of entry e (d64, d32): the target's width with
 * fullSize, else the size field (as simtrace-cat -F text prints it). */
static uint64_t access_size(st_entry_type t, const st_entry *e)
{
    int wide = t == ST_TYPE_D64;
    if (e->meta16 & 1)
        return wide ? 8 : 4;
    return wide ? e->data >> 32 : (e->data >> 16) & 0xFFFF;
}

/* acc[index] exists for stream s (zeroed the first time). */
static st_error acc_at(simtrace_stats *st, uint32_t index, const st_stream_info *s)
{
    if (index >= st->nacc) {
        stream_acc *na = realloc(st->acc, ((size_t)index + 1) * sizeof *na);
        if (!na)
            return ST_E_NOMEM;
        memset(na + st->nacc, 0, ((size_t)index + 1 - st->nacc) * sizeof *na);
        st->acc = na;
        st->nacc = index + 1;
    }
    stream_acc *a = &st->acc[index];
    if (a->o.encoder_name[0])
        return ST_OK;
    a->chosen = !st->name || strcmp(st->name, s->name) == 0;
    a->lines.left = a->pages.left = &st->left;
    a->o.stream = index;
    a->o.encoder = s->encoder;
    const char *en = svpc_encoder_name((svpc_encoder)s->encoder);
    snprintf(a->o.encoder_name, sizeof a->o.encoder_name, "%s", en ? en : "?");
    a->o.kind = kind_of(s->name);
    a->o.fields = fields_of(s->type);
    return ST_OK;
}

static void pred_add(simtrace_stats_pred *to, const svpc_pred_stats *p)
{
    for (unsigned f = 0; f < SIMTRACE_STATS_FIELDS; f++) {
        to->coded[f] += p->coded[f];
        to->hits[f] += p->hits[f];
        to->expected[f] += p->expected[f];
        for (unsigned id = 0; id < SIMTRACE_STATS_IDS; id++)
            to->ids[f][id] += p->ids[f][id];
    }
}

/* Frame r of stream s (index), whose entries (memory types) are decoded
 * at entries, the first byte of its encoder's output byte0 (-1: not
 * read): its figures to *out, and added to the stream's. */
static st_error frame_pass(simtrace_stats *st, uint32_t index, const st_stream_info *s, const st_frame_ref *r,
                           const uint8_t *entries, int byte0, simtrace_frame_stats *out)
{
    stream_acc *a = &st->acc[index];
    memset(out, 0, sizeof *out);
    out->stream = index;
    out->encoder = r->encoder;
    out->frame = a->o.frames;
    out->first_entry = r->first_entry;
    out->entries = r->count;
    out->stored_bytes = r->size;
    out->transform = SIMTRACE_STATS_TRANSFORM_NONE;
    a->o.frames++;
    a->o.stored_bytes += r->size;
    a->o.entries += r->count;
    a->o.raw_bytes += r->count * s->entry_size;
    if (!st_entry_is_memory(s->type))
        return ST_OK;
    out->fields = a->o.fields;
    svpc_pred_stats fp;
    memset(&fp, 0, sizeof fp);
    /* one pass through the codec: the predictors' figures, and for a cm2
     * frame where its bits go */
    RETURN_IF_ERROR(svpc_stats_frame(st->sc, (svpc_encoder)r->encoder, s->type, entries, (size_t)r->count, byte0,
                                     &fp, &a->cost));
    pred_add(&out->pred, &fp);
    pred_add(&a->o.pred, &fp);
    int xf = svpc_stats_transform((svpc_encoder)r->encoder, byte0);
    if (xf >= 0) {
        out->transform = xf ? SIMTRACE_STATS_TRANSFORM_ON : SIMTRACE_STATS_TRANSFORM_OFF;
        if (xf)
            a->o.transform_on_frames++;
        else
            a->o.transform_off_frames++;
    }
    if (svpc_stats_splits((svpc_encoder)r->encoder)) {
        a->cm2_stored += r->size;
    } else {
        a->o.other_frames++;
        a->other_stored += r->size;
    }
    const int sized = s->type == ST_TYPE_D64 || s->type == ST_TYPE_D32;
    for (uint64_t i = 0; i < r->count; i++) {
        st_entry en;
        st_entry_load(s->type, entries + i * s->entry_size, &en);
        RETURN_IF_ERROR(keyset_add(&a->lines, en.addr >> LINE_BITS));
        RETURN_IF_ERROR(keyset_add(&a->pages, en.addr >> PAGE_BITS));
        if (sized) {
            uint64_t z = access_size(s->type, &en);
            a->o.sizes[z < SIMTRACE_STATS_SIZES - 1 ? z : SIMTRACE_STATS_SIZES - 1]++;
        }
    }
    return ST_OK;
}

static void acc_free(stream_acc *a)
{
    keyset_drop(&a->lines);
    keyset_drop(&a->pages);
}

SIMTRACE_API void simtrace_stats_free(simtrace_stats *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->nacc; i++)
        acc_free(&s->acc[i]);
    free(s->acc);
    free(s->name);
    st_buf_free(&s->buf);
    svpc_stats_free(s->sc);
    free(s);
}

SIMTRACE_API simtrace_error simtrace_stats_open(simtrace_stats **out, simtrace_reader *r, const char *stream)
{
    if (!out)
        return SIMTRACE_E_USAGE;
    *out = NULL;
    if (!r)
        return SIMTRACE_E_USAGE;
    simtrace_stats *s = calloc(1, sizeof *s);
    if (!s)
        return SIMTRACE_E_NOMEM;
    s->r = r;
    s->ix = api_reader_index(r);
    s->left = SLOT_BUDGET;
    st_buf_init(&s->buf, 0);
    st_error e = svpc_stats_new(&s->sc);
    if (e == ST_OK && stream && !(s->name = strdup(stream)))
        e = ST_E_NOMEM;
    if (e == ST_OK && s->ix) {
        s->hi = st_index_stream_count(s->ix);
        if (stream) {
            int k = st_index_find_stream(s->ix, stream);
            if (k < 0)
                e = ST_E_NOT_FOUND;
            s->i = (uint32_t)k;
            s->hi = s->i + 1;
        }
        for (uint32_t k = s->i; k < s->hi && e == ST_OK; k++)
            e = acc_at(s, k, st_index_stream(s->ix, k));
    } else if (e == ST_OK) {
        e = api_reader_claim(r);
    }
    if (e != ST_OK) {
        simtrace_stats_free(s);
        return api_error(e);
    }
    *out = s;
    return SIMTRACE_OK;
}

/* The stream's figures are final: its sets' slots go back to the budget. */
static void finish(stream_acc *a)
{
    a->o.complete = 1;
    a->o.distinct_lines = a->lines.n;
    a->o.distinct_pages = a->pages.n;
    a->o.lines_exact = !a->lines.full;
    a->o.pages_exact = !a->pages.full;
    acc_free(a);
}

/* 1 for frames whose first payload byte says how they were coded: cmx's
 * and mix's, with the transform or without (SIMTRACE.md 6.9.1) */
static int codes_by_byte0(const st_frame_ref *r) { return svpc_stats_has_byte0((svpc_encoder)r->encoder); }

/* Random access: the next frame, stream by stream. */
static st_error next_indexed(simtrace_stats *s, simtrace_frame_stats *f, uint32_t *got, st_diag *d)
{
    while (s->i < s->hi && s->j == st_index_stream_frames(s->ix, s->i)) {
        finish(&s->acc[s->i]);
        s->i++;
        s->j = 0;
    }
    if (s->i == s->hi) {
        *got = 0;
        return ST_OK;
    }
    const st_stream_info *si = st_index_stream(s->ix, s->i);
    const st_frame_ref *r = st_index_stream_frame(s->ix, s->i, s->j);
    int byte0 = -1;
    if (st_entry_is_memory(si->type)) {
        RETURN_IF_ERROR(st_index_decode_frame(s->ix, r->ordinal, &s->buf, d));
        if (codes_by_byte0(r))
            RETURN_IF_ERROR(st_index_frame_byte0(s->ix, r->ordinal, &byte0, d));
    }
    RETURN_IF_ERROR(frame_pass(s, s->i, si, r, s->buf.data, byte0, f));
    s->j++;
    *got = 1;
    return ST_OK;
}

/* Every stream the reader knows has its figures (streams without frames
 * too: each is known by its descriptor), so that simtrace_stats_stream
 * answers for it as soon as the reader lists it. */
static st_error acc_known(simtrace_stats *s)
{
    const st_stream_info *si;
    for (uint32_t k = 0; (si = api_reader_stream(s->r, k)) != NULL; k++)
        RETURN_IF_ERROR(acc_at(s, k, si)); /* (at once for those that have it) */
    return ST_OK;
}

/* Sequential: each data frame, as the reader hands it over. */
static st_error seq_frame(void *arg, const st_stream_info *si, const st_frame_ref *r, const st_raw_frame *raw)
{
    simtrace_stats *s = arg;
    uint32_t index = 0;
    while (api_reader_stream(s->r, index) && api_reader_stream(s->r, index)->id != si->id)
        index++;
    if (!api_reader_stream(s->r, index))
        return ST_E_INTERNAL; /* the reader lists each stream before its frames */
    RETURN_IF_ERROR(acc_known(s));
    if (!s->acc[index].chosen)
        return ST_OK;
    int byte0 = -1;
    if (st_entry_is_memory(si->type)) {
        RETURN_IF_ERROR(st_raw_frame_decode(si, r, raw, &s->buf, s->d));
        if (codes_by_byte0(r))
            byte0 = st_raw_frame_byte0(r, raw);
    }
    RETURN_IF_ERROR(frame_pass(s, index, si, r, s->buf.data, byte0, &s->pending));
    s->have_pending = 1;
    return ST_OK;
}

/* Sequential: frames pulled until one of a chosen stream gives its
 * figures (*got 1), or the end, where every stream is final (*got 0):
 * one frame in memory at a time, however long the input. */
static st_error next_sequential(simtrace_stats *s, simtrace_frame_stats *f, uint32_t *got, st_diag *d)
{
    *got = 0;
    if (s->read)
        return ST_OK;
    int more = 1;
    st_error e = ST_OK;
    s->have_pending = 0;
    s->d = d;
    while (e == ST_OK && more && !s->have_pending) {
        e = api_reader_pull_frame(s->r, seq_frame, s, &more, d);
        if (e == ST_OK)
            e = acc_known(s);
    }
    s->d = NULL;
    RETURN_IF_ERROR(e);
    if (s->have_pending) {
        *f = s->pending;
        *got = 1;
        return ST_OK;
    }
    s->read = 1;
    int found = !s->name;
    for (uint32_t k = 0; k < s->nacc; k++)
        found |= s->acc[k].chosen;
    if (!found)
        return st_diag_set(d, ST_E_NOT_FOUND, "no stream named '%s'", s->name);
    for (uint32_t k = 0; k < s->nacc; k++)
        if (s->acc[k].chosen)
            finish(&s->acc[k]);
    return ST_OK;
}

SIMTRACE_API simtrace_error simtrace_stats_next(simtrace_stats *s, simtrace_frame_stats *f, uint32_t *got)
{
    if (!s || !f || !got)
        return SIMTRACE_E_USAGE;
    if (s->failed != SIMTRACE_OK)
        return s->failed;
    s->msg[0] = 0;
    st_diag d;
    st_diag_clear(&d);
    st_error e = ST_OK;
    e = s->ix ? next_indexed(s, f, got, &d) : next_sequential(s, f, got, &d);
    if (e != ST_OK)
        s->failed = api_fail(s->msg, e, &d);
    return s->failed;
}

SIMTRACE_API simtrace_error simtrace_stats_stream(const simtrace_stats *s, uint32_t index, simtrace_stream_stats *out)
{
    if (!s || !out)
        return SIMTRACE_E_USAGE;
    if (index >= s->nacc) {
        uint32_t n = 0;
        simtrace_reader_stream_count(s->r, &n);
        return index < n ? SIMTRACE_E_NOT_FOUND : SIMTRACE_E_RANGE;
    }
    const stream_acc *a = &s->acc[index];
    if (!a->chosen)
        return SIMTRACE_E_NOT_FOUND;
    *out = a->o;
    if (!a->o.complete) {
        out->distinct_lines = a->lines.n;
        out->distinct_pages = a->pages.n;
        out->lines_exact = !a->lines.full;
        out->pages_exact = !a->pages.full;
    }
    for (unsigned f = 0; a->o.fields && f < SIMTRACE_STATS_FIELDS; f++) {
        out->bits_ids[f] = a->cost.ids[f];
        out->bits_misses[f] = a->cost.misses[f];
    }
    if (a->o.fields) {
        out->bits_all_flag = a->cost.all_flag;
        out->bits_headers = (int64_t)(a->cm2_stored - a->cost.payload_bytes) * 8 * SVPC_COST_UNIT;
        out->bits_rounding = a->cost.rounding;
        out->bits_other = (int64_t)a->other_stored * 8 * SVPC_COST_UNIT;
        out->payload_bytes = a->cost.payload_bytes;
    }
    return SIMTRACE_OK;
}

SIMTRACE_API const char *simtrace_stats_message(const simtrace_stats *s) { return s ? s->msg : ""; }
