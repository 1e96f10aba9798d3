/*
 * import_internal.h - what the importers of formats/ share (not public).
 *
 * Each importer is one function with the signature of st_import minus the
 * format name; trace_io.c dispatches on the name.
 */
#ifndef ST_IMPORT_INTERNAL_H
#define ST_IMPORT_INTERNAL_H

#include "trace_io.h"

typedef st_error (*st_import_fn)(int fd, const st_import_opts *o, const st_import_sink *sink,
                                 st_import_stats *stats, st_diag *d);

st_error st_import_bochs(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                         st_diag *d);

#endif /* ST_IMPORT_INTERNAL_H */
