/* Sequential container read: open + read every frame + decode. */
#include "../../frames/container.h"
#include "fuzz_util.h"

static st_error sink(void *arg, const st_stream_info *s, uint64_t first, const uint8_t *e, size_t n)
{
    (void)arg;
    (void)e;
    (void)first;
    if (!s || n == 0 || n > SVPC_MAX_FRAME_ENTRIES)
        abort(); /* the reader must never deliver an empty or oversized frame */
    return ST_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = fuzz_memfd(data, size);
    st_read_opts o = {1, 0};
    st_reader *r = NULL;
    st_diag d;
    if (st_reader_new(&r, fd, &o, &d) == ST_OK)
        st_reader_read_all(r, sink, NULL, &d);
    st_reader_free(r);
    close(fd);
    return 0;
}
