/* format/plain.c: the PLAIN encoding, decoder and encoder, for every physical type.
 *
 * Layout: fixed-width values back to back, little-endian (INT96 12 bytes, FLBA type_length);
 * BOOLEAN bit-packed LSB first; BYTE_ARRAY a 4-byte LE length then the bytes, per value.
 *
 * Invariants:
 *  1. Fixed width: one bounds check (n * width <= len), then one memcpy.
 *  2. BYTE_ARRAY: a first pass reads only the length prefixes, checking each against the bytes
 *     left and summing them; a second, unchecked pass copies. The running total is limited so
 *     the vector's int32 offsets cannot overflow (ELIMIT).
 *  3. On error nothing is appended (out->length unchanged).
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "format/encoding.h"

static inline uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int check_count(int64_t n, pq_err *err, const char *what)
{
    if (n < 0 || n > PQ_ENC_MAX_VALUES)
        return pq_errf(err, RINGSCAN_ELIMIT, -1, "%s: value count %lld out of range", what,
                       (long long)n);
    return 0;
}

int pq_plain_decode_fixed(const uint8_t *buf, size_t len, int64_t n, pq_vec *out, size_t *used,
                          pq_err *err)
{
    *used = 0;
    int32_t w = pq_fixed_width(out->type, out->type_length);
    if (w <= 0)
        return pq_errf(err, RINGSCAN_EFORMAT, -1, "PLAIN fixed-width decode of type %d width %d",
                       (int)out->type, (int)w);
    int rc = check_count(n, err, "PLAIN");
    if (rc) return rc;
    uint64_t need = (uint64_t)n * (uint64_t)w;
    if (need > len)
        return pq_errf(err, RINGSCAN_EFORMAT, -1,
                       "PLAIN: %lld values of %d bytes need %llu bytes, %zu left",
                       (long long)n, (int)w, (unsigned long long)need, len);
    if ((rc = pq_vec_reserve(out, n, 0))) return rc;
    if (need) memcpy(out->values + out->length * w, buf, (size_t)need);
    out->length += n;
    *used = (size_t)need;
    return 0;
}

int pq_plain_select_fixed(const uint8_t *buf, size_t len, int64_t n, const uint32_t *sel,
                          int64_t nsel, pq_vec *out, pq_err *err)
{
    assert(nsel >= 0 && nsel <= n && (sel || nsel == 0));
    assert(nsel == 0 || (int64_t)sel[nsel - 1] < n); /* ascending: every index below n */
    int32_t wi = pq_fixed_width(out->type, out->type_length);
    if (wi <= 0 || out->type == PQ_BOOLEAN)
        return pq_errf(err, RINGSCAN_EFORMAT, -1, "PLAIN fixed-width select of type %d width %d",
                       (int)out->type, (int)wi);
    size_t w = (size_t)wi;
    int rc = check_count(n, err, "PLAIN");
    if (rc) return rc;
    uint64_t need = (uint64_t)n * w;
    if (need > len) /* the page is checked whole, as pq_plain_decode_fixed checks it */
        return pq_errf(err, RINGSCAN_EFORMAT, -1,
                       "PLAIN: %lld values of %d bytes need %llu bytes, %zu left",
                       (long long)n, (int)w, (unsigned long long)need, len);
    if (nsel == 0) return 0; /* out->values may not exist yet */
    if ((rc = pq_vec_reserve(out, nsel, 0))) return rc;
    pq_gather_fixed(out->values + (size_t)out->length * w, buf, sel, nsel, w);
    out->length += nsel;
    return 0;
}

/* Copies n bits from src (starting at bit so) to dst (starting at bit do_). */
static void copy_bits(uint8_t *dst, int64_t do_, const uint8_t *src, int64_t so, int64_t n)
{
    if ((do_ & 7) == 0 && (so & 7) == 0) {
        int64_t whole = n >> 3;
        if (whole) memcpy(dst + (do_ >> 3), src + (so >> 3), (size_t)whole);
        do_ += whole * 8, so += whole * 8, n -= whole * 8;
    }
    for (int64_t i = 0; i < n; i++) pq_bit_set(dst, do_ + i, pq_bit_get(src, so + i));
}

int pq_plain_decode_bool(const uint8_t *buf, size_t len, int bit_offset, int64_t n, pq_vec *out,
                         size_t *used_bits, pq_err *err)
{
    *used_bits = 0;
    assert(out->type == PQ_BOOLEAN);
    if (bit_offset < 0 || bit_offset > 7)
        return pq_errf(err, RINGSCAN_EFORMAT, -1, "PLAIN BOOLEAN bit offset %d", bit_offset);
    int rc = check_count(n, err, "PLAIN BOOLEAN");
    if (rc) return rc;
    uint64_t bits = (uint64_t)bit_offset + (uint64_t)n;
    if ((bits + 7) / 8 > len)
        return pq_errf(err, RINGSCAN_EFORMAT, -1,
                       "PLAIN BOOLEAN: %lld values need %llu bytes, %zu left", (long long)n,
                       (unsigned long long)((bits + 7) / 8), len);
    if ((rc = pq_vec_reserve(out, n, 0))) return rc;
    copy_bits(out->values, out->length, buf, bit_offset, n);
    out->length += n;
    *used_bits = (size_t)bits;
    return 0;
}

/* Reads the length prefix of value i at *pos into *l after checking that it and its value lie
 * in the len bytes of buf; advances *pos past the value. */
static inline int ba_next(const uint8_t *buf, size_t len, int64_t i, size_t *pos, uint32_t *l,
                          pq_err *err)
{
    if (len - *pos < 4)
        return pq_errf(err, RINGSCAN_EFORMAT, -1,
                       "PLAIN BYTE_ARRAY value %lld: length prefix cut off at byte %zu of %zu",
                       (long long)i, *pos, len);
    *l = rd32(buf + *pos);
    if (*l > len - *pos - 4)
        return pq_errf(err, RINGSCAN_EFORMAT, -1,
                       "PLAIN BYTE_ARRAY value %lld: length %u at byte %zu exceeds the %zu "
                       "bytes left",
                       (long long)i, *l, *pos, len - *pos - 4);
    *pos += 4 + (size_t)*l;
    return 0;
}

static int ba_room_err(pq_err *err)
{
    return pq_errf(err, RINGSCAN_ELIMIT, -1, "PLAIN BYTE_ARRAY: column batch passes %lld bytes",
                   (long long)PQ_ENC_MAX_BYTES);
}

int pq_plain_decode_ba(const uint8_t *buf, size_t len, int64_t n, pq_vec *out, size_t *used,
                       pq_err *err)
{
    *used = 0;
    assert(out->type == PQ_BYTE_ARRAY);
    int rc = check_count(n, err, "PLAIN BYTE_ARRAY");
    if (rc) return rc;
    /* One pass, each prefix checked as its value is copied: the values' bytes are fewer than
     * the len bytes holding them, so len (at most the room left) is reserved up front, with
     * PQ_BA_SLACK spare bytes: a value of up to PQ_BA_SLACK bytes is copied with one
     * fixed-size move (a memcpy call per short string was most of this loop). A second pass
     * over the prefixes was a quarter of lineitem_wide's dictionary page decode. */
    int64_t room = PQ_ENC_MAX_BYTES - out->data_len;
    /* Rows reserved for no more values than len holds (4 prefix bytes each): n comes from a
     * page header, and a larger one fails below at value len / 4 at the latest, before its
     * offset is written. */
    int64_t rows = n < (int64_t)(len / 4) ? n : (int64_t)(len / 4);
    if ((rc = pq_vec_reserve(out, rows, ((int64_t)len < room ? (int64_t)len : room) + PQ_BA_SLACK)))
        return rc;
    int32_t *off = out->offsets + out->length;
    uint8_t *data = out->data;
    int64_t cur = out->data_len;
    size_t pos = 0;
    for (int64_t i = 0; i < n; i++) { /* nothing appended until every value is in */
        uint32_t l;
        if ((rc = ba_next(buf, len, i, &pos, &l, err))) return rc;
        if ((int64_t)l > room - (cur - out->data_len)) return ba_room_err(err);
        pq_ba_copy(data + cur, buf + pos - l, l, len - (pos - l));
        cur += l;
        assert(i < rows); /* value i's prefix took 4 of len's bytes: i + 1 <= len / 4 */
        off[i + 1] = (int32_t)cur;
    }
    if (out->length == 0) off[0] = 0;
    out->data_len = cur;
    out->length += n;
    *used = pos;
    return 0;
}

int pq_plain_select_ba(const uint8_t *buf, size_t len, int64_t n, const uint32_t *sel,
                       int64_t nsel, uint32_t *at, pq_vec *out, size_t *used, pq_err *err)
{
    *used = 0;
    assert(out->type == PQ_BYTE_ARRAY && nsel >= 0 && nsel <= n && (sel || nsel == 0));
    assert(len <= UINT32_MAX);
    int rc = check_count(n, err, "PLAIN BYTE_ARRAY");
    if (rc) return rc;
    size_t pos = 0;
    uint64_t total = 0;
    int64_t j = 0;
    for (int64_t i = 0; i < n; i++) {
        size_t here = pos;
        uint32_t l;
        if ((rc = ba_next(buf, len, i, &pos, &l, err))) return rc;
        if (j < nsel && sel[j] == (uint64_t)i) {
            at[j++] = (uint32_t)here;
            total += l;
        }
    }
    assert(j == nsel);
    *used = pos;
    if (total > (uint64_t)(PQ_ENC_MAX_BYTES - out->data_len)) return ba_room_err(err);
    if ((rc = pq_vec_reserve(out, nsel, (int64_t)total + PQ_BA_SLACK))) return rc;
    int32_t *off = out->offsets + out->length;
    int32_t cur = (int32_t)out->data_len;
    if (out->length == 0) off[0] = 0;
    for (int64_t k = 0; k < nsel; k++) { /* unchecked: the walk above validated each value */
        uint32_t l = rd32(buf + at[k]);
        pq_ba_copy(out->data + cur, buf + at[k] + 4, l, len - at[k] - 4);
        cur += (int32_t)l;
        off[k + 1] = cur;
    }
    out->data_len = cur;
    out->length += nsel;
    return 0;
}

int pq_plain_decode(const uint8_t *buf, size_t len, int64_t n, pq_vec *out, size_t *used,
                    pq_err *err)
{
    if (out->type == PQ_BYTE_ARRAY) return pq_plain_decode_ba(buf, len, n, out, used, err);
    if (out->type == PQ_BOOLEAN) {
        size_t bits = 0;
        int rc = pq_plain_decode_bool(buf, len, 0, n, out, &bits, err);
        *used = (bits + 7) / 8;
        return rc;
    }
    return pq_plain_decode_fixed(buf, len, n, out, used, err);
}

/* ------------------------------------------------------------------------------- encoder */

static int enc_bool(pq_buf *out, const pq_vec *v, int64_t start, int64_t n, bool skip)
{
    int rc = pq_enc_reserve(out, (size_t)(n + 7) / 8);
    if (rc) return rc;
    uint8_t *dst = out->data + out->len;
    memset(dst, 0, (size_t)(n + 7) / 8);
    int64_t k = 0;
    for (int64_t i = start; i < start + n; i++) {
        if (skip && !pq_vec_is_valid(v, i)) continue;
        pq_bit_set(dst, k++, pq_bit_get(v->values, i));
    }
    out->len += (size_t)(k + 7) / 8;
    return 0;
}

static int enc_ba(pq_buf *out, const pq_vec *v, int64_t start, int64_t n, bool skip)
{
    size_t total = (size_t)(v->offsets[start + n] - v->offsets[start]) + 4 * (size_t)n;
    int rc = pq_enc_reserve(out, total);
    if (rc) return rc;
    for (int64_t i = start; i < start + n; i++) {
        if (skip && !pq_vec_is_valid(v, i)) continue;
        uint32_t l = (uint32_t)(v->offsets[i + 1] - v->offsets[i]);
        uint8_t *dst = out->data + out->len;
        dst[0] = (uint8_t)l, dst[1] = (uint8_t)(l >> 8), dst[2] = (uint8_t)(l >> 16),
        dst[3] = (uint8_t)(l >> 24);
        if (l) memcpy(dst + 4, v->data + v->offsets[i], l);
        out->len += 4 + (size_t)l;
    }
    return 0;
}

int pq_plain_encode(pq_buf *out, const pq_vec *v, int64_t start, int64_t n, bool skip_nulls)
{
    assert(start >= 0 && n >= 0 && start + n <= v->length);
    bool skip = skip_nulls && v->validity != NULL;
    if (n == 0) return 0;
    if (v->type == PQ_BOOLEAN) return enc_bool(out, v, start, n, skip);
    if (v->type == PQ_BYTE_ARRAY) return enc_ba(out, v, start, n, skip);
    int32_t w = pq_fixed_width(v->type, v->type_length);
    assert(w > 0);
    if (!skip) return pq_buf_append(out, v->values + start * w, (size_t)(n * w));
    int rc = pq_enc_reserve(out, (size_t)(n * w));
    for (int64_t i = start; i < start + n && !rc; i++) {
        int64_t j = i; /* append runs of valid rows at once */
        while (j < start + n && pq_vec_is_valid(v, j)) j++;
        if (j > i) rc = pq_buf_append(out, v->values + i * w, (size_t)((j - i) * w));
        i = j;
    }
    return rc;
}
