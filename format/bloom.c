/* format/bloom.c: split-block bloom filters (see bloom.h for the layout and invariants).
 *
 * Owns: BloomFilterHeader parsing/writing helpers, probe, insert, hash, sizing.
 * Invariants:
 *  1. Probes and inserts touch only the 32 bytes of one block, inside bitset_len.
 *  2. The header parser accepts only BLOCK / XXHASH / UNCOMPRESSED union members.
 */
#include "format/bloom.h"

#include <assert.h>
#include <string.h>
#include <xxhash.h>

#include "format/thrift.h"

static const uint32_t salt[8] = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du,
                                 0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u};

/* Reads a union field (2 algorithm, 3 hash, 4 compression) and checks member 1 is set. */
static int read_union(pq_tr *r, const char *what)
{
    int16_t id;
    uint8_t t;
    bool member1 = false, other = false;
    if (pq_tr_struct_begin(r)) return r->status;
    while (!pq_tr_field(r, &id, &t) && t != PQ_T_STOP) {
        if (id == 1 && t == PQ_T_STRUCT) member1 = true;
        else other = true;
        pq_tr_skip(r, t);
    }
    if (r->status) return r->status;
    if (!member1 || other) {
        r->status = pq_errf(r->e, RINGSCAN_EUNSUPPORTED, -1, "bloom filter: unsupported %s", what);
        return r->status;
    }
    return pq_tr_struct_end(r);
}

int pq_bloom_header_parse(const uint8_t *buf, size_t len, pq_bloom_header *h, pq_err *e)
{
    assert(h && (buf || len == 0));
    memset(h, 0, sizeof *h);
    pq_tr r;
    pq_tr_init(&r, buf, len, -1, 8, e);
    int16_t id;
    uint8_t t;
    int64_t v;
    uint32_t seen = 0;
    static const char *names[] = {"", "", "algorithm", "hash", "compression"};
    if (!pq_tr_struct_begin(&r))
        while (!pq_tr_field(&r, &id, &t) && t != PQ_T_STOP) {
            if (id > 0 && id < 32) seen |= 1u << id;
            if (id == 1 && !pq_tr_int(&r, t, INT32_MIN, INT32_MAX, &v)) h->num_bytes = (int32_t)v;
            else if (id >= 2 && id <= 4 && !pq_tr_expect(&r, t, PQ_T_STRUCT, names[id]))
                read_union(&r, names[id]);
            else if (id < 1 || id > 4) pq_tr_skip(&r, t);
        }
    if (!r.status && (seen & 0x1e) != 0x1e) pq_tr_fail(&r, "BloomFilterHeader lacks a required field");
    if (!r.status) pq_tr_struct_end(&r);
    if (r.status) return r.status;
    if (h->num_bytes <= 0 || h->num_bytes % 32 != 0 || (uint32_t)h->num_bytes > PQ_BLOOM_MAX_BYTES)
        return pq_errf(e, RINGSCAN_EFORMAT, -1, "bloom filter: bad bitset size %d", (int)h->num_bytes);
    h->header_len = (uint32_t)pq_tr_pos(&r);
    return 0;
}

uint64_t pq_bloom_hash(const void *plain_bytes, size_t n)
{
    return (uint64_t)XXH64(plain_bytes, n, 0);
}

static inline size_t block_of(uint64_t h, size_t nblocks)
{
    return (size_t)(((h >> 32) * (uint64_t)nblocks) >> 32);
}

static inline uint32_t load32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

bool pq_bloom_check(const uint8_t *bitset, size_t bitset_len, uint64_t h)
{
    assert(bitset && bitset_len >= 32 && bitset_len % 32 == 0);
    size_t nblocks = bitset_len / 32;
    assert(nblocks <= UINT32_MAX);
    const uint8_t *blk = bitset + 32 * block_of(h, nblocks);
    uint32_t key = (uint32_t)h;
    for (int i = 0; i < 8; i++) {
        uint32_t bit = (key * salt[i]) >> 27;
        if (!(load32(blk + 4 * i) & (1u << bit))) return false;
    }
    return true;
}

void pq_bloom_insert(uint8_t *bitset, size_t bitset_len, uint64_t h)
{
    assert(bitset && bitset_len >= 32 && bitset_len % 32 == 0);
    size_t nblocks = bitset_len / 32;
    uint8_t *blk = bitset + 32 * block_of(h, nblocks);
    uint32_t key = (uint32_t)h;
    for (int i = 0; i < 8; i++) {
        uint32_t bit = (key * salt[i]) >> 27;
        blk[4 * i + bit / 8] |= (uint8_t)(1u << (bit % 8));
    }
    assert(pq_bloom_check(bitset, bitset_len, h));
}

/* sqrt by Newton's method and ln by the atanh series: keeps libm out of format/. */
static double my_sqrt(double x)
{
    double g = x > 1 ? x : 1;
    for (int i = 0; i < 60; i++) g = 0.5 * (g + x / g);
    return g;
}

static double my_ln(double y) /* y in (0, 1] */
{
    double z = (y - 1) / (y + 1), z2 = z * z, term = z, sum = 0;
    for (int k = 0; k < 400; k++, term *= z2) sum += term / (2 * k + 1);
    return 2 * sum;
}

size_t pq_bloom_optimal_bytes(uint64_t ndv, double fpp)
{
    if (!(fpp >= 1e-12 && fpp <= 0.5)) fpp = fpp < 1e-12 ? 1e-12 : 0.5;
    /* SBBF sizing (parquet-mr): m = -8 * ndv / ln(1 - fpp^(1/8)) bits */
    double root8 = my_sqrt(my_sqrt(my_sqrt(fpp)));
    double bits = -8.0 * (double)ndv / my_ln(1.0 - root8);
    double bytes = bits / 8.0;
    size_t n = 32;
    while (n < PQ_BLOOM_MAX_BYTES && (double)n < bytes) n *= 2;
    assert(n >= 32 && n <= PQ_BLOOM_MAX_BYTES && n % 32 == 0);
    return n;
}
