/* trace_io.c - placeholder until the importers and exporters land. */
#include <stdlib.h>

#include "import_internal.h"

const char *const st_import_formats[] = {NULL};
const char *const st_export_formats[] = {NULL};

st_error st_import(const char *format, int fd, const st_import_opts *o, const st_import_sink *sink,
                   st_import_stats *stats, st_diag *d)
{
    (void)format, (void)fd, (void)o, (void)sink, (void)stats;
    return st_diag_set(d, ST_E_USAGE, "no importers built");
}

st_error st_exporter_new(st_exporter **x, const char *format, const st_export_stream *s, st_write_fn write,
                         void *warg, st_value_fn value, void *varg)
{
    (void)format, (void)s, (void)write, (void)warg, (void)value, (void)varg;
    *x = NULL;
    return ST_E_USAGE;
}
st_error st_exporter_write(st_exporter *x, uint64_t first, const uint8_t *entries, size_t n)
{
    (void)x, (void)first, (void)entries, (void)n;
    return ST_E_USAGE;
}
st_error st_exporter_finish(st_exporter *x)
{
    (void)x;
    return ST_E_USAGE;
}
void st_exporter_free(st_exporter *x) { (void)x; }
