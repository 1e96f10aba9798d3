/*
 * import_bochs.c - importer of the Bochs internal debugger's log
 * ("debugger_log:" with "trace on" and "trace-mem on").
 *
 * The mapping and the line grammar are in formats/IMPORT.md (section 13).  In short:
 * instruction lines "(K).[N] [0xPHY] SEG:OFF (ctxt): ..." set the cycle (N)
 * and ip (OFF) of CPU K; memory lines "[CPUK RD|WR|RW]: [LIN 0x.. ]PHY 0x..
 * (len=L, TYPE): value" become d64 entries of cpuK.read / cpuK.write (or
 * cpuK.phys.* without LIN); "CPU K: Interrupt|Exception ..." and "CPU K:
 * HALTED" become events of cpuK.events.  Values that do not fit the d64 data
 * field (5..7 or more than 8 bytes) go to a companion vblock stream.
 *
 * The log is large (about 130 bytes per instruction traced), so the hot path
 * parses by hand with no sscanf and no copies: the line reader hands out
 * lines in place, and entries are packed into per-stream buffers that are
 * passed to the sink 4096 at a time.
 */
#include "import_internal.h"
#include "line_reader.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bochs supports at most 254 simulated CPUs; anything above is not a log. */
#define BX_MAX_CPUS 256u
/* Entries buffered per stream before they go to the sink.  Streams beyond
 * the first BX_BIG_STREAMS get a small buffer, so a log naming many CPUs
 * cannot make the importer hold more than a few MB. */
#define BX_BATCH 4096u
#define BX_SMALL_BATCH 256u
#define BX_BIG_STREAMS 16u
/* This many malformed lines before any valid one mean the input is some
 * other format (as in the other text importers). */
#define BX_PROBE_LINES 8u
/* --split-by cr3: at most this many address spaces (all CPUs), so that a
 * log cannot make the importer declare streams without bound. */
#define BX_MAX_SPACES 1024u

enum { S_READ, S_WRITE, S_PREAD, S_PWRITE, S_EVENTS, S_NPRIMARY };
static const char *const stream_suffix[S_NPRIMARY] = {"read", "write", "phys.read", "phys.write", "events"};

typedef struct bstream {
    int declared;
    uint32_t sid;
    st_entry_type type;
    size_t esize;
    size_t cap, n; /* buffer capacity and fill, entries */
    uint8_t *buf;
    uint64_t count;        /* entries produced so far: the index of the next */
    struct bstream *owner; /* vdata streams: the stream whose entries own them */
} bstream;

/* The read and write streams of one address space of one CPU (--split-by
 * cr3): "cpuK.cr3-HEX.read" and so on. */
typedef struct {
    uint64_t cr3;
    unsigned cpu;
    char tag[32]; /* "cr3-HEX." */
    bstream s[2];
    bstream v[2];
} bspace;

typedef struct {
    uint64_t cycle, ip;
    bstream s[S_NPRIMARY];
    bstream v[S_EVENTS]; /* vdata companions of the four d64 streams */
    bspace *space;       /* --split-by cr3: that of the last page walk; NULL: none yet */
} bcpu;

typedef struct {
    const st_import_opts *o;
    const st_import_sink *sink;
    st_diag *d;
    bcpu *cpu[BX_MAX_CPUS];
    bspace **spaces; /* --split-by cr3: every address space seen, all CPUs */
    size_t nspaces;
    unsigned nstreams; /* declared so far, for the buffer budget */
    int dry;           /* parse only: produce no entries (probing) */
    int sink_failed;   /* the sink returned an error: call it no more */
    st_error bad_code; /* error of an L_BAD line: ST_E_SYNTAX or ST_E_TOO_LARGE */
    uint64_t entries;
    /* A magic breakpoint ("(K) Magic breakpoint") waits for the debugger's
     * "Next at t=T" and its display of CPU K's next instruction, which give
     * the marker's cycle (T - 1) and the ip the guest resumes at. */
    int mk_pending, mk_have_t;
    unsigned mk_cpu;
    uint64_t mk_t;
    /* the last "Next at t=" while no trace line followed it: Bochs prints a
     * marker of CPU 0 before that line, and one of another CPU after it
     * (and after the display of the CPUs before) */
    int stop_valid;
    uint64_t stop_t;
    uint32_t mk_count; /* markers so far: the vector field of the next */
    /* scratch for wide values, least significant byte first */
    uint8_t value[ST_VALUE_MAX];
    uint8_t blocks[(ST_VALUE_MAX / ST_VBLOCK_BYTES + 1) * ST_VBLOCK_SIZE];
} bctx;

/* ---- small parsers ------------------------------------------------------ */

static inline int hexval(unsigned char c)
{
    if ((unsigned)(c - '0') < 10u)
        return c - '0';
    c |= 0x20; /* folds 'A'..'F' onto 'a'..'f' and leaves non-letters invalid */
    if ((unsigned)(c - 'a') < 6u)
        return c - 'a' + 10;
    return -1;
}

/* Hex digits at *p (no prefix), at most 16; returns the count (0 = none or
 * more than 16) and advances *p. */
static inline int parse_hex(const char **p, uint64_t *v)
{
    const char *s = *p;
    uint64_t x = 0;
    int n = 0, h;
    while ((h = hexval((unsigned char)s[n])) >= 0) {
        if (n == 16)
            return 0;
        x = x << 4 | (uint64_t)h;
        n++;
    }
    *p = s + n;
    *v = x;
    return n;
}

/* Decimal digits, at most 19 (fits u64); returns the count, 0 on none/too many. */
static inline int parse_dec(const char **p, uint64_t *v)
{
    const char *s = *p;
    uint64_t x = 0;
    int n = 0;
    while ((unsigned)(s[n] - '0') < 10u) {
        if (n == 19)
            return 0;
        x = x * 10 + (uint64_t)(s[n] - '0');
        n++;
    }
    *p = s + n;
    *v = x;
    return n;
}

static inline int eat(const char **p, const char *lit, size_t n)
{
    if (memcmp(*p, lit, n) != 0)
        return 0;
    *p += n;
    return 1;
}
#define EAT(p, lit) eat((p), (lit), sizeof(lit) - 1)

/* ---- streams ------------------------------------------------------------- */

static st_error flush(bctx *c, bstream *s)
{
    if (c->sink_failed) /* its error has been returned already */
        return ST_OK;
    if (s->owner) /* blocks must reach the sink after the entries that own them */
        RETURN_IF_ERROR(flush(c, s->owner));
    if (s->n == 0)
        return ST_OK;
    size_t n = s->n;
    s->n = 0;
    st_error e = c->sink->append(c->sink->arg, s->sid, s->buf, n);
    if (e != ST_OK)
        c->sink_failed = 1;
    return e;
}

static st_error declare(bctx *c, bstream *s, unsigned cpu, const char *tag, const char *suffix,
                        const char *vsuffix)
{
    char name[256];
    const char *prefix = c->o && c->o->prefix ? c->o->prefix : "";
    int k = snprintf(name, sizeof name, "%scpu%u.%s%s%s", prefix, cpu, tag, suffix, vsuffix);
    if (k < 0 || (size_t)k >= sizeof name)
        return st_diag_set(c->d, ST_E_USAGE, "stream name prefix too long");
    s->cap = c->nstreams < BX_BIG_STREAMS ? BX_BATCH : BX_SMALL_BATCH;
    s->buf = malloc(s->cap * s->esize);
    if (!s->buf)
        return ST_E_NOMEM;
    st_stream_decl decl = {name, s->type, s->owner ? s->owner->sid : UINT32_MAX, NULL, 0};
    st_error e = c->sink->add_stream(c->sink->arg, &decl, &s->sid);
    if (e != ST_OK) {
        c->sink_failed = 1;
        return e;
    }
    s->declared = 1;
    c->nstreams++;
    return ST_OK;
}

static st_error get_cpu(bctx *c, uint64_t k, bcpu **out)
{
    if (k >= BX_MAX_CPUS)
        return ST_E_SYNTAX;
    if (!c->cpu[k]) {
        bcpu *p = calloc(1, sizeof *p);
        if (!p)
            return ST_E_NOMEM;
        for (int i = 0; i < S_NPRIMARY; i++) {
            p->s[i].type = i == S_EVENTS ? ST_TYPE_EVENT : ST_TYPE_D64;
            p->s[i].esize = st_entry_size(p->s[i].type);
        }
        for (int i = 0; i < S_EVENTS; i++) {
            p->v[i].type = ST_TYPE_VBLOCK;
            p->v[i].esize = ST_VBLOCK_SIZE;
            p->v[i].owner = &p->s[i];
        }
        c->cpu[k] = p;
    }
    *out = c->cpu[k];
    return ST_OK;
}

/* Room for one more entry in stream s of cpu k (named by tag and suffix);
 * returns a pointer to it. */
static st_error slot(bctx *c, bstream *s, unsigned k, const char *tag, const char *suffix, uint8_t **e)
{
    if (!s->declared)
        RETURN_IF_ERROR(declare(c, s, k, tag, suffix, ""));
    if (s->n == s->cap)
        RETURN_IF_ERROR(flush(c, s));
    if (s->count > ST_CYCLE_MASK) /* the index of a vblock owner is 48 bits */
        return st_diag_set(c->d, ST_E_TOO_LARGE, "more than 2^48 entries in one stream");
    *e = s->buf + s->n * s->esize;
    s->n++;
    s->count++;
    c->entries++;
    return ST_OK;
}

/* One memory access of len bytes; val holds the value when len <= 8, else
 * c->value holds all len bytes. */
static st_error add_access(bctx *c, bcpu *p, unsigned k, int which, uint64_t addr, unsigned len, uint64_t val)
{
    if (c->dry)
        return ST_OK;
    uint8_t *e;
    /* linear accesses go to the streams of the CPU's address space, once a
     * page walk has named one */
    bstream *s = &p->s[which], *v = &p->v[which];
    const char *tag = "";
    if (p->space && which <= S_WRITE) {
        s = &p->space->s[which];
        v = &p->space->v[which];
        tag = p->space->tag;
    }
    uint64_t index = s->count;
    RETURN_IF_ERROR(slot(c, s, k, tag, stream_suffix[which], &e));
    uint64_t meta = p->cycle, data;
    if (len == 8) {
        meta |= UINT64_C(1) << 48; /* fullSize */
        data = val;
    } else {
        data = (uint64_t)len << 32 | (val & 0xFFFFFFFFu);
    }
    st_store64(e, meta);
    st_store64(e + 8, p->ip);
    st_store64(e + 16, addr);
    st_store64(e + 24, data);
    if (len <= 4 || len == 8)
        return ST_OK;

    /* wide: the whole value goes to the companion stream as vblocks */
    if (!v->declared)
        RETURN_IF_ERROR(declare(c, v, k, tag, stream_suffix[which], ".vdata"));
    if (len <= 8)
        for (unsigned i = 0; i < len; i++)
            c->value[i] = (uint8_t)(val >> (8 * i));
    size_t nb = st_vblock_count(len);
    st_vblock_split(index, c->value, len, c->blocks);
    for (size_t i = 0; i < nb; i++) {
        if (v->n == v->cap)
            RETURN_IF_ERROR(flush(c, v));
        memcpy(v->buf + v->n * ST_VBLOCK_SIZE, c->blocks + i * ST_VBLOCK_SIZE, ST_VBLOCK_SIZE);
        v->n++;
        v->count++;
        c->entries++;
    }
    return ST_OK;
}

static st_error event(bctx *c, bcpu *p, unsigned k, unsigned kind, uint32_t vector, uint32_t err)
{
    if (c->dry)
        return ST_OK;
    uint8_t *e;
    RETURN_IF_ERROR(slot(c, &p->s[S_EVENTS], k, "", stream_suffix[S_EVENTS], &e));
    st_store64(e, p->cycle | (uint64_t)kind << 48);
    st_store64(e + 8, p->ip);
    st_store32(e + 16, vector);
    st_store32(e + 20, err);
    return ST_OK;
}

/* The pending marker becomes an event of cpuK.events: cycle T - 1 (the
 * counter of the xchg itself) when "Next at t=T" came, else the cycle of
 * the CPU's last instruction line; ip = `ip` (the next instruction's, or the
 * last one's when the display line never came). */
static st_error marker_flush(bctx *c, int have_ip, uint64_t ip)
{
    if (!c->mk_pending)
        return ST_OK;
    c->mk_pending = 0;
    bcpu *p;
    RETURN_IF_ERROR(get_cpu(c, c->mk_cpu, &p));
    uint64_t cycle = p->cycle, saved_ip = p->ip;
    if (c->mk_have_t && c->mk_t > 0)
        p->cycle = c->mk_t - 1;
    if (have_ip)
        p->ip = ip;
    st_error e = event(c, p, c->mk_cpu, ST_EVENT_MARKER, c->mk_count++, 0);
    p->cycle = cycle;
    p->ip = saved_ip;
    return e;
}

static st_error flush_all(bctx *c)
{
    st_error first = ST_OK;
    for (unsigned k = 0; k < BX_MAX_CPUS; k++) {
        bcpu *p = c->cpu[k];
        if (!p)
            continue;
        /* primaries first, then companions (flush() orders them anyway) */
        for (int i = 0; i < S_NPRIMARY; i++) {
            st_error e = flush(c, &p->s[i]);
            if (first == ST_OK)
                first = e;
        }
        for (int i = 0; i < S_EVENTS; i++) {
            st_error e = flush(c, &p->v[i]);
            if (first == ST_OK)
                first = e;
        }
    }
    for (size_t i = 0; i < c->nspaces; i++)
        for (int j = 0; j < 2; j++) {
            st_error e = flush(c, &c->spaces[i]->v[j]); /* flushes its owner first */
            if (first == ST_OK)
                first = e;
            e = flush(c, &c->spaces[i]->s[j]);
            if (first == ST_OK)
                first = e;
        }
    return first;
}

static void free_all(bctx *c)
{
    for (unsigned k = 0; k < BX_MAX_CPUS; k++) {
        bcpu *p = c->cpu[k];
        if (!p)
            continue;
        for (int i = 0; i < S_NPRIMARY; i++)
            free(p->s[i].buf);
        for (int i = 0; i < S_EVENTS; i++)
            free(p->v[i].buf);
        free(p);
    }
    for (size_t i = 0; i < c->nspaces; i++) {
        for (int j = 0; j < 2; j++) {
            free(c->spaces[i]->s[j].buf);
            free(c->spaces[i]->v[j].buf);
        }
        free(c->spaces[i]);
    }
    free(c->spaces);
}

/* --split-by cr3: CPU k's page walk went through the top-level table at
 * physical address cr3; its later linear accesses belong to that space. */
static st_error set_space(bctx *c, bcpu *p, unsigned k, uint64_t cr3)
{
    if (p->space && p->space->cr3 == cr3)
        return ST_OK;
    for (size_t i = 0; i < c->nspaces; i++)
        if (c->spaces[i]->cpu == k && c->spaces[i]->cr3 == cr3) {
            p->space = c->spaces[i];
            return ST_OK;
        }
    if (c->nspaces == BX_MAX_SPACES)
        return st_diag_set(c->d, ST_E_TOO_LARGE, "more than %u address spaces (page-table bases)", BX_MAX_SPACES);
    if (!c->spaces) {
        c->spaces = calloc(BX_MAX_SPACES, sizeof *c->spaces);
        if (!c->spaces)
            return ST_E_NOMEM;
    }
    bspace *a = calloc(1, sizeof *a);
    if (!a)
        return ST_E_NOMEM;
    a->cr3 = cr3;
    a->cpu = k;
    snprintf(a->tag, sizeof a->tag, "cr3-%llx.", (unsigned long long)cr3);
    for (int j = 0; j < 2; j++) {
        a->s[j].type = ST_TYPE_D64;
        a->s[j].esize = st_entry_size(ST_TYPE_D64);
        a->v[j].type = ST_TYPE_VBLOCK;
        a->v[j].esize = ST_VBLOCK_SIZE;
        a->v[j].owner = &a->s[j];
    }
    c->spaces[c->nspaces++] = a;
    p->space = a;
    return ST_OK;
}

/* ---- lines --------------------------------------------------------------- */

/* Result of parsing one line: handled, skipped (known non-access text), or
 * malformed with a reason.  Hard errors (sink, memory, limits) come back as
 * an st_error through *err. */
typedef enum { L_OK, L_SKIP, L_BAD } lres;

/* "(K).[N] [0xPHY] SEG:OFF (ctxt): disasm ; bytes", or Bochs's
 * "(K).[N] ??? (physical address not available)"; also the debugger's echo
 * "(K) [0xPHY] SEG:OFF ..." of the next instruction, which is skipped. */
static lres instruction(bctx *c, const char *s, const char **why, st_error *err)
{
    uint64_t k, n, v, off;
    s++;
    if (!parse_dec(&s, &k) || *s++ != ')') {
        *why = "bad CPU number";
        return L_BAD;
    }
    if (*s == ' ') {
        /* "(K) ..." debugger status/echo line; two of them matter */
        if (strcmp(s, " Magic breakpoint") == 0) {
            if (k >= BX_MAX_CPUS) {
                *why = "CPU number out of range";
                return L_BAD;
            }
            if ((*err = marker_flush(c, 0, 0)) != ST_OK)
                return L_BAD;
            c->mk_pending = 1;
            c->mk_have_t = c->stop_valid;
            c->mk_t = c->stop_t;
            c->mk_cpu = (unsigned)k;
            return L_OK;
        }
        if (c->mk_pending && c->mk_have_t && k == c->mk_cpu && EAT(&s, " [0x") && parse_hex(&s, &v) &&
            EAT(&s, "] ") && parse_hex(&s, &v) && *s++ == ':' && parse_hex(&s, &off) && *s == ' ')
            *err = marker_flush(c, 1, off);
        return L_SKIP;
    }
    c->stop_valid = 0;
    if (c->mk_pending && (*err = marker_flush(c, 0, 0)) != ST_OK)
        return L_BAD;
    if (!EAT(&s, ".[") || !parse_dec(&s, &n) || !EAT(&s, "] ")) {
        *why = "bad instruction counter";
        return L_BAD;
    }
    if (k >= BX_MAX_CPUS) {
        *why = "CPU number out of range";
        return L_BAD;
    }
    if (n > ST_CYCLE_MASK) {
        *why = "instruction counter beyond 48 bits";
        c->bad_code = ST_E_TOO_LARGE;
        return L_BAD;
    }
    bcpu *p;
    if ((*err = get_cpu(c, k, &p)) != ST_OK)
        return L_BAD;
    if (EAT(&s, "???")) { /* no address: keep the last ip */
        p->cycle = n;
        return L_OK;
    }
    if (!EAT(&s, "[0x") || !parse_hex(&s, &v) || !EAT(&s, "] ") || !parse_hex(&s, &v) || *s++ != ':' ||
        !parse_hex(&s, &off) || *s != ' ') {
        *why = "bad instruction address";
        return L_BAD;
    }
    p->cycle = n;
    p->ip = off;
    return L_OK;
}

/* Value of a memory line, after "(len=L, TYPE)": either ": 0xW[ 0xW]..."
 * (one word holding the whole value, or 32-bit words, most significant
 * first) or " xx xx ..." (one byte each, most significant first); then
 * optionally "\t; NOTE" (Bochs marks SMRAM accesses so).  Fills *val for
 * len <= 8 and c->value (little-endian) otherwise. */
static int value(bctx *c, const char *s, unsigned len, uint64_t *val, const char **why)
{
    uint64_t w;
    const char *q;
    *val = 0;
    if (*s == ':') {
        s++;
        /* first pass: count the words and their widths, so one word holding
         * the whole value and a list of 32-bit words can be told apart */
        unsigned words = 0;
        ptrdiff_t widest = 0;
        q = s;
        while (q[0] == ' ' && q[1] == '0' && q[2] == 'x') {
            q += 3;
            const char *d0 = q;
            if (!parse_hex(&q, &w)) {
                *why = "bad value";
                return 0;
            }
            if (q - d0 > widest)
                widest = q - d0;
            words++;
        }
        if (words == 0) {
            *why = "missing value";
            return 0;
        }
        if (words == 1) {
            /* Bochs prints a single word for 1, 2 and 4 bytes only */
            if (len > 4 || widest > 2 * (ptrdiff_t)len) {
                *why = "value does not fit its length";
                return 0;
            }
            *val = w;
        } else {
            if ((size_t)words * 4 != len || widest > 8) {
                *why = "value words do not match the length";
                return 0;
            }
            const char *r = s;
            for (unsigned i = 0; i < words; i++) {
                r += 3;
                parse_hex(&r, &w); /* checked in the first pass */
                unsigned at = 4 * (words - 1 - i);
                if (len <= 8)
                    *val |= w << (8 * at);
                else
                    for (unsigned b = 0; b < 4; b++)
                        c->value[at + b] = (uint8_t)(w >> (8 * b));
            }
        }
        s = q;
    } else if (*s == ' ') {
        /* " xx" per byte, most significant first */
        for (unsigned i = 0; i < len; i++) {
            if (*s != ' ' || hexval((unsigned char)s[1]) < 0) {
                *why = "too few value bytes";
                return 0;
            }
            s++;
            q = s;
            if (!parse_hex(&q, &w) || q - s > 2) {
                *why = "bad value byte";
                return 0;
            }
            s = q;
            unsigned at = len - 1 - i;
            if (len <= 8)
                *val |= w << (8 * at);
            else
                c->value[at] = (uint8_t)w;
        }
    } else {
        *why = "missing value";
        return 0;
    }
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s != '\0' && *s != ';') {
        *why = "text after the value";
        return 0;
    }
    if (len > 8) /* the owner entry keeps the low bytes */
        *val = st_load64(c->value);
    return 1;
}

/* "[CPUK RD]: LIN 0xL PHY 0xP (len=N, TYPE): VALUE" and the physical-only
 * "[CPUK WR]: PHY 0xP (len=N, TYPE): VALUE". */
static lres memory(bctx *c, const char *s, const char **why, st_error *err)
{
    uint64_t k, lin = 0, phy, len;
    int has_lin = 0, rd, wr;
    if (!EAT(&s, "[CPU") || !parse_dec(&s, &k) || *s++ != ' ') {
        *why = "bad CPU";
        return L_BAD;
    }
    if (s[0] == 'R' && s[1] == 'D')
        rd = 1, wr = 0;
    else if (s[0] == 'W' && s[1] == 'R')
        rd = 0, wr = 1;
    else if (s[0] == 'R' && s[1] == 'W')
        rd = 1, wr = 1;
    else {
        *why = "access is not RD, WR or RW";
        return L_BAD;
    }
    s += 2;
    if (!EAT(&s, "]: ")) {
        *why = "bad access line";
        return L_BAD;
    }
    if (EAT(&s, "LIN 0x")) {
        if (!parse_hex(&s, &lin) || *s++ != ' ') {
            *why = "bad linear address";
            return L_BAD;
        }
        has_lin = 1;
    }
    if (!EAT(&s, "PHY 0x") || !parse_hex(&s, &phy) || !EAT(&s, " (len=") || !parse_dec(&s, &len) ||
        !EAT(&s, ", ")) {
        *why = "bad physical address or length";
        return L_BAD;
    }
    /* memory type: a short word (UC, WB, WC, WT, WP, ...) */
    int t = 0;
    while (s[t] && s[t] != ')' && t < 16)
        t++;
    if (t == 0 || s[t] != ')') {
        *why = "bad memory type";
        return L_BAD;
    }
    s += t + 1;
    if (len == 0 || k >= BX_MAX_CPUS) {
        *why = len == 0 ? "length 0" : "CPU number out of range";
        return L_BAD;
    }
    if (len > ST_VALUE_MAX) {
        *why = "access wider than 4096 bytes";
        c->bad_code = ST_E_TOO_LARGE;
        return L_BAD;
    }
    uint64_t val;
    if (!value(c, s, (unsigned)len, &val, why))
        return L_BAD;
    c->stop_valid = 0;
    if (c->mk_pending && (*err = marker_flush(c, 0, 0)) != ST_OK)
        return L_BAD;
    bcpu *p;
    if ((*err = get_cpu(c, k, &p)) != ST_OK)
        return L_BAD;
    if (!has_lin && c->o && c->o->split_cr3 && !c->dry) {
        /* a page walk's top-level read names the table CR3 points at:
         * "PML4E" at (CR3 & ~0xFFF) + 8 * index (4-level paging), "PDPTRn"
         * at (CR3 & ~0x1F) + 8 * n (PAE, loaded with CR3) */
        const char *note = strchr(s, ';');
        if (note) {
            note++;
            while (*note == ' ')
                note++;
            int have = 0;
            uint64_t cr3 = 0;
            if (strcmp(note, "PML4E") == 0) {
                cr3 = phy & ~(uint64_t)0xFFF;
                have = 1;
            } else if (strncmp(note, "PDPTR", 5) == 0 && note[5] >= '0' && note[5] <= '3' && note[6] == '\0') {
                cr3 = (phy - 8u * (uint64_t)(note[5] - '0')) & ~(uint64_t)0x1F;
                have = 1;
            }
            if (have && (*err = set_space(c, p, (unsigned)k, cr3)) != ST_OK)
                return L_BAD;
        }
    }
    int base = has_lin ? S_READ : S_PREAD;
    uint64_t addr = has_lin ? lin : phy;
    if (rd && (*err = add_access(c, p, (unsigned)k, base, addr, (unsigned)len, val)) != ST_OK)
        return L_BAD;
    if (wr && (*err = add_access(c, p, (unsigned)k, base + 1, addr, (unsigned)len, val)) != ST_OK)
        return L_BAD;
    return L_OK;
}

/* "CPU K: Interrupt 0xVV occurred (error_code=0xEEEE)", the same with
 * "Exception", and "CPU K: HALTED". */
static lres cpu_line(bctx *c, const char *s, const char **why, st_error *err)
{
    uint64_t k, vec, ec;
    if (!EAT(&s, "CPU ") || !parse_dec(&s, &k) || !EAT(&s, ": ") || k >= BX_MAX_CPUS) {
        *why = "bad CPU line";
        return L_BAD;
    }
    unsigned kind;
    if (strcmp(s, "HALTED") == 0) {
        kind = ST_EVENT_HALT;
        vec = ec = 0;
    } else {
        if (!EAT(&s, "Interrupt 0x") && !EAT(&s, "Exception 0x")) {
            *why = "unknown CPU event";
            return L_BAD;
        }
        if (!parse_hex(&s, &vec) || vec > 0xFF) {
            *why = "bad interrupt line";
            return L_BAD;
        }
        /* Bochs 2.7 names the exceptions it knows ("Exception 0x0e - (#PF)
         * page fault occured"); the name is not kept */
        if (EAT(&s, " - ")) {
            const char *o = strstr(s, " occur");
            if (!o) {
                *why = "bad interrupt line";
                return L_BAD;
            }
            s = o;
        }
        /* Bochs has spelt it "occured" in some versions */
        if ((!EAT(&s, " occurred (error_code=0x") && !EAT(&s, " occured (error_code=0x")) || !parse_hex(&s, &ec) ||
            ec > 0xFFFFFFFFu || strcmp(s, ")") != 0) {
            *why = "bad interrupt line";
            return L_BAD;
        }
        kind = ST_EVENT_INTERRUPT;
    }
    bcpu *p;
    c->stop_valid = 0;
    if (c->mk_pending && (*err = marker_flush(c, 0, 0)) != ST_OK)
        return L_BAD;
    if ((*err = get_cpu(c, k, &p)) != ST_OK)
        return L_BAD;
    if ((*err = event(c, p, (unsigned)k, kind, (uint32_t)vec, (uint32_t)ec)) != ST_OK)
        return L_BAD;
    return L_OK;
}

/* Debugger output that carries no access: status messages (1) and the echo
 * of the commands a trace session uses (2) (formats/IMPORT.md 13 lists them). */
static int known_text(const char *s)
{
    static const char *const prefixes[] = {
        "Next at t=", "Tracing enabled for CPU", "Tracing disabled for CPU", "Memory-Tracing enabled for CPU",
        "Memory-Tracing disabled for CPU", "Time breakpoint inserted.",
        /* the debugger's own diagnostics, such as "bx_dbg_read_linear:
         * physical address not available for linear 0x..." when it cannot
         * show an instruction whose page is not mapped */
        "bx_dbg_",
    };
    static const char *const commands[] = {
        "trace", "trace-mem", "trace-reg", "s", "step", "c", "cont", "continue", "q", "quit", "exit",
        "vb", "vbreak", "lb", "lbreak", "pb", "pbreak", "b", "break", "d", "del", "delete", "bpe", "bpd",
        "sb", "sba", "set",
    };
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(s, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    size_t w = strcspn(s, " \t");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strlen(commands[i]) == w && memcmp(s, commands[i], w) == 0)
            return 2;
    return 0;
}

static void line_diag(st_diag *d, const st_line_reader *r)
{
    if (d) {
        d->line = r->line;
        d->offset = r->offset;
    }
}

/* The reason, then the line's first 40 bytes in backquotes with
 * non-printable bytes as \xNN (the diagnostic of the other importers). */
static void bad_detail(st_diag *d, const char *why, const char *line, size_t len)
{
    if (!d)
        return;
    char shown[4 * 40 + 1];
    size_t n = len < 40 ? len : 40, k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)line[i];
        if (ch < 0x20 || ch >= 0x7F || ch == '`' || ch == '\\')
            k += (size_t)snprintf(shown + k, sizeof shown - k, "\\x%02X", ch);
        else
            shown[k++] = (char)ch;
    }
    shown[k] = '\0';
    st_diag_set(d, ST_E_SYNTAX, "%s: `%s%s`", why, shown, len > n ? "..." : "");
}

static void warn_line(const st_import_opts *o, const st_line_reader *r, const char *why, const char *line,
                      size_t len)
{
    if (!o->warn)
        return;
    st_diag w;
    st_diag_clear(&w);
    w.line = r->line;
    w.offset = r->offset;
    bad_detail(&w, why, line, len);
    o->warn(o->warn_arg, &w);
}

/*
 * The error policy is the one of the other text importers (trace_io.h,
 * import_common.c on main): malformed lines before the first valid one are
 * a probe -- BX_PROBE_LINES of them, or the end of input, mean "not this
 * format"; a valid line after them means the input is a Bochs log with a bad
 * first line, reported as such.  Known non-access lines (debugger echo) are
 * neither valid nor bad.  A NUL byte or an overlong line is binary data
 * before the first valid line and an unskippable error after it.
 */
static st_error run(bctx *c, st_line_reader *r, st_import_stats *st)
{
    const st_import_opts *o = c->o;
    int skip_bad = o && o->skip_bad;
    int valid_seen = 0;
    unsigned probe_bad = 0;
    st_diag first_bad;
    st_error first_code = ST_E_SYNTAX;
    st_diag_clear(&first_bad);
    for (;;) {
        const char *line;
        size_t len;
        st_error e = st_line_next(r, &line, &len, c->d);
        st->lines = r->line;
        st->bytes = r->next;
        if (e == ST_E_SYNTAX && !valid_seen)
            return st_diag_set(c->d, ST_E_NOT_FORMAT, "binary data (no valid Bochs line before it)");
        if (e != ST_OK)
            return e;
        if (!line)
            break;

        const char *why = "not a Bochs trace line";
        st_error err = ST_OK;
        lres res;
        /* after bad first lines, without skip_bad, a valid line only proves
         * the format: parse it without producing entries */
        c->dry = !valid_seen && probe_bad > 0 && !skip_bad;
        c->bad_code = ST_E_SYNTAX;
        switch (line[0]) {
        case '(':
            res = instruction(c, line, &why, &err);
            break;
        case '[':
            res = memory(c, line, &why, &err);
            break;
        case 'C':
            res = line[1] == 'P' ? cpu_line(c, line, &why, &err) : L_BAD;
            break;
        case '\0':
            res = L_SKIP;
            break;
        default: {
            int kt = known_text(line);
            res = kt ? L_SKIP : L_BAD;
            if (kt == 2) /* a command: the debugger's stop is over */
                c->stop_valid = 0;
            if (res == L_SKIP && strncmp(line, "Next at t=", 10) == 0) {
                const char *q = line + 10;
                uint64_t t;
                if (parse_dec(&q, &t) && *q == '\0') {
                    c->stop_t = t;
                    c->stop_valid = 1;
                    if (c->mk_pending && !c->mk_have_t) {
                        c->mk_t = t;
                        c->mk_have_t = 1;
                    }
                }
            }
            break;
        }
        }
        if (err != ST_OK) {
            line_diag(c->d, r);
            return err;
        }
        if (res == L_SKIP)
            continue;
        if (res == L_OK) {
            if (c->dry) {
                if (c->d)
                    *c->d = first_bad;
                return first_code;
            }
            valid_seen = 1;
            continue;
        }
        if (!valid_seen) {
            if (probe_bad++ == 0) {
                first_code = c->bad_code;
                st_diag_clear(&first_bad);
                first_bad.line = r->line;
                first_bad.offset = r->offset;
                bad_detail(&first_bad, why, line, len);
            }
            if (skip_bad) {
                st->bad_lines++;
                warn_line(o, r, why, line, len);
            }
            if (probe_bad >= BX_PROBE_LINES) {
                if (c->d) {
                    *c->d = first_bad;
                    st_diag_set(c->d, ST_OK, "no Bochs debugger output in the first %u lines; first: %.100s",
                                BX_PROBE_LINES, first_bad.detail);
                }
                return ST_E_NOT_FORMAT;
            }
            continue;
        }
        if (!skip_bad) {
            line_diag(c->d, r);
            bad_detail(c->d, why, line, len);
            return c->bad_code;
        }
        st->bad_lines++;
        warn_line(o, r, why, line, len);
    }
    if (!valid_seen && probe_bad) {
        if (c->d) {
            *c->d = first_bad;
            st_diag_set(c->d, ST_OK, "no valid Bochs line; first: %.120s", first_bad.detail);
        }
        return ST_E_NOT_FORMAT;
    }
    return ST_OK;
}

st_error st_import_bochs(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                         st_diag *d)
{
    st_import_stats local;
    st_import_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    if (!sink || !sink->add_stream || !sink->append)
        return st_diag_set(d, ST_E_USAGE, "no sink");
    bctx *c = calloc(1, sizeof *c);
    if (!c)
        return ST_E_NOMEM;
    c->o = o;
    c->sink = sink;
    c->d = d;
    st_line_reader r;
    st_error e = st_line_reader_init(&r, fd, o ? o->stopped : NULL);
    if (e == ST_OK) {
        e = run(c, &r, st);
        if (e == ST_OK) /* a marker the log ends after */
            e = marker_flush(c, 0, 0);
        /* what was parsed before an error still reaches the sink, unless
         * the sink itself is what failed */
        if (!c->sink_failed) {
            st_error f = flush_all(c);
            if (e == ST_OK)
                e = f;
        }
        st_line_reader_free(&r);
    }
    st->entries = c->entries;
    free_all(c);
    free(c);
    return e;
}
