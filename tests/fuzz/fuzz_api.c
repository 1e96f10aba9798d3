/* The public read calls (include/simtrace.h) on hostile input: the first
 * 16 bytes choose an entry and a cycle (two u64, little-endian); the rest
 * is opened as a trace with random access (an in-memory file) and
 * sequentially (the read callback).  For every stream: reading a few
 * entries at the chosen place, finding the cycle, a wide value, and
 * cursors over an entry and a cycle range; sequentially, a cursor of the
 * default stream.  The answers must be consistent with each other: a read
 * of [a, b) gives exactly min(b, n) - a entries, a cursor's entries come
 * in order and equal what the read gives; a salvage and a resume of each
 * stream (the recovery calls) deliver in order and account for every
 * entry; every call returns an error value, never crashes, hangs or
 * allocates without bound. */
#include <string.h>

#include "../../include/simtrace.h"
#include "fuzz_util.h"

/* Entries per read and per cursor: bounded work.  Every frame decoded
 * starts the codec's state afresh, which costs the same for a frame of one
 * entry as of many: with the seeds' frames of 1 entry, a few dozen frames
 * per input keep the harness fast. */
#define MAX_ENTRIES 48u
#define MAX_ESZ 65536u

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint8_t buf[MAX_ENTRIES * 64], buf2[MAX_ENTRIES * 64];

/* Up to `max` entries of cursor c; each call's entries must follow the
 * last call's (entry ranges) and match a direct read. */
static void pull(simtrace_reader *r, simtrace_cursor *c, const simtrace_stream_info *s, int entries_range,
                 uint64_t expect_first)
{
    uint64_t n, first, total = 0, next = expect_first;
    simtrace_error e;
    size_t room = s->entry_size <= 64 ? sizeof buf : 0;
    if (!room)
        return;
    int turn = 0;
    const void *p;
    /* next and peek in turn: one cursor, both ways of taking entries */
    while (total < MAX_ENTRIES &&
           (e = (turn++ & 1) ? simtrace_cursor_peek(c, &p, &n, &first) : simtrace_cursor_next(c, buf, room, &n, &first)) ==
               SIMTRACE_OK &&
           n) {
        uint64_t taken = n;
        if (turn & 1) {
            if (n * s->entry_size > room)
                abort();
        } else {
            if (!p || n > SIMTRACE_USER_ENTRY_MAX * 256u)
                abort();
            if (n * s->entry_size > sizeof buf)
                n = sizeof buf / s->entry_size; /* compare what fits */
            memcpy(buf, p, (size_t)(n * s->entry_size));
        }
        if (entries_range && first != next)
            abort();
        uint64_t got;
        if (r && simtrace_reader_read(r, s->index, first, first + n, buf2, sizeof buf2, &got) == SIMTRACE_OK &&
            (got != n || memcmp(buf, buf2, (size_t)(n * s->entry_size)) != 0))
            abort();
        next = first + taken;
        total += taken;
    }
}

/* A salvage's deliveries: in stream order, without overlap, counted. */
typedef struct {
    uint64_t next, entries, damaged;
} salvage_seen;

static int salvage_entries(void *opaque, uint64_t first, const void *entries, size_t count)
{
    salvage_seen *v = opaque;
    if (!entries || !count || first < v->next)
        abort();
    v->next = first + count;
    v->entries += count;
    return 0;
}

static int salvage_damage(void *opaque, const simtrace_damage *d)
{
    salvage_seen *v = opaque;
    if (!d->detail || d->kind > SIMTRACE_DAMAGE_STOP || (d->kind == SIMTRACE_DAMAGE_FRAME && !d->entries))
        abort();
    v->damaged += d->kind == SIMTRACE_DAMAGE_FRAME ? d->entries : 0;
    return 0;
}

/* The recovery calls on stream i: a salvage accounts for every entry the
 * index lists (delivered or lost), a resume from entry a delivers in
 * order; both only after their frames are bounded (work per input). */
static void recover(simtrace_reader *r, const simtrace_stream_info *s, uint64_t a)
{
    if (s->frames > 64)
        return;
    salvage_seen v = {0, 0, 0};
    simtrace_salvage_report rep;
    simtrace_error e = simtrace_salvage(r, s->name, salvage_entries, salvage_damage, &v, &rep);
    if (e == SIMTRACE_OK && (rep.entries_salvaged != v.entries || rep.stream != s->index ||
                             v.entries + v.damaged != s->entries ||
                             rep.entries_lost != v.damaged + (rep.cut_off ? rep.cut_entries : 0)))
        abort();
    simtrace_recovery_info ri;
    if (simtrace_reader_recovery(r, &ri) != SIMTRACE_OK || (e == SIMTRACE_E_STATE) != (ri.frames_after != 0))
        abort();
    /* bytes after the list (or after a whole frame left out there) that
     * may have held entries: only when nothing else explains them, and
     * naming a stream of the file or none */
    simtrace_cut_frame cf;
    uint32_t ns;
    int cut = simtrace_reader_cut_frame(r, &cf) == SIMTRACE_OK;
    if (ri.tail_lost && (ri.complete || ri.frames_after || ri.tail_offset >= ri.file_size || (cut && !cf.whole) ||
                         (cut ? ri.tail_offset <= cf.offset : ri.tail_offset != ri.frames_end)))
        abort();
    if (simtrace_reader_stream_count(r, &ns) != SIMTRACE_OK ||
        (ri.tail_stream != UINT32_MAX && (!ri.tail_lost || ri.tail_stream >= ns)))
        abort();
    v = (salvage_seen){s->entries ? a % s->entries : 0, 0, 0};
    e = simtrace_resume(r, s->index, v.next, a >> 40, salvage_entries, salvage_damage, &v);
    if (e == SIMTRACE_OK && v.entries != s->entries - (s->entries ? a % s->entries : 0))
        abort();
}

static int64_t mem_read(void *opaque, void *dst, size_t n)
{
    const uint8_t **pp = opaque;
    const uint8_t *p = pp[0], *end = pp[1];
    size_t k = (size_t)(end - p) < n ? (size_t)(end - p) : n;
    memcpy(dst, p, k);
    pp[0] = p + k;
    return (int64_t)k;
}

/* Every frame's statistics of r: their sums are the streams' (hits never
 * above the entries that carry a field), which are then complete. */
static void stats_all(simtrace_reader *r)
{
    simtrace_stats *st;
    if (simtrace_stats_open(&st, r, NULL) != SIMTRACE_OK)
        return;
    uint64_t entries[8] = {0};
    simtrace_frame_stats f;
    uint32_t got;
    simtrace_error e;
    while ((e = simtrace_stats_next(st, &f, &got)) == SIMTRACE_OK && got) {
        for (unsigned k = 0; k < SIMTRACE_STATS_FIELDS; k++)
            if (f.pred.hits[k] > f.pred.coded[k] || f.pred.coded[k] > f.entries)
                abort();
        if (f.stream < 8)
            entries[f.stream] += f.entries;
    }
    uint32_t ns = 0;
    simtrace_reader_stream_count(r, &ns);
    simtrace_stream_stats ss;
    for (uint32_t i = 0; e == SIMTRACE_OK && i < ns && i < 8; i++)
        if (simtrace_stats_stream(st, i, &ss) != SIMTRACE_OK || !ss.complete || ss.entries != entries[i])
            abort();
    if (e != SIMTRACE_OK && !simtrace_stats_message(st)[0])
        abort();
    simtrace_stats_free(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 16)
        return 0;
    uint64_t a = le64(data), cyc = le64(data + 8);
    simtrace_read_params p;
    simtrace_read_params_init(&p);
    p.memlimit = UINT64_C(256) << 20; /* frames may claim 2^24 entries */
    int fd = fuzz_memfd(data + 16, size - 16);
    simtrace_reader *r = NULL;
    if (simtrace_reader_open_fd(&r, fd, &p) == SIMTRACE_OK) {
        uint32_t ns = 0, idx;
        simtrace_stream_info s;
        if (simtrace_reader_random_access(r) != 1 || simtrace_reader_stream_count(r, &ns) != SIMTRACE_OK ||
            simtrace_reader_stream_info(r, ns, &s) != SIMTRACE_E_RANGE)
            abort();
        if ((simtrace_reader_find_stream(r, NULL, &idx) == SIMTRACE_OK) != (ns > 0))
            abort();
        for (uint32_t i = 0; i < ns && i < 8; i++) {
            if (simtrace_reader_stream_info(r, i, &s) != SIMTRACE_OK || s.index != i ||
                simtrace_reader_find_stream(r, s.name, &idx) != SIMTRACE_OK || idx > i)
                abort();
            uint64_t lo = s.entries ? a % s.entries : 0, hi = lo + (a >> 56) % MAX_ENTRIES, n = 0;
            simtrace_error e = simtrace_reader_read(r, i, lo, hi, buf, sizeof buf, &n);
            if (e == SIMTRACE_OK && n != (hi < s.entries ? hi : s.entries) - lo)
                abort();
            if (e == SIMTRACE_E_BUFFER && n * s.entry_size <= sizeof buf)
                abort();
            uint64_t at;
            e = simtrace_reader_find_cycle(r, i, cyc, &at);
            if (e == SIMTRACE_OK && at > s.entries)
                abort();
            size_t len;
            if (simtrace_reader_value(r, i, lo, buf, sizeof buf, &len) == SIMTRACE_OK && len > SIMTRACE_VALUE_MAX)
                abort();
            recover(r, &s, a);
            simtrace_cursor *c;
            simtrace_range rg = {SIMTRACE_RANGE_ENTRIES, 0, lo, hi + MAX_ENTRIES};
            if (simtrace_cursor_open(&c, r, s.name, &rg) == SIMTRACE_OK) {
                pull(r, c, &s, 1, lo);
                simtrace_cursor_free(c);
            }
            rg = (simtrace_range){SIMTRACE_RANGE_CYCLES, 0, cyc & 0xffff, (cyc & 0xffff) + (cyc >> 56)};
            if (simtrace_cursor_open(&c, r, s.name, &rg) == SIMTRACE_OK) {
                pull(r, c, &s, 0, 0);
                simtrace_cursor_free(c);
            }
        }
    }
    if (r)
        stats_all(r);
    simtrace_reader_free(r);
    close(fd);
    /* the same bytes read in order, as from a pipe */
    const uint8_t *pos[2] = {data + 16, data + size};
    simtrace_read_io io = {mem_read, pos};
    if (simtrace_reader_open_io(&r, &io, &p) == SIMTRACE_OK) {
        simtrace_cursor *c;
        simtrace_range rg = {SIMTRACE_RANGE_ENTRIES, 0, a & 0xfff, (a & 0xfff) + MAX_ENTRIES};
        if (simtrace_cursor_open(&c, r, NULL, &rg) == SIMTRACE_OK) {
            simtrace_stream_info s;
            if (simtrace_cursor_stream_info(c, &s) != SIMTRACE_OK)
                abort();
            pull(NULL, c, &s, 1, a & 0xfff);
            simtrace_cursor_free(c);
        }
        simtrace_reader_free(r);
    }
    /* and its statistics in one pass */
    pos[0] = data + 16;
    if ((a >> 40 & 1) && simtrace_reader_open_io(&r, &io, &p) == SIMTRACE_OK) {
        stats_all(r);
        simtrace_reader_free(r);
    }
    return 0;
}
