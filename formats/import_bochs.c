/* import_bochs.c - placeholder until the Bochs debugger-log importer lands. */
#include "import_internal.h"

st_error st_import_bochs(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                         st_diag *d)
{
    (void)fd, (void)o, (void)sink, (void)stats;
    return st_diag_set(d, ST_E_UNSUPPORTED, "the bochs importer is not built yet");
}
