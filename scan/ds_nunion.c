/* scan/ds_nunion.c: a union by name's shape of a nested field whose struct fields each of two
 * files lacks some of (issue 23): DuckDB's union_by_name merges struct fields by name, at
 * every depth (inside structs, lists and maps): the column's fields in its order, then the
 * file's others in the file's order; a leaf both have typed to hold both (ds_nmatch.c
 * ds_nested_leaf_merge); a file's rows then read with nulls where it lacks a field
 * (ds_nmatch.c, ds_nwiden.c).
 *
 * Invariants:
 *  1. The shape is self-contained: its nodes, leaf columns and their names and paths are
 *     copied into the merged footer's own memory (one block, the columns in another, as
 *     ds_col_unmerge frees them), so no file's footer is held for it (ds_col.held NULL).
 *  2. Its nodes follow meta.h's schema tree: pre-order, the field at node 0 (depth 1), each
 *     node's levels its parent's plus its own repetition's, a LIST's or MAP's element at the
 *     same distance below it as in the file it comes from, each leaf one column (in order).
 *  3. Fields are added only under a struct (a group read as a struct); children of other
 *     nodes must pair, else no union: by position from a LIST or MAP group down to its
 *     element where both files put it as deep (each writer names a list's middle level and
 *     element, "list"/"element", "list"/"item", "bag"/"array", and a map's key_value, as it
 *     likes: ds_nmatch.c pairs them so), else by name; the union keeps the column's names.
 *     A two-level list (its repeated group the element, read as a struct) beside a
 *     three-level one takes the three-level one's middle level and element, names included
 *     (only its element may be null), its element's fields merged by name (list_levels).
 *  4. Two passes over the same walk: the first counts nodes, leaves and name bytes, the second
 *     fills exactly that much (no growth).
 *  5. A struct's field is found in the other's by name in O(1) expected (both structs'
 *     fields indexed, ds_fields.h), or by a walk where both have few fields (or memory ran
 *     out): the same field either way, so both passes walk alike. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "format/name_index.h"
#include "scan/ds_fields.h"
#include "scan/ds_impl.h"

typedef struct un {
    const pq_file_meta *tm, *fm;  /* the column's shape, the file's */
    pq_schema_node *nodes;        /* NULL: the counting pass (invariant 4) */
    pq_column_desc *cols;
    char *str;                    /* names and paths, written at str + nstr */
    int32_t n, ncols;
    size_t nstr;
    bool ok;                      /* false: no union (invariant 3, or leaves that do not merge) */
} un;

/* a[0..na), then "." and b when b, then a NUL into the names' area; the copy (NULL in the
 * counting pass, which counts the bytes alike). */
static const char *put_str(un *u, const char *a, size_t na, const char *b)
{
    size_t nb = b ? strlen(b) : 0, at = u->nstr, len = na + (b ? 1 + nb : 0);
    u->nstr += len + 1;
    if (!u->nodes) return NULL;
    if (na) memcpy(u->str + at, a, na);
    if (b) u->str[at + na] = '.', memcpy(u->str + at + na + 1, b, nb);
    u->str[at + len] = 0;
    return u->str + at;
}

/* The children of node j of m whose name equals name but for case. */
static int32_t alike(const pq_file_meta *m, int32_t j, const char *name)
{
    int32_t n = 0;
    for (int32_t c = j + 1; c < m->nodes[j].end; c = m->nodes[c].end)
        n += pq_ascii_casecmp(m->nodes[c].name, name) == 0;
    return n;
}

/* Child of node j of m named as child c of node i of o (else the only one whose name differs
 * from it in case alone, as DuckDB merges struct fields, unless i has another child so spelled:
 * a and A are then two fields, each merged by exact name), or -1. */
static int32_t child_named(const pq_file_meta *m, int32_t j, const pq_file_meta *o, int32_t i,
                           int32_t c)
{
    const char *name = o->nodes[c].name;
    int32_t folded = -1, n = 0;
    for (int32_t g = j + 1; g < m->nodes[j].end; g = m->nodes[g].end) {
        if (strcmp(m->nodes[g].name, name) == 0) return g;
        if (pq_ascii_casecmp(m->nodes[g].name, name) == 0) folded = g, n++;
    }
    return n == 1 && alike(o, i, name) == 1 ? folded : -1;
}

/* The fields of node i of m (-1: none), to merge with a node of other children, by name. */
static void fields_of(ds_fields *x, const pq_file_meta *m, int32_t i, int32_t other)
{
    ds_fields_init(x, i >= 0 ? m->nodes[i].nchildren : 0, i >= 0 ? other : 0);
    for (int32_t c = i + 1; x->on && c < m->nodes[i].end; c = m->nodes[c].end)
        ds_fields_add(x, m->nodes[c].name, c);
}

/* child_named(m, j, o, i, c) through the indexes mj (j's) and oi (i's) when both are on. */
static int32_t child_at(const ds_fields *mj, const ds_fields *oi, const pq_file_meta *m,
                        int32_t j, const pq_file_meta *o, int32_t i, int32_t c)
{
    if (!mj->on || !oi->on) return child_named(m, j, o, i, c);
    int32_t k = ds_fields_pair(mj, oi, o->nodes[c].name);
    return k >= 0 ? mj->node[k] : -1;
}

/* Where a node goes: under union node parent (-1: the field itself), whose path is
 * ppath[0..plen) (ppath NULL in the counting pass). */
typedef struct place {
    int32_t parent;
    const char *ppath;
    size_t plen;
} place;

static void node(un *u, int32_t i, int32_t j, place at);
static void list_levels(un *u, int32_t at, const char *path, size_t len, int32_t i, int32_t j);

/* Node i of tm and j of fm (either -1: the other's alone) as union node at, a leaf. */
static void leaf(un *u, int32_t at, int32_t i, int32_t j)
{
    int32_t col = u->ncols++;
    if (!u->nodes) return;
    const pq_file_meta *src = i >= 0 ? u->tm : u->fm;
    pq_column_desc *d = &u->cols[col];
    assert(src->nodes[i >= 0 ? i : j].column >= 0); /* (a primitive node: its column) */
    *d = src->columns[src->nodes[i >= 0 ? i : j].column];
    if (i >= 0 && j >= 0 && !ds_nested_leaf_merge(d, &u->fm->columns[u->fm->nodes[j].column]))
        u->ok = false;
    d->name = u->nodes[at].path, d->index = col, d->node = at, d->nested = true;
    d->max_def_level = u->nodes[at].max_def_level, d->max_rep_level = u->nodes[at].max_rep_level;
    u->nodes[at].column = col;
}

/* How far below node i of m the element of the LIST or MAP group i (or of the one whose
 * middle level i is: the distance from that group) lies, else 0 (invariant 3). */
static int32_t to_element(const pq_file_meta *m, int32_t i)
{
    const pq_schema_node *s = &m->nodes[i], *p = s->parent >= 0 ? &m->nodes[s->parent] : NULL;
    if ((s->kind == PQ_NODE_LIST || s->kind == PQ_NODE_MAP) && s->element > i)
        return s->element - i;
    if (p && p->kind == PQ_NODE_LIST && p->element > i) return p->element - s->parent;
    return 0;
}

/* The children of union node at (path path, len bytes): tm's node i's (each paired with fm's
 * node j's child of the same name, or in the same place from a LIST or MAP down to its
 * element), then j's others where the node is a struct (invariant 3). */
static void children(un *u, int32_t at, const char *path, size_t len, int32_t i, int32_t j)
{
    const pq_file_meta *tm = u->tm, *fm = u->fm;
    place under = {.parent = at, .ppath = path, .plen = len};
    int32_t k = 0, d = i >= 0 && j >= 0 ? to_element(tm, i) : 0, df = d > 0 ? to_element(fm, j) : 0;
    if (d > 0 && df > 0 && d != df && tm->nodes[i].kind == PQ_NODE_LIST &&
        fm->nodes[j].kind == PQ_NODE_LIST) { /* (a two-level and a three-level list: 1 and 2) */
        list_levels(u, at, path, len, i, j);
        return;
    }
    if (d > 0 && d == df && tm->nodes[i].nchildren == fm->nodes[j].nchildren) {
        for (int32_t c = i + 1, g = j + 1; c < tm->nodes[i].end;
             c = tm->nodes[c].end, g = fm->nodes[g].end, k++)
            node(u, c, g, under);
        if (u->nodes) u->nodes[at].nchildren = k;
        return;
    }
    ds_fields ti, fj; /* (each field found in O(1): ds_fields.h) */
    fields_of(&ti, tm, j >= 0 ? i : -1, j >= 0 ? fm->nodes[j].nchildren : 0); /* (none when */
    fields_of(&fj, fm, i >= 0 ? j : -1, i >= 0 ? tm->nodes[i].nchildren : 0); /* one is alone) */
    for (int32_t c = i + 1; i >= 0 && c < tm->nodes[i].end; c = tm->nodes[c].end, k++)
        node(u, c, j >= 0 ? child_at(&fj, &ti, fm, j, tm, i, c) : -1, under);
    const pq_file_meta *sm = i >= 0 ? tm : fm;
    int32_t si = i >= 0 ? i : j;
    const pq_schema_node *s = &sm->nodes[si];
    /* (a two-level list's repeated group is its element: read as a struct too) */
    bool elem = s->parent >= 0 && sm->nodes[s->parent].kind == PQ_NODE_LIST && sm->nodes[s->parent].element == si;
    bool strct = s->kind == PQ_NODE_GROUP && (s->shape == PQ_SHAPE_STRUCT || elem);
    for (int32_t c = j + 1; j >= 0 && c < fm->nodes[j].end; c = fm->nodes[c].end) {
        if (i >= 0 && child_at(&ti, &fj, tm, i, fm, j, c) >= 0) continue;
        if (i >= 0 && !strct) u->ok = false;
        node(u, -1, c, under), k++;
    }
    ds_fields_free(&ti), ds_fields_free(&fj);
    if (u->nodes) u->nodes[at].nchildren = k;
}

/* Whether node i of m is a map's key_value group (annotated MAP_KEY_VALUE by some writers,
 * Impala's "map", not by others: pyarrow's "key_value"; one level, whatever its kind). */
static bool entries(const pq_file_meta *m, int32_t i)
{
    int32_t p = m->nodes[i].parent;
    return p >= 0 && m->nodes[p].kind == PQ_NODE_MAP && m->nodes[p].element == i;
}

/* Node si of src copied as the next union node, under at (invariant 2): its index, its path
 * in *path (NULL in the counting pass) and the path's length in *len. */
static int32_t put_node(un *u, const pq_file_meta *src, int32_t si, place at, const char **path,
                        size_t *len)
{
    int32_t k = u->n++;
    const pq_schema_node *s = &src->nodes[si];
    *len = at.parent < 0 ? strlen(s->path) : at.plen + 1 + strlen(s->name);
    *path = at.parent < 0 ? put_str(u, s->path, *len, NULL) : put_str(u, at.ppath, at.plen, s->name);
    const char *name = put_str(u, s->name, strlen(s->name), NULL);
    if (u->nodes) {
        const pq_schema_node *p = at.parent >= 0 ? &u->nodes[at.parent] : NULL;
        pq_schema_node *x = &u->nodes[k];
        *x = *s;
        x->path = *path, x->name = name;
        x->parent = at.parent, x->top = 0, x->depth = p ? p->depth + 1 : 1, x->column = -1;
        x->max_def_level = (int16_t)((p ? p->max_def_level : 0) + (s->repetition != PQ_REQUIRED));
        x->max_rep_level = (int16_t)((p ? p->max_rep_level : 0) + (s->repetition == PQ_REPEATED));
        x->element = s->element >= 0 ? k + (s->element - si) : -1;
    }
    return k;
}

/* Node i of tm and j of fm (either -1) as the next union node, copied from src's node si (tm's
 * i unless i is -1), then its leaf or children. */
static void pair_from(un *u, int32_t i, int32_t j, place at, const pq_file_meta *src, int32_t si)
{
    const char *path;
    size_t len;
    int32_t k = put_node(u, src, si, at, &path, &len);
    if (src->nodes[si].kind == PQ_NODE_PRIMITIVE) leaf(u, k, i, j);
    else children(u, k, path, len, i, j);
    if (u->nodes) u->nodes[k].end = u->n;
}

/* Node i of tm and j of fm (either -1) as the next union node (invariant 2). */
static void node(un *u, int32_t i, int32_t j, place at)
{
    assert(i >= 0 || j >= 0);
    const pq_file_meta *src = i >= 0 ? u->tm : u->fm;
    int32_t si = i >= 0 ? i : j;
    const pq_schema_node *s = &src->nodes[si];
    if (i >= 0 && j >= 0 && s->kind != u->fm->nodes[j].kind && !(entries(u->tm, i) && entries(u->fm, j)))
        u->ok = false, j = -1;
    pair_from(u, i, j, at, src, si);
}

/* LIST groups i of tm and j of fm, one a two-level list (its repeated group the element) and
 * the other a three-level one, as union node at's children (invariant 3): the three-level
 * list's middle level (a union of the two-level one's shape could not hold the other's null
 * elements), then the elements paired, copied from the three-level list's, their children
 * merged by name, the column's first. */
static void list_levels(un *u, int32_t at, const char *path, size_t len, int32_t i, int32_t j)
{
    bool t3 = to_element(u->tm, i) == 2; /* (else fm's list is the three-level one) */
    const pq_file_meta *m3 = t3 ? u->tm : u->fm;
    int32_t l3 = t3 ? i : j, ei = t3 ? i + 2 : i + 1, ej = t3 ? j + 1 : j + 2;
    const char *mpath;
    size_t mlen;
    int32_t mid = put_node(u, m3, l3 + 1, (place){at, path, len}, &mpath, &mlen);
    if (u->tm->nodes[ei].kind != u->fm->nodes[ej].kind) /* (a group beside a primitive) */
        u->ok = false, ej = -1;
    pair_from(u, ei, ej, (place){mid, mpath, mlen}, m3, l3 + 2);
    if (!u->nodes) return;
    u->nodes[mid].nchildren = 1, u->nodes[mid].end = u->n;
    u->nodes[at].nchildren = 1, u->nodes[at].element = mid + 1;
}

/* The union of field tn of tm and fn of fm into u (counted first: u->nodes NULL). */
static void walk(un *u, int32_t tn, int32_t fn)
{
    u->n = u->ncols = 0, u->nstr = 0, u->ok = true;
    node(u, tn, fn, (place){.parent = -1});
}

int ds_nested_union(ds_col *c, const pq_file_meta *fm, int32_t fn)
{
    un u = {.tm = c->meta, .fm = fm};
    walk(&u, c->node, fn);
    if (!u.ok) return RINGSCAN_EUNSUPPORTED;
    int32_t nn = u.n, nc = u.ncols;
    size_t ns = u.nstr;
    pq_file_meta *x = fail_malloc(sizeof *x + sizeof *u.nodes * (size_t)nn + ns);
    pq_column_desc *cols = fail_malloc(sizeof *cols * (size_t)(nc + 1));
    if (!x || !cols) return free(x), free(cols), -ENOMEM;
    *x = (pq_file_meta){.version = c->meta->version, .ncolumns = nc, .columns = cols,
                        .nnodes = nn, .has_nested = true};
    x->nodes = (pq_schema_node *)(void *)(x + 1);
    u.nodes = x->nodes, u.cols = cols, u.str = (char *)(x->nodes + nn);
    walk(&u, c->node, fn);
    assert(u.n == nn && u.ncols == nc && u.nstr == ns); /* invariant 4 */
    if (!u.ok) return free(cols), free(x), RINGSCAN_EUNSUPPORTED;
    ds_col_retire(c); /* (c->meta, the old shape, read above: kept for ds_types_col) */
    c->merged = x, c->held = NULL, c->meta = x, c->node = 0;
    return 0;
}
