/* Random access: open through footer and directory, decode every data frame
 * in reverse order (the order must not matter). */
#include "../../frames/container.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = fuzz_memfd(data, size);
    st_index *ix = NULL;
    st_diag d;
    if (st_index_open(&ix, fd, &d) == ST_OK) {
        st_buf out;
        st_buf_init(&out, 0);
        for (uint64_t k = st_index_frame_count(ix); k-- > 0;) {
            const st_frame_ref *r = st_index_frame(ix, k);
            if (r->kind == 1 && st_index_decode_frame(ix, k, &out, &d) == ST_OK) {
                const st_stream_info *s = NULL;
                for (unsigned i = 0; i < st_index_stream_count(ix); i++)
                    if (st_index_stream(ix, i)->id == r->stream)
                        s = st_index_stream(ix, i);
                if (!s || out.len != r->count * s->entry_size)
                    abort();
            }
        }
        st_buf_free(&out);
    }
    st_index_free(ix);
    close(fd);
    return 0;
}
