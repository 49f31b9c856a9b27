/* format/rle_bits.c: dictionary indices (the RLE / bit-packed hybrid) turned straight into a
 * predicate's row bits through a bitmap of the dictionary's entries (pq_rle_bits), with no
 * index stored: the predicate runs once per dictionary entry (filter/kernel.c
 * flt_eval_dict_prepare), then an RLE run costs one test for all its rows and bit-packed
 * values one table lookup each.
 *
 * Invariants:
 *  1. Only bits [0, n) of out are written; its words are zeroed first, so the bits past n
 *     stay clear.
 *  2. The vector path maps 8 whole groups (64 values) of the current bit-packed run with a
 *     masked load of exactly their 8 * bit_width bytes, all inside the buffer (bp_left counts
 *     only values that fit, rle.c invariant 2).
 *  3. A value >= dlen never indexes dm past its dlen bits (it reads entry 0, its low six
 *     bits in the one-word table, or a zero bit of the group path's dm cut to dlen bits) and
 *     fails the call: every path keeps the largest value seen, so the message names the same
 *     value on every path.
 *  4. The decoder ends exactly as pq_rle_get of n values would leave it.
 *  5. The group path (AVX2, bit width 1..8, dlen <= 64) maps whole 8-value groups
 *     of the current bit-packed run from one 8-byte little-endian load each, taken only while
 *     the load stays inside the buffer (at least 8 bytes from the group's start to end); the
 *     last groups of a buffer, a buffered group and a run's partial group take scalar_step. */
#include <assert.h>
#include <string.h>

#include "format/encoding.h"

#if defined(__AVX512VBMI__) && defined(__AVX512BW__)
#include <immintrin.h>
#define RLE_BITS_VBMI 1
#endif
#if defined(__AVX2__)
#include <immintrin.h>
#define RLE_BITS_AVX2 1
#endif

enum { STEP_MAX = 64 }; /* values mapped at a time off the vector path */

/* Sets bits [from, to) of out. */
static void set_range(uint64_t *out, int64_t from, int64_t to)
{
    assert(0 <= from && from <= to);
    while (from < to) {
        int64_t w = from >> 6, s = from & 63, k = 64 - s < to - from ? 64 - s : to - from;
        uint64_t bits = k == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << k) - 1) << s;
        out[w] |= bits;
        from += k;
    }
}

/* ORs the low k (1..64) bits of b in at bit pos of out; the caller keeps pos + k <= n. */
static inline void put_bits(uint64_t *out, int64_t pos, uint64_t b, int64_t k)
{
    assert(k >= 1 && k <= 64);
    if (k < 64) b &= (UINT64_C(1) << k) - 1;
    int64_t w = pos >> 6, s = pos & 63;
    out[w] |= b << s;
    if (s && s + k > 64) out[w + 1] |= b >> (64 - s);
}

/* Entry v's bit of dm (dlen entries): 0 for v >= dlen (invariant 3). */
static inline uint64_t entry_bit(const uint64_t *dm, uint32_t dlen, uint32_t v)
{
    uint32_t vs = v < dlen ? v : 0;
    return (dm[vs >> 6] >> (vs & 63)) & (uint64_t)(v < dlen);
}

/* The bits of k (<= 64) values; *max keeps the largest value seen. */
static uint64_t map_values(const uint32_t *v, int64_t k, const uint64_t *dm, uint32_t dlen,
                           uint32_t *max)
{
    uint64_t b = 0;
    uint32_t m = *max;
    for (int64_t i = 0; i < k; i++) {
        m = v[i] > m ? v[i] : m;
        b |= entry_bit(dm, dlen, v[i]) << i;
    }
    *max = m;
    return b;
}

#if RLE_BITS_VBMI
/* What the vector path needs for one bit width (1..8) and one dictionary (<= 64 entries). */
typedef struct vec_map {
    __m512i spread; /* byte j of lane i (a group) <- packed byte i * bw + j */
    __m512i shifts; /* byte j of each lane <- the bits from j * bw */
    __m512i width;  /* (1 << bw) - 1 in every byte */
    __m512i table;  /* byte v: 0xff when entry v passes (v < dlen), else 0 */
    __m512i vmax;   /* the largest value seen, per byte */
    __mmask64 load; /* the 8 * bw bytes of 8 groups */
    uint32_t bw;
} vec_map;

static void vec_init(vec_map *m, uint32_t bw, const uint64_t *dm, uint32_t dlen)
{
    assert(bw >= 1 && bw <= 8 && dlen >= 1 && dlen <= 64);
    uint8_t spread[64], shifts[64], table[64];
    for (int i = 0; i < 64; i++) {
        spread[i] = (uint8_t)((i >> 3) * (int)bw + (i & 7)); /* <= 7 * 8 + 7 */
        shifts[i] = (uint8_t)((i & 7) * (int)bw);
        table[i] = (uint32_t)i < dlen && ((dm[0] >> i) & 1) ? 0xff : 0;
    }
    m->spread = _mm512_loadu_si512(spread);
    m->shifts = _mm512_loadu_si512(shifts);
    m->width = _mm512_set1_epi8((char)((1u << bw) - 1));
    m->table = _mm512_loadu_si512(table);
    m->vmax = _mm512_setzero_si512();
    m->load = bw == 8 ? ~(__mmask64)0 : (((__mmask64)1 << (8 * bw)) - 1);
    m->bw = bw;
}

/* The bits of the 64 values in the 8 groups at p (invariant 2). */
static inline uint64_t vec_map64(vec_map *m, const uint8_t *p)
{
    __m512i src = _mm512_maskz_loadu_epi8(m->load, p);
    __m512i lanes = _mm512_permutexvar_epi8(m->spread, src);
    __m512i vals = _mm512_and_si512(_mm512_multishift_epi64_epi8(m->shifts, lanes), m->width);
    m->vmax = _mm512_max_epu8(m->vmax, vals);
    return (uint64_t)_mm512_movepi8_mask(_mm512_permutexvar_epi8(vals, m->table));
}

static uint32_t vec_max(const vec_map *m)
{
    uint8_t b[64];
    _mm512_storeu_si512(b, m->vmax);
    uint32_t x = 0;
    for (int i = 0; i < 64; i++) x = b[i] > x ? b[i] : x;
    return x;
}

/* Maps the current run's whole 8-group blocks that fit in want values: returns the values
 * mapped (a multiple of 64, maybe 0). */
static int64_t vec_run(pq_rle_dec *d, vec_map *m, int64_t want, int64_t pos, uint64_t *out)
{
    int64_t k = (want < (int64_t)d->bp_left ? want : (int64_t)d->bp_left) & ~(int64_t)63;
    for (int64_t i = 0; i < k; i += 64, d->p += 8 * m->bw)
        put_bits(out, pos + i, vec_map64(m, d->p), 64);
    d->bp_left -= (uint32_t)k;
    if (k && d->bp_left == 0 && d->bp_short) d->p = d->end;
    return k;
}
#endif

#if RLE_BITS_AVX2
/* What the group path (invariant 5) needs for one bit width (1..8) and one dictionary
 * (<= 64 entries). Only with AVX2: a scalar variant (per value a shift, a mask and a bit of
 * dm, a running max) measured slower than scalar_step's unpack then map (session 36, see
 * bench/RESULTS.md), so without AVX2 the portable path is scalar_step. */
typedef struct grp_map {
    __m256i shuf;         /* 32-bit lane i <- bytes (i * bw) / 8 and (i * bw) / 8 + 1, rest 0 */
    __m256i shift;        /* lane i: (i * bw) % 8 */
    __m256i width;        /* (1 << bw) - 1 per lane */
    __m256i dm_lo, dm_hi; /* dm[0] cut to dlen bits: its low and high 32 bits per lane */
    __m256i vmax;         /* the largest value seen, per lane */
    uint32_t bw;
} grp_map;

static void grp_init(grp_map *m, uint32_t bw, const uint64_t *dm, uint32_t dlen)
{
    assert(bw >= 1 && bw <= 8 && dlen >= 1 && dlen <= 64);
    uint64_t cut = dlen == 64 ? dm[0] : dm[0] & ((UINT64_C(1) << dlen) - 1);
    uint8_t shuf[32];
    uint32_t shift[8];
    for (int i = 0; i < 8; i++) {
        int s = i * (int)bw; /* <= 56: bytes s / 8 and s / 8 + 1 <= 8 hold the value */
        for (int j = 0; j < 4; j++) shuf[4 * i + j] = j < 2 ? (uint8_t)((s >> 3) + j) : 0x80;
        shift[i] = (uint32_t)(s & 7);
    }
    /* shuffle_epi8 indexes within each 128-bit half: each half holds the word twice, and
     * byte 8 (a copy of byte 0) is read only for bits past the group's 8 * bw */
    m->shuf = _mm256_loadu_si256((const __m256i *)shuf);
    m->shift = _mm256_loadu_si256((const __m256i *)shift);
    m->width = _mm256_set1_epi32((int)((1u << bw) - 1));
    m->dm_lo = _mm256_set1_epi32((int)(uint32_t)cut);
    m->dm_hi = _mm256_set1_epi32((int)(uint32_t)(cut >> 32));
    m->vmax = _mm256_setzero_si256();
    m->bw = bw;
}

/* The 8 bits of the group at p; p[0 .. 8) is readable (invariant 5). */
static inline uint32_t grp_map8(grp_map *m, const uint8_t *p)
{
    uint64_t x;
    memcpy(&x, p, 8); /* little-endian: x86-64 */
    __m256i w = _mm256_set1_epi64x((long long)x);
    __m256i v = _mm256_and_si256(_mm256_srlv_epi32(_mm256_shuffle_epi8(w, m->shuf), m->shift),
                                 m->width);
    m->vmax = _mm256_max_epu32(m->vmax, v);
    /* a shift count >= 32 gives 0: values 0..31 read dm_lo, 32..63 dm_hi, 64.. nothing */
    __m256i hi = _mm256_srlv_epi32(m->dm_hi, _mm256_sub_epi32(v, _mm256_set1_epi32(32)));
    __m256i b = _mm256_or_si256(_mm256_srlv_epi32(m->dm_lo, v), hi);
    return (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_slli_epi32(b, 31)));
}

/* The largest value the group path has seen. */
static uint32_t grp_max(const grp_map *m)
{
    uint32_t b[8], x = 0;
    _mm256_storeu_si256((__m256i *)b, m->vmax);
    for (int i = 0; i < 8; i++) x = b[i] > x ? b[i] : x;
    return x;
}

/* Maps the current run's whole groups that fit in want values and whose 8-byte loads stay in
 * the buffer: returns the values mapped (a multiple of 8, maybe 0). */
static int64_t grp_run(pq_rle_dec *d, grp_map *m, int64_t want, int64_t pos, uint64_t *out)
{
    assert(d->grp_pos == d->grp_len && d->bit_width == m->bw);
    int64_t g = (want < (int64_t)d->bp_left ? want : (int64_t)d->bp_left) >> 3;
    int64_t room = d->end - d->p, fit = room >= 8 ? (room - 8) / m->bw + 1 : 0;
    g = g < fit ? g : fit;
    const uint8_t *p = d->p;
    for (int64_t i = 0; i < g;) {
        int64_t c = g - i < 8 ? g - i : 8; /* groups into one output word */
        uint64_t b = 0;
        for (int64_t j = 0; j < c; j++, p += m->bw) b |= (uint64_t)grp_map8(m, p) << (8 * j);
        put_bits(out, pos + 8 * i, b, 8 * c);
        i += c;
    }
    assert(p <= d->end && p == d->p + g * m->bw);
    d->p = p;
    d->bp_left -= (uint32_t)(8 * g);
    if (g && d->bp_left == 0 && d->bp_short) d->p = d->end;
    return 8 * g;
}
#endif

/* The sticky "data ends" or "out of range" failure. */
static int bits_fail(pq_rle_dec *d, int rc)
{
    d->status = rc;
    return rc;
}

/* One step off the vector path, inside a bit-packed run (or its buffered group): up to 64
 * values of it decoded and mapped. Returns the values done, or a negative status. */
static int64_t scalar_step(pq_rle_dec *d, int64_t want, int64_t pos, const uint64_t *dm,
                           uint32_t dlen, uint32_t *max, uint64_t *out)
{
    uint32_t v[STEP_MAX];
    int64_t k = (int64_t)(d->grp_len - d->grp_pos) + (int64_t)d->bp_left;
    if (k > want) k = want;
    if (k > STEP_MAX) k = STEP_MAX;
    assert(k > 0);
    int64_t got = pq_rle_next(d, v, k); /* all inside the run: no header read */
    if (got < 0) return got;
    assert(got == k);
    put_bits(out, pos, map_values(v, k, dm, dlen, max), k);
    return k;
}

int pq_rle_bits(pq_rle_dec *d, int64_t n, const uint64_t *dm, uint32_t dlen, uint64_t *out)
{
    assert(d && n >= 0 && dm && dlen >= 1 && (out || n == 0));
    if (d->status) return d->status;
    if (n > 0) memset(out, 0, (size_t)((n + 63) >> 6) * sizeof *out);
    uint32_t max = 0;
#if RLE_BITS_VBMI
    vec_map vm;
    bool vec = d->bit_width >= 1 && d->bit_width <= 8 && dlen <= 64;
    if (vec) vec_init(&vm, d->bit_width, dm, dlen);
#endif
#if RLE_BITS_AVX2
    grp_map gm;
    bool grp = d->bit_width >= 1 && d->bit_width <= 8 && dlen <= 64;
    if (grp) grp_init(&gm, d->bit_width, dm, dlen);
#endif
    int64_t pos = 0;
    while (pos < n) {
        int64_t want = n - pos, k = 0;
        bool in_grp = d->grp_pos < d->grp_len;
        if (!in_grp && d->rle_left) { /* one value for the whole run */
            k = want < (int64_t)d->rle_left ? want : (int64_t)d->rle_left;
            max = d->rle_value > max ? d->rle_value : max;
            if (entry_bit(dm, dlen, d->rle_value)) set_range(out, pos, pos + k);
            d->rle_left -= (uint32_t)k;
#if RLE_BITS_VBMI
        } else if (vec && !in_grp && d->bp_left >= 64 && want >= 64) {
            k = vec_run(d, &vm, want, pos, out);
#endif
        } else if (in_grp || d->bp_left) {
#if RLE_BITS_AVX2
            k = grp && !in_grp ? grp_run(d, &gm, want, pos, out) : 0;
#endif
            if (k == 0) k = scalar_step(d, want, pos, dm, dlen, &max, out);
            if (k < 0) return (int)k;
        } else if (d->bit_width == 0 && d->end == d->base) { /* bare width 0: all zeros */
            k = want;
            if (entry_bit(dm, dlen, 0)) set_range(out, pos, n);
        } else {
            int rc = pq_rle_header(d);
            if (rc < 0) return rc;
            if (rc == 1)
                return bits_fail(d, pq_errf(d->err, RINGSCAN_EFORMAT, -1,
                                            "dictionary indices end after %lld of %lld values",
                                            (long long)pos, (long long)n));
        }
        pos += k;
    }
#if RLE_BITS_VBMI
    if (vec) max = vec_max(&vm) > max ? vec_max(&vm) : max;
#endif
#if RLE_BITS_AVX2
    if (grp) max = grp_max(&gm) > max ? grp_max(&gm) : max;
#endif
    if (n > 0 && max >= dlen)
        return bits_fail(d, pq_errf(d->err, RINGSCAN_EFORMAT, -1,
                                    "dictionary index %u out of range (dictionary has %u values)",
                                    max, dlen));
    return 0;
}
