/* scan/arrow_dict.c: a batch column as dictionary indices and values for the Arrow export of
 * options.dictionary_columns when the split decoded its values (a column a filter or ORDER BY
 * read; otherwise scan/task_dictout.c hands the chunk's dictionary and the pages' indices
 * through): the values are encoded again with format/'s dictionary builder (distinct values
 * in first-appearance order).
 * Invariants: indices are int32 in [0, dictionary length); a null row's index is 0 and its
 * validity bit clear; on error nothing is left allocated. */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "format/encoding.h"
#include "scan/arrow.h"

int scan_arrow_dict_encode(const pq_vec *v, pq_vec *idx, pq_vec *dict)
{
    pq_dict_builder b;
    pq_vec_init(idx, PQ_INT32, 0);
    pq_vec_init(dict, v->type, v->type_length);
    int rc = pq_dictb_init(&b, v->type, v->type_length, INT64_MAX, INT32_MAX);
    if (rc) return rc;
    uint32_t *dense = fail_malloc(sizeof *dense * (size_t)(v->length + 1));
    int64_t ndense = 0, done = 0;
    rc = dense ? pq_dictb_add(&b, v, 0, v->length, dense, &ndense, &done) : -ENOMEM;
    if (rc == 0) rc = pq_vec_reserve(idx, v->length, 0);
    if (rc == 0) {
        assert(done == v->length && ndense == v->length - v->null_count);
        int32_t *out = (int32_t *)(void *)idx->values;
        int64_t k = 0;
        for (int64_t r = 0; r < v->length; r++) {
            bool valid = v->null_count == 0 || pq_bit_get(v->validity, r);
            out[r] = valid ? (int32_t)dense[k++] : 0;
            if (v->null_count) pq_bit_set(idx->validity, r, valid);
        }
        assert(k == ndense);
        idx->length = v->length, idx->null_count = v->null_count;
        *dict = b.values; /* moved: the builder's table goes, its values stay */
        pq_vec_init(&b.values, v->type, v->type_length);
    }
    free(dense);
    pq_dictb_free(&b);
    if (rc) pq_vec_free(idx), pq_vec_free(dict);
    return rc;
}
