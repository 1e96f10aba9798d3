/* The public API (include/simtrace.h) on its own: only <simtrace.h> is
 * included, as a user of the installed library would.  Writes traces
 * through a path, a descriptor and callbacks; reads them back with random
 * access and sequentially (a pipe, callbacks); ranges, lookups, cursors
 * and wide values are compared with the entries written, computed here by
 * brute force; and the error paths: calls out of order, a closed trace, a
 * short buffer, a stream name not found, bad arguments. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../include/simtrace.h"
#include "check.h"

#define N_READ 2500u  /* entries of cpu0.read */
#define N_WRITE 1700u /* entries of cpu0.write */
#define FRAME 300u    /* entries per frame: many frames */
#define WIDE_EVERY 97u /* every 97th write entry is a wide (16-byte) access */

static uint8_t rd_raw[N_READ * 32], wr_raw[N_WRITE * 32];
static uint8_t wide_val[N_WRITE][16];

/* A toy simulation: reads and writes of a loop over two arrays; cycles
 * never decrease; some writes carry a 16-byte value. */
static void make_entries(void)
{
    unsigned long long seed = 12345;
    for (unsigned i = 0; i < N_READ; i++) {
        simtrace_entry e = {10 + 3 * (uint64_t)i, 1, 0x401000 + 4 * (i % 7), 0x7f0000 + 8 * (i % 300),
                            check_rand(&seed) & 0xffff};
        simtrace_entry_pack(SIMTRACE_TYPE_D64, &e, rd_raw + 32 * i);
    }
    for (unsigned i = 0; i < N_WRITE; i++) {
        simtrace_entry e = {11 + 4 * (uint64_t)i, 1, 0x402000 + 4 * (i % 5), 0x800000 + 8 * i, i};
        if (i % WIDE_EVERY == 0) {
            for (unsigned b = 0; b < 16; b++)
                wide_val[i][b] = (uint8_t)(i * 7 + b);
            e.meta16 = 0;
            e.data = (uint64_t)16 << 32 | (wide_val[i][0] | wide_val[i][1] << 8 | wide_val[i][2] << 16 |
                                           (uint64_t)wide_val[i][3] << 24);
        }
        simtrace_entry_pack(SIMTRACE_TYPE_D64, &e, wr_raw + 32 * i);
    }
}

static const uint8_t USER_GUID[16] = {0x51, 0x7e, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66,
                                      0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee};

/* Counts what goes through the caller's allocator. */
static struct {
    long allocs, frees;
} counted;
static void *count_alloc(void *opaque, size_t n)
{
    (void)opaque;
    __atomic_add_fetch(&counted.allocs, 1, __ATOMIC_RELAXED);
    return malloc(n);
}
static void count_free(void *opaque, void *p)
{
    (void)opaque;
    if (p)
        __atomic_add_fetch(&counted.frees, 1, __ATOMIC_RELAXED);
    free(p);
}

/* count_alloc, or NULL while refuse_allocs is set. */
static int refuse_allocs;
static void *refusing_alloc(void *opaque, size_t n) { return refuse_allocs ? NULL : count_alloc(opaque, n); }

/* An allocator whose free sets errno, as a logging one might: the opens
 * promise the system's reason in errno, past their own cleanup. */
static void *plain_alloc(void *opaque, size_t n)
{
    (void)opaque;
    return malloc(n);
}
static void clobbering_free(void *opaque, void *p)
{
    (void)opaque;
    free(p);
    errno = EBADF;
}

static void test_open_errno(const char *dir)
{
    simtrace_allocator al = {plain_alloc, clobbering_free, NULL};
    simtrace_read_params rp;
    simtrace_read_params_init(&rp);
    rp.allocator = &al;
    simtrace_reader *r;
    errno = 0;
    CHECK(simtrace_reader_open_path(&r, "/nonexistent.sim", &rp) == SIMTRACE_E_READ && r == NULL &&
          errno == ENOENT);
    errno = 0;
    CHECK(simtrace_reader_open_path(&r, dir, &rp) == SIMTRACE_E_READ && r == NULL && errno == EISDIR);
    int fd = open(dir, O_RDONLY);
    errno = 0;
    CHECK(fd >= 0 && simtrace_reader_open_fd(&r, fd, &rp) == SIMTRACE_E_READ && r == NULL && errno == EISDIR);
    close(fd);
    simtrace_write_params wp;
    simtrace_write_params_init(&wp);
    wp.allocator = &al;
    simtrace_writer *w;
    errno = 0;
    CHECK(simtrace_writer_create_path(&w, "/nonexistent-dir/x.sim", &wp) == SIMTRACE_E_WRITE && w == NULL &&
          errno == ENOENT);
    errno = 0;
    CHECK(simtrace_writer_create_path(&w, dir, &wp) == SIMTRACE_E_WRITE && w == NULL && errno == EISDIR);
}

/* Write the test trace through w; returns 0 on success. */
static int write_trace(simtrace_writer *w)
{
    uint32_t rs, ws, us;
    int bad = 0;
    bad |= simtrace_writer_add_stream(w, "cpu0.read", SIMTRACE_TYPE_D64, &rs) != SIMTRACE_OK;
    bad |= simtrace_writer_add_stream(w, "cpu0.write", SIMTRACE_TYPE_D64, &ws) != SIMTRACE_OK;
    bad |= simtrace_writer_add_user_stream(w, "cpu0.regs", USER_GUID, 12, "regs", &us) != SIMTRACE_OK;
    bad |= rs != 0 || ws != 1 || us != 2;
    /* interleaved, in uneven pieces, with a flush in between */
    unsigned r = 0, x = 0;
    while (r < N_READ || x < N_WRITE) {
        unsigned k = r < N_READ ? (N_READ - r < 133 ? N_READ - r : 133) : 0;
        bad |= simtrace_writer_write(w, rs, rd_raw + 32 * r, k) != SIMTRACE_OK;
        r += k;
        for (unsigned j = 0; j < 61 && x < N_WRITE; j++, x++) {
            if (x % WIDE_EVERY == 0)
                bad |= simtrace_writer_write_wide(w, ws, wr_raw + 32 * x, wide_val[x], 16) != SIMTRACE_OK;
            else
                bad |= simtrace_writer_write(w, ws, wr_raw + 32 * x, 1) != SIMTRACE_OK;
        }
        if (r == 1330)
            bad |= simtrace_writer_flush(w) != SIMTRACE_OK;
    }
    uint8_t regs[12 * 10];
    for (unsigned i = 0; i < sizeof regs; i++)
        regs[i] = (uint8_t)i;
    bad |= simtrace_writer_write(w, us, regs, 10) != SIMTRACE_OK;
    return bad;
}

static void fill_params(simtrace_write_params *p, unsigned threads)
{
    simtrace_write_params_init(p);
    p->threads = threads;
    p->frame_entries = FRAME;
}

static void test_common(void)
{
    CHECK(simtrace_version() == SIMTRACE_VERSION);
    CHECK(strcmp(simtrace_version_string(), SIMTRACE_VERSION_STRING) == 0); /* the library linked is the header's */
    char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", SIMTRACE_VERSION_MAJOR, SIMTRACE_VERSION_MINOR, SIMTRACE_VERSION_PATCH);
    CHECK(strcmp(v, SIMTRACE_VERSION_STRING) == 0);
    /* every value has its own message; unknown ones one of their own */
    for (int e = SIMTRACE_OK; e <= SIMTRACE_E_BUFFER; e++) {
        CHECK(simtrace_strerror(e) != NULL && strcmp(simtrace_strerror(e), "unknown error") != 0);
        for (int f = SIMTRACE_OK; f < e; f++)
            CHECK(strcmp(simtrace_strerror(e), simtrace_strerror(f)) != 0);
    }
    CHECK(strcmp(simtrace_strerror(-1), "unknown error") == 0);
    CHECK(strcmp(simtrace_strerror(SIMTRACE_E_BUFFER + 1), "unknown error") == 0);
    CHECK(strcmp(simtrace_strerror(SIMTRACE_E_NOT_FOUND), "no stream of that name") == 0);
    CHECK(simtrace_error_is_data(SIMTRACE_E_PAYLOAD_CRC) && !simtrace_error_is_data(SIMTRACE_E_WRITE) &&
          !simtrace_error_is_data(SIMTRACE_E_NOT_FOUND));
    /* simtrace_error_name spells each value as the header does, and ends
     * with NULL past the last: a binding lists the values from 0 up */
#define NAMED(x) {x, #x}
    static const struct {
        int e;
        const char *name;
    } names[] = {NAMED(SIMTRACE_OK), NAMED(SIMTRACE_E_NOMEM), NAMED(SIMTRACE_E_MEMLIMIT), NAMED(SIMTRACE_E_USAGE),
                 NAMED(SIMTRACE_E_READ), NAMED(SIMTRACE_E_WRITE), NAMED(SIMTRACE_E_SEEK),
                 NAMED(SIMTRACE_E_BAD_MAGIC), NAMED(SIMTRACE_E_VERSION), NAMED(SIMTRACE_E_TRUNCATED),
                 NAMED(SIMTRACE_E_HEADER_CRC), NAMED(SIMTRACE_E_PAYLOAD_CRC), NAMED(SIMTRACE_E_ENTRY_CRC),
                 NAMED(SIMTRACE_E_CORRUPT), NAMED(SIMTRACE_E_BAD_FRAME), NAMED(SIMTRACE_E_BAD_ATTR),
                 NAMED(SIMTRACE_E_BAD_DIRECTORY), NAMED(SIMTRACE_E_BAD_FOOTER), NAMED(SIMTRACE_E_BAD_STREAM),
                 NAMED(SIMTRACE_E_UNSUPPORTED), NAMED(SIMTRACE_E_TOO_LARGE), NAMED(SIMTRACE_E_PARTIAL_ENTRY),
                 NAMED(SIMTRACE_E_SECOND_STAGE), NAMED(SIMTRACE_E_RANGE), NAMED(SIMTRACE_E_SYNTAX),
                 NAMED(SIMTRACE_E_NOT_FORMAT), NAMED(SIMTRACE_E_CYCLE_ORDER), NAMED(SIMTRACE_E_THREAD),
                 NAMED(SIMTRACE_E_INTERNAL), NAMED(SIMTRACE_E_STATE), NAMED(SIMTRACE_E_NOT_FOUND),
                 NAMED(SIMTRACE_E_BUFFER)};
#undef NAMED
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        CHECK(names[i].e == (int)i);
        CHECK(simtrace_error_name(names[i].e) && strcmp(simtrace_error_name(names[i].e), names[i].name) == 0);
    }
    CHECK(simtrace_error_name(SIMTRACE_E_BUFFER + 1) == NULL && simtrace_error_name(-1) == NULL);
    CHECK(!simtrace_error_is_data(-1) && !simtrace_error_is_data(SIMTRACE_E_BUFFER + 1));
    CHECK(strcmp(simtrace_strerror(SIMTRACE_E_STATE), "call out of order (the trace is closed or failed, or the "
                 "reader is sequential)") == 0);
    CHECK(strcmp(simtrace_strerror(SIMTRACE_E_BUFFER), "buffer too small") == 0);
    CHECK(simtrace_type_size(SIMTRACE_TYPE_D64) == 32 && simtrace_type_size(SIMTRACE_TYPE_M32) == 16 &&
          simtrace_type_size(SIMTRACE_TYPE_USER) == 0 && simtrace_type_size(99) == 0);
    CHECK(strcmp(simtrace_type_name(SIMTRACE_TYPE_D32), "d32") == 0 && strcmp(simtrace_type_name(-3), "?") == 0);
    /* every type's name is parsed back to it */
    for (int t = SIMTRACE_TYPE_D64; t <= SIMTRACE_TYPE_DRMEMTRACE; t++)
        CHECK(strcmp(simtrace_type_name(t), "?") == 0 || simtrace_type_parse(simtrace_type_name(t)) == t);
    CHECK(simtrace_type_parse("user") == SIMTRACE_TYPE_USER && simtrace_type_parse("vpc") == SIMTRACE_TYPE_VPC);
    CHECK(simtrace_type_parse("D64") == SIMTRACE_TYPE_NONE && simtrace_type_parse("?") == SIMTRACE_TYPE_NONE &&
          simtrace_type_parse("") == SIMTRACE_TYPE_NONE && simtrace_type_parse(NULL) == SIMTRACE_TYPE_NONE);
    /* pack and unpack: a round trip, truncation to the layout */
    simtrace_entry e = {SIMTRACE_CYCLE_MAX + 5, 3, 0x1122334455667788ull, 0x99, 0xabcdef0123ull}, o;
    uint8_t raw[32];
    CHECK(simtrace_entry_pack(SIMTRACE_TYPE_D32, &e, raw) == SIMTRACE_OK);
    CHECK(simtrace_entry_unpack(SIMTRACE_TYPE_D32, raw, &o) == SIMTRACE_OK);
    CHECK(o.cycle == 4 && o.meta16 == 3 && o.ip == 0x55667788u && o.address == 0x99 && o.data == 0xcdef0123u);
    CHECK(simtrace_entry_pack(SIMTRACE_TYPE_EVENT, &e, raw) == SIMTRACE_E_USAGE);
    CHECK(simtrace_entry_unpack(SIMTRACE_TYPE_VBLOCK, raw, &o) == SIMTRACE_E_USAGE);
    /* many at once, size and value apart: for each memory type, entries
     * with fullSize and without, against simtrace_entry_unpack */
    static const int mem[4] = {SIMTRACE_TYPE_D64, SIMTRACE_TYPE_D32, SIMTRACE_TYPE_M64, SIMTRACE_TYPE_M32};
    for (unsigned k = 0; k < 4; k++) {
        const int t = mem[k];
        const size_t esz = simtrace_type_size(t);
        const int wide = t == SIMTRACE_TYPE_D64 || t == SIMTRACE_TYPE_M64, data = t == SIMTRACE_TYPE_D64 || t == SIMTRACE_TYPE_D32;
        uint8_t many[3 * 32];
        simtrace_entry in[3] = {{7, 1, 0x1122334455667788ull, 0x8877665544332211ull, 0xfedcba9876543210ull},
                                {8, 6, 0x40, 0x80, (2ull << (wide ? 32 : 16)) | 0xbeef},
                                {SIMTRACE_CYCLE_MAX, 0xfffe, 1, 2, (16ull << 32) | 0x12345678u}};
        for (unsigned i = 0; i < 3; i++)
            CHECK(simtrace_entry_pack(t, &in[i], many + i * esz) == SIMTRACE_OK);
        simtrace_access acc[3];
        memset(acc, 0xa5, sizeof acc);
        CHECK(simtrace_access_unpack(t, many, 3, acc) == SIMTRACE_OK);
        for (unsigned i = 0; i < 3; i++) {
            simtrace_entry x;
            simtrace_entry_unpack(t, many + i * esz, &x);
            const unsigned half = wide ? 32 : 16;
            const uint64_t value = !data ? 0 : (x.meta16 & 1) ? x.data : x.data & ((1ull << half) - 1);
            const uint32_t size = !data ? 0 : (x.meta16 & 1) ? (wide ? 8 : 4) : (uint32_t)(x.data >> half);
            CHECK(acc[i].cycle == x.cycle && acc[i].meta16 == x.meta16 && acc[i].ip == x.ip &&
                  acc[i].address == x.address && acc[i].value == value && acc[i].size == size && acc[i].reserved == 0);
        }
        /* the three cases were there: full size, a size, a wide or cut one */
        CHECK(!data || (acc[0].size == (wide ? 8u : 4u) && acc[1].size == 2 && acc[1].value == 0xbeef));
    }
    CHECK(sizeof(simtrace_access) == 40);
    simtrace_access one;
    CHECK(simtrace_access_unpack(SIMTRACE_TYPE_BYTES, raw, 1, &one) == SIMTRACE_E_USAGE);
    CHECK(simtrace_access_unpack(SIMTRACE_TYPE_D64, NULL, 1, &one) == SIMTRACE_E_USAGE);
    CHECK(simtrace_access_unpack(SIMTRACE_TYPE_D64, NULL, 0, NULL) == SIMTRACE_OK);
}

static uint64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : UINT64_MAX;
}

static int discard(void *opaque, const void *buf, size_t size)
{
    (void)opaque, (void)buf, (void)size;
    return 0;
}

/* The programs' options: -s and -e names, and the limits of -T and
 * --frame-size, as writer creation takes them. */
static void test_options(void)
{
    static const struct {
        const char *name;
        uint32_t stage;
    } stages[] = {{"lzma", SIMTRACE_STAGE_LZMA}, {"bzip2", SIMTRACE_STAGE_BZIP2}, {"zlib", SIMTRACE_STAGE_ZLIB},
                  {"none", SIMTRACE_STAGE_NONE}};
    for (unsigned i = 0; i < sizeof stages / sizeof stages[0]; i++) {
        uint32_t st = 99;
        CHECK(simtrace_stage_parse(stages[i].name, &st) == SIMTRACE_OK && st == stages[i].stage);
    }
    uint32_t st = 99;
    CHECK(simtrace_stage_parse("xz", &st) == SIMTRACE_E_USAGE && st == 99);
    CHECK(simtrace_stage_parse("", &st) == SIMTRACE_E_USAGE && simtrace_stage_parse(NULL, &st) == SIMTRACE_E_USAGE);
    CHECK(simtrace_stage_parse("lzma", NULL) == SIMTRACE_E_USAGE);

    /* an encoder that may name a profile is one a writer takes */
    static const char *const encoders[] = {"cm", "cm2", "cm1", "fast", "paper", "generic", "vpc"};
    simtrace_write_io io = {discard, NULL};
    for (unsigned i = 0; i < sizeof encoders / sizeof encoders[0]; i++) {
        int profile = -1;
        CHECK(simtrace_encoder_check(encoders[i], &profile) == SIMTRACE_OK);
        CHECK(profile == (strcmp(encoders[i], "vpc") != 0));
        CHECK(simtrace_encoder_check(encoders[i], NULL) == SIMTRACE_OK);
        simtrace_write_params p;
        simtrace_write_params_init(&p);
        p.profile_name = encoders[i];
        simtrace_writer *w = NULL;
        CHECK(simtrace_writer_create_io(&w, &io, &p) == (profile ? SIMTRACE_OK : SIMTRACE_E_USAGE));
        simtrace_writer_free(w);
    }
    /* a profile naming another tool's encoder: memory streams take the
     * level's encoder (cmx at 6, fast at 1), the other types generic */
    for (unsigned level = 1; level <= 6; level += 5) {
        simtrace_write_params p;
        simtrace_write_params_init(&p);
        p.profile_name = "champsim";
        p.level = level;
        simtrace_writer *w = NULL;
        uint32_t mem = 0, ev = 0;
        int type = -1;
        const char *enc = NULL;
        CHECK(simtrace_writer_create_io(&w, &io, &p) == SIMTRACE_OK);
        CHECK(simtrace_writer_add_stream(w, "mem", SIMTRACE_TYPE_D64, &mem) == SIMTRACE_OK);
        CHECK(simtrace_writer_add_stream(w, "ev", SIMTRACE_TYPE_EVENT, &ev) == SIMTRACE_OK);
        CHECK(simtrace_writer_stream_coding(w, mem, &type, &enc) == SIMTRACE_OK && type == SIMTRACE_TYPE_D64 &&
              strcmp(enc, level == 1 ? "fast" : "cmx") == 0);
        CHECK(simtrace_writer_stream_coding(w, ev, &type, &enc) == SIMTRACE_OK && strcmp(enc, "generic") == 0);
        /* in the frames of the stream's own encoder: 2^18 + 1 entries
         * take two of fast's, one of cmx's */
        const size_t n = ((size_t)1 << 18) + 1;
        uint8_t *e = calloc(n, 32);
        CHECK(e != NULL);
        simtrace_write_stats ws;
        CHECK(e && simtrace_writer_write(w, mem, e, n) == SIMTRACE_OK);
        CHECK(simtrace_writer_close(w) == SIMTRACE_OK && simtrace_writer_stats(w, &ws) == SIMTRACE_OK &&
              ws.frames == (level == 1 ? 2u : 1u));
        free(e);
        simtrace_writer_free(w);
    }
    int profile = -1;
    CHECK(simtrace_encoder_check("lzma", &profile) == SIMTRACE_E_USAGE && profile == -1);
    CHECK(simtrace_encoder_check("default", &profile) == SIMTRACE_E_USAGE); /* a profile, not an encoder */
    CHECK(simtrace_encoder_check(NULL, &profile) == SIMTRACE_E_USAGE);

    /* the limits are the writer's: at them it is made, past them refused */
    simtrace_write_params p;
    simtrace_write_params_init(&p);
    simtrace_writer *w = NULL;
    p.threads = SIMTRACE_THREADS_MAX;
    p.frame_entries = SIMTRACE_FRAME_ENTRIES_MAX;
    CHECK(simtrace_writer_create_io(&w, &io, &p) == SIMTRACE_OK);
    simtrace_writer_free(w);
    p.threads = SIMTRACE_THREADS_MAX + 1;
    CHECK(simtrace_writer_create_io(&w, &io, &p) == SIMTRACE_E_USAGE && w == NULL);
    p.threads = 1;
    p.frame_entries = SIMTRACE_FRAME_ENTRIES_MAX + 1;
    CHECK(simtrace_writer_create_io(&w, &io, &p) == SIMTRACE_E_USAGE && w == NULL);
}

/* Writer error paths: bad arguments, calls out of order, a closed trace. */
static void test_writer_errors(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/errors.sim", dir);
    simtrace_writer *w = (simtrace_writer *)&w;
    simtrace_write_params p;
    fill_params(&p, 1);
    p.profile_name = "no-such-profile";
    CHECK(simtrace_writer_create_path(&w, path, &p) == SIMTRACE_E_USAGE && w == NULL);
    p.profile_name = NULL;
    p.profile = 77;
    CHECK(simtrace_writer_create_path(&w, path, &p) == SIMTRACE_E_USAGE);
    fill_params(&p, 65);
    CHECK(simtrace_writer_create_path(&w, path, &p) == SIMTRACE_E_USAGE);
    CHECK(simtrace_writer_create_path(&w, "/nonexistent-dir/x.sim", NULL) == SIMTRACE_E_WRITE && w == NULL);
    CHECK(simtrace_writer_create_fd(&w, -1, NULL) == SIMTRACE_E_USAGE);
    CHECK(simtrace_writer_create_io(&w, NULL, NULL) == SIMTRACE_E_USAGE);
    CHECK(simtrace_writer_write(NULL, 0, rd_raw, 1) == SIMTRACE_E_USAGE);
    CHECK(simtrace_writer_close(NULL) == SIMTRACE_E_USAGE);
    simtrace_writer_free(NULL);

    fill_params(&p, 2);
    p.check_cycles = 1;
    CHECK(simtrace_writer_create_path(&w, path, &p) == SIMTRACE_OK);
    uint32_t id, id2;
    CHECK(simtrace_writer_write(w, 0, rd_raw, 1) == SIMTRACE_E_USAGE); /* no stream yet: bad handle order */
    CHECK(strstr(simtrace_writer_message(w), "no stream 0") != NULL);
    CHECK(simtrace_writer_add_stream(w, "s", SIMTRACE_TYPE_VBLOCK, &id) == SIMTRACE_E_USAGE);
    CHECK(simtrace_writer_add_stream(w, "s", SIMTRACE_TYPE_USER, &id) == SIMTRACE_E_USAGE);
    CHECK(simtrace_writer_add_stream(w, "", SIMTRACE_TYPE_D64, &id) == SIMTRACE_E_USAGE);
    CHECK(simtrace_writer_add_stream(w, NULL, SIMTRACE_TYPE_D64, &id) == SIMTRACE_E_USAGE);
    CHECK(simtrace_writer_add_stream(w, "s", SIMTRACE_TYPE_D64, &id) == SIMTRACE_OK && id == 0);
    CHECK(simtrace_writer_add_stream(w, "s", SIMTRACE_TYPE_M32, &id2) == SIMTRACE_E_USAGE); /* duplicate */
    CHECK(strstr(simtrace_writer_message(w), "exists") != NULL);
    CHECK(simtrace_writer_add_user_stream(w, "u", USER_GUID, 0, NULL, &id2) == SIMTRACE_E_USAGE);
    CHECK(simtrace_writer_add_user_stream(w, "ev", USER_GUID, SIMTRACE_USER_ENTRY_MAX + 1, NULL, &id2) ==
          SIMTRACE_E_USAGE);
    CHECK(simtrace_writer_add_stream(w, "ev", SIMTRACE_TYPE_EVENT, &id2) == SIMTRACE_OK && id2 == 1);
    CHECK(simtrace_writer_write_wide(w, id2, rd_raw, wide_val[0], 16) == SIMTRACE_E_USAGE); /* not d64/d32 */
    CHECK(simtrace_writer_write_wide(w, id, rd_raw, wide_val[0], 4) == SIMTRACE_E_USAGE);   /* fits data */
    CHECK(simtrace_writer_write(w, 7, rd_raw, 1) == SIMTRACE_E_USAGE);
    CHECK(simtrace_writer_write(w, id, NULL, 1) == SIMTRACE_E_USAGE);
    /* a cycle below the one before: the entries before it are kept, the
     * writer goes on */
    uint8_t two[64];
    memcpy(two, rd_raw + 32 * 5, 32);
    memcpy(two + 32, rd_raw, 32);
    CHECK(simtrace_writer_write(w, id, two, 2) == SIMTRACE_E_CYCLE_ORDER);
    CHECK(strstr(simtrace_writer_message(w), "below cycle") != NULL);
    CHECK(simtrace_writer_write(w, id, rd_raw + 32 * 6, 3) == SIMTRACE_OK);
    uint64_t n = 0, bytes = 0;
    CHECK(simtrace_writer_entries(w, id, &n, &bytes) == SIMTRACE_OK && n == 4 && bytes >= 64);
    CHECK(simtrace_writer_entries(w, 9, &n, NULL) == SIMTRACE_E_USAGE);
    /* the counts: 4 entries taken, none in a frame written yet */
    simtrace_write_stats ws;
    memset(&ws, 0xa5, sizeof ws);
    CHECK(simtrace_writer_stats(w, &ws) == SIMTRACE_OK && ws.entries == 4 && ws.entry_bytes == 4 * 32 &&
          ws.frames == 0 && ws.entries_written == 0 && ws.out_bytes == bytes && ws.reserved[4] == 0);
    CHECK(simtrace_writer_stats(w, NULL) == SIMTRACE_E_USAGE && simtrace_writer_stats(NULL, &ws) == SIMTRACE_E_USAGE);
    CHECK(simtrace_writer_close(w) == SIMTRACE_OK);
    /* closed: the frame is written, and the whole file counted */
    CHECK(simtrace_writer_stats(w, &ws) == SIMTRACE_OK && ws.entries == 4 && ws.frames == 1 &&
          ws.entries_written == 4 && ws.out_bytes == file_size(path));
    /* closed: nothing more is taken */
    CHECK(simtrace_writer_write(w, id, rd_raw, 1) == SIMTRACE_E_STATE);
    CHECK(strstr(simtrace_writer_message(w), "closed") != NULL);
    CHECK(simtrace_writer_add_stream(w, "t", SIMTRACE_TYPE_D64, &id2) == SIMTRACE_E_STATE);
    CHECK(simtrace_writer_flush(w) == SIMTRACE_E_STATE);
    CHECK(simtrace_writer_close(w) == SIMTRACE_E_STATE);
    CHECK(simtrace_writer_entries(w, UINT32_MAX, &n, NULL) == SIMTRACE_OK && n == 4);
    simtrace_writer_free(w);

    /* the file holds the 4 entries */
    simtrace_reader *r;
    CHECK(simtrace_reader_open_path(&r, path, NULL) == SIMTRACE_OK);
    uint8_t back[4 * 32];
    uint64_t cnt = 0;
    CHECK(simtrace_reader_read(r, 0, 0, UINT64_MAX, back, sizeof back, &cnt) == SIMTRACE_OK && cnt == 4);
    CHECK(memcmp(back, two, 32) == 0 && memcmp(back + 32, rd_raw + 32 * 6, 96) == 0);
    simtrace_reader_free(r);
}

/* A write callback that fails after fail_after calls: SIMTRACE_E_WRITE,
 * then the writer takes nothing more. */
static int fail_after;
static int failing_write(void *opaque, const void *buf, size_t n)
{
    (void)opaque;
    (void)buf;
    (void)n;
    return fail_after-- > 0 ? 0 : -1;
}

static void test_write_failure(void)
{
    simtrace_write_io io = {failing_write, NULL};
    simtrace_writer *w;
    fail_after = 0;
    CHECK(simtrace_writer_create_io(&w, &io, NULL) == SIMTRACE_E_WRITE && w == NULL);
    fail_after = 1; /* the file header passes, the first frame does not */
    simtrace_write_params p;
    fill_params(&p, 1);
    CHECK(simtrace_writer_create_io(&w, &io, &p) == SIMTRACE_OK);
    uint32_t id;
    simtrace_error e = simtrace_writer_add_stream(w, "s", SIMTRACE_TYPE_D64, &id);
    if (e == SIMTRACE_OK)
        e = simtrace_writer_write(w, id, rd_raw, N_READ);
    if (e == SIMTRACE_OK)
        e = simtrace_writer_close(w);
    CHECK(e == SIMTRACE_E_WRITE);
    CHECK(simtrace_writer_write(w, 0, rd_raw, 1) == SIMTRACE_E_STATE);
    simtrace_writer_free(w);
}

/* A memory output for the write callback. */
typedef struct {
    uint8_t *p;
    size_t n, cap;
} membuf;
static int mem_write(void *opaque, const void *buf, size_t n)
{
    membuf *m = opaque;
    if (m->n + n > m->cap) {
        size_t nc = (m->n + n) * 2;
        uint8_t *np = realloc(m->p, nc);
        if (!np)
            return -1;
        m->p = np;
        m->cap = nc;
    }
    memcpy(m->p + m->n, buf, n);
    m->n += n;
    return 0;
}

/* A memory input for the read callback, handed out in odd pieces. */
typedef struct {
    const uint8_t *p;
    size_t n, at;
} memin;
static int64_t mem_read(void *opaque, void *buf, size_t n)
{
    memin *m = opaque;
    size_t k = m->n - m->at < n ? m->n - m->at : n;
    if (k > 777)
        k = 777;
    memcpy(buf, m->p + m->at, k);
    m->at += k;
    return (int64_t)k;
}

/* The whole of a cursor (or its first DRAIN_MAX entries, if fewer), in
 * pieces of `room` entries, checked against want[first..]; returns the
 * entries read. */
static uint64_t drain_max = UINT64_MAX;
static uint64_t drain_cursor(simtrace_cursor *c, const uint8_t *want, uint64_t from, unsigned room, int *ok)
{
    uint8_t buf[64 * 32];
    uint64_t total = 0, n, first;
    simtrace_error e;
    while (total < drain_max && (e = simtrace_cursor_next(c, buf, room * 32, &n, &first)) == SIMTRACE_OK && n) {
        if (first != from + total || memcmp(buf, want + 32 * first, n * 32) != 0)
            *ok = 0;
        total += n;
    }
    if (total >= drain_max)
        return total;
    if (e != SIMTRACE_OK)
        *ok = 0;
    /* exhausted: 0 again */
    if (simtrace_cursor_next(c, buf, sizeof buf, &n, &first) != SIMTRACE_OK || n != 0)
        *ok = 0;
    return total;
}

static uint64_t first_cycle_at_least(const uint8_t *raw, uint64_t n, uint64_t cycle)
{
    uint64_t i;
    simtrace_entry e;
    for (i = 0; i < n; i++) {
        simtrace_entry_unpack(SIMTRACE_TYPE_D64, raw + 32 * i, &e);
        if (e.cycle >= cycle)
            break;
    }
    return i;
}

/* simtrace_reader_frame_info: the frames of a stream tile it in entry
 * order, each frame read alone is the same as that slice of the whole,
 * their bytes add up to the stream's stored bytes; errors. */
static void test_frame_info(const char *path)
{
    simtrace_reader *r;
    CHECK(simtrace_reader_open_path(&r, path, NULL) == SIMTRACE_OK);
    simtrace_stream_info si;
    CHECK(simtrace_reader_stream_info(r, 0, &si) == SIMTRACE_OK && si.frames >= 2);
    static uint8_t whole[N_READ * 32], one[N_READ * 32];
    uint64_t cnt, next = 0, bytes = 0;
    CHECK(simtrace_reader_read(r, 0, 0, UINT64_MAX, whole, sizeof whole, &cnt) == SIMTRACE_OK && cnt == N_READ);
    simtrace_frame_info fi;
    for (uint64_t k = 0; k < si.frames; k++) {
        CHECK(simtrace_reader_frame_info(r, 0, k, &fi) == SIMTRACE_OK);
        CHECK(fi.first_entry == next && fi.entries > 0 && fi.entries <= FRAME && fi.stored_bytes > 0 && !fi.has_time);
        CHECK(simtrace_reader_read(r, 0, fi.first_entry, fi.first_entry + fi.entries, one, sizeof one, &cnt) ==
                  SIMTRACE_OK && cnt == fi.entries);
        CHECK(memcmp(one, whole + 32 * fi.first_entry, 32 * cnt) == 0);
        simtrace_entry e0, e1;
        simtrace_entry_unpack(SIMTRACE_TYPE_D64, one, &e0);
        simtrace_entry_unpack(SIMTRACE_TYPE_D64, one + 32 * (cnt - 1), &e1);
        CHECK(fi.first_cycle == e0.cycle && fi.last_cycle == e1.cycle);
        next += fi.entries;
        bytes += fi.stored_bytes;
    }
    CHECK(next == N_READ && bytes == si.stored_bytes);
    CHECK(simtrace_reader_frame_info(r, 0, si.frames, &fi) == SIMTRACE_E_RANGE);
    CHECK(strstr(simtrace_reader_message(r), "no frame") != NULL);
    CHECK(simtrace_reader_frame_info(r, 9, 0, &fi) == SIMTRACE_E_RANGE);
    CHECK(simtrace_reader_frame_info(r, 0, 0, NULL) == SIMTRACE_E_USAGE);
    CHECK(simtrace_reader_frame_info(NULL, 0, 0, &fi) == SIMTRACE_E_USAGE);
    simtrace_reader_free(r);
    /* params.threads 2 (ThreadSanitizer runs this): ranges of several
     * frames decode on worker threads, handed out in order; the same
     * entries from a read and from cursors, a range's first and last
     * frames cut, and two cursors at once on one reader */
    simtrace_read_params rp;
    simtrace_read_params_init(&rp);
    rp.threads = 2;
    CHECK(simtrace_reader_open_path(&r, path, &rp) == SIMTRACE_OK);
    const uint64_t cuts[][2] = {{0, N_READ}, {7, N_READ - 5}, {FRAME - 1, 3 * FRAME + 1}, {FRAME, FRAME + 1}};
    for (unsigned i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        uint64_t a = cuts[i][0], b = cuts[i][1];
        memset(one, 0, sizeof one);
        CHECK(simtrace_reader_read(r, 0, a, b, one, sizeof one, &cnt) == SIMTRACE_OK && cnt == b - a &&
              memcmp(one, whole + 32 * a, 32 * cnt) == 0);
    }
    simtrace_cursor *c1, *c2;
    simtrace_range r1 = {SIMTRACE_RANGE_ENTRIES, 0, 5, N_READ}, r2 = {SIMTRACE_RANGE_ALL, 0, 0, UINT64_MAX};
    CHECK(simtrace_cursor_open(&c1, r, NULL, &r1) == SIMTRACE_OK);
    CHECK(simtrace_cursor_open(&c2, r, NULL, &r2) == SIMTRACE_OK);
    int ok = 1;
    uint64_t frames = 0;
    CHECK(drain_cursor(c1, whole, 5, 64, &ok) == N_READ - 5 && ok);
    CHECK(drain_cursor(c2, whole, 0, 17, &ok) == N_READ && ok);
    CHECK(simtrace_cursor_frames_decoded(c2, &frames) == SIMTRACE_OK && frames == si.frames);
    simtrace_cursor_free(c1);
    simtrace_cursor_free(c2);
    simtrace_reader_free(r);
}

/* The calls of "ranges and merging": type kinds, ranges past the end,
 * the frame a cycle range starts in, what opening read, what a cursor
 * decoded, wide values through a handle, kept headers, and where a read
 * of a damaged frame failed (simtrace_reader_place). */
static void test_ranges(const char *path, const char *damaged)
{
    CHECK(simtrace_type_is_memory(SIMTRACE_TYPE_D64) && simtrace_type_is_memory(SIMTRACE_TYPE_M32) &&
          !simtrace_type_is_memory(SIMTRACE_TYPE_EVENT) && !simtrace_type_is_memory(SIMTRACE_TYPE_VBLOCK) &&
          !simtrace_type_is_memory(-1));
    CHECK(simtrace_type_has_cycles(SIMTRACE_TYPE_D32) && simtrace_type_has_cycles(SIMTRACE_TYPE_EVENT) &&
          !simtrace_type_has_cycles(SIMTRACE_TYPE_BYTES) && !simtrace_type_has_cycles(SIMTRACE_TYPE_USER) &&
          !simtrace_type_has_cycles(999));
    /* ranges past the end of a stream of 100 entries */
    uint64_t from = 7, missing = 7;
    simtrace_range in = {SIMTRACE_RANGE_ENTRIES, 0, 10, 50}, over = {SIMTRACE_RANGE_ENTRIES, 0, 90, 130},
                   after = {SIMTRACE_RANGE_ENTRIES, 0, 101, UINT64_MAX}, at_end = {SIMTRACE_RANGE_ENTRIES, 0, 100, UINT64_MAX},
                   shut = {SIMTRACE_RANGE_ENTRIES, 0, 100, 130}, open_end = {SIMTRACE_RANGE_ENTRIES, 0, 10, UINT64_MAX},
                   cyc = {SIMTRACE_RANGE_CYCLES, 0, 500, 600}, bad = {SIMTRACE_RANGE_ENTRIES, 0, 9, 8};
    CHECK(simtrace_range_entries_past(&in, 100, &from, &missing) == 0 && from == 7 && missing == 7);
    CHECK(simtrace_range_entries_past(&over, 100, &from, &missing) == 2 && from == 100 && missing == 30);
    CHECK(simtrace_range_entries_past(&after, 100, NULL, NULL) == 1 &&
          simtrace_range_entries_past(&at_end, 100, NULL, NULL) == 0 &&
          simtrace_range_entries_past(&shut, 100, NULL, NULL) == 1);
    CHECK(simtrace_range_entries_past(&open_end, 100, NULL, NULL) == 0);
    CHECK(simtrace_range_entries_past(&cyc, 100, NULL, NULL) == 0 && simtrace_range_entries_past(NULL, 1, NULL, NULL) == 0);
    CHECK(simtrace_range_entries_past(&bad, 5, NULL, NULL) == 0);
    CHECK(simtrace_range_window_past(&cyc, 3, 499) == 1 && simtrace_range_window_past(&cyc, 3, 500) == 0 &&
          simtrace_range_window_past(&cyc, 0, 0) == 1 && simtrace_range_window_past(&in, 0, 0) == 0 &&
          simtrace_range_window_past(NULL, 0, 0) == 0);

    simtrace_reader *r;
    CHECK(simtrace_reader_open_path(&r, path, NULL) == SIMTRACE_OK);
    simtrace_stream_info si;
    CHECK(simtrace_reader_stream_info(r, 1, &si) == SIMTRACE_OK && si.frames >= 3);
    /* the frame of each cycle, against the frames' last cycles */
    simtrace_frame_info fi;
    for (uint64_t c = 0; c < 11 + 4 * (uint64_t)N_WRITE + 10; c += 53) {
        uint64_t k = 99, want = 0;
        while (want < si.frames && simtrace_reader_frame_info(r, 1, want, &fi) == SIMTRACE_OK && fi.last_cycle < c)
            want++;
        CHECK(simtrace_reader_find_cycle_frame(r, 1, c, &k) == SIMTRACE_OK && k == want);
    }
    uint64_t k;
    CHECK(simtrace_reader_find_cycle_frame(r, 2, 0, &k) == SIMTRACE_E_USAGE); /* user type: no cycles */
    CHECK(simtrace_reader_find_cycle_frame(r, 9, 0, &k) == SIMTRACE_E_RANGE);
    CHECK(simtrace_reader_find_cycle_frame(r, 1, 0, NULL) == SIMTRACE_E_USAGE);
    /* a complete file: no frame cut off; opening read less than the file */
    simtrace_cut_frame cut;
    uint64_t bytes = 0;
    CHECK(simtrace_reader_cut_frame(r, &cut) == SIMTRACE_E_NOT_FOUND);
    CHECK(simtrace_reader_bytes_read(r, &bytes) == SIMTRACE_OK && bytes > 0 && bytes < file_size(path));
    /* a cursor decodes only the frames its range needs */
    simtrace_cursor *c;
    simtrace_range two = {SIMTRACE_RANGE_ENTRIES, 0, FRAME - 1, FRAME + 1};
    const void *p;
    uint64_t n, first, decoded = 9, total = 0;
    CHECK(simtrace_cursor_open(&c, r, "cpu0.read", &two) == SIMTRACE_OK);
    CHECK(simtrace_cursor_frames_decoded(c, &decoded) == SIMTRACE_OK && decoded == 0);
    while (simtrace_cursor_peek(c, &p, &n, &first) == SIMTRACE_OK && n)
        total += n;
    CHECK(total == 2 && simtrace_cursor_frames_decoded(c, &decoded) == SIMTRACE_OK && decoded == 2);
    CHECK(simtrace_cursor_frames_decoded(c, NULL) == SIMTRACE_E_USAGE &&
          simtrace_cursor_frames_decoded(NULL, &decoded) == SIMTRACE_E_USAGE);
    simtrace_cursor_free(c);
    /* wide values of cpu0.write, in entry order, as written */
    simtrace_values *v;
    const void *val;
    size_t len;
    CHECK(simtrace_values_open(&v, r, 1) == SIMTRACE_OK);
    for (unsigned i = 0; i < N_WRITE; i += WIDE_EVERY)
        CHECK(simtrace_values_get(v, i, &val, &len) == SIMTRACE_OK && len == 16 && memcmp(val, wide_val[i], 16) == 0);
    CHECK(simtrace_values_get(v, 1, &val, &len) == SIMTRACE_E_CORRUPT); /* not a wide entry: no blocks */
    CHECK(simtrace_values_get(NULL, 0, &val, &len) == SIMTRACE_E_USAGE);
    simtrace_values_free(v);
    /* cpu0.read keeps no wide values */
    CHECK(simtrace_values_open(&v, r, 0) == SIMTRACE_OK);
    CHECK(simtrace_values_get(v, 0, &val, &len) == SIMTRACE_OK && val == NULL && len == 0);
    simtrace_values_free(v);
    simtrace_values_free(NULL);
    CHECK(simtrace_values_open(&v, r, 9) == SIMTRACE_E_RANGE && v == NULL);
    CHECK(simtrace_values_open(&v, NULL, 0) == SIMTRACE_E_USAGE);
    /* no kept header */
    const void *h = &h;
    size_t hl = 9;
    CHECK(simtrace_reader_stream_header(r, 0, &h, &hl) == SIMTRACE_OK && h == NULL && hl == 0);
    CHECK(simtrace_reader_stream_header(r, 9, &h, &hl) == SIMTRACE_E_RANGE);
    simtrace_reader_free(r);

    /* a damaged payload: the read fails, and the place names the frame */
    CHECK(simtrace_reader_open_path(&r, damaged, NULL) == SIMTRACE_OK);
    CHECK(simtrace_reader_frame_info(r, 0, 1, &fi) == SIMTRACE_OK);
    simtrace_input_place at;
    CHECK(simtrace_reader_place(r, &at) == SIMTRACE_OK && at.offset == UINT64_MAX && at.frame == UINT64_MAX);
    static uint8_t buf[FRAME * 32];
    CHECK(simtrace_reader_read(r, 0, 0, FRAME, buf, sizeof buf, &n) == SIMTRACE_OK); /* frame 0: sound */
    CHECK(simtrace_reader_read(r, 0, fi.first_entry, fi.first_entry + 1, buf, sizeof buf, &n) ==
          SIMTRACE_E_PAYLOAD_CRC);
    CHECK(simtrace_reader_place(r, &at) == SIMTRACE_OK && at.offset == fi.offset && at.frame == 1 && at.stream == 0);
    CHECK(simtrace_cursor_open(&c, r, "cpu0.read", NULL) == SIMTRACE_OK);
    simtrace_error e = SIMTRACE_OK;
    while ((e = simtrace_cursor_peek(c, &p, &n, &first)) == SIMTRACE_OK && n)
        ;
    CHECK(e == SIMTRACE_E_PAYLOAD_CRC && simtrace_reader_place(r, &at) == SIMTRACE_OK && at.offset == fi.offset);
    simtrace_cursor_free(c);
    simtrace_reader_free(r);
    /* a sequential reader */
    int fds[2];
    CHECK(pipe(fds) == 0);
    close(fds[1]);
    simtrace_read_params rp;
    simtrace_read_params_init(&rp);
    rp.keep_failed = 1;
    r = NULL;
    simtrace_reader_open_fd(&r, fds[0], &rp); /* an empty pipe: the open fails, the handle stays */
    CHECK(r != NULL && simtrace_reader_random_access(r) == 0);
    CHECK(simtrace_reader_bytes_read(r, &bytes) == SIMTRACE_E_STATE && simtrace_reader_cut_frame(r, &cut) ==
          SIMTRACE_E_STATE && simtrace_values_open(&v, r, 0) == SIMTRACE_E_STATE &&
          simtrace_reader_find_cycle_frame(r, 0, 0, &k) == SIMTRACE_E_STATE);
    simtrace_reader_free(r);
    close(fds[0]);
}

static void test_random_access(const char *path)
{
    simtrace_reader *r = (simtrace_reader *)&r;
    CHECK(simtrace_reader_open_path(&r, "/nonexistent.sim", NULL) == SIMTRACE_E_READ && r == NULL);
    simtrace_read_params rp;
    simtrace_read_params_init(&rp);
    CHECK(simtrace_reader_open_path(&r, path, &rp) == SIMTRACE_OK);
    CHECK(simtrace_reader_random_access(r) == 1);
    uint32_t n = 0, idx = 99;
    CHECK(simtrace_reader_stream_count(r, &n) == SIMTRACE_OK && n == 4); /* and cpu0.write.vdata */
    simtrace_stream_info si;
    CHECK(simtrace_reader_stream_info(r, 4, &si) == SIMTRACE_E_RANGE);
    CHECK(simtrace_reader_stream_info(r, 1, &si) == SIMTRACE_OK);
    CHECK(strcmp(si.name, "cpu0.write") == 0 && si.type == SIMTRACE_TYPE_D64 && si.entry_size == 32 &&
          si.entries == N_WRITE && si.has_cycles && si.cycles_ordered && !si.times_ordered && si.values == 3 &&
          si.first_cycle == 11 && si.last_cycle == 11 + 4 * (N_WRITE - 1) && si.stored_bytes > 0 &&
          si.frames >= (N_WRITE + FRAME - 1) / FRAME);
    CHECK(simtrace_reader_stream_info(r, 3, &si) == SIMTRACE_OK);
    CHECK(si.type == SIMTRACE_TYPE_VBLOCK && si.owner == 1 && strcmp(si.name, "cpu0.write.vdata") == 0);
    CHECK(simtrace_reader_stream_info(r, 2, &si) == SIMTRACE_OK);
    CHECK(si.type == SIMTRACE_TYPE_USER && si.entry_size == 12 && strcmp(si.type_name, "regs") == 0 &&
          memcmp(si.guid, USER_GUID, 16) == 0 && si.entries == 10 && !si.has_cycles);
    /* by name; not found; the default */
    CHECK(simtrace_reader_find_stream(r, "cpu0.write", &idx) == SIMTRACE_OK && idx == 1);
    CHECK(simtrace_reader_find_stream(r, "cpu1.write", &idx) == SIMTRACE_E_NOT_FOUND && idx == 1);
    CHECK(simtrace_reader_find_stream(r, NULL, &idx) == SIMTRACE_OK && idx == 0);

    /* [a, b) at frame edges and inside frames */
    static uint8_t buf[N_READ * 32];
    uint64_t cnt;
    const uint64_t cuts[][2] = {{0, 1}, {0, FRAME}, {FRAME - 1, FRAME + 1}, {17, 2 * FRAME + 5}, {N_READ - 3, N_READ},
                                {1000, 1000}, {0, N_READ}};
    for (unsigned k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        uint64_t a = cuts[k][0], b = cuts[k][1];
        CHECK(simtrace_reader_read(r, 0, a, b, buf, sizeof buf, &cnt) == SIMTRACE_OK && cnt == b - a);
        CHECK(memcmp(buf, rd_raw + 32 * a, (size_t)(b - a) * 32) == 0);
    }
    /* past the end: clipped; starting past it: SIMTRACE_E_RANGE */
    CHECK(simtrace_reader_read(r, 0, N_READ - 2, N_READ + 50, buf, sizeof buf, &cnt) == SIMTRACE_OK && cnt == 2);
    CHECK(simtrace_reader_read(r, 0, N_READ, UINT64_MAX, buf, sizeof buf, &cnt) == SIMTRACE_OK && cnt == 0);
    CHECK(simtrace_reader_read(r, 0, N_READ + 1, N_READ + 5, buf, sizeof buf, &cnt) == SIMTRACE_E_RANGE);
    CHECK(simtrace_reader_read(r, 0, 9, 8, buf, sizeof buf, &cnt) == SIMTRACE_E_RANGE);
    CHECK(simtrace_reader_read(r, 9, 0, 1, buf, sizeof buf, &cnt) == SIMTRACE_E_RANGE);
    /* a short buffer: nothing written, the count needed said */
    memset(buf, 0xA5, 64);
    cnt = 0;
    CHECK(simtrace_reader_read(r, 0, 10, 20, buf, 9 * 32 + 31, &cnt) == SIMTRACE_E_BUFFER && cnt == 10);
    CHECK(buf[0] == 0xA5 && buf[63] == 0xA5);
    CHECK(strstr(simtrace_reader_message(r), "buffer") != NULL);
    /* user entries */
    CHECK(simtrace_reader_read(r, 2, 0, 10, buf, sizeof buf, &cnt) == SIMTRACE_OK && cnt == 10 && buf[119] == 119);

    /* cycles: every boundary of a few frames, against brute force */
    for (uint64_t c = 0; c < 11 + 4 * 700; c += 37) {
        uint64_t e = 0;
        CHECK(simtrace_reader_find_cycle(r, 1, c, &e) == SIMTRACE_OK);
        CHECK(e == first_cycle_at_least(wr_raw, N_WRITE, c));
    }
    uint64_t e = 0;
    CHECK(simtrace_reader_find_cycle(r, 1, UINT64_MAX, &e) == SIMTRACE_OK && e == N_WRITE);
    CHECK(simtrace_reader_find_cycle(r, 2, 5, &e) == SIMTRACE_E_USAGE); /* user type: no cycles */
    CHECK(simtrace_reader_find_time(r, 0, 5, &e) == SIMTRACE_E_UNSUPPORTED); /* no timestamps */

    /* wide values, and the values of entries that are not wide */
    uint8_t val[64];
    size_t len = 0;
    for (unsigned i = 0; i < N_WRITE; i += WIDE_EVERY) {
        CHECK(simtrace_reader_value(r, 1, i, val, sizeof val, &len) == SIMTRACE_OK && len == 16 &&
              memcmp(val, wide_val[i], 16) == 0);
    }
    CHECK(simtrace_reader_value(r, 1, 5, val, sizeof val, &len) == SIMTRACE_OK && len == 8 && val[0] == 5);
    CHECK(simtrace_reader_value(r, 1, 0, val, 15, &len) == SIMTRACE_E_BUFFER && len == 16);
    CHECK(simtrace_reader_value(r, 1, N_WRITE, val, sizeof val, &len) == SIMTRACE_E_RANGE);
    CHECK(simtrace_reader_value(r, 2, 0, val, sizeof val, &len) == SIMTRACE_E_USAGE);

    /* cursors: all, entries, cycles; small buffers */
    simtrace_cursor *c;
    int ok = 1;
    CHECK(simtrace_cursor_open(&c, r, "cpu0.read", NULL) == SIMTRACE_OK);
    simtrace_stream_info ci;
    CHECK(simtrace_cursor_stream_info(c, &ci) == SIMTRACE_OK && ci.index == 0 && ci.entry_size == 32);
    uint64_t got;
    CHECK(simtrace_cursor_next(c, buf, 31, &got, NULL) == SIMTRACE_E_BUFFER); /* below one entry */
    CHECK(drain_cursor(c, rd_raw, 0, 7, &ok) == N_READ && ok);
    simtrace_cursor_free(c);
    simtrace_range rg = {SIMTRACE_RANGE_ENTRIES, 0, 299, 1207};
    CHECK(simtrace_cursor_open(&c, r, "cpu0.read", &rg) == SIMTRACE_OK);
    CHECK(drain_cursor(c, rd_raw, 299, 64, &ok) == 1207 - 299 && ok);
    simtrace_cursor_free(c);
    rg = (simtrace_range){SIMTRACE_RANGE_CYCLES, 0, 1000, 3001};
    uint64_t c0 = first_cycle_at_least(wr_raw, N_WRITE, 1000), c1 = first_cycle_at_least(wr_raw, N_WRITE, 3001);
    CHECK(simtrace_cursor_open(&c, r, "cpu0.write", &rg) == SIMTRACE_OK);
    CHECK(drain_cursor(c, wr_raw, c0, 5, &ok) == c1 - c0 && ok);
    simtrace_cursor_free(c);
    /* peek: no copy, a frame's part at a time, mixed with next */
    rg = (simtrace_range){SIMTRACE_RANGE_ENTRIES, 0, 150, 1000};
    CHECK(simtrace_cursor_open(&c, r, "cpu0.read", &rg) == SIMTRACE_OK);
    CHECK(simtrace_cursor_next(c, buf, 10 * 32, &got, &e) == SIMTRACE_OK && got == 10 && e == 150);
    uint64_t at = 160, pf = 0;
    const void *pp;
    simtrace_error pe;
    while ((pe = simtrace_cursor_peek(c, &pp, &got, &pf)) == SIMTRACE_OK && got) {
        CHECK(pf == at && got <= FRAME && memcmp(pp, rd_raw + 32 * at, (size_t)got * 32) == 0);
        at += got;
    }
    CHECK(pe == SIMTRACE_OK && at == 1000 && pp == NULL);
    CHECK(simtrace_cursor_peek(c, &pp, &got, &pf) == SIMTRACE_OK && got == 0);
    simtrace_cursor_free(c);
    rg = (simtrace_range){SIMTRACE_RANGE_ENTRIES, 0, N_READ + 5, UINT64_MAX}; /* past the end: nothing */
    CHECK(simtrace_cursor_open(&c, r, NULL, &rg) == SIMTRACE_OK);
    CHECK(drain_cursor(c, rd_raw, 0, 5, &ok) == 0 && ok);
    simtrace_cursor_free(c);
    CHECK(simtrace_cursor_open(&c, r, "nope", NULL) == SIMTRACE_E_NOT_FOUND && c == NULL);
    CHECK(strstr(simtrace_reader_message(r), "nope") != NULL);
    rg = (simtrace_range){SIMTRACE_RANGE_CYCLES, 0, 0, 10};
    CHECK(simtrace_cursor_open(&c, r, "cpu0.regs", &rg) == SIMTRACE_E_USAGE);
    rg = (simtrace_range){SIMTRACE_RANGE_TIME, 0, 0, 10};
    CHECK(simtrace_cursor_open(&c, r, "cpu0.read", &rg) == SIMTRACE_E_UNSUPPORTED);
    rg = (simtrace_range){9, 0, 0, 10};
    CHECK(simtrace_cursor_open(&c, r, "cpu0.read", &rg) == SIMTRACE_E_USAGE);
    rg = (simtrace_range){SIMTRACE_RANGE_ENTRIES, 0, 10, 9};
    CHECK(simtrace_cursor_open(&c, r, "cpu0.read", &rg) == SIMTRACE_E_USAGE);
    simtrace_reader_free(r);
}

/* The bytes of the file at path (a check fails without them). */
static uint8_t *slurp_checked(const char *path, size_t *len)
{
    uint8_t *p = check_slurp(path, len);
    CHECK(p != NULL);
    return p;
}

/* A child process writes len bytes at p into a pipe, `piece` bytes at a
 * time with a pause of pause_ns between them; *rfd: the pipe's end to read. */
static pid_t feed_pipe(const uint8_t *p, size_t len, size_t piece, long pause_ns, int *rfd)
{
    int pfd[2];
    CHECK(pipe(pfd) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        for (size_t at = 0; at < len;) {
            ssize_t k = write(pfd[1], p + at, len - at < piece ? len - at : piece);
            if (k <= 0)
                _exit(1);
            at += (size_t)k;
            if (pause_ns)
                nanosleep(&(struct timespec){0, pause_ns}, NULL);
        }
        _exit(0);
    }
    close(pfd[1]);
    *rfd = pfd[0];
    return pid;
}

/* Sequential: a pipe (fd) and a read callback. */
static void test_sequential(const char *path)
{
    size_t len;
    uint8_t *file = slurp_checked(path, &len);
    if (!file)
        return;
    int rfd;
    pid_t pid = feed_pipe(file, len, len, 0, &rfd);
    simtrace_read_params rp;
    simtrace_read_params_init(&rp);
    rp.threads = 3;
    simtrace_reader *r;
    CHECK(simtrace_reader_open_fd(&r, rfd, &rp) == SIMTRACE_OK);
    CHECK(simtrace_reader_random_access(r) == 0 && simtrace_reader_complete(r) == -1);
    uint8_t buf[64];
    uint64_t cnt, e;
    uint32_t idx;
    /* what needs random access says so */
    CHECK(simtrace_reader_read(r, 0, 0, 1, buf, sizeof buf, &cnt) == SIMTRACE_E_STATE);
    CHECK(strstr(simtrace_reader_message(r), "random access") != NULL);
    CHECK(simtrace_reader_find_cycle(r, 0, 5, &e) == SIMTRACE_E_STATE);
    simtrace_frame_info fi;
    CHECK(simtrace_reader_frame_info(r, 0, 0, &fi) == SIMTRACE_E_STATE);
    CHECK(simtrace_reader_find_stream(r, "cpu0.write", &idx) == SIMTRACE_E_NOT_FOUND); /* not seen yet */
    simtrace_range rg = {SIMTRACE_RANGE_ENTRIES, 0, 450, 1500};
    simtrace_cursor *c, *c2;
    CHECK(simtrace_cursor_open(&c, r, "cpu0.write", &rg) == SIMTRACE_OK);
    CHECK(simtrace_cursor_open(&c2, r, "cpu0.read", NULL) == SIMTRACE_E_STATE); /* one per pipe */
    int ok = 1;
    drain_max = 450; /* 13 at a time up to entry 900, then peek */
    uint64_t taken = drain_cursor(c, wr_raw, 450, 13, &ok);
    drain_max = UINT64_MAX;
    CHECK(taken >= 450 && taken < 450 + 13 && ok);
    {
        const void *pp;
        uint64_t pn, pf, at = 450 + taken;
        simtrace_error pe;
        while ((pe = simtrace_cursor_peek(c, &pp, &pn, &pf)) == SIMTRACE_OK && pn) {
            CHECK(pf == at && memcmp(pp, wr_raw + 32 * at, (size_t)pn * 32) == 0);
            at += pn;
        }
        CHECK(pe == SIMTRACE_OK && at == 1500);
    }
    CHECK(simtrace_reader_find_stream(r, "cpu0.write", &idx) == SIMTRACE_OK && idx == 1);
    simtrace_stream_info si;
    CHECK(simtrace_reader_stream_info(r, 3, &si) == SIMTRACE_OK && si.owner == 1 && si.entries > 0);
    simtrace_cursor_free(c);
    simtrace_reader_free(r);
    close(rfd);
    waitpid(pid, NULL, 0);

    /* callbacks, the default stream, a cycle range; and a cursor freed
     * half-way (its reading stops) */
    memin m = {file, len, 0};
    simtrace_read_io io = {mem_read, &m};
    CHECK(simtrace_reader_open_io(&r, &io, NULL) == SIMTRACE_OK);
    rg = (simtrace_range){SIMTRACE_RANGE_CYCLES, 0, 100, 2000};
    CHECK(simtrace_cursor_open(&c, r, NULL, &rg) == SIMTRACE_OK);
    uint64_t c0 = first_cycle_at_least(rd_raw, N_READ, 100), c1 = first_cycle_at_least(rd_raw, N_READ, 2000);
    CHECK(drain_cursor(c, rd_raw, c0, 64, &ok) == c1 - c0 && ok);
    simtrace_cursor_free(c);
    simtrace_reader_free(r);
    m.at = 0;
    CHECK(simtrace_reader_open_io(&r, &io, NULL) == SIMTRACE_OK);
    CHECK(simtrace_cursor_open(&c, r, "cpu0.read", NULL) == SIMTRACE_OK);
    CHECK(simtrace_cursor_next(c, buf, sizeof buf, &cnt, &e) == SIMTRACE_OK && cnt == 2 && e == 0);
    simtrace_cursor_free(c); /* mid-stream */
    simtrace_reader_free(r);
    m.at = 0;
    CHECK(simtrace_reader_open_io(&r, &io, NULL) == SIMTRACE_OK);
    CHECK(simtrace_cursor_open(&c, r, "cpu7.read", NULL) == SIMTRACE_E_NOT_FOUND);
    simtrace_reader_free(r);
    /* a cut-off input: the entries before the cut, then the error */
    m.at = 0;
    m.n = len / 2;
    CHECK(simtrace_reader_open_io(&r, &io, NULL) == SIMTRACE_OK);
    CHECK(simtrace_cursor_open(&c, r, "cpu0.read", NULL) == SIMTRACE_OK);
    uint64_t total = 0;
    simtrace_error err;
    uint8_t big[32 * 64];
    while ((err = simtrace_cursor_next(c, big, sizeof big, &cnt, NULL)) == SIMTRACE_OK && cnt)
        total += cnt;
    CHECK(err == SIMTRACE_E_TRUNCATED && total > 0 && total < N_READ);
    CHECK(simtrace_cursor_next(c, big, sizeof big, &cnt, NULL) == SIMTRACE_E_TRUNCATED); /* it stays */
    simtrace_cursor_free(c);
    simtrace_reader_free(r);
    /* not a container */
    m = (memin){(const uint8_t *)"this is text, not a trace, long enough for a file header ..........", 66, 0};
    CHECK(simtrace_reader_open_io(&r, &io, NULL) == SIMTRACE_E_BAD_MAGIC && r == NULL);
    free(file);
}

/* A trace whose first stream is not a memory stream ("raw": n bytes),
 * and with late_memory a memory stream ("mem") declared after its frames;
 * w is closed and freed. */
static void write_raw_then_memory(simtrace_writer *w, const uint8_t *bytes, size_t n, int late_memory)
{
    uint32_t bs, ms;
    CHECK(simtrace_writer_add_stream(w, "raw", SIMTRACE_TYPE_BYTES, &bs) == SIMTRACE_OK);
    CHECK(simtrace_writer_write(w, bs, bytes, n) == SIMTRACE_OK);
    CHECK(simtrace_writer_flush(w) == SIMTRACE_OK);
    if (late_memory) {
        CHECK(simtrace_writer_add_stream(w, "mem", SIMTRACE_TYPE_D64, &ms) == SIMTRACE_OK);
        CHECK(simtrace_writer_write(w, ms, rd_raw, 500) == SIMTRACE_OK);
    }
    CHECK(simtrace_writer_close(w) == SIMTRACE_OK);
    simtrace_writer_free(w);
}

/* The default stream read sequentially is the default of a file: the
 * first memory stream, even one declared after the first stream's
 * frames, else the first stream (held back until the end shows that no
 * memory stream follows). */
static void test_sequential_default(void)
{
    uint8_t bytes[3000];
    for (unsigned i = 0; i < sizeof bytes; i++)
        bytes[i] = (uint8_t)(i * 13);
    for (int late_memory = 0; late_memory < 2; late_memory++) {
        membuf mb = {NULL, 0, 0};
        simtrace_write_io wio = {mem_write, &mb};
        simtrace_write_params p;
        fill_params(&p, 1);
        simtrace_writer *w;
        CHECK(simtrace_writer_create_io(&w, &wio, &p) == SIMTRACE_OK);
        write_raw_then_memory(w, bytes, sizeof bytes, late_memory);
        memin m = {mb.p, mb.n, 0};
        simtrace_read_io io = {mem_read, &m};
        simtrace_reader *r;
        simtrace_cursor *c;
        CHECK(simtrace_reader_open_io(&r, &io, NULL) == SIMTRACE_OK);
        CHECK(simtrace_cursor_open(&c, r, NULL, NULL) == SIMTRACE_OK);
        simtrace_stream_info si;
        CHECK(simtrace_cursor_stream_info(c, &si) == SIMTRACE_OK &&
              strcmp(si.name, late_memory ? "mem" : "raw") == 0);
        static uint8_t got[32 * 600];
        uint64_t n = 0, k;
        while (simtrace_cursor_next(c, got + n * si.entry_size, sizeof got - n * si.entry_size, &k, NULL) ==
                   SIMTRACE_OK && k)
            n += k;
        CHECK(late_memory ? n == 500 && memcmp(got, rd_raw, 500 * 32) == 0
                          : n == sizeof bytes && memcmp(got, bytes, sizeof bytes) == 0);
        simtrace_cursor_free(c);
        simtrace_reader_free(r);
        free(mb.p);
    }
}

/* simtrace_reader_next_frame: every frame of every stream of a pipe, in
 * order; only on a sequential reader without a cursor. */
static void test_next_frame(const char *path)
{
    size_t len;
    uint8_t *file = slurp_checked(path, &len);
    if (!file)
        return;
    simtrace_reader *r;
    simtrace_frame f;
    simtrace_cursor *c;
    CHECK(simtrace_reader_open_path(&r, path, NULL) == SIMTRACE_OK);
    CHECK(simtrace_reader_next_frame(r, &f) == SIMTRACE_E_STATE && strstr(simtrace_reader_message(r), "random"));
    CHECK(simtrace_reader_next_frame(r, NULL) == SIMTRACE_E_USAGE && simtrace_reader_next_frame(NULL, &f) ==
          SIMTRACE_E_USAGE);
    simtrace_reader_free(r);
    simtrace_read_params rp;
    simtrace_read_params_init(&rp);
    rp.threads = 2;
    int rfd;
    pid_t pid = feed_pipe(file, len, len, 0, &rfd);
    CHECK(simtrace_reader_open_fd(&r, rfd, &rp) == SIMTRACE_OK);
    uint64_t next[4] = {0, 0, 0, 0}, seqs[4] = {0, 0, 0, 0}, last_offset = 0;
    int ok = 1;
    simtrace_error e;
    while ((e = simtrace_reader_next_frame(r, &f)) == SIMTRACE_OK && f.count) {
        ok &= f.index < 4 && f.first_entry == next[f.index] && f.entries != NULL;
        /* numbered in its stream; its header where the directory has it */
        ok &= f.index < 4 && f.seq == seqs[f.index]++ && f.offset > last_offset && f.offset < len;
        last_offset = f.offset;
        if (ok && f.index == 0) {
            simtrace_reader *ra;
            simtrace_frame_info fi;
            ok &= simtrace_reader_open_path(&ra, path, NULL) == SIMTRACE_OK &&
                  simtrace_reader_frame_info(ra, 0, f.seq, &fi) == SIMTRACE_OK && fi.offset == f.offset;
            simtrace_reader_free(ra);
        }
        if (f.index == 0 && ok)
            ok &= f.first_entry + f.count <= N_READ &&
                  memcmp(f.entries, rd_raw + 32 * f.first_entry, (size_t)f.count * 32) == 0;
        if (f.index == 1 && ok)
            ok &= f.first_entry + f.count <= N_WRITE &&
                  memcmp(f.entries, wr_raw + 32 * f.first_entry, (size_t)f.count * 32) == 0;
        if (f.index < 4)
            next[f.index] += f.count;
    }
    CHECK(e == SIMTRACE_OK && ok && f.entries == NULL && next[0] == N_READ && next[1] == N_WRITE &&
          next[2] == 10 && next[3] > 0);
    CHECK(simtrace_reader_next_frame(r, &f) == SIMTRACE_OK && f.count == 0); /* the end stays */
    CHECK(simtrace_cursor_open(&c, r, NULL, NULL) == SIMTRACE_E_STATE);
    close(rfd);
    waitpid(pid, NULL, 0);
    simtrace_input_place where;
    CHECK(simtrace_reader_place(r, &where) == SIMTRACE_OK && where.offset == UINT64_MAX && where.frame == UINT64_MAX &&
          where.detail[0] == 0);
    CHECK(simtrace_reader_place(NULL, &where) == SIMTRACE_E_USAGE && simtrace_reader_place(r, NULL) == SIMTRACE_E_USAGE);
    simtrace_reader_free(r);

    /* keep_failed: a failed open still gives the handle, to say what and
     * where; without it, no handle */
    static const char junk[] = "this is no container, only text of some length......................";
    memin mj = {(const uint8_t *)junk, sizeof junk - 1, 0};
    simtrace_read_io jio = {mem_read, &mj};
    r = (simtrace_reader *)&mj; /* not NULL: the failed open must set it so */
    CHECK(simtrace_reader_open_io(&r, &jio, NULL) == SIMTRACE_E_BAD_MAGIC && r == NULL);
    simtrace_read_params kp;
    simtrace_read_params_init(&kp);
    kp.keep_failed = 1;
    mj.at = 0;
    CHECK(simtrace_reader_open_io(&r, &jio, &kp) == SIMTRACE_E_BAD_MAGIC && r != NULL);
    uint32_t nst = 9;
    CHECK(simtrace_reader_place(r, &where) == SIMTRACE_OK && where.offset == 0 && strstr(where.detail, "simtrace") &&
          where.stream == UINT64_MAX && strstr(simtrace_reader_message(r), "simtrace"));
    CHECK(simtrace_reader_next_frame(r, &f) == SIMTRACE_E_BAD_MAGIC && f.count == 0);
    CHECK(simtrace_cursor_open(&c, r, NULL, NULL) == SIMTRACE_E_BAD_MAGIC && c == NULL);
    CHECK(simtrace_reader_stream_count(r, &nst) == SIMTRACE_OK && nst == 0);
    simtrace_reader_free(r);
    kp.keep_failed = 2;
    CHECK(simtrace_reader_open_io(&r, &jio, &kp) == SIMTRACE_E_USAGE && r == NULL);
    /* a file cut inside its header: where the input ended */
    kp.keep_failed = 1;
    memin mc = {file, 30, 0};
    simtrace_read_io cio = {mem_read, &mc};
    CHECK(simtrace_reader_open_io(&r, &cio, &kp) == SIMTRACE_E_TRUNCATED && r != NULL &&
          simtrace_reader_place(r, &where) == SIMTRACE_OK && where.offset == 30);
    simtrace_reader_free(r);

    /* a cursor first: the frames are its */
    memin m = {file, len, 0};
    simtrace_read_io io = {mem_read, &m};
    CHECK(simtrace_reader_open_io(&r, &io, NULL) == SIMTRACE_OK);
    CHECK(simtrace_cursor_open(&c, r, NULL, NULL) == SIMTRACE_OK);
    CHECK(simtrace_reader_next_frame(r, &f) == SIMTRACE_E_STATE);
    simtrace_cursor_free(c);
    simtrace_reader_free(r);
    /* cut off: the complete frames, then SIMTRACE_E_TRUNCATED, which stays */
    m = (memin){file, len / 2, 0};
    CHECK(simtrace_reader_open_io(&r, &io, NULL) == SIMTRACE_OK);
    uint64_t n = 0;
    while ((e = simtrace_reader_next_frame(r, &f)) == SIMTRACE_OK && f.count)
        n += f.count;
    CHECK(e == SIMTRACE_E_TRUNCATED && n > 0 && simtrace_reader_message(r)[0] != 0);
    CHECK(simtrace_reader_next_frame(r, &f) == SIMTRACE_E_TRUNCATED);
    simtrace_reader_free(r);
    /* the caller's allocator fails once the reader is open: the stream
     * list cannot grow at the first descriptor, and the read says so
     * rather than go on without the stream (whose frames would have been
     * given under another stream's index) */
    m = (memin){file, len, 0};
    simtrace_allocator al = {refusing_alloc, count_free, NULL};
    simtrace_read_params_init(&rp);
    rp.allocator = &al;
    refuse_allocs = 0;
    CHECK(simtrace_reader_open_io(&r, &io, &rp) == SIMTRACE_OK);
    refuse_allocs = 1;
    CHECK(simtrace_reader_next_frame(r, &f) == SIMTRACE_E_NOMEM && f.count == 0);
    refuse_allocs = 0;
    simtrace_reader_free(r);
    free(file);
}

/* A host's own SIGINT handler: where it ran. */
static pthread_t host_thread;
static volatile sig_atomic_t sig_hits, sig_foreign;
static void on_sigint(int sig)
{
    (void)sig;
    sig_hits++;
    if (!pthread_equal(pthread_self(), host_thread))
        sig_foreign++;
}

/* Signals raised while a sequential cursor reads a pipe with decoder
 * threads reach the host's thread, never one of the library's (they
 * block every signal): the cursor reads on the caller's thread, so a
 * handler's EINTR lands where the host can act on it; and the read still
 * gives every entry. */
static void test_signals_while_reading(const char *path)
{
    size_t len;
    uint8_t *file = slurp_checked(path, &len);
    if (!file)
        return;
    host_thread = pthread_self();
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: reads see EINTR */
    CHECK(sigaction(SIGINT, &sa, &old) == 0);
    int rfd;
    /* written slowly, so that the reads wait for it */
    pid_t pid = feed_pipe(file, len, 4096, 200000, &rfd);
    simtrace_read_params rp;
    simtrace_read_params_init(&rp);
    rp.threads = 2;
    simtrace_reader *r;
    simtrace_cursor *c = NULL;
    CHECK(simtrace_reader_open_fd(&r, rfd, &rp) == SIMTRACE_OK);
    CHECK(kill(getpid(), SIGINT) == 0);
    CHECK(simtrace_cursor_open(&c, r, "cpu0.read", NULL) == SIMTRACE_OK);
    uint8_t buf[32 * 40];
    uint64_t cnt, first, at = 0;
    simtrace_error e;
    int ok = 1, raised = 1;
    while ((e = simtrace_cursor_next(c, buf, sizeof buf, &cnt, &first)) == SIMTRACE_OK && cnt) {
        ok &= first == at && at + cnt <= N_READ && memcmp(buf, rd_raw + 32 * at, (size_t)cnt * 32) == 0;
        at += cnt;
        if (kill(getpid(), SIGINT) == 0) /* the next read meets it */
            raised++;
        CHECK(pthread_kill(host_thread, SIGINT) == 0);
        raised++;
    }
    CHECK(e == SIMTRACE_OK && ok && at == N_READ);
    simtrace_cursor_free(c);
    simtrace_reader_free(r);
    close(rfd);
    waitpid(pid, NULL, 0);
    CHECK(sig_hits == raised && sig_foreign == 0);
    sigaction(SIGINT, &old, NULL);
    free(file);
}

/* ---- exporters (advanced: exporting) ---- */

static simtrace_error wide_value(void *opaque, uint64_t entry, const void **value, size_t *len)
{
    (void)opaque;
    *value = wide_val[entry];
    *len = entry % WIDE_EVERY == 0 ? 16 : 0;
    return SIMTRACE_OK;
}

/* The next entry of stream k of a merge: rd_raw (k 0) or wr_raw (k 1);
 * fail_at: an index of k 1 whose turn fails with SIMTRACE_E_CORRUPT. */
static struct {
    uint64_t pos[2];
    uint64_t fail_at;
} merge_src;
static simtrace_error merge_next(void *opaque, unsigned k, const void **entry, uint64_t *index)
{
    (void)opaque;
    uint64_t i = merge_src.pos[k];
    if (k == 1 && i == merge_src.fail_at)
        return SIMTRACE_E_CORRUPT;
    *entry = i < (k ? N_WRITE : N_READ) ? (k ? wr_raw : rd_raw) + 32 * i : NULL;
    *index = i;
    merge_src.pos[k] += *entry != NULL;
    return SIMTRACE_OK;
}

static size_t count_lines(const membuf *m, const char *prefix)
{
    size_t n = 0, l = strlen(prefix);
    for (size_t i = 0; i < m->n; i++)
        if ((i == 0 || m->p[i - 1] == '\n') && m->n - i >= l && memcmp(m->p + i, prefix, l) == 0)
            n++;
    return n;
}

static int discard_write(void *opaque, const void *buf, size_t n)
{
    (void)opaque;
    (void)buf;
    (void)n;
    return 0;
}

static void test_export(void)
{
    /* the names: counted up to NULL */
    unsigned nf = 0, nm = 0, text = 0;
    for (; simtrace_export_format(nf); nf++)
        text |= strcmp(simtrace_export_format(nf), "text") == 0;
    for (; simtrace_export_merge_format(nm); nm++)
        ;
    CHECK(nf >= 10 && text && strcmp(simtrace_export_format(0), "raw") == 0 && nm >= 5 &&
          strcmp(simtrace_export_merge_format(0), "lackey") == 0 && simtrace_export_format(nf + 7) == NULL);
    /* which types each writes: the exporter's own rule */
    CHECK(simtrace_export_accepts("cvp", SIMTRACE_TYPE_CVP) == 1 &&
          simtrace_export_accepts("cbp2025", SIMTRACE_TYPE_CVP) == 1 &&
          simtrace_export_accepts("cvp", SIMTRACE_TYPE_D64) == 0 &&
          simtrace_export_accepts("champsim", SIMTRACE_TYPE_CHAMPSIM_CS) == 1 &&
          simtrace_export_accepts("champsim", SIMTRACE_TYPE_CVP) == 0 &&
          simtrace_export_accepts("drmemtrace", SIMTRACE_TYPE_DRMEMTRACE) == 1 &&
          simtrace_export_accepts("lackey", SIMTRACE_TYPE_DRMEMTRACE) == 1 &&
          simtrace_export_accepts("lackey", SIMTRACE_TYPE_M32) == 1 &&
          simtrace_export_accepts("vpc3", SIMTRACE_TYPE_VPC) == 1 &&
          simtrace_export_accepts("vpc3", SIMTRACE_TYPE_D64) == 0 &&
          simtrace_export_accepts("raw", SIMTRACE_TYPE_USER) == 1);
    /* not a type (0, the unused 13, past the last), not a format */
    CHECK(simtrace_export_accepts("raw", 0) == 0 && simtrace_export_accepts("raw", 13) == 0 &&
          simtrace_export_accepts("raw", 15) == 0 && simtrace_export_accepts("raw", 99) == 0 &&
          simtrace_export_accepts("nope", SIMTRACE_TYPE_D64) == -1 && simtrace_export_accepts(NULL, 1) == -1 &&
          simtrace_export_accepts("nope", 0) == -1);
    for (unsigned i = 0; simtrace_export_format(i); i++) {
        /* every exporter: accepts() says what simtrace_exporter_new does */
        int agree = 1;
        for (uint32_t t = 1; t <= SIMTRACE_TYPE_DRMEMTRACE; t++) {
            size_t es = simtrace_type_size((int)t);
            if (!es)
                continue;
            simtrace_export_stream xs = {.name = "s", .type = t, .entry_size = (uint32_t)es};
            simtrace_exporter *x = NULL;
            simtrace_error e =
                simtrace_exporter_new(&x, simtrace_export_format(i), &xs, discard_write, NULL, NULL, NULL);
            agree &= (e == SIMTRACE_OK) == (simtrace_export_accepts(simtrace_export_format(i), t) == 1);
            simtrace_exporter_free(x);
        }
        CHECK(agree);
    }
    CHECK(simtrace_export_role("cpu0.fetch") == 'I' && simtrace_export_role("cpu0.write") == 'S' &&
          simtrace_export_role("cpu0.read") == 'L' && simtrace_export_role(NULL) == 'L');

    /* raw in two calls gives the entries back; text writes the whole
     * values the callback gives, and "nv" without it */
    simtrace_export_stream s = {"cpu0.write", SIMTRACE_TYPE_D64, 32, NULL, 0};
    simtrace_exporter *x;
    membuf mb = {NULL, 0, 0};
    CHECK(simtrace_exporter_new(&x, "raw", &s, mem_write, &mb, NULL, NULL) == SIMTRACE_OK);
    CHECK(simtrace_exporter_write(x, 0, wr_raw, 1000) == SIMTRACE_OK &&
          simtrace_exporter_write(x, 1000, wr_raw + 32 * 1000, N_WRITE - 1000) == SIMTRACE_OK &&
          simtrace_exporter_finish(x) == SIMTRACE_OK);
    CHECK(mb.n == sizeof wr_raw && memcmp(mb.p, wr_raw, mb.n) == 0);
    simtrace_exporter_free(x);
    for (int with = 0; with < 2; with++) {
        mb.n = 0;
        CHECK(simtrace_exporter_new(&x, "text", &s, mem_write, &mb, with ? wide_value : NULL, NULL) == SIMTRACE_OK);
        CHECK(simtrace_exporter_write(x, 0, wr_raw, N_WRITE) == SIMTRACE_OK && simtrace_exporter_finish(x) == SIMTRACE_OK);
        simtrace_exporter_free(x);
        CHECK(count_lines(&mb, "# simtrace text 1 stream=cpu0.write type=d64") == 1 &&
              count_lines(&mb, "") == N_WRITE + 1);
        mem_write(&mb, "", 1); /* mb as a string */
        CHECK(!strstr((char *)mb.p, "0x0f0e0d0c0b0a09080706050403020100") == !with);
        mb.n--;
    }

    /* bad arguments and a failing output */
    simtrace_export_stream bad = s;
    x = (simtrace_exporter *)&bad;
    CHECK(simtrace_exporter_new(&x, "nonesuch", &s, mem_write, &mb, NULL, NULL) == SIMTRACE_E_USAGE && x == NULL);
    CHECK(simtrace_exporter_new(&x, "vpc", &s, mem_write, &mb, NULL, NULL) == SIMTRACE_E_UNSUPPORTED && x == NULL);
    bad.entry_size = 24;
    CHECK(simtrace_exporter_new(&x, "raw", &bad, mem_write, &mb, NULL, NULL) == SIMTRACE_E_USAGE);
    bad = s;
    bad.type = 13; /* no such type */
    CHECK(simtrace_exporter_new(&x, "raw", &bad, mem_write, &mb, NULL, NULL) == SIMTRACE_E_USAGE);
    CHECK(simtrace_exporter_new(&x, "raw", &s, NULL, NULL, NULL, NULL) == SIMTRACE_E_USAGE &&
          simtrace_exporter_new(NULL, "raw", &s, mem_write, &mb, NULL, NULL) == SIMTRACE_E_USAGE);
    CHECK(simtrace_exporter_write(NULL, 0, wr_raw, 1) == SIMTRACE_E_USAGE &&
          simtrace_exporter_finish(NULL) == SIMTRACE_E_USAGE);
    simtrace_exporter_free(NULL);
    fail_after = 0;
    CHECK(simtrace_exporter_new(&x, "text", &s, failing_write, NULL, NULL, NULL) == SIMTRACE_OK);
    CHECK(simtrace_exporter_write(x, 0, wr_raw, 1) == SIMTRACE_OK && simtrace_exporter_finish(x) == SIMTRACE_E_WRITE);
    simtrace_exporter_free(x);

    /* a merge by cycle: one stream is what its exporter writes; two in
     * text are every entry of both, after one header line each */
    simtrace_export_stream two[2] = {{"cpu0.read", SIMTRACE_TYPE_D64, 32, NULL, 0}, s};
    membuf one = {NULL, 0, 0};
    CHECK(simtrace_exporter_new(&x, "lackey", &two[0], mem_write, &one, NULL, NULL) == SIMTRACE_OK);
    CHECK(simtrace_exporter_write(x, 0, rd_raw, N_READ) == SIMTRACE_OK && simtrace_exporter_finish(x) == SIMTRACE_OK);
    simtrace_exporter_free(x);
    memset(&merge_src, 0, sizeof merge_src);
    merge_src.fail_at = UINT64_MAX;
    mb.n = 0;
    CHECK(simtrace_export_merged("lackey", two, 1, merge_next, NULL, NULL, NULL, mem_write, &mb) == SIMTRACE_OK);
    CHECK(mb.n == one.n && memcmp(mb.p, one.p, mb.n) == 0);
    free(one.p);
    memset(merge_src.pos, 0, sizeof merge_src.pos);
    mb.n = 0;
    simtrace_export_value_fn vf[2] = {NULL, wide_value};
    CHECK(simtrace_export_merged("text", two, 2, merge_next, NULL, vf, NULL, mem_write, &mb) == SIMTRACE_OK);
    CHECK(count_lines(&mb, "# simtrace text 1") == 2 && count_lines(&mb, "@0 ") == N_READ &&
          count_lines(&mb, "@1 ") == N_WRITE);
    memset(merge_src.pos, 0, sizeof merge_src.pos);
    merge_src.fail_at = 5;
    CHECK(simtrace_export_merged("text", two, 2, merge_next, NULL, vf, NULL, mem_write, &mb) == SIMTRACE_E_CORRUPT);
    CHECK(simtrace_export_merged("vpc", two, 2, merge_next, NULL, NULL, NULL, mem_write, &mb) == SIMTRACE_E_USAGE &&
          simtrace_export_merged("text", two, 0, merge_next, NULL, NULL, NULL, mem_write, &mb) == SIMTRACE_E_USAGE);
    free(mb.p);
}


/* ---- the sequential reader's options (simtrace_reader_open_seq) ---- */

typedef struct {
    simtrace_frame_head h[64];
    unsigned nh, only; /* only: the stream whose frames are decoded; 9: all */
    simtrace_damage dm[16];
    unsigned ndm;
    int stop;          /* the damage callback stops the read */
} seq_seen;

static int seq_want_cb(void *opaque, const simtrace_frame_head *h)
{
    seq_seen *v = opaque;
    if (v->nh < 64)
        v->h[v->nh++] = *h;
    return v->only == 9 || h->index == v->only;
}

static int seq_damage_cb(void *opaque, const struct simtrace_damage *d)
{
    seq_seen *v = opaque;
    if (v->ndm < 16)
        v->dm[v->ndm++] = *d;
    return v->stop;
}

/* Read fd to its end with seq; returns the last error, *frames the frames
 * delivered (all of stream v->only unless 9). */
static simtrace_error seq_read(int fd, simtrace_seq_params *seq, seq_seen *v, unsigned *frames, uint64_t *bytes)
{
    simtrace_reader *r;
    simtrace_error e = simtrace_reader_open_seq(&r, fd, NULL, seq);
    *frames = 0;
    if (e != SIMTRACE_OK)
        return e;
    simtrace_frame f;
    while ((e = simtrace_reader_next_frame(r, &f)) == SIMTRACE_OK && f.count)
        *frames += v->only == 9 || f.index == v->only;
    CHECK(simtrace_reader_bytes_read(r, bytes) == SIMTRACE_OK);
    simtrace_reader_free(r);
    return e;
}

/* A copy of the file with byte at flipped, opened for reading. */
static int damaged_copy(const char *dir, const uint8_t *file, size_t len, uint64_t at)
{
    char p[512];
    snprintf(p, sizeof p, "%s/damaged.sim", dir);
    FILE *f = fopen(p, "wb");
    CHECK(f != NULL && fwrite(file, 1, len, f) == len);
    fclose(f);
    int fd = open(p, O_RDWR);
    uint8_t b = file[at] ^ 0x5a;
    CHECK(fd >= 0 && pwrite(fd, &b, 1, (off_t)at) == 1);
    return fd;
}

static void test_seq_options(const char *path, const char *dir)
{
    size_t len;
    uint8_t *file = slurp_checked(path, &len);
    if (!file)
        return;
    simtrace_stream_info wsi;
    simtrace_reader *ra;
    CHECK(simtrace_reader_open_path(&ra, path, NULL) == SIMTRACE_OK &&
          simtrace_reader_stream_info(ra, 1, &wsi) == SIMTRACE_OK && wsi.frames > 2);
    simtrace_reader_free(ra);
    unsigned w_frames = (unsigned)wsi.frames;
    /* a pipe: only stream 1's frames decoded; every header seen, the
     * default stream (memory stream 0) picked */
    seq_seen v = {.only = 1};
    simtrace_seq_params seq = {.want = seq_want_cb, .want_opaque = &v};
    int rfd;
    pid_t pid = feed_pipe(file, len, 4096, 0, &rfd);
    unsigned frames;
    uint64_t bytes = 0;
    CHECK(seq_read(rfd, &seq, &v, &frames, &bytes) == SIMTRACE_OK);
    close(rfd);
    waitpid(pid, NULL, 0);
    CHECK(bytes == len && frames == w_frames && v.nh > frames);
    int ok = 1;
    for (unsigned i = 0; i < v.nh; i++) {
        ok &= v.h[i].pick == (v.h[i].index == 0 ? SIMTRACE_PICK_READ : SIMTRACE_PICK_SKIP) && !v.h[i].dropped;
        ok &= i == 0 || v.h[i].offset > v.h[i - 1].offset;
        ok &= v.h[i].size > 0 && v.h[i].offset + v.h[i].size <= len;
    }
    CHECK(ok);
    /* the headers are the directory's */
    simtrace_frame_info fi;
    CHECK(simtrace_reader_open_path(&ra, path, NULL) == SIMTRACE_OK);
    CHECK(simtrace_reader_frame_info(ra, v.h[0].index, v.h[0].seq, &fi) == SIMTRACE_OK && fi.offset == v.h[0].offset &&
          fi.stored_bytes == v.h[0].size && fi.first_cycle == v.h[0].first_cycle &&
          fi.last_cycle == v.h[0].last_cycle && fi.entries == v.h[0].count);
    /* stream 1's second frame: its payload's last byte, and its header's first */
    CHECK(simtrace_reader_frame_info(ra, 1, 1, &fi) == SIMTRACE_OK);
    uint64_t w1_offset = fi.offset, w1_size = fi.stored_bytes, w1_first = fi.first_entry, w1_n = fi.entries;
    uint64_t bytes_seq;
    CHECK(simtrace_reader_bytes_read(ra, &bytes_seq) == SIMTRACE_OK && bytes_seq > 0); /* what opening read */
    simtrace_reader_free(ra);

    /* a regular file read in file order, checked only: the end, no frame */
    seq_seen vv = {.only = 9};
    simtrace_seq_params sv = {.want = seq_want_cb, .want_opaque = &vv, .verify_only = 1};
    int fd = open(path, O_RDONLY);
    CHECK(seq_read(fd, &sv, &vv, &frames, &bytes) == SIMTRACE_OK && frames == 0 && bytes == len && vv.nh == v.nh);
    /* the pick rule's end: the stream read is known; no cursor */
    simtrace_reader *r;
    simtrace_cursor *c;
    uint32_t idx = 9;
    int held = 9;
    CHECK(lseek(fd, 0, SEEK_SET) == 0 && simtrace_reader_open_seq(&r, fd, NULL, &seq) == SIMTRACE_OK);
    CHECK(simtrace_reader_pick_end(r, &idx, &held) == SIMTRACE_E_NOT_FOUND); /* no frame yet */
    uint32_t rs = 9, hs = 9;
    CHECK(simtrace_reader_pick_state(r, &rs, &hs) == SIMTRACE_OK && rs == UINT32_MAX && hs == UINT32_MAX);
    CHECK(simtrace_reader_pick_state(r, NULL, &hs) == SIMTRACE_E_USAGE);
    CHECK(simtrace_cursor_open(&c, r, NULL, NULL) == SIMTRACE_E_STATE);
    simtrace_frame f;
    while (simtrace_reader_next_frame(r, &f) == SIMTRACE_OK && f.count)
        ;
    CHECK(simtrace_reader_pick_state(r, &rs, &hs) == SIMTRACE_OK && rs == 0 && hs == UINT32_MAX);
    CHECK(simtrace_reader_pick_end(r, &idx, &held) == SIMTRACE_OK && idx == 0 && held == 0);
    CHECK(simtrace_reader_pick_end(r, NULL, &held) == SIMTRACE_E_USAGE);
    simtrace_reader_free(r);
    CHECK(simtrace_reader_open_path(&ra, path, NULL) == SIMTRACE_OK &&
          simtrace_reader_pick_end(ra, &idx, &held) == SIMTRACE_E_STATE);
    CHECK(simtrace_reader_pick_state(ra, &rs, &hs) == SIMTRACE_E_STATE);
    simtrace_reader_free(ra);
    /* a named stream */
    seq_seen vn = {.only = 9};
    simtrace_seq_params sn = {.stream = "cpu0.write", .want = seq_want_cb, .want_opaque = &vn};
    CHECK(lseek(fd, 0, SEEK_SET) == 0 && seq_read(fd, &sn, &vn, &frames, &bytes) == SIMTRACE_OK);
    ok = 1;
    for (unsigned i = 0; i < vn.nh; i++)
        ok &= vn.h[i].pick == (vn.h[i].index == 1 ? SIMTRACE_PICK_READ : SIMTRACE_PICK_SKIP);
    CHECK(ok);
    close(fd);
    /* usage */
    simtrace_seq_params bad = {.resync = 1};
    CHECK(simtrace_reader_open_seq(&r, 0, NULL, &bad) == SIMTRACE_E_USAGE && r == NULL);
    bad = (simtrace_seq_params){.verify_only = 2};
    CHECK(simtrace_reader_open_seq(&r, 0, NULL, &bad) == SIMTRACE_E_USAGE);
    bad = (simtrace_seq_params){.reserved = {0, 1}};
    CHECK(simtrace_reader_open_seq(&r, 0, NULL, &bad) == SIMTRACE_E_USAGE);
    CHECK(simtrace_reader_open_seq(&r, -1, NULL, &seq) == SIMTRACE_E_USAGE &&
          simtrace_reader_open_seq(&r, 0, NULL, NULL) == SIMTRACE_E_USAGE);
    CHECK(simtrace_reader_bytes_read(NULL, &bytes) == SIMTRACE_E_USAGE);

    /* a damaged payload: without a damage callback it ends the read; with
     * one, the frame is reported and the read goes on */
    fd = damaged_copy(dir, file, len, w1_offset + w1_size - 1);
    seq_seen vd = {.only = 1};
    simtrace_seq_params sd = {.want = seq_want_cb, .want_opaque = &vd};
    simtrace_error e = seq_read(fd, &sd, &vd, &frames, &bytes);
    CHECK(simtrace_error_is_data(e) && frames == 1);
    sd.damage = seq_damage_cb;
    sd.damage_opaque = &vd;
    vd.nh = 0;
    CHECK(lseek(fd, 0, SEEK_SET) == 0 && seq_read(fd, &sd, &vd, &frames, &bytes) == SIMTRACE_OK);
    CHECK(frames == w_frames - 1 && vd.ndm == 1 && vd.dm[0].kind == SIMTRACE_DAMAGE_FRAME &&
          vd.dm[0].stream == 1 && vd.dm[0].seq == 1 && vd.dm[0].offset == w1_offset && vd.dm[0].size == w1_size &&
          vd.dm[0].first_entry == w1_first && vd.dm[0].entries == w1_n && simtrace_error_is_data((int)vd.dm[0].error) &&
          vd.dm[0].at_offset != UINT64_MAX && bytes == len);
    /* a callback that stops the read */
    vd.stop = 1;
    vd.ndm = 0;
    CHECK(lseek(fd, 0, SEEK_SET) == 0 && seq_read(fd, &sd, &vd, &frames, &bytes) == SIMTRACE_E_WRITE &&
          vd.ndm == 1 && bytes < len);
    close(fd);

    /* a damaged frame header: without resync the read ends there; with it,
     * the bytes passed over are reported, then the frame lost in them */
    fd = damaged_copy(dir, file, len, w1_offset);
    seq_seen vg = {.only = 1};
    simtrace_seq_params sg = {.want = seq_want_cb, .want_opaque = &vg, .damage = seq_damage_cb, .damage_opaque = &vg};
    e = seq_read(fd, &sg, &vg, &frames, &bytes);
    CHECK(simtrace_error_is_data(e) && vg.ndm == 0 && frames == 1);
    sg.resync = 1;
    vg.nh = 0;
    CHECK(lseek(fd, 0, SEEK_SET) == 0 && seq_read(fd, &sg, &vg, &frames, &bytes) == SIMTRACE_OK);
    ok = vg.ndm >= 2 && vg.dm[0].kind == SIMTRACE_DAMAGE_GAP && vg.dm[0].stream == UINT32_MAX &&
         vg.dm[0].offset == w1_offset && vg.dm[0].size > 0;
    int lost = 0;
    for (unsigned i = 1; i < vg.ndm; i++)
        lost |= vg.dm[i].kind == SIMTRACE_DAMAGE_LOST && vg.dm[i].stream == 1 && vg.dm[i].seq == 1 &&
                vg.dm[i].first_entry == w1_first && vg.dm[i].entries == w1_n;
    CHECK(ok && lost && frames == w_frames - 1);
    close(fd);
    free(file);
}

/* simtrace_seq_params.range: the stream read, cut as a random-access
 * cursor cuts it (the same entries, in the same order), the frames the
 * range cannot touch not decoded, the other streams' frames whole. */
static void test_seq_range(const char *path)
{
    simtrace_reader *ra;
    simtrace_stream_info si;
    simtrace_frame_info f1, f4;
    CHECK(simtrace_reader_open_path(&ra, path, NULL) == SIMTRACE_OK && simtrace_reader_stream_info(ra, 0, &si) == SIMTRACE_OK &&
          simtrace_reader_frame_info(ra, 0, 1, &f1) == SIMTRACE_OK && simtrace_reader_frame_info(ra, 0, 4, &f4) == SIMTRACE_OK);
    /* cycles from inside frame 1 to inside frame 4 */
    simtrace_range ranges[] = {{SIMTRACE_RANGE_ENTRIES, 0, 450, 1000},
                               {SIMTRACE_RANGE_CYCLES, 0, f1.first_cycle + 1, f4.last_cycle},
                               {SIMTRACE_RANGE_ENTRIES, 0, N_READ + 5, UINT64_MAX}};
    for (unsigned k = 0; k < sizeof ranges / sizeof ranges[0]; k++) {
        static uint8_t want[N_READ * 32], got[N_READ * 32];
        uint64_t nwant = 0, ngot = 0, n, first, got_first = UINT64_MAX, want_first = UINT64_MAX;
        simtrace_cursor *c;
        CHECK(simtrace_cursor_open(&c, ra, NULL, &ranges[k]) == SIMTRACE_OK);
        while (simtrace_cursor_next(c, want + nwant * si.entry_size, sizeof want - nwant * si.entry_size, &n, &first) ==
                   SIMTRACE_OK && n) {
            if (!nwant)
                want_first = first;
            nwant += n;
        }
        simtrace_cursor_free(c);
        seq_seen v = {.only = 9};
        simtrace_seq_params sp = {.want = seq_want_cb, .want_opaque = &v, .range = &ranges[k]};
        simtrace_reader *r;
        int fd = open(path, O_RDONLY);
        CHECK(fd >= 0 && simtrace_reader_open_seq(&r, fd, NULL, &sp) == SIMTRACE_OK);
        simtrace_frame f;
        unsigned decoded0 = 0, others = 0, ok = 1;
        while (simtrace_reader_next_frame(r, &f) == SIMTRACE_OK && f.count) {
            if (f.index != 0) {
                others++;
                ok &= f.pick == SIMTRACE_PICK_SKIP;
                continue;
            }
            ok &= f.pick == SIMTRACE_PICK_READ && (ngot + f.count) * si.entry_size <= sizeof got;
            if (!ok)
                break;
            if (!ngot)
                got_first = f.first_entry;
            memcpy(got + ngot * si.entry_size, f.entries, f.count * si.entry_size);
            ngot += f.count;
            decoded0++;
        }
        simtrace_reader_free(r);
        close(fd);
        unsigned heads0 = 0, touched = 0;
        for (unsigned i = 0; i < v.nh; i++)
            if (v.h[i].index == 0) {
                heads0++;
                touched += k == 0 ? v.h[i].first_entry < 1000 && v.h[i].first_entry + v.h[i].count > 450 : 0;
            }
        CHECK(ok && ngot == nwant && got_first == (nwant ? want_first : UINT64_MAX) &&
              memcmp(got, want, nwant * si.entry_size) == 0);
        /* every header seen, every write frame whole, the read stream's
         * frames outside the range not decoded */
        CHECK(heads0 == si.frames && others > 0 && decoded0 < si.frames && (k != 0 || decoded0 == touched));
        CHECK(k != 0 || (nwant == 550 && want_first == 450));
        CHECK(k != 2 || (nwant == 0 && decoded0 == 0));
    }
    simtrace_reader_free(ra);
    /* a range that is no range */
    simtrace_range bad = {SIMTRACE_RANGE_ENTRIES, 0, 9, 3};
    simtrace_seq_params sb = {.range = &bad};
    simtrace_reader *r;
    CHECK(simtrace_reader_open_seq(&r, 0, NULL, &sb) == SIMTRACE_E_USAGE && r == NULL);
}

/* SIMTRACE_SEQ_HOLD_MAX is the bound the library's cursor holds a first
 * stream to: read from a pipe, a first stream (not a memory stream) of
 * exactly that many bytes is held and read; one byte more is refused. */
static void test_seq_hold_max(void)
{
    uint8_t *bytes = calloc(SIMTRACE_SEQ_HOLD_MAX + 1, 1);
    CHECK(bytes != NULL);
    for (size_t n = SIMTRACE_SEQ_HOLD_MAX; bytes && n <= SIMTRACE_SEQ_HOLD_MAX + 1; n++) {
        membuf mb = {NULL, 0, 0};
        simtrace_write_io wio = {mem_write, &mb};
        simtrace_write_params wp;
        simtrace_write_params_init(&wp); /* (big frames, the fast encoder: 64 MiB in a second) */
        wp.level = 1;
        simtrace_writer *w;
        CHECK(simtrace_writer_create_io(&w, &wio, &wp) == SIMTRACE_OK);
        write_raw_then_memory(w, bytes, n, 0);
        int rfd;
        pid_t pid = feed_pipe(mb.p, mb.n, mb.n, 0, &rfd);
        simtrace_reader *r;
        simtrace_cursor *c = NULL;
        CHECK(simtrace_reader_open_fd(&r, rfd, NULL) == SIMTRACE_OK);
        simtrace_error e = simtrace_cursor_open(&c, r, NULL, NULL);
        uint64_t total = 0, k;
        const void *q;
        while (e == SIMTRACE_OK && simtrace_cursor_peek(c, &q, &k, NULL) == SIMTRACE_OK && k)
            total += k;
        CHECK(n == SIMTRACE_SEQ_HOLD_MAX ? e == SIMTRACE_OK && total == n : e == SIMTRACE_E_USAGE);
        simtrace_cursor_free(c);
        simtrace_reader_free(r);
        close(rfd);
        waitpid(pid, NULL, 0);
        free(mb.p);
    }
    free(bytes);
}

/* The default stream read sequentially: the first stream, not a memory
 * stream, is held (SIMTRACE_PICK_HOLD) until a memory stream replaces it
 * (dropped) or the end makes it the stream read (simtrace_reader_pick_end). */
static void test_seq_pick(const char *dir)
{
    uint8_t bytes[3000];
    memset(bytes, 7, sizeof bytes);
    char p[512];
    snprintf(p, sizeof p, "%s/pick.sim", dir);
    for (int late_memory = 0; late_memory < 2; late_memory++) {
        simtrace_write_params wp;
        fill_params(&wp, 1);
        simtrace_writer *w;
        CHECK(simtrace_writer_create_path(&w, p, &wp) == SIMTRACE_OK);
        write_raw_then_memory(w, bytes, sizeof bytes, late_memory);
        seq_seen v = {.only = 9};
        simtrace_seq_params seq = {.want = seq_want_cb, .want_opaque = &v};
        int fd = open(p, O_RDONLY);
        simtrace_reader *r;
        CHECK(fd >= 0 && simtrace_reader_open_seq(&r, fd, NULL, &seq) == SIMTRACE_OK);
        simtrace_frame f;
        while (simtrace_reader_next_frame(r, &f) == SIMTRACE_OK && f.count)
            ;
        uint32_t idx = 9, rs = 9, hs = 9;
        int held = 9;
        /* before the end: the memory stream read, or the first stream held */
        CHECK(simtrace_reader_pick_state(r, &rs, &hs) == SIMTRACE_OK &&
              (late_memory ? rs == 1 && hs == UINT32_MAX : rs == UINT32_MAX && hs == 0));
        CHECK(simtrace_reader_pick_end(r, &idx, &held) == SIMTRACE_OK);
        CHECK(simtrace_reader_pick_state(r, &rs, &hs) == SIMTRACE_OK && rs == idx && hs == UINT32_MAX);
        int ok = v.nh > 1 && v.h[0].index == 0 && v.h[0].pick == SIMTRACE_PICK_HOLD && !v.h[0].dropped;
        for (unsigned i = 1; i < v.nh; i++)
            ok &= v.h[i].index == 0 ? v.h[i].pick == SIMTRACE_PICK_HOLD || late_memory
                                    : v.h[i].pick == SIMTRACE_PICK_READ && v.h[i].dropped == (v.h[i].seq == 0);
        CHECK(ok && (late_memory ? idx == 1 && held == 0 : idx == 0 && held == 1));
        simtrace_reader_free(r);
        /* stream_types: the first stream of those types, read at once
         * (nothing held), whatever follows; none of them: nothing read */
        const uint32_t masks[3] = {1u << SIMTRACE_TYPE_BYTES, 1u << SIMTRACE_TYPE_D64 | 1u << SIMTRACE_TYPE_CVP,
                                   1u << SIMTRACE_TYPE_CVP};
        for (int m = 0; m < 3; m++) {
            uint32_t want = m == 0 ? 0 : m == 1 && late_memory ? 1 : UINT32_MAX;
            seq_seen vt = {.only = 9};
            simtrace_seq_params st = {.want = seq_want_cb, .want_opaque = &vt, .stream_types = masks[m]};
            CHECK(lseek(fd, 0, SEEK_SET) == 0 && simtrace_reader_open_seq(&r, fd, NULL, &st) == SIMTRACE_OK);
            while (simtrace_reader_next_frame(r, &f) == SIMTRACE_OK && f.count)
                ;
            ok = vt.nh > 1;
            for (unsigned i = 0; i < vt.nh; i++)
                ok &= vt.h[i].pick == (vt.h[i].index == want ? SIMTRACE_PICK_READ : SIMTRACE_PICK_SKIP) &&
                      !vt.h[i].dropped;
            CHECK(ok && simtrace_reader_pick_state(r, &rs, &hs) == SIMTRACE_OK && rs == want && hs == UINT32_MAX);
            simtrace_error pe = simtrace_reader_pick_end(r, &idx, &held);
            CHECK(pe == (want == UINT32_MAX ? SIMTRACE_E_NOT_FOUND : SIMTRACE_OK));
            simtrace_reader_free(r);
        }
        close(fd);
    }
    /* usage: a name and types, or the reserved word set */
    simtrace_reader *r;
    simtrace_seq_params bad = {.stream = "raw", .stream_types = 2};
    CHECK(simtrace_reader_open_seq(&r, 0, NULL, &bad) == SIMTRACE_E_USAGE && r == NULL);
    bad = (simtrace_seq_params){.reserved32 = 1};
    CHECK(simtrace_reader_open_seq(&r, 0, NULL, &bad) == SIMTRACE_E_USAGE && r == NULL);
    /* a bit that names no type, alone or beside one that does; every
     * known type's bit alone is taken */
    const int no_type[] = {SIMTRACE_TYPE_NONE, 13, SIMTRACE_TYPE_DRMEMTRACE + 1, 31};
    for (size_t k = 0; k < sizeof no_type / sizeof no_type[0]; k++) {
        bad = (simtrace_seq_params){.stream_types = 1u << no_type[k]};
        CHECK(simtrace_reader_open_seq(&r, 0, NULL, &bad) == SIMTRACE_E_USAGE && r == NULL);
        bad.stream_types |= 1u << SIMTRACE_TYPE_CVP;
        CHECK(simtrace_reader_open_seq(&r, 0, NULL, &bad) == SIMTRACE_E_USAGE && r == NULL);
    }
    int fds[2];
    CHECK(pipe(fds) == 0);
    close(fds[1]);
    for (int t = SIMTRACE_TYPE_D64; t <= SIMTRACE_TYPE_DRMEMTRACE; t++) {
        if (t == 13)
            continue;
        simtrace_seq_params one = {.stream_types = 1u << t};
        simtrace_error oe = simtrace_reader_open_seq(&r, fds[0], NULL, &one);
        CHECK(oe != SIMTRACE_E_USAGE);
        simtrace_reader_free(r);
    }
    close(fds[0]);
}

int main(void)
{
    char dir[] = "/tmp/test_api.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char path[512], path3[512];
    snprintf(path, sizeof path, "%s/t.sim", dir);
    snprintf(path3, sizeof path3, "%s/t3.sim", dir);
    make_entries();
    test_common();
    test_export();
    test_options();
    test_writer_errors(dir);
    test_write_failure();

    /* the same trace through a path (1 thread, the caller's allocator), a
     * descriptor (3 threads) and callbacks: the same bytes */
    simtrace_write_params p;
    fill_params(&p, 1);
    simtrace_allocator al = {count_alloc, count_free, NULL};
    p.allocator = &al;
    simtrace_writer *w;
    CHECK(simtrace_writer_create_path(&w, path, &p) == SIMTRACE_OK);
    CHECK(write_trace(w) == 0);
    CHECK(simtrace_writer_close(w) == SIMTRACE_OK);
    simtrace_writer_free(w);
    CHECK(counted.allocs > 0 && counted.allocs == counted.frees);
    fill_params(&p, 3);
    FILE *f3 = fopen(path3, "wb");
    CHECK(f3 != NULL);
    CHECK(simtrace_writer_create_fd(&w, fileno(f3), &p) == SIMTRACE_OK);
    CHECK(write_trace(w) == 0);
    CHECK(simtrace_writer_close(w) == SIMTRACE_OK);
    simtrace_writer_free(w);
    fclose(f3);
    membuf mb = {NULL, 0, 0};
    simtrace_write_io io = {mem_write, &mb};
    CHECK(simtrace_writer_create_io(&w, &io, NULL) == SIMTRACE_OK);
    simtrace_writer_free(w); /* header only: a trace never closed */
    CHECK(mb.n == SIMTRACE_FILE_HEADER_SIZE);
    mb.n = 0;
    fill_params(&p, 2);
    CHECK(simtrace_writer_create_io(&w, &io, &p) == SIMTRACE_OK);
    CHECK(write_trace(w) == 0);
    CHECK(simtrace_writer_close(w) == SIMTRACE_OK);
    simtrace_writer_free(w);
    size_t n1, n3;
    uint8_t *b1 = check_slurp(path, &n1), *b3 = check_slurp(path3, &n3);
    CHECK(b1 && b3 && n1 == n3 && n1 == mb.n && memcmp(b1, b3, n1) == 0 && memcmp(b1, mb.p, n1) == 0);
    free(b1);
    free(b3);
    free(mb.p);

    counted.allocs = counted.frees = 0;
    test_open_errno(dir);
    test_random_access(path);
    test_frame_info(path);
    {
        /* a copy whose second frame of cpu0.read has a bad payload byte */
        char dmg[512];
        snprintf(dmg, sizeof dmg, "%s/damaged.sim", dir);
        simtrace_reader *rr;
        simtrace_frame_info f1;
        size_t dl;
        uint8_t *img = check_slurp(path, &dl);
        CHECK(simtrace_reader_open_path(&rr, path, NULL) == SIMTRACE_OK &&
              simtrace_reader_frame_info(rr, 0, 1, &f1) == SIMTRACE_OK);
        simtrace_reader_free(rr);
        img[f1.offset + f1.stored_bytes - 1] ^= 0x40;
        FILE *df = fopen(dmg, "wb");
        fwrite(img, 1, dl, df);
        fclose(df);
        free(img);
        test_ranges(path, dmg);
        unlink(dmg);
    }
    test_sequential(path);
    test_signals_while_reading(path);
    test_sequential_default();
    test_next_frame(path);
    test_seq_options(path, dir);
    test_seq_range(path);
    test_seq_pick(dir);
    test_seq_hold_max();

    /* the reader's allocator: used, and everything given back */
    simtrace_read_params rp;
    simtrace_read_params_init(&rp);
    rp.allocator = &al;
    simtrace_reader *r;
    simtrace_cursor *c;
    CHECK(simtrace_reader_open_path(&r, path, &rp) == SIMTRACE_OK);
    CHECK(simtrace_reader_complete(r) == 1 && strcmp(simtrace_reader_message(r), "") == 0);
    CHECK(simtrace_reader_complete(NULL) == -1);
    CHECK(simtrace_cursor_open(&c, r, NULL, NULL) == SIMTRACE_OK);
    simtrace_cursor_free(c);
    simtrace_reader_free(r);
    CHECK(counted.allocs >= 2 && counted.allocs == counted.frees);

    /* a file cut off (no directory): read through its frame headers */
    size_t len;
    uint8_t *whole = check_slurp(path, &len);
    FILE *cut = fopen(path3, "wb");
    fwrite(whole, 1, len / 2, cut);
    fclose(cut);
    CHECK(simtrace_reader_open_path(&r, path3, NULL) == SIMTRACE_OK);
    simtrace_stream_info si;
    CHECK(simtrace_reader_stream_info(r, 0, &si) == SIMTRACE_OK && si.entries > 0 && si.entries < N_READ);
    /* and the reader says so, and how far it got */
    char cut_at[64];
    snprintf(cut_at, sizeof cut_at, "of %zu", len / 2);
    CHECK(simtrace_reader_complete(r) == 0 && strstr(simtrace_reader_message(r), "no valid directory and footer") &&
          strstr(simtrace_reader_message(r), "read through its frame headers") &&
          strstr(simtrace_reader_message(r), cut_at));
    static uint8_t buf[N_READ * 32];
    uint64_t cnt;
    CHECK(simtrace_reader_read(r, 0, 0, UINT64_MAX, buf, sizeof buf, &cnt) == SIMTRACE_OK && cnt == si.entries &&
          memcmp(buf, rd_raw, (size_t)cnt * 32) == 0);
    /* the frame cut off: its stream's entries from the last complete one on */
    simtrace_cut_frame cf;
    simtrace_recovery_info ri;
    simtrace_stream_info cs;
    CHECK(simtrace_reader_cut_frame(r, &cf) == SIMTRACE_OK && simtrace_reader_recovery(r, &ri) == SIMTRACE_OK);
    CHECK(simtrace_reader_stream_info(r, cf.stream, &cs) == SIMTRACE_OK && cf.first_entry == cs.entries &&
          cf.entries > 0 && cf.entries <= FRAME && cf.offset == ri.frames_end && !cf.has_time);
    CHECK(simtrace_reader_cut_frame(r, NULL) == SIMTRACE_E_USAGE && simtrace_reader_cut_frame(NULL, &cf) == SIMTRACE_E_USAGE);
    CHECK(!ri.tail_lost); /* the cut frame explains the bytes after the list */
    simtrace_reader_free(r);

    /* cut inside that frame's header: no frame is known cut, but the bytes
     * may have held entries, of its stream once they reach its field */
    static const size_t header_cuts[] = {0, 1, 4, 5, 11, 12, 95};
    for (size_t k = 0; k < sizeof header_cuts / sizeof *header_cuts; k++) {
        size_t at = (size_t)cf.offset + header_cuts[k];
        cut = fopen(path3, "wb");
        fwrite(whole, 1, at, cut);
        fclose(cut);
        CHECK(simtrace_reader_open_path(&r, path3, NULL) == SIMTRACE_OK);
        simtrace_recovery_info ti;
        simtrace_cut_frame none;
        CHECK(simtrace_reader_recovery(r, &ti) == SIMTRACE_OK && ti.frames_end == cf.offset && ti.file_size == at);
        CHECK(simtrace_reader_cut_frame(r, &none) == SIMTRACE_E_NOT_FOUND);
        CHECK(ti.tail_lost == (header_cuts[k] > 0));
        CHECK(ti.tail_stream == (header_cuts[k] >= 12 ? cf.stream : UINT32_MAX));
        CHECK(simtrace_reader_complete(r) == 0 &&
              (strstr(simtrace_reader_message(r), "may have held entries") != NULL) == (header_cuts[k] > 0));
        simtrace_reader_free(r);
    }
    free(whole);

    unlink(path);
    unlink(path3);
    char ep[512];
    snprintf(ep, sizeof ep, "%s/errors.sim", dir);
    unlink(ep);
    rmdir(dir);
    return check_done("test_api");
}
