/* scan/listvec.c: packing list<primitive> columns into BYTE_ARRAY rows and back (listvec.h
 * has the layout and the invariants). */
#include "scan/listvec.h"

#include <assert.h>
#include <errno.h>
#include <string.h>

#include "ringscan.h"

/* Bytes the value of element i of items takes after its flag. */
static int64_t value_bytes(const pq_vec *items, int64_t i)
{
    if (!pq_vec_is_valid(items, i)) return 0;
    if (items->type == PQ_BOOLEAN) return 1;
    if (items->type == PQ_BYTE_ARRAY) return 4 + (int64_t)(items->offsets[i + 1] - items->offsets[i]);
    return pq_fixed_width(items->type, items->type_length);
}

/* Writes element i of items (flag, value) at p; returns the bytes written. */
static int64_t put_element(const pq_vec *items, int64_t i, uint8_t *p)
{
    bool valid = pq_vec_is_valid(items, i);
    p[0] = valid;
    if (!valid) return 1;
    if (items->type == PQ_BOOLEAN) {
        p[1] = pq_bit_get(items->values, i);
        return 2;
    }
    if (items->type == PQ_BYTE_ARRAY) {
        uint32_t n = (uint32_t)(items->offsets[i + 1] - items->offsets[i]);
        memcpy(p + 1, &n, 4);
        if (n) memcpy(p + 5, items->data + items->offsets[i], n);
        return 5 + (int64_t)n;
    }
    size_t w = (size_t)pq_fixed_width(items->type, items->type_length);
    memcpy(p + 1, items->values + (size_t)i * w, w);
    return 1 + (int64_t)w;
}

int scan_list_pack(const pq_list_vec *l, pq_vec *out)
{
    assert(out->type == PQ_BYTE_ARRAY);
    int64_t total = 0, nelem = l->length ? l->offsets[l->length] : 0;
    for (int64_t i = 0; i < nelem; i++) total += 1 + value_bytes(&l->items, i);
    if (out->data_len + total > INT32_MAX)
        return RINGSCAN_ELIMIT; /* the caller names the column */
    int rc = pq_vec_reserve(out, l->length, total);
    if (rc) return rc;
    int64_t base = out->length, nulls = 0;
    for (int64_t r = 0; r < l->length; r++) {
        bool valid = pq_bit_get(l->validity, r);
        pq_bit_set(out->validity, base + r, valid);
        nulls += !valid;
        for (int32_t i = l->offsets[r]; valid && i < l->offsets[r + 1]; i++)
            out->data_len += put_element(&l->items, i, out->data + out->data_len);
        out->offsets[base + r + 1] = (int32_t)out->data_len;
    }
    if (nulls && out->null_count == 0) /* the first nulls: the rows before were valid */
        for (int64_t r = 0; r < base; r++) pq_bit_set(out->validity, r, true);
    out->null_count += nulls;
    out->length += l->length;
    return 0;
}

/* The element at p (within end) appended to items; returns the bytes it took. */
static int64_t get_element(const uint8_t *p, const uint8_t *end, pq_vec *items)
{
    int64_t k = items->length;
    assert(p < end && p[0] <= 1);
    if (p[0] == 0) {
        if (items->null_count == 0)
            for (int64_t i = 0; i < k; i++) pq_bit_set(items->validity, i, true);
        pq_bit_set(items->validity, k, false);
        items->null_count++;
        if (items->type == PQ_BYTE_ARRAY) items->offsets[k + 1] = (int32_t)items->data_len;
        else if (items->type == PQ_BOOLEAN) pq_bit_set(items->values, k, false);
        else {
            size_t w = (size_t)pq_fixed_width(items->type, items->type_length);
            memset(items->values + (size_t)k * w, 0, w);
        }
        items->length++;
        return 1;
    }
    pq_bit_set(items->validity, k, true);
    int64_t used;
    if (items->type == PQ_BOOLEAN) {
        pq_bit_set(items->values, k, p[1] != 0);
        used = 2;
    } else if (items->type == PQ_BYTE_ARRAY) {
        uint32_t n;
        memcpy(&n, p + 1, 4);
        assert(p + 5 + n <= end);
        memcpy(items->data + items->data_len, p + 5, n);
        items->data_len += n;
        items->offsets[k + 1] = (int32_t)items->data_len;
        used = 5 + (int64_t)n;
    } else {
        size_t w = (size_t)pq_fixed_width(items->type, items->type_length);
        memcpy(items->values + (size_t)k * w, p + 1, w);
        used = 1 + (int64_t)w;
    }
    assert(p + used <= end);
    items->length++;
    return used;
}

int scan_list_unpack(const pq_vec *v, pq_vec *items, int32_t *offsets)
{
    assert(v->type == PQ_BYTE_ARRAY);
    /* every element takes at least its flag byte: data_len bounds their count and bytes */
    int rc = pq_vec_reserve(items, v->data_len, items->type == PQ_BYTE_ARRAY ? v->data_len : 0);
    if (rc) return rc;
    offsets[0] = (int32_t)items->length;
    for (int64_t r = 0; r < v->length; r++) {
        if (v->offsets[r + 1] > v->offsets[r]) { /* an empty row may have no data buffer */
            const uint8_t *p = v->data + v->offsets[r], *end = v->data + v->offsets[r + 1];
            while (p < end) p += get_element(p, end, items);
        }
        offsets[r + 1] = (int32_t)items->length;
    }
    return 0;
}
