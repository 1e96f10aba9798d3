/* The recovery calls of the public API (include/simtrace.h, advanced:
 * recovery) on their own: only <simtrace.h> is included.  A trace written
 * here is damaged in known places (a payload, a frame header, its end cut
 * off) and salvaged, and a read is resumed past another stream's damage;
 * what comes back is compared with the entries written.  Then the files of
 * testdata/bad that a salvage reads through their index are salvaged here
 * and by `simtrace-cat --salvage` (found next to this program's directory):
 * the same entries, the same frames lost. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../include/simtrace.h"
#include "check.h"

#define NA 3000u /* entries of stream a */
#define NB 2000u /* entries of stream b */
#define FRAME 250u

static uint8_t a_raw[NA * 32], b_raw[NB * 32];

static void make_trace(const char *path)
{
    unsigned long long seed = 777;
    for (unsigned i = 0; i < NA; i++) {
        simtrace_entry e = {5 + 2 * (uint64_t)i, 1, 0x401000 + 4 * (i % 11), 0x600000 + 8 * (i % 97),
                            check_rand(&seed) & 0xffffff};
        simtrace_entry_pack(SIMTRACE_TYPE_D64, &e, a_raw + 32 * i);
    }
    for (unsigned i = 0; i < NB; i++) {
        simtrace_entry e = {6 + 3 * (uint64_t)i, 1, 0x402000 + 4 * (i % 5), 0x900000 + 8 * i, i};
        simtrace_entry_pack(SIMTRACE_TYPE_D64, &e, b_raw + 32 * i);
    }
    simtrace_write_params p;
    simtrace_write_params_init(&p);
    p.frame_entries = FRAME;
    simtrace_writer *w;
    uint32_t a, b;
    CHECK(simtrace_writer_create_path(&w, path, &p) == SIMTRACE_OK);
    CHECK(simtrace_writer_add_stream(w, "a", SIMTRACE_TYPE_D64, &a) == SIMTRACE_OK);
    CHECK(simtrace_writer_add_stream(w, "b", SIMTRACE_TYPE_D64, &b) == SIMTRACE_OK);
    /* interleaved: the frames of a and b alternate in the file */
    for (unsigned i = 0; i < NA / 500; i++) {
        CHECK(simtrace_writer_write(w, a, a_raw + 32 * 500 * i, 500) == SIMTRACE_OK);
        if (i < NB / 500)
            CHECK(simtrace_writer_write(w, b, b_raw + 32 * 500 * i, 500) == SIMTRACE_OK);
    }
    CHECK(simtrace_writer_close(w) == SIMTRACE_OK);
    simtrace_writer_free(w);
}

static void spit(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(p, 1, n, f) == n);
    if (f)
        fclose(f);
}

/* What a salvage or resume delivered. */
#define MAX_DAMAGE 64
typedef struct {
    uint8_t *p;
    size_t n, cap;          /* bytes */
    uint64_t next;          /* the entry expected next (in order, no overlap) */
    int out_of_order;
    simtrace_damage dmg[MAX_DAMAGE];
    unsigned ndmg;
    int refuse_after;       /* >0: refuse the call that many calls in (ENOSPC) */
    int calls;
} got_t;

static int got_entries(void *opaque, uint64_t first, const void *e, size_t count)
{
    got_t *g = opaque;
    if (g->refuse_after && ++g->calls >= g->refuse_after) {
        errno = ENOSPC;
        return 1;
    }
    if (g->n && first < g->next)
        g->out_of_order = 1;
    g->next = first + count;
    size_t add = count * 32;
    if (g->n + add > g->cap) {
        g->cap = (g->n + add) * 2;
        g->p = realloc(g->p, g->cap);
    }
    memcpy(g->p + g->n, e, add);
    g->n += add;
    return 0;
}

static int got_damage(void *opaque, const simtrace_damage *d)
{
    got_t *g = opaque;
    if (g->ndmg < MAX_DAMAGE) {
        g->dmg[g->ndmg] = *d;
        g->dmg[g->ndmg].detail = NULL; /* valid during the call only */
        g->ndmg++;
    }
    return 0;
}

static void got_reset(got_t *g)
{
    free(g->p);
    memset(g, 0, sizeof *g);
}

static void flip(uint8_t *p, uint64_t at) { p[at] ^= 0x10; }

static int64_t file_read(void *opaque, void *buf, size_t size)
{
    return (int64_t)fread(buf, 1, size, opaque);
}

/* Frame k of stream 0 of the trace at path (its info in *fi), damaged in
 * a copy written to bad: a bit flipped `at` bytes from the frame's start
 * (at < 0: from its end). */
static void damage_frame(const char *path, uint64_t k, long at, simtrace_frame_info *fi, const char *bad)
{
    size_t len;
    uint8_t *b = check_slurp(path, &len);
    simtrace_reader *r;
    CHECK(b && simtrace_reader_open_path(&r, path, NULL) == SIMTRACE_OK);
    CHECK(simtrace_reader_frame_info(r, 0, k, fi) == SIMTRACE_OK);
    simtrace_reader_free(r);
    flip(b, at < 0 ? fi->offset + fi->stored_bytes - (uint64_t)-at : fi->offset + (uint64_t)at);
    spit(bad, b, len);
    free(b);
}

static void test_whole(const char *path)
{
    simtrace_reader *r;
    got_t g = {0};
    simtrace_salvage_report rep;
    CHECK(simtrace_reader_open_path(&r, path, NULL) == SIMTRACE_OK);
    CHECK(simtrace_salvage(r, "a", got_entries, got_damage, &g, &rep) == SIMTRACE_OK);
    CHECK(g.n == sizeof a_raw && memcmp(g.p, a_raw, g.n) == 0 && !g.out_of_order && g.ndmg == 0);
    CHECK(rep.stream == 0 && rep.entries_salvaged == NA && rep.frames_lost == 0 && rep.entries_lost == 0 &&
          !rep.no_directory && !rep.cut_off && rep.frames_after == 0);
    simtrace_recovery_info ri;
    CHECK(simtrace_reader_recovery(r, &ri) == SIMTRACE_OK && ri.complete == 1 && ri.reason[0] == 0 &&
          ri.frames == (NA + NB) / FRAME && ri.entries == NA + NB && ri.frames_after == 0);
    /* NULL: the default stream (the first memory stream); no damage_fn */
    got_reset(&g);
    CHECK(simtrace_salvage(r, NULL, got_entries, NULL, &g, NULL) == SIMTRACE_OK && g.n == sizeof a_raw);
    got_reset(&g);
    CHECK(simtrace_salvage(r, "b", got_entries, got_damage, &g, &rep) == SIMTRACE_OK && rep.stream == 1 &&
          g.n == sizeof b_raw && memcmp(g.p, b_raw, g.n) == 0);
    /* errors: no such stream, bad arguments, a refusing callback keeps errno */
    CHECK(simtrace_salvage(r, "nope", got_entries, got_damage, &g, &rep) == SIMTRACE_E_NOT_FOUND &&
          strstr(simtrace_reader_message(r), "nope"));
    CHECK(simtrace_salvage(NULL, "a", got_entries, NULL, NULL, NULL) == SIMTRACE_E_USAGE);
    CHECK(simtrace_salvage(r, "a", NULL, NULL, NULL, NULL) == SIMTRACE_E_USAGE);
    CHECK(simtrace_resume(r, 0, 0, 0, NULL, NULL, NULL) == SIMTRACE_E_USAGE);
    CHECK(simtrace_resume(r, 9, 0, 0, got_entries, NULL, &g) == SIMTRACE_E_RANGE);
    CHECK(simtrace_reader_recovery(r, NULL) == SIMTRACE_E_USAGE);
    got_reset(&g);
    g.refuse_after = 3;
    errno = 0;
    CHECK(simtrace_salvage(r, "a", got_entries, got_damage, &g, &rep) == SIMTRACE_E_WRITE && errno == ENOSPC &&
          rep.entries_salvaged == 2 * FRAME);
    got_reset(&g);
    simtrace_reader_free(r);

    /* a sequential reader cannot salvage, resume or tell its repair */
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    simtrace_read_io io = {file_read, f};
    CHECK(simtrace_reader_open_io(&r, &io, NULL) == SIMTRACE_OK);
    CHECK(simtrace_salvage(r, "a", got_entries, got_damage, &g, &rep) == SIMTRACE_E_STATE && g.n == 0);
    CHECK(simtrace_resume(r, 0, 0, 100, got_entries, got_damage, &g) == SIMTRACE_E_STATE && g.n == 0);
    CHECK(simtrace_reader_recovery(r, &ri) == SIMTRACE_E_STATE && strstr(simtrace_reader_message(r), "random access"));
    simtrace_reader_free(r);
    fclose(f);
}

static void test_payload_damage(const char *path, const char *dir)
{
    simtrace_frame_info fi;
    char bad[512];
    snprintf(bad, sizeof bad, "%s/payload.sim", dir);
    damage_frame(path, 3, -5, &fi, bad);
    simtrace_reader *r;
    got_t g = {0};
    simtrace_salvage_report rep;
    CHECK(simtrace_reader_open_path(&r, bad, NULL) == SIMTRACE_OK);
    CHECK(simtrace_salvage(r, "a", got_entries, got_damage, &g, &rep) == SIMTRACE_OK);
    /* every frame but the 4th, in order */
    size_t keep = (size_t)fi.first_entry * 32, lost = (size_t)fi.entries * 32;
    CHECK(g.n == sizeof a_raw - lost && memcmp(g.p, a_raw, keep) == 0 &&
          memcmp(g.p + keep, a_raw + keep + lost, g.n - keep) == 0);
    CHECK(g.ndmg == 1 && g.dmg[0].kind == SIMTRACE_DAMAGE_FRAME && g.dmg[0].stream == 0 && g.dmg[0].seq == 3 &&
          g.dmg[0].offset == fi.offset && g.dmg[0].first_entry == fi.first_entry &&
          g.dmg[0].entries == fi.entries && simtrace_error_is_data((int)g.dmg[0].error));
    CHECK(rep.frames_lost == 1 && rep.entries_lost == fi.entries && rep.entries_salvaged == NA - fi.entries &&
          !rep.no_directory && !rep.cut_off);
    /* stream b lost nothing */
    got_reset(&g);
    CHECK(simtrace_salvage(r, "b", got_entries, got_damage, &g, &rep) == SIMTRACE_OK && g.ndmg == 0 &&
          g.n == sizeof b_raw && memcmp(g.p, b_raw, g.n) == 0);
    got_reset(&g);
    simtrace_reader_free(r);
    unlink(bad);
}

/* A read of b in file order stopped at a damaged header of a's frame 2:
 * b goes on through the directory, from any entry; a cannot. */
static void test_resume(const char *path, const char *dir)
{
    simtrace_frame_info fi;
    char bad[512];
    snprintf(bad, sizeof bad, "%s/header.sim", dir);
    damage_frame(path, 2, 40, &fi, bad);
    simtrace_reader *r;
    got_t g = {0};
    CHECK(simtrace_reader_open_path(&r, bad, NULL) == SIMTRACE_OK);
    for (uint64_t from = 0; from < NB; from += 777) {
        got_reset(&g);
        CHECK(simtrace_resume(r, 1, from, fi.offset + 7, got_entries, got_damage, &g) == SIMTRACE_OK);
        CHECK(g.n == (NB - from) * 32 && memcmp(g.p, b_raw + from * 32, g.n) == 0 && !g.out_of_order);
        CHECK(g.ndmg == 1 && g.dmg[0].kind == SIMTRACE_DAMAGE_OTHER && g.dmg[0].stream == 0 && g.dmg[0].seq == 2 &&
              g.dmg[0].offset == fi.offset && g.dmg[0].error == SIMTRACE_OK);
    }
    /* the stream's own frame, or no frame at all: nothing */
    got_reset(&g);
    CHECK(simtrace_resume(r, 0, 0, fi.offset + 7, got_entries, got_damage, &g) == SIMTRACE_E_NOT_FOUND &&
          g.n == 0 && g.ndmg == 0);
    CHECK(simtrace_resume(r, 1, 0, UINT64_MAX - 1, got_entries, got_damage, &g) == SIMTRACE_E_NOT_FOUND &&
          g.n == 0 && g.ndmg == 0);
    /* the salvage of a skips the frame whose header is damaged */
    simtrace_salvage_report rep;
    CHECK(simtrace_salvage(r, "a", got_entries, got_damage, &g, &rep) == SIMTRACE_OK && rep.frames_lost == 1 &&
          g.ndmg == 1 && g.dmg[0].seq == 2 && g.dmg[0].error == SIMTRACE_E_HEADER_CRC);
    got_reset(&g);
    simtrace_reader_free(r);
    unlink(bad);
}

/* Without directory: cut inside a frame of a; and cut after a damaged
 * header that complete frames follow, which the index cannot list. */
static void test_no_directory(const char *path, const char *dir)
{
    size_t len;
    uint8_t *b = check_slurp(path, &len);
    simtrace_reader *r;
    simtrace_frame_info fi;
    CHECK(simtrace_reader_open_path(&r, path, NULL) == SIMTRACE_OK);
    CHECK(simtrace_reader_frame_info(r, 0, 7, &fi) == SIMTRACE_OK);
    simtrace_reader_free(r);
    char cut[512];
    snprintf(cut, sizeof cut, "%s/cut.sim", dir);
    spit(cut, b, (size_t)(fi.offset + fi.stored_bytes / 2));
    got_t g = {0};
    simtrace_salvage_report rep;
    simtrace_recovery_info ri;
    CHECK(simtrace_reader_open_path(&r, cut, NULL) == SIMTRACE_OK);
    CHECK(simtrace_reader_recovery(r, &ri) == SIMTRACE_OK && ri.complete == 0 && ri.reason[0] != 0 &&
          ri.frames_end == fi.offset && ri.file_size == fi.offset + fi.stored_bytes / 2 && ri.frames_after == 0);
    /* simtrace_reader_complete says the same in words */
    char words[512];
    snprintf(words, sizeof words, "no valid directory and footer (%s): read through its frame headers, %llu complete "
             "data frames (%llu entries) up to byte offset %llu of %llu", ri.reason, (unsigned long long)ri.frames,
             (unsigned long long)ri.entries, (unsigned long long)ri.frames_end, (unsigned long long)ri.file_size);
    CHECK(simtrace_reader_complete(r) == 0 && strncmp(simtrace_reader_message(r), words, strlen(words)) == 0);
    CHECK(simtrace_salvage(r, NULL, got_entries, got_damage, &g, &rep) == SIMTRACE_OK);
    CHECK(rep.no_directory && rep.cut_off && rep.cut_offset == fi.offset && rep.cut_first_entry == fi.first_entry &&
          rep.cut_entries == fi.entries && rep.frames_lost == 1 && rep.entries_salvaged == fi.first_entry);
    CHECK(g.n == fi.first_entry * 32 && memcmp(g.p, a_raw, g.n) == 0);
    CHECK(g.ndmg == 1 && g.dmg[0].kind == SIMTRACE_DAMAGE_CUT && g.dmg[0].error == SIMTRACE_E_TRUNCATED &&
          g.dmg[0].first_entry == fi.first_entry && g.dmg[0].entries == fi.entries);
    got_reset(&g);
    simtrace_reader_free(r);

    /* a damaged header of a's frame 2, then complete frames, then the cut */
    simtrace_frame_info f2;
    CHECK(simtrace_reader_open_path(&r, path, NULL) == SIMTRACE_OK);
    CHECK(simtrace_reader_frame_info(r, 0, 2, &f2) == SIMTRACE_OK);
    simtrace_reader_free(r);
    flip(b, f2.offset + 40);
    spit(cut, b, (size_t)(fi.offset + fi.stored_bytes / 2));
    CHECK(simtrace_reader_open_path(&r, cut, NULL) == SIMTRACE_OK);
    CHECK(simtrace_reader_recovery(r, &ri) == SIMTRACE_OK && ri.complete == 0 && ri.frames_after > f2.offset);
    CHECK(simtrace_salvage(r, "a", got_entries, got_damage, &g, &rep) == SIMTRACE_E_STATE &&
          rep.frames_after == ri.frames_after && g.n == 0 && g.ndmg == 0);
    simtrace_reader_free(r);
    free(b);
    unlink(cut);
}

/* The salvage of every file of testdata/bad that a salvage reads through
 * its index, here and by simtrace-cat --salvage: the same entries, the
 * same frames skipped. */
static void test_bad_files(const char *cat)
{
    if (access(cat, X_OK) != 0) {
        fprintf(stderr, "  %s not found: the comparison with simtrace-cat --salvage is left out\n", cat);
        return;
    }
    DIR *dp = opendir("testdata/bad");
    if (!dp) {
        fprintf(stderr, "  testdata/bad not found (run from the repository root)\n");
        CHECK(0);
        return;
    }
    unsigned compared = 0, lossy = 0, nodir = 0;
    struct dirent *de;
    while ((de = readdir(dp))) {
        size_t l = strlen(de->d_name);
        if (l < 5 || strcmp(de->d_name + l - 4, ".sim") != 0)
            continue;
        char path[600], cmd[1800];
        snprintf(path, sizeof path, "testdata/bad/%s", de->d_name);
        simtrace_reader *r;
        if (simtrace_reader_open_path(&r, path, NULL) != SIMTRACE_OK)
            continue; /* simtrace-cat salvages it in file order */
        got_t g = {0};
        simtrace_salvage_report rep;
        simtrace_error e = simtrace_salvage(r, NULL, got_entries, got_damage, &g, &rep);
        simtrace_reader_free(r);
        if (e == SIMTRACE_E_STATE || e == SIMTRACE_E_NOT_FOUND) {
            got_reset(&g);
            continue; /* likewise */
        }
        CHECK(e == SIMTRACE_OK);
        /* the entries: byte for byte */
        snprintf(cmd, sizeof cmd, "'%s' -q --salvage '%s' 2>/dev/null", cat, path);
        FILE *p = popen(cmd, "r");
        size_t n = 0, cap = g.n + 1;
        uint8_t *out = malloc(cap);
        size_t k;
        while (p && (k = fread(out + n, 1, cap - n, p)) > 0) {
            n += k;
            if (n == cap)
                out = realloc(out, cap *= 2);
        }
        int st = p ? pclose(p) : -1;
        int same = n == g.n && (n == 0 || memcmp(out, g.p, n) == 0);
        if (!same)
            fprintf(stderr, "  %s: %zu bytes from simtrace-cat, %zu from simtrace_salvage\n", path, n, g.n);
        CHECK(same);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == (rep.frames_lost || rep.no_directory ? 1 : 0));
        /* the frames skipped, as the messages number them */
        snprintf(cmd, sizeof cmd, "'%s' --salvage '%s' 2>&1 >/dev/null", cat, path);
        p = popen(cmd, "r");
        char line[4096];
        unsigned skipped = 0, i = 0, match = 1;
        while (p && fgets(line, sizeof line, p)) {
            const char *at = strstr(line, "skipped frame ");
            if (!at)
                continue;
            unsigned long long seq = strtoull(at + 14, NULL, 10);
            while (i < g.ndmg && g.dmg[i].kind != SIMTRACE_DAMAGE_FRAME)
                i++;
            match &= i < g.ndmg && g.dmg[i].seq == seq;
            i++;
            skipped++;
        }
        if (p)
            pclose(p);
        unsigned frames = 0;
        for (unsigned j = 0; j < g.ndmg; j++)
            frames += g.dmg[j].kind == SIMTRACE_DAMAGE_FRAME;
        if (!match || skipped != frames)
            fprintf(stderr, "  %s: simtrace-cat skipped %u frames, simtrace_salvage %u\n", path, skipped, frames);
        CHECK(match && skipped == frames);
        compared++;
        lossy += rep.frames_lost > 0;
        nodir += rep.no_directory;
        free(out);
        got_reset(&g);
    }
    closedir(dp);
    /* the set holds damaged frames and files without directory */
    CHECK(compared >= 20 && lossy >= 10 && nodir >= 5);
    printf("  %u files of testdata/bad salvaged as simtrace-cat does (%u with frames lost, %u without directory)\n",
           compared, lossy, nodir);
}

int main(int argc, char **argv)
{
    (void)argc;
    char dir[] = "/tmp/test_recover.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char path[512];
    snprintf(path, sizeof path, "%s/t.sim", dir);
    make_trace(path);
    test_whole(path);
    test_payload_damage(path, dir);
    test_resume(path, dir);
    test_no_directory(path, dir);
    /* this program is BUILD/tests/test_recover; simtrace-cat is BUILD/simtrace-cat */
    char cat[1024];
    const char *slash = strrchr(argv[0], '/');
    snprintf(cat, sizeof cat, "%.*s/../simtrace-cat", slash ? (int)(slash - argv[0]) : 1, slash ? argv[0] : ".");
    test_bad_files(cat);
    unlink(path);
    rmdir(dir);
    return check_done("test_recover");
}
