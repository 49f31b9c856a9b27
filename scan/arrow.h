/* scan/arrow.h: scan batches as Arrow C Data Interface structures (see arrow.c). */
#ifndef RINGSCAN_SCAN_ARROW_H
#define RINGSCAN_SCAN_ARROW_H
#include <stddef.h>

#include "ringscan.h"
#include "scan/scan.h"

/* How types without one Arrow form are exported (bits). */
enum {
    SCAN_ARROW_INT96_RAW = 1 /* INT96 as its 12 stored bytes ("w:12"), not timestamp[ns] */
};

/* Arrow format string of a column ("l", "u", "d:15,2", "tsu:UTC", ...), in buf when built. */
const char *scan_arrow_format(const pq_column_desc *d, unsigned flags, char *buf, size_t n);
/* A struct schema with one child per column. 0 or -ENOMEM. */
int scan_arrow_schema(const pq_column_desc *const *cols, int n, unsigned flags,
                      struct ArrowSchema *out);
/* Moves b's vectors into a struct array (b's vectors are left empty). 0 or -ENOMEM. */
int scan_arrow_batch(const pq_column_desc *const *cols, unsigned flags, scan_batch *b,
                     struct ArrowArray *out);

#endif
