/*
 * fields.h - what the SVPC memory encoders share (internal to svpc/): the
 * fields of an entry, their predictor configurations and inline
 * predict/update wrappers, residuals, and entry loads and stores for a
 * constant type.  paper.c, cm.c (cm1, cm) and cm2.c include it.
 */
#ifndef SVPC_FIELDS_H
#define SVPC_FIELDS_H

#include <string.h>

#include "../formats/entry.h"
#include "../vpc/vpc.h"

/* Inline templates must really be inlined for their constant arguments to
 * fold away; GCC and clang otherwise keep the larger ones out of line.
 * ST_NO_FORCE_INLINE (the fuzz build) leaves it to the compiler: the same
 * code, compiled in seconds instead of minutes under the sanitizers. */
#if defined(__GNUC__) && !defined(ST_NO_FORCE_INLINE)
#define ST_INLINE static inline __attribute__((always_inline))
/* tells the compiler what the callers guarantee (a field below F_COUNT),
 * so that no path of an impossible field is compiled or warned about */
#define ST_ASSUME(c) ((c) ? (void)0 : __builtin_unreachable())
#else
#define ST_INLINE static inline
#define ST_ASSUME(c) ((void)0)
#endif

enum { F_IP, F_CYCLE, F_META, F_ADDR, F_DATA, F_COUNT };
static const char *const field_names[F_COUNT] = {"ip", "cycle", "meta", "address", "data"};

/*
 * Predictor configurations, one X-macro list per field:
 * X(kind, order r, values n, history bits s, value-table bits t, keyed by
 * address, values per line of the LV that holds its last values or 0).  Each list generates the configuration table and the field's
 * predict/update wrappers, which call the vpc inline workers with constant
 * parameters (unrolled, one key-line computation per key): the hot loop
 * pays for no configuration lookups.
 *
 * Table 1 of the Simutrace white paper: FCMr[n]^s_t.
 */
#define MEM_BITS 18
#define CFG_IP(X) X(VPC_FCM, 1, 2, 0, 17, 0, 0) X(VPC_FCM, 3, 2, 0, 19, 0, 0)
#define CFG_CYCLE(X) X(VPC_DCFCM, 1, 2, 0, 17, 0, 0) X(VPC_DCFCM, 3, 2, 0, 19, 0, 0)
/* The IP-keyed FCM1, DFCM1 and DFCM3 take their last values from the LV[4]
 * (its 2^16 lines are their history lines: vpc.h, shared last values). */
#define CFG_EXT(X)                                                                                             \
    X(VPC_FCM, 1, 2, 16, 19, 0, 4) X(VPC_DFCM, 1, 2, 16, 17, 0, 4) X(VPC_DFCM, 3, 2, 16, 19, 0, 4)              \
    X(VPC_LV, 0, 4, 0, 16, 0, 0)
/* Not in the paper: the meta field (fullSize, tag) as the last 2 values seen
 * at the same IP; and data also predicted from the last 2 values seen at the
 * same address (memory contents). */
#define CFG_META(X) X(VPC_LV, 0, 2, 0, 16, 0, 0)
#define CFG_DATA_CM(X) CFG_EXT(X) X(VPC_LV, 0, 2, 0, MEM_BITS, 1, 0)
/* cm2: cm's predictors with value tables of 2^18 lines where cm has 2^19
 * (SIMTRACE.md 6.9): 24 MB less per thread, and on the corpus the same
 * size within 1% either way (geometric mean -0.1%).  The slots are cm's. */
#define CFG_IP_CM2(X) X(VPC_FCM, 1, 2, 0, 17, 0, 0) X(VPC_FCM, 3, 2, 0, 18, 0, 0)
#define CFG_CYCLE_CM2(X) X(VPC_DCFCM, 1, 2, 0, 17, 0, 0) X(VPC_DCFCM, 3, 2, 0, 18, 0, 0)
#define CFG_EXT_CM2(X)                                                                                         \
    X(VPC_FCM, 1, 2, 16, 18, 0, 4) X(VPC_DFCM, 1, 2, 16, 17, 0, 4) X(VPC_DFCM, 3, 2, 16, 18, 0, 4)              \
    X(VPC_LV, 0, 4, 0, 16, 0, 0)
#define CFG_DATA_CM2(X) CFG_EXT_CM2(X) X(VPC_LV, 0, 2, 0, MEM_BITS, 1, 0)
#define EXT_LV_SLOT 6 /* first slot of the LV predictor in CFG_EXT */

#define AS_CFG(k, r, n, s, t, k2, l) {k, r, n, s, t, k2, l},
#define AS_NSLOTS(k, r, n, s, t, k2, l) +n
#define AS_PREDICT(k, r, n, s, t, k2, l)                                                 \
    vpc_pred_predict(&set->pred[p_], (k2) ? key2 : key1, set->slot + o_, k, r, n, s, t, l); \
    o_ += n;                                                                             \
    p_++;
#define AS_UPDATE(k, r, n, s, t, k2, l) vpc_pred_update(&set->pred[p_++], v, k, r, n, s, t, l);
#define AS_LOCATE(k, r, n, s, t, k2, l) vpc_pred_locate(&set->pred[p_++], (k2) ? key2 : key1, k, r, n, s, t, l);
#define AS_SLOT(k, r, n, s, t, k2, l)                           \
    if (id < o_ + (n))                                          \
        return vpc_pred_slot(&set->pred[p_], id - o_, k, n, l); \
    o_ += n;                                                    \
    p_++;
/* predict_X: all slots into set->slot (the encoder chooses among them);
 * locate_X + slot_X: the lines, then one slot on demand (the decoder's way:
 * it reads only the slot the encoder chose); update_X: learn the value. */
#define DEFINE_FIELD(name, LIST)                                                               \
    static const vpc_pred_cfg cfg_##name[] = {LIST(AS_CFG)};                                    \
    enum { nslots_##name = 0 LIST(AS_NSLOTS) };                                                 \
    ST_INLINE void predict_##name(vpc_set *set, uint64_t key1, uint64_t key2)                   \
    {                                                                                           \
        unsigned o_ = 0, p_ = 0;                                                                \
        (void)key1;                                                                             \
        (void)key2;                                                                             \
        LIST(AS_PREDICT)                                                                        \
        (void)o_;                                                                               \
    }                                                                                           \
    ST_INLINE void locate_##name(vpc_set *set, uint64_t key1, uint64_t key2)                    \
    {                                                                                           \
        unsigned p_ = 0;                                                                        \
        (void)key1;                                                                             \
        (void)key2;                                                                             \
        LIST(AS_LOCATE)                                                                         \
    }                                                                                           \
    /* id < nslots */                                                                           \
    ST_INLINE uint64_t slot_##name(const vpc_set *set, unsigned id)                             \
    {                                                                                           \
        unsigned o_ = 0, p_ = 0;                                                                \
        LIST(AS_SLOT)                                                                           \
        return 0;                                                                               \
    }                                                                                           \
    ST_INLINE void update_##name(vpc_set *set, uint64_t v)                                       \
    {                                                                                           \
        unsigned p_ = 0;                                                                        \
        LIST(AS_UPDATE)                                                                         \
    }

DEFINE_FIELD(ip, CFG_IP)
DEFINE_FIELD(cycle, CFG_CYCLE)
DEFINE_FIELD(ext, CFG_EXT)
DEFINE_FIELD(meta, CFG_META)
DEFINE_FIELD(data_cm, CFG_DATA_CM)
DEFINE_FIELD(ip_cm2, CFG_IP_CM2)
DEFINE_FIELD(cycle_cm2, CFG_CYCLE_CM2)
DEFINE_FIELD(ext_cm2, CFG_EXT_CM2)
DEFINE_FIELD(data_cm2, CFG_DATA_CM2)

/* Predictor families: the encoders that share a family share their
 * predictor sets (the same tables, reset at every frame). */
enum { FAM_PAPER = 0, FAM_CM = 1, FAM_CM2 = 2, FAM_COUNT };

/* The one list of which predictor list (DEFINE_FIELD above) each field of
 * each family uses: X(family, field, name).  The configuration table and
 * every per-field function below are generated from it; paper's data is
 * predicted as its address is, cm's and cm2's data also from the last
 * values at the same address. */
#define FAMILY_FIELDS(X)                                                                                       \
    X(FAM_PAPER, F_IP, ip) X(FAM_PAPER, F_CYCLE, cycle) X(FAM_PAPER, F_META, meta) X(FAM_PAPER, F_ADDR, ext)    \
    X(FAM_PAPER, F_DATA, ext)                                                                                   \
    X(FAM_CM, F_IP, ip) X(FAM_CM, F_CYCLE, cycle) X(FAM_CM, F_META, meta) X(FAM_CM, F_ADDR, ext)                \
    X(FAM_CM, F_DATA, data_cm)                                                                                  \
    X(FAM_CM2, F_IP, ip_cm2) X(FAM_CM2, F_CYCLE, cycle_cm2) X(FAM_CM2, F_META, meta)                            \
    X(FAM_CM2, F_ADDR, ext_cm2) X(FAM_CM2, F_DATA, data_cm2)

typedef struct {
    const vpc_pred_cfg *cfg;
    unsigned n;
} field_cfg_t;
#define NPREDS(a) (unsigned)(sizeof(a) / sizeof(a)[0])
#define AS_FIELD_CFG(fm, f, name) [fm][f] = {cfg_##name, NPREDS(cfg_##name)},
/* [family][field] */
static const field_cfg_t field_cfg[FAM_COUNT][F_COUNT] = {FAMILY_FIELDS(AS_FIELD_CFG)};

/* Free the predictor sets of the family *have holds (-1: none). */
static inline void field_sets_free(vpc_set *sets, int *have)
{
    if (*have >= 0)
        for (unsigned f = 0; f < F_COUNT; f++)
            vpc_set_free(&sets[f]);
    *have = -1;
}

/* Make sets[F_COUNT] the fresh predictor sets of family fam: allocated
 * when *have (the family they hold; -1: none) is another, else reset.  On
 * failure none is left allocated and *have is -1. */
static inline st_error field_sets_ready(vpc_set *sets, int *have, int fam)
{
    if (*have == fam) {
        for (unsigned f = 0; f < F_COUNT; f++)
            vpc_set_reset(&sets[f]);
        return ST_OK;
    }
    field_sets_free(sets, have);
    for (unsigned f = 0; f < F_COUNT; f++) {
        st_error e = vpc_set_init(&sets[f], field_cfg[fam][f].cfg, field_cfg[fam][f].n);
        if (e != ST_OK) {
            for (unsigned g = 0; g < f; g++)
                vpc_set_free(&sets[g]);
            return e;
        }
    }
    *have = fam;
    return ST_OK;
}

/* Per field f of family fam, with both constant after inlining (straight
 * line code, no lookups): the keys are the entry's ip (none for the ip
 * itself, whose predictors are global) and, for predictors keyed by
 * address, its address.
 *   field_predict: every slot into sets[f].slot (paper's encoder and
 *     the choice below);
 *   field_locate + field_slot: the lines, then one slot on demand (the
 *     decoders read only the slot the encoder chose);
 *   field_update: learn the value;
 *   field_nslots: the slots, which is also the miss id. */
#define FIELD_KEYS(f) ((f) == F_IP ? 0 : ip), addr
#define FF_PREDICT(fm, f, name)                                  \
    if (fam == (fm) && fld == (f)) {                             \
        predict_##name(&sets[f], FIELD_KEYS(f));                 \
        return;                                                  \
    }
#define FF_LOCATE(fm, f, name)                                   \
    if (fam == (fm) && fld == (f)) {                             \
        locate_##name(&sets[f], FIELD_KEYS(f));                  \
        return;                                                  \
    }
#define FF_SLOT(fm, f, name)                                     \
    if (fam == (fm) && fld == (f))                               \
        return slot_##name(&sets[f], id);
#define FF_UPDATE(fm, f, name)                                   \
    if (fam == (fm) && fld == (f)) {                             \
        update_##name(&sets[f], v);                              \
        return;                                                  \
    }
#define FF_NSLOTS(fm, f, name)                                   \
    if (fam == (fm) && fld == (f))                               \
        return nslots_##name;

ST_INLINE void field_predict(vpc_set *sets, unsigned fld, unsigned fam, uint64_t ip, uint64_t addr)
{
    ST_ASSUME(fld < F_COUNT && fam < FAM_COUNT);
    FAMILY_FIELDS(FF_PREDICT)
}
ST_INLINE void field_locate(vpc_set *sets, unsigned fld, unsigned fam, uint64_t ip, uint64_t addr)
{
    ST_ASSUME(fld < F_COUNT && fam < FAM_COUNT);
    FAMILY_FIELDS(FF_LOCATE)
}
/* id < field_nslots(fld, fam), after field_locate() */
ST_INLINE uint64_t field_slot(const vpc_set *sets, unsigned fld, unsigned fam, unsigned id)
{
    ST_ASSUME(fld < F_COUNT && fam < FAM_COUNT);
    FAMILY_FIELDS(FF_SLOT)
    return 0;
}
ST_INLINE void field_update(vpc_set *sets, unsigned fld, unsigned fam, uint64_t v)
{
    ST_ASSUME(fld < F_COUNT && fam < FAM_COUNT);
    FAMILY_FIELDS(FF_UPDATE)
}
ST_INLINE unsigned field_nslots(unsigned fld, unsigned fam)
{
    ST_ASSUME(fld < F_COUNT && fam < FAM_COUNT);
    FAMILY_FIELDS(FF_NSLOTS)
    return 0;
}

/* The encoders' id for value v of field fld, whose lines are located,
 * expected id exp: vpc_set_choose() of all the slots (field_predict()'s
 * choice), but mostly the expected id is right, and only its slot is
 * read. */
ST_INLINE unsigned field_choose(vpc_set *sets, unsigned fld, unsigned fam, unsigned exp, uint64_t v)
{
    const unsigned ns = field_nslots(fld, fam);
    if (exp < ns && field_slot(sets, fld, fam, exp) == v)
        return exp;
    for (unsigned k = 0; k < ns; k++)
        sets[fld].slot[k] = field_slot(sets, fld, fam, k);
    return vpc_set_choose(&sets[fld], v, exp);
}

#define KEY_BITS 16
ST_INLINE unsigned mask_bits(uint64_t mask) { return mask == UINT64_MAX ? 64 : (unsigned)__builtin_popcountll(mask); }

/* Signed difference v - ref in a field `bits` wide, zigzag-mapped so that
 * small differences of either sign become small numbers. */
static inline uint64_t zz_delta(uint64_t v, uint64_t ref, uint64_t mask, unsigned bits)
{
    uint64_t d = (v - ref) & mask;
    if (bits < 64 && (d >> (bits - 1)) & 1)
        d |= ~mask;
    return (d << 1) ^ (uint64_t)(0 - (d >> 63));
}

static inline uint64_t zz_apply(uint64_t r, uint64_t ref, uint64_t mask)
{
    uint64_t d = (r >> 1) ^ (uint64_t)(0 - (r & 1));
    return (ref + d) & mask;
}

static inline unsigned nbytes_of(uint64_t r) { return r ? (unsigned)((64 - __builtin_clzll(r) + 7) >> 3) : 0; }

/* Width mask of field f, a constant for a constant type (field_mask() calls
 * the out-of-line entry-type functions, which a template cannot fold).  A
 * vpc entry's pc is 32 bits and its extended data, coded as the address
 * field (6.6 of SIMTRACE.md), 64. */
ST_INLINE uint64_t cm_mask_T(unsigned f, st_entry_type t)
{
    if (f == F_CYCLE)
        return ST_CYCLE_MASK;
    if (f == F_META)
        return 0xFFFF;
    if (t == ST_TYPE_VPC)
        return f == F_IP ? 0xFFFFFFFFu : UINT64_MAX;
    return (t == ST_TYPE_D64 || t == ST_TYPE_M64) ? UINT64_MAX : 0xFFFFFFFFu;
}

/* The ip-keyed fields cm codes for type t, in coding order: cycle, meta,
 * address[, data] for the memory types; for vpc entries only the extended
 * data, as the address field (its predictors are the address set's, its
 * misses the address residuals).  nf is 4, 3 or 1; field j is
 * cm_field_of(t, j), and j is also its nibble and flag pair in TUPLE. */
ST_INLINE unsigned cm_nfields(st_entry_type t)
{
    return t == ST_TYPE_VPC ? 1 : (t == ST_TYPE_D64 || t == ST_TYPE_D32) ? 4 : 3;
}

ST_INLINE unsigned cm_field_of(st_entry_type t, unsigned j) { return t == ST_TYPE_VPC ? F_ADDR : F_CYCLE + j; }

/* Little-endian stores of the decoded entry: on little-endian hosts one
 * move each (GCC 12 does not merge st_store64's byte stores here). */
ST_INLINE void cm_store64(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 8);
#else
    st_store64(p, v);
#endif
}

ST_INLINE void cm_store32(uint8_t *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 4);
#else
    st_store32(p, v);
#endif
}

/* st_entry_store() for a constant memory type, or a vpc pair (u32 pc,
 * u64 extended data: 12 bytes, packed). */
ST_INLINE void cm_store_entry(st_entry_type t, uint8_t *p, const uint64_t *v)
{
    if (t == ST_TYPE_VPC) {
        cm_store32(p, (uint32_t)v[F_IP]);
        cm_store64(p + 4, v[F_ADDR]);
        return;
    }
    cm_store64(p, (v[F_CYCLE] & ST_CYCLE_MASK) | (v[F_META] << 48));
    if (t == ST_TYPE_D64 || t == ST_TYPE_M64) {
        cm_store64(p + 8, v[F_IP]);
        cm_store64(p + 16, v[F_ADDR]);
        if (t == ST_TYPE_D64)
            cm_store64(p + 24, v[F_DATA]);
    } else {
        cm_store32(p + 8, (uint32_t)v[F_IP]);
        cm_store32(p + 12, (uint32_t)v[F_ADDR]);
        if (t == ST_TYPE_D32)
            cm_store32(p + 16, (uint32_t)v[F_DATA]);
    }
}

/* The fields of entry p of type t (memory types: st_entry_load(); vpc: the
 * pc as ip and the extended data as address; absent fields 0). */
ST_INLINE void cm_load_entry(st_entry_type t, const uint8_t *p, uint64_t *v)
{
    if (t == ST_TYPE_VPC) {
        v[F_IP] = st_load32(p);
        v[F_ADDR] = st_load64(p + 4);
        v[F_CYCLE] = v[F_META] = v[F_DATA] = 0;
        return;
    }
    st_entry e;
    st_entry_load(t, p, &e);
    v[F_IP] = e.ip;
    v[F_CYCLE] = e.cycle;
    v[F_META] = e.meta16;
    v[F_ADDR] = e.addr;
    v[F_DATA] = e.data;
}

#endif /* SVPC_FIELDS_H */
