/* scan/api_priv.h: what the files of the public API (scan/api.c, scan/api_meta.c,
 * scan/api_expr.c) share: the definition of ringscan_file, the typing of filter trees.
 * Nothing here is exported (ringscan.map). */
#ifndef RINGSCAN_SCAN_API_PRIV_H
#define RINGSCAN_SCAN_API_PRIV_H
#include "ringscan.h"
#include "filter/expr.h"
#include "scan/pqfile.h"

/* Nested columns (scan/api_nested.c): 0, or RINGSCAN_EUNSUPPORTED with e naming the column.
 * scan_nested_projection: the projected columns idx[0..n) (all: no column list was given,
 * refused when the file has nested columns, the message listing its flat ones).
 * scan_nested_name: a name that is no column: the nested error when it is the path of a node
 * in a nested field, else 0 (the caller reports it unknown).
 * scan_nested_filter / scan_nested_keys: rc == 0, the parsed filter's predicates / the sort
 * key columns cols[0..n); rc != 0, the parse error rc, rewritten to the nested error when its
 * message quotes the path of a node in a nested field. `use` says what the column was asked
 * for ("filtered on"). */
int scan_nested_projection(const pq_file_meta *m, const int *idx, int n, bool all, pq_err *e);
int scan_nested_name(const pq_file_meta *m, const char *name, const char *use, pq_err *e);
int scan_nested_filter(const pq_file_meta *m, const flt_expr *f, int rc, const char *use,
                       pq_err *e);
int scan_nested_keys(const pq_file_meta *m, const int *cols, int n, int rc, pq_err *e);

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
