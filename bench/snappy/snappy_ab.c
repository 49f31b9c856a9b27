/* bench/snappy/snappy_ab.c: ringscan's snappy decoder (format/snappy.c) beside Debian's
 * libsnappy on the page bodies bench/snappy/pages.py wrote, interleaved, every page checked
 * to decode to its stated size. Build and run (from the repository's root):
 *
 *   zig cc -O3 -march=native -I. -Iinclude bench/snappy/snappy_ab.c format/snappy.c \
 *       -lsnappy -lstdc++ -o /tmp/snappy_ab && /tmp/snappy_ab PAGES [ROUNDS]
 *
 * With a third arm, another version of the decoder (base: a change's A/B), its symbols
 * renamed:
 *
 *   git show main:format/snappy.c > /tmp/snappy_base.c
 *   zig cc -O3 -march=native -I. -Iinclude -Dpq_snappy_uncompress=base_snappy_uncompress \
 *       -Dpq_snappy_length=base_snappy_length -c /tmp/snappy_base.c -o /tmp/snappy_base.o
 *   zig cc -O3 -march=native -I. -Iinclude -DSNAPPY_AB_BASE bench/snappy/snappy_ab.c \
 *       format/snappy.c /tmp/snappy_base.o -lsnappy -lstdc++ -o /tmp/snappy_ab
 *
 * Prints the stream's elements (how many, bytes out per element: the fast loop's cost is per
 * element), each round's thread CPU time and GB/s (uncompressed bytes out) per decoder, then
 * each decoder's median CPU time and its ratio to ringscan's. Thread CPU time, not wall time:
 * on a shared machine the wall time of a pass counts the time other processes ran. */
#include <snappy-c.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format/codec.h"

#ifdef SNAPPY_AB_BASE
int base_snappy_uncompress(const uint8_t *src, size_t n, uint8_t *dst, size_t dst_len);
enum { ARMS = 3 };
#else
enum { ARMS = 2 };
#endif
enum { MAX_ROUNDS = 99 };
static const char *const arm_name[3] = {"ringscan", "libsnappy", "base"};

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int decode(int which, const uint8_t *src, uint32_t c, uint8_t *out, uint32_t u)
{
    if (which == 0) return pq_snappy_uncompress(src, c, out, u) != 0;
#ifdef SNAPPY_AB_BASE
    if (which == 2) return base_snappy_uncompress(src, c, out, u) != 0;
#endif
    size_t ol = u;
    return snappy_uncompress((const char *)src, c, (char *)out, &ol) != SNAPPY_OK || ol != u;
}

/* Decodes every page once with decoder which; bytes out, or -1. */
static long pass(const uint8_t *b, long n, uint8_t *out, size_t cap, int which)
{
    long total = 0;
    for (long i = 0; i + 8 <= n;) {
        uint32_t c, u;
        memcpy(&c, b + i, 4), memcpy(&u, b + i + 4, 4), i += 8;
        if (u > cap || c > n - i) return -1;
        if (decode(which, b + i, c, out, u)) return -1;
        total += u, i += c;
    }
    return total;
}

/* Counts the elements of every page (pages decoded already, so well-formed): literals, copies,
 * bytes out. */
static void elements(const uint8_t *b, long n)
{
    long lit = 0, copy = 0, out = 0;
    for (long i = 0; i + 8 <= n;) {
        uint32_t c;
        memcpy(&c, b + i, 4), i += 8;
        const uint8_t *p = b + i, *e = b + i + c;
        while (*p & 128) p++;
        for (p++; p < e;) {
            uint8_t t = *p++;
            if ((t & 3) == 0) {
                size_t len = (size_t)(t >> 2) + 1;
                if (len > 60) {
                    size_t nb = len - 60, v = 0;
                    for (size_t k = 0; k < nb; k++) v |= (size_t)p[k] << (8 * k);
                    p += nb, len = v + 1;
                }
                lit++, out += (long)len, p += len;
            } else {
                copy++, out += (t & 3) == 1 ? 4 + ((t >> 2) & 7) : 1 + (t >> 2);
                p += (t & 3) == 1 ? 1 : (t & 3) == 2 ? 2 : 4;
            }
        }
        i += c;
    }
    printf("elements %ld (%ld literals, %ld copies), %.2f bytes out per element\n", lit + copy,
           lit, copy, (double)out / (double)(lit + copy));
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) return fprintf(stderr, "usage: snappy_ab PAGES [ROUNDS]\n"), 2;
    int rounds = argc > 2 ? atoi(argv[2]) : 7;
    if (rounds < 1 || rounds > MAX_ROUNDS) return fprintf(stderr, "ROUNDS: 1..%d\n", MAX_ROUNDS), 2;
    FILE *f = fopen(argv[1], "rb");
    if (!f) return perror(argv[1]), 1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n), *out = malloc((size_t)1 << 26);
    if (!b || !out || fread(b, 1, (size_t)n, f) != (size_t)n) return fprintf(stderr, "read\n"), 1;
    fclose(f);
    static double secs[ARMS][MAX_ROUNDS];
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < ARMS; k++) {
            int which = (k + r) % ARMS; /* the order rotates by one per round */
            double t0 = cpu_now();
            long total = pass(b, n, out, (size_t)1 << 26, which);
            double t = cpu_now() - t0;
            if (total < 0) return fprintf(stderr, "%s: a page did not decode\n", arm_name[which]), 1;
            if (r == 0 && k == 0) elements(b, n);
            secs[which][r] = t;
            printf("%-9s %7.1f ms %5.2f GB/s\n", arm_name[which], t * 1e3, (double)total / t / 1e9);
        }
    double mid[ARMS];
    for (int k = 0; k < ARMS; k++) {
        qsort(secs[k], (size_t)rounds, sizeof secs[k][0], by_value);
        mid[k] = secs[k][rounds / 2];
    }
    for (int k = 0; k < ARMS; k++)
        printf("median %-9s %7.2f ms CPU, %.3fx ringscan's\n", arm_name[k], mid[k] * 1e3,
               mid[k] / mid[0]);
    return 0;
}
