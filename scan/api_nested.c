/* scan/api_nested.c: what a scan of a file with nested columns may ask for, and the errors
 * that say so (issue 23: nested fields are read whole, or a struct's field by its path).
 *
 * Owns: the checks ringscan_scan_start and ringscan_topk_seed run on the projection, the
 * filter and the ORDER BY keys, the text of their errors, and how a projected nested node
 * shows in Arrow (its name: the field's, or a sub-field's dotted path).
 * Invariants:
 *  1. A scan reads a nested column only projected, as part of a node (format/column_nested.h):
 *     a top-level field ("m"), or any node inside one by its path ("s.a"; through a list or
 *     map, "m.key_value.key", a list of what it reaches), named so in Arrow; any filter
 *     predicate or sort key on a nested column is RINGSCAN_EUNSUPPORTED naming it, before
 *     anything is planned.
 *  2. A scan with no column list reads every top-level field; a field whose LIST or MAP shape
 *     the format does not allow refuses the scan (pyarrow refuses it too): the message names
 *     it and lists the fields that can be read (a silent drop would hand SELECT * users a
 *     table missing columns).
 *  3. A name that is not a column but is the path of a node inside a nested field gets the
 *     nested error in the filter and ORDER BY, and in the projection when its shape cannot be
 *     read (a LIST or MAP the format does not allow).
 *  4. Messages fit pq_err.msg: lists are cut with ", ... (N more)".
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "format/column_nested.h"
#include "scan/api_priv.h"

/* True when node i belongs to a nested top-level field. */
static bool node_nested(const pq_file_meta *m, int32_t i)
{
    assert(i >= 0 && i < m->nnodes);
    const pq_schema_node *top = &m->nodes[m->nodes[i].top];
    return top->shape != PQ_SHAPE_FLAT;
}

/* The column a scan reads for top-level field i: its own (flat), its first leaf (a nested
 * field whose shape can be read, format/column_nested.h), -1 (a shape the format does not
 * allow) or -ENOMEM. */
static int32_t top_column(const pq_file_meta *m, int32_t i)
{
    const pq_schema_node *nd = &m->nodes[i];
    assert(nd->depth == 1);
    if (nd->shape == PQ_SHAPE_FLAT) return nd->column;
    /* checked at parse (no memory needed here); a tree built another way is checked now */
    int rc = nd->shape_ok ? (nd->shape_ok > 0 ? 0 : -1) : pq_nest_check(m, i, NULL);
    if (rc) return rc == -ENOMEM ? -ENOMEM : -1;
    for (int32_t k = i; k < nd->end; k++)
        if (m->nodes[k].column >= 0) return m->nodes[k].column;
    return -1;
}

static int nested_error(const pq_file_meta *m, int32_t i, const char *use, pq_err *e);

/* Whether node i (inside a nested field) cannot be projected (invariant 1): true, with e
 * filled (its shape's error), when it cannot. */
static bool sub_field(const pq_file_meta *m, int32_t i, pq_err *e)
{
    if (!node_nested(m, i)) return false;
    pq_err pe = {.offset = -1};
    if (pq_nest_check(m, i, &pe) == 0) return false;
    *e = pe;
    return true;
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

/* The top-level fields of m that a scan reads (want_flat) or not, as "a, b" or "'c' (map),
 * 'd' (struct)", into buf of cap bytes: whole items only, then ", ... (N more)" when some did
 * not fit (invariant 4). */
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
        if ((top_column(m, i) >= 0) != want_flat) continue;
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
        return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "a LIST or MAP whose shape the format does "
                       "not allow cannot be read: %s; the file has no other column", nested);
    return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "a LIST or MAP whose shape the format does not "
                   "allow cannot be read: %s; name the columns that can be read instead: %s",
                   nested, flat);
}

int scan_nested_all(const pq_file_meta *m, int *idx, int32_t *nodes, int *n, pq_err *e)
{
    if (!m->has_nested) { /* every column, in order */
        for (int i = 0; i < m->ncolumns; i++) idx[i] = i, nodes[i] = -1;
        *n = m->ncolumns;
        return *n > 0 ? 0 : pq_errf(e, -EINVAL, -1, "no columns to scan");
    }
    int k = 0;
    for (int32_t i = 0; i < m->nnodes; i = m->nodes[i].end) {
        int32_t col = top_column(m, i);
        if (col == -ENOMEM) return pq_errf(e, -ENOMEM, -1, "out of memory");
        if (col < 0) return refuse_all(m, e);
        assert(k < m->ncolumns);
        nodes[k] = m->nodes[i].shape == PQ_SHAPE_FLAT ? -1 : i;
        idx[k++] = col;
    }
    *n = k;
    return 0;
}

int scan_nested_resolve(const pq_file_meta *m, const char *name, int *col, int32_t *node,
                        pq_err *e)
{
    *node = -1;
    const char *top = pq_file_meta_top_name(m, name, false); /* (another case: SQL's) */
    if (top) name = top;
    *col = pq_file_meta_find_column(m, name);
    if (*col >= 0 && !m->columns[*col].nested) return 0;
    int32_t i = m->has_nested ? pq_file_meta_find_path(m, name) : -1; /* (any case: SQL's) */
    if (i >= 0 && m->nodes[i].depth == 1 && (*col = top_column(m, i)) >= 0) {
        *node = i;
        return 0;
    }
    if (i >= 0 && m->nodes[i].depth == 1 && *col == -ENOMEM)
        return pq_errf(e, -ENOMEM, -1, "out of memory");
    if (i >= 0 && m->nodes[i].depth > 1 && sub_field(m, i, e)) return e->status;
    if (i >= 0 && m->nodes[i].depth > 1) {
        *node = i;
        pq_nest_leaves(m, i, col);
        return 0;
    }
    if (i >= 0 && node_nested(m, i)) return nested_error(m, i, "projected", e);
    return pq_errf(e, -EINVAL, -1, "no column named '%s'", name);
}

scan_arrow_col scan_nested_arrow_col(const pq_file_meta *m, const pq_column_desc *d, int32_t node)
{
    if (!d->nested) return (scan_arrow_col){.desc = d, .name = d->name, .node = -1};
    if (node < 0) node = pq_nest_field_of(m, d->index);
    assert(node >= 0); /* invariant 1 */
    return (scan_arrow_col){.desc = d, .name = m->nodes[node].path, .meta = m, .node = node};
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

bool scan_nested_fixed_lists(const pq_file_meta *m, const int *idx, const int32_t *nodes, int n)
{
    scan_arrow_col *c = fail_calloc((size_t)n + 1, sizeof *c);
    if (!c) return true;
    for (int i = 0; i < n; i++) c[i] = scan_nested_arrow_col(m, &m->columns[idx[i]], nodes ? nodes[i] : -1);
    scan_arrow_types t;
    pq_err e = {.offset = -1};
    int rc = scan_arrow_types_build(m, c, n, &t, &e); /* failed: freed, the scan reports it */
    bool fixed = rc != 0 || scan_arrow_fixed_lists(t.cols, t.n);
    if (rc == 0) scan_arrow_types_free(&t);
    free(c);
    return fixed;
}
