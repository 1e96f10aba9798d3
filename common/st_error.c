#include "st_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define ST_ERROR_MSG_ITEM(name, cls, msg) msg,
static const char *const st_error_msgs[] = {ST_ERROR_LIST(ST_ERROR_MSG_ITEM)};
#undef ST_ERROR_MSG_ITEM

#define ST_ERROR_CLASS_ITEM(name, cls, msg) cls,
static const unsigned char st_error_classes[] = {ST_ERROR_LIST(ST_ERROR_CLASS_ITEM)};
#undef ST_ERROR_CLASS_ITEM

const char *st_error_name(st_error e)
{
    if ((unsigned)e >= (unsigned)ST_ERROR_COUNT)
        return "unknown error";
    return st_error_msgs[e];
}

int st_error_is_data(st_error e)
{
    if ((unsigned)e >= (unsigned)ST_ERROR_COUNT)
        return 0;
    return st_error_classes[e] == 1;
}

void st_diag_clear(st_diag *d)
{
    if (!d)
        return;
    d->offset = ST_DIAG_UNKNOWN;
    d->frame = ST_DIAG_UNKNOWN;
    d->stream = ST_DIAG_UNKNOWN;
    d->line = ST_DIAG_UNKNOWN;
    d->detail[0] = '\0';
}

st_error st_diag_set(st_diag *d, st_error e, const char *fmt, ...)
{
    if (d && fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(d->detail, sizeof d->detail, fmt, ap);
        va_end(ap);
    }
    return e;
}
