/* scan/api_priv.h: what the files of the public API (scan/api.c, scan/api_meta.c,
 * scan/api_expr.c) share: the definition of ringscan_file, the typing of filter trees.
 * Nothing here is exported (ringscan.map). */
#ifndef RINGSCAN_SCAN_API_PRIV_H
#define RINGSCAN_SCAN_API_PRIV_H
#include "ringscan.h"
#include "filter/expr.h"
#include "scan/pqfile.h"

/* An open file: the parsed footer (f->meta, read-only after open) and the path its messages
 * name. */
struct ringscan_file {
    pqf_t *f;
    char *path;
};

/* The predicates of a filter tree over the schema cols[0..ncols) (flt_from_tree). */
int scan_filter_from_expr(const ringscan_expr *e, const pq_column_desc *cols, int32_t ncols,
                          flt_expr **out, pq_err *err);

#endif
