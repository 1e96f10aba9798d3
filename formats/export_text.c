/*
 * export_text.c - the text exporter: one line per entry, every bit kept
 * (grammar and the reasons for each token: formats/IMPORT.md section 6).
 * import_text.c reads it back; the two must change together.
 */
#include <string.h>

#include "export_internal.h"

/* A name goes into the header line only if it is one plain token; others
 * are left out and the importer's default name applies (IMPORT.md 6.1). */
static int plain_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 256)
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
            return 0;
    return 1;
}

st_error st_x_text_start(st_exporter *x)
{
    char *p;
    RETURN_IF_ERROR(st_x_room(x, 64 + 256 + 2 * x->header_len, &p));
    size_t m = 0;
    const char *intro = "# simtrace text 1";
    memcpy(p, intro, strlen(intro));
    m += strlen(intro);
    if (plain_name(x->name)) {
        memcpy(p + m, " stream=", 8);
        m += 8;
        memcpy(p + m, x->name, strlen(x->name));
        m += strlen(x->name);
    }
    memcpy(p + m, " type=", 6);
    m += 6;
    const char *tn = st_entry_name(x->type);
    memcpy(p + m, tn, strlen(tn));
    m += strlen(tn);
    if (x->header_len) {
        static const char dig[] = "0123456789abcdef";
        memcpy(p + m, " header=", 8);
        m += 8;
        for (size_t i = 0; i < x->header_len; i++) {
            p[m++] = dig[x->header[i] >> 4];
            p[m++] = dig[x->header[i] & 15];
        }
    }
    if (x->part >= 0) {
        memcpy(p + m, " part=", 6);
        m += 6 + st_x_dec(p + m + 6, (uint64_t)x->part);
    }
    p[m++] = '\n';
    x->len += m;
    return ST_OK;
}

static size_t put_str(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return n;
}

/* "@K " before each line of a stream in a merged file (IMPORT.md 6.5). */
static size_t part_prefix(const st_exporter *x, char *p)
{
    if (x->part < 0)
        return 0;
    p[0] = '@';
    size_t m = 1 + st_x_dec(p + 1, (uint64_t)x->part);
    p[m++] = ' ';
    return m;
}

/* The whole value of a wide entry from the callback; *len 0 = none. */
static st_error wide_value(st_exporter *x, uint64_t index, uint64_t size, const uint8_t **v, size_t *len)
{
    *v = NULL;
    *len = 0;
    if (!x->value || size > ST_VALUE_MAX)
        return ST_OK;
    RETURN_IF_ERROR(x->value(x->varg, index, v, len));
    if (*len != 0 && *len != size)
        return ST_E_CORRUPT; /* the blocks disagree with the entry's size */
    return ST_OK;
}

st_error st_x_text_write(st_exporter *x, uint64_t first, const uint8_t *entries, size_t n)
{
    st_entry_type t = x->type;
    int has_data = st_entry_has_data(t), wide = st_entry_is_wide(t);
    for (size_t i = 0; i < n; i++) {
        const uint8_t *ep = entries + i * x->esize;
        uint64_t index = first + i;
        char *p;
        size_t m = 0;
        if (t == ST_TYPE_VPC) {
            RETURN_IF_ERROR(st_x_room(x, 96, &p));
            m += part_prefix(x, p);
            m += st_x_dec(p + m, index);
            m += put_str(p + m, " 0x");
            m += st_x_hex(p + m, st_load32(ep), 1);
            m += put_str(p + m, " 0x");
            m += st_x_hex(p + m, st_load64(ep + 4), 1);
            p[m++] = '\n';
            x->len += m;
            continue;
        }
        if (t == ST_TYPE_EVENT) {
            /* INDEX CYCLE 0xIP KIND VECTOR 0xERROR (IMPORT.md 6.6) */
            uint64_t meta = st_load64(ep);
            RETURN_IF_ERROR(st_x_room(x, 128, &p));
            m += part_prefix(x, p);
            m += st_x_dec(p + m, index);
            p[m++] = ' ';
            m += st_x_dec(p + m, meta & ST_CYCLE_MASK);
            m += put_str(p + m, " 0x");
            m += st_x_hex(p + m, st_load64(ep + 8), 1);
            p[m++] = ' ';
            m += st_x_dec(p + m, meta >> 48);
            p[m++] = ' ';
            m += st_x_dec(p + m, st_load32(ep + 16));
            m += put_str(p + m, " 0x");
            m += st_x_hex(p + m, st_load32(ep + 20), 1);
            p[m++] = '\n';
            x->len += m;
            continue;
        }
        st_entry e;
        st_entry_load(t, ep, &e);
        int full = (int)(e.meta16 & 1);
        uint64_t tag = e.meta16 >> 1;
        const uint8_t *wv = NULL;
        size_t wlen = 0;
        int vwide = has_data && st_entry_is_vwide(t, e.meta16, e.data);
        uint64_t size = 0, value = 0, width = wide ? 8 : 4;
        unsigned vbits = wide ? 32 : 16;
        if (has_data) {
            size = full ? width : e.data >> vbits;
            if (!wide && !full)
                size &= 0xFFFF;
            value = full ? e.data : e.data & ((UINT64_C(1) << vbits) - 1);
            if (vwide)
                RETURN_IF_ERROR(wide_value(x, index, size, &wv, &wlen));
        }
        RETURN_IF_ERROR(st_x_room(x, 232 + 2 * wlen, &p));
        m += part_prefix(x, p);
        m += st_x_dec(p + m, index);
        p[m++] = ' ';
        m += st_x_dec(p + m, e.cycle);
        m += put_str(p + m, " 0x");
        m += st_x_hex(p + m, e.ip, 1);
        m += put_str(p + m, " 0x");
        m += st_x_hex(p + m, e.addr, 1);
        if (has_data) {
            p[m++] = ' ';
            m += st_x_dec(p + m, size);
            m += put_str(p + m, " 0x");
            if (wlen) {
                /* every byte, most significant first, so the width shows */
                static const char dig[] = "0123456789abcdef";
                for (size_t b = wlen; b-- > 0;) {
                    p[m++] = dig[wv[b] >> 4];
                    p[m++] = dig[wv[b] & 15];
                }
            } else {
                m += st_x_hex(p + m, value, 1);
            }
        }
        if (tag) {
            m += put_str(p + m, " tag=0x");
            m += st_x_hex(p + m, tag, 1);
        }
        if (has_data && !full && size == width)
            m += put_str(p + m, " nf");
        if (vwide && !wlen)
            m += put_str(p + m, " nv");
        if (!has_data && full)
            m += put_str(p + m, " full");
        p[m++] = '\n';
        x->len += m;
    }
    return ST_OK;
}

/* ---- csv (IMPORT.md 8.5): decimal numbers for awk and spreadsheets ---- */

st_error st_x_csv_start(st_exporter *x)
{
    static const char mem[] = "stream,index,cycle,ip,address,size,value,tag,fullsize\n";
    static const char ev[] = "stream,index,cycle,kind,ip,vector,error_code\n";
    const char *head = x->type == ST_TYPE_EVENT ? ev : mem;
    size_t n = strlen(head);
    char *p;
    RETURN_IF_ERROR(st_x_room(x, n, &p));
    memcpy(p, head, n);
    x->len += n;
    return ST_OK;
}

/* The stream name as one CSV field (RFC 4180: quoted, quotes doubled, when
 * it holds a comma, a quote or a line break). */
static size_t csv_name(char *p, const char *s)
{
    if (!strpbrk(s, ",\"\r\n"))
        return put_str(p, s);
    size_t m = 0;
    p[m++] = '"';
    for (; *s; s++) {
        if (*s == '"')
            p[m++] = '"';
        p[m++] = *s;
    }
    p[m++] = '"';
    return m;
}

st_error st_x_csv_write(st_exporter *x, uint64_t first, const uint8_t *entries, size_t n)
{
    st_entry_type t = x->type;
    int has_data = st_entry_has_data(t), wide = st_entry_is_wide(t);
    unsigned vbits = wide ? 32 : 16;
    for (size_t i = 0; i < n; i++) {
        char *p;
        if (t == ST_TYPE_EVENT) {
            const uint8_t *ep = entries + i * x->esize;
            uint64_t meta = st_load64(ep);
            RETURN_IF_ERROR(st_x_room(x, 2 * strlen(x->name) + 3 + 6 * 21 + 1, &p));
            size_t m = csv_name(p, x->name);
            const uint64_t f[6] = {first + i, meta & ST_CYCLE_MASK, meta >> 48, st_load64(ep + 8), st_load32(ep + 16),
                                   st_load32(ep + 20)};
            for (int k = 0; k < 6; k++) {
                p[m++] = ',';
                m += st_x_dec(p + m, f[k]);
            }
            p[m++] = '\n';
            x->len += m;
            continue;
        }
        st_entry e;
        st_entry_load(t, entries + i * x->esize, &e);
        int full = (int)(e.meta16 & 1);
        uint64_t size = full ? (wide ? 8 : 4) : 0, value = 0;
        if (has_data && !full) {
            size = (e.data >> vbits) & (wide ? UINT32_MAX : 0xFFFF);
            value = e.data & ((UINT64_C(1) << vbits) - 1);
        } else if (has_data) {
            value = e.data;
        }
        /* the name, each byte maybe doubled, in quotes, and eight numbers */
        RETURN_IF_ERROR(st_x_room(x, 2 * strlen(x->name) + 3 + 8 * 21 + 1, &p));
        size_t m = csv_name(p, x->name);
        const uint64_t f[8] = {first + i, e.cycle, e.ip, e.addr, size, value, e.meta16 >> 1, (uint64_t)full};
        for (int k = 0; k < 8; k++) {
            p[m++] = ',';
            m += st_x_dec(p + m, f[k]);
        }
        p[m++] = '\n';
        x->len += m;
    }
    return ST_OK;
}
