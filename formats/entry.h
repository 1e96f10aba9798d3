/*
 * entry.h - the raw memory-entry layouts (public header of formats/).
 *
 * Four fixed-size, little-endian, packed layouts, bit-compatible with
 * Simutrace's memory entry types (byte tables: formats/ENTRIES.md):
 *
 *   d64  32 bytes  u64 meta, u64 ip, u64 address, u64 data
 *   d32  20 bytes  u64 meta, u32 ip, u32 address, u32 data
 *   m64  24 bytes  u64 meta, u64 ip, u64 address
 *   m32  16 bytes  u64 meta, u32 ip, u32 address
 *
 * meta = cycle (bits 0..47) | fullSize (bit 48) | tag (bits 49..63).
 * The codec treats every field as opaque bits, so any content round-trips.
 */
#ifndef ST_ENTRY_H
#define ST_ENTRY_H

#include <stddef.h>
#include <stdint.h>

#include "../common/st_bytes.h"

typedef enum {
    ST_TYPE_NONE = 0,
    ST_TYPE_D64 = 1,
    ST_TYPE_D32 = 2,
    ST_TYPE_M64 = 3,
    ST_TYPE_M32 = 4,
    ST_TYPE_BYTES = 5,  /* opaque byte stream (generic encoder only) */
    ST_TYPE_VBLOCK = 6, /* 32-byte block of a variable-sized value (below) */
    ST_TYPE_VPC = 7,    /* legacy VPC pair: u32 pc, u64 extended data (12 bytes) */
    ST_TYPE_EVENT = 8,  /* 24 bytes: u64 meta (cycle | kind << 48), u64 ip, u32 vector, u32 error code */
    ST_TYPE_USER = 9,   /* user-defined: GUID and entry size come from the stream descriptor */
    ST_TYPE_CHAMPSIM = 10,    /* ChampSim input_instr record, 64 bytes (below) */
    ST_TYPE_CHAMPSIM_CS = 11, /* ChampSim cloudsuite_instr record, 96 bytes (below) */
    ST_TYPE_CVP = 12,   /* 128 bytes: one CVP-1 / CBP-2025 record, its values included (formats/cvp.h) */
    ST_TYPE_DRMEMTRACE = 14, /* 12 bytes: DynamoRIO's trace_entry_t {u16 type, u16 size, u64 addr} (IMPORT.md) */
} st_entry_type;

/* The highest type value; values below it that no layout has are unknown
 * (st_entry_size() 0). */
#define ST_TYPE_LAST ST_TYPE_DRMEMTRACE

/*
 * ChampSim's trace records (SIMTRACE.md 9.6, 9.7), kept byte for byte,
 * padding included, little-endian:
 *
 *   champsim (64):            u64 ip; u8 is_branch; u8 branch_taken;
 *                             u8 dst_reg[2]; u8 src_reg[4];
 *                             u64 dst_mem[2]; u64 src_mem[4]
 *   champsim-cloudsuite (96): u64 ip; u8 is_branch; u8 branch_taken;
 *                             u8 dst_reg[4]; u8 src_reg[4]; 6 bytes padding;
 *                             u64 dst_mem[4]; u64 src_mem[4]; u8 asid[2];
 *                             6 bytes padding
 *
 * Per layout: the number of register bytes (from offset 10), the offset
 * of the first memory operand and the number of memory operands (the
 * destinations first), and the bytes that follow them.
 */
#define ST_CS_REGS(t) ((t) == ST_TYPE_CHAMPSIM ? 6u : 8u)
#define ST_CS_NDST(t) ((t) == ST_TYPE_CHAMPSIM ? 2u : 4u)
#define ST_CS_MEM_OFF(t) ((t) == ST_TYPE_CHAMPSIM ? 16u : 24u)
#define ST_CS_NMEM(t) ((t) == ST_TYPE_CHAMPSIM ? 6u : 8u)
/* bytes of neither field nor operand: cloudsuite's 6 bytes of padding
 * after the registers, and its asid and tail padding (8 bytes at 88) */
#define ST_CS_PAD1_OFF 18u
#define ST_CS_TAIL_OFF 88u

/*
 * Variable-sized values (SIMTRACE.md 9.2).  A value that does not fit an
 * entry's data field (an access of 5..7 bytes, or wider than 8, in d64)
 * lives in a companion stream of type vblock, one or more 32-byte blocks
 * per value, in the order of the entries they belong to:
 *
 *   bytes 0..7   key (u64): bits 0..47  owner: index of the entry in its stream
 *                           bits 48..52 valid: bytes of value in this block, 1..24
 *                           bits 53..62 0
 *                           bit  63     more: the next block continues this value
 *   bytes 8..31  value bytes 24*j .. 24*j+valid-1 of the value (block j of
 *                the value; byte 0 is the least significant), then zeros
 *
 * The owner entry keeps fullSize = 0, the size in its size field and the
 * value's low bytes in its value field (d64: size > 4 bytes; d32: size > 2),
 * so readers that ignore the companion still see a sensible entry.
 */
#define ST_VBLOCK_SIZE 32u
#define ST_VBLOCK_BYTES 24u
#define ST_VALUE_MAX 4096u /* longest variable-sized value, bytes */
#define ST_VBLOCK_MORE (UINT64_C(1) << 63)

/* Event kinds (bits 48..63 of an event's meta). */
#define ST_EVENT_INTERRUPT 1u /* interrupt or exception; vector and error code valid */
#define ST_EVENT_HALT 2u      /* the CPU halted */
#define ST_EVENT_MARKER 3u    /* the guest executed a marker instruction; vector = its ordinal */

#define ST_CYCLE_MASK ((UINT64_C(1) << 48) - 1)

/* One entry, unpacked.  meta16 holds bits 48..63 of meta (fullSize, tag). */
typedef struct {
    uint64_t cycle;
    uint64_t meta16;
    uint64_t ip;
    uint64_t addr;
    uint64_t data;
} st_entry;

/* Size in bytes of one entry of type t; 1 for ST_TYPE_BYTES; 0 if unknown
 * or ST_TYPE_USER (whose size the stream declares). */
size_t st_entry_size(st_entry_type t);
/* 1 for the ids this build knows a type by (the table has holes: 13). */
int st_entry_known(int t);
/* 1 for the four memory layouts. */
int st_entry_is_memory(st_entry_type t);
/* 1 when ip/address/data are 64 bits wide (d64, m64). */
int st_entry_is_wide(st_entry_type t);
/* 1 when the layout has a data field (d64, d32). */
int st_entry_has_data(st_entry_type t);
/* 1 when bits 0..47 of the entry's first u64 are its key (the cycle of
 * memory entries and events, the owner index of vblocks), so frames record
 * the key of their first and last entry (SIMTRACE.md 3). */
int st_entry_has_key(st_entry_type t);
/* 1 when a d64/d32 data field says its value lives in vblocks: fullSize 0
 * and a size wider than the value half of data. */
static inline int st_entry_is_vwide(st_entry_type t, uint64_t meta16, uint64_t data)
{
    if (meta16 & 1)
        return 0;
    if (t == ST_TYPE_D64)
        return (data >> 32) > 4;
    if (t == ST_TYPE_D32)
        return ((data >> 16) & 0xFFFF) > 2;
    return 0;
}
/* Number of vblocks a value of len bytes (1..ST_VALUE_MAX) takes. */
static inline size_t st_vblock_count(size_t len) { return (len + ST_VBLOCK_BYTES - 1) / ST_VBLOCK_BYTES; }
/* Write the st_vblock_count(len) blocks of a value of len bytes (1..ST_VALUE_MAX,
 * little-endian: value[0] least significant) owned by entry `owner` to out. */
void st_vblock_split(uint64_t owner, const uint8_t *value, size_t len, uint8_t *out);
/* Add shift to the owner index (the key) of n blocks in place: blocks
 * that name owner entries counted from an input's first, moved behind the
 * entries their owner stream already holds (simtrace-pack's imports,
 * concatenation).  0 if an index would pass the 48 bits of an entry index
 * (the blocks are then partly rewritten). */
int st_vblock_shift_owners(uint8_t *blocks, size_t n, uint64_t shift);
/* Short name ("d64", "vblock", "user"...), "?" if unknown. */
const char *st_entry_name(st_entry_type t);
/* Parse a short name; ST_TYPE_NONE if unknown. */
st_entry_type st_entry_parse(const char *name);
/* The 16-byte type GUID written to stream descriptors (see SIMTRACE.md). */
const uint8_t *st_entry_guid(st_entry_type t);
/* Type from a GUID; ST_TYPE_NONE if unknown. */
st_entry_type st_entry_from_guid(const uint8_t guid[16]);

/* Unpack entry i of a raw buffer of memory type t.  Fields a layout lacks
 * are 0. */
static inline void st_entry_load(st_entry_type t, const uint8_t *p, st_entry *e)
{
    uint64_t meta = st_load64(p);
    e->cycle = meta & ST_CYCLE_MASK;
    e->meta16 = meta >> 48;
    switch (t) {
    case ST_TYPE_D64:
        e->ip = st_load64(p + 8);
        e->addr = st_load64(p + 16);
        e->data = st_load64(p + 24);
        break;
    case ST_TYPE_D32:
        e->ip = st_load32(p + 8);
        e->addr = st_load32(p + 12);
        e->data = st_load32(p + 16);
        break;
    case ST_TYPE_M64:
        e->ip = st_load64(p + 8);
        e->addr = st_load64(p + 16);
        e->data = 0;
        break;
    default: /* ST_TYPE_M32 */
        e->ip = st_load32(p + 8);
        e->addr = st_load32(p + 12);
        e->data = 0;
        break;
    }
}

/* Pack an entry; values wider than the layout are truncated. */
static inline void st_entry_store(st_entry_type t, uint8_t *p, const st_entry *e)
{
    st_store64(p, (e->cycle & ST_CYCLE_MASK) | (e->meta16 << 48));
    switch (t) {
    case ST_TYPE_D64:
        st_store64(p + 8, e->ip);
        st_store64(p + 16, e->addr);
        st_store64(p + 24, e->data);
        break;
    case ST_TYPE_D32:
        st_store32(p + 8, (uint32_t)e->ip);
        st_store32(p + 12, (uint32_t)e->addr);
        st_store32(p + 16, (uint32_t)e->data);
        break;
    case ST_TYPE_M64:
        st_store64(p + 8, e->ip);
        st_store64(p + 16, e->addr);
        break;
    default:
        st_store32(p + 8, (uint32_t)e->ip);
        st_store32(p + 12, (uint32_t)e->addr);
        break;
    }
}

#endif /* ST_ENTRY_H */
