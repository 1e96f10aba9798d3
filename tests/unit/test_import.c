/* Imports into a writer through the public API (include/simtrace.h,
 * "advanced: packing"), from the repository's root (make unit):
 *   - the sample of each format in testdata/good imported with
 *     simtrace_writer_import gives the container simtrace-pack --from
 *     writes (build/simtrace-pack, or $SVPC_BIN/simtrace-pack), byte for
 *     byte;
 *   - raw entries of an xz file appended with simtrace_writer_append_fd
 *     (unpacked by the library) give the container of the same entries
 *     decompressed by xz(1) and appended with no_unpack;
 *   - a partial entry, a malformed line and an unknown format are
 *     reported with their place, and the writer stays usable;
 *   - the second stage and level of simtrace_write_params. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../include/simtrace.h"
#include "check.h"

typedef struct {
    uint8_t *p;
    size_t n, cap;
} membuf;

static int mem_write(void *opaque, const void *buf, size_t size)
{
    membuf *m = opaque;
    if (m->n + size > m->cap) {
        size_t cap = (m->n + size) * 2;
        uint8_t *p = realloc(m->p, cap);
        if (!p)
            return -1;
        m->p = p;
        m->cap = cap;
    }
    memcpy(m->p + m->n, buf, size);
    m->n += size;
    return 0;
}

static simtrace_writer *new_writer(membuf *m, int check_cycles)
{
    simtrace_write_params p;
    simtrace_write_params_init(&p);
    p.threads = 2;
    p.check_cycles = (uint32_t)check_cycles;
    simtrace_write_io io = {mem_write, m};
    simtrace_writer *w = NULL;
    CHECK(simtrace_writer_create_io(&w, &io, &p) == SIMTRACE_OK);
    return w;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16;
    uint8_t *p = malloc(cap);
    *n = 0;
    size_t k;
    while (p && (k = fread(p + *n, 1, cap - *n, f)) > 0) {
        *n += k;
        if (*n == cap) {
            uint8_t *q = realloc(p, cap *= 2);
            if (!q) {
                free(p);
                p = NULL;
            }
            p = q;
        }
    }
    fclose(f);
    return p;
}

/* Run argv, 0 when it exits 0. */
static int run(char *const argv[])
{
    pid_t pid = fork();
    if (pid == 0) {
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void import_matches_pack(const char *prog, const char *format, const char *sample)
{
    membuf m = {0};
    simtrace_writer *w = new_writer(&m, 1);
    int fd = open(sample, O_RDONLY);
    CHECK(fd >= 0);
    simtrace_import_report rep;
    simtrace_error e = simtrace_writer_import(w, fd, format, NULL, &rep);
    if (e != SIMTRACE_OK)
        fprintf(stderr, "%s: %s: %s\n", sample, simtrace_error_name(e), simtrace_writer_message(w));
    CHECK(e == SIMTRACE_OK && rep.entries > 0 && rep.usable == 1 && rep.unpack_error == SIMTRACE_OK);
    CHECK(simtrace_writer_close(w) == SIMTRACE_OK);
    simtrace_writer_free(w);
    close(fd);

    char out[] = "/tmp/test_import_XXXXXX";
    int ofd = mkstemp(out);
    CHECK(ofd >= 0);
    close(ofd);
    char *argv[] = {(char *)prog, "-q", "-f", "--from", (char *)format, "-o", out, (char *)sample, NULL};
    CHECK(run(argv) == 0);
    size_t n = 0;
    uint8_t *want = slurp(out, &n);
    unlink(out);
    CHECK(want && n == m.n && memcmp(want, m.p, n) == 0);
    if (!(want && n == m.n && memcmp(want, m.p, n) == 0))
        fprintf(stderr, "%s: the API wrote %zu bytes, simtrace-pack %zu\n", sample, m.n, n);
    free(want);
    free(m.p);
}

/* Append the raw entries of fd to a new d64 stream "trace"; the bytes. */
static membuf append_raw(int fd, int no_unpack, simtrace_import_report *rep)
{
    membuf m = {0};
    simtrace_writer *w = new_writer(&m, 0);
    uint32_t id;
    CHECK(simtrace_writer_add_stream(w, "trace", SIMTRACE_TYPE_D64, &id) == SIMTRACE_OK);
    simtrace_import_params p;
    simtrace_import_params_init(&p);
    p.no_unpack = (uint32_t)no_unpack;
    CHECK(simtrace_writer_append_fd(w, id, fd, &p, rep) == SIMTRACE_OK);
    CHECK(simtrace_writer_close(w) == SIMTRACE_OK);
    simtrace_writer_free(w);
    return m;
}

static void raw_compressed(void)
{
    const char *xzfile = "testdata/good/lackey_cc1_read.d64.xz";
    int fd = open(xzfile, O_RDONLY);
    CHECK(fd >= 0);
    simtrace_import_report rep;
    membuf a = append_raw(fd, 0, &rep);
    close(fd);
    CHECK(strcmp(rep.unpacked, "xz") == 0 && rep.entries > 0 && rep.bytes == rep.entries * 32 &&
          rep.partial_bytes == 0);
    /* the same entries decompressed by xz(1) */
    char cmd[256];
    snprintf(cmd, sizeof cmd, "xz -dc %s", xzfile);
    FILE *f = popen(cmd, "r");
    CHECK(f != NULL);
    simtrace_import_report rep2;
    membuf b = append_raw(fileno(f), 1, &rep2);
    CHECK(pclose(f) == 0);
    CHECK(rep2.unpacked[0] == 0 && rep2.entries == rep.entries);
    CHECK(a.n == b.n && memcmp(a.p, b.p, a.n) == 0);
    free(a.p);
    free(b.p);
}

static void bad_inputs(void)
{
    char path[] = "/tmp/test_import_bad_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    uint8_t raw[32 * 3 + 5] = {0};
    CHECK(write(fd, raw, sizeof raw) == (ssize_t)sizeof raw);
    CHECK(lseek(fd, 0, SEEK_SET) == 0);
    membuf m = {0};
    simtrace_writer *w = new_writer(&m, 0);
    uint32_t id;
    CHECK(simtrace_writer_add_stream(w, "trace", SIMTRACE_TYPE_D64, &id) == SIMTRACE_OK);
    simtrace_import_report rep;
    CHECK(simtrace_writer_append_fd(w, id, fd, NULL, &rep) == SIMTRACE_E_PARTIAL_ENTRY);
    CHECK(rep.entries == 3 && rep.partial_bytes == 5 && rep.where.offset == 96 && rep.usable == 1);

    /* a malformed lackey line: its line and offset */
    const char *text = " L 04000000,8\n S 04000008,8\nbogus line\n";
    CHECK(ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0);
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    CHECK(lseek(fd, 0, SEEK_SET) == 0);
    simtrace_import_params p;
    simtrace_import_params_init(&p);
    p.prefix = "x";
    CHECK(simtrace_writer_import(w, fd, "lackey", &p, &rep) == SIMTRACE_E_SYNTAX);
    /* the read and write, and the fetch stream's continuation entries */
    CHECK(rep.where.line == 3 && rep.usable == 1 && rep.entries >= 2 && rep.where.detail[0]);
    CHECK(simtrace_writer_import(w, fd, "no-such-format", NULL, &rep) == SIMTRACE_E_USAGE);
    CHECK(simtrace_writer_close(w) == SIMTRACE_OK);
    simtrace_writer_free(w);
    free(m.p);
    close(fd);
    unlink(path);

    int text_fmt = -1;
    CHECK(simtrace_import_format(0, &text_fmt) != NULL);
    unsigned k = 0;
    while (simtrace_import_format(k, NULL))
        k++;
    CHECK(k >= 8);
    int is_text = 1;
    for (unsigned i = 0; i < k; i++)
        if (strcmp(simtrace_import_format(i, &is_text), "vpc") == 0)
            CHECK(is_text == 0);
}

/* The second stage and level of the params: out of range refused; each
 * stage gives a trace read back whole, and they differ. */
static void stages(void)
{
    simtrace_write_params p;
    simtrace_write_params_init(&p);
    simtrace_writer *w = NULL;
    membuf m = {0};
    simtrace_write_io io = {mem_write, &m};
    p.stage = SIMTRACE_STAGE_NONE + 1;
    CHECK(simtrace_writer_create_io(&w, &io, &p) == SIMTRACE_E_USAGE && w == NULL);
    p.stage = SIMTRACE_STAGE_LZMA;
    p.level = 10;
    CHECK(simtrace_writer_create_io(&w, &io, &p) == SIMTRACE_E_USAGE && w == NULL);
    uint8_t raw[32 * 4096];
    unsigned long long seed = 7;
    for (unsigned i = 0; i < 4096; i++) {
        simtrace_entry e = {i, 1, 0x400000 + (check_rand(&seed) & 0xff), 0x10000 + 8 * (i % 64), i & 0xff};
        simtrace_entry_pack(SIMTRACE_TYPE_D64, &e, raw + 32 * i);
    }
    size_t sizes[5] = {0};
    for (uint32_t st = SIMTRACE_STAGE_LZMA; st <= SIMTRACE_STAGE_NONE; st++) {
        membuf out = {0};
        simtrace_write_io oio = {mem_write, &out};
        simtrace_write_params_init(&p);
        p.profile_name = "generic";
        p.stage = st;
        p.level = 9;
        uint32_t id;
        CHECK(simtrace_writer_create_io(&w, &oio, &p) == SIMTRACE_OK);
        CHECK(simtrace_writer_add_stream(w, "t", SIMTRACE_TYPE_D64, &id) == SIMTRACE_OK);
        CHECK(simtrace_writer_write(w, id, raw, 4096) == SIMTRACE_OK);
        CHECK(simtrace_writer_close(w) == SIMTRACE_OK);
        simtrace_writer_free(w);
        sizes[st] = out.n;
        char path[] = "/tmp/test_import_st_XXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0 && write(fd, out.p, out.n) == (ssize_t)out.n);
        close(fd);
        simtrace_reader *r;
        uint8_t back[sizeof raw];
        uint64_t cnt = 0;
        CHECK(simtrace_reader_open_path(&r, path, NULL) == SIMTRACE_OK);
        CHECK(simtrace_reader_read(r, 0, 0, UINT64_MAX, back, sizeof back, &cnt) == SIMTRACE_OK && cnt == 4096 &&
              memcmp(back, raw, sizeof raw) == 0);
        simtrace_reader_free(r);
        unlink(path);
        free(out.p);
    }
    CHECK(sizes[SIMTRACE_STAGE_NONE] > sizes[SIMTRACE_STAGE_LZMA] &&
          sizes[SIMTRACE_STAGE_BZIP2] != sizes[SIMTRACE_STAGE_ZLIB]);
}

/* The names of the streams an import took, by id (simtrace_import_params.taken). */
typedef struct {
    char names[16][300];
} taken_names;

static void note_taken(void *opaque, uint32_t id, const char *name)
{
    taken_names *t = opaque;
    if (id < 16)
        snprintf(t->names[id], sizeof t->names[id], "%s", name);
}

/* A wide value written after an import goes to the companion the import
 * declared (NAME.vdata), not to a second one: the writer knows the
 * importer's block streams as its own. */
static void wide_after_import(void)
{
    membuf m = {0};
    simtrace_writer *w = new_writer(&m, 0);
    int fd = open("testdata/good/wide.bochs", O_RDONLY);
    CHECK(fd >= 0);
    taken_names t;
    memset(&t, 0, sizeof t);
    simtrace_import_params ip;
    simtrace_import_params_init(&ip);
    ip.taken = note_taken;
    ip.opaque = &t;
    simtrace_import_report rep;
    CHECK(simtrace_writer_import(w, fd, "bochs", &ip, &rep) == SIMTRACE_OK);
    close(fd);
    /* an owner whose companion the import declared */
    uint32_t owner = UINT32_MAX;
    for (uint32_t i = 0; i < 16 && owner == UINT32_MAX; i++)
        for (uint32_t j = 0; j < 16; j++) {
            char want[310];
            snprintf(want, sizeof want, "%s.vdata", t.names[i]);
            if (t.names[i][0] && strcmp(t.names[j], want) == 0)
                owner = i;
        }
    CHECK(owner != UINT32_MAX);
    if (owner == UINT32_MAX) {
        simtrace_writer_free(w);
        free(m.p);
        return;
    }
    simtrace_entry e = {.cycle = SIMTRACE_CYCLE_MAX - 1, .ip = 0x1000, .address = 0x2000};
    uint8_t raw[32], value[16];
    CHECK(simtrace_entry_pack(SIMTRACE_TYPE_D64, &e, raw) == SIMTRACE_OK);
    for (int k = 0; k < 16; k++)
        value[k] = (uint8_t)(0xa0 + k);
    simtrace_error we = simtrace_writer_write_wide(w, owner, raw, value, sizeof value);
    if (we != SIMTRACE_OK)
        fprintf(stderr, "wide_after_import: %s: %s\n", simtrace_error_name(we), simtrace_writer_message(w));
    CHECK(we == SIMTRACE_OK);
    CHECK(simtrace_writer_close(w) == SIMTRACE_OK);
    simtrace_writer_free(w);
    free(m.p);
}

/* A vpc3 import keeps the file's 4-byte header with its stream, which a
 * reader gives back (simtrace_reader_stream_header) for an exporter. */
static void kept_header(void)
{
    membuf m = {0};
    simtrace_writer *w = new_writer(&m, 0);
    int fd = open("testdata/good/sample.vpc3", O_RDONLY);
    CHECK(fd >= 0 && simtrace_writer_import(w, fd, "vpc3", NULL, NULL) == SIMTRACE_OK);
    CHECK(simtrace_writer_close(w) == SIMTRACE_OK);
    simtrace_writer_free(w);
    close(fd);
    char path[] = "/tmp/test_import_hdr_XXXXXX";
    int tfd = mkstemp(path);
    CHECK(tfd >= 0 && write(tfd, m.p, m.n) == (ssize_t)m.n);
    simtrace_reader *r;
    const void *h = NULL;
    size_t len = 0;
    uint32_t si;
    CHECK(simtrace_reader_open_fd(&r, tfd, NULL) == SIMTRACE_OK && simtrace_reader_find_stream(r, NULL, &si) == SIMTRACE_OK);
    CHECK(simtrace_reader_stream_header(r, si, &h, &len) == SIMTRACE_OK && len == 4 && memcmp(h, "vpc3", 4) == 0);
    CHECK(simtrace_reader_stream_header(r, si, NULL, &len) == SIMTRACE_E_USAGE);
    simtrace_reader_free(r);
    close(tfd);
    unlink(path);
    free(m.p);
}

int main(void)
{
    const char *bin = getenv("SVPC_BIN");
    char prog[512];
    snprintf(prog, sizeof prog, "%s/simtrace-pack", bin ? bin : "build");
    static const char *const samples[][2] = {
        {"lackey", "testdata/good/sample.lackey"}, {"din", "testdata/good/sample.din"},
        {"xdin", "testdata/good/sample.xdin"},     {"pinatrace", "testdata/good/sample.pinatrace"},
        {"vpc", "testdata/good/sample.vpc"},       {"vpc3", "testdata/good/sample.vpc3"},
        {"bochs", "testdata/good/wide.bochs"},     {"bochs", "testdata/good/sample.bochs.xz"},
    };
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++)
        import_matches_pack(prog, samples[i][0], samples[i][1]);
    raw_compressed();
    bad_inputs();
    stages();
    wide_after_import();
    kept_header();
    return check_done("test_import");
}
