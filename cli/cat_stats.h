/*
 * cat_stats.h - simtrace-cat --stats: what is inside each stream of a
 * container, a regular file or a pipe (sizes, bits per entry, distinct cache lines and pages,
 * access sizes, reads and writes, the predictors' hits per field and per
 * frame), as text or JSON.
 */
#ifndef CAT_STATS_H
#define CAT_STATS_H

#include <stdio.h>

#include "../frames/container.h"

/* Statistics of stream `name` (NULL: every stream) of ix, to out.  Returns
 * an exit status, after a message on failure. */
int cat_stats(st_index *ix, const char *file, const char *name, int json, FILE *out);

/* The same from a container read in one pass from fd (a pipe): every
 * frame, in file order, with the reader's threads, ignore_check and
 * memlimit (st_read_opts). */
int cat_stats_pipe(int fd, const char *file, const char *name, int json, unsigned threads, int ignore_check,
                   uint64_t memlimit, FILE *out);

#endif /* CAT_STATS_H */
