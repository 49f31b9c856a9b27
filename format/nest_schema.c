/* format/nest_schema.c: a nested top-level field's Arrow shape (pq_nest, column_nested.h)
 * from the schema tree, by the rules pyarrow reads it with.
 *
 * Invariants:
 *  1. The shape takes at most PQ_NEST_CAP(m, node) entries: a schema node gives at most
 *     two (a repeated node outside a list's middle level: a list and its element), an
 *     ancestor of a projected path at most one (a list it passes).
 *  2. Levels: a node's def_valid is its schema node's max definition level (a repeated node
 *     read as a list: its parent's, the list itself never null); a list's def_item and
 *     rep_item are those of its repeated node.
 *  3. A map's key is never nullable, even when its schema node is OPTIONAL: its def_valid
 *     may then exceed its entries' (the levels at which a key is null, pq_nest_keys_check). */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"

#include "format/column_nested.h"
#include "ringscan.h"

typedef struct nest_build {
    const pq_file_meta *m;
    pq_nest *out;
    int32_t n, cap;
    pq_err *e;
} nest_build;

static int node_of(nest_build *b, int32_t i, bool as_element, const char *name);

/* A new node at b->n filled from schema node nd. */
static pq_nest *add(nest_build *b, int32_t src, pq_nest_kind kind, const char *name, bool nullable,
                    int16_t def)
{
    assert(b->n < b->cap); /* invariant 1 */
    pq_nest *t = &b->out[b->n++];
    *t = (pq_nest){.kind = kind, .name = name, .nullable = nullable, .def_valid = def, .col = -1,
                   .leaf_lo = INT32_MAX, .leaf_hi = -1, .src = src};
    return t;
}

/* Closes node k: its end, and the leaves of its children. */
static void close_node(nest_build *b, int32_t k)
{
    pq_nest *t = &b->out[k];
    t->end = b->n;
    for (int32_t c = k + 1, i = 0; i < t->nchildren; i++, c = b->out[c].end) {
        if (b->out[c].leaf_lo < t->leaf_lo) t->leaf_lo = b->out[c].leaf_lo;
        if (b->out[c].leaf_hi > t->leaf_hi) t->leaf_hi = b->out[c].leaf_hi;
    }
    assert(t->leaf_lo < t->leaf_hi);
}

/* A list node at k (levels from repeated schema node r) whose element is schema node el. */
static int list_of(nest_build *b, int32_t k, int32_t r, int32_t el, bool el_as_element,
                   const char *el_name)
{
    const pq_schema_node *rn = &b->m->nodes[r];
    b->out[k].def_item = rn->max_def_level;
    b->out[k].rep_item = rn->max_rep_level;
    b->out[k].nchildren = 1;
    int rc = node_of(b, el, el_as_element, el_name);
    if (rc == 0) close_node(b, k);
    return rc;
}

/* A struct at k of schema node i's children. */
static int struct_of(nest_build *b, int32_t k, int32_t i)
{
    const pq_schema_node *nodes = b->m->nodes;
    b->out[k].nchildren = nodes[i].nchildren;
    for (int32_t c = i + 1; c < nodes[i].end; c = nodes[c].end) {
        int rc = node_of(b, c, false, NULL);
        if (rc) return rc;
    }
    close_node(b, k);
    return 0;
}

/* A MAP node i (its key_value group kv) at k: a map of struct<key[, value]>, or with the key
 * alone a list of the keys (as pyarrow reads it). */
static int map_of(nest_build *b, int32_t k, int32_t i, int32_t kv)
{
    const pq_schema_node *nodes = b->m->nodes;
    if (nodes[kv].nchildren == 1) {
        b->out[k].kind = PQ_NEST_LIST;
        return list_of(b, k, kv, kv + 1, false, NULL);
    }
    b->out[k].def_item = nodes[kv].max_def_level;
    b->out[k].rep_item = nodes[kv].max_rep_level;
    b->out[k].nchildren = 1;
    int32_t s = b->n; /* the entries: named as the map, as pyarrow names them */
    add(b, kv, PQ_NEST_STRUCT, nodes[i].name, false, nodes[kv].max_def_level);
    int rc = struct_of(b, s, kv);
    if (rc) return rc;
    /* Arrow's map keys are never null: an OPTIONAL key (meta_schema.c invariant 4) keeps its
     * def_valid, which pq_nest_keys_check reads to find a null one, but exports non-null */
    b->out[s + 1].nullable = false;
    close_node(b, k);
    return 0;
}

/* Schema node i as a field (as_element: the element of a list whose repeated level it is,
 * read as non-null and not as a list of itself); name overrides its name when not NULL. */
static int node_of(nest_build *b, int32_t i, bool as_element, const char *name)
{
    const pq_schema_node *nd = &b->m->nodes[i];
    const char *nm = name ? name : nd->name;
    int32_t k = b->n;
    if (nd->repetition == PQ_REPEATED && !as_element) { /* a non-null list of itself */
        add(b, i, PQ_NEST_LIST, nm, false, (int16_t)(nd->max_def_level - 1));
        return list_of(b, k, i, i, true, NULL);
    }
    bool nullable = nd->repetition == PQ_OPTIONAL;
    if (nd->kind == PQ_NODE_PRIMITIVE) {
        pq_nest *t = add(b, i, PQ_NEST_PRIM, nm, nullable, nd->max_def_level);
        t->col = nd->column;
        t->leaf_lo = nd->column, t->leaf_hi = nd->column + 1;
        t->end = b->n;
        return 0;
    }
    if ((nd->kind == PQ_NODE_LIST || nd->kind == PQ_NODE_MAP) && nd->element < 0)
        return pq_errf_col(b->e, RINGSCAN_EUNSUPPORTED, -1, nd->path, "column '%.200s': a %s "
                           "group whose children have no shape the format allows", nd->path,
                           nd->kind == PQ_NODE_LIST ? "LIST" : "MAP");
    if (nd->kind == PQ_NODE_LIST) {
        add(b, i, PQ_NEST_LIST, nm, nullable, nd->max_def_level);
        return list_of(b, k, i + 1, nd->element, nd->element == i + 1, NULL);
    }
    if (nd->kind == PQ_NODE_MAP) {
        add(b, i, PQ_NEST_MAP, nm, nullable, nd->max_def_level);
        return map_of(b, k, i, nd->element);
    }
    add(b, i, PQ_NEST_STRUCT, nm, nullable, nd->max_def_level);
    return struct_of(b, k, i);
}

enum { PQ_NEST_PATH_MAX = 256 }; /* levels of a projected path (max_schema_depth: 64 unless set) */

/* What the path to a target passes at ancestor a: a list or map whose elements it enters
 * (*rep: the repeated node giving its levels; *mid: the middle level the path skips, or -1),
 * a repeated node read as a list of itself, or a struct (neither). */
typedef enum { PASS_STRUCT, PASS_LIST, PASS_SELF } pass_kind;

static pass_kind pass_of(const pq_file_meta *m, int32_t a, int32_t *rep, int32_t *mid)
{
    const pq_schema_node *nd = &m->nodes[a];
    *rep = a, *mid = -1;
    if (nd->kind == PQ_NODE_LIST) { /* the repeated node is its first child (list_of) */
        *rep = a + 1;
        *mid = nd->element == a + 1 ? -1 : a + 1;
        return PASS_LIST;
    }
    if (nd->kind == PQ_NODE_MAP) {
        *rep = *mid = nd->element;
        return PASS_LIST;
    }
    return nd->repetition == PQ_REPEATED ? PASS_SELF : PASS_STRUCT;
}

/* The shape of target through its ancestors chain[depth-1] (top) .. chain[1] (chain[0] is
 * the target): a list node for each list, map or repeated node passed, structs left out
 * (their nulls folded into the next node's nullability), then the target itself. */
static int path_of(nest_build *b, const int32_t *chain, int32_t depth, const char *name)
{
    const pq_file_meta *m = b->m;
    int32_t lists[PQ_NEST_PATH_MAX], nlists = 0, skip = -1, el_of = -1;
    bool opt = false; /* an optional struct passed since the last node added */
    for (int32_t k = depth - 1; k >= 1; k--) {
        int32_t a = chain[k], rep, mid;
        const pq_schema_node *nd = &m->nodes[a];
        if (a == skip) continue; /* a list's middle level: its levels are the list's */
        /* a two-level list's element: not a list of itself (a LIST or MAP still is a list) */
        bool elem = a == el_of && nd->kind != PQ_NODE_LIST && nd->kind != PQ_NODE_MAP;
        pass_kind pk = elem ? PASS_STRUCT : pass_of(m, a, &rep, &mid);
        if ((nd->kind == PQ_NODE_LIST || nd->kind == PQ_NODE_MAP) && nd->element < 0)
            return pq_errf_col(b->e, RINGSCAN_EUNSUPPORTED, -1, nd->path, "column '%.200s': a %s "
                               "group whose children have no shape the format allows", nd->path,
                               nd->kind == PQ_NODE_LIST ? "LIST" : "MAP");
        if (pk == PASS_STRUCT) {
            opt = opt || nd->repetition == PQ_OPTIONAL;
            continue;
        }
        assert(nlists < PQ_NEST_PATH_MAX);
        int32_t k0 = b->n;
        add(b, a, PQ_NEST_LIST, nlists ? "element" : name, opt || nd->repetition == PQ_OPTIONAL,
            (int16_t)(pk == PASS_SELF ? nd->max_def_level - 1 : nd->max_def_level));
        b->out[k0].def_item = m->nodes[rep].max_def_level;
        b->out[k0].rep_item = m->nodes[rep].max_rep_level;
        b->out[k0].nchildren = 1;
        lists[nlists++] = k0;
        opt = false;
        skip = mid;
        el_of = pk == PASS_LIST && mid < 0 ? rep : -1; /* a two-level list: rep is the element */
    }
    int32_t t = chain[0], k0 = b->n, rc;
    const char *nm = nlists ? "element" : name;
    if (t == skip && m->nodes[m->nodes[t].parent].kind == PQ_NODE_MAP) { /* "m.key_value" */
        add(b, t, PQ_NEST_STRUCT, nm, false, m->nodes[t].max_def_level);
        rc = struct_of(b, k0, t);
    } else if (t == skip) { /* "lst.list": the elements */
        int32_t el = m->nodes[m->nodes[t].parent].element;
        rc = node_of(b, el, false, nm);
    } else {
        rc = node_of(b, t, t == el_of, nm);
    }
    if (rc == 0) b->out[k0].nullable = b->out[k0].nullable || opt;
    for (int32_t i = nlists - 1; rc == 0 && i >= 0; i--) close_node(b, lists[i]);
    return rc;
}

int pq_nest_build(const pq_file_meta *m, int32_t node, pq_nest *out, pq_err *e)
{
    assert(node >= 0 && node < m->nnodes);
    nest_build b = {.m = m, .out = out, .cap = PQ_NEST_CAP(m, node), .e = e};
    int32_t chain[PQ_NEST_PATH_MAX], depth = 0; /* node, its parent, ..., its top field */
    for (int32_t p = node; p >= 0; p = m->nodes[p].parent) {
        if (depth == PQ_NEST_PATH_MAX)
            return pq_errf_col(e, RINGSCAN_ELIMIT, -1, m->nodes[node].path, "column '%.200s': "
                               "a path of more than %d levels", m->nodes[node].path, PQ_NEST_PATH_MAX);
        chain[depth++] = p;
    }
    int rc = depth == 1 ? node_of(&b, node, false, NULL) : path_of(&b, chain, depth, m->nodes[node].path);
    return rc ? rc : b.n;
}

int32_t pq_nest_leaves(const pq_file_meta *m, int32_t node, int32_t *first)
{
    int32_t n = 0;
    *first = -1;
    for (int32_t i = node; i < m->nodes[node].end; i++) {
        if (m->nodes[i].column < 0) continue;
        if (n++ == 0) *first = m->nodes[i].column;
    }
    return n;
}

int32_t pq_nest_field_of(const pq_file_meta *m, int32_t col)
{
    if (col < 0 || col >= m->ncolumns || !m->columns[col].nested || m->nnodes == 0) return -1;
    int32_t top = m->nodes[m->columns[col].node].top;
    for (int32_t i = top; i < m->nodes[top].end; i++) /* the subtree's first leaf */
        if (m->nodes[i].column >= 0) return m->nodes[i].column == col ? top : -1;
    return -1;
}

int pq_nest_check(const pq_file_meta *m, int32_t node, pq_err *e)
{
    size_t n = (size_t)PQ_NEST_CAP(m, node);
    pq_nest *t = fail_malloc(n * sizeof *t);
    if (!t) return e ? pq_errf(e, -ENOMEM, -1, "out of memory") : -ENOMEM;
    pq_err dummy;
    int rc = pq_nest_build(m, node, t, e ? e : &dummy);
    free(t);
    return rc < 0 ? rc : 0;
}
