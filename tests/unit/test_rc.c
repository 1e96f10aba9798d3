/* Range coder: exact round trips, cost on skewed input, and safe overrun. */
#include <stdlib.h>

#include "../../svpc/rc.h"
#include "check.h"

static void roundtrip(unsigned n, unsigned skew_pct, unsigned long long seed)
{
    unsigned char *bits = malloc(n);
    unsigned long long s = seed;
    for (unsigned i = 0; i < n; i++)
        bits[i] = (check_rand(&s) % 100) < skew_pct;
    st_buf out;
    st_buf_init(&out, 0);
    rc_enc e;
    rc_enc_init(&e, &out);
    rc_prob p[4] = {RC_PROB_INIT, RC_PROB_INIT, RC_PROB_INIT, RC_PROB_INIT};
    rc_prob tree[16];
    for (int i = 0; i < 16; i++)
        tree[i] = RC_PROB_INIT;
    for (unsigned i = 0; i < n; i++) {
        rc_encode(&e, &p[i & 3], bits[i]);
        if (skew_pct && i % 7 == 0) /* trees only where the skew is not measured */
            rc_encode_tree(&e, tree, 4, i & 15);
    }
    CHECK(rc_enc_finish(&e) == ST_OK);
    if (skew_pct == 0)
        CHECK(out.len < 64 + n / 2000); /* a certain bit costs ~0.0016 bit */
    rc_dec d;
    rc_dec_init(&d, out.data, out.len);
    rc_prob q[4] = {RC_PROB_INIT, RC_PROB_INIT, RC_PROB_INIT, RC_PROB_INIT};
    for (int i = 0; i < 16; i++)
        tree[i] = RC_PROB_INIT;
    unsigned bad = 0;
    for (unsigned i = 0; i < n; i++) {
        bad += rc_decode(&d, &q[i & 3]) != bits[i];
        if (skew_pct && i % 7 == 0)
            bad += rc_decode_tree(&d, tree, 4) != (i & 15);
    }
    CHECK(bad == 0);
    CHECK(!d.overrun);
    free(bits);
    st_buf_free(&out);
}

static void overrun(void)
{
    /* decoding far past a short input must not read beyond it and must flag it */
    uint8_t in[3] = {0, 0xAB, 0xCD};
    rc_dec d;
    rc_dec_init(&d, in, sizeof in);
    rc_prob p = RC_PROB_INIT;
    for (int i = 0; i < 10000; i++)
        rc_decode(&d, &p);
    CHECK(d.overrun);
    CHECK(d.pos == sizeof in);
    /* a first byte other than 0 is invalid */
    uint8_t bad[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    rc_dec_init(&d, bad, sizeof bad);
    CHECK(d.overrun);
}

static void probability_bounds(void)
{
    rc_prob p = RC_PROB_INIT;
    for (int i = 0; i < 100000; i++)
        p = rc_adapt(p, 0);
    CHECK(rc_p0(p) < 65536 && rc_p0(p) > 65000);
    for (int i = 0; i < 100000; i++)
        p = rc_adapt(p, 1);
    CHECK(rc_p0(p) > 0 && rc_p0(p) < 600);
}

int main(void)
{
    roundtrip(1, 50, 1);
    roundtrip(1000, 50, 2);
    roundtrip(200000, 0, 3);
    roundtrip(200000, 3, 4);
    roundtrip(200000, 97, 5);
    overrun();
    probability_bounds();
    return check_done("test_rc");
}
