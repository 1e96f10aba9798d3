/*
 * svpc.h - the SVPC entry codec (public header of svpc/).
 *
 * Encodes one frame of raw entries into a self-contained payload, and back.
 * A payload depends on nothing outside it: every frame starts from fresh
 * predictor and model state, which is what makes frames independently
 * decodable and the output identical for every thread count.
 *
 * Encoders (the id is stored in each frame header; see formats/SIMTRACE.md
 * section 6 for the payload layouts):
 *
 *   SVPC_ENC_GENERIC (1)  second stage only; any entry type.
 *   SVPC_ENC_PAPER   (2)  SVPC as published (Simutrace white paper, Sect. 3.3,
 *                         Table 1): one byte per predictor id, unpredicted
 *                         values verbatim, meta verbatim, each stream through
 *                         the second stage.  Kept for comparison.
 *   SVPC_ENC_CM1     (3)  the default of container version 1.1.  Same
 *                         Table 1 predictors; the meta field is predicted
 *                         too; the ids are coded by an adaptive binary range
 *                         coder whose contexts are the ids seen last time at
 *                         the same IP; data is also predicted from the last
 *                         values at the same address; unpredicted ip, cycle,
 *                         meta and address values are coded as differences
 *                         from a reference (the last value at the IP, or the
 *                         previous value) with a modelled byte length;
 *                         unpredicted data values are stored verbatim; the
 *                         miss bytes go through the second stage.  Also codes
 *                         legacy VPC pairs (ST_TYPE_VPC): the pc as the ip and
 *                         the extended data as the address, with the same
 *                         predictors (VPC4: Table 1's IP and Data rows), coder
 *                         and residuals (SIMTRACE.md 6.6).  Written only when
 *                         asked for (readers of 1.1 know no other).
 *   SVPC_ENC_CM      (4)  the default of svpc 0.1 (container 1.2): cm1 with a range
 *                         coder whose probabilities learn a new context's
 *                         skew from its first bits (SIMTRACE.md 6.7).  Same
 *                         types, streams and predictors as cm1; 1-3% smaller,
 *                         and frames cost less against one frame.
 *   SVPC_ENC_VPC     (5)  legacy VPC pairs only (ST_TYPE_VPC; simtrace-pack's
 *                         default for them).  Sixteen sources per field (pc
 *                         contexts of up to 8 pcs and the last extended
 *                         datum; for the extended datum last values,
 *                         strides, FCM, DFCM, and the distances from the
 *                         previous entry's value and from the last value of
 *                         the same region), walked in an order ranked by
 *                         their recent success at this pc; one flag per
 *                         distinct proposal, its probability a logistic mix
 *                         of a shared context and the source's own line;
 *                         extended-data misses range-coded against the
 *                         nearest of four references (SIMTRACE.md 6.8).
 *   SVPC_ENC_CM2     (6)  -e cm2 (container 1.4; the default before cmx): cm's
 *                         predictors and id contexts, with every miss coded
 *                         by the range coder through models of its own
 *                         (match models of the ip, address and data misses,
 *                         recent values, residual bytes, data lanes mixed
 *                         or raw) instead of miss streams through a second
 *                         stage (SIMTRACE.md 6.9);
 *                         the payload is the range coder's output, and the
 *                         stage and level are not used.  One template in
 *                         svpc/cm2.c encodes and decodes.
 *   SVPC_ENC_FAST    (7)  level -1 (container 1.5): the memory types with a
 *                         few predictors per field in cache-sized tables,
 *                         an id byte per entry, the misses in byte streams
 *                         per field through zstd, whose effort the level
 *                         sets; several times faster to read and write than
 *                         cm2, and larger (SIMTRACE.md 6.10, svpc/fast.c).
 *   SVPC_ENC_CHAMPSIM (8) ChampSim records only (champsim and
 *                         champsim-cloudsuite; their default): each
 *                         record's fields predicted from the last record
 *                         at its ip (the next ip from the fall-through
 *                         length or the branch target, the flags, the
 *                         registers as a whole, the memory operands from
 *                         the last address and stride of their slot),
 *                         ids and misses range coded (SIMTRACE.md 6.12).
 *                         One template in svpc/champsim.c encodes and
 *                         decodes.
 *   SVPC_ENC_BEST   (11)  -e best (container 1.5): cm2's
 *                         template with each id flag, id tree, residual
 *                         byte and lower data lane also coded in three more
 *                         contexts (longer histories per ip line and
 *                         overall, the last two ip lines), mixed
 *                         (SIMTRACE.md 6.11); slower to read and write.
 *   SVPC_ENC_MIX    (12)  -7, -8 and -9 (container 1.5): best's template
 *                         with the first one (-7), two (-8) or all three
 *                         (-9) of its contexts mixed, and cmx's transform,
 *                         both in the payload's first byte (SIMTRACE.md
 *                         6.11.1); -7 and -8 between cmx and best in size
 *                         and in speed, -9 the smallest.
 *   SVPC_ENC_CMX    (13)  the default, -6 (container 1.5): cm2 with the
 *                         transform of recent data values (a 4-byte data
 *                         miss as a rotation of one of the last 12
 *                         entries' values or the sum of two, the choice
 *                         learned per ip: hash states, SIMTRACE.md 6.9.1);
 *                         the payload is cm2's form, its first byte 0
 *                         with the transform or 1 without (frames where
 *                         it is seldom right are coded both ways, the
 *                         smaller kept; the others once: no trace
 *                         measured larger than cm2), and on traces
 *                         without values the same bytes.
 *
 * Thread safety: an svpc_ctx belongs to one thread at a time.  Distinct
 * contexts share nothing, so one per worker thread runs in parallel.
 */
#ifndef SVPC_H
#define SVPC_H

#include <stddef.h>
#include <stdint.h>

#include "../common/st_bytes.h"
#include "../common/st_error.h"
#include "../formats/entry.h"

typedef enum {
    SVPC_STAGE_NONE = 0,
    SVPC_STAGE_LZMA = 1,
    SVPC_STAGE_BZIP2 = 2,
    SVPC_STAGE_ZLIB = 3,
} svpc_stage;

typedef enum {
    SVPC_ENC_GENERIC = 1,
    SVPC_ENC_PAPER = 2,
    SVPC_ENC_CM1 = 3,
    SVPC_ENC_CM = 4,
    SVPC_ENC_VPC = 5,
    SVPC_ENC_CM2 = 6,
    SVPC_ENC_FAST = 7,
    SVPC_ENC_CHAMPSIM = 8,
    SVPC_ENC_CVP = 9, /* CVP-1 / CBP-2025 records (entry type cvp) only */
    SVPC_ENC_DRMEMTRACE = 10, /* DynamoRIO drmemtrace entries only (SIMTRACE.md 6.14) */
    SVPC_ENC_BEST = 11,
    SVPC_ENC_MIX = 12,
    SVPC_ENC_CMX = 13,
    SVPC_ENC_DRMX = 14, /* drmemtrace entries, their x86-64 instructions read (SIMTRACE.md 6.14.1) */
    SVPC_ENC_LAST = SVPC_ENC_DRMX,
} svpc_encoder;

/* The writers' encoder for memory types when none is asked for: cmx,
 * cm2 with the transform of recent values (0.86-0.90 of cm2's size on
 * traces with hash states, in up to 1.2 times its time to read them;
 * SIMTRACE.md 6.9.1); cm2 is
 * smaller than cm on every trace of the corpus and 2-4x faster to write
 * values, about 15% slower to read (doc/DESIGN.md, The method). */
#define SVPC_ENC_DEFAULT SVPC_ENC_CMX

typedef struct {
    svpc_encoder encoder;
    svpc_stage stage;
    int level; /* second-stage level 1..9 */
} svpc_params;

/* Largest frame the codec accepts, in entries (and bytes for ST_TYPE_BYTES).
 * Readers reject frames claiming more. */
#define SVPC_MAX_FRAME_ENTRIES (UINT32_C(1) << 24)

typedef struct svpc_ctx svpc_ctx;

/* Create a codec context.  Predictor tables are allocated on first use of a
 * memory encoder.  Returns ST_OK or ST_E_NOMEM. */
st_error svpc_ctx_new(svpc_ctx **out);

/* Free a context and all its tables.  NULL is allowed. */
void svpc_ctx_free(svpc_ctx *ctx);

/* Bytes of memory one context holds while coding with encoder enc
 * (predictor tables and model; not counting frame buffers). */
size_t svpc_ctx_memory(svpc_encoder enc);

/* The largest svpc_ctx_memory() of any encoder: what a decoder of frames
 * of unknown encoders must allow for. */
size_t svpc_ctx_memory_max(void);

/* 1 if encoder enc codes entries of type t: generic any type of known size
 * (ST_TYPE_BYTES included, ST_TYPE_USER not), paper and cm2 the four memory
 * types, cm1 and cm the memory types and ST_TYPE_VPC, vpc ST_TYPE_VPC only.
 * svpc_encode() and svpc_decode()
 * refuse the other pairs; containers should check this, not the type
 * alone. */
int svpc_encoder_supports(svpc_encoder enc, st_entry_type t);

/* What an encoder codes without (svpc_encoder_ignores(), svpc/levels.c):
 * cm2, cmx and best have neither a second stage nor a level, fast its own
 * coder, whose effort is the level, and mix its count of contexts, which
 * the level sets with the transform; the others pass both to their
 * second stage. */
#define SVPC_IGNORES_STAGE 1u
#define SVPC_IGNORES_LEVEL 2u
unsigned svpc_encoder_ignores(svpc_encoder enc);

/* The level written without one: cmx, the default. */
#define SVPC_LEVEL_DEFAULT 6

/*
 * The method of the writers' options (the programs' -e, -s, -1..-9): with
 * no encoder named (enc 0) the level chooses it whole, else the level is
 * enc's own (its second stage's, fast's effort, or mix's contexts; 0: 6,
 * fast's 1).  A
 * stage given replaces lzma, the second stage of what the method's
 * encoder does not code.  The one table of levels is here: -1..-5 the
 * fast encoder, more zstd effort each (one decoder reads them all, at one
 * speed: -4 and -5 are 1-7% smaller than -3, and take about half and four
 * fifths of -6's time to write); -6 cmx, the default (the level is then
 * the second stage's for the streams other encoders code); -7, -8 and -9
 * mix, with one, two and three of best's contexts and the transform, -9
 * the smallest.
 */
static inline svpc_params svpc_method(svpc_encoder enc, int stage_given, svpc_stage stage, int level)
{
    static const svpc_encoder by_level[10] = {
        SVPC_ENC_CMX, SVPC_ENC_FAST, SVPC_ENC_FAST, SVPC_ENC_FAST, SVPC_ENC_FAST,
        SVPC_ENC_FAST, SVPC_ENC_CMX, SVPC_ENC_MIX,  SVPC_ENC_MIX,  SVPC_ENC_MIX,
    };
    const int l = level >= 1 && level <= 9 ? level : enc == SVPC_ENC_FAST ? 1 : SVPC_LEVEL_DEFAULT;
    svpc_params p = {enc ? enc : by_level[l], stage_given ? stage : SVPC_STAGE_LZMA, l};
    return p;
}

/* Entries per frame of a method when none is asked for (dflt: the
 * container's, 2^20): the fast encoder's are 2^18, so that a reader or
 * writer holds 8 MiB of d64 entries per frame, not 32 (its tables are a
 * hundredth of cm2's, so its frames are most of its memory; on the
 * corpus 2-5% larger than 2^20 frames, SIMTRACE.md 6.10). */
static inline uint32_t svpc_method_frame_entries(svpc_encoder enc, uint32_t dflt)
{
    return enc == SVPC_ENC_FAST ? UINT32_C(1) << 18 : dflt;
}

/*
 * Why a second stage (stage_given) or a level (level_given) asked of
 * encoder enc would change nothing it writes: a sentence for a message
 * ("encoder cm2: <reason>"), or NULL when each applies.  A level applies
 * to an encoder that uses its level (fast), or passes it to a second
 * stage other than none.
 */
const char *svpc_options_unused(svpc_encoder enc, int stage_given, svpc_stage stage, int level_given);

/* Names for the CLI: "lzma"..., "generic"/"paper"/"cm1"/"cm"/"vpc"/"cm2".  NULL if unknown. */
const char *svpc_stage_name(svpc_stage s);
int svpc_stage_parse(const char *name, svpc_stage *out);   /* 1 on success */
const char *svpc_encoder_name(svpc_encoder e);
int svpc_encoder_parse(const char *name, svpc_encoder *out); /* 1 on success */

/*
 * Encode n entries of type t (n * st_entry_size(t) bytes at raw) and append
 * the payload to out.  n may be 0.
 * Returns ST_OK; ST_E_USAGE (!svpc_encoder_supports(p->encoder, t), n above
 * SVPC_MAX_FRAME_ENTRIES, bad stage or level); ST_E_NOMEM; ST_E_INTERNAL
 * (a second-stage library failed).  On failure out->len is unchanged.
 */
st_error svpc_encode(svpc_ctx *ctx, const svpc_params *p, st_entry_type t,
                     const uint8_t *raw, size_t n, st_buf *out);

/*
 * Entries that arrive while a frame is encoded (the container's writer
 * fills a frame while a worker codes it, so that it keeps no second frame
 * buffer).  more(arg, have) blocks until more than `have` entries are
 * ready at the encoder's raw pointer, and returns how many are; it returns
 * `have` itself when the frame ends there.  Entries once counted ready
 * must not change.
 */
typedef struct {
    size_t (*more)(void *arg, size_t have);
    void *arg;
} svpc_source;

/* 1 if svpc_encode_source() with encoder enc codes entries as they arrive
 * (cm2); the others wait for the frame's end, then code it. */
int svpc_encoder_codes_as_fed(svpc_encoder enc);

/*
 * svpc_encode() of the entries that src makes ready at raw (at most
 * SVPC_MAX_FRAME_ENTRIES), in the same bytes; *n is set to their number.
 * Returns as svpc_encode().
 */
st_error svpc_encode_source(svpc_ctx *ctx, const svpc_params *p, st_entry_type t, const uint8_t *raw,
                            const svpc_source *src, size_t *n, st_buf *out);

/*
 * Decode a payload made by svpc_encode(enc, t) that must hold exactly n
 * entries, into raw (n * st_entry_size(t) bytes, caller-allocated).
 * Never reads outside payload[0 .. len-1], never writes outside raw, and
 * allocates at most a bound proportional to n.
 * Returns ST_OK; ST_E_CORRUPT or ST_E_SECOND_STAGE (payload inconsistent:
 * diag->detail says which part); ST_E_UNSUPPORTED (unknown encoder, stage or
 * type); ST_E_NOMEM.  On failure raw's content is unspecified.
 */
st_error svpc_decode(svpc_ctx *ctx, svpc_encoder enc, st_entry_type t,
                     const uint8_t *payload, size_t len, size_t n, uint8_t *raw,
                     st_diag *diag);

/*
 * The first `stop` entries (0..n) of the same payload, for random access:
 * decoding stops there, so the cost is proportional to stop.  Everything
 * decoded is checked as by svpc_decode, but what lies after the prefix is
 * not read, so a payload damaged only there is not detected.  With stop ==
 * n this is svpc_decode.  Returns as svpc_decode; ST_E_USAGE if stop > n.
 */
st_error svpc_decode_prefix(svpc_ctx *ctx, svpc_encoder enc, st_entry_type t,
                            const uint8_t *payload, size_t len, size_t n, size_t stop,
                            uint8_t *raw, st_diag *diag);

/*
 * Entries from..stop-1 (and entry 0) of the same payload, at their places
 * in raw (entry i at raw + i * entry size): the prefix is decoded as by
 * svpc_decode_prefix, but entries 1..from-1 may be left unwritten, so that
 * one entry deep in a frame touches no memory for those before it (the
 * reader's random access, which then checks only the ENTRY_CRC blocks it
 * returns).  Entry 0 is always written: its cycle is the frame header's.
 * raw still spans stop entries.  Returns as svpc_decode_prefix;
 * ST_E_USAGE if from > stop.
 */
st_error svpc_decode_part(svpc_ctx *ctx, svpc_encoder enc, st_entry_type t,
                          const uint8_t *payload, size_t len, size_t n, size_t from,
                          size_t stop, uint8_t *raw, st_diag *diag);

/* Per-stream byte accounting of the last svpc_encode() on ctx (the paper,
 * cm1 and cm encoders' internal streams; scripts/vpcpairs.c prints it):
 * name and compressed size of each internal stream.  Returns the number
 * of streams (0 if none).  `simtrace-cat --stats` reports the predictors'
 * hits per field from decoded entries instead, and for cm2 frames the
 * bits of each field's ids and misses (svpc_stats.h). */
typedef struct {
    const char *name;
    uint64_t raw;
    uint64_t stored;
} svpc_stream_stat;
unsigned svpc_last_stats(const svpc_ctx *ctx, svpc_stream_stat *out, unsigned max);

#endif /* SVPC_H */
