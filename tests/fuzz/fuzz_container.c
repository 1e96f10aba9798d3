/* Sequential container read: open + read every frame + decode; then the
 * same as a salvage (every damaged frame reported and passed over, past
 * damaged frame headers too: st_read_opts.resync). */
#include <string.h>

#include "../../frames/container.h"
#include "fuzz_util.h"

/* Where each of the first streams' deliveries has reached: a salvage
 * passes over entries, never delivers one twice or out of order. */
#define TRACKED 64
typedef struct {
    uint64_t end[TRACKED];
} track;

static st_error sink(void *arg, const st_stream_info *s, uint64_t first, const uint8_t *e, size_t n)
{
    track *t = arg;
    (void)e;
    if (!s || n == 0 || n > SVPC_MAX_FRAME_ENTRIES)
        abort(); /* the reader must never deliver an empty or oversized frame */
    if (t && s->id < TRACKED) {
        if (first < t->end[s->id])
            abort();
        t->end[s->id] = first + n;
    }
    return ST_OK;
}

static st_error damage(void *arg, const st_stream_info *s, const st_frame_ref *f, st_error e, const st_diag *d)
{
    (void)arg;
    (void)d;
    if (!st_error_is_data(e) || (!s && f->size == 0 && f->count == 0))
        abort(); /* damage is bad data; bytes passed over, or frames lost, are some */
    return ST_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int salvage = 0; salvage <= 1; salvage++) {
        int fd = fuzz_memfd(data, size);
        track t;
        memset(&t, 0, sizeof t);
        st_read_opts o = {.threads = 1, .on_damage = salvage ? damage : NULL, .resync = salvage};
        st_reader *r = NULL;
        st_diag d;
        if (st_reader_new(&r, fd, &o, &d) == ST_OK)
            st_reader_read_all(r, sink, salvage ? &t : NULL, &d);
        st_reader_free(r);
        close(fd);
    }
    return 0;
}
