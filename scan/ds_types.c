/* scan/ds_types.c: a dataset's Arrow types beyond the Parquet schema (ds_impl.h invariant 4),
 * as pyarrow.dataset (pyarrow 26) gives them: the dataset's schema is the first file's as
 * pyarrow.parquet reads it (its stored ARROW:schema applied: scan/arrow_types.c), and every
 * other file's columns are cast to it. Among files of the same Parquet type that cast changes
 * values only for durations (an int64 count whose unit the stored schema gives): a later
 * file's durations in another unit are multiplied or divided to the dataset's, and refused
 * where pyarrow's safe cast refuses them (overflow, a remainder). Zones, large and view
 * strings, decimal widths, dictionaries and index types are the first file's: the values are
 * the same whatever a later file stores. Files whose Parquet types differ keep the dataset's
 * DuckDB rules (ds_schema.c: widening, or an error naming both files).
 *
 * Invariants:
 *  1. A column's atype is built with its `from` file's own desc (adesc); it is exported only
 *     while the dataset's desc is that type (ds_types_of), so a format never meets a vector
 *     of another physical type.
 *  2. scale is non-zero only for a column whose dataset and file types are both durations, both
 *     times or timestamps (ds_schema.c's timed_merge) of different units, so rescaled vectors
 *     are INT64 (a TIME_MILLIS file's INT32 is widened first: ds_widen); decimals of other
 *     scales are rescaled by ds_dec_cast as it converts them. */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "scan/api_priv.h"
#include "scan/arrow.h"
#include "scan/ds_impl.h"

/* Prefixes e's message with path (scan_arrow_types_build's messages name no file). */
static int name_file(int rc, const char *path, pq_err *e)
{
    char msg[sizeof e->msg], shown[512];
    io_path_shown(shown, sizeof shown, path);
    snprintf(msg, sizeof msg, "%.200s: %s", shown, e->msg[0] ? e->msg : "out of memory");
    memcpy(e->msg, msg, sizeof msg);
    return rc;
}

/* The Arrow types file m (path) gives its columns named by s's columns at[0..n) into
 * *out. 0 or a status with e filled. */
static int file_types(const ds_schema *s, const int *at, int n, const pq_file_meta *m,
                      const char *path, scan_arrow_types *out, pq_err *e)
{
    scan_arrow_col *cols = fail_calloc((size_t)n + 1, sizeof *cols);
    if (!cols) return pq_errf(e, -ENOMEM, -1, "out of memory");
    for (int k = 0; k < n; k++) {
        int32_t node = -1;
        int leaf = ds_col_leaf(&s->cols[at[k]], m, &node);
        assert(leaf >= 0 && leaf < m->ncolumns); /* a data column the file brought or has */
        cols[k] = scan_nested_arrow_col(m, &m->columns[leaf], node);
    }
    int rc = scan_arrow_types_build(m, cols, n, out, e);
    free(cols);
    return rc ? name_file(rc, path, e) : 0;
}

int ds_types_add(ds_schema *s, int first, const pq_file_meta *m, const char *path, pq_err *e)
{
    assert(first >= 0 && first <= s->n);
    int n = 0;
    int *at = fail_malloc(sizeof(int) * (size_t)(s->n - first + 1));
    if (!at) return pq_errf(e, -ENOMEM, -1, "out of memory");
    for (int c = first; c < s->n; c++)
        if (s->cols[c].part < 0) at[n++] = c;
    scan_arrow_types t = {0};
    int rc = n > 0 || !s->have_metadata ? file_types(s, at, n, m, path, &t, e) : 0;
    for (int k = 0; rc == 0 && k < n; k++) { /* each type moved into its column */
        ds_col *c = &s->cols[at[k]];
        int32_t node;
        c->atype = t.cols[k]; /* its nodes too (a nested field's) */
        c->adesc = m->columns[ds_col_leaf(c, m, &node)];
        c->adesc.name = c->name; /* m's strings go with its footer */
        assert(c->adesc.physical == c->desc.physical || /* just added from m */
               c->adesc.physical == PQ_INT96); /* as INT64 nanoseconds (ds_schema.c add_flat) */
    }
    if (rc == 0 && !s->have_metadata) s->metadata = t.metadata, s->have_metadata = true;
    else free(t.metadata);
    free(t.cols);
    free(at);
    return rc;
}

/* Node k of pair p's first shape as the types t of its second shape give it (NULL: the second
 * lacks the node, a struct field; &plain: t stores no Arrow type); *typed: the node is no leaf,
 * or its leaf's type in m (the second shape's footer) is the first shape's leaf's in tm. */
static const scan_arrow_node *side(const ds_npair *p, const scan_arrow_type *t, int32_t k,
                                   const pq_file_meta *tm, const pq_file_meta *m, bool *typed)
{
    static const scan_arrow_node plain;
    int32_t f = p->map[k];
    if (f < 0) return NULL;
    assert(f < p->nf && (!t->nodes || t->nnodes == p->nf)); /* (t built for p's second shape) */
    *typed = p->tt[k].kind != PQ_NEST_PRIM ||
             ds_nested_leaf_same(&tm->columns[p->tt[k].col], &m->columns[p->ft[f].col]);
    return t->nodes ? &t->nodes[f] : &plain;
}

/* A copy of metadata block md (NULL: none) into *out. 0 or -ENOMEM. */
static int copy_metadata(const char *md, char **out)
{
    *out = NULL;
    if (!md) return 0;
    size_t n = scan_arrow_metadata_len(md);
    if (!(*out = fail_malloc(n))) return -ENOMEM;
    memcpy(*out, md, n);
    return 0;
}

/* The format of merged leaf d (a timestamp adjusted to UTC) where two files store the same
 * zone for it in other units (ts<unit>:<zone>, each its own unit: the merged type has the
 * finer), into o (left "" otherwise), as pyarrow unifies timestamp[ms, tz=Z] and [us, tz=Z]. */
static void same_zone(const pq_column_desc *d, const char *a, const char *b, char *o)
{
    bool stamps = strncmp(a, "ts", 2) == 0 && a[2] && a[3] == ':' && a[4] && strncmp(b, "ts", 2) == 0 &&
                  b[2] && strcmp(a + 3, b + 3) == 0;
    if (!stamps || !d->is_adjusted_to_utc || ds_stamp_unit(d) == 0 || d->physical != PQ_INT64) return;
    snprintf(o, SCAN_ARROW_FORMAT_MAX, "ts%c%s", "mun"[ds_stamp_unit(d) / 3 - 1], a + 3);
}

/* Node o of a merged shape from the shape it replaced (a: its node, NULL where it lacks it; ta:
 * no leaf, or its leaf of the merged type d) and a file's (b, tb), as pyarrow unifies the two
 * fields: the format and dictionary both give (a zone both give, in the merged unit), else the
 * Parquet type's; the metadata the first one that has the node gives. 0 or -ENOMEM. */
static int node_meet(const pq_column_desc *d, const scan_arrow_node *a, bool ta,
                     const scan_arrow_node *b, bool tb, scan_arrow_node *o)
{
    const scan_arrow_node *first = a ? a : b;
    if (!a) a = b, ta = tb;
    if (!b) b = a, tb = ta;
    assert(a && b); /* (a node of the merged shape comes from one file at least) */
    if (ta && tb && strcmp(a->format, b->format) == 0 && strcmp(a->index_format, b->index_format) == 0)
        memcpy(o->format, a->format, sizeof o->format), memcpy(o->index_format, a->index_format, 2);
    else if (d && !a->index_format[0] && !b->index_format[0])
        same_zone(d, a->format, b->format, o->format);
    return copy_metadata(first->metadata, &o->metadata);
}

/* Column c's Arrow type after a merge (ds_types_col): its shape's nodes (c->meta, c->node)
 * paired with the shape it replaced (c->prev, whose types are c->atype) and with file m's
 * field (its types mt), each node's type their meeting (node_meet), the field's metadata
 * the first file's (pyarrow's unify_schemas), into *t. 0 or -ENOMEM. */
static int merged_types(const ds_col *c, const pq_file_meta *m, const scan_arrow_type *mt,
                        scan_arrow_type *t, pq_err *e)
{
    int32_t node = -1;
    (void)ds_col_leaf(c, m, &node);
    ds_npair pa, pb;
    int rc = ds_npair_init(&pa, c->meta, c->node, c->prev.meta, c->prev.node, false, e);
    int rb = ds_npair_init(&pb, c->meta, c->node, m, node, false, e);
    rc = rc ? rc : rb;
    if (rc == 0 && !(t->nodes = fail_calloc((size_t)pa.nt, sizeof *t->nodes))) rc = -ENOMEM;
    if (rc == 0) t->nnodes = pa.nt, rc = copy_metadata(c->atype.metadata, &t->metadata);
    for (int32_t k = 0; rc == 0 && k < pa.nt; k++) {
        bool ta = false, tb = false;
        const scan_arrow_node *a = side(&pa, &c->atype, k, c->meta, c->prev.meta, &ta);
        const scan_arrow_node *b = side(&pb, mt, k, c->meta, m, &tb);
        const pq_column_desc *d = pa.tt[k].kind == PQ_NEST_PRIM ? &c->meta->columns[pa.tt[k].col] : NULL;
        rc = node_meet(d, a, ta, b, tb, &t->nodes[k]);
    }
    ds_npair_free(&pa), ds_npair_free(&pb);
    return rc == -ENOMEM ? pq_errf(e, rc, -1, "out of memory") : rc;
}

int ds_types_col(ds_schema *s, int c, const pq_file_meta *m, const char *path, pq_err *e)
{
    ds_col *col = &s->cols[c];
    scan_arrow_types t = {0};
    scan_arrow_type merged = {0};
    int rc = file_types(s, &c, 1, m, path, &t, e);
    if (rc == 0 && col->prev.meta) rc = merged_types(col, m, &t.cols[0], &merged, e);
    if (rc == 0 && col->prev.meta) { /* (m's own freed below) */
        scan_arrow_type own = t.cols[0];
        t.cols[0] = merged, merged = own;
    }
    if (rc == 0) {
        int32_t node;
        scan_arrow_type_free(&col->atype);
        col->atype = t.cols[0], t.cols[0] = (scan_arrow_type){0}; /* its nodes too */
        col->adesc = col->meta->columns[ds_col_leaf(col, col->meta, &node)];
        col->adesc.name = col->name;
    }
    scan_arrow_type_free(&merged);
    scan_arrow_types_free(&t);
    ds_col_prev_free(col);
    return rc;
}

static const scan_arrow_type *ds_types_of(const ds_col *c);

/* The node of shape w[0 .. nw) that node n of a path's shape comes from (the same schema node
 * and kind), or -1. */
static int32_t whole_node(const pq_nest *w, int32_t nw, const pq_nest *n)
{
    for (int32_t k = 0; k < nw; k++)
        if (w[k].src == n->src && w[k].kind == n->kind) return k;
    return -1;
}

/* The path's types t (its shape ps[0 .. np), node tn of merged column c) from c's: each node
 * the format and dictionary of the column's node it comes from; metadata as a one-file
 * scan's path (arrow_types.c build_nodes): a node at or below tn, the root's when the path
 * passes no list. 0 or -ENOMEM. */
static int path_nodes(const ds_col *c, int32_t tn, const pq_nest *ps, int32_t np, const pq_nest *ws,
                      int32_t nw, scan_arrow_type *t)
{
    if (!(t->nodes = fail_calloc((size_t)np, sizeof *t->nodes))) return -ENOMEM;
    t->nnodes = np;
    int rc = 0;
    for (int32_t k = 0; rc == 0 && k < np; k++) {
        int32_t w = whole_node(ws, nw, &ps[k]);
        if (w < 0) continue; /* (the Parquet type's) */
        const scan_arrow_node *a = &c->atype.nodes[w];
        const char *md = w == 0 ? c->atype.metadata : a->metadata;
        memcpy(t->nodes[k].format, a->format, sizeof a->format);
        memcpy(t->nodes[k].index_format, a->index_format, sizeof a->index_format);
        if (k > 0 && ps[k].src >= tn) rc = copy_metadata(md, &t->nodes[k].metadata);
        if (rc == 0 && k == 0 && ps[0].src == tn) rc = copy_metadata(md, &t->metadata);
    }
    return rc;
}

int ds_types_path(const ds_col *c, int32_t tn, scan_arrow_types *out, pq_err *e)
{
    assert(c->node >= 0 && c->merged);
    *out = (scan_arrow_types){.n = 1, .cols = fail_calloc(1, sizeof *out->cols)};
    pq_nest *ps = fail_malloc(sizeof *ps * (size_t)PQ_NEST_CAP(c->meta, tn));
    pq_nest *ws = fail_malloc(sizeof *ws * (size_t)PQ_NEST_CAP(c->meta, c->node));
    int rc = out->cols && ps && ws ? 0 : -ENOMEM;
    int32_t np = rc ? rc : pq_nest_build(c->meta, tn, ps, e);
    int32_t nw = np <= 0 ? np : pq_nest_build(c->meta, c->node, ws, e);
    if (rc == 0 && (np <= 0 || nw <= 0)) rc = np < 0 ? np : nw < 0 ? nw : -EINVAL;
    if (rc == 0 && ds_types_of(c) && c->atype.nodes && c->atype.nnodes == nw) /* (else the
                                                                     Parquet types') */
        rc = path_nodes(c, tn, ps, np, ws, nw, &out->cols[0]);
    free(ps), free(ws);
    return rc == -ENOMEM ? pq_errf(e, rc, -1, "out of memory") : rc;
}

/* The Arrow type schema column c exports (NULL: its Parquet type's alone). */
static const scan_arrow_type *ds_types_of(const ds_col *c)
{
    const pq_column_desc *a = &c->adesc, *d = &c->desc;
    if (c->part >= 0) return NULL; /* partition columns: DuckDB's types */
    bool same = a->physical == d->physical && a->logical == d->logical &&
                a->type_length == d->type_length && a->decimal_precision == d->decimal_precision &&
                a->decimal_scale == d->decimal_scale &&
                a->is_adjusted_to_utc == d->is_adjusted_to_utc;
    return same ? &c->atype : NULL; /* invariant 1 */
}

int ds_types_project(const ds_schema *s, const int *out, int n, const char *const *names,
                     int nnames, scan_arrow_col *cols, scan_arrow_type **types, pq_err *e)
{
    scan_arrow_type *t = fail_calloc((size_t)n + 1, sizeof *t);
    *types = t;
    if (!t) return pq_errf(e, -ENOMEM, -1, "out of memory");
    for (int j = 0; j < n; j++) {
        const scan_arrow_type *st = ds_types_of(&s->cols[out[j]]);
        if (st) t[j] = *st; /* metadata and nodes borrowed (ds_impl.h invariant 4) */
        cols[j].type = &t[j];
    }
    scan_arrow_types view = {.n = n, .cols = t}; /* not freed: t is the caller's */
    return scan_arrow_types_dictionary(&view, cols, names, nnames, e);
}

int ds_types_dict_out(const scan_arrow_type *t, const int *pos, int nout, int nleaves, bool **out)
{
    *out = fail_calloc((size_t)nleaves + 1, sizeof **out);
    if (!*out) return -ENOMEM;
    for (int j = 0; j < nout; j++) {
        assert(pos[j] < nleaves);
        if (pos[j] >= 0 && t[j].dictionary) (*out)[pos[j]] = true;
    }
    return 0;
}

/* A duration format's unit as a power of ten of seconds (tDs 0 .. tDn 9), or -1. */
static int unit_exp(const char *fmt)
{
    if (strncmp(fmt, "tD", 2) != 0 || fmt[3]) return -1;
    switch (fmt[2]) {
    case 's': return 0;
    case 'm': return 3;
    case 'u': return 6;
    case 'n': return 9;
    default: return -1;
    }
}

/* The factor from a unit of 10^-has seconds to one of 10^-want (0 when they are the same). */
static int64_t unit_factor(int want, int has)
{
    int64_t f = 1;
    for (int i = 0; i < (want > has ? want - has : has - want); i++) f *= 10;
    return want == has ? 0 : want > has ? f : -f;
}

int ds_types_file(const ds_schema *s, const ds_view *v, const pq_file_meta *m, const char *path,
                  int64_t *scale, pq_err *e)
{
    memset(scale, 0, sizeof *scale * (size_t)s->n);
    int *at = fail_malloc(sizeof(int) * (size_t)(s->n + 1)), n = 0;
    if (!at) return pq_errf(e, -ENOMEM, -1, "out of memory");
    for (int c = 0; c < s->n; c++) {
        const scan_arrow_type *t = ds_types_of(&s->cols[c]);
        const pq_column_desc *d = &s->cols[c].desc;
        const pq_column_desc *fd = v->leaf[c] >= 0 && s->cols[c].node < 0 ? &m->columns[v->leaf[c]] : NULL;
        if (fd && fd->physical == PQ_BYTE_ARRAY)
            continue; /* strings parsed in the dataset's unit (ds_parse_cast) */
        if (fd && ds_time_unit(d)) /* times and timestamps: ds_schema.c's timed_merge */
            scale[c] = unit_factor(ds_time_unit(d), ds_time_unit(fd));
        else if (fd && d->logical == PQ_LOGICAL_DECIMAL)
            continue; /* decimals are rescaled as ds_dec_cast converts them */
        else if (t && v->leaf[c] >= 0 && unit_exp(t->format) >= 0) at[n++] = c;
    }
    scan_arrow_types ft = {0};
    int rc = n > 0 ? file_types(s, at, n, m, path, &ft, e) : 0;
    for (int k = 0; rc == 0 && k < n; k++) {
        int want = unit_exp(ds_types_of(&s->cols[at[k]])->format), has = unit_exp(ft.cols[k].format);
        if (has >= 0) scale[at[k]] = unit_factor(want, has); /* invariant 2 */
    }
    scan_arrow_types_free(&ft);
    free(at);
    return rc;
}

/* Whether d's Parquet type carries its unit (a time, a timestamp or a decimal), so a filter
 * on it is parsed in each file's own unit. */
static bool unit_typed(const pq_column_desc *d)
{
    return ds_time_unit(d) || d->logical == PQ_LOGICAL_DECIMAL;
}

/* What a rescaled value of d is called in messages. */
static const char *kind(const pq_column_desc *d)
{
    if (!ds_time_unit(d)) return "duration";
    return d->logical >= PQ_LOGICAL_TIMESTAMP_MILLIS ? "timestamp" : "time";
}

int ds_rescale(const ds_col *c, int64_t scale, const char *path, pq_vec *v, pq_err *e)
{
    assert(scale != 0 && scale != 1 && scale != -1);
    assert(v->type == PQ_INT64); /* invariant 2 */
    for (int64_t r = 0; r < v->length; r++) {
        if (!pq_vec_is_valid(v, r)) continue; /* a null's slot stays zero */
        int64_t x, y = 0;
        memcpy(&x, v->values + 8 * r, 8);
        bool bad = scale > 0 ? __builtin_mul_overflow(x, scale, &y) : x % -scale != 0;
        if (bad)
            return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "%.120s: column '%.40s': the %s "
                           "%" PRId64 " in this file's unit %s in the unit of %.120s (the "
                           "dataset's type, as pyarrow.dataset casts it%s)", path, c->name,
                           kind(&c->desc), x,
                           scale > 0 ? "overflows" : "would lose data", c->from,
                           unit_typed(&c->desc) ? "; union_by_name takes the finer unit" : "");
        if (scale < 0) y = x / -scale;
        memcpy(v->values + 8 * r, &y, 8);
    }
    return 0;
}

/* Whether schema column c is read from file column leaf cast to text (ds_widen: booleans,
 * integers or decimals beside strings, DuckDB's VARCHAR). */
static bool text_cast(const ds_schema *s, const ds_view *v, int c)
{
    return v->leaf[c] >= 0 && s->cols[c].node < 0 && s->cols[c].desc.physical == PQ_BYTE_ARRAY &&
           v->cols[v->leaf[c]].physical != PQ_BYTE_ARRAY;
}

bool ds_types_cast(const ds_schema *s, const ds_view *v, int c)
{
    if (v->leaf[c] < 0 || s->cols[c].node >= 0) return false;
    const pq_column_desc *to = &s->cols[c].desc, *from = &v->cols[v->leaf[c]];
    int ts = to->logical == PQ_LOGICAL_DECIMAL ? to->decimal_scale : 0;
    bool real = from->physical == PQ_FLOAT || from->physical == PQ_DOUBLE;
    bool narrowed = real || (to->logical != PQ_LOGICAL_DECIMAL && from->logical != PQ_LOGICAL_DECIMAL);
    /* (an integer narrowed, or a float rounded, range checked: a value out of range fails the
     * scan even where the filter would drop its row, as DuckDB casts before it filters) */
    bool parsed = from->physical == PQ_BYTE_ARRAY && to->physical != PQ_BYTE_ARRAY;
    bool floated = to->physical == PQ_FLOAT && from->physical != PQ_FLOAT; /* (rounded) */
    return text_cast(s, v, c) || parsed || floated || /* (strings parsed: ds_parse_cast) */
           (ds_dec_cast_needed(to, from) && (from->decimal_scale > ts || narrowed));
}

/* A filter on schema column c refused: file path's values are cast to text in it. */
static int text_refused(const ds_schema *s, int c, const char *path, pq_err *e)
{
    return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "%.120s: column '%.40s' is cast to text here "
                   "(text in %.120s: VARCHAR, as DuckDB reads it): a filter that does not "
                   "compare it as text is not supported", path, s->cols[c].name, s->cols[c].from);
}

int ds_types_filter(const ds_schema *s, const ds_view *v, const int64_t *scale, const bool *filtered,
                    const flt_expr *x, const char *path, pq_err *e)
{
    for (int c = 0; filtered && c < s->n; c++)
        if (filtered[c] && text_cast(s, v, c))
            return text_refused(s, c, path, e);
    for (int32_t i = 0; x && i < x->npreds; i++) {
        const flt_pred *p = &x->preds[i];
        int32_t n = p->multi ? p->multi->ncols : 1;
        for (int32_t k = 0; k < n; k++) {
            int32_t col = p->multi ? p->multi->cols[k] : p->column;
            for (int c = 0; col >= 0 && col < v->nfile && c < s->n; c++) {
                if (v->leaf[c] != col) continue;
                if (text_cast(s, v, c)) return text_refused(s, c, path, e);
                if (scale[c] != 0 && !unit_typed(&s->cols[c].desc))
                    return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "%.120s: column '%.40s' is a "
                                   "duration in another unit than in %.120s: a filter on it is "
                                   "not supported", path, s->cols[c].name, s->cols[c].from);
            }
        }
    }
    return 0;
}
