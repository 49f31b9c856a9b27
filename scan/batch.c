/* scan/batch.c: an output batch's lifetime (scan.h scan_batch), below the split task that
 * builds batches and the output window that holds them. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "scan/scan.h"

uint64_t scan_batch_bytes(const scan_batch *b)
{
    uint64_t n = 0;
    for (int i = 0; b->cols && i < 2 * b->ncols; i++) {
        const pq_vec *v = i < b->ncols ? &b->cols[i] : b->dicts ? &b->dicts[i - b->ncols] : NULL;
        if (!v) break;
        n += (uint64_t)v->validity_cap + (uint64_t)v->values_cap +
             (uint64_t)v->offsets_cap * sizeof(int32_t) + (uint64_t)v->data_cap + pq_nest_cols_bytes(v->cols);
    }
    return n;
}

int scan_batch_set_dict(scan_batch *b, int j, pq_vec *dict)
{
    assert(j >= 0 && j < b->ncols);
    if (!b->dicts) {
        b->dicts = fail_calloc((size_t)b->ncols, sizeof *b->dicts);
        b->dict_on = fail_calloc((size_t)b->ncols, sizeof *b->dict_on);
        if (!b->dicts || !b->dict_on) {
            free(b->dicts), free(b->dict_on);
            b->dicts = NULL, b->dict_on = NULL;
            pq_vec_free(dict);
            return -ENOMEM;
        }
    }
    b->dicts[j] = *dict;
    b->dict_on[j] = true;
    pq_vec_init(dict, dict->type, dict->type_length);
    return 0;
}

void scan_batch_free(scan_batch *b)
{
    for (int i = 0; b->dicts && i < b->ncols; i++) pq_vec_free(&b->dicts[i]);
    free(b->dicts);
    free(b->dict_on);
    for (int i = 0; b->cols && i < b->ncols; i++) pq_vec_free(&b->cols[i]);
    free(b->cols);
    free(b->pos);
    free(b->bad);
    memset(b, 0, sizeof *b);
}
