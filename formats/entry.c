#include "entry.h"

#include <string.h>

/* GUIDs: fixed random values chosen for this format ("st" + type byte);
 * they identify the layout, independent of the short name. */
static const uint8_t guid_table[6][16] = {
    {0},
    {0x73, 0x74, 0x9a, 0x41, 0x0c, 0x5e, 0x4b, 0x1f, 0x8d, 0x22, 0x64, 0x36, 0xe1, 0x07, 0xd6, 0x01},
    {0x73, 0x74, 0x9a, 0x41, 0x0c, 0x5e, 0x4b, 0x1f, 0x8d, 0x22, 0x64, 0x36, 0xe1, 0x07, 0xd6, 0x02},
    {0x73, 0x74, 0x9a, 0x41, 0x0c, 0x5e, 0x4b, 0x1f, 0x8d, 0x22, 0x64, 0x36, 0xe1, 0x07, 0xd6, 0x03},
    {0x73, 0x74, 0x9a, 0x41, 0x0c, 0x5e, 0x4b, 0x1f, 0x8d, 0x22, 0x64, 0x36, 0xe1, 0x07, 0xd6, 0x04},
    {0x73, 0x74, 0x9a, 0x41, 0x0c, 0x5e, 0x4b, 0x1f, 0x8d, 0x22, 0x64, 0x36, 0xe1, 0x07, 0xd6, 0x05},
};

static const struct {
    const char *name;
    size_t size;
} type_info[6] = {{"?", 0}, {"d64", 32}, {"d32", 20}, {"m64", 24}, {"m32", 16}, {"bytes", 1}};

static int valid(st_entry_type t) { return t >= ST_TYPE_D64 && t <= ST_TYPE_BYTES; }

size_t st_entry_size(st_entry_type t) { return valid(t) ? type_info[t].size : 0; }
int st_entry_is_memory(st_entry_type t) { return t >= ST_TYPE_D64 && t <= ST_TYPE_M32; }
int st_entry_is_wide(st_entry_type t) { return t == ST_TYPE_D64 || t == ST_TYPE_M64; }
int st_entry_has_data(st_entry_type t) { return t == ST_TYPE_D64 || t == ST_TYPE_D32; }
const char *st_entry_name(st_entry_type t) { return valid(t) ? type_info[t].name : "?"; }

st_entry_type st_entry_parse(const char *name)
{
    for (int t = ST_TYPE_D64; t <= ST_TYPE_BYTES; t++)
        if (strcmp(name, type_info[t].name) == 0)
            return (st_entry_type)t;
    return ST_TYPE_NONE;
}

const uint8_t *st_entry_guid(st_entry_type t) { return guid_table[valid(t) ? t : 0]; }

st_entry_type st_entry_from_guid(const uint8_t guid[16])
{
    for (int t = ST_TYPE_D64; t <= ST_TYPE_BYTES; t++)
        if (memcmp(guid, guid_table[t], 16) == 0)
            return (st_entry_type)t;
    return ST_TYPE_NONE;
}
