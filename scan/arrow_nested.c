/* scan/arrow_nested.c: a nested field's packed rows (format/column_nested.h) as Arrow arrays:
 * struct "+s", list "+l" (int32 offsets), map "+m" (entries struct<key, value>, keys
 * non-null), with validity at every level and names as pyarrow gives them; where the stored
 * Arrow schema says so (scan_arrow_type.nodes), a list is "+L" (int64 offsets), "+w:N" (a
 * fixed-size list: a null list holds N null elements, a list of another size is
 * RINGSCAN_EFORMAT, as pyarrow refuses it), "+vl" or "+vL" (a list view: offsets and
 * sizes), and a leaf takes its stored type (zones, durations, large, views, decimals).
 *
 * Unpacking is schema-driven: one builder per node of the field's shape (pq_nest), a row's
 * bytes walked once, each node's validity, offsets or leaf values appended; a null struct
 * appends a null to each child (Arrow's struct children have a slot per struct slot).
 * Invariants:
 *  1. The packed bytes are the decoder's own: bytes that do not parse are a broken
 *     invariant (asserted in every build), never a file's fault.
 *  2. A list's elements past INT32_MAX (scan_nest_elements_max) in one batch are
 *     RINGSCAN_ELIMIT naming the field (a large list's offsets are widened from the int32
 *     ones; a batch holds far fewer); scan_arrow_batch adds the chunk's file offset.
 *  3. Every builder's buffers move into the arrays or are freed on failure. */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "format/column_nested.h"
#include "scan/arrow.h"
#include "scan/arrow_nested.h"
#include "scan/arrow_types.h"

/* Node k's format override ("" when none). */
static const char *node_format(const nest_unpack *u, int32_t k)
{
    return u->nodes ? u->nodes[k].format : "";
}

/* Leaf k's dictionary index format ("" when it is not exported as a dictionary). */
static const char *index_fmt(const nest_unpack *u, int32_t k)
{
    return u->nodes ? u->nodes[k].index_format : "";
}

/* The fixed size of list node k ("+w:N"), or -1. */
static int32_t fixed_size(const nest_unpack *u, int32_t k)
{
    int32_t n;
    const char *f = node_format(u, k);
    return strncmp(f, "+w:", 3) == 0 && sscanf(f + 3, "%d", &n) == 1 ? n : -1;
}

/* ------------------------------------------------------------------------ schema */

/* Node k's format: its override, else its Parquet shape's or leaf type's (in buf). */
static const char *format_of(const nest_unpack *u, int32_t k, unsigned flags, char *buf, size_t n)
{
    const pq_nest *t = &u->t[k];
    if (node_format(u, k)[0]) return node_format(u, k);
    if (t->kind == PQ_NEST_PRIM) return u->ops->format(&u->m->columns[t->col], flags, buf, n);
    return t->kind == PQ_NEST_STRUCT ? "+s" : t->kind == PQ_NEST_LIST ? "+l" : "+m";
}

/* What node k is to its parent: a map's entries and their key are never null in Arrow, so an
 * open field (scan_arrow_col.open) exports every other node nullable. */
typedef enum { NODE_FREE, NODE_ENTRIES, NODE_KEY } node_role;

static int schema_of(const nest_unpack *u, int32_t k, node_role role, unsigned flags,
                     struct ArrowSchema *s)
{
    const pq_nest *t = &u->t[k];
    int64_t fl = t->nullable || (u->open && role == NODE_FREE) ? ARROW_FLAG_NULLABLE : 0;
    char buf[32];
    const char *fmt = format_of(u, k, flags, buf, sizeof buf), *ix = index_fmt(u, k);
    int rc = u->ops->schema_fill(s, ix[0] ? ix : fmt, k == 0 && u->rename ? u->rename : t->name,
                                 t->kind == PQ_NEST_PRIM ? 0 : t->nchildren, fl);
    if (rc == 0 && ix[0]) { /* indices into a dictionary of the leaf's type */
        rc = (s->dictionary = fail_calloc(1, sizeof *s->dictionary)) ? 0 : -ENOMEM;
        if (rc == 0) rc = u->ops->schema_fill(s->dictionary, fmt, "", 0, 0);
        if (rc) s->release(s);
        if (rc) return rc;
    }
    if (rc == 0 && k > 0 && u->nodes && (rc = u->ops->metadata(s, u->nodes[k].metadata)) != 0)
        s->release(s);
    if (rc == 0 && t->kind == PQ_NEST_PRIM && (rc = u->ops->mark(s, &u->m->columns[t->col], flags)))
        s->release(s);
    for (int32_t c = k + 1, i = 0; rc == 0 && t->kind != PQ_NEST_PRIM && i < t->nchildren;
         i++, c = u->t[c].end) {
        node_role r = t->kind == PQ_NEST_MAP           ? NODE_ENTRIES
                      : role == NODE_ENTRIES && i == 0 ? NODE_KEY
                                                       : NODE_FREE;
        rc = schema_of(u, c, r, flags, s->children[i]);
        if (rc) s->release(s);
    }
    return rc;
}

/* The field's shape into u (u->t malloc'd). 0 or -ENOMEM (the shape was accepted when the
 * scan was planned: any other failure is a broken invariant). */
static int unpack_init(nest_unpack *u, const scan_arrow_col *c, const scan_arrow_ops *ops,
                       pq_err *err)
{
    const pq_file_meta *m = c->meta;
    memset(u, 0, sizeof *u);
    u->m = m;
    u->ops = ops;
    u->name = c->name ? c->name : "";
    u->rename = c->rename;
    u->open = c->open;
    u->e = err;
    u->t = fail_malloc(sizeof *u->t * (size_t)PQ_NEST_CAP(m, c->node));
    if (!u->t) return -ENOMEM;
    pq_err e;
    u->n = pq_nest_build(m, c->node, u->t, &e);
    if (u->n == -ENOMEM) {
        free(u->t);
        return -ENOMEM;
    }
    NEST_VERIFY(u->n > 0);
    if (c->type && c->type->nodes) {
        NEST_VERIFY(c->type->nnodes == u->n); /* built from the same shape (arrow_types.c) */
        u->nodes = c->type->nodes;
    }
    return 0;
}

int scan_arrow_nested_schema(const scan_arrow_col *c, unsigned flags, const scan_arrow_ops *ops,
                             struct ArrowSchema *s)
{
    nest_unpack u;
    pq_err e = {.offset = -1};
    int rc = unpack_init(&u, c, ops, &e);
    if (rc) return rc;
    rc = schema_of(&u, 0, NODE_FREE, flags, s);
    free(u.t);
    return rc;
}

/* ------------------------------------------------------------------------ builders */

/* Appends one validity bit to b (grown). 0 or -ENOMEM. */
static int put_valid(nest_builder *b, bool v)
{
    if ((b->length >> 3) + 1 > b->valid_cap) {
        int64_t cap = b->valid_cap ? 2 * b->valid_cap : 64;
        uint8_t *p = fail_realloc(b->valid, (size_t)cap);
        if (!p) return -ENOMEM;
        b->valid = p, b->valid_cap = cap;
    }
    pq_bit_set(b->valid, b->length, v);
    b->null_count += !v;
    return 0;
}

/* Appends a list's end offset (the previous one plus n) to b. 0, ELIMIT or -ENOMEM. */
static int put_offset(nest_builder *b, int64_t n)
{
    if (b->length + 2 > b->off_cap) {
        int64_t cap = b->off_cap ? 2 * b->off_cap : 64;
        int32_t *p = fail_realloc(b->offsets, sizeof(int32_t) * (size_t)cap);
        if (!p) return -ENOMEM;
        if (!b->offsets) p[0] = 0;
        b->offsets = p, b->off_cap = cap;
    }
    int64_t end = (int64_t)b->offsets[b->length] + n;
    if (end > scan_nest_elements_max) return RINGSCAN_ELIMIT; /* invariant 2 */
    b->offsets[b->length + 1] = (int32_t)end;
    return 0;
}

/* Whether v holds one more value of n data bytes without growing (pq_vec_reserve's sizes). */
static inline bool leaf_room(const pq_vec *v, uint32_t n)
{
    int64_t k = v->length + 1;
    if ((k + 7) / 8 > v->validity_cap) return false;
    if (v->type == PQ_BOOLEAN) return (k + 7) / 8 <= v->values_cap;
    if (v->type == PQ_BYTE_ARRAY) return k + 1 <= v->offsets_cap && v->data_len + n <= v->data_cap;
    return k * pq_fixed_width(v->type, v->type_length) <= v->values_cap;
}

/* Appends a leaf value at p (null when p is NULL) to v; *used: the bytes it took. */
static int put_leaf(pq_vec *v, const uint8_t *p, const uint8_t *end, int64_t *used)
{
    int64_t k = v->length, w = pq_fixed_width(v->type, v->type_length);
    uint32_t n = 0;
    if (p && v->type == PQ_BYTE_ARRAY) {
        NEST_VERIFY(end - p >= 4);
        memcpy(&n, p, 4);
    }
    if (!leaf_room(v, n)) { /* the common case skips the call: capacity is checked inline */
        int rc = pq_vec_reserve(v, 1, n);
        if (rc) return rc;
    }
    if (!p && v->null_count == 0)
        for (int64_t i = 0; i < k; i++) pq_bit_set(v->validity, i, true);
    if (!p || v->null_count) pq_bit_set(v->validity, k, p != NULL);
    v->null_count += !p;
    *used = 0;
    if (v->type == PQ_BOOLEAN) {
        pq_bit_set(v->values, k, p && p[0]);
        *used = 1;
    } else if (v->type == PQ_BYTE_ARRAY) {
        if (n) memcpy(v->data + v->data_len, p + 4, n);
        v->data_len += n;
        v->offsets[k + 1] = (int32_t)v->data_len;
        *used = 4 + (int64_t)n;
    } else if (p) {
        memcpy(v->values + (size_t)k * (size_t)w, p, (size_t)w);
        *used = w;
    } else {
        memset(v->values + (size_t)k * (size_t)w, 0, (size_t)w);
    }
    if (!p) *used = 0;
    NEST_VERIFY(!p || *used <= end - p); /* invariant 1 */
    v->length++;
    return 0;
}

/* A null at node k: its validity, and a null in each child of a struct. */
static int put_null(nest_unpack *u, int32_t k)
{
    const pq_nest *t = &u->t[k];
    nest_builder *b = &u->b[k];
    int64_t used; /* a leaf's validity is its values' own (vals), the others' the builder's */
    int rc = t->kind == PQ_NEST_PRIM ? put_leaf(&b->vals, NULL, NULL, &used) : put_valid(b, false);
    int32_t fixed = t->kind == PQ_NEST_LIST ? fixed_size(u, k) : -1;
    if (rc == 0 && fixed > 0 && u->b[k + 1].length > SCAN_NEST_FIXED_MAX - fixed)
        rc = pq_errf(u->e, RINGSCAN_ELIMIT, -1, "column '%.100s': the null slots of the stored "
                     "fixed_size_list<%d> take more than %d elements", u->name, fixed,
                     SCAN_NEST_FIXED_MAX);
    if (rc == 0 && (t->kind == PQ_NEST_LIST || t->kind == PQ_NEST_MAP)) rc = put_offset(b, fixed > 0 ? fixed : 0);
    for (int32_t i = 0; rc == 0 && i < fixed; i++) rc = put_null(u, k + 1); /* N null slots */
    for (int32_t c = k + 1, i = 0; rc == 0 && t->kind == PQ_NEST_STRUCT && i < t->nchildren;
         i++, c = u->t[c].end)
        rc = put_null(u, c);
    if (rc == 0) b->length++;
    return rc;
}

/* n elements of list whose element is node k, a fixed-width leaf, packed at *p: appended to
 * its values in one loop (what put_value does for each, without the per-element calls). */
static int fixed_values(nest_unpack *u, int32_t k, uint32_t n, const uint8_t **p, const uint8_t *end)
{
    nest_builder *cb = &u->b[k];
    pq_vec *v = &cb->vals;
    size_t w = (size_t)pq_fixed_width(v->type, v->type_length);
    int rc = pq_vec_reserve(v, n, 0);
    if (rc) return rc;
    for (uint32_t i = 0; i < n; i++) {
        int64_t r = v->length + i;
        NEST_VERIFY(*p < end && **p <= 1); /* invariant 1 */
        bool valid = *(*p)++ != 0;
        if (!valid && v->null_count == 0)
            for (int64_t j = 0; j < r; j++) pq_bit_set(v->validity, j, true);
        if (v->null_count || !valid) pq_bit_set(v->validity, r, valid);
        v->null_count += !valid;
        if (!valid) {
            memset(v->values + (size_t)r * w, 0, w);
            continue;
        }
        NEST_VERIFY((size_t)(end - *p) >= w);
        memcpy(v->values + (size_t)r * w, *p, w);
        *p += w;
    }
    v->length += n;
    cb->length += n;
    return 0;
}

/* The value of node k packed at *p (within end): appended to the builders, *p past it. */
static int put_value(nest_unpack *u, int32_t k, const uint8_t **p, const uint8_t *end)
{
    const pq_nest *t = &u->t[k];
    nest_builder *b = &u->b[k];
    NEST_VERIFY(*p < end && **p <= 1);
    if (*(*p)++ == 0) return put_null(u, k);
    int rc = t->kind == PQ_NEST_PRIM ? 0 : put_valid(b, true); /* a leaf's: in vals */
    if (rc) return rc;
    if (t->kind == PQ_NEST_PRIM) {
        int64_t used;
        rc = put_leaf(&b->vals, *p, end, &used);
        *p += used;
    } else if (t->kind == PQ_NEST_STRUCT) {
        for (int32_t c = k + 1, i = 0; rc == 0 && i < t->nchildren; i++, c = u->t[c].end)
            rc = put_value(u, c, p, end);
    } else {
        uint32_t n;
        NEST_VERIFY(end - *p >= 4);
        memcpy(&n, *p, 4);
        *p += 4;
        int32_t want = t->kind == PQ_NEST_LIST ? fixed_size(u, k) : -1;
        rc = want < 0 || n == (uint32_t)want ? put_offset(b, n)
             : pq_errf(u->e, RINGSCAN_EFORMAT, -1, "column '%.100s': a list of %u elements where "
                       "the stored fixed_size_list needs %d", u->name, n, want);
        const pq_vec *ev = &u->b[k + 1].vals;
        bool fixed = u->t[k + 1].kind == PQ_NEST_PRIM && ev->type != PQ_BOOLEAN && ev->type != PQ_BYTE_ARRAY;
        if (rc == 0 && fixed) rc = fixed_values(u, k + 1, n, p, end);
        for (uint32_t i = 0; rc == 0 && !fixed && i < n; i++) rc = put_value(u, k + 1, p, end);
    }
    if (rc == 0) b->length++;
    return rc;
}

/* ------------------------------------------------------------------------- arrays */

typedef struct nest_priv {
    nest_builder b;
    void *wide;         /* "+L": int64 offsets; "+vl"/"+vL": offsets then sizes */
    const void *buffers[3];
    struct ArrowArray **children;
    struct ArrowArray *child_mem;
} nest_priv;

static void nest_release(struct ArrowArray *a)
{
    nest_priv *p = a->private_data;
    for (int64_t i = 0; i < a->n_children; i++)
        if (p->child_mem[i].release) p->child_mem[i].release(&p->child_mem[i]);
    free(p->b.valid);
    free(p->b.offsets);
    free(p->wide);
    free(p->children);
    free(p->child_mem);
    free(p);
    a->release = NULL;
}

/* A list's buffers for its format fmt from its int32 offsets: "+l" and "+m" as they are,
 * "+w:N" none (validity alone), "+L" int64 offsets, "+vl"/"+vL" offsets and sizes
 * (*n_buffers set). 0 or -ENOMEM. */
static int list_layout(const char *fmt, nest_priv *p, int *n_buffers)
{
    int64_t n = p->b.length;
    const int32_t *off = p->b.offsets;
    if (strncmp(fmt, "+w:", 3) == 0) {
        *n_buffers = 1;
        return 0;
    }
    bool view = strncmp(fmt, "+v", 2) == 0, wide = strcmp(fmt, "+L") == 0 || strcmp(fmt, "+vL") == 0;
    if (!view && !wide) return 0;
    size_t w = wide ? 8 : 4, count = view ? 2 * (size_t)n : (size_t)n + 1;
    uint8_t *o = fail_malloc(w * (count + 1));
    if (!o) return -ENOMEM;
    for (size_t i = 0; i < count; i++) { /* a view: offsets [0, n), then sizes [n, 2n) */
        int64_t x = !view ? off[i] : i < (size_t)n ? off[i] : off[i - n + 1] - off[i - n];
        if (wide) memcpy(o + 8 * i, &x, 8);
        else memcpy(o + 4 * i, &(int32_t){(int32_t)x}, 4);
    }
    p->wide = o;
    p->buffers[1] = o;
    p->buffers[2] = view ? o + w * (size_t)n : NULL;
    *n_buffers = view ? 3 : 2;
    return 0;
}

/* Node k's builder (taken over) as an array into a. 0 or -ENOMEM. */
static int array_of(nest_unpack *u, int32_t k, unsigned flags, struct ArrowArray *a)
{
    const pq_nest *t = &u->t[k];
    nest_builder *b = &u->b[k];
    if (t->kind == PQ_NEST_PRIM) {
        char buf[32];
        const char *fmt = format_of(u, k, flags, buf, sizeof buf);
        b->vals.length = b->length;
        if (index_fmt(u, k)[0]) return u->ops->dict_leaf(fmt, index_fmt(u, k), &b->vals, a, u->name, u->e);
        return u->ops->leaf(fmt, &b->vals, a, u->name, u->e);
    }
    nest_priv *p = fail_calloc(1, sizeof *p);
    int rc = p ? 0 : -ENOMEM;
    if (rc == 0) {
        p->children = fail_calloc((size_t)t->nchildren, sizeof *p->children);
        p->child_mem = fail_calloc((size_t)t->nchildren, sizeof *p->child_mem);
        rc = p->children && p->child_mem ? 0 : -ENOMEM;
    }
    bool list = t->kind != PQ_NEST_STRUCT;
    if (rc == 0 && list && !b->offsets) rc = put_offset(b, 0) ? -ENOMEM : 0; /* offsets[0] */
    if (rc) {
        if (p) free(p->children), free(p->child_mem), free(p);
        return rc;
    }
    p->b = *b;
    memset(b, 0, sizeof *b);
    p->buffers[0] = p->b.null_count ? p->b.valid : NULL;
    p->buffers[1] = p->b.offsets;
    int n_buffers = list ? 2 : 1;
    if (list && (rc = list_layout(node_format(u, k), p, &n_buffers)) != 0) {
        free(p->b.valid), free(p->b.offsets), free(p->children), free(p->child_mem), free(p);
        return rc;
    }
    *a = (struct ArrowArray){.length = p->b.length, .null_count = p->b.null_count,
                             .n_buffers = n_buffers, .buffers = p->buffers,
                             .n_children = 0, .children = p->children,
                             .release = nest_release, .private_data = p};
    for (int32_t c = k + 1, i = 0; i < t->nchildren; i++, c = u->t[c].end) {
        p->children[i] = &p->child_mem[i];
        rc = array_of(u, c, flags, &p->child_mem[i]);
        if (rc) break;
        a->n_children = i + 1;
    }
    if (rc) a->release(a);
    return rc;
}

static void builders_free(nest_unpack *u)
{
    for (int32_t k = 0; u->b && k < u->n; k++) {
        free(u->b[k].valid);
        free(u->b[k].offsets);
        pq_vec_free(&u->b[k].vals);
    }
    free(u->b);
    free(u->t);
}

/* Invariant 2 for columns the split built (their offsets within INT32_MAX by construction:
 * format/nest_list.c packs no more than INT32_MAX bytes): RINGSCAN_ELIMIT past the limit. */
static int built_elements(const nest_unpack *u)
{
    for (int32_t k = 0; k < u->n; k++) {
        const nest_builder *b = &u->b[k];
        bool list = u->t[k].kind == PQ_NEST_LIST || u->t[k].kind == PQ_NEST_MAP;
        if (list && b->offsets && b->offsets[b->length] > scan_nest_elements_max) return RINGSCAN_ELIMIT;
    }
    return 0;
}

/* The message of invariant 2's refusal (the offsets' own: returned without one). */
static void elements_error(const nest_unpack *u, int rc, pq_err *e)
{
    if (rc != RINGSCAN_ELIMIT || e->status != 0) return;
    pq_errf_col(e, rc, -1, u->name, "column '%.100s': more than %lld list elements in one batch "
                "(Arrow's int32 list offsets)", u->name, (long long)scan_nest_elements_max);
}

int scan_arrow_nested_array(const scan_arrow_col *c, unsigned flags, const scan_arrow_ops *ops,
                            pq_vec *v, struct ArrowArray *a, pq_err *e)
{
    assert(v->type == PQ_BYTE_ARRAY && c->node >= 0 && e);
    nest_unpack u;
    int rc = unpack_init(&u, c, ops, e);
    if (rc) return rc;
    if (v->cols) { /* built by the split (column_nested.h pq_nest_columns): taken as they are */
        NEST_VERIFY(v->cols->n == u.n && v->cols->col[0].length == v->length);
        for (int32_t k = 0; k < u.n; k++) NEST_VERIFY(fixed_size(&u, k) < 0); /* api.c: none */
        u.b = v->cols->col;
        v->cols->col = NULL;
        rc = built_elements(&u);
        if (rc == 0) rc = array_of(&u, 0, flags, a);
        else elements_error(&u, rc, e);
        builders_free(&u);
        pq_vec_free(v);
        pq_vec_init(v, PQ_BYTE_ARRAY, 0);
        return rc;
    }
    u.b = fail_calloc((size_t)u.n, sizeof *u.b);
    rc = u.b ? 0 : -ENOMEM;
    for (int32_t k = 0; rc == 0 && k < u.n; k++)
        if (u.t[k].kind == PQ_NEST_PRIM)
            pq_vec_init(&u.b[k].vals, c->meta->columns[u.t[k].col].physical,
                        c->meta->columns[u.t[k].col].type_length);
    int32_t w = rc ? 0 : pq_nest_flat_width(c->meta, u.t);
    if (w) rc = scan_nest_flat_unpack(&u, w, v);
    if (w && rc == 0 && fixed_size(&u, 0) >= 0) rc = scan_nest_flat_fixed(&u, w, fixed_size(&u, 0));
    bool fast_struct = rc == 0 && !w && u.n <= 65 && pq_nest_prim_struct(c->meta, u.t);
    if (fast_struct) rc = scan_nest_struct_unpack(&u, v);
    bool fast_list = rc == 0 && !w && !fast_struct && fixed_size(&u, 0) < 0 && pq_nest_leaf_list(c->meta, u.t);
    if (fast_list) rc = scan_nest_list_unpack(&u, v);
    for (int64_t r = 0; rc == 0 && !w && !fast_struct && !fast_list && r < v->length; r++) {
        if (v->offsets[r + 1] == v->offsets[r]) { /* a null row without bytes (a placeholder) */
            NEST_VERIFY(!pq_vec_is_valid(v, r));
            rc = put_null(&u, 0);
            continue;
        }
        const uint8_t *p = v->data + v->offsets[r], *end = v->data + v->offsets[r + 1];
        rc = put_value(&u, 0, &p, end);
        NEST_VERIFY(rc || p == end);
    }
    elements_error(&u, rc, e);
    if (rc == 0) rc = array_of(&u, 0, flags, a);
    builders_free(&u);
    pq_vec_free(v);
    pq_vec_init(v, PQ_BYTE_ARRAY, 0);
    return rc;
}
