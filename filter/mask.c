/* filter/mask.c: word-level bit mask operations (see mask.h for the invariants).
 * Every loop runs over whole words; only the *_range functions touch partial words. */
#include "filter/mask.h"
#include "common/bits.h"
#include "common/fail.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

int flt_mask_init(flt_mask *m, int64_t len, bool value)
{
    assert(m && len >= 0 && len <= FLT_MASK_MAX_LEN);
    int64_t nw = flt_mask_nwords(len);
    if (nw > m->cap_words) {
        int64_t cap = nw < 4 ? 4 : nw;
        uint64_t *w = fail_malloc((size_t)cap * sizeof *w);
        if (!w) return -ENOMEM;
        if (m->cap_words > 0) free(m->words);
        m->words = w;
        m->cap_words = cap;
    }
    m->len = len;
    if (nw > 0) {
        memset(m->words, value ? 0xff : 0, (size_t)nw * sizeof *m->words);
        m->words[nw - 1] &= flt_mask_tail(len);
    }
    return 0;
}

void flt_mask_free(flt_mask *m)
{
    assert(m);
    if (m->cap_words > 0) free(m->words);
    memset(m, 0, sizeof *m);
}

int flt_mask_copy(flt_mask *dst, const flt_mask *src)
{
    assert(dst && src && dst != src);
    int rc = flt_mask_init(dst, src->len, false);
    if (rc) return rc;
    int64_t nw = flt_mask_nwords(src->len);
    if (nw) memcpy(dst->words, src->words, (size_t)nw * sizeof *src->words);
    return 0;
}

/* 64 bits of m from bit pos on (bits past the last word read as 0). */
static uint64_t bits_at(const flt_mask *m, int64_t pos)
{
    int64_t w = pos >> 6, nw = flt_mask_nwords(m->len);
    int sh = (int)(pos & 63);
    uint64_t lo = w < nw ? m->words[w] >> sh : 0;
    uint64_t hi = sh && w + 1 < nw ? m->words[w + 1] << (64 - sh) : 0;
    return lo | hi;
}

void flt_mask_copy_bits(flt_mask *dst, int64_t at, const flt_mask *src, int64_t from, int64_t n)
{
    assert(dst && src && dst != src && n >= 0);
    assert(0 <= at && at + n <= dst->len && 0 <= from && from + n <= src->len);
    for (int64_t i = 0; i < n;) {
        int64_t d = at + i, w = d >> 6;
        int sh = (int)(d & 63);
        int64_t take = 64 - sh < n - i ? 64 - sh : n - i;
        uint64_t keep = take == 64 ? ~UINT64_C(0) : (UINT64_C(1) << take) - 1;
        uint64_t bits = bits_at(src, from + i) & keep;
        dst->words[w] = (dst->words[w] & ~(keep << sh)) | (bits << sh);
        i += take;
    }
}

int flt_mask_slice(flt_mask *dst, const flt_mask *src, int64_t from, int64_t to)
{
    assert(dst && src && dst != src && 0 <= from && from <= to && to <= src->len);
    int rc = flt_mask_init(dst, to - from, false);
    if (rc == 0) flt_mask_copy_bits(dst, 0, src, from, to - from);
    return rc;
}

void flt_mask_from_bytes(flt_mask *m, const uint8_t *bytes)
{
    assert(m);
    int64_t nw = flt_mask_nwords(m->len);
    if (nw == 0) return;
    if (!bytes) {
        memset(m->words, 0xff, (size_t)nw * 8);
    } else {
        int64_t nb = (m->len + 7) >> 3;
        m->words[nw - 1] = 0;
        memcpy(m->words, bytes, (size_t)nb); /* little-endian: invariant 1 */
    }
    m->words[nw - 1] &= flt_mask_tail(m->len);
}

void flt_mask_and(flt_mask *dst, const flt_mask *src)
{
    assert(dst && src && dst->len == src->len);
    int64_t nw = flt_mask_nwords(dst->len);
    for (int64_t i = 0; i < nw; i++) dst->words[i] &= src->words[i];
}

void flt_mask_or(flt_mask *dst, const flt_mask *src)
{
    assert(dst && src && dst->len == src->len);
    int64_t nw = flt_mask_nwords(dst->len);
    for (int64_t i = 0; i < nw; i++) dst->words[i] |= src->words[i];
}

void flt_mask_andnot(flt_mask *dst, const flt_mask *src)
{
    assert(dst && src && dst->len == src->len);
    int64_t nw = flt_mask_nwords(dst->len);
    for (int64_t i = 0; i < nw; i++) dst->words[i] &= ~src->words[i];
}

void flt_mask_not(flt_mask *m)
{
    assert(m);
    int64_t nw = flt_mask_nwords(m->len);
    for (int64_t i = 0; i < nw; i++) m->words[i] = ~m->words[i];
    if (nw > 0) m->words[nw - 1] &= flt_mask_tail(m->len);
}

int64_t flt_mask_popcount(const flt_mask *m)
{
    assert(m);
    int64_t nw = flt_mask_nwords(m->len), c = 0;
    for (int64_t i = 0; i < nw; i++) c += __builtin_popcountll(m->words[i]);
    assert(c <= m->len);
    return c;
}

bool flt_mask_all_false(const flt_mask *m)
{
    assert(m);
    int64_t nw = flt_mask_nwords(m->len);
    uint64_t acc = 0;
    for (int64_t i = 0; i < nw; i++) acc |= m->words[i];
    return acc == 0;
}

bool flt_mask_all_true(const flt_mask *m)
{
    assert(m);
    int64_t nw = flt_mask_nwords(m->len);
    if (nw == 0) return true;
    uint64_t acc = ~UINT64_C(0);
    for (int64_t i = 0; i + 1 < nw; i++) acc &= m->words[i];
    return acc == ~UINT64_C(0) && m->words[nw - 1] == flt_mask_tail(m->len);
}

void flt_mask_set_range(flt_mask *m, int64_t from, int64_t to, bool value)
{
    assert(m && 0 <= from && from <= to && to <= m->len);
    if (from == to) return;
    int64_t wf = from >> 6, wl = (to - 1) >> 6;
    uint64_t first = ~UINT64_C(0) << (from & 63);
    uint64_t last = flt_mask_tail(to);
    for (int64_t w = wf; w <= wl; w++) {
        uint64_t bits = ~UINT64_C(0);
        if (w == wf) bits &= first;
        if (w == wl) bits &= last;
        m->words[w] = value ? (m->words[w] | bits) : (m->words[w] & ~bits);
    }
}

int64_t flt_mask_select(const flt_mask *m, uint32_t *out, int64_t cap)
{
    assert(m && (out || cap == 0) && m->len <= (int64_t)UINT32_MAX + 1);
    int64_t nw = flt_mask_nwords(m->len), k = 0;
    for (int64_t w = 0; w < nw; w++) {
        uint64_t bits = m->words[w];
        int64_t cnt = __builtin_popcountll(bits);
        if (k + cnt + 8 <= cap) { /* room for the word's rows and 8 more */
            k += bits_rows_wide(bits, (uint32_t)(w << 6), out + k);
            continue;
        }
        if (k + cnt <= cap) { /* room for the word's rows */
            k += bits_rows(bits, (uint32_t)(w << 6), out + k);
            continue;
        }
        for (; bits; bits &= bits - 1, k++)
            if (k < cap) out[k] = (uint32_t)((w << 6) + __builtin_ctzll(bits));
    }
    return k;
}

/* Word w of m restricted to bits [from, to) (w must overlap the range). */
static uint64_t word_in_range(const flt_mask *m, int64_t w, int64_t from, int64_t to)
{
    uint64_t bits = m->words[w];
    if (w == from >> 6) bits &= ~UINT64_C(0) << (from & 63);
    if (w == (to - 1) >> 6) bits &= flt_mask_tail(to);
    return bits;
}

int64_t flt_mask_count_range(const flt_mask *m, int64_t from, int64_t to)
{
    assert(m && 0 <= from && from <= to && to <= m->len);
    int64_t n = 0;
    for (int64_t w = from >> 6; from < to && w <= (to - 1) >> 6; w++)
        n += __builtin_popcountll(word_in_range(m, w, from, to));
    return n;
}

bool flt_mask_any_range(const flt_mask *m, int64_t from, int64_t to)
{
    assert(m && 0 <= from && from <= to && to <= m->len);
    for (int64_t w = from >> 6; from < to && w <= (to - 1) >> 6; w++)
        if (word_in_range(m, w, from, to)) return true;
    return false;
}

int64_t flt_mask_select_range(const flt_mask *m, int64_t from, int64_t to, uint32_t *out)
{
    assert(m && out && 0 <= from && from <= to && to <= m->len);
    int64_t k = 0;
    for (int64_t w = from >> 6; from < to && w <= (to - 1) >> 6; w++)
        k += bits_rows(word_in_range(m, w, from, to), (uint32_t)((w << 6) - from), out + k);
    assert(k <= to - from);
    return k;
}
