/*
 * cvp.h - CVP-1 and CBP-2025 instruction records as cvp entries (internal
 * to formats/ and svpc/; SIMTRACE.md 9.8, IMPORT.md 17).
 *
 * A record of those traces has a variable length; a cvp entry (type 12)
 * holds one whole record in 128 fixed bytes, little-endian:
 *
 *   0   u64 pc
 *   8   u64 effective address (loads, stores; else 0)
 *   16  u64 target (branches whose taken byte is not 0; else 0)
 *   24  u8  type        25 u8 taken (branches)   26 u8 base update (CBP-2025
 *       loads, stores)  27 u8 register offset (CBP-2025 stores)
 *   28  u8  access size (loads, stores)          29 u8 n_in  30 u8 n_out
 *   31  u8  0
 *   32  u8  in[8]: the input register ids, then zeros
 *   40  u8  out[8]: the output register ids, then zeros
 *   48  u64 words[10]: the output values in order, one word per output
 *       register, two (low, high) for SIMD registers 32..63; then zeros
 *
 * A record is one entry, so a frame never starts inside a record, and the
 * cvp encoder sees a record's pc beside its values.  The bytes a record's
 * type does not have are 0, which the exporters check, so an entry gives
 * back exactly one record.
 */
#ifndef ST_CVP_H
#define ST_CVP_H

#include <stddef.h>
#include <stdint.h>

#include "entry.h"

#define ST_CVP_ENTRY 128u
#define ST_CVP_IN_MAX 8u     /* input registers a record may have */
#define ST_CVP_OUT_MAX 8u    /* output registers a record may have */
#define ST_CVP_WORDS_MAX 10u /* 8-byte value words of a record's outputs */
#define ST_CVP_RECORD_MAX (9u + 11u + 9u + 2u + ST_CVP_IN_MAX + ST_CVP_OUT_MAX + 8u * ST_CVP_WORDS_MAX)

/* Offsets in a cvp entry. */
enum {
    CVP_PC = 0, CVP_EA = 8, CVP_TARGET = 16, CVP_TYPE = 24, CVP_TAKEN = 25, CVP_BASE_UPDATE = 26,
    CVP_REG_OFFSET = 27, CVP_SIZE = 28, CVP_NIN = 29, CVP_NOUT = 30, CVP_ZERO = 31, CVP_IN = 32,
    CVP_OUT = 40, CVP_WORDS = 48
};

/* Record types (IMPORT.md 17): 0..8 in CVP-1, 9..11 added by CBP-2025. */
enum { CVP_LOAD = 1, CVP_STORE = 2, CVP_TYPE_MAX_CVP1 = 8, CVP_TYPE_MAX_CBP = 11 };

static inline int st_cvp_is_mem(unsigned type) { return type == CVP_LOAD || type == CVP_STORE; }
static inline int st_cvp_is_branch(unsigned type) { return (type >= 3 && type <= 5) || (type >= 9 && type <= 11); }
/* Value words of output register r: SIMD registers take two. */
static inline unsigned st_cvp_reg_words(unsigned r) { return r >= 32 && r < 64 ? 2u : 1u; }

/* 1 when the n bytes at p are all 0 (a word at a time: the exporters
 * check up to 100 bytes of every entry). */
static inline int st_cvp_zeros(const uint8_t *p, size_t n)
{
    uint64_t any = 0;
    for (; n >= 8; p += 8, n -= 8)
        any |= st_load64(p);
    for (; n; p++, n--)
        any |= *p;
    return any == 0;
}

/* The value words an entry's outputs take (its out[] and n_out; n_out
 * clamped to ST_CVP_OUT_MAX, so any bytes give a bounded number). */
static inline unsigned st_cvp_words(const uint8_t *e)
{
    unsigned n = e[CVP_NOUT] < ST_CVP_OUT_MAX ? e[CVP_NOUT] : ST_CVP_OUT_MAX, w = 0;
    for (unsigned i = 0; i < n; i++)
        w += st_cvp_reg_words(e[CVP_OUT + i]);
    return w;
}

/*
 * Parse one record of avail bytes at p (cbp: a CBP-2025 record) into the
 * entry e (ST_CVP_ENTRY bytes).  Returns the record's length; 0 when avail
 * ends inside it (*why says where); -1 when it breaks a rule (*why says
 * which).
 */
long st_cvp_parse(const uint8_t *p, size_t avail, int cbp, uint8_t *e, const char **why);

/* Write the record of entry e to out (ST_CVP_RECORD_MAX bytes, those past
 * the record's scratch); returns its length, or 0 when e is no entry a
 * record gives (*why says why). */
size_t st_cvp_unparse(const uint8_t *e, int cbp, uint8_t *out, const char **why);

#endif /* ST_CVP_H */
