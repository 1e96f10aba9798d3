/*
 * lazy.h - tables reset lazily (internal to svpc/).
 *
 * Every frame starts from a fresh model (frames decode independently),
 * but a frame uses few of the rows of a big table: resetting all of a
 * 10 MB model per frame was most of the time of small frames and of
 * small traces (a 329-record drmemtrace took 8 ms, 1 ms of it decoding).
 * So each row carries a stamp, the epoch (frame) that last reset it, and
 * is reset when a frame first uses it: the state a frame sees is the one
 * a full reset gives, and a new frame costs an increment.  Every access
 * to a lazy row must go through lazy_probs() or lazy_zeros().
 *
 * A model starts with its stamps 0 and its epoch 0; lazy_next() starts
 * each frame, epochs 1, 2, ... (after 2^32 - 1 frames it clears the
 * stamps and starts over, so an old stamp never looks current).
 */
#ifndef SVPC_LAZY_H
#define SVPC_LAZY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rc.h"

/* A new frame: the next epoch; stamps (`bytes` of them) of the model.
 * Returns 1 when the epochs started over (what else a model tags with its
 * epoch must be cleared then). */
static inline int lazy_next(uint32_t *epoch, void *stamps, size_t bytes)
{
    if (++*epoch != 0)
        return 0;
    memset(stamps, 0, bytes);
    *epoch = 1;
    return 1;
}

/* The n probabilities at row, each RC_PROB_INIT if the frame had not used
 * them yet. */
RC_INLINE rc_prob *lazy_probs(rc_prob *row, size_t n, uint32_t *stamp, uint32_t epoch)
{
    if (*stamp != epoch) {
        *stamp = epoch;
        for (size_t i = 0; i < n; i++)
            row[i] = RC_PROB_INIT;
    }
    return row;
}

/* The `bytes` at block, zero if the frame had not used them yet. */
RC_INLINE void *lazy_zeros(void *block, size_t bytes, uint32_t *stamp, uint32_t epoch)
{
    if (*stamp != epoch) {
        *stamp = epoch;
        memset(block, 0, bytes);
    }
    return block;
}

#endif /* SVPC_LAZY_H */
