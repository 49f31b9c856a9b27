/* scan/batch.c: an output batch's lifetime (scan.h scan_batch), below the split task that
 * builds batches and the output window that holds them. */
#include <stdlib.h>
#include <string.h>

#include "scan/scan.h"

void scan_batch_free(scan_batch *b)
{
    for (int i = 0; b->cols && i < b->ncols; i++) pq_vec_free(&b->cols[i]);
    free(b->cols);
    memset(b, 0, sizeof *b);
}
