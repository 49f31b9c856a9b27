/* scan/arrow.h: scan batches as Arrow C Data Interface structures (see arrow.c). */
#ifndef RINGSCAN_SCAN_ARROW_H
#define RINGSCAN_SCAN_ARROW_H
#include <stddef.h>

#include "ringscan.h"
#include "scan/scan.h"

/* Arrow format string of a column ("l", "u", "d:15,2", "tsu:UTC", ...), in buf when built. */
const char *scan_arrow_format(const pq_column_desc *d, char *buf, size_t n);
/* A struct schema with one child per column. 0 or -ENOMEM. */
int scan_arrow_schema(const pq_column_desc *const *cols, int n, struct ArrowSchema *out);
/* Moves b's vectors into a struct array (b's vectors are left empty). 0 or -ENOMEM. */
int scan_arrow_batch(const pq_column_desc *const *cols, scan_batch *b, struct ArrowArray *out);

#endif
