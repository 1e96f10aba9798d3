/*
 * codec_bench - the entry codec alone, without container, threads or I/O:
 * encodes the first frame (up to 2^20 d64 entries) of FILE with each
 * ENCODER named, decodes it, checks the round trip, and prints the payload
 * size and the fastest of 9 encode and decode times.  The minimum of
 * repeated runs in one process sees through the noise of a shared machine
 * better than separate runs, so two encoders can be compared closely.
 *
 * Usage: codec-bench FILE ENCODER...     (ENCODER: cm, cm1, paper, generic)
 * Exit status: 0 ok, 1 a read, coding or round-trip failure, 2 usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../svpc/svpc.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: codec-bench FILE ENCODER...\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "codec-bench: %s: cannot open\n", argv[1]);
        return 1;
    }
    const size_t esz = 32, max = (size_t)1 << 20;
    uint8_t *raw = malloc(max * esz), *back = malloc(max * esz);
    size_t n = raw ? fread(raw, esz, max, f) : 0;
    fclose(f);
    svpc_ctx *c = NULL;
    int rc = 0;
    if (!raw || !back || n == 0 || svpc_ctx_new(&c) != ST_OK) {
        fprintf(stderr, "codec-bench: %s: no entries, or out of memory\n", argv[1]);
        rc = 1;
    }
    st_buf pl;
    st_buf_init(&pl, 0);
    for (int k = 2; k < argc && rc == 0; k++) {
        svpc_params p = {SVPC_ENC_CM, SVPC_STAGE_LZMA, 6};
        if (!svpc_encoder_parse(argv[k], &p.encoder) || !svpc_encoder_supports(p.encoder, ST_TYPE_D64)) {
            fprintf(stderr, "codec-bench: %s: not an encoder of d64 entries\n", argv[k]);
            rc = 2;
            break;
        }
        double best_e = 1e9, best_d = 1e9;
        for (int r = 0; r < 9 && rc == 0; r++) {
            pl.len = 0;
            double t0 = now();
            st_error e = svpc_encode(c, &p, ST_TYPE_D64, raw, n, &pl);
            double t1 = now();
            st_diag d;
            st_diag_clear(&d);
            if (e == ST_OK)
                e = svpc_decode(c, p.encoder, ST_TYPE_D64, pl.data, pl.len, n, back, &d);
            double t2 = now();
            if (e != ST_OK || memcmp(raw, back, n * esz) != 0) {
                fprintf(stderr, "codec-bench: %s: %s\n", argv[k], e != ST_OK ? st_error_name(e) : "round trip differs");
                rc = 1;
            }
            best_e = t1 - t0 < best_e ? t1 - t0 : best_e;
            best_d = t2 - t1 < best_d ? t2 - t1 : best_d;
        }
        if (rc == 0)
            printf("%-8s %zu entries -> %zu bytes, encode %.1f ms, decode %.1f ms (fastest of 9)\n", argv[k], n,
                   pl.len, best_e * 1e3, best_d * 1e3);
    }
    st_buf_free(&pl);
    svpc_ctx_free(c);
    free(raw);
    free(back);
    return rc;
}
