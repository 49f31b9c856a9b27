/* bench/snappy/snappy_cold.c: ringscan's snappy decoder (format/snappy.c) on the page bodies
 * bench/snappy/pages.py wrote, with the source and destination in the states a scan leaves
 * them in, to explain why the decoder runs slower inside a scan than in snappy_ab.c (which
 * decodes every page into one hot buffer). Build and run (from the repository's root):
 *
 *   zig cc -O3 -march=native -I. -Iinclude bench/snappy/snappy_cold.c format/snappy.c \
 *       -lpthread -o /tmp/snappy_cold && /tmp/snappy_cold PAGES [ROUNDS [BUSY]]
 *
 * Arms, interleaved (the order rotates by one per round), every page checked to decode:
 *   hot      every page into one buffer, reused (snappy_ab.c's setting)
 *   hot-aa   the same again: the A/A arm
 *   rotate   each page into the next of a ring of buffers totalling ROTATE_BYTES (8x the
 *            32 MiB L3), touched once before: the destination is in no cache, its pages mapped
 *   fresh    each page into a fresh mmap (munmap'd after): page faults inside the decode
 *   populate each page into a fresh mmap faulted before the timer (MAP_POPULATE): the kernel's
 *            page clearing, not the faults, is what the decode meets
 *   src-hot  the page's compressed bytes copied to a hot buffer before the timer (a read's
 *            copy just done on this core), destination hot
 *   thrash   hot destination, but 2x L3 of other memory read before each page's timer
 *            (what a batch's decoding and filtering do between two pages of one column)
 *   madv     each page into a fresh 2 MiB-aligned mmap with MADV_HUGEPAGE (huge pages)
 *   src-cold the page's compressed bytes flushed from every cache (clflushopt) before the
 *            timer, destination hot: a read done long before its decode
 * Times: per page, thread CPU time around the decode only; per arm, the user / system split
 * of the whole pass (getrusage, tick-based) and the minor faults. BUSY (spin or mem) runs a
 * second thread on the other CPU: a spinning loop, or 64 MiB memcpy passes (a kernel copy of
 * read buffers on the other core). Prints each arm's median over the rounds and its ratio to
 * hot's. SNAPPY_COLD_ARM=NAME in the environment runs that arm alone (to perf record it).
 * bench/snappy/snappy_probe.diff times the same decoder inside a scan with the same clock
 * (bench/RESULTS.md, thirty-ninth session). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <immintrin.h>

#include "format/codec.h"

enum { ARMS = 9, MAX_ROUNDS = 99, MAX_PAGES = 1 << 20 };
enum { HOT, HOT_AA, ROTATE, FRESH, POPULATE, SRC_HOT, THRASH, MADV, SRC_COLD };
static const char *const arm_name[ARMS] = {"hot",     "hot-aa", "rotate", "fresh",
                                           "populate", "src-hot", "thrash", "madv",
                                           "src-cold"};
#define ROTATE_BYTES ((size_t)256 << 20)
#define THRASH_BYTES ((size_t)64 << 20)
#define HUGE_BYTES ((size_t)2 << 20)

typedef struct page {
    const uint8_t *src;
    uint32_t c, u;
} page;

static page pages[MAX_PAGES];
static long npages;
static size_t cap; /* the largest page's output, rounded up to 4 KiB */
static uint8_t *hot, *src_hot, *ring, *thrash_buf;
static size_t ring_n;
static atomic_int stop;
static volatile uint64_t sink;

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double tv(struct timeval t) { return (double)t.tv_sec + (double)t.tv_usec * 1e-6; }

static uint8_t *map(size_t n, int extra)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | extra, -1, 0);
    if (p == MAP_FAILED) perror("mmap"), exit(1);
    return p;
}

/* A fresh mapping of n bytes at a 2 MiB boundary, asked for huge pages. */
static uint8_t *map_huge(size_t n, uint8_t **base, size_t *len)
{
    size_t whole = (n + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1);
    *len = whole + HUGE_BYTES;
    *base = map(*len, 0);
    uint8_t *p = (uint8_t *)(((uintptr_t)*base + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1));
    madvise(p, whole, MADV_HUGEPAGE);
    return p;
}

static void read_all(const uint8_t *p, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i += 64) s += p[i];
    sink += s;
}

static void flush_lines(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i += 64) _mm_clflushopt((void *)(p + i));
    if (n) _mm_clflushopt((void *)(p + n - 1));
    _mm_mfence();
}

/* Decodes page i with arm's setting; the decode's thread CPU seconds, or -1. */
static double one(int arm, long i, long *rot)
{
    const page *pg = &pages[i];
    const uint8_t *src = pg->src;
    uint8_t *dst = hot, *base = NULL;
    size_t len = 0, n = (pg->u + 4095) & ~(size_t)4095;
    if (arm == ROTATE) dst = ring + (size_t)(*rot % (long)ring_n) * cap, ++*rot;
    if (arm == FRESH) base = dst = map(len = n ? n : 4096, 0);
    if (arm == POPULATE) base = dst = map(len = n ? n : 4096, MAP_POPULATE);
    if (arm == MADV) dst = map_huge(n ? n : 4096, &base, &len);
    if (arm == SRC_HOT) memcpy(src_hot, src, pg->c), src = src_hot;
    if (arm == THRASH) read_all(thrash_buf, THRASH_BYTES);
    if (arm == SRC_COLD) flush_lines(src, pg->c);
    double t0 = cpu_now();
    int rc = pq_snappy_uncompress(src, pg->c, dst, pg->u);
    double t = cpu_now() - t0;
    if (base) munmap(base, len);
    return rc ? -1 : t;
}

static void *busy(void *arg)
{
    int mem = *(int *)arg;
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(1, &s);
    pthread_setaffinity_np(pthread_self(), sizeof s, &s);
    uint8_t *a = mem ? map(THRASH_BYTES, MAP_POPULATE) : NULL;
    uint8_t *b = mem ? map(THRASH_BYTES, MAP_POPULATE) : NULL;
    uint64_t x = 1;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        if (mem) memcpy(b, a, THRASH_BYTES), x += b[x & 4095];
        else for (int k = 0; k < 1 << 20; k++) x = x * 6364136223846793005ull + 1;
    }
    sink += x;
    return NULL;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void load(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) perror(path), exit(1);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) fprintf(stderr, "read\n"), exit(1);
    fclose(f);
    size_t cmax = 0;
    for (long i = 0; i + 8 <= n && npages < MAX_PAGES;) {
        page *p = &pages[npages++];
        memcpy(&p->c, b + i, 4), memcpy(&p->u, b + i + 4, 4), i += 8;
        if (p->c > n - i) fprintf(stderr, "truncated\n"), exit(1);
        p->src = b + i, i += p->c;
        if (p->u > cap) cap = p->u;
        if (p->c > cmax) cmax = p->c;
    }
    cap = (cap + 4095) & ~(size_t)4095;
    ring_n = ROTATE_BYTES / cap + 1;
    hot = map(cap, MAP_POPULATE), src_hot = map(cmax + 64, MAP_POPULATE);
    ring = map(ring_n * cap, MAP_POPULATE), thrash_buf = map(THRASH_BYTES, MAP_POPULATE);
}

int main(int argc, char **argv)
{
    if (argc < 2) return fprintf(stderr, "usage: snappy_cold PAGES [ROUNDS [spin|mem]]\n"), 2;
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    if (rounds < 1 || rounds > MAX_ROUNDS) return fprintf(stderr, "ROUNDS: 1..%d\n", MAX_ROUNDS), 2;
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(0, &s);
    sched_setaffinity(0, sizeof s, &s);
    load(argv[1]);
    size_t out = 0;
    for (long i = 0; i < npages; i++) out += pages[i].u;
    printf("%ld pages, %.1f MB out, largest %zu bytes\n", npages, (double)out / 1e6, cap);
    const char *only = getenv("SNAPPY_COLD_ARM"); /* one arm alone: for perf record */
    pthread_t th;
    int mem = argc > 3 && strcmp(argv[3], "mem") == 0, bz = argc > 3;
    if (bz) pthread_create(&th, NULL, busy, &mem);
    static double secs[ARMS][MAX_ROUNDS], sys_s[ARMS][MAX_ROUNDS];
    static long flt[ARMS][MAX_ROUNDS];
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < ARMS; k++) {
            int arm = (k + r) % ARMS;
            if (only && strcmp(only, arm_name[arm]) != 0) continue;
            long rot = 0;
            double t = 0;
            struct rusage a, b;
            getrusage(RUSAGE_THREAD, &a);
            for (long i = 0; i < npages; i++) {
                double d = one(arm, i, &rot);
                if (d < 0) return fprintf(stderr, "%s: page %ld did not decode\n", arm_name[arm], i), 1;
                t += d;
            }
            getrusage(RUSAGE_THREAD, &b);
            secs[arm][r] = t;
            sys_s[arm][r] = tv(b.ru_stime) - tv(a.ru_stime);
            flt[arm][r] = b.ru_minflt - a.ru_minflt;
        }
    if (bz) atomic_store(&stop, 1), pthread_join(th, NULL);
    double mid[ARMS];
    for (int k = 0; k < ARMS; k++) {
        if (only && strcmp(only, arm_name[k]) != 0) continue; /* the arm did not run */
        qsort(secs[k], (size_t)rounds, sizeof secs[k][0], by_value);
        qsort(sys_s[k], (size_t)rounds, sizeof sys_s[k][0], by_value);
        mid[k] = secs[k][rounds / 2];
        double sys_mid = sys_s[k][rounds / 2];
        printf("%-9s %8.2f ms (%7.2f-%7.2f) %5.2f GB/s  %.3fx hot   pass sys %6.1f ms  faults %ld\n",
               arm_name[k], mid[k] * 1e3, secs[k][0] * 1e3, secs[k][rounds - 1] * 1e3,
               (double)out / mid[k] / 1e9, only ? 1.0 : mid[k] / mid[0], sys_mid * 1e3, flt[k][rounds - 1]);
    }
    return 0;
}
