/*
 * cat_stats.h - simtrace-cat --stats: what is inside each stream of a
 * container, a regular file or a pipe (sizes, bits per entry, distinct
 * cache lines and pages, access sizes, reads and writes, the predictors'
 * hits per field and per frame), as text or JSON.  The figures are the
 * public API's (simtrace_stats_*); this prints them.
 */
#ifndef CAT_STATS_H
#define CAT_STATS_H

#include <stdio.h>

#include "../include/simtrace.h"

/* Statistics of stream `name` (NULL: every stream) of the container on
 * fd, read with params p (a regular file through its directory, else in
 * one pass), to out.  Returns an exit status, after a message on
 * failure. */
int cat_stats(int fd, const char *file, const char *name, int json, const simtrace_read_params *p, FILE *out);

#endif /* CAT_STATS_H */
