/* api_write.c - the writer of the public API (include/simtrace.h) over
 * the container writer of frames/. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../formats/entry.h"
#include "api_internal.h"

SIMTRACE_API void simtrace_write_params_init(simtrace_write_params *p)
{
    if (!p)
        return;
    memset(p, 0, sizeof *p);
    p->threads = 1;
    p->profile = SIMTRACE_PROFILE_DEFAULT;
}

/* The public limits are the container's and the codec's. */
_Static_assert(SIMTRACE_THREADS_MAX == ST_MAX_THREADS && SIMTRACE_FRAME_ENTRIES_MAX == SVPC_MAX_FRAME_ENTRIES &&
                   SIMTRACE_FILE_HEADER_SIZE == ST_FILE_HEADER_SIZE,
               "simtrace.h's limits differ from the library's");

/* The codec's second stage of each simtrace_stage. */
static const svpc_stage stages[] = {SVPC_STAGE_LZMA, SVPC_STAGE_LZMA, SVPC_STAGE_BZIP2, SVPC_STAGE_ZLIB,
                                    SVPC_STAGE_NONE};

SIMTRACE_API simtrace_error simtrace_stage_parse(const char *name, uint32_t *stage)
{
    svpc_stage s;
    if (!name || !stage || !svpc_stage_parse(name, &s))
        return SIMTRACE_E_USAGE;
    uint32_t i = SIMTRACE_STAGE_LZMA; /* (DEFAULT is lzma too, without a name) */
    while (stages[i] != s)
        i++;
    *stage = i;
    return SIMTRACE_OK;
}

/* The encoder named name into *enc: 1 when it may name a writer's
 * profile, 0 when it cannot (vpc codes VPC pairs only), -1 when no encoder
 * has that name. */
static int encoder_named(const char *name, svpc_encoder *enc)
{
    if (!svpc_encoder_parse(name, enc))
        return -1;
    return *enc != SVPC_ENC_VPC;
}

SIMTRACE_API simtrace_error simtrace_encoder_check(const char *name, int *profile)
{
    svpc_encoder enc;
    int named = name ? encoder_named(name, &enc) : -1;
    if (named < 0)
        return SIMTRACE_E_USAGE;
    if (profile)
        *profile = named;
    return SIMTRACE_OK;
}

/* The codec settings of p (svpc_method(): the one table of levels): an
 * encoder named by a profile other than "default" ("fast": the fast
 * encoder; "compat": cm1, what svpc 0.1 reads) or by its own name takes
 * p's level as its own; without one, the level chooses the method.
 * *named_enc: 1 when an encoder was named. */
static int profile_params(const simtrace_write_params *p, svpc_params *out, int *named_enc)
{
    static const struct {
        const char *name;
        svpc_encoder enc; /* 0: the level's */
    } named[] = {{"default", 0}, {"fast", SVPC_ENC_FAST}, {"compat", SVPC_ENC_CM1}};
    if (p->stage > SIMTRACE_STAGE_NONE || p->level > 9)
        return 0;
    svpc_encoder enc = 0;
    if (p->profile_name) {
        unsigned i = 0;
        while (i < sizeof named / sizeof named[0] && strcmp(p->profile_name, named[i].name) != 0)
            i++;
        if (i < sizeof named / sizeof named[0])
            enc = named[i].enc;
        else if (encoder_named(p->profile_name, &enc) != 1)
            return 0;
    } else {
        if (p->profile > SIMTRACE_PROFILE_COMPAT)
            return 0;
        enc = named[p->profile].enc;
    }
    *out = svpc_method(enc, p->stage != 0, stages[p->stage], (int)p->level);
    *named_enc = enc != 0;
    return 1;
}

SIMTRACE_API const char *simtrace_write_params_unused(const simtrace_write_params *p, int type, const char **encoder)
{
    svpc_params sp;
    int named_enc;
    if (!p || !profile_params(p, &sp, &named_enc) || type <= ST_TYPE_NONE || type > ST_TYPE_LAST)
        return NULL;
    sp = api_stream_params(sp, (st_entry_type)type);
    if (encoder)
        *encoder = svpc_encoder_name(sp.encoder);
    /* a level without an encoder named chooses the method: it always applies */
    return svpc_options_unused(sp.encoder, p->stage != 0, sp.stage, named_enc && p->level != 0);
}

static st_error io_write(void *arg, const uint8_t *p, size_t n)
{
    simtrace_writer *w = arg;
    return w->io.write(w->io.opaque, p, n) == 0 ? ST_OK : ST_E_WRITE;
}

simtrace_error api_writer_prepare(simtrace_writer **out, const simtrace_write_params *pp, const char *path, int flags,
                                  simtrace_error open_error, int fd, simtrace_writer **wp, st_write_opts *o)
{
    if (!out)
        return SIMTRACE_E_USAGE;
    *out = NULL;
    simtrace_write_params def;
    if (!pp) {
        simtrace_write_params_init(&def);
        pp = &def;
    }
    svpc_params sp;
    int named_enc;
    if (!profile_params(pp, &sp, &named_enc) || pp->threads > ST_MAX_THREADS || pp->frame_entries > SVPC_MAX_FRAME_ENTRIES ||
        pp->timestamps > 1 || pp->check_cycles > 1)
        return SIMTRACE_E_USAGE;
    api_alloc al;
    api_alloc_init(&al, pp->allocator);
    simtrace_writer *w = api_calloc(&al, sizeof *w);
    if (!w)
        return SIMTRACE_E_NOMEM;
    w->al = al;
    w->params = sp;
    w->fd = fd;
    if (path) {
        w->fd = open(path, flags, 0666);
        if (w->fd < 0) {
            API_KEEP_ERRNO(simtrace_writer_free(w));
            return open_error;
        }
        w->own_fd = 1;
    }
    /* frame_entries 0: each stream's encoder chooses (st_write_opts) */
    *o = (st_write_opts){pp->threads ? pp->threads : 1, pp->frame_entries, (int)pp->timestamps,
                         (int)pp->check_cycles};
    *wp = w;
    return SIMTRACE_OK;
}

/* Create the handle; exactly one of path, fd >= 0, io is the output. */
static simtrace_error create(simtrace_writer **out, const char *path, int fd, const simtrace_write_io *io,
                             const simtrace_write_params *pp)
{
    simtrace_writer *w;
    st_write_opts o;
    simtrace_error pe = api_writer_prepare(out, pp, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, SIMTRACE_E_WRITE,
                                           fd, &w, &o);
    if (pe != SIMTRACE_OK)
        return pe;
    st_error e;
    if (io) {
        w->io = *io;
        e = st_writer_new_out(&w->w, io_write, w, -1, &o);
    } else {
        e = st_writer_new(&w->w, w->fd, &o);
    }
    if (e != ST_OK) {
        API_KEEP_ERRNO(simtrace_writer_free(w));
        return api_error(e);
    }
    *out = w;
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_writer_create_path(simtrace_writer **w, const char *path,
                                                        const simtrace_write_params *params)
{
    if (!path)
        return SIMTRACE_E_USAGE;
    return create(w, path, -1, NULL, params);
}

SIMTRACE_API simtrace_error simtrace_writer_create_fd(simtrace_writer **w, int fd, const simtrace_write_params *params)
{
    if (fd < 0)
        return SIMTRACE_E_USAGE;
    return create(w, NULL, fd, NULL, params);
}

SIMTRACE_API simtrace_error simtrace_writer_create_io(simtrace_writer **w, const simtrace_write_io *io,
                                                      const simtrace_write_params *params)
{
    if (!io || !io->write)
        return SIMTRACE_E_USAGE;
    return create(w, NULL, -1, io, params);
}

/* A writer that may take more: open, not failed. */
simtrace_error api_writer_usable(simtrace_writer *w)
{
    if (!w)
        return SIMTRACE_E_USAGE;
    w->msg[0] = 0;
    if (w->closed) {
        snprintf(w->msg, sizeof w->msg, "the trace is closed");
        return SIMTRACE_E_STATE;
    }
    if (w->failed) {
        snprintf(w->msg, sizeof w->msg, "the writer failed before (%s) and takes nothing more",
                 st_error_name(w->failed));
        return SIMTRACE_E_STATE;
    }
    return SIMTRACE_OK;
}

/* A failure of the container writer: everything but a cycle out of order
 * leaves it unusable. */
simtrace_error api_writer_fail(simtrace_writer *w, st_error e, const st_diag *d)
{
    if (e != ST_E_CYCLE_ORDER && e != ST_E_USAGE)
        w->failed = e;
    return api_fail(w->msg, e, d);
}

simtrace_error api_writer_add(simtrace_writer *w, const st_stream_spec *sp, uint32_t *id)
{
    simtrace_error pe = api_writer_usable(w);
    if (pe != SIMTRACE_OK)
        return pe;
    uint32_t dup;
    if (!sp->name || !id)
        return SIMTRACE_E_USAGE;
    if (st_writer_find_stream(w->w, sp->name, &dup)) {
        snprintf(w->msg, sizeof w->msg, "a stream named '%.255s' exists", sp->name);
        return SIMTRACE_E_USAGE;
    }
    /* every stream of the container writer has its record (a reopened
     * container's too: simtrace_writer_reopen_*), so the new one is next */
    if (w->ns >= w->cap) {
        uint32_t nc = w->cap ? 2 * w->cap : 8;
        api_wstream *ns = api_malloc(&w->al, nc * sizeof *ns);
        if (!ns)
            return SIMTRACE_E_NOMEM;
        if (w->ns)
            memcpy(ns, w->s, w->ns * sizeof *ns);
        api_free(&w->al, w->s);
        w->s = ns;
        w->cap = nc;
    }
    uint32_t sid;
    st_error e = st_writer_add_stream_spec(w->w, sp, &sid);
    if (e != ST_OK)
        return api_writer_fail(w, e, NULL);
    w->s[sid].vdata = UINT32_MAX;
    snprintf(w->s[sid].name, sizeof w->s[sid].name, "%s", sp->name);
    w->ns = sid + 1;
    /* a block stream added with its owner (by an importer, a concatenation
     * or simtrace_writer_write_wide) serves the owner's wide values written
     * later: write_wide must not declare a second companion */
    if (sp->type == ST_TYPE_VBLOCK && sp->owner < w->ns && w->s[sp->owner].vdata == UINT32_MAX)
        w->s[sp->owner].vdata = sid;
    *id = sid;
    return SIMTRACE_OK;
}

st_error api_writer_take(simtrace_writer *w, const st_stream_spec *sp, uint32_t *sid, st_diag *d)
{
    if (st_writer_find_stream(w->w, sp->name, sid)) {
        size_t esz;
        st_entry_type t = st_writer_stream_type(w->w, *sid, NULL, &esz);
        size_t want = sp->type == ST_TYPE_USER ? sp->entry_size : st_entry_size(sp->type);
        if (t != sp->type || esz != want)
            return st_diag_set(d, ST_E_BAD_STREAM, "stream '%s' already holds %s entries of %zu bytes, not %s",
                               sp->name, st_entry_name(t), esz, st_entry_name(sp->type));
        return ST_OK;
    }
    simtrace_error e = api_writer_add(w, sp, sid);
    if (e == SIMTRACE_E_USAGE)
        return st_diag_set(d, ST_E_USAGE, "cannot declare stream '%s' of type %s", sp->name,
                           st_entry_name(sp->type));
    return (st_error)e;
}

/* The built-in types a caller may declare: vblock streams are the
 * library's (simtrace_writer_write_wide), user types have their own call. */
static int declarable(int type)
{
    return (type >= SIMTRACE_TYPE_D64 && type <= SIMTRACE_TYPE_EVENT && type != SIMTRACE_TYPE_VBLOCK) ||
           type == SIMTRACE_TYPE_DRMEMTRACE;
}

SIMTRACE_API simtrace_error simtrace_writer_add_stream(simtrace_writer *w, const char *name, int type, uint32_t *id)
{
    if (!w || !declarable(type))
        return SIMTRACE_E_USAGE;
    st_stream_spec sp = {.name = name, .type = (st_entry_type)type, .owner = UINT32_MAX};
    /* the profile chooses the encoder of the types it codes; the others
     * take the level's (api_level_encoder), or are coded generically, with
     * the profile's second stage */
    sp.params = w->params;
    if (!svpc_encoder_supports(sp.params.encoder, sp.type))
        sp.params.encoder = api_level_encoder(sp.params, sp.type);
    return api_writer_add(w, &sp, id);
}

SIMTRACE_API simtrace_error simtrace_writer_add_user_stream(simtrace_writer *w, const char *name,
                                                            const uint8_t guid[16], uint32_t entry_size,
                                                            const char *type_name, uint32_t *id)
{
    if (!w || !guid)
        return SIMTRACE_E_USAGE;
    st_stream_spec sp = {.name = name, .type = ST_TYPE_USER, .guid = guid, .entry_size = entry_size,
                         .type_name = type_name, .owner = UINT32_MAX};
    sp.params = (svpc_params){SVPC_ENC_GENERIC, w->params.stage, w->params.level};
    return api_writer_add(w, &sp, id);
}

SIMTRACE_API simtrace_error simtrace_writer_write(simtrace_writer *w, uint32_t id, const void *entries, size_t count)
{
    simtrace_error pe = api_writer_usable(w);
    if (pe != SIMTRACE_OK)
        return pe;
    if (id >= w->ns || (!entries && count)) {
        snprintf(w->msg, sizeof w->msg, "no stream %u (the trace has %u)", id, w->ns);
        return SIMTRACE_E_USAGE;
    }
    if (count == 0)
        return SIMTRACE_OK;
    st_error e = st_writer_append(w->w, id, entries, count);
    return e == ST_OK ? SIMTRACE_OK : api_writer_fail(w, e, e == ST_E_CYCLE_ORDER ? st_writer_diag(w->w) : NULL);
}

SIMTRACE_API simtrace_error simtrace_writer_write_wide(simtrace_writer *w, uint32_t id, const void *entry,
                                                       const void *value, size_t len)
{
    simtrace_error pe = api_writer_usable(w);
    if (pe != SIMTRACE_OK)
        return pe;
    if (id >= w->ns || !entry || !value || len == 0 || len > ST_VALUE_MAX)
        return SIMTRACE_E_USAGE;
    st_entry_type t = st_writer_stream_type(w->w, id, NULL, NULL);
    /* the value must be wider than the data field's value half */
    size_t half = t == ST_TYPE_D64 ? 4 : t == ST_TYPE_D32 ? 2 : 0;
    if (!half || len <= half) {
        snprintf(w->msg, sizeof w->msg, "a wide value needs a d64 (more than 4 bytes) or d32 (more than 2 bytes) "
                 "stream");
        return SIMTRACE_E_USAGE;
    }
    if (w->s[id].vdata == UINT32_MAX) {
        /* the companion is named after its owner (SIMTRACE.md 9.2) */
        char name[ST_MAX_NAME + 8];
        snprintf(name, sizeof name, "%s.vdata", w->s[id].name);
        if (strlen(name) > ST_MAX_NAME) {
            snprintf(w->msg, sizeof w->msg, "stream '%s': its name is too long for a '.vdata' companion",
                     w->s[id].name);
            return SIMTRACE_E_USAGE;
        }
        st_stream_spec sp = {.name = name, .type = ST_TYPE_VBLOCK, .owner = id};
        sp.params = (svpc_params){SVPC_ENC_GENERIC, w->params.stage, w->params.level};
        uint32_t vs;
        simtrace_error ae = api_writer_add(w, &sp, &vs);
        if (ae != SIMTRACE_OK)
            return ae;
    }
    /* the owner entry first: its index names the blocks */
    uint64_t owner = st_writer_stream_entries(w->w, id);
    size_t esz;
    (void)st_writer_stream_type(w->w, id, NULL, &esz);
    uint8_t e8[32];
    memcpy(e8, entry, esz);
    st_entry en;
    st_entry_load(t, e8, &en);
    const uint8_t *v = value;
    uint64_t low = 0;
    for (size_t b = 0; b < half; b++)
        low |= (uint64_t)v[b] << (8 * b);
    en.meta16 &= ~UINT64_C(1); /* fullSize 0: the size is in the data field */
    en.data = (uint64_t)len << (8 * half) | low;
    st_entry_store(t, e8, &en);
    simtrace_error we = simtrace_writer_write(w, id, e8, 1);
    if (we != SIMTRACE_OK)
        return we;
    uint8_t blocks[(ST_VALUE_MAX / ST_VBLOCK_BYTES + 1) * ST_VBLOCK_SIZE];
    st_vblock_split(owner, value, len, blocks);
    return simtrace_writer_write(w, w->s[id].vdata, blocks, st_vblock_count(len));
}

SIMTRACE_API simtrace_error simtrace_writer_flush(simtrace_writer *w)
{
    simtrace_error pe = api_writer_usable(w);
    if (pe != SIMTRACE_OK)
        return pe;
    st_error e = st_writer_flush(w->w);
    return e == ST_OK ? SIMTRACE_OK : api_writer_fail(w, e, NULL);
}

SIMTRACE_API simtrace_error simtrace_writer_close(simtrace_writer *w)
{
    simtrace_error pe = api_writer_usable(w);
    if (pe != SIMTRACE_OK)
        return pe;
    st_error e = st_writer_finish(w->w);
    if (e != ST_OK)
        return api_writer_fail(w, e, NULL);
    w->closed = 1;
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_writer_entries(const simtrace_writer *w, uint32_t id, uint64_t *entries,
                                                    uint64_t *bytes)
{
    if (!w || (id != UINT32_MAX && id >= w->ns))
        return SIMTRACE_E_USAGE;
    st_write_stats st;
    st_writer_stats(w->w, &st);
    if (entries)
        *entries = id == UINT32_MAX ? st.entries : st_writer_stream_entries(w->w, id);
    if (bytes)
        *bytes = st.out_bytes;
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_writer_stats(const simtrace_writer *w, simtrace_write_stats *s)
{
    if (!w || !s)
        return SIMTRACE_E_USAGE;
    st_write_stats st;
    st_writer_stats(w->w, &st);
    *s = (simtrace_write_stats){st.entries, st.raw_bytes, st.out_bytes, st.frames, st.entries_written, {0}};
    return SIMTRACE_OK;
}

SIMTRACE_API simtrace_error simtrace_writer_stream_coding(const simtrace_writer *w, uint32_t id, int *type,
                                                          const char **encoder)
{
    uint16_t enc;
    st_entry_type t = w ? st_writer_stream_type(w->w, id, &enc, NULL) : ST_TYPE_NONE;
    const char *name = t != ST_TYPE_NONE ? svpc_encoder_name((svpc_encoder)enc) : NULL;
    if (!name)
        return SIMTRACE_E_USAGE;
    if (type)
        *type = (int)t;
    if (encoder)
        *encoder = name;
    return SIMTRACE_OK;
}

SIMTRACE_API const char *simtrace_writer_message(const simtrace_writer *w) { return w ? w->msg : ""; }

SIMTRACE_API void simtrace_writer_free(simtrace_writer *w)
{
    if (!w)
        return;
    st_writer_free(w->w);
    if (w->own_fd)
        close(w->fd);
    api_alloc al = w->al;
    api_free(&al, w->s);
    api_free(&al, w);
}

st_writer *api_writer_core(simtrace_writer *w) { return w->w; }

char *api_writer_msg(simtrace_writer *w) { return w->msg; }

svpc_params api_writer_params(const simtrace_writer *w) { return w->params; }

svpc_encoder api_level_encoder(svpc_params p, st_entry_type t)
{
    svpc_encoder l = svpc_method(0, 1, p.stage, (int)p.level).encoder;
    return t != ST_TYPE_USER && svpc_encoder_supports(l, t) ? l : SVPC_ENC_GENERIC;
}

svpc_params api_stream_params(svpc_params p, st_entry_type t)
{
    if (t == ST_TYPE_CVP && !svpc_encoder_supports(p.encoder, t))
        p.encoder = SVPC_ENC_CVP; /* the encoder made for it, unless generic was asked for */
    if (t == ST_TYPE_USER || !svpc_encoder_supports(p.encoder, t))
        p.encoder = t == ST_TYPE_VPC                                    ? SVPC_ENC_VPC
                    : t == ST_TYPE_DRMEMTRACE                           ? SVPC_ENC_DRMX
                    : t == ST_TYPE_CHAMPSIM || t == ST_TYPE_CHAMPSIM_CS  ? SVPC_ENC_CHAMPSIM
                                                                       : api_level_encoder(p, t);
    return p;
}
