/* recover.c - salvage and resume through the index (recover.h). */
#include <stdio.h>
#include <string.h>

#include "recover.h"

void st_index_recovery(const st_index *ix, st_recovery *out)
{
    memset(out, 0, sizeof *out);
    st_diag_clear(&out->why);
    out->recovered = st_index_recovered(ix, &out->frames_end, &out->why);
    if (out->recovered && !out->why.detail[0])
        snprintf(out->why.detail, sizeof out->why.detail, "%s", st_error_name(ST_E_BAD_FOOTER));
    out->file_size = st_index_file_size(ix);
    out->frames_after = st_index_frames_after(ix);
    out->tail_lost = st_index_tail_lost(ix, &out->tail_stream, &out->tail_offset);
    for (unsigned i = 0; i < st_index_stream_count(ix); i++) {
        out->entries += st_index_stream(ix, i)->entries;
        out->frames += st_index_stream(ix, i)->frames;
    }
}

static st_error report(const st_recover_cb *cb, st_damage_kind kind, const st_frame_ref *f, st_error e,
                       const st_diag *d)
{
    st_diag none;
    if (!d) {
        st_diag_clear(&none);
        d = &none;
    }
    st_damage dm = {kind, f, e, d};
    return cb->damage(cb->arg, &dm);
}

st_error st_salvage(st_index *ix, unsigned si, const st_recover_cb *cb, st_salvage_report *rep)
{
    memset(rep, 0, sizeof *rep);
    rep->no_directory = st_index_recovered(ix, NULL, NULL);
    /* the frames after the damaged header are not listed: a salvage
     * through the index would pass them for lost, so it does not start */
    if (st_index_frames_after(ix))
        return ST_E_STATE;
    const st_stream_info *s = st_index_stream(ix, si);
    if (!s)
        return ST_E_RANGE;
    st_buf buf;
    st_buf_init(&buf, 0);
    st_diag d;
    st_error e = ST_OK;
    uint64_t nf = st_index_stream_frames(ix, si);
    for (uint64_t j = 0; j < nf && e == ST_OK; j++) {
        const st_frame_ref *r = st_index_stream_frame(ix, si, j);
        st_diag_clear(&d);
        e = st_index_decode_frame(ix, r->ordinal, &buf, &d);
        /* the frame's own damage costs the frame; a limit the caller set,
         * or a failure of the machine, would cost every frame after it */
        if (e != ST_OK && st_error_is_data(e) && e != ST_E_MEMLIMIT) {
            rep->lost_frames++;
            rep->lost_entries += r->count;
            e = report(cb, ST_DAMAGE_FRAME, r, e, &d);
            continue;
        }
        if (e != ST_OK) {
            report(cb, ST_DAMAGE_STOP, r, e, &d);
            break;
        }
        e = cb->entries(cb->arg, r->first_entry, buf.data, (size_t)r->count);
        if (e == ST_OK)
            rep->salvaged += r->count;
    }
    st_buf_free(&buf);
    const st_frame_ref *cut = st_index_cut_frame(ix);
    if (e == ST_OK && cut && cut->stream == s->id) {
        rep->cut = cut;
        rep->lost_frames++;
        rep->lost_entries += cut->count;
        e = report(cb, ST_DAMAGE_CUT, cut, ST_E_TRUNCATED, NULL);
    }
    return e;
}

st_error st_resume(st_index *ix, unsigned si, uint64_t offset, uint64_t from, const st_recover_cb *cb, st_diag *d)
{
    const st_stream_info *s = st_index_stream(ix, si);
    const st_frame_ref *bad = NULL;
    for (uint64_t k = 0; s && offset != ST_DIAG_UNKNOWN && k < st_index_frame_count(ix) && !bad; k++) {
        const st_frame_ref *r = st_index_frame(ix, k);
        if (r->offset <= offset && offset - r->offset < r->size)
            bad = r;
    }
    /* the stream's own damage: the frames after it are not known whole */
    if (!bad || bad->stream == s->id)
        return ST_E_NOT_FOUND;
    st_error e = report(cb, ST_DAMAGE_OTHER, bad, ST_OK, NULL);
    st_buf buf;
    st_buf_init(&buf, 0);
    for (uint64_t j = 0; j < st_index_stream_frames(ix, si) && e == ST_OK; j++) {
        const st_frame_ref *r = st_index_stream_frame(ix, si, j);
        if (r->first_entry + r->count <= from)
            continue;
        st_diag_clear(d);
        e = st_index_decode_frame(ix, r->ordinal, &buf, d);
        if (e != ST_OK) {
            report(cb, ST_DAMAGE_STOP, r, e, d);
            break;
        }
        uint64_t skip = from > r->first_entry ? from - r->first_entry : 0;
        e = cb->entries(cb->arg, r->first_entry + skip, buf.data + skip * s->entry_size, (size_t)(r->count - skip));
    }
    st_buf_free(&buf);
    return e;
}
