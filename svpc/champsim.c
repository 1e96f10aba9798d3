/*
 * champsim.c - the champsim entry encoder (8): SIMTRACE.md 6.12.
 *
 * ChampSim's records (formats/entry.h: champsim, champsim-cloudsuite) are
 * instructions: an ip, two branch flags, register ids and memory
 * operands.  Nearly all of it is a property of the instruction, so every
 * field is predicted from the last record at the same ip (an ip line of
 * a direct-mapped table), and the ip itself from the record before it:
 *
 *   - the ip: the previous record's ip plus the fall-through distance
 *     seen after it, or the target it branched to last time, the one its
 *     branch_taken flag makes likelier first; or the ip that followed the
 *     previous two ips last time (returns, indirect jumps); else a miss,
 *     its distance from the previous ip;
 *   - is_branch and branch_taken: one flag each, "as last time at this
 *     ip", in the context of the ip's last outcomes and the last global
 *     ones (a loop's branch);
 *   - the register ids as a whole: one flag "as last time", else byte by
 *     byte, each in the context of the byte before it;
 *   - the memory operands: which are nonzero (as last time?), then per
 *     nonzero operand one of four proposals (the slot's last address plus
 *     its last stride; its last address; the last operand of the trace
 *     plus the distance the slot had from it last time, which follows the
 *     stack pointer; for a destination, the record's first source, a
 *     read-modify-write) or a miss, its distance from the slot's last
 *     address (or from the last operand of the trace);
 *   - cloudsuite's padding and asid: "as in the record before?".
 *
 * Ids and misses are range coded (rc.h) with adaptive contexts, as cm2
 * codes its ids and misses: an id's context is the id the same slot had
 * last time at the ip.  A miss is a byte count and its bytes, most
 * significant first, each through a bit tree of its kind, count and
 * position.  One template codes and decodes (ENC a constant), so the two
 * cannot disagree.  The payload is the range coder's output alone.
 */
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "rc.h"

/* ip lines: 2^16, as many as the distinct ips of a long trace's hot code
 * (hello_pin317's 296,526 records have 12,710) without many collisions */
#define CS_LINE_BITS 16
#define CS_PATH_BITS 16
#define CS_MAX_MEM 8
#define CS_MAX_REGS 8
#define CS_EXTRA 14 /* cloudsuite's padding after the registers (6) and asid with its padding (8) */

/* Kinds of miss, each with its own trees. */
enum { MK_IP, MK_MEM, MK_COUNT };
/* Proposals for a memory operand; CS_MISS: none was right. */
enum { MP_STRIDE, MP_LAST, MP_REL, MP_SRC, CS_MISS, MP_COUNT = CS_MISS };

typedef struct {
    uint64_t ip;    /* the ip this line holds (valid when epoch is the frame's) */
    uint64_t fall;  /* next ip - ip after it, when it did not branch; 0: not seen */
    uint64_t target; /* next ip after it when it branched (taken); 0: not seen */
    uint64_t mem[CS_MAX_MEM];    /* last nonzero address of each slot */
    uint64_t stride[CS_MAX_MEM]; /* its last change */
    uint64_t rel[CS_MAX_MEM];    /* its last distance from the trace's operand before it */
    uint32_t epoch;
    uint8_t flags[2];            /* is_branch, branch_taken */
    uint8_t regs[CS_MAX_REGS];
    uint8_t mask;                /* nonzero slots */
    uint8_t id[CS_MAX_MEM];      /* the last proposal id of each slot */
    uint8_t hist;                /* the last 3 branch_taken flags (!= 0) */
    uint8_t ipid;                /* how the ip after it was coded last time */
} cs_line;

typedef struct {
    rc_prob ipcand[4][4][4][3]; /* ip is proposal k: [class of the previous record][its line's last ipid][path hit][k] */
    rc_prob flag_eq[2][4][8][4]; /* flag byte as last time: [byte][seen, is_branch][local history][global history] */
    rc_prob flag_tree[2][3][256]; /* flag byte otherwise: [byte][min(is_branch, 2) or 0] */
    rc_prob regs_eq[2];          /* registers as last time: [is_branch] */
    rc_prob reg_tree[CS_MAX_REGS][256][256]; /* register byte: [position][the byte before it] */
    rc_prob mask_eq[2];          /* nonzero slots as last time: [is_branch] */
    rc_prob mask_tree[2][256];   /* nonzero slots: [seen] */
    rc_prob mid[2][2][MP_COUNT + 1][8]; /* operand id: [destination][seen][its last id] 3-bit tree */
    rc_prob nb[MK_COUNT][2][16];  /* miss byte count 0..8: [kind][sign of... : context] 4-bit tree */
    rc_prob mbyte[MK_COUNT][9][8][256]; /* miss byte: [kind][count][position from the top] */
    rc_prob extra_eq[2];         /* cloudsuite extra bytes as in the record before: [last flag] */
    rc_prob extra_tree[CS_EXTRA][256];
} cs_probs;

typedef struct {
    cs_probs pr;
    uint32_t epoch;                  /* the frame's: lines of other epochs are empty */
    cs_line line[1u << CS_LINE_BITS];
    uint64_t path[1u << CS_PATH_BITS]; /* the ip that followed two ips: (path hash) -> ip */
} cs_model;

/* The model, allocated zeroed on first use (every line then of epoch 0,
 * and no frame's epoch is 0), ready for a new frame. */
static st_error cs_model_ready(cs_model **mp)
{
    cs_model *m = *mp;
    if (!m && !(m = *mp = calloc(1, sizeof *m)))
        return ST_E_NOMEM;
    if (++m->epoch == 0) {
        /* 2^32 frames later: lines of the first frame look valid again */
        memset(m->line, 0, sizeof m->line);
        m->epoch = 1;
    }
    memset(m->path, 0, sizeof m->path);
    rc_prob *p = (rc_prob *)(void *)&m->pr;
    for (size_t i = 0; i < sizeof m->pr / sizeof(rc_prob); i++)
        p[i] = RC_PROB_INIT;
    return ST_OK;
}

/* ---- coding primitives: one call site for encoder and decoder ------------ */

typedef struct {
    rc_enc e;
    rc_dec d;
} cs_io;

/* One bit: the encoder writes `bit` and returns it; the decoder returns
 * what it reads. */
ST_INLINE unsigned cs_bit(cs_io *io, const int ENC, rc_prob *p, unsigned bit)
{
    if (ENC) {
        rc_encode(&io->e, p, bit, RC_COUNTED);
        return bit;
    }
    return rc_decode(&io->d, p, RC_COUNTED);
}

/* nbits of sym through the bit tree t, likewise. */
ST_INLINE unsigned cs_tree(cs_io *io, const int ENC, rc_prob *t, unsigned nbits, unsigned sym)
{
    if (ENC) {
        rc_encode_tree(&io->e, t, nbits, sym, RC_COUNTED);
        return sym;
    }
    return rc_decode_tree(&io->d, t, nbits, RC_COUNTED);
}

/* A miss of kind k: v's count of significant bytes (4-bit tree, context
 * ctx), then its bytes, most significant first. */
ST_INLINE uint64_t cs_miss(cs_model *m, cs_io *io, const int ENC, unsigned k, unsigned ctx, uint64_t v)
{
    unsigned nb = 0;
    if (ENC)
        while (nb < 8 && (v >> (8 * nb)) != 0)
            nb++;
    nb = cs_tree(io, ENC, m->pr.nb[k][ctx], 4, nb);
    if (nb > 8) /* only a corrupt payload decodes this */
        nb = 8, io->d.overrun = 1;
    uint64_t r = 0;
    for (unsigned j = 0; j < nb; j++) {
        const unsigned shift = 8 * (nb - 1 - j);
        r |= (uint64_t)cs_tree(io, ENC, m->pr.mbyte[k][nb][j], 8, (unsigned)(v >> shift) & 0xFFu) << shift;
    }
    return r;
}

static inline uint64_t zigzag(uint64_t d) { return (d << 1) ^ (uint64_t)((int64_t)d >> 63); }
static inline uint64_t unzigzag(uint64_t z) { return (z >> 1) ^ (uint64_t)-(int64_t)(z & 1); }

static inline uint32_t line_of(uint64_t ip) { return (uint32_t)((ip * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - CS_LINE_BITS)); }
static inline uint32_t path_of(uint64_t a, uint64_t b)
{
    return (uint32_t)(((a ^ (b * UINT64_C(0xD6E8FEB86659FD93))) * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - CS_PATH_BITS));
}

/* What one record leaves for the next. */
typedef struct {
    uint64_t ip, ip2;  /* the previous record's ip, and the one before it */
    uint32_t pline;    /* its line */
    unsigned pclass;   /* 0 not a branch, 1 not taken, 2 taken, 3 no previous record */
    unsigned ghist;    /* the last 2 branch_taken flags of branches */
    uint64_t gbase;    /* the last nonzero operand of the trace */
    unsigned extra_last;
    uint8_t extra[CS_EXTRA];
} cs_state;

/* The byte offsets of cloudsuite's extra bytes. */
static inline unsigned extra_off(unsigned j) { return j < 6 ? ST_CS_PAD1_OFF + j : ST_CS_TAIL_OFF + (j - 6); }

/* Code record r (decoding: fill it) of type T. */
ST_INLINE void cs_record(cs_model *m, cs_io *io, const int ENC, const st_entry_type T, cs_state *s, uint8_t *r)
{
    const unsigned nreg = ST_CS_REGS(T), nd = ST_CS_NDST(T), nm = ST_CS_NMEM(T), moff = ST_CS_MEM_OFF(T);
    cs_probs *pr = &m->pr;

    /* ---- ip ---- */
    cs_line *pl = &m->line[s->pline];
    /* (the previous record made its line: it is valid unless there is none) */
    const int pvalid = s->pclass != 3;
    uint64_t cand[3];
    unsigned nc = 0;
    if (pvalid) {
        const uint64_t fall = pl->fall ? s->ip + pl->fall : 0, tgt = pl->target;
        const uint64_t first = s->pclass == 2 ? tgt : fall, second = s->pclass == 2 ? fall : tgt;
        if (first)
            cand[nc++] = first;
        if (second && second != first)
            cand[nc++] = second;
    }
    const uint64_t pathv = pvalid ? m->path[path_of(s->ip, s->ip2)] : 0;
    if (pathv && (nc < 1 || pathv != cand[0]) && (nc < 2 || pathv != cand[1]))
        cand[nc++] = pathv;
    const unsigned lastid = pvalid ? pl->ipid : 3;
    uint64_t ip = ENC ? st_load64(r) : 0;
    unsigned ipid = nc;
    for (unsigned k = 0; k < nc; k++)
        if (cs_bit(io, ENC, &pr->ipcand[s->pclass][lastid][pathv != 0][k], ENC ? ip == cand[k] : 0)) {
            ipid = k;
            break;
        }
    if (ipid < nc)
        ip = cand[ipid];
    else
        ip = s->ip + unzigzag(cs_miss(m, io, ENC, MK_IP, s->pclass == 2, zigzag(ip - s->ip)));
    if (!ENC)
        st_store64(r, ip);
    if (pvalid) {
        m->path[path_of(s->ip, s->ip2)] = ip;
        /* the previous record's line learns where it went */
        if (s->pclass == 2)
            pl->target = ip;
        else
            pl->fall = ip - s->ip;
        pl->ipid = (uint8_t)(ipid < nc ? ipid : 3);
    }

    /* ---- the record's line ---- */
    const uint32_t li = line_of(ip);
    cs_line *L = &m->line[li];
    const int seen = L->epoch == m->epoch && L->ip == ip;
    if (!seen) {
        memset(L, 0, sizeof *L);
        L->epoch = m->epoch;
        L->ip = ip;
        L->ipid = 3;
    }

    /* ---- branch flags ---- */
    uint8_t fl[2];
    for (unsigned b = 0; b < 2; b++) {
        const unsigned ctx1 = b == 0 ? (unsigned)seen : (unsigned)seen * 2 + (fl[0] != 0) + (fl[0] > 1);
        const unsigned actual = ENC ? r[8 + b] : 0;
        const unsigned pred = L->flags[b];
        rc_prob *pe = &pr->flag_eq[b][ctx1 > 3 ? 3 : ctx1][b ? L->hist : 0][b ? s->ghist : 0];
        if (cs_bit(io, ENC, pe, ENC ? actual == pred : 0))
            fl[b] = (uint8_t)pred;
        else
            fl[b] = (uint8_t)cs_tree(io, ENC, pr->flag_tree[b][b ? (fl[0] > 2 ? 2 : fl[0]) : 0], 8, actual);
    }
    if (!ENC) {
        r[8] = fl[0];
        r[9] = fl[1];
    }
    const unsigned isbr = fl[0] != 0;

    /* ---- registers ---- */
    if (!(seen && cs_bit(io, ENC, &pr->regs_eq[isbr], ENC ? memcmp(r + 10, L->regs, nreg) == 0 : 0))) {
        unsigned before = fl[0];
        for (unsigned j = 0; j < nreg; j++) {
            before = cs_tree(io, ENC, pr->reg_tree[j][before & 0xFF], 8, ENC ? r[10 + j] : 0);
            L->regs[j] = (uint8_t)before;
        }
    }
    if (!ENC)
        memcpy(r + 10, L->regs, nreg);

    /* ---- memory operands: sources first, so a destination may be one ---- */
    unsigned mask = 0;
    if (ENC)
        for (unsigned k = 0; k < nm; k++)
            mask |= (st_load64(r + moff + 8 * k) != 0) << k;
    if (!(seen && cs_bit(io, ENC, &pr->mask_eq[isbr], mask == L->mask)))
        mask = cs_tree(io, ENC, pr->mask_tree[seen], nm, mask);
    else
        mask = L->mask;
    uint64_t src0 = 0;
    for (unsigned o = 0; o < nm; o++) {
        const unsigned k = o < nm - nd ? nd + o : o - (nm - nd);
        const unsigned dst = k < nd;
        uint64_t a = 0;
        if (mask >> k & 1) {
            a = ENC ? st_load64(r + moff + 8 * k) : 0;
            const uint64_t last = L->mem[k];
            uint64_t prop[MP_COUNT];
            prop[MP_STRIDE] = last ? last + L->stride[k] : 0;
            prop[MP_LAST] = last;
            prop[MP_REL] = last ? s->gbase + L->rel[k] : 0;
            prop[MP_SRC] = dst ? src0 : 0;
            unsigned id = CS_MISS;
            if (ENC)
                for (unsigned q = 0; q < MP_COUNT; q++)
                    if (prop[q] && prop[q] == a) {
                        id = q;
                        break;
                    }
            id = cs_tree(io, ENC, pr->mid[dst][seen && last][L->id[k]], 3, id);
            if (id > CS_MISS) /* only a corrupt payload decodes this */
                io->d.overrun = 1, id = CS_MISS;
            if (id < CS_MISS) {
                a = prop[id];
            } else {
                const uint64_t ref = last ? last : s->gbase;
                a = ref + unzigzag(cs_miss(m, io, ENC, MK_MEM, last != 0, zigzag(a - ref)));
            }
            if (last)
                L->stride[k] = a - last;
            L->rel[k] = a - s->gbase;
            L->mem[k] = a;
            L->id[k] = (uint8_t)id;
            s->gbase = a;
            if (!dst && !src0)
                src0 = a;
        }
        if (!ENC)
            st_store64(r + moff + 8 * k, a);
    }
    L->mask = (uint8_t)mask;

    /* ---- cloudsuite's padding and asid ---- */
    if (T == ST_TYPE_CHAMPSIM_CS) {
        int same = 1;
        if (ENC)
            for (unsigned j = 0; j < CS_EXTRA; j++)
                same &= r[extra_off(j)] == s->extra[j];
        same = (int)cs_bit(io, ENC, &pr->extra_eq[s->extra_last], (unsigned)same);
        s->extra_last = (unsigned)same;
        for (unsigned j = 0; j < CS_EXTRA; j++) {
            if (!same)
                s->extra[j] = (uint8_t)cs_tree(io, ENC, pr->extra_tree[j], 8, ENC ? r[extra_off(j)] : 0);
            if (!ENC)
                r[extra_off(j)] = s->extra[j];
        }
    }

    /* ---- what the next record sees ---- */
    if (fl[0])
        L->hist = (uint8_t)(((L->hist << 1) | (fl[1] != 0)) & 7u);
    if (fl[0])
        s->ghist = ((s->ghist << 1) | (fl[1] != 0)) & 3u;
    L->flags[0] = fl[0];
    L->flags[1] = fl[1];
    s->ip2 = s->pclass != 3 ? s->ip : 0;
    s->ip = ip;
    s->pline = li;
    s->pclass = !fl[0] ? 0 : fl[1] ? 2 : 1;
}

static void cs_state_init(cs_state *s)
{
    memset(s, 0, sizeof *s);
    s->pclass = 3;
}

/* ---- frames: per-type instances ---------------------------------------------- */

ST_INLINE st_error encode_T(cs_model *m, const st_entry_type T, const uint8_t *raw, size_t *n,
                            const svpc_source *src, st_buf *out)
{
    const size_t esz = st_entry_size(T);
    cs_io io;
    rc_enc_init(&io.e, out);
    cs_state s;
    cs_state_init(&s);
    uint8_t rec[96];
    /* entries fed as they arrive (src) are asked for only when those
     * ready run out: one comparison per entry */
    size_t i = 0, ready = src ? 0 : *n;
    for (;; i++) {
        if (i == ready && (!src || (ready = src->more(src->arg, i)) <= i || ready > SVPC_MAX_FRAME_ENTRIES))
            break;
        memcpy(rec, raw + i * esz, esz);
        cs_record(m, &io, 1, T, &s, rec);
    }
    if (ready > SVPC_MAX_FRAME_ENTRIES)
        return ST_E_USAGE;
    *n = i;
    return rc_enc_finish(&io.e);
}

ST_INLINE st_error decode_T(cs_model *m, const st_entry_type T, const uint8_t *payload, size_t len, size_t n,
                            size_t stop, uint8_t *raw, st_diag *d)
{
    const size_t esz = st_entry_size(T);
    cs_io io;
    rc_dec_init(&io.d, payload, len);
    cs_state s;
    cs_state_init(&s);
    for (size_t i = 0; i < stop; i++) {
        cs_record(m, &io, 0, T, &s, raw + i * esz);
        /* past its end the decoder reads zeros: what it made of them is not an entry */
        if (io.d.overrun)
            return st_diag_set(d, ST_E_CORRUPT, "record %zu: the range coder's stream is corrupt or ends too early", i);
    }
    if (stop == n && io.d.overrun)
        return st_diag_set(d, ST_E_CORRUPT, "the range coder's stream is corrupt or too short");
    if (stop == n && io.d.pos != io.d.len)
        return st_diag_set(d, ST_E_CORRUPT, "the range coder's stream has %zu bytes left over", io.d.len - io.d.pos);
    return ST_OK;
}

static st_error cs_ready(svpc_ctx *c, cs_model **m)
{
    cs_model *have = c->model[SVPC_ENC_CHAMPSIM];
    RETURN_IF_ERROR(cs_model_ready(&have));
    c->model[SVPC_ENC_CHAMPSIM] = have;
    *m = have;
    return ST_OK;
}

static st_error cs_encode(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw,
                          const svpc_source *src, size_t *n, st_buf *out)
{
    (void)p; /* no second stage */
    cs_model *m;
    RETURN_IF_ERROR(cs_ready(c, &m));
    const size_t start = out->len;
    st_error e = t == ST_TYPE_CHAMPSIM ? encode_T(m, ST_TYPE_CHAMPSIM, raw, n, src, out)
                                       : encode_T(m, ST_TYPE_CHAMPSIM_CS, raw, n, src, out);
    if (e == ST_OK)
        svpc_stats_one(c, "records (range coded)", out->len - start);
    return e;
}

static st_error cs_decode(svpc_ctx *c, st_entry_type t, const uint8_t *payload, size_t len, size_t n, size_t stop,
                          uint8_t *raw, st_diag *d)
{
    cs_model *m;
    RETURN_IF_ERROR(cs_ready(c, &m));
    return t == ST_TYPE_CHAMPSIM ? decode_T(m, ST_TYPE_CHAMPSIM, payload, len, n, stop, raw, d)
                                 : decode_T(m, ST_TYPE_CHAMPSIM_CS, payload, len, n, stop, raw, d);
}

static int cs_supports(st_entry_type t) { return t == ST_TYPE_CHAMPSIM || t == ST_TYPE_CHAMPSIM_CS; }
static size_t cs_memory(void) { return sizeof(cs_model); }

const svpc_codec svpc_codec_champsim = {SVPC_ENC_CHAMPSIM, "champsim", cs_supports, cs_memory, 1,
                                        cs_encode, cs_decode, NULL};
