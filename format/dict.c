/* format/dict.c: dictionary pages (decode), index -> value gathering, and the writer's
 * dictionary builder.
 *
 * Invariants:
 *  1. Every index is checked against the dictionary size before any value is copied: a first
 *     pass takes the maximum index (branch-free), a second copies unchecked.
 *  2. BYTE_ARRAY gathers sum the selected lengths first and check the int32 offset limit, then
 *     reserve once: no per-value allocation.
 *  3. Builder: slots has nslots (a power of two) entries, at most half used; slots[h] holds
 *     index+1 of a distinct value or 0. values.length == number of distinct values.
 *  4. Builder limits: plain_bytes (the PLAIN size of the dictionary page) <= max_bytes and
 *     values.length <= max_values at all times.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/encoding.h"
#include "common/fail.h"

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

int pq_dict_decode_page(const uint8_t *buf, size_t len, int64_t num_values, pq_vec *dict,
                        pq_err *err)
{
    if (dict->type == PQ_BOOLEAN)
        return pq_errf(err, RINGSCAN_EFORMAT, -1, "dictionary page for a BOOLEAN column");
    if (num_values < 0 || num_values > PQ_ENC_MAX_VALUES)
        return pq_errf(err, RINGSCAN_EFORMAT, -1, "dictionary page with %lld values",
                       (long long)num_values);
    pq_vec_clear(dict);
    size_t used = 0;
    int rc = pq_plain_decode(buf, len, num_values, dict, &used, err);
    if (rc == 0 && used != len) { /* leftover bytes: the count or a length is corrupt */
        pq_vec_clear(dict);
        rc = pq_errf(err, RINGSCAN_EFORMAT, -1, "PLAIN: %lld values end at byte %zu of %zu",
                     (long long)num_values, used, len);
    }
    if (rc && err) {
        char m[sizeof err->msg];
        memcpy(m, err->msg, sizeof m);
        pq_errf(err, rc, -1, "dictionary page: %s", m);
    }
    return rc;
}

/* Maximum of idx[0..n) (0 when n == 0). */
static uint32_t max_index(const uint32_t *idx, int64_t n)
{
    uint32_t m = 0;
    for (int64_t i = 0; i < n; i++) m = idx[i] > m ? idx[i] : m;
    return m;
}

static int bad_index(const uint32_t *idx, int64_t n, int64_t size, pq_err *err)
{
    int64_t i = 0;
    while (i < n && (int64_t)idx[i] < size) i++;
    assert(i < n);
    return pq_errf(err, RINGSCAN_EFORMAT, -1,
                   "dictionary index %u out of range (dictionary has %lld values)", idx[i],
                   (long long)size);
}

static int gather_ba(const pq_vec *dict, const uint32_t *idx, int64_t n, pq_vec *out,
                     pq_err *err)
{
    const int32_t *doff = dict->offsets;
    uint64_t total = 0;
    for (int64_t i = 0; i < n; i++) total += (uint64_t)(doff[idx[i] + 1] - doff[idx[i]]);
    if (total > (uint64_t)(PQ_ENC_MAX_BYTES - out->data_len))
        return pq_errf(err, RINGSCAN_ELIMIT, -1,
                       "dictionary gather: BYTE_ARRAY batch passes %lld bytes",
                       (long long)PQ_ENC_MAX_BYTES);
    int rc = pq_vec_reserve(out, n, (int64_t)total + PQ_BA_SLACK);
    if (rc) return rc;
    int32_t *off = out->offsets + out->length;
    int32_t cur = (int32_t)out->data_len;
    if (out->length == 0) off[0] = 0;
    for (int64_t i = 0; i < n; i++) { /* the dictionary's bytes may be read up to data_cap */
        int32_t a = doff[idx[i]], l = doff[idx[i] + 1] - a;
        if (!dict->data) { /* every value empty (l == 0): no bytes, and no pointer from NULL */
            off[i + 1] = cur;
            continue;
        }
        pq_ba_copy(out->data + cur, dict->data + a, (uint32_t)l,
                   (size_t)(dict->data_cap > a ? dict->data_cap - a : 0));
        cur += l;
        off[i + 1] = cur;
    }
    out->data_len = cur;
    out->length += n;
    return 0;
}

/* Dictionaries of at most 16 values of 8 bytes or 32 of 4 bytes: held in two vector
 * registers, 8 or 16 indices looked up by one two-table permute instead of a load each
 * (pq_dict_gather was 9% of a one-thread expr_arith scan, four columns of 7-50 values, 6.6%
 * after; bench/RESULTS.md's twentieth session). Indices were checked (invariant 1); a permute
 * reads only their low 4 or 5 bits. Returns the rows done (a multiple of 8 or 16; the
 * caller's loop takes the rest), 0 when the dictionary does not fit. */
#if defined(__AVX512F__)
static int64_t gather_small(const pq_vec *dict, int32_t w, const uint32_t *idx, int64_t n,
                            uint8_t *dst)
{
    int64_t i = 0;
    uint8_t tab[128] = {0};
    if ((w != 4 && w != 8) || dict->length * w > (int64_t)sizeof tab) return 0;
    memcpy(tab, dict->values, (size_t)(dict->length * w));
    __m512i lo = _mm512_loadu_si512(tab), hi = _mm512_loadu_si512(tab + 64);
    if (w == 8) {
        for (; i + 8 <= n; i += 8) {
            __m512i ix = _mm512_cvtepu32_epi64(_mm256_loadu_si256((const void *)(idx + i)));
            _mm512_storeu_si512(dst + i * 8, _mm512_permutex2var_epi64(lo, ix, hi));
        }
        return i;
    }
    for (; i + 16 <= n; i += 16) {
        __m512i ix = _mm512_loadu_si512(idx + i);
        _mm512_storeu_si512(dst + i * 4, _mm512_permutex2var_epi32(lo, ix, hi));
    }
    return i;
}
#elif defined(__AVX2__)
enum { SMALL_MAX = 16 }; /* values in two 8-lane registers */

/* The 32-bit table of dict (at most SMALL_MAX values of w bytes) into tab[SMALL_MAX]: 4-byte
 * values as they are, 8-byte ones when every value is a sign-extended int32 (decimals' cents,
 * small keys); false when they are not. */
static bool small_table(const pq_vec *dict, int32_t w, int32_t tab[SMALL_MAX])
{
    assert(dict->length >= 0 && dict->length <= SMALL_MAX);
    memset(tab, 0, SMALL_MAX * sizeof *tab);
    if (w == 4) {
        memcpy(tab, dict->values, (size_t)dict->length * 4);
        return true;
    }
    for (int64_t k = 0; k < dict->length; k++) {
        int64_t v;
        memcpy(&v, dict->values + k * 8, 8);
        if (v != (int32_t)v) return false;
        tab[k] = (int32_t)v;
    }
    return true;
}

/* Table t0:t1's values at 8 indices (below SMALL_MAX): each 8-value half looked up by one
 * vpermd, bit 3 of the index picking the half. */
static inline __m256i lookup8(__m256i t0, __m256i t1, const uint32_t *idx)
{
    __m256i ix = _mm256_loadu_si256((const void *)idx);
    __m256 hi = _mm256_castsi256_ps(_mm256_slli_epi32(ix, 28)); /* bit 3 to the sign */
    __m256 a = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(t0, ix));
    __m256 b = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(t1, ix));
    return _mm256_castps_si256(_mm256_blendv_ps(a, b, hi));
}

/* AVX2 (no two-table permute): 8 indices at a time through lookup8; 8-byte values are
 * widened by sign. A load per value took 1.2-2x (8-byte) and 3-5x (4-byte) the time of this
 * in a micro bench on this Zen 3 (vpgatherdq and vpgatherdd were slower than the loads). */
static int64_t gather_small(const pq_vec *dict, int32_t w, const uint32_t *idx, int64_t n,
                            uint8_t *dst)
{
    int32_t tab[SMALL_MAX];
    if ((w != 4 && w != 8) || dict->length > SMALL_MAX || !small_table(dict, w, tab)) return 0;
    __m256i t0 = _mm256_loadu_si256((const void *)tab);
    __m256i t1 = _mm256_loadu_si256((const void *)(tab + 8));
    int64_t i = 0;
    if (w == 4) {
        for (; i + 8 <= n; i += 8) _mm256_storeu_si256((void *)(dst + i * 4), lookup8(t0, t1, idx + i));
        return i;
    }
    for (; i + 8 <= n; i += 8) {
        __m256i v = lookup8(t0, t1, idx + i);
        _mm256_storeu_si256((void *)(dst + i * 8), _mm256_cvtepi32_epi64(_mm256_castsi256_si128(v)));
        _mm256_storeu_si256((void *)(dst + i * 8 + 32),
                            _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1)));
    }
    return i;
}
#else
static int64_t gather_small(const pq_vec *dict, int32_t w, const uint32_t *idx, int64_t n,
                            uint8_t *dst)
{
    (void)dict, (void)w, (void)idx, (void)n, (void)dst;
    return 0;
}
#endif

static int gather_fixed(const pq_vec *dict, const uint32_t *idx, int64_t n, pq_vec *out)
{
    int32_t w = pq_fixed_width(dict->type, dict->type_length);
    assert(w > 0);
    int rc = pq_vec_reserve(out, n, 0);
    if (rc) return rc;
    uint8_t *dst = out->values + out->length * w;
    int64_t done = gather_small(dict, w, idx, n, dst);
    assert(done >= 0 && done <= n);
    if (w == 4) {
        const uint32_t *src = (const uint32_t *)(const void *)dict->values;
        uint32_t *d = (uint32_t *)(void *)dst;
        for (int64_t i = done; i < n; i++) d[i] = src[idx[i]];
    } else if (w == 8) {
        const uint64_t *src = (const uint64_t *)(const void *)dict->values;
        uint64_t *d = (uint64_t *)(void *)dst;
        for (int64_t i = done; i < n; i++) d[i] = src[idx[i]];
    } else {
        for (int64_t i = 0; i < n; i++)
            memcpy(dst + i * w, dict->values + (int64_t)idx[i] * w, (size_t)w);
    }
    out->length += n;
    return 0;
}

int pq_dict_gather(const pq_vec *dict, const uint32_t *idx, int64_t n, pq_vec *out,
                   pq_err *err)
{
    assert(n >= 0);
    if (dict->type != out->type || dict->type_length != out->type_length)
        return pq_errf(err, RINGSCAN_EFORMAT, -1, "dictionary type %d does not match column %d",
                       (int)dict->type, (int)out->type);
    if (dict->type == PQ_BOOLEAN)
        return pq_errf(err, RINGSCAN_EFORMAT, -1, "dictionary encoding for a BOOLEAN column");
    if (n == 0) return 0;
    if ((int64_t)max_index(idx, n) >= dict->length) return bad_index(idx, n, dict->length, err);
    if (dict->type == PQ_BYTE_ARRAY) return gather_ba(dict, idx, n, out, err);
    return gather_fixed(dict, idx, n, out);
}

int pq_dict_decode(const pq_vec *dict, pq_rle_dec *d, int64_t n, pq_vec *out, pq_err *err)
{
    uint32_t idx[1024];
    int64_t start = out->length;
    while (n > 0) {
        int64_t k = n < 1024 ? n : 1024;
        int rc = pq_rle_get(d, idx, k);
        if (!rc) rc = pq_dict_gather(dict, idx, k, out, err);
        if (rc) {
            out->length = start; /* invariant 3 of encoding.h: nothing appended on error */
            if (out->type == PQ_BYTE_ARRAY && out->offsets) out->data_len = out->offsets[start];
            return rc;
        }
        n -= k;
    }
    return 0;
}

/* ------------------------------------------------------------------------------- builder */

static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ (n * 0xff51afd7ed558ccdull);
    while (n >= 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        h = (h ^ (x * 0xc2b2ae3d27d4eb4full)) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
        p += 8, n -= 8;
    }
    uint64_t x = 0;
    memcpy(&x, p, n);
    h = (h ^ (x * 0xc2b2ae3d27d4eb4full)) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 32;
    return h;
}

int pq_dictb_init(pq_dict_builder *b, pq_physical type, int32_t type_length, int64_t max_bytes,
                  int64_t max_values)
{
    memset(b, 0, sizeof *b);
    if (type == PQ_BOOLEAN) return RINGSCAN_EUNSUPPORTED;
    assert(max_bytes >= 0 && max_values >= 0);
    pq_vec_init(&b->values, type, type_length);
    b->max_bytes = max_bytes;
    b->max_values = max_values < PQ_ENC_MAX_VALUES / 4 ? max_values : PQ_ENC_MAX_VALUES / 4;
    b->nslots = 1024;
    b->slots = fail_calloc(b->nslots, sizeof *b->slots);
    b->hashes = fail_malloc(512 * sizeof *b->hashes);
    if (!b->slots || !b->hashes) {
        pq_dictb_free(b);
        return -ENOMEM;
    }
    return 0;
}

static int dictb_grow(pq_dict_builder *b)
{
    uint32_t ns = b->nslots * 2;
    uint32_t *slots = fail_calloc(ns, sizeof *slots);
    uint64_t *hashes = fail_realloc(b->hashes, (size_t)(ns / 2) * sizeof *hashes);
    if (!slots || !hashes) {
        free(slots);
        if (hashes) b->hashes = hashes;
        return -ENOMEM;
    }
    b->hashes = hashes;
    for (int64_t i = 0; i < b->values.length; i++) {
        uint32_t h = (uint32_t)hashes[i] & (ns - 1);
        while (slots[h]) h = (h + 1) & (ns - 1);
        slots[h] = (uint32_t)i + 1;
    }
    free(b->slots);
    b->slots = slots;
    b->nslots = ns;
    return 0;
}

/* Value i of v as bytes. */
static const uint8_t *value_at(const pq_vec *v, int64_t i, int32_t w, size_t *n)
{
    static const uint8_t empty[1];
    if (v->type == PQ_BYTE_ARRAY) {
        *n = (size_t)(v->offsets[i + 1] - v->offsets[i]);
        return *n ? v->data + v->offsets[i] : empty; /* data is NULL when all are empty */
    }
    *n = (size_t)w;
    return v->values + i * w;
}

/* Finds or inserts one value. 0 with *out_idx, ELIMIT when full, -ENOMEM. */
static int dictb_one(pq_dict_builder *b, const uint8_t *p, size_t n, int32_t w, uint32_t *out_idx)
{
    if ((uint64_t)(b->values.length + 1) * 2 > b->nslots) {
        int rc = dictb_grow(b); /* keeps invariant 3 and room in hashes[] */
        if (rc) return rc;
    }
    uint64_t h = hash_bytes(p, n);
    uint32_t mask = b->nslots - 1, s = (uint32_t)h & mask;
    for (; b->slots[s]; s = (s + 1) & mask) {
        uint32_t i = b->slots[s] - 1;
        if (b->hashes[i] != h) continue;
        size_t m;
        const uint8_t *q = value_at(&b->values, i, w, &m);
        if (m == n && (n == 0 || memcmp(p, q, n) == 0)) {
            *out_idx = i;
            return 0;
        }
    }
    int64_t plain = (int64_t)n + (b->values.type == PQ_BYTE_ARRAY ? 4 : 0);
    if (b->values.length + 1 > b->max_values || b->plain_bytes + plain > b->max_bytes)
        return RINGSCAN_ELIMIT;
    pq_vec *v = &b->values;
    int rc = pq_vec_reserve(v, 1, (int64_t)n);
    if (rc) return rc;
    if (v->type == PQ_BYTE_ARRAY) {
        if (v->length == 0) v->offsets[0] = 0;
        if (n) memcpy(v->data + v->data_len, p, n);
        v->data_len += (int64_t)n;
        v->offsets[v->length + 1] = (int32_t)v->data_len;
    } else {
        memcpy(v->values + v->length * w, p, n);
    }
    uint32_t i = (uint32_t)v->length++;
    b->hashes[i] = h;
    b->slots[s] = i + 1;
    b->plain_bytes += plain;
    *out_idx = i;
    return 0;
}

int pq_dictb_add(pq_dict_builder *b, const pq_vec *v, int64_t start, int64_t n, uint32_t *idx,
                 int64_t *n_idx, int64_t *rows_done)
{
    assert(v->type == b->values.type && start >= 0 && start + n <= v->length);
    int32_t w = pq_fixed_width(v->type, v->type_length);
    int64_t k = 0, r = 0;
    int rc = 0;
    for (; r < n; r++) {
        if (!pq_vec_is_valid(v, start + r)) continue;
        size_t m;
        const uint8_t *p = value_at(v, start + r, w, &m);
        if ((rc = dictb_one(b, p, m, w, &idx[k]))) break;
        k++;
    }
    *n_idx = k;
    *rows_done = r;
    return rc;
}

int pq_dictb_write(const pq_dict_builder *b, pq_buf *out)
{
    return pq_plain_encode(out, &b->values, 0, b->values.length, false);
}

void pq_dictb_free(pq_dict_builder *b)
{
    pq_vec_free(&b->values);
    free(b->slots);
    free(b->hashes);
    b->slots = NULL;
    b->hashes = NULL;
    b->nslots = 0;
}
