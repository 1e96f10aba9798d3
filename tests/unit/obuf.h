/* obuf.h - an in-memory target for exporters in the unit tests: o_write
 * appends what an exporter writes to a growing buffer, NUL-terminated so
 * that text output can be compared as a string. */
#ifndef TEST_OBUF_H
#define TEST_OBUF_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/st_error.h"

typedef struct {
    uint8_t *p;
    size_t n;
} obuf;

static inline st_error o_write(void *arg, const void *b, size_t n)
{
    obuf *o = arg;
    o->p = realloc(o->p, o->n + n + 1);
    memcpy(o->p + o->n, b, n);
    o->n += n;
    o->p[o->n] = 0;
    return ST_OK;
}

#endif
