/*
 * api_internal.h - what the files of the public API (api/) share: the
 * allocator, the error translation, messages.  Not installed.
 */
#ifndef ST_API_INTERNAL_H
#define ST_API_INTERNAL_H

#define SIMTRACE_BUILDING 1
#include "../include/simtrace.h"

#include "../common/st_error.h"
#include "../frames/container.h"
#include "../frames/frame_format.h"

/* Bytes of a handle's message (simtrace_*_message). */
#define API_MSG_MAX 512u

/* The caller's allocator, or malloc/free. */
typedef struct {
    simtrace_allocator a;
    int set;
} api_alloc;

void api_alloc_init(api_alloc *al, const simtrace_allocator *a);
void *api_malloc(const api_alloc *al, size_t n);
void *api_calloc(const api_alloc *al, size_t n); /* zeroed */
void api_free(const api_alloc *al, void *p);

/* The public value of an internal error: the same number (api_common.c
 * asserts it); SIMTRACE_E_INTERNAL for a value outside the list. */
simtrace_error api_error(st_error e);

/* Write "where: what" of e and d into msg (API_MSG_MAX bytes); returns
 * api_error(e).  d may be NULL. */
simtrace_error api_fail(char *msg, st_error e, const st_diag *d);

#endif /* ST_API_INTERNAL_H */
