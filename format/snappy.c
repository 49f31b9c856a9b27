/* format/snappy.c: snappy block decompression (Parquet's SNAPPY codec), our own decoder.
 *
 * Why not libsnappy's: on Parquet pages of small integers (a 3-byte literal and a 5-byte
 * copy per value) Debian 12's libsnappy 1.1.9 spent about 2 ns per output byte, a third of
 * it in calls to memmove through the PLT, twice what Polars' decoder took on the same pages
 * (bench/RESULTS-peers.md). This decoder copies short literals and copies with fixed 16- or
 * 8-byte moves while the buffers have room for the overshoot, and falls back to exact copies
 * near their ends. libsnappy stays the compressor (format/codec.c) and the reference the
 * tests and the fuzz target compare this decoder against.
 *
 * Format (github.com/google/snappy format_description.txt): a varint32 of the uncompressed
 * length, then elements; the tag's low two bits: 00 literal (length - 1 in the upper six
 * bits, or 60..63 for 1..4 little-endian length bytes after the tag), 01 copy of 4..11 bytes
 * with an 11-bit offset, 10 copy of 1..64 bytes with a 16-bit offset, 11 the same with a
 * 32-bit offset.
 *
 * Invariants: every byte read lies in [src, src + n), every byte written in
 * [dst, dst + dst_len); a copy's offset is 1..bytes written so far; the output is exactly
 * dst_len bytes, else the stream is rejected. */
#include <assert.h>
#include <stdbool.h>
#include <string.h>

#include "format/codec.h"

static inline uint64_t load8(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline void store8(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static inline void copy16(uint8_t *d, const uint8_t *s)
{
    uint8_t t[16];
    memcpy(t, s, 16);
    memcpy(d, t, 16);
}

int pq_snappy_length(const uint8_t *src, size_t n, size_t *len, size_t *header)
{
    uint32_t v = 0;
    for (size_t i = 0; i < 5 && i < n; i++) {
        if (i == 4 && src[i] > 15) return PQ_SNAPPY_CORRUPT; /* more than 32 bits */
        v |= (uint32_t)(src[i] & 127) << (7 * i);
        if (src[i] < 128) {
            *len = v;
            *header = i + 1;
            return 0;
        }
    }
    return PQ_SNAPPY_CORRUPT;
}

/* Sets *len to the length of a literal whose tag says 60..63 (1..4 length bytes at *ip, which
 * it skips). The length is the stored value plus one modulo 2^32, as libsnappy computes it (a
 * stored 0xffffffff is an empty literal there, so here too). False when truncated. */
static bool long_literal(uint8_t tag, const uint8_t **ip, const uint8_t *ie, size_t *len)
{
    size_t nb = (size_t)(tag >> 2) - 59;
    assert(nb >= 1 && nb <= 4);
    if ((size_t)(ie - *ip) < nb) return false;
    uint32_t v = 0;
    for (size_t i = 0; i < nb; i++) v |= (uint32_t)(*ip)[i] << (8 * i);
    *ip += nb;
    *len = (size_t)(uint32_t)(v + 1u);
    return true;
}

/* Copies len bytes from off bytes back in the output (overlap allowed: a repeating pattern).
 * The caller checked off and len; room = bytes left in the output after op. */
static inline void back_copy(uint8_t *op, size_t off, size_t len, size_t room)
{
    const uint8_t *from = op - off;
    if (off >= 16 && room >= len + 15) {
        for (size_t i = 0; i < len; i += 16) copy16(op + i, from + i);
    } else if (off >= 8 && room >= len + 7) {
        /* each load reads only bytes already written: off >= 8 */
        for (size_t i = 0; i < len; i += 8) store8(op + i, load8(from + i));
    } else {
        for (size_t i = 0; i < len; i++) op[i] = from[i];
    }
}

/* The fast loop: runs while a tag's whole element (at most 5 bytes before a literal's body)
 * plus a 16-byte literal move fits in the input and a 64-byte copy plus a 16-byte overshoot
 * fits in the output, so only offsets need checking per element. Stops at the first element
 * it cannot take without checks (the exact loop goes on from there). Returns false on a bad
 * offset. */
enum { FAST_IN = 5 + 16, FAST_OUT = 64 + 16 };

static bool fast_loop(const uint8_t **ipp, const uint8_t *ie, uint8_t **opp, uint8_t *dst,
                      uint8_t *oe)
{
    static const uint32_t off_mask[4] = {0, 0xff, 0xffff, 0xffffffff};
    static const uint8_t off_bytes[4] = {0, 1, 2, 4};
    const uint8_t *ip = *ipp;
    uint8_t *op = *opp;
    bool ok = true;
    while (ie - ip >= FAST_IN && oe - op >= FAST_OUT) {
        uint8_t tag = ip[0];
        unsigned type = tag & 3;
        if (type == 0) {
            size_t len = (size_t)(tag >> 2) + 1;
            if (len > 16) break; /* long literals: the exact loop */
            copy16(op, ip + 1);
            op += len;
            ip += 1 + len;
            continue;
        }
        uint32_t w;
        memcpy(&w, ip + 1, 4);
        size_t len = type == 1 ? 4 + ((size_t)(tag >> 2) & 7) : 1 + (size_t)(tag >> 2);
        size_t off = (w & off_mask[type]) | (type == 1 ? (size_t)(tag >> 5) << 8 : 0);
        if (off == 0 || off > (size_t)(op - dst)) {
            ok = false;
            break;
        }
        back_copy(op, off, len, (size_t)(oe - op));
        op += len;
        ip += 1 + off_bytes[type];
    }
    *ipp = ip;
    *opp = op;
    return ok;
}

int pq_snappy_uncompress(const uint8_t *src, size_t n, uint8_t *dst, size_t dst_len)
{
    size_t want = 0, head = 0;
    if (pq_snappy_length(src, n, &want, &head)) return PQ_SNAPPY_CORRUPT;
    if (want != dst_len) return PQ_SNAPPY_SIZE;
    const uint8_t *ip = src + head, *ie = src + n;
    uint8_t *op = dst, *const oe = dst + dst_len;
    while (ip < ie) {
        if (!fast_loop(&ip, ie, &op, dst, oe)) return PQ_SNAPPY_CORRUPT;
        if (ip == ie) break;
        uint8_t tag = *ip++;
        size_t len, off;
        if ((tag & 3) == 0) {
            len = (size_t)(tag >> 2) + 1;
            if (len > 60 && !long_literal(tag, &ip, ie, &len)) return PQ_SNAPPY_CORRUPT;
            if ((size_t)(ie - ip) < len || (size_t)(oe - op) < len) return PQ_SNAPPY_CORRUPT;
            memcpy(op, ip, len);
            op += len;
            ip += len;
            continue;
        }
        if ((tag & 3) == 1) {
            if (ip == ie) return PQ_SNAPPY_CORRUPT;
            len = 4 + ((tag >> 2) & 7);
            off = (size_t)(tag >> 5) << 8 | *ip++;
        } else if ((tag & 3) == 2) {
            if (ie - ip < 2) return PQ_SNAPPY_CORRUPT;
            len = 1 + (size_t)(tag >> 2);
            off = (size_t)ip[0] | (size_t)ip[1] << 8;
            ip += 2;
        } else {
            if (ie - ip < 4) return PQ_SNAPPY_CORRUPT;
            len = 1 + (size_t)(tag >> 2);
            off = (size_t)ip[0] | (size_t)ip[1] << 8 | (size_t)ip[2] << 16 | (size_t)ip[3] << 24;
            ip += 4;
        }
        if (off == 0 || off > (size_t)(op - dst) || len > (size_t)(oe - op))
            return PQ_SNAPPY_CORRUPT;
        back_copy(op, off, len, (size_t)(oe - op));
        op += len;
    }
    assert(ip == ie && op <= oe);
    return op == oe ? 0 : PQ_SNAPPY_SIZE;
}
