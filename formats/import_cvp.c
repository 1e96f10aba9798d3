/*
 * import_cvp.c - CVP-1 and CBP-2025 traces in and out (IMPORT.md 17): the
 * record layout's one home (st_cvp_parse, st_cvp_unparse), the importers
 * "cvp" and "cbp2025", and the exporters' record writer.
 *
 * The two formats are told apart by name, not guessed: a CBP-2025 record
 * is a CVP-1 record with one byte more for loads and two for stores, and a
 * file of one parses, for a while, as the other.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/st_io.h"
#include "cvp.h"
#include "export_internal.h"
#include "import_internal.h"

long st_cvp_parse(const uint8_t *p, size_t avail, int cbp, uint8_t *e, const char **why)
{
    size_t k = 0;
    memset(e, 0, ST_CVP_ENTRY);
/* Take n more bytes of the record, or report it cut off in `what`. */
#define NEED(n, what)                                                                                              \
    do {                                                                                                           \
        if (avail - k < (n)) {                                                                                     \
            *why = "ends inside its " what;                                                                        \
            return 0;                                                                                              \
        }                                                                                                          \
    } while (0)
    NEED(9, "pc and type");
    memcpy(e + CVP_PC, p, 8);
    e[CVP_TYPE] = p[8];
    k = 9;
    unsigned type = e[CVP_TYPE];
    if (type > (cbp ? CVP_TYPE_MAX_CBP : CVP_TYPE_MAX_CVP1)) {
        *why = cbp ? "type above 11" : "type above 8 (a CBP-2025 trace? read it as cbp2025)";
        return -1;
    }
    if (st_cvp_is_mem(type)) {
        size_t extra = cbp ? (type == CVP_STORE ? 2u : 1u) : 0u;
        NEED(9 + extra, "effective address and size");
        memcpy(e + CVP_EA, p + k, 8);
        e[CVP_SIZE] = p[k + 8];
        if (cbp)
            e[CVP_BASE_UPDATE] = p[k + 9];
        if (extra == 2)
            e[CVP_REG_OFFSET] = p[k + 10];
        k += 9 + extra;
    }
    if (st_cvp_is_branch(type)) {
        NEED(1, "taken byte");
        e[CVP_TAKEN] = p[k++];
        if (e[CVP_TAKEN]) {
            NEED(8, "target");
            memcpy(e + CVP_TARGET, p + k, 8);
            k += 8;
        }
    }
    NEED(1, "input register count");
    unsigned nin = p[k++];
    if (nin > ST_CVP_IN_MAX) {
        *why = "more than 8 input registers";
        return -1;
    }
    NEED(nin + 1, "input registers");
    e[CVP_NIN] = (uint8_t)nin;
    memcpy(e + CVP_IN, p + k, nin);
    k += nin;
    unsigned nout = p[k++];
    if (nout > ST_CVP_OUT_MAX) {
        *why = "more than 8 output registers";
        return -1;
    }
    NEED(nout, "output registers");
    e[CVP_NOUT] = (uint8_t)nout;
    memcpy(e + CVP_OUT, p + k, nout);
    k += nout;
    unsigned words = st_cvp_words(e);
    if (words > ST_CVP_WORDS_MAX) {
        *why = "output values of more than 80 bytes";
        return -1;
    }
    NEED(8u * words, "output values");
    memcpy(e + CVP_WORDS, p + k, 8u * words);
#undef NEED
    return (long)(k + 8u * words);
}

/* 1 when the bytes n..7 of the little-endian word w are 0 (n <= 8). */
static inline int zeros_from(uint64_t w, unsigned n) { return n >= 8 || (w >> (8 * n)) == 0; }

size_t st_cvp_unparse(const uint8_t *e, int cbp, uint8_t *out, const char **why)
{
    unsigned type = e[CVP_TYPE], nin = e[CVP_NIN], nout = e[CVP_NOUT];
    int mem = st_cvp_is_mem(type), br = st_cvp_is_branch(type);
    unsigned words = st_cvp_words(e);
    *why = NULL;
    if (type > (cbp ? CVP_TYPE_MAX_CBP : CVP_TYPE_MAX_CVP1))
        *why = "its type is not one of the format's";
    else if (nin > ST_CVP_IN_MAX || nout > ST_CVP_OUT_MAX || words > ST_CVP_WORDS_MAX)
        *why = "its register counts pass the limits";
    else if (e[CVP_ZERO] || !zeros_from(st_load64(e + CVP_IN), nin) || !zeros_from(st_load64(e + CVP_OUT), nout) ||
             !st_cvp_zeros(e + CVP_WORDS + 8u * words, 8u * (ST_CVP_WORDS_MAX - words)))
        *why = "bytes past its registers or values are not 0";
    else if ((!mem && (!st_cvp_zeros(e + CVP_EA, 8) || e[CVP_SIZE] || e[CVP_BASE_UPDATE])) ||
             ((!mem || !cbp) && e[CVP_BASE_UPDATE]) || ((type != CVP_STORE || !cbp) && e[CVP_REG_OFFSET]))
        *why = "it has memory fields its type does not have";
    else if ((!br && e[CVP_TAKEN]) || (!e[CVP_TAKEN] && !st_cvp_zeros(e + CVP_TARGET, 8)))
        *why = "it has branch fields its type does not have";
    if (*why)
        return 0;
    size_t k = 9;
    memcpy(out, e + CVP_PC, 8);
    out[8] = (uint8_t)type;
    if (mem) {
        memcpy(out + k, e + CVP_EA, 8);
        out[k + 8] = e[CVP_SIZE];
        k += 9;
        if (cbp)
            out[k++] = e[CVP_BASE_UPDATE];
        if (cbp && type == CVP_STORE)
            out[k++] = e[CVP_REG_OFFSET];
    }
    if (br) {
        out[k++] = e[CVP_TAKEN];
        if (e[CVP_TAKEN]) {
            memcpy(out + k, e + CVP_TARGET, 8);
            k += 8;
        }
    }
    /* the registers and the words as whole arrays: the bytes past them are
     * the next fields' or scratch (out has ST_CVP_RECORD_MAX bytes), and
     * copies of a constant size take no call */
    out[k++] = (uint8_t)nin;
    memcpy(out + k, e + CVP_IN, ST_CVP_IN_MAX);
    k += nin;
    out[k++] = (uint8_t)nout;
    memcpy(out + k, e + CVP_OUT, ST_CVP_OUT_MAX);
    k += nout;
    memcpy(out + k, e + CVP_WORDS, 8u * ST_CVP_WORDS_MAX);
    return k + 8u * words;
}

/* ---- importers ---------------------------------------------------------------- */

#define CVP_BUF (1u << 20) /* read buffer: many records, at least one whole */

static st_error run(int fd, int cbp, const st_import_opts *o, const st_import_sink *sink, st_import_stats *st,
                    st_diag *d)
{
    const char *fmt = cbp ? "cbp2025" : "cvp";
    st_imp_out out;
    st_imp_out_init(&out, sink, o);
    st_error e = st_imp_out_add(&out, "trace", ST_TYPE_CVP, -1, (const uint8_t *)fmt, strlen(fmt));
    if (e == ST_OK)
        e = st_imp_out_declare(&out, 0); /* an empty trace still has its stream */
    uint8_t *buf = e == ST_OK ? malloc(CVP_BUF) : NULL;
    if (e == ST_OK && !buf)
        e = ST_E_NOMEM;
    size_t have = 0, pos = 0;
    uint64_t records = 0, base = 0; /* base: input offset of buf[0] */
    int eof = 0;
    while (e == ST_OK) {
        if (!eof && have - pos < ST_CVP_RECORD_MAX) {
            memmove(buf, buf + pos, have - pos);
            base += pos;
            have -= pos;
            pos = 0;
            size_t got;
            e = st_read_full(fd, buf + have, CVP_BUF - have, &got);
            if (e != ST_OK)
                break;
            have += got;
            st->bytes += got;
            eof = have < CVP_BUF;
        }
        if (pos == have)
            break;
        uint8_t ent[ST_CVP_ENTRY], *slot;
        const char *why = NULL;
        long len = st_cvp_parse(buf + pos, have - pos, cbp, ent, &why);
        if (len <= 0) {
            if (d)
                d->offset = base + pos;
            e = st_diag_set(d, len == 0 ? ST_E_PARTIAL_ENTRY : ST_E_SYNTAX, "%s record %" PRIu64 ": %s", fmt,
                            records, why);
            break;
        }
        e = st_imp_slot(&out, 0, &slot);
        if (e != ST_OK)
            break;
        memcpy(slot, ent, ST_CVP_ENTRY);
        pos += (size_t)len;
        records++;
    }
    free(buf);
    /* the records before a bad one are kept */
    st_error f = st_imp_out_flush(&out);
    st->entries = out.entries;
    st_imp_out_free(&out);
    return e != ST_OK ? e : f;
}

st_error st_import_cvp(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                       st_diag *d)
{
    return run(fd, 0, o, sink, stats, d);
}

st_error st_import_cbp2025(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                           st_diag *d)
{
    return run(fd, 1, o, sink, stats, d);
}

/* ---- exporters ---------------------------------------------------------------- */

/* An entry that gives no record of the format (st_cvp_unparse's rules) is
 * corrupt: exporting it as some other record would not be lossless. */
st_error st_x_cvp_write(st_exporter *x, uint64_t first, const uint8_t *entries, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *p;
        RETURN_IF_ERROR(st_x_room(x, ST_CVP_RECORD_MAX, &p));
        const char *why, *other;
        int cbp = x->kind == X_CBP2025;
        size_t len = st_cvp_unparse(entries + i * ST_CVP_ENTRY, cbp, (uint8_t *)p, &why);
        if (!len) {
            /* the other format's record, when it has one, is the remedy */
            uint8_t rec[ST_CVP_RECORD_MAX];
            int fits = !cbp && st_cvp_unparse(entries + i * ST_CVP_ENTRY, 1, rec, &other);
            snprintf(x->why, sizeof x->why, "entry %llu of stream '%.40s': no %s record gives it: %s%s",
                     (unsigned long long)(first + i), x->name, cbp ? "CBP-2025" : "CVP-1", why,
                     fits ? " (a CBP-2025 record: -F cbp2025 writes it)" : "");
            return ST_E_CORRUPT;
        }
        x->len += len;
    }
    return ST_OK;
}

/*
 * The value a load record gives its destination registers (IMPORT.md 17.3):
 * the outputs but the first when the base-update byte is set (that one is
 * the base register written back), each giving its low size/n bytes, in
 * output order.  0 when the size does not split so (no value kept).
 */
static size_t load_value(const uint8_t *e, uint8_t *v)
{
    unsigned nout = e[CVP_NOUT], size = e[CVP_SIZE], skip = e[CVP_BASE_UPDATE] && nout ? 1u : 0u;
    unsigned ndest = nout - skip, word = 0;
    for (unsigned i = 0; i < skip; i++)
        word += st_cvp_reg_words(e[CVP_OUT + i]);
    if (!ndest || size % ndest)
        return 0;
    unsigned each = size / ndest;
    for (unsigned i = skip; i < nout; i++) {
        unsigned w = st_cvp_reg_words(e[CVP_OUT + i]);
        if (each > 8u * w)
            return 0;
        memcpy(v + (i - skip) * each, e + CVP_WORDS + 8u * word, each);
        word += w;
    }
    return size;
}

static st_error loads_value(void *arg, uint64_t index, const uint8_t **value, size_t *len)
{
    st_exporter *x = arg;
    (void)index; /* always the entry being written */
    *value = x->load_value;
    *len = x->load_len;
    return ST_OK;
}

/* The loads' exporter writes through this one's callback. */
static st_error loads_out(void *arg, const void *buf, size_t n)
{
    st_exporter *x = arg;
    return x->write(x->warg, buf, n);
}

st_error st_x_cvp_loads_start(st_exporter *x)
{
    st_export_stream s = {"loads", ST_TYPE_D64, 32, NULL, 0};
    return st_exporter_new(&x->inner, "text", &s, loads_out, x, loads_value, x);
}

st_error st_x_cvp_loads_write(st_exporter *x, uint64_t first, const uint8_t *entries, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const uint8_t *e = entries + i * ST_CVP_ENTRY;
        if (e[CVP_TYPE] != CVP_LOAD)
            continue;
        /* cycle: the record's index; a value up to 4 bytes in the data
         * field, 8 as a full-size entry, others through the value */
        uint64_t size = e[CVP_SIZE];
        x->load_len = load_value(e, x->load_value);
        uint64_t v = 0;
        memcpy(&v, x->load_value, x->load_len < 8 ? x->load_len : 8);
        st_entry d = {(first + i) & ST_CYCLE_MASK, 0, st_load64(e + CVP_PC), st_load64(e + CVP_EA), 0};
        if (size == 8 && x->load_len == 8) {
            d.meta16 = 1;
            d.data = v;
        } else {
            d.data = size << 32 | (v & (size >= 4 ? 0xFFFFFFFFu : ((UINT64_C(1) << (8 * size)) - 1)));
        }
        uint8_t raw[32];
        st_entry_store(ST_TYPE_D64, raw, &d);
        RETURN_IF_ERROR(st_exporter_write(x->inner, x->loads++, raw, 1));
    }
    return ST_OK;
}
