/*
 * expect.h - the expected ids of cm1, cm and cm2 (SIMTRACE.md 6.4.4),
 * internal to svpc/: what happened last time at the same key, which is
 * the context every id is coded in.  The encoders' one template each
 * (cm.c, cm2.c) and the statistics replay (svpc_stats.c, through the same
 * templates) read and update them only through these.
 *
 * ipnext[line of the previous ip]: bits 0..3 the ip id used after it last
 *   time, bits 4..6 the last three ip flags there (1: the id was the
 *   expected one).
 * tuple[line of the ip]: bits 0..15 the ids of the ip-keyed fields (4 bits
 *   each, field j at bits 4j), bits 16..18 the last three "all fields as
 *   expected" flags at this ip, bits 20..27 the last two match flags of
 *   each field j (bits 20 + 2j: the newest; 21 + 2j: the one before).
 */
#ifndef SVPC_EXPECT_H
#define SVPC_EXPECT_H

#include <stdint.h>
#include <string.h>

#include "fields.h"

typedef struct {
    uint8_t ipnext[1u << KEY_BITS];
    uint32_t tuple[1u << KEY_BITS];
} cm_expect;

static inline void cm_expect_reset(cm_expect *x) { memset(x, 0, sizeof *x); }

/* The ip id expected after the previous ip, and that key's last 3 ip flags. */
ST_INLINE unsigned exp_ip_id(uint8_t ipnext) { return ipnext & 15u; }
ST_INLINE unsigned exp_ip_hist(uint8_t ipnext) { return (ipnext >> 4) & 7u; }

/* The key's new byte once the ip was coded with id (flag: it was expected). */
ST_INLINE uint8_t exp_ip_next(uint8_t ipnext, unsigned id, unsigned flag)
{
    return (uint8_t)(id | (((exp_ip_hist(ipnext) << 1) | flag) & 7u) << 4);
}

/* Field j's expected id, its last two match flags, and the all-flags. */
ST_INLINE unsigned exp_tup_id(uint32_t tup, unsigned j) { return (tup >> (4 * j)) & 15u; }
ST_INLINE unsigned exp_tup_fh(uint32_t tup, unsigned j) { return (tup >> (20 + 2 * j)) & 3u; }
ST_INLINE unsigned exp_tup_all(uint32_t tup) { return (tup >> 16) & 7u; }

/* An entry's match flags are kept as TUPLE keeps them, bit 2j for field
 * j (exp_match_bit), so the new line needs no shuffling. */
ST_INLINE unsigned exp_match_bit(unsigned j, unsigned match) { return match << (2 * j); }
ST_INLINE unsigned exp_matched(unsigned matches, unsigned j) { return (matches >> (2 * j)) & 1u; }

/* The ip's new line (6.4.4's newtup): idbits the ids coded (4 bits per
 * field), matches the match flags (exp_match_bit), all the entry's
 * all-flag.  Each field's older match flag takes the newer's place, and
 * the new one comes in below it; the all-flags likewise. */
ST_INLINE uint32_t exp_tup_next(uint32_t tup, unsigned idbits, unsigned matches, unsigned all)
{
    const unsigned fhs = (((tup >> 20) << 1) & 0xAAu) | matches;
    return idbits | fhs << 20 | (((exp_tup_all(tup) << 1) | all) & 7u) << 16;
}

#endif /* SVPC_EXPECT_H */
