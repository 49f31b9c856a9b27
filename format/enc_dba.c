/* format/enc_dba.c: DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY (for BYTE_ARRAY and
 * FIXED_LEN_BYTE_ARRAY), decoders and encoders.
 *
 * Layout: DLBA = DELTA_BINARY_PACKED lengths, then all value bytes back to back. DBA =
 * DELTA_BINARY_PACKED prefix lengths, then a DLBA of the suffixes; value i = the first
 * prefix[i] bytes of value i-1 followed by suffix i.
 *
 * Invariants:
 *  1. init validates every length before the first value: lengths >= 0; DBA prefix[i] <= the
 *     length of value i-1 (prefix[0] == 0); the two DBA counts agree; the suffix bytes fit
 *     what follows the lengths. No allocation is sized from a header: prev is sized by the
 *     longest value, itself bounded by the suffix bytes present.
 *  2. next therefore copies without per-value bounds checks; it checks only the output limits
 *     (int32 offsets, FLBA width) per chunk, before writing.
 *  3. prev holds value pos-1 (prev_len bytes) between calls.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/encoding.h"
#include "common/fail.h"

#define CHUNK 256

static const char *dname(const pq_dba_dec *d)
{
    return d->has_prefix ? "DELTA_BYTE_ARRAY" : "DELTA_LENGTH_BYTE_ARRAY";
}

/* Pass over a copy of a length decoder: each length >= 0; *sum; *end = bytes used. */
static int scan_lengths(pq_dba_dec *d, const pq_delta_dec *src, const char *what, int64_t *sum,
                        size_t *end)
{
    pq_delta_dec t = *src;
    int32_t l[CHUNK];
    int64_t s = 0, i = 0;
    while (t.done < t.total) {
        int64_t k = pq_delta_next(&t, l, CHUNK);
        if (k < 0) return (int)k;
        for (int64_t j = 0; j < k; j++, i++) {
            if (l[j] < 0)
                return pq_errf(d->err, RINGSCAN_EFORMAT, -1, "%s: %s %d of value %lld is negative",
                               dname(d), what, l[j], (long long)i);
            s += l[j];
        }
    }
    *sum = s;
    *end = pq_delta_used(&t);
    return 0;
}

static int data_fits(pq_dba_dec *d, const uint8_t *data, int64_t sum)
{
    d->data = data;
    if (sum > d->end - data)
        return pq_errf(d->err, RINGSCAN_EFORMAT, -1,
                       "%s: value bytes %lld exceed the %td bytes after the lengths", dname(d),
                       (long long)sum, d->end - data);
    return 0;
}

int pq_dlba_init(pq_dba_dec *d, const uint8_t *buf, size_t len, int64_t max_values, pq_err *err)
{
    memset(d, 0, sizeof *d);
    d->base = buf;
    d->end = len ? buf + len : buf; /* buf may be NULL when len == 0 */
    d->err = err;
    int rc = pq_delta_init(&d->lens, buf, len, true, max_values, err);
    int64_t sum = 0;
    size_t used = 0;
    if (!rc) rc = scan_lengths(d, &d->lens, "length", &sum, &used);
    if (!rc) rc = data_fits(d, buf + used, sum);
    d->count = d->lens.total;
    return rc;
}

/* Lockstep pass over prefixes and suffix lengths: prefix[i] <= len(value i-1); *maxlen. */
static int scan_prefixes(pq_dba_dec *d, int64_t *maxlen)
{
    pq_delta_dec p = d->prefix, s = d->lens;
    int32_t pl[CHUNK], sl[CHUNK];
    int64_t prev = 0, max = 0, i = 0;
    while (p.done < p.total) {
        int64_t k = pq_delta_next(&p, pl, CHUNK), k2 = pq_delta_next(&s, sl, CHUNK);
        if (k < 0) return (int)k;
        if (k2 < 0) return (int)k2;
        assert(k == k2);
        for (int64_t j = 0; j < k; j++, i++) {
            if (pl[j] > prev)
                return pq_errf(d->err, RINGSCAN_EFORMAT, -1,
                               "DELTA_BYTE_ARRAY: prefix length %d of value %lld exceeds the "
                               "previous value's length %lld",
                               pl[j], (long long)i, (long long)prev);
            prev = (int64_t)pl[j] + sl[j];
            max = prev > max ? prev : max;
        }
    }
    *maxlen = max;
    return 0;
}

int pq_dba_init(pq_dba_dec *d, const uint8_t *buf, size_t len, int64_t max_values, pq_err *err)
{
    memset(d, 0, sizeof *d);
    d->base = buf;
    d->end = len ? buf + len : buf; /* buf may be NULL when len == 0 */
    d->err = err;
    d->has_prefix = true;
    int64_t psum = 0, ssum = 0, maxlen = 0;
    size_t pend = 0, send = 0;
    int rc = pq_delta_init(&d->prefix, buf, len, true, max_values, err);
    if (!rc) rc = scan_lengths(d, &d->prefix, "prefix length", &psum, &pend);
    if (!rc) rc = pq_delta_init(&d->lens, buf + pend, len - pend, true, max_values, err);
    if (rc) return rc;
    if (d->lens.total != d->prefix.total)
        return pq_errf(err, RINGSCAN_EFORMAT, -1,
                       "DELTA_BYTE_ARRAY: %lld prefix lengths but %lld suffix lengths",
                       (long long)d->prefix.total, (long long)d->lens.total);
    if ((rc = scan_lengths(d, &d->lens, "suffix length", &ssum, &send))) return rc;
    if ((rc = data_fits(d, buf + pend + send, ssum))) return rc;
    if ((rc = scan_prefixes(d, &maxlen))) return rc;
    assert(maxlen <= ssum);
    d->count = d->lens.total;
    d->prev_cap = maxlen > 0 ? maxlen : 1;
    d->prev = fail_malloc((size_t)d->prev_cap);
    return d->prev ? 0 : -ENOMEM;
}

/* Decodes the next k prefix / suffix lengths (validated at init, so exactly k). */
static int next_lengths(pq_dba_dec *d, int32_t *pl, int32_t *sl, int64_t k)
{
    int64_t got = pq_delta_next(&d->lens, sl, k);
    if (got != k) return got < 0 ? (int)got : RINGSCAN_EFORMAT;
    if (!d->has_prefix) {
        memset(pl, 0, (size_t)k * sizeof *pl);
        return 0;
    }
    got = pq_delta_next(&d->prefix, pl, k);
    return got == k ? 0 : got < 0 ? (int)got : RINGSCAN_EFORMAT;
}

/* Writes k values to dst rows (BYTE_ARRAY: out data; FLBA: out values) after checks. */
static int emit_chunk(pq_dba_dec *d, const int32_t *pl, const int32_t *sl, int64_t k, pq_vec *out)
{
    bool ba = out->type == PQ_BYTE_ARRAY;
    int32_t w = out->type_length;
    int64_t bytes = 0;
    for (int64_t i = 0; i < k; i++) {
        int64_t l = (int64_t)pl[i] + sl[i];
        if (!ba && l != w)
            return pq_errf(d->err, RINGSCAN_EFORMAT, -1,
                           "%s: value %lld has %lld bytes, FIXED_LEN_BYTE_ARRAY(%d) expected",
                           dname(d), (long long)(d->pos + i), (long long)l, (int)w);
        bytes += l;
    }
    if (ba && bytes > PQ_ENC_MAX_BYTES - out->data_len)
        return pq_errf(d->err, RINGSCAN_ELIMIT, -1, "%s: batch passes %lld bytes", dname(d),
                       (long long)PQ_ENC_MAX_BYTES);
    int rc = pq_vec_reserve(out, k, ba ? bytes + 1 : 0); /* +1: data is never NULL below */
    if (rc) return rc;
    uint8_t *dst = ba ? out->data + out->data_len : out->values + out->length * w;
    if (ba && out->length == 0) out->offsets[0] = 0;
    const uint8_t *prev = d->prev;
    for (int64_t i = 0; i < k; i++) {
        if (pl[i]) memcpy(dst, prev, (size_t)pl[i]);
        if (sl[i]) memcpy(dst + pl[i], d->data, (size_t)sl[i]);
        d->data += sl[i];
        prev = dst;
        dst += pl[i] + sl[i];
        if (ba) out->offsets[out->length + i + 1] = (int32_t)(dst - out->data);
    }
    if (d->has_prefix && k > 0) { /* invariant 3 */
        d->prev_len = (int64_t)pl[k - 1] + sl[k - 1];
        assert(d->prev_len <= d->prev_cap);
        memmove(d->prev, prev, (size_t)d->prev_len);
    }
    if (ba) out->data_len += bytes;
    out->length += k;
    d->pos += k;
    return 0;
}

int pq_dba_next(pq_dba_dec *d, int64_t n, pq_vec *out)
{
    if (out->type != PQ_BYTE_ARRAY && out->type != PQ_FIXED_LEN_BYTE_ARRAY)
        return pq_errf(d->err, RINGSCAN_EFORMAT, -1, "%s for physical type %d", dname(d),
                       (int)out->type);
    if (n < 0 || n > d->count - d->pos)
        return pq_errf(d->err, RINGSCAN_EFORMAT, -1, "%s: %lld values asked, %lld left",
                       dname(d), (long long)n, (long long)(d->count - d->pos));
    int64_t len0 = out->length, data0 = out->data_len;
    int32_t pl[CHUNK], sl[CHUNK];
    while (n > 0) {
        int64_t k = n < CHUNK ? n : CHUNK;
        int rc = next_lengths(d, pl, sl, k);
        if (!rc) rc = emit_chunk(d, pl, sl, k, out);
        if (rc) {
            out->length = len0, out->data_len = data0;
            d->pos = d->count; /* state is no longer in step: refuse further values */
            return rc;
        }
        n -= k;
    }
    return 0;
}

void pq_dba_free(pq_dba_dec *d)
{
    free(d->prev);
    d->prev = NULL;
    d->prev_cap = d->prev_len = 0;
}

/* ------------------------------------------------------------------------------ encoders */

/* Collects the non-null values of rows [start, start+n): pointers and lengths. */
static int collect(const pq_vec *v, int64_t start, int64_t n, const uint8_t ***ptrs,
                   int32_t **lens, int64_t *count)
{
    assert(v->type == PQ_BYTE_ARRAY || v->type == PQ_FIXED_LEN_BYTE_ARRAY);
    *ptrs = fail_malloc((size_t)(n > 0 ? n : 1) * sizeof **ptrs);
    *lens = fail_malloc((size_t)(n > 0 ? n : 1) * sizeof **lens);
    if (!*ptrs || !*lens) return -ENOMEM;
    int64_t k = 0;
    for (int64_t i = start; i < start + n; i++) {
        if (!pq_vec_is_valid(v, i)) continue;
        if (v->type == PQ_BYTE_ARRAY) {
            (*lens)[k] = v->offsets[i + 1] - v->offsets[i];
            (*ptrs)[k] = (*lens)[k] ? v->data + v->offsets[i] : (const uint8_t *)""; /* data may be NULL */
        } else {
            (*ptrs)[k] = v->values + i * v->type_length;
            (*lens)[k] = v->type_length;
        }
        k++;
    }
    *count = k;
    return 0;
}

int pq_dlba_encode(pq_buf *out, const pq_vec *v, int64_t start, int64_t n)
{
    const uint8_t **p = NULL;
    int32_t *l = NULL;
    int64_t k = 0;
    int rc = collect(v, start, n, &p, &l, &k);
    if (!rc) rc = pq_delta_encode_i32(out, l, k);
    for (int64_t i = 0; i < k && !rc; i++) rc = pq_buf_append(out, p[i], (size_t)l[i]);
    free(p);
    free(l);
    return rc;
}

int pq_dba_encode(pq_buf *out, const pq_vec *v, int64_t start, int64_t n)
{
    const uint8_t **p = NULL;
    int32_t *l = NULL, *pre = NULL;
    int64_t k = 0;
    int rc = collect(v, start, n, &p, &l, &k);
    if (!rc && !(pre = fail_calloc((size_t)(k > 0 ? k : 1), sizeof *pre))) rc = -ENOMEM;
    for (int64_t i = 0; i < k && !rc; i++) {
        int32_t m = 0;
        if (i > 0)
            while (m < l[i] && m < l[i - 1] && p[i][m] == p[i - 1][m]) m++;
        pre[i] = m;
    }
    if (!rc) rc = pq_delta_encode_i32(out, pre, k);
    for (int64_t i = 0; i < k && !rc; i++) l[i] -= pre[i]; /* suffix lengths */
    if (!rc) rc = pq_delta_encode_i32(out, l, k);
    for (int64_t i = 0; i < k && !rc; i++) rc = pq_buf_append(out, p[i] + pre[i], (size_t)l[i]);
    free(p);
    free(l);
    free(pre);
    return rc;
}
