/* common/bits.h: listing the set bits of a 64-bit word as row numbers, shared by the filter's
 * masks (filter/mask.c) and the column reader's kept rows (format/column.c bits_kept). Below
 * every layer: includes nothing of ringscan.
 *
 * Invariant: bits_rows and bits_keep32 write exactly popcount(bits) entries and nothing past
 * them (the AVX-512 paths store under a mask), so out needs room for that many only; they
 * read no source entry whose bit is clear (masked loads). bits_rows_wide writes the same
 * entries and may write over the 8 after them: its out needs room for popcount(bits) + 8. */
#ifndef RINGSCAN_COMMON_BITS_H
#define RINGSCAN_COMMON_BITS_H
#include <stdint.h>
#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif
#if !defined(__AVX512F__) && defined(__AVX2__)
#define BITS_ROWS_WIDE 1
#else
#define BITS_ROWS_WIDE 0
#endif

#if defined(__AVX512F__)
/* The lanes of v whose bit of m is set, stored packed at dst under a mask; their count. */
static inline int bits_store16(__mmask16 m, __m512i v, uint32_t *dst)
{
    int cnt = __builtin_popcount(m);
    _mm512_mask_storeu_epi32(dst, (__mmask16)((1u << cnt) - 1), _mm512_maskz_compress_epi32(m, v));
    return cnt;
}
#endif

/* Writes base + the position of each set bit of bits, rising, to out (room for as many);
 * returns their count. With AVX-512: 16 positions at a time, compressed in a register and
 * stored under a mask: no branch per row, which a one-thread lineitem scan keeping 1 row in 9
 * spent 3.5-4.5% of its time on in the filter's mask and 5% in the reader's kept rows. */
static inline int64_t bits_rows(uint64_t bits, uint32_t base, uint32_t *out)
{
#if defined(__AVX512F__)
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    int64_t k = 0;
    for (uint32_t q = 0; bits; q += 16, bits >>= 16)
        k += bits_store16((__mmask16)bits, _mm512_add_epi32(lane, _mm512_set1_epi32((int)(base + q))),
                          out + k);
    return k;
#else
    int64_t k = 0;
    for (; bits; bits &= bits - 1) out[k++] = base + (uint32_t)__builtin_ctzll(bits);
    return k;
#endif
}

#if BITS_ROWS_WIDE
/* The positions of the set bits of the byte m, rising, one a byte from the low byte, at
 * bits_byte_pos[m] (entry m: for each set bit b of m, from the lowest, b in the next byte). */
static const uint64_t bits_byte_pos[256] = {
    0x0, 0x0, 0x1, 0x100, 0x2, 0x200,
    0x201, 0x20100, 0x3, 0x300, 0x301, 0x30100,
    0x302, 0x30200, 0x30201, 0x3020100, 0x4, 0x400,
    0x401, 0x40100, 0x402, 0x40200, 0x40201, 0x4020100,
    0x403, 0x40300, 0x40301, 0x4030100, 0x40302, 0x4030200,
    0x4030201, 0x403020100, 0x5, 0x500, 0x501, 0x50100,
    0x502, 0x50200, 0x50201, 0x5020100, 0x503, 0x50300,
    0x50301, 0x5030100, 0x50302, 0x5030200, 0x5030201, 0x503020100,
    0x504, 0x50400, 0x50401, 0x5040100, 0x50402, 0x5040200,
    0x5040201, 0x504020100, 0x50403, 0x5040300, 0x5040301, 0x504030100,
    0x5040302, 0x504030200, 0x504030201, 0x50403020100, 0x6, 0x600,
    0x601, 0x60100, 0x602, 0x60200, 0x60201, 0x6020100,
    0x603, 0x60300, 0x60301, 0x6030100, 0x60302, 0x6030200,
    0x6030201, 0x603020100, 0x604, 0x60400, 0x60401, 0x6040100,
    0x60402, 0x6040200, 0x6040201, 0x604020100, 0x60403, 0x6040300,
    0x6040301, 0x604030100, 0x6040302, 0x604030200, 0x604030201, 0x60403020100,
    0x605, 0x60500, 0x60501, 0x6050100, 0x60502, 0x6050200,
    0x6050201, 0x605020100, 0x60503, 0x6050300, 0x6050301, 0x605030100,
    0x6050302, 0x605030200, 0x605030201, 0x60503020100, 0x60504, 0x6050400,
    0x6050401, 0x605040100, 0x6050402, 0x605040200, 0x605040201, 0x60504020100,
    0x6050403, 0x605040300, 0x605040301, 0x60504030100, 0x605040302, 0x60504030200,
    0x60504030201, 0x6050403020100, 0x7, 0x700, 0x701, 0x70100,
    0x702, 0x70200, 0x70201, 0x7020100, 0x703, 0x70300,
    0x70301, 0x7030100, 0x70302, 0x7030200, 0x7030201, 0x703020100,
    0x704, 0x70400, 0x70401, 0x7040100, 0x70402, 0x7040200,
    0x7040201, 0x704020100, 0x70403, 0x7040300, 0x7040301, 0x704030100,
    0x7040302, 0x704030200, 0x704030201, 0x70403020100, 0x705, 0x70500,
    0x70501, 0x7050100, 0x70502, 0x7050200, 0x7050201, 0x705020100,
    0x70503, 0x7050300, 0x7050301, 0x705030100, 0x7050302, 0x705030200,
    0x705030201, 0x70503020100, 0x70504, 0x7050400, 0x7050401, 0x705040100,
    0x7050402, 0x705040200, 0x705040201, 0x70504020100, 0x7050403, 0x705040300,
    0x705040301, 0x70504030100, 0x705040302, 0x70504030200, 0x70504030201, 0x7050403020100,
    0x706, 0x70600, 0x70601, 0x7060100, 0x70602, 0x7060200,
    0x7060201, 0x706020100, 0x70603, 0x7060300, 0x7060301, 0x706030100,
    0x7060302, 0x706030200, 0x706030201, 0x70603020100, 0x70604, 0x7060400,
    0x7060401, 0x706040100, 0x7060402, 0x706040200, 0x706040201, 0x70604020100,
    0x7060403, 0x706040300, 0x706040301, 0x70604030100, 0x706040302, 0x70604030200,
    0x70604030201, 0x7060403020100, 0x70605, 0x7060500, 0x7060501, 0x706050100,
    0x7060502, 0x706050200, 0x706050201, 0x70605020100, 0x7060503, 0x706050300,
    0x706050301, 0x70605030100, 0x706050302, 0x70605030200, 0x70605030201, 0x7060503020100,
    0x7060504, 0x706050400, 0x706050401, 0x70605040100, 0x706050402, 0x70605040200,
    0x70605040201, 0x7060504020100, 0x706050403, 0x70605040300, 0x70605040301, 0x7060504030100,
    0x70605040302, 0x7060504030200, 0x7060504030201, 0x706050403020100,
};
#endif

/* bits_rows for an out with room for popcount(bits) + 8 entries (the entries past the count
 * may be overwritten). With AVX2 but not AVX-512: each byte's positions from bits_byte_pos,
 * widened, and stored as 8 full lanes at the count so far: no branch per row or per word end
 * (the ctz loop's exit mispredicts about once a word: 11.7 -> 5.4 ns a word with 1 bit in 9
 * set on Zen3; 2.0 -> 1.9 with 1 in 200). Elsewhere bits_rows. */
static inline int64_t bits_rows_wide(uint64_t bits, uint32_t base, uint32_t *out)
{
#if BITS_ROWS_WIDE
    if (!bits) return 0;
    int64_t k = 0;
    __m256i b = _mm256_set1_epi32((int)base);
    const __m256i eight = _mm256_set1_epi32(8);
    for (int q = 0; q < 8; q++, bits >>= 8) {
        uint32_t m = (uint32_t)bits & 0xff;
        __m128i pos8 = _mm_loadl_epi64((const void *)&bits_byte_pos[m]);
        _mm256_storeu_si256((void *)(out + k), _mm256_add_epi32(_mm256_cvtepu8_epi32(pos8), b));
        k += __builtin_popcount(m);
        b = _mm256_add_epi32(b, eight);
    }
    return k;
#else
    return bits_rows(bits, base, out);
#endif
}

/* Writes src[p] for each set bit p of bits, in rising p, to dst; returns their count. dst may
 * be src or below it (a move down in place: each entry is read before anything is written
 * over it). With AVX-512: 16 entries at a time, compressed in a register. */
static inline int64_t bits_keep32(uint64_t bits, const uint32_t *src, uint32_t *dst)
{
#if defined(__AVX512F__)
    int64_t k = 0;
    for (uint32_t q = 0; bits; q += 16, bits >>= 16)
        k += bits_store16((__mmask16)bits, _mm512_maskz_loadu_epi32((__mmask16)bits, src + q), dst + k);
    return k;
#else
    int64_t k = 0;
    for (; bits; bits &= bits - 1) dst[k++] = src[__builtin_ctzll(bits)];
    return k;
#endif
}

#endif
