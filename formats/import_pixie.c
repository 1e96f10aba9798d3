#include "import_internal.h"
st_error st_import_pixie32(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats, st_diag *d)
{ (void)fd;(void)o;(void)sink;(void)stats;(void)d; return ST_E_UNSUPPORTED; }
st_error st_import_pixie64(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats, st_diag *d)
{ (void)fd;(void)o;(void)sink;(void)stats;(void)d; return ST_E_UNSUPPORTED; }
