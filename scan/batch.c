/* scan/batch.c: an output batch's lifetime (scan.h scan_batch), below the split task that
 * builds batches and the output window that holds them. */
#include <stdlib.h>
#include <string.h>

#include "scan/scan.h"

uint64_t scan_batch_bytes(const scan_batch *b)
{
    uint64_t n = 0;
    for (int i = 0; b->cols && i < b->ncols; i++) {
        const pq_vec *v = &b->cols[i];
        n += (uint64_t)v->validity_cap + (uint64_t)v->values_cap +
             (uint64_t)v->offsets_cap * sizeof(int32_t) + (uint64_t)v->data_cap;
    }
    return n;
}

void scan_batch_free(scan_batch *b)
{
    for (int i = 0; b->cols && i < b->ncols; i++) pq_vec_free(&b->cols[i]);
    free(b->cols);
    free(b->pos);
    memset(b, 0, sizeof *b);
}
