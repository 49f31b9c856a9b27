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

/* Per tag byte, for the fast loop: bits 0-7 the element's length (a literal of up to 60 bytes,
 * or a copy; 0 for a literal whose length follows in 1..4 bytes), bits 8-10 a 1-byte-offset
 * copy's high offset bits. Written out from the format above (a literal: (tag >> 2) + 1; a
 * copy-1: 4 + ((tag >> 2) & 7) and tag >> 5; a copy-2 or copy-4: (tag >> 2) + 1): one load,
 * where computing them took branches that halved the loop's speed on text. test_snappy's
 * every_tag decodes an element of every tag through the fast loop against libsnappy. */
static const uint16_t tag_table[256] = {
    0x001, 0x004, 0x001, 0x001, 0x002, 0x005, 0x002, 0x002, 0x003, 0x006, 0x003, 0x003,
    0x004, 0x007, 0x004, 0x004, 0x005, 0x008, 0x005, 0x005, 0x006, 0x009, 0x006, 0x006,
    0x007, 0x00a, 0x007, 0x007, 0x008, 0x00b, 0x008, 0x008, 0x009, 0x104, 0x009, 0x009,
    0x00a, 0x105, 0x00a, 0x00a, 0x00b, 0x106, 0x00b, 0x00b, 0x00c, 0x107, 0x00c, 0x00c,
    0x00d, 0x108, 0x00d, 0x00d, 0x00e, 0x109, 0x00e, 0x00e, 0x00f, 0x10a, 0x00f, 0x00f,
    0x010, 0x10b, 0x010, 0x010, 0x011, 0x204, 0x011, 0x011, 0x012, 0x205, 0x012, 0x012,
    0x013, 0x206, 0x013, 0x013, 0x014, 0x207, 0x014, 0x014, 0x015, 0x208, 0x015, 0x015,
    0x016, 0x209, 0x016, 0x016, 0x017, 0x20a, 0x017, 0x017, 0x018, 0x20b, 0x018, 0x018,
    0x019, 0x304, 0x019, 0x019, 0x01a, 0x305, 0x01a, 0x01a, 0x01b, 0x306, 0x01b, 0x01b,
    0x01c, 0x307, 0x01c, 0x01c, 0x01d, 0x308, 0x01d, 0x01d, 0x01e, 0x309, 0x01e, 0x01e,
    0x01f, 0x30a, 0x01f, 0x01f, 0x020, 0x30b, 0x020, 0x020, 0x021, 0x404, 0x021, 0x021,
    0x022, 0x405, 0x022, 0x022, 0x023, 0x406, 0x023, 0x023, 0x024, 0x407, 0x024, 0x024,
    0x025, 0x408, 0x025, 0x025, 0x026, 0x409, 0x026, 0x026, 0x027, 0x40a, 0x027, 0x027,
    0x028, 0x40b, 0x028, 0x028, 0x029, 0x504, 0x029, 0x029, 0x02a, 0x505, 0x02a, 0x02a,
    0x02b, 0x506, 0x02b, 0x02b, 0x02c, 0x507, 0x02c, 0x02c, 0x02d, 0x508, 0x02d, 0x02d,
    0x02e, 0x509, 0x02e, 0x02e, 0x02f, 0x50a, 0x02f, 0x02f, 0x030, 0x50b, 0x030, 0x030,
    0x031, 0x604, 0x031, 0x031, 0x032, 0x605, 0x032, 0x032, 0x033, 0x606, 0x033, 0x033,
    0x034, 0x607, 0x034, 0x034, 0x035, 0x608, 0x035, 0x035, 0x036, 0x609, 0x036, 0x036,
    0x037, 0x60a, 0x037, 0x037, 0x038, 0x60b, 0x038, 0x038, 0x039, 0x704, 0x039, 0x039,
    0x03a, 0x705, 0x03a, 0x03a, 0x03b, 0x706, 0x03b, 0x03b, 0x03c, 0x707, 0x03c, 0x03c,
    0x000, 0x708, 0x03d, 0x03d, 0x000, 0x709, 0x03e, 0x03e, 0x000, 0x70a, 0x03f, 0x03f,
    0x000, 0x70b, 0x040, 0x040,
};

/* The fast loop: runs while a tag's whole element (at most 5 bytes, or a literal of up to 60
 * bytes read as 64) fits in the input and a 64-byte copy plus a 16-byte overshoot fits in the
 * output, so only offsets need checking per element. Where the next tag is follows from the
 * tag alone (a copy-1 or copy-2 is 2 or 3 bytes, a literal its tag and body), so the next tag
 * loads while this element is copied - that chain sets the pace; a literal, or a copy from at
 * least 16 bytes back (all but a few in text and integer pages), moves 32 bytes, 64 when
 * longer. Copy-4 elements and long literals go to the exact loop, where it stops. Returns
 * false on a bad offset. */
enum { FAST_IN = 1 + 64, FAST_OUT = 64 + 16 };

static bool fast_loop(const uint8_t **ipp, const uint8_t *ie, uint8_t **opp, uint8_t *dst,
                      uint8_t *oe)
{
    static const uint32_t off_mask[3] = {0, 0xff, 0xffff};
    const uint8_t *ip = *ipp;
    uint8_t *op = *opp;
    while (ie - ip >= FAST_IN && oe - op >= FAST_OUT) {
        uint8_t tag = ip[0];
        unsigned type = tag & 3;
        if (type == 3 || (type == 0 && tag >= 60 << 2)) break;
        size_t adv = type ? type + 1 : (size_t)(tag >> 2) + 2;
        uint32_t e = tag_table[tag], w;
        size_t len = e & 0xff;
        memcpy(&w, ip + 1, 4);
        /* a literal's source is the input: a stand-in offset of 16 lets it take the 16-byte
         * moves once 16 bytes are written */
        size_t off = type ? (w & off_mask[type]) | (size_t)(e >> 8) << 8 : 16;
        const uint8_t *from = type ? op - off : ip + 1;
        if (off >= 16 && off <= (size_t)(op - dst)) {
            copy16(op, from);
            copy16(op + 16, from + 16);
            if (len > 32) {
                copy16(op + 32, from + 32);
                copy16(op + 48, from + 48);
            }
        } else if (!type) {
            memcpy(op, from, len);
        } else if (off == 0 || off > (size_t)(op - dst)) {
            return false;
        } else {
            back_copy(op, off, len, (size_t)(oe - op));
        }
        op += len;
        ip += adv;
    }
    *ipp = ip;
    *opp = op;
    return true;
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
