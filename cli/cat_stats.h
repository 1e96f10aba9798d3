/*
 * cat_stats.h - simtrace-cat --stats: what is inside each stream of a
 * regular file (sizes, bits per entry, distinct cache lines and pages,
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

#endif /* CAT_STATS_H */
