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
 *     nonzero operand one of five proposals (the slot's last address plus
 *     its last stride; its last address; the last operand of the trace
 *     plus the distance the slot had from it last time, which follows the
 *     stack pointer; for a destination, the record's first source, a
 *     read-modify-write; the last address plus the stride before the
 *     last, for strides that alternate) or a miss, its distance from the
 *     nearest of the slot's last address (or the last operand of the
 *     trace) and the last operands of the last 6 pages;
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
#include "lazy.h"
#include "rc.h"

/* ip lines: 2^16, as many as the distinct ips of a long trace's hot code
 * (hello_pin317's 296,526 records have 12,710) without many collisions */
#define CS_LINE_BITS 16
#define CS_PATH_BITS 16
#define CS_MAX_MEM 8
#define CS_MAX_REGS 8
#define CS_EXTRA 14
/* Memory misses are coded from the nearest of the slot's last address
 * and the last operands of the last CS_REGIONS regions (pages of
 * 2^CS_REGION_SHIFT bytes: the stack's, the heap's, a library's data):
 * a slot whose ip reaches the stack and the heap in turn, the first
 * operand of an ip.  Payloads of hello_pin317 and simple_array: 6
 * regions of 2^12 bytes 59,513 and 30,730 bytes; 4 of 2^12 bytes 59,911
 * and 30,999; 4 of 2^24 bytes 61,292 and 31,614. */
#define CS_REGIONS 6
#define CS_REGION_SHIFT 12 /* cloudsuite's padding after the registers (6) and asid with its padding (8) */

#define CS_SHAPE_BITS 10 /* shape_of() */
#define CS_TUP_BITS 12   /* tuple_of() */

/* Kinds of miss, each with its own trees. */
enum { MK_IP, MK_MEM, MK_COUNT };
/* Proposals for a memory operand; CS_MISS: none was right. */
enum { MP_STRIDE, MP_LAST, MP_REL, MP_SRC, MP_STRIDE2, CS_MISS, MP_COUNT = CS_MISS };

/* The state of a memory slot at an ip.  Three per ip: the first
 * destination, the first source, and the others (ChampSim's Pin tracer
 * fills at most one of each on the corpus).  They are kept apart from
 * the ip lines, which every record reads: the lines' cache misses were
 * most of the decoder's time, and 48-byte lines without them take 40%
 * less of it than 128-byte lines with them. */
#define CS_SLOTS 3
typedef struct {
    uint64_t mem;    /* the last nonzero address */
    uint64_t stride; /* its last change */
    uint64_t stride2; /* the change before it */
    uint64_t rel;    /* its last distance from the trace's operand before it */
} cs_slot;

typedef struct {
    uint64_t ip;     /* the ip this line holds (valid when epoch is the frame's) */
    uint64_t fall;   /* next ip - ip after it, when it did not branch; 0: not seen */
    uint64_t target; /* next ip after it when it branched (taken); 0: not seen */
    uint32_t epoch;
    uint8_t flags[2];            /* is_branch, branch_taken */
    uint8_t regs[CS_MAX_REGS];
    uint8_t mask;                /* nonzero operands */
    uint8_t id[CS_SLOTS];        /* the last proposal id of each slot */
    uint8_t hist;                /* the last 3 branch_taken flags (!= 0) */
    uint8_t ipid;                /* how the ip after it was coded last time */
    uint8_t nexthist;            /* the last 2 whole-record flags of the record after it */
    uint8_t selfhist;            /* the last 2 whole-record flags of its own records */
} cs_line;

typedef struct {
    rc_prob all[4][4][4][4];    /* the whole record as predicted: [class of the previous record][its line's
                                   nexthist][the likeliest ip's line's selfhist][the last 2 whole-record flags] */
    rc_prob ilen[1u << CS_SHAPE_BITS][16]; /* the length of an instruction seen first: [shape_of()] 4-bit tree, 0: other */
    rc_prob ipcand[4][4][4][3]; /* ip is proposal k: [class of the previous record][its line's last ipid][path hit][k] */
    rc_prob flag_eq[2][4][8][4]; /* flag byte as last time: [byte][seen, is_branch][local history][global history] */
    rc_prob flag_tree[2][3][256]; /* flag byte otherwise: [byte][min(is_branch, 2) or 0] */
    rc_prob regs_eq[2];          /* registers as last time: [is_branch] */
    rc_prob regs_tup[2][2];      /* registers as after the previous record's last time: [seen][any] */
    rc_prob reg_zero[CS_MAX_REGS][16];        /* register byte is 0: [position][the tree's context, folded to 4 bits] */
    rc_prob mask_eq[2];          /* nonzero slots as last time: [is_branch] */
    rc_prob mask_tree[2][2][256]; /* nonzero operands: [seen][is_branch] */
    rc_prob mid[2][2][MP_COUNT + 1][8]; /* operand id: [destination][seen][its last id] 3-bit tree */
    rc_prob nb[MK_COUNT][4][16];  /* miss byte count 0..8: [kind][context] 4-bit tree */
    rc_prob msel[2][8];           /* a memory miss's reference: [the slot has a last address] 3-bit tree */
    rc_prob extra_eq[2];         /* cloudsuite extra bytes as in the record before: [last flag] */
    rc_prob extra_tree[CS_EXTRA][256];
} cs_probs;

/* The tables reset lazily (lazy.h): the byte trees, and the path and
 * tuple tables by blocks of 4 KiB. */
#define CS_PATH_BLOCK 512u
#define CS_TUP_BLOCK 512u
typedef struct {
    uint32_t reg_tree[CS_MAX_REGS][256];
    uint32_t mbyte[MK_COUNT][4][9][8];
    uint32_t path[(1u << CS_PATH_BITS) / CS_PATH_BLOCK];
    uint32_t tup[(1u << CS_TUP_BITS) / CS_TUP_BLOCK];
} cs_stamps;

typedef struct {
    cs_probs pr;
    uint32_t epoch;                  /* the frame's: lines of other epochs are empty */
    cs_stamps stamp;
    /* register byte: [position][context] byte trees; most are never used */
    rc_prob reg_tree[CS_MAX_REGS][256][256];
    rc_prob mbyte[MK_COUNT][4][9][8][256]; /* miss byte: [kind][context][count][position from the top] */
    cs_line line[1u << CS_LINE_BITS];
    cs_slot slot[1u << CS_LINE_BITS][CS_SLOTS]; /* of each line's ip */
    uint64_t path[1u << CS_PATH_BITS]; /* the ip that followed two ips: (path hash) -> ip */
    uint8_t tup[1u << CS_TUP_BITS][CS_MAX_REGS]; /* registers after a record's: tuple_of() -> registers */
} cs_model;

/* The model (svpc_model(): allocated zeroed on first use, every line then
 * of epoch 0, and no frame's epoch is 0), ready for a new frame. */
static st_error cs_model_ready(svpc_ctx *c, cs_model **mp)
{
    cs_model *m;
    RETURN_IF_ERROR(svpc_model(c, SVPC_ENC_CHAMPSIM, sizeof *m, (void **)&m));
    *mp = m;
    if (lazy_next(&m->epoch, &m->stamp, sizeof m->stamp))
        /* 2^32 frames later: lines of the first frame look valid again */
        memset(m->line, 0, sizeof m->line);
    rc_prob *p = (rc_prob *)(void *)&m->pr;
    for (size_t i = 0; i < sizeof m->pr / sizeof(rc_prob); i++)
        p[i] = RC_PROB_INIT;
    return ST_OK;
}

/* Tree [idx] (one or more subscripts) of the lazy table tbl. */
#define CS_TREE(m, tbl, idx) lazy_probs((m)->tbl idx, 256, &(m)->stamp.tbl idx, (m)->epoch)

/* The path table's entry h, and the tuple table's. */
static inline uint64_t *cs_path(cs_model *m, uint32_t h)
{
    uint64_t *block = lazy_zeros(&m->path[h / CS_PATH_BLOCK * CS_PATH_BLOCK], CS_PATH_BLOCK * sizeof m->path[0],
                                 &m->stamp.path[h / CS_PATH_BLOCK], m->epoch);
    return block + h % CS_PATH_BLOCK;
}
static inline uint8_t *cs_tup(cs_model *m, uint32_t h)
{
    uint8_t(*block)[CS_MAX_REGS] = lazy_zeros(&m->tup[h / CS_TUP_BLOCK * CS_TUP_BLOCK], CS_TUP_BLOCK * sizeof m->tup[0],
                                              &m->stamp.tup[h / CS_TUP_BLOCK], m->epoch);
    return block[h % CS_TUP_BLOCK];
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

/* The bytes of v without its leading zero bytes. */
static inline unsigned bytes_of(uint64_t v)
{
    unsigned nb = 0;
    while (nb < 8 && (v >> (8 * nb)) != 0)
        nb++;
    return nb;
}

/* A miss of kind k: v's count of significant bytes (4-bit tree, context
 * ctx), then its bytes, most significant first, each through the tree of
 * the kind, context, count and position (the context sets apart the
 * distances from a slot's last address, small strides, from those from a
 * region's last operand). */
ST_INLINE uint64_t cs_miss(cs_model *m, cs_io *io, const int ENC, unsigned k, unsigned ctx, uint64_t v)
{
    unsigned nb = cs_tree(io, ENC, m->pr.nb[k][ctx], 4, ENC ? bytes_of(v) : 0);
    if (nb > 8) /* only a corrupt payload decodes this */
        nb = 8, io->d.overrun = 1;
    uint64_t r = 0;
    for (unsigned j = 0; j < nb; j++) {
        const unsigned shift = 8 * (nb - 1 - j);
        r |= (uint64_t)cs_tree(io, ENC, CS_TREE(m, mbyte, [k][ctx][nb][j]), 8, (unsigned)(v >> shift) & 0xFFu) << shift;
    }
    return r;
}

static inline uint64_t zigzag(uint64_t d) { return (d << 1) ^ (uint64_t)((int64_t)d >> 63); }
static inline uint64_t unzigzag(uint64_t z) { return (z >> 1) ^ (uint64_t)-(int64_t)(z & 1); }

/* The line of an ip: its low bits with the higher ones folded in, so that
 * the instructions of a stretch of code have neighbouring lines (a
 * multiplicative hash scattered them over the table: a cache and TLB miss
 * per record, most of the decoder's time) */
static inline uint32_t line_of(uint64_t ip)
{
    return (uint32_t)((ip ^ (ip >> CS_LINE_BITS) ^ (ip >> (2 * CS_LINE_BITS))) & ((1u << CS_LINE_BITS) - 1u));
}
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
    unsigned allhist;  /* the last 2 whole-record flags */
    unsigned extra_last;
    uint8_t extra[CS_EXTRA];
    uint64_t region[CS_REGIONS]; /* the last operand of each of the last regions, most recent first */
} cs_state;

/* a's region first among the last regions' operands */
static inline void region_see(uint64_t *region, uint64_t a)
{
    unsigned j = 0;
    while (j < CS_REGIONS - 1 && (region[j] >> CS_REGION_SHIFT) != (a >> CS_REGION_SHIFT))
        j++;
    memmove(region + 1, region, j * sizeof *region);
    region[0] = a;
}

/* A hash of what a line says of its instruction's kind: flags,
 * registers, nonzero operands; CS_SHAPE_BITS bits. */
static inline unsigned shape_of(const cs_line *L)
{
    uint64_t h = st_load64(L->regs) ^ ((uint64_t)L->flags[0] << 3) ^ ((uint64_t)L->mask << 11);
    return (unsigned)((h * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - CS_SHAPE_BITS));
}

/* A hash of the previous record's registers and this record's nonzero
 * operands and is_branch; CS_TUP_BITS bits. */
static inline unsigned tuple_of(const uint8_t *prev_regs, unsigned mask, unsigned isbr)
{
    const uint64_t h = st_load64(prev_regs) ^ ((uint64_t)mask << 1 | (isbr != 0)) * UINT64_C(0xD6E8FEB86659FD93);
    return (unsigned)((h * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - CS_TUP_BITS));
}

/* The byte offsets of cloudsuite's extra bytes. */
static inline unsigned extra_off(unsigned j) { return j < 6 ? ST_CS_PAD1_OFF + j : ST_CS_TAIL_OFF + (j - 6); }

/* The proposals for a memory operand of slot state S (6.12.4), gbase the
 * trace's operand before it, src0 the record's first source (0: none). */
static inline void cs_props(const cs_slot *S, uint64_t gbase, uint64_t src0, int dst, uint64_t prop[MP_COUNT])
{
    const uint64_t last = S->mem;
    prop[MP_STRIDE] = last ? last + S->stride : 0;
    prop[MP_LAST] = last;
    prop[MP_REL] = last ? gbase + S->rel : 0;
    prop[MP_SRC] = dst ? src0 : 0;
    prop[MP_STRIDE2] = last ? last + S->stride2 : 0;
}

/* The proposal a slot is expected to take (its id last time, if that was
 * one and proposes, else the stride's), or CS_MISS if none proposes. */
static inline unsigned cs_expected(const uint64_t prop[MP_COUNT], unsigned lastid)
{
    if (lastid < CS_MISS && prop[lastid])
        return lastid;
    return prop[MP_STRIDE] ? MP_STRIDE : CS_MISS;
}

/* The slot state of memory operand k (destinations 0..nd-1 first). */
static inline unsigned slot_of(unsigned k, unsigned nd) { return k < nd ? (k ? 2u : 0u) : (k == nd ? 1u : 2u); }

/* 1 if record r (encoder) is what the ip line L (of its ip, seen) and the
 * state predict for every field: the whole-record flag's test.  Only
 * records whose operands have slot states of their own (the first
 * destination and first source) qualify, so that no operand's proposal
 * depends on another's update. */
static int cs_all_predicted(const cs_line *L, const cs_slot *sl, const cs_state *s, st_entry_type T,
                            const uint8_t *r)
{
    const unsigned nreg = ST_CS_REGS(T), nd = ST_CS_NDST(T), nm = ST_CS_NMEM(T), moff = ST_CS_MEM_OFF(T);
    if (r[8] != L->flags[0] || r[9] != L->flags[1] || memcmp(r + 10, L->regs, nreg) != 0)
        return 0;
    unsigned mask = 0;
    for (unsigned k = 0; k < nm; k++)
        mask |= (unsigned)(st_load64(r + moff + 8 * k) != 0) << k;
    if (mask != L->mask || (mask & ~((1u << nd) | 1u)))
        return 0;
    uint64_t gbase = s->gbase, src0 = 0, prop[MP_COUNT];
    for (unsigned o = 0; o < 2; o++) {
        const unsigned k = o ? 0 : nd, j = slot_of(k, nd);
        if (!(mask >> k & 1))
            continue;
        cs_props(&sl[j], gbase, src0, k < nd, prop);
        const unsigned e = cs_expected(prop, L->id[j]);
        const uint64_t a = st_load64(r + moff + 8 * k);
        if (e == CS_MISS || prop[e] != a)
            return 0;
        gbase = a;
        if (k >= nd)
            src0 = a;
    }
    if (T == ST_TYPE_CHAMPSIM_CS)
        for (unsigned j = 0; j < CS_EXTRA; j++)
            if (r[extra_off(j)] != s->extra[j])
                return 0;
    return 1;
}

/* Code record r (decoding: fill it) of type T. */
ST_INLINE void cs_record(cs_model *m, cs_io *io, const int ENC, const st_entry_type T, cs_state *s, uint8_t *r)
{
    const unsigned nreg = ST_CS_REGS(T), nd = ST_CS_NDST(T), nm = ST_CS_NMEM(T), moff = ST_CS_MEM_OFF(T);
    cs_probs *pr = &m->pr;

    /* ---- the ip's proposals ---- */
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
    uint64_t ip = ENC ? st_load64(r) : 0;

    /* ---- the whole record as predicted? ---- */
    /* the line of the likeliest ip and the path's entry, asked for while
     * the flag is decoded: their cache misses were the decoder's largest
     * cost */
    const uint32_t path = path_of(s->ip, s->ip2);
#if defined(__GNUC__)
    if (nc)
        __builtin_prefetch(&m->line[line_of(cand[0])]);
    __builtin_prefetch(&m->path[path]);
#endif
    /* (only when the likeliest ip's line is seen: else it is 0) */
    unsigned all = 0;
    const uint32_t ei = nc ? line_of(cand[0]) : 0;
    const cs_line *E = &m->line[ei];
    if (nc && E->epoch == m->epoch && E->ip == cand[0]) {
        if (ENC && ip == cand[0])
            all = (unsigned)cs_all_predicted(E, m->slot[ei], s, T, r);
        all = cs_bit(io, ENC, &pr->all[s->pclass][pl->nexthist][E->selfhist][s->allhist], all);
        pl->nexthist = (uint8_t)(((pl->nexthist << 1) | all) & 3u);
        s->allhist = ((s->allhist << 1) | all) & 3u;
    }
    /* the path's proposal, where the first is not taken for granted (the
     * path table is looked up and learns only there: it is the decoder's
     * other cache miss) */
    const uint64_t pathv = pvalid && !all ? *cs_path(m, path) : 0;
    if (pathv && (nc < 1 || pathv != cand[0]) && (nc < 2 || pathv != cand[1]))
        cand[nc++] = pathv;

    /* ---- ip ---- */
    const unsigned lastid = pvalid ? pl->ipid : 3;
    unsigned ipid = all ? 0 : nc;
    for (unsigned k = 0; k < nc && !all; k++)
        if (cs_bit(io, ENC, &pr->ipcand[s->pclass][lastid][pathv != 0][k], ENC ? ip == cand[k] : 0)) {
            ipid = k;
            break;
        }
    unsigned len = 0;
    if (ipid < nc) {
        ip = cand[ipid];
    } else if (pvalid && !pl->fall && s->pclass != 2) {
        /* the first time after an instruction that did not branch: the ip
         * is the previous one plus its length, 1..15 bytes on x86, which
         * its kind (the shape of its record) tells */
        const uint64_t d = ip - s->ip;
        len = cs_tree(io, ENC, pr->ilen[shape_of(pl)], 4, ENC && d <= 15 ? (unsigned)d : 0);
    }
    if (len)
        ip = s->ip + len;
    else if (ipid >= nc)
        ip = s->ip + unzigzag(cs_miss(m, io, ENC, MK_IP, s->pclass == 2, zigzag(ip - s->ip)));
    if (!ENC)
        st_store64(r, ip);
    if (pvalid) {
        if (!all)
            *cs_path(m, path) = ip;
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
        if (all) /* only a corrupt payload gets here: the encoder saw the line */
            io->d.overrun = 1;
        memset(L, 0, sizeof *L);
        memset(m->slot[li], 0, sizeof m->slot[li]);
        L->epoch = m->epoch;
        L->ip = ip;
        L->ipid = 3;
        L->nexthist = 0;
    }

    /* ---- branch flags ---- */
    uint8_t fl[2] = {L->flags[0], L->flags[1]};
    for (unsigned b = 0; b < 2 && !all; b++) {
        const unsigned ctx1 = b == 0 ? (unsigned)seen : (unsigned)seen * 2 + (fl[0] != 0) + (fl[0] > 1);
        const unsigned actual = ENC ? r[8 + b] : 0;
        rc_prob *pe = &pr->flag_eq[b][ctx1 > 3 ? 3 : ctx1][b ? L->hist : 0][b ? s->ghist : 0];
        if (!cs_bit(io, ENC, pe, ENC ? actual == L->flags[b] : 0))
            fl[b] = (uint8_t)cs_tree(io, ENC, pr->flag_tree[b][b ? (fl[0] > 2 ? 2 : fl[0]) : 0], 8, actual);
    }
    if (!ENC) {
        r[8] = fl[0];
        r[9] = fl[1];
    }
    const unsigned isbr = fl[0] != 0;

    /* ---- which memory operands are nonzero ---- */
    unsigned mask = L->mask;
    if (!all) {
        unsigned actual = 0;
        if (ENC)
            for (unsigned k = 0; k < nm; k++)
                actual |= (unsigned)(st_load64(r + moff + 8 * k) != 0) << k;
        if (!(seen && cs_bit(io, ENC, &pr->mask_eq[isbr], actual == L->mask)))
            mask = cs_tree(io, ENC, pr->mask_tree[seen][isbr], nm, actual);
    }

    /* ---- registers ---- */
    if (!all && !(seen && cs_bit(io, ENC, &pr->regs_eq[isbr], ENC ? memcmp(r + 10, L->regs, nreg) == 0 : 0))) {
        /* the first byte's context: is_branch and the nonzero operands,
         * which tell an instruction's kind (a load, a push, a jump) */
        unsigned before = (unsigned)(fl[0] != 0) << 7 | (mask & 0x7Fu);
        /* the registers that followed the previous record's last time, for
         * the same kind (a prologue, a call's arguments: sequences of
         * kinds repeat in code not seen before) */
        static const uint8_t none[CS_MAX_REGS];
        uint8_t *tup = cs_tup(m, tuple_of(pvalid ? pl->regs : none, mask, fl[0]));
        const unsigned hit = cs_bit(io, ENC, &pr->regs_tup[seen][st_load64(tup) != 0],
                                    ENC ? memcmp(r + 10, tup, nreg) == 0 : 0);
        if (hit)
            memcpy(L->regs, tup, nreg);
        for (unsigned j = 0; j < nreg && !hit; j++) {
            /* most are 0 (no register): a flag that all contexts of the
             * position share learns that in a few records, where each
             * tree would learn it again */
            const unsigned v = ENC ? r[10 + j] : 0, ctx = before & 0xFF;
            before = cs_bit(io, ENC, &pr->reg_zero[j][(ctx ^ ctx >> 4) & 15], v == 0)
                         ? 0
                         : cs_tree(io, ENC, CS_TREE(m, reg_tree, [j][ctx]), 8, v);
            L->regs[j] = (uint8_t)before;
        }
        memcpy(tup, L->regs, nreg);
    }
    if (!ENC)
        memcpy(r + 10, L->regs, nreg);

    /* ---- memory operands: sources first, so a destination may be one ---- */
    uint64_t src0 = 0;
    for (unsigned o = 0; o < nm; o++) {
        const unsigned k = o < nm - nd ? nd + o : o - (nm - nd);
        const unsigned dst = k < nd;
        uint64_t a = 0;
        if (mask >> k & 1) {
            a = ENC ? st_load64(r + moff + 8 * k) : 0;
            cs_slot *S = &m->slot[li][slot_of(k, nd)];
            uint8_t *slot_id = &L->id[slot_of(k, nd)];
            const uint64_t last = S->mem;
            uint64_t prop[MP_COUNT];
            cs_props(S, s->gbase, src0, (int)dst, prop);
            unsigned id = CS_MISS;
            if (all) {
                id = cs_expected(prop, *slot_id);
            } else {
                if (ENC)
                    for (unsigned q = 0; q < MP_COUNT; q++)
                        if (prop[q] && prop[q] == a) {
                            id = q;
                            break;
                        }
                id = cs_tree(io, ENC, pr->mid[dst][seen && last][*slot_id], 3, id);
            }
            if (id > CS_MISS) /* only a corrupt payload decodes this */
                io->d.overrun = 1, id = CS_MISS;
            if (id < CS_MISS) {
                a = prop[id];
            } else if (all) {
                io->d.overrun = 1; /* corrupt: the encoder saw a proposal */
            } else {
                uint64_t refs[1 + CS_REGIONS];
                refs[0] = last ? last : s->gbase;
                memcpy(refs + 1, s->region, sizeof s->region);
                unsigned sel = 0;
                if (ENC)
                    for (unsigned q = 1, best = bytes_of(zigzag(a - refs[0])); q <= CS_REGIONS; q++)
                        if (bytes_of(zigzag(a - refs[q])) < best)
                            best = bytes_of(zigzag(a - refs[q])), sel = q;
                sel = cs_tree(io, ENC, pr->msel[last != 0], 3, sel);
                if (sel > CS_REGIONS) /* only a corrupt payload decodes this */
                    io->d.overrun = 1, sel = 0;
                a = refs[sel] + unzigzag(cs_miss(m, io, ENC, MK_MEM, sel ? 1 + (sel > 1) : 3 * (last != 0),
                                                 zigzag(a - refs[sel])));
            }
            if (last)
                S->stride2 = S->stride, S->stride = a - last;
            S->rel = a - s->gbase;
            S->mem = a;
            *slot_id = (uint8_t)id;
            s->gbase = a;
            region_see(s->region, a);
            if (!dst && !src0)
                src0 = a;
        }
        if (!ENC)
            st_store64(r + moff + 8 * k, a);
    }
    L->mask = (uint8_t)mask;

    /* ---- cloudsuite's padding and asid ---- */
    if (T == ST_TYPE_CHAMPSIM_CS) {
        unsigned same = 1;
        if (ENC)
            for (unsigned j = 0; j < CS_EXTRA; j++)
                same &= r[extra_off(j)] == s->extra[j];
        if (!all) {
            same = cs_bit(io, ENC, &pr->extra_eq[s->extra_last], same);
            s->extra_last = same;
        }
        for (unsigned j = 0; j < CS_EXTRA; j++) {
            if (!same)
                s->extra[j] = (uint8_t)cs_tree(io, ENC, pr->extra_tree[j], 8, ENC ? r[extra_off(j)] : 0);
            if (!ENC)
                r[extra_off(j)] = s->extra[j];
        }
    }

    /* ---- what the next record sees ---- */
    if (fl[0]) {
        L->hist = (uint8_t)(((L->hist << 1) | (fl[1] != 0)) & 7u);
        s->ghist = ((s->ghist << 1) | (fl[1] != 0)) & 3u;
    }
    L->flags[0] = fl[0];
    L->flags[1] = fl[1];
    L->selfhist = (uint8_t)(((L->selfhist << 1) | all) & 3u);
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

static st_error cs_encode(svpc_ctx *c, const svpc_params *p, st_entry_type t, const uint8_t *raw,
                          const svpc_source *src, size_t *n, st_buf *out)
{
    (void)p; /* no second stage */
    cs_model *m;
    RETURN_IF_ERROR(cs_model_ready(c, &m));
    const size_t start = out->len;
    st_error e = t == ST_TYPE_CHAMPSIM ? encode_T(m, ST_TYPE_CHAMPSIM, raw, n, src, out)
                                       : encode_T(m, ST_TYPE_CHAMPSIM_CS, raw, n, src, out);
    if (e == ST_OK)
        svpc_stats_one(c, "records (range coded)", out->len - start);
    return e;
}

static st_error cs_decode(svpc_ctx *c, st_entry_type t, const uint8_t *payload, size_t len, size_t n, size_t from, size_t stop,
                          uint8_t *raw, st_diag *d)
{
    (void)from; /* every entry is stored */
    cs_model *m;
    RETURN_IF_ERROR(cs_model_ready(c, &m));
    return t == ST_TYPE_CHAMPSIM ? decode_T(m, ST_TYPE_CHAMPSIM, payload, len, n, stop, raw, d)
                                 : decode_T(m, ST_TYPE_CHAMPSIM_CS, payload, len, n, stop, raw, d);
}

static int cs_supports(st_entry_type t) { return t == ST_TYPE_CHAMPSIM || t == ST_TYPE_CHAMPSIM_CS; }
static size_t cs_memory(void) { return sizeof(cs_model); }

const svpc_codec svpc_codec_champsim = {SVPC_ENC_CHAMPSIM, "champsim", cs_supports, cs_memory, 1,
                                        cs_encode, cs_decode, NULL};
