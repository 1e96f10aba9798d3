/*
 * import_access.c - importers of plain access traces: valgrind lackey,
 * Dinero "din" and extended din ("xdin"), and Pin's pinatrace.
 *
 * All four produce the same shape: streams "read" and "write" of type d64,
 * each declared when its first entry appears.  The mappings (which record
 * becomes which entry, what cycle and ip mean, what fullSize and data hold)
 * are specified in formats/IMPORT.md sections 2-5; this file follows them.
 * Each parser is one function per line, called by st_imp_run_lines, which
 * applies the error policy.
 */
#include <string.h>

#include "import_internal.h"

#define FULLSIZE_BIT (UINT64_C(1) << 48)

enum { S_READ = 0, S_WRITE = 1, S_FETCH = 2 };

typedef struct {
    uint64_t cycle;   /* instructions (or accesses) so far */
    uint64_t ip;      /* address of the last instruction record */
    int fetch;        /* the format has instruction records: stream "fetch" */
    uint8_t *fslot;   /* the fetch entry the next access kind goes to, in
                         the fetch batch (flushed only when the next fetch
                         entry is made), or NULL */
    unsigned nkinds;  /* kinds in *fslot */
    uint64_t dropped; /* valid records not kept (st_import_stats.dropped) */
} access_state;

static st_error add_streams(st_imp_out *out, int fetch)
{
    RETURN_IF_ERROR(st_imp_out_add(out, "read", ST_TYPE_D64, -1, NULL, 0));
    RETURN_IF_ERROR(st_imp_out_add(out, "write", ST_TYPE_D64, -1, NULL, 0));
    if (!fetch)
        return ST_OK;
    RETURN_IF_ERROR(st_imp_out_add(out, ST_FETCH_STREAM, ST_TYPE_D64, -1, NULL, 0));
    out->s[S_FETCH].late = 1; /* read stays the first stream, as before */
    return ST_OK;
}

/* A fetch entry (trace_io.h): an instruction record, or with cont a
 * continuation that only carries kinds. */
static st_line_result fetch_entry(access_state *st, st_imp_out *out, uint64_t size, int cont, st_error *code)
{
    uint8_t *p;
    st_error e = st_imp_slot(out, S_FETCH, &p);
    if (e != ST_OK) {
        *code = e;
        return ST_LINE_FATAL;
    }
    st_store64(p, st->cycle | (cont ? ST_FETCH_CONT : 0));
    st_store64(p + 8, st->ip);
    st_store64(p + 16, st->ip);
    st_store64(p + 24, size << 32);
    st->fslot = p;
    st->nkinds = 0;
    return ST_LINE_ENTRY;
}

/* Record the kind of the access just appended in the current fetch entry. */
static inline st_line_result note_kind(access_state *st, st_imp_out *out, uint64_t kind, st_error *code)
{
    if (!st->fetch)
        return ST_LINE_ENTRY;
    if (!st->fslot || st->nkinds == ST_FETCH_KINDS) {
        st_line_result r = fetch_entry(st, out, 0, 1, code);
        if (r != ST_LINE_ENTRY)
            return r;
    }
    st_store64(st->fslot + 24, st_load64(st->fslot + 24) | kind << (2 * st->nkinds));
    st->nkinds++;
    return ST_LINE_ENTRY;
}

/*
 * Append one d64 access.  size 0 means "unknown": fullSize 0, data 0.
 * Otherwise the lackey rule (scripts/lackey2d64.c): fullSize = (size == 8),
 * data = 0 for 8 bytes, size << 32 else; none of these formats records
 * values, so nothing goes to vblocks.
 */
static inline st_line_result emit(st_imp_out *out, int stream, uint64_t cycle, uint64_t ip, uint64_t addr,
                                  uint64_t size, st_error *code)
{
    uint8_t *p;
    st_error e = st_imp_slot(out, stream, &p);
    if (e != ST_OK) {
        *code = e;
        return ST_LINE_FATAL;
    }
    int full = size == 8;
    st_store64(p, cycle | (full ? FULLSIZE_BIT : 0));
    st_store64(p + 8, ip);
    st_store64(p + 16, addr);
    st_store64(p + 24, full ? 0 : size << 32);
    return ST_LINE_ENTRY;
}

#define BAD(msg) IMP_BAD(msg)
#define TOO_LARGE(msg) IMP_TOO_LARGE(msg)

#define CHECK_LINE(x)                        \
    do {                                     \
        st_line_result r_ = (x);             \
        if (r_ != ST_LINE_ENTRY)             \
            return r_;                       \
    } while (0)

/* An instruction record: the next cycle, at addr. */
static st_line_result instruction(access_state *st, st_imp_out *out, uint64_t addr, uint64_t size,
                                  const char **why, st_error *code)
{
    if (st->cycle == ST_CYCLE_MASK)
        TOO_LARGE("instruction count does not fit in 48 bits");
    st->cycle++;
    st->ip = addr;
    return fetch_entry(st, out, size, 0, code);
}

static int at_end(const char *s)
{
    s = st_skip_blank(s);
    return *s == '\0';
}

/* ---- lackey --------------------------------------------------------------- */

/* "HEX,DEC" then only blanks, as lackey prints "%08lx,%lu". */
static st_line_result lackey_addr_size(const char *s, uint64_t *addr, uint64_t *size, const char **why,
                                       st_error *code)
{
    s = st_skip_blank(s);
    int n = st_parse_hex(&s, addr);
    if (n < 0)
        TOO_LARGE("address wider than 64 bits");
    if (n == 0)
        BAD("expected a hex address");
    if (*s != ',')
        BAD("expected ',' after the address");
    s++;
    n = st_parse_dec(&s, size);
    if (n == 0)
        BAD("expected a decimal size after ','");
    if (n < 0 || *size > UINT32_MAX)
        TOO_LARGE("size does not fit in 32 bits");
    if (!at_end(s))
        BAD("trailing characters after the size");
    return ST_LINE_ENTRY;
}

static st_line_result lackey_line(void *state, st_imp_out *out, const char *l, size_t len, const char **why,
                                  st_error *code)
{
    access_state *st = state;
    uint64_t addr, size;
    st_line_result r;
    if (len == 0)
        return ST_LINE_SKIP;
    if (len >= 2 && ((l[0] == '=' && l[1] == '=') || (l[0] == '-' && l[1] == '-')))
        return ST_LINE_SKIP; /* valgrind's own messages */
    if (l[0] == 'I' && l[1] == ' ') {
        if ((r = lackey_addr_size(l + 2, &addr, &size, why, code)) != ST_LINE_ENTRY)
            return r;
        return instruction(st, out, addr, size, why, code);
    }
    if (l[0] == 'S' && l[1] == 'B' && l[2] == ' ') {
        /* "SB %08lx": a superblock entered (--trace-superblocks=yes) */
        const char *s = st_skip_blank(l + 3);
        int n = st_parse_hex(&s, &addr);
        if (n < 0)
            TOO_LARGE("address wider than 64 bits");
        if (n == 0 || !at_end(s))
            BAD("expected 'SB ADDR'");
        st->dropped++;
        return ST_LINE_SKIP;
    }
    if (len < 3 || l[0] != ' ' || l[2] != ' ')
        BAD("expected 'I  ADDR,SIZE' or ' L|S|M ADDR,SIZE'");
    char k = l[1];
    if (k != 'L' && k != 'S' && k != 'M')
        BAD("unknown access kind (expected L, S or M)");
    if ((r = lackey_addr_size(l + 3, &addr, &size, why, code)) != ST_LINE_ENTRY)
        return r;
    if (size == 0)
        BAD("access size 0");
    if (k != 'S' && (r = emit(out, S_READ, st->cycle, st->ip, addr, size, code)) != ST_LINE_ENTRY)
        return r;
    if (k != 'L' && (r = emit(out, S_WRITE, st->cycle, st->ip, addr, size, code)) != ST_LINE_ENTRY)
        return r;
    return note_kind(st, out, k == 'L' ? ST_KIND_READ : k == 'S' ? ST_KIND_WRITE : ST_KIND_MODIFY, code);
}

/* ---- din and xdin ----------------------------------------------------------- */

/* Hex address, "0x" tolerated although Dinero writes none. */
static st_line_result din_addr(const char **sp, uint64_t *addr, const char **why, st_error *code)
{
    const char *s = *sp;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && st_hexval[(unsigned char)s[2]] >= 0)
        s += 2;
    int n = st_parse_hex(&s, addr);
    if (n < 0)
        TOO_LARGE("address wider than 64 bits");
    if (n == 0)
        BAD("expected a hex address");
    if (*s != '\0' && *s != ' ' && *s != '\t')
        BAD("expected a blank after the address");
    *sp = s;
    return ST_LINE_ENTRY;
}

/* Access kinds shared by both din flavours. */
enum { K_READ, K_WRITE, K_IFETCH, K_OTHER };

static st_line_result din_apply(access_state *st, st_imp_out *out, int kind, uint64_t addr, uint64_t size,
                                const char **why, st_error *code)
{
    switch (kind) {
    case K_READ:
        CHECK_LINE(emit(out, S_READ, st->cycle, st->ip, addr, size, code));
        return note_kind(st, out, ST_KIND_READ, code);
    case K_WRITE:
        CHECK_LINE(emit(out, S_WRITE, st->cycle, st->ip, addr, size, code));
        return note_kind(st, out, ST_KIND_WRITE, code);
    case K_IFETCH:
        return instruction(st, out, addr, size, why, code);
    default:
        st->dropped++;
        return ST_LINE_ENTRY; /* escape, flush, copy-back, invalidate: no access */
    }
}

/* "LABEL ADDRESS [anything]": Dinero III ignores the rest of the line. */
static st_line_result din_line(void *state, st_imp_out *out, const char *l, size_t len, const char **why,
                               st_error *code)
{
    (void)len;
    const char *s = st_skip_blank(l);
    if (*s == '\0' || *s == '#')
        return ST_LINE_SKIP;
    uint64_t label, addr;
    int n = st_parse_dec(&s, &label);
    if (n <= 0 || (*s != ' ' && *s != '\t'))
        BAD("expected 'LABEL ADDRESS' with a decimal label");
    if (label > 4)
        BAD("unknown label (expected 0 read, 1 write, 2 fetch, 3 escape, 4 flush)");
    s = st_skip_blank(s);
    st_line_result r = din_addr(&s, &addr, why, code);
    if (r != ST_LINE_ENTRY)
        return r;
    static const int kind[5] = {K_READ, K_WRITE, K_IFETCH, K_OTHER, K_OTHER};
    return din_apply(state, out, kind[label], addr, 0, why, code);
}

/* "ATYPE ADDRESS [SIZE [anything]]" (Dinero IV -informat d). */
static st_line_result xdin_line(void *state, st_imp_out *out, const char *l, size_t len, const char **why,
                                st_error *code)
{
    (void)len;
    const char *s = st_skip_blank(l);
    if (*s == '\0' || *s == '#')
        return ST_LINE_SKIP;
    int kind;
    switch (*s) {
    case 'r': case '0': kind = K_READ; break;
    case 'w': case '1': kind = K_WRITE; break;
    case 'i': case '2': kind = K_IFETCH; break;
    case 'm': case '3': case 'c': case '4': case 'v': case '5': kind = K_OTHER; break;
    default: BAD("unknown access type (expected r, w, i, m, c or v)");
    }
    s++;
    if (*s != ' ' && *s != '\t')
        BAD("expected 'ATYPE ADDRESS SIZE'");
    s = st_skip_blank(s);
    uint64_t addr, size = 0;
    st_line_result r = din_addr(&s, &addr, why, code);
    if (r != ST_LINE_ENTRY)
        return r;
    s = st_skip_blank(s);
    if (*s != '\0') {
        if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
            s += 2;
        int n = st_parse_hex(&s, &size);
        if (n == 0 || (*s != '\0' && *s != ' ' && *s != '\t'))
            BAD("expected a hex size after the address");
        if (n < 0 || size > UINT32_MAX)
            TOO_LARGE("size does not fit in 32 bits");
        if (size == 0 && (kind == K_READ || kind == K_WRITE))
            BAD("access size 0");
    }
    return din_apply(state, out, kind, addr, size, why, code);
}

/* ---- pinatrace --------------------------------------------------------------- */

/* "0xHEX" or glibc's "(nil)" for a null %p. */
static st_line_result pin_ptr(const char **sp, uint64_t *v, const char **why, st_error *code)
{
    const char *s = *sp;
    if (strncmp(s, "(nil)", 5) == 0) {
        *v = 0;
        *sp = s + 5;
        return ST_LINE_ENTRY;
    }
    if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        BAD("expected a 0x address");
    s += 2;
    int n = st_parse_hex(&s, v);
    if (n < 0)
        TOO_LARGE("address wider than 64 bits");
    if (n == 0)
        BAD("expected hex digits after 0x");
    *sp = s;
    return ST_LINE_ENTRY;
}

/* "IP: R|W ADDR [SIZE]"; "#eof" ends the trace, other '#' lines are comments. */
static st_line_result pin_line(void *state, st_imp_out *out, const char *l, size_t len, const char **why,
                               st_error *code)
{
    (void)len;
    access_state *st = state;
    const char *s = st_skip_blank(l);
    if (*s == '\0')
        return ST_LINE_SKIP;
    if (*s == '#')
        return strncmp(s, "#eof", 4) == 0 && at_end(s + 4) ? ST_LINE_END : ST_LINE_SKIP;
    uint64_t ip, addr, size = 0;
    st_line_result r = pin_ptr(&s, &ip, why, code);
    if (r != ST_LINE_ENTRY)
        return r;
    if (*s != ':')
        BAD("expected ':' after the instruction address");
    s = st_skip_blank(s + 1);
    char k = *s;
    if ((k != 'R' && k != 'W') || (s[1] != ' ' && s[1] != '\t'))
        BAD("expected R or W");
    s = st_skip_blank(s + 1);
    if ((r = pin_ptr(&s, &addr, why, code)) != ST_LINE_ENTRY)
        return r;
    s = st_skip_blank(s);
    if (*s != '\0') {
        int n = st_parse_dec(&s, &size);
        if (n == 0 || !at_end(s))
            BAD("expected an optional decimal size after the address, then nothing");
        if (n < 0 || size > UINT32_MAX)
            TOO_LARGE("size does not fit in 32 bits");
        if (size == 0)
            BAD("access size 0");
    }
    /* No instruction records: cycle is the ordinal of the access. */
    if (st->cycle == ST_CYCLE_MASK)
        TOO_LARGE("access count does not fit in 48 bits");
    st->cycle++;
    return emit(out, k == 'R' ? S_READ : S_WRITE, st->cycle, ip, addr, size, code);
}

/* ---- pixie32 and pixie64 (Dinero IV -informat p / P) ------------------------------ */

/*
 * Big-endian words (4 or 8 bytes), each a record: the top byte is
 * COUNT << 4 | TYPE, the rest FIELD (IMPORT.md 16 gives the evidence):
 *   TYPE 12   a run of COUNT instructions from word index FIELD
 *   TYPE 13   one instruction at word index FIELD
 *   TYPE 14   COUNT instructions, then one (a system call, FIELD its number)
 *   TYPE < 12 COUNT instructions, then one that accesses address FIELD:
 *             a write when TYPE & 2, else a read; TYPE goes to the tag
 * Instructions without a word index of their own follow the last one.
 */
#define PIXIE_BLOCK 12u
#define PIXIE_ONE 13u
#define PIXIE_SYSCALL 14u
#define PIXIE_WRITE_BIT 2u
#define PIXIE_TAG_SHIFT 49

static st_line_result pixie_run_of(access_state *st, st_imp_out *out, uint64_t *pc, uint64_t n, const char **why,
                                   st_error *code)
{
    for (uint64_t i = 0; i < n; i++, *pc += 4)
        CHECK_LINE(instruction(st, out, *pc, 0, why, code));
    return ST_LINE_ENTRY;
}

static st_line_result pixie_word(access_state *st, st_imp_out *out, uint64_t *pc, uint64_t w, unsigned bits,
                                 const char **why, st_error *code)
{
    unsigned type = (unsigned)(w >> (bits - 8)) & 15, count = (unsigned)(w >> (bits - 4));
    uint64_t field = w & ((UINT64_C(1) << (bits - 8)) - 1);
    switch (type) {
    case PIXIE_BLOCK:
        *pc = field << 2;
        return pixie_run_of(st, out, pc, count, why, code);
    case PIXIE_ONE:
        *pc = field << 2;
        return pixie_run_of(st, out, pc, (uint64_t)count + 1, why, code);
    case PIXIE_SYSCALL:
        return pixie_run_of(st, out, pc, (uint64_t)count + 1, why, code);
    case 15:
        BAD("unknown reference type 15");
    default: {
        CHECK_LINE(pixie_run_of(st, out, pc, (uint64_t)count + 1, why, code));
        int wr = (type & PIXIE_WRITE_BIT) != 0;
        uint8_t *p;
        st_error e = st_imp_slot(out, wr ? S_WRITE : S_READ, &p);
        if (e != ST_OK) {
            *code = e;
            return ST_LINE_FATAL;
        }
        st_store64(p, st->cycle | (uint64_t)type << PIXIE_TAG_SHIFT);
        st_store64(p + 8, st->ip);
        st_store64(p + 16, field);
        st_store64(p + 24, 0);
        return note_kind(st, out, wr ? ST_KIND_WRITE : ST_KIND_READ, code);
    }
    }
}

typedef struct {
    access_state *st;
    st_imp_out *out;
    unsigned bytes; /* of a word: 4 or 8 */
    uint64_t pc, word;
    st_diag *d;
} pixie_in;

static st_error pixie_block(void *arg, const uint8_t *words, size_t n)
{
    pixie_in *in = arg;
    for (size_t i = 0; i < n; i++, in->word++) {
        uint64_t w = 0;
        for (unsigned b = 0; b < in->bytes; b++)
            w = w << 8 | words[i * in->bytes + b];
        const char *why = NULL;
        st_error code = ST_E_SYNTAX;
        in->out->line = in->word + 1;
        st_line_result r = pixie_word(in->st, in->out, &in->pc, w, 8 * in->bytes, &why, &code);
        if (r == ST_LINE_FATAL)
            return code;
        if (r == ST_LINE_BAD) {
            if (in->d)
                in->d->offset = in->word * in->bytes;
            return st_diag_set(in->d, code, "word %llu: %s (0x%0*llx)", (unsigned long long)in->word, why,
                               (int)(2 * in->bytes), (unsigned long long)w);
        }
    }
    return ST_OK;
}

static st_error pixie_read(int fd, unsigned bytes, access_state *st, st_imp_out *out, st_import_stats *stats,
                           st_diag *d)
{
    pixie_in in = {st, out, bytes, 0, 0, d};
    size_t left = 0;
    st_error e = st_imp_read_records(fd, bytes, pixie_block, &in, &stats->bytes, &left);
    if (e == ST_OK && left) {
        if (d)
            d->offset = stats->bytes - left;
        e = st_diag_set(d, ST_E_PARTIAL_ENTRY, "word %llu: the input ends after %zu of its %u bytes",
                        (unsigned long long)in.word, left, bytes);
    }
    return e;
}

static st_error pixie_import(int fd, unsigned bytes, const st_import_opts *o, const st_import_sink *sink,
                             st_import_stats *stats, st_diag *d)
{
    st_import_stats tmp;
    st_import_stats *st = stats ? stats : &tmp;
    memset(st, 0, sizeof *st);
    st_imp_out out;
    access_state as;
    memset(&as, 0, sizeof as);
    as.fetch = 1;
    st_imp_out_init(&out, sink, o);
    st_error e = add_streams(&out, 1);
    if (e == ST_OK)
        e = pixie_read(fd, bytes, &as, &out, st, d);
    st_error f = st_imp_out_flush(&out); /* the records before an error are kept */
    if (e == ST_OK)
        e = f;
    st->entries = out.entries;
    st_imp_out_free(&out);
    return e;
}

/* ---- entry points --------------------------------------------------------------- */

static st_error run(int fd, const char *format, st_line_fn fn, int fetch, const st_import_opts *o,
                    const st_import_sink *sink, st_import_stats *stats, st_diag *d)
{
    st_imp_out out;
    access_state st;
    memset(&st, 0, sizeof st);
    st.fetch = fetch;
    st_imp_out_init(&out, sink, o);
    st_error e = add_streams(&out, fetch);
    if (e == ST_OK)
        e = st_imp_run_lines(fd, format, fn, &st, &out, o, stats, d);
    if (stats)
        stats->dropped = st.dropped;
    st_imp_out_free(&out);
    return e;
}

st_error st_import_lackey(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                          st_diag *d)
{
    return run(fd, "lackey", lackey_line, 1, o, sink, stats, d);
}

st_error st_import_din(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                       st_diag *d)
{
    return run(fd, "din", din_line, 1, o, sink, stats, d);
}

st_error st_import_xdin(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                        st_diag *d)
{
    return run(fd, "xdin", xdin_line, 1, o, sink, stats, d);
}

st_error st_import_pinatrace(int fd, const st_import_opts *o, const st_import_sink *sink,
                             st_import_stats *stats, st_diag *d)
{
    return run(fd, "pinatrace", pin_line, 0, o, sink, stats, d);
}

st_error st_import_pixie32(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                           st_diag *d)
{
    return pixie_import(fd, 4, o, sink, stats, d);
}

st_error st_import_pixie64(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                           st_diag *d)
{
    return pixie_import(fd, 8, o, sink, stats, d);
}
