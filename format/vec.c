/* format/vec.c: allocation for pq_vec (see vec.h for the layout and its invariants). */
#include "format/vec.h"
#include "common/bufpool.h"
#include "common/fail.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

void pq_vec_init(pq_vec *v, pq_physical type, int32_t type_length)
{
    assert(type >= PQ_BOOLEAN && type <= PQ_FIXED_LEN_BYTE_ARRAY);
    memset(v, 0, sizeof *v);
    v->type = type;
    v->type_length = type == PQ_FIXED_LEN_BYTE_ARRAY ? type_length : 0;
}

/* Grows *buf (cap in bytes) to hold at least need bytes; new bytes zeroed when zero. Fixed-
 * width values and string bytes are not zeroed: every producer writes each row's slot (null
 * rows' too, invariant 2), and zeroing a fresh split's columns first was 11% of a small scan
 * (lineitem_prune). Validity bits, boolean bits and offsets are (producers set them bit by bit
 * or rely on offsets[0] == 0). A buffer of a pooled size grows into a block another thread gave
 * back when one is idle (common/bufpool.h: a consumer frees a core's batch on its own thread,
 * and a thread-local allocator would keep that block for the core that made it). */
static int grow(uint8_t **buf, int64_t *cap, int64_t need, bool zero)
{
    assert(need >= 0);
    if (need <= *cap) return 0;
    int64_t n = *cap > 0 ? *cap : 64;
    while (n < need) n *= 2;
    uint8_t *p = bufpool_take((size_t)n); /* a block another thread's batch gave back */
    if (p) {
        if (*cap > 0) memcpy(p, *buf, (size_t)*cap);
        bufpool_give(*buf, (size_t)*cap);
    } else if (!(p = fail_realloc(*buf, (size_t)n))) {
        return -ENOMEM;
    }
    if (zero) memset(p + *cap, 0, (size_t)(n - *cap));
#ifdef RINGSCAN_CHECKED
    else memset(p + *cap, 0xA5, (size_t)(n - *cap)); /* checked builds: no reliance on zeroes */
#endif
    *buf = p;
    *cap = n;
    return 0;
}

int pq_vec_reserve(pq_vec *v, int64_t rows, int64_t data_bytes)
{
    assert(rows >= 0 && data_bytes >= 0 && !v->cols);
    int64_t total = v->length + rows;
    int rc = grow(&v->validity, &v->validity_cap, (total + 7) / 8, true);
    if (rc) return rc;
    if (v->type == PQ_BOOLEAN) return grow(&v->values, &v->values_cap, (total + 7) / 8, true);
    if (v->type == PQ_BYTE_ARRAY) {
        int64_t cap_bytes = v->offsets_cap * (int64_t)sizeof(int32_t);
        uint8_t *off = (uint8_t *)v->offsets;
        rc = grow(&off, &cap_bytes, (total + 1) * (int64_t)sizeof(int32_t), true);
        v->offsets = (int32_t *)off;
        v->offsets_cap = cap_bytes / (int64_t)sizeof(int32_t);
        if (rc) return rc;
        return grow(&v->data, &v->data_cap, v->data_len + data_bytes, false);
    }
    return grow(&v->values, &v->values_cap, total * pq_fixed_width(v->type, v->type_length), false);
}

void pq_nest_cols_free(pq_nest_cols *c)
{
    for (int32_t k = 0; c && c->col && k < c->n; k++) {
        free(c->col[k].valid);
        free(c->col[k].offsets);
        pq_vec_free(&c->col[k].vals);
    }
    if (c) free(c->col);
    free(c);
}

uint64_t pq_nest_cols_bytes(const pq_nest_cols *c)
{
    uint64_t n = 0;
    for (int32_t k = 0; c && c->col && k < c->n; k++) {
        const pq_vec *v = &c->col[k].vals;
        n += (uint64_t)c->col[k].valid_cap + (uint64_t)c->col[k].off_cap * sizeof(int32_t) +
             (uint64_t)v->validity_cap + (uint64_t)v->values_cap +
             (uint64_t)v->offsets_cap * sizeof(int32_t) + (uint64_t)v->data_cap;
    }
    return n;
}

void pq_vec_free(pq_vec *v)
{
    pq_nest_cols_free(v->cols);
    bufpool_give(v->validity, (size_t)v->validity_cap);
    bufpool_give(v->values, (size_t)v->values_cap);
    bufpool_give(v->offsets, (size_t)v->offsets_cap * sizeof(int32_t));
    bufpool_give(v->data, (size_t)v->data_cap);
    pq_vec_init(v, v->type, v->type_length);
}

void pq_vec_clear(pq_vec *v)
{
    pq_nest_cols_free(v->cols); /* a split that failed after building them */
    v->cols = NULL;
    v->length = 0;
    v->null_count = 0;
    v->data_len = 0;
    if (v->offsets) v->offsets[0] = 0;
}

/* ---------------------------------------------------------------------------- take */

/* Byte-array rows appended at dst row `at`: sizes first (one reserve), then the copies. */
static int take_bytes(const pq_vec *src, const uint32_t *idx, int64_t n, pq_vec *dst)
{
    int64_t bytes = 0;
    for (int64_t i = 0; i < n; i++) bytes += src->offsets[idx[i] + 1] - src->offsets[idx[i]];
    if (dst->data_len + bytes > INT32_MAX) return -EOVERFLOW;
    int rc = pq_vec_reserve(dst, n, bytes);
    if (rc) return rc;
    int64_t at = dst->length;
    int32_t pos = (int32_t)dst->data_len;
    dst->offsets[at] = pos;
    for (int64_t i = 0; i < n; i++) {
        int32_t a = src->offsets[idx[i]], len = src->offsets[idx[i] + 1] - a;
        if (len > 0) memcpy(dst->data + pos, src->data + a, (size_t)len);
        pos += len;
        dst->offsets[at + i + 1] = pos;
    }
    dst->data_len = pos;
    return 0;
}

void pq_gather_fixed(uint8_t *dst, const uint8_t *src, const uint32_t *idx, int64_t n, size_t w)
{
    assert(n >= 0 && w > 0);
    if (w == 8) /* constant sizes: each copy is one move */
        for (int64_t i = 0; i < n; i++) memcpy(dst + 8 * i, src + (size_t)idx[i] * 8, 8);
    else if (w == 4)
        for (int64_t i = 0; i < n; i++) memcpy(dst + 4 * i, src + (size_t)idx[i] * 4, 4);
    else
        for (int64_t i = 0; i < n; i++) memcpy(dst + w * (size_t)i, src + (size_t)idx[i] * w, w);
}

static void take_fixed(const pq_vec *src, const uint32_t *idx, int64_t n, pq_vec *dst)
{
    size_t w = (size_t)pq_fixed_width(src->type, src->type_length);
    pq_gather_fixed(dst->values + (size_t)dst->length * w, src->values, idx, n, w);
}

/* Validity of the appended rows; the first null ever back-fills ones (vec.h invariant 1). */
static void take_validity(const pq_vec *src, const uint32_t *idx, int64_t n, pq_vec *dst)
{
    if (src->null_count == 0 && dst->null_count == 0) return;
    int64_t at = dst->length, nulls = 0;
    if (dst->null_count == 0)
        for (int64_t i = 0; i < at; i++) pq_bit_set(dst->validity, i, true);
    for (int64_t i = 0; i < n; i++) {
        bool ok = src->null_count == 0 || pq_bit_get(src->validity, idx[i]);
        pq_bit_set(dst->validity, at + i, ok);
        nulls += !ok;
    }
    dst->null_count += nulls;
}

int pq_vec_take(const pq_vec *src, const uint32_t *idx, int64_t n, pq_vec *dst)
{
    assert(n >= 0 && src->type == dst->type && src->type_length == dst->type_length);
    if (src->cols || dst->cols) return pq_nest_cols_take(src, idx, n, dst); /* invariant 6 */
    int rc = src->type == PQ_BYTE_ARRAY ? take_bytes(src, idx, n, dst) : pq_vec_reserve(dst, n, 0);
    if (rc) return rc;
    if (src->type == PQ_BOOLEAN) {
        for (int64_t i = 0; i < n; i++)
            pq_bit_set(dst->values, dst->length + i, pq_bit_get(src->values, idx[i]));
    } else if (src->type != PQ_BYTE_ARRAY && n > 0) { /* an empty dst may have no values yet */
        take_fixed(src, idx, n, dst);
    }
    take_validity(src, idx, n, dst);
    dst->length += n;
    return 0;
}

void pq_vec_cut(pq_vec *v, int64_t n)
{
    assert(n >= 0 && n <= v->length);
    if (v->cols) {
        pq_nest_cols_cut(v, n);
        return;
    }
    v->length = n;
    if (v->null_count > 0) {
        int64_t nulls = 0;
        for (int64_t i = 0; i < n; i++) nulls += !pq_bit_get(v->validity, i);
        v->null_count = nulls;
    }
    if (v->type == PQ_BYTE_ARRAY && v->offsets) v->data_len = v->offsets[n];
}
