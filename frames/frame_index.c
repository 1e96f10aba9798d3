/* frame_index.c - random access to a container through footer and directory. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/st_io.h"
#include "frame_format.h"
#include "frame_job.h"
#include "container.h"
#include "range.h"

struct st_index {
    int fd;
    uint64_t file_size;
    uint64_t bytes_read; /* by st_index_open */
    st_frame_ref *f;
    uint64_t nf;
    st_stream_info *s;
    unsigned ns;
    /* per stream i, its data frames in sequence order are
     * f[by_stream[first[i]]] .. f[by_stream[first[i + 1] - 1]] */
    uint64_t *by_stream;
    uint64_t *first;        /* ns + 1 */
    uint8_t *keys_ordered;  /* ns */
    uint8_t *times_ordered; /* ns */
    svpc_ctx *ctx; /* created on the first decode */
    uint64_t memlimit;
    int ignore_check;
    /* the directory and footer were unusable and the frames were found by
     * reading their headers from the start (st_index_recovered) */
    int scanned;
    int footer_ok;       /* open_directory found a valid footer */
    uint64_t frames_end; /* where the last frame listed ends */
    int cut;             /* a valid data frame header at frames_end, its frame cut off */
    int cut_whole;       /* ... or whole in the file, its payload failing its CRC */
    uint64_t after;      /* a sound, complete frame past the scan's stop (0: none) */
    int tail_lost;        /* st_index_tail_lost */
    uint32_t tail_stream; /* the stream id a cut header names, or UINT32_MAX */
    uint64_t tail_offset; /* where the bytes it judges begin */
    st_frame_ref cut_frame;
    st_diag why;         /* what was wrong with the directory or footer */
};

void st_index_set_memlimit(st_index *ix, uint64_t bytes) { ix->memlimit = bytes; }
uint64_t st_index_memlimit(const st_index *ix) { return ix->memlimit; }
void st_index_set_ignore_check(st_index *ix, int on) { ix->ignore_check = on; }

static void at(st_diag *d, uint64_t off, uint64_t frame)
{
    if (d) {
        d->offset = off;
        d->frame = frame;
    }
}

const st_frame_ref *st_index_frame(const st_index *ix, uint64_t k) { return k < ix->nf ? &ix->f[k] : NULL; }
uint64_t st_index_file_size(const st_index *ix) { return ix->file_size; }
uint64_t st_index_bytes_read(const st_index *ix) { return ix->bytes_read; }

int st_index_find_stream(const st_index *ix, const char *name)
{
    for (unsigned i = 0; i < ix->ns; i++)
        if (strcmp(ix->s[i].name, name) == 0)
            return (int)i;
    return -1;
}

uint64_t st_index_stream_frames(const st_index *ix, unsigned i)
{
    return i < ix->ns ? ix->first[i + 1] - ix->first[i] : 0;
}

const st_frame_ref *st_index_stream_frame(const st_index *ix, unsigned i, uint64_t j)
{
    if (i >= ix->ns || j >= ix->first[i + 1] - ix->first[i])
        return NULL;
    return &ix->f[ix->by_stream[ix->first[i] + j]];
}

/* First position j in stream i for which pred(frame j) holds, given that
 * it is false for a prefix and true for the rest. */
#define LOWER_BOUND(ix, i, pred)                                                  \
    do {                                                                          \
        uint64_t lo_ = 0, hi_ = st_index_stream_frames(ix, i);                    \
        while (lo_ < hi_) {                                                       \
            uint64_t mid_ = lo_ + (hi_ - lo_) / 2;                                \
            const st_frame_ref *r = st_index_stream_frame(ix, i, mid_);           \
            if (pred)                                                             \
                hi_ = mid_;                                                       \
            else                                                                  \
                lo_ = mid_ + 1;                                                   \
        }                                                                         \
        return lo_;                                                               \
    } while (0)

static uint64_t lower_entry_end(const st_index *ix, unsigned i, uint64_t entry)
{
    LOWER_BOUND(ix, i, r->first_entry + r->count > entry);
}

st_error st_index_find_entry(const st_index *ix, unsigned i, uint64_t entry, uint64_t *j)
{
    if (i >= ix->ns || entry >= ix->s[i].entries)
        return ST_E_RANGE;
    *j = lower_entry_end(ix, i, entry);
    return ST_OK;
}

uint64_t st_index_lower_key(const st_index *ix, unsigned i, uint64_t key) { LOWER_BOUND(ix, i, r->last_cycle >= key); }
uint64_t st_index_lower_time(const st_index *ix, unsigned i, uint64_t t) { LOWER_BOUND(ix, i, r->last_time >= t); }
int st_index_keys_ordered(const st_index *ix, unsigned i) { return i < ix->ns && ix->keys_ordered[i]; }
int st_index_times_ordered(const st_index *ix, unsigned i) { return i < ix->ns && ix->times_ordered[i]; }

/* The per-stream tables, from the checked frame list. */
static st_error build_stream_tables(st_index *ix)
{
    if (!(ix->first = calloc((size_t)ix->ns + 1, sizeof *ix->first)) ||
        !(ix->keys_ordered = calloc((size_t)ix->ns + 1, 1)) || !(ix->times_ordered = calloc((size_t)ix->ns + 1, 1)) ||
        !(ix->by_stream = calloc((size_t)ix->nf + 1, sizeof *ix->by_stream)))
        return ST_E_NOMEM;
    for (unsigned i = 0; i < ix->ns; i++)
        ix->first[i + 1] = ix->first[i] + ix->s[i].frames;
    /* stream ids are at most 65535, so a direct map from id to position */
    uint32_t *pos = malloc(ST_MAX_STREAMS * sizeof *pos);
    uint64_t *fill = calloc((size_t)ix->ns + 1, sizeof *fill);
    if (!pos || !fill) {
        free(pos);
        free(fill);
        return ST_E_NOMEM;
    }
    for (unsigned i = 0; i < ix->ns; i++)
        pos[ix->s[i].id] = i;
    for (uint64_t k = 0; k < ix->nf; k++) {
        if (ix->f[k].kind != ST_KIND_DATA)
            continue;
        unsigned i = pos[ix->f[k].stream];
        ix->by_stream[ix->first[i] + fill[i]++] = k;
    }
    free(pos);
    free(fill);
    for (unsigned i = 0; i < ix->ns; i++) {
        int ko = 1, to = 1;
        for (uint64_t j = 0; j < st_index_stream_frames(ix, i); j++) {
            const st_frame_ref *r = st_index_stream_frame(ix, i, j), *n = st_index_stream_frame(ix, i, j + 1);
            if (r->first_cycle > r->last_cycle || (n && r->last_cycle > n->first_cycle))
                ko = 0;
            if (!(r->flags & ST_FF_TIME) || (n && r->last_time > n->first_time))
                to = 0;
        }
        ix->keys_ordered[i] = (uint8_t)ko;
        ix->times_ordered[i] = (uint8_t)to;
    }
    return ST_OK;
}
unsigned st_index_stream_count(const st_index *ix) { return ix->ns; }
uint64_t st_index_frame_count(const st_index *ix) { return ix->nf; }
const st_stream_info *st_index_stream(const st_index *ix, unsigned i) { return i < ix->ns ? &ix->s[i] : NULL; }

static st_stream_info *stream_of(st_index *ix, uint32_t id)
{
    for (unsigned i = 0; i < ix->ns; i++)
        if (ix->s[i].id == id)
            return &ix->s[i];
    return NULL;
}

/* 1 when a frame header says what its directory entry says. */
static int header_matches(const st_frame_header *h, const st_frame_ref *r)
{
    return r->size == ST_FRAME_HEADER_SIZE + h->payload_size && r->stream == h->stream && r->kind == h->kind &&
           r->flags == h->flags && r->encoder == h->encoder && r->seq == h->seq &&
           r->first_entry == h->first_entry && r->count == h->count && r->first_cycle == h->first_cycle &&
           r->last_cycle == h->last_cycle && r->first_time == h->first_time && r->last_time == h->last_time;
}

/* Read frame k's header and payload; the header must equal the directory's
 * copy and its payload be at most limit bytes (checked before allocating).
 * The payload CRC is checked here when check_crc (data frames get it checked
 * by the decoder). */
static st_error load_frame(st_index *ix, uint64_t k, st_frame_header *h, st_buf *pay, int check_crc, uint64_t limit,
                           st_diag *d)
{
    const st_frame_ref *r = st_index_frame(ix, k);
    if (!r)
        return ST_E_RANGE;
    uint8_t hb[ST_FRAME_HEADER_SIZE];
    st_diag_frame(d, r->offset, k, r->kind, r->stream, r->seq);
    st_error e = st_pread_full(ix->fd, hb, sizeof hb, r->offset);
    if (e == ST_E_TRUNCATED)
        return st_diag_set(d, e, "frame header past the end of the file");
    RETURN_IF_ERROR(e);
    RETURN_IF_ERROR(st_frame_header_parse(hb, h, d));
    if (!header_matches(h, r))
        return st_diag_set(d, ST_E_BAD_DIRECTORY, "frame header differs from its directory entry");
    if (h->payload_size > limit)
        return st_diag_set(d, ST_E_TOO_LARGE, "payload of %llu bytes, at most %llu possible for this frame",
                           (unsigned long long)h->payload_size, (unsigned long long)limit);
    pay->len = 0;
    RETURN_IF_ERROR(st_buf_reserve(pay, h->payload_size + 1));
    e = st_pread_full(ix->fd, pay->data, (size_t)h->payload_size, r->offset + ST_FRAME_HEADER_SIZE);
    if (e == ST_E_TRUNCATED)
        return st_diag_set(d, e, "payload past the end of the file");
    RETURN_IF_ERROR(e);
    pay->len = (size_t)h->payload_size;
    if (check_crc && !st_crc_ok(h->payload_crc, pay->data, pay->len))
        return st_diag_set(d, ST_E_PAYLOAD_CRC, "payload checksum mismatch");
    return ST_OK;
}

/* Undo what check_entry counted for the last frame of the list, and drop it. */
static void uncount_last(st_index *ix)
{
    const st_frame_ref *r = &ix->f[--ix->nf];
    if (r->kind == ST_KIND_STREAM) {
        ix->ns--;
    } else {
        st_stream_info *si = stream_of(ix, r->stream);
        si->frames--;
        si->entries -= r->count;
        si->stored -= r->size;
    }
}

/* Check directory entry k, which must start at `expect` and end by
 * `limit`, against the rules of SIMTRACE.md 7.3 and the entries before it,
 * and count it in the stream table.  The one check of a frame list, whether
 * it came from the directory or from a scan of the frame headers. */
static st_error check_entry(st_index *ix, uint64_t k, uint64_t expect, uint64_t limit, st_diag *d)
{
    {
        st_frame_ref *r = &ix->f[k];
        at(d, r->offset, k);
        if (r->offset != expect)
            return st_diag_set(d, ST_E_BAD_DIRECTORY, "directory entry %llu: frame at offset %llu, expected %llu",
                               (unsigned long long)k, (unsigned long long)r->offset, (unsigned long long)expect);
        if (r->size < ST_FRAME_HEADER_SIZE || r->size > limit - r->offset)
            return st_diag_set(d, ST_E_BAD_DIRECTORY, "directory entry %llu: size %llu runs past the directory",
                               (unsigned long long)k, (unsigned long long)r->size);
        if (r->kind == ST_KIND_STREAM) {
            if (stream_of(ix, r->stream))
                return st_diag_set(d, ST_E_BAD_STREAM, "stream %u declared twice", r->stream);
            if (r->seq || r->first_entry || r->count || r->first_cycle || r->last_cycle || r->first_time ||
                r->last_time || r->flags || r->stream >= ST_MAX_STREAMS)
                return st_diag_set(d, ST_E_BAD_DIRECTORY, "directory entry %llu: invalid descriptor fields",
                                   (unsigned long long)k);
            st_stream_info *ns = realloc(ix->s, (ix->ns + 1) * sizeof *ns);
            if (!ns)
                return ST_E_NOMEM;
            ix->s = ns;
            memset(&ix->s[ix->ns], 0, sizeof *ix->s);
            ix->s[ix->ns].id = r->stream;
            ix->s[ix->ns].encoder = r->encoder;
            ix->ns++;
        } else if (r->kind == ST_KIND_DATA) {
            st_stream_info *si = stream_of(ix, r->stream);
            char where[48];
            snprintf(where, sizeof where, "directory entry %llu: ", (unsigned long long)k);
            RETURN_IF_ERROR(st_data_frame_check(r, si, ST_E_BAD_DIRECTORY, where, d));
            si->frames++;
            si->entries += r->count;
            si->stored += r->size;
        } else {
            return st_diag_set(d, ST_E_BAD_DIRECTORY, "directory entry %llu: kind %u", (unsigned long long)k,
                               r->kind);
        }
    }
    return ST_OK;
}

/* Read the stream descriptors the frame list names: name, type, entry size. */
static st_error load_descriptors(st_index *ix, st_diag *d);

/* Check every directory entry and build the stream table. */
static st_error check_entries(st_index *ix, uint64_t dir_off, st_diag *d)
{
    uint64_t expect = ST_FILE_HEADER_SIZE;
    for (uint64_t k = 0; k < ix->nf; k++) {
        RETURN_IF_ERROR(check_entry(ix, k, expect, dir_off, d));
        expect = ix->f[k].offset + ix->f[k].size;
    }
    if (expect != dir_off)
        return st_diag_set(d, ST_E_BAD_DIRECTORY, "frames end at %llu, directory starts at %llu",
                           (unsigned long long)expect, (unsigned long long)dir_off);
    ix->frames_end = dir_off;
    return load_descriptors(ix, d);
}

static st_error load_descriptors(st_index *ix, st_diag *d)
{
    st_buf pay;
    st_buf_init(&pay, 0);
    st_error e = ST_OK;
    for (uint64_t k = 0; k < ix->nf && e == ST_OK; k++) {
        if (ix->f[k].kind != ST_KIND_STREAM)
            continue;
        st_frame_header h;
        e = load_frame(ix, k, &h, &pay, 1, ST_MAX_DESC_PAYLOAD, d);
        st_stream_info si;
        if (e == ST_OK)
            e = st_stream_desc_parse(&h, pay.data, pay.len, &si, d);
        if (e == ST_OK) {
            st_stream_info *t = stream_of(ix, h.stream);
            si.entries = t->entries;
            si.frames = t->frames;
            si.stored = t->stored;
            *t = si;
            ix->bytes_read += ix->f[k].size;
        }
    }
    st_buf_free(&pay);
    return e;
}

/* The frame list from the footer and the directory frame (SIMTRACE.md 7.3). */
static st_error open_directory(st_index *ix, st_diag *d)
{
    int fd = ix->fd;
    uint64_t size = ix->file_size;
    if (size < ST_FILE_HEADER_SIZE + ST_FOOTER_SIZE)
        return st_diag_set(d, ST_E_TRUNCATED, "file of %llu bytes is too short for a container",
                           (unsigned long long)size);
    uint8_t fb[ST_FOOTER_SIZE];
    at(d, size - ST_FOOTER_SIZE, ST_DIAG_UNKNOWN);
    RETURN_IF_ERROR(st_pread_full(fd, fb, sizeof fb, size - ST_FOOTER_SIZE));
    st_footer f;
    RETURN_IF_ERROR(st_footer_parse(fb, &f, d));
    /* the directory lies between the file header and the footer, and ends
     * where the footer starts: anything else points outside or into itself */
    uint64_t room = size - ST_FOOTER_SIZE - ST_FILE_HEADER_SIZE;
    if (f.dir_offset < ST_FILE_HEADER_SIZE || f.dir_size < ST_FRAME_HEADER_SIZE ||
        f.dir_size > size - ST_FOOTER_SIZE || f.dir_offset != size - ST_FOOTER_SIZE - f.dir_size)
        return st_diag_set(d, ST_E_BAD_FOOTER, "directory at %llu (%llu bytes) does not end at the footer",
                           (unsigned long long)f.dir_offset, (unsigned long long)f.dir_size);
    /* every frame takes at least a header: a count above that is a lie */
    if (f.nframes > room / ST_FRAME_HEADER_SIZE)
        return st_diag_set(d, ST_E_BAD_FOOTER, "footer claims %llu frames; the file has room for %llu",
                           (unsigned long long)f.nframes, (unsigned long long)(room / ST_FRAME_HEADER_SIZE));
    /* a valid footer: from here on a fault is in the directory, which a
     * writer finished, and is reported, not read around */
    ix->footer_ok = 1;
    st_buf dir;
    st_buf_init(&dir, 0);
    uint8_t dh[ST_FRAME_HEADER_SIZE];
    st_frame_header h;
    at(d, f.dir_offset, ST_DIAG_UNKNOWN);
    st_error e = st_pread_full(fd, dh, sizeof dh, f.dir_offset);
    if (e == ST_OK)
        e = st_frame_header_parse(dh, &h, d);
    if (e == ST_OK && (h.kind != ST_KIND_DIRECTORY || h.payload_size != f.dir_size - ST_FRAME_HEADER_SIZE))
        e = st_diag_set(d, ST_E_BAD_DIRECTORY, "footer does not point at a directory frame");
    /* the same bound as the sequential reader, before allocating */
    if (e == ST_OK && h.payload_size > st_dir_payload_max(f.nframes))
        e = st_diag_set(d, ST_E_TOO_LARGE, "directory of %llu bytes for %llu frames",
                        (unsigned long long)h.payload_size, (unsigned long long)f.nframes);
    if (e == ST_OK)
        e = st_buf_reserve(&dir, (size_t)h.payload_size + 1);
    if (e == ST_OK)
        e = st_pread_full(fd, dir.data, (size_t)h.payload_size, f.dir_offset + ST_FRAME_HEADER_SIZE);
    if (e == ST_OK && !st_crc_ok(h.payload_crc, dir.data, (size_t)h.payload_size))
        e = st_diag_set(d, ST_E_PAYLOAD_CRC, "directory checksum mismatch");
    /* the one DIRECTORY attribute; unknown non-critical ones are skipped */
    const uint8_t *val, *entries = NULL;
    uint64_t vlen, elen = 0;
    size_t pos = 0;
    unsigned idx = 0;
    uint32_t key, flags;
    int rr = 0;
    while (e == ST_OK && (rr = st_attr_next(dir.data, (size_t)h.payload_size, &pos, &idx, &key, &flags, &val,
                                            &vlen, d)) == 1) {
        if (key == ST_ATTR_DIRECTORY && !entries) {
            entries = val;
            elen = vlen;
        } else if (key == ST_ATTR_DIRECTORY || (flags & ST_ATTR_CRITICAL)) {
            e = st_diag_set(d, ST_E_BAD_DIRECTORY, "unexpected attribute %u in the directory", key);
        }
    }
    if (e == ST_OK && rr < 0)
        e = ST_E_BAD_ATTR;
    if (e == ST_OK && (!entries || idx != h.nattrs || elen != f.nframes * ST_DIR_ENTRY_SIZE))
        e = st_diag_set(d, ST_E_BAD_DIRECTORY, "directory holds %llu bytes of entries for %llu frames",
                        (unsigned long long)elen, (unsigned long long)f.nframes);
    if (e == ST_OK && f.nframes && !(ix->f = calloc((size_t)f.nframes, sizeof *ix->f)))
        e = ST_E_NOMEM;
    if (e == ST_OK) {
        ix->nf = f.nframes;
        for (uint64_t k = 0; k < f.nframes; k++) {
            st_dir_entry de;
            st_dir_entry_parse(entries + k * ST_DIR_ENTRY_SIZE, &de);
            st_frame_ref_set(&ix->f[k], &de.h, de.offset, de.size, k);
        }
        e = check_entries(ix, f.dir_offset, d);
    }
    ix->bytes_read += ST_FOOTER_SIZE + f.dir_size;
    st_buf_free(&dir);
    return e;
}

/* After a scan's stop at frames_end: the first sound data frame header
 * past it whose frame is complete in the file, into ix->after (0: none).  A damaged
 * header stops the scan, but not the frames after it, which a sequential
 * salvage reads (st_read_opts.resync): they must not pass for lost, nor
 * be cut off by a repair. */
static st_error find_after(st_index *ix)
{
    enum { CHUNK = 1 << 16 };
    uint8_t *b = malloc(CHUNK + ST_FRAME_HEADER_SIZE);
    if (!b)
        return ST_E_NOMEM;
    ix->after = 0;
    /* b holds the bytes from `base`; each pass looks at every start below
     * len - header, and keeps the last header's worth for the next */
    uint64_t base = ix->frames_end + 1, size = ix->file_size;
    size_t len = 0;
    st_error e = ST_OK;
    while (!ix->after && base + len < size) {
        size_t n = size - base - len < CHUNK ? (size_t)(size - base - len) : CHUNK;
        if ((e = st_pread_full(ix->fd, b + len, n, base + len)) != ST_OK)
            break;
        len += n;
        st_frame_header h;
        for (size_t j = 0; (j = st_frame_header_find(b, j, len, &h)) != SIZE_MAX; j++)
            if (h.kind == ST_KIND_DATA && h.payload_size <= size - (base + j) - ST_FRAME_HEADER_SIZE) {
                ix->after = base + j;
                break;
            }
        size_t keep = len < ST_FRAME_HEADER_SIZE - 1 ? len : ST_FRAME_HEADER_SIZE - 1;
        memmove(b, b + len - keep, keep);
        base += len - keep;
        len = keep;
    }
    free(b);
    return e;
}

/* After a scan that explains nothing past frames_end (no frame cut off
 * whose header is whole, no complete frame after damage), or nothing past
 * the frame there whose payload fails its CRC: whether the bytes there
 * may have held entries.  They may not when they begin a
 * directory frame, or a stream descriptor that the end of the file cuts
 * off (a writer stopped before the frames of that stream); anything else
 * (the first bytes of a data frame's header, a header that no rule allows
 * there, bytes a crash left unwritten) may have. */
static st_error classify_tail(st_index *ix)
{
    ix->tail_lost = 0;
    ix->tail_stream = UINT32_MAX;
    ix->tail_offset = ix->cut_whole ? ix->cut_frame.offset + ix->cut_frame.size : ix->frames_end;
    uint64_t tail = ix->file_size - ix->tail_offset;
    if ((ix->cut && !ix->cut_whole) || ix->after || tail == 0)
        return ST_OK;
    uint8_t b[ST_FRAME_HEADER_SIZE];
    size_t n = tail < sizeof b ? (size_t)tail : sizeof b;
    st_error e = st_pread_full(ix->fd, b, n, ix->tail_offset);
    if (e != ST_OK)
        return e;
    int magic = memcmp(b, ST_FRAME_MAGIC, n < 4 ? n : 4) == 0;
    int kind = n > 4 ? b[4] : 0; /* 0: not in the file */
    st_frame_header h;
    /* the stream field is believed from a sound header, or a cut one (the
     * bytes the writer wrote); a whole header that fails its CRC is
     * damaged, and may name any stream */
    int sound = magic && n < ST_FRAME_HEADER_SIZE;
    if (sound) {
        ix->tail_lost = !(kind == ST_KIND_DIRECTORY || kind == ST_KIND_STREAM);
    } else if (magic && st_frame_header_parse(b, &h, NULL) == ST_OK) {
        sound = 1;
        ix->tail_lost = !(h.kind == ST_KIND_DIRECTORY ||
                          (h.kind == ST_KIND_STREAM && h.payload_size > tail - ST_FRAME_HEADER_SIZE));
    } else {
        ix->tail_lost = 1;
    }
    if (ix->tail_lost && sound && kind == ST_KIND_DATA && n >= 12)
        ix->tail_stream = st_load32(b + 8);
    return ST_OK;
}

/*
 * The frame list from the frame headers, read from the start, for a file
 * without a valid footer: cut off by a crash, or
 * left by an --append that did not finish (SIMTRACE.md 7.4).  The list
 * ends before the first frame that is incomplete, has an invalid header,
 * breaks the rules a directory entry obeys, or is a directory frame; the
 * last frame listed must have an intact payload, since a crash may leave
 * the file's last blocks unwritten.
 */
static st_error scan_frames(st_index *ix, st_diag *d)
{
    uint64_t off = ST_FILE_HEADER_SIZE, cap = 0;
    for (;;) {
        uint8_t hb[ST_FRAME_HEADER_SIZE];
        st_frame_header h;
        if (ix->file_size - off < ST_FRAME_HEADER_SIZE || st_pread_full(ix->fd, hb, sizeof hb, off) != ST_OK ||
            st_frame_header_parse(hb, &h, NULL) != ST_OK || h.kind == ST_KIND_DIRECTORY)
            break;
        if (h.payload_size > ix->file_size - off - ST_FRAME_HEADER_SIZE) {
            /* the frame a crash cut off: what it held is lost, say what */
            if (h.kind == ST_KIND_DATA) {
                ix->cut = 1;
                st_frame_ref_set(&ix->cut_frame, &h, off, ST_FRAME_HEADER_SIZE + h.payload_size, ix->nf);
            }
            break;
        }
        if (ix->nf == cap) {
            cap = cap ? 2 * cap : 64;
            st_frame_ref *nf = realloc(ix->f, (size_t)cap * sizeof *nf);
            if (!nf)
                return ST_E_NOMEM;
            ix->f = nf;
        }
        st_frame_ref_set(&ix->f[ix->nf], &h, off, ST_FRAME_HEADER_SIZE + h.payload_size, ix->nf);
        if (check_entry(ix, ix->nf, off, ix->file_size, NULL) != ST_OK)
            break;
        ix->bytes_read += ST_FRAME_HEADER_SIZE;
        off += ST_FRAME_HEADER_SIZE + h.payload_size;
        ix->nf++;
    }
    /* the last frame: its payload checked, or dropped */
    st_buf pay;
    st_buf_init(&pay, 0);
    while (ix->nf) {
        st_frame_header h;
        st_error e = load_frame(ix, ix->nf - 1, &h, &pay, 1, UINT64_MAX, NULL);
        if (e == ST_E_NOMEM || e == ST_E_READ) {
            st_buf_free(&pay);
            return e;
        }
        if (e == ST_OK)
            break;
        /* (a data frame cut off after it, found above, is then judged
         * with the bytes after this one: classify_tail) */
        uncount_last(ix);
        ix->cut = ix->cut_whole = ix->f[ix->nf].kind == ST_KIND_DATA;
        ix->cut_frame = ix->f[ix->nf];
    }
    st_buf_free(&pay);
    ix->frames_end = ix->nf ? ix->f[ix->nf - 1].offset + ix->f[ix->nf - 1].size : ST_FILE_HEADER_SIZE;
    RETURN_IF_ERROR(find_after(ix));
    RETURN_IF_ERROR(classify_tail(ix));
    ix->scanned = 1;
    at(d, ix->frames_end, ST_DIAG_UNKNOWN);
    return load_descriptors(ix, d);
}

st_error st_index_open(st_index **out, int fd, st_diag *d)
{
    *out = NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return st_diag_set(d, ST_E_SEEK, "not a regular file: random access needs one");
    uint64_t size = (uint64_t)st.st_size;
    uint8_t hb[ST_FILE_HEADER_SIZE];
    at(d, 0, ST_DIAG_UNKNOWN);
    /* a file that is no container at all says so before it is found short */
    size_t mlen = size < 8 ? (size_t)size : 8;
    RETURN_IF_ERROR(st_pread_full(fd, hb, mlen, 0));
    RETURN_IF_ERROR(st_magic_check(hb, mlen, d));
    if (size < ST_FILE_HEADER_SIZE)
        return st_diag_set(d, ST_E_TRUNCATED, "file of %llu bytes is too short for a container",
                           (unsigned long long)size);
    RETURN_IF_ERROR(st_pread_full(fd, hb, sizeof hb, 0));
    RETURN_IF_ERROR(st_file_header_parse(hb, d));
    st_index *ix = calloc(1, sizeof *ix);
    if (!ix)
        return ST_E_NOMEM;
    ix->fd = fd;
    ix->file_size = size;
    ix->bytes_read = ST_FILE_HEADER_SIZE;
    st_diag_clear(&ix->why);
    st_error e = open_directory(ix, &ix->why);
    if (e != ST_OK && st_error_is_data(e) && !ix->footer_ok) {
        /* no footer: the writer did not finish; start again from the frame
         * headers */
        free(ix->f);
        free(ix->s);
        ix->f = NULL;
        ix->s = NULL;
        ix->nf = 0;
        ix->ns = 0;
        e = scan_frames(ix, d);
    } else if (e != ST_OK && d) {
        *d = ix->why;
    }
    if (e == ST_OK)
        e = build_stream_tables(ix);
    if (e != ST_OK) {
        st_index_free(ix);
        return e;
    }
    *out = ix;
    return ST_OK;
}

const st_frame_ref *st_index_cut_frame(const st_index *ix) { return ix->scanned && ix->cut ? &ix->cut_frame : NULL; }

uint64_t st_index_frames_after(const st_index *ix) { return ix->scanned ? ix->after : 0; }

int st_index_tail_lost(const st_index *ix, uint32_t *stream, uint64_t *offset)
{
    int lost = ix->scanned && ix->tail_lost;
    if (stream)
        *stream = lost ? ix->tail_stream : UINT32_MAX;
    if (offset)
        *offset = lost ? ix->tail_offset : 0;
    return lost;
}

int st_index_cut_whole(const st_index *ix) { return ix->scanned && ix->cut && ix->cut_whole; }

int st_index_recovered(const st_index *ix, uint64_t *frames_end, st_diag *why)
{
    if (frames_end)
        *frames_end = ix->frames_end;
    if (why)
        *why = ix->why;
    return ix->scanned;
}

st_error st_index_decode_frame(st_index *ix, uint64_t k, st_buf *out, st_diag *d)
{
    return st_index_decode_part(ix, k, 0, UINT64_MAX, out, d);
}

st_error st_index_frame_job(st_index *ix, uint64_t k, uint64_t from, uint64_t stop, unsigned share, st_job *j,
                            st_diag *d)
{
    const st_frame_ref *r = st_index_frame(ix, k);
    if (!r || r->kind != ST_KIND_DATA)
        return ST_E_RANGE;
    const st_stream_info *si = stream_of(ix, r->stream);
    /* the payload size is in the directory entry: size - header */
    st_diag_frame(d, r->offset, k, r->kind, r->stream, r->seq);
    RETURN_IF_ERROR(
        st_memlimit_check(r->count, si->entry_size, r->size - ST_FRAME_HEADER_SIZE, ix->memlimit, share, d));
    /* encoders never store more than st_data_payload_max */
    RETURN_IF_ERROR(load_frame(ix, k, &j->h, &j->in, 0, st_data_payload_max(r->count, si->entry_size), d));
    j->op = JOB_DECODE;
    j->type = si->type;
    j->esz = si->entry_size;
    j->n = (size_t)r->count;
    j->from = from < r->count ? (size_t)from : 0;
    j->stop = stop == 0 ? 1 : stop < r->count ? (size_t)stop : 0;
    j->offset = r->offset;
    j->ordinal = k;
    j->verify_only = 0;
    j->ignore_check = ix->ignore_check;
    j->discard = 0;
    return ST_OK;
}

st_error st_index_decode_part(st_index *ix, uint64_t k, uint64_t from, uint64_t stop, st_buf *out, st_diag *d)
{
    if (!ix->ctx)
        RETURN_IF_ERROR(svpc_ctx_new(&ix->ctx));
    st_job j;
    memset(&j, 0, sizeof j);
    st_buf_init(&j.in, 0);
    j.out = *out; /* lent for the call */
    st_error e = st_index_frame_job(ix, k, from, stop, 1, &j, d);
    if (e == ST_OK) {
        st_job_run(&j, ix->ctx);
        e = j.err;
        if (e != ST_OK && d) {
            *d = j.diag;
            st_diag_frame(d, j.offset, k, j.h.kind, j.h.stream, j.h.seq);
        }
    }
    *out = j.out;
    st_buf_free(&j.in);
    return e;
}

st_error st_index_frame_byte0(st_index *ix, uint64_t k, int *byte0, st_diag *d)
{
    const st_frame_ref *r = st_index_frame(ix, k);
    if (!r || r->kind != ST_KIND_DATA)
        return ST_E_RANGE;
    st_frame_header h;
    st_buf in;
    st_buf_init(&in, 0);
    st_error e = load_frame(ix, k, &h, &in, 1, st_data_payload_max(r->count, stream_of(ix, r->stream)->entry_size), d);
    if (e == ST_OK) {
        /* (the directory does not hold the count of attributes: the header does) */
        st_frame_ref f = *r;
        f.nattrs = h.nattrs;
        *byte0 = st_raw_frame_byte0(&f, &(st_raw_frame){in.data, in.len});
    }
    st_buf_free(&in);
    return e;
}

void st_index_free(st_index *ix)
{
    if (!ix)
        return;
    svpc_ctx_free(ix->ctx);
    free(ix->by_stream);
    free(ix->first);
    free(ix->keys_ordered);
    free(ix->times_ordered);
    free(ix->f);
    free(ix->s);
    free(ix);
}
