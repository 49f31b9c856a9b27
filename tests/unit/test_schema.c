/* tests for format/meta_schema.c: the schema tree from synthetic footers (the thrift writer
 * builds a FileMetaData whose schema list is given element by element): three-level lists,
 * the legacy two-level and unannotated forms, maps, structs, levels at every depth, the
 * depth and column limits, and child counts that do not add up. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "format/meta.h"
#include "format/meta_priv.h"

enum { GROUP = -1, NONE = -1, CT_MAP = 1, CT_MAP_KV = 2, CT_LIST = 3 };
enum { REQ = PQ_REQUIRED, OPT = PQ_OPTIONAL, REP = PQ_REPEATED };

/* One SchemaElement: type GROUP for a group (then nchildren), converted NONE for none. */
typedef struct elem {
    const char *name;
    int type, rep, nchildren, converted;
} elem;

/* Parses a FileMetaData whose schema is root (nroot children) then els[0..n), no row group. */
static int parse(const elem *els, int n, int nroot, const pq_meta_limits *lim, pq_file_meta *m,
                 pq_err *e)
{
    pq_buf b = {0};
    pq_tw w;
    pq_tw_init(&w, &b);
    pq_tw_struct_begin(&w);
    pq_tw_i32_field(&w, 1, 2);
    pq_tw_field(&w, 2, PQ_T_LIST);
    pq_tw_list_begin(&w, PQ_T_STRUCT, (uint32_t)n + 1);
    pq_tw_struct_begin(&w);
    pq_tw_binary_field(&w, 4, "schema", 6);
    pq_tw_i32_field(&w, 5, nroot);
    pq_tw_struct_end(&w);
    for (int i = 0; i < n; i++) {
        pq_tw_struct_begin(&w);
        if (els[i].type != GROUP) pq_tw_i32_field(&w, 1, els[i].type);
        pq_tw_i32_field(&w, 3, els[i].rep);
        pq_tw_binary_field(&w, 4, els[i].name, (uint32_t)strlen(els[i].name));
        if (els[i].type == GROUP) pq_tw_i32_field(&w, 5, els[i].nchildren);
        if (els[i].converted != NONE) pq_tw_i32_field(&w, 6, els[i].converted);
        pq_tw_struct_end(&w);
    }
    pq_tw_i64_field(&w, 3, 0);
    pq_tw_field(&w, 4, PQ_T_LIST);
    pq_tw_list_begin(&w, PQ_T_STRUCT, 0);
    pq_tw_struct_end(&w);
    CHECK(w.status == 0);
    int rc = pq_file_meta_parse(b.data, b.len, lim, m, e);
    pq_buf_free(&b);
    return rc;
}

/* Checks node i: kind, shape, levels, element. */
static void node_is(const pq_file_meta *m, int i, const char *path, pq_node_kind kind,
                    pq_shape shape, int def, int rep, int element)
{
    CHECK(i < m->nnodes);
    if (i >= m->nnodes) return;
    const pq_schema_node *nd = &m->nodes[i];
    CHECK_STR(nd->path, path);
    CHECK_EQ_I64(nd->kind, kind);
    CHECK_EQ_I64(nd->shape, shape);
    CHECK_EQ_I64(nd->max_def_level, def);
    CHECK_EQ_I64(nd->max_rep_level, rep);
    CHECK_EQ_I64(nd->element, element);
}

static void three_level_list_and_flat(void)
{
    const elem els[] = {
        {"id", PQ_INT64, REQ, 0, NONE},
        {"a", GROUP, OPT, 1, CT_LIST},
        {"list", GROUP, REP, 1, NONE},
        {"element", PQ_INT32, OPT, 0, NONE},
        {"name", PQ_BYTE_ARRAY, OPT, 0, 0},
    };
    pq_file_meta m;
    pq_err e = {0};
    CHECK(parse(els, 5, 3, NULL, &m, &e) == 0);
    CHECK_EQ_I64(m.nnodes, 5);
    CHECK_EQ_I64(m.ncolumns, 3);
    CHECK(m.has_nested);
    node_is(&m, 0, "id", PQ_NODE_PRIMITIVE, PQ_SHAPE_FLAT, 0, 0, -1);
    node_is(&m, 1, "a", PQ_NODE_LIST, PQ_SHAPE_LIST, 1, 0, 3);
    node_is(&m, 2, "a.list", PQ_NODE_GROUP, PQ_SHAPE_LIST, 2, 1, -1);
    node_is(&m, 3, "a.list.element", PQ_NODE_PRIMITIVE, PQ_SHAPE_FLAT, 3, 1, -1);
    node_is(&m, 4, "name", PQ_NODE_PRIMITIVE, PQ_SHAPE_FLAT, 1, 0, -1);
    CHECK_EQ_I64(m.nodes[1].end, 4);
    CHECK_EQ_I64(m.nodes[1].nchildren, 1);
    CHECK_EQ_I64(m.nodes[3].parent, 2);
    CHECK_EQ_I64(m.nodes[3].top, 1);
    CHECK_EQ_I64(m.nodes[3].depth, 3);
    /* columns keep the chunk order; flat ones are as before nested schemas were read */
    CHECK_STR(m.columns[0].name, "id");
    CHECK(!m.columns[0].nested);
    CHECK_EQ_I64(m.columns[0].max_def_level, 0);
    CHECK_STR(m.columns[1].name, "a.list.element");
    CHECK(m.columns[1].nested);
    CHECK_EQ_I64(m.columns[1].max_def_level, 3);
    CHECK_EQ_I64(m.columns[1].max_rep_level, 1);
    CHECK_EQ_I64(m.columns[1].node, 3);
    CHECK_STR(m.columns[2].name, "name");
    CHECK(!m.columns[2].nested);
    CHECK_EQ_I64(m.columns[2].index, 2);
    CHECK_EQ_I64(m.columns[2].logical, PQ_LOGICAL_STRING);
    CHECK_EQ_I64(pq_file_meta_find_column(&m, "a.list.element"), 1);
    CHECK_EQ_I64(pq_file_meta_find_node(&m, "a.list"), 2);
    CHECK_EQ_I64(pq_file_meta_find_node(&m, "b"), -1);
    pq_file_meta_free(&m);
}

/* The backward-compatibility rules of LogicalTypes.md, one file per form. */
static void legacy_lists(void)
{
    static const struct {
        elem els[4];
        int n, element, leaf_def;
    } forms[] = {
        /* two-level: the repeated primitive is the element */
        {{{"a", GROUP, OPT, 1, CT_LIST}, {"array", PQ_INT32, REP, 0, NONE}}, 2, 1, 2},
        /* repeated group of several fields: it is the element (a struct) */
        {{{"a", GROUP, OPT, 1, CT_LIST}, {"bag", GROUP, REP, 2, NONE}, {"x", PQ_INT32, REQ, 0, NONE},
          {"y", PQ_INT32, OPT, 0, NONE}}, 4, 1, 2},
        /* one-field group named "array": the group is the element */
        {{{"a", GROUP, OPT, 1, CT_LIST}, {"array", GROUP, REP, 1, NONE}, {"x", PQ_INT32, REQ, 0, NONE}},
         3, 1, 2},
        /* one-field group named "<list>_tuple": the group is the element */
        {{{"a", GROUP, REQ, 1, CT_LIST}, {"a_tuple", GROUP, REP, 1, NONE}, {"x", PQ_INT32, OPT, 0, NONE}},
         3, 1, 2},
        /* any other one-field group: three-level, its field is the element */
        {{{"a", GROUP, REQ, 1, CT_LIST}, {"bag", GROUP, REP, 1, NONE}, {"x", PQ_INT32, OPT, 0, NONE}},
         3, 2, 2},
        /* a LIST whose child is not repeated: described, element -1, the file still opens */
        {{{"a", GROUP, OPT, 1, CT_LIST}, {"x", PQ_INT32, OPT, 0, NONE}}, 2, -1, 2},
    };
    for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++) {
        pq_file_meta m;
        pq_err e = {0};
        int rc = parse(forms[k].els, forms[k].n, 1, NULL, &m, &e);
        if (rc) fprintf(stderr, "  form %zu: %s\n", k, e.msg);
        CHECK(rc == 0);
        if (rc) continue;
        CHECK_EQ_I64(m.nodes[0].kind, PQ_NODE_LIST);
        CHECK_EQ_I64(m.nodes[0].shape, PQ_SHAPE_LIST);
        CHECK_EQ_I64(m.nodes[0].element, forms[k].element);
        CHECK_EQ_I64(m.columns[0].max_def_level, forms[k].leaf_def);
        CHECK_EQ_I64(m.columns[0].max_rep_level, k == 5 ? 0 : 1);
        CHECK(m.columns[0].nested);
        pq_file_meta_free(&m);
    }
}

static void unannotated_repeated_and_structs(void)
{
    const elem els[] = {
        {"r", PQ_INT32, REP, 0, NONE},            /* a list of required int32 */
        {"s", GROUP, OPT, 2, NONE},               /* struct<x, t: struct<y>> */
        {"x", PQ_INT32, REQ, 0, NONE},
        {"t", GROUP, OPT, 1, NONE},
        {"y", PQ_BYTE_ARRAY, OPT, 0, NONE},
        {"g", GROUP, REP, 1, NONE},               /* a list of struct<z> */
        {"z", PQ_INT64, REQ, 0, NONE},
    };
    pq_file_meta m;
    pq_err e = {0};
    CHECK(parse(els, 7, 3, NULL, &m, &e) == 0);
    node_is(&m, 0, "r", PQ_NODE_PRIMITIVE, PQ_SHAPE_LIST, 1, 1, -1);
    node_is(&m, 1, "s", PQ_NODE_GROUP, PQ_SHAPE_STRUCT, 1, 0, -1);
    node_is(&m, 2, "s.x", PQ_NODE_PRIMITIVE, PQ_SHAPE_FLAT, 1, 0, -1);
    node_is(&m, 4, "s.t.y", PQ_NODE_PRIMITIVE, PQ_SHAPE_FLAT, 3, 0, -1);
    node_is(&m, 5, "g", PQ_NODE_GROUP, PQ_SHAPE_LIST, 1, 1, -1);
    node_is(&m, 6, "g.z", PQ_NODE_PRIMITIVE, PQ_SHAPE_FLAT, 1, 1, -1);
    CHECK_EQ_I64(m.ncolumns, 4);
    for (int c = 0; c < m.ncolumns; c++) CHECK(m.columns[c].nested);
    CHECK_EQ_I64(m.columns[0].repetition, PQ_REPEATED);
    CHECK_EQ_I64(m.nodes[1].end, 5);
    pq_file_meta_free(&m);
}

static void maps(void)
{
    const elem good[] = {
        {"m", GROUP, OPT, 1, CT_MAP},
        {"key_value", GROUP, REP, 2, CT_MAP_KV},
        {"key", PQ_BYTE_ARRAY, REQ, 0, 0},
        {"value", PQ_INT32, OPT, 0, NONE},
    };
    pq_file_meta m;
    pq_err e = {0};
    CHECK(parse(good, 4, 1, NULL, &m, &e) == 0);
    node_is(&m, 0, "m", PQ_NODE_MAP, PQ_SHAPE_MAP, 1, 0, 1);
    node_is(&m, 1, "m.key_value", PQ_NODE_MAP, PQ_SHAPE_LIST, 2, 1, -1);
    node_is(&m, 2, "m.key_value.key", PQ_NODE_PRIMITIVE, PQ_SHAPE_FLAT, 2, 1, -1);
    node_is(&m, 3, "m.key_value.value", PQ_NODE_PRIMITIVE, PQ_SHAPE_FLAT, 3, 1, -1);
    pq_file_meta_free(&m);
    /* keys only: pyarrow reads a list of the keys */
    const elem keys[] = {{"m", GROUP, OPT, 1, CT_MAP}, {"key_value", GROUP, REP, 1, NONE},
                         {"key", PQ_INT32, REQ, 0, NONE}};
    CHECK(parse(keys, 3, 1, NULL, &m, &e) == 0);
    node_is(&m, 0, "m", PQ_NODE_MAP, PQ_SHAPE_LIST, 1, 0, 1);
    pq_file_meta_free(&m);
    /* an optional key (parquet-mr 1.12; pyarrow refuses the map, DuckDB reads it): a map,
     * its key's levels one deeper; a repeated key has no shape: element -1, the file opens */
    elem bad[4];
    memcpy(bad, good, sizeof bad);
    bad[2].rep = OPT;
    CHECK(parse(bad, 4, 1, NULL, &m, &e) == 0);
    node_is(&m, 0, "m", PQ_NODE_MAP, PQ_SHAPE_MAP, 1, 0, 1);
    node_is(&m, 2, "m.key_value.key", PQ_NODE_PRIMITIVE, PQ_SHAPE_FLAT, 3, 1, -1);
    pq_file_meta_free(&m);
    bad[2].rep = REP;
    CHECK(parse(bad, 4, 1, NULL, &m, &e) == 0);
    node_is(&m, 0, "m", PQ_NODE_MAP, PQ_SHAPE_MAP, 1, 0, -1);
    pq_file_meta_free(&m);
}

static void depth_limit(void)
{
    enum { DEPTH = 70 };
    elem els[DEPTH];
    char names[DEPTH][8];
    for (int i = 0; i < DEPTH; i++) {
        snprintf(names[i], sizeof names[i], "g%d", i);
        els[i] = (elem){names[i], GROUP, OPT, 1, NONE};
    }
    pq_meta_limits lim;
    pq_meta_limits_default(&lim);
    lim.max_schema_depth = 5;
    pq_file_meta m;
    pq_err e = {0};
    /* four groups and a leaf: depth 5, the limit */
    els[4] = (elem){"leaf", PQ_INT32, OPT, 0, NONE};
    CHECK(parse(els, 5, 1, &lim, &m, &e) == 0);
    CHECK_EQ_I64(m.columns[0].max_def_level, 5);
    CHECK_STR(m.columns[0].name, "g0.g1.g2.g3.leaf");
    pq_file_meta_free(&m);
    /* a limit far above the elements costs no more than the elements (the stack is sized by
     * both) */
    lim.max_schema_depth = UINT32_MAX;
    CHECK(parse(els, 5, 1, &lim, &m, &e) == 0);
    pq_file_meta_free(&m);
    lim.max_schema_depth = 5;
    /* five groups and a leaf: one level too deep */
    els[4] = (elem){names[4], GROUP, OPT, 1, NONE};
    els[5] = (elem){"leaf", PQ_INT32, OPT, 0, NONE};
    CHECK(parse(els, 6, 1, &lim, &m, &e) == RINGSCAN_ELIMIT);
    CHECK_STR(e.msg, "schema deeper than max_schema_depth=5 at 'g0.g1.g2.g3.g4'");
    CHECK(m.arena == NULL);
    /* the default (64) holds 63 groups and a leaf, refuses 69 */
    els[5] = (elem){names[5], GROUP, OPT, 1, NONE};
    els[63] = (elem){"leaf", PQ_INT32, OPT, 0, NONE};
    CHECK(parse(els, 64, 1, NULL, &m, &e) == 0);
    CHECK(m.ncolumns == 1 && m.columns[0].max_def_level == 64);
    pq_file_meta_free(&m);
    els[63] = (elem){names[63], GROUP, OPT, 1, NONE};
    els[DEPTH - 1] = (elem){"leaf", PQ_INT32, OPT, 0, NONE};
    CHECK(parse(els, DEPTH, 1, NULL, &m, &e) == RINGSCAN_ELIMIT);
}

static void bad_counts(void)
{
    pq_file_meta m;
    pq_err e = {0};
    const elem two[] = {{"s", GROUP, OPT, 2, NONE}, {"x", PQ_INT32, OPT, 0, NONE},
                        {"y", PQ_INT32, OPT, 0, NONE}};
    /* the root declares more fields than follow */
    CHECK(parse(two, 3, 2, NULL, &m, &e) == RINGSCAN_EFORMAT);
    CHECK_STR(e.msg, "schema ends before 1 more children of the root");
    /* a group declares more children than follow */
    const elem short_group[] = {{"s", GROUP, OPT, 3, NONE}, {"x", PQ_INT32, OPT, 0, NONE},
                                {"y", PQ_INT32, OPT, 0, NONE}};
    CHECK(parse(short_group, 3, 1, NULL, &m, &e) == RINGSCAN_EFORMAT);
    CHECK_STR(e.msg, "schema ends before 1 more children of group 's'");
    /* elements left over after the root's fields */
    CHECK(parse(two, 2, 1, NULL, &m, &e) == RINGSCAN_EFORMAT); /* s claims x and y: y missing */
    const elem extra[] = {{"x", PQ_INT32, OPT, 0, NONE}, {"y", PQ_INT32, OPT, 0, NONE}};
    CHECK(parse(extra, 2, 1, NULL, &m, &e) == RINGSCAN_EFORMAT);
    CHECK_STR(e.msg, "schema has 2 elements, its groups declare 1");
    /* a group with no children */
    const elem empty[] = {{"s", GROUP, OPT, 0, NONE}};
    CHECK(parse(empty, 1, 1, NULL, &m, &e) == RINGSCAN_EFORMAT);
    CHECK_STR(e.msg, "group 's' has no children");
    /* a negative count is refused by the thrift reader */
    const elem neg[] = {{"s", GROUP, OPT, -1, NONE}, {"x", PQ_INT32, OPT, 0, NONE}};
    CHECK(parse(neg, 2, 1, NULL, &m, &e) == RINGSCAN_EFORMAT);
    /* a repetition that is no FieldRepetitionType */
    const elem badrep[] = {{"x", PQ_INT32, 3, 0, NONE}};
    CHECK(parse(badrep, 1, 1, NULL, &m, &e) == RINGSCAN_EFORMAT);
    /* more leaves than max_columns, counted through groups */
    pq_meta_limits lim;
    pq_meta_limits_default(&lim);
    lim.max_columns = 1;
    CHECK(parse(two, 3, 1, &lim, &m, &e) == RINGSCAN_ELIMIT);
    CHECK_STR(e.msg, "schema has more than 1 columns, the limit max_columns");
    CHECK(m.arena == NULL);
    /* a huge count with nothing behind it */
    const elem huge[] = {{"s", GROUP, OPT, INT32_MAX, NONE}, {"x", PQ_INT32, OPT, 0, NONE}};
    CHECK(parse(huge, 2, 1, NULL, &m, &e) == RINGSCAN_EFORMAT);
}

static void long_path(void)
{
    char big[3000];
    memset(big, 'n', sizeof big - 1);
    big[sizeof big - 1] = 0;
    const elem els[] = {{big, GROUP, OPT, 1, NONE}, {big, PQ_INT32, OPT, 0, NONE}};
    pq_file_meta m;
    pq_err e = {0};
    CHECK(parse(els, 2, 1, NULL, &m, &e) == RINGSCAN_ELIMIT);
    CHECK(strstr(e.msg, "longer than 4096 bytes") != NULL);
    /* a top-level name alone is not bounded (flat files read as before) */
    CHECK(parse(els + 1, 1, 1, NULL, &m, &e) == 0);
    CHECK_EQ_I64(strlen(m.columns[0].name), sizeof big - 1);
    pq_file_meta_free(&m);
}

int main(void)
{
    RUN(three_level_list_and_flat);
    RUN(legacy_lists);
    RUN(unannotated_repeated_and_structs);
    RUN(maps);
    RUN(depth_limit);
    RUN(bad_counts);
    RUN(long_path);
    return CHECK_DONE("test_schema");
}
