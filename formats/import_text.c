/*
 * import_text.c - importer of the suite's own text format, the one the
 * "text" exporter writes (grammar: formats/IMPORT.md section 6).
 *
 * The format is lossless for d64, d32, m64, m32, vpc and event: every bit of every
 * field has one spelling, so text -> import -> export text is byte-identical
 * and raw -> text -> raw gives the same bytes.  A variable-sized value
 * printed in full becomes the owner entry plus vblocks in a companion
 * stream NAME.vdata.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"

#define FULLSIZE_BIT (UINT64_C(1) << 48)
#define TAG_MAX 0x7FFFu

/* One stream of the file: the only one, or part K of a merged file (6.5). */
typedef struct {
    st_entry_type type;
    char name[ST_IMP_NAME_MAX + 1]; /* without the importer prefix */
    int idx;            /* its index in out */
    int vdata;          /* index of its vblock stream in out, -1 until needed */
} text_part;

typedef struct {
    int started;        /* part 0 added (header line or first entry) */
    int entries_seen;   /* an entry line has been read */
    int multi;          /* header lines with part=: entry lines start "@K " */
    int nparts;
    text_part part[ST_TEXT_PARTS];
    text_part *cur;     /* the part of the line being read */
    uint8_t header[ST_IMP_HEADER_MAX];
    uint8_t value[ST_VALUE_MAX];
    uint8_t blocks[((ST_VALUE_MAX + ST_VBLOCK_BYTES - 1) / ST_VBLOCK_BYTES) * ST_VBLOCK_SIZE];
} text_state;

#define BAD(msg) IMP_BAD(msg)
#define TOO_LARGE(msg) IMP_TOO_LARGE(msg)
#define FATAL(e)                \
    do {                        \
        *code = (e);            \
        return ST_LINE_FATAL;   \
    } while (0)

static int is_blank(char c) { return c == ' ' || c == '\t'; }
static int token_end(char c) { return c == '\0' || is_blank(c); }

/* Add part k (its name and type set) to out. */
static st_error start(text_state *st, st_imp_out *out, int k, const uint8_t *header, size_t header_len)
{
    st->started = 1;
    st->part[k].idx = out->ns;
    st->part[k].vdata = -1;
    if (k >= st->nparts)
        st->nparts = k + 1;
    return st_imp_out_add(out, st->part[k].name, st->part[k].type, -1, header, header_len);
}

/* "# simtrace text 1 stream=NAME type=TYPE [header=HEX] [part=K]" */
static st_line_result header_line(text_state *st, st_imp_out *out, const char *s, const char **why,
                                  st_error *code)
{
    uint8_t *hdr = st->header;
    size_t hlen = 0;
    uint64_t k = 0;
    int has_part = 0;
    char name[ST_IMP_NAME_MAX + 1] = "";
    st_entry_type type = ST_TYPE_D64;
    if (st->entries_seen)
        BAD("a '# simtrace text' line after the first entry");
    s = st_skip_blank(s);
    if (s[0] != '1' || !token_end(s[1]))
        BAD("unsupported text format version (expected 1)");
    s = st_skip_blank(s + 1);
    while (*s) {
        const char *v = strchr(s, '=');
        const char *e = s;
        while (!token_end(*e))
            e++;
        if (!v || v > e)
            BAD("expected KEY=VALUE in the header line");
        size_t kl = (size_t)(v - s), vl = (size_t)(e - v - 1);
        v++;
        if (kl == 6 && memcmp(s, "stream", 6) == 0) {
            if (vl == 0 || vl > ST_IMP_NAME_MAX)
                BAD("stream name empty or too long");
            memcpy(name, v, vl);
            name[vl] = '\0';
        } else if (kl == 4 && memcmp(s, "type", 4) == 0) {
            char t[16];
            if (vl >= sizeof t)
                BAD("unknown entry type");
            memcpy(t, v, vl);
            t[vl] = '\0';
            type = st_entry_parse(t);
            if (!st_entry_is_memory(type) && type != ST_TYPE_VPC && type != ST_TYPE_EVENT)
                BAD("entry type not supported by the text format (d64, d32, m64, m32, vpc, event)");
        } else if (kl == 6 && memcmp(s, "header", 6) == 0) {
            if (vl % 2)
                BAD("header= needs an even number of hex digits");
            if (vl / 2 > ST_IMP_HEADER_MAX)
                TOO_LARGE("kept header longer than 1024 bytes");
            for (size_t i = 0; i < vl; i += 2) {
                int hi = st_hexval[(unsigned char)v[i]], lo = st_hexval[(unsigned char)v[i + 1]];
                if (hi < 0 || lo < 0)
                    BAD("header= holds a non-hex digit");
                hdr[i / 2] = (uint8_t)(hi << 4 | lo);
            }
            hlen = vl / 2;
        } else if (kl == 4 && memcmp(s, "part", 4) == 0) {
            const char *q = v;
            if (st_parse_dec(&q, &k) <= 0 || q != e)
                BAD("part= needs a decimal number");
            has_part = 1;
        } else {
            BAD("unknown key in the header line (stream, type, header, part)");
        }
        s = st_skip_blank(e);
    }
    if (st->started && (!has_part || !st->multi))
        BAD("a second '# simtrace text' line (several streams number theirs with part=)");
    if (has_part && k != (uint64_t)st->nparts)
        BAD("part= numbers must be 0, 1, 2 ... in order");
    if (k >= ST_TEXT_PARTS)
        TOO_LARGE("more than 16 streams in one text file");
    st->multi = has_part;
    text_part *p = &st->part[k];
    p->type = type;
    if (name[0])
        memcpy(p->name, name, sizeof name);
    else if (k)
        snprintf(p->name, sizeof p->name, "trace.%u", (unsigned)k);
    st_error e = start(st, out, (int)k, hdr, hlen);
    if (e == ST_OK)
        e = st_imp_out_declare(out, p->idx); /* an empty stream keeps its name and header */
    if (e != ST_OK)
        FATAL(e);
    return ST_LINE_ENTRY;
}

/* Decimal token followed by a blank; *ok = 0 if absent. */
static int dec_token(const char **sp, uint64_t *v)
{
    const char *s = *sp;
    int n = st_parse_dec(&s, v);
    if (n == 0 || (n > 0 && !token_end(*s)))
        return 0;
    *sp = st_skip_blank(s);
    return n;
}

/* "0xHEX" token; returns digits (0 = malformed, -1 = over 64 bits). */
static int hex_token(const char **sp, uint64_t *v)
{
    const char *s = *sp;
    if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        return 0;
    s += 2;
    int n = st_parse_hex(&s, v);
    if (n == 0 || (n > 0 && !token_end(*s)))
        return 0;
    *sp = st_skip_blank(s);
    return n;
}

static st_line_result vpc_line(text_state *st, st_imp_out *out, const char *s, const char **why,
                               st_error *code)
{
    uint64_t index, pc, data;
    int n;
    if ((n = dec_token(&s, &index)) == 0)
        BAD("expected 'INDEX 0xPC 0xDATA'");
    if (n < 0 || index > ST_CYCLE_MASK)
        TOO_LARGE("index beyond 48 bits");
    if ((n = hex_token(&s, &pc)) == 0)
        BAD("expected a 0x pc");
    if (n < 0 || pc > UINT32_MAX)
        TOO_LARGE("pc wider than 32 bits");
    if ((n = hex_token(&s, &data)) == 0)
        BAD("expected 0x data");
    if (n < 0)
        TOO_LARGE("data wider than 64 bits");
    if (*s)
        BAD("trailing characters after the data");
    uint8_t *p;
    st_error e = st_imp_slot(out, st->cur->idx, &p);
    if (e != ST_OK)
        FATAL(e);
    st_store32(p, (uint32_t)pc);
    st_store64(p + 4, data);
    return ST_LINE_ENTRY;
}

/* "INDEX CYCLE 0xIP KIND VECTOR 0xERROR" (IMPORT.md 6.6) */
static st_line_result event_line(text_state *st, st_imp_out *out, const char *s, const char **why,
                                 st_error *code)
{
    uint64_t index, cycle, ip, kind, vector, err;
    int n;
    if ((n = dec_token(&s, &index)) == 0)
        BAD("expected 'INDEX CYCLE 0xIP KIND VECTOR 0xERROR'");
    if (n < 0 || index > ST_CYCLE_MASK)
        TOO_LARGE("index beyond 48 bits");
    if ((n = dec_token(&s, &cycle)) == 0)
        BAD("expected a decimal cycle");
    if (n < 0 || cycle > ST_CYCLE_MASK)
        TOO_LARGE("cycle beyond 48 bits");
    if ((n = hex_token(&s, &ip)) == 0)
        BAD("expected a 0x ip");
    if (n < 0)
        TOO_LARGE("ip wider than 64 bits");
    if ((n = dec_token(&s, &kind)) == 0)
        BAD("expected a decimal event kind");
    if (n < 0 || kind > 0xFFFF)
        TOO_LARGE("event kind above 65535");
    if ((n = dec_token(&s, &vector)) == 0)
        BAD("expected a decimal vector");
    if (n < 0 || vector > UINT32_MAX)
        TOO_LARGE("vector above 2^32-1");
    if ((n = hex_token(&s, &err)) == 0)
        BAD("expected a 0x error code");
    if (n < 0 || err > UINT32_MAX)
        TOO_LARGE("error code wider than 32 bits");
    if (*s)
        BAD("trailing characters after the error code");
    uint8_t *p;
    st_error e = st_imp_slot(out, st->cur->idx, &p);
    if (e != ST_OK)
        FATAL(e);
    st_store64(p, cycle | kind << 48);
    st_store64(p + 8, ip);
    st_store32(p + 16, (uint32_t)vector);
    st_store32(p + 20, (uint32_t)err);
    return ST_LINE_ENTRY;
}

/* Turn the hex digits h[0..nd) of a wide value into size bytes LE. */
static int wide_value(text_state *st, const char *h, size_t nd, size_t size)
{
    while (nd > 2 * size && *h == '0')
        h++, nd--;
    if (nd > 2 * size)
        return 0;
    memset(st->value, 0, size);
    for (size_t j = 0; j < nd; j++) {
        unsigned dg = (unsigned)st_hexval[(unsigned char)h[nd - 1 - j]];
        st->value[j / 2] |= (uint8_t)(dg << (4 * (j % 2)));
    }
    return 1;
}

static st_line_result memory_line(text_state *st, st_imp_out *out, const char *s, const char **why,
                                  st_error *code)
{
    text_part *cp = st->cur;
    st_entry_type t = cp->type;
    int wide = st_entry_is_wide(t), has_data = st_entry_has_data(t);
    uint64_t lim = wide ? UINT64_MAX : UINT32_MAX;
    uint64_t index, cycle, ip, addr, size = 0, value = 0, tag = 0;
    int n, nf = 0, nv = 0, full = 0;
    const char *vdig = NULL;
    size_t vnd = 0;

    if ((n = dec_token(&s, &index)) == 0)
        BAD(has_data ? "expected 'INDEX CYCLE 0xIP 0xADDR SIZE 0xVALUE'" : "expected 'INDEX CYCLE 0xIP 0xADDR'");
    if (n < 0 || index > ST_CYCLE_MASK)
        TOO_LARGE("index beyond 48 bits");
    if ((n = dec_token(&s, &cycle)) == 0)
        BAD("expected a decimal cycle");
    if (n < 0 || cycle > ST_CYCLE_MASK)
        TOO_LARGE("cycle beyond 48 bits");
    if ((n = hex_token(&s, &ip)) == 0)
        BAD("expected a 0x ip");
    if (n < 0 || ip > lim)
        TOO_LARGE("ip wider than the entry type");
    if ((n = hex_token(&s, &addr)) == 0)
        BAD("expected a 0x address");
    if (n < 0 || addr > lim)
        TOO_LARGE("address wider than the entry type");
    if (has_data) {
        if ((n = dec_token(&s, &size)) == 0)
            BAD("expected a decimal size");
        if (n < 0)
            TOO_LARGE("size too large");
        if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
            BAD("expected a 0x value");
        vdig = s + 2;
        while (st_hexval[(unsigned char)vdig[vnd]] >= 0)
            vnd++;
        if (vnd == 0 || !token_end(vdig[vnd]))
            BAD("expected hex digits in the value");
        s = st_skip_blank(vdig + vnd);
    }
    while (*s) {
        if (strncmp(s, "tag=0x", 6) == 0) {
            s += 4;
            if ((n = hex_token(&s, &tag)) == 0)
                BAD("expected tag=0xHEX");
            if (n < 0 || tag > TAG_MAX)
                TOO_LARGE("tag wider than 15 bits");
        } else if (has_data && s[0] == 'n' && s[1] == 'f' && token_end(s[2])) {
            nf = 1;
            s = st_skip_blank(s + 2);
        } else if (has_data && s[0] == 'n' && s[1] == 'v' && token_end(s[2])) {
            nv = 1;
            s = st_skip_blank(s + 2);
        } else if (!has_data && strncmp(s, "full", 4) == 0 && token_end(s[4])) {
            full = 1;
            s = st_skip_blank(s + 4);
        } else {
            BAD("unknown flag (tag=0x.., nf, nv for d64/d32; full for m64/m32)");
        }
    }

    uint64_t data = 0;
    if (has_data) {
        uint64_t width = wide ? 8 : 4, size_max = wide ? UINT32_MAX : 0xFFFF;
        unsigned vbits = wide ? 32 : 16;
        if (nf && size != width)
            BAD("nf is only written when the size equals the full width");
        full = size == width && !nf;
        int vwide = !full && size > width / 2;
        if (nv && !vwide)
            BAD("nv is only written for sizes wider than the value field");
        if (!full && size > size_max)
            TOO_LARGE("size wider than the size field");
        if (vwide && !nv) {
            if (size > ST_VALUE_MAX)
                TOO_LARGE("value longer than 4096 bytes");
            if (!wide_value(st, vdig, vnd, (size_t)size))
                BAD("value wider than its size");
            uint64_t low = 0;
            for (unsigned b = 0; b < vbits / 8; b++)
                low |= (uint64_t)st->value[b] << (8 * b);
            data = size << vbits | low;
        } else {
            const char *h = vdig;
            if (st_parse_hex(&h, &value) < 0)
                TOO_LARGE("value wider than 64 bits");
            if (full ? (!wide && value > UINT32_MAX) : value >> vbits != 0)
                TOO_LARGE("value wider than its field");
            data = full ? value : size << vbits | value;
        }
        if (vwide && !nv) {
            /* the owner entry first, then its blocks (the sink's order rule) */
            uint64_t owner = st_imp_next_index(out, cp->idx);
            st_entry en = {cycle, (uint64_t)full | tag << 1, ip, addr, data};
            uint8_t *p;
            st_error e = st_imp_slot(out, cp->idx, &p);
            if (e != ST_OK)
                FATAL(e);
            st_entry_store(t, p, &en);
            if (cp->vdata < 0) {
                char vname[ST_IMP_NAME_MAX + 8];
                memcpy(vname, cp->name, strlen(cp->name));
                memcpy(vname + strlen(cp->name), ".vdata", 7);
                e = st_imp_out_add(out, vname, ST_TYPE_VBLOCK, cp->idx, NULL, 0);
                if (e != ST_OK)
                    FATAL(e);
                cp->vdata = out->ns - 1;
            }
            size_t nb = st_vblock_count((size_t)size);
            st_vblock_split(owner, st->value, (size_t)size, st->blocks);
            for (size_t b = 0; b < nb; b++) {
                if ((e = st_imp_slot(out, cp->vdata, &p)) != ST_OK)
                    FATAL(e);
                memcpy(p, st->blocks + b * ST_VBLOCK_SIZE, ST_VBLOCK_SIZE);
            }
            return ST_LINE_ENTRY;
        }
    }
    st_entry en = {cycle, (uint64_t)full | tag << 1, ip, addr, data};
    uint8_t *p;
    st_error e = st_imp_slot(out, cp->idx, &p);
    if (e != ST_OK)
        FATAL(e);
    st_entry_store(t, p, &en);
    return ST_LINE_ENTRY;
}

static st_line_result text_line(void *state, st_imp_out *out, const char *l, size_t len, const char **why,
                                st_error *code)
{
    (void)len;
    text_state *st = state;
    const char *s = st_skip_blank(l);
    if (*s == '\0')
        return ST_LINE_SKIP;
    if (*s == '#') {
        if (strncmp(s, "# simtrace text", 15) == 0 && token_end(s[15]))
            return header_line(st, out, s + 15, why, code);
        return ST_LINE_SKIP;
    }
    if (!st->started) {
        st_error e = start(st, out, 0, NULL, 0);
        if (e != ST_OK)
            FATAL(e);
    }
    st->cur = &st->part[0];
    if (st->multi) {
        /* "@K " names the stream of the line (6.5) */
        uint64_t k;
        if (*s++ != '@' || st_parse_dec(&s, &k) <= 0 || !is_blank(*s))
            BAD("expected '@PART ' before the entry (the file has part= header lines)");
        if (k >= (uint64_t)st->nparts)
            BAD("no header line declares this part");
        st->cur = &st->part[k];
        s = st_skip_blank(s);
    }
    st->entries_seen = 1;
    if (st->cur->type == ST_TYPE_VPC)
        return vpc_line(st, out, s, why, code);
    if (st->cur->type == ST_TYPE_EVENT)
        return event_line(st, out, s, why, code);
    return memory_line(st, out, s, why, code);
}

st_error st_import_text(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                        st_diag *d)
{
    /* On the heap: the value and block buffers are ~10 KiB. */
    text_state *ts = malloc(sizeof *ts);
    if (!ts)
        return ST_E_NOMEM;
    memset(ts, 0, offsetof(text_state, header));
    ts->part[0].type = ST_TYPE_D64;
    strcpy(ts->part[0].name, "trace");
    st_imp_out out;
    st_imp_out_init(&out, sink, o);
    st_error e = st_imp_run_lines(fd, "text", text_line, ts, &out, o, stats, d);
    st_imp_out_free(&out);
    free(ts);
    return e;
}
