/* format/bloom.h: Parquet split-block bloom filters (SBBF): header parse, probe, insert, hash.
 *
 * Invariants:
 *  1. A bitset is a positive multiple of 32 bytes: blocks of eight little-endian 32-bit words.
 *  2. The block of hash h is ((h >> 32) * nblocks) >> 32; within it word i has bit
 *     ((uint32_t)h * salt[i]) >> 27 set, for the eight fixed salts.
 *  3. The hash is XXH64 with seed 0 over the PLAIN bytes of the value (byte arrays without
 *     their 4-byte length prefix).
 *  4. Only algorithm BLOCK, hash XXHASH and compression UNCOMPRESSED are accepted; anything
 *     else is RINGSCAN_EUNSUPPORTED.
 */
#ifndef RINGSCAN_FORMAT_BLOOM_H
#define RINGSCAN_FORMAT_BLOOM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/err.h"
#include "format/meta.h"

/* Largest bitset accepted by the parser (128 MiB, parquet-mr's cap). */
#define PQ_BLOOM_MAX_BYTES (128u << 20)

/* Parses a BloomFilterHeader at the start of buf (the bitset follows it). Sets h->num_bytes
 * and h->header_len. Returns 0, RINGSCAN_EFORMAT (malformed, size not a positive multiple of
 * 32 or above PQ_BLOOM_MAX_BYTES) or RINGSCAN_EUNSUPPORTED (other algorithm/hash/codec). */
int pq_bloom_header_parse(const uint8_t *buf, size_t len, pq_bloom_header *h, pq_err *e);

/* XXH64 (seed 0) of the PLAIN bytes of a value. */
uint64_t pq_bloom_hash(const void *plain_bytes, size_t n);

/* True when the filter may contain a value with hash h (false: definitely absent).
 * bitset_len must be a positive multiple of 32 (asserted). */
bool pq_bloom_check(const uint8_t *bitset, size_t bitset_len, uint64_t h);

/* Sets the bits of hash h (writer side). bitset_len as above. */
void pq_bloom_insert(uint8_t *bitset, size_t bitset_len, uint64_t h);

/* Bitset bytes for ndv distinct values at false-positive rate fpp: the optimal size rounded up
 * to a power of two, clamped to [32, PQ_BLOOM_MAX_BYTES]. */
size_t pq_bloom_optimal_bytes(uint64_t ndv, double fpp);

#endif
