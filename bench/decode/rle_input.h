/* bench/decode/rle_input.h: what the RLE micro benches (rle_bits.c, rle_select.c) share: a
 * monotonic clock and one page of random dictionary indices, encoded as a writer encodes
 * them. Header-only: each bench is one program built from its own .c (see their headers). */
#ifndef RINGSCAN_BENCH_DECODE_RLE_INPUT_H
#define RINGSCAN_BENCH_DECODE_RLE_INPUT_H
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "format/encoding.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* The next value of the benches' generator (a 64-bit LCG) from *s, its high 31 bits. */
static uint64_t lcg_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* n random indices below dlen drawn from *s, encoded by pq_rle_encode_dict into *b (which
 * starts empty); returns their bit width. */
static int rle_random_indices(pq_buf *b, int n, int dlen, uint64_t *s)
{
    uint32_t *in = malloc((size_t)n * 4);
    for (int i = 0; i < n; i++) in[i] = (uint32_t)(lcg_next(s) % (uint64_t)dlen);
    int bw = pq_bit_width(dlen - 1);
    pq_rle_encode_dict(b, in, n, bw);
    free(in);
    return bw;
}

#endif
