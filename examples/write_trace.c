/*
 * write_trace - a toy simulator that records its memory accesses with
 * libsvpc: every load goes to stream cpu0.read, every store to cpu0.write,
 * a 16-byte vector store now and then as a wide access.
 *
 *   cc write_trace.c $(pkg-config --cflags --libs svpc) -o write_trace
 *   ./write_trace trace.sim [INSTRUCTIONS] [--dump]
 *
 * --dump also writes the raw entries submitted, to trace.sim.read and
 * trace.sim.write, for comparing with `simtrace-cat -s cpu0.read trace.sim`.
 * Builds as C and as C++.
 */
#include <simtrace.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(simtrace_error e, simtrace_writer *w, const char *what)
{
    if (e == SIMTRACE_OK)
        return 0;
    fprintf(stderr, "write_trace: %s: %s%s%s\n", what, simtrace_strerror(e), w ? ": " : "",
            w ? simtrace_writer_message(w) : "");
    return 1;
}

/* Run the "program" for n instructions, recording into w (and the dump
 * files, if not NULL).  Returns 0, or 1 after a message. */
static int simulate(simtrace_writer *w, uint32_t rd, uint32_t wr, unsigned long n, FILE *dr, FILE *dw,
                    uint64_t *reads, uint64_t *writes)
{
    /* the "program": a loop summing an array a[] into b[], with a vector
     * copy of 16 bytes every 64 iterations */
    uint64_t cycle = 0, x = 88172645463325252ull;
    uint8_t raw[32];
    for (unsigned long i = 0; i < n; i++) {
        uint64_t ip = 0x401000 + 4 * (i % 12);
        simtrace_entry e;
        cycle += 1 + (i % 3 == 0);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        e.cycle = cycle;
        e.meta16 = 1; /* full-size (8-byte) access */
        e.ip = ip;
        e.address = 0x7f0000000000ull + 8 * (i % 4096);
        e.data = x % 1000;
        simtrace_entry_pack(SIMTRACE_TYPE_D64, &e, raw);
        if (check(simtrace_writer_write(w, rd, raw, 1), w, "cpu0.read"))
            return 1;
        if (dr)
            fwrite(raw, 1, sizeof raw, dr);
        (*reads)++;
        if (i % 4 == 3) {
            e.ip = ip + 2;
            e.address = 0x600000000000ull + 8 * (i / 4 % 2048);
            e.data = *reads;
            simtrace_entry_pack(SIMTRACE_TYPE_D64, &e, raw);
            if (i % 64 == 63) {
                /* a vector store: the library keeps all 16 bytes and the
                 * entry the size and the low half */
                uint8_t v[16];
                for (unsigned b = 0; b < 16; b++)
                    v[b] = (uint8_t)(i + b);
                if (check(simtrace_writer_write_wide(w, wr, raw, v, sizeof v), w, "cpu0.write (wide)"))
                    return 1;
                if (dw) {
                    /* as stored: fullSize 0, size 16 and the low 4 bytes */
                    e.meta16 = 0;
                    e.data = (uint64_t)16 << 32 | (uint64_t)v[0] | (uint64_t)v[1] << 8 | (uint64_t)v[2] << 16 |
                             (uint64_t)v[3] << 24;
                }
            } else if (check(simtrace_writer_write(w, wr, raw, 1), w, "cpu0.write")) {
                return 1;
            }
            if (dw) {
                simtrace_entry_pack(SIMTRACE_TYPE_D64, &e, raw);
                fwrite(raw, 1, sizeof raw, dw);
            }
            (*writes)++;
        }
        cycle++;
        /* a checkpoint of the simulation: what is written survives a crash */
        if (i == n / 2 && check(simtrace_writer_flush(w), w, "flush"))
            return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: write_trace OUT.sim [INSTRUCTIONS] [--dump]\n");
        return 2;
    }
    const char *out = argv[1];
    unsigned long n = argc > 2 && argv[2][0] != '-' ? strtoul(argv[2], NULL, 10) : 200000;
    int dump = argc > 2 && strcmp(argv[argc - 1], "--dump") == 0;
    FILE *dr = NULL, *dw = NULL;
    if (dump) {
        char p[4096];
        snprintf(p, sizeof p, "%s.read", out);
        dr = fopen(p, "wb");
        snprintf(p, sizeof p, "%s.write", out);
        dw = fopen(p, "wb");
        if (!dr || !dw) {
            fprintf(stderr, "write_trace: cannot write %s.read or .write\n", out);
            return 1;
        }
    }

    simtrace_write_params params;
    simtrace_write_params_init(&params);
    params.threads = 2;          /* the bytes are the same for any count */
    params.frame_entries = 16384;
    params.check_cycles = 1;
    simtrace_writer *w = NULL;
    uint32_t rd = 0, wr = 0;
    if (check(simtrace_writer_create_path(&w, out, &params), w, out) ||
        check(simtrace_writer_add_stream(w, "cpu0.read", SIMTRACE_TYPE_D64, &rd), w, "cpu0.read") ||
        check(simtrace_writer_add_stream(w, "cpu0.write", SIMTRACE_TYPE_D64, &wr), w, "cpu0.write")) {
        simtrace_writer_free(w);
        return 1;
    }

    uint64_t reads = 0, writes = 0, bytes = 0;
    if (simulate(w, rd, wr, n, dr, dw, &reads, &writes) || check(simtrace_writer_close(w), w, out)) {
        simtrace_writer_free(w);
        return 1;
    }
    simtrace_writer_entries(w, UINT32_MAX, NULL, &bytes);
    printf("%s: cpu0.read %llu entries, cpu0.write %llu entries, %llu bytes\n", out, (unsigned long long)reads,
           (unsigned long long)writes, (unsigned long long)bytes);
    simtrace_writer_free(w);
    if (dr && fclose(dr) != 0)
        return 1;
    if (dw && fclose(dw) != 0)
        return 1;
    return 0;
}
