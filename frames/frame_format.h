/*
 * frame_format.h - on-disk structures of the simtrace container (internal
 * to frames/).  The byte tables are in formats/SIMTRACE.md; the constants
 * here are the only other place that knows them.
 */
#ifndef ST_FRAME_FORMAT_H
#define ST_FRAME_FORMAT_H

#include <stdint.h>

#include "../common/st_bytes.h"
#include "../common/st_error.h"
#include "container.h"

#define ST_MAGIC "simtrace"
#define ST_VERSION_MAJOR 1
#define ST_VERSION_MINOR 5
#define ST_FILE_HEADER_SIZE 64u
#define ST_FRAME_HEADER_SIZE 96u
#define ST_FRAME_MAGIC "STFR"
#define ST_ATTR_HEADER_SIZE 16u
#define ST_DIR_ENTRY_SIZE 80u
#define ST_FOOTER_SIZE 32u
#define ST_FOOTER_MAGIC "STEN"

/* Frame kinds (SIMTRACE.md 4) */
enum { ST_KIND_DATA = 1, ST_KIND_STREAM = 2, ST_KIND_DIRECTORY = 3 };

/* Frame flags */
#define ST_FF_TIME 0x01u   /* wall-clock fields are valid */
#define ST_FF_KNOWN 0x01u  /* flags a reader understands */

/* Attribute keys (SIMTRACE.md 5) */
enum {
    ST_ATTR_DATA = 1,        /* encoded entries */
    ST_ATTR_NAME = 2,        /* stream name, UTF-8, 1..255 bytes, no NUL */
    ST_ATTR_TYPE_GUID = 3,   /* 16 bytes */
    ST_ATTR_TYPE_NAME = 4,   /* short type name */
    ST_ATTR_ENTRY_SIZE = 5,  /* u32 */
    ST_ATTR_DIRECTORY = 6,   /* array of directory entries */
    ST_ATTR_ENCODER_NAME = 7, /* informational */
    ST_ATTR_OWNER = 8,        /* u32: the stream whose wide values a vblock stream holds */
    ST_ATTR_HEADER = 9,       /* bytes kept with the stream, e.g. a legacy file header */
    ST_ATTR_ENTRY_CRC = 10    /* u32 per block of the frame's decoded entries (1.3) */
};
/* ENTRY_CRC holds one CRC-32 per this many entries (the last block may be
 * shorter): a reader that needs a prefix of a frame checks it by decoding
 * to the end of the prefix's last block, not of the frame. */
#define ST_ENTRY_CRC_BLOCK 65536u
/* Bytes of an ENTRY_CRC value for a frame of count entries. */
static inline uint64_t st_entry_crc_len(uint64_t count)
{
    return 4 * ((count + ST_ENTRY_CRC_BLOCK - 1) / ST_ENTRY_CRC_BLOCK);
}
#define ST_ATTR_CRITICAL 0x1u

/* Bounds every reader applies before allocating (SIMTRACE.md 8). */
#define ST_MAX_PAYLOAD (UINT64_C(1) << 31)      /* one frame's payload */
#define ST_MAX_ATTRS 64u
#define ST_MAX_STREAMS 65536u
#define ST_MAX_NAME 255u
/* What a payload may hold beyond its content: encoders never store more
 * than the raw entries plus this, and a directory's payload is its
 * entries plus this (attribute headers). */
#define ST_PAYLOAD_SLACK 4096u
/* The largest stream descriptor payload (name, GUID, type name, entry
 * size, encoder name, owner, a kept header of ST_MAX_HEADER bytes). */
#define ST_MAX_DESC_PAYLOAD 4096u
/* The largest payload of a data frame of count entries of esz bytes. */
static inline uint64_t st_data_payload_max(uint64_t count, uint64_t esz) { return count * esz + ST_PAYLOAD_SLACK; }
/* The largest payload of a directory listing nframes frames. */
static inline uint64_t st_dir_payload_max(uint64_t nframes) { return nframes * ST_DIR_ENTRY_SIZE + ST_PAYLOAD_SLACK; }

typedef struct {
    uint8_t kind;
    uint8_t flags;
    uint16_t encoder;
    uint32_t stream;
    uint32_t nattrs;
    uint64_t seq;
    uint64_t first_entry;
    uint64_t count;
    uint64_t first_cycle, last_cycle;
    uint64_t first_time, last_time;
    uint64_t payload_size;
    uint32_t payload_crc;
} st_frame_header;

/* Directory entry: the frame header's index fields plus its place. */
typedef struct {
    uint64_t offset; /* of the frame header */
    uint64_t size;   /* header + payload */
    st_frame_header h;
} st_dir_entry;

typedef struct {
    uint64_t dir_offset;
    uint64_t dir_size;
    uint64_t nframes;
} st_footer;

uint32_t st_crc32(const uint8_t *p, size_t n);

/* Every checksum comparison of a reader goes through here.  A fuzzing build
 * (-DST_FUZZING) accepts any stored value, so the fuzzer reaches the parsers
 * behind the checksums; no other build defines it. */
static inline int st_crc_ok(uint32_t stored, const uint8_t *p, size_t n)
{
#if defined(ST_FUZZING)
    (void)stored;
    (void)p;
    (void)n;
    return 1;
#else
    return stored == st_crc32(p, n);
#endif
}
uint32_t st_crc32_update(uint32_t crc, const uint8_t *p, size_t n);

void st_file_header_write(uint8_t out[ST_FILE_HEADER_SIZE]);
/* The first n bytes of a file (n <= 8 is a file that short) against the
 * magic: ST_OK, or ST_E_BAD_MAGIC with d filled, so that a file that is no
 * container says so however short it is. */
st_error st_magic_check(const uint8_t *p, size_t n, st_diag *d);
st_error st_file_header_parse(const uint8_t in[ST_FILE_HEADER_SIZE], st_diag *d);

void st_frame_header_write(const st_frame_header *h, uint8_t out[ST_FRAME_HEADER_SIZE]);
/* Checks magic, header CRC, reserved fields, kind, flags and the bounds in
 * SIMTRACE.md 8.  Does not check the payload CRC. */
st_error st_frame_header_parse(const uint8_t in[ST_FRAME_HEADER_SIZE], st_frame_header *h, st_diag *d);
/* Put in d where frame `ordinal` of the file, at byte offset `offset`, lies:
 * a data frame (kind ST_KIND_DATA) by its seq in its stream, which messages
 * give as "frame SEQ of stream ID"; any other frame by its ordinal, with no
 * stream (a directory's stream field holds none). */
void st_diag_frame(st_diag *d, uint64_t offset, uint64_t ordinal, unsigned kind, uint32_t stream, uint64_t seq);
/* The first offset j >= from in b[0, len) at which a whole frame header
 * lies that st_frame_header_parse() accepts (*h: it), or SIZE_MAX: how a
 * salvage finds the frames after a damaged one. */
size_t st_frame_header_find(const uint8_t *b, size_t from, size_t len, st_frame_header *h);

void st_dir_entry_write(const st_dir_entry *e, uint8_t out[ST_DIR_ENTRY_SIZE]);
void st_dir_entry_parse(const uint8_t in[ST_DIR_ENTRY_SIZE], st_dir_entry *e);

void st_footer_write(const st_footer *f, uint8_t out[ST_FOOTER_SIZE]);
st_error st_footer_parse(const uint8_t in[ST_FOOTER_SIZE], st_footer *f, st_diag *d);

/* Parse and check a stream descriptor frame (header h, payload p) into *out:
 * name, type, entry size, encoder (SIMTRACE.md 4.2). */
st_error st_stream_desc_parse(const st_frame_header *h, const uint8_t *p, size_t len, st_stream_info *out,
                              st_diag *d);

/* Append an attribute (key, flags, value) to a payload buffer. */
st_error st_attr_append(st_buf *b, uint32_t key, uint32_t flags, const void *val, size_t len);

/* Iterate attributes of a payload.  *pos starts at 0.  Returns 1 with the
 * attribute, 0 at the end, or -1 (and fills d) when the list is malformed:
 * a length past the payload, or more than ST_MAX_ATTRS. */
int st_attr_next(const uint8_t *p, size_t len, size_t *pos, unsigned *index, uint32_t *key, uint32_t *flags,
                 const uint8_t **val, uint64_t *vlen, st_diag *d);

/* What a data frame's attributes say about its entries. */
typedef struct {
    const uint8_t *data;  /* DATA value: the encoder's output */
    uint64_t dlen;
    const uint8_t *entry_crc; /* ENTRY_CRC value (1.3), NULL if absent: u32 CRC-32
                                 of each block of ST_ENTRY_CRC_BLOCK raw entries */
} st_data_view;

/* The attribute list of a data frame payload of count entries (SIMTRACE.md
 * 5, 8.2 items 31-35, 45 and 87-88): exactly nattrs well-formed attributes,
 * one DATA attribute, at most one ENTRY_CRC of st_entry_crc_len(count)
 * bytes, no other critical one.  Fills *v.  Used before decoding and before
 * a frame is copied undecoded.  Returns ST_OK, ST_E_BAD_ATTR or
 * ST_E_UNSUPPORTED (with d filled). */
st_error st_data_attrs(const uint8_t *p, size_t len, uint32_t nattrs, uint64_t count, st_data_view *v, st_diag *d);

/* The frame list entry (st_frame_ref) of the frame whose header h was
 * found at file offset off, size bytes long with its payload, the file's
 * frame number ordinal: the one conversion from a header, for the
 * sequential reader, the index and its scan of a file without footer. */
void st_frame_ref_set(st_frame_ref *r, const st_frame_header *h, uint64_t off, uint64_t size, uint64_t ordinal);
/* The frame header that frame list entry r stands for: the one conversion
 * back, for decoding and copying a frame delivered undecoded. */
void st_frame_header_of(st_frame_header *h, const st_frame_ref *r);

/* Whether data frame r may follow what stream si (NULL: undeclared) holds
 * so far (SIMTRACE.md 7.3, 8.2): the stream is declared, the encoder is
 * the stream's or generic, the sequence number and first entry continue
 * the stream's frames and entries, the count is 1..SVPC_MAX_FRAME_ENTRIES,
 * the flags are known and the times set only with TIME, in order.  The
 * one check of a data frame, for the sequential reader (bad =
 * ST_E_CORRUPT) and the index (ST_E_BAD_DIRECTORY, where = "directory
 * entry K: ").  Returns ST_OK, ST_E_BAD_STREAM (undeclared) or bad, with
 * d's detail starting with where. */
st_error st_data_frame_check(const st_frame_ref *r, const st_stream_info *si, st_error bad, const char *where,
                             st_diag *d);

#endif
