/* import_common.c - the batching output and the line driver every text
 * importer uses (contracts in import_internal.h). */
#include "import_internal.h"

#include "../common/st_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Built at compile time so the hot parsing loops are one table load per
 * character, with no locale involved. */
#define H16(b) -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1
const signed char st_hexval[256] = {
    H16(0x00), H16(0x10), H16(0x20),
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -1, -1, -1, -1, -1,          /* 0x30 '0'..'9' */
    -1, 10, 11, 12, 13, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1, /* 0x40 'A'..'F' */
    H16(0x50),
    -1, 10, 11, 12, 13, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1, /* 0x60 'a'..'f' */
    H16(0x70), H16(0x80), H16(0x90), H16(0xa0), H16(0xb0), H16(0xc0), H16(0xd0), H16(0xe0), H16(0xf0),
};
#undef H16

void st_imp_out_init(st_imp_out *out, const st_import_sink *sink, const st_import_opts *o)
{
    memset(out, 0, sizeof *out);
    out->sink = sink;
    out->prefix = o && o->prefix ? o->prefix : "";
}

void st_imp_out_free(st_imp_out *out)
{
    for (int i = 0; i < out->ns; i++) {
        free(out->s[i].buf);
        free(out->s[i].lines);
        out->s[i].buf = NULL;
        out->s[i].lines = NULL;
    }
    out->ns = 0;
}

st_error st_imp_out_add(st_imp_out *out, const char *name, st_entry_type type, int owner,
                        const uint8_t *header, size_t header_len)
{
    if (out->ns == ST_IMP_MAX_STREAMS)
        return ST_E_INTERNAL;
    size_t lp = strlen(out->prefix), ln = strlen(name);
    if (lp + ln > ST_IMP_NAME_MAX || header_len > ST_IMP_HEADER_MAX)
        return ST_E_TOO_LARGE;
    st_imp_stream *s = &out->s[out->ns];
    memset(s, 0, sizeof *s);
    memcpy(s->name, out->prefix, lp);
    memcpy(s->name + lp, name, ln + 1);
    s->type = type;
    s->esize = st_entry_size(type);
    s->owner = owner;
    if (header_len)
        memcpy(s->header, header, header_len);
    s->header_len = header_len;
    if (s->esize == 0)
        return ST_E_INTERNAL;
    s->buf = malloc(ST_IMP_BATCH * s->esize);
    s->lines = malloc(ST_IMP_BATCH * sizeof *s->lines);
    if (!s->buf || !s->lines) {
        free(s->buf);
        free(s->lines);
        s->buf = NULL;
        s->lines = NULL;
        return ST_E_NOMEM;
    }
    out->ns++;
    return ST_OK;
}

st_error st_imp_out_declare(st_imp_out *out, int i)
{
    st_imp_stream *s = &out->s[i];
    if (s->declared)
        return ST_OK;
    st_stream_decl decl = {
        .name = s->name,
        .type = s->type,
        .owner = s->owner >= 0 ? out->s[s->owner].sid : UINT32_MAX,
        .header = s->header_len ? s->header : NULL,
        .header_len = s->header_len,
    };
    if (s->owner >= 0 && !out->s[s->owner].declared)
        return ST_E_INTERNAL; /* an owner entry always comes first */
    RETURN_IF_ERROR(out->sink->add_stream(out->sink->arg, &decl, &s->sid));
    s->declared = 1;
    if (!s->seen)
        s->seen = ++out->next_seen;
    return ST_OK;
}

/* Declare every stream that has had an entry, in order of first appearance,
 * so the sink sees the same order however the batches happen to fill; late
 * streams (a fetch stream) after the others seen so far (IMPORT.md 1.2). */
static st_error declare_pending(st_imp_out *out)
{
    for (int late = 0; late < 2; late++)
        for (int k = 1; k <= out->next_seen; k++)
            for (int i = 0; i < out->ns; i++)
                if (out->s[i].seen == k && !out->s[i].declared && out->s[i].late == late)
                    RETURN_IF_ERROR(st_imp_out_declare(out, i));
    return ST_OK;
}

st_error st_imp_flush_stream(st_imp_out *out, int i)
{
    st_imp_stream *s = &out->s[i];
    if (s->n == 0)
        return ST_OK;
    RETURN_IF_ERROR(declare_pending(out));
    size_t n = s->n;
    s->n = 0; /* dropped even on failure: the caller stops anyway */
    st_error e = out->sink->append(out->sink->arg, s->sid, s->buf, n);
    if (e == ST_E_CYCLE_ORDER && out->sink->appended_before_refusal) {
        const size_t k = out->sink->appended_before_refusal(out->sink->arg);
        if (k < n)
            out->refused_line = s->lines[k];
    }
    RETURN_IF_ERROR(e);
    s->appended += n;
    out->entries += n;
    return ST_OK;
}

st_error st_imp_out_flush(st_imp_out *out)
{
    /* Owners first: the sink requires a vblock's owner entry to be there. */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < out->ns; i++)
            if ((out->s[i].owner >= 0) == pass)
                RETURN_IF_ERROR(st_imp_flush_stream(out, i));
    return ST_OK;
}

void st_imp_line_detail(st_diag *d, const char *why, const char *line, size_t len)
{
    if (!d)
        return;
    char ex[4 * 40 + 8];
    size_t k = 0;
    size_t show = len < 40 ? len : 40;
    for (size_t i = 0; i < show; i++) {
        unsigned char c = (unsigned char)line[i];
        if (c >= 0x20 && c < 0x7f && c != '\\')
            ex[k++] = (char)c;
        else
            k += (size_t)snprintf(ex + k, sizeof ex - k, "\\x%02x", c);
    }
    ex[k] = '\0';
    st_diag_set(d, ST_OK, "%s: `%s%s`", why, ex, len > show ? "..." : "");
}

/* Fill d for a bad line (or one the line reader refused). */
static void bad_line_diag(st_diag *d, const st_line_reader *r, const char *why, const char *line, size_t len)
{
    if (!d)
        return;
    d->line = r->line;
    d->offset = r->offset;
    st_imp_line_detail(d, why, line, len);
}

/* Forget the entries of the one valid line that ended a probe: the error is
 * about an earlier line, and nothing after it may reach the sink. */
static void rollback(st_imp_out *out)
{
    for (int i = 0; i < out->ns; i++) {
        out->s[i].n = 0;
        if (!out->s[i].declared)
            out->s[i].seen = 0;
    }
}

st_error st_imp_run_lines(int fd, const char *format, st_line_fn parse, void *state, st_imp_out *out,
                          const st_import_opts *o, st_import_stats *stats, st_diag *d)
{
    st_line_reader r;
    st_error e = st_line_reader_init(&r, fd, o ? o->stopped : NULL);
    if (e != ST_OK)
        return e;
    int skip_bad = o && o->skip_bad;
    int valid_seen = 0;     /* a valid line has been read */
    int fatal = 0;          /* the sink or memory failed: no more appends */
    unsigned probe_bad = 0; /* bad lines before the first valid one */
    st_diag first_bad;      /* the first of them, reported if it stays the only kind */
    st_error first_code = ST_OK;
    uint64_t bad = 0;
    st_diag_clear(&first_bad);

    for (;;) {
        const char *line;
        size_t len;
        st_diag ld;
        st_diag_clear(&ld);
        e = st_line_next(&r, &line, &len, &ld);
        if (e != ST_OK) {
            /* An over-long line or a NUL byte: binary data if nothing valid
             * came before, else a broken line.  Not skippable, since the
             * reader cannot resynchronise on an over-long line. */
            if (d) {
                *d = ld;
                if (!valid_seen)
                    st_diag_set(d, ST_OK, "%s (no valid %s line before it)", ld.detail, format);
            }
            if (e == ST_E_SYNTAX && !valid_seen)
                e = ST_E_NOT_FORMAT;
            break;
        }
        if (!line)
            break;
        const char *why = NULL;
        st_error code = ST_E_SYNTAX;
        out->line = r.line;
        st_line_result lr = parse(state, out, line, len, &why, &code);
        if (lr == ST_LINE_SKIP)
            continue;
        if (lr == ST_LINE_FATAL) {
            e = code;
            fatal = 1;
            if (d)
                d->line = r.line, d->offset = r.offset;
            break;
        }
        if (lr == ST_LINE_END) {
            valid_seen = 1;
            break;
        }
        if (lr == ST_LINE_ENTRY) {
            if (!valid_seen && probe_bad && !skip_bad) {
                /* The input is the format after all: report its first bad line. */
                rollback(out);
                if (d)
                    *d = first_bad;
                e = first_code;
                break;
            }
            valid_seen = 1;
            continue;
        }
        /* ST_LINE_BAD */
        st_diag bd;
        st_diag_clear(&bd);
        bad_line_diag(&bd, &r, why ? why : "malformed line", line, len);
        if (!valid_seen) {
            if (probe_bad == 0) {
                first_bad = bd;
                first_code = code;
            }
            probe_bad++;
            if (skip_bad) {
                bad++;
                if (o->warn)
                    o->warn(o->warn_arg, &bd);
            }
            if (probe_bad >= ST_IMP_PROBE_LINES) {
                rollback(out);
                if (d) {
                    *d = first_bad;
                    st_diag_set(d, ST_OK, "no valid %s line among the first %u; first: %.120s", format,
                                ST_IMP_PROBE_LINES, first_bad.detail);
                }
                e = ST_E_NOT_FORMAT;
                break;
            }
            continue;
        }
        if (!skip_bad) {
            if (d)
                *d = bd;
            e = code;
            break;
        }
        bad++;
        if (o->warn)
            o->warn(o->warn_arg, &bd);
    }
    if (e == ST_OK && !valid_seen && probe_bad) {
        /* Input ended while every content line was bad. */
        if (d) {
            *d = first_bad;
            st_diag_set(d, ST_OK, "no valid %s line; first: %.120s", format, first_bad.detail);
        }
        e = ST_E_NOT_FORMAT;
    }
    /* Whatever was complete before the error still reaches the sink, unless
     * the sink itself is what failed. */
    if (!fatal) {
        st_error fe = st_imp_out_flush(out);
        if (e == ST_OK)
            e = fe;
    }
    /* an entry the sink refused for its cycle was buffered lines before
     * the one being read: its own line, where the sink said which */
    if (e == ST_E_CYCLE_ORDER && d) {
        d->line = out->refused_line ? out->refused_line : ST_DIAG_UNKNOWN;
        d->offset = ST_DIAG_UNKNOWN;
    }
    if (stats) {
        stats->bytes = r.next;
        stats->lines = r.line;
        stats->entries = out->entries;
        stats->bad_lines = bad;
    }
    st_line_reader_free(&r);
    return e;
}

st_error st_imp_read_records(int fd, size_t rec, st_imp_block_fn fn, void *arg, uint64_t *bytes, size_t *left)
{
    size_t cap = rec << 16;
    uint8_t *buf = malloc(cap);
    if (!buf)
        return ST_E_NOMEM;
    size_t have = 0, got; /* have: bytes of an incomplete record carried over */
    st_error e;
    for (;;) {
        size_t want = cap - have;
        e = st_read_full(fd, buf + have, want, &got);
        if (e != ST_OK)
            break;
        *bytes += got;
        have += got;
        size_t n = have / rec;
        if (n) {
            if ((e = fn(arg, buf, n)) != ST_OK)
                break;
            memmove(buf, buf + n * rec, have - n * rec);
            have -= n * rec;
        }
        if (got < want)
            break; /* end of input */
    }
    free(buf);
    *left = have;
    return e;
}
