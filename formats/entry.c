#include "entry.h"

#include <string.h>

/* GUIDs: fixed random values chosen for this format ("st" + type byte);
 * they identify the layout, independent of the short name. */
static const uint8_t guid_table[ST_TYPE_LAST + 1][16] = {
    {0},
    {0x73, 0x74, 0x9a, 0x41, 0x0c, 0x5e, 0x4b, 0x1f, 0x8d, 0x22, 0x64, 0x36, 0xe1, 0x07, 0xd6, 0x01},
    {0x73, 0x74, 0x9a, 0x41, 0x0c, 0x5e, 0x4b, 0x1f, 0x8d, 0x22, 0x64, 0x36, 0xe1, 0x07, 0xd6, 0x02},
    {0x73, 0x74, 0x9a, 0x41, 0x0c, 0x5e, 0x4b, 0x1f, 0x8d, 0x22, 0x64, 0x36, 0xe1, 0x07, 0xd6, 0x03},
    {0x73, 0x74, 0x9a, 0x41, 0x0c, 0x5e, 0x4b, 0x1f, 0x8d, 0x22, 0x64, 0x36, 0xe1, 0x07, 0xd6, 0x04},
    {0x73, 0x74, 0x9a, 0x41, 0x0c, 0x5e, 0x4b, 0x1f, 0x8d, 0x22, 0x64, 0x36, 0xe1, 0x07, 0xd6, 0x05},
    {0x73, 0x74, 0x9a, 0x41, 0x0c, 0x5e, 0x4b, 0x1f, 0x8d, 0x22, 0x64, 0x36, 0xe1, 0x07, 0xd6, 0x06},
    {0x73, 0x74, 0x9a, 0x41, 0x0c, 0x5e, 0x4b, 0x1f, 0x8d, 0x22, 0x64, 0x36, 0xe1, 0x07, 0xd6, 0x07},
    {0x73, 0x74, 0x9a, 0x41, 0x0c, 0x5e, 0x4b, 0x1f, 0x8d, 0x22, 0x64, 0x36, 0xe1, 0x07, 0xd6, 0x08},
    {0}, /* user types bring their own GUID */
    [ST_TYPE_CHAMPSIM] = {0x73, 0x74, 0x9a, 0x41, 0x0c, 0x5e, 0x4b, 0x1f, 0x8d, 0x22, 0x64, 0x36, 0xe1, 0x07, 0xd6, 0x0a},
    [ST_TYPE_CHAMPSIM_CS] = {0x73, 0x74, 0x9a, 0x41, 0x0c, 0x5e, 0x4b, 0x1f, 0x8d, 0x22, 0x64, 0x36, 0xe1, 0x07, 0xd6, 0x0b},
    [ST_TYPE_CVP] = {0x73, 0x74, 0x9a, 0x41, 0x0c, 0x5e, 0x4b, 0x1f, 0x8d, 0x22, 0x64, 0x36, 0xe1, 0x07, 0xd6, 0x0c},
    [ST_TYPE_DRMEMTRACE] = {0x73, 0x74, 0x9a, 0x41, 0x0c, 0x5e, 0x4b, 0x1f, 0x8d, 0x22, 0x64, 0x36, 0xe1, 0x07, 0xd6, 0x0e},
};

static const struct {
    const char *name;
    size_t size;
} type_info[ST_TYPE_LAST + 1] = {{"?", 0},    {"d64", 32},    {"d32", 20}, {"m64", 24},   {"m32", 16},
                                 {"bytes", 1}, {"vblock", 32}, {"vpc", 12}, {"event", 24}, {"user", 0},
                                 [ST_TYPE_CHAMPSIM] = {"champsim", 64},
                                 [ST_TYPE_CHAMPSIM_CS] = {"champsim-cloudsuite", 96},
                                 [ST_TYPE_CVP] = {"cvp", 128}, [ST_TYPE_DRMEMTRACE] = {"drmemtrace", 12},
};

/* The table may have holes: the ids of types this build does not know. */
static int valid(st_entry_type t) { return t >= ST_TYPE_D64 && t <= ST_TYPE_LAST && type_info[t].name; }

int st_entry_known(int t) { return t >= ST_TYPE_D64 && t <= ST_TYPE_LAST && valid((st_entry_type)t); }
size_t st_entry_size(st_entry_type t) { return valid(t) ? type_info[t].size : 0; }
int st_entry_is_memory(st_entry_type t) { return t >= ST_TYPE_D64 && t <= ST_TYPE_M32; }
int st_entry_is_wide(st_entry_type t) { return t == ST_TYPE_D64 || t == ST_TYPE_M64; }
int st_entry_has_data(st_entry_type t) { return t == ST_TYPE_D64 || t == ST_TYPE_D32; }
int st_entry_has_key(st_entry_type t) { return st_entry_is_memory(t) || t == ST_TYPE_VBLOCK || t == ST_TYPE_EVENT; }
const char *st_entry_name(st_entry_type t) { return valid(t) ? type_info[t].name : "?"; }

st_entry_type st_entry_parse(const char *name)
{
    for (int t = ST_TYPE_D64; t <= ST_TYPE_LAST; t++)
        if (valid((st_entry_type)t) && strcmp(name, type_info[t].name) == 0)
            return (st_entry_type)t;
    return ST_TYPE_NONE;
}

const uint8_t *st_entry_guid(st_entry_type t) { return guid_table[valid(t) ? t : 0]; }

st_entry_type st_entry_from_guid(const uint8_t guid[16])
{
    for (int t = ST_TYPE_D64; t <= ST_TYPE_LAST; t++)
        if (t != ST_TYPE_USER && valid((st_entry_type)t) && memcmp(guid, guid_table[t], 16) == 0)
            return (st_entry_type)t;
    return ST_TYPE_NONE;
}

int st_vblock_shift_owners(uint8_t *blocks, size_t n, uint64_t shift)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t *b = blocks + i * ST_VBLOCK_SIZE;
        uint64_t key = st_load64(b), owner = (key & ST_CYCLE_MASK) + shift;
        if (owner > ST_CYCLE_MASK)
            return 0;
        st_store64(b, (key & ~ST_CYCLE_MASK) | owner);
    }
    return 1;
}

void st_vblock_split(uint64_t owner, const uint8_t *value, size_t len, uint8_t *out)
{
    for (size_t off = 0; off < len; off += ST_VBLOCK_BYTES, out += ST_VBLOCK_SIZE) {
        size_t valid = len - off < ST_VBLOCK_BYTES ? len - off : ST_VBLOCK_BYTES;
        uint64_t key = (owner & ST_CYCLE_MASK) | ((uint64_t)valid << 48);
        if (off + valid < len)
            key |= ST_VBLOCK_MORE;
        st_store64(out, key);
        memset(out + 8, 0, ST_VBLOCK_BYTES);
        memcpy(out + 8, value + off, valid);
    }
}
