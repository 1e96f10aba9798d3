/*
 * import_champsim.c - importers of ChampSim's traces (formats/IMPORT.md
 * section 14): fixed-size little-endian records, no header.
 *
 *   champsim                  64-byte input_instr records
 *   champsim-cloudsuite       96-byte cloudsuite_instr records
 *   champsim-mem,             the same, and besides the records their
 *   champsim-cloudsuite-mem   memory operands as d64 entries in streams
 *                             "read" and "write", which every reader of
 *                             memory entries understands (-F text, din,
 *                             --stats, Python)
 *
 * A record is exactly an entry of type champsim (or champsim-cloudsuite),
 * padding included, so the records round-trip byte for byte.  Compressed
 * files (.xz, .gz as ChampSim's traces ship) are decompressed before they
 * get here (common/st_decomp.h).
 */
#include <stdlib.h>
#include <string.h>

#include "../common/st_io.h"
#include "import_internal.h"

/* Whole records of both sizes per read: 786432 = 12288 * 64 = 8192 * 96. */
#define CS_BUF (UINT32_C(3) << 18)
_Static_assert(CS_BUF % 64 == 0 && CS_BUF % 96 == 0, "a read holds whole records");

enum { S_TRACE, S_READ, S_WRITE };

/* The d64 entry of memory operand `addr` of record `ordinal` (1-based, the
 * cycle of IMPORT.md 1.4) at ip: size unknown, so fullSize 0 and data 0. */
static st_error put_operand(st_imp_out *out, int stream, uint64_t ordinal, uint64_t ip, uint64_t addr)
{
    uint8_t *slot;
    RETURN_IF_ERROR(st_imp_slot(out, stream, &slot));
    st_entry e = {.cycle = ordinal, .meta16 = 0, .ip = ip, .addr = addr, .data = 0};
    st_entry_store(ST_TYPE_D64, slot, &e);
    return ST_OK;
}

/* One record to the streams: the record itself, then (mem) its nonzero
 * source operands as reads and destination operands as writes, in slot
 * order. */
static st_error put_record(st_imp_out *out, st_entry_type t, int mem, uint64_t ordinal, const uint8_t *rec)
{
    if (mem && ordinal > ST_CYCLE_MASK)
        return ST_E_TOO_LARGE;
    uint8_t *slot;
    RETURN_IF_ERROR(st_imp_slot(out, S_TRACE, &slot));
    memcpy(slot, rec, st_entry_size(t));
    if (!mem)
        return ST_OK;
    const uint64_t ip = st_load64(rec);
    const unsigned nd = ST_CS_NDST(t), nm = ST_CS_NMEM(t);
    const uint8_t *ops = rec + ST_CS_MEM_OFF(t);
    for (unsigned k = nd; k < nm; k++)
        if (st_load64(ops + 8 * k))
            RETURN_IF_ERROR(put_operand(out, S_READ, ordinal, ip, st_load64(ops + 8 * k)));
    for (unsigned k = 0; k < nd; k++)
        if (st_load64(ops + 8 * k))
            RETURN_IF_ERROR(put_operand(out, S_WRITE, ordinal, ip, st_load64(ops + 8 * k)));
    return ST_OK;
}

static st_error run(int fd, st_entry_type t, int mem, const st_import_opts *o, const st_import_sink *sink,
                    st_import_stats *st, st_diag *d)
{
    const size_t esz = st_entry_size(t);
    st_imp_out out;
    st_imp_out_init(&out, sink, o);
    uint8_t *buf = malloc(CS_BUF);
    st_error e = buf ? ST_OK : ST_E_NOMEM;
    if (e == ST_OK)
        e = st_imp_out_add(&out, "trace", t, -1, NULL, 0);
    if (e == ST_OK && mem && (e = st_imp_out_add(&out, "read", ST_TYPE_D64, -1, NULL, 0)) == ST_OK)
        e = st_imp_out_add(&out, "write", ST_TYPE_D64, -1, NULL, 0);
    /* declared before any record: an empty trace is a stream of none */
    if (e == ST_OK)
        e = st_imp_out_declare(&out, S_TRACE);
    size_t have = 0;      /* bytes of a record not yet whole, at buf's start */
    uint64_t records = 0; /* whole records read */
    while (e == ST_OK) {
        size_t got;
        const size_t want = CS_BUF - have;
        if ((e = st_read_full(fd, buf + have, want, &got)) != ST_OK)
            break;
        st->bytes += got;
        have += got;
        const size_t n = have / esz;
        for (size_t i = 0; i < n && e == ST_OK; i++)
            if ((e = put_record(&out, t, mem, records + 1, buf + i * esz)) == ST_OK)
                records++;
        memmove(buf, buf + n * esz, have - n * esz);
        have -= n * esz;
        if (got < want)
            break; /* end of input */
    }
    /* what is whole goes to the sink even when the input ends badly */
    st_error fe = st_imp_out_flush(&out);
    if (e == ST_OK)
        e = fe;
    st->entries = out.entries;
    if (e == ST_OK && have) {
        if (d)
            d->offset = st->bytes - have;
        e = st_diag_set(d, ST_E_PARTIAL_ENTRY, "record %llu is cut off: %zu of its %zu bytes",
                        (unsigned long long)records + 1, have, esz);
    } else if (e == ST_E_TOO_LARGE) {
        e = st_diag_set(d, e, "record %llu: more than 2^48 - 1 records for the read and write streams' cycles",
                        (unsigned long long)records + 1);
    }
    st_imp_out_free(&out);
    free(buf);
    return e;
}

#define CS_IMPORTER(fn, type, mem)                                                                          \
    st_error fn(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,      \
                st_diag *d)                                                                               \
    {                                                                                                     \
        st_import_stats tmp;                                                                              \
        st_import_stats *st = stats ? stats : &tmp;                                                       \
        memset(st, 0, sizeof *st);                                                                        \
        return run(fd, type, mem, o, sink, st, d);                                                        \
    }

CS_IMPORTER(st_import_champsim, ST_TYPE_CHAMPSIM, 0)
CS_IMPORTER(st_import_champsim_cs, ST_TYPE_CHAMPSIM_CS, 0)
CS_IMPORTER(st_import_champsim_mem, ST_TYPE_CHAMPSIM, 1)
CS_IMPORTER(st_import_champsim_cs_mem, ST_TYPE_CHAMPSIM_CS, 1)
