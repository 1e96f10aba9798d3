#include "st_bytes.h"

#include <stdlib.h>

void st_buf_init(st_buf *b, size_t limit)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->limit = limit ? limit : SIZE_MAX;
}

void st_buf_free(st_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

st_error st_buf_reserve(st_buf *b, size_t need)
{
    if (need <= b->cap)
        return ST_OK;
    if (need > b->limit)
        return ST_E_MEMLIMIT;
    size_t ncap = b->cap ? b->cap : 4096;
    while (ncap < need)
        ncap = ncap > SIZE_MAX / 2 ? SIZE_MAX : ncap * 2;
    if (ncap > b->limit)
        ncap = b->limit;
    uint8_t *p = realloc(b->data, ncap);
    if (!p)
        return ST_E_NOMEM;
    b->data = p;
    b->cap = ncap;
    return ST_OK;
}

st_error st_buf_append(st_buf *b, const void *src, size_t n)
{
    if (n > SIZE_MAX - b->len)
        return ST_E_MEMLIMIT;
    RETURN_IF_ERROR(st_buf_reserve(b, b->len + n));
    if (n)
        memcpy(b->data + b->len, src, n);
    b->len += n;
    return ST_OK;
}
