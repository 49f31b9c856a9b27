/* format/snappy.c: snappy block decompression (Parquet's SNAPPY codec), our own decoder.
 *
 * Why not libsnappy's: on Parquet pages of small integers (a 3-byte literal and a 5-byte
 * copy per value) Debian 12's libsnappy 1.1.9 spent about 2 ns per output byte, a third of
 * it in calls to memmove through the PLT, twice what Polars' decoder took on the same pages
 * (bench/RESULTS-peers.md). This decoder's fast loop (the design of libsnappy 1.1.10's, which
 * DuckDB bundles) decodes without branching on an element's type and moves 32 or 64 bytes per
 * element while the buffers have room for the overshoot (3.1 GB/s on l_comment pages here,
 * libsnappy 1.6); an exact loop takes the rest. libsnappy stays the compressor
 * (format/codec.c) and the reference the tests and the fuzz target compare this decoder
 * against.
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

static inline void copy32(uint8_t *d, const uint8_t *s)
{
    uint8_t t[32];
    memcpy(t, s, 32);
    memcpy(d, t, 32);
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

/* Whether a copy at this offset repeats a pattern of 1, 2, 4 or 8 bytes (runs of one value of
 * that width: repeated keys in a PLAIN page, the commonest overlap). */
static inline bool is_period(size_t off) { return off <= 8 && (off & (off - 1)) == 0 && off; }

/* Stores 64 bytes at op repeating the pattern of off (is_period) bytes held in the low bytes
 * of w: one word stored 8 times, no store waiting on a load. */
static inline void fill_period(uint8_t *op, size_t off, uint64_t w)
{
    static const uint64_t keep[9] = {0, 0xff, 0xffff, 0, 0xffffffff, 0, 0, 0, ~0ull};
    static const uint64_t spread[9] = {0, 0x0101010101010101ull, 0x0001000100010001ull,
                                       0, 0x0000000100000001ull, 0, 0, 0, 1};
    assert(is_period(off));
    w = (w & keep[off]) * spread[off];
    for (size_t i = 0; i < 64; i += 8) store8(op + i, w);
}

/* Copies len bytes from off bytes back in the output (overlap allowed: a repeating pattern).
 * The caller checked off and len; room = bytes left in the output after op. Overlaps are the
 * runs of PLAIN pages (an int64 key repeated: offset 8, 16 to 48 bytes): copied 8 bytes at a
 * time, each load waiting on the store before it, they took a fifth of a scan of lineitem's
 * l_orderkey. A period of 1, 2, 4 or 8 bytes is now one word stored over and over; any other
 * offset under 8 first doubles the pattern with 8-byte moves from its start, each good for as
 * many bytes as the distance, until the distance (a multiple of off) is at least 8. */
static inline void back_copy(uint8_t *op, size_t off, size_t len, size_t room)
{
    if (off >= 16 && room >= len + 15) {
        for (size_t i = 0; i < len; i += 16) copy16(op + i, op - off + i);
        return;
    }
    if (is_period(off) && room >= 64) {
        assert(len <= 64);
        fill_period(op, off, load8(op - off));
        return;
    }
    size_t i = 0, dist = off;
    if (room >= len + 7) {
        for (; i < len && dist < 8; dist = off + i) {
            store8(op + i, load8(op - off));
            i += dist;
        }
        /* each load reads only bytes already written: dist >= 8 */
        for (; i < len; i += 8) store8(op + i, load8(op - dist + i));
        return;
    }
    const uint8_t *from = op - off;
    for (; i < len; i++) op[i] = from[i];
}

/* Per tag byte, for the fast loop: the element's length minus the part of its copy offset the
 * tag holds (bits 8-10 of a copy-1's offset), so that subtracting the offset bytes after the
 * tag gives length - offset; a literal of up to 60 bytes counts as an offset of 256 (its
 * length - 256), and a long literal or a copy-4 is 255, which no element gets, to stop the
 * loop. The length is the entry's low byte. Written out from the format above (a literal:
 * (tag >> 2) + 1; a copy-1: 4 + ((tag >> 2) & 7) and offset bits tag >> 5; a copy-2:
 * (tag >> 2) + 1); test_snappy's every_tag decodes an element of every tag through the fast
 * loop against libsnappy. libsnappy since 1.1.10 decodes with the same table. */
static const int16_t len_minus_off[256] = {
    -255, 4, 1, 255, -254, 5, 2, 255, -253, 6, 3, 255, -252, 7, 4, 255, -251, 8, 5, 255, -250,
    9, 6, 255, -249, 10, 7, 255, -248, 11, 8, 255, -247, -252, 9, 255, -246, -251, 10, 255,
    -245, -250, 11, 255, -244, -249, 12, 255, -243, -248, 13, 255, -242, -247, 14, 255, -241,
    -246, 15, 255, -240, -245, 16, 255, -239, -508, 17, 255, -238, -507, 18, 255, -237, -506,
    19, 255, -236, -505, 20, 255, -235, -504, 21, 255, -234, -503, 22, 255, -233, -502, 23, 255,
    -232, -501, 24, 255, -231, -764, 25, 255, -230, -763, 26, 255, -229, -762, 27, 255, -228,
    -761, 28, 255, -227, -760, 29, 255, -226, -759, 30, 255, -225, -758, 31, 255, -224, -757,
    32, 255, -223, -1020, 33, 255, -222, -1019, 34, 255, -221, -1018, 35, 255, -220, -1017, 36,
    255, -219, -1016, 37, 255, -218, -1015, 38, 255, -217, -1014, 39, 255, -216, -1013, 40, 255,
    -215, -1276, 41, 255, -214, -1275, 42, 255, -213, -1274, 43, 255, -212, -1273, 44, 255,
    -211, -1272, 45, 255, -210, -1271, 46, 255, -209, -1270, 47, 255, -208, -1269, 48, 255,
    -207, -1532, 49, 255, -206, -1531, 50, 255, -205, -1530, 51, 255, -204, -1529, 52, 255,
    -203, -1528, 53, 255, -202, -1527, 54, 255, -201, -1526, 55, 255, -200, -1525, 56, 255,
    -199, -1788, 57, 255, -198, -1787, 58, 255, -197, -1786, 59, 255, -196, -1785, 60, 255, 255,
    -1784, 61, 255, 255, -1783, 62, 255, 255, -1782, 63, 255, 255, -1781, 64, 255,
};

/* The offset bytes after a tag of type 0..3: none, one, two, none (a copy-4 never gets here):
 * four 16-bit masks in one constant, so picking one is a shift, not a load. */
static inline uint32_t tag_offset(uint32_t after, size_t type)
{
    const uint64_t masks = 0x0000FFFF00FF0000ull;
    return after & (uint32_t)((masks >> (type * 16)) & 0xffff);
}

/* The copy of the element decoded before this one (see fast_loop): up to 64 bytes moved as
 * 32 or 64, so the output needs 64 bytes of room past op. */
static inline void flush(uint8_t **op, const uint8_t *from, size_t len)
{
    copy32(*op, from);
    if (len > 32) copy32(*op + 32, from + 32);
    *op += len;
}

/* The off (is_period) bytes that will precede op + pend_len once the pending copy (pend_len
 * bytes from pend) is flushed, in the low bytes of a word, read before that flush: from pend
 * when it holds them all, else the older output's last bytes below op joined with pend's.
 * Reading them back from the output just after the flush stalled on store-to-load forwarding
 * (the load spans two recent stores): a fifth of a one-thread scan of the DuckDB-written
 * lineitem's l_orderkey (sorted int64 keys, repeated: a short literal, then a copy at offset
 * 8), bench/RESULTS.md's twentieth session. Reads 8 bytes at op - k and at pend: within the
 * fast loop's slop. */
static inline uint64_t period_word(const uint8_t *op, const uint8_t *pend, size_t pend_len,
                                   size_t off)
{
    if (pend_len >= off) return load8(pend + pend_len - off);
    size_t k = off - pend_len; /* 1..8 bytes of older output */
    uint64_t old = load8(op - k);
    if (pend_len == 0) return old;
    assert(k < 8);
    return (old & ((1ull << (8 * k)) - 1)) | load8(pend) << (8 * k);
}

/* The fast loop, two elements a turn while the input has 2 * 64 + 1 bytes past the tag and the
 * output 3 * 64 + 1 past op: an element then reads at most 64 bytes and writes at most 64, so
 * only offsets need checking. What limits the speed is the chain from one tag to the next, so
 * both places the next tag can be (past a literal's body, or past a copy's offset bytes) are
 * loaded before the tag's type picks one (volatile keeps the compiler from turning that into
 * pick-then-load, a longer chain), and nothing on the way branches on the element's type: a
 * literal copies from the input and a copy from the output, the source picked by a select.
 * Each element's copy waits until the next element is decoded, so its loads do not hold up
 * the next tag. A copy whose source overlaps its destination (offset < length), a bad offset,
 * a long literal and a copy-4 leave the loop with ip on their tag for the exact loop to take
 * (or reject). Needs [dst, op) decoded, src and dst apart. */
enum { SLOP = 64, FAST_IN = 2 * SLOP + 1, FAST_OUT = 3 * SLOP + 1 };

static void fast_loop(const uint8_t **ipp, const uint8_t *ie, uint8_t **opp, uint8_t *dst,
                      uint8_t *oe)
{
    const uint8_t *ip = *ipp;
    uint8_t *op = *opp;
    if (ie - ip <= FAST_IN || oe - op <= FAST_OUT) return;
    const uint8_t *const ip_end = ie - FAST_IN;
    uint8_t *const op_end = oe - FAST_OUT;
    const uint8_t *pend = ip; /* the deferred copy: pend_len bytes from pend */
    size_t pend_len = 0;
    size_t tag = *ip++; /* ip stays one past the current tag */
    do {
        __builtin_prefetch(ip + 128);
        for (int twice = 0; twice < 2; twice++) {
            const uint8_t *at = ip;
            ptrdiff_t lmo = len_minus_off[tag];
            size_t type = tag & 3, lit_len = tag >> 2;
            size_t next_lit = ((const volatile uint8_t *)ip)[1 + lit_len];
            size_t next_copy = ((const volatile uint8_t *)ip)[type];
            tag = type == 0 ? next_lit : next_copy;
            ip = type == 0 ? ip + 2 + lit_len : ip + 1 + type;
            uint32_t after;
            memcpy(&after, at, 4);
            ptrdiff_t low = (ptrdiff_t)tag_offset(after, type);
            size_t len = (size_t)lmo & 0xff;
            if (__builtin_expect(lmo > low, 0)) { /* overlapping copy, or stop */
                size_t off = (size_t)(low - lmo) + len;
                if (!(len & 0x80) && is_period(off) && off <= (size_t)(op + pend_len - dst)) {
                    uint64_t w = period_word(op, pend, pend_len, off);
                    flush(&op, pend, pend_len);
                    pend_len = 0;
                    fill_period(op, off, w);
                    op += len;
                    continue;
                }
                flush(&op, pend, pend_len);
                pend_len = 0;
                if ((len & 0x80) || off == 0 || off > (size_t)(op - dst)) {
                    ip = at;
                    goto out;
                }
                back_copy(op, off, len, (size_t)(oe - op));
                op += len;
                continue;
            }
            /* written bytes after the pending copy minus the offset (a literal's 256 makes
             * this negative only within the first 256 bytes of output) */
            ptrdiff_t from = (op + pend_len - dst) + (lmo - low) - (ptrdiff_t)len;
            if (__builtin_expect(from < 0, 0)) {
                if (type != 0) {
                    ip = at;
                    goto out;
                }
                flush(&op, pend, pend_len);
                pend = at;
                pend_len = len;
                continue;
            }
            flush(&op, pend, pend_len);
            pend = type ? dst + from : at;
            pend_len = len;
        }
    } while (ip < ip_end && op + pend_len < op_end);
out:
    flush(&op, pend, pend_len);
    *ipp = ip - 1;
    *opp = op;
}

int pq_snappy_uncompress(const uint8_t *src, size_t n, uint8_t *dst, size_t dst_len)
{
    size_t want = 0, head = 0;
    if (pq_snappy_length(src, n, &want, &head)) return PQ_SNAPPY_CORRUPT;
    if (want != dst_len) return PQ_SNAPPY_SIZE;
    const uint8_t *ip = src + head, *ie = src + n;
    uint8_t *op = dst, *const oe = dst + dst_len;
    while (ip < ie) {
        fast_loop(&ip, ie, &op, dst, oe);
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
