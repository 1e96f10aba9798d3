/*
 * lackey2d64 - convert valgrind lackey memory traces to raw d64 entries.
 *
 * Usage:  valgrind --tool=lackey --trace-mem=yes --log-fd=3 PROG ARGS 3>&1 >/dev/null \
 *             | lackey2d64 read|write > trace.d64
 *
 * Input (stdin), one record per line, as lackey prints them
 * ("%08lx" hex address without 0x, decimal size):
 *     I  04016a0,3          instruction fetch
 *      L 1ffefffd78,8       load            -> read stream
 *      S 1ffefffd78,8       store           -> write stream
 *      M 1ffefffd78,8       modify (load + store) -> both streams
 * Lines starting with "==" or "--" are valgrind messages and are skipped.
 * Anything else is rejected: "lackey2d64: line N: ..." and exit status 1.
 *
 * Output (stdout): one 32-byte little-endian d64 entry per selected access:
 *     u64 meta     bits 0..47 cycle = number of I lines seen so far,
 *                  bit 48 fullSize = (SIZE == 8), bits 49..63 tag = 0
 *     u64 ip       address of the last I line (0 before the first one)
 *     u64 address  ADDR
 *     u64 data     lackey records no values: 0 when SIZE == 8, else SIZE << 32
 *
 * Streaming, constant memory. C11, no dependencies.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CYCLE_MAX ((UINT64_C(1) << 48) - 1)
#define FULLSIZE_BIT (UINT64_C(1) << 48)
#define LINE_MAX_LEN 256

static unsigned long long lineno;

static _Noreturn void die_line(const char *msg)
{
    fprintf(stderr, "lackey2d64: line %llu: %s\n", lineno, msg);
    exit(1);
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Parses "HEX,DEC" followed only by optional trailing blanks / CR. */
static void parse_addr_size(const char *s, uint64_t *addr, uint64_t *size)
{
    uint64_t a = 0, z = 0;
    int n = 0, d;

    while (*s == ' ' || *s == '\t')
        s++;
    while ((d = hexval((unsigned char)*s)) >= 0) {
        if (a >> 60)
            die_line("address does not fit in 64 bits");
        a = (a << 4) | (uint64_t)d;
        s++;
        n++;
    }
    if (n == 0)
        die_line("expected a hex address");
    if (*s != ',')
        die_line("expected ',' after the address");
    s++;
    n = 0;
    while (*s >= '0' && *s <= '9') {
        z = z * 10 + (uint64_t)(*s - '0');
        if (z > UINT32_MAX)
            die_line("size does not fit in 32 bits");
        s++;
        n++;
    }
    if (n == 0)
        die_line("expected a decimal size after ','");
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    if (*s != '\0')
        die_line("trailing garbage after the size");
    *addr = a;
    *size = z;
}

int main(int argc, char **argv)
{
    int want_read, want_write;
    static char obuf[1 << 20];
    char line[LINE_MAX_LEN + 1];
    uint64_t cycle = 0, ip = 0;

    if (argc != 2 || (strcmp(argv[1], "read") != 0 && strcmp(argv[1], "write") != 0)) {
        fprintf(stderr, "usage: lackey2d64 read|write < lackey.log > trace.d64\n");
        return 2;
    }
    want_read = strcmp(argv[1], "read") == 0;
    want_write = !want_read;
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);

    for (;;) {
        size_t len = 0;
        int c;
        uint64_t addr, size;
        int is_read, is_write;

        while ((c = getc(stdin)) != EOF && c != '\n') {
            if (c == '\0') {
                lineno++;
                die_line("NUL byte in line");
            }
            if (len == LINE_MAX_LEN) {
                lineno++;
                die_line("line too long");
            }
            line[len++] = (char)c;
        }
        if (c == EOF && len == 0)
            break;
        line[len] = '\0';
        lineno++;
        if (len >= 2 && ((line[0] == '=' && line[1] == '=') || (line[0] == '-' && line[1] == '-')))
            continue; /* valgrind message */
        if (len < 3)
            die_line(len == 0 ? "empty line" : "line too short");

        if (line[0] == 'I' && line[1] == ' ') {
            parse_addr_size(line + 2, &addr, &size);
            if (cycle == CYCLE_MAX)
                die_line("instruction count does not fit in 48 bits");
            cycle++;
            ip = addr;
            continue;
        }
        if (line[0] != ' ' || line[2] != ' ') {
            die_line("expected 'I  ADDR,SIZE' or ' L|S|M ADDR,SIZE'");
        }
        switch (line[1]) {
        case 'L': is_read = 1; is_write = 0; break;
        case 'S': is_read = 0; is_write = 1; break;
        case 'M': is_read = 1; is_write = 1; break;
        default: die_line("unknown access kind (expected L, S or M)");
        }
        parse_addr_size(line + 3, &addr, &size);
        if (size == 0)
            die_line("access size 0");
        if ((want_read && is_read) || (want_write && is_write)) {
            unsigned char e[32];
            int full = size == 8;
            put_u64(e, cycle | (full ? FULLSIZE_BIT : 0));
            put_u64(e + 8, ip);
            put_u64(e + 16, addr);
            put_u64(e + 24, full ? 0 : size << 32);
            if (fwrite(e, sizeof e, 1, stdout) != 1) {
                fprintf(stderr, "lackey2d64: write error: %s\n", strerror(errno));
                return 1;
            }
        }
    }
    if (ferror(stdin)) {
        fprintf(stderr, "lackey2d64: read error: %s\n", strerror(errno));
        return 1;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "lackey2d64: write error: %s\n", strerror(errno));
        return 1;
    }
    return 0;
}
