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
    ST_TYPE_BYTES = 5, /* opaque byte stream (generic encoder only) */
} st_entry_type;

#define ST_CYCLE_MASK ((UINT64_C(1) << 48) - 1)

/* One entry, unpacked.  meta16 holds bits 48..63 of meta (fullSize, tag). */
typedef struct {
    uint64_t cycle;
    uint64_t meta16;
    uint64_t ip;
    uint64_t addr;
    uint64_t data;
} st_entry;

/* Size in bytes of one entry of type t; 1 for ST_TYPE_BYTES; 0 if unknown. */
size_t st_entry_size(st_entry_type t);
/* 1 for the four memory layouts. */
int st_entry_is_memory(st_entry_type t);
/* 1 when ip/address/data are 64 bits wide (d64, m64). */
int st_entry_is_wide(st_entry_type t);
/* 1 when the layout has a data field (d64, d32). */
int st_entry_has_data(st_entry_type t);
/* Short name ("d64"...), "?" if unknown. */
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
