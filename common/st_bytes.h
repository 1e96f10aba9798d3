/*
 * st_bytes.h - little-endian loads and stores, and the growable byte buffer.
 *
 * All on-disk integers of the suite are little-endian; these helpers are the
 * only place that knows it, so the code is correct on any host byte order.
 */
#ifndef ST_BYTES_H
#define ST_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "st_error.h"

static inline uint16_t st_load16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t st_load32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t st_load64(const uint8_t *p) { return (uint64_t)st_load32(p) | ((uint64_t)st_load32(p + 4) << 32); }

static inline void st_store16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void st_store32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static inline void st_store64(uint8_t *p, uint64_t v)
{
    st_store32(p, (uint32_t)v);
    st_store32(p + 4, (uint32_t)(v >> 32));
}

/*
 * A growable byte buffer.  cap never exceeds limit (0 = SIZE_MAX), so a
 * decoder handed a hostile size fails with ST_E_MEMLIMIT instead of
 * allocating without bound.
 */
typedef struct {
    uint8_t *data;
    size_t len;
    size_t cap;
    size_t limit;
} st_buf;

void st_buf_init(st_buf *b, size_t limit);
void st_buf_free(st_buf *b);
/* Make room for at least `need` bytes in total.  ST_E_NOMEM / ST_E_MEMLIMIT. */
st_error st_buf_reserve(st_buf *b, size_t need);
/* Append n bytes. */
st_error st_buf_append(st_buf *b, const void *src, size_t n);

/*
 * Zeroed tables for models and predictors, n bytes (st_table_free takes
 * the same n).  Large ones (ST_BIG_TABLE and up) come straight from mmap:
 * the kernel supplies zero pages on first touch, so a table costs time and
 * resident memory only where a trace uses it.  They are also asked to use
 * transparent huge pages: models touch them at random, and 4 KiB pages
 * would cost a TLB miss on most lookups and a fault per 4 KiB on first
 * touch.  NULL when out of memory.
 */
#define ST_BIG_TABLE ((size_t)1 << 20)
void *st_table_alloc(size_t n);
void st_table_free(void *p, size_t n);

#endif /* ST_BYTES_H */
