/* scan/api_nested.c: what a scan of a file with nested columns may ask for, and the errors
 * that say so (issue 23, first step: nested columns are described, not yet decoded).
 *
 * Owns: the checks ringscan_scan_start and ringscan_topk_seed run on the projection, the
 * filter and the ORDER BY keys, and the text of their errors.
 * Invariants:
 *  1. A scan never reads a nested column: a projection, a filter predicate or a sort key on
 *     one is RINGSCAN_EUNSUPPORTED naming it, before anything is planned. So decoders below
 *     only ever see flat columns (format/meta.h invariant 2).
 *  2. A scan with no column list over a file with nested columns is refused, not narrowed:
 *     the message names the nested fields and lists the flat columns to project instead
 *     (a silent drop would hand SELECT * users a table missing columns; DuckDB and pyarrow
 *     read every column, so the least surprise is an error that says how to proceed).
 *  3. A name that is not a column but is the path of a node inside a nested field ("s",
 *     "a.list") gets the same nested error, in the projection, the filter and ORDER BY.
 *  4. Messages fit pq_err.msg: lists are cut with ", ..." and the count of what was left out.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "scan/api_priv.h"

/* True when node i belongs to a nested top-level field. */
static bool node_nested(const pq_file_meta *m, int32_t i)
{
    assert(i >= 0 && i < m->nnodes);
    const pq_schema_node *top = &m->nodes[m->nodes[i].top];
    return top->shape != PQ_SHAPE_FLAT;
}

/* The error about node i of a nested field, used as `use` ("projected", "filtered on"). */
static int nested_error(const pq_file_meta *m, int32_t i, const char *use, pq_err *e)
{
    const pq_schema_node *nd = &m->nodes[i], *top = &m->nodes[nd->top];
    const char *kind = pq_shape_name(top->shape);
    if (nd->depth == 1)
        return pq_errf_col(e, RINGSCAN_EUNSUPPORTED, -1, nd->path,
                           "column '%.200s': nested columns (%s) cannot be %s yet", nd->path,
                           kind, use);
    return pq_errf_col(e, RINGSCAN_EUNSUPPORTED, -1, nd->path,
                       "column '%.200s': nested columns (inside %s '%.100s') cannot be %s yet",
                       nd->path, kind, top->path, use);
}

/* The top-level fields of m that are flat (want_flat) or nested, as "'a' (list), 'b' (map)"
 * or "a, b", into buf of cap bytes: whole items only, then ", ... (N more)" when some did not
 * fit (invariant 4). */
static void list_fields(const pq_file_meta *m, bool want_flat, char *buf, size_t cap)
{
    enum { MORE_BYTES = 24 }; /* ", ... (N more)" */
    char item[160];
    size_t len = 0;
    int shown = 0, left = 0;
    assert(cap > MORE_BYTES + 1);
    buf[0] = 0;
    for (int32_t i = 0; i < m->nnodes; i = m->nodes[i].end) {
        const pq_schema_node *nd = &m->nodes[i];
        if ((nd->shape == PQ_SHAPE_FLAT) != want_flat) continue;
        if (want_flat) snprintf(item, sizeof item, "%s%.100s", shown ? ", " : "", nd->path);
        else snprintf(item, sizeof item, "%s'%.100s' (%s)", shown ? ", " : "", nd->path,
                      pq_shape_name(nd->shape));
        size_t need = strlen(item);
        if (left || len + need + MORE_BYTES >= cap) {
            left++;
            continue;
        }
        memcpy(buf + len, item, need + 1);
        len += need;
        shown++;
    }
    if (left) snprintf(buf + len, cap - len, ", ... (%d more)", left);
}

/* Invariant 2: the refusal of a scan of every column. */
static int refuse_all(const pq_file_meta *m, pq_err *e)
{
    char nested[96], flat[112];
    list_fields(m, false, nested, sizeof nested);
    list_fields(m, true, flat, sizeof flat);
    if (!flat[0])
        return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "nested columns cannot be projected yet: %s;"
                       " the file has no flat column to scan", nested);
    return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "nested columns cannot be projected yet: %s; "
                   "name the flat columns to scan instead: %s", nested, flat);
}

int scan_nested_projection(const pq_file_meta *m, const int *idx, int n, bool all, pq_err *e)
{
    if (!m->has_nested) return 0;
    if (all) return refuse_all(m, e);
    for (int i = 0; i < n; i++) {
        assert(idx[i] >= 0 && idx[i] < m->ncolumns);
        const pq_column_desc *c = &m->columns[idx[i]];
        if (c->nested) return nested_error(m, c->node, "projected", e);
    }
    return 0;
}

int scan_nested_name(const pq_file_meta *m, const char *name, const char *use, pq_err *e)
{
    int32_t i = m->has_nested ? pq_file_meta_find_node(m, name) : -1;
    return i >= 0 && node_nested(m, i) ? nested_error(m, i, use, e) : 0;
}

/* Invariant 3 for a failed parse: the first nested node whose quoted path the message holds. */
static int rewrite(const pq_file_meta *m, int rc, const char *use, pq_err *e)
{
    char needle[sizeof e->msg + 2];
    for (int32_t i = 0; i < m->nnodes; i++) {
        size_t len = strlen(m->nodes[i].path);
        if (len + 2 >= sizeof e->msg || !node_nested(m, i)) continue;
        snprintf(needle, sizeof needle, "'%s'", m->nodes[i].path);
        if (strstr(e->msg, needle)) return nested_error(m, i, use, e);
    }
    return rc;
}

int scan_nested_filter(const pq_file_meta *m, const flt_expr *f, int rc, const char *use,
                       pq_err *e)
{
    if (!m->has_nested) return rc;
    if (rc) return e ? rewrite(m, rc, use, e) : rc;
    for (int32_t k = 0; f && k < f->npreds; k++) {
        const flt_pred *pr = &f->preds[k];
        int32_t n = pr->multi ? pr->multi->ncols : 1;
        for (int32_t j = 0; j < n; j++) {
            int32_t col = pr->multi ? pr->multi->cols[j] : pr->column;
            assert(col >= 0 && col < m->ncolumns);
            if (m->columns[col].nested) return nested_error(m, m->columns[col].node, use, e);
        }
    }
    return 0;
}

int scan_nested_keys(const pq_file_meta *m, const int *cols, int n, int rc, pq_err *e)
{
    if (!m->has_nested) return rc;
    if (rc) return e ? rewrite(m, rc, "sorted by", e) : rc;
    for (int j = 0; j < n; j++) {
        assert(cols[j] >= 0 && cols[j] < m->ncolumns);
        if (m->columns[cols[j]].nested) return nested_error(m, m->columns[cols[j]].node, "sorted by", e);
    }
    return 0;
}
