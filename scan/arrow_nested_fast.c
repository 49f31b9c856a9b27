/* scan/arrow_nested_fast.c: the fast shapes' rows (format/column_nested.h: flat lists, and
 * structs of primitives and lists of leaves in the general layout) into Arrow builders, for scan/arrow_nested.c:
 * each builder sized once, the rows walked in one loop with no call per row or value, and a
 * flat list's values moved rather than copied when it can.
 * Invariants: arrow_nested.c's (the packed bytes are the decoder's own: bytes that do not
 * parse are a broken invariant, NEST_VERIFY in every build); the builders are fresh (empty,
 * zeroed validity) when a function here starts, and arrow_nested.c frees them on failure. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "scan/arrow_nested.h"

/* Byte off of v's packed rows; NULL when v holds no bytes (rows of null placeholders only,
 * e.g. a dataset's file that lacks the field: its data pointer may be NULL, and adding even
 * 0 to NULL is undefined). */
static inline const uint8_t *row_at(const pq_vec *v, int64_t off)
{
    assert(v->data || off == 0);
    return v->data ? v->data + off : NULL;
}

int64_t scan_nest_elements_max = INT32_MAX; /* (here: arrow_nested.c calls this file) */

int scan_nest_flat_unpack(nest_unpack *u, int32_t w, pq_vec *v)
{
    nest_builder *b = &u->b[0], *eb = &u->b[1];
    int64_t n = v->length, total = 0;
    b->offsets = fail_malloc(sizeof(int32_t) * (size_t)(n + 1));
    if (!b->offsets) return -ENOMEM;
    b->off_cap = n + 1;
    b->offsets[0] = 0;
    bool any = false, flagged;
    for (int64_t r = 0; r < n; r++) {
        int64_t len = v->offsets[r + 1] - v->offsets[r], k = pq_nest_flat_count(len, w, &flagged);
        NEST_VERIFY(!flagged || len - k * (w + 1) < w); /* invariant 1 */
        any |= flagged;
        total += k; /* below INT32_MAX: each element takes w >= 2 of v's bytes */
        if (total > scan_nest_elements_max) return RINGSCAN_ELIMIT;
        b->offsets[r + 1] = (int32_t)total;
    }
    b->length = n, b->null_count = v->null_count;
    if (v->null_count) {
        b->valid = v->validity, b->valid_cap = v->validity_cap;
        v->validity = NULL, v->validity_cap = 0;
    }
    pq_vec *ev = &eb->vals;
    eb->length = total;
    if (!any && n > 0 && v->offsets[0] == 0) {
        free(ev->values);
        ev->values = v->data, ev->values_cap = v->data_cap;
        v->data = NULL, v->data_cap = 0;
        ev->length = total, ev->null_count = 0;
        return 0;
    }
    int rc = pq_vec_reserve(ev, total, 0);
    for (int64_t r = 0; rc == 0 && total > 0 && r < n; r++) { /* total 0: v may hold no bytes */
        const uint8_t *p = v->data + v->offsets[r];
        int64_t k = pq_nest_flat_count(v->offsets[r + 1] - v->offsets[r], w, &flagged), at = ev->length;
        memcpy(ev->values + at * w, p, (size_t)(k * w));
        for (int64_t i = 0; i < k; i++) {
            bool valid = !flagged || p[k * w + i];
            pq_bit_set(ev->validity, at + i, valid);
            ev->null_count += !valid;
        }
        ev->length += k;
    }
    return rc;
}

int scan_nest_flat_fixed(nest_unpack *u, int32_t w, int32_t size)
{
    nest_builder *b = &u->b[0], *eb = &u->b[1];
    pq_vec *ev = &eb->vals, nv;
    assert(size >= 0 && w >= 2);
    if (b->length > 0 && (int64_t)size > SCAN_NEST_FIXED_MAX / b->length)
        return pq_errf(u->e, RINGSCAN_ELIMIT, -1, "column '%.100s': %lld rows of the stored "
                       "fixed_size_list<%d> take more than %d elements", u->name,
                       (long long)b->length, size, SCAN_NEST_FIXED_MAX);
    pq_vec_init(&nv, ev->type, ev->type_length);
    int rc = pq_vec_reserve(&nv, b->length * size, 0);
    int64_t from = 0; /* row r's first element in ev (its offset before this rewrote it) */
    for (int64_t r = 0; rc == 0 && r < b->length; r++) {
        bool valid = !b->valid || pq_bit_get(b->valid, r);
        int64_t next = b->offsets[r + 1], k = next - from;
        if (valid && k != size) /* the stored type's size broken */
            rc = pq_errf(u->e, RINGSCAN_EFORMAT, -1, "column '%.100s': a list of %lld elements "
                         "where the stored fixed_size_list needs %d (row %lld of the batch)",
                         u->name, (long long)k, size, (long long)r);
        for (int64_t i = 0; rc == 0 && i < size; i++) {
            bool ok = valid && pq_vec_is_valid(ev, from + i);
            if (ok) memcpy(nv.values + nv.length * w, ev->values + (from + i) * w, (size_t)w);
            else memset(nv.values + nv.length * w, 0, (size_t)w);
            pq_bit_set(nv.validity, nv.length, ok);
            nv.null_count += !ok, nv.length++;
        }
        b->offsets[r + 1] = (int32_t)nv.length;
        from = next;
    }
    if (rc) return pq_vec_free(&nv), rc;
    pq_vec_free(ev);
    *ev = nv, eb->length = nv.length;
    return 0;
}

/* One child of a struct of primitives, read at a row's bytes *p (the row valid and this
 * child's flag next; the row ends at end, the rows' bytes at bufend) or null (p NULL),
 * appended at row r of its values. Inlined at every call (the compiler kept it a call: its
 * branches on the leaf's type then fold into each caller's loop; about 4-7% of the CPU of a
 * struct, map or list<string> read, bench/RESULTS.md). */
static inline __attribute__((always_inline)) void struct_child(pq_vec *cv, int32_t w, int64_t r, const uint8_t **p, const uint8_t *end,
                                const uint8_t *bufend)
{
    bool valid = false;
    if (p) {
        NEST_VERIFY(*p < end && **p <= 1);
        valid = *(*p)++ != 0;
    }
    if (valid) pq_bit_set(cv->validity, r, true); /* fresh bits are zero: a null's stays */
    cv->null_count += !valid;
    if (w) {
        NEST_VERIFY(!valid || end - *p >= w);
        if (valid) pq_copy_fixed(cv->values + (size_t)r * (size_t)w, *p, w), *p += w;
        else memset(cv->values + (size_t)r * (size_t)w, 0, (size_t)w);
    } else if (cv->type == PQ_BOOLEAN) {
        NEST_VERIFY(!valid || end - *p >= 1);
        if (valid) pq_bit_set(cv->values, r, *(*p)++ != 0);
    } else {
        uint32_t n = 0;
        if (valid) {
            NEST_VERIFY(end - *p >= 4);
            memcpy(&n, *p, 4);
            NEST_VERIFY((uint64_t)(end - *p - 4) >= n);
            pq_copy_short(cv->data + cv->data_len, *p + 4, n,
                          bufend - (*p + 4) >= 16 && cv->data_cap - cv->data_len >= 16);
            *p += 4 + n;
        }
        cv->data_len += n;
        cv->offsets[r + 1] = (int32_t)cv->data_len;
    }
}

int scan_nest_struct_unpack(nest_unpack *u, pq_vec *v)
{
    int32_t nc = u->t[0].nchildren;
    int64_t n = v->length;
    nest_builder *b = &u->b[0];
    assert(u->t[0].kind == PQ_NEST_STRUCT && u->n == 1 + nc && b->length == 0);
    b->valid_cap = (n + 7) / 8 + 1;
    b->valid = fail_calloc((size_t)b->valid_cap, 1);
    int rc = b->valid ? 0 : -ENOMEM;
    int32_t w[64]; /* fixed widths; a wider struct is refused by the caller */
    assert(nc <= 64);
    for (int32_t k = 1; rc == 0 && k <= nc; k++) { /* a child's strings fit in the rows' bytes */
        pq_vec *cv = &u->b[k].vals;
        rc = pq_vec_reserve(cv, n, cv->type == PQ_BYTE_ARRAY ? v->data_len : 0);
        w[k - 1] = cv->type == PQ_BOOLEAN || cv->type == PQ_BYTE_ARRAY ? 0 : pq_fixed_width(cv->type, cv->type_length);
    }
    const uint8_t *bufend = row_at(v, v->data_len);
    for (int64_t r = 0; rc == 0 && r < n; r++) {
        const uint8_t *p = row_at(v, v->offsets[r]), *end = row_at(v, v->offsets[r + 1]);
        NEST_VERIFY(p == end || *p <= 1); /* no bytes: a null placeholder */
        bool valid = p < end && *p++ != 0;
        if (valid) pq_bit_set(b->valid, r, true);
        b->null_count += !valid;
        for (int32_t k = 0; k < nc; k++) struct_child(&u->b[k + 1].vals, w[k], r, valid ? &p : NULL, end, bufend);
        NEST_VERIFY(p == end);
    }
    if (rc) return rc;
    b->length = n;
    for (int32_t k = 1; k <= nc; k++) u->b[k].vals.length = u->b[k].length = n;
    return 0;
}

/* Pass 1 of a list of leaves: the list's validity and offsets from each row's flag and
 * count (v's rows are the general layout); *total the elements. 0, -ENOMEM or
 * RINGSCAN_ELIMIT (elements past INT32_MAX, arrow_nested.c invariant 2). */
static int list_rows(nest_builder *b, const pq_vec *v, int64_t *total)
{
    int64_t n = v->length, sum = 0;
    b->offsets = fail_malloc(sizeof(int32_t) * (size_t)(n + 1));
    b->valid_cap = (n + 7) / 8 + 1;
    b->valid = fail_calloc((size_t)b->valid_cap, 1);
    if (!b->offsets || !b->valid) return -ENOMEM;
    b->off_cap = n + 1;
    b->offsets[0] = 0;
    for (int64_t r = 0; r < n; r++) {
        const uint8_t *p = row_at(v, v->offsets[r]), *end = row_at(v, v->offsets[r + 1]);
        NEST_VERIFY(p == end || *p <= 1); /* no bytes: a null placeholder */
        bool valid = p < end && *p != 0;
        uint32_t k = 0;
        if (valid) {
            NEST_VERIFY(end - p >= 5);
            memcpy(&k, p + 1, 4);
            pq_bit_set(b->valid, r, true);
        }
        b->null_count += !valid;
        sum += k;
        if (sum > scan_nest_elements_max) return RINGSCAN_ELIMIT;
        b->offsets[r + 1] = (int32_t)sum;
    }
    b->length = n;
    *total = sum;
    return 0;
}

int scan_nest_list_unpack(nest_unpack *u, pq_vec *v)
{
    const pq_nest *t = u->t;
    bool st = t[1].kind == PQ_NEST_STRUCT;
    int32_t nc = st ? t[1].nchildren : 1, leaf0 = st ? 2 : 1, w[PQ_NEST_LIST_CHILDREN];
    nest_builder *eb = &u->b[1];
    assert(pq_nest_leaf_list(u->m, t) && u->n == leaf0 + nc && u->b[0].length == 0);
    int64_t total = 0;
    int rc = list_rows(&u->b[0], v, &total);
    if (rc == 0 && st) {
        eb->valid_cap = (total + 7) / 8 + 1;
        eb->valid = fail_calloc((size_t)eb->valid_cap, 1);
        rc = eb->valid ? 0 : -ENOMEM;
    }
    for (int32_t k = 0; rc == 0 && k < nc; k++) { /* a leaf's strings fit in the rows' bytes */
        pq_vec *cv = &u->b[leaf0 + k].vals;
        rc = pq_vec_reserve(cv, total, cv->type == PQ_BYTE_ARRAY ? v->data_len : 0);
        w[k] = cv->type == PQ_BOOLEAN || cv->type == PQ_BYTE_ARRAY ? 0 : pq_fixed_width(cv->type, cv->type_length);
    }
    const uint8_t *bufend = row_at(v, v->data_len);
    int64_t at = 0; /* the next element */
    for (int64_t r = 0; rc == 0 && r < v->length; r++) {
        const uint8_t *p = row_at(v, v->offsets[r]), *end = row_at(v, v->offsets[r + 1]);
        int64_t k = u->b[0].offsets[r + 1] - u->b[0].offsets[r];
        if (p != end) p += *p ? 5 : 1; /* the flag and count list_rows read */
        for (int64_t i = 0; i < k; i++, at++) {
            if (!st) {
                struct_child(&eb->vals, w[0], at, &p, end, bufend);
                continue;
            }
            NEST_VERIFY(p < end && *p <= 1);
            bool valid = *p++ != 0;
            if (valid) pq_bit_set(eb->valid, at, true);
            eb->null_count += !valid;
            for (int32_t c = 0; c < nc; c++) struct_child(&u->b[leaf0 + c].vals, w[c], at, valid ? &p : NULL, end, bufend);
        }
        NEST_VERIFY(p == end);
    }
    if (rc) return rc;
    eb->length = total;
    for (int32_t k = 0; k < nc; k++) u->b[leaf0 + k].vals.length = u->b[leaf0 + k].length = total;
    return 0;
}
