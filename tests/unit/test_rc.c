/* Range coder: exact round trips, cost on skewed input, safe overrun, and
 * both adaptations (cm1's two rates, cm's counted rates) against the
 * arithmetic of SIMTRACE.md 6.4.3 and 6.7 written out independently. */
#include <stdlib.h>

#include "../../svpc/rc.h"
#include "check.h"

static void roundtrip(unsigned n, unsigned skew_pct, unsigned long long seed, unsigned kind)
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
        rc_encode(&e, &p[i & 3], bits[i], kind);
        if (skew_pct && i % 7 == 0) /* trees only where the skew is not measured */
            rc_encode_tree(&e, tree, 4, i & 15, kind);
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
        bad += rc_decode(&d, &q[i & 3], kind) != bits[i];
        if (skew_pct && i % 7 == 0)
            bad += rc_decode_tree(&d, tree, 4, kind) != (i & 15);
    }
    CHECK(bad == 0);
    CHECK(!d.overrun);
    free(bits);
    st_buf_free(&out);
}

/* Bytes the coder needs for n bits of one context that are all 0. */
static size_t cost_of_zeros(unsigned n, unsigned kind)
{
    st_buf out;
    st_buf_init(&out, 0);
    rc_enc e;
    rc_enc_init(&e, &out);
    rc_prob p = RC_PROB_INIT;
    for (unsigned i = 0; i < n; i++)
        rc_encode(&e, &p, 0, kind);
    CHECK(rc_enc_finish(&e) == ST_OK);
    size_t len = out.len;
    st_buf_free(&out);
    return len;
}

static void overrun(void)
{
    /* decoding far past a short input must not read beyond it and must flag it */
    uint8_t in[3] = {0, 0xAB, 0xCD};
    rc_dec d;
    rc_dec_init(&d, in, sizeof in);
    rc_prob p = RC_PROB_INIT;
    for (int i = 0; i < 10000; i++)
        rc_decode(&d, &p, RC_COUNTED);
    CHECK(d.overrun);
    CHECK(d.pos == sizeof in);
    /* a first byte other than 0 is invalid */
    uint8_t bad[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    rc_dec_init(&d, bad, sizeof bad);
    CHECK(d.overrun);
}

static void probability_bounds(unsigned kind)
{
    /* long runs push the counters to their extremes: p0 must stay within
     * [63, 65352] (cm, 6.7) or [71, 65465] (cm1, 6.4.3), and reach them */
    const uint32_t lo = kind == RC_COUNTED ? 63 : 71, hi = kind == RC_COUNTED ? 65352 : 65465;
    rc_prob p = RC_PROB_INIT;
    unsigned out = 0, min = 65536, max = 0;
    for (int i = 0; i < 100000; i++) {
        p = rc_adapt(p, (i / 5000) & 1, kind);
        uint32_t p0 = rc_p0(p, kind);
        out += p0 < lo || p0 > hi;
        min = p0 < min ? p0 : min;
        max = p0 > max ? p0 : max;
    }
    CHECK(out == 0 && min == lo && max == hi);
    p = RC_PROB_INIT;
    for (int i = 0; i < 100000; i++)
        p = rc_adapt(p, 0, kind);
    CHECK(rc_p0(p, kind) < 65536 && rc_p0(p, kind) > 65000);
    for (int i = 0; i < 100000; i++)
        p = rc_adapt(p, 1, kind);
    CHECK(rc_p0(p, kind) > 0 && rc_p0(p, kind) < 600);
}

/* SIMTRACE.md 6.7, step by step, with its own rate formula. */
static uint32_t spec_counted(uint32_t P, unsigned b)
{
    uint32_t n = P & 15, f = P & 0xFFF0, s = P >> 16;
    uint32_t rf = n <= 13 ? 65536 / (n + 2) : 4096, rs = n <= 13 ? 65536 / (n + 2) : n == 14 ? 4096 : 512;
    if (b == 0) {
        f += ((65536 - f) * rf) >> 16;
        s += ((65536 - s) * rs) >> 16;
    } else {
        f -= (f * rf) >> 16;
        s -= (s * rs) >> 16;
    }
    n = n < 15 ? n + 1 : 15;
    return (s << 16) | (f & 0xFFF0) | n;
}

/* SIMTRACE.md 6.4.3 */
static uint32_t spec_two_rate(uint32_t P, unsigned b)
{
    uint32_t f = P & 0xFFFF, s = P >> 16;
    if (b == 0) {
        f += (65536 - f) >> 4;
        s += (65536 - s) >> 7;
    } else {
        f -= f >> 4;
        s -= s >> 7;
    }
    return f | (s << 16);
}

static void adaptation_matches_spec(void)
{
    /* the first step from 1/2 is half-way to the bit */
    CHECK(rc_adapt(RC_PROB_INIT, 0, RC_COUNTED) == ((49152u << 16) | 49152u | 1u));
    CHECK(rc_adapt(RC_PROB_INIT, 1, RC_COUNTED) == ((16384u << 16) | 16384u | 1u));
    unsigned long long seed = 7;
    unsigned mism = 0;
    for (int run = 0; run < 2000; run++) {
        rc_prob a = RC_PROB_INIT, c = RC_PROB_INIT;
        uint32_t sa = RC_PROB_INIT, sc = RC_PROB_INIT;
        unsigned skew = (unsigned)(check_rand(&seed) % 101);
        for (int i = 0; i < 300; i++) {
            unsigned b = (check_rand(&seed) % 100) < skew;
            a = rc_adapt(a, b, RC_COUNTED);
            c = rc_adapt(c, b, RC_TWO_RATE);
            sa = spec_counted(sa, b);
            sc = spec_two_rate(sc, b);
            mism += a != sa || c != sc;
            mism += rc_p0(a, RC_COUNTED) != (((sa & 0xFFF0) + (sa >> 16)) >> 1);
            /* the bounds SIMTRACE.md 6.7 derives instead of clamping */
            mism += (sa >> 16) < 127 || (sa >> 16) > 65409 || rc_p0(a, RC_COUNTED) < 63 || rc_p0(a, RC_COUNTED) > 65352;
        }
    }
    CHECK(mism == 0);
}

/* cm2's raw bytes (SIMTRACE.md 6.9): interleaved with modelled bits and
 * certain bits (which leave the range as small as it gets), they come back
 * exactly, cost 8 bits each, and a code no byte gives is flagged. */
static void raw_bytes(void)
{
    const unsigned n = 50000;
    unsigned long long s = 11;
    unsigned char *bytes = malloc(n);
    for (unsigned i = 0; i < n; i++)
        bytes[i] = (unsigned char)check_rand(&s);
    st_buf out;
    st_buf_init(&out, 0);
    rc_enc e;
    rc_enc_init(&e, &out);
    rc_prob p = RC_PROB_INIT;
    for (unsigned i = 0; i < n; i++) {
        rc_encode_byte_raw(&e, bytes[i]);
        if (i % 3 == 0)
            rc_encode(&e, &p, 0, RC_COUNTED);
    }
    CHECK(rc_enc_finish(&e) == ST_OK);
    CHECK(out.len >= n && out.len < n + n / 200 + 16); /* 8 bits a byte, and the certain bits almost nothing */
    rc_dec d;
    rc_dec_init(&d, out.data, out.len);
    p = RC_PROB_INIT;
    unsigned bad = 0;
    for (unsigned i = 0; i < n; i++) {
        bad += rc_decode_byte_raw(&d) != bytes[i];
        if (i % 3 == 0)
            bad += rc_decode(&d, &p, RC_COUNTED) != 0;
    }
    CHECK(bad == 0 && !d.overrun && d.pos == out.len);
    /* a range that is not a multiple of 256 leaves codes past 256 parts */
    d.range = 0x01000080u;
    d.code = 0x0100007Fu;
    d.overrun = 0;
    CHECK(rc_decode_byte_raw(&d) == 255 && d.overrun);
    free(bytes);
    st_buf_free(&out);
}

int main(void)
{
    for (unsigned kind = RC_TWO_RATE; kind <= RC_COUNTED; kind++) {
        roundtrip(1, 50, 1, kind);
        roundtrip(1000, 50, 2, kind);
        roundtrip(200000, 0, 3, kind);
        roundtrip(200000, 3, 4, kind);
        roundtrip(200000, 97, 5, kind);
        probability_bounds(kind);
    }
    /* what cm changes: a new context's first bits cost less */
    CHECK(cost_of_zeros(200, RC_COUNTED) + 3 < cost_of_zeros(200, RC_TWO_RATE));
    overrun();
    raw_bytes();
    adaptation_matches_spec();
    return check_done("test_rc");
}
