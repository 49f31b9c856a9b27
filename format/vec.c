/* format/vec.c: allocation for pq_vec (see vec.h for the layout and its invariants). */
#include "format/vec.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void pq_vec_init(pq_vec *v, pq_physical type, int32_t type_length)
{
    assert(type >= PQ_BOOLEAN && type <= PQ_FIXED_LEN_BYTE_ARRAY);
    memset(v, 0, sizeof *v);
    v->type = type;
    v->type_length = type == PQ_FIXED_LEN_BYTE_ARRAY ? type_length : 0;
}

/* Grows *buf (cap in bytes) to hold at least need bytes, new bytes zeroed. */
static int grow(uint8_t **buf, int64_t *cap, int64_t need)
{
    assert(need >= 0);
    if (need <= *cap) return 0;
    int64_t n = *cap > 0 ? *cap : 64;
    while (n < need) n *= 2;
    uint8_t *p = realloc(*buf, (size_t)n);
    if (!p) return -ENOMEM;
    memset(p + *cap, 0, (size_t)(n - *cap));
    *buf = p;
    *cap = n;
    return 0;
}

int pq_vec_reserve(pq_vec *v, int64_t rows, int64_t data_bytes)
{
    assert(rows >= 0 && data_bytes >= 0);
    int64_t total = v->length + rows;
    int rc = grow(&v->validity, &v->validity_cap, (total + 7) / 8);
    if (rc) return rc;
    if (v->type == PQ_BOOLEAN) return grow(&v->values, &v->values_cap, (total + 7) / 8);
    if (v->type == PQ_BYTE_ARRAY) {
        int64_t cap_bytes = v->offsets_cap * (int64_t)sizeof(int32_t);
        uint8_t *off = (uint8_t *)v->offsets;
        rc = grow(&off, &cap_bytes, (total + 1) * (int64_t)sizeof(int32_t));
        v->offsets = (int32_t *)off;
        v->offsets_cap = cap_bytes / (int64_t)sizeof(int32_t);
        if (rc) return rc;
        return grow(&v->data, &v->data_cap, v->data_len + data_bytes);
    }
    return grow(&v->values, &v->values_cap, total * pq_fixed_width(v->type, v->type_length));
}

void pq_vec_free(pq_vec *v)
{
    free(v->validity);
    free(v->values);
    free(v->offsets);
    free(v->data);
    pq_vec_init(v, v->type, v->type_length);
}

void pq_vec_clear(pq_vec *v)
{
    v->length = 0;
    v->null_count = 0;
    v->data_len = 0;
    if (v->offsets) v->offsets[0] = 0;
}
