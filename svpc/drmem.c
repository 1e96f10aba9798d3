/*
 * drmem.c - the drmemtrace entry encoder (10): SIMTRACE.md 6.14.
 *
 * Codes DynamoRIO's trace_entry_t {u16 type, u16 size, u64 addr} entries
 * (ST_TYPE_DRMEMTRACE) with the range coder of rc.h alone, by what a
 * drmemtrace record stream makes predictable:
 *
 *   - whole entries: a match model proposes the entry that followed the
 *     last two entries last time (a loop, a repeated call, a signal
 *     handler run again repeat runs of records); one flag says it is right.
 *   - type: after an instruction at pc P, the k-th entry's type (its
 *     memory references, then the next instruction, or the encodings that
 *     precede an instruction seen for the first time) is what it was after
 *     P last time: one flag says so, in the context of the previous type;
 *     otherwise a 6-bit tree (63: a type of 63 or more, its 16 bits follow).
 *   - an instruction's pc: the fall-through of the previous instruction
 *     (its pc plus its length), the target it went to last time, the top
 *     of a return stack, or a branch-target marker's value; otherwise a
 *     miss, the difference from the fall-through.
 *   - its length: the length last seen at this pc, or, at a pc seen for the
 *     first time, the sum of the encodings' sizes just before it.
 *   - a memory reference: the k-th reference after the instruction at P,
 *     slot (P, k), proposes its last address plus its last stride, its
 *     last address, or its last address moved as the last slot that moved
 *     did (a stack frame elsewhere); a miss is the difference from the
 *     last; a new slot's address the difference from the last address of
 *     the nearest of 8 recent regions; its size is the slot's last size.
 *   - encodings (raw instruction bytes, least significant first): each
 *     byte through five context models mixed (x86 code as LZMA's literals
 *     and an opcode's operand layout see it), and after it whether the
 *     entry ends there, in the context of the opcode.
 *   - markers and the rest (thread, pid, header, footer...): the value and
 *     size last seen with the same type (markers: the same marker kind).
 *
 * Misses are a byte length and bytes, most significant first, through
 * bit trees in the context of the byte above (as cm2's residuals, 6.9).
 * One template codes and decodes (ENC a constant), so the two cannot
 * disagree; the payload is the range coder's output alone.
 *
 * drmx (encoder 14, SIMTRACE.md 6.14.1) is the same template with V = 2:
 * it reads the x86-64 instruction an encoding entry holds, which encoder
 * 10 (V = 1) codes as bytes only.  A direct branch's target (pc + length
 * + its rel8 or rel32) is its line's target from its first execution, so
 * a call or taken jump to code not yet run is proposed, not a miss; the
 * memory operand its ModRM byte names (RIP-relative: pc + length + disp32;
 * a base register without an index: the register's value, as the last
 * operand on that register showed it, plus the displacement) is proposed
 * for the first memory reference after it; the type symbol not expected
 * is coded in the context of the instruction's opcode; and the encoding
 * bytes' mixer weights and order-1 model are chosen by what the byte is
 * in the instruction (prefix or opcode, ModRM, SIB, displacement,
 * immediate) rather than its position, with a sixth model of that role
 * and the opcode.  On the drmemtrace corpus that is 12.4% fewer bytes
 * than encoder 10; encoder 10 stays readable, and writers use drmx.
 */
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "lazy.h"
#include "mix.h"
#include "rc.h"

#define DRM_LINE_BITS 15            /* lines of the per-pc table */
#define DRM_SLOTS 4                 /* memory-reference slots per instruction */
#define DRM_NEXT 4                  /* types remembered after an instruction */
#define DRM_RAS 16                  /* return stack depth, a power of 2 */
#define DRM_SYM_ESC 63u             /* type or size symbol: the value follows in 16 bits */
#define DRM_OTHER_KEYS 128u         /* other entries: 64 type symbols, 64 marker kinds */
#define DRM_MATCH_BITS 18           /* the match model's tables: entries */
#define DRM_MATCH_ORDERS 1
/* The match model's contexts, longest first: the entries before */
static const unsigned drm_match_order[DRM_MATCH_ORDERS] = {2};
#define DRM_REGIONS 8               /* recent address regions (2^28-byte aligned) of memory references */
/* Encoding bytes: five models mixed (SIMTRACE.md 6.14): the hashed bytes
 * of the instruction so far; the byte before; the two bytes before; the
 * three bytes before (hashed); the position and the instruction's first
 * byte (an opcode's operand bytes). */
#define DRM_ENC_NM 5
#define DRM_ENC_NMX 6                /* drmx: and the role and opcode */
#define DRM_ENC_IN (1 + DRM_ENC_NMX) /* the mixer's inputs at most: a bias, then the models */
#define DRM_ROLES 8                  /* what an encoding byte is in its instruction (drm_x86_role()), drmx */
#define DRM_O0_BITS 10
#define DRM_END_BITS 16
#define DRM_O2_BITS 10
#define DRM_O3_BITS 11
#define DRM_MIX_W0 16384             /* a model's initial weight, 0.25 */
#define DRM_MIX_SHIFT 10

/* trace_entry_t type values the model treats apart (DynamoRIO's
 * trace_type_t); any other value codes as well, only less predicted. */
enum {
    DRM_T_INSTR = 10,       /* 10..16: instructions; 11..16 branches */
    DRM_T_CALL = 14,        /* 14 direct, 15 indirect call */
    DRM_T_RET = 16,
    DRM_T_MARKER = 28,
    DRM_T_NOFETCH = 29,     /* an instruction not fetched (rep string iterations) */
    DRM_T_ENCODING = 47,
    DRM_T_UNTAKEN = 48,     /* conditional branches of newer traces: not taken */
    DRM_T_TAKEN = 49,       /* and taken */
    DRM_MK_BRANCH_TARGET = 29, /* marker kind: the target of the next indirect branch */
};

/* Entry classes: which model codes the address. */
enum { C_INSTR, C_MEM, C_ENC, C_OTHER };
/* Residual kinds (each its own trees). */
enum { R_PC, R_MEM, R_NEW, R_OTHER, R_KINDS };

static inline unsigned drm_class(unsigned t)
{
    if ((t >= DRM_T_INSTR && t <= DRM_T_RET) || t == DRM_T_NOFETCH || t == DRM_T_UNTAKEN || t == DRM_T_TAKEN)
        return C_INSTR;
    if (t <= 9 || t == 27) /* reads, writes, prefetches; hardware prefetch */
        return C_MEM;
    return t == DRM_T_ENCODING ? C_ENC : C_OTHER;
}

typedef struct {
    uint64_t pc;                  /* the instruction whose line this is */
    uint64_t target;              /* where it went last time other than its fall-through */
    uint64_t last[DRM_SLOTS];     /* memory slots: last address */
    uint64_t stride[DRM_SLOTS];   /* and last stride */
    uint16_t msize[DRM_SLOTS];    /* and last size */
    uint16_t len;                 /* its length last time */
    uint8_t next[DRM_NEXT];       /* type symbol of the k-th entry after it; 0xFF: none yet */
    uint8_t valid;                /* bit k: slot k seen; bit 7: the line holds pc */
    uint8_t oform, obase;         /* drmx: its ModRM operand's form (drm_x86_operand()), and its base register */
    int32_t odisp;                /* and that operand's displacement */
} drm_line;

typedef struct {
    rc_prob tflag[64][64][2][4];  /* type is the expected: [previous symbol][expected][k > 0][the last two flags] */
    rc_prob ttree[64][64];        /* type symbol [previous symbol] */
    rc_prob wide[2][2][256];      /* 16-bit escapes [type or size][high, low byte] */
    rc_prob pcsel[64][2][8];      /* pc choice [previous instruction's symbol][a branch target marker since] tree */
    rc_prob lenflag[3][2];        /* length as proposed [new pc, known pc, no proposal][last flag] */
    rc_prob msel[4][4];           /* memory address choice [slot history] tree */
    rc_prob sflag[4][2];          /* size as proposed [class][last flag] */
    rc_prob stree[4][256];        /* size [class] */
    rc_prob mflag[16][2][2][4][2];        /* the match model's entry is right [match length][its last flag][its type the expected][its class][its value the models' first guess] */
    rc_prob oflag[3][2];          /* other entry's value as proposed [not a marker, marker, branch target][last flag] */
    rc_prob nbtree[R_KINDS][9][DRM_REGIONS][16]; /* residual byte length [kind][previous length][region of a new slot] */
    rc_prob encplain;             /* an encoding of 1..8 bytes, nothing above them */
    rc_prob region[1][8];         /* which recent region a new slot's address is in, tree */
    rc_prob ophit[2][2];          /* drmx: the address is the ModRM operand's [the slot is new][RIP-relative, base] */
} drm_probs;

/* The big tables are reset lazily (lazy.h): their probabilities by rows
 * of 256 (a byte tree; encend's by 256 hash values), the lines and the
 * match table by blocks. */
#define DRM_LINE_BLOCK 32u
#define DRM_MHASH_BLOCK 1024u
typedef struct {
    uint32_t rbyte[R_KINDS][36][16];
    uint32_t encend[(1u << DRM_END_BITS) / 256];
    uint32_t enc0[1u << DRM_O0_BITS];
    uint32_t encop[8][256];
    uint32_t enc1[DRM_ROLES][256];
    uint32_t encro[DRM_ROLES][256];
    uint32_t ttype[64][128];
    uint32_t enc2[1u << DRM_O2_BITS];
    uint32_t enc3[1u << DRM_O3_BITS];
    uint32_t line[(1u << DRM_LINE_BITS) / DRM_LINE_BLOCK];
    uint32_t mhash[DRM_MATCH_ORDERS][(1u << DRM_MATCH_BITS) / DRM_MHASH_BLOCK];
} drm_stamps;

typedef struct {
    drm_probs pr;
    rc_prob rbyte[R_KINDS][36][16][256]; /* residual byte [kind][length, position][high nibble above] */
    rc_prob encend[(1u << DRM_END_BITS) / 256][256]; /* the encoding ends after this byte [hash of the instruction's bytes so far] */
    rc_prob enc0[1u << DRM_O0_BITS][256]; /* encoding byte [hash of the instruction's bytes before it] */
    rc_prob encop[8][256][256];   /* encoding byte [position, 7: later][the instruction's first byte] */
    rc_prob enc1[DRM_ROLES][256][256]; /* encoding byte [position, 3: later; drmx: its role][byte before] */
    rc_prob encro[DRM_ROLES][256][256]; /* drmx: encoding byte [its role][the opcode's last byte] */
    rc_prob enc2[1u << DRM_O2_BITS][256]; /* [hash of the two bytes before, position] */
    rc_prob enc3[1u << DRM_O3_BITS][256]; /* [hash of the three bytes before, position] */
    drm_stamps stamp;
    uint32_t epoch;
    rc_prob ttype[64][128][64];   /* drmx: type symbol [previous symbol][the one before it, or 64 + the class of the
                                     instruction's opcode] */
    int64_t mixw[DRM_ROLES][8][DRM_ENC_IN]; /* mixer weights [position, 3: later; drmx: role][bit, most significant first] */
    int16_t stretch[4096];
    drm_line line[1u << DRM_LINE_BITS];
    uint64_t oval[DRM_OTHER_KEYS];
    uint16_t osize[64];           /* the size last seen with each type symbol */
    uint16_t mnext[64];           /* the marker kind that followed each kind last time */
    uint32_t mhash[DRM_MATCH_ORDERS][1u << DRM_MATCH_BITS]; /* per hash of two entries: the index (+1) of the entry after them */
} drm_model;

/* State carried from entry to entry. */
typedef struct {
    unsigned prev_sym;   /* the previous entry's type symbol */
    unsigned prev2_sym;  /* and the one before it (drmx) */
    unsigned k;          /* entries since the last instruction */
    unsigned nmem;       /* memory references since the last instruction */
    unsigned isym;       /* the last instruction's type symbol */
    uint32_t li;         /* the last instruction's line */
    uint64_t pc, next_pc;/* the last instruction's pc and fall-through */
    unsigned encsum;     /* bytes of the encodings since the last instruction */
    unsigned encpos;     /* position of the next encoding byte in its instruction */
    uint32_t encprev;    /* the encoding bytes before it, the last in bits 0..7 */
    uint64_t enchash;    /* hash of the encoding bytes since the last instruction */
    uint32_t encop;      /* and its first two */
    uint64_t shift;      /* how far the last slot that moved moved */
    uint64_t region[DRM_REGIONS]; /* the last address of each recent region, most recent first */
    unsigned nregion;
    uint64_t ras[DRM_RAS];
    unsigned sp, depth;  /* return stack top (index of the next push) and entries */
    uint32_t mptr, mlen; /* the match model's proposed entry, and the match's length (0: none) */
    unsigned mlast;      /* its last flag */
    unsigned mrec;       /* the proposal follows a wrong one */
    unsigned thist;      /* the last type flags */
    unsigned mkind;      /* the last marker's kind */
    uint64_t bt;         /* the value of a branch target marker since the last instruction */
    int hasbt;           /* and whether there was one */
    unsigned lenlast, slast[4], olast[3], last_nb[R_KINDS];
    /* drmx: */
    uint8_t encb[16];    /* the first bytes of the encodings since the last instruction */
    uint64_t reg[16];    /* each base register's value as its last operand showed it */
    unsigned regok;      /* bit r: reg[r] is known */
    unsigned lastop;     /* 1 + the opcode class of the last instruction if its bytes were there, else 0 */
    unsigned len4, lenx; /* instructions after encodings of their whole length: of 4 bytes, of another */
} drm_state;

/* The model fresh for a frame (one just made is zeroed: stamps and epoch
 * 0). */
static void drm_reset(drm_model *m, drm_state *s)
{
    lazy_next(&m->epoch, &m->stamp, sizeof m->stamp);
    rc_prob *p = (rc_prob *)(void *)&m->pr;
    for (size_t i = 0; i < sizeof m->pr / sizeof(rc_prob); i++)
        p[i] = RC_PROB_INIT;
    memset(m->oval, 0, sizeof m->oval);
    memset(m->osize, 0, sizeof m->osize);
    memset(m->mnext, 0, sizeof m->mnext);
    for (unsigned k = 0; k < DRM_ROLES; k++)
        for (unsigned b = 0; b < 8; b++)
            for (unsigned i = 0; i < DRM_ENC_IN; i++)
                m->mixw[k][b][i] = i == 0 ? 0 : DRM_MIX_W0;
    mix_stretch_init(m->stretch);
    memset(s, 0, sizeof *s);
}

/* Row [idx] (one or more subscripts) of the lazy probability table tbl,
 * 256 probabilities; NULL when ENC is DRM_UPDATE, which codes nothing (a
 * row's reset is work the compiler cannot drop, and most entries of a
 * repetitive trace are the match model's updates). */
#define DRM_ROW(ENC, m, tbl, idx) \
    ((ENC) == DRM_UPDATE ? NULL : lazy_probs((m)->tbl idx, 256, &(m)->stamp.tbl idx, (m)->epoch))

static inline drm_line *drm_line_at(drm_model *m, uint32_t li)
{
    const uint32_t b = li / DRM_LINE_BLOCK;
    drm_line *block = lazy_zeros(&m->line[b * DRM_LINE_BLOCK], DRM_LINE_BLOCK * sizeof(drm_line), &m->stamp.line[b],
                                 m->epoch);
    return block + li % DRM_LINE_BLOCK;
}

typedef struct {
    rc_enc e;
    rc_dec d;
} drm_io;

/* The template's ENC: decode; encode; or update the models with an entry
 * both sides know (the match model's), coding nothing. */
enum { DRM_DECODE = 0, DRM_ENCODE = 1, DRM_UPDATE = 2 };

/* One bit: the encoder writes `bit` and returns it; the decoder returns
 * what it reads. */
ST_INLINE unsigned drm_bit(drm_io *io, const int ENC, rc_prob *p, unsigned bit)
{
    if (ENC == DRM_UPDATE)
        return bit;
    if (ENC) {
        rc_encode(&io->e, p, bit, RC_COUNTED);
        return bit;
    }
    return rc_decode(&io->d, p, RC_COUNTED);
}

ST_INLINE unsigned drm_tree(drm_io *io, const int ENC, rc_prob *tree, unsigned nbits, unsigned sym)
{
    if (ENC == DRM_UPDATE)
        return sym;
    if (ENC) {
        rc_encode_tree(&io->e, tree, nbits, sym, RC_COUNTED);
        return sym;
    }
    return rc_decode_tree(&io->d, tree, nbits, RC_COUNTED);
}

/* A 16-bit value, in trees w[0] (high byte) and w[1]. */
ST_INLINE unsigned drm_u16(drm_io *io, const int ENC, rc_prob (*w)[256], unsigned v)
{
    unsigned hi = drm_tree(io, ENC, w[0], 8, v >> 8);
    return (hi << 8) | drm_tree(io, ENC, w[1], 8, v & 255u);
}

/* A value below 2^16 as a byte; 255 escapes to the 16-bit value (w). */
ST_INLINE unsigned drm_small(drm_io *io, const int ENC, rc_prob *tree, rc_prob (*w)[256], unsigned v)
{
    unsigned sym = drm_tree(io, ENC, tree, 8, v < 255 ? v : 255);
    return sym < 255 ? sym : drm_u16(io, ENC, w, v);
}

/* A residual of kind k: its byte length, then its bytes, most significant
 * first.  Returns NULL or what is wrong. */
ST_INLINE const char *drm_residual(drm_io *io, const int ENC, drm_model *m, drm_state *s, const unsigned k, unsigned sub,
                                   uint64_t *r)
{
    drm_probs *pr = &m->pr;
    uint64_t x = ENC ? *r : 0;
    const unsigned nb = drm_tree(io, ENC, pr->nbtree[k][s->last_nb[k]][sub], 4, nbytes_of(x));
    if (!ENC && nb > 8)
        return "miss length above 8 bytes";
    s->last_nb[k] = nb;
    for (unsigned j = nb; j-- > 0;) {
        const unsigned hb = j + 1 < nb ? (unsigned)(x >> (8 * j + 12)) & 15u : 0;
        unsigned b = drm_tree(io, ENC, DRM_ROW(ENC, m, rbyte, [k][nb * (nb - 1) / 2 + j][hb]), 8, (unsigned)(x >> (8 * j)) & 255u);
        if (!ENC) {
            if (j == nb - 1 && b == 0)
                return "miss longer than needed";
            x |= (uint64_t)b << (8 * j);
        }
    }
    *r = x;
    return NULL;
}

/* A value v (the decoder's is set) coded as the difference from ref. */
ST_INLINE const char *drm_diff(drm_io *io, const int ENC, drm_model *m, drm_state *s, const unsigned k, unsigned sub, uint64_t ref,
                               uint64_t *v)
{
    uint64_t r = ENC ? zz_delta(*v, ref, UINT64_MAX, 64) : 0;
    const char *bad = drm_residual(io, ENC, m, s, k, sub, &r);
    if (!ENC && !bad)
        *v = zz_apply(r, ref, UINT64_MAX);
    return bad;
}

/* The size of an entry of class c: flag "as proposed", else the value. */
ST_INLINE unsigned drm_size(drm_io *io, const int ENC, drm_probs *pr, drm_state *s, const unsigned c, unsigned prop,
                            unsigned size)
{
    const unsigned hit = drm_bit(io, ENC, &pr->sflag[c][s->slast[c]], size == prop);
    s->slast[c] = hit;
    if (hit)
        return prop;
    return drm_small(io, ENC, pr->stree[c], pr->wide[1], size);
}

static inline uint32_t drm_line_of(uint64_t pc)
{
    return (uint32_t)((pc * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - DRM_LINE_BITS));
}

/* ---- drmx: the x86-64 instruction of an encoding (SIMTRACE.md 6.14.1) ---- */

/* The legacy prefixes (operand and address size, REP, segments, LOCK). */
static inline int drm_x86_prefix(unsigned b)
{
    return b == 0x66 || b == 0x67 || b == 0xF2 || b == 0xF3 || b == 0x2E || b == 0x3E || b == 0x26 || b == 0x36 ||
           b == 0x64 || b == 0x65 || b == 0xF0;
}

/* Whether a one-byte opcode has a ModRM byte. */
static inline int drm_x86_modrm1(unsigned op)
{
    return (op < 0x40 && (op & 7u) < 4) || op == 0x63 || op == 0x69 || op == 0x6B || (op >= 0x80 && op <= 0x8F) ||
           op == 0xC0 || op == 0xC1 || op == 0xC6 || op == 0xC7 || (op >= 0xD0 && op <= 0xD3) ||
           (op >= 0xD8 && op <= 0xDF) || op == 0xF6 || op == 0xF7 || op == 0xFE || op == 0xFF;
}

/* Whether a two-byte opcode 0F o2 has none. */
static inline int drm_x86_no_modrm2(unsigned o2)
{
    return (o2 >= 0x80 && o2 <= 0x8F) || (o2 >= 0xC8 && o2 <= 0xCF) || (o2 >= 0x05 && o2 <= 0x0B) ||
           (o2 >= 0x30 && o2 <= 0x37) || o2 == 0x77 || o2 == 0xA0 || o2 == 0xA1 || o2 == 0xA2 || o2 == 0xA8 ||
           o2 == 0xA9 || o2 == 0xAA;
}

enum { X86_SHORT = -1, X86_NO_MODRM = -2 };

/* Where the ModRM byte of the instruction whose first n bytes are b is:
 * its index (possibly n or more: not there yet), X86_NO_MODRM, or
 * X86_SHORT if its opcode is not all there; *op the opcode's index and
 * *rexb the base register's high bit (REX.B, or VEX's and EVEX's
 * inverted B). */
static int drm_x86_modrm(const uint8_t *b, unsigned n, unsigned *op, unsigned *rexb)
{
    unsigned i = 0;
    *rexb = 0;
    while (i < n && drm_x86_prefix(b[i]))
        i++;
    if (i < n && b[i] >= 0x40 && b[i] <= 0x4F)
        *rexb = b[i++] & 1u;
    *op = i;
    if (i >= n)
        return X86_SHORT;
    switch (b[i]) {
    case 0xC5: /* two-byte VEX, then the opcode; its B is always 0 */
        *rexb = 0;
        return (int)i + 3;
    case 0xC4: /* three-byte VEX */
    case 0x62: /* EVEX */
        if (i + 1 >= n)
            return X86_SHORT;
        *rexb = !(b[i + 1] >> 5 & 1u);
        return (int)i + (b[i] == 0xC4 ? 4 : 5);
    case 0x0F:
        if (i + 1 >= n)
            return X86_SHORT;
        if (b[i + 1] == 0x38 || b[i + 1] == 0x3A)
            return (int)i + 3;
        return drm_x86_no_modrm2(b[i + 1]) ? X86_NO_MODRM : (int)i + 2;
    default:
        return drm_x86_modrm1(b[i]) ? (int)i + 1 : X86_NO_MODRM;
    }
}

/* The target of the direct branch b[0..len-1] at pc (E8, E9, EB, 70..7F,
 * E0..E3 and 0F 80..8F, nothing after the displacement), or 0. */
static uint64_t drm_x86_target(const uint8_t *b, unsigned len, uint64_t pc)
{
    unsigned i, rexb;
    drm_x86_modrm(b, len, &i, &rexb);
    if (i >= len)
        return 0;
    const unsigned op = b[i];
    int64_t rel;
    if ((op == 0xE8 || op == 0xE9) && len == i + 5)
        rel = (int32_t)st_load32(b + i + 1);
    else if ((op == 0xEB || (op >= 0x70 && op <= 0x7F) || (op >= 0xE0 && op <= 0xE3)) && len == i + 2)
        rel = (int8_t)b[i + 1];
    else if (op == 0x0F && i + 6 == len && b[i + 1] >= 0x80 && b[i + 1] <= 0x8F)
        rel = (int32_t)st_load32(b + i + 2);
    else
        return 0;
    return pc + len + (uint64_t)rel;
}

/* The memory operand of the instruction b[0..len-1]: 1 RIP-relative, 2 a
 * base register without an index (*base 0..15), 0 none or another form;
 * *disp its displacement. */
static unsigned drm_x86_operand(const uint8_t *b, unsigned len, unsigned *base, int32_t *disp)
{
    unsigned op, rexb;
    const int at = drm_x86_modrm(b, len, &op, &rexb);
    if (at < 0 || (unsigned)at >= len)
        return 0;
    const unsigned m = (unsigned)at, mod = b[m] >> 6, rm = b[m] & 7u;
    unsigned p = m + 1, r = rm;
    if (mod == 3)
        return 0;
    if (mod == 0 && rm == 5) {
        if (p + 4 > len)
            return 0;
        *disp = (int32_t)st_load32(b + p);
        return 1;
    }
    if (rm == 4) {
        if (p >= len || (b[p] >> 3 & 7u) != 4 || (b[p] & 7u) == 5) /* an index, or no base */
            return 0;
        r = b[p++] & 7u;
    }
    const unsigned dl = mod == 1 ? 1 : mod == 2 ? 4 : 0;
    if (p + dl > len)
        return 0;
    *disp = dl == 1 ? (int8_t)b[p] : dl == 4 ? (int32_t)st_load32(b + p) : 0;
    *base = r | rexb << 3;
    return 2;
}

/* The opcode at b[op] of the n bytes b: its byte, or 0x100 + the byte
 * after 0F; -1 if it is not there. */
static inline int drm_x86_opcode(const uint8_t *b, unsigned n, unsigned op)
{
    return op >= n ? -1 : b[op] == 0x0F && op + 1 < n ? 0x100 | b[op + 1] : b[op];
}

/* The opcode's last byte so far, folded to 8 bits (after 0F XOR A5); 0 if
 * it is not there. */
static inline unsigned drm_x86_opbyte(const uint8_t *b, unsigned n, unsigned op)
{
    const int o = drm_x86_opcode(b, n, op);
    return o < 0 ? 0 : o > 0xFF ? ((unsigned)o & 0xFFu) ^ 0xA5u : (unsigned)o;
}

/* The opcode of the n bytes b as a class of 6 bits (a hash of
 * drm_x86_opcode()), 0 if it is not there. */
static unsigned drm_x86_opclass(const uint8_t *b, unsigned n)
{
    unsigned op, rexb;
    drm_x86_modrm(b, n, &op, &rexb);
    const int o = drm_x86_opcode(b, n, op);
    return o < 0 ? 0 : ((unsigned)o * 0x9E3779B1u) >> 26;
}

/* What the byte after b[0..pos-1] is in its instruction: 0 a prefix or
 * the opcode, 1 ModRM, 2 SIB, 3 a displacement's first byte, 4 its
 * others, 5 past the memory operand (an immediate), 6 past an opcode
 * without ModRM; *opc the opcode's last byte so far (drm_x86_opbyte()). */
static unsigned drm_x86_role(const uint8_t *b, unsigned pos, unsigned *opc)
{
    unsigned op, rexb;
    const int at = drm_x86_modrm(b, pos, &op, &rexb);
    *opc = drm_x86_opbyte(b, pos, op);
    if (at == X86_SHORT)
        return 0;
    if (at == X86_NO_MODRM)
        return 6;
    const unsigned m = (unsigned)at;
    if (pos <= m)
        return pos == m ? 1 : 0;
    const unsigned mod = b[m] >> 6, rm = b[m] & 7u;
    unsigned p = m + 1, dl = mod == 1 ? 1 : mod == 2 || (mod == 0 && rm == 5) ? 4 : 0;
    if (mod != 3 && rm == 4) {
        if (pos == p)
            return 2;
        if (mod == 0 && (b[p] & 7u) == 5) /* SIB without a base: disp32 */
            dl = 4;
        p++;
    }
    return pos < p + dl ? (pos == p ? 3 : 4) : 5;
}

/* drmx reads the encodings as x86-64 code unless the frame's first 32
 * instructions with their encodings were all of 4 bytes (AArch64, ARM32:
 * read as x86 their bytes were 5% larger than encoder 10's) */
static inline int drm_x86(const drm_state *s) { return s->lenx != 0 || s->len4 < 32; }

/* An instruction: its pc and length. */
ST_INLINE const char *drm_instr(drm_io *io, const int ENC, const int V, drm_model *m, drm_state *s, unsigned t,
                                unsigned sym, uint64_t *a, unsigned *size)
{
    drm_probs *pr = &m->pr;
    drm_line *pl = drm_line_at(m, s->li);
    const uint64_t target = (pl->valid & 0x80) && pl->pc == s->pc ? pl->target : s->next_pc;
    const uint64_t ras = s->ras[(s->sp - 1) & (DRM_RAS - 1)];
    unsigned choice = 4;
    if (ENC)
        choice = *a == s->next_pc ? 0 : *a == target ? 1 : (s->depth && *a == ras) ? 2 : (s->hasbt && *a == s->bt) ? 3 : 4;
    choice = drm_tree(io, ENC, pr->pcsel[s->isym][s->hasbt], 3, choice);
    if (!ENC && choice > 4)
        return "pc choice above 4";
    if (!ENC)
        *a = choice == 0 ? s->next_pc : choice == 1 ? target : choice == 2 ? ras : s->bt;
    if (choice == 4) {
        const char *bad = drm_diff(io, ENC, m, s, R_PC, 0, s->next_pc, a);
        if (bad)
            return bad;
    }
    if (*a != s->next_pc && (pl->valid & 0x80) && pl->pc == s->pc)
        pl->target = *a;
    if (s->isym == DRM_T_RET && s->depth) {
        s->sp--;
        s->depth--;
    }
    /* the length: this pc's last, else the encodings' bytes before it */
    const uint32_t li = drm_line_of(*a);
    drm_line *l = drm_line_at(m, li);
    const int known = (l->valid & 0x80) && l->pc == *a;
    const unsigned ctx = known ? 1 : s->encsum ? 0 : 2;
    const unsigned prop = known ? l->len : s->encsum ? s->encsum : (unsigned)(s->next_pc - s->pc);
    const unsigned hit = drm_bit(io, ENC, &pr->lenflag[ctx][s->lenlast], *size == prop);
    s->lenlast = hit;
    if (!hit)
        *size = drm_small(io, ENC, pr->stree[C_INSTR], pr->wide[1], *size);
    else if (!ENC)
        *size = prop;
    /* drmx: the instruction, when its encodings are all there */
    const int whole = V >= 2 && drm_x86(s) && !known && s->encsum == *size && *size <= sizeof s->encb;
    if (V >= 2 && s->encsum == *size && *size) {
        s->len4 += *size == 4;
        s->lenx += *size != 4;
    }
    if (!known) {
        memset(l, 0, sizeof *l);
        memset(l->next, 0xFF, sizeof l->next);
        l->pc = *a;
        const uint64_t direct = whole ? drm_x86_target(s->encb, *size, *a) : 0;
        l->target = direct ? direct : *a + *size;
        l->valid = 0x80;
        if (whole) {
            unsigned base = 0;
            int32_t disp = 0;
            l->oform = (uint8_t)drm_x86_operand(s->encb, *size, &base, &disp);
            l->obase = (uint8_t)base;
            l->odisp = disp;
        }
    }
    l->len = (uint16_t)*size;
    if (V >= 2)
        s->lastop = whole ? 1 + drm_x86_opclass(s->encb, *size) : 0;
    if (t == DRM_T_CALL || t == DRM_T_CALL + 1) {
        s->ras[s->sp & (DRM_RAS - 1)] = *a + *size;
        s->sp++;
        s->depth += s->depth < DRM_RAS;
    }
    s->li = li;
    s->pc = *a;
    s->next_pc = *a + *size;
    s->isym = sym;
    s->k = 0;
    s->nmem = 0;
    s->encsum = 0;
    s->encpos = 0;
    s->enchash = 0;
    s->encop = 0;
    s->hasbt = 0;
    return NULL;
}

/* A memory reference: its address and size, by the slot of the
 * instruction before it. */
ST_INLINE const char *drm_mem(drm_io *io, const int ENC, const int V, drm_model *m, drm_state *s, uint64_t *a,
                              unsigned *size)
{
    drm_probs *pr = &m->pr;
    drm_line *l = drm_line_at(m, s->li);
    const unsigned k = s->nmem < DRM_SLOTS ? s->nmem : DRM_SLOTS - 1;
    s->nmem++;
    const int lineok = (l->valid & 0x80) && l->pc == s->pc, have = lineok && (l->valid >> k & 1);
    /* drmx: the first reference after an instruction may be its ModRM
     * operand, by the form its line keeps (0 unless read from its bytes) */
    const unsigned opform = V >= 2 && s->nmem == 1 && lineok ? l->oform : 0;
    const uint64_t opa = opform == 1                                   ? s->pc + l->len + (uint64_t)(int64_t)l->odisp
                         : opform == 2 && (s->regok >> l->obase & 1u) ? s->reg[l->obase] + (uint64_t)(int64_t)l->odisp
                                                                       : 0;
    const char *bad = NULL;
    if (have) {
        /* the slot's last address plus its stride, its last address, or
         * a miss: the difference from the last */
        const uint64_t last = l->last[k], stride = l->stride[k];
        unsigned choice = 3;
        if (ENC)
            choice = *a == last + stride ? 0 : *a == last ? 1 : *a == last + s->shift ? 2 : 3;
        choice = drm_tree(io, ENC, pr->msel[1 + (stride != 0)], 2, choice);
        if (choice == 3 && opa && opa != last + stride && opa != last && opa != last + s->shift &&
            drm_bit(io, ENC, &pr->ophit[0][opform - 1], ENC && *a == opa)) {
            if (!ENC)
                *a = opa;
        } else if (choice == 3)
            bad = drm_diff(io, ENC, m, s, R_MEM, 0, last, a);
        else if (!ENC)
            *a = choice == 0 ? last + stride : choice == 1 ? last : last + s->shift;
        if (*a != last + stride && *a != last)
            s->shift = *a - last;
    } else if (opa && drm_bit(io, ENC, &pr->ophit[1][opform - 1], ENC && *a == opa)) {
        if (!ENC)
            *a = opa;
    } else {
        /* a new slot: the difference from the last address of the
         * nearest recent region */
        unsigned r = 0;
        if (ENC)
            for (unsigned j = 1; j < DRM_REGIONS; j++)
                if (zz_delta(*a, s->region[j], UINT64_MAX, 64) < zz_delta(*a, s->region[r], UINT64_MAX, 64))
                    r = j;
        r = drm_tree(io, ENC, pr->region[0], 3, r);
        bad = drm_diff(io, ENC, m, s, R_NEW, r, s->region[r], a);
    }
    if (bad)
        return bad;
    *size = drm_size(io, ENC, pr, s, C_MEM, have ? l->msize[k] : 8, *size);
    if (lineok) {
        l->stride[k] = have ? *a - l->last[k] : 0;
        l->last[k] = *a;
        l->msize[k] = (uint16_t)*size;
        l->valid |= (uint8_t)(1u << k);
    }
    if (opform == 2) { /* the base register's value, as this operand shows it */
        s->reg[l->obase] = *a - (uint64_t)(int64_t)l->odisp;
        s->regok |= 1u << l->obase;
    }
    /* the region to the front of the recent ones */
    unsigned j = 0;
    while (j + 1 < DRM_REGIONS && (s->region[j] >> 28) != (*a >> 28))
        j++;
    memmove(&s->region[1], &s->region[0], j * sizeof s->region[0]);
    s->region[0] = *a;
    return NULL;
}

/* A byte through the trees t[0..nm-1] at once, mixed with the
 * weights w[bit]: the mixed probability codes each bit, then the trees and
 * the weights learn it (as cm2's lanes, 6.9). */
ST_INLINE unsigned drm_mix_byte(drm_io *io, const int ENC, const unsigned nm, const int16_t *stretch,
                                rc_prob *const t[DRM_ENC_NMX], int64_t (*w)[DRM_ENC_IN], unsigned sym)
{
    if (ENC == DRM_UPDATE)
        return sym;
    unsigned node = 1;
    for (unsigned i = 8; i-- > 0;) {
        int64_t *wi = w[7 - i];
#if defined(__GNUC__)
        /* the line of the grandchildren: its load then overlaps this bit's
         * (each tree row is 16 cache lines, one bit's node in another) */
        if (i >= 2)
            for (unsigned j = 0; j < nm; j++)
                __builtin_prefetch(&t[j][node << 2]);
#endif
        int x[DRM_ENC_IN];
        x[0] = 256; /* the bias */
        for (unsigned j = 0; j < nm; j++)
            x[1 + j] = stretch[mix_p12(rc_p0(t[j][node], RC_COUNTED))];
        const int p = mix_predict(x, wi, 1 + nm); /* of a 1 */
        const uint32_t p0 = (uint32_t)(4096 - p) << 4;
        unsigned b;
        if (ENC) {
            b = (sym >> i) & 1u;
            rc_encode_p0(&io->e, p0, b);
        } else {
            b = rc_decode_p0(&io->d, p0);
        }
        mix_learn(wi, x, 1 + nm, ((int)b << 12) - p, DRM_MIX_SHIFT);
        for (unsigned j = 0; j < nm; j++)
            t[j][node] = rc_adapt(t[j][node], b, RC_COUNTED);
        node = (node << 1) | b;
    }
    return node - 256;
}

/* An encoding.  Most hold 1 to 8 bytes of an instruction, and nothing
 * above them: a flag says so, then each byte, and after it whether the
 * entry ends there (the size), in the context of the instruction's bytes
 * so far, from which x86 decoders tell its length.  Others: the size and
 * the value as a miss. */
ST_INLINE const char *drm_encoding(drm_io *io, const int ENC, const int V, drm_model *m, drm_state *s, uint64_t *a,
                                   unsigned *size)
{
    drm_probs *pr = &m->pr;
    const unsigned plain = drm_bit(io, ENC, &pr->encplain,
                                   ENC && *size >= 1 && *size <= 8 && (*size == 8 || *a >> (8 * *size) == 0));
    if (!plain) {
        *size = drm_small(io, ENC, pr->stree[C_ENC], pr->wide[1], *size);
        return drm_diff(io, ENC, m, s, R_OTHER, 0, 0, a);
    }
    uint64_t x = ENC ? *a : 0;
    unsigned j = 0, end = 0;
    while (!end) {
        const unsigned pos = s->encpos < 15 ? s->encpos : 15, p3 = pos < 3 ? pos : 3;
        const uint32_t h = s->encprev;
        /* encoder 10: the position; drmx: what the byte is (its role) */
        unsigned opc = 0;
        const unsigned sel = V < 2 || !drm_x86(s)         ? p3
                             : ENC == DRM_UPDATE          ? 0
                             : s->encpos < sizeof s->encb ? drm_x86_role(s->encb, s->encpos, &opc)
                                                          : 7;
        const uint32_t ih = (uint32_t)((s->enchash + pos) * UINT64_C(0x9E3779B97F4A7C15) >> 32);
        rc_prob *const t[DRM_ENC_NMX] = {
            DRM_ROW(ENC, m, enc0, [ih >> (32 - DRM_O0_BITS)]), DRM_ROW(ENC, m, enc1, [sel][h & 255u]),
            DRM_ROW(ENC, m, enc2, [(((h & 0xFFFFu) * 4u + p3) * 0x9E3779B1u) >> (32 - DRM_O2_BITS)]),
            DRM_ROW(ENC, m, enc3, [(((h & 0xFFFFFFu) * 4u + p3) * 0x9E3779B1u) >> (32 - DRM_O3_BITS)]),
            DRM_ROW(ENC, m, encop, [pos < 7 ? pos : 7][s->encop >> (pos < 2 ? 0 : 8) & 255u]),
            V < 2 ? NULL : DRM_ROW(ENC, m, encro, [sel][opc])};
        const unsigned b = drm_mix_byte(io, ENC, V < 2 ? DRM_ENC_NM : DRM_ENC_NMX, m->stretch, t, m->mixw[sel], (unsigned)(x >> (8 * j)) & 255u);
        x |= (uint64_t)b << (8 * j);
        j++;
        if (s->encpos < sizeof s->encb)
            s->encb[s->encpos] = (uint8_t)b;
        s->encpos++;
        s->encprev = (h << 8) | b;
        s->enchash = (s->enchash + b + 1) * UINT64_C(0xC2B2AE3D27D4EB4F);
        if (pos < 2)
            s->encop = (s->encop << 8) | b;
        const uint32_t eh = (((s->encop & 0xFFFFu) << 12) | (pos << 8) | b) * 0x9E3779B1u, ei = eh >> (32 - DRM_END_BITS);
        rc_prob *const pend = ENC == DRM_UPDATE ? NULL : DRM_ROW(ENC, m, encend, [ei / 256u]) + ei % 256u;
        end = j == 8 || drm_bit(io, ENC, pend, j == *size);
    }
    *a = x;
    *size = j;
    s->encsum += j;
    return NULL;
}

/* Markers and the other entries: the value and size last seen with the
 * same type (markers: kind, its size field). */
ST_INLINE const char *drm_other(drm_io *io, const int ENC, drm_model *m, drm_state *s, unsigned t, unsigned sym,
                                uint64_t *a, unsigned *size)
{
    drm_probs *pr = &m->pr;
    const unsigned marker = t == DRM_T_MARKER;
    uint16_t *psize = marker ? &m->mnext[s->mkind & 63u] : &m->osize[sym];
    *size = drm_size(io, ENC, pr, s, C_OTHER, *psize, *size);
    *psize = (uint16_t)*size;
    const unsigned bt = marker && *size == DRM_MK_BRANCH_TARGET, ctx = marker + bt;
    if (marker)
        s->mkind = *size;
    uint64_t *ref = &m->oval[marker ? 64u + (*size & 63u) : sym];
    /* a branch target: where the branch after this instruction went last time */
    const drm_line *nl = drm_line_at(m, drm_line_of(s->next_pc));
    const uint64_t prop = bt && (nl->valid & 0x80) && nl->pc == s->next_pc ? nl->target : *ref;
    const unsigned hit = drm_bit(io, ENC, &pr->oflag[ctx][s->olast[ctx]], *a == prop);
    s->olast[ctx] = hit;
    if (!hit) {
        const char *bad = drm_diff(io, ENC, m, s, R_OTHER, 0, prop, a);
        if (bad)
            return bad;
    } else if (!ENC) {
        *a = prop;
    }
    if (bt) {
        s->bt = *a;
        s->hasbt = 1;
    }
    *ref = *a;
    return NULL;
}

/* The type symbol expected next: what followed the last instruction's pc
 * at this distance last time, else the previous entry's. */
static inline unsigned drm_expected(drm_model *m, const drm_state *s)
{
    const drm_line *l = drm_line_at(m, s->li);
    const unsigned kk = s->k < DRM_NEXT ? s->k : DRM_NEXT - 1;
    return (l->valid & 0x80) && l->pc == s->pc && l->next[kk] != 0xFF ? l->next[kk] : s->prev_sym;
}

/* 1 when the value a of an entry of class c is the models' first guess
 * (the fall-through; the slot's last address plus stride). */
static inline unsigned drm_agrees(drm_model *m, const drm_state *s, unsigned c, uint64_t a)
{
    if (c == C_INSTR)
        return a == s->next_pc;
    if (c != C_MEM)
        return 0;
    const drm_line *l = drm_line_at(m, s->li);
    const unsigned k = s->nmem < DRM_SLOTS ? s->nmem : DRM_SLOTS - 1;
    return (l->valid & 0x80) && l->pc == s->pc && (l->valid >> k & 1) && a == l->last[k] + l->stride[k];
}

/* Entry i: the encoder codes (t, size, a), the decoder sets them. */
ST_INLINE st_error drm_entry(drm_io *io, const int ENC, const int V, drm_model *m, drm_state *s, unsigned *t, unsigned *size,
                             uint64_t *a, size_t i, st_diag *d)
{
    drm_probs *pr = &m->pr;
    drm_line *l = drm_line_at(m, s->li);
    const unsigned kk = s->k < DRM_NEXT ? s->k : DRM_NEXT - 1;
    const int lineok = (l->valid & 0x80) && l->pc == s->pc;
    const unsigned exp = drm_expected(m, s);
    unsigned sym = ENC ? (*t < DRM_SYM_ESC ? *t : DRM_SYM_ESC) : 0;
    const unsigned tf = drm_bit(io, ENC, &pr->tflag[s->prev_sym][exp][kk != 0][s->thist & 3], sym == exp);
    s->thist = (s->thist << 1) | tf;
    if (tf)
        sym = exp;
    else {
        /* drmx: in the context of the symbol before the previous one, or
         * of the instruction's opcode: of the encodings since the last
         * instruction if there are any, else of that instruction's */
        const unsigned tx = V < 2 || ENC == DRM_UPDATE ? 0
                            : s->encpos && drm_x86(s) ? 64 + drm_x86_opclass(s->encb, s->encpos < sizeof s->encb ? s->encpos : sizeof s->encb)
                            : s->lastop ? 63 + s->lastop
                                        : s->prev2_sym;
        rc_prob *tree = V < 2 || ENC == DRM_UPDATE
                            ? pr->ttree[s->prev_sym]
                            : lazy_probs(m->ttype[s->prev_sym][tx], 64, &m->stamp.ttype[s->prev_sym][tx], m->epoch);
        sym = drm_tree(io, ENC, tree, 6, sym);
        if (!ENC && sym == exp)
            return st_diag_set(d, ST_E_CORRUPT, "entry %zu: type coded as unexpected but is the expected", i);
    }
    if (sym == DRM_SYM_ESC) {
        *t = drm_u16(io, ENC, pr->wide[0], *t);
        if (!ENC && *t < DRM_SYM_ESC)
            return st_diag_set(d, ST_E_CORRUPT, "entry %zu: type %u escaped", i, *t);
    } else if (!ENC) {
        *t = sym;
    }
    if (lineok)
        l->next[kk] = (uint8_t)sym;
    s->k++;
    const char *bad;
    switch (drm_class(*t)) {
    case C_INSTR: bad = drm_instr(io, ENC, V, m, s, *t, sym, a, size); break;
    case C_MEM: bad = drm_mem(io, ENC, V, m, s, a, size); break;
    case C_ENC: bad = drm_encoding(io, ENC, V, m, s, a, size); break;
    default: bad = drm_other(io, ENC, m, s, *t, sym, a, size); break;
    }
    if (bad)
        return st_diag_set(d, ST_E_CORRUPT, "entry %zu: %s", i, bad);
    s->prev2_sym = s->prev_sym;
    s->prev_sym = sym;
    return ST_OK;
}

/* ---- frames --------------------------------------------------------------------- */

#define DRM_ESZ 12u

static inline void drm_load(const uint8_t *p, unsigned *t, unsigned *size, uint64_t *a)
{
    *t = st_load16(p);
    *size = st_load16(p + 2);
    *a = st_load64(p + 4);
}

/* One entry's step of the match model's key: its address word and its
 * first 4 bytes (type and size). */
static inline uint64_t drm_ctx_step(uint64_t h, uint64_t a, uint32_t type_size)
{
    return (h + a * UINT64_C(0x9E3779B97F4A7C15) + type_size) * UINT64_C(0xC2B2AE3D27D4EB4F);
}

/* The match model's key of the k entries ending with the one at p, whose
 * fields are t, size and a.  That one is taken from the fields, not read
 * back: the decoder has just stored it, and reading it back waited for
 * those stores (7% of its perf samples on the largest corpus thread). */
static inline uint32_t drm_ctx_hash(const uint8_t *p, unsigned k, unsigned t, unsigned size, uint64_t a)
{
    uint64_t h = drm_ctx_step(k, a, (t & 0xFFFFu) | (uint32_t)(size & 0xFFFFu) << 16);
    for (unsigned j = 1; j < k; j++) {
        p -= DRM_ESZ;
        h = drm_ctx_step(h, st_load64(p + 4), st_load32(p));
    }
    return (uint32_t)(h >> (64 - DRM_MATCH_BITS));
}

/* Entry i: through the match model if it proposes one, else the models.
 * raw holds the entries before i (the decoder's out is raw, and gets
 * entry i). */
ST_INLINE st_error drm_step(drm_io *io, const int ENC, const int V, drm_model *m, drm_state *s, const uint8_t *raw, uint8_t *out,
                            size_t i, st_diag *d)
{
    unsigned t = 0, size = 0;
    uint64_t a = 0;
    const uint8_t *cur = raw + i * DRM_ESZ;
    if (ENC)
        drm_load(cur, &t, &size, &a);
    unsigned hit = 0;
    if (s->mlen) {
        const uint8_t *prop = raw + (size_t)s->mptr * DRM_ESZ;
        const unsigned len = s->mrec ? 0 : s->mlen < 15 ? s->mlen : 15, pt = st_load16(prop);
        const unsigned agree = (pt < DRM_SYM_ESC ? pt : DRM_SYM_ESC) == drm_expected(m, s),
                       pc = drm_class(pt), vagree = drm_agrees(m, s, pc, st_load64(prop + 4));
        hit = drm_bit(io, ENC, &m->pr.mflag[len][s->mlast][agree][pc][vagree], ENC ? memcmp(cur, prop, DRM_ESZ) == 0 : 0);
        s->mlast = hit;
        if (hit && !ENC)
            drm_load(prop, &t, &size, &a);
    }
    st_error e = hit ? drm_entry(io, DRM_UPDATE, V, m, s, &t, &size, &a, i, d)
                     : drm_entry(io, ENC, V, m, s, &t, &size, &a, i, d);
    if (e != ST_OK)
        return e;
    if (!ENC) {
        st_store16(out + i * DRM_ESZ, (uint16_t)t);
        st_store16(out + i * DRM_ESZ + 2, (uint16_t)size);
        st_store64(out + i * DRM_ESZ + 4, a);
    }
    /* follow the match, or look for one after the last two entries */
    const int proposed = s->mlen != 0;
    s->mptr++;
    if (hit) {
        s->mlen++;
        s->mrec = 0;
    } else {
        s->mlen = 0;
    }
    for (unsigned o = 0; o < DRM_MATCH_ORDERS; o++) {
        if (i + 1 < drm_match_order[o])
            continue;
        const uint32_t h = drm_ctx_hash(cur, drm_match_order[o], t, size, a), b = h / DRM_MHASH_BLOCK;
        uint32_t *block = lazy_zeros(&m->mhash[o][b * DRM_MHASH_BLOCK], DRM_MHASH_BLOCK * sizeof(uint32_t),
                                     &m->stamp.mhash[o][b], m->epoch);
        uint32_t *slot = block + h % DRM_MHASH_BLOCK;
        if (!s->mlen && *slot) {
            s->mptr = *slot - 1;
            s->mlen = 1;
        }
        *slot = (uint32_t)i + 2; /* entry i + 1, plus 1 */
    }
    /* none found after a wrong proposal: the entry after it, as a copy
     * with one entry changed goes on (a different address, say) */
    if (!s->mlen && proposed && !hit) {
        s->mlen = 1;
        s->mrec = 1;
    }
    return ST_OK;
}

/* The model, fresh for a frame: one for both encoders (a context codes
 * one frame at a time). */
static st_error drm_ready(svpc_ctx *c, drm_model **m, drm_state *s)
{
    void *p;
    RETURN_IF_ERROR(svpc_model(c, SVPC_ENC_DRMEMTRACE, sizeof(drm_model), &p));
    *m = p;
    drm_reset(*m, s);
    return ST_OK;
}

ST_INLINE st_error drm_encode_V(svpc_ctx *c, const int V, const uint8_t *raw, const svpc_source *src, size_t *n,
                                st_buf *out)
{
    drm_model *m;
    drm_state s;
    RETURN_IF_ERROR(drm_ready(c, &m, &s));
    const size_t start = out->len;
    drm_io io;
    rc_enc_init(&io.e, out);
    st_diag d;
    memset(&d, 0, sizeof d);
    /* entries fed as they arrive (src) are asked for only when those
     * ready run out */
    size_t i = 0, ready = src ? 0 : *n;
    for (; svpc_entry_ready(src, i, &ready); i++) {
        RETURN_IF_ERROR(drm_step(&io, DRM_ENCODE, V, m, &s, raw, NULL, i, &d));
    }
    if (ready > SVPC_MAX_FRAME_ENTRIES)
        return ST_E_USAGE;
    *n = i;
    RETURN_IF_ERROR(rc_enc_finish(&io.e));
    svpc_stats_one(c, "entries (range coded)", out->len - start);
    return ST_OK;
}

ST_INLINE st_error drm_decode_V(svpc_ctx *c, const int V, const uint8_t *payload, size_t len, size_t n, size_t stop,
                                uint8_t *raw, st_diag *d)
{
    drm_model *m;
    drm_state s;
    RETURN_IF_ERROR(drm_ready(c, &m, &s));
    drm_io io;
    rc_dec_init(&io.d, payload, len);
    for (size_t i = 0; i < stop; i++) {
        RETURN_IF_ERROR(drm_step(&io, DRM_DECODE, V, m, &s, raw, raw, i, d));
        /* past its end the decoder reads zeros: what it made of them is not an entry */
        if (io.d.overrun)
            return st_diag_set(d, ST_E_CORRUPT, "entry %zu: the range coder's stream is corrupt or ends too early", i);
    }
    return rc_dec_end(&io.d, stop == n, d);
}

/* The two encoders' entry points: the template at V = 1 and V = 2. */
static st_error drm_encode(svpc_ctx *c, const svpc_params *p, st_entry_type type, const uint8_t *raw,
                           const svpc_source *src, size_t *n, st_buf *out)
{
    (void)p; /* no second stage */
    (void)type;
    return drm_encode_V(c, 1, raw, src, n, out);
}

static st_error drmx_encode(svpc_ctx *c, const svpc_params *p, st_entry_type type, const uint8_t *raw,
                            const svpc_source *src, size_t *n, st_buf *out)
{
    (void)p;
    (void)type;
    return drm_encode_V(c, 2, raw, src, n, out);
}

static st_error drm_decode(svpc_ctx *c, st_entry_type type, const uint8_t *payload, size_t len, size_t n, size_t from, size_t stop,
                           uint8_t *raw, st_diag *d)
{
    (void)from; /* every entry is stored */
    (void)type;
    return drm_decode_V(c, 1, payload, len, n, stop, raw, d);
}

static st_error drmx_decode(svpc_ctx *c, st_entry_type type, const uint8_t *payload, size_t len, size_t n, size_t from, size_t stop,
                            uint8_t *raw, st_diag *d)
{
    (void)from; /* every entry is stored */
    (void)type;
    return drm_decode_V(c, 2, payload, len, n, stop, raw, d);
}

static int drm_supports(st_entry_type t) { return t == ST_TYPE_DRMEMTRACE; }
static size_t drm_memory(void) { return sizeof(drm_model); }

const svpc_codec svpc_codec_drmemtrace = {SVPC_ENC_DRMEMTRACE, "drmemtrace", drm_supports, drm_memory, 1,
                                          drm_encode, drm_decode, NULL};
const svpc_codec svpc_codec_drmx = {SVPC_ENC_DRMX, "drmx", drm_supports, drm_memory, 1, drmx_encode, drmx_decode, NULL};
