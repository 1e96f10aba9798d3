/* Random access by range: the first 16 input bytes choose an entry range,
 * a key and a time (two u64, little-endian); the rest is opened as a
 * container through footer and directory.  For every stream the lookups
 * st_index_find_entry / st_index_lower_key / st_index_lower_time must give
 * answers consistent with the frame table, and the frames covering the
 * range are decoded (at most 4 per stream) to exactly count x entry-size
 * bytes.  Out-of-range stream and frame numbers must give ST_E_RANGE. */
#include "../../frames/container.h"
#include "fuzz_util.h"

#define MAX_DECODES 4

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* lookups of stream i must agree with its frame table */
static void check_lookups(const st_index *ix, unsigned i, uint64_t a, uint64_t b)
{
    const st_stream_info *s = st_index_stream(ix, i);
    uint64_t nfr = st_index_stream_frames(ix, i), j;
    if (st_index_stream_frame(ix, i, nfr))
        abort();
    uint64_t probes[5] = {a, b, s->entries ? a % s->entries : 0, s->entries ? s->entries - 1 : 0, UINT64_MAX};
    for (unsigned p = 0; p < 5; p++) {
        uint64_t e = probes[p];
        st_error r = st_index_find_entry(ix, i, e, &j);
        if (e >= s->entries) {
            if (r != ST_E_RANGE)
                abort();
            continue;
        }
        if (r != ST_OK || j >= nfr)
            abort();
        const st_frame_ref *f = st_index_stream_frame(ix, i, j);
        if (!f || f->first_entry > e || e - f->first_entry >= f->count)
            abort();
    }
    uint64_t k = st_index_lower_key(ix, i, a);
    if (k > nfr)
        abort();
    if (st_index_keys_ordered(ix, i)) {
        const st_frame_ref *f = st_index_stream_frame(ix, i, k), *g = k ? st_index_stream_frame(ix, i, k - 1) : NULL;
        if ((f && f->last_cycle < a) || (g && g->last_cycle >= a))
            abort();
    }
    uint64_t t = st_index_lower_time(ix, i, b);
    if (t > nfr)
        abort();
    if (st_index_times_ordered(ix, i)) {
        const st_frame_ref *f = st_index_stream_frame(ix, i, t), *g = t ? st_index_stream_frame(ix, i, t - 1) : NULL;
        if ((f && f->last_time < b) || (g && g->last_time >= b))
            abort();
    }
}

/* decode the frames holding entries [lo, hi) of stream i, at most MAX_DECODES */
static void decode_range(st_index *ix, unsigned i, uint64_t lo, uint64_t hi, st_buf *out)
{
    const st_stream_info *s = st_index_stream(ix, i);
    uint64_t j;
    st_diag d;
    if (lo >= hi || st_index_find_entry(ix, i, lo, &j) != ST_OK)
        return;
    for (unsigned n = 0; n < MAX_DECODES && j < st_index_stream_frames(ix, i); n++, j++) {
        const st_frame_ref *f = st_index_stream_frame(ix, i, j);
        if (f->first_entry >= hi)
            break;
        if (f->kind != 1 || f->stream != s->id)
            abort();
        if (st_index_decode_frame(ix, f->ordinal, out, &d) == ST_OK && out->len != f->count * s->entry_size)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 16)
        return 0;
    uint64_t a = le64(data), b = le64(data + 8);
    int fd = fuzz_memfd(data + 16, size - 16);
    st_index *ix = NULL;
    st_diag d;
    if (st_index_open(&ix, fd, &d) == ST_OK) {
        /* frames claiming up to 2^24 entries are legal: keep each decode
         * within the fuzzer's memory */
        st_index_set_memlimit(ix, UINT64_C(256) << 20);
        st_buf out;
        st_buf_init(&out, 0);
        unsigned ns = st_index_stream_count(ix);
        uint64_t j;
        if (st_index_find_entry(ix, ns, 0, &j) != ST_E_RANGE || st_index_stream(ix, ns) ||
            st_index_stream_frame(ix, ns, 0) || st_index_frame(ix, st_index_frame_count(ix)))
            abort();
        if (st_index_decode_frame(ix, st_index_frame_count(ix), &out, &d) != ST_E_RANGE)
            abort();
        for (unsigned i = 0; i < ns; i++) {
            const st_stream_info *s = st_index_stream(ix, i);
            check_lookups(ix, i, a, b);
            uint64_t lo = s->entries ? a % s->entries : 0, len = (b & 0xffff) + 1;
            uint64_t hi = lo + len < lo || lo + len > s->entries ? s->entries : lo + len;
            decode_range(ix, i, lo, hi, &out);
        }
        /* descriptors are not data frames */
        for (uint64_t k = 0; k < st_index_frame_count(ix) && k < 64; k++)
            if (st_index_frame(ix, k)->kind != 1 && st_index_decode_frame(ix, k, &out, &d) != ST_E_RANGE)
                abort();
        st_buf_free(&out);
    }
    st_index_free(ix);
    close(fd);
    return 0;
}
