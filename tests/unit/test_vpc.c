/* Predictor unit tests on hand-computed sequences. */
#include <string.h>

#include "../../vpc/vpc.h"
#include "check.h"

/* Feed v, return the id the set chose before learning v (miss = nslots). */
static unsigned step(vpc_set *s, uint64_t key, uint64_t v)
{
    vpc_set_predict(s, key);
    unsigned id = vpc_set_choose(s, v, VPC_MAX_SLOTS);
    vpc_set_count(s, id);
    vpc_set_update(s, v);
    return id;
}

static void test_lv(void)
{
    vpc_pred_cfg c[] = {{VPC_LV, 0, 4, 0, 4, 0, 0}};
    vpc_set s;
    CHECK(vpc_set_init(&s, c, 1) == ST_OK);
    CHECK(s.nslots == 4);
    /* constant: first a miss (tables start at 0), then slot 0 forever */
    CHECK(step(&s, 7, 5) == 4);
    for (int i = 0; i < 5; i++)
        CHECK(step(&s, 7, 5) == 0);
    /* alternating 1,2: after both are seen, each is in the line */
    vpc_set_reset(&s);
    CHECK(step(&s, 7, 1) == 4);
    CHECK(step(&s, 7, 2) == 4);
    /* line is now [2,1,0,0]: 1 is at slot 1, then [1,2] and 2 at slot 1 */
    CHECK(step(&s, 7, 1) == 1);
    CHECK(step(&s, 7, 2) == 1);
    /* distinct values: repeating 2 must not push 1 out */
    CHECK(step(&s, 7, 2) == 0);
    CHECK(step(&s, 7, 1) == 1);
    /* keyed by IP: another key has its own line */
    CHECK(step(&s, 8, 1) == 4);
    /* LRU order: line of key 7 is [1,2,0,0]; feed 3,4,5: 2 falls out after 3 new values */
    step(&s, 7, 3);
    step(&s, 7, 4);
    step(&s, 7, 5); /* [5,4,3,1] */
    CHECK(step(&s, 7, 2) == 4);
    vpc_set_free(&s);
}

static void test_fcm(void)
{
    /* order-1 FCM, global: learns "after a comes b" */
    vpc_pred_cfg c[] = {{VPC_FCM, 1, 2, 0, 10, 0, 0}};
    vpc_set s;
    CHECK(vpc_set_init(&s, c, 1) == ST_OK);
    uint64_t seq[] = {10, 20, 30, 10, 20, 30, 10, 20, 30};
    unsigned hits = 0;
    for (int i = 0; i < 9; i++) {
        unsigned id = step(&s, 0, seq[i]);
        if (i >= 4) /* from the second period + one value the context is known */
            CHECK(id == 0);
        hits += id == 0;
    }
    CHECK(hits >= 5);
    /* repeating context with two successors: after a 1 comes 2 or 3 alternately;
     * both stay in the line (n = 2), so no more misses after learning */
    vpc_set_reset(&s);
    uint64_t alt[] = {1, 2, 1, 3, 1, 2, 1, 3, 1, 2, 1, 3};
    unsigned misses_late = 0;
    for (int i = 0; i < 12; i++) {
        unsigned id = step(&s, 0, alt[i]);
        if (i >= 6)
            misses_late += id == s.nslots;
    }
    CHECK(misses_late == 0);
    vpc_set_free(&s);
}

static void test_dfcm_stride(void)
{
    /* DFCM1 predicts a constant stride it has never seen as a value */
    vpc_pred_cfg c[] = {{VPC_DFCM, 1, 2, 0, 10, 0, 0}};
    vpc_set s;
    CHECK(vpc_set_init(&s, c, 1) == ST_OK);
    unsigned late_hits = 0;
    for (uint64_t i = 0; i < 20; i++) {
        unsigned id = step(&s, 0, 1000 + 8 * i);
        if (i >= 3)
            late_hits += id < s.nslots;
    }
    CHECK(late_hits == 17);
    /* an FCM of the same order cannot predict new values of a stride */
    vpc_pred_cfg f[] = {{VPC_FCM, 1, 2, 0, 10, 0, 0}};
    vpc_set g;
    CHECK(vpc_set_init(&g, f, 1) == ST_OK);
    unsigned fh = 0;
    for (uint64_t i = 0; i < 20; i++)
        fh += step(&g, 0, 1000 + 8 * i) < g.nslots;
    CHECK(fh == 0);
    vpc_set_free(&s);
    vpc_set_free(&g);
}

static void test_dcfcm(void)
{
    /* cycle strides that depend on the IP: ip A always +1, ip B always +3 */
    vpc_pred_cfg c[] = {{VPC_DCFCM, 1, 2, 0, 12, 0, 0}};
    vpc_set s;
    CHECK(vpc_set_init(&s, c, 1) == ST_OK);
    uint64_t cyc = 100;
    unsigned late = 0;
    for (int i = 0; i < 40; i++) {
        uint64_t ip = (i & 1) ? 0x4000 : 0x5000;
        cyc += (i & 1) ? 3 : 1;
        unsigned id = step(&s, ip, cyc);
        if (i >= 8)
            late += id < s.nslots;
    }
    CHECK(late == 32);
    vpc_set_free(&s);
}

static void test_aliasing(void)
{
    /* with a 1-line value table (t = 0) every context aliases: two
     * interleaved streams with different successors destroy each other */
    vpc_pred_cfg tiny[] = {{VPC_FCM, 1, 1, 0, 0, 0, 0}};
    vpc_pred_cfg big[] = {{VPC_FCM, 1, 1, 0, 12, 0, 0}};
    vpc_set a, b;
    CHECK(vpc_set_init(&a, tiny, 1) == ST_OK);
    CHECK(vpc_set_init(&b, big, 1) == ST_OK);
    uint64_t seq[] = {1, 2, 3, 4};
    unsigned ha = 0, hb = 0;
    for (int i = 0; i < 80; i++) {
        ha += step(&a, 0, seq[i % 4]) == 0;
        hb += step(&b, 0, seq[i % 4]) == 0;
    }
    CHECK(ha == 0);
    CHECK(hb >= 75);
    vpc_set_free(&a);
    vpc_set_free(&b);
}

static void test_choose(void)
{
    /* two predictors that both predict a constant: the most used id wins,
     * a tie goes to the lower id, and a preferred correct id wins outright */
    vpc_pred_cfg c[] = {{VPC_LV, 0, 1, 0, 2, 0, 0}, {VPC_LV, 0, 1, 0, 2, 0, 0}};
    vpc_set s;
    CHECK(vpc_set_init(&s, c, 2) == ST_OK);
    step(&s, 0, 9);
    CHECK(step(&s, 0, 9) == 0); /* tie -> lower id */
    s.usage[1] = 100;
    vpc_set_predict(&s, 0);
    CHECK(vpc_set_choose(&s, 9, VPC_MAX_SLOTS) == 1); /* most used */
    CHECK(vpc_set_choose(&s, 9, 0) == 0);             /* preferred and right */
    CHECK(vpc_set_choose(&s, 8, 0) == 2);             /* nobody right: miss */
    /* halving keeps counts bounded */
    s.usage[0] = VPC_USAGE_MAX - 1;
    vpc_set_count(&s, 0);
    CHECK(s.usage[0] < VPC_USAGE_MAX && s.usage[1] == 50);
    vpc_set_free(&s);
}

static void test_config_checks(void)
{
    vpc_pred_cfg bad_n[] = {{VPC_LV, 0, 0, 0, 4, 0, 0}};
    vpc_pred_cfg bad_order[] = {{VPC_FCM, 0, 2, 0, 4, 0, 0}};
    vpc_pred_cfg bad_t[] = {{VPC_FCM, 1, 2, 0, 30, 0, 0}};
    vpc_pred_cfg too_many[] = {{VPC_LV, 0, 8, 0, 4, 0, 0}, {VPC_LV, 0, 8, 0, 4, 0, 0}};
    vpc_set s;
    CHECK(vpc_set_init(&s, bad_n, 1) == ST_E_USAGE);
    CHECK(vpc_set_init(&s, bad_order, 1) == ST_E_USAGE);
    CHECK(vpc_set_init(&s, bad_t, 1) == ST_E_USAGE);
    CHECK(vpc_set_init(&s, too_many, 2) == ST_E_USAGE);
    CHECK(vpc_set_memory(too_many, 2) == 0);
    vpc_set_free(&s); /* safe on a failed set */
}

static void test_hash(void)
{
    CHECK(vpc_fold(0, 16) == 0);
    CHECK(vpc_fold(0x12345678ull, 16) == (0x1234u ^ 0x5678u));
    CHECK(vpc_fold(UINT64_MAX, 16) == 0); /* four equal chunks cancel */
    /* the fast paths against the definition (SIMTRACE.md 6.5.3), every width */
    unsigned long long r = 11;
    unsigned bad = 0;
    for (unsigned b = 1; b <= 32; b++)
        for (int i = 0; i < 2000; i++) {
            uint64_t v = check_rand(&r) ^ ((uint64_t)check_rand(&r) << 32), x = v;
            uint32_t h = 0;
            while (x) {
                h ^= (uint32_t)(x & ((UINT64_C(1) << b) - 1u));
                x >>= b;
            }
            bad += vpc_fold(v, b) != h;
        }
    CHECK(bad == 0);
    uint32_t h[3] = {1, 2, 4};
    CHECK(vpc_ctx_hash(h, 3, 8) == (1u ^ 4u ^ 16u));
    CHECK(vpc_key_line(123456, 0) == 0);
    CHECK(vpc_key_line(5, 16) < (1u << 16));
    /* neighbouring IPs get different lines */
    CHECK(vpc_key_line(0x1000, 16) != vpc_key_line(0x1001, 16));
}

/* 1 when every byte of every table of the set is zero. */
static int all_zero(const vpc_set *s)
{
    for (unsigned p = 0; p < s->npreds; p++) {
        const vpc_pred *pr = &s->pred[p];
        const vpc_pred_cfg *c = &pr->cfg;
        size_t vt = ((size_t)1 << c->t_bits) * c->n, hl = (size_t)1 << c->s_bits;
        for (size_t i = 0; i < vt; i++)
            if (pr->vt[i])
                return 0;
        if (c->kind != VPC_LV)
            for (size_t i = 0; i < hl * c->order; i++)
                if (pr->hist[i])
                    return 0;
        if (c->kind == VPC_DFCM || c->kind == VPC_DCFCM)
            for (size_t i = 0; i < hl; i++)
                if (pr->last[i])
                    return 0;
    }
    return 1;
}

/* A reset must restore the state of a fresh set exactly, whatever lines
 * were written: lines that straddle the chunks of the dirty map included
 * (12-byte order-3 history lines cross 4 KiB boundaries). */
static void test_reset_clears_everything(void)
{
    vpc_pred_cfg c[] = {{VPC_FCM, 1, 2, 12, 14, 0, 0}, {VPC_DFCM, 3, 2, 12, 14, 0, 0}, {VPC_DCFCM, 3, 2, 12, 13, 0, 0},
                        {VPC_LV, 0, 4, 0, 12, 0, 0}, {VPC_DFCM, 2, 1, 12, 12, 0, 0}};
    vpc_set s;
    CHECK(vpc_set_init(&s, c, 5) == ST_OK);
    CHECK(all_zero(&s));
    unsigned long long r = 7;
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 20000; i++) {
            uint64_t key = check_rand(&r) | 1, v = check_rand(&r) | 1;
            vpc_set_predict(&s, key);
            vpc_set_update(&s, v);
        }
        CHECK(!all_zero(&s));
        vpc_set_reset(&s);
        CHECK(all_zero(&s));
    }
    /* every history line of an order-3 table, one by one */
    vpc_pred_cfg o3[] = {{VPC_DFCM, 3, 2, 10, 10, 0, 0}};
    vpc_set t;
    CHECK(vpc_set_init(&t, o3, 1) == ST_OK);
    unsigned bad = 0;
    for (uint32_t line = 0; line < (1u << 10); line++) {
        t.pred[0].cur_hline = line;
        t.pred[0].cur_vline = line;
        vpc_pred_update(&t.pred[0], 0x12345678u + line, VPC_DFCM, 3, 2, 10, 10, 0);
        vpc_pred_update(&t.pred[0], 0x9abcdefu + line, VPC_DFCM, 3, 2, 10, 10, 0);
        vpc_set_reset(&t);
        bad += !all_zero(&t);
    }
    CHECK(bad == 0);
    vpc_set_free(&s);
    vpc_set_free(&t);
}

/* Shared last values (vpc.h) change no prediction: a set whose FCM1,
 * DFCM1 and DFCM3 read their last values from the LV[4] predicts, slot
 * for slot, what the same set with tables of their own predicts, through
 * resets, on keys that collide in the lines and values that stride, repeat
 * and jump; and it owns less memory. */
static void test_shared_last(void)
{
    vpc_pred_cfg own[] = {{VPC_FCM, 1, 2, 8, 10, 0, 0}, {VPC_DFCM, 1, 2, 8, 9, 0, 0}, {VPC_DFCM, 3, 2, 8, 10, 0, 0},
                          {VPC_LV, 0, 4, 0, 8, 0, 0}, {VPC_LV, 0, 2, 0, 9, 1, 0}};
    vpc_pred_cfg shared[5];
    memcpy(shared, own, sizeof own);
    shared[0].lvn = shared[1].lvn = shared[2].lvn = 4;
    vpc_set a, b;
    CHECK(vpc_set_init(&a, own, 5) == ST_OK);
    CHECK(vpc_set_init(&b, shared, 5) == ST_OK);
    CHECK(b.bytes < a.bytes);
    CHECK(vpc_set_memory(shared, 5) == b.bytes);
    unsigned long long r = 11;
    unsigned diff = 0, hits = 0;
    uint64_t base[64] = {0};
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 50000; i++) {
            unsigned k = (unsigned)(check_rand(&r) % 600); /* 600 keys on 256 lines */
            uint64_t key = 0x400000 + 4 * k, addr = check_rand(&r) % 4096, v;
            switch (check_rand(&r) % 4) {
            case 0: v = base[k % 64] += 8; break;           /* a stride */
            case 1: v = base[k % 64]; break;                /* a repeat */
            case 2: v = k * 0x1000; break;                  /* a value per key */
            default: v = check_rand(&r) % 50;               /* a jump */
            }
            vpc_set_predict2(&a, key, addr);
            vpc_set_predict2(&b, key, addr);
            for (unsigned j = 0; j < a.nslots; j++) {
                diff += a.slot[j] != b.slot[j];
                hits += a.slot[j] == v;
            }
            vpc_set_update(&a, v);
            vpc_set_update(&b, v);
        }
        vpc_set_reset(&a);
        vpc_set_reset(&b);
    }
    CHECK(diff == 0);
    CHECK(hits > 10000); /* the comparison saw predictions, not empty tables */
    vpc_set_free(&a);
    vpc_set_free(&b);

    /* the partner must exist, come later, share the key and the lines, and
     * have lvn values; an FCM shares only at order 1 */
    vpc_pred_cfg no_partner[] = {{VPC_DFCM, 1, 2, 8, 9, 0, 4}};
    vpc_pred_cfg before[] = {{VPC_LV, 0, 4, 0, 8, 0, 0}, {VPC_DFCM, 1, 2, 8, 9, 0, 4}};
    vpc_pred_cfg lines[] = {{VPC_DFCM, 1, 2, 8, 9, 0, 4}, {VPC_LV, 0, 4, 0, 9, 0, 0}};
    vpc_pred_cfg key[] = {{VPC_DFCM, 1, 2, 8, 9, 0, 4}, {VPC_LV, 0, 4, 0, 8, 1, 0}};
    vpc_pred_cfg nvals[] = {{VPC_DFCM, 1, 2, 8, 9, 0, 2}, {VPC_LV, 0, 4, 0, 8, 0, 0}};
    vpc_pred_cfg order3[] = {{VPC_FCM, 3, 2, 8, 9, 0, 4}, {VPC_LV, 0, 4, 0, 8, 0, 0}};
    vpc_pred_cfg lv_shares[] = {{VPC_LV, 0, 4, 0, 8, 0, 4}, {VPC_LV, 0, 4, 0, 8, 0, 0}};
    vpc_pred_cfg ok[] = {{VPC_DCFCM, 3, 2, 8, 9, 0, 4}, {VPC_LV, 0, 4, 0, 8, 0, 0}};
    CHECK(vpc_set_check(no_partner, 1) == ST_E_USAGE);
    CHECK(vpc_set_check(before, 2) == ST_E_USAGE);
    CHECK(vpc_set_check(lines, 2) == ST_E_USAGE);
    CHECK(vpc_set_check(key, 2) == ST_E_USAGE);
    CHECK(vpc_set_check(nvals, 2) == ST_E_USAGE);
    CHECK(vpc_set_check(order3, 2) == ST_E_USAGE);
    CHECK(vpc_set_check(lv_shares, 2) == ST_E_USAGE);
    CHECK(vpc_set_check(ok, 2) == ST_OK);
}

int main(void)
{
    test_shared_last();
    test_reset_clears_everything();
    test_lv();
    test_fcm();
    test_dfcm_stride();
    test_dcfcm();
    test_aliasing();
    test_choose();
    test_config_checks();
    test_hash();
    return check_done("test_vpc");
}
