/* tests/fuzz/fuzz_nested.c: libFuzzer target for format/column_nested.c (pq_nest_leaf_chunk,
 * pq_nest_assemble) and format/nest_schema.c: the leaves' column chunks of one nested field
 * (levels of v1 and v2 pages, dictionaries, every value decoder and codec through them) and
 * the Dremel assembly of their levels into packed rows.
 * Input: [0] leaf kind (kinds[] below, the first leaf's type), [1] codec (low 3 bits), [2]
 * flags (bit 0: verify CRCs; bit 1: small limits; bits 2-4: the rows a split keeps), [3]
 * shape (shapes below), [4] the rows the chunks must hold, then per leaf but the last a 2-byte
 * little-endian length and that many chunk bytes, the last leaf's chunk the rest.
 * Shapes: 0 optional LIST of optional T; 1 required struct<optional T a, required int32 b>;
 * 2 optional MAP<int32, optional T>; 3 LIST of LIST of T (two repetition levels); 4 LIST of
 * struct<T a, int32 b>; 5 an unannotated repeated T.
 * After a decode: on success exactly rows rows were appended, each row's bytes walk the
 * shape to its end (column_nested.h layout) and its validity equals its flag byte; on failure
 * nothing was appended and the error has a message; a fast assembly of the general layout
 * gives the general walk's status and bytes (same_as_walk); leaves cut to a filtered split's
 * rows (format/nest_select.c: every row, none, the first, the last, or drawn from a hash; flag
 * bits 2-4) assemble to the whole assembly's rows at those places (same_when_selected). A
 * broken invariant aborts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/column_nested.h"

static const struct {
    pq_physical t;
    int32_t len;
} kinds[] = {
    {PQ_BOOLEAN, 0}, {PQ_INT32, 0}, {PQ_INT64, 0}, {PQ_DOUBLE, 0}, {PQ_BYTE_ARRAY, 0},
    {PQ_FIXED_LEN_BYTE_ARRAY, 3}, {PQ_INT96, 0}, {PQ_FLOAT, 0},
};

/* One schema element in pre-order: kind, repetition, children; a leaf's type is the fuzzed
 * kind when typed, else INT32. */
typedef struct elem {
    const char *name;
    pq_node_kind kind;
    pq_repetition rep;
    int nchildren;
    bool typed;
} elem;

#define E(n, k, r, c, t) {n, PQ_NODE_##k, PQ_##r, c, t}
static const elem shape0[] = {E("l", LIST, OPTIONAL, 1, 0), E("list", GROUP, REPEATED, 1, 0),
                              E("element", PRIMITIVE, OPTIONAL, 0, 1)};
static const elem shape1[] = {E("s", GROUP, REQUIRED, 2, 0), E("a", PRIMITIVE, OPTIONAL, 0, 1),
                              E("b", PRIMITIVE, REQUIRED, 0, 0)};
static const elem shape2[] = {E("m", MAP, OPTIONAL, 1, 0), E("key_value", GROUP, REPEATED, 2, 0),
                              E("key", PRIMITIVE, REQUIRED, 0, 0), E("value", PRIMITIVE, OPTIONAL, 0, 1)};
static const elem shape3[] = {E("l", LIST, OPTIONAL, 1, 0), E("list", GROUP, REPEATED, 1, 0),
                              E("element", LIST, OPTIONAL, 1, 0), E("list", GROUP, REPEATED, 1, 0),
                              E("element", PRIMITIVE, OPTIONAL, 0, 1)};
static const elem shape4[] = {E("l", LIST, OPTIONAL, 1, 0), E("list", GROUP, REPEATED, 1, 0),
                              E("element", GROUP, OPTIONAL, 2, 0), E("a", PRIMITIVE, OPTIONAL, 0, 1),
                              E("b", PRIMITIVE, REQUIRED, 0, 0)};
static const elem shape5[] = {E("r", PRIMITIVE, REPEATED, 0, 1)};
static const struct {
    const elem *e;
    int n;
} shapes[] = {{shape0, 3}, {shape1, 3}, {shape2, 4}, {shape3, 5}, {shape4, 5}, {shape5, 1}};

enum { MAX_NODES = 8 };

/* The schema of shape s into m (nodes and columns in the caller's arrays), as
 * format/meta_schema.c would read it. */
static void build_meta(int s, pq_physical t, int32_t tl, pq_file_meta *m, pq_schema_node *nodes,
                       pq_column_desc *cols, char (*paths)[64])
{
    const elem *e = shapes[s].e;
    int n = shapes[s].n, stack[MAX_NODES], left[MAX_NODES], sp = 0;
    memset(m, 0, sizeof *m);
    m->nodes = nodes, m->columns = cols, m->nnodes = n, m->has_nested = true;
    for (int i = 0; i < n; i++) {
        while (sp > 0 && left[sp - 1] == 0) nodes[stack[--sp]].end = i;
        int parent = sp ? stack[sp - 1] : -1;
        if (sp) left[sp - 1]--;
        pq_schema_node *nd = &nodes[i];
        const pq_schema_node *up = parent >= 0 ? &nodes[parent] : NULL;
        snprintf(paths[i], 64, "%s%s%s", up ? up->path : "", up ? "." : "", e[i].name);
        *nd = (pq_schema_node){.name = e[i].name, .path = paths[i], .kind = e[i].kind,
                               .repetition = e[i].rep, .parent = parent, .top = up ? up->top : i,
                               .depth = up ? up->depth + 1 : 1, .nchildren = e[i].nchildren,
                               .end = i + 1, .column = -1, .element = -1};
        nd->max_def_level = (int16_t)((up ? up->max_def_level : 0) + (e[i].rep != PQ_REQUIRED));
        nd->max_rep_level = (int16_t)((up ? up->max_rep_level : 0) + (e[i].rep == PQ_REPEATED));
        nd->shape = e[i].rep == PQ_REPEATED || e[i].kind == PQ_NODE_LIST ? PQ_SHAPE_LIST
                    : e[i].kind == PQ_NODE_MAP ? PQ_SHAPE_MAP
                    : e[i].kind == PQ_NODE_GROUP ? PQ_SHAPE_STRUCT : PQ_SHAPE_FLAT;
        if (e[i].kind == PQ_NODE_LIST) nd->element = i + 2;
        if (e[i].kind == PQ_NODE_MAP) nd->element = i + 1;
        if (e[i].nchildren) stack[sp] = i, left[sp++] = e[i].nchildren;
        if (e[i].kind != PQ_NODE_PRIMITIVE) continue;
        int c = m->ncolumns++;
        nd->column = c;
        cols[c] = (pq_column_desc){.name = paths[i], .index = c, .physical = e[i].typed ? t : PQ_INT32,
                                   .type_length = e[i].typed ? tl : 0, .repetition = e[i].rep,
                                   .max_def_level = nd->max_def_level, .max_rep_level = nd->max_rep_level,
                                   .nested = true, .node = i, .field_id = -1};
    }
    while (sp > 0) nodes[stack[--sp]].end = n;
}

/* Walks the packed value of node k at *p (before end); aborts when it does not parse. */
static void walk(const pq_file_meta *m, const pq_nest *t, int32_t k, const uint8_t **p, const uint8_t *end)
{
    if (*p >= end || **p > 1) abort();
    if (*(*p)++ == 0) return;
    if (t[k].kind == PQ_NEST_PRIM) {
        const pq_column_desc *c = &m->columns[t[k].col];
        uint32_t w = c->physical == PQ_BOOLEAN ? 1 : (uint32_t)pq_fixed_width(c->physical, c->type_length);
        if (c->physical == PQ_BYTE_ARRAY) {
            if (end - *p < 4) abort();
            memcpy(&w, *p, 4);
            *p += 4;
        }
        if ((uint64_t)(end - *p) < w) abort();
        *p += w;
        return;
    }
    if (t[k].kind == PQ_NEST_STRUCT) {
        for (int32_t c = k + 1, i = 0; i < t[k].nchildren; i++, c = t[c].end) walk(m, t, c, p, end);
        return;
    }
    uint32_t n;
    if (end - *p < 4) abort();
    memcpy(&n, *p, 4);
    *p += 4;
    for (uint32_t i = 0; i < n; i++) walk(m, t, k + 1, p, end);
}

/* Every leaf's chunk of the input decoded into leaves (each initialised, to be freed). */
static int decode_leaves(const pq_file_meta *m, const uint8_t *d, size_t n, const pq_col_limits *lim,
                         pq_nest_leaf *leaves, pq_err *e)
{
    const uint8_t *p = d + 5, *end = d + n;
    int rc = 0;
    for (int32_t j = 0; j < m->ncolumns; j++) {
        size_t len = (size_t)(end - p);
        if (j + 1 < m->ncolumns) {
            len = end - p >= 2 ? (size_t)(p[0] | p[1] << 8) : 0;
            p += end - p >= 2 ? 2 : end - p;
            if (len > (size_t)(end - p)) len = (size_t)(end - p);
        }
        pq_col_reader r;
        pq_colr_init(&r, &m->columns[j], (pq_codec)(d[1] & 7), lim);
        pq_nest_leaf_init(&leaves[j], &m->columns[j]);
        if (rc == 0) rc = pq_nest_leaf_chunk(&r, p, len, 0, &leaves[j], e);
        pq_colr_free(&r);
        p += len;
    }
    return rc;
}

/* A fast assembly of the general layout (a struct of primitives, a list of leaves) against
 * the general walk over the same leaves (their values are not spent): the same status, and on
 * success the same rows (bytes, offsets, validity) from row before of out on. */
static void same_as_walk(const pq_file_meta *m, const pq_nest *t, pq_nest_leaf *leaves, int64_t rows,
                         int arc, const pq_vec *out, int64_t before)
{
    if (pq_nest_flat_width(m, t) || !(pq_nest_prim_struct(m, t) || pq_nest_leaf_list(m, t))) return;
    pq_vec ref;
    pq_err e2 = {0};
    pq_vec_init(&ref, PQ_BYTE_ARRAY, 0);
    int wrc = pq_nest_walk_assemble(m, t, leaves, rows, &ref, &e2);
    if (wrc == -ENOMEM) return pq_vec_free(&ref);
    if (wrc != arc) abort();
    for (int64_t r = 0; arc == 0 && r < rows; r++) {
        int32_t a = out->offsets[before + r], b = ref.offsets[r], len = ref.offsets[r + 1] - b;
        if (out->offsets[before + r + 1] - a != len || memcmp(out->data + a, ref.data + b, (size_t)len) != 0 ||
            pq_vec_is_valid(out, before + r) != pq_vec_is_valid(&ref, r))
            abort();
    }
    pq_vec_free(&ref);
}

/* The rows a filtered split keeps, from the input's flags (d[2] bits 2-4): every row, none,
 * the first, the last, or rows drawn from a hash of the input (runs and gaps). */
static int64_t pick_rows(const uint8_t *d, size_t n, int64_t rows, uint32_t *sel)
{
    int mode = (d[2] >> 2) & 7;
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    int64_t k = 0;
    for (size_t i = 0; i < n && i < 64; i++) h = (h ^ d[i]) * 0x100000001b3ull;
    for (int64_t r = 0; r < rows; r++) {
        h ^= h >> 29, h *= 0xbf58476d1ce4e5b9ull;
        bool keep = mode == 0 || (mode == 2 && r == 0) || (mode == 3 && r == rows - 1) ||
                    (mode >= 4 && (h >> 40) % (uint64_t)(mode - 2) == 0);
        if (keep && mode != 1) sel[k++] = (uint32_t)r;
    }
    return k;
}

/* Leaves cut to a split's kept rows (format/nest_select.c) against the whole assembly: when
 * the cut is made, an assembly of the kept rows succeeds and gives, row for row, the whole
 * assembly's rows at sel (out's rows from row 0 on, assembled from the same input). */
static void same_when_selected(const pq_file_meta *m, const pq_nest *t, const uint8_t *d, size_t n,
                               const pq_col_limits *lim, int64_t rows, const pq_vec *out)
{
    uint32_t sel[256];
    int64_t nsel = pick_rows(d, n, rows, sel);
    pq_nest_leaf leaves[MAX_NODES];
    pq_err e = {.offset = -1};
    pq_vec part;
    pq_vec_init(&part, PQ_BYTE_ARRAY, 0);
    int rc = decode_leaves(m, d, n, lim, leaves, &e);
    if (rc == 0 && pq_nest_leaves_select(m, t, leaves, rows, sel, nsel)) {
        int arc = pq_nest_assemble(m, t, leaves, nsel, &part, &e);
        if (arc != 0 && arc != -ENOMEM) abort();
        for (int64_t i = 0; arc == 0 && i < nsel; i++) {
            int32_t a = part.offsets[i], len = part.offsets[i + 1] - a, b = out->offsets[sel[i]];
            if (out->offsets[sel[i] + 1] - b != len ||
                (len > 0 && memcmp(part.data + a, out->data + b, (size_t)len) != 0) ||
                pq_vec_is_valid(&part, i) != pq_vec_is_valid(out, sel[i]))
                abort();
        }
    }
    for (int32_t j = 0; j < m->ncolumns; j++) pq_nest_leaf_free(&leaves[j]);
    pq_vec_free(&part);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n < 5) return 0;
    size_t nk = sizeof kinds / sizeof kinds[0];
    int s = d[3] % (int)(sizeof shapes / sizeof shapes[0]);
    pq_file_meta m;
    pq_schema_node nodes[MAX_NODES];
    pq_column_desc cols[MAX_NODES];
    char paths[MAX_NODES][64];
    build_meta(s, kinds[d[0] % nk].t, kinds[d[0] % nk].len, &m, nodes, cols, paths);
    pq_nest t[PQ_NEST_NODES(MAX_NODES)];
    pq_err e = {.offset = -1};
    if (pq_nest_build(&m, 0, t, &e) <= 0) abort(); /* every shape here is allowed */
    pq_col_limits lim;
    pq_col_limits_default(&lim);
    lim.verify_crc = d[2] & 1;
    lim.max_page_bytes = d[2] & 2 ? 4096 : 16 << 20; /* keep libFuzzer's RSS bounded */
    lim.max_page_values = d[2] & 2 ? 1000 : 1 << 20;
    lim.max_dict_values = d[2] & 2 ? 100 : 1 << 20;
    lim.max_decompressed_bytes = d[2] & 2 ? 1 << 16 : 64 << 20;
    int64_t rows = d[4];
    pq_nest_leaf leaves[MAX_NODES];
    int rc = 0;
    pq_vec out;
    pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
    for (int pass = 0; pass < 2; pass++) { /* the second appends to the first's rows */
        rc = decode_leaves(&m, d, n, &lim, leaves, &e); /* an assembly spends its leaves */
        int64_t before = out.length, bytes = out.data_len;
        int arc = rc ? 0 : pq_nest_assemble(&m, t, leaves, rows, &out, &e);
        if (rc == 0 && arc != -ENOMEM) same_as_walk(&m, t, leaves, rows, arc, &out, before);
        for (int32_t j = 0; j < m.ncolumns; j++) pq_nest_leaf_free(&leaves[j]);
        if (rc) break;
        if (arc > 0) abort();
        if (arc < 0 && (out.length != before || out.data_len != bytes)) abort();
        if (arc < 0 && e.msg[0] == 0 && arc != -ENOMEM) abort();
        if (arc < 0) break;
        if (out.length != before + rows) abort();
        if (pass == 0) same_when_selected(&m, t, d, n, &lim, rows, &out);
        int32_t w = pq_nest_flat_width(&m, t);
        for (int64_t r = before; w && r < out.length; r++) { /* flat: a count, padding */
            int64_t len = out.offsets[r + 1] - out.offsets[r];
            bool flagged;
            int64_t k = pq_nest_flat_count(len, w, &flagged);
            if ((flagged ? len - k * (w + 1) >= w : k * w != len) || (len && !pq_vec_is_valid(&out, r)))
                abort();
        }
        for (int64_t r = before; !w && r < out.length; r++) {
            const uint8_t *q = out.data + out.offsets[r], *qe = out.data + out.offsets[r + 1];
            bool flag = q < qe && q[0] != 0;
            walk(&m, t, 0, &q, qe);
            if (q != qe || pq_vec_is_valid(&out, r) != flag) abort();
        }
    }
    if (rc < 0 && e.msg[0] == 0 && rc != -ENOMEM) abort();
    pq_vec_free(&out);
    return 0;
}
