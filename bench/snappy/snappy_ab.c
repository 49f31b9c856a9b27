/* bench/snappy/snappy_ab.c: ringscan's snappy decoder (format/snappy.c) beside Debian's
 * libsnappy on the page bodies bench/snappy/pages.py wrote, interleaved, every page checked
 * to decode to its stated size. Build and run (from the repository's root):
 *
 *   zig cc -O3 -march=native -I. -Iinclude bench/snappy/snappy_ab.c format/snappy.c \
 *       -lsnappy -lstdc++ -o /tmp/snappy_ab && /tmp/snappy_ab PAGES [ROUNDS]
 *
 * Prints each round's time and GB/s (uncompressed bytes out) per decoder. */
#include <snappy-c.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format/codec.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Decodes every page once with decoder which (0 ours, 1 libsnappy); bytes out, or -1. */
static long pass(const uint8_t *b, long n, uint8_t *out, size_t cap, int which)
{
    long total = 0;
    for (long i = 0; i + 8 <= n;) {
        uint32_t c, u;
        memcpy(&c, b + i, 4), memcpy(&u, b + i + 4, 4), i += 8;
        if (u > cap || c > n - i) return -1;
        size_t ol = u;
        int bad = which == 0 ? pq_snappy_uncompress(b + i, c, out, u) != 0
                             : snappy_uncompress((const char *)b + i, c, (char *)out, &ol) !=
                                       SNAPPY_OK || ol != u;
        if (bad) return -1;
        total += u, i += c;
    }
    return total;
}

int main(int argc, char **argv)
{
    if (argc < 2) return fprintf(stderr, "usage: snappy_ab PAGES [ROUNDS]\n"), 2;
    int rounds = argc > 2 ? atoi(argv[2]) : 7;
    FILE *f = fopen(argv[1], "rb");
    if (!f) return perror(argv[1]), 1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n), *out = malloc((size_t)1 << 26);
    if (!b || !out || fread(b, 1, (size_t)n, f) != (size_t)n) return fprintf(stderr, "read\n"), 1;
    fclose(f);
    for (int r = 0; r < rounds; r++)
        for (int which = 0; which < 2; which++) {
            double t0 = now();
            long total = pass(b, n, out, (size_t)1 << 26, which);
            double t = now() - t0;
            if (total < 0) return fprintf(stderr, "%s: a page did not decode\n", which ? "libsnappy" : "ours"), 1;
            printf("%-9s %7.1f ms %5.2f GB/s\n", which ? "libsnappy" : "ringscan", t * 1e3, (double)total / t / 1e9);
        }
    return 0;
}
