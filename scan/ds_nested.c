/* scan/ds_nested.c: a dataset's nested top-level fields (lists, structs, maps; issue 23),
 * read whole as pyarrow.dataset reads them: each is one schema column (ds_impl.h invariant 5)
 * whose shape is the one the first file that has it gives (that file's footer is held open
 * for the Arrow export of every file's rows: ds_schema_holds) or, in a union by name, a later
 * file's that holds every field and leaf of the others, or one merged from both
 * (ds_nested_merge; ds_nested_union where each lacks some of the other's struct fields);
 * every other file pairs with it (ds_nmatch.c: its struct fields by name,
 * its leaves the same, widening or, without union_by_name, cast to the first file's: its
 * packed rows, or built columns when the same, read alike) or lacks it (nulls, in a union by
 * name) or is refused naming both files. A field whose LIST or MAP shape the format does not
 * allow is left out and remembered for the messages that name it (as before nested fields
 * were read). */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/fail.h"
#include "format/column_nested.h"
#include "scan/api_priv.h"
#include "scan/ds_impl.h"

/* The length of name's first component (a nested leaf's path: its top-level field). */
static size_t top_len(const char *name)
{
    const char *dot = strchr(name, '.');
    return dot ? (size_t)(dot - name) : strlen(name);
}

const char *ds_schema_nested(const ds_schema *s, const char *name)
{
    size_t n = top_len(name);
    for (int i = 0; i < s->nnested; i++)
        if (strlen(s->nested[i]) == n && memcmp(s->nested[i], name, n) == 0)
            return s->nested[i] + n + 1;
    return NULL;
}

int ds_nested_remember(ds_schema *s, const char *field, const char *path)
{
    if (s->nnested == DS_NESTED_MAX || ds_schema_nested(s, field)) return 0;
    if (!s->nested && !(s->nested = fail_calloc(DS_NESTED_MAX, sizeof *s->nested))) return -ENOMEM;
    size_t n = strlen(field), p = strlen(path);
    char *v = fail_malloc(n + p + 2);
    if (!v) return -ENOMEM;
    memcpy(v, field, n + 1);
    memcpy(v + n + 1, path, p + 1);
    s->nested[s->nnested++] = v;
    return 0;
}

/* File m's first leaf of nested column c (its node in *node), or -1. */
static int nested_leaf(const char *name, const pq_file_meta *m, int32_t *node)
{
    int col = -1;
    pq_err e = {.offset = -1};
    if (!m->has_nested) return -1;
    int rc = scan_nested_resolve(m, name, &col, node, &e);
    if (rc || *node < 0 || m->nodes[*node].depth != 1) return *node = -1;
    /* (a first leaf of the null type, list<null> or struct<a: null>, is the field's all the
     * same: add_field took it so, and calling it missing aborted in ds_types) */
    if (col < 0) return *node = -1;
    return col;
}

int ds_col_leaf(const ds_col *c, const pq_file_meta *m, int32_t *node)
{
    *node = -1;
    if (c->part >= 0) return -1; /* a constant in every file */
    const char *name = pq_file_meta_top_name(m, c->name, c->twin);
    if (!name) return -1;
    if (c->node >= 0) return nested_leaf(name, m, node);
    int leaf = pq_file_meta_find_column(m, name);
    if (leaf >= 0 && ds_null_typed(&m->columns[leaf]) && !ds_null_typed(&c->desc)) return -1;
    return leaf >= 0 && !m->columns[leaf].nested ? leaf : -1;
}

int ds_nested_readable(const pq_file_meta *m, int32_t i)
{
    int col = -1;
    int32_t node = -1;
    pq_err ignore = {.offset = -1};
    int rc = scan_nested_resolve(m, m->nodes[i].path, &col, &node, &ignore);
    return rc == 0 && node == i ? col : rc == -ENOMEM ? -ENOMEM : -1;
}

/* Nested column at takes field i of m (file path) as its shape (its Arrow type: the caller's,
 * ds_types_col). 0 or -ENOMEM. */
/* Column at's desc: its shape's first leaf (c->meta, c->node), nullable. 0 or -ENOMEM. */
static int shape_desc(ds_col *c, int at)
{
    int leaf = ds_nested_readable(c->meta, c->node);
    if (leaf == -ENOMEM) return leaf;
    assert(leaf >= 0); /* (readable: add_field checked it) */
    c->desc = c->meta->columns[leaf], c->desc.name = c->name, c->desc.index = at;
    c->desc.repetition = PQ_OPTIONAL, c->desc.max_def_level = 1;
    return 0;
}

static int take_shape(ds_schema *s, int at, const pq_file_meta *m, int32_t i, const char *path)
{
    ds_col *c = &s->cols[at];
    char *from = fail_strdup(path);
    if (!from) return -ENOMEM;
    free(c->from), c->from = from;
    ds_col_unmerge(c);
    c->meta = m, c->node = i;
    return shape_desc(c, at);
}

/* The refusal of file m's field i (file path) under nested column c, paired as p (not fits,
 * or extra fields in a union by name). */
static int refuse(const ds_col *c, const pq_file_meta *m, int32_t i, const ds_npair *p,
                  const char *path, pq_err *e)
{
    if (p->leaf[0] >= 0 && !p->shape_bad) {
        const pq_column_desc *a = &c->meta->columns[p->leaf[0]], *b = &m->columns[p->leaf[1]];
        return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "column '%.40s': its leaf '%.80s' is "
                       "%s/%s in %.80s but %s/%s in %.80s: not supported (neither widens into the "
                       "other's type%s)", c->name, a->name,
                       pq_physical_name(a->physical), pq_logical_name(a->logical), c->from,
                       pq_physical_name(b->physical), pq_logical_name(b->logical), path,
                       b->physical == PQ_BYTE_ARRAY && a->physical != PQ_BYTE_ARRAY
                           ? "; a later file's strings are not cast to the first file's type: "
                             "read with union_by_name, VARCHAR" : "");
    }
    if (p->fits && p->extra)
        return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "column '%.40s': struct fields of %.80s and "
                       "of %.80s each lack some of the other's and do not merge by name (a field "
                       "added where no struct is): not supported", c->name, c->from, path);
    /* each side's kind (a list, map or struct; the column's flat), and "of another shape"
     * when both are of one kind */
    pq_shape was = c->node >= 0 ? c->meta->nodes[c->node].shape : PQ_SHAPE_FLAT;
    pq_shape is = m->nodes[i].shape;
    return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "column '%.40s' is %s%s in %.80s but %s%s%s in "
                   "%.80s: a dataset's nested fields must match", c->name,
                   was == PQ_SHAPE_FLAT ? "" : "a ", pq_shape_name(was), c->from,
                   is == PQ_SHAPE_FLAT ? "" : "a ", pq_shape_name(is),
                   was == is ? " of another shape" : "", path);
}

/* Whether node j of m starts with node i of o's children, in o's order and spelled alike, at
 * every depth (m's others after them): m's shape then names and orders o's fields as DuckDB's
 * union by name keeps them (the first file's, then the others added). */
static bool keeps_names(const pq_file_meta *o, int32_t i, const pq_file_meta *m, int32_t j)
{
    int32_t g = j + 1;
    for (int32_t c = i + 1; c < o->nodes[i].end; c = o->nodes[c].end, g = m->nodes[g].end)
        if (g >= m->nodes[j].end || strcmp(o->nodes[c].name, m->nodes[g].name) != 0 ||
            !keeps_names(o, c, m, g))
            return false;
    return true;
}

/* Column at's shape merged with field i of m (path), paired as p (m's under the column's) and
 * q (the column's under m's): the column's fields (m lacks none of them), else m's fields (the
 * column lacks none of them, and m names and orders the column's as it does: keeps_names),
 * leaves typed to hold both (ds_nested_merge); else, each lacking some of the other's struct
 * fields (or the column's shape a union already, or m's spelling or order of them another), a
 * union of both (ds_nested_union: the column's fields first, as named). 0, -ENOMEM or
 * RINGSCAN_EUNSUPPORTED (no merge). */
static int merge_shape(ds_schema *s, int at, const pq_file_meta *m, int32_t i, const ds_npair *p,
                       const ds_npair *q, const char *path)
{
    ds_col *c = &s->cols[at];
    int rc = RINGSCAN_EUNSUPPORTED;
    char *from = NULL;
    bool own = c->merged && !c->held; /* a union: ds_nested_merge borrows a footer's nodes */
    bool renamed = !keeps_names(c->meta, c->node, m, i);
    if (!p->shape_bad && !p->extra && !own) {
        rc = ds_nested_merge(c, c->meta, c->node, p, m);
    } else if (!p->shape_bad && (own || (q->tt && !q->shape_bad && (q->extra || renamed)))) {
        if (!(from = fail_strdup(path))) return -ENOMEM; /* (the file that adds fields) */
        rc = ds_nested_union(c, m, i);
    } else if (q->tt && !q->shape_bad && !q->extra) {
        if (!(from = fail_strdup(path))) return -ENOMEM;
        rc = ds_nested_merge(c, m, i, q, c->meta);
    }
    if (rc == 0 && from) free(c->from), c->from = from, from = NULL;
    free(from);
    if (rc == 0) rc = shape_desc(c, at);
    return rc;
}

int ds_nested_match(ds_schema *s, int at, const pq_file_meta *m, int32_t i, const char *path,
                    bool by_name, bool *took, pq_err *e)
{
    *took = false;
    const ds_col *c = &s->cols[at];
    if (c->node < 0) return refuse(c, m, i, &(ds_npair){.leaf = {-1, -1}}, path, e);
    /* (without by_name DuckDB casts a later file's leaves to the first file's, range checked,
     * and reads the first file's struct fields: a later file's others dropped) */
    ds_npair p, q = {.leaf = {-1, -1}};
    int rc = ds_npair_init(&p, c->meta, c->node, m, i, !by_name, e);
    bool ok = rc == 0 && p.fits && (!by_name || !p.extra);
    if (rc == 0 && !ok && by_name) /* m's leaves the wider, its fields every one: its shape */
        rc = ds_npair_init(&q, m, i, c->meta, c->node, false, e);
    bool wider = rc == 0 && !ok && by_name && q.fits && !q.extra;
    /* (m's shape taken whole only where it keeps the column's names and order, as DuckDB's;
     * else a merge, or m's whole when that fails) */
    bool renamed = wider && !keeps_names(c->meta, c->node, m, i);
    bool merge = rc == 0 && !ok && (!wider || renamed) && by_name;
    if (merge) /* leaves neither file's type holds: a shape of the types holding both */
        rc = merge_shape(s, at, m, i, &p, &q, path);
    merge = merge && rc == 0, rc = rc == RINGSCAN_EUNSUPPORTED ? 0 : rc;
    if (rc == 0 && !ok && !wider && !merge) rc = refuse(c, m, i, &p, path, e);
    ds_npair_free(&p), ds_npair_free(&q);
    if (rc || ok || merge) return rc == 0 && merge ? (*took = true, 0) : rc;
    return (*took = true), take_shape(s, at, m, i, path);
}

bool ds_schema_holds(const ds_schema *s, const pq_file_meta *m)
{
    for (int c = 0; c < s->n; c++)
        if (s->cols[c].node >= 0 && (s->cols[c].meta == m || s->cols[c].held == m)) return true;
    return false;
}

/* ------------------------------------------------------- a path's list and map spellings */

/* Whether name's first component (n bytes) is one of names (NULL-ended), in any case. */
static bool named_as(const char *name, size_t n, const char *const *names)
{
    for (; *names; names++)
        if (strlen(*names) == n && strncasecmp(*names, name, n) == 0) return true;
    return false;
}

/* The list levels' names writers give (ds_path_respell): a two-level list's repeated level,
 * a three-level list's middle level and its element. */
static const char *const two_level[] = {"array", "element", "item", "array_element", NULL};
static const char *const middle[] = {"list", "bag", NULL};
static const char *const element[] = {"element", "item", "array", "array_element", NULL};
/* The names writers give a map's repeated level: the format's and pyarrow's "key_value", and
 * "map" (parquet-mr's ConversionPatterns, Hive, Impala and Spark's legacy format, annotated
 * MAP_KEY_VALUE). */
static const char *const map_level[] = {"key_value", "map", NULL};

/* The node the components at *p name below LIST node at of m, spelled as another writer
 * spells its levels (*p moved past them), else -1. */
static int32_t list_alias(const pq_file_meta *m, int32_t at, const char **p)
{
    const pq_schema_node *l = &m->nodes[at];
    const char *s = *p, *dot = strchr(s, '.');
    size_t n = dot ? (size_t)(dot - s) : strlen(s), ln = strlen(l->name);
    if (l->kind != PQ_NODE_LIST || l->element <= at) return -1;
    bool tuple =
        n == ln + 6 && strncasecmp(s, l->name, ln) == 0 && strncasecmp(s + ln, "_tuple", 6) == 0;
    if (named_as(s, n, two_level) || tuple) return *p = s + n, l->element;
    if (!dot || !named_as(s, n, middle)) return -1;
    const char *e = dot + 1, *edot = strchr(e, '.');
    size_t en = edot ? (size_t)(edot - e) : strlen(e);
    if (!named_as(e, en, element)) return -1;
    assert(l->element < l->end); /* (the element lies below its list) */
    return *p = e + en, l->element;
}

/* The node the component at *p names below MAP node at of m when it spells the map's repeated
 * level as another writer does (*p moved past it), else -1. A map has one child, so the
 * component names no other node. */
static int32_t map_alias(const pq_file_meta *m, int32_t at, const char **p)
{
    const pq_schema_node *k = &m->nodes[at];
    const char *s = *p, *dot = strchr(s, '.');
    size_t n = dot ? (size_t)(dot - s) : strlen(s);
    if (k->kind != PQ_NODE_MAP || k->element <= at || !named_as(s, n, map_level)) return -1;
    assert(k->element == at + 1 && k->element < k->end); /* (meta_schema.c map_element) */
    return *p = s + n, k->element;
}

int32_t ds_path_respell(const ds_col *c, const char *name)
{
    const pq_file_meta *m = c->meta;
    if (c->node < 0) return -1;
    const char *p = name + top_len(name);
    int32_t at = c->node;
    for (int32_t depth = 0; *p == '.' && p[1] && depth < m->nnodes; depth++) { /* (bounded) */
        p++;
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        const char *rest;
        int32_t k = pq_file_meta_child(m, at, p, &rest), par = m->nodes[at].parent;
        if (k >= 0) {
            p = rest, at = k;
        } else if ((k = list_alias(m, at, &p)) >= 0 || (k = map_alias(m, at, &p)) >= 0) {
            at = k;
        } else if (par >= 0 && m->nodes[par].kind == PQ_NODE_LIST && m->nodes[par].element > at &&
                   m->nodes[par].element < m->nodes[at].end && named_as(p, n, element)) {
            p += n, at = m->nodes[par].element; /* (a three-level list's middle level) */
        } else {
            return -1;
        }
        assert(at > c->node && at < m->nodes[c->node].end); /* (only downwards, in the field) */
    }
    return *p ? -1 : at;
}
