/*
 * vpcpairs - make and measure legacy VPC pair traces (ST_TYPE_VPC).
 *
 *   vpcpairs convert < trace.d64 > trace.vpc
 *       one 12-byte pair per d64 entry: u32 pc = the entry's ip (low 32
 *       bits), u64 extended data = its address; little-endian, packed.
 *       From a store stream (testdata/good/lackey_*_write.d64.xz) this is
 *       a store-address trace of the kind Burtscher's VPC tools produced.
 *
 *   vpcpairs size [LEVEL] < trace.vpc
 *       encode with the cm encoder and the LZMA second stage (LEVEL 1..9,
 *       default 6) in frames of 1048576 pairs, as svpc-compress frames
 *       entries, decode every frame back and compare, and print
 *       "pairs raw_bytes payload_bytes".  Payload bytes only: a container
 *       adds its file header, frame headers and directory (under 200 bytes
 *       for a few frames).  Until the container accepts vpc streams this is
 *       how the encoder is measured.  The streams of each frame (raw and
 *       stored bytes) go to standard error.
 *
 * Build: cc -std=c11 -O2 -I. scripts/vpcpairs.c build/libsvpc.a -llzma -lbz2 -lz -lpthread
 * Exit status 0, or 1 with a message on standard error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../svpc/svpc.h"

#define FRAME_PAIRS ((size_t)1 << 20)
#define SS_STATS_MAX 16

static int convert(void)
{
    uint8_t in[32], out[12];
    size_t got;
    while ((got = fread(in, 1, sizeof in, stdin)) == sizeof in) {
        st_store32(out, (uint32_t)st_load64(in + 8));
        st_store64(out + 4, st_load64(in + 16));
        if (fwrite(out, 1, sizeof out, stdout) != sizeof out) {
            fprintf(stderr, "vpcpairs: write error\n");
            return 1;
        }
    }
    if (got != 0) {
        fprintf(stderr, "vpcpairs: input ends with a partial d64 entry\n");
        return 1;
    }
    return 0;
}

static int size(int level)
{
    const size_t esz = st_entry_size(ST_TYPE_VPC);
    uint8_t *raw = malloc(FRAME_PAIRS * esz), *back = malloc(FRAME_PAIRS * esz);
    svpc_ctx *c = NULL;
    st_buf pl;
    st_buf_init(&pl, 0);
    unsigned long long pairs = 0, payload = 0;
    int rc = 1;
    if (!raw || !back || svpc_ctx_new(&c) != ST_OK) {
        fprintf(stderr, "vpcpairs: out of memory\n");
        goto out;
    }
    svpc_params p = {SVPC_ENC_CM, SVPC_STAGE_LZMA, level};
    for (;;) {
        size_t got = fread(raw, 1, FRAME_PAIRS * esz, stdin);
        if (got % esz) {
            fprintf(stderr, "vpcpairs: input ends with a partial pair\n");
            goto out;
        }
        size_t n = got / esz;
        if (n == 0)
            break;
        pl.len = 0;
        st_error e = svpc_encode(c, &p, ST_TYPE_VPC, raw, n, &pl);
        st_diag d;
        st_diag_clear(&d);
        if (e == ST_OK)
            e = svpc_decode(c, SVPC_ENC_CM, ST_TYPE_VPC, pl.data, pl.len, n, back, &d);
        if (e != ST_OK || memcmp(raw, back, n * esz) != 0) {
            fprintf(stderr, "vpcpairs: frame at pair %llu: %s %s\n", pairs, st_error_name(e),
                    e != ST_OK ? d.detail : "decodes to other pairs");
            goto out;
        }
        pairs += n;
        payload += pl.len;
        svpc_stream_stat st[SS_STATS_MAX];
        unsigned k = svpc_last_stats(c, st, SS_STATS_MAX);
        for (unsigned i = 0; i < k; i++)
            fprintf(stderr, "  %-18s %10llu -> %10llu\n", st[i].name, (unsigned long long)st[i].raw,
                    (unsigned long long)st[i].stored);
    }
    printf("%llu %llu %llu\n", pairs, pairs * esz, payload);
    rc = 0;
out:
    free(raw);
    free(back);
    st_buf_free(&pl);
    svpc_ctx_free(c);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "convert") == 0 && argc == 2)
        return convert();
    if (argc >= 2 && strcmp(argv[1], "size") == 0 && argc <= 3) {
        int level = argc == 3 ? atoi(argv[2]) : 6;
        if (level >= 1 && level <= 9)
            return size(level);
    }
    fprintf(stderr, "usage: vpcpairs convert < trace.d64 > trace.vpc\n"
                    "       vpcpairs size [LEVEL] < trace.vpc\n");
    return 2;
}
