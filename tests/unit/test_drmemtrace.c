/* test_drmemtrace.c - the drmemtrace encoders (svpc/drmem.c: drmemtrace
 * and drmx) and importer (formats/import_drmemtrace.c): round trips of
 * made-up traces with every kind of record, escapes and edge sizes;
 * prefixes; payloads cut short; x86-64 code whose branch targets and
 * operands drmx reads, and encodings cut anywhere; the importer's handling
 * of empty, cut-off and foreign input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../formats/trace_io.h"
#include "../../svpc/svpc.h"
#include "check.h"

#define ESZ 12u

static void put(uint8_t *p, size_t *n, unsigned t, unsigned s, uint64_t a)
{
    st_store16(p + *n * ESZ, (uint16_t)t);
    st_store16(p + *n * ESZ + 2, (uint16_t)s);
    st_store64(p + *n * ESZ + 4, a);
    (*n)++;
}

/* A made-up thread: a header, then loops of instructions with encodings
 * the first time, loads and stores with strides, calls and returns,
 * branch-target markers, timestamps; then random records of any type,
 * size and value; then a footer.  At most cap records. */
static size_t make_trace(uint8_t *p, size_t cap, unsigned long long seed)
{
    size_t n = 0;
    put(p, &n, 25, 0, 4);
    put(p, &n, 22, 4, 1234);
    put(p, &n, 24, 4, 1234);
    uint64_t base = 0x7f0000001000ull, stack = 0x7ffe00000000ull;
    for (unsigned it = 0; n + 64 < cap / 2; it++) {
        put(p, &n, 28, 2, 13186525363117589ull + it * 17);
        for (unsigned k = 0; k < 12 && n + 16 < cap; k++) {
            uint64_t pc = base + k * 5;
            if (it == 0) /* encodings precede an instruction's first execution */
                put(p, &n, 47, 5, 0x48890424ull + k);
            put(p, &n, k == 11 ? 13 : 10, 5, pc);
            if (k % 3 == 0)
                put(p, &n, 0, 8, stack - 8 * (it % 7) + k);
            if (k % 4 == 1)
                put(p, &n, 1, 4, 0x601000ull + 16 * it);
        }
        if (it % 5 == 0) {
            put(p, &n, 14, 5, base + 60);
            put(p, &n, 10, 1, 0x401000);
            put(p, &n, 28, 29, base + 65);
            put(p, &n, 16, 1, 0x401001);
        }
    }
    while (n + 1 < cap) {
        unsigned long long r = check_rand(&seed);
        unsigned t = (unsigned)(r % 80) == 79 ? (unsigned)(r >> 20) & 0xFFFF : (unsigned)(r % 64);
        put(p, &n, t, (unsigned)(r >> 40) & (r & 1 ? 0xFFFF : 15), check_rand(&seed) >> (r % 64));
    }
    put(p, &n, 26, 0, 0);
    return n;
}

static size_t grow_more(void *arg, size_t have)
{
    size_t *avail = arg;
    return have < *avail ? (have + 1000 < *avail ? have + 1000 : *avail) : have;
}

static void codec_round_trips(svpc_encoder enc)
{
    svpc_ctx *c;
    CHECK(svpc_ctx_new(&c) == ST_OK);
    svpc_params p = {enc, SVPC_STAGE_LZMA, 6};
    CHECK(svpc_encoder_supports(enc, ST_TYPE_DRMEMTRACE));
    CHECK(!svpc_encoder_supports(enc, ST_TYPE_D64));
    CHECK(!svpc_encoder_supports(SVPC_ENC_CM2, ST_TYPE_DRMEMTRACE));
    svpc_encoder e;
    CHECK(svpc_encoder_parse("drmemtrace", &e) && e == SVPC_ENC_DRMEMTRACE);
    CHECK(svpc_encoder_parse("drmx", &e) && e == SVPC_ENC_DRMX);
    CHECK(st_entry_size(ST_TYPE_DRMEMTRACE) == 12 && strcmp(st_entry_name(ST_TYPE_DRMEMTRACE), "drmemtrace") == 0);
    CHECK(st_entry_parse("drmemtrace") == ST_TYPE_DRMEMTRACE);
    CHECK(st_entry_from_guid(st_entry_guid(ST_TYPE_DRMEMTRACE)) == ST_TYPE_DRMEMTRACE);
    CHECK(st_entry_size((st_entry_type)13) == 0 && strcmp(st_entry_name((st_entry_type)13), "?") == 0);

    const size_t cap = 60000;
    uint8_t *raw = malloc(cap * ESZ), *back = malloc((cap + 1) * ESZ); /* n + 1 are asked for below */
    size_t sizes[] = {0, 1, 2, 3, 200, 5000, cap};
    for (unsigned z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        size_t n = sizes[z] ? make_trace(raw, sizes[z], 77 + z) : 0;
        if (sizes[z] == 1)
            n = 1; /* the header alone */
        st_buf out;
        st_buf_init(&out, 0);
        CHECK(svpc_encode(c, &p, ST_TYPE_DRMEMTRACE, raw, n, &out) == ST_OK);
        st_diag d;
        memset(back, 0xAA, cap * ESZ);
        CHECK(svpc_decode(c, enc, ST_TYPE_DRMEMTRACE, out.data, out.len, n, back, &d) == ST_OK);
        CHECK(memcmp(raw, back, n * ESZ) == 0);
        /* a prefix decodes to the same entries */
        size_t stop = n / 3;
        CHECK(svpc_decode_prefix(c, enc, ST_TYPE_DRMEMTRACE, out.data, out.len, n, stop, back, &d) ==
              ST_OK);
        CHECK(memcmp(raw, back, stop * ESZ) == 0);
        /* entries that arrive while coding: the same payload */
        st_buf fed;
        st_buf_init(&fed, 0);
        size_t avail = n, got = 0;
        svpc_source src = {grow_more, &avail};
        CHECK(svpc_encode_source(c, &p, ST_TYPE_DRMEMTRACE, raw, &src, &got, &fed) == ST_OK);
        CHECK(got == n && fed.len == out.len && memcmp(fed.data, out.data, out.len) == 0);
        /* a payload cut short, or one entry too many asked for: an error */
        if (n > 1) {
            CHECK(svpc_decode(c, enc, ST_TYPE_DRMEMTRACE, out.data, out.len / 2, n, back, &d) ==
                  ST_E_CORRUPT);
            CHECK(svpc_decode(c, enc, ST_TYPE_DRMEMTRACE, out.data, out.len, n + 1, back, &d) ==
                  ST_E_CORRUPT);
        }
        /* a damaged payload never crashes */
        for (size_t k = 0; k < out.len && k < 64; k++) {
            out.data[k] ^= 0x5A;
            (void)svpc_decode(c, enc, ST_TYPE_DRMEMTRACE, out.data, out.len, n, back, &d);
            out.data[k] ^= 0x5A;
        }
        st_buf_free(&out);
        st_buf_free(&fed);
    }
    /* a repeated loop costs little: under half a bit per entry */
    size_t n = 0;
    for (unsigned it = 0; n + 8 < 40000; it++)
        for (unsigned k = 0; k < 4; k++) {
            put(raw, &n, 10, 4, 0x400000 + 4 * k);
            put(raw, &n, 0, 8, 0x600000 + 8 * (it % 100));
        }
    st_buf out;
    st_buf_init(&out, 0);
    CHECK(svpc_encode(c, &p, ST_TYPE_DRMEMTRACE, raw, n, &out) == ST_OK);
    CHECK(out.len * 8 < n / 2);
    st_buf_free(&out);
    free(raw);
    free(back);
    svpc_ctx_free(c);
}

/* Instruction i of made-up x86-64 code at pc: its encoding (*len bytes),
 * its branch's target (*target, 0: none) and its memory reference's
 * address (returned, 0: none), with rbp and the globals at globals: a call (E8 rel32) to the next function, a jcc (0F 8x
 * rel32) or jmp (EB rel8), a RIP-relative load (48 8B 05 disp32), a
 * store to [rbp+disp8] (48 89 45 d8), a load through a SIB without index
 * (8B 44 24 d8, [rsp+disp8]), an AVX load from [rax+disp32] (C5 F8 10 80
 * disp32), and plain register moves. */
static uint64_t x86_instr(unsigned i, uint64_t pc, uint64_t rbp, uint64_t globals, uint8_t *enc, unsigned *len,
                          uint64_t *target)
{
    const unsigned k = i % 8;
    *target = 0;
    switch (k) {
    case 0: { /* call rel32 */
        const int32_t rel = 0x1000 + (int32_t)(i * 48);
        enc[0] = 0xE8;
        memcpy(enc + 1, &rel, 4);
        *len = 5;
        *target = pc + 5 + (uint64_t)(int64_t)rel;
        return 0;
    }
    case 1: { /* mov rax, [rip+disp32] */
        const int32_t disp = (int32_t)(globals - (pc + 7)) + (int32_t)(i * 8);
        memcpy(enc, "\x48\x8B\x05", 3);
        memcpy(enc + 3, &disp, 4);
        *len = 7;
        return pc + 7 + (uint64_t)(int64_t)disp;
    }
    case 2: /* mov [rbp-40], rax */
        memcpy(enc, "\x48\x89\x45\xD8", 4);
        *len = 4;
        return rbp - 40;
    case 3: /* mov eax, [rsp-40]: SIB, no index */
        memcpy(enc, "\x8B\x44\x24\xD8", 4);
        *len = 4;
        return rbp - 96 - 40;
    case 4: { /* vmovups xmm0, [rax+disp32] */
        const int32_t disp = 0x2000 + (int32_t)i;
        memcpy(enc, "\xC5\xF8\x10\x80", 4);
        memcpy(enc + 4, &disp, 4);
        *len = 8;
        return globals + 0x100000 + (uint64_t)(int64_t)disp;
    }
    case 5: { /* jne rel32, taken */
        const int32_t rel = 0x40;
        memcpy(enc, "\x0F\x85", 2);
        memcpy(enc + 2, &rel, 4);
        *len = 6;
        *target = pc + 6 + 0x40;
        return 0;
    }
    case 6: /* jmp rel8, taken */
        enc[0] = 0xEB;
        enc[1] = 0x10;
        *len = 2;
        *target = pc + 2 + 0x10;
        return 0;
    default: /* mov rbx, rax */
        memcpy(enc, "\x48\x89\xC3", 3);
        *len = 3;
        return 0;
    }
}

/* A trace of code run once each (every instruction new: its encoding,
 * then it, then its memory reference), where every branch target and
 * memory address follows from the encodings; then the same encodings cut
 * at every length and with odd prefixes, which must round trip too. */
static void x86_code(void)
{
    const size_t cap = 40000;
    uint8_t *raw = malloc(cap * ESZ), *back = malloc(cap * ESZ);
    size_t n = 0;
    uint64_t pc = 0x401000, rbp = 0x7ffe0000f000ull, globals = 0x600000;
    put(raw, &n, 25, 0, 4);
    put(raw, &n, 22, 4, 99);
    for (unsigned i = 0; n + 8 < cap / 2; i++) {
        uint8_t enc[16];
        unsigned len;
        uint64_t target;
        const uint64_t addr = x86_instr(i, pc, rbp, globals, enc, &len, &target);
        uint64_t lo = 0;
        memcpy(&lo, enc, len < 8 ? len : 8);
        put(raw, &n, 47, len < 8 ? len : 8, lo);
        if (len > 8) {
            uint64_t hi = 0;
            memcpy(&hi, enc + 8, len - 8);
            put(raw, &n, 47, len - 8, hi);
        }
        put(raw, &n, target ? (i % 8 == 0 ? 14 : 12) : 10, len, pc);
        if (addr)
            put(raw, &n, i % 8 == 2 ? 1 : 0, 8, addr);
        pc = target ? target : pc + len;
        if (i % 8 == 0)
            rbp -= 64; /* a new frame */
    }
    /* encodings cut short or odd: each prefix of each instruction, lone
     * escapes and VEX/EVEX bytes, a SIB without a base */
    static const uint8_t odd[][8] = {{0x66}, {0x0F}, {0xC4}, {0xC5}, {0x62}, {0x48}, {0x0F, 0x38}, {0x8B, 0x04},
                                     {0x8B, 0x04, 0x25, 1, 2, 3, 4}, {0xC4, 0xE2, 0x79, 0x18, 0x05, 1, 2, 3},
                                     {0x62, 0xF1, 0x7C, 0x48, 0x10, 0x44, 0x24, 1}, {0xF0, 0xF2, 0x66, 0x2E}};
    for (unsigned i = 0; n + 8 < cap; i++) {
        uint8_t enc[16];
        unsigned len;
        uint64_t target;
        x86_instr(i, pc, rbp, globals, enc, &len, &target);
        const unsigned cut = 1 + i % (len < 8 ? len : 8);
        uint64_t v = 0;
        if (i % 3 == 0) {
            memcpy(&v, odd[i / 3 % 12], 8);
            put(raw, &n, 47, 1 + (i / 3) % 8, v);
        } else {
            memcpy(&v, enc, cut);
            put(raw, &n, 47, cut, v);
        }
        put(raw, &n, 10 + i % 7, 1 + i % 15, pc);
        put(raw, &n, i % 2, 4, rbp - 8 * (i % 5));
        pc += 0x10 + i % 7;
    }
    svpc_ctx *c;
    CHECK(svpc_ctx_new(&c) == ST_OK);
    size_t half = 0;
    while (half < n && !(st_load16(raw + half * ESZ) == 47 && half > cap / 2 - 16))
        half++;
    size_t bytes[2][2];
    const svpc_encoder encs[2] = {SVPC_ENC_DRMEMTRACE, SVPC_ENC_DRMX};
    for (unsigned k = 0; k < 2; k++)
        for (unsigned part = 0; part < 2; part++) {
            const size_t m = part ? n : half;
            svpc_params p = {encs[k], SVPC_STAGE_LZMA, 6};
            st_buf out;
            st_buf_init(&out, 0);
            CHECK(svpc_encode(c, &p, ST_TYPE_DRMEMTRACE, raw, m, &out) == ST_OK);
            st_diag d;
            memset(back, 0, m * ESZ);
            CHECK(svpc_decode(c, encs[k], ST_TYPE_DRMEMTRACE, out.data, out.len, m, back, &d) == ST_OK);
            CHECK(memcmp(raw, back, m * ESZ) == 0);
            /* the other encoder does not read it as the same entries */
            const svpc_encoder other = encs[1 - k];
            CHECK(svpc_decode(c, other, ST_TYPE_DRMEMTRACE, out.data, out.len, m, back, &d) != ST_OK ||
                  memcmp(raw, back, m * ESZ) != 0);
            bytes[k][part] = out.len;
            st_buf_free(&out);
        }
    /* where the encodings say it all, drmx codes the targets and addresses
     * in a few bits: under 70% of encoder 10's payload (49% when written) */
    CHECK(bytes[1][0] * 10 < bytes[0][0] * 7);
    CHECK(bytes[1][1] < bytes[0][1]);
    svpc_ctx_free(c);
    free(raw);
    free(back);
}

/* AArch64-like code run once (4-byte words: loads, adds, branches with
 * random fields, each an encoding then the instruction): drmx stops reading
 * it as x86 after 32 instructions of 4 bytes, and is then no larger than
 * encoder 10, within 0.5% (read as x86 to the end it was 5% larger, here
 * and on the real AArch64 code of a libc). */
static void arm_code(void)
{
    const size_t cap = 60000;
    uint8_t *raw = malloc(cap * ESZ), *back = malloc(cap * ESZ);
    size_t n = 0;
    unsigned long long seed = 9;
    static const uint32_t op[] = {0xF9400000u, 0x91000000u, 0x94000000u, 0xB9000000u, 0xAA0003E0u, 0x54000000u};
    static const uint32_t field[] = {0x003FFFFFu, 0x003FFFFFu, 0x03FFFFFFu, 0x003FFFFFu, 0x001F001Fu, 0x00FFFFEFu};
    put(raw, &n, 25, 0, 4);
    put(raw, &n, 22, 4, 77);
    for (uint64_t pc = 0x400000; n + 4 < cap; pc += 4) {
        const unsigned long long r = check_rand(&seed);
        const unsigned k = (unsigned)(r % 6);
        put(raw, &n, 47, 4, op[k] | ((uint32_t)(r >> 8) & field[k]));
        put(raw, &n, 10, 4, pc);
        if (k == 0 || k == 3)
            put(raw, &n, k == 3, 8, 0x7fff0000ull + ((r >> 40) & 0xFF8));
    }
    svpc_ctx *c;
    CHECK(svpc_ctx_new(&c) == ST_OK);
    size_t bytes[2];
    const svpc_encoder encs[2] = {SVPC_ENC_DRMEMTRACE, SVPC_ENC_DRMX};
    for (unsigned k = 0; k < 2; k++) {
        svpc_params p = {encs[k], SVPC_STAGE_LZMA, 6};
        st_buf out;
        st_buf_init(&out, 0);
        CHECK(svpc_encode(c, &p, ST_TYPE_DRMEMTRACE, raw, n, &out) == ST_OK);
        st_diag d;
        CHECK(svpc_decode(c, encs[k], ST_TYPE_DRMEMTRACE, out.data, out.len, n, back, &d) == ST_OK);
        CHECK(memcmp(raw, back, n * ESZ) == 0);
        bytes[k] = out.len;
        st_buf_free(&out);
    }
    /* 101,611 bytes against 102,145 when written; 107,486 read as x86 */
    CHECK(bytes[1] * 1000 <= bytes[0] * 1005);
    svpc_ctx_free(c);
    free(raw);
    free(back);
}

/* ---- the importer ---- */

typedef struct {
    int ns;
    char name[4][300];
    uint8_t *data;
    size_t n;
} sink;

static st_error add(void *arg, const st_stream_decl *d, uint32_t *sid)
{
    sink *s = arg;
    if (s->ns == 4 || d->type != ST_TYPE_DRMEMTRACE)
        return ST_E_USAGE;
    snprintf(s->name[s->ns], sizeof s->name[0], "%s", d->name);
    *sid = (uint32_t)s->ns++;
    return ST_OK;
}

static st_error append(void *arg, uint32_t sid, const void *e, size_t n)
{
    sink *s = arg;
    if (sid != 0)
        return ST_E_USAGE;
    s->data = realloc(s->data, (s->n + n) * ESZ);
    memcpy(s->data + s->n * ESZ, e, n * ESZ);
    s->n += n;
    return ST_OK;
}

/* Import len bytes of p through a temporary file. */
static st_error import_bytes(const uint8_t *p, size_t len, sink *s, st_diag *d)
{
    FILE *f = tmpfile();
    if (!f || fwrite(p, 1, len, f) != len || fflush(f) != 0 || lseek(fileno(f), 0, SEEK_SET) != 0)
        abort();
    memset(s, 0, sizeof *s);
    st_import_opts o = {.prefix = "x."};
    st_error e = st_import("drmemtrace", fileno(f), &o, &(st_import_sink){s, add, append, NULL}, NULL, d);
    fclose(f);
    return e;
}

static void importer(void)
{
    const size_t cap = 3000;
    uint8_t *raw = malloc(cap * ESZ);
    size_t n = make_trace(raw, cap, 5);
    sink s;
    st_diag d;
    CHECK(import_bytes(raw, n * ESZ, &s, &d) == ST_OK);
    CHECK(s.ns == 1 && strcmp(s.name[0], "x.tid1234") == 0 && s.n == n && memcmp(s.data, raw, n * ESZ) == 0);
    free(s.data);
    /* cut off: the whole records kept, the cut one named with its offset */
    CHECK(import_bytes(raw, 100 * ESZ + 7, &s, &d) == ST_E_PARTIAL_ENTRY);
    CHECK(s.n == 100 && memcmp(s.data, raw, 100 * ESZ) == 0 && d.offset == 100 * ESZ && strstr(d.detail, "record 100"));
    free(s.data);
    /* fewer records than the naming window, then cut off: kept too */
    CHECK(import_bytes(raw, 2 * ESZ + 1, &s, &d) == ST_E_PARTIAL_ENTRY && s.n == 2);
    free(s.data);
    /* empty: one stream of no records, named "trace" */
    CHECK(import_bytes(raw, 0, &s, &d) == ST_OK && s.ns == 1 && s.n == 0 && strcmp(s.name[0], "x.trace") == 0);
    free(s.data);
    /* not a trace: nothing declared */
    CHECK(import_bytes(raw + ESZ, 10 * ESZ, &s, &d) == ST_E_NOT_FORMAT && s.ns == 0 && d.offset == 0);
    free(s.data);
    CHECK(import_bytes((const uint8_t *)"PK\3\4 not really a zip", 22, &s, &d) == ST_E_CORRUPT && s.ns == 0);
    free(s.data);
    free(raw);
}

int main(void)
{
    codec_round_trips(SVPC_ENC_DRMEMTRACE);
    codec_round_trips(SVPC_ENC_DRMX);
    x86_code();
    arm_code();
    importer();
    return check_done("test_drmemtrace");
}
