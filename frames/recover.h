/*
 * recover.h - recovery of damaged containers through their index
 * (frame_index.c): the salvage of one stream frame by frame, and the
 * resume of a whole-stream read past another stream's damage.  The
 * decisions (which frames are lost, what was cut off, whether a read can
 * go on) are made here and reported to callbacks; nothing is printed, so
 * simtrace-cat and the public calls (api/api_recover.c) say the same.
 */
#ifndef ST_RECOVER_H
#define ST_RECOVER_H

#include "container.h"

/* What a damage report is about. */
typedef enum {
    ST_DAMAGE_FRAME = 0, /* a frame of the stream does not decode: skipped */
    ST_DAMAGE_CUT = 1,   /* the stream's frame cut off at the end of a file without directory */
    ST_DAMAGE_OTHER = 2, /* another stream's frame, passed over (a resume) */
    ST_DAMAGE_STOP = 3,  /* a failure that ends the call (not a lost frame: I/O, memory; in a resume any) */
} st_damage_kind;

typedef struct {
    st_damage_kind kind;
    const st_frame_ref *f; /* the frame */
    st_error e;            /* what is wrong (CUT: ST_E_TRUNCATED; OTHER: ST_OK, the caller knows) */
    const st_diag *d;      /* where the check failed (all unknown for CUT and OTHER) */
} st_damage;

/* Where a recovery delivers: entries (n of them, the first entry `first`
 * of the stream) in stream order, and damage.  A callback's failure stops
 * the call, which returns it. */
typedef struct {
    st_error (*entries)(void *arg, uint64_t first, const uint8_t *p, size_t n);
    st_error (*damage)(void *arg, const st_damage *dmg);
    void *arg;
} st_recover_cb;

typedef struct {
    uint64_t salvaged;     /* entries delivered */
    uint64_t lost_frames;  /* damaged frames and the cut frame */
    uint64_t lost_entries; /* their entries */
    const st_frame_ref *cut; /* the stream's frame cut off (ix owns it), or NULL */
    int no_directory;      /* the index was read through the frame headers */
} st_salvage_report;

/* The index's state of repair, gathered for a message or a public struct. */
typedef struct {
    int recovered;         /* 1: no valid directory and footer: frames found by scanning */
    uint64_t frames_end;   /* where the listed frames end (complete: the directory's offset) */
    uint64_t file_size;
    uint64_t frames_after; /* complete frames past a damaged header from here (0: none) */
    int tail_lost;         /* st_index_tail_lost */
    uint32_t tail_stream;  /* its stream id, or UINT32_MAX */
    uint64_t tail_offset;  /* where those bytes begin */
    uint64_t frames, entries; /* data frames listed and their entries, all streams */
    st_diag why;           /* recovered: what was wrong with the directory or
                              footer, detail never "" */
} st_recovery;

void st_index_recovery(const st_index *ix, st_recovery *out);

/*
 * Salvage stream si of ix: every frame decoded on its own, so that damage,
 * to a frame's header included, costs that frame only; the entries of the
 * intact frames go to cb->entries in order, each damaged frame to
 * cb->damage (ST_DAMAGE_FRAME) as it is met, the stream's frame cut off at
 * the end of a file without directory last (ST_DAMAGE_CUT).  A failure
 * that is not the frame's (I/O, memory, a memory limit) is reported as
 * ST_DAMAGE_STOP and returned.  *rep says what was done, also on failure.
 * Returns ST_OK; ST_E_STATE (the scan of a file without directory stopped
 * at a damaged frame header that complete frames follow: the index cannot
 * reach them; nothing delivered); the callbacks' errors; ST_E_READ,
 * ST_E_NOMEM, ST_E_MEMLIMIT.
 */
st_error st_salvage(st_index *ix, unsigned si, const st_recover_cb *cb, st_salvage_report *rep);

/*
 * A read of stream si in file order stopped at byte offset `offset` (a
 * damaged frame header, which the sequential reader cannot step over) with
 * the entries before `from` delivered.  When the frame holding that offset
 * is another stream's, it is reported (ST_DAMAGE_OTHER) and the entries of
 * si from `from` on go to cb->entries, frame by frame through the index; a
 * frame that fails then is reported as ST_DAMAGE_STOP (d filled in) and
 * its error returned.  Returns ST_OK; ST_E_NOT_FOUND (no frame holds the
 * offset, or si's own does: nothing reported or delivered); the
 * callbacks' errors; data and I/O errors.
 */
st_error st_resume(st_index *ix, unsigned si, uint64_t offset, uint64_t from, const st_recover_cb *cb, st_diag *d);

#endif /* ST_RECOVER_H */
