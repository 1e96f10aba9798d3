/* svpc_stats: the predictors' hits per field on entries whose rates are
 * known by construction; every frame starts from fresh state.  cm2's
 * accounting: the payload is cm2's own, its bits add up, and they go to
 * the ids of a field that always hits and the misses of one that never
 * does. */
#include <stdlib.h>
#include <string.h>

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
    CHECK(svpc_stats_frame(c, SVPC_ENC_CM2, t, raw, N, &p1, &k) == ST_OK);
    CHECK(svpc_stats_frame(c, SVPC_ENC_CM2, t, raw, N, &p2, &k2) == ST_OK);
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

int main(void)
{
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
        CHECK(svpc_stats_frame(c, enc, t, raw, N, &one, NULL) == ST_OK);
        check_rates(&one, data, 1);
        /* the same in four frames: each from fresh state, so the warm-up
         * misses come four times; the same entries twice give the same */
        for (unsigned q = 0; q < 4; q++)
            CHECK(svpc_stats_frame(c, enc, t, raw + q * (N / 4) * st_entry_size(t), N / 4, &four, NULL) == ST_OK);
        check_rates(&four, data, 4);
        CHECK(four.hits[IP] < one.hits[IP] && four.hits[CYCLE] < one.hits[CYCLE]);
        svpc_pred_stats again;
        memset(&again, 0, sizeof again);
        CHECK(svpc_stats_frame(c, enc, t, raw, N, &again, NULL) == ST_OK);
        CHECK(memcmp(&again, &one, sizeof one) == 0);
        if (k < 4)
            check_cost(c, x, t, raw, data);
    }
    svpc_pred_stats p;
    svpc_cost_stats k;
    CHECK(svpc_stats_frame(c, SVPC_ENC_CM, ST_TYPE_VPC, raw, 1, &p, NULL) == ST_E_USAGE);
    CHECK(strcmp(svpc_stats_field_name(3), "address") == 0 && svpc_stats_nslots(0) == 4);
    CHECK(svpc_stats_frame(c, SVPC_ENC_CM2, ST_TYPE_VPC, raw, 1, &p, &k) == ST_E_USAGE);
    svpc_stats_free(c);
    svpc_ctx_free(x);
    return check_done("test_stats");
}
