/* svpc_stats: the predictors' hits per field on entries whose rates are
 * known by construction; every frame starts from fresh state. */
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

int main(void)
{
    svpc_stats_ctx *c;
    CHECK(svpc_stats_new(&c) == ST_OK);
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
        CHECK(svpc_stats_frame(c, enc, t, raw, N, &one) == ST_OK);
        check_rates(&one, data, 1);
        /* the same in four frames: each from fresh state, so the warm-up
         * misses come four times; the same entries twice give the same */
        for (unsigned q = 0; q < 4; q++)
            CHECK(svpc_stats_frame(c, enc, t, raw + q * (N / 4) * st_entry_size(t), N / 4, &four) == ST_OK);
        check_rates(&four, data, 4);
        CHECK(four.hits[IP] < one.hits[IP] && four.hits[CYCLE] < one.hits[CYCLE]);
        svpc_pred_stats again;
        memset(&again, 0, sizeof again);
        CHECK(svpc_stats_frame(c, enc, t, raw, N, &again) == ST_OK);
        CHECK(memcmp(&again, &one, sizeof one) == 0);
    }
    svpc_pred_stats p;
    CHECK(svpc_stats_frame(c, SVPC_ENC_CM, ST_TYPE_VPC, raw, 1, &p) == ST_E_USAGE);
    CHECK(strcmp(svpc_stats_field_name(3), "address") == 0 && svpc_stats_nslots(0) == 4);
    svpc_stats_free(c);
    return check_done("test_stats");
}
