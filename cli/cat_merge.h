/*
 * cat_merge.h - simtrace-cat's export of several streams as one file,
 * merged by cycle (lackey, din, xdin, csv; formats/IMPORT.md 8.6), read
 * through the directory of a regular file.
 */
#ifndef CAT_MERGE_H
#define CAT_MERGE_H

#include <stdint.h>

#include "../frames/container.h"

/* Each -s NAME, in order (NAME may list several streams: "read,write"). */
void cat_select(const char *arg);
/* Number of -s options given. */
unsigned cat_selected(void);

/* How a range option limits a merge. */
typedef enum { CAT_RANGE_NONE, CAT_RANGE_CYCLES, CAT_RANGE_OTHER } cat_range_kind;

typedef struct {
    const char *in_name;  /* the container, for messages (NULL with several: each is named) */
    const char *out_name; /* the output, for messages */
    const char *format;   /* -F */
    int all;              /* --all */
    int quiet, verbose;
    cat_range_kind range;
    uint64_t lo, hi;      /* --cycles C1:C2, hi UINT64_MAX when omitted */
} cat_merge_opts;

/*
 * Whether the export without an index (a pipe) can go on with one stream:
 * 0 when several streams were asked for (message printed; exit 2).
 */
int cat_merge_sequential_ok(const cat_merge_opts *o);

/*
 * A sequential export (a pipe) in lackey, din or xdin without -s or --all
 * takes, as from a file, every memory stream; merging them needs the
 * directory, so it is refused rather than one stream written as if it
 * were all (exit 2).  Returns 1 when r has declared more than one memory
 * stream so far (message printed, even with -q: what to do instead);
 * written: stream id `chosen` has been written already, and a later
 * declaration showed that it was not all (the message says so).  0 when
 * one stream is the whole default, or the streams were named.
 */
int cat_merge_sequential_refuse(const cat_merge_opts *o, const st_reader *r, int written, uint32_t chosen);

/*
 * If the selection is more than one stream (several -s, a list, --all, or
 * -F lackey|din|xdin without -s: every memory stream), write them merged
 * to out_fd and return the exit status (messages printed).  Otherwise
 * return -1: the one-stream export goes on.
 * *lost is set to 1 when everything readable was written but entries the
 * merge asked for are not there (a container cut off in a stream merged,
 * or complete frames past a damaged frame header; message printed, even
 * with -q): the status is then EXIT_DATA, and the caller keeps the output,
 * as the one-stream export does with what it could read.
 */
int cat_merge(st_index *ix, const cat_merge_opts *o, int out_fd, int *lost);

/*
 * Several containers named on the command line: the streams asked for (or,
 * without -s, every memory stream) of each, merged into out_fd; in names
 * the streams are "FILE:NAME".  Returns an exit status (messages printed);
 * *lost as for cat_merge, the message naming the container.
 */
int cat_merge_files(char *const *paths, unsigned nc, const cat_merge_opts *o, int out_fd, int *lost);

#endif
