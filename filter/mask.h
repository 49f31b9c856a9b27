/* filter/mask.h: row selection bit masks, one bit per row, packed in uint64_t words.
 *
 * Owns: the flt_mask type and word-level operations on it (and, or, not, popcount, tests,
 * range set, selection of set indices, conversion from Arrow validity bytes).
 *
 * Invariants:
 *  1. Bit i of the mask is bit (i & 63) of words[i >> 6] (LSB first). On a little-endian
 *     host this is the same memory layout as an Arrow validity bitmap.
 *  2. Bits at positions >= len in the last word are always zero, so popcount and all-false
 *     never need a tail correction; every operation that could set them (not, set_range,
 *     all) clears them again.
 *  3. words has cap_words >= (len + 63) / 64 entries, owned by the mask (flt_mask_free),
 *     unless the mask was made with flt_mask_wrap (borrowed; free is then a no-op on words).
 *  4. Binary operations require equal lengths (asserted). */
#ifndef RINGSCAN_FILTER_MASK_H
#define RINGSCAN_FILTER_MASK_H
#include <stdbool.h>
#include <stdint.h>

enum { FLT_MASK_MAX_LEN = 1 << 30 }; /* rows per mask; splits are far smaller */

typedef struct flt_mask {
    int64_t len;       /* rows */
    int64_t cap_words; /* words allocated (0 when borrowed) */
    uint64_t *words;
} flt_mask;

static inline int64_t flt_mask_nwords(int64_t len) { return (len + 63) >> 6; }

/* Mask of the last word's valid bits for a mask of len rows (all ones when len % 64 == 0). */
static inline uint64_t flt_mask_tail(int64_t len)
{
    return (len & 63) ? ((UINT64_C(1) << (len & 63)) - 1) : ~UINT64_C(0);
}

static inline bool flt_mask_get(const flt_mask *m, int64_t i)
{
    return (m->words[i >> 6] >> (i & 63)) & 1;
}

static inline void flt_mask_set(flt_mask *m, int64_t i)
{
    m->words[i >> 6] |= UINT64_C(1) << (i & 63);
}

/* Makes m a mask of len rows, every bit = value. Reuses m's buffer when large enough
 * (m must be zero-initialised or a previous flt_mask_init result). 0 or -ENOMEM. */
int flt_mask_init(flt_mask *m, int64_t len, bool value);
/* Frees the words (if owned) and zeroes m. */
void flt_mask_free(flt_mask *m);
/* Copies src into dst (same length as src after the call). 0 or -ENOMEM. */
int flt_mask_copy(flt_mask *dst, const flt_mask *src);
/* Bits [at, at + n) of dst = bits [from, from + n) of src (both ranges inside their masks;
 * dst and src distinct). */
void flt_mask_copy_bits(flt_mask *dst, int64_t at, const flt_mask *src, int64_t from, int64_t n);
/* dst (a mask of to - from rows) = bits [from, to) of src; 0 <= from <= to <= src->len.
 * 0 or -ENOMEM. */
int flt_mask_slice(flt_mask *dst, const flt_mask *src, int64_t from, int64_t to);
/* Fills bits from validity (Arrow bytes, LSB first, (len+7)/8 bytes); NULL = all valid. */
void flt_mask_from_bytes(flt_mask *m, const uint8_t *bytes);
/* dst &= src; dst |= src; dst &= ~src. Equal lengths. */
void flt_mask_and(flt_mask *dst, const flt_mask *src);
void flt_mask_or(flt_mask *dst, const flt_mask *src);
void flt_mask_andnot(flt_mask *dst, const flt_mask *src);
/* m = ~m (within len). */
void flt_mask_not(flt_mask *m);
/* Number of set bits. */
int64_t flt_mask_popcount(const flt_mask *m);
/* True when no bit / every bit (of len) is set. A zero-length mask is both. */
bool flt_mask_all_false(const flt_mask *m);
bool flt_mask_all_true(const flt_mask *m);
/* Sets bits [from, to) to value; 0 <= from <= to <= len. */
void flt_mask_set_range(flt_mask *m, int64_t from, int64_t to, bool value);
/* Writes the indices of set bits in ascending order to out (room for cap entries); returns
 * how many were set in total (may exceed cap: only the first cap are written). */
int64_t flt_mask_select(const flt_mask *m, uint32_t *out, int64_t cap);
/* Number of set bits of [from, to); 0 <= from <= to <= len. */
int64_t flt_mask_count_range(const flt_mask *m, int64_t from, int64_t to);
/* True when a bit of [from, to) is set; 0 <= from <= to <= len. */
bool flt_mask_any_range(const flt_mask *m, int64_t from, int64_t to);
/* Writes the positions, relative to from, of the set bits of [from, to) in ascending order to
 * out (room for to - from entries); returns how many. 0 <= from <= to <= len. */
int64_t flt_mask_select_range(const flt_mask *m, int64_t from, int64_t to, uint32_t *out);

#endif
