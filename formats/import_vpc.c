/*
 * import_vpc.c - importers of the legacy binary traces of Burtscher's VPC
 * compressors (formats/IMPORT.md section 7).
 *
 *   vpc   u32 range header, then (u32 PC, u64 extended data) pairs, LE
 *         ("Compressing Extended Program Traces Using Value Predictors",
 *         section 2.1: the header approximates the range of the PCs)
 *   vpc3  the 4 ASCII bytes "vpc3", then the same pairs: the VPC3
 *         distribution's own description of its input is "a 4-byte header
 *         (which has to spell vpc3) followed by ... a 4-byte PC field and an
 *         8-byte extended data field", so no range word follows the magic
 *
 * A pair is exactly an ST_TYPE_VPC entry, so records go to the sink straight
 * from the read buffer.  The 4 header bytes are kept as the stream header,
 * which lets the exporters restore the file byte for byte.
 */
#include <string.h>

#include "../common/st_io.h"
#include "import_internal.h"

#define VPC_REC 12u

typedef struct {
    const st_import_sink *sink;
    uint32_t sid;
    st_import_stats *st;
} vpc_append;

/* Pairs are entries as they are: to the sink from the read buffer. */
static st_error vpc_block(void *arg, const uint8_t *recs, size_t n)
{
    vpc_append *va = arg;
    RETURN_IF_ERROR(va->sink->append(va->sink->arg, va->sid, recs, n));
    va->st->entries += n;
    return ST_OK;
}

static st_error run(int fd, int v3, const st_import_opts *o, const st_import_sink *sink, st_import_stats *st,
                    st_diag *d)
{
    uint8_t hdr[4];
    size_t got = 0;
    st_error e = st_read_full(fd, hdr, 4, &got);
    st->bytes = got;
    if (e != ST_OK)
        return e;
    if (got < 4)
        return st_diag_set(d, ST_E_NOT_FORMAT, "%zu bytes: shorter than the 4-byte %s header", got,
                           v3 ? "vpc3" : "vpc");
    int magic = memcmp(hdr, "vpc3", 4) == 0;
    if (v3 && !magic) {
        if (d)
            d->offset = 0;
        return st_diag_set(d, ST_E_NOT_FORMAT, "no \"vpc3\" magic at offset 0");
    }
    if (!v3 && magic) {
        if (d)
            d->offset = 0;
        return st_diag_set(d, ST_E_NOT_FORMAT, "starts with \"vpc3\": a vpc3 trace (use format vpc3)");
    }

    const char *prefix = o && o->prefix ? o->prefix : "";
    size_t lp = strlen(prefix);
    char name[ST_IMP_NAME_MAX + 1];
    if (lp + 5 > ST_IMP_NAME_MAX)
        return st_diag_set(d, ST_E_TOO_LARGE, "stream name prefix too long");
    memcpy(name, prefix, lp);
    memcpy(name + lp, "trace", 6);
    /* Declared before any record: a header-only file still round-trips. */
    st_stream_decl decl = {name, ST_TYPE_VPC, UINT32_MAX, hdr, 4};
    uint32_t sid;
    RETURN_IF_ERROR(sink->add_stream(sink->arg, &decl, &sid));

    vpc_append va = {sink, sid, st};
    size_t have = 0; /* bytes of an incomplete record at the end */
    e = st_imp_read_records(fd, VPC_REC, vpc_block, &va, &st->bytes, &have);
    if (e == ST_OK && have) {
        if (d)
            d->offset = st->bytes - have;
        e = st_diag_set(d, ST_E_PARTIAL_ENTRY, "%zu trailing bytes after the last whole 12-byte record", have);
    }
    return e;
}

st_error st_import_vpc(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                       st_diag *d)
{
    st_import_stats tmp;
    st_import_stats *st = stats ? stats : &tmp;
    memset(st, 0, sizeof *st);
    return run(fd, 0, o, sink, st, d);
}

st_error st_import_vpc3(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                        st_diag *d)
{
    st_import_stats tmp;
    st_import_stats *st = stats ? stats : &tmp;
    memset(st, 0, sizeof *st);
    return run(fd, 1, o, sink, st, d);
}
