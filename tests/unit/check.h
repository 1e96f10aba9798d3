/* check.h - minimal unit-test helpers: CHECK records a failure with its
 * line and goes on; check_done() prints "N passed, N failed" and gives the
 * exit status. */
#ifndef CHECK_H
#define CHECK_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int check_pass, check_fail;
#define CHECK(cond)                                                              \
    do {                                                                         \
        if (cond) {                                                              \
            check_pass++;                                                        \
        } else {                                                                 \
            check_fail++;                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                        \
    } while (0)

static inline int check_done(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, check_pass, check_fail);
    return check_fail ? 1 : 0;
}

/* Deterministic pseudo-random numbers (xorshift64*) for test inputs. */
static inline unsigned long long check_rand(unsigned long long *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}
/* The whole of the file at path (malloc'ed, *n bytes), or NULL. */
static inline uint8_t *check_slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc((size_t)len + 1);
    *n = fread(p, 1, (size_t)len, f);
    fclose(f);
    return p;
}
#endif
