/*
 * gem5.c - gem5 packet traces (the files gem5's CommMonitor writes and its
 * TrafficGen replays), both ways (formats/IMPORT.md section 15).
 *
 * A trace is the 4 bytes "gem5", then protobuf messages, each preceded by
 * its length as a varint: one PacketHeader {1 obj_id string, 2 ver,
 * 3 tick_freq, 4 id_strings}, then Packets {1 tick, 2 cmd, 3 addr, 4 size,
 * 5 flags, 6 pkt_id, 7 pc}.  The import is one d64 stream, "gem5", whose
 * header keeps the magic and the PacketHeader as they were, so the export
 * writes them back; an entry's tag is cmd + 1 (0: no command recorded).
 * Packets are in the file's order, which one stream keeps.
 */
#include <stdlib.h>
#include <string.h>

#include "../common/st_io.h"
#include "export_internal.h"
#include "import_internal.h"

#define GEM5_MAGIC "gem5"
#define GEM5_STREAM "gem5"
#define GEM5_PACKET_MAX 256u /* longest Packet message read: 7 fields take 68 */
#define GEM5_VARINT_MAX 10u
#define GEM5_CMD_MAX 0x7FFEu /* cmd + 1 fills the 15-bit tag */
#define GEM5_READ_REQ 1u     /* gem5's MemCmd::ReadReq, as the corpus's "r" packet has */
#define GEM5_WRITE_REQ 4u    /* MemCmd::WriteReq, the corpus's "w" packet */
#define GEM5_TICK_FREQ UINT64_C(1000000000000) /* ticks per second: gem5's default, 1 ps */
#define GEM5_OBJ_ID "simtrace"
#define FULLSIZE_BIT (UINT64_C(1) << 48)

enum { F_TICK = 1, F_CMD = 2, F_ADDR = 3, F_SIZE = 4, F_FLAGS = 5, F_PKT_ID = 6, F_PC = 7, F_N = 8 };

/* ---- protobuf wire format ---------------------------------------------------- */

/* Decode a varint at *p (before end): 1 read, 0 cut off by end, -1 longer
 * than 10 bytes or beyond 64 bits. */
static int pb_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    const uint8_t *s = *p;
    uint64_t x = 0;
    for (unsigned i = 0; i < GEM5_VARINT_MAX; i++) {
        if (s == end)
            return 0;
        uint8_t b = *s++;
        if (i == GEM5_VARINT_MAX - 1 && b > 1)
            return -1;
        x |= (uint64_t)(b & 0x7F) << (7 * i);
        if (!(b & 0x80)) {
            *p = s;
            *v = x;
            return 1;
        }
    }
    return -1;
}

static size_t pb_put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* A varint field: its key, then its value. */
static size_t pb_put_field(uint8_t *p, unsigned field, uint64_t v)
{
    size_t n = pb_put_varint(p, (uint64_t)field << 3);
    return n + pb_put_varint(p + n, v);
}

enum { PB_KEY, PB_VALUE, PB_LENGTH };

/* What is wrong with a varint (PB_KEY, PB_VALUE, PB_LENGTH) pb_get_varint
 * did not read (r: its result). */
static const char *pb_varint_why(int r, int k)
{
    static const char *const cut[] = {"a field key runs past the message", "a varint value runs past the message",
                                      "a length runs past the message"};
    static const char *const over[] = {"a field key is a varint over 10 bytes",
                                       "a varint value is over 10 bytes or 64 bits",
                                       "a length is a varint over 10 bytes"};
    return r == 0 ? cut[k] : over[k];
}

/*
 * The fields of one message in [p, end): the last value of each varint
 * field below F_N goes to v[field] with bit field of *seen set; other
 * fields are passed over.  NULL, or what is wrong.
 */
static const char *pb_fields(const uint8_t *p, const uint8_t *end, uint64_t v[F_N], unsigned *seen)
{
    *seen = 0;
    while (p < end) {
        uint64_t key, x;
        int r;
        if ((r = pb_get_varint(&p, end, &key)) != 1)
            return pb_varint_why(r, PB_KEY);
        unsigned wt = (unsigned)(key & 7);
        uint64_t field = key >> 3;
        switch (wt) {
        case 0:
            if ((r = pb_get_varint(&p, end, &x)) != 1)
                return pb_varint_why(r, PB_VALUE);
            if (field > 0 && field < F_N && v) {
                v[field] = x;
                *seen |= 1u << field;
            }
            break;
        case 1:
        case 5:
            if ((size_t)(end - p) < (wt == 1 ? 8u : 4u))
                return "a fixed-width value runs past the message";
            p += wt == 1 ? 8 : 4;
            break;
        case 2:
            if ((r = pb_get_varint(&p, end, &x)) != 1)
                return pb_varint_why(r, PB_LENGTH);
            if (x > (uint64_t)(end - p))
                return "a length-delimited field runs past the message";
            p += x;
            break;
        default:
            return "unknown protobuf wire type";
        }
        if (field > 0 && field < F_N && wt != 0 && v != NULL)
            return "a packet field that should be a varint is not";
    }
    return NULL;
}

/* ---- import --------------------------------------------------------------------- */

#define GEM5_BUF (64u * 1024u)

typedef struct {
    int fd;
    uint8_t *buf;
    size_t pos, len;
    uint64_t off; /* input offset of buf[pos] */
    int eof;
} pb_in;

/* At least want bytes at in->buf + in->pos unless the input ends first. */
static st_error pb_fill(pb_in *in, size_t want)
{
    if (in->len - in->pos >= want || in->eof)
        return ST_OK;
    memmove(in->buf, in->buf + in->pos, in->len - in->pos);
    in->len -= in->pos;
    in->pos = 0;
    size_t got;
    RETURN_IF_ERROR(st_read_full(in->fd, in->buf + in->len, GEM5_BUF - in->len, &got));
    if (got < GEM5_BUF - in->len)
        in->eof = 1;
    in->len += got;
    return ST_OK;
}

/*
 * The next length-prefixed message: *msg, *len.  what names it ("the
 * header", "packet"), n its number for messages.  *end set at a clean end
 * of input.  max bounds the length before anything is read into memory.
 */
static st_error pb_next(pb_in *in, const char *what, uint64_t n, size_t max, const uint8_t **msg, size_t *len,
                        int *end, st_diag *d)
{
    *end = 0;
    RETURN_IF_ERROR(pb_fill(in, GEM5_VARINT_MAX + max));
    const uint8_t *p = in->buf + in->pos, *e = in->buf + in->len;
    if (p == e) {
        *end = 1;
        return ST_OK;
    }
    uint64_t l;
    int r = pb_get_varint(&p, e, &l);
    if (d)
        d->offset = in->off;
    if (r == 0)
        return st_diag_set(d, ST_E_PARTIAL_ENTRY, "%s %llu: the input ends inside its length", what,
                           (unsigned long long)n);
    if (r < 0)
        return st_diag_set(d, ST_E_SYNTAX, "%s %llu: its length is a varint over 10 bytes", what,
                           (unsigned long long)n);
    if (l > max)
        return st_diag_set(d, ST_E_TOO_LARGE, "%s %llu: length %llu over the %zu bytes allowed", what,
                           (unsigned long long)n, (unsigned long long)l, max);
    if (l > (uint64_t)(e - p))
        return st_diag_set(d, ST_E_PARTIAL_ENTRY, "%s %llu: the input ends after %zu of its %llu bytes", what,
                           (unsigned long long)n, (size_t)(e - p), (unsigned long long)l);
    *msg = p;
    *len = (size_t)l;
    size_t used = (size_t)(p - (in->buf + in->pos)) + (size_t)l;
    in->pos += used;
    in->off += used;
    return ST_OK;
}

static st_error gem5_run(pb_in *in, st_imp_out *out, st_diag *d)
{
    uint8_t head[ST_IMP_HEADER_MAX];
    RETURN_IF_ERROR(pb_fill(in, sizeof GEM5_MAGIC - 1));
    if (in->len < 4 || memcmp(in->buf, GEM5_MAGIC, 4) != 0) {
        if (d)
            d->offset = 0;
        return st_diag_set(d, ST_E_NOT_FORMAT, "no \"gem5\" magic at offset 0");
    }
    in->pos = in->off = 4;
    const uint8_t *msg;
    size_t len;
    int end;
    RETURN_IF_ERROR(pb_next(in, "the header", 0, ST_IMP_HEADER_MAX - 4 - GEM5_VARINT_MAX, &msg, &len, &end, d));
    if (end)
        return st_diag_set(d, ST_E_PARTIAL_ENTRY, "the input ends after the magic, before the PacketHeader");
    unsigned seen;
    const char *why = pb_fields(msg, msg + len, NULL, &seen);
    if (why) {
        if (d)
            d->offset = 4;
        return st_diag_set(d, ST_E_SYNTAX, "the PacketHeader: %s", why);
    }
    size_t hl = (size_t)in->off; /* magic, length and message, at the start of buf's bytes read */
    memcpy(head, GEM5_MAGIC, 4);
    memcpy(head + 4, in->buf + in->pos - (hl - 4), hl - 4);
    RETURN_IF_ERROR(st_imp_out_add(out, GEM5_STREAM, ST_TYPE_D64, -1, head, hl));
    RETURN_IF_ERROR(st_imp_out_declare(out, 0)); /* a trace of no packets keeps its header */

    for (uint64_t n = 0;; n++) {
        uint64_t at = in->off;
        RETURN_IF_ERROR(pb_next(in, "packet", n, GEM5_PACKET_MAX, &msg, &len, &end, d));
        if (end)
            break;
        uint64_t v[F_N] = {0};
        why = pb_fields(msg, msg + len, v, &seen);
        const unsigned need = 1u << F_TICK | 1u << F_CMD | 1u << F_ADDR | 1u << F_SIZE;
        st_error e = ST_E_SYNTAX;
        if (!why && (seen & need) != need)
            why = "a required field (tick, cmd, addr, size) is missing";
        if (!why && (v[F_TICK] > ST_CYCLE_MASK || v[F_CMD] > GEM5_CMD_MAX || v[F_SIZE] > UINT32_MAX)) {
            why = "tick beyond 48 bits, cmd above 32766 or size beyond 32 bits";
            e = ST_E_TOO_LARGE;
        }
        if (why) {
            if (d)
                d->offset = at;
            return st_diag_set(d, e, "packet %llu: %s", (unsigned long long)n, why);
        }
        uint8_t *p;
        out->line = n + 1;
        RETURN_IF_ERROR(st_imp_slot(out, 0, &p));
        int full = v[F_SIZE] == 8;
        st_entry en = {v[F_TICK], (full ? 1u : 0u) | (v[F_CMD] + 1) << 1, v[F_PC], v[F_ADDR],
                       full ? 0 : v[F_SIZE] << 32};
        st_entry_store(ST_TYPE_D64, p, &en);
    }
    return ST_OK;
}

st_error st_import_gem5(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                        st_diag *d)
{
    st_import_stats tmp;
    st_import_stats *st = stats ? stats : &tmp;
    memset(st, 0, sizeof *st);
    pb_in in = {fd, malloc(GEM5_BUF), 0, 0, 0, 0};
    if (!in.buf)
        return ST_E_NOMEM;
    st_imp_out out;
    st_imp_out_init(&out, sink, o);
    st_error e = gem5_run(&in, &out, d);
    st_error f = st_imp_out_flush(&out); /* the packets before an error are kept */
    if (e == ST_OK)
        e = f;
    st->entries = out.entries;
    st->bytes = in.off;
    st_imp_out_free(&out);
    free(in.buf);
    return e;
}

/* ---- export ------------------------------------------------------------------------ */

/* x's header when it is a gem5 one (magic, then exactly one message, no
 * longer than an import keeps). */
static int own_header(const st_exporter *x)
{
    if (x->header_len < 5 || x->header_len > ST_IMP_HEADER_MAX || memcmp(x->header, GEM5_MAGIC, 4) != 0)
        return 0;
    const uint8_t *p = x->header + 4, *end = x->header + x->header_len;
    uint64_t l;
    return pb_get_varint(&p, end, &l) == 1 && l == (uint64_t)(end - p);
}

st_error st_x_gem5_start(st_exporter *x)
{
    char *p;
    RETURN_IF_ERROR(st_x_room(x, ST_IMP_HEADER_MAX + 64, &p));
    if (own_header(x)) {
        memcpy(p, x->header, x->header_len);
        x->len += x->header_len;
        return ST_OK;
    }
    uint8_t m[64];
    size_t k = 0, ol = sizeof GEM5_OBJ_ID - 1;
    m[k++] = 1 << 3 | 2; /* obj_id, length-delimited */
    m[k++] = (uint8_t)ol;
    memcpy(m + k, GEM5_OBJ_ID, ol);
    k += ol;
    k += pb_put_field(m + k, 3, GEM5_TICK_FREQ);
    memcpy(p, GEM5_MAGIC, 4);
    size_t n = 4 + pb_put_varint((uint8_t *)p + 4, k);
    memcpy(p + n, m, k);
    x->len += n + k;
    return ST_OK;
}

static size_t put_packet(uint8_t *p, uint64_t tick, uint64_t cmd, uint64_t addr, uint64_t size, uint64_t pc)
{
    uint8_t m[64];
    size_t k = pb_put_field(m, F_TICK, tick);
    k += pb_put_field(m + k, F_CMD, cmd);
    k += pb_put_field(m + k, F_ADDR, addr);
    k += pb_put_field(m + k, F_SIZE, size);
    if (pc)
        k += pb_put_field(m + k, F_PC, pc);
    size_t n = pb_put_varint(p, k);
    memcpy(p + n, m, k);
    return n + k;
}

st_error st_x_gem5(st_exporter *x, st_entry_type t, const st_entry *e, char kind)
{
    char *c;
    RETURN_IF_ERROR(st_x_room(x, 2 * 80, &c));
    uint8_t *p = (uint8_t *)c;
    uint64_t size = st_x_size(t, e);
    uint64_t tag = e->meta16 >> 1;
    size_t m;
    if (tag && own_header(x)) {
        m = put_packet(p, e->cycle, tag - 1, e->addr, size, e->ip);
        x->len += m;
        return ST_OK;
    }
    if (!size)
        size = st_entry_is_wide(t) ? 8 : 4; /* TrafficGen needs one; as lackey's export does */
    if (kind == 'M') {
        m = put_packet(p, e->cycle, GEM5_READ_REQ, e->addr, size, e->ip);
        m += put_packet(p + m, e->cycle, GEM5_WRITE_REQ, e->addr, size, e->ip);
    } else
        m = put_packet(p, e->cycle, kind == 'S' ? GEM5_WRITE_REQ : GEM5_READ_REQ, e->addr, size, e->ip);
    x->len += m;
    return ST_OK;
}
