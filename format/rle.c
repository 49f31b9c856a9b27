/* format/rle.c: the RLE / bit-packed hybrid encoding (levels, dictionary indices), the legacy
 * MSB-first BIT_PACKED levels, and bit unpacking by 8-value groups.
 *
 * Layout (Encodings.md): runs, each a ULEB128 header h. h & 1: bit-packed run of (h >> 1)
 * groups of 8 values, each group bit_width bytes, values LSB first. Else: RLE run of (h >> 1)
 * copies of one value stored in ceil(bit_width / 8) little-endian bytes.
 *
 * Invariants:
 *  1. d->p <= d->end always; header and RLE value reads check the bytes left first.
 *  2. A bit-packed run is cut to the whole values that fit in the buffer (bp_short = 1); the
 *     values that fit are delivered, later values are "data ended", never read past end.
 *  3. grp_pos <= grp_len <= 8; bp_left counts values of the current run not yet unpacked.
 *  4. The fast path unpacks whole groups straight into the output with 8-byte loads only while
 *     at least 8 bytes of slack remain after the group; other groups use byte loads.
 *  5. Errors stick in d->status: after one, next() keeps returning it.
 *  6. bit_width 0 over an empty buffer means "all zeros" (nothing to read, nothing to check).
 */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "format/encoding.h"

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

/* ------------------------------------------------------------------------------ unpacking */

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    return x; /* little-endian hosts only (x86-64, aarch64) */
}

/* 8 values of constant width W with 8-byte loads: needs in[0 .. W+8) readable. */
#define PQ_UNPACK_FAST(W)                                                              \
    static void unpack8_fast_##W(const uint8_t *in, uint32_t *out)                    \
    {                                                                                  \
        const uint64_t mask = (1ull << (W)) - 1;           \
        for (uint32_t i = 0; i < 8; i++) {                                             \
            uint32_t s = i * (W);                                                      \
            out[i] = (uint32_t)((load64(in + (s >> 3)) >> (s & 7)) & mask);            \
        }                                                                              \
    }
PQ_UNPACK_FAST(1) PQ_UNPACK_FAST(2) PQ_UNPACK_FAST(3) PQ_UNPACK_FAST(4) PQ_UNPACK_FAST(5)
PQ_UNPACK_FAST(6) PQ_UNPACK_FAST(7) PQ_UNPACK_FAST(8) PQ_UNPACK_FAST(9) PQ_UNPACK_FAST(10)
PQ_UNPACK_FAST(11) PQ_UNPACK_FAST(12) PQ_UNPACK_FAST(13) PQ_UNPACK_FAST(14) PQ_UNPACK_FAST(15)
PQ_UNPACK_FAST(16) PQ_UNPACK_FAST(17) PQ_UNPACK_FAST(18) PQ_UNPACK_FAST(19) PQ_UNPACK_FAST(20)
PQ_UNPACK_FAST(21) PQ_UNPACK_FAST(22) PQ_UNPACK_FAST(23) PQ_UNPACK_FAST(24) PQ_UNPACK_FAST(25)
PQ_UNPACK_FAST(26) PQ_UNPACK_FAST(27) PQ_UNPACK_FAST(28) PQ_UNPACK_FAST(29) PQ_UNPACK_FAST(30)
PQ_UNPACK_FAST(31) PQ_UNPACK_FAST(32)

typedef void (*unpack_fn)(const uint8_t *, uint32_t *);
static const unpack_fn unpack_fast[33] = {
    NULL, unpack8_fast_1, unpack8_fast_2, unpack8_fast_3, unpack8_fast_4, unpack8_fast_5,
    unpack8_fast_6, unpack8_fast_7, unpack8_fast_8, unpack8_fast_9, unpack8_fast_10,
    unpack8_fast_11, unpack8_fast_12, unpack8_fast_13, unpack8_fast_14, unpack8_fast_15,
    unpack8_fast_16, unpack8_fast_17, unpack8_fast_18, unpack8_fast_19, unpack8_fast_20,
    unpack8_fast_21, unpack8_fast_22, unpack8_fast_23, unpack8_fast_24, unpack8_fast_25,
    unpack8_fast_26, unpack8_fast_27, unpack8_fast_28, unpack8_fast_29, unpack8_fast_30,
    unpack8_fast_31, unpack8_fast_32,
};

void pq_unpack8(const uint8_t *in, uint32_t bit_width, uint32_t out[8])
{
    assert(bit_width <= 32);
    if (bit_width == 0) {
        memset(out, 0, 8 * sizeof out[0]);
        return;
    }
    uint8_t tmp[40] = {0};
    memcpy(tmp, in, bit_width); /* exactly the group: safe anywhere */
    unpack_fast[bit_width](tmp, out);
}

/* Unpacks up to 8 values from a possibly short group of avail bytes (zero padded). */
static void unpack8_partial(const uint8_t *in, size_t avail, uint32_t bit_width, uint32_t out[8])
{
    uint8_t tmp[40] = {0};
    assert(avail <= bit_width && bit_width >= 1);
    memcpy(tmp, in, avail);
    unpack_fast[bit_width](tmp, out);
}

int pq_bit_width(uint64_t max_value)
{
    int w = 0;
    while (max_value) {
        w++;
        max_value >>= 1;
    }
    return w;
}

/* ------------------------------------------------------------------------------- decoder */

static int rle_fail(pq_rle_dec *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int rle_fail(pq_rle_dec *d, const char *fmt, ...)
{
    char m[192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    d->status = pq_errf(d->err, RINGSCAN_EFORMAT, -1, "RLE/bit-packed data at byte %td: %s",
                        d->p - d->base, m);
    return d->status;
}

int pq_rle_init(pq_rle_dec *d, const uint8_t *buf, size_t len, int bit_width, pq_err *err)
{
    memset(d, 0, sizeof *d);
    d->base = d->p = buf;
    d->end = len ? buf + len : buf; /* buf may be NULL when len == 0 */
    d->err = err;
    if (bit_width < 0 || bit_width > 32) {
        d->status = pq_errf(err, RINGSCAN_EFORMAT, -1, "RLE bit width %d is not in 0..32",
                            bit_width);
        return d->status;
    }
    d->bit_width = (uint32_t)bit_width;
    return 0;
}

int pq_rle_init_v1(pq_rle_dec *d, const uint8_t *buf, size_t len, int bit_width, size_t *used,
                   pq_err *err)
{
    *used = 0;
    if (len < 4) {
        pq_rle_init(d, buf, 0, 0, err);
        d->status = pq_errf(err, RINGSCAN_EFORMAT, -1,
                            "v1 levels need a 4-byte length, page has %zu bytes", len);
        return d->status;
    }
    uint32_t n = (uint32_t)buf[0] | (uint32_t)buf[1] << 8 | (uint32_t)buf[2] << 16 |
                 (uint32_t)buf[3] << 24;
    if (n > len - 4) {
        pq_rle_init(d, buf, 0, 0, err);
        d->status = pq_errf(err, RINGSCAN_EFORMAT, -1,
                            "v1 levels length %u exceeds the %zu bytes left", n, len - 4);
        return d->status;
    }
    *used = 4 + (size_t)n;
    return pq_rle_init(d, buf + 4, n, bit_width, err);
}

int pq_rle_init_dict(pq_rle_dec *d, const uint8_t *buf, size_t len, pq_err *err)
{
    if (len < 1) {
        /* An empty page (0 values) may carry no bit-width byte at all; width 1 (not 0) so
         * that asking for any value reports "data ends" instead of yielding zeros. */
        return pq_rle_init(d, buf, 0, 1, err);
    }
    int rc = pq_rle_init(d, buf + 1, len - 1, buf[0], err);
    if (rc) pq_errf(err, rc, -1, "dictionary index bit width %u is not in 0..32", buf[0]);
    return rc;
}

int pq_rle_header(pq_rle_dec *d)
{
    if (d->p >= d->end) return 1;
    uint64_t h = 0;
    const uint8_t *q = d->p;
    for (int shift = 0;; shift += 7) {
        if (q >= d->end) return rle_fail(d, "run header varint cut off");
        if (shift > 28) return rle_fail(d, "run header varint longer than 5 bytes");
        uint8_t c = *q++;
        h |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) break;
    }
    uint32_t bw = d->bit_width;
    if (h & 1) {
        uint64_t groups = h >> 1;
        if (groups == 0) return rle_fail(d, "bit-packed run of 0 groups");
        if (groups * 8 > (uint64_t)PQ_ENC_MAX_VALUES)
            return rle_fail(d, "bit-packed run of %llu groups is absurd", (unsigned long long)groups);
        d->p = q;
        size_t avail = (size_t)(d->end - d->p);
        uint64_t need = groups * bw;
        if (need <= avail) {
            d->bp_left = (uint32_t)(groups * 8);
            d->bp_short = 0;
            d->bp_missing = 0;
        } else {
            d->bp_left = (uint32_t)(avail * 8 / bw); /* bw > 0 here since need > avail */
            d->bp_short = 1;
            d->bp_missing = (uint32_t)(groups * 8) - d->bp_left;
        }
        return 0;
    }
    uint64_t count = h >> 1;
    if (count == 0) return rle_fail(d, "RLE run of length 0");
    if (count > (uint64_t)PQ_ENC_MAX_VALUES)
        return rle_fail(d, "RLE run of %llu values is absurd", (unsigned long long)count);
    size_t nb = (bw + 7) / 8;
    if ((size_t)(d->end - q) < nb)
        return rle_fail(d, "RLE run value needs %zu bytes, %td left", nb, d->end - q);
    uint32_t v = 0;
    for (size_t i = 0; i < nb; i++) v |= (uint32_t)q[i] << (8 * i);
    if (bw < 32 && (v >> bw) != 0)
        return rle_fail(d, "RLE run value %u does not fit bit width %u", v, bw);
    d->p = q + nb;
    d->rle_value = v;
    d->rle_left = (uint32_t)count;
    return 0;
}

/* Unpacks the next group of the current bit-packed run into d->grp. */
static void bp_refill(pq_rle_dec *d)
{
    uint32_t bw = d->bit_width;
    uint32_t k = d->bp_left < 8 ? d->bp_left : 8;
    size_t avail = (size_t)(d->end - d->p);
    if (bw == 0) {
        memset(d->grp, 0, sizeof d->grp);
    } else if (avail >= (size_t)bw + 8) {
        unpack_fast[bw](d->p, d->grp);
    } else {
        unpack8_partial(d->p, avail < bw ? avail : bw, bw, d->grp);
    }
    d->p += avail < bw ? avail : bw;
    d->bp_left -= k;
    if (d->bp_left == 0 && d->bp_short) d->p = d->end;
    d->grp_pos = 0;
    d->grp_len = k;
}

/* Whole groups straight into out: g groups, all inside the run. */
static void bp_bulk(pq_rle_dec *d, uint32_t *out, uint32_t g)
{
    uint32_t bw = d->bit_width;
    if (bw == 0) {
        memset(out, 0, (size_t)g * 8 * sizeof *out);
    } else {
        /* groups that keep 8 bytes of slack use 8-byte loads; the rest byte-safe copies */
        size_t avail = (size_t)(d->end - d->p);
        uint32_t fast = avail >= 8 + (size_t)bw ? (uint32_t)((avail - 8) / bw) : 0;
        if (fast > g) fast = g;
        const unpack_fn fn = unpack_fast[bw];
        const uint8_t *p = d->p;
        for (uint32_t i = 0; i < fast; i++, p += bw) fn(p, out + 8 * i);
        for (uint32_t i = fast; i < g; i++, p += bw) pq_unpack8(p, bw, out + 8 * i);
    }
    d->p += (size_t)g * bw;
    d->bp_left -= g * 8;
    if (d->bp_left == 0 && d->bp_short) d->p = d->end;
}

int64_t pq_rle_next(pq_rle_dec *d, uint32_t *out, int64_t n)
{
    assert(n >= 0);
    if (d->status) return d->status;
    int64_t got = 0;
    while (got < n) {
        int64_t want = n - got;
        if (d->grp_pos < d->grp_len) {
            uint32_t k = d->grp_len - d->grp_pos;
            if ((int64_t)k > want) k = (uint32_t)want;
            memcpy(out + got, d->grp + d->grp_pos, k * sizeof *out);
            d->grp_pos += k;
            got += k;
        } else if (d->rle_left) {
            uint32_t k = d->rle_left;
            if ((int64_t)k > want) k = (uint32_t)want;
            uint32_t v = d->rle_value;
            for (uint32_t i = 0; i < k; i++) out[got + i] = v;
            d->rle_left -= k;
            got += k;
        } else if (d->bp_left >= 8 && want >= 8) {
            uint64_t g = (uint64_t)(want / 8);
            if (g > d->bp_left / 8) g = d->bp_left / 8;
            bp_bulk(d, out + got, (uint32_t)g);
            got += (int64_t)g * 8;
        } else if (d->bp_left) {
            bp_refill(d);
        } else {
            if (d->bit_width == 0 && d->end == d->base) { /* bare width 0: all zeros */
                memset(out + got, 0, (size_t)want * sizeof *out);
                got = n;
                break;
            }
            int rc = pq_rle_header(d);
            if (rc < 0) return rc;
            if (rc == 1) break;
        }
    }
    return got;
}

int pq_rle_get(pq_rle_dec *d, uint32_t *out, int64_t n)
{
    int64_t got = pq_rle_next(d, out, n);
    if (got < 0) return (int)got;
    if (got < n)
        return rle_fail(d, "data ends after %llu of %llu values",
                        (unsigned long long)got, (unsigned long long)n);
    return 0;
}

/* The value at bit offset bit of a bit-packed run starting at p (run bytes end at end): one
 * 8-byte load when 8 bytes remain there, else the bytes that are left (the value's own bytes
 * are inside the run: the caller's group is whole). */
static inline uint32_t bp_value_at(const uint8_t *p, const uint8_t *end, uint64_t bit,
                                   uint32_t bw)
{
    const uint8_t *q = p + (bit >> 3);
    uint64_t x = 0;
    if (end - q >= 8) x = load64(q);
    else memcpy(&x, q, (size_t)(end - q));
    return (uint32_t)((x >> (bit & 7)) & ((1ull << bw) - 1));
}

/* Selected rows rows[j..) below lim, 8 at a time: their bit offsets from p, one gather of
 * the 8-byte words holding them, shifts and masks. Stops before a row at or past lim or a
 * load that would pass end (rows rise, so the eighth row's load is the last). Returns the
 * next j. With AVX2 only: the same with a gather of 4-byte words, for widths up to 25 (a
 * value and its bit offset in its first byte fit 32 bits) and runs whose bit offsets fit a
 * signed 32-bit index (Zen3, bench/decode/rle_select.c: 0.7-0.8 ns a selected row where the
 * scalar loop took 1.4-2.3; a one-thread lineitem scan spent 12% of its decompression's time
 * there). Else: j unchanged (the caller's scalar loop does every row). */
static int64_t bp_select8(const uint8_t *p, const uint8_t *end, uint32_t bw, int64_t pos,
                          int64_t lim, const uint32_t *rows, int64_t nsel, int64_t j,
                          uint32_t *out)
{
#if defined(__AVX512F__)
    const __m512i posv = _mm512_set1_epi64(pos), bwv = _mm512_set1_epi64(bw);
    const __m512i seven = _mm512_set1_epi64(7), mask = _mm512_set1_epi64((int64_t)((1ull << bw) - 1));
    for (; j + 8 <= nsel && rows[j + 7] < lim; j += 8) {
        if ((uint64_t)(end - p) < 8 + (((uint64_t)(rows[j + 7] - pos) * bw) >> 3)) break;
        __m512i r = _mm512_cvtepu32_epi64(_mm256_loadu_si256((const void *)(rows + j)));
        __m512i bit = _mm512_mul_epu32(_mm512_sub_epi64(r, posv), bwv); /* < 2^31 * 32 */
        __m512i w = _mm512_i64gather_epi64(_mm512_srli_epi64(bit, 3), (const void *)p, 1);
        __m512i v = _mm512_and_si512(_mm512_srlv_epi64(w, _mm512_and_si512(bit, seven)), mask);
        _mm256_storeu_si256((void *)(out + j), _mm512_cvtepi64_epi32(v));
    }
#elif defined(__AVX2__)
    assert(bw >= 1 && bw <= 32 && pos <= lim);
    if (bw > 25 || (uint64_t)(lim - pos) * bw > (uint64_t)INT32_MAX) return j;
    const __m256i posv = _mm256_set1_epi32((int)pos), bwv = _mm256_set1_epi32((int)bw);
    const __m256i seven = _mm256_set1_epi32(7), mask = _mm256_set1_epi32((int)((1u << bw) - 1));
    for (; j + 8 <= nsel && rows[j + 7] < lim; j += 8) {
        if ((uint64_t)(end - p) < 4 + (((uint64_t)(rows[j + 7] - pos) * bw) >> 3)) break;
        __m256i r = _mm256_loadu_si256((const void *)(rows + j));
        __m256i bit = _mm256_mullo_epi32(_mm256_sub_epi32(r, posv), bwv); /* <= INT32_MAX */
        __m256i w = _mm256_i32gather_epi32((const int *)p, _mm256_srli_epi32(bit, 3), 1);
        __m256i v = _mm256_and_si256(_mm256_srlv_epi32(w, _mm256_and_si256(bit, seven)), mask);
        _mm256_storeu_si256((void *)(out + j), v);
    }
#else
    (void)p, (void)end, (void)bw, (void)pos, (void)lim, (void)rows, (void)nsel, (void)out;
#endif
    return j;
}

/* Selected rows of the next k values, all in whole groups of the current bit-packed run:
 * extracted from the packed bytes (8 at a time where they can be); rows[*j..] at positions
 * >= pos. */
static void bp_select(pq_rle_dec *d, int64_t pos, int64_t k, const uint32_t *rows, int64_t nsel,
                      int64_t *j, uint32_t *out)
{
    uint32_t bw = d->bit_width;
    assert(k % 8 == 0 && k <= d->bp_left && bw > 0);
    int64_t jj = bp_select8(d->p, d->end, bw, pos, pos + k, rows, nsel, *j, out);
    for (; jj < nsel && rows[jj] < pos + k; jj++)
        out[jj] = bp_value_at(d->p, d->end, (uint64_t)(rows[jj] - pos) * bw, bw);
    *j = jj;
    d->p += (size_t)(k / 8) * bw;
    d->bp_left -= (uint32_t)k;
    if (d->bp_left == 0 && d->bp_short) d->p = d->end;
}

int pq_rle_select(pq_rle_dec *d, int64_t n, const uint32_t *rows, int64_t nsel, uint32_t *out)
{
    assert(n >= 0 && nsel >= 0 && (nsel == 0 || rows[nsel - 1] < (uint64_t)n));
    if (d->status) return d->status;
    int rc = 0;
    int64_t pos = 0, j = 0;
    while (pos < n) {
        int64_t want = n - pos, k;
        if (d->grp_pos < d->grp_len || d->rle_left) {
            bool grp = d->grp_pos < d->grp_len;
            k = grp ? d->grp_len - d->grp_pos : d->rle_left;
            if (k > want) k = want;
            for (; j < nsel && rows[j] < pos + k; j++)
                out[j] = grp ? d->grp[d->grp_pos + (rows[j] - pos)] : d->rle_value;
            if (grp) d->grp_pos += (uint32_t)k;
            else d->rle_left -= (uint32_t)k;
        } else if (d->bp_left >= 8 && want >= 8 && d->bit_width > 0) {
            k = (want < d->bp_left ? want : d->bp_left) & ~(int64_t)7;
            bp_select(d, pos, k, rows, nsel, &j, out);
        } else if (d->bp_left) {
            bp_refill(d);
            continue;
        } else if (d->bit_width == 0 && d->end == d->base) { /* bare width 0: all zeros */
            for (; j < nsel; j++) out[j] = 0;
            return 0;
        } else {
            rc = pq_rle_header(d);
            if (rc < 0) return rc;
            if (rc == 1)
                return rle_fail(d, "data ends after %lld of %lld values", (long long)pos,
                                (long long)n);
            continue;
        }
        pos += k;
    }
    assert(j == nsel);
    return 0;
}

int pq_rle_skip(pq_rle_dec *d, int64_t n)
{
    uint32_t tmp[256];
    while (n > 0) {
        int64_t k = n < 256 ? n : 256;
        int rc = pq_rle_get(d, tmp, k);
        if (rc) return rc;
        n -= k;
    }
    return 0;
}

int pq_rle_finish(pq_rle_dec *d)
{
    if (d->status) return d->status;
    if (d->rle_left)
        return rle_fail(d, "an RLE run continues %u values past the page's values", d->rle_left);
    /* A bit-packed run may go on past the last value: DuckDB ends level and index data with
     * a run of whole groups (37 values past the page's 2,048 in one file), pyarrow and
     * DuckDB read such files, so its remaining values are padding, not corruption. */
    if (d->bp_missing) /* its declared groups are not all there: truncated, not padded */
        return rle_fail(d, "a bit-packed run continues %llu values past the page's values",
                        (unsigned long long)d->bp_left + d->bp_missing +
                            (d->grp_len - d->grp_pos));
    if (d->bp_left || d->grp_pos < d->grp_len) return 0;
    if (d->p != d->end && !(d->bit_width == 0 && d->end == d->base))
        return rle_fail(d, "%td bytes of runs continue past the page's values", d->end - d->p);
    return 0;
}

/* ----------------------------------------------------------------- legacy BIT_PACKED (MSB) */

int pq_bitpacked_msb_decode(const uint8_t *buf, size_t len, int bit_width, uint32_t *out,
                            int64_t n, size_t *used, pq_err *err)
{
    *used = 0;
    if (bit_width < 0 || bit_width > 32)
        return pq_errf(err, RINGSCAN_EFORMAT, -1, "BIT_PACKED bit width %d is not in 0..32",
                       bit_width);
    if (n < 0 || n > PQ_ENC_MAX_VALUES)
        return pq_errf(err, RINGSCAN_ELIMIT, -1, "BIT_PACKED count %lld out of range",
                       (long long)n);
    uint64_t bits = (uint64_t)n * (uint64_t)bit_width;
    uint64_t need = (bits + 7) / 8;
    if (need > len)
        return pq_errf(err, RINGSCAN_EFORMAT, -1,
                       "BIT_PACKED levels: %lld values of %d bits need %llu bytes, %zu left",
                       (long long)n, bit_width, (unsigned long long)need, len);
    const uint64_t bw = (uint64_t)bit_width, mask = (1ull << bw) - 1;
    for (int64_t i = 0; i < n && bw; i++) {
        /* value i occupies bits [s, s+bw) counted from the MSB of buf[0] */
        uint64_t s = (uint64_t)i * bw, first = s >> 3, last = (s + bw - 1) >> 3;
        assert(last < need);
        uint64_t w = 0;
        for (uint64_t k = first; k <= last; k++) w = w << 8 | buf[k];
        uint64_t shift = (last - first + 1) * 8 - (s & 7) - bw;
        out[i] = (uint32_t)((w >> shift) & mask);
    }
    if (bw == 0 && n > 0) memset(out, 0, (size_t)n * sizeof *out);
    *used = (size_t)need;
    return 0;
}

/* ------------------------------------------------------------------------------- encoder */

static int put_rle_run(pq_buf *out, uint32_t value, uint64_t count, uint32_t bw)
{
    int rc = pq_enc_put_uvarint(out, count << 1);
    uint8_t v[4] = {(uint8_t)value, (uint8_t)(value >> 8), (uint8_t)(value >> 16),
                    (uint8_t)(value >> 24)};
    if (!rc) rc = pq_buf_append(out, v, (bw + 7) / 8);
    return rc;
}

/* Bit-packs vals[0..n) (n > 0) as ceil(n/8) groups, last group zero padded. */
static int put_bp_run(pq_buf *out, const uint32_t *vals, int64_t n, uint32_t bw)
{
    uint64_t groups = ((uint64_t)n + 7) / 8;
    int rc = pq_enc_put_uvarint(out, groups << 1 | 1);
    if (rc || bw == 0) return rc;
    size_t bytes = (size_t)groups * bw;
    if ((rc = pq_enc_reserve(out, bytes + 8))) return rc;
    uint8_t *dst = out->data + out->len;
    memset(dst, 0, bytes + 8);
    uint64_t acc = 0;
    uint32_t nacc = 0;
    size_t o = 0;
    for (uint64_t i = 0; i < groups * 8; i++) {
        uint64_t v = (int64_t)i < n ? vals[i] : 0;
        acc |= v << nacc;
        nacc += bw;
        while (nacc >= 8) {
            dst[o++] = (uint8_t)acc;
            acc >>= 8;
            nacc -= 8;
        }
    }
    assert(nacc == 0 && o == bytes);
    out->len += bytes;
    return 0;
}

/* Length of the run of equal values at vals[i], counting at most cap. */
static int64_t run_at(const uint32_t *vals, int64_t i, int64_t n, int64_t cap)
{
    int64_t j = i + 1;
    while (j < n && j - i < cap && vals[j] == vals[i]) j++;
    return j - i;
}

int pq_rle_encode(pq_buf *out, const uint32_t *vals, int64_t n, int bit_width)
{
    assert(bit_width >= 0 && bit_width <= 32 && n >= 0);
    uint32_t bw = (uint32_t)bit_width;
    int64_t i = 0;
    while (i < n) {
        int64_t r = run_at(vals, i, n, INT64_MAX);
        if (r >= 8) {
            int rc = put_rle_run(out, vals[i], (uint64_t)r, bw);
            if (rc) return rc;
            i += r;
            continue;
        }
        int64_t start = i;
        while (i < n) { /* literal: stop at a group boundary where 8 equal values start */
            if ((i - start) % 8 == 0 && i > start && run_at(vals, i, n, 8) >= 8) break;
            i++;
        }
        int64_t k = i - start;
        if (i < n) assert(k % 8 == 0);
        int rc = put_bp_run(out, vals + start, k, bw);
        if (rc) return rc;
    }
    return 0;
}

int pq_rle_encode_v1(pq_buf *out, const uint32_t *vals, int64_t n, int bit_width)
{
    uint8_t zero[4] = {0};
    int rc = pq_buf_append(out, zero, 4);
    if (rc) return rc;
    size_t at = out->len;
    if ((rc = pq_rle_encode(out, vals, n, bit_width))) return rc;
    size_t k = out->len - at;
    if (k > UINT32_MAX) return RINGSCAN_ELIMIT;
    for (int i = 0; i < 4; i++) out->data[at - 4 + (size_t)i] = (uint8_t)(k >> (8 * i));
    return 0;
}

int pq_rle_encode_dict(pq_buf *out, const uint32_t *idx, int64_t n, int bit_width)
{
    uint8_t b = (uint8_t)bit_width;
    int rc = pq_buf_append(out, &b, 1);
    return rc ? rc : pq_rle_encode(out, idx, n, bit_width);
}
