/*
 * cat_merge.h - simtrace-cat's export of several streams as one file,
 * merged by cycle (lackey, din, xdin, csv; formats/IMPORT.md 8.6), read
 * through the directory of a regular file.
 */
#ifndef CAT_MERGE_H
#define CAT_MERGE_H

#include <stdint.h>
#include <stdio.h>

#include "../include/simtrace.h"
#include "cli_util.h"

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
    int no_fetch;         /* --no-fetch: lackey, din, xdin without the fetch streams */
    int quiet, verbose;
    cat_range_kind range;
    uint64_t lo, hi;      /* --cycles C1:C2, hi UINT64_MAX when omitted */
} cat_merge_opts;

/*
 * Whether the export may merge several streams, which is done through the
 * directory of a regular file: several streams asked for (a list, several
 * -s, --all), or -F lackey, din or xdin, which take every memory stream by
 * default and a stream's fetch stream with it.
 */
int cat_merge_needs_index(const cat_merge_opts *o);

/*
 * A merge read from a pipe (or any input that is not a regular file): the
 * container is copied to an unlinked temporary file in $TMPDIR (default
 * /tmp), which *fd then reads, so memory stays bounded and the merge goes
 * through the directory as from a file; the file needs as much room as the
 * container and is gone when the program ends.  *fd is left alone when it
 * is a regular file already.  Returns an exit status (message printed).
 */
int cat_spill(int *fd, const char *in_name);

/*
 * --salvage writes one stream; with -F lackey, din or xdin and no -s,
 * where the export takes every memory stream otherwise, a note (not with
 * -q) names the stream written, s[chosen], and the memory streams of
 * s[0..n) not written.
 */
void cat_salvage_note(const cat_merge_opts *o, const simtrace_stream_info *s, unsigned n, unsigned chosen);

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
int cat_merge(simtrace_reader *r, const cat_merge_opts *o, int out_fd, int *lost);

/*
 * Several containers named on the command line: the streams asked for (or,
 * without -s, every memory stream) of each, merged into out_fd; in names
 * the streams are "FILE:NAME".  Returns an exit status (messages printed);
 * *lost as for cat_merge, the message naming the container.
 */
int cat_merge_files(char *const *paths, unsigned nc, const cat_merge_opts *o, int out_fd, int *lost);

#endif
