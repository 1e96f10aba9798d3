/* Concatenation and repair through the public API (include/simtrace.h,
 * advanced: packing), with only <simtrace.h> included: traces with wide
 * values joined by simtrace_writer_concat_* read back as the inputs one
 * after the other (the second input's wide values renumbered); the
 * errors (a stream of another type, not a container, an input cut off);
 * repair of files cut at many offsets, in place and into a new file; a
 * repair in place refused when complete frames follow a damaged frame
 * header, and the file then unchanged.  Where build/simtrace-pack exists
 * (SVPC_BIN names another directory), its --concat and --repair must give
 * the bytes the calls give. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../include/simtrace.h"
#include "check.h"

#define N_READ 3000u   /* entries of cpu0.read per trace */
#define N_WRITE (N_READ / 5) /* entries of cpu0.write per trace: one every 5 reads */
#define FRAME 256u     /* entries per frame: many frames */
#define WIDE_EVERY 50u /* every 50th write is a wide (12-byte) access */

static char dir[] = "/tmp/test_api_pack.XXXXXX";
static char pack[1024]; /* simtrace-pack, or "" */

static void path_of(char *out, size_t n, const char *name) { snprintf(out, n, "%s/%s", dir, name); }

static void wide_value(unsigned i, uint8_t v[12])
{
    for (unsigned b = 0; b < 12; b++)
        v[b] = (uint8_t)(i * 13 + b);
}

/* A trace of two d64 streams, cpu0.write with wide values (so a vblock
 * companion); cycles start at cycle0.  Returns 0 on success. */
static int make_trace(const char *path, uint64_t cycle0, uint32_t *bytes)
{
    simtrace_write_params p;
    simtrace_write_params_init(&p);
    p.frame_entries = FRAME;
    simtrace_writer *w;
    if (simtrace_writer_create_path(&w, path, &p) != SIMTRACE_OK)
        return 1;
    uint32_t rs, ws;
    int bad = simtrace_writer_add_stream(w, "cpu0.read", SIMTRACE_TYPE_D64, &rs) != SIMTRACE_OK;
    bad |= simtrace_writer_add_stream(w, "cpu0.write", SIMTRACE_TYPE_D64, &ws) != SIMTRACE_OK;
    unsigned long long seed = 99 + cycle0;
    for (unsigned i = 0; i < N_READ && !bad; i++) {
        uint8_t raw[32];
        simtrace_entry e = {cycle0 + 2 * (uint64_t)i, 1, 0x401000 + 4 * (i % 9), 0x7f0000 + 8 * (i % 400),
                            check_rand(&seed) & 0xffff};
        simtrace_entry_pack(SIMTRACE_TYPE_D64, &e, raw);
        bad |= simtrace_writer_write(w, rs, raw, 1) != SIMTRACE_OK;
        if (i % 5 == 0 && i / 5 < N_WRITE) {
            unsigned x = i / 5;
            simtrace_entry we = {cycle0 + 2 * (uint64_t)i + 1, 1, 0x402000, 0x800000 + 8 * x, x};
            simtrace_entry_pack(SIMTRACE_TYPE_D64, &we, raw);
            if (x % WIDE_EVERY == 0) {
                uint8_t v[12];
                wide_value(x, v);
                bad |= simtrace_writer_write_wide(w, ws, raw, v, sizeof v) != SIMTRACE_OK;
            } else {
                bad |= simtrace_writer_write(w, ws, raw, 1) != SIMTRACE_OK;
            }
        }
    }
    bad |= simtrace_writer_close(w) != SIMTRACE_OK;
    uint64_t out = 0;
    simtrace_writer_entries(w, UINT32_MAX, NULL, &out);
    simtrace_writer_free(w);
    if (bytes)
        *bytes = (uint32_t)out;
    return bad;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    uint8_t *b = malloc(cap);
    size_t k;
    while (b && (k = fread(b + len, 1, cap - len, f)) > 0) {
        len += k;
        if (len == cap) {
            uint8_t *nb = realloc(b, cap *= 2);
            if (!nb) {
                free(b);
                b = NULL;
            }
            b = nb;
        }
    }
    fclose(f);
    *n = len;
    return b;
}

/* slurp, where the file must be there (a failed check otherwise). */
static uint8_t *slurp_checked(const char *path, size_t *n)
{
    uint8_t *b = slurp(path, n);
    CHECK(b != NULL);
    return b;
}

static int spit(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return 1;
    int bad = fwrite(b, 1, n, f) != n;
    return fclose(f) != 0 || bad;
}

static int same_files(const char *a, const char *b)
{
    size_t na, nb;
    uint8_t *ba = slurp(a, &na), *bb = slurp(b, &nb);
    int same = ba && bb && na == nb && memcmp(ba, bb, na) == 0;
    free(ba);
    free(bb);
    return same;
}

/* Run simtrace-pack with args (a shell word list); its exit status, or -1
 * without the program. */
static int run_pack(const char *args)
{
    if (!pack[0])
        return -1;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>/dev/null", pack, args);
    int st = system(cmd);
    return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -2;
}

static int64_t file_read(void *opaque, void *buf, size_t size) { return (int64_t)fread(buf, 1, size, opaque); }

/* Entries of every stream of path. */
static uint64_t entries_of(const char *path)
{
    simtrace_reader *r;
    uint64_t total = 0;
    uint32_t n = 0;
    if (simtrace_reader_open_path(&r, path, NULL) != SIMTRACE_OK)
        return 0;
    simtrace_reader_stream_count(r, &n);
    for (uint32_t i = 0; i < n; i++) {
        simtrace_stream_info si;
        if (simtrace_reader_stream_info(r, i, &si) == SIMTRACE_OK)
            total += si.entries;
    }
    simtrace_reader_free(r);
    return total;
}

static void test_concat(const char *a, const char *b)
{
    char out[600], out_io[600], out_cli[600];
    path_of(out, sizeof out, "c.sim");
    path_of(out_io, sizeof out_io, "c_io.sim");
    path_of(out_cli, sizeof out_cli, "c_cli.sim");
    simtrace_write_params wp;
    simtrace_write_params_init(&wp);
    wp.threads = 2;
    simtrace_writer *w;
    CHECK(simtrace_writer_create_path(&w, out, &wp) == SIMTRACE_OK);
    simtrace_concat_params cp;
    simtrace_concat_params_init(&cp);
    cp.threads = 2;
    simtrace_concat_report rep;
    CHECK(simtrace_writer_concat_path(w, a, &cp, &rep) == SIMTRACE_OK);
    CHECK(rep.streams == 3 && rep.frames > 10 && rep.renumbered == 0 && rep.entries == entries_of(a));
    CHECK(simtrace_writer_concat_path(w, b, NULL, &rep) == SIMTRACE_OK);
    CHECK(rep.renumbered >= 1); /* the second input's blocks name later owner entries */
    CHECK(simtrace_writer_close(w) == SIMTRACE_OK);
    simtrace_writer_free(w);

    /* the input through the read callback: the same bytes */
    CHECK(simtrace_writer_create_path(&w, out_io, NULL) == SIMTRACE_OK);
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    simtrace_read_io ia = {file_read, fa}, ib = {file_read, fb};
    CHECK(fa && fb && simtrace_writer_concat_io(w, &ia, NULL, NULL) == SIMTRACE_OK);
    CHECK(simtrace_writer_concat_io(w, &ib, NULL, NULL) == SIMTRACE_OK);
    CHECK(simtrace_writer_close(w) == SIMTRACE_OK);
    simtrace_writer_free(w);
    fclose(fa);
    fclose(fb);
    CHECK(same_files(out, out_io));

    /* read back: the inputs one after the other, wide values included */
    simtrace_reader *r, *ra;
    CHECK(simtrace_reader_open_path(&r, out, NULL) == SIMTRACE_OK);
    CHECK(simtrace_reader_open_path(&ra, a, NULL) == SIMTRACE_OK);
    uint32_t n = 0, ws = 0, rs = 0;
    CHECK(simtrace_reader_stream_count(r, &n) == SIMTRACE_OK && n == 3);
    CHECK(simtrace_reader_find_stream(r, "cpu0.write", &ws) == SIMTRACE_OK);
    CHECK(simtrace_reader_find_stream(r, "cpu0.read", &rs) == SIMTRACE_OK);
    static uint8_t got[2 * N_READ * 32], want[N_READ * 32];
    uint64_t cnt = 0, cw = 0;
    CHECK(simtrace_reader_read(r, rs, 0, UINT64_MAX, got, sizeof got, &cnt) == SIMTRACE_OK && cnt == 2 * N_READ);
    CHECK(simtrace_reader_read(ra, 0, 0, UINT64_MAX, want, sizeof want, &cw) == SIMTRACE_OK && cw == N_READ);
    CHECK(memcmp(got, want, sizeof want) == 0);
    int values_ok = 1;
    for (unsigned x = 0; x < 2 * N_WRITE; x += WIDE_EVERY) {
        uint8_t v[64], exp[12];
        size_t len = 0;
        wide_value(x % N_WRITE, exp);
        values_ok &= simtrace_reader_value(r, ws, x, v, sizeof v, &len) == SIMTRACE_OK && len == 12 &&
                     memcmp(v, exp, 12) == 0;
    }
    CHECK(values_ok);
    simtrace_reader_free(r);
    simtrace_reader_free(ra);

    char args[2048];
    snprintf(args, sizeof args, "-T2 --allow-cycle-reset --concat '%s' '%s' -o '%s'", a, b, out_cli);
    int st = run_pack(args);
    if (st >= 0)
        CHECK(st == 0 && same_files(out, out_cli));
}

/* A stream made by a concatenation keeps the encoder of the frames it
 * copies; a stream added after it takes the writer's profile. */
static void test_stream_coding(const char *a)
{
    char out[600];
    path_of(out, sizeof out, "coding.sim");
    simtrace_write_params wp;
    simtrace_write_params_init(&wp);
    wp.profile_name = "cm1";
    simtrace_writer *w;
    CHECK(simtrace_writer_create_path(&w, out, &wp) == SIMTRACE_OK);
    simtrace_concat_report rep;
    CHECK(simtrace_writer_concat_path(w, a, NULL, &rep) == SIMTRACE_OK && rep.streams == 3);
    uint32_t fresh;
    CHECK(simtrace_writer_add_stream(w, "fresh", SIMTRACE_TYPE_D64, &fresh) == SIMTRACE_OK && fresh == 3);
    int type = -1;
    const char *enc = NULL;
    CHECK(simtrace_writer_stream_coding(w, 0, &type, &enc) == SIMTRACE_OK && type == SIMTRACE_TYPE_D64 &&
          strcmp(enc, "cmx") == 0);
    CHECK(simtrace_writer_stream_coding(w, fresh, &type, &enc) == SIMTRACE_OK && type == SIMTRACE_TYPE_D64 &&
          strcmp(enc, "cm1") == 0);
    CHECK(simtrace_writer_stream_coding(w, fresh, NULL, NULL) == SIMTRACE_OK);
    type = -1;
    CHECK(simtrace_writer_stream_coding(w, fresh + 1, &type, &enc) == SIMTRACE_E_USAGE && type == -1);
    CHECK(simtrace_writer_stream_coding(NULL, 0, &type, &enc) == SIMTRACE_E_USAGE);
    CHECK(simtrace_writer_close(w) == SIMTRACE_OK);
    simtrace_writer_free(w);
}

/* With check_cycles, a copy whose cycles go below its stream's last stops
 * there, and the report says which stream and entry. */
static void test_concat_cycles(const char *a)
{
    char out[600];
    path_of(out, sizeof out, "cycles.sim");
    simtrace_write_params wp;
    simtrace_write_params_init(&wp);
    wp.check_cycles = 1;
    simtrace_writer *w;
    CHECK(simtrace_writer_create_path(&w, out, &wp) == SIMTRACE_OK);
    simtrace_concat_report rep;
    CHECK(simtrace_writer_concat_path(w, a, NULL, &rep) == SIMTRACE_OK);
    CHECK(simtrace_writer_concat_path(w, a, NULL, &rep) == SIMTRACE_E_CYCLE_ORDER);
    CHECK(strstr(rep.detail, "stream 'cpu0.") != NULL && strstr(rep.detail, "below cycle") != NULL);
    CHECK(simtrace_writer_close(w) == SIMTRACE_OK); /* the frames before it: a valid trace */
    simtrace_writer_free(w);
}

static void test_concat_errors(const char *a)
{
    char out[600], cut[600], notc[600];
    path_of(out, sizeof out, "e.sim");
    path_of(cut, sizeof cut, "cut.sim");
    path_of(notc, sizeof notc, "not.sim");
    simtrace_writer *w;
    simtrace_concat_report rep;
    /* a stream of the same name and another type */
    CHECK(simtrace_writer_create_path(&w, out, NULL) == SIMTRACE_OK);
    uint32_t id;
    CHECK(simtrace_writer_add_stream(w, "cpu0.read", SIMTRACE_TYPE_D32, &id) == SIMTRACE_OK);
    CHECK(simtrace_writer_concat_path(w, a, NULL, &rep) == SIMTRACE_E_BAD_STREAM && rep.detail[0] &&
          strstr(simtrace_writer_message(w), "cpu0.read") != NULL);
    CHECK(simtrace_writer_close(w) == SIMTRACE_OK); /* still usable */
    simtrace_writer_free(w);
    /* not a container; no input; bad arguments */
    CHECK(spit(notc, (const uint8_t *)"hello, world\n", 13) == 0);
    CHECK(simtrace_writer_create_path(&w, out, NULL) == SIMTRACE_OK);
    CHECK(simtrace_writer_concat_path(w, notc, NULL, &rep) == SIMTRACE_E_BAD_MAGIC);
    errno = 0;
    CHECK(simtrace_writer_concat_path(w, "/nonexistent.sim", NULL, &rep) == SIMTRACE_E_READ && errno == ENOENT);
    CHECK(simtrace_writer_concat_fd(w, -1, NULL, &rep) == SIMTRACE_E_USAGE);
    CHECK(simtrace_writer_concat_fd(NULL, 0, NULL, &rep) == SIMTRACE_E_USAGE);
    simtrace_concat_params cp;
    simtrace_concat_params_init(&cp);
    cp.threads = 1000;
    CHECK(simtrace_writer_concat_path(w, a, &cp, &rep) == SIMTRACE_E_USAGE);
    /* an input cut off: its complete frames are copied, the writer closes */
    size_t n;
    uint8_t *b = slurp(a, &n);
    CHECK(b && spit(cut, b, n / 2) == 0);
    free(b);
    CHECK(simtrace_writer_concat_path(w, cut, NULL, &rep) == SIMTRACE_E_TRUNCATED && rep.frames > 0 &&
          rep.at_offset != SIMTRACE_UNKNOWN);
    uint64_t copied = rep.entries;
    CHECK(simtrace_writer_close(w) == SIMTRACE_OK);
    CHECK(simtrace_writer_concat_path(w, a, NULL, &rep) == SIMTRACE_E_STATE); /* closed */
    simtrace_writer_free(w);
    CHECK(entries_of(out) == copied);
}

/* The byte offset of data frame k of stream s of path. */
static uint64_t frame_offset(const char *path, uint32_t s, uint64_t k)
{
    simtrace_reader *r;
    simtrace_frame_info fi;
    memset(&fi, 0, sizeof fi);
    if (simtrace_reader_open_path(&r, path, NULL) != SIMTRACE_OK)
        return 0;
    if (simtrace_reader_frame_info(r, s, k, &fi) != SIMTRACE_OK)
        fi.offset = 0;
    simtrace_reader_free(r);
    return fi.offset;
}

/* A repair into out_path that cannot write (a file size limit standing in
 * for a full disk, in a child, SIGXFSZ ignored) fails with
 * SIMTRACE_E_WRITE and leaves the file already at out_path as it was, and
 * no temporary file beside it.  in_size: bytes of the container at in. */
static int repair_full_disk_keeps_output(const char *in, const char *out_path, size_t in_size)
{
    static const char old[] = "the user's file, kept";
    if (spit(out_path, (const uint8_t *)old, sizeof old - 1) != 0)
        return 0;
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {in_size / 2, in_size / 2};
        simtrace_repair_report rep;
        _exit(setrlimit(RLIMIT_FSIZE, &rl) == 0 && simtrace_repair(in, out_path, NULL, &rep) == SIMTRACE_E_WRITE &&
                      rep.output_failed
                  ? 0
                  : 1);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return 0;
    size_t n;
    uint8_t *b = slurp(out_path, &n);
    int kept = b && n == sizeof old - 1 && memcmp(b, old, n) == 0;
    free(b);
    /* nothing else beside it: the temporary names start with out_path */
    char where[600];
    snprintf(where, sizeof where, "%s", out_path);
    char *slash = strrchr(where, '/');
    const char *base = slash ? slash + 1 : out_path;
    if (slash)
        *slash = 0;
    DIR *d = opendir(slash ? where : ".");
    struct dirent *de;
    size_t blen = strlen(base);
    while (d && (de = readdir(d)))
        if (strncmp(de->d_name, base, blen) == 0 && de->d_name[blen] != 0)
            kept = 0;
    if (d)
        closedir(d);
    return kept;
}

static void test_repair(const char *a)
{
    char cut[600], fixed[600], cut_cli[600], fixed_cli[600];
    path_of(cut, sizeof cut, "r.sim");
    path_of(fixed, sizeof fixed, "r_fixed.sim");
    path_of(cut_cli, sizeof cut_cli, "r_cli.sim");
    path_of(fixed_cli, sizeof fixed_cli, "r_cli_fixed.sim");
    size_t n;
    uint8_t *b = slurp_checked(a, &n);
    if (!b)
        return;
    simtrace_repair_report rep;
    /* complete: nothing to do in place; copied into a new file */
    CHECK(spit(cut, b, n) == 0);
    CHECK(simtrace_repair(cut, NULL, NULL, &rep) == SIMTRACE_OK && rep.complete && !rep.written &&
          rep.lost_bytes == 0 && rep.entries == entries_of(a));
    CHECK(same_files(cut, a));
    CHECK(simtrace_repair(cut, fixed, NULL, &rep) == SIMTRACE_OK && rep.complete && rep.written);
    CHECK(same_files(fixed, a));
    CHECK(simtrace_repair(cut, cut, NULL, &rep) == SIMTRACE_E_USAGE);
    CHECK(simtrace_repair(NULL, NULL, NULL, &rep) == SIMTRACE_E_USAGE);
    CHECK(repair_full_disk_keeps_output(cut, fixed, n));
    errno = 0;
    CHECK(simtrace_repair("/nonexistent.sim", NULL, NULL, &rep) == SIMTRACE_E_READ && errno == ENOENT);

    /* cut off at offsets from inside the first frames to just before the end */
    const size_t offs[] = {64 + 40, 64 + 200, n / 7, n / 3, n / 2 + 17, n - 200, n - 33, n - 1};
    int same_api_cli = 1, reports_ok = 1, in_place_ok = 1;
    for (unsigned i = 0; i < sizeof offs / sizeof offs[0]; i++) {
        CHECK(spit(cut, b, offs[i]) == 0);
        simtrace_repair_params rp;
        simtrace_repair_params_init(&rp);
        rp.check_only = 1;
        simtrace_repair_report chk;
        reports_ok &= simtrace_repair(cut, NULL, &rp, &chk) == SIMTRACE_OK && !chk.complete && !chk.written;
        unlink(fixed);
        reports_ok &= simtrace_repair(cut, fixed, NULL, &rep) == SIMTRACE_OK && !rep.complete && rep.written &&
                      rep.file_size == offs[i] && rep.frames_end <= offs[i] &&
                      rep.lost_bytes == offs[i] - rep.frames_end && rep.frames_after == 0 &&
                      rep.frames == chk.frames && rep.entries == chk.entries;
        /* in place: the same bytes as into the new file */
        reports_ok &= simtrace_repair(cut, NULL, NULL, &rep) == SIMTRACE_OK && rep.written;
        in_place_ok &= same_files(cut, fixed);
        simtrace_reader *r;
        in_place_ok &= simtrace_reader_open_path(&r, cut, NULL) == SIMTRACE_OK && simtrace_reader_complete(r) == 1;
        simtrace_reader_free(r);
        CHECK(spit(cut_cli, b, offs[i]) == 0);
        char args[2048];
        snprintf(args, sizeof args, "-f --repair '%s' -o '%s'", cut_cli, fixed_cli);
        if (run_pack(args) >= 0)
            same_api_cli &= same_files(fixed, fixed_cli);
        snprintf(args, sizeof args, "--repair '%s'", cut_cli);
        if (run_pack(args) >= 0)
            same_api_cli &= same_files(cut, cut_cli);
    }
    CHECK(reports_ok);
    CHECK(in_place_ok);
    CHECK(same_api_cli);

    /* a damaged data frame header with complete frames after it, in a file
     * cut off: refused in place (nothing changed), the frames before the
     * damage into a new file */
    uint64_t bad = frame_offset(a, 0, 4);
    CHECK(bad > 64 && bad + 200 < n);
    if (bad > 64 && bad + 200 < n) {
        b[bad + 20] ^= 0xff;
        CHECK(spit(cut, b, n - 10) == 0);
        CHECK(simtrace_repair(cut, NULL, NULL, &rep) == SIMTRACE_E_CORRUPT && rep.refused && !rep.written &&
              rep.frames_end == bad && rep.frames_after > bad && rep.at_offset == bad);
        size_t nc;
        uint8_t *c = slurp(cut, &nc);
        CHECK(c && nc == n - 10 && memcmp(c, b, nc) == 0);
        free(c);
        unlink(fixed);
        CHECK(simtrace_repair(cut, fixed, NULL, &rep) == SIMTRACE_OK && rep.written && rep.frames_after > bad &&
              rep.frames_end == bad);
        CHECK(spit(cut_cli, b, n - 10) == 0);
        char args[2048];
        snprintf(args, sizeof args, "--repair '%s'", cut_cli);
        int st = run_pack(args);
        if (st >= 0)
            CHECK(st == 1 && same_files(cut, cut_cli));
        snprintf(args, sizeof args, "-f --repair '%s' -o '%s'", cut_cli, fixed_cli);
        st = run_pack(args);
        if (st >= 0)
            CHECK(st == 1 && same_files(fixed, fixed_cli));
    }
    free(b);
}

/* d64 entries for stream appends: cycles from cycle0 on. */
static void some_entries(uint8_t *raw, unsigned n, uint64_t cycle0)
{
    for (unsigned i = 0; i < n; i++) {
        simtrace_entry e = {cycle0 + i, 1, 0x401000 + 4 * (i % 7), 0x900000 + 8 * i, i};
        simtrace_entry_pack(SIMTRACE_TYPE_D64, &e, raw + 32 * (size_t)i);
    }
}

/* The writer's params of these tests: small frames. */
static simtrace_write_params small_frames(void)
{
    simtrace_write_params wp;
    simtrace_write_params_init(&wp);
    wp.frame_entries = FRAME;
    return wp;
}

/* Reopen path, add n entries to cpu0.read (after its last cycle) and to
 * a new stream, end with finish; 0 on success. */
static int append_some(const char *path, unsigned n, const simtrace_reopen_report *want_found)
{
    static uint8_t raw[4 * FRAME * 32];
    simtrace_write_params wp = small_frames();
    simtrace_writer *w;
    simtrace_reopen_report rep;
    if (n > 4 * FRAME || simtrace_writer_reopen_path(&w, path, &wp, &rep) != SIMTRACE_OK)
        return 1;
    int bad = want_found && memcmp(&rep.found, &want_found->found, sizeof rep.found) != 0;
    uint32_t rs = 99, xs = 99, end = 99;
    bad |= simtrace_writer_take_stream(w, "cpu0.read", SIMTRACE_TYPE_D64, NULL, 0, NULL, &rs) != SIMTRACE_OK || rs != 0;
    bad |= simtrace_writer_take_stream(w, "extra", SIMTRACE_TYPE_D64, NULL, 0, NULL, &xs) != SIMTRACE_OK || xs != 3;
    some_entries(raw, n, 1000000);
    bad |= simtrace_writer_write(w, rs, raw, n) != SIMTRACE_OK || simtrace_writer_write(w, xs, raw, n) != SIMTRACE_OK;
    bad |= simtrace_writer_end(w, 1, &end) != SIMTRACE_OK || end != SIMTRACE_END_COMPLETE;
    simtrace_writer_free(w);
    return bad;
}

/* Whether path is a complete container (directory read). */
static int complete(const char *path)
{
    simtrace_reader *r;
    int c = simtrace_reader_open_path(&r, path, NULL) == SIMTRACE_OK && simtrace_reader_complete(r) == 1;
    simtrace_reader_free(r);
    return c;
}

/* Appending in place: to a complete container, to one cut off inside a
 * frame (read through its frame headers, the cut frame replaced), refused
 * with complete frames after damage (the file unchanged), and ends that
 * keep what was appended or put the container back. */
static void test_reopen(const char *a)
{
    char ap[600], cut[600];
    path_of(ap, sizeof ap, "ap.sim");
    path_of(cut, sizeof cut, "ap_cut.sim");
    size_t n;
    uint8_t *b = slurp_checked(a, &n);
    if (!b)
        return;
    const uint64_t had = entries_of(a);
    simtrace_reopen_report rep;

    /* a complete container: its streams continue, a new one is added */
    CHECK(spit(ap, b, n) == 0);
    int fd = open(ap, O_RDONLY);
    CHECK(simtrace_reopen_check_fd(fd, &rep) == SIMTRACE_OK && rep.found.complete && !rep.refused &&
          rep.found.entries == had && rep.found.frames_after == 0 && rep.where.offset == SIMTRACE_UNKNOWN);
    close(fd);
    CHECK(append_some(ap, 3 * FRAME / 2, &rep) == 0);
    CHECK(complete(ap) && entries_of(ap) == had + 3 * FRAME);
    simtrace_reader *r;
    uint32_t xs = 0;
    uint64_t got = 0;
    static uint8_t back[2 * FRAME * 32], want[2 * FRAME * 32];
    some_entries(want, 3 * FRAME / 2, 1000000);
    CHECK(simtrace_reader_open_path(&r, ap, NULL) == SIMTRACE_OK && simtrace_reader_find_stream(r, "extra", &xs) ==
          SIMTRACE_OK && simtrace_reader_read(r, xs, 0, UINT64_MAX, back, sizeof back, &got) == SIMTRACE_OK &&
          got == 3 * FRAME / 2 && memcmp(back, want, 32 * got) == 0);
    CHECK(simtrace_reader_read(r, 0, N_READ, UINT64_MAX, back, sizeof back, &got) == SIMTRACE_OK &&
          got == 3 * FRAME / 2 && memcmp(back, want, 32 * got) == 0);
    simtrace_reader_free(r);

    /* a stream of another type or size; a user type; wide values on an
     * old stream go to its companion */
    simtrace_writer *w;
    simtrace_write_params wp = small_frames();
    CHECK(spit(ap, b, n) == 0);
    CHECK(simtrace_writer_reopen_path(&w, ap, &wp, NULL) == SIMTRACE_OK);
    uint32_t id = 99, uid = 99, end = 99;
    CHECK(simtrace_writer_take_stream(w, "cpu0.read", SIMTRACE_TYPE_D32, NULL, 0, NULL, &id) ==
              SIMTRACE_E_BAD_STREAM && id == 99 && strstr(simtrace_writer_message(w), "already holds d64") != NULL);
    static const uint8_t guid[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    CHECK(simtrace_writer_take_stream(w, "u", SIMTRACE_TYPE_USER, guid, 7, "seven", &uid) == SIMTRACE_OK);
    CHECK(simtrace_writer_take_stream(w, "u", SIMTRACE_TYPE_USER, guid, 8, "seven", &id) == SIMTRACE_E_BAD_STREAM);
    CHECK(simtrace_writer_take_stream(w, "u", SIMTRACE_TYPE_USER, guid, 7, "seven", &id) == SIMTRACE_OK && id == uid);
    CHECK(simtrace_writer_take_stream(w, NULL, SIMTRACE_TYPE_D64, NULL, 0, NULL, &id) == SIMTRACE_E_USAGE);
    CHECK(simtrace_writer_take_stream(w, "v", 99, NULL, 0, NULL, &id) == SIMTRACE_E_USAGE);
    uint8_t raw[32], v[12];
    some_entries(raw, 1, 5000000);
    wide_value(7, v);
    CHECK(simtrace_writer_write_wide(w, 1, raw, v, sizeof v) == SIMTRACE_OK);
    CHECK(simtrace_writer_end(w, 1, &end) == SIMTRACE_OK && end == SIMTRACE_END_COMPLETE);
    CHECK(simtrace_writer_end(w, 1, &end) == SIMTRACE_E_STATE);
    CHECK(simtrace_writer_write(w, 0, raw, 1) == SIMTRACE_E_STATE);
    simtrace_writer_free(w);
    uint32_t n_streams = 0, ws = 0;
    uint8_t vb[64];
    size_t len = 0;
    CHECK(simtrace_reader_open_path(&r, ap, NULL) == SIMTRACE_OK &&
          simtrace_reader_stream_count(r, &n_streams) == SIMTRACE_OK && n_streams == 4 &&
          simtrace_reader_find_stream(r, "cpu0.write", &ws) == SIMTRACE_OK &&
          simtrace_reader_value(r, ws, N_WRITE, vb, sizeof vb, &len) == SIMTRACE_OK && len == 12 &&
          memcmp(vb, v, 12) == 0);
    simtrace_reader_free(r);

    /* cut off inside a frame: read through its frame headers, the new
     * frames follow the last complete one */
    CHECK(spit(cut, b, n / 2) == 0);
    fd = open(cut, O_RDONLY);
    CHECK(simtrace_reopen_check_fd(fd, &rep) == SIMTRACE_OK && !rep.found.complete && !rep.refused &&
          rep.found.reason[0] && rep.found.frames_end < n / 2 && rep.found.file_size == n / 2 &&
          rep.found.entries > 0 && rep.found.entries < had);
    close(fd);
    const uint64_t kept = rep.found.entries;
    CHECK(append_some(cut, FRAME, &rep) == 0);
    CHECK(complete(cut) && entries_of(cut) == kept + 2 * FRAME);

    /* complete frames after a damaged frame header: refused, unchanged */
    uint64_t bad = frame_offset(a, 0, 4);
    CHECK(bad > 64 && bad + 200 < n);
    if (bad > 64 && bad + 200 < n) {
        uint8_t *d = malloc(n);
        CHECK(d != NULL);
        if (d) {
            memcpy(d, b, n);
            d[bad + 20] ^= 0xff;
            CHECK(spit(cut, d, n - 10) == 0);
            fd = open(cut, O_RDONLY);
            CHECK(simtrace_reopen_check_fd(fd, &rep) == SIMTRACE_E_CORRUPT && rep.refused &&
                  rep.found.frames_end == bad && rep.found.frames_after > bad && rep.where.offset == bad);
            close(fd);
            w = (simtrace_writer *)1;
            CHECK(simtrace_writer_reopen_path(&w, cut, NULL, &rep) == SIMTRACE_E_CORRUPT && w == NULL && rep.refused);
            size_t nc;
            uint8_t *c = slurp(cut, &nc);
            CHECK(c && nc == n - 10 && memcmp(c, d, nc) == 0);
            free(c);
            free(d);
        }
    }

    /* ended without finishing: nothing written whole, the container is
     * put back; frames written whole are kept */
    CHECK(spit(ap, b, n) == 0);
    CHECK(simtrace_writer_reopen_path(&w, ap, &wp, NULL) == SIMTRACE_OK);
    some_entries(raw, 1, 2000000);
    CHECK(simtrace_writer_write(w, 0, raw, 1) == SIMTRACE_OK);
    CHECK(simtrace_writer_end(w, 0, &end) == SIMTRACE_OK && end == SIMTRACE_END_RESTORED);
    simtrace_writer_free(w);
    CHECK(same_files(ap, a));
    static uint8_t many[3 * FRAME * 32];
    some_entries(many, 3 * FRAME, 2000000);
    CHECK(simtrace_writer_reopen_path(&w, ap, &wp, NULL) == SIMTRACE_OK);
    CHECK(simtrace_writer_write(w, 0, many, 2 * FRAME) == SIMTRACE_OK && simtrace_writer_flush(w) == SIMTRACE_OK);
    CHECK(simtrace_writer_write(w, 0, many + 2 * FRAME * 32, 5) == SIMTRACE_OK); /* not written: dropped */
    simtrace_write_stats st;
    CHECK(simtrace_writer_end(w, 0, &end) == SIMTRACE_OK && end == SIMTRACE_END_KEPT);
    CHECK(simtrace_writer_stats(w, &st) == SIMTRACE_OK && st.entries_written == 2 * FRAME && st.entries == 2 * FRAME + 5);
    simtrace_writer_free(w);
    CHECK(complete(ap) && entries_of(ap) == had + 2 * FRAME);

    /* a created writer ended without finishing: left without directory */
    CHECK(simtrace_writer_create_path(&w, cut, &wp) == SIMTRACE_OK);
    CHECK(simtrace_writer_end(w, 0, &end) == SIMTRACE_OK && end == SIMTRACE_END_NO_DIRECTORY);
    simtrace_writer_free(w);

    /* bad arguments */
    CHECK(simtrace_reopen_check_fd(-1, &rep) == SIMTRACE_E_USAGE);
    CHECK(simtrace_writer_reopen_path(&w, NULL, NULL, &rep) == SIMTRACE_E_USAGE);
    CHECK(simtrace_writer_reopen_fd(NULL, 0, NULL, &rep) == SIMTRACE_E_USAGE);
    errno = 0;
    CHECK(simtrace_writer_reopen_path(&w, "/nonexistent.sim", NULL, &rep) == SIMTRACE_E_READ && errno == ENOENT &&
          w == NULL);
    wp.threads = 1000;
    CHECK(simtrace_writer_reopen_path(&w, ap, &wp, &rep) == SIMTRACE_E_USAGE);
    CHECK(same_files(ap, ap) && complete(ap));
    CHECK(simtrace_writer_end(NULL, 1, &end) == SIMTRACE_E_USAGE);
    CHECK(simtrace_writer_create_path(&w, cut, NULL) == SIMTRACE_OK);
    CHECK(simtrace_writer_end(w, 2, &end) == SIMTRACE_E_USAGE);
    simtrace_writer_free(w);
    free(b);
}

/* Reopen path in a child whose file size limit is size (standing in for
 * a full disk; SIGXFSZ ignored), write n entries in
 * frames of frame_entries (random ones when noisy: frames too large for
 * the old directory's place), and end with finish.  Returns 10 + the end
 * state when the end failed with SIMTRACE_E_WRITE, else -1. */
static int append_full_disk(const char *path, size_t size, unsigned n, uint32_t frame_entries, int noisy)
{
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {size, size};
        static uint8_t many[8192 * 32];
        some_entries(many, n, 3000000);
        unsigned long long seed = 7;
        for (unsigned i = 0; noisy && i < n; i++)
            for (unsigned k = 8; k < 32; k++)
                many[32 * i + k] = (uint8_t)check_rand(&seed);
        simtrace_write_params wp = small_frames();
        wp.frame_entries = frame_entries;
        wp.profile = SIMTRACE_PROFILE_FAST;
        simtrace_writer *w;
        uint32_t end = 99;
        if (n > 8192 || setrlimit(RLIMIT_FSIZE, &rl) != 0 || simtrace_writer_reopen_path(&w, path, &wp, NULL) != SIMTRACE_OK)
            _exit(1);
        simtrace_writer_write(w, 0, many, n); /* may fail already */
        _exit(simtrace_writer_end(w, 1, &end) == SIMTRACE_E_WRITE && end <= SIMTRACE_END_NO_DIRECTORY ? 10 + (int)end : 1);
    }
    int st;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) >= 10 ? WEXITSTATUS(st) : -1;
}

/* An append whose frames cannot all be written: kept with the frames
 * written whole, or put back as it was when none was. */
static void test_reopen_full_disk(const char *a)
{
    char ap[600];
    path_of(ap, sizeof ap, "ap_full.sim");
    size_t n;
    uint8_t *b = slurp(a, &n);
    CHECK(b && spit(ap, b, n) == 0);
    /* room for a frame and the directory, not for all the frames */
    CHECK(append_full_disk(ap, n + 10000, 8 * FRAME, FRAME, 1) == 10 + SIMTRACE_END_KEPT);
    uint64_t after = entries_of(ap);
    CHECK(complete(ap) && after > entries_of(a) && after < entries_of(a) + 8 * FRAME &&
          (after - entries_of(a)) % FRAME == 0);
    /* one frame larger than the old end: nothing written whole */
    CHECK(b && spit(ap, b, n) == 0);
    CHECK(append_full_disk(ap, n, 8192, 8192, 1) == 10 + SIMTRACE_END_RESTORED);
    CHECK(same_files(ap, a));
    free(b);
}

/* A failure of an input (a read error: a directory read as entries)
 * leaves the writer failed, which simtrace_writer_close refuses, but its
 * output sound: simtrace_writer_end finishes it, with the entries before. */
static void test_end_after_input_failure(void)
{
    char out[600];
    path_of(out, sizeof out, "end_fail.sim");
    simtrace_writer *w;
    uint32_t id, end = 99;
    CHECK(simtrace_writer_create_path(&w, out, NULL) == SIMTRACE_OK &&
          simtrace_writer_add_stream(w, "t", SIMTRACE_TYPE_D64, &id) == SIMTRACE_OK);
    uint8_t raw[5 * 32];
    some_entries(raw, 5, 10);
    CHECK(simtrace_writer_write(w, id, raw, 5) == SIMTRACE_OK);
    int fd = open(dir, O_RDONLY);
    simtrace_import_params ip;
    simtrace_import_params_init(&ip);
    ip.no_unpack = 1;
    simtrace_import_report rep;
    CHECK(fd >= 0 && simtrace_writer_append_fd(w, id, fd, &ip, &rep) == SIMTRACE_E_READ && !rep.usable);
    close(fd);
    CHECK(simtrace_writer_close(w) == SIMTRACE_E_STATE);
    CHECK(simtrace_writer_end(w, 1, &end) == SIMTRACE_OK && end == SIMTRACE_END_COMPLETE);
    simtrace_writer_free(w);
    CHECK(complete(out) && entries_of(out) == 5);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    const char *bin = getenv("SVPC_BIN");
    snprintf(pack, sizeof pack, "%s/simtrace-pack", bin ? bin : "build");
    if (access(pack, X_OK) != 0) {
        printf("test_api_pack: %s not found: the comparisons with it are skipped\n", pack);
        pack[0] = 0;
    }
    char a[600], b[600];
    path_of(a, sizeof a, "a.sim");
    path_of(b, sizeof b, "b.sim");
    CHECK(make_trace(a, 100, NULL) == 0);
    CHECK(make_trace(b, 100000, NULL) == 0);
    test_concat(a, b);
    test_concat_errors(a);
    test_stream_coding(a);
    test_concat_cycles(a);
    test_repair(a);
    test_reopen(a);
    test_reopen_full_disk(a);
    test_end_after_input_failure();
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    return check_done("test_api_pack");
}
