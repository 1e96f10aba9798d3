/* fuzz_util.h - shared by the libFuzzer harnesses: put the input in an
 * in-memory file, since the container readers take file descriptors. */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int fuzz_memfd(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz", 0);
    if (fd < 0)
        abort();
    size_t off = 0;
    while (off < size) {
        ssize_t k = write(fd, data + off, size - off);
        if (k <= 0)
            abort();
        off += (size_t)k;
    }
    lseek(fd, 0, SEEK_SET);
    return fd;
}
#endif
