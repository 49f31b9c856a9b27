/* bench/decode/rle_select.c: pq_rle_select alone (the kept rows' dictionary indices read from
 * a bit-packed page), the micro bench of bench/RESULTS.md's thirty-seventh session. 1,048,576
 * random indices below DLEN encoded by pq_rle_encode_dict, read in pages of PAGE values with
 * about 1 row in EVERY selected (each row kept with chance 1/EVERY), best of 15 passes.
 *
 *   W=path/to/ringscan; Z=$W/.tools/venv/lib/python3.11/site-packages/ziglang/zig
 *   $Z cc -O3 -march=native -I$W -I$W/include $W/format/rle.c $W/format/err.c \
 *       $W/format/enc_buf.c $W/format/thrift.c $W/common/fail.c \
 *       $W/bench/decode/rle_select.c -o /tmp/rle_select_bench
 *   /tmp/rle_select_bench [DLEN=7] [EVERY=9] [PAGE=20000]
 *
 * Prints ns per selected row and a checksum of the indices (equal across builds). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/decode/rle_input.h"

int main(int argc, char **argv)
{
    int dlen = argc > 1 ? atoi(argv[1]) : 7, every = argc > 2 ? atoi(argv[2]) : 9;
    int page = argc > 3 ? atoi(argv[3]) : 20000, n = 1 << 20;
    if (dlen < 1 || every < 1 || page < 1 || page > n) {
        fprintf(stderr, "usage: rle_select_bench [DLEN >= 1] [EVERY >= 1] [PAGE 1..%d]\n", n);
        return 2;
    }
    uint32_t *rows = malloc(n * 4), *out = malloc(n * 4);
    int *start = malloc(((n + page - 1) / page + 1) * sizeof *start);
    uint64_t s = 1;
    pq_buf b = {0};
    int bw = rle_random_indices(&b, n, dlen, &s), nsel = 0, np = 0;
    for (int p = 0; p < n; p += page, np++) { /* page-relative rows, page by page */
        start[np] = nsel;
        for (int i = 0; i < page && p + i < n; i++) {
            if (lcg_next(&s) % every == 0) rows[nsel++] = (uint32_t)i;
        }
    }
    start[np] = nsel;
    uint64_t cs = 0;
    double best = 1e9;
    for (int r = 0; r < 15; r++) {
        double t0 = now();
        pq_rle_dec d;
        pq_rle_init_dict(&d, b.data, b.len, NULL);
        for (int q = 0; q < np; q++) {
            int k = n - q * page < page ? n - q * page : page;
            if (pq_rle_select(&d, k, rows + start[q], start[q + 1] - start[q], out + start[q])) {
                puts("err");
                return 1;
            }
        }
        double t = now() - t0;
        if (t < best) best = t;
        for (int j = 0; j < nsel; j++) cs = cs * 31 + out[j];
    }
    printf("dlen %d bw %d every %d page %d: %d rows, %.3f ns/selected row (cs %llu)\n", dlen, bw,
           every, page, nsel, best * 1e9 / (nsel ? nsel : 1), (unsigned long long)cs);
}
