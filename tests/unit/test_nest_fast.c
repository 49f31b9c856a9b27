/* tests for format/column_nested.c's fast shapes (format/nest_flat.c: a list of a
 * fixed-width primitive packed flat; format/nest_struct.c: a struct of primitives packed
 * column by column, its leaves' pages cut at different rows): a schema built here (optional LIST of optional INT64,
 * three-level), chunks of crafted pages (two v1 pages with a list that crosses the boundary
 * between them, then a v2 page) decoded and assembled, the rows asserted value by value
 * (null lists, empty lists, null elements, element flags only on the rows that have a null);
 * the split whose elements are all valid moves its values (no copy) and one appended to rows
 * already there copies them; level pairs that break the rules are EFORMAT with the column and
 * leave the output as it was. Lists of leaves (format/nest_list.c: list<string>,
 * map<string, int64>): rows asserted value by value and byte for byte equal to the general
 * walk's (pq_nest_walk_assemble), over v1 and v2 pages cut at different pairs per leaf;
 * broken leaves get the walk's errors. The same pages built as columns (format/nest_cols.c,
 * pq_nest_columns: no packed row): every slot's value and validity at each level asserted,
 * flat lists too, values that need no spreading moved, broken levels the packed assemblies'
 * errors. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format/column_nested.h"
#include "format/meta.h"

/* ------------------------------------------------------------------------ schema */

typedef struct schema {
    pq_file_meta m;
    pq_schema_node nodes[3];
    pq_column_desc col;
    pq_nest t[8];
} schema;

/* optional group l (LIST) { repeated group list { optional int64 element } } */
static void list_schema(schema *s)
{
    memset(s, 0, sizeof *s);
    s->nodes[0] = (pq_schema_node){.name = "l", .path = "l", .kind = PQ_NODE_LIST, .shape = PQ_SHAPE_LIST,
                                   .repetition = PQ_OPTIONAL, .parent = -1, .top = 0, .depth = 1,
                                   .nchildren = 1, .end = 3, .column = -1, .element = 2,
                                   .max_def_level = 1};
    s->nodes[1] = (pq_schema_node){.name = "list", .path = "l.list", .kind = PQ_NODE_GROUP,
                                   .shape = PQ_SHAPE_LIST, .repetition = PQ_REPEATED, .parent = 0,
                                   .depth = 2, .nchildren = 1, .end = 3, .column = -1, .element = -1,
                                   .max_def_level = 2, .max_rep_level = 1};
    s->nodes[2] = (pq_schema_node){.name = "element", .path = "l.list.element", .kind = PQ_NODE_PRIMITIVE,
                                   .shape = PQ_SHAPE_FLAT, .repetition = PQ_OPTIONAL, .parent = 1,
                                   .depth = 3, .end = 3, .column = 0, .element = -1,
                                   .max_def_level = 3, .max_rep_level = 1};
    s->col = (pq_column_desc){.name = "l.list.element", .physical = PQ_INT64,
                              .repetition = PQ_OPTIONAL, .max_def_level = 3, .max_rep_level = 1,
                              .nested = true, .node = 2, .field_id = -1};
    s->m.nodes = s->nodes, s->m.nnodes = 3, s->m.columns = &s->col, s->m.ncolumns = 1;
    s->m.has_nested = true;
    pq_err e;
    CHECK_EQ_I64(pq_nest_build(&s->m, 0, s->t, &e), 2);
    CHECK_EQ_I64(pq_nest_flat_width(&s->m, s->t), 8);
}

/* ------------------------------------------------------------------------ pages */

typedef struct chunk {
    uint8_t buf[4096];
    size_t len;
} chunk;

/* Levels lv[0 .. n) as RLE runs (bit width <= 8, runs of at most 63) at out; their bytes. */
static size_t rle(uint8_t *out, const uint16_t *lv, int n)
{
    size_t k = 0;
    for (int i = 0, j; i < n; i = j) {
        for (j = i; j < n && lv[j] == lv[i] && j - i < 63; j++) {}
        out[k++] = (uint8_t)((j - i) << 1);
        out[k++] = (uint8_t)lv[i];
    }
    return k;
}

/* Appends a data page (v2 when v2) of n level pairs (rep NULL: a leaf without repetition)
 * and PLAIN value bytes vals[0 .. vlen) of its nv values to c. */
static void add_page(chunk *c, bool v2, const uint16_t *rep, const uint16_t *def, int n,
                     const void *vals, size_t vlen, int nv, int rows)
{
    uint8_t body[1024], r[256], d[256];
    size_t rl = rep ? rle(r, rep, n) : 0, dl = rle(d, def, n), b = 0;
    uint32_t u;
    if (!v2 && rep) u = (uint32_t)rl, memcpy(body + b, &u, 4), b += 4;
    memcpy(body + b, r, rl), b += rl;
    if (!v2) u = (uint32_t)dl, memcpy(body + b, &u, 4), b += 4;
    memcpy(body + b, d, dl), b += dl;
    if (vlen) memcpy(body + b, vals, vlen), b += vlen;
    pq_page_header h = {.type = v2 ? PQ_PAGE_DATA_V2 : PQ_PAGE_DATA, .uncompressed_size = (int32_t)b,
                        .compressed_size = (int32_t)b, .num_values = n, .encoding = PQ_ENC_PLAIN,
                        .def_level_encoding = PQ_ENC_RLE, .rep_level_encoding = PQ_ENC_RLE,
                        .num_nulls = n - nv, .num_rows = rows, .is_compressed = !v2,
                        .def_levels_byte_length = v2 ? (int32_t)dl : 0,
                        .rep_levels_byte_length = v2 ? (int32_t)rl : 0};
    pq_buf hb = {0};
    CHECK_EQ_I64(pq_write_page_header(&hb, &h), 0);
    if (c->len + hb.len + b > sizeof c->buf) abort();
    memcpy(c->buf + c->len, hb.data, hb.len);
    memcpy(c->buf + c->len + hb.len, body, b);
    c->len += hb.len + b;
    pq_buf_free(&hb);
}

/* Rows (pairs: definition 0 null list, 1 empty, 2 null element, 3 a value):
 *   [1,2,3], null, [], [null,4,|5] (the v1 page ends inside it), [6], [null],
 *   then a v2 page: [7,8], null, [9]. */
static void nine_rows(chunk *c)
{
    memset(c, 0, sizeof *c);
    static const uint16_t r1[] = {0, 1, 1, 0, 0, 0, 1}, d1[] = {3, 3, 3, 0, 1, 2, 3};
    static const int64_t v1[] = {1, 2, 3, 4};
    add_page(c, false, r1, d1, 7, v1, sizeof v1, 4, 4);
    static const uint16_t r2[] = {1, 0, 0}, d2[] = {3, 3, 2};
    static const int64_t v2[] = {5, 6};
    add_page(c, false, r2, d2, 3, v2, sizeof v2, 2, 2);
    static const uint16_t r3[] = {0, 1, 0, 0}, d3[] = {3, 3, 0, 3};
    static const int64_t v3[] = {7, 8, 9};
    add_page(c, true, r3, d3, 4, v3, sizeof v3, 3, 3);
}

static int decode_col(const pq_column_desc *col, const chunk *c, pq_nest_leaf *l, pq_err *e)
{
    pq_col_reader r;
    pq_colr_init(&r, col, PQ_CODEC_UNCOMPRESSED, NULL);
    pq_nest_leaf_init(l, col);
    int rc = pq_nest_leaf_chunk(&r, c->buf, c->len, 100, l, e);
    pq_colr_free(&r);
    return rc;
}

/* Row r of flat vector v (INT64 elements) as text: null, [1,null,2]. */
static void row_text(const pq_vec *v, int64_t r, char *out, size_t cap)
{
    if (!pq_vec_is_valid(v, r)) {
        CHECK_EQ_I64(v->offsets[r + 1] - v->offsets[r], 0);
        snprintf(out, cap, "null");
        return;
    }
    const uint8_t *p = v->data + v->offsets[r];
    bool flagged;
    int64_t n = pq_nest_flat_count(v->offsets[r + 1] - v->offsets[r], 8, &flagged);
    size_t k = (size_t)snprintf(out, cap, "[");
    for (int64_t i = 0; i < n && k < cap; i++) {
        int64_t x;
        memcpy(&x, p + 8 * i, 8);
        if (flagged && p[8 * n + i] == 0) CHECK_EQ_I64(x, 0); /* a null's slot is zero */
        k += (size_t)(flagged && p[8 * n + i] == 0 ? snprintf(out + k, cap - k, "%snull", i ? "," : "")
                                                    : snprintf(out + k, cap - k, "%s%lld", i ? "," : "", (long long)x));
    }
    if (k < cap) snprintf(out + k, cap - k, "]");
}

static void check_rows(const pq_vec *v, int64_t from, const char *const *want, int n)
{
    for (int i = 0; i < n; i++) {
        char got[128];
        row_text(v, from + i, got, sizeof got);
        CHECK_STR(got, want[i]);
    }
}

static const char *const nine_want[] = {"[1,2,3]", "null", "[]", "[null,4,5]", "[6]", "[null]",
                                        "[7,8]", "null", "[9]"};

/* v1 and v2 pages, a list across a page boundary, nulls at both levels; then the same rows
 * appended after them (a copy, not a move). */
static void pages(void)
{
    schema s;
    list_schema(&s);
    chunk c;
    nine_rows(&c);
    pq_vec out;
    pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
    for (int pass = 0; pass < 2; pass++) {
        pq_nest_leaf l;
        pq_err e = {0};
        int rc = decode_col(&s.col, &c, &l, &e);
        CHECK_EQ_I64(rc, 0);
        CHECK_EQ_I64(l.n, 14);
        CHECK_EQ_I64(l.vals.length, 9);
        if (rc == 0) rc = pq_nest_assemble(&s.m, s.t, &l, 9, &out, &e);
        if (rc) fprintf(stderr, "  %s\n", e.msg);
        CHECK_EQ_I64(rc, 0);
        pq_nest_leaf_free(&l);
    }
    CHECK_EQ_I64(out.length, 18);
    CHECK_EQ_I64(out.null_count, 4);
    check_rows(&out, 0, nine_want, 9);
    check_rows(&out, 9, nine_want, 9);
    /* only the rows with a null element carry flags: [1,2,3] is its 24 value bytes */
    CHECK_EQ_I64(out.offsets[1], 24);
    CHECK_EQ_I64(out.offsets[4] - out.offsets[3], 3 * 9 + 6); /* 27 bytes padded to 1 mod 8 */
    pq_vec_free(&out);
}

/* A split whose elements are all valid (the branch-free pass): the leaf's values become the
 * rows' bytes; appended to rows already there, they are copied. */
static void moved(void)
{
    schema s;
    list_schema(&s);
    chunk c = {0};
    static const uint16_t r[] = {0, 1, 0, 0, 0}, d[] = {3, 3, 0, 1, 3};
    static const int64_t v[] = {7, 8, 9};
    add_page(&c, true, r, d, 5, v, sizeof v, 3, 4);
    pq_nest_leaf l;
    pq_err e = {0};
    CHECK_EQ_I64(decode_col(&s.col, &c, &l, &e), 0);
    const uint8_t *values = l.vals.values;
    pq_vec out;
    pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
    CHECK_EQ_I64(pq_vec_reserve(&out, 4, 64), 0); /* as a split's vector comes, reserved */
    CHECK_EQ_I64(pq_nest_assemble(&s.m, s.t, &l, 4, &out, &e), 0);
    CHECK(out.data == values);
    CHECK(l.vals.values == NULL && l.n == 0); /* spent */
    static const char *const want[] = {"[7,8]", "null", "[]", "[9]"};
    check_rows(&out, 0, want, 4);
    CHECK_EQ_I64(out.null_count, 1);
    CHECK_EQ_I64(out.data_len, 24);
    pq_nest_leaf_free(&l);
    /* the same split appended after those rows: copied, the offsets past the first 24 bytes */
    CHECK_EQ_I64(decode_col(&s.col, &c, &l, &e), 0);
    CHECK_EQ_I64(pq_nest_assemble(&s.m, s.t, &l, 4, &out, &e), 0);
    CHECK(l.vals.values != NULL && out.data != l.vals.values);
    CHECK_EQ_I64(out.length, 8);
    CHECK_EQ_I64(out.null_count, 2);
    CHECK_EQ_I64(out.offsets[5], 40);
    CHECK_EQ_I64(out.data_len, 48);
    check_rows(&out, 0, want, 4);
    check_rows(&out, 4, want, 4);
    pq_nest_leaf_free(&l);
    pq_vec_free(&out);
}

/* A leaf of n pairs (rep, def) with a value 10 + i for each pair at level 3. */
static void leaf_of(const schema *s, pq_nest_leaf *l, const uint16_t *rep, const uint16_t *def, int n)
{
    pq_nest_leaf_init(l, &s->col);
    CHECK_EQ_I64(pq_nest_leaf_reserve(l, n), 0);
    for (int i = 0; i < n; i++) {
        l->rep[i] = rep[i], l->def[i] = def[i];
        if (def[i] == 3) ((int64_t *)l->vals.values)[l->vals.length++] = 10 + i;
    }
    l->n = n;
}

/* Broken level pairs: EFORMAT naming the column and the pair, out as it was. */
static void broken(void)
{
    schema s;
    list_schema(&s);
    pq_vec out;
    pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
    static const uint16_t r0[] = {0, 0}, d0[] = {3, 0};
    pq_nest_leaf l;
    pq_err e = {0};
    leaf_of(&s, &l, r0, d0, 2);
    CHECK_EQ_I64(pq_nest_assemble(&s.m, s.t, &l, 2, &out, &e), 0);
    pq_nest_leaf_free(&l);
    static const struct {
        uint16_t rep[4], def[4];
        int n, rows;
        const char *msg;
    } cases[] = {
        {{0, 1, 0}, {3, 1, 3}, 3, 2, "level pair 1 of the column chunk: definition level below its parent's"},
        {{0, 0, 0}, {3, 0, 3}, 3, 4, "level pair 3 of the column chunk: the column ends before its row group"},
        {{0, 0, 0}, {3, 0, 3}, 3, 2, "column chunk holds 1 level pairs past the 2 rows read of its row group"},
        {{0, 1, 0}, {3, 2, 0}, 3, 0, "column chunk holds 3 level pairs past the 0 rows read of its row group"},
        {{0, 1}, {0, 3}, 2, 2, "level pair 1 of the column chunk: repetition level not the one the structure expects"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        leaf_of(&s, &l, cases[k].rep, cases[k].def, cases[k].n);
        memset(&e, 0, sizeof e);
        CHECK_EQ_I64(pq_nest_assemble(&s.m, s.t, &l, cases[k].rows, &out, &e), RINGSCAN_EFORMAT);
        CHECK(strstr(e.msg, cases[k].msg) != NULL);
        CHECK_STR(e.column, "l.list.element");
        CHECK_EQ_I64(e.offset, 0);
        CHECK_EQ_I64(out.length, 2);
        CHECK_EQ_I64(out.null_count, 1);
        CHECK_EQ_I64(out.data_len, 8);
        pq_nest_leaf_free(&l);
    }
    static const char *const want[] = {"[10]", "null"};
    check_rows(&out, 0, want, 2);
    pq_vec_free(&out);
}

/* ------------------------------------------------------------------------ structs */

typedef struct sschema {
    pq_file_meta m;
    pq_schema_node nodes[4];
    pq_column_desc cols[3];
    pq_nest t[8];
} sschema;

/* optional group s { optional int64 a; required int32 b; optional binary c } */
static void struct_schema(sschema *s)
{
    memset(s, 0, sizeof *s);
    s->nodes[0] = (pq_schema_node){.name = "s", .path = "s", .kind = PQ_NODE_GROUP, .shape = PQ_SHAPE_STRUCT,
                                   .repetition = PQ_OPTIONAL, .parent = -1, .depth = 1, .nchildren = 3,
                                   .end = 4, .column = -1, .element = -1, .max_def_level = 1};
    static const char *names[] = {"a", "b", "c"}, *paths[] = {"s.a", "s.b", "s.c"};
    static const pq_physical types[] = {PQ_INT64, PQ_INT32, PQ_BYTE_ARRAY};
    for (int i = 0; i < 3; i++) {
        pq_repetition rep = i == 1 ? PQ_REQUIRED : PQ_OPTIONAL;
        int16_t def = i == 1 ? 1 : 2;
        s->nodes[i + 1] = (pq_schema_node){.name = names[i], .path = paths[i], .kind = PQ_NODE_PRIMITIVE,
                                           .shape = PQ_SHAPE_FLAT, .repetition = rep, .parent = 0,
                                           .depth = 2, .end = i + 2, .column = i, .element = -1,
                                           .max_def_level = def};
        s->cols[i] = (pq_column_desc){.name = paths[i], .index = i, .physical = types[i], .repetition = rep,
                                      .max_def_level = def, .nested = true, .node = i + 1, .field_id = -1};
    }
    s->m.nodes = s->nodes, s->m.nnodes = 4, s->m.columns = s->cols, s->m.ncolumns = 3;
    s->m.has_nested = true;
    pq_err e;
    CHECK_EQ_I64(pq_nest_build(&s->m, 0, s->t, &e), 4);
    CHECK(pq_nest_prim_struct(&s->m, s->t));
    CHECK_EQ_I64(pq_nest_flat_width(&s->m, s->t), 0);
}

/* Packed struct row r of v (column_nested.h layout) as text. */
static void struct_text(const pq_vec *v, int64_t r, char *out, size_t cap)
{
    const uint8_t *p = v->data + v->offsets[r], *end = v->data + v->offsets[r + 1];
    CHECK_EQ_I64(pq_vec_is_valid(v, r), *p);
    if (*p++ == 0) {
        CHECK(p == end);
        snprintf(out, cap, "null");
        return;
    }
    size_t k = 0;
    for (int i = 0; i < 3; i++) {
        const char *sep = i ? "," : "{";
        if (*p++ == 0) {
            k += (size_t)snprintf(out + k, cap - k, "%snull", sep);
            continue;
        }
        int64_t x = 0;
        uint32_t n;
        if (i == 0) memcpy(&x, p, 8), p += 8;
        if (i == 1) memcpy(&x, p, 4), p += 4;
        if (i < 2) k += (size_t)snprintf(out + k, cap - k, "%s%lld", sep, (long long)x);
        if (i == 2) {
            memcpy(&n, p, 4);
            k += (size_t)snprintf(out + k, cap - k, "%s\"%.*s\"", sep, (int)n, (const char *)p + 4);
            p += 4 + n;
        }
    }
    snprintf(out + k, cap - k, "}");
    CHECK(p == end);
}

/* Five rows, each leaf's pages v1 and v2 with boundaries at other rows than the others'
 * (struct_want). */
static void struct_chunks(chunk c[3])
{
    static const uint16_t da1[] = {2, 0}, da2[] = {1, 2, 1}, db1[] = {1, 0, 1, 1}, db2[] = {1},
                          dc[] = {2, 0, 2, 1, 2};
    static const int64_t va1[] = {1}, va2[] = {4};
    static const int32_t vb1[] = {10, 20, 30}, vb2[] = {40};
    static const uint8_t vc[] = {1, 0, 0, 0, 'x', 2, 0, 0, 0, 'y', 'z', 0, 0, 0, 0};
    add_page(&c[0], false, NULL, da1, 2, va1, sizeof va1, 1, 2);
    add_page(&c[0], true, NULL, da2, 3, va2, sizeof va2, 1, 3);
    add_page(&c[1], true, NULL, db1, 4, vb1, sizeof vb1, 3, 4);
    add_page(&c[1], false, NULL, db2, 1, vb2, sizeof vb2, 1, 1);
    add_page(&c[2], false, NULL, dc, 5, vc, sizeof vc, 3, 5);
}

static const char *const struct_want[] = {"{1,10,\"x\"}", "null", "{null,20,\"yz\"}", "{4,30,null}",
                                          "{null,40,\"\"}"};

/* struct_chunks' rows packed (twice, the second appended after the first's). */
static void struct_pages(void)
{
    sschema s;
    struct_schema(&s);
    chunk c[3] = {0};
    struct_chunks(c);
    pq_vec out;
    pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
    const char *const *want = struct_want;
    for (int pass = 0; pass < 2; pass++) { /* the second appends after the first's rows */
        pq_nest_leaf l[3];
        pq_err e = {0};
        int rc = 0;
        for (int i = 0; i < 3; i++) {
            int r = decode_col(&s.cols[i], &c[i], &l[i], &e);
            if (rc == 0) rc = r;
        }
        CHECK_EQ_I64(rc, 0);
        if (rc == 0) rc = pq_nest_assemble(&s.m, s.t, l, 5, &out, &e);
        if (rc) fprintf(stderr, "  %s\n", e.msg);
        CHECK_EQ_I64(rc, 0);
        for (int i = 0; i < 3; i++) pq_nest_leaf_free(&l[i]);
    }
    CHECK_EQ_I64(out.length, 10);
    CHECK_EQ_I64(out.null_count, 2);
    for (int64_t r = 0; r < 10; r++) {
        char got[128];
        struct_text(&out, r, got, sizeof got);
        CHECK_STR(got, want[r % 5]);
    }
    pq_vec_free(&out);
}

/* Leaves that disagree or hold another count of rows: EFORMAT naming the leaf and the
 * pair, out as it was. Leaf values: a's and b's 10 + the pair's index. */
static void struct_broken(void)
{
    sschema s;
    struct_schema(&s);
    static const struct {
        uint16_t def[3][3];
        int n[3], rows;
        const char *msg, *col;
    } cases[] = {
        {{{2, 0, 1}, {1, 0, 1}, {0, 2, 1}}, {3, 3, 3}, 3,
         "level pair 0 of the column chunk: definition level below its parent's", "s.c"},
        {{{2, 0, 1}, {1, 1, 1}, {2, 0, 1}}, {3, 3, 3}, 3,
         "level pair 1 of the column chunk: defined where the field's first leaf is not", "s.b"},
        {{{2, 0, 1}, {1, 0, 1}, {2, 0, 1}}, {3, 2, 3}, 3,
         "level pair 2 of the column chunk: the column ends before its row group", "s.b"},
        {{{2, 0, 1}, {1, 0, 1}, {2, 0, 1}}, {3, 3, 3}, 2,
         "column chunk holds 1 level pairs past the 2 rows read of its row group", "s.a"},
    };
    pq_vec out;
    pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        pq_nest_leaf l[3];
        for (int i = 0; i < 3; i++) {
            pq_nest_leaf_init(&l[i], &s.cols[i]);
            CHECK_EQ_I64(pq_nest_leaf_reserve(&l[i], 3), 0);
            for (int j = 0; j < cases[k].n[i]; j++) {
                l[i].rep[j] = 0, l[i].def[j] = cases[k].def[i][j];
                if (i == 0 && l[i].def[j] == 2) ((int64_t *)l[i].vals.values)[l[i].vals.length++] = 10 + j;
                if (i == 1 && l[i].def[j] == 1) ((int32_t *)l[i].vals.values)[l[i].vals.length++] = 10 + j;
            }
            l[i].n = cases[k].n[i];
        }
        pq_err e = {0};
        CHECK_EQ_I64(pq_nest_assemble(&s.m, s.t, l, cases[k].rows, &out, &e), RINGSCAN_EFORMAT);
        CHECK(strstr(e.msg, cases[k].msg) != NULL);
        CHECK_STR(e.column, cases[k].col);
        CHECK_EQ_I64(out.length, 0);
        CHECK_EQ_I64(out.data_len, 0);
        for (int i = 0; i < 3; i++) pq_nest_leaf_free(&l[i]);
    }
    pq_vec_free(&out);
}

/* ------------------------------------------------------------------------ lists of leaves */

typedef struct lschema {
    pq_file_meta m;
    pq_schema_node nodes[4];
    pq_column_desc cols[2];
    pq_nest t[8];
} lschema;

/* map: optional group m (MAP) { repeated group key_value { required binary key; optional
 * int64 value } }; else optional group l (LIST) { repeated group list { optional binary
 * element } }. Both lists of leaves (format/nest_list.c). */
static void leaf_list_schema(lschema *s, bool map)
{
    memset(s, 0, sizeof *s);
    const char *top = map ? "m" : "l", *mid = map ? "m.key_value" : "l.list";
    s->nodes[0] = (pq_schema_node){.name = top, .path = top, .kind = map ? PQ_NODE_MAP : PQ_NODE_LIST,
                                   .shape = map ? PQ_SHAPE_MAP : PQ_SHAPE_LIST, .repetition = PQ_OPTIONAL,
                                   .parent = -1, .depth = 1, .nchildren = 1, .end = map ? 4 : 3,
                                   .column = -1, .element = map ? 1 : 2, .max_def_level = 1};
    s->nodes[1] = (pq_schema_node){.name = map ? "key_value" : "list", .path = mid,
                                   .kind = map ? PQ_NODE_MAP : PQ_NODE_GROUP, .shape = PQ_SHAPE_LIST,
                                   .repetition = PQ_REPEATED, .parent = 0, .depth = 2,
                                   .nchildren = map ? 2 : 1, .end = map ? 4 : 3, .column = -1,
                                   .element = -1, .max_def_level = 2, .max_rep_level = 1};
    static const char *names[2][2] = {{"element", "l.list.element"}, {"key", "m.key_value.key"}};
    for (int i = 0; i < (map ? 2 : 1); i++) {
        bool value = i == 1;
        const char *name = value ? "value" : names[map][0], *path = value ? "m.key_value.value" : names[map][1];
        pq_repetition rep = map && !value ? PQ_REQUIRED : PQ_OPTIONAL;
        int16_t def = rep == PQ_REQUIRED ? 2 : 3;
        s->nodes[i + 2] = (pq_schema_node){.name = name, .path = path, .kind = PQ_NODE_PRIMITIVE,
                                           .shape = PQ_SHAPE_FLAT, .repetition = rep, .parent = 1,
                                           .depth = 3, .end = i + 3, .column = i, .element = -1,
                                           .max_def_level = def, .max_rep_level = 1};
        s->cols[i] = (pq_column_desc){.name = path, .index = i, .physical = value ? PQ_INT64 : PQ_BYTE_ARRAY,
                                      .repetition = rep, .max_def_level = def, .max_rep_level = 1,
                                      .nested = true, .node = i + 2, .field_id = -1,
                                      .logical = value ? PQ_LOGICAL_NONE : PQ_LOGICAL_STRING};
    }
    s->m.nodes = s->nodes, s->m.nnodes = map ? 4 : 3, s->m.columns = s->cols, s->m.ncolumns = map ? 2 : 1;
    s->m.has_nested = true;
    pq_err e;
    CHECK_EQ_I64(pq_nest_build(&s->m, 0, s->t, &e), map ? 4 : 2);
    CHECK(pq_nest_leaf_list(&s->m, s->t));
    CHECK(!pq_nest_prim_struct(&s->m, s->t) && pq_nest_flat_width(&s->m, s->t) == 0);
}

/* The leaf value of type ty packed at *p, as text at out + *k. */
static void packed_leaf(pq_physical ty, const uint8_t **p, char *out, size_t cap, size_t *k)
{
    if (*(*p)++ == 0) {
        *k += (size_t)snprintf(out + *k, cap - *k, "null");
        return;
    }
    uint32_t n;
    int64_t x;
    if (ty == PQ_INT64) {
        memcpy(&x, *p, 8), *p += 8;
        *k += (size_t)snprintf(out + *k, cap - *k, "%lld", (long long)x);
        return;
    }
    memcpy(&n, *p, 4);
    *k += (size_t)snprintf(out + *k, cap - *k, "\"%.*s\"", (int)n, (const char *)*p + 4);
    *p += 4 + n;
}

/* Packed row r of a list of strings or a map<string, int64> (the general layout) as text:
 * null, ["a",null], {"k":1,"j":null}. */
static void leaf_list_text(const pq_vec *v, bool map, int64_t r, char *out, size_t cap)
{
    const uint8_t *p = v->data + v->offsets[r], *end = v->data + v->offsets[r + 1];
    CHECK(p < end);
    CHECK_EQ_I64(pq_vec_is_valid(v, r), *p);
    if (*p++ == 0) {
        snprintf(out, cap, "null");
        CHECK(p == end);
        return;
    }
    uint32_t n;
    memcpy(&n, p, 4), p += 4;
    size_t k = (size_t)snprintf(out, cap, map ? "{" : "[");
    for (uint32_t i = 0; i < n && k < cap; i++) {
        if (i) k += (size_t)snprintf(out + k, cap - k, ",");
        if (!map) {
            packed_leaf(PQ_BYTE_ARRAY, &p, out, cap, &k);
            continue;
        }
        CHECK_EQ_I64(*p++, 1); /* a map's entries are never null */
        packed_leaf(PQ_BYTE_ARRAY, &p, out, cap, &k);
        k += (size_t)snprintf(out + k, cap - k, ":");
        packed_leaf(PQ_INT64, &p, out, cap, &k);
    }
    if (k < cap) snprintf(out + k, cap - k, map ? "}" : "]");
    CHECK(p == end);
}

/* Decodes the leaves of s from c and assembles rows rows onto out, by the fast path (walk
 * false) or the general walk. */
static int leaf_list_rows(const lschema *s, const chunk *c, int64_t rows, bool walk, pq_vec *out, pq_err *e)
{
    pq_nest_leaf l[2];
    int nl = (int)s->m.ncolumns, rc = 0;
    for (int i = 0; i < nl; i++) {
        int r = decode_col(&s->cols[i], &c[i], &l[i], e);
        if (rc == 0) rc = r;
    }
    if (rc == 0) rc = walk ? pq_nest_walk_assemble(&s->m, s->t, l, rows, out, e)
                           : pq_nest_assemble(&s->m, s->t, l, rows, out, e);
    for (int i = 0; i < nl; i++) pq_nest_leaf_free(&l[i]);
    return rc;
}

/* The fast rows of s's chunks c (assembled twice, the second appended) asserted as want and
 * byte for byte equal to the general walk's. */
static void leaf_list_check(const lschema *s, bool map, const chunk *c, const char *const *want, int rows, int nulls)
{
    pq_vec fast, walk;
    pq_vec_init(&fast, PQ_BYTE_ARRAY, 0);
    pq_vec_init(&walk, PQ_BYTE_ARRAY, 0);
    for (int pass = 0; pass < 2; pass++) {
        pq_err e = {0};
        int rc = leaf_list_rows(s, c, rows, false, &fast, &e);
        if (rc) fprintf(stderr, "  %s\n", e.msg);
        CHECK_EQ_I64(rc, 0);
        CHECK_EQ_I64(leaf_list_rows(s, c, rows, true, &walk, &e), 0);
    }
    CHECK_EQ_I64(fast.length, 2 * rows);
    CHECK_EQ_I64(fast.null_count, 2 * nulls);
    CHECK_EQ_I64(fast.data_len, walk.data_len);
    CHECK(fast.data_len == walk.data_len && memcmp(fast.data, walk.data, (size_t)walk.data_len) == 0);
    for (int64_t r = 0; r < fast.length; r++) {
        char got[128];
        CHECK_EQ_I64(fast.offsets[r + 1], walk.offsets[r + 1]);
        CHECK_EQ_I64(pq_vec_is_valid(&fast, r), pq_vec_is_valid(&walk, r));
        leaf_list_text(&fast, map, r, got, sizeof got);
        CHECK_STR(got, want[r % rows]);
    }
    pq_vec_free(&fast);
    pq_vec_free(&walk);
}

/* list<string>'s pages (list_want): v1 and v2, a list across a page boundary, nulls at both
 * levels, empty strings and empty lists. */
static void list_chunk(chunk *c)
{
    static const uint16_t r1[] = {0, 1, 1, 0, 0, 0, 1}, d1[] = {3, 3, 3, 0, 1, 2, 3};
    static const uint8_t v1[] = {1, 0, 0, 0, 'a', 2, 0, 0, 0, 'b', 'b', 0, 0, 0, 0, 3, 0, 0, 0, 'c', 'c', 'c'};
    add_page(c, false, r1, d1, 7, v1, sizeof v1, 4, 4);
    static const uint16_t r2[] = {1, 0}, d2[] = {3, 3};
    static const uint8_t v2[] = {1, 0, 0, 0, 'd', 1, 0, 0, 0, 'e'};
    add_page(c, false, r2, d2, 2, v2, sizeof v2, 2, 1);
    static const uint16_t r3[] = {0, 0, 0, 1}, d3[] = {2, 0, 3, 3};
    static const uint8_t v3[] = {2, 0, 0, 0, 'f', 'f', 1, 0, 0, 0, 'g'};
    add_page(c, true, r3, d3, 4, v3, sizeof v3, 2, 3);
}

static const char *const list_want[] = {"[\"a\",\"bb\",\"\"]", "null", "[]", "[null,\"ccc\",\"d\"]",
                                        "[\"e\"]", "[null]", "null", "[\"ff\",\"g\"]"};

/* map<string, int64>'s pages (map_want): each leaf's cut at other pairs (the key's v1, v1,
 * v2; the value's v2, v1), null values, a null map, an empty one. */
static void map_chunks(chunk c[2])
{
    static const uint16_t rep[] = {0, 1, 0, 0, 0, 1, 0}, kd[] = {2, 2, 0, 1, 2, 2, 2}, vd[] = {3, 2, 0, 1, 3, 3, 2};
    static const uint8_t k1[] = {1, 0, 0, 0, 'a', 1, 0, 0, 0, 'b', 1, 0, 0, 0, 'c'},
                         k2[] = {2, 0, 0, 0, 'd', 'd'}, k3[] = {0, 0, 0, 0};
    add_page(&c[0], false, rep, kd, 5, k1, sizeof k1, 3, 4);
    add_page(&c[0], false, rep + 5, kd + 5, 1, k2, sizeof k2, 1, 0);
    add_page(&c[0], true, rep + 6, kd + 6, 1, k3, sizeof k3, 1, 1);
    static const int64_t v1[] = {1}, v2[] = {3, 4};
    add_page(&c[1], true, rep, vd, 2, v1, sizeof v1, 1, 1);
    add_page(&c[1], false, rep + 2, vd + 2, 5, v2, sizeof v2, 2, 4);
}

static const char *const map_want[] = {"{\"a\":1,\"b\":null}", "null", "{}", "{\"c\":3,\"dd\":4}",
                                       "{\"\":null}"};

/* list<string>: list_chunk's rows, packed. */
static void string_lists(void)
{
    lschema s;
    leaf_list_schema(&s, false);
    chunk c = {0};
    list_chunk(&c);
    const char *const *want = list_want;
    leaf_list_check(&s, false, &c, want, 8, 2);
}

/* map<string, int64>: map_chunks' rows, packed. */
static void string_maps(void)
{
    lschema s;
    leaf_list_schema(&s, true);
    chunk c[2] = {0};
    map_chunks(c);
    leaf_list_check(&s, true, c, map_want, 5, 1);
}

/* Appends the string "k" to v (BYTE_ARRAY). */
static void append_k(pq_vec *v)
{
    CHECK_EQ_I64(pq_vec_reserve(v, 1, 1), 0);
    v->data[v->data_len++] = 'k';
    v->offsets[++v->length] = (int32_t)v->data_len;
}

/* Map leaves that break the rules: EFORMAT with the general walk's message naming the leaf,
 * out as it was (one good row before). */
static void map_broken(void)
{
    lschema s;
    leaf_list_schema(&s, true);
    static const struct {
        uint16_t rep[2][3], def[2][3];
        int n[2], rows;
        const char *msg, *col;
    } cases[] = {
        {{{0, 1, 0}, {0, 1, 0}}, {{2, 2, 0}, {3, 0, 0}}, {3, 3}, 2,
         "level pair 1 of the column chunk: definition level below its parent's", "m.key_value.value"},
        {{{0, 1, 0}, {0, 0, 0}}, {{2, 2, 0}, {3, 3, 0}}, {3, 3}, 2,
         "level pair 1 of the column chunk: repetition level not the one the structure expects", "m.key_value.value"},
        {{{0, 0, 0}, {0, 0, 0}}, {{1, 0, 2}, {2, 0, 3}}, {3, 3}, 3,
         "level pair 0 of the column chunk: defined where the field's first leaf is not", "m.key_value.value"},
        {{{0, 1, 0}, {0, 1, 0}}, {{2, 2, 0}, {3, 3, 0}}, {3, 2}, 2,
         "level pair 2 of the column chunk: the column ends before its row group", "m.key_value.value"},
        {{{0, 0, 1}, {0, 0, 1}}, {{2, 0, 2}, {3, 0, 3}}, {3, 3}, 3,
         "level pair 2 of the column chunk: repetition level not the one the structure expects", "m.key_value.key"},
        {{{0, 1, 0}, {0, 1, 0}}, {{2, 2, 0}, {3, 3, 0}}, {3, 3}, 1,
         "column chunk holds 1 level pairs past the 1 rows read of its row group", "m.key_value.key"},
    };
    pq_vec out;
    pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
    chunk good[2] = {0};
    static const uint16_t r0[] = {0}, kd0[] = {2}, vd0[] = {3};
    static const uint8_t k0[] = {1, 0, 0, 0, 'z'};
    static const int64_t v0[] = {9};
    add_page(&good[0], true, r0, kd0, 1, k0, sizeof k0, 1, 1);
    add_page(&good[1], false, r0, vd0, 1, v0, sizeof v0, 1, 1);
    pq_err e = {0};
    CHECK_EQ_I64(leaf_list_rows(&s, good, 1, false, &out, &e), 0);
    int64_t bytes = out.data_len;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        pq_nest_leaf l[2];
        for (int i = 0; i < 2; i++) {
            pq_nest_leaf_init(&l[i], &s.cols[i]);
            CHECK_EQ_I64(pq_nest_leaf_reserve(&l[i], 3), 0);
            for (int j = 0; j < cases[k].n[i]; j++) {
                l[i].rep[j] = cases[k].rep[i][j], l[i].def[j] = cases[k].def[i][j];
                if (i == 0 && l[i].def[j] == 2) append_k(&l[i].vals);
                if (i == 1 && l[i].def[j] == 3) ((int64_t *)l[i].vals.values)[l[i].vals.length++] = 10 + j;
            }
            l[i].n = cases[k].n[i];
        }
        memset(&e, 0, sizeof e);
        CHECK_EQ_I64(pq_nest_assemble(&s.m, s.t, l, cases[k].rows, &out, &e), RINGSCAN_EFORMAT);
        if (!strstr(e.msg, cases[k].msg)) fprintf(stderr, "  case %zu: %s\n", k, e.msg);
        CHECK(strstr(e.msg, cases[k].msg) != NULL);
        CHECK_STR(e.column, cases[k].col);
        CHECK_EQ_I64(out.length, 1);
        CHECK_EQ_I64(out.data_len, bytes);
        for (int i = 0; i < 2; i++) pq_nest_leaf_free(&l[i]);
    }
    char got[64];
    leaf_list_text(&out, true, 0, got, sizeof got);
    CHECK_STR(got, "{\"z\":9}");
    pq_vec_free(&out);
}

/* ------------------------------------------------------------------------ columns */

/* Whether slot i of built column c is valid (a leaf's validity is its vals'). */
static bool col_valid(const pq_nest_col *c, bool leaf, int64_t i)
{
    if (leaf) return pq_vec_is_valid(&c->vals, i);
    return c->null_count == 0 || pq_bit_get(c->valid, i);
}

/* Slot i of leaf column v (INT64, INT32 or BYTE_ARRAY) as text at out + *k; a null slot's
 * value is asserted zeroed or empty (vec.h invariant 2). */
static void col_leaf(const pq_vec *v, int64_t i, char *out, size_t cap, size_t *k)
{
    bool valid = pq_vec_is_valid(v, i);
    if (v->type == PQ_BYTE_ARRAY) {
        int32_t a = v->offsets[i], n = v->offsets[i + 1] - a;
        CHECK(valid || n == 0);
        *k += valid ? (size_t)snprintf(out + *k, cap - *k, "\"%.*s\"", (int)n, (const char *)v->data + a)
                    : (size_t)snprintf(out + *k, cap - *k, "null");
        return;
    }
    int64_t x = 0;
    if (v->type == PQ_INT64) memcpy(&x, v->values + 8 * i, 8);
    else x = ((const int32_t *)v->values)[i];
    CHECK(valid || x == 0);
    *k += valid ? (size_t)snprintf(out + *k, cap - *k, "%lld", (long long)x) : (size_t)snprintf(out + *k, cap - *k, "null");
}

/* Row r of a struct's built columns (struct_schema) as struct_text gives it; a null row's
 * children asserted null. */
static void struct_cols_text(const pq_nest_cols *c, int64_t r, char *out, size_t cap)
{
    CHECK_EQ_I64(c->n, 4);
    if (!col_valid(&c->col[0], false, r)) {
        for (int k = 1; k < 4; k++) CHECK(!col_valid(&c->col[k], true, r));
        snprintf(out, cap, "null");
        return;
    }
    size_t k = 0;
    for (int i = 1; i < 4; i++) {
        k += (size_t)snprintf(out + k, cap - k, i == 1 ? "{" : ",");
        col_leaf(&c->col[i].vals, r, out, cap, &k);
    }
    snprintf(out + k, cap - k, "}");
}

/* Row r of a list of strings' or a map's built columns (leaf_list_schema) as leaf_list_text
 * gives it. */
static void list_cols_text(const pq_nest_cols *c, bool map, int64_t r, char *out, size_t cap)
{
    CHECK_EQ_I64(c->n, map ? 4 : 2);
    const pq_nest_col *l = &c->col[0];
    if (!col_valid(l, false, r)) {
        CHECK_EQ_I64(l->offsets[r + 1] - l->offsets[r], 0);
        snprintf(out, cap, "null");
        return;
    }
    size_t k = (size_t)snprintf(out, cap, map ? "{" : "[");
    for (int32_t i = l->offsets[r]; i < l->offsets[r + 1]; i++) {
        if (i > l->offsets[r]) k += (size_t)snprintf(out + k, cap - k, ",");
        if (map) CHECK(col_valid(&c->col[1], false, i)); /* a map's entries are never null */
        col_leaf(&c->col[map ? 2 : 1].vals, i, out, cap, &k);
        if (!map) continue;
        k += (size_t)snprintf(out + k, cap - k, ":");
        col_leaf(&c->col[3].vals, i, out, cap, &k);
    }
    snprintf(out + k, cap - k, map ? "}" : "]");
}

/* A struct's rows as columns (pq_nest_columns, no packed row) from struct_pages' pages (each
 * leaf's v1 and v2 pages cut at other rows): every value, and a null at each level (the
 * struct, a child under a valid struct, every child under a null one) zeroed or empty. */
static void struct_columns(void)
{
    sschema s;
    struct_schema(&s);
    CHECK(pq_nest_has_columns(&s.m, s.t));
    chunk c[3] = {0};
    struct_chunks(c);
    pq_nest_leaf l[3];
    pq_err e = {0};
    for (int i = 0; i < 3; i++) CHECK_EQ_I64(decode_col(&s.cols[i], &c[i], &l[i], &e), 0);
    pq_vec out;
    pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
    CHECK_EQ_I64(pq_nest_columns(&s.m, s.t, l, 5, &out, &e), 0);
    CHECK(out.cols != NULL && out.length == 5 && out.null_count == 1 && out.data_len == 0);
    const char *const *want = struct_want;
    for (int64_t r = 0; out.cols && r < 5; r++) {
        char got[128];
        struct_cols_text(out.cols, r, got, sizeof got);
        CHECK_STR(got, want[r]);
    }
    if (out.cols) { /* nulls per column: a 3 (the struct's and two of its own), b 1, c 2 */
        CHECK_EQ_I64(out.cols->col[1].vals.null_count, 3);
        CHECK_EQ_I64(out.cols->col[2].vals.null_count, 1);
        CHECK_EQ_I64(out.cols->col[3].vals.null_count, 2);
        CHECK_EQ_I64(out.cols->col[3].vals.data_len, 3); /* "x", "yz", "": the leaf's bytes */
    }
    CHECK(l[2].vals.data == NULL); /* the string leaf's bytes moved */
    for (int i = 0; i < 3; i++) pq_nest_leaf_free(&l[i]);
    pq_vec_free(&out);
}

/* Every slot valid: a leaf's values move into its column (no copy); broken leaves are
 * struct_broken's EFORMAT through pq_nest_columns, out as it was (no columns). */
static void struct_columns_moved(void)
{
    sschema s;
    struct_schema(&s);
    pq_nest_leaf l[3];
    const uint8_t *was[3];
    for (int i = 0; i < 3; i++) {
        pq_nest_leaf_init(&l[i], &s.cols[i]);
        CHECK_EQ_I64(pq_nest_leaf_reserve(&l[i], 3), 0);
        for (int j = 0; j < 3; j++) {
            l[i].rep[j] = 0, l[i].def[j] = i == 1 ? 1 : 2;
            if (i == 0) ((int64_t *)l[i].vals.values)[l[i].vals.length++] = 7 + j;
            if (i == 1) ((int32_t *)l[i].vals.values)[l[i].vals.length++] = 70 + j;
            if (i == 2) append_k(&l[i].vals);
        }
        l[i].n = 3;
        was[i] = i == 2 ? l[i].vals.data : l[i].vals.values;
    }
    pq_vec out;
    pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
    pq_err e = {0};
    CHECK_EQ_I64(pq_nest_columns(&s.m, s.t, l, 3, &out, &e), 0);
    CHECK(out.cols != NULL && out.null_count == 0);
    for (int i = 0; out.cols && i < 3; i++) {
        const pq_vec *v = &out.cols->col[i + 1].vals;
        CHECK(v->null_count == 0 && v->length == 3 && (i == 2 ? v->data : v->values) == was[i]);
    }
    static const char *const want[] = {"{7,70,\"k\"}", "{8,71,\"k\"}", "{9,72,\"k\"}"};
    for (int64_t r = 0; out.cols && r < 3; r++) {
        char got[64];
        struct_cols_text(out.cols, r, got, sizeof got);
        CHECK_STR(got, want[r]);
    }
    pq_vec_free(&out);
    for (int i = 0; i < 3; i++) { /* broken: b defined where the struct is null */
        l[i].n = 3, l[i].pos = l[i].vpos = 0;
        for (int j = 0; j < 3; j++) l[i].def[j] = j == 1 && i != 1 ? 0 : i == 1 ? 1 : 2;
        pq_vec_clear(&l[i].vals);
        for (int j = 0; j < 3; j++) {
            if (l[i].def[j] < (i == 1 ? 1 : 2)) continue;
            if (i == 2) {
                append_k(&l[i].vals);
                continue;
            }
            CHECK_EQ_I64(pq_vec_reserve(&l[i].vals, 1, 0), 0);
            l[i].vals.length++;
        }
    }
    CHECK_EQ_I64(pq_nest_columns(&s.m, s.t, l, 3, &out, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "level pair 1 of the column chunk: defined where the field's first leaf is not") != NULL);
    CHECK_STR(e.column, "s.b");
    CHECK(out.cols == NULL && out.length == 0);
    for (int i = 0; i < 3; i++) pq_nest_leaf_free(&l[i]);
    pq_vec_free(&out);
}

/* Lists of leaves as columns from string_lists' and string_maps' pages (lists and a leaf's
 * pages cut across rows and at other pairs per leaf), asserted as the packed rows' text:
 * null and empty lists, null elements, null map values, empty strings. */
static void leaf_list_cols_check(const lschema *s, bool map, const chunk *c, const char *const *want,
                                 int rows, int nulls)
{
    pq_nest_leaf l[2];
    int nl = (int)s->m.ncolumns;
    pq_err e = {0};
    for (int i = 0; i < nl; i++) CHECK_EQ_I64(decode_col(&s->cols[i], &c[i], &l[i], &e), 0);
    pq_vec out;
    pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
    CHECK(pq_nest_has_columns(&s->m, s->t));
    CHECK_EQ_I64(pq_nest_columns(&s->m, s->t, l, rows, &out, &e), 0);
    CHECK(out.cols != NULL && out.length == rows && out.null_count == nulls);
    for (int64_t r = 0; out.cols && r < rows; r++) {
        char got[128];
        list_cols_text(out.cols, map, r, got, sizeof got);
        CHECK_STR(got, want[r]);
    }
    for (int i = 0; i < nl; i++) pq_nest_leaf_free(&l[i]);
    pq_vec_free(&out);
}

/* list_chunk's and map_chunks' rows as columns. */
static void leaf_list_columns(void)
{
    lschema s;
    leaf_list_schema(&s, false);
    chunk c = {0};
    list_chunk(&c);
    leaf_list_cols_check(&s, false, &c, list_want, 8, 2);

    lschema ms;
    leaf_list_schema(&ms, true);
    chunk mc[2] = {0};
    map_chunks(mc);
    leaf_list_cols_check(&ms, true, mc, map_want, 5, 1);
}

/* A flat list (list<int64>) as columns: nine_rows' pages (a list across a v1 page's end, a
 * v2 page; null and empty lists, null elements) asserted row by row; a split with no null
 * element moves the leaf's values (no copy); broken levels get the flat assembly's EFORMAT
 * and leave neither columns nor rows. */
static void flat_list_columns(void)
{
    schema s;
    list_schema(&s);
    CHECK(pq_nest_has_columns(&s.m, s.t));
    chunk c;
    nine_rows(&c);
    pq_nest_leaf l;
    pq_err e = {0};
    CHECK_EQ_I64(decode_col(&s.col, &c, &l, &e), 0);
    pq_vec out;
    pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
    CHECK_EQ_I64(pq_nest_columns(&s.m, s.t, &l, 9, &out, &e), 0);
    CHECK(out.cols != NULL && out.length == 9 && out.null_count == 2);
    for (int64_t r = 0; out.cols && r < 9; r++) {
        char got[64];
        list_cols_text(out.cols, false, r, got, sizeof got);
        CHECK_STR(got, nine_want[r]);
    }
    if (out.cols) CHECK_EQ_I64(out.cols->col[1].vals.null_count, 2);
    pq_nest_leaf_free(&l);
    pq_vec_free(&out);

    chunk m = {0};
    static const uint16_t r[] = {0, 1, 0, 0, 0}, d[] = {3, 3, 0, 1, 3};
    static const int64_t v[] = {7, 8, 9};
    add_page(&m, true, r, d, 5, v, sizeof v, 3, 4);
    CHECK_EQ_I64(decode_col(&s.col, &m, &l, &e), 0);
    const uint8_t *values = l.vals.values;
    pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
    CHECK_EQ_I64(pq_nest_columns(&s.m, s.t, &l, 4, &out, &e), 0);
    CHECK(out.cols != NULL && out.cols->col[1].vals.values == values && l.vals.values == NULL);
    static const char *const want[] = {"[7,8]", "null", "[]", "[9]"};
    for (int64_t k = 0; out.cols && k < 4; k++) {
        char got[64];
        list_cols_text(out.cols, false, k, got, sizeof got);
        CHECK_STR(got, want[k]);
    }
    pq_nest_leaf_free(&l);
    pq_vec_free(&out);

    static const uint16_t br[] = {0, 1, 0}, bd[] = {3, 1, 3};
    leaf_of(&s, &l, br, bd, 3);
    CHECK_EQ_I64(pq_nest_columns(&s.m, s.t, &l, 2, &out, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "level pair 1 of the column chunk: definition level below its parent's") != NULL);
    CHECK_STR(e.column, "l.list.element");
    CHECK(out.cols == NULL && out.length == 0);
    pq_nest_leaf_free(&l);
    pq_vec_free(&out);
}

/* Room for n level pairs in l and none for values (pq_nest_leaf_reserve sizes both). */
static int leaf_reserve_levels(pq_nest_leaf *l, int64_t n)
{
    l->rep = malloc(sizeof(uint16_t) * (size_t)n);
    l->def = malloc(sizeof(uint16_t) * (size_t)n);
    l->cap = n;
    return l->rep && l->def ? 0 : -1;
}

/* A split of no rows (no level pairs, leaves never given values): a map's, a flat list's and
 * a struct's columns of length 0, the lists' offsets [0]; and a list of null strings whose
 * leaf never got an offsets buffer. */
static void empty_columns(void)
{
    lschema ms;
    leaf_list_schema(&ms, true);
    schema fs;
    list_schema(&fs);
    sschema ss;
    struct_schema(&ss);
    const pq_file_meta *m[3] = {&ms.m, &fs.m, &ss.m};
    const pq_nest *t[3] = {ms.t, fs.t, ss.t};
    const pq_column_desc *cols[3] = {ms.cols, &fs.col, ss.cols};
    int nleaves[3] = {2, 1, 3};
    for (int k = 0; k < 3; k++) {
        pq_nest_leaf l[3];
        for (int i = 0; i < nleaves[k]; i++) pq_nest_leaf_init(&l[i], &cols[k][i]);
        pq_vec out;
        pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
        pq_err e = {0};
        CHECK_EQ_I64(pq_nest_columns(m[k], t[k], l, 0, &out, &e), 0);
        CHECK(out.cols != NULL && out.length == 0 && out.null_count == 0);
        if (out.cols && k < 2) CHECK_EQ_I64(out.cols->col[0].offsets[0], 0);
        for (int32_t c = 0; out.cols && c < out.cols->n; c++) CHECK_EQ_I64(out.cols->col[c].length, 0);
        for (int i = 0; i < nleaves[k]; i++) pq_nest_leaf_free(&l[i]);
        pq_vec_free(&out);
    }
    lschema ls; /* elements but no value: a string leaf that never got offsets */
    leaf_list_schema(&ls, false);
    pq_nest_leaf l;
    pq_nest_leaf_init(&l, &ls.cols[0]);
    CHECK_EQ_I64(leaf_reserve_levels(&l, 2), 0);
    l.rep[0] = 0, l.rep[1] = 1, l.def[0] = l.def[1] = 2, l.n = 2;
    pq_vec out;
    pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
    pq_err e = {0};
    CHECK(l.vals.offsets == NULL);
    CHECK_EQ_I64(pq_nest_columns(&ls.m, ls.t, &l, 1, &out, &e), 0);
    char got[32] = "";
    if (out.cols) list_cols_text(out.cols, false, 0, got, sizeof got);
    CHECK_STR(got, "[null,null]");
    pq_nest_leaf_free(&l);
    pq_vec_free(&out);
}

/* A map whose levels break the rules: pq_nest_columns hands the split to the general walk,
 * whose EFORMAT names the leaf; out holds neither columns nor rows. */
static void map_columns_broken(void)
{
    lschema s;
    leaf_list_schema(&s, true);
    static const uint16_t rep[2][3] = {{0, 1, 0}, {0, 1, 0}}, def[2][3] = {{2, 2, 0}, {3, 0, 0}};
    pq_nest_leaf l[2];
    for (int i = 0; i < 2; i++) {
        pq_nest_leaf_init(&l[i], &s.cols[i]);
        CHECK_EQ_I64(pq_nest_leaf_reserve(&l[i], 3), 0);
        for (int j = 0; j < 3; j++) {
            l[i].rep[j] = rep[i][j], l[i].def[j] = def[i][j];
            if (i == 0 && def[i][j] == 2) append_k(&l[i].vals);
            if (i == 1 && def[i][j] == 3) ((int64_t *)l[i].vals.values)[l[i].vals.length++] = 10 + j;
        }
        l[i].n = 3;
    }
    pq_vec out;
    pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
    pq_err e = {0};
    CHECK_EQ_I64(pq_nest_columns(&s.m, s.t, l, 2, &out, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "level pair 1 of the column chunk: definition level below its parent's") != NULL);
    CHECK_STR(e.column, "m.key_value.value");
    CHECK(out.cols == NULL && out.length == 0 && out.data_len == 0);
    for (int i = 0; i < 2; i++) pq_nest_leaf_free(&l[i]);
    pq_vec_free(&out);
}

/* ------------------------------------------------------------------ taken and cut */

/* Row r of built columns as text (struct_cols_text, list_cols_text). */
typedef void (*cols_text)(const pq_nest_cols *c, int64_t r, char *out, size_t cap);
static void map_cols_text(const pq_nest_cols *c, int64_t r, char *out, size_t cap)
{
    list_cols_text(c, true, r, out, cap);
}
static void strings_cols_text(const pq_nest_cols *c, int64_t r, char *out, size_t cap)
{
    list_cols_text(c, false, r, out, cap);
}

/* dst's rows (columns) are want[at[i]] (at[i] < 0: null), its null count theirs, and each
 * leaf holds exactly its slots (a row each, or the lists' elements). */
static void check_taken(const pq_vec *dst, cols_text f, const char *const *want, const int *at, int n)
{
    CHECK(dst->cols != NULL && dst->length == n);
    if (!dst->cols) return;
    int nulls = 0;
    for (int i = 0; i < n; i++) {
        char got[128];
        const char *w = at[i] < 0 ? "null" : want[at[i]];
        f(dst->cols, i, got, sizeof got);
        CHECK_STR(got, w);
        nulls += strcmp(w, "null") == 0;
    }
    const pq_nest_cols *c = dst->cols;
    CHECK_EQ_I64(dst->null_count, nulls);
    CHECK_EQ_I64(c->col[0].length, n);
    int64_t slots = c->shape == PQ_NEST_COLS_STRUCT ? n : c->col[0].offsets[n];
    for (int32_t k = c->shape == PQ_NEST_COLS_LIST_STRUCT ? 2 : 1; k < c->n; k++)
        CHECK(c->col[k].length == slots && c->col[k].vals.length == slots);
}

/* rows null placeholders (packed null rows without bytes, a dataset's missing field's). */
static void placeholder_rows(pq_vec *v, int64_t rows)
{
    pq_vec_init(v, PQ_BYTE_ARRAY, 0);
    CHECK_EQ_I64(pq_vec_reserve(v, rows, 0), 0);
    v->length = v->null_count = rows;
}

/* src's built columns (want's rows) taken out of order and appended twice (format/nest_take.c),
 * null placeholders joining the columns on either side, then cut; a packed row that is not a
 * placeholder is refused beside columns. */
static void take_cut(const pq_vec *src, cols_text f, const char *const *want)
{
    static const uint32_t idx[] = {4, 2, 0, 1, 2}, more[] = {3, 4}, holes[] = {2, 0}, first = 0;
    static const int at[] = {4, 2, 0, 1, 2, 3, 4, -1, -1}, adopted[] = {-1, -1, 0};
    pq_vec dst, ph, d2;
    pq_vec_init(&dst, PQ_BYTE_ARRAY, 0);
    CHECK_EQ_I64(pq_vec_take(src, idx, 5, &dst), 0); /* runs: {4}, {2}, {0, 1, 2} */
    CHECK_EQ_I64(pq_vec_take(src, more, 2, &dst), 0);
    check_taken(&dst, f, want, at, 7);
    placeholder_rows(&ph, 3);
    CHECK_EQ_I64(pq_vec_take(&ph, holes, 2, &dst), 0);
    check_taken(&dst, f, want, at, 9);
    pq_vec_cut(&dst, 3);
    check_taken(&dst, f, want, at, 3);
    pq_vec_cut(&dst, 0);
    check_taken(&dst, f, want, at, 0);
    pq_vec_free(&dst);
    placeholder_rows(&d2, 2); /* placeholders first: they become columns of src's layout */
    CHECK_EQ_I64(pq_vec_take(src, &first, 1, &d2), 0);
    check_taken(&d2, f, want, adopted, 3);
    pq_vec_clear(&ph); /* one valid packed row */
    CHECK_EQ_I64(pq_vec_reserve(&ph, 1, 1), 0);
    ph.data[0] = 1, ph.data_len = 1, ph.offsets[1] = 1, ph.length = 1;
    CHECK_EQ_I64(pq_vec_take(&ph, &first, 1, &d2), -EOVERFLOW);
    pq_vec_free(&d2);
    pq_vec_free(&ph);
}

/* take_cut over a struct's (struct_chunks), a map's (map_chunks: a list of a struct) and a
 * flat list's (nine_rows) and a list of strings' (list_chunk) built columns. */
static void columns_taken(void)
{
    sschema ss;
    struct_schema(&ss);
    chunk sc[3] = {0};
    struct_chunks(sc);
    pq_nest_leaf l[3];
    pq_err e = {0};
    pq_vec out;
    for (int i = 0; i < 3; i++) CHECK_EQ_I64(decode_col(&ss.cols[i], &sc[i], &l[i], &e), 0);
    pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
    CHECK_EQ_I64(pq_nest_columns(&ss.m, ss.t, l, 5, &out, &e), 0);
    take_cut(&out, struct_cols_text, struct_want);
    for (int i = 0; i < 3; i++) pq_nest_leaf_free(&l[i]);
    pq_vec_free(&out);

    lschema ms;
    leaf_list_schema(&ms, true);
    chunk mc[2] = {0};
    map_chunks(mc);
    for (int i = 0; i < 2; i++) CHECK_EQ_I64(decode_col(&ms.cols[i], &mc[i], &l[i], &e), 0);
    CHECK_EQ_I64(pq_nest_columns(&ms.m, ms.t, l, 5, &out, &e), 0);
    CHECK(out.cols && out.cols->shape == PQ_NEST_COLS_LIST_STRUCT);
    take_cut(&out, map_cols_text, map_want);
    for (int i = 0; i < 2; i++) pq_nest_leaf_free(&l[i]);
    pq_vec_free(&out);

    schema fs;
    list_schema(&fs);
    chunk fc;
    nine_rows(&fc);
    CHECK_EQ_I64(decode_col(&fs.col, &fc, &l[0], &e), 0);
    CHECK_EQ_I64(pq_nest_columns(&fs.m, fs.t, l, 9, &out, &e), 0);
    take_cut(&out, strings_cols_text, nine_want); /* list_cols_text reads int64 leaves too */
    pq_nest_leaf_free(&l[0]);
    pq_vec_free(&out);

    lschema ls;
    leaf_list_schema(&ls, false);
    chunk lc = {0};
    list_chunk(&lc);
    CHECK_EQ_I64(decode_col(&ls.cols[0], &lc, &l[0], &e), 0);
    CHECK_EQ_I64(pq_nest_columns(&ls.m, ls.t, l, 8, &out, &e), 0);
    take_cut(&out, strings_cols_text, list_want);
    pq_nest_leaf_free(&l[0]);
    pq_vec_free(&out);
}

int main(void)
{
    RUN(pages);
    RUN(moved);
    RUN(broken);
    RUN(struct_pages);
    RUN(struct_broken);
    RUN(string_lists);
    RUN(string_maps);
    RUN(map_broken);
    RUN(struct_columns);
    RUN(struct_columns_moved);
    RUN(leaf_list_columns);
    RUN(flat_list_columns);
    RUN(empty_columns);
    RUN(map_columns_broken);
    RUN(columns_taken);
    return CHECK_DONE("test_nest_fast");
}
