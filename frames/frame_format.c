#include "frame_format.h"

#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "../svpc/svpc.h"

/*
 * Entry CRCs cover every byte a frame decodes to, so zlib's table CRC
 * (about 4 GB/s here) took 6% of decoding.  Where the CPU has carry-less
 * multiplication, whole 16-byte blocks are folded instead (the method of
 * Intel's white paper "Fast CRC Computation for Generic Polynomials Using
 * PCLMULQDQ"), several times faster; zlib does the rest.  Same values.
 *
 * Why the constants: in the bit-reflected order of CRC-32, a 128-bit block
 * is lo (degrees 127..64) and hi (63..0).  Carrying it D bits further,
 * lo * x^(D+64) + hi * x^D, is congruent mod P to lo * K1 * x^32 + hi * K2
 * * x^32 with K1 = x^(D+32) mod P and K2 = x^(D-32) mod P; a carry-less
 * product of a reflected 64-bit lo and a 33-bit reflected K lands in bits
 * 0..95, which is that x^32 shift.  So the constants are x^E mod P
 * (P = 0x104C11DB7) bit-reversed in 33 bits: D = 512 (four blocks at a
 * time) and D = 128 (one).  The folded block is congruent to the data mod
 * P, so its own CRC is the data's.
 */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ST_CRC_FOLD 1
#define CRC_K544 UINT64_C(0x154442bd4)
#define CRC_K480 UINT64_C(0x1c6e41596)
#define CRC_K160 UINT64_C(0x1751997d0)
#define CRC_K96 UINT64_C(0x0ccaa009e)

__attribute__((target("pclmul,sse2"))) static inline __m128i crc_fold(__m128i x, __m128i k)
{
    return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

/* The zlib-style CRC of the first n / 16 * 16 bytes of p (n >= 64) after
 * crc: *crc is updated; returns the bytes taken. */
__attribute__((target("pclmul,sse2"))) static size_t crc_fold_blocks(uint32_t *crc, const uint8_t *p, size_t n)
{
    const __m128i k4 = _mm_set_epi64x((long long)CRC_K480, (long long)CRC_K544);
    const __m128i k1 = _mm_set_epi64x((long long)CRC_K96, (long long)CRC_K160);
    __m128i x0 = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(const void *)(p + 32));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(const void *)(p + 48));
    /* the register's state enters as the first 32 bits of the data */
    x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)~*crc));
    size_t i = 64;
    for (; n - i >= 64; i += 64) {
        x0 = _mm_xor_si128(crc_fold(x0, k4), _mm_loadu_si128((const __m128i *)(const void *)(p + i)));
        x1 = _mm_xor_si128(crc_fold(x1, k4), _mm_loadu_si128((const __m128i *)(const void *)(p + i + 16)));
        x2 = _mm_xor_si128(crc_fold(x2, k4), _mm_loadu_si128((const __m128i *)(const void *)(p + i + 32)));
        x3 = _mm_xor_si128(crc_fold(x3, k4), _mm_loadu_si128((const __m128i *)(const void *)(p + i + 48)));
    }
    x1 = _mm_xor_si128(x1, crc_fold(x0, k1));
    x2 = _mm_xor_si128(x2, crc_fold(x1, k1));
    x3 = _mm_xor_si128(x3, crc_fold(x2, k1));
    for (; n - i >= 16; i += 16)
        x3 = _mm_xor_si128(crc_fold(x3, k1), _mm_loadu_si128((const __m128i *)(const void *)(p + i)));
    uint8_t b[16];
    _mm_storeu_si128((__m128i *)(void *)b, x3);
    /* the block's CRC from a zero register: zlib's from ~0, complemented */
    *crc = (uint32_t)crc32(0xFFFFFFFFu, b, 16);
    return i;
}
#endif

uint32_t st_crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
#ifdef ST_CRC_FOLD
    if (n >= 64 && __builtin_cpu_supports("pclmul")) {
        size_t k = crc_fold_blocks(&crc, p, n);
        p += k;
        n -= k;
    }
#endif
    /* zlib's crc32 takes uInt lengths: feed large buffers in pieces */
    while (n) {
        uInt k = n > 0x40000000u ? 0x40000000u : (uInt)n;
        crc = (uint32_t)crc32(crc, p, k);
        p += k;
        n -= k;
    }
    return crc;
}

uint32_t st_crc32(const uint8_t *p, size_t n) { return st_crc32_update(0, p, n); }

void st_file_header_write(uint8_t out[ST_FILE_HEADER_SIZE])
{
    memset(out, 0, ST_FILE_HEADER_SIZE);
    memcpy(out, ST_MAGIC, 8);
    st_store16(out + 8, ST_VERSION_MAJOR);
    st_store16(out + 10, ST_VERSION_MINOR);
    st_store32(out + 12, ST_FILE_HEADER_SIZE);
    st_store32(out + 60, st_crc32(out, 60));
}

st_error st_magic_check(const uint8_t *p, size_t n, st_diag *d)
{
    if (memcmp(p, ST_MAGIC, n < 8 ? n : 8) != 0)
        return st_diag_set(d, ST_E_BAD_MAGIC, "file does not start with \"simtrace\"");
    return ST_OK;
}

st_error st_file_header_parse(const uint8_t in[ST_FILE_HEADER_SIZE], st_diag *d)
{
    RETURN_IF_ERROR(st_magic_check(in, ST_FILE_HEADER_SIZE, d));
    if (!st_crc_ok(st_load32(in + 60), in, 60))
        return st_diag_set(d, ST_E_HEADER_CRC, "file header checksum mismatch");
    if (st_load16(in + 8) != ST_VERSION_MAJOR)
        return st_diag_set(d, ST_E_VERSION, "format version %u.%u, this reader supports %u.x", st_load16(in + 8),
                           st_load16(in + 10), ST_VERSION_MAJOR);
    if (st_load32(in + 12) != ST_FILE_HEADER_SIZE)
        return st_diag_set(d, ST_E_CORRUPT, "file header size %u, expected %u", st_load32(in + 12),
                           ST_FILE_HEADER_SIZE);
    for (unsigned i = 16; i < 60; i++)
        if (in[i])
            return st_diag_set(d, ST_E_UNSUPPORTED, "reserved file header byte %u is set", i);
    return ST_OK;
}

void st_frame_header_write(const st_frame_header *h, uint8_t out[ST_FRAME_HEADER_SIZE])
{
    memset(out, 0, ST_FRAME_HEADER_SIZE);
    memcpy(out, ST_FRAME_MAGIC, 4);
    out[4] = h->kind;
    out[5] = h->flags;
    st_store16(out + 6, h->encoder);
    st_store32(out + 8, h->stream);
    st_store32(out + 12, h->nattrs);
    st_store64(out + 16, h->seq);
    st_store64(out + 24, h->first_entry);
    st_store64(out + 32, h->count);
    st_store64(out + 40, h->first_cycle);
    st_store64(out + 48, h->last_cycle);
    st_store64(out + 56, h->first_time);
    st_store64(out + 64, h->last_time);
    st_store64(out + 72, h->payload_size);
    st_store32(out + 80, h->payload_crc);
    st_store32(out + 92, st_crc32(out, 92));
}

void st_diag_frame(st_diag *d, uint64_t offset, uint64_t ordinal, unsigned kind, uint32_t stream, uint64_t seq)
{
    if (!d)
        return;
    /* the number a user can look up: --list --frames shows seq, not the
     * ordinal, and "frame ORDINAL of stream ID" read as the seq was off by
     * the frames before it in the file */
    int data = kind == ST_KIND_DATA;
    d->offset = offset;
    d->frame = data ? seq : ordinal;
    d->stream = data ? stream : ST_DIAG_UNKNOWN;
}

st_error st_frame_header_parse(const uint8_t in[ST_FRAME_HEADER_SIZE], st_frame_header *h, st_diag *d)
{
    if (memcmp(in, ST_FRAME_MAGIC, 4) != 0)
        return st_diag_set(d, ST_E_BAD_FRAME, "no frame magic \"STFR\"");
    if (!st_crc_ok(st_load32(in + 92), in, 92))
        return st_diag_set(d, ST_E_HEADER_CRC, "frame header checksum mismatch");
    h->kind = in[4];
    h->flags = in[5];
    h->encoder = st_load16(in + 6);
    h->stream = st_load32(in + 8);
    h->nattrs = st_load32(in + 12);
    h->seq = st_load64(in + 16);
    h->first_entry = st_load64(in + 24);
    h->count = st_load64(in + 32);
    h->first_cycle = st_load64(in + 40);
    h->last_cycle = st_load64(in + 48);
    h->first_time = st_load64(in + 56);
    h->last_time = st_load64(in + 64);
    h->payload_size = st_load64(in + 72);
    h->payload_crc = st_load32(in + 80);
    if (st_load32(in + 84) || st_load32(in + 88))
        return st_diag_set(d, ST_E_UNSUPPORTED, "reserved frame header bytes are set");
    if (h->kind < ST_KIND_DATA || h->kind > ST_KIND_DIRECTORY)
        return st_diag_set(d, ST_E_UNSUPPORTED, "unknown frame kind %u", h->kind);
    if (h->flags & ~ST_FF_KNOWN)
        return st_diag_set(d, ST_E_UNSUPPORTED, "unknown frame flags 0x%02x", h->flags);
    if (h->payload_size > ST_MAX_PAYLOAD)
        return st_diag_set(d, ST_E_TOO_LARGE, "payload of %llu bytes exceeds the %llu-byte limit",
                           (unsigned long long)h->payload_size, (unsigned long long)ST_MAX_PAYLOAD);
    if (h->nattrs > ST_MAX_ATTRS)
        return st_diag_set(d, ST_E_TOO_LARGE, "%u attributes, at most %u allowed", h->nattrs, ST_MAX_ATTRS);
    if (h->kind == ST_KIND_DATA && h->first_entry > UINT64_MAX - h->count)
        return st_diag_set(d, ST_E_CORRUPT, "first entry + entry count overflows 64 bits");
    if (h->kind != ST_KIND_DATA && h->count != 0)
        return st_diag_set(d, ST_E_CORRUPT, "non-data frame with entry count %llu", (unsigned long long)h->count);
    if (h->kind != ST_KIND_DATA && (h->seq || h->first_entry || h->first_cycle || h->last_cycle || h->first_time ||
                                    h->last_time || h->flags))
        return st_diag_set(d, ST_E_CORRUPT, "non-data frame with index fields set");
    if (!(h->flags & ST_FF_TIME) && (h->first_time || h->last_time))
        return st_diag_set(d, ST_E_CORRUPT, "time fields set without the time flag");
    if (h->first_time > h->last_time)
        return st_diag_set(d, ST_E_CORRUPT, "first time after last time");
    if (h->kind == ST_KIND_DIRECTORY && h->encoder != 0)
        return st_diag_set(d, ST_E_CORRUPT, "directory frame with encoder %u", h->encoder);
    if (h->kind == ST_KIND_DIRECTORY && h->stream != UINT32_MAX)
        return st_diag_set(d, ST_E_CORRUPT, "directory frame with stream id %u", h->stream);
    if (h->kind != ST_KIND_DIRECTORY && h->stream >= ST_MAX_STREAMS)
        return st_diag_set(d, ST_E_TOO_LARGE, "stream id %u exceeds %u", h->stream, ST_MAX_STREAMS - 1);
    return ST_OK;
}

size_t st_frame_header_find(const uint8_t *b, size_t from, size_t len, st_frame_header *h)
{
    for (size_t j = from; j + ST_FRAME_HEADER_SIZE <= len; j++)
        if (memcmp(b + j, ST_FRAME_MAGIC, 4) == 0 && st_frame_header_parse(b + j, h, NULL) == ST_OK)
            return j;
    return SIZE_MAX;
}

void st_dir_entry_write(const st_dir_entry *e, uint8_t out[ST_DIR_ENTRY_SIZE])
{
    st_store64(out, e->offset);
    st_store64(out + 8, e->size);
    st_store32(out + 16, e->h.stream);
    out[20] = e->h.kind;
    out[21] = e->h.flags;
    st_store16(out + 22, e->h.encoder);
    st_store64(out + 24, e->h.seq);
    st_store64(out + 32, e->h.first_entry);
    st_store64(out + 40, e->h.count);
    st_store64(out + 48, e->h.first_cycle);
    st_store64(out + 56, e->h.last_cycle);
    st_store64(out + 64, e->h.first_time);
    st_store64(out + 72, e->h.last_time);
}

void st_dir_entry_parse(const uint8_t in[ST_DIR_ENTRY_SIZE], st_dir_entry *e)
{
    memset(e, 0, sizeof *e);
    e->offset = st_load64(in);
    e->size = st_load64(in + 8);
    e->h.stream = st_load32(in + 16);
    e->h.kind = in[20];
    e->h.flags = in[21];
    e->h.encoder = st_load16(in + 22);
    e->h.seq = st_load64(in + 24);
    e->h.first_entry = st_load64(in + 32);
    e->h.count = st_load64(in + 40);
    e->h.first_cycle = st_load64(in + 48);
    e->h.last_cycle = st_load64(in + 56);
    e->h.first_time = st_load64(in + 64);
    e->h.last_time = st_load64(in + 72);
}

void st_footer_write(const st_footer *f, uint8_t out[ST_FOOTER_SIZE])
{
    st_store64(out, f->dir_offset);
    st_store64(out + 8, f->dir_size);
    st_store64(out + 16, f->nframes);
    memcpy(out + 24, ST_FOOTER_MAGIC, 4);
    st_store32(out + 28, st_crc32(out, 28));
}

st_error st_footer_parse(const uint8_t in[ST_FOOTER_SIZE], st_footer *f, st_diag *d)
{
    if (memcmp(in + 24, ST_FOOTER_MAGIC, 4) != 0)
        return st_diag_set(d, ST_E_BAD_FOOTER, "no footer magic \"STEN\" at the end of the file");
    if (!st_crc_ok(st_load32(in + 28), in, 28))
        return st_diag_set(d, ST_E_HEADER_CRC, "footer checksum mismatch");
    f->dir_offset = st_load64(in);
    f->dir_size = st_load64(in + 8);
    f->nframes = st_load64(in + 16);
    return ST_OK;
}

st_error st_attr_append(st_buf *b, uint32_t key, uint32_t flags, const void *val, size_t len)
{
    uint8_t h[ST_ATTR_HEADER_SIZE];
    st_store32(h, key);
    st_store32(h + 4, flags);
    st_store64(h + 8, len);
    RETURN_IF_ERROR(st_buf_append(b, h, sizeof h));
    return st_buf_append(b, val, len);
}

int st_attr_next(const uint8_t *p, size_t len, size_t *pos, unsigned *index, uint32_t *key, uint32_t *flags,
                 const uint8_t **val, uint64_t *vlen, st_diag *d)
{
    if (*pos == len)
        return 0;
    if (*index >= ST_MAX_ATTRS) {
        st_diag_set(d, ST_E_BAD_ATTR, "more than %u attributes", ST_MAX_ATTRS);
        return -1;
    }
    if (len - *pos < ST_ATTR_HEADER_SIZE) {
        st_diag_set(d, ST_E_BAD_ATTR, "attribute %u: header runs past the payload", *index);
        return -1;
    }
    const uint8_t *h = p + *pos;
    *key = st_load32(h);
    *flags = st_load32(h + 4);
    *vlen = st_load64(h + 8);
    if (*vlen > len - *pos - ST_ATTR_HEADER_SIZE) {
        st_diag_set(d, ST_E_BAD_ATTR, "attribute %u: %llu-byte value runs past the payload", *index,
                    (unsigned long long)*vlen);
        return -1;
    }
    if (*flags & ~ST_ATTR_CRITICAL) {
        st_diag_set(d, ST_E_BAD_ATTR, "attribute %u: unknown flags 0x%x", *index, *flags);
        return -1;
    }
    *val = h + ST_ATTR_HEADER_SIZE;
    *pos += ST_ATTR_HEADER_SIZE + (size_t)*vlen;
    (*index)++;
    return 1;
}

st_error st_stream_desc_parse(const st_frame_header *h, const uint8_t *p, size_t len, st_stream_info *out,
                              st_diag *d)
{
    if (h->encoder < SVPC_ENC_GENERIC || h->encoder > SVPC_ENC_LAST)
        return st_diag_set(d, ST_E_UNSUPPORTED, "stream %u: unknown encoder %u", h->stream, h->encoder);
    st_stream_info si;
    memset(&si, 0, sizeof si);
    si.id = h->stream;
    si.encoder = h->encoder;
    si.owner = UINT32_MAX;
    const uint8_t *tname = NULL;
    uint64_t tname_len = 0;
    size_t pos = 0;
    unsigned idx = 0;
    uint32_t key, flags;
    const uint8_t *val;
    uint64_t vlen;
    int rr, have_guid = 0;
    uint32_t seen = 0;
    while ((rr = st_attr_next(p, len, &pos, &idx, &key, &flags, &val, &vlen, d)) == 1) {
        if (key < 32 && (seen & (1u << key)))
            return st_diag_set(d, ST_E_BAD_ATTR, "stream %u: attribute %u given twice", h->stream, key);
        if (key < 32)
            seen |= 1u << key;
        switch (key) {
        case ST_ATTR_TYPE_NAME:
            /* informational: the GUID is authoritative; kept as a user type's label */
            tname = val;
            tname_len = vlen;
            break;
        case ST_ATTR_ENCODER_NAME:
            break; /* informational: the frame header is authoritative */
        case ST_ATTR_OWNER:
            if (vlen != 4)
                return st_diag_set(d, ST_E_BAD_ATTR, "stream %u: owner attribute of %llu bytes", h->stream,
                                   (unsigned long long)vlen);
            si.owner = st_load32(val);
            break;
        case ST_ATTR_HEADER:
            if (vlen > ST_MAX_HEADER)
                return st_diag_set(d, ST_E_TOO_LARGE, "stream %u: kept header of %llu bytes (at most %u)",
                                   h->stream, (unsigned long long)vlen, ST_MAX_HEADER);
            memcpy(si.header, val, (size_t)vlen);
            si.header_len = (uint16_t)vlen;
            break;
        case ST_ATTR_NAME:
            if (vlen == 0 || vlen > ST_MAX_NAME || memchr(val, 0, (size_t)vlen))
                return st_diag_set(d, ST_E_BAD_STREAM, "stream %u: invalid name", h->stream);
            memcpy(si.name, val, (size_t)vlen);
            si.name[vlen] = 0;
            break;
        case ST_ATTR_TYPE_GUID:
            if (vlen != 16)
                return st_diag_set(d, ST_E_UNSUPPORTED, "stream %u: type GUID of %llu bytes", h->stream,
                                   (unsigned long long)vlen);
            /* a GUID this library does not know is a user-defined type:
             * opaque entries of the declared size (checked below) */
            si.type = st_entry_from_guid(val);
            if (si.type == ST_TYPE_NONE)
                si.type = ST_TYPE_USER;
            memcpy(si.guid, val, 16);
            have_guid = 1;
            break;
        case ST_ATTR_ENTRY_SIZE:
            if (vlen != 4)
                return st_diag_set(d, ST_E_BAD_ATTR, "stream %u: entry size attribute of %llu bytes", h->stream,
                                   (unsigned long long)vlen);
            si.entry_size = st_load32(val);
            break;
        default:
            if (flags & ST_ATTR_CRITICAL)
                return st_diag_set(d, ST_E_UNSUPPORTED, "stream %u: unknown critical attribute %u", h->stream, key);
        }
    }
    if (rr < 0)
        return ST_E_BAD_ATTR;
    if (idx != h->nattrs)
        return st_diag_set(d, ST_E_BAD_ATTR, "header says %u attributes, payload holds %u", h->nattrs, idx);
    if (!si.name[0] || !have_guid)
        return st_diag_set(d, ST_E_BAD_STREAM, "stream %u: descriptor lacks its name or type", h->stream);
    if (si.type == ST_TYPE_USER ? (si.entry_size < 1 || si.entry_size > ST_MAX_USER_ENTRY)
                                : si.entry_size != st_entry_size(si.type))
        return st_diag_set(d, ST_E_BAD_STREAM, "stream %u: entry size %u does not match type %s", h->stream,
                           si.entry_size, st_entry_name(si.type));
    if (si.type == ST_TYPE_USER && tname_len > 0 && tname_len <= ST_MAX_TYPE_NAME && !memchr(tname, 0, tname_len))
        memcpy(si.type_name, tname, (size_t)tname_len);
    else
        snprintf(si.type_name, sizeof si.type_name, "%s", st_entry_name(si.type));
    /* user types reach the codec as bytes, through the generic encoder only */
    if (si.type == ST_TYPE_USER ? h->encoder != SVPC_ENC_GENERIC
                                : !svpc_encoder_supports((svpc_encoder)h->encoder, si.type))
        return st_diag_set(d, ST_E_UNSUPPORTED, "stream %u: encoder %s cannot code %s entries", h->stream,
                           svpc_encoder_name((svpc_encoder)h->encoder), si.type_name);
    *out = si;
    return ST_OK;
}

st_error st_data_attrs(const uint8_t *p, size_t len, uint32_t nattrs, uint64_t count, st_data_view *v, st_diag *d)
{
    size_t pos = 0;
    unsigned idx = 0;
    uint32_t key, flags;
    const uint8_t *val;
    uint64_t vlen;
    int r;
    memset(v, 0, sizeof *v);
    while ((r = st_attr_next(p, len, &pos, &idx, &key, &flags, &val, &vlen, d)) == 1) {
        if (key == ST_ATTR_DATA) {
            if (v->data)
                return st_diag_set(d, ST_E_BAD_ATTR, "two data attributes");
            v->data = val;
            v->dlen = vlen;
        } else if (key == ST_ATTR_ENTRY_CRC) {
            if (v->entry_crc)
                return st_diag_set(d, ST_E_BAD_ATTR, "two entry checksum attributes");
            if (vlen != st_entry_crc_len(count))
                return st_diag_set(d, ST_E_BAD_ATTR,
                                   "entry checksum attribute of %llu bytes; %llu entries need %llu",
                                   (unsigned long long)vlen, (unsigned long long)count,
                                   (unsigned long long)st_entry_crc_len(count));
            v->entry_crc = val;
        } else if (flags & ST_ATTR_CRITICAL) {
            return st_diag_set(d, ST_E_UNSUPPORTED, "unknown critical attribute %u", key);
        }
    }
    if (r < 0)
        return ST_E_BAD_ATTR;
    if (idx != nattrs)
        return st_diag_set(d, ST_E_BAD_ATTR, "header says %u attributes, payload holds %u", nattrs, idx);
    if (!v->data)
        return st_diag_set(d, ST_E_BAD_ATTR, "data frame without a data attribute");
    return ST_OK;
}

void st_frame_ref_set(st_frame_ref *r, const st_frame_header *h, uint64_t off, uint64_t size, uint64_t ordinal)
{
    r->offset = off;
    r->size = size;
    r->ordinal = ordinal;
    r->stream = h->stream;
    r->kind = h->kind;
    r->flags = h->flags;
    r->encoder = h->encoder;
    r->seq = h->seq;
    r->first_entry = h->first_entry;
    r->count = h->count;
    r->first_cycle = h->first_cycle;
    r->last_cycle = h->last_cycle;
    r->first_time = h->first_time;
    r->last_time = h->last_time;
    r->nattrs = h->nattrs;
    r->payload_crc = h->payload_crc;
}

void st_frame_header_of(st_frame_header *h, const st_frame_ref *r)
{
    memset(h, 0, sizeof *h);
    h->kind = r->kind;
    h->flags = r->flags;
    h->encoder = r->encoder;
    h->stream = r->stream;
    h->nattrs = r->nattrs;
    h->seq = r->seq;
    h->first_entry = r->first_entry;
    h->count = r->count;
    h->first_cycle = r->first_cycle;
    h->last_cycle = r->last_cycle;
    h->first_time = r->first_time;
    h->last_time = r->last_time;
    h->payload_size = r->size - ST_FRAME_HEADER_SIZE;
    h->payload_crc = r->payload_crc;
}

st_error st_data_frame_check(const st_frame_ref *r, const st_stream_info *si, st_error bad, const char *where,
                             st_diag *d)
{
    if (!si)
        return st_diag_set(d, ST_E_BAD_STREAM, "%sdata frame of undeclared stream %u", where, r->stream);
    if (r->encoder != si->encoder && r->encoder != SVPC_ENC_GENERIC)
        return st_diag_set(d, bad, "%sframe encoder %u differs from its stream's %u", where, r->encoder, si->encoder);
    if (r->seq != si->frames)
        return st_diag_set(d, bad, "%ssequence number %llu, expected %llu", where, (unsigned long long)r->seq,
                           (unsigned long long)si->frames);
    if (r->first_entry != si->entries)
        return st_diag_set(d, bad, "%sfirst entry %llu, expected %llu", where, (unsigned long long)r->first_entry,
                           (unsigned long long)si->entries);
    if (r->count == 0 || r->count > SVPC_MAX_FRAME_ENTRIES)
        return st_diag_set(d, bad, "%sentry count %llu outside 1..%u", where, (unsigned long long)r->count,
                           SVPC_MAX_FRAME_ENTRIES);
    if (!(r->flags & ST_FF_TIME) && (r->first_time || r->last_time))
        return st_diag_set(d, bad, "%stime without time flag", where);
    if ((r->flags & ~ST_FF_KNOWN) || r->first_time > r->last_time)
        return st_diag_set(d, bad, "%sinvalid flags or times", where);
    return ST_OK;
}
