/* tests for format/column_nested.c and format/nest_schema.c: nested top-level fields of the
 * parquet-testing corpus (lists three-level, two-level and unannotated, structs, maps, maps of
 * maps, lists of structs) decoded from their leaves' chunks into packed rows, rendered here as
 * JSON from the packed layout (column_nested.h; a flat list by its own) and compared with what pyarrow reads
 * (Table.to_pylist, written as the conformance JSON); then counts that break the rules: a
 * leaf that ends before its rows, level pairs past the rows, leaves of one field whose levels
 * disagree, a cut chunk, all EFORMAT naming the column, leaving the output as it was. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format/column_nested.h"
#include "format/meta.h"

#include "testing_data.h"

/* Appends to out (cap bytes) the packed value of node k at *p, moving *p past it. */
static void render(const pq_file_meta *m, const pq_nest *t, int32_t k, const uint8_t **p, char *out,
                   size_t cap)
{
    size_t n = strlen(out);
    if (*(*p)++ == 0) {
        snprintf(out + n, cap - n, "null");
        return;
    }
    if (t[k].kind == PQ_NEST_PRIM) {
        const pq_column_desc *c = &m->columns[t[k].col];
        uint32_t len;
        int32_t i32;
        int64_t i64;
        switch (c->physical) {
        case PQ_BOOLEAN: snprintf(out + n, cap - n, "%s", **p ? "true" : "false"), *p += 1; return;
        case PQ_INT32: memcpy(&i32, *p, 4), snprintf(out + n, cap - n, "%d", i32), *p += 4; return;
        case PQ_INT64: memcpy(&i64, *p, 8), snprintf(out + n, cap - n, "%lld", (long long)i64), *p += 8; return;
        case PQ_BYTE_ARRAY:
            memcpy(&len, *p, 4);
            snprintf(out + n, cap - n, "\"%.*s\"", (int)len, (const char *)*p + 4);
            *p += 4 + len;
            return;
        default: snprintf(out + n, cap - n, "?"), *p += pq_fixed_width(c->physical, c->type_length); return;
        }
    }
    if (t[k].kind == PQ_NEST_STRUCT) {
        strncat(out, "{", cap - n - 1);
        for (int32_t c = k + 1, i = 0; i < t[k].nchildren; i++, c = t[c].end) {
            size_t at = strlen(out);
            snprintf(out + at, cap - at, "%s\"%s\":", i ? "," : "", t[c].name);
            render(m, t, c, p, out, cap);
        }
        strncat(out, "}", cap - strlen(out) - 1);
        return;
    }
    uint32_t cnt;
    memcpy(&cnt, *p, 4);
    *p += 4;
    strncat(out, "[", cap - n - 1);
    for (uint32_t i = 0; i < cnt; i++) {
        if (i) strncat(out, ",", cap - strlen(out) - 1);
        render(m, t, k + 1, p, out, cap);
    }
    strncat(out, "]", cap - strlen(out) - 1);
}

/* A corpus file opened: its bytes and footer. */
typedef struct corpus_file {
    uint8_t *f;
    size_t n;
    pq_file_meta m;
} corpus_file;

static int open_file(const char *name, corpus_file *cf, pq_err *e)
{
    memset(cf, 0, sizeof *cf);
    cf->f = slurp(name, &cf->n);
    if (!cf->f) return -1;
    uint64_t off;
    uint32_t mlen;
    bool in_tail;
    int rc = pq_footer_locate(cf->f, cf->n, cf->n, 0, &off, &mlen, &in_tail, e);
    if (rc == 0) rc = pq_file_meta_parse(cf->f + off, mlen, NULL, &cf->m, e);
    if (rc == 0) rc = pq_file_meta_check(&cf->m, cf->n, e);
    return rc;
}

static void close_file(corpus_file *cf)
{
    pq_file_meta_free(&cf->m);
    free(cf->f);
}

/* Decodes row group 0's chunks of field t's leaves into leaves[0 .. t's leaf count) (leaf j's
 * from column cols[j] when cols is not NULL; its bytes cut to len_pct percent). The status. */
static int decode_leaves(corpus_file *cf, const pq_nest *t, const int32_t *cols, int len_pct,
                         pq_nest_leaf *leaves, pq_err *e)
{
    const pq_file_meta *m = &cf->m;
    int rc = 0;
    for (int32_t j = 0; rc == 0 && j < t[0].leaf_hi - t[0].leaf_lo; j++) {
        int32_t col = cols ? cols[j] : t[0].leaf_lo + j;
        const pq_chunk_meta *cm = &m->row_groups[0].chunks[col];
        uint64_t off, len;
        rc = pq_chunk_range(cm, cf->n, &off, &len, e);
        pq_col_reader r;
        pq_colr_init(&r, &m->columns[t[0].leaf_lo + j], cm->codec, NULL);
        pq_nest_leaf_init(&leaves[j], &m->columns[t[0].leaf_lo + j]);
        if (rc == 0) rc = pq_nest_leaf_chunk(&r, cf->f + off, len * (size_t)len_pct / 100, (int64_t)off, &leaves[j], e);
        pq_colr_free(&r);
    }
    return rc;
}

/* Decodes node `path` of row group 0 (leaf j's chunk from column cols[j] when cols is not
 * NULL: a swap to test disagreeing leaves; its bytes cut to len_pct percent) for rows rows,
 * appending to out. The status; *t / *nt the shape. */
static int decode(corpus_file *cf, const char *path, const int32_t *cols, int len_pct, int64_t rows,
                  pq_nest *t, pq_vec *out, pq_err *e)
{
    const pq_file_meta *m = &cf->m;
    int32_t node = pq_file_meta_find_node(m, path);
    if (node < 0) return -2;
    int rc = pq_nest_build(m, node, t, e);
    if (rc < 0) return rc;
    int32_t nl = t[0].leaf_hi - t[0].leaf_lo;
    pq_nest_leaf *leaves = calloc((size_t)nl, sizeof *leaves);
    rc = decode_leaves(cf, t, cols, len_pct, leaves, e);
    if (rc == 0) rc = pq_nest_assemble(m, t, leaves, rows, out, e);
    for (int32_t j = 0; j < nl; j++) pq_nest_leaf_free(&leaves[j]);
    free(leaves);
    return rc;
}

/* Appends to out (cap bytes) flat row r of v (column_nested.h "Flat lists", width w). */
static void render_flat(const pq_file_meta *m, const pq_nest *t, int32_t w, const pq_vec *v,
                        int64_t r, char *out, size_t cap)
{
    if (!pq_vec_is_valid(v, r)) {
        CHECK_EQ_I64(v->offsets[r + 1], v->offsets[r]);
        strncat(out, "null", cap - strlen(out) - 1);
        return;
    }
    const uint8_t *p = v->data ? v->data + v->offsets[r] : NULL; /* no row has bytes: NULL */
    bool flagged;
    int64_t n = pq_nest_flat_count(v->offsets[r + 1] - v->offsets[r], w, &flagged);
    strncat(out, "[", cap - strlen(out) - 1);
    for (int64_t i = 0; i < n; i++) {
        size_t at = strlen(out);
        if (i) snprintf(out + at, cap - at, ","), at++;
        int32_t i32;
        int64_t i64;
        if (flagged && p[n * w + i] == 0) snprintf(out + at, cap - at, "null");
        else if (m->columns[t[1].col].physical == PQ_INT32)
            memcpy(&i32, p + i * w, 4), snprintf(out + at, cap - at, "%d", i32);
        else if (m->columns[t[1].col].physical == PQ_INT64)
            memcpy(&i64, p + i * w, 8), snprintf(out + at, cap - at, "%lld", (long long)i64);
        else snprintf(out + at, cap - at, "?");
    }
    strncat(out, "]", cap - strlen(out) - 1);
}

/* The rows of out as JSON: [row,row,...]. */
static void render_rows(const pq_file_meta *m, const pq_nest *t, const pq_vec *out, char *buf, size_t cap)
{
    snprintf(buf, cap, "[");
    int32_t w = pq_nest_flat_width(m, t);
    for (int64_t r = 0; r < out->length; r++) {
        if (r) strncat(buf, ",", cap - strlen(buf) - 1);
        if (w) {
            render_flat(m, t, w, out, r, buf, cap);
            continue;
        }
        const uint8_t *p = out->data + out->offsets[r];
        render(m, t, 0, &p, buf, cap);
        CHECK(p == out->data + out->offsets[r + 1]); /* the row's bytes exactly */
        CHECK_EQ_I64(pq_vec_is_valid(out, r), out->data[out->offsets[r]] != 0);
    }
    strncat(buf, "]", cap - strlen(buf) - 1);
}

static void corpus(void)
{
    static const struct {
        const char *file, *path, *want;
    } cases[] = {
        {"list_columns.parquet", "int64_list", "[[1,2,3],[null,1],[4]]"},
        {"list_columns.parquet", "utf8_list", "[[\"abc\",\"efg\",\"hij\"],null,[\"efg\",null,\"hij\",\"xyz\"]]"},
        {"datapage_v2.snappy.parquet", "e", "[[1,2,3],null,null,[1,2,3],[1,2]]"},
        {"nullable.impala.parquet", "int_array", "[[1,2,3],[null,1,2,null,3,null],[],null,null,null,null]"},
        {"null_list.parquet", "emptylist", "[[]]"},
        {"nested_maps.snappy.parquet", "a",
         "[[{\"key\":\"a\",\"value\":[{\"key\":1,\"value\":true},{\"key\":2,\"value\":false}]}],"
         "[{\"key\":\"b\",\"value\":[{\"key\":1,\"value\":true}]}],[{\"key\":\"c\",\"value\":null}],"
         "[{\"key\":\"d\",\"value\":[]}],[{\"key\":\"e\",\"value\":[{\"key\":1,\"value\":true}]}],"
         "[{\"key\":\"f\",\"value\":[{\"key\":3,\"value\":true},{\"key\":4,\"value\":false},"
         "{\"key\":5,\"value\":true}]}]]"},
        {"old_list_structure.parquet", "a", "[[[1,2],[3,4]]]"},
        {"repeated_primitive_no_list.parquet", "group_of_lists",
         "[{\"Int32_list_in_group\":[0,1,2,3],\"String_list_in_group\":[\"foo\",\"zero\",\"one\",\"two\"]},"
         "{\"Int32_list_in_group\":[],\"String_list_in_group\":[\"three\"]},"
         "{\"Int32_list_in_group\":[4],\"String_list_in_group\":[\"four\"]},"
         "{\"Int32_list_in_group\":[5,6,7,8],\"String_list_in_group\":[\"five\",\"six\",\"seven\",\"eight\"]}]"},
        {"repeated_no_annotation.parquet", "phoneNumbers",
         "[null,null,{\"phone\":[]},{\"phone\":[{\"number\":5555555555,\"kind\":null}]},"
         "{\"phone\":[{\"number\":1111111111,\"kind\":\"home\"}]},{\"phone\":[{\"number\":1111111111,"
         "\"kind\":\"home\"},{\"number\":2222222222,\"kind\":null},{\"number\":3333333333,\"kind\":\"mobile\"}]}]"},
        {"nonnullable.impala.parquet", "nested_Struct.c", "[{\"D\":[[{\"e\":-1,\"f\":\"nonnullable\"}]]}]"},
        {"repeated_no_annotation.parquet", "phoneNumbers.phone",
         "[null,null,[],[{\"number\":5555555555,\"kind\":null}],[{\"number\":1111111111,\"kind\":\"home\"}],"
         "[{\"number\":1111111111,\"kind\":\"home\"},{\"number\":2222222222,\"kind\":null},"
         "{\"number\":3333333333,\"kind\":\"mobile\"}]]"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        corpus_file cf;
        pq_err e = {0};
        pq_vec out;
        pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
        pq_nest t[64];
        int rc = open_file(cases[k].file, &cf, &e);
        if (rc == 0) rc = decode(&cf, cases[k].path, NULL, 100, cf.m.row_groups[0].num_rows, t, &out, &e);
        if (rc) fprintf(stderr, "  %s %s: %d %s\n", cases[k].file, cases[k].path, rc, e.msg);
        CHECK_EQ_I64(rc, 0);
        if (rc == 0) {
            char got[2048];
            render_rows(&cf.m, t, &out, got, sizeof got);
            CHECK_STR(got, cases[k].want);
        }
        pq_vec_free(&out);
        close_file(&cf);
    }
}

/* Counts that break the rules fail with EFORMAT naming the column and leave out as it was. */
static void bad_counts(void)
{
    corpus_file cf;
    pq_err e = {0};
    CHECK_EQ_I64(open_file("repeated_primitive_no_list.parquet", &cf, &e), 0);
    pq_nest t[64];
    pq_vec out;
    pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
    CHECK_EQ_I64(decode(&cf, "group_of_lists", NULL, 100, 4, t, &out, &e), 0);
    int64_t len = out.length, bytes = out.data_len;
    CHECK_EQ_I64(len, 4);
    /* more rows than the chunks hold */
    CHECK_EQ_I64(decode(&cf, "group_of_lists", NULL, 100, 5, t, &out, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "the column ends before its row group") != NULL);
    CHECK_STR(e.column, "group_of_lists.Int32_list_in_group");
    CHECK_EQ_I64(out.length, len);
    CHECK_EQ_I64(out.data_len, bytes);
    /* fewer rows than the chunks hold */
    CHECK_EQ_I64(decode(&cf, "group_of_lists", NULL, 100, 3, t, &out, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "level pairs past the 3 rows read of its row group") != NULL);
    CHECK_EQ_I64(out.length, len);
    /* leaves of one field whose levels disagree: the string list's chunk as the int list's */
    int32_t lo = t[0].leaf_lo, swapped[2] = {lo + 1, lo + 1};
    CHECK_EQ_I64(decode(&cf, "group_of_lists", swapped, 100, 4, t, &out, &e), RINGSCAN_EFORMAT);
    CHECK_EQ_I64(out.length, len);
    /* a cut chunk: a page runs past the bytes given */
    CHECK(decode(&cf, "group_of_lists", NULL, 50, 4, t, &out, &e) < 0);
    CHECK_EQ_I64(out.length, len);
    pq_vec_free(&out);
    close_file(&cf);
}

/* A path through a map is a list of what it reaches; a map of maps nests two maps. */
static void refused_shapes(void)
{
    corpus_file cf;
    pq_err e = {0};
    CHECK_EQ_I64(open_file("nested_maps.snappy.parquet", &cf, &e), 0);
    pq_nest t[64];
    int32_t node = pq_file_meta_find_node(&cf.m, "a.key_value.value");
    CHECK(node >= 0);
    CHECK_EQ_I64(pq_nest_build(&cf.m, node, t, &e), 5); /* list, map, entries, key, value */
    CHECK(t[0].kind == PQ_NEST_LIST && t[0].rep_item == 1 && t[0].nullable);
    CHECK(t[1].kind == PQ_NEST_MAP && t[1].rep_item == 2 && strcmp(t[1].name, "element") == 0);
    CHECK(strcmp(t[0].name, "a.key_value.value") == 0 && t[0].end == 5 && t[1].end == 5);
    CHECK_EQ_I64(pq_nest_build(&cf.m, 0, t, &e), 7); /* map, entries, key, map, entries, key, value */
    CHECK_EQ_I64(t[0].kind, PQ_NEST_MAP);
    CHECK_EQ_I64(t[3].kind, PQ_NEST_MAP);
    CHECK_EQ_I64(t[3].rep_item, 2);
    close_file(&cf);
}

/* A MAP whose key is OPTIONAL (incorrect_map_schema.parquet, parquet-mr 1.12.2) reads as
 * DuckDB reads it, its key not nullable (Arrow's map keys never are, nest_schema.c invariant
 * 3); a key null in the data fails pq_nest_keys_check naming the row, the row group, the map
 * and the key's column, a null or empty map does not, nor a path that reads the keys as a
 * list (nest_keys.c invariant 1). */
static void optional_key(void)
{
    corpus_file cf;
    pq_err e = {0};
    CHECK_EQ_I64(open_file("incorrect_map_schema.parquet", &cf, &e), 0);
    CHECK_EQ_I64(pq_nest_check(&cf.m, 0, &e), 0);
    pq_nest t[16];
    CHECK_EQ_I64(pq_nest_build(&cf.m, 0, t, &e), 4); /* map, entries, key, value */
    CHECK(t[0].kind == PQ_NEST_MAP && t[0].nullable && t[0].def_item == 2 && t[0].rep_item == 1);
    CHECK(t[1].kind == PQ_NEST_STRUCT && t[1].def_valid == 2);
    CHECK(!t[2].nullable && t[2].def_valid == 3 && t[3].nullable && t[3].def_valid == 3);
    pq_nest_leaf l[2] = {0};
    int64_t at = 0;
    CHECK_EQ_I64(decode_leaves(&cf, t, NULL, 100, l, &e), 0);
    CHECK_EQ_I64(pq_nest_keys_check(&cf.m, t, l, NULL, 0, 0, &at, &e), 0);
    CHECK_EQ_I64(at, -1);
    pq_vec out;
    pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
    CHECK_EQ_I64(pq_nest_assemble(&cf.m, t, l, 1, &out, &e), 0);
    char got[512];
    render_rows(&cf.m, t, &out, got, sizeof got);
    CHECK_STR(got, "[[{\"key\":\"parent\",\"value\":\"another\"},{\"key\":\"name\",\"value\":\"report\"}]]");
    pq_vec_free(&out);
    CHECK_EQ_I64(l[0].n, 2);
    l[0].def[1] = 2; /* the second entry's key null: defined to the entry, not to the key */
    CHECK_EQ_I64(pq_nest_keys_check(&cf.m, t, l, NULL, 7, 0, &at, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "row 0 of row group 7 holds a null key in map 'my_map'") != NULL);
    CHECK_EQ_I64(at, 0); /* (the row among the leaves', for a caller keeping those before) */
    CHECK_STR(e.column, "my_map.key_value.key");
    CHECK_EQ_I64(e.offset, l[0].file_off);
    pq_nest_null_key nk[1];
    CHECK_EQ_I64(pq_nest_keys_rows(t, l, 1, NULL, 7, 3, nk), 1); /* every row's: the same */
    CHECK(nk[0].map >= 0 && nk[0].row == 3 && nk[0].rg == 7 && nk[0].file_off == l[0].file_off);
    pq_err ek = {0};
    CHECK_EQ_I64(pq_nest_null_key_err(&cf.m, &nk[0], &ek), RINGSCAN_EFORMAT);
    CHECK(strstr(ek.msg, "row 3 of row group 7 holds a null key in map 'my_map'") != NULL);
    CHECK_STR(ek.column, "my_map.key_value.key");
    const uint32_t sel[] = {5}; /* leaves cut to row 5 of their row group: named so */
    CHECK_EQ_I64(pq_nest_keys_check(&cf.m, t, l, sel, 7, 0, &at, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "row 5 of row group 7 holds a null key") != NULL);
    CHECK_EQ_I64(at, 0);
    int32_t keys = pq_file_meta_find_node(&cf.m, "my_map.key_value.key");
    pq_nest kt[16];
    CHECK_EQ_I64(pq_nest_build(&cf.m, keys, kt, &e), 2); /* list<key>: a null key is null */
    CHECK(kt[0].kind == PQ_NEST_LIST && kt[1].nullable);
    CHECK_EQ_I64(pq_nest_keys_check(&cf.m, kt, l, NULL, 0, 0, &at, &e), 0);
    l[0].n = 1; /* one row, an empty map, then a null one: no key */
    for (uint16_t d = 0; d < 2; d++) {
        l[0].def[0] = d;
        CHECK_EQ_I64(pq_nest_keys_check(&cf.m, t, l, NULL, 0, 0, &at, &e), 0);
    }
    pq_nest_leaf_free(&l[0]);
    pq_nest_leaf_free(&l[1]);
    close_file(&cf);
}

/* pq_nest_leaves_head: a map of maps' leaves (nested_maps.snappy.parquet, 6 rows) cut to
 * their first k rows assemble as the first k rows of the whole (every k, 0 and 6 too); a
 * count that is not the leaves' rows leaves them whole. */
static void leaves_head(void)
{
    corpus_file cf;
    pq_err e = {0};
    CHECK_EQ_I64(open_file("nested_maps.snappy.parquet", &cf, &e), 0);
    pq_nest t[16];
    CHECK(pq_nest_build(&cf.m, pq_file_meta_find_node(&cf.m, "a"), t, &e) > 0);
    int32_t nl = t[0].leaf_hi - t[0].leaf_lo;
    CHECK_EQ_I64(nl, 3);
    pq_nest_leaf l[3] = {0};
    char all[1024], got[1024], want[1030];
    pq_vec out;
    pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
    CHECK_EQ_I64(decode_leaves(&cf, t, NULL, 100, l, &e), 0);
    CHECK_EQ_I64(pq_nest_assemble(&cf.m, t, l, 6, &out, &e), 0);
    render_rows(&cf.m, t, &out, all, sizeof all);
    CHECK_STR(all, "[[{\"key\":\"a\",\"value\":[{\"key\":1,\"value\":true},{\"key\":2,"
                   "\"value\":false}]}],[{\"key\":\"b\",\"value\":[{\"key\":1,\"value\":"
                   "true}]}],[{\"key\":\"c\",\"value\":null}],[{\"key\":\"d\",\"value\":[]}],"
                   "[{\"key\":\"e\",\"value\":[{\"key\":1,\"value\":true}]}],[{\"key\":\"f\","
                   "\"value\":[{\"key\":3,\"value\":true},{\"key\":4,\"value\":false},{\"key\":5,"
                   "\"value\":true}]}]]");
    for (int64_t k = 0; k <= 6; k++) {
        for (int32_t j = 0; j < nl; j++) pq_nest_leaf_free(&l[j]);
        memset(l, 0, sizeof l);
        CHECK_EQ_I64(decode_leaves(&cf, t, NULL, 100, l, &e), 0);
        CHECK(!pq_nest_leaves_head(&cf.m, t, l, 5, 2)); /* (6 rows, not 5: left whole) */
        CHECK(pq_nest_leaves_head(&cf.m, t, l, 6, k));
        pq_vec_clear(&out);
        CHECK_EQ_I64(pq_nest_assemble(&cf.m, t, l, k, &out, &e), 0);
        render_rows(&cf.m, t, &out, got, sizeof got);
        /* the whole's first k rows: its text before the k-th top-level ',' (or its end) */
        size_t cut = 1;
        for (int64_t r = 0, depth = 0; r < k && all[cut]; cut++) {
            char c = all[cut];
            depth += c == '[' || c == '{' ? 1 : c == ']' || c == '}' ? -1 : 0;
            r += depth == 0 && all[cut + 1] != '\0' && (all[cut + 1] == ',' || all[cut + 1] == ']');
        }
        snprintf(want, sizeof want, "[%.*s]", (int)(cut - 1), all + 1);
        CHECK_STR(got, want);
        CHECK_EQ_I64(out.length, k);
    }
    pq_vec_free(&out);
    for (int32_t j = 0; j < nl; j++) pq_nest_leaf_free(&l[j]);
    close_file(&cf);
}

/* pq_nest_leaves_blank: a map of maps' leaves (nested_maps.snappy.parquet, 6 rows) with rows
 * 0, 3 and 5 made absent assemble as the whole with those rows null (the map is OPTIONAL:
 * definition level 0 is its null) and the others unchanged; none blanked changes nothing; a
 * count that is not the leaves' rows leaves them whole. */
static void leaves_blank(void)
{
    corpus_file cf;
    pq_err e = {0};
    CHECK_EQ_I64(open_file("nested_maps.snappy.parquet", &cf, &e), 0);
    pq_nest t[16];
    CHECK(pq_nest_build(&cf.m, pq_file_meta_find_node(&cf.m, "a"), t, &e) > 0);
    CHECK(t[0].nullable);
    pq_nest_leaf l[3] = {0};
    char got[1024];
    pq_vec out;
    pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
    const uint32_t blank[] = {0, 3, 5};
    for (int nb = 0; nb <= 3; nb += 3) {
        CHECK_EQ_I64(decode_leaves(&cf, t, NULL, 100, l, &e), 0);
        CHECK(!pq_nest_leaves_blank(&cf.m, t, l, 5, blank, nb)); /* (6 rows, not 5) */
        CHECK(pq_nest_leaves_blank(&cf.m, t, l, 6, blank, nb));
        pq_vec_clear(&out);
        CHECK_EQ_I64(pq_nest_assemble(&cf.m, t, l, 6, &out, &e), 0);
        render_rows(&cf.m, t, &out, got, sizeof got);
        const char *b = "[{\"key\":\"b\",\"value\":[{\"key\":1,\"value\":true}]}],"
                        "[{\"key\":\"c\",\"value\":null}],";
        const char *e4 = "[{\"key\":\"e\",\"value\":[{\"key\":1,\"value\":true}]}]";
        char want[1024];
        if (nb == 3) snprintf(want, sizeof want, "[null,%snull,%s,null]", b, e4);
        else snprintf(want, sizeof want, "[[{\"key\":\"a\",\"value\":[{\"key\":1,\"value\":"
                      "true},{\"key\":2,\"value\":false}]}],%s[{\"key\":\"d\",\"value\":[]}],"
                      "%s,[{\"key\":\"f\",\"value\":[{\"key\":3,\"value\":true},{\"key\":4,"
                      "\"value\":false},{\"key\":5,\"value\":true}]}]]", b, e4);
        CHECK_STR(got, want);
        for (int32_t j = 0; j < 3; j++) pq_nest_leaf_free(&l[j]);
        memset(l, 0, sizeof l);
    }
    pq_vec_free(&out);
    close_file(&cf);
}

int main(void)
{
    RUN(corpus);
    RUN(bad_counts);
    RUN(refused_shapes);
    RUN(optional_key);
    RUN(leaves_head);
    RUN(leaves_blank);
    return CHECK_DONE("test_nested");
}
