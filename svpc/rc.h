/*
 * rc.h - adaptive binary range coder (internal to svpc/).
 *
 * Carry-propagating range coder in the style of LZMA's: 32-bit range, 64-bit
 * low, one cached byte plus a run of pending 0xFF bytes.  Probabilities are
 * 16-bit estimates of "bit is 0", kept as two counters adapting at different
 * rates (1/16 and 1/128) whose average is used: the fast one follows phase
 * changes in a trace, the slow one gets close to the true skew in long
 * stationary runs, where a single fast counter would cost ~0.001 bit/bit.
 *
 * Two ways of adapting (`kind`, a constant of each caller's template):
 *
 * RC_TWO_RATE (cm1, SIMTRACE.md 6.4.3): bits 0..15 fast counter, bits
 *   16..31 slow counter, rates 1/16 and 1/128 from the first bit.  The
 *   counters stay within [15, 65521] (fast) and [127, 65409] (slow).
 *
 * RC_COUNTED (cm, SIMTRACE.md 6.7): bits 0..3 the number n of bits seen
 *   (saturating at 15), bits 4..15 fast counter (12 bits, scaled by 16),
 *   bits 16..31 slow counter.  The first bits adapt at rate 1/(n+2), a
 *   running average of what was seen, until the rate reaches the counter's
 *   own (1/16 fast; 1/128 slow from n = 15).  A context that is new in a
 *   frame thus learns its skew in a few bits instead of ~50 bits' worth of
 *   slow drift from 1/2: that drift, paid again in every context of every
 *   frame, was about a quarter of what splitting a trace into frames cost
 *   (bios_post.read: +4.5% against one frame with cm1, +3.5% with cm).  The
 *   counters need no clamping: the slow one stays within [127, 65409] (see
 *   SIMTRACE.md 6.7).
 *
 * Both start at 0x80008000 (p = 1/2, n = 0), so a probability is never 0 or
 * 1 and a bound never reaches 0 or the range.
 *
 * The decoder never reads past its input: past the end it feeds zero bytes
 * and sets `overrun`; the caller must treat overrun as corrupt input.  Work
 * per decoded bit is constant, so a hostile input cannot make decoding slow.
 */
#ifndef SVPC_RC_H
#define SVPC_RC_H

#include <stddef.h>
#include <stdint.h>

#include "../common/st_bytes.h"
#include "../common/st_error.h"

#if defined(__GNUC__)
#define RC_INLINE static inline __attribute__((always_inline))
#else
#define RC_INLINE static inline
#endif

typedef uint32_t rc_prob;
#define RC_PROB_INIT 0x80008000u

enum { RC_TWO_RATE = 0, RC_COUNTED = 1 };

/* Rates of RC_COUNTED by n, scaled by 2^16: 65536 / (n + 2) until the
 * counter's own rate (fast 1/16 = 4096 from n = 14; slow 1/128 = 512 at
 * n = 15). */
static const uint16_t rc_rate_fast[16] = {32768, 21845, 16384, 13107, 10922, 9362, 8192, 7281,
                                          6553,  5957,  5461,  5041,  4681,  4369, 4096, 4096};
static const uint16_t rc_rate_slow[16] = {32768, 21845, 16384, 13107, 10922, 9362, 8192, 7281,
                                          6553,  5957,  5461,  5041,  4681,  4369, 4096, 512};

RC_INLINE uint32_t rc_p0(rc_prob p, unsigned kind)
{
    return ((p & (kind == RC_COUNTED ? 0xFFF0u : 0xFFFFu)) + (p >> 16)) >> 1;
}

/* One step of the fixed rates 1/16 (f) and 1/128 (s) towards bit. */
RC_INLINE void rc_step_fixed(uint32_t *f, uint32_t *s, unsigned bit)
{
    if (bit) {
        *f -= *f >> 4;
        *s -= *s >> 7;
    } else {
        *f += (65536u - *f) >> 4;
        *s += (65536u - *s) >> 7;
    }
}

RC_INLINE rc_prob rc_adapt(rc_prob p, unsigned bit, unsigned kind)
{
    if (kind == RC_COUNTED) {
        uint32_t n = p & 15u, f = p & 0xFFF0u, s = p >> 16;
        if (n == 15) {
            /* a context past its first bits, as most are: the rates are
             * 1/16 and 1/128, and the shifts below are the same
             * arithmetic as the general case's products */
            rc_step_fixed(&f, &s, bit);
            return (s << 16) | (f & 0xFFF0u) | 15u;
        }
        uint32_t rf = rc_rate_fast[n], rs = rc_rate_slow[n];
        if (bit) {
            f -= (f * rf) >> 16;
            s -= (s * rs) >> 16;
        } else {
            f += ((65536u - f) * rf) >> 16;
            s += ((65536u - s) * rs) >> 16;
        }
        return (s << 16) | (f & 0xFFF0u) | (n + (n < 15));
    }
    uint32_t f = p & 0xFFFFu, s = p >> 16;
    rc_step_fixed(&f, &s, bit);
    return f | (s << 16);
}

typedef struct {
    uint64_t low;
    uint32_t range;
    uint8_t cache;
    uint64_t pending; /* bytes waiting for the carry: cache + (pending-1) x 0xFF */
    st_buf *out;
    st_error err;
} rc_enc;

static inline void rc_enc_init(rc_enc *e, st_buf *out)
{
    e->low = 0;
    e->range = 0xFFFFFFFFu;
    e->cache = 0;
    e->pending = 1;
    e->out = out;
    e->err = ST_OK;
}

static inline void rc_put(rc_enc *e, uint8_t b)
{
    st_buf *o = e->out;
    if (o->len == o->cap) {
        st_error r = st_buf_reserve(o, o->len + 1);
        if (r != ST_OK) {
            e->err = r;
            return;
        }
    }
    o->data[o->len++] = b;
}

static inline void rc_shift_low(rc_enc *e)
{
    if ((uint32_t)e->low < 0xFF000000u || (e->low >> 32) != 0) {
        uint8_t carry = (uint8_t)(e->low >> 32);
        uint8_t c = e->cache;
        do {
            rc_put(e, (uint8_t)(c + carry));
            c = 0xFF;
        } while (--e->pending != 0);
        e->cache = (uint8_t)(e->low >> 24);
    }
    e->pending++;
    e->low = (e->low & 0x00FFFFFFu) << 8;
}

/* Encode a bit with a given probability p0 of 0 (1..65535, scaled by
 * 2^16), nothing adapted: for probabilities computed elsewhere (a mixer). */
RC_INLINE void rc_encode_p0(rc_enc *e, uint32_t p0, unsigned bit)
{
    uint32_t bound = (e->range >> 16) * p0;
    if (!bit) {
        e->range = bound;
    } else {
        e->low += bound;
        e->range -= bound;
    }
    while (e->range < (1u << 24)) {
        e->range <<= 8;
        rc_shift_low(e);
    }
}

RC_INLINE void rc_encode(rc_enc *e, rc_prob *p, unsigned bit, unsigned kind)
{
    rc_encode_p0(e, rc_p0(*p, kind), bit);
    *p = rc_adapt(*p, bit, kind);
}

/* Encode a byte as 8 equally likely bits in one step (cm2's raw lanes,
 * SIMTRACE.md 6.9): the range is cut into 256 equal parts.  For values the
 * models cannot predict (hash states) this costs 8 bits, as a model would
 * at best, without a model's work. */
RC_INLINE void rc_encode_byte_raw(rc_enc *e, unsigned byte)
{
    e->range >>= 8;
    e->low += (uint64_t)e->range * byte;
    while (e->range < (1u << 24)) {
        e->range <<= 8;
        rc_shift_low(e);
    }
}

/* Encode the low `nbits` bits of sym, MSB first, through a binary tree of
 * probabilities tree[1 .. 2^nbits - 1].  Unless hook is NULL, each bit is
 * first shown to hook(arg, p0, bit), p0 its probability of 0 (16 bits):
 * what an accounting of the coded bits' cost needs (cm2's statistics). */
RC_INLINE void rc_encode_tree_hook(rc_enc *e, rc_prob *tree, unsigned nbits, unsigned sym, unsigned kind,
                                   void (*hook)(void *arg, uint32_t p0, unsigned bit), void *arg)
{
    unsigned node = 1;
    for (unsigned i = nbits; i-- > 0;) {
        unsigned b = (sym >> i) & 1u;
        if (hook)
            hook(arg, rc_p0(tree[node], kind), b);
        rc_encode(e, &tree[node], b, kind);
        node = (node << 1) | b;
    }
}

static inline void rc_encode_tree(rc_enc *e, rc_prob *tree, unsigned nbits, unsigned sym, unsigned kind)
{
    rc_encode_tree_hook(e, tree, nbits, sym, kind, NULL, NULL);
}

static inline st_error rc_enc_finish(rc_enc *e)
{
    for (int i = 0; i < 5; i++)
        rc_shift_low(e);
    return e->err;
}

/* ---- decoder ---- */
typedef struct {
    uint32_t range;
    uint32_t code;
    const uint8_t *in;
    size_t pos, len;
    int overrun;
} rc_dec;

static inline uint8_t rc_get(rc_dec *d)
{
    if (d->pos < d->len)
        return d->in[d->pos++];
    d->overrun = 1;
    return 0;
}

/* The decoder of the stream at in (len bytes), whose first byte, the
 * initial cache byte, is 0 unless first_is_flag: then the caller has read
 * that byte as a flag of its own and checked it (cmx's, 6.9.1). */
static inline void rc_dec_init_with(rc_dec *d, const uint8_t *in, size_t len, int first_is_flag)
{
    d->in = in;
    d->len = len;
    d->pos = 0;
    d->overrun = 0;
    d->range = 0xFFFFFFFFu;
    d->code = 0;
    if (rc_get(d) != 0 && !first_is_flag)
        d->overrun = 1;
    for (int i = 0; i < 4; i++)
        d->code = (d->code << 8) | rc_get(d);
}

static inline void rc_dec_init(rc_dec *d, const uint8_t *in, size_t len) { rc_dec_init_with(d, in, len, 0); }

/* The decoder's side of rc_encode_p0(). */
RC_INLINE unsigned rc_decode_p0(rc_dec *d, uint32_t p0)
{
    uint32_t bound = (d->range >> 16) * p0;
    unsigned bit;
    if (d->code < bound) {
        d->range = bound;
        bit = 0;
    } else {
        d->code -= bound;
        d->range -= bound;
        bit = 1;
    }
    while (d->range < (1u << 24)) {
        d->range <<= 8;
        d->code = (d->code << 8) | rc_get(d);
    }
    return bit;
}

RC_INLINE unsigned rc_decode(rc_dec *d, rc_prob *p, unsigned kind)
{
    unsigned bit = rc_decode_p0(d, rc_p0(*p, kind));
    *p = rc_adapt(*p, bit, kind);
    return bit;
}

/* The decoder's side of rc_encode_byte_raw().  A code that no byte gives
 * (only corrupt input makes one) sets `overrun`, which the caller rejects,
 * and decodes as 255. */
RC_INLINE unsigned rc_decode_byte_raw(rc_dec *d)
{
    d->range >>= 8;
    uint32_t v = d->code / d->range;
    if (v > 255) {
        d->overrun = 1;
        v = 255;
    }
    d->code -= v * d->range;
    while (d->range < (1u << 24)) {
        d->range <<= 8;
        d->code = (d->code << 8) | rc_get(d);
    }
    return v;
}

static inline unsigned rc_decode_tree(rc_dec *d, rc_prob *tree, unsigned nbits, unsigned kind)
{
    unsigned node = 1;
    for (unsigned i = 0; i < nbits; i++)
        node = (node << 1) | rc_decode(d, &tree[node], kind);
    return node - (1u << nbits);
}

/* The end of a payload that is a range coder's output alone (cm2,
 * drmemtrace), after a frame's entries (whole: all of them, not a
 * prefix): it must not have been read past, nor have bytes left over. */
static inline st_error rc_dec_end(const rc_dec *d, int whole, st_diag *diag)
{
    if (whole && d->overrun)
        return st_diag_set(diag, ST_E_CORRUPT, "the range coder's stream is corrupt or too short");
    if (whole && d->pos != d->len)
        return st_diag_set(diag, ST_E_CORRUPT, "the range coder's stream has %zu bytes left over", d->len - d->pos);
    return ST_OK;
}

#endif /* SVPC_RC_H */
