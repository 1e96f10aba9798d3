#define _DEFAULT_SOURCE /* madvise */
#include "st_bytes.h"

#include <stdint.h>
#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/* LeakSanitizer does not look for pointers in memory from mmap: a table
 * that holds some (cvp's model holds its predictor sets) is registered
 * with it, or what it points to would be reported lost. */
#if defined(__SANITIZE_ADDRESS__)
#define ST_LSAN_ROOTS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ST_LSAN_ROOTS 1
#endif
#endif
#ifdef ST_LSAN_ROOTS
#include <sanitizer/lsan_interface.h>
#endif

/* Large buffers (a frame's decoded entries, its payload, a decoder's
 * streams: megabytes, written once from start to end) are asked to use
 * transparent huge pages.  The kernel zeroes the same bytes either way,
 * but one fault per 2 MiB instead of one per 4 KiB: on virtual machines,
 * where a fault is expensive, the 4 KiB faults of a frame's output cost as
 * much as decoding it.  Advice only: failure, or a kernel without THP,
 * changes nothing. */
#define HUGE_BUF ((size_t)4 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

static void advise_huge(uint8_t *p, size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (n < HUGE_BUF)
        return;
    uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    uintptr_t e = ((uintptr_t)p + n) & ~(uintptr_t)(HUGE_PAGE - 1);
    if (e > a)
        madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

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
    advise_huge(p, ncap);
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

void *st_table_alloc(size_t n)
{
#if defined(__linux__)
    if (n >= ST_BIG_TABLE) {
        void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
#if defined(MADV_HUGEPAGE)
        madvise(p, n, MADV_HUGEPAGE); /* advice only: failure changes nothing */
#endif
#ifdef ST_LSAN_ROOTS
        __lsan_register_root_region(p, n);
#endif
        return p;
    }
#endif
    return calloc(1, n ? n : 1);
}

void st_table_free(void *p, size_t n)
{
    if (!p)
        return;
#if defined(__linux__)
    if (n >= ST_BIG_TABLE) {
#ifdef ST_LSAN_ROOTS
        __lsan_unregister_root_region(p, n);
#endif
        munmap(p, n);
        return;
    }
#endif
    free(p);
}
