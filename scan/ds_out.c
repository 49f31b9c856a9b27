/* scan/ds_out.c: a dataset scan's output columns (names resolved in its schema, ORDER BY
 * keys hidden after them), a file's batch rewritten to them (virtual columns as constants,
 * narrower types widened, durations rescaled), a batch cut at the limit, and the output's
 * schema, columns and --explain text (ds_scan_schema, ds_scan_column, ds_scan_explain).
 * Below dataset.c (ds_run.h). */
#include <assert.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "filter/sortkey.h"
#include "format/column_nested.h"
#include "scan/api_priv.h"
#include "scan/ds_run.h"

/* The nested schema column name lies inside (its first component's: spelled so, else the only
 * one differing in case alone, as SQL names match), or -1. */
static int nested_top(const ds_scan *d, const char *name)
{
    const char *dot = strchr(name, '.');
    if (!dot) return -1;
    size_t len = (size_t)(dot - name);
    int at = ds_names_exact(&d->s.names, name, len), folded = -1, n = 0;
    if (at >= 0 && d->s.cols[at].node >= 0) return at; /* (the only one so spelled) */
    for (int c = ds_names_group(&d->s.names, name, len); c >= 0; c = d->s.names.next[c])
        if (d->s.cols[c].node >= 0) folded = c, n++; /* (c != at: at is flat) */
    return n == 1 ? folded : -1;
}

/* Whether the query may need a column only the files pruned by partition have: every column
 * (no column list), or a name the schema lacks: projected, an ORDER BY key, or one the filter
 * reads (it fails to type against every schema column). */
bool ds_names_missing(const ds_scan *d, const ds_scan_args *a)
{
    if (!a->columns && !a->count) return true; /* a count reads the filter's columns only: */
    /* they are checked below (a union by name's column only a pruned file has) */
    for (int j = 0; a->columns && j < a->ncolumns; j++)
        if (ds_schema_find(&d->s, a->columns[j]) < 0 && nested_top(d, a->columns[j]) < 0) return true;
    pq_column_desc *cols = fail_malloc(sizeof *cols * (size_t)(d->s.n + 1));
    if (!cols) return false;
    for (int c = 0; c < d->s.n; c++) cols[c] = d->s.cols[c].desc, cols[c].index = c;
    flt_order_term t[FLT_MAX_SORT_KEYS];
    flt_expr *x = NULL;
    pq_err e = {.offset = -1};
    int nk = 0;
    bool miss = a->order_by && flt_parse_order(a->order_by, cols, d->s.n, false, t, &nk, &e) != 0;
    if (!miss && a->filter) miss = flt_parse(a->filter, cols, d->s.n, &x, &e) != 0;
    else if (!miss && a->filter_expr) miss = scan_filter_from_expr(a->filter_expr, cols, d->s.n, &x, &e) != 0;
    flt_expr_free(x);
    free(cols);
    return miss;
}

/* The error for a projected name the schema lacks: a path inside a nested field it reads
 * whole, a nested field it leaves out (a shape the format does not allow), or none. */
static int no_column(const ds_scan *d, const char *name, pq_err *e)
{
    const char *in = ds_schema_nested(&d->s, name);
    if (in)
        return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "column '%.100s' is a nested field whose LIST "
                       "or MAP shape the format does not allow, in %.200s", name, in);
    return pq_errf(e, -EINVAL, -1, "no column named '%.100s' in the dataset", name);
}

/* Output j as path name inside nested schema column top (its shape is every file's: a path
 * resolves alike in each), named and typed as a one-file scan of top's first file gives it; a
 * path spelling a list's or a map's levels as another writer does (a two-level list's
 * "l.array.c" for the shape's "l.list.element.c", a map's "m.map.key" for "m.key_value.key",
 * or the reverse) is the shape's node's (ds_path_respell), named as the shape spells it. */
static int path_col(ds_scan *d, int j, int top, const char *name, pq_err *e)
{
    const ds_col *c = &d->s.cols[top];
    int col = -1;
    int32_t node = -1;
    int rc = scan_nested_resolve(c->meta, name, &col, &node, e);
    int32_t as = rc ? ds_path_respell(c, name) : -1; /* (another writer's levels) */
    if (as >= 0) { /* named as the shape spells it: every file's node pairs with the shape's */
        name = c->meta->nodes[as].path;
        rc = scan_nested_resolve(c->meta, name, &col, &node, e);
    }
    if (rc) return rc;
    if (!(d->opath[j] = fail_strdup(name))) return -ENOMEM;
    d->out[j] = top;
    d->acols[j] = scan_nested_arrow_col(c->meta, &c->meta->columns[col], node);
    d->acols[j].open = true;
    return 0;
}

/* The Arrow types of the paths projected (ds_types_project gave their columns' types). */
static int path_types(ds_scan *d, pq_err *e)
{
    for (int j = 0; j < d->nout; j++) {
        if (!d->opath[j]) continue;
        const ds_col *c = &d->s.cols[d->out[j]];
        int32_t tn = d->acols[j].node; /* (a merged shape stores no types: the column's) */
        int rc = c->merged ? ds_types_path(c, tn, &d->ptypes[j], e)
                           : scan_arrow_types_build(c->meta, &d->acols[j], 1, &d->ptypes[j], e);
        if (rc) return rc;
        d->atypes[j] = d->ptypes[j].cols[0]; /* borrowed from ptypes[j] */
        d->acols[j].type = &d->atypes[j];
    }
    return 0;
}

/* Where the path whose node in nested column c's shape is tn lies in field fn of file m,
 * found by pairing the two shapes (a path m does not resolve by name). *mapped: m's node that
 * tn pairs with, where m's writer named a list's element or a map's entries otherwise ("item"
 * for "element"; ds_nmatch.c pairs those by position), else -1. Returns whether m lacks a
 * struct field on the path instead: the path then reads as null in m, as DuckDB reads a
 * struct field a file lacks; *inside: when a list or map lies above the field, m's struct
 * that lacks it (its schema node: the path's lists read from it, every value in them null,
 * ds_nested_widen_lacking), else -1. */
static bool path_lacked(const ds_col *c, int32_t tn, const pq_file_meta *m, int32_t fn,
                        int32_t *mapped, int32_t *inside)
{
    ds_npair p;
    pq_err ignore = {.offset = -1};
    int32_t k = -1, parent = -1;
    bool list = false;
    *mapped = *inside = -1;
    if (ds_npair_init(&p, c->meta, c->node, m, fn, true, &ignore) == 0)
        for (k = 0; k < p.nt && p.tt[k].src != tn; k++) {}
    if (k >= 0 && k < p.nt && p.map[k] >= 0) *mapped = p.ft[p.map[k]].src;
    bool lacked = k >= 0 && k < p.nt && p.map[k] < 0;
    for (int32_t a = 0; lacked && a < k; a++) /* k's ancestors, outermost first (those the
                                                 file has: a list under the field it lacks,
                                                 "s.b.list.element" where m's s has no b, is
                                                 null whole, not a list of nulls) */
        if (p.tt[a].end > k && p.map[a] >= 0) {
            list = list || p.tt[a].kind != PQ_NEST_STRUCT;
            parent = p.map[a];
        }
    if (list && parent >= 0 && p.ft[parent].kind == PQ_NEST_STRUCT) *inside = p.ft[parent].src;
    ds_npair_free(&p);
    return lacked && (!list || *inside >= 0);
}

/* Output j's projection in file m (fn: m's node of its column): its node (*first its first
 * leaf), or -1 (a path m lacks). */
static int32_t out_node(const ds_scan *d, int j, const pq_file_meta *m, int32_t fn, int *first)
{
    int32_t node = fn, leaf;
    pq_err ignore = {.offset = -1};
    if (!d->opath[j]) return pq_nest_leaves(m, fn, &leaf), *first = leaf, fn;
    return scan_nested_resolve(m, d->opath[j], first, &node, &ignore) == 0 ? node : -1;
}

/* Whether node i of m may stand in for output j's path (ds_npair_lacking): no other
 * projection of the column starts at its first leaf, or (same) one reads node i itself (a
 * file's plan reads one node per leaf: plan_nested.c). */
static bool lacking_free(const ds_scan *d, int j, const pq_file_meta *m, int32_t fn, int32_t i,
                         bool same)
{
    int32_t first;
    int leaf = -1;
    pq_nest_leaves(m, i, &first);
    for (int k = 0; k < d->nout; k++) {
        if (k == j || d->out[k] != d->out[j]) continue;
        int32_t node = out_node(d, k, m, fn, &leaf);
        if (node >= 0 && leaf == first) return same && node == i;
    }
    return !same;
}

/* The node of m read for output j's path whose field m's struct `inside` lacks (fn: m's node
 * of the column): one as deep in lists (the nodes of its repetition level around it) whose
 * first leaf no other projection starts at, else one another projection reads, else inside. */
static int32_t lacking_node(const ds_scan *d, int j, const pq_file_meta *m, int32_t fn,
                            int32_t inside)
{
    int32_t a = inside, rep = m->nodes[inside].max_rep_level;
    while (m->nodes[a].parent >= 0 && m->nodes[m->nodes[a].parent].max_rep_level == rep)
        a = m->nodes[a].parent;
    for (int same = 0; same < 2; same++)
        for (int32_t i = a; i < m->nodes[a].end; i++)
            if (m->nodes[i].max_rep_level == rep && lacking_free(d, j, m, fn, i, same)) return i;
    return inside;
}

/* ds_out_path_leaf; *lacking: the path's field lacked inside a list or map (*node the file's
 * struct lacking it or a node under it, lacking_node: ds_nested_widen_lacking reads its
 * rows). */
static int path_leaf(const ds_scan *d, int j, const pq_file_meta *m, const char *path, int *leaf,
                     int32_t *node, bool *lacking, pq_err *e)
{
    assert(d->opath[j]);
    const ds_col *c = &d->s.cols[d->out[j]];
    int32_t fn = *node, tn = -1, inside = -1;
    *lacking = false;
    int rc = scan_nested_resolve(m, d->opath[j], leaf, node, e);
    if (rc == 0) return 0;
    char why[sizeof e->msg];
    snprintf(why, sizeof why, "%s", e->msg);
    int any;
    int32_t mapped = -1, first;
    bool lacked = scan_nested_resolve(c->meta, d->opath[j], &any, &tn, e) == 0 &&
                  path_lacked(c, tn, m, fn, &mapped, &inside);
    if (mapped >= 0) { /* (the same node, named otherwise in m) */
        pq_nest_leaves(m, mapped, &first);
        *leaf = first, *node = mapped;
        return 0;
    }
    if (lacked) {
        *leaf = -1, *node = inside; /* null in this file's rows, or in its lists */
        if (inside >= 0) {
            *node = lacking_node(d, j, m, fn, inside), *lacking = true;
            pq_nest_leaves(m, *node, &first), *leaf = first;
        }
        return 0;
    }
    return pq_errf(e, rc, -1, "%.200s: column '%.100s': %.200s", path, d->opath[j], why);
}

int ds_out_path_leaf(const ds_scan *d, int j, const pq_file_meta *m, const char *path, int *leaf,
                     int32_t *node, pq_err *e)
{
    bool lacking;
    return path_leaf(d, j, m, path, leaf, node, &lacking, e);
}

void ds_out_free(ds_scan *d)
{
    for (int j = 0; d->opath && j < d->nout; j++) free(d->opath[j]);
    for (int j = 0; d->ptypes && j < d->nout; j++) scan_arrow_types_free(&d->ptypes[j]);
    free(d->opath), free(d->ptypes);
}

/* Schema column c as the Arrow export shows it (a nested field: from its first file's
 * footer, ds_impl.h invariant 5). */
static scan_arrow_col out_col(const ds_col *c)
{
    if (c->node < 0) return (scan_arrow_col){.desc = &c->desc, .name = c->name, .node = -1};
    int32_t first;
    pq_nest_leaves(c->meta, c->node, &first);
    assert(first >= 0);
    scan_arrow_col a = scan_nested_arrow_col(c->meta, &c->meta->columns[first], c->node);
    a.rename = c->name; /* (the first file's spelling: the shape may be a later file's) */
    a.open = true;      /* (another file's nulls at any level: arrow.h) */
    return a;
}

/* The projected columns (names resolved in the schema) and ORDER BY keys hidden after them. */
static int resolve_out(ds_scan *d, const ds_scan_args *a, pq_err *e)
{
    int n = a->count ? 0 : a->columns ? a->ncolumns : d->s.n;
    d->out = fail_malloc(sizeof(int) * (size_t)(n + FLT_MAX_SORT_KEYS + 1));
    d->acols = fail_calloc((size_t)n + 1, sizeof *d->acols);
    d->opath = fail_calloc((size_t)n + 1, sizeof *d->opath);
    d->ptypes = fail_calloc((size_t)n + 1, sizeof *d->ptypes);
    if (!d->out || !d->acols || !d->opath || !d->ptypes) return -ENOMEM;
    d->nout = n;
    for (int j = 0; j < n; j++) {
        d->out[j] = a->columns ? ds_schema_find(&d->s, a->columns[j]) : j;
        int top = d->out[j] < 0 ? nested_top(d, a->columns[j]) : -1, rc = 0;
        if (top >= 0) rc = path_col(d, j, top, a->columns[j], e);
        else if (d->out[j] < 0) rc = no_column(d, a->columns[j], e);
        else d->acols[j] = out_col(&d->s.cols[d->out[j]]);
        if (rc) return rc;
    } /* their Arrow types (ds_impl.h invariant 4), paths' and dictionary_columns */
    int rc = ds_types_project(&d->s, d->out, n, a->dict_columns, a->ndict, d->acols, &d->atypes, e);
    if (rc == 0) rc = path_types(d, e);
    if (rc) return rc;
    if (n == 0 && !a->count) return pq_errf(e, -EINVAL, -1, "no columns to scan");
    if (!a->order_by || a->limit < 0) return 0;
    pq_column_desc *cols = fail_malloc(sizeof *cols * (size_t)(d->s.n + 1));
    flt_order_term t[FLT_MAX_SORT_KEYS];
    int nk = 0;
    rc = cols ? 0 : -ENOMEM;
    for (int c = 0; rc == 0 && c < d->s.n; c++) cols[c] = d->s.cols[c].desc;
    if (rc == 0) rc = flt_parse_order(a->order_by, cols, d->s.n, a->order_desc, t, &nk, e);
    for (int k = 0; rc == 0 && k < nk; k++) {
        if (d->s.cols[t[k].column].node >= 0) {
            rc = pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "ORDER BY '%.100s': a nested field (list, "
                         "struct or map) is not a sort key", d->s.cols[t[k].column].name);
            break;
        }
        int at = n;
        for (int j = 0; j < n; j++) if (d->out[j] == t[k].column) at = j;
        if (at == n) at = n + d->nhide, d->out[n + d->nhide++] = t[k].column;
        rc = ds_topk_key(&d->topk, &d->s.cols[t[k].column].desc, at, t[k].desc, t[k].nulls_first, e);
    }
    free(cols);
    if (rc == 0) d->topk.k = a->limit;
    return rc;
}

/* d->used: the columns out[0 .. nout + nhide) name and those the filter reads (typed against
 * the schema; a filter that does not type there marks none: each file's parse names its
 * error); d->filtered: the latter. 0 or -ENOMEM. */
static int mark_used(ds_scan *d, const ds_scan_args *a)
{
    d->used = fail_calloc((size_t)d->s.n + 1, sizeof *d->used);
    d->filtered = fail_calloc((size_t)d->s.n + 1, sizeof *d->filtered);
    pq_column_desc *cols = fail_malloc(sizeof *cols * (size_t)(d->s.n + 1));
    if (!d->used || !d->filtered || !cols) return free(cols), -ENOMEM;
    for (int j = 0; j < d->nout + d->nhide; j++) d->used[d->out[j]] = true;
    for (int c = 0; c < d->s.n; c++) cols[c] = d->s.cols[c].desc, cols[c].index = c;
    flt_expr *x = NULL;
    pq_err e = {.offset = -1};
    int rc = 0;
    if (a->filter) rc = flt_parse(a->filter, cols, d->s.n, &x, &e);
    else if (a->filter_expr) rc = scan_filter_from_expr(a->filter_expr, cols, d->s.n, &x, &e);
    /* out of memory is not a filter that does not type: without post, a file whose values
     * are cast got the filter in its own types (a string literal beside a decimal: EPARSE) */
    if (rc == -ENOMEM) return flt_expr_free(x), free(cols), -ENOMEM;
    for (int32_t k = 0; x && k < x->npreds; k++) {
        const flt_pred *p = &x->preds[k];
        for (int32_t j = 0; j < (p->multi ? p->multi->ncols : 1); j++)
            d->used[p->multi ? p->multi->cols[j] : p->column] = true,
            d->filtered[p->multi ? p->multi->cols[j] : p->column] = true;
    }
    d->post = x, d->post_cols = cols; /* (ds_post.c invariant 1) */
    return 0;
}

int ds_conflicts(const ds_scan *d, pq_err *e)
{
    for (int c = 0; d->used && c < d->s.n; c++)
        if (d->used[c] && d->s.cols[c].conflict)
            return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "%s", d->s.cols[c].conflict);
    return 0;
}

/* Output column j's rows v of nested column out[j] from file r, rewritten into its shape
 * (ds_nwiden.c): the field's, or a path's inside it (its node in the column's shape and in
 * the file resolved by name, as path_col and ds_out_path_leaf resolved them: struct fields by
 * name, leaves widened or cast as the field's are). */
static int nested_rows(const ds_scan *d, const ds_run *r, int j, pq_vec *v, pq_err *e)
{
    const ds_col *c = &d->s.cols[d->out[j]];
    const pq_file_meta *m = &d->ft.slots[r->fi].f->meta;
    int32_t node = r->view.node[d->out[j]], tn = c->node;
    const char *path = d->a.list->files[r->fi].path;
    int leaf, rc = 0;
    bool lacking = false;
    if (d->opath[j] && (rc = scan_nested_resolve(c->meta, d->opath[j], &leaf, &tn, e)) == 0)
        rc = path_leaf(d, j, m, path, &leaf, &node, &lacking, e);
    if (rc == 0 && lacking) rc = ds_nested_widen_lacking(c, tn, m, node, v, e);
    else if (rc == 0) rc = ds_nested_widen(c, tn, m, node, v, e);
    return rc && e->msg[0] ? ds_file_errf(e, rc, path, e->msg) : rc;
}

/* b (r's batch) rewritten to the dataset's columns into out (b's vectors moved). */
int ds_to_dataset(ds_scan *d, const ds_run *r, scan_batch *b, scan_batch *out, pq_err *e)
{
    int n = d->nout + d->nhide;
    *out = (scan_batch){.split = r->fi, .row_group = -1, .rows = b->rows, .ncols = n,
                        .bad = b->bad}; /* (its marks, named: ds_topk.h invariant 3) */
    b->bad = NULL;
    out->cols = fail_calloc((size_t)n + 1, sizeof *out->cols);
    if (!out->cols) return -ENOMEM;
    int rc = 0;
    for (int j = 0; j < n; j++) {
        const ds_col *c = &d->s.cols[d->out[j]];
        if (rc) {
            pq_vec_init(&out->cols[j], c->desc.physical, c->desc.type_length);
        } else if (r->pos[j] < 0) {
            rc = ds_const_vec(&d->s, d->out[j], &d->a.list->files[r->fi], b->rows, &out->cols[j]);
        } else {
            pq_vec *v = &b->cols[r->pos[j]];
            out->cols[j] = *v;
            pq_vec_init(v, v->type, v->type_length);
            if (b->dict_on && b->dict_on[r->pos[j]]) { /* indices: their dictionary with them */
                rc = scan_batch_set_dict(out, j, &b->dicts[r->pos[j]]);
                continue;
            }
            if (c->node >= 0) { /* packed rows or built columns, one shape (invariant 5);
                                  packed ones widened (a widened file builds none) */
                rc = nested_rows(d, r, j, &out->cols[j], e);
                continue;
            }
            const pq_column_desc *from = &r->view.cols[r->proj[j]];
            const char *path = d->a.list->files[r->fi].path;
            if (ds_dec_cast_needed(&c->desc, from)) {
                rc = ds_dec_cast(c, from, path, &out->cols[j], e);
                continue;
            }
            rc = ds_widen(&c->desc, from, &out->cols[j]);
            int64_t k = r->scale[d->out[j]];
            if (rc == 0 && k) rc = ds_rescale(c, k, path, &out->cols[j], e);
        }
    }
    return rc;
}

/* Cuts b to its first rows rows (invariant 3); null counts recounted. */
void ds_cut_rows(scan_batch *b, int64_t rows)
{
    for (int j = 0; j < b->ncols; j++) pq_vec_cut(&b->cols[j], rows);
    b->rows = rows;
}

int ds_resolve_out(ds_scan *d, const ds_scan_args *a, pq_err *e)
{
    int rc = resolve_out(d, a, e);
    if (rc == 0) rc = mark_used(d, a);
    /* every batch goes to the Arrow export (ds_scan_next): nested columns as built columns
     * in every file's scan, unless a projected list exports as a fixed-size list */
    if (rc == 0) d->a.so.nest_cols = !scan_arrow_fixed_lists(d->atypes, d->nout);
    return rc ? rc : ds_conflicts(d, e);
}

int ds_scan_schema(ds_scan *d, struct ArrowSchema *out)
{
    int rc = scan_arrow_schema(d->acols, d->nout, d->a.arrow_flags, out);
    if (rc == 0 && (rc = scan_arrow_schema_metadata(out, d->s.metadata)) != 0) out->release(out);
    return rc;
}

const pq_column_desc *ds_scan_column(const ds_scan *d, int i)
{
    return i >= 0 && i < d->nout ? &d->s.cols[d->out[i]].desc : NULL;
}

void ds_say(ds_scan *d, const char *fmt, const char *path, const char *why)
{
    if (!d->explain || d->explain_len + 1 >= DS_EXPLAIN_BYTES) return;
    size_t room = DS_EXPLAIN_BYTES - d->explain_len;
    char shown[512]; /* a URL's password is never shown (io/store.h) */
    io_path_shown(shown, sizeof shown, path);
    int n = snprintf(d->explain + d->explain_len, room, fmt, shown, why);
    d->explain_len += n < 0 ? 0 : (size_t)n < room ? (size_t)n : room - 1;
}

const char *ds_scan_explain(const ds_scan *d)
{
    return d->explain ? d->explain : "";
}
