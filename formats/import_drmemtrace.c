/*
 * import_drmemtrace.c - the importer of DynamoRIO drmemtrace traces
 * (formats/IMPORT.md section 18).
 *
 * A drmemtrace file holds one thread's packed 12-byte trace_entry_t
 * records {u16 type, u16 size, u64 addr}, from a header (type 25) to a
 * footer (26).  It comes as a zip archive whose members ("chunk.0000",
 * ...) are the record stream cut in pieces, in the archive's order; as
 * gzip (which the caller's decompression has undone, common/st_decomp.h);
 * or uncompressed.  Each record is one ST_TYPE_DRMEMTRACE entry, as it
 * is, so the export gives the stream back byte for byte.
 *
 * The stream is named after the thread: "tid" and the thread id of the
 * first thread record (type 22) among the first DRM_NAME_WINDOW records,
 * else "trace".  The records before it are held until it is known.
 *
 * A zip is read through Debian's minizip (unzip.h) over the descriptor,
 * which must then be a seekable file: a zip's directory is at its end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <minizip/unzip.h>

#include "import_internal.h"

#define DRM_REC 12u
#define DRM_BUF (DRM_REC << 16)  /* 768 KiB: the read buffer */
#define DRM_NAME_WINDOW 64u      /* records searched for the thread record */
#define DRM_TYPE_HEADER 25u
#define DRM_TYPE_THREAD 22u
#define DRM_MEMBER_NAME 256u
#define ZIP_MAGIC "PK\3\4" /* a zip's local file header */
#define ZIP_NEEDS_FILE "a zip archive is read from a regular file, not a pipe (its directory is at its end)"

/* The record stream, however it arrives. */
typedef struct {
    const st_import_opts *o;
    const st_import_sink *sink;
    st_import_stats *st;
    st_diag *d;
    uint8_t *buf;
    size_t have;       /* bytes in buf: records not yet appended, and a partial one */
    int checked;       /* the first record was looked at */
    int declared;
    uint32_t sid;
    const char *member; /* the zip member being read, or NULL */
    uint64_t member_offset; /* where the member's bytes start in the record stream */
} drm_in;

static st_error declare(drm_in *in, const uint8_t *recs, size_t n)
{
    char name[ST_IMP_NAME_MAX + 1], base[32] = "trace";
    for (size_t i = 0; i < n && i < DRM_NAME_WINDOW; i++)
        if (st_load16(recs + i * DRM_REC) == DRM_TYPE_THREAD) {
            snprintf(base, sizeof base, "tid%llu", (unsigned long long)st_load64(recs + i * DRM_REC + 4));
            break;
        }
    const char *prefix = in->o && in->o->prefix ? in->o->prefix : "";
    if (strlen(prefix) + strlen(base) > ST_IMP_NAME_MAX)
        return st_diag_set(in->d, ST_E_TOO_LARGE, "stream name prefix too long");
    snprintf(name, sizeof name, "%s%s", prefix, base);
    st_stream_decl decl = {name, ST_TYPE_DRMEMTRACE, UINT32_MAX, NULL, 0};
    RETURN_IF_ERROR(in->sink->add_stream(in->sink->arg, &decl, &in->sid));
    in->declared = 1;
    return ST_OK;
}

/* Append the whole records in the buffer, keeping a partial one; until
 * the stream is named, hold the first DRM_NAME_WINDOW (end: 1, append
 * whatever there is). */
static st_error flush(drm_in *in, int end)
{
    size_t n = in->have / DRM_REC;
    if (n && !in->checked) {
        if (st_load16(in->buf) != DRM_TYPE_HEADER) {
            if (in->d)
                in->d->offset = 0;
            if (memcmp(in->buf, ZIP_MAGIC, 4) == 0) /* only a pipe gets here with one */
                return st_diag_set(in->d, ST_E_NOT_FORMAT, ZIP_NEEDS_FILE);
            return st_diag_set(in->d, ST_E_NOT_FORMAT, "record 0 has type %u, not a drmemtrace header (25)",
                               (unsigned)st_load16(in->buf));
        }
        in->checked = 1;
    }
    if (!in->declared && (n >= DRM_NAME_WINDOW || end))
        RETURN_IF_ERROR(declare(in, in->buf, n));
    if (!in->declared || !n)
        return ST_OK;
    RETURN_IF_ERROR(in->sink->append(in->sink->arg, in->sid, in->buf, n));
    in->st->entries += n;
    memmove(in->buf, in->buf + n * DRM_REC, in->have - n * DRM_REC);
    in->have -= n * DRM_REC;
    return ST_OK;
}

/* The end of the record stream: what was whole is appended; bytes of a
 * record cut off are an error naming it. */
static st_error finish(drm_in *in)
{
    RETURN_IF_ERROR(flush(in, 1));
    if (!in->declared)
        RETURN_IF_ERROR(declare(in, in->buf, 0)); /* an empty trace is a stream of no entries */
    if (in->have) {
        if (in->d)
            in->d->offset = in->st->entries * DRM_REC;
        return st_diag_set(in->d, ST_E_PARTIAL_ENTRY,
                           "record %llu (byte offset %llu of the record stream) is cut off: %zu of its 12 bytes",
                           (unsigned long long)in->st->entries, (unsigned long long)(in->st->entries * DRM_REC),
                           in->have);
    }
    return ST_OK;
}

/* Room in the buffer: append what it holds. */
static st_error room(drm_in *in)
{
    if (in->have < DRM_BUF - DRM_REC)
        return ST_OK;
    return flush(in, 0);
}

/* ---- uncompressed records (a gzip, xz or zstd file arrives so too) -------- */

static st_error read_plain(drm_in *in, int fd)
{
    for (;;) {
        RETURN_IF_ERROR(room(in));
        ssize_t r = read(fd, in->buf + in->have, DRM_BUF - in->have);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (in->d)
                in->d->offset = in->st->bytes;
            return st_diag_set(in->d, ST_E_READ, "read: %s", strerror(errno));
        }
        if (r == 0)
            return ST_OK;
        in->have += (size_t)r;
        in->st->bytes += (uint64_t)r;
    }
}

/* ---- zip archives through minizip, reading the descriptor ---------------- */

typedef struct {
    int fd;
    uint64_t pos, size;
    int err;
} zfd;

static voidpf ZCALLBACK z_open(voidpf opaque, const void *name, int mode)
{
    (void)name;
    (void)mode;
    return opaque; /* the descriptor is open already */
}

static uLong ZCALLBACK z_read(voidpf opaque, voidpf stream, void *buf, uLong size)
{
    (void)opaque;
    zfd *z = stream;
    uLong got = 0;
    while (got < size) {
        ssize_t r = pread(z->fd, (char *)buf + got, size - got, (off_t)(z->pos));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            z->err = errno;
            break;
        }
        if (r == 0)
            break;
        got += (uLong)r;
        z->pos += (uint64_t)r;
    }
    return got;
}

static uLong ZCALLBACK z_write(voidpf opaque, voidpf stream, const void *buf, uLong size)
{
    (void)opaque;
    (void)stream;
    (void)buf;
    (void)size;
    return 0; /* read only */
}

static ZPOS64_T ZCALLBACK z_tell(voidpf opaque, voidpf stream)
{
    (void)opaque;
    return ((zfd *)stream)->pos;
}

static long ZCALLBACK z_seek(voidpf opaque, voidpf stream, ZPOS64_T offset, int origin)
{
    (void)opaque;
    zfd *z = stream;
    uint64_t base = origin == ZLIB_FILEFUNC_SEEK_SET ? 0 : origin == ZLIB_FILEFUNC_SEEK_CUR ? z->pos : z->size;
    if (offset > UINT64_MAX - base)
        return -1;
    z->pos = base + offset;
    return 0;
}

static int ZCALLBACK z_close(voidpf opaque, voidpf stream)
{
    (void)opaque;
    (void)stream;
    return 0; /* the descriptor is the caller's */
}

static int ZCALLBACK z_error(voidpf opaque, voidpf stream)
{
    (void)opaque;
    return ((zfd *)stream)->err != 0;
}

/* A member's read failed with minizip's code r after member_bytes of its
 * data: the error, naming it.  Its bytes not yet appended are dropped (a
 * CRC is checked at a member's end), so the stream keeps the records
 * before it, and those of it that a full buffer had appended already. */
static st_error member_failed(drm_in *in, int r, uint64_t member_bytes, size_t have_before, uint64_t appended_before)
{
    if (in->st->entries == appended_before)
        in->have = have_before;
    else
        in->have -= in->have % DRM_REC;
    if (in->d)
        in->d->offset = ST_DIAG_UNKNOWN; /* in the archive: minizip does not say; the detail gives the record stream's */
    return st_diag_set(in->d, ST_E_CORRUPT,
                       "zip member %s: %s after %llu of its bytes (byte offset %llu of the record stream); records "
                       "kept: %llu",
                       in->member, r == UNZ_CRCERROR ? "CRC mismatch" : "damaged or cut-off data",
                       (unsigned long long)member_bytes, (unsigned long long)(in->member_offset + member_bytes),
                       (unsigned long long)(in->st->entries + in->have / DRM_REC));
}

static st_error read_member(drm_in *in, unzFile uz)
{
    const size_t have_before = in->have;
    const uint64_t appended_before = in->st->entries;
    if (unzOpenCurrentFile(uz) != UNZ_OK)
        return member_failed(in, UNZ_BADZIPFILE, 0, have_before, appended_before);
    uint64_t got = 0;
    st_error e = ST_OK;
    for (;;) {
        if ((e = room(in)) != ST_OK)
            break;
        int r = unzReadCurrentFile(uz, in->buf + in->have, (unsigned)(DRM_BUF - in->have));
        if (r < 0) {
            e = member_failed(in, r, got, have_before, appended_before);
            break;
        }
        if (r == 0)
            break;
        in->have += (size_t)r;
        got += (uint64_t)r;
        in->st->bytes += (uint64_t)r;
    }
    int c = unzCloseCurrentFile(uz);
    if (e == ST_OK && c != UNZ_OK)
        e = member_failed(in, c, got, have_before, appended_before);
    in->member_offset += got;
    return e;
}

static st_error read_zip(drm_in *in, int fd)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
        return st_diag_set(in->d, ST_E_NOT_FORMAT, ZIP_NEEDS_FILE);
    zfd z = {fd, 0, (uint64_t)sb.st_size, 0};
    zlib_filefunc64_def ff = {z_open, z_read, z_write, z_tell, z_seek, z_close, z_error, &z};
    unzFile uz = unzOpen2_64("", &ff);
    if (!uz)
        return st_diag_set(in->d, ST_E_CORRUPT, "not a readable zip archive (no central directory found)");
    char name[DRM_MEMBER_NAME];
    st_error e = ST_OK;
    int r = unzGoToFirstFile(uz);
    for (; r == UNZ_OK && e == ST_OK; r = unzGoToNextFile(uz)) {
        unz_file_info64 info;
        if (unzGetCurrentFileInfo64(uz, &info, name, sizeof name, NULL, 0, NULL, 0) != UNZ_OK) {
            r = UNZ_BADZIPFILE;
            break;
        }
        in->member = name;
        e = read_member(in, uz);
    }
    if (e == ST_OK && r != UNZ_END_OF_LIST_OF_FILE && r != UNZ_OK)
        e = st_diag_set(in->d, ST_E_CORRUPT, "damaged zip directory after member %s", in->member ? in->member : "(none)");
    if (e == ST_OK && !in->member)
        e = st_diag_set(in->d, ST_E_NOT_FORMAT, "a zip archive without members");
    unzClose(uz);
    in->member = NULL;
    return e;
}

st_error st_import_drmemtrace(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                              st_diag *d)
{
    st_import_stats tmp;
    drm_in in = {.o = o, .sink = sink, .st = stats ? stats : &tmp, .d = d};
    memset(in.st, 0, sizeof *in.st);
    if (!(in.buf = malloc(DRM_BUF)))
        return ST_E_NOMEM;
    /* a zip starts with a local file header, "PK\3\4"; a trace with a
     * header record, type 25: they cannot be mistaken */
    uint8_t magic[4];
    ssize_t r = pread(fd, magic, 4, 0);
    int zip = r == 4 && memcmp(magic, ZIP_MAGIC, 4) == 0;
    st_error e = zip ? read_zip(&in, fd) : read_plain(&in, fd);
    if (e == ST_OK)
        e = finish(&in);
    else if (e != ST_E_NOT_FORMAT && in.have >= DRM_REC) {
        /* the whole records before the damage are kept, the error stays */
        st_diag keep;
        if (d)
            keep = *d;
        in.have -= in.have % DRM_REC;
        (void)flush(&in, 1);
        if (d)
            *d = keep;
    }
    free(in.buf);
    return e;
}
