/* tests for files with nested columns through the public API (include/ringscan.h): the schema
 * tree (ringscan_file_field), the refusals of scans that would read a nested column (every
 * column, a nested projection, filter, filter tree or ORDER BY key, by leaf path or field
 * path), a scan of the flat columns: pyarrow's values, and no byte of a nested chunk read;
 * lists of a primitive as Arrow list arrays.
 * nested_maps.snappy.parquet (parquet-mr): a map<string, map<int32, bool>>, b int32, c double,
 * six rows, b = 1 and c = 1.0 in each (pyarrow). */
#include <errno.h>
#include <unistd.h>

#include "check.h"
#include "ringscan.h"
#include "scan/arrow_nested.h" /* scan_nest_elements_max: the limit lowered to reach it */

static const char *data_path(const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, "../shared/parquet-testing/data/%s", name);
    if (access(buf, R_OK) != 0) snprintf(buf, cap, "/work/shared/parquet-testing/data/%s", name);
    return buf;
}

static ringscan_file *open_maps(void)
{
    char p[300];
    ringscan_file *f = NULL;
    ringscan_error err;
    int rc = ringscan_open(data_path("nested_maps.snappy.parquet", p, sizeof p), &f, &err);
    if (rc) fprintf(stderr, "  open: %s\n", err.message);
    CHECK_EQ_I64(rc, 0);
    return f;
}

static void tree(void)
{
    ringscan_file *f = open_maps();
    if (!f) return;
    CHECK_EQ_I64(ringscan_file_columns(f), 5);
    CHECK_EQ_I64(ringscan_file_fields(f), 9);
    static const struct {
        const char *path;
        ringscan_field_kind kind;
        const char *arrow;
        int rep, depth, parent, children, end, column, def, rep_level;
        bool nested;
    } want[] = {
        {"a", RINGSCAN_FIELD_MAP, "map", 1, 1, -1, 1, 7, -1, 1, 0, true},
        {"a.key_value", RINGSCAN_FIELD_GROUP, "list", 2, 2, 0, 2, 7, -1, 2, 1, true},
        {"a.key_value.key", RINGSCAN_FIELD_PRIMITIVE, "flat", 0, 3, 1, 0, 3, 0, 2, 1, true},
        {"a.key_value.value", RINGSCAN_FIELD_MAP, "map", 1, 3, 1, 1, 7, -1, 3, 1, true},
        {"a.key_value.value.key_value", RINGSCAN_FIELD_GROUP, "list", 2, 4, 3, 2, 7, -1, 4, 2, true},
        {"a.key_value.value.key_value.key", RINGSCAN_FIELD_PRIMITIVE, "flat", 0, 5, 4, 0, 6, 1, 4, 2, true},
        {"a.key_value.value.key_value.value", RINGSCAN_FIELD_PRIMITIVE, "flat", 0, 5, 4, 0, 7, 2, 4, 2, true},
        {"b", RINGSCAN_FIELD_PRIMITIVE, "flat", 0, 1, -1, 0, 8, 3, 0, 0, false},
        {"c", RINGSCAN_FIELD_PRIMITIVE, "flat", 0, 1, -1, 0, 9, 4, 0, 0, false},
    };
    for (int i = 0; i < 9; i++) {
        ringscan_field_info fi;
        CHECK_EQ_I64(ringscan_file_field(f, i, &fi), 0);
        CHECK_STR(fi.path, want[i].path);
        CHECK_EQ_I64(fi.kind, want[i].kind);
        CHECK_STR(fi.arrow_kind, want[i].arrow);
        CHECK_EQ_I64(fi.repetition, want[i].rep);
        CHECK_EQ_I64(fi.depth, want[i].depth);
        CHECK_EQ_I64(fi.parent, want[i].parent);
        CHECK_EQ_I64(fi.children, want[i].children);
        CHECK_EQ_I64(fi.end, want[i].end);
        CHECK_EQ_I64(fi.column, want[i].column);
        CHECK_EQ_I64(fi.max_definition_level, want[i].def);
        CHECK_EQ_I64(fi.max_repetition_level, want[i].rep_level);
        CHECK_EQ_I64(fi.nested, want[i].nested);
    }
    ringscan_column_info ci;
    CHECK_EQ_I64(ringscan_file_column(f, 1, &ci), 0);
    CHECK_STR(ci.name, "a.key_value.value.key_value.key");
    ringscan_field_info fi;
    CHECK_EQ_I64(ringscan_file_field(f, 9, &fi), -EINVAL);
    CHECK_EQ_I64(ringscan_file_field(f, -1, &fi), -EINVAL);
    CHECK_EQ_I64(ringscan_file_field(NULL, 0, &fi), -EINVAL);
    CHECK_EQ_I64(ringscan_file_fields(NULL), -EINVAL);
    ringscan_close(f);
}

/* ringscan_scan_start with o fails with RINGSCAN_EUNSUPPORTED and a message holding want. */
static void refused(ringscan_file *f, const ringscan_options *o, const char *want)
{
    ringscan_scan *s = NULL;
    ringscan_error err = {0};
    CHECK_EQ_I64(ringscan_scan_start(f, o, &s, &err), RINGSCAN_EUNSUPPORTED);
    CHECK(s == NULL);
    CHECK(strstr(err.message, want) != NULL);
    if (!strstr(err.message, want)) fprintf(stderr, "  message: %s\n  wanted: %s\n", err.message, want);
    ringscan_scan_free(s);
}

static void refusals(void)
{
    ringscan_file *f = open_maps();
    if (!f) return;
    ringscan_options o;
    ringscan_options_init(&o);
    /* a path through both maps: a list of lists of the inner values (projected, not refused) */
    const char *leaf[] = {"a.key_value.value.key_value.value"};
    o.columns = leaf, o.ncolumns = 1;
    ringscan_scan *s = NULL;
    ringscan_error err = {0};
    CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), 0);
    struct ArrowSchema sc;
    if (s && ringscan_scan_schema(s, &sc, &err) == 0) {
        CHECK_STR(sc.children[0]->name, "a.key_value.value.key_value.value");
        CHECK_STR(sc.children[0]->format, "+l");
        CHECK_STR(sc.children[0]->children[0]->format, "+l");
        CHECK_STR(sc.children[0]->children[0]->children[0]->format, "b");
        sc.release(&sc);
    }
    ringscan_scan_free(s);
    const char *flat[] = {"b", "c"};
    o.columns = flat, o.ncolumns = 2;
    o.filter = "b = 1 AND \"a.key_value.key\" = 'x'";
    refused(f, &o, "column 'a.key_value.key': nested columns (inside map 'a') cannot be filtered on yet");
    o.filter = "a IS NULL OR b = 2";
    refused(f, &o, "column 'a': nested columns (map) cannot be filtered on yet");
    o.filter = NULL;
    ringscan_expr *args[] = {ringscan_expr_column("a.key_value.value.key_value.key"),
                             ringscan_expr_int(3)};
    ringscan_expr *tree = ringscan_expr_call(RINGSCAN_EXPR_GT, 2, args);
    o.filter_expr = tree;
    refused(f, &o, "filter_expr: column 'a.key_value.value.key_value.key': nested columns "
                   "(inside map 'a') cannot be filtered on yet");
    ringscan_expr_free(tree);
    o.filter_expr = NULL;
    o.order_by = "\"a.key_value.value.key_value.key\" DESC";
    o.limit = 2;
    refused(f, &o, "column 'a.key_value.value.key_value.key': nested columns (inside map 'a') "
                   "cannot be sorted by yet");
    ringscan_close(f);
}

/* A MAP whose key is OPTIONAL (incorrect_map_schema.parquet, parquet-mr 1.12.2; pyarrow
 * refuses it) reads as DuckDB reads it: one row {parent=another, name=report}, a map whose
 * key field is not nullable (Arrow's map keys never are) and whose value field is. */
static void map_optional_key(void)
{
    char p[300];
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_open(data_path("incorrect_map_schema.parquet", p, sizeof p), &f, &err), 0);
    if (!f) return;
    ringscan_options o;
    ringscan_options_init(&o);
    o.threads = 1;
    ringscan_scan *s = NULL;
    CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), 0);
    struct ArrowSchema sc = {0};
    CHECK_EQ_I64(s ? ringscan_scan_schema(s, &sc, &err) : -1, 0);
    if (sc.release) {
        const struct ArrowSchema *m = sc.children[0], *kv = m->children[0];
        CHECK_STR(m->name, "my_map");
        CHECK_STR(m->format, "+m");
        CHECK(m->flags & ARROW_FLAG_NULLABLE);
        CHECK_EQ_I64(kv->flags & ARROW_FLAG_NULLABLE, 0);
        CHECK_STR(kv->children[0]->format, "u");
        CHECK_EQ_I64(kv->children[0]->flags & ARROW_FLAG_NULLABLE, 0);
        CHECK_STR(kv->children[1]->format, "u");
        CHECK(kv->children[1]->flags & ARROW_FLAG_NULLABLE);
        sc.release(&sc);
    }
    struct ArrowArray b = {0};
    CHECK_EQ_I64(s ? ringscan_scan_next(s, &b, &err) : -1, 1);
    if (b.release) {
        CHECK_EQ_I64(b.length, 1);
        const struct ArrowArray *a = b.children[0], *ent = a->children[0];
        const int32_t *off = a->buffers[1];
        CHECK_EQ_I64(a->null_count, 0);
        CHECK_EQ_I64(off[1] - off[0], 2);
        static const char *want[2][2] = {{"parent", "another"}, {"name", "report"}};
        for (int c = 0; c < 2; c++) {
            const struct ArrowArray *v = ent->children[c];
            const int32_t *vo = v->buffers[1];
            CHECK_EQ_I64(v->null_count, 0);
            for (int i = 0; i < 2; i++) {
                int32_t at = vo[off[0] + i], len = vo[off[0] + i + 1] - at;
                CHECK_EQ_I64(len, (int64_t)strlen(want[i][c]));
                CHECK(memcmp((const char *)v->buffers[2] + at, want[i][c], (size_t)len) == 0);
            }
        }
        b.release(&b);
        CHECK_EQ_I64(ringscan_scan_next(s, &b, &err), 0);
    }
    ringscan_scan_free(s);
    ringscan_close(f);
}

/* The map of maps a (map<string, map<int32, bool>>) read whole: its Arrow layout, and row 0
 * {"a": [("a", [(1, true), (2, false)])]} as pyarrow reads it. */
static void map_read(void)
{
    ringscan_file *f = open_maps();
    if (!f) return;
    ringscan_options o;
    ringscan_options_init(&o);
    const char *cols[] = {"a", "b"};
    o.columns = cols, o.ncolumns = 2;
    o.threads = 1;
    ringscan_scan *s = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), 0);
    struct ArrowSchema sc;
    CHECK_EQ_I64(s ? ringscan_scan_schema(s, &sc, &err) : -1, 0);
    if (!s || !sc.release) {
        ringscan_scan_free(s);
        ringscan_close(f);
        return;
    }
    const struct ArrowSchema *m = sc.children[0], *kv = m->children[0];
    CHECK_STR(m->format, "+m");
    CHECK_STR(m->name, "a");
    CHECK_EQ_I64(kv->n_children, 2);
    CHECK_STR(kv->children[0]->format, "u");
    CHECK_EQ_I64(kv->children[0]->flags & ARROW_FLAG_NULLABLE, 0);
    CHECK_STR(kv->children[1]->format, "+m");
    CHECK_STR(kv->children[1]->children[0]->children[1]->format, "b");
    sc.release(&sc);
    struct ArrowArray b;
    CHECK_EQ_I64(ringscan_scan_next(s, &b, &err), 1);
    const struct ArrowArray *a = b.children[0], *ent = a->children[0];
    const int32_t *off = a->buffers[1];
    CHECK_EQ_I64(off[0], 0);
    CHECK_EQ_I64(off[1], 1);
    const struct ArrowArray *key = ent->children[0], *inner = ent->children[1];
    const int32_t *koff = key->buffers[1];
    CHECK_EQ_I64(koff[1] - koff[0], 1);
    CHECK(memcmp((const char *)key->buffers[2] + koff[0], "a", 1) == 0);
    const int32_t *ioff = inner->buffers[1];
    CHECK_EQ_I64(ioff[1] - ioff[0], 2);
    const struct ArrowArray *ik = inner->children[0]->children[0], *iv = inner->children[0]->children[1];
    CHECK_EQ_I64(((const int32_t *)ik->buffers[1])[0], 1);
    CHECK_EQ_I64(((const int32_t *)ik->buffers[1])[1], 2);
    CHECK_EQ_I64(((const uint8_t *)iv->buffers[1])[0] & 3, 1); /* true, false */
    b.release(&b);
    ringscan_scan_free(s);
    ringscan_close(f);
}

/* Sums of the flat scan's two columns (int32 b, double c) over every batch. */
static void flat_scan(void)
{
    ringscan_file *f = open_maps();
    if (!f) return;
    ringscan_options o;
    ringscan_options_init(&o);
    const char *flat[] = {"b", "c"};
    o.columns = flat, o.ncolumns = 2;
    o.threads = 1;
    ringscan_scan *s = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), 0);
    if (!s) {
        ringscan_close(f);
        return;
    }
    int64_t rows = 0, bsum = 0;
    double csum = 0;
    struct ArrowArray a;
    while (ringscan_scan_next(s, &a, &err) == 1) {
        CHECK_EQ_I64(a.n_children, 2);
        const int32_t *b = a.children[0]->buffers[1];
        const double *c = a.children[1]->buffers[1];
        for (int64_t r = 0; r < a.length; r++) bsum += b[r], csum += c[r];
        CHECK_EQ_I64(a.children[0]->null_count, 0);
        rows += a.length;
        a.release(&a);
    }
    CHECK_EQ_I64(rows, 6);
    CHECK_EQ_I64(bsum, 6);
    CHECK(csum == 6.0);
    /* the bytes wanted are the two flat chunks', nothing of the map's three (served from the
     * footer's tail, which held the small file whole: no read) */
    ringscan_stats st;
    ringscan_scan_stats(s, &st);
    int64_t want = 0;
    for (int col = 3; col < 5; col++) {
        ringscan_chunk_info ch;
        CHECK_EQ_I64(ringscan_file_chunk(f, 0, col, &ch), 0);
        want += ch.compressed_size;
    }
    CHECK_EQ_I64(st.bytes_kept, want);
    CHECK_EQ_I64(st.bytes_kept, 124);
    CHECK_EQ_I64(st.bytes_read, 0);
    ringscan_scan_free(s);
    ringscan_close(f);
}

/* list_columns.parquet (pyarrow: int64_list [[1,2,3],[null,1],[4]], utf8_list
 * [["abc","efg","hij"],null,["efg",null,"hij","xyz"]]): a scan of every column gives two
 * Arrow list arrays ("+l", int32 offsets) with their elements as children. */
static void list_arrays(void)
{
    char p[300];
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_open(data_path("list_columns.parquet", p, sizeof p), &f, &err), 0);
    if (!f) return;
    ringscan_options o;
    ringscan_options_init(&o);
    ringscan_scan *s = NULL;
    CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), 0);
    if (!s) {
        ringscan_close(f);
        return;
    }
    struct ArrowSchema sc;
    CHECK_EQ_I64(ringscan_scan_schema(s, &sc, &err), 0);
    CHECK_EQ_I64(sc.n_children, 2);
    CHECK_STR(sc.children[0]->format, "+l");
    CHECK_STR(sc.children[0]->name, "int64_list");
    CHECK_EQ_I64(sc.children[0]->n_children, 1);
    CHECK_STR(sc.children[0]->children[0]->format, "l");
    CHECK_STR(sc.children[0]->children[0]->name, "item");
    CHECK_STR(sc.children[1]->children[0]->format, "u");
    sc.release(&sc);
    struct ArrowArray a;
    CHECK_EQ_I64(ringscan_scan_next(s, &a, &err), 1);
    CHECK_EQ_I64(a.length, 3);
    const struct ArrowArray *l = a.children[0], *u = a.children[1];
    const int32_t *off = l->buffers[1];
    CHECK(off[0] == 0 && off[1] == 3 && off[2] == 5 && off[3] == 6);
    CHECK_EQ_I64(l->null_count, 0);
    const struct ArrowArray *items = l->children[0];
    CHECK_EQ_I64(items->length, 6);
    CHECK_EQ_I64(items->null_count, 1);
    const uint8_t *iv = items->buffers[0];
    const int64_t *x = items->buffers[1];
    CHECK(x[0] == 1 && x[1] == 2 && x[2] == 3 && x[4] == 1 && x[5] == 4);
    CHECK(iv && !((iv[0] >> 3) & 1) && ((iv[0] >> 4) & 1));
    CHECK_EQ_I64(u->null_count, 1);
    const uint8_t *uv = u->buffers[0];
    CHECK(uv && (uv[0] & 1) && !((uv[0] >> 1) & 1) && ((uv[0] >> 2) & 1));
    const int32_t *uo = u->buffers[1];
    CHECK(uo[0] == 0 && uo[1] == 3 && uo[2] == 3 && uo[3] == 7);
    const struct ArrowArray *ui = u->children[0];
    const int32_t *so = ui->buffers[1];
    const char *sd = ui->buffers[2];
    CHECK_EQ_I64(ui->null_count, 1);
    CHECK(so[4] - so[3] == 3 && memcmp(sd + so[3], "efg", 3) == 0);
    CHECK(so[6] - so[5] == 3 && memcmp(sd + so[6], "xyz", 3) == 0);
    a.release(&a);
    CHECK_EQ_I64(ringscan_scan_next(s, &a, &err), 0);
    ringscan_scan_free(s);
    /* by leaf path: the list of its items, named by the path */
    const char *leaf[] = {"int64_list.list.item"};
    o.columns = leaf, o.ncolumns = 1;
    s = NULL;
    CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), 0);
    if (s && ringscan_scan_next(s, &a, &err) == 1) {
        const struct ArrowArray *pl = a.children[0];
        const int32_t *po = pl->buffers[1];
        const int64_t *px = pl->children[0]->buffers[1];
        CHECK(a.length == 3 && po[1] == 3 && po[2] == 5 && po[3] == 6);
        CHECK(px[0] == 1 && px[2] == 3 && px[5] == 4 && pl->children[0]->null_count == 1);
        a.release(&a);
    }
    ringscan_scan_free(s);
    o.columns = NULL, o.filter = "int64_list IS NULL";
    refused(f, &o, "column 'int64_list': nested columns (list) cannot be filtered on yet");
    ringscan_close(f);
}

/* One batch's list elements past the limit (INT32_MAX; lowered here to the file's count less
 * one) are RINGSCAN_ELIMIT naming the file, the field and its chunk's offset; at the count
 * itself the batch reads (so the count is the batch's most elements in one list node, as
 * pyarrow counts them). Three unpacking paths: a list of a primitive, a list of strings (a
 * list of leaves), the general walk (a map of maps). */
static void limit_case(const char *file, const char *col, int64_t fits)
{
    char p[300];
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_open(data_path(file, p, sizeof p), &f, &err), 0);
    if (!f) return;
    ringscan_column_info ci;
    int c = -1;
    for (int i = 0; i < ringscan_file_columns(f); i++)
        if (ringscan_file_column(f, i, &ci) == 0 && strncmp(ci.name, col, strlen(col)) == 0 &&
            ci.name[strlen(col)] == '.' && c < 0)
            c = i;
    ringscan_chunk_info ch;
    CHECK_EQ_I64(ringscan_file_chunk(f, 0, c, &ch), 0);
    int64_t at = ch.dictionary_page_offset >= 0 ? ch.dictionary_page_offset : ch.data_page_offset;
    ringscan_options o;
    ringscan_options_init(&o);
    const char *cols[] = {col};
    o.columns = cols, o.ncolumns = 1;
    for (int64_t max = fits - 1; max <= fits; max++) {
        scan_nest_elements_max = max;
        ringscan_scan *s = NULL;
        CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), 0);
        struct ArrowArray a;
        int rc = s ? ringscan_scan_next(s, &a, &err) : -1;
        if (max == fits) {
            CHECK_EQ_I64(rc, 1);
            if (rc == 1) a.release(&a);
        } else {
            char want[400];
            snprintf(want, sizeof want, "%s: column '%s': more than %lld list elements in one batch "
                     "(Arrow's int32 list offsets) (offset %lld, column %s)", p, col, (long long)max,
                     (long long)at, col);
            CHECK_EQ_I64(rc, RINGSCAN_ELIMIT);
            CHECK_STR(err.message, want);
        }
        ringscan_scan_free(s);
    }
    scan_nest_elements_max = INT32_MAX;
    ringscan_close(f);
}

static void list_limit(void)
{
    limit_case("list_columns.parquet", "int64_list", 6);   /* a list of a primitive */
    limit_case("list_columns.parquet", "utf8_list", 7);    /* a list of strings */
    limit_case("nested_maps.snappy.parquet", "a", 7);      /* the general walk: 6 entries whose
                                                              maps hold 7 */
}

int main(void)
{
    RUN(tree);
    RUN(refusals);
    RUN(map_read);
    RUN(map_optional_key);
    RUN(flat_scan);
    RUN(list_arrays);
    RUN(list_limit);
    return CHECK_DONE("test_nested_api");
}
