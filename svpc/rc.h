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
 * Packed probability (rc_prob, uint32): bits 0..15 fast counter, bits 16..31
 * slow counter.  Both start at 0x8000 (p = 1/2).  The counters stay within
 * [15, 65521] (fast) and [127, 65409] (slow), so a probability is never 0 or
 * 1 and a bound never reaches 0 or the range.  (The slow counter's ceiling
 * bounds the cost of a certain bit at ~0.0016 bit: negligible next to misses.)
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

#if defined(__GNUC__)
#define RC_INLINE static inline __attribute__((always_inline))
#else
#define RC_INLINE static inline
#endif

typedef uint32_t rc_prob;
#define RC_PROB_INIT 0x80008000u

RC_INLINE uint32_t rc_p0(rc_prob p) { return ((p & 0xFFFFu) + (p >> 16)) >> 1; }

RC_INLINE rc_prob rc_adapt(rc_prob p, unsigned bit)
{
    uint32_t f = p & 0xFFFFu, s = p >> 16;
    if (bit) {
        f -= f >> 4;
        s -= s >> 7;
    } else {
        f += (65536u - f) >> 4;
        s += (65536u - s) >> 7;
    }
    return f | (s << 16);
}

/* ---- encoder ---- */
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

RC_INLINE void rc_encode(rc_enc *e, rc_prob *p, unsigned bit)
{
    uint32_t bound = (e->range >> 16) * rc_p0(*p);
    if (!bit) {
        e->range = bound;
    } else {
        e->low += bound;
        e->range -= bound;
    }
    *p = rc_adapt(*p, bit);
    while (e->range < (1u << 24)) {
        e->range <<= 8;
        rc_shift_low(e);
    }
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

/* Encode the low `nbits` bits of sym, MSB first, through a binary tree of
 * probabilities tree[1 .. 2^nbits - 1]. */
static inline void rc_encode_tree(rc_enc *e, rc_prob *tree, unsigned nbits, unsigned sym)
{
    unsigned node = 1;
    for (unsigned i = nbits; i-- > 0;) {
        unsigned b = (sym >> i) & 1u;
        rc_encode(e, &tree[node], b);
        node = (node << 1) | b;
    }
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

static inline void rc_dec_init(rc_dec *d, const uint8_t *in, size_t len)
{
    d->in = in;
    d->len = len;
    d->pos = 0;
    d->overrun = 0;
    d->range = 0xFFFFFFFFu;
    d->code = 0;
    /* the first byte is always the initial cache byte, 0 */
    if (rc_get(d) != 0)
        d->overrun = 1;
    for (int i = 0; i < 4; i++)
        d->code = (d->code << 8) | rc_get(d);
}

RC_INLINE unsigned rc_decode(rc_dec *d, rc_prob *p)
{
    uint32_t bound = (d->range >> 16) * rc_p0(*p);
    unsigned bit;
    if (d->code < bound) {
        d->range = bound;
        bit = 0;
    } else {
        d->code -= bound;
        d->range -= bound;
        bit = 1;
    }
    *p = rc_adapt(*p, bit);
    while (d->range < (1u << 24)) {
        d->range <<= 8;
        d->code = (d->code << 8) | rc_get(d);
    }
    return bit;
}

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

static inline unsigned rc_decode_tree(rc_dec *d, rc_prob *tree, unsigned nbits)
{
    unsigned node = 1;
    for (unsigned i = 0; i < nbits; i++)
        node = (node << 1) | rc_decode(d, &tree[node]);
    return node - (1u << nbits);
}

#endif /* SVPC_RC_H */
