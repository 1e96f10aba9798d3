/* svpc_stats: the predictors' hits per field on entries whose rates are
 * known by construction; every frame starts from fresh state.  cm2's
 * accounting: the payload is cm2's own, its bits add up, and they go to
 * the ids of a field that always hits and the misses of one that never
 * does.  The public statistics (simtrace_stats_*): on a trace written
 * through the public API, each frame's figures are svpc_stats_frame's on
 * its entries, the stream's are their sums plus lines, pages and sizes
 * counted here, and a sequential reader gives the same as a random-access
 * one. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../include/simtrace.h"
#include "../../svpc/svpc_stats.h"
#include "check.h"

#define N 10000

enum { IP, CYCLE, META, ADDR, DATA };

/* one instruction (a constant ip) at consecutive cycles, meta 0; the
 * address alternates between one location (even entries) and random
 * ones (odd); the data is random */
static void make(st_entry_type t, uint8_t *raw)
{
    unsigned long long s = 14;
    for (size_t i = 0; i < N; i++) {
        st_entry e = {0};
        e.cycle = 1000 + i;
        e.ip = 0x401000;
        e.addr = i % 2 ? check_rand(&s) : 0x1000;
        e.data = check_rand(&s);
        if (t == ST_TYPE_D32 || t == ST_TYPE_M32)
            e.addr &= 0xFFFFFFFF, e.data &= 0xFFFFFFFF;
        st_entry_store(t, raw + i * st_entry_size(t), &e);
    }
}

static void check_rates(const svpc_pred_stats *p, int data, uint64_t frames)
{
    CHECK(p->entries == N);
    for (unsigned f = 0; f < SVPC_STATS_FIELDS; f++) {
        uint64_t sum = 0;
        for (unsigned id = 0; id <= svpc_stats_nslots(f); id++)
            sum += p->ids[f][id];
        CHECK(p->coded[f] == (f == DATA && !data ? 0 : N) && sum == p->coded[f]);
        CHECK(p->ids[f][svpc_stats_nslots(f)] == p->coded[f] - p->hits[f] && p->expected[f] <= p->hits[f]);
    }
    /* the constant ip and meta and the stride-1 cycle: all but the first
     * entries of each frame (the predictors' warm-up) */
    CHECK(p->hits[IP] >= N - 2 * frames && p->expected[IP] >= N - 3 * frames);
    CHECK(p->hits[META] == N);
    CHECK(p->hits[CYCLE] >= N - 3 * frames && p->hits[CYCLE] < N);
    /* the address: the even entries' location, from the last values at
     * this ip, but never the random ones */
    CHECK(p->hits[ADDR] <= N / 2 && p->hits[ADDR] >= N / 2 - frames);
    /* random data: never */
    CHECK(!data || p->hits[DATA] == 0);
}

/* svpc_stats_frame's cost of cm2 frames on the same entries: the payload svpc_encode writes
 * with cm2, byte count for byte count; the costs and the rounding add up
 * to its bits; ip and meta always hit (after the first entry), so their
 * misses cost nearly nothing; the random data costs misses. */
static void check_cost(svpc_stats_ctx *c, svpc_ctx *x, st_entry_type t, const uint8_t *raw, int data)
{
    svpc_cost_stats k, k2;
    memset(&k, 0, sizeof k);
    memset(&k2, 0, sizeof k2);
    svpc_pred_stats p1, p2;
    memset(&p1, 0, sizeof p1);
    memset(&p2, 0, sizeof p2);
    CHECK(svpc_stats_frame(c, SVPC_ENC_CM2, t, raw, N, -1, &p1, &k) == ST_OK);
    CHECK(svpc_stats_frame(c, SVPC_ENC_CM2, t, raw, N, -1, &p2, &k2) == ST_OK);
    CHECK(memcmp(&p1, &p2, sizeof p1) == 0);
    st_buf out;
    st_buf_init(&out, 0);
    const svpc_params prm = {SVPC_ENC_CM2, SVPC_STAGE_NONE, 6};
    CHECK(svpc_encode(x, &prm, t, raw, N, &out) == ST_OK);
    CHECK(k.frames == 1 && k.entries == N && k.payload_bytes == out.len);
    st_buf_free(&out);
    uint64_t sum = k.all_flag;
    for (unsigned f = 0; f < SVPC_STATS_FIELDS; f++)
        sum += k.ids[f] + k.misses[f];
    CHECK((int64_t)(k.payload_bytes * 8 * SVPC_COST_UNIT - sum) == k.rounding);
    /* the range coder's flush (5 bytes) and rounding: more than nothing,
     * at most 64 bits and 0.1% of the payload */
    CHECK(k.rounding > 0 && k.rounding <= (int64_t)(64 * SVPC_COST_UNIT + k.payload_bytes * 8 * SVPC_COST_UNIT / 1000));
    const uint64_t bit = SVPC_COST_UNIT;
    CHECK(k.ids[IP] > 0 && k.misses[IP] < 100 * bit && k.misses[META] < 100 * bit);
    CHECK(k.misses[ADDR] > N / 2 * 8 * bit); /* the random half: more than a byte each */
    if (data)
        CHECK(k.misses[DATA] > N * 16 * bit && k.ids[DATA] < k.misses[DATA] / 8);
    else
        CHECK(k.misses[DATA] == 0 && k.ids[DATA] == 0);
    CHECK(memcmp(&k, &k2, sizeof k) == 0);
}

/* ---- the public statistics ---- */

static int64_t file_read(void *opaque, void *buf, size_t size) { return (int64_t)fread(buf, 1, size, opaque); }

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* distinct values of addr >> bits over the n entries of d64 raw */
static uint64_t distinct(const uint8_t *raw, size_t n, unsigned bits)
{
    uint64_t *k = malloc(n * sizeof *k), d = 0;
    for (size_t i = 0; i < n; i++) {
        st_entry e;
        st_entry_load(ST_TYPE_D64, raw + i * 32, &e);
        k[i] = e.addr >> bits;
    }
    qsort(k, n, sizeof *k, cmp_u64);
    for (size_t i = 0; i < n; i++)
        d += !i || k[i] != k[i - 1];
    free(k);
    return d;
}

/* Every frame of stats s, to f[] (at most max); returns how many. */
static size_t pull(simtrace_stats *s, simtrace_frame_stats *f, size_t max)
{
    size_t n = 0;
    uint32_t got = 1;
    while (got && n <= max) {
        CHECK(simtrace_stats_next(s, &f[n < max ? n : max - 1], &got) == SIMTRACE_OK);
        n += got;
    }
    return n;
}

static void check_public(const char *profile, const uint8_t *raw)
{
    enum { PER = N / 4 };
    char path[] = "/tmp/test_stats.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    /* a d64 stream of 4 frames, an empty m64 one, a bytes one */
    simtrace_write_params wp;
    simtrace_write_params_init(&wp);
    wp.frame_entries = PER;
    wp.profile_name = profile;
    simtrace_writer *w;
    uint32_t id0, id1, id2;
    CHECK(simtrace_writer_create_path(&w, path, &wp) == SIMTRACE_OK);
    CHECK(simtrace_writer_add_stream(w, "cpu0.read", SIMTRACE_TYPE_D64, &id0) == SIMTRACE_OK);
    CHECK(simtrace_writer_add_stream(w, "other", SIMTRACE_TYPE_M64, &id1) == SIMTRACE_OK);
    CHECK(simtrace_writer_add_stream(w, "log", SIMTRACE_TYPE_BYTES, &id2) == SIMTRACE_OK);
    CHECK(simtrace_writer_write(w, id0, raw, N) == SIMTRACE_OK);
    CHECK(simtrace_writer_write(w, id2, "some bytes", 10) == SIMTRACE_OK);
    CHECK(simtrace_writer_close(w) == SIMTRACE_OK);
    simtrace_writer_free(w);

    simtrace_reader *r;
    simtrace_stats *s;
    CHECK(simtrace_reader_open_path(&r, path, NULL) == SIMTRACE_OK);
    CHECK(simtrace_stats_open(&s, r, "nope") == SIMTRACE_E_NOT_FOUND && s == NULL);
    CHECK(simtrace_stats_open(&s, r, NULL) == SIMTRACE_OK);
    simtrace_frame_stats f[8], g[8];
    size_t nf = pull(s, f, 8);
    CHECK(nf == 5); /* 4 of cpu0.read, 1 of log */
    /* each frame: svpc_stats_frame's figures on its entries */
    svpc_stats_ctx *c;
    CHECK(svpc_stats_new(&c) == ST_OK);
    simtrace_stats_pred sum;
    memset(&sum, 0, sizeof sum);
    for (size_t k = 0; k < 4 && k < nf; k++) {
        svpc_pred_stats p;
        memset(&p, 0, sizeof p);
        CHECK(f[k].stream == 0 && f[k].frame == k && f[k].first_entry == k * PER && f[k].entries == PER);
        CHECK(f[k].fields == 0x1f && f[k].stored_bytes > 0);
        CHECK(svpc_stats_frame(c, (svpc_encoder)f[k].encoder, ST_TYPE_D64, raw + k * PER * 32, PER, -1, &p, NULL) ==
              ST_OK);
        for (unsigned q = 0; q < SVPC_STATS_FIELDS; q++) {
            CHECK(f[k].pred.coded[q] == p.coded[q] && f[k].pred.hits[q] == p.hits[q] &&
                  f[k].pred.expected[q] == p.expected[q]);
            CHECK(memcmp(f[k].pred.ids[q], p.ids[q], sizeof p.ids[q]) == 0);
            sum.coded[q] += p.coded[q];
            sum.hits[q] += p.hits[q];
        }
    }
    CHECK(nf == 5 && f[4].stream == 2 && f[4].entries == 10 && f[4].fields == 0);
    simtrace_stream_stats a, b;
    CHECK(simtrace_stats_stream(s, 0, &a) == SIMTRACE_OK);
    CHECK(a.complete && a.entries == N && a.frames == 4 && a.raw_bytes == N * 32 && a.fields == 0x1f);
    CHECK(a.kind == SIMTRACE_STATS_KIND_READ && strcmp(a.encoder_name, strcmp(profile, "cm") ? "cm2" : "cm") == 0);
    CHECK(memcmp(a.pred.coded, sum.coded, sizeof sum.coded) == 0 && memcmp(a.pred.hits, sum.hits, sizeof sum.hits) == 0);
    CHECK(a.distinct_lines == distinct(raw, N, 6) && a.distinct_pages == distinct(raw, N, 12));
    CHECK(a.lines_exact && a.pages_exact);
    /* make(): the data field's upper half, the size, is random: all
     * sizes count, every one above 64 in the last bin */
    uint64_t sizes = 0;
    for (unsigned z = 0; z < SIMTRACE_STATS_SIZES; z++)
        sizes += a.sizes[z];
    CHECK(sizes == N);
    /* the split adds up to the stored bits exactly */
    int64_t bits = (int64_t)a.bits_all_flag + a.bits_headers + a.bits_rounding + a.bits_other;
    for (unsigned q = 0; q < SIMTRACE_STATS_FIELDS; q++)
        bits += (int64_t)(a.bits_ids[q] + a.bits_misses[q]);
    CHECK(bits == (int64_t)(a.stored_bytes * 8 * SIMTRACE_STATS_COST_UNIT));
    CHECK(strcmp(profile, "cm") ? a.other_frames == 0 && a.payload_bytes > 0
                                : a.other_frames == 4 && a.bits_other == (int64_t)(a.stored_bytes * 8 * 65536));
    CHECK(simtrace_stats_stream(s, 1, &b) == SIMTRACE_OK && b.complete && b.entries == 0 && b.fields == 0xf);
    CHECK(simtrace_stats_stream(s, 2, &b) == SIMTRACE_OK && b.entries == 10 && b.fields == 0 && b.raw_bytes == 10);
    CHECK(simtrace_stats_stream(s, 3, &b) == SIMTRACE_E_RANGE);
    uint32_t got;
    CHECK(simtrace_stats_next(s, &g[0], &got) == SIMTRACE_OK && got == 0);
    simtrace_stats_free(s);
    /* one stream by name: only its frames, the others not chosen */
    CHECK(simtrace_stats_open(&s, r, "log") == SIMTRACE_OK);
    CHECK(pull(s, g, 8) == 1 && g[0].stream == 2);
    CHECK(simtrace_stats_stream(s, 0, &b) == SIMTRACE_E_NOT_FOUND);
    simtrace_stats_free(s);
    simtrace_reader_free(r);

    /* a sequential reader: the same figures, in file order */
    FILE *in = fopen(path, "rb");
    simtrace_read_io io = {file_read, in};
    CHECK(simtrace_reader_open_io(&r, &io, NULL) == SIMTRACE_OK);
    CHECK(simtrace_stats_open(&s, r, NULL) == SIMTRACE_OK);
    simtrace_stats *s2;
    CHECK(simtrace_stats_open(&s2, r, NULL) == SIMTRACE_E_STATE);
    CHECK(pull(s, g, 8) == nf);
    for (size_t k = 0; k < nf && k < 8; k++)
        CHECK(memcmp(&g[k], &f[k], sizeof f[k]) == 0);
    CHECK(simtrace_stats_stream(s, 0, &b) == SIMTRACE_OK && memcmp(&a, &b, sizeof a) == 0);
    simtrace_cursor *cur;
    CHECK(simtrace_cursor_open(&cur, r, NULL, NULL) == SIMTRACE_E_STATE);
    simtrace_stats_free(s);
    simtrace_reader_free(r);
    /* each frame's figures as soon as it is read: the first before the
     * input's last frame (one frame in memory, however long the input) */
    fseek(in, 0, SEEK_END);
    long size = ftell(in);
    rewind(in);
    CHECK(simtrace_reader_open_io(&r, &io, NULL) == SIMTRACE_OK);
    CHECK(simtrace_stats_open(&s, r, NULL) == SIMTRACE_OK);
    CHECK(simtrace_stats_next(s, &g[0], &got) == SIMTRACE_OK && got == 1 && g[0].frame == 0);
    CHECK(memcmp(&g[0], &f[0], sizeof f[0]) == 0 && ftell(in) < size - (long)f[3].stored_bytes);
    /* a stream's figures, final or not, once the reader lists it */
    CHECK(simtrace_stats_stream(s, 0, &b) == SIMTRACE_OK && !b.complete && b.frames == 1);
    simtrace_stats_free(s);
    simtrace_reader_free(r);
    /* a name no stream has: said at the end of the input */
    rewind(in);
    CHECK(simtrace_reader_open_io(&r, &io, NULL) == SIMTRACE_OK);
    CHECK(simtrace_stats_open(&s, r, "nope") == SIMTRACE_OK);
    CHECK(simtrace_stats_next(s, &g[0], &got) == SIMTRACE_E_NOT_FOUND && strstr(simtrace_stats_message(s), "nope"));
    CHECK(simtrace_stats_next(s, &g[0], &got) == SIMTRACE_E_NOT_FOUND);
    simtrace_stats_free(s);
    simtrace_reader_free(r);
    fclose(in);
    svpc_stats_free(c);
    unlink(path);
}

/* The transform of a frame by its first payload byte (cm2_frame_transform):
 * cmx's two values, mix's parameter bytes, and every other byte or encoder
 * none. */
static void check_transform_byte(void)
{
    CHECK(svpc_stats_has_byte0(SVPC_ENC_CMX) && svpc_stats_has_byte0(SVPC_ENC_MIX));
    CHECK(!svpc_stats_has_byte0(SVPC_ENC_CM2) && !svpc_stats_has_byte0(SVPC_ENC_BEST));
    for (int b = -1; b <= 256; b++) {
        int cmx = b == 0 ? 1 : b == 1 ? 0 : -1;
        /* mix: bits 0-1 the contexts (1..3; 3 only with the transform), bit 2 the transform */
        int mix = b == 1 || b == 2 ? 0 : b == 5 || b == 6 || b == 7 ? 1 : -1;
        CHECK(svpc_stats_transform(SVPC_ENC_CMX, b) == cmx);
        CHECK(svpc_stats_transform(SVPC_ENC_MIX, b) == mix);
        CHECK(svpc_stats_transform(SVPC_ENC_CM2, b) == -1 && svpc_stats_transform(SVPC_ENC_BEST, b) == -1);
    }
}

int main(void)
{
    check_transform_byte();
    svpc_stats_ctx *c;
    CHECK(svpc_stats_new(&c) == ST_OK);
    svpc_ctx *x;
    CHECK(svpc_ctx_new(&x) == ST_OK);
    const st_entry_type types[] = {ST_TYPE_D64, ST_TYPE_D32, ST_TYPE_M64, ST_TYPE_M32};
    static uint8_t raw[N * 32];
    /* cm2's predictors and cm's (paper's frames: cm's), the family
     * changing from one frame to the next */
    const svpc_encoder encs[] = {SVPC_ENC_CM2, SVPC_ENC_CM, SVPC_ENC_PAPER};
    for (unsigned k = 0; k < 12; k++) {
        st_entry_type t = types[k % 4];
        svpc_encoder enc = encs[k / 4];
        int data = t == ST_TYPE_D64 || t == ST_TYPE_D32;
        CHECK(svpc_stats_has_field(t, DATA) == data && svpc_stats_has_field(t, ADDR));
        make(t, raw);
        svpc_pred_stats one, four;
        memset(&one, 0, sizeof one);
        memset(&four, 0, sizeof four);
        CHECK(svpc_stats_frame(c, enc, t, raw, N, -1, &one, NULL) == ST_OK);
        check_rates(&one, data, 1);
        /* the same in four frames: each from fresh state, so the warm-up
         * misses come four times; the same entries twice give the same */
        for (unsigned q = 0; q < 4; q++)
            CHECK(svpc_stats_frame(c, enc, t, raw + q * (N / 4) * st_entry_size(t), N / 4, -1, &four, NULL) == ST_OK);
        check_rates(&four, data, 4);
        CHECK(four.hits[IP] < one.hits[IP] && four.hits[CYCLE] < one.hits[CYCLE]);
        svpc_pred_stats again;
        memset(&again, 0, sizeof again);
        CHECK(svpc_stats_frame(c, enc, t, raw, N, -1, &again, NULL) == ST_OK);
        CHECK(memcmp(&again, &one, sizeof one) == 0);
        if (k < 4)
            check_cost(c, x, t, raw, data);
    }
    svpc_pred_stats p;
    svpc_cost_stats k;
    CHECK(svpc_stats_frame(c, SVPC_ENC_CM, ST_TYPE_VPC, raw, 1, -1, &p, NULL) == ST_E_USAGE);
    CHECK(strcmp(svpc_stats_field_name(3), "address") == 0 && svpc_stats_nslots(0) == 4);
    CHECK(svpc_stats_frame(c, SVPC_ENC_CM2, ST_TYPE_VPC, raw, 1, -1, &p, &k) == ST_E_USAGE);
    svpc_stats_free(c);
    svpc_ctx_free(x);
    make(ST_TYPE_D64, raw);
    check_public("cm2", raw);
    check_public("cm", raw);
    CHECK(strcmp(simtrace_stats_field_name(4), "data") == 0 && strcmp(simtrace_stats_field_name(5), "?") == 0);
    CHECK(simtrace_stats_field_slots(0) == svpc_stats_nslots(0) && simtrace_stats_field_slots(9) == 0);
    CHECK(simtrace_stats_open(NULL, NULL, NULL) == SIMTRACE_E_USAGE);
    return check_done("test_stats");
}
