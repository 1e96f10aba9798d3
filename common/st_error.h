/*
 * st_error.h - the one list of error codes of the svpc suite.
 *
 * Every layer (vpc, svpc, frames, formats, cli) returns an st_error.  The
 * enum and its messages are generated from ST_ERROR_LIST below, so adding an
 * error is one line here (and its public value in include/simtrace.h).
 *
 * Contract:
 *   - ST_OK is 0; every other value is a failure.
 *   - st_error_name() never returns NULL; unknown values give "unknown error".
 *   - st_error_is_data() is true for errors caused by the input's content
 *     (corrupt, truncated or unsupported data).  The CLI maps those and I/O
 *     errors to exit status 1, and usage errors to exit status 2.
 *
 * Errors travel up one way: a function that fails returns its st_error, and
 * callers pass it on with RETURN_IF_ERROR.  Where the failing layer knows more
 * (a byte offset, a frame number) it writes that into an st_diag the caller
 * supplied, so only main() formats and prints, and only main() exits.
 */
#ifndef ST_ERROR_H
#define ST_ERROR_H

#include <stdint.h>

/*
 * X(name, class, message) -- the enum value is ST_<name>; class: 0 =
 * internal/usage, 1 = bad data, 2 = I/O, 3 = resource.  The values are
 * libsvpc's public ones (SIMTRACE_<name> in include/simtrace.h, fixed
 * forever): api/api_common.c asserts each equal at build time, so an error
 * is added at the end, here and in the public enum.  The last three are
 * returned by the public API alone.
 */
#define ST_ERROR_LIST(X)                                                              \
    X(OK,                    0, "no error")                                           \
    X(E_NOMEM,               3, "out of memory")                                      \
    X(E_MEMLIMIT,            3, "memory limit would be exceeded")                     \
    X(E_USAGE,               0, "invalid argument")                                   \
    X(E_READ,                2, "read error")                                         \
    X(E_WRITE,               2, "write error")                                        \
    X(E_SEEK,                2, "seek error")                                         \
    X(E_BAD_MAGIC,           1, "not a simtrace container (bad magic)")               \
    X(E_VERSION,             1, "unsupported container version")                     \
    X(E_TRUNCATED,           1, "unexpected end of input (truncated)")                \
    X(E_HEADER_CRC,          1, "header checksum mismatch")                           \
    X(E_PAYLOAD_CRC,         1, "payload checksum mismatch")                          \
    X(E_ENTRY_CRC,           1, "decoded entries' checksum mismatch")                 \
    X(E_CORRUPT,             1, "corrupt data")                                       \
    X(E_BAD_FRAME,           1, "invalid frame header")                               \
    X(E_BAD_ATTR,            1, "invalid attribute")                                  \
    X(E_BAD_DIRECTORY,       1, "invalid directory")                                  \
    X(E_BAD_FOOTER,          1, "invalid footer")                                     \
    X(E_BAD_STREAM,          1, "invalid or unknown stream")                          \
    X(E_UNSUPPORTED,         1, "unsupported feature (encoder, type or flag)")        \
    X(E_TOO_LARGE,           1, "size exceeds the format's limits")                   \
    X(E_PARTIAL_ENTRY,       1, "input ends with a partial entry")                    \
    X(E_SECOND_STAGE,        1, "second-stage (lzma/bzip2/zlib) stream is corrupt")   \
    X(E_RANGE,               0, "range out of bounds")                                \
    X(E_SYNTAX,              1, "malformed input line")                               \
    X(E_NOT_FORMAT,          1, "input is not in the named format")                   \
    X(E_CYCLE_ORDER,         1, "cycles decrease within a stream")                    \
    X(E_THREAD,              3, "cannot start thread")                                \
    X(E_INTERNAL,            0, "internal error")                                     \
    X(E_STATE,               0, "call out of order (the trace is closed or failed, "  \
                                "or the reader is sequential)")                       \
    X(E_NOT_FOUND,           0, "no stream of that name")                             \
    X(E_BUFFER,              0, "buffer too small")

#define ST_ERROR_ENUM_ITEM(name, cls, msg) ST_##name,
typedef enum { ST_ERROR_LIST(ST_ERROR_ENUM_ITEM) ST_ERROR_COUNT } st_error;
#undef ST_ERROR_ENUM_ITEM

/* Human-readable message of an error code.  Never NULL. */
const char *st_error_name(st_error e);

/* 1 when the error describes bad input data (not I/O, not usage). */
int st_error_is_data(st_error e);

/* Propagate a failure to the caller unchanged. */
#define RETURN_IF_ERROR(expr)                  \
    do {                                       \
        st_error st_err_tmp_ = (expr);         \
        if (st_err_tmp_ != ST_OK)              \
            return st_err_tmp_;                \
    } while (0)

/*
 * Where a failure happened.  A layer that detects bad data fills in what it
 * knows; fields it does not know stay at ST_DIAG_UNKNOWN.  detail is a short
 * static or diag-owned string ("entry count 0", "offset past end of file").
 */
#define ST_DIAG_UNKNOWN UINT64_MAX
typedef struct {
    uint64_t offset;   /* byte offset in the input file                        */
    uint64_t frame;    /* with stream: the frame's seq in that stream, as
                          simtrace-cat --list --frames numbers it; without:
                          its ordinal in the file (0-based)                    */
    uint64_t stream;   /* stream id of a data frame                            */
    uint64_t line;     /* 1-based line number in a text input (importers)       */
    char detail[160];  /* what exactly is wrong                                 */
} st_diag;

/* Reset every field to "unknown". */
void st_diag_clear(st_diag *d);

/* Record a failure: sets detail with printf-style formatting and returns e, so
 * callers can write `return st_diag_set(d, ST_E_CORRUPT, "...", ...)`.
 * d may be NULL. */
st_error st_diag_set(st_diag *d, st_error e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif /* ST_ERROR_H */
