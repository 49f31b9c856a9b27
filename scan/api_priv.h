/* scan/api_priv.h: what the files of the public API (scan/api.c, scan/api_meta.c,
 * scan/api_expr.c) share: the definition of ringscan_file, the typing of filter trees.
 * Nothing here is exported (ringscan.map). */
#ifndef RINGSCAN_SCAN_API_PRIV_H
#define RINGSCAN_SCAN_API_PRIV_H
#include "ringscan.h"
#include "filter/expr.h"
#include "scan/arrow.h"
#include "scan/pqfile.h"

/* Nested columns (scan/api_nested.c): 0, or RINGSCAN_EUNSUPPORTED with e naming the column.
 * scan_nested_all: the columns of a scan with no column list into idx[0 .. *n) (room for
 * ncolumns): every top-level field, flat or a list of a primitive; refused when some other
 * nested field is there, the message listing the fields that can be read.
 * scan_nested_resolve: a projected name into *col: a column (flat), or a top-level list of a
 * primitive (its leaf); a nested leaf's or field's path is the nested error, another name
 * -EINVAL "no column named".
 * scan_nested_filter / scan_nested_keys: rc == 0, the parsed filter's predicates / the sort
 * key columns cols[0..n); rc != 0, the parse error rc, rewritten to the nested error when its
 * message quotes the path of a node in a nested field. `use` says what the column was asked
 * for ("filtered on").
 * scan_nested_arrow_col: a projected column as the Arrow export shows it (a list's field and
 * element names). */
int scan_nested_all(const pq_file_meta *m, int *idx, int32_t *nodes, int *n, pq_err *e);
int scan_nested_resolve(const pq_file_meta *m, const char *name, int *col, int32_t *node,
                        pq_err *e);
int scan_nested_filter(const pq_file_meta *m, const flt_expr *f, int rc, const char *use,
                       pq_err *e);
int scan_nested_keys(const pq_file_meta *m, const int *cols, int n, int rc, pq_err *e);
scan_arrow_col scan_nested_arrow_col(const pq_file_meta *m, const pq_column_desc *d, int32_t node);

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
