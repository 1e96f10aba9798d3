/*
 * mix.h - logistic mixing primitives (internal to svpc/): SIMTRACE.md
 * 6.8.2's squash, STRETCH, p12 and floor_shr, shared by the vpc encoder
 * (vpcx.c) and cm2 (cm2.c).  Each encoder keeps its own weights and update
 * rule (6.8.2, 6.9).
 *
 * Probabilities here are of a 1 bit, in 12 bits (1..4095); the stretched
 * domain is -2047..2047, ln(p / (1 - p)) scaled by 256.
 */
#ifndef SVPC_MIX_H
#define SVPC_MIX_H

#include <stdint.h>

/* squash(x) approximates 4096 / (1 + e^(-x/256)) by linear interpolation
 * between its values at x = -2048, -1920, ..., 2048 (rounded). */
static const int16_t mix_sq_pts[33] = {1,    2,    4,    6,    10,   17,   27,   45,   74,   120,  194,
                                       311,  488,  747,  1102, 1546, 2048, 2550, 2994, 3349, 3608, 3785,
                                       3902, 3976, 4022, 4051, 4069, 4079, 4086, 4090, 4092, 4094, 4095};

static inline int mix_squash(int x)
{
    if (x > 2047)
        x = 2047;
    if (x < -2047)
        x = -2047;
    unsigned u = (unsigned)(x + 2048), i = u >> 7, w = u & 127u;
    return (int)((mix_sq_pts[i] * (128u - w) + mix_sq_pts[i + 1] * w + 64u) >> 7);
}

/* stretch[p] = the least x in -2047..2047 with squash(x) >= p, or 2047 if
 * there is none: squash's inverse, as a table. */
static inline void mix_stretch_init(int16_t stretch[4096])
{
    unsigned pi = 0;
    for (int x = -2047; x <= 2047; x++)
        for (int v = mix_squash(x); (int)pi <= v;)
            stretch[pi++] = (int16_t)x;
    while (pi < 4096)
        stretch[pi++] = 2047;
}

/* P(1) in 12 bits, 1..4095, of a 16-bit probability p0 of a 0 (rc.h). */
static inline int mix_p12(uint32_t p0)
{
    int q = (int)((65536u - p0) >> 4);
    return q < 1 ? 1 : q > 4095 ? 4095 : q;
}

/* floor(x / 2^s) for either sign (C leaves >> of a negative number to the
 * implementation) */
static inline int64_t mix_asr64(int64_t x, unsigned s) { return x >= 0 ? x >> s : -((-x - 1) >> s) - 1; }

/* The mixed probability of a 1 (12 bits) of n stretched inputs x with
 * weights w (16 fractional bits), and the weights' step towards a bit that
 * came with error err (the bit << 12 minus that probability) at rate
 * 2^-shift: the logistic mixer of cm2's lanes and drmemtrace's encoding
 * bytes (6.9, 6.14). */
static inline int mix_predict(const int *x, const int64_t *w, unsigned n)
{
    int64_t dot = 0;
    for (unsigned j = 0; j < n; j++)
        dot += w[j] * x[j];
    const int64_t xs = mix_asr64(dot, 16);
    return mix_squash(xs > 2047 ? 2047 : xs < -2047 ? -2047 : (int)xs);
}

static inline void mix_learn(int64_t *w, const int *x, unsigned n, int err, unsigned shift)
{
    for (unsigned j = 0; j < n; j++)
        w[j] += mix_asr64((int64_t)x[j] * err, shift);
}

#endif /* SVPC_MIX_H */
