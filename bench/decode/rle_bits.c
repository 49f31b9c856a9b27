/* bench/decode/rle_bits.c: pq_rle_bits alone (dictionary indices -> a predicate's row bits),
 * the micro bench of bench/RESULTS.md's thirty-sixth session. 1,048,576 random indices below
 * DLEN encoded by pq_rle_encode_dict, mapped in calls of BATCH values, best of 15 passes.
 *
 *   W=path/to/ringscan; Z=$W/.tools/venv/lib/python3.11/site-packages/ziglang/zig
 *   $Z cc -O3 -march=native -I$W -I$W/include $W/format/rle.c $W/format/err.c \
 *       $W/format/enc_buf.c $W/format/thrift.c $W/common/fail.c $W/format/rle_bits.c \
 *       $W/bench/decode/rle_bits.c -o /tmp/rle_bits_bench
 *   /tmp/rle_bits_bench [DLEN=7] [BATCH=2048]
 *
 * Prints ns per value and a checksum of the bits (equal across builds of the same data). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/decode/rle_input.h"
int main(int argc, char **argv)
{
    int dlen = argc > 1 ? atoi(argv[1]) : 7;
    int n = 1 << 20;
    int batch = argc > 2 ? atoi(argv[2]) : 2048;
    if (dlen < 1 || dlen > 256 || batch < 1 || batch > n) { /* dm below covers 256 entries */
        fprintf(stderr, "usage: rle_bits_bench [DLEN 1..256] [BATCH 1..%d]\n", n);
        return 2;
    }
    uint64_t s = 1;
    pq_buf b = {0};
    int bw = rle_random_indices(&b, n, dlen, &s);
    uint64_t dm[4] = {0x60, 0, 0, 0}; /* entries 5 and 6 pass */
    uint64_t *out = malloc((batch / 64 + 2) * 8);
    uint64_t cs = 0;
    double best = 1e9;
    for (int r = 0; r < 15; r++) {
        double t0 = now();
        pq_rle_dec d;
        pq_rle_init_dict(&d, b.data, b.len, NULL);
        for (int p = 0; p < n; p += batch) {
            int k = n - p < batch ? n - p : batch;
            if (pq_rle_bits(&d, k, dm, dlen, out)) {
                puts("err");
                return 1;
            }
            cs += out[0] ^ out[(k - 1) / 64];
        }
        double t = now() - t0;
        if (t < best) best = t;
    }
    printf("dlen %d bw %d batch %d: %.3f ns/value (cs %llu)\n", dlen, bw, batch, best * 1e9 / n,
           (unsigned long long)cs);
}
