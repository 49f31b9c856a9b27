/* fuzz target for format/snappy.c: our snappy decoder against libsnappy's, differentially.
 * Input: a snappy stream (varint length header and elements), decoded by both into exact heap
 * blocks of the stated length (at most 1 MiB). Checks: the two agree on accepting it and, when
 * they do, on every output byte; ours never touches memory outside its block (ASan). Then the
 * input itself is compressed by libsnappy and must decode with ours to the same bytes. */
#include <snappy-c.h>
#include <stdlib.h>
#include <string.h>

#include "format/codec.h"

#define FUZZ_DST_MAX ((size_t)1 << 20)

static void differential(const uint8_t *p, size_t n)
{
    size_t want = 0, head = 0;
    int ours_len = pq_snappy_length(p, n, &want, &head);
    size_t ref_len = 0;
    snappy_status st = snappy_uncompressed_length((const char *)p, n, &ref_len);
    if ((ours_len == 0) != (st == SNAPPY_OK)) abort();
    if (ours_len != 0 || want > FUZZ_DST_MAX) return;
    if (ref_len != want) abort();
    uint8_t *a = malloc(want ? want : 1), *b = malloc(want ? want : 1);
    size_t got = want;
    int rc = pq_snappy_uncompress(p, n, a, want);
    bool ref_ok = snappy_uncompress((const char *)p, n, (char *)b, &got) == SNAPPY_OK && got == want;
    if (rc != 0 && rc != PQ_SNAPPY_CORRUPT && rc != PQ_SNAPPY_SIZE) abort();
    if ((rc == 0) != ref_ok) abort();
    if (rc == 0 && want && memcmp(a, b, want) != 0) abort();
    free(a);
    free(b);
}

static void round_trip(const uint8_t *p, size_t n)
{
    size_t cap = snappy_max_compressed_length(n), clen = cap;
    char *c = malloc(cap ? cap : 1);
    uint8_t *back = malloc(n ? n : 1);
    if (snappy_compress((const char *)p, n, c, &clen) != SNAPPY_OK) abort();
    if (pq_snappy_uncompress((const uint8_t *)c, clen, back, n) != 0) abort();
    if (n && memcmp(back, p, n) != 0) abort();
    free(back);
    free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    differential(data, size);
    if (size <= 256 * 1024) round_trip(data, size);
    return 0;
}
