/* format/enc_buf.c: growth and varint helpers on pq_buf for the encoders. pq_buf itself and
 * pq_buf_append / pq_buf_free belong to the thrift writer (format/meta.h, format/thrift.h).
 *
 * Invariants:
 *  1. b->len <= b->cap; data is NULL only when cap == 0.
 *  2. Growth is geometric (x2, at least 256 bytes) and fails with -ENOMEM leaving b unchanged.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "format/encoding.h"
#include "common/fail.h"

int pq_enc_reserve(pq_buf *b, size_t extra)
{
    assert(b->len <= b->cap);
    if (extra <= b->cap - b->len && b->data) return 0; /* data never NULL after */
    if (extra > SIZE_MAX / 2 - b->len) return -ENOMEM;
    size_t need = b->len + extra, cap = b->cap ? b->cap : 256;
    while (cap < need) cap *= 2;
    uint8_t *p = fail_realloc(b->data, cap);
    if (!p) return -ENOMEM;
    b->data = p;
    b->cap = cap;
    return 0;
}

int pq_enc_put_uvarint(pq_buf *b, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    do {
        uint8_t c = v & 0x7f;
        v >>= 7;
        tmp[n++] = (uint8_t)(c | (v ? 0x80 : 0));
    } while (v);
    assert(n <= sizeof tmp);
    return pq_buf_append(b, tmp, n);
}

int pq_enc_put_zigzag(pq_buf *b, int64_t v)
{
    uint64_t u = (uint64_t)v;
    return pq_enc_put_uvarint(b, (u << 1) ^ (uint64_t)(v >> 63));
}
