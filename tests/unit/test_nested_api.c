/* tests for files with nested columns through the public API (include/ringscan.h): the schema
 * tree (ringscan_file_field), the refusals of scans that would read a nested column (every
 * column, a nested projection, filter, filter tree or ORDER BY key, by leaf path or field
 * path), and a scan of the flat columns: pyarrow's values, and no byte of a nested chunk read.
 * nested_maps.snappy.parquet (parquet-mr): a map<string, map<int32, bool>>, b int32, c double,
 * six rows, b = 1 and c = 1.0 in each (pyarrow). */
#include <errno.h>
#include <unistd.h>

#include "check.h"
#include "ringscan.h"

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
    refused(f, &o, "nested_maps.snappy.parquet: nested columns cannot be projected yet: 'a' "
                   "(map); name the flat columns to scan instead: b, c");
    const char *top[] = {"b", "a"};
    o.columns = top, o.ncolumns = 2;
    refused(f, &o, "column 'a': nested columns (map) cannot be projected yet");
    const char *leaf[] = {"a.key_value.value.key_value.value"};
    o.columns = leaf, o.ncolumns = 1;
    refused(f, &o, "column 'a.key_value.value.key_value.value': nested columns (inside map 'a') "
                   "cannot be projected yet");
    const char *mid[] = {"a.key_value"};
    o.columns = mid;
    refused(f, &o, "column 'a.key_value': nested columns (inside map 'a') cannot be projected yet");
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
    /* the bytes read are the two flat chunks', nothing of the map's three */
    ringscan_stats st;
    ringscan_scan_stats(s, &st);
    int64_t want = 0;
    for (int col = 3; col < 5; col++) {
        ringscan_chunk_info ch;
        CHECK_EQ_I64(ringscan_file_chunk(f, 0, col, &ch), 0);
        want += ch.compressed_size;
    }
    CHECK_EQ_I64(st.bytes_read, want);
    CHECK_EQ_I64(st.bytes_read, 124);
    ringscan_scan_free(s);
    ringscan_close(f);
}

int main(void)
{
    RUN(tree);
    RUN(refusals);
    RUN(flat_scan);
    return CHECK_DONE("test_nested_api");
}
