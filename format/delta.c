/* format/delta.c: DELTA_BINARY_PACKED for INT32 and INT64, decoder and encoder.
 *
 * Layout: header <block size> <miniblocks per block> <total values> <first value (zigzag)>,
 * then blocks: <min delta (zigzag)> <one bit-width byte per miniblock> <miniblocks>, each
 * miniblock (block size / miniblocks) values bit-packed LSB first. The last needed miniblock is
 * padded to full size; miniblocks after it in the last block have a width byte but no data.
 *
 * Invariants:
 *  1. The header is validated before any value: block size a positive multiple of 128 and
 *     <= PQ_DELTA_MAX_BLOCK, miniblock size a positive multiple of 32, total <= max_values.
 *     Nothing is allocated from header values.
 *  2. A miniblock's bytes (mb_size * width / 8) are checked against the buffer when it starts;
 *     values are then unpacked unchecked (8-byte loads while 16 bytes of slack remain, byte
 *     loads otherwise).
 *  3. Arithmetic is unsigned 64-bit (wrapping); INT32 output truncates, which equals 32-bit
 *     wrapping arithmetic.
 *  4. d->done <= d->total; d->p <= d->end.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/encoding.h"

static int rd_uvarint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (p >= end) return -1;
        uint8_t c = *p++;
        if (shift == 63 && c > 1) return -1;
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *pp = p;
            *out = v;
            return 0;
        }
    }
    return -1;
}

static int rd_zigzag(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    uint64_t u;
    if (rd_uvarint(pp, end, &u)) return -1;
    *out = (u >> 1) ^ (0 - (u & 1));
    return 0;
}

static int dfail(pq_delta_dec *d, const char *what, unsigned long long v)
{
    return pq_errf(d->err, RINGSCAN_EFORMAT, -1, "DELTA_BINARY_PACKED at byte %td: %s (%llu)",
                   d->p - d->base, what, v);
}

int pq_delta_init(pq_delta_dec *d, const uint8_t *buf, size_t len, bool is32, int64_t max_values,
                  pq_err *err)
{
    memset(d, 0, sizeof *d);
    d->base = d->p = buf;
    d->end = len ? buf + len : buf; /* buf may be NULL when len == 0 */
    d->is32 = is32;
    d->err = err;
    uint64_t bs, mbs, total, first;
    if (rd_uvarint(&d->p, d->end, &bs)) return dfail(d, "header block size cut off", len);
    if (bs == 0 || bs % 128 || bs > PQ_DELTA_MAX_BLOCK)
        return dfail(d, "block size not a positive multiple of 128 within limits", bs);
    if (rd_uvarint(&d->p, d->end, &mbs)) return dfail(d, "header miniblock count cut off", len);
    if (mbs == 0 || mbs > PQ_DELTA_MAX_MINIBLOCKS || bs % mbs || (bs / mbs) % 32)
        return dfail(d, "miniblocks per block do not split the block into multiples of 32", mbs);
    if (rd_uvarint(&d->p, d->end, &total)) return dfail(d, "header value count cut off", len);
    if (max_values < 0 || total > (uint64_t)max_values)
        return pq_errf(err, RINGSCAN_EFORMAT, -1,
                       "DELTA_BINARY_PACKED header declares %llu values, the page has %lld",
                       (unsigned long long)total, (long long)max_values);
    if (rd_zigzag(&d->p, d->end, &first)) return dfail(d, "header first value cut off", len);
    d->block_size = bs;
    d->miniblocks = mbs;
    d->mb_size = bs / mbs;
    d->total = (int64_t)total;
    d->last = first;
    d->mb_index = mbs; /* no block started */
    return 0;
}

/* Reads the next block header (min delta and widths). */
static int delta_block(pq_delta_dec *d)
{
    if (rd_zigzag(&d->p, d->end, &d->min_delta))
        return dfail(d, "block min delta cut off", (unsigned long long)d->done);
    if ((uint64_t)(d->end - d->p) < d->miniblocks)
        return dfail(d, "block bit widths cut off", d->miniblocks);
    memcpy(d->widths, d->p, d->miniblocks);
    d->p += d->miniblocks;
    d->mb_index = 0;
    return 0;
}

/* Starts miniblock mb_index: checks its bytes are present, skips over them. */
static int delta_miniblock(pq_delta_dec *d)
{
    if (d->mb_index == d->miniblocks) {
        int rc = delta_block(d);
        if (rc) return rc;
    }
    uint32_t w = d->widths[d->mb_index];
    if (w > 64) return dfail(d, "miniblock bit width above 64", w);
    uint64_t bytes = d->mb_size * w / 8;
    if (bytes > (uint64_t)(d->end - d->p))
        return dfail(d, "miniblock runs past the end of the data; bytes needed", bytes);
    d->mb_data = d->p;
    d->p += bytes;
    d->mb_pos = 0;
    d->mb_left = d->mb_size;
    d->mb_index++;
    return 0;
}

/* Value j of width w from q, where q[0 .. limit) is readable. */
static inline uint64_t get_bits_safe(const uint8_t *q, size_t limit, uint64_t j, uint32_t w)
{
    uint64_t s = j * w, b = s >> 3;
    uint32_t sh = (uint32_t)(s & 7);
    uint64_t lo = 0;
    for (uint32_t k = 0; k < 8 && b + k < limit; k++) lo |= (uint64_t)q[b + k] << (8 * k);
    uint64_t v = lo >> sh;
    if (sh + w > 64 && b + 8 < limit) v |= (uint64_t)q[b + 8] << (64 - sh);
    return w == 64 ? v : v & ((1ull << w) - 1);
}

static inline uint64_t get_bits_fast(const uint8_t *q, uint64_t j, uint32_t w, uint64_t mask)
{
    uint64_t s = j * w, b = s >> 3, lo;
    uint32_t sh = (uint32_t)(s & 7);
    memcpy(&lo, q + b, 8);
    uint64_t v = lo >> sh;
    if (sh + w > 64) v |= (uint64_t)q[b + 8] << (64 - sh);
    return v & mask;
}

/* k values of the current miniblock into out (offset got). */
static void delta_run(pq_delta_dec *d, void *out, int64_t got, uint64_t k)
{
    uint32_t w = d->widths[d->mb_index - 1];
    uint64_t mask = w == 64 ? ~0ull : (1ull << w) - 1, last = d->last, md = d->min_delta;
    uint64_t j = d->mb_pos;
    const uint8_t *q = d->mb_data;
    size_t limit = (size_t)(d->end - q);
    bool fast = (uint64_t)limit >= d->mb_size * w / 8 + 16;
    int32_t *o32 = (int32_t *)out + got;
    int64_t *o64 = (int64_t *)out + got;
    for (uint64_t i = 0; i < k; i++, j++) {
        uint64_t v = w == 0 ? 0 : fast ? get_bits_fast(q, j, w, mask) : get_bits_safe(q, limit, j, w);
        last += md + v;
        if (d->is32)
            o32[i] = (int32_t)(uint32_t)last;
        else
            o64[i] = (int64_t)last;
    }
    d->last = last;
    d->mb_pos = j;
    d->mb_left -= k;
}

int64_t pq_delta_next(pq_delta_dec *d, void *out, int64_t n)
{
    assert(n >= 0 && d->done <= d->total);
    int64_t got = 0;
    if (n > 0 && d->done == 0 && d->total > 0) {
        if (d->is32)
            ((int32_t *)out)[0] = (int32_t)(uint32_t)d->last;
        else
            ((int64_t *)out)[0] = (int64_t)d->last;
        d->done = got = 1;
    }
    while (got < n && d->done < d->total) {
        if (d->mb_left == 0) {
            int rc = delta_miniblock(d);
            if (rc) return rc;
        }
        uint64_t k = d->mb_left;
        if ((int64_t)k > n - got) k = (uint64_t)(n - got);
        if ((int64_t)k > d->total - d->done) k = (uint64_t)(d->total - d->done);
        delta_run(d, out, got, k);
        got += (int64_t)k;
        d->done += (int64_t)k;
    }
    return got;
}

size_t pq_delta_used(const pq_delta_dec *d) { return (size_t)(d->p - d->base); }

int pq_delta_finish(pq_delta_dec *d)
{
    int64_t tmp[256];
    while (d->done < d->total) {
        int64_t got = pq_delta_next(d, tmp, 256);
        if (got < 0) return (int)got;
    }
    return 0;
}

int pq_delta_decode(pq_delta_dec *d, int64_t n, pq_vec *out)
{
    assert(out->type == (d->is32 ? PQ_INT32 : PQ_INT64));
    if (n > d->total - d->done)
        return pq_errf(d->err, RINGSCAN_EFORMAT, -1,
                       "DELTA_BINARY_PACKED: %lld values asked, %lld left", (long long)n,
                       (long long)(d->total - d->done));
    if (n == 0) return 0; /* an empty page: out->values may not exist yet */
    int rc = pq_vec_reserve(out, n, 0);
    if (rc) return rc;
    int64_t got = pq_delta_next(d, out->values + out->length * (d->is32 ? 4 : 8), n);
    if (got < 0) return (int)got;
    assert(got == n);
    out->length += n;
    return 0;
}

/* ------------------------------------------------------------------------------- encoder */

/* Packs count values of width w (0..64) LSB first; count * w is a multiple of 8. */
static int pack_bits(pq_buf *out, const uint64_t *v, int count, uint32_t w)
{
    size_t bytes = (size_t)count * w / 8;
    int rc = pq_enc_reserve(out, bytes);
    if (rc || w == 0) return rc;
    uint8_t *dst = out->data + out->len;
    unsigned __int128 acc = 0;
    uint32_t nacc = 0;
    size_t o = 0;
    for (int i = 0; i < count; i++) {
        acc |= (unsigned __int128)v[i] << nacc;
        nacc += w;
        while (nacc >= 8) {
            dst[o++] = (uint8_t)acc;
            acc >>= 8;
            nacc -= 8;
        }
    }
    assert(o == bytes && nacc == 0);
    out->len += bytes;
    return 0;
}

/* One block of k (1..128) deltas: min delta, 4 widths, needed miniblocks of 32. */
static int delta_put_block(pq_buf *out, const uint64_t *deltas, int k)
{
    uint64_t min = deltas[0], rel[128];
    for (int i = 1; i < k; i++) min = (int64_t)deltas[i] < (int64_t)min ? deltas[i] : min;
    int rc = pq_enc_put_zigzag(out, (int64_t)min);
    uint8_t widths[4] = {0, 0, 0, 0};
    for (int i = 0; i < 128; i++) rel[i] = i < k ? deltas[i] - min : 0;
    for (int m = 0; m * 32 < k; m++) {
        uint64_t or_ = 0;
        for (int i = 0; i < 32; i++) or_ |= rel[m * 32 + i];
        widths[m] = (uint8_t)pq_bit_width(or_);
    }
    if (!rc) rc = pq_buf_append(out, widths, 4);
    for (int m = 0; m * 32 < k && !rc; m++) rc = pack_bits(out, rel + m * 32, 32, widths[m]);
    return rc;
}

static int delta_encode(pq_buf *out, const int64_t *v64, const int32_t *v32, int64_t n)
{
    int rc = pq_enc_put_uvarint(out, 128);
    if (!rc) rc = pq_enc_put_uvarint(out, 4);
    if (!rc) rc = pq_enc_put_uvarint(out, (uint64_t)n);
    if (rc || n == 0) return rc ? rc : pq_enc_put_zigzag(out, 0);
    uint64_t prev = v64 ? (uint64_t)v64[0] : (uint64_t)(int64_t)v32[0];
    if ((rc = pq_enc_put_zigzag(out, (int64_t)prev))) return rc;
    uint64_t deltas[128];
    for (int64_t i = 1; i < n && !rc; i += 128) {
        int k = n - i < 128 ? (int)(n - i) : 128;
        for (int j = 0; j < k; j++) {
            uint64_t x = v64 ? (uint64_t)v64[i + j] : (uint64_t)(int64_t)v32[i + j];
            deltas[j] = x - prev; /* INT32: exact 33-bit delta, wraps back on decode */
            prev = x;
        }
        rc = delta_put_block(out, deltas, k);
    }
    return rc;
}

int pq_delta_encode_i32(pq_buf *out, const int32_t *vals, int64_t n)
{
    return delta_encode(out, NULL, vals, n);
}

int pq_delta_encode_i64(pq_buf *out, const int64_t *vals, int64_t n)
{
    return delta_encode(out, vals, NULL, n);
}
