/* tests for scan/ds_files.c (listing, hive partitions, type inference) and scan/ds_schema.c
 * (union by name, widening, constants): values asserted, each able to fail. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "scan/ds_impl.h"

static char root[256];

static void touch(const char *rel)
{
    char p[512], d[512];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    snprintf(d, sizeof d, "%s", p);
    for (char *s = d + strlen(root) + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        mkdir(d, 0755);
        *s = '/';
    }
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (f) fclose(f);
}

static int list(const char *pat, int hive, const char *types, ds_list *l, pq_err *e)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", root, pat);
    const char *pats[1] = {p};
    *e = (pq_err){.offset = -1};
    return ds_list_build(pats, 1, hive, types, 0, NULL, l, e);
}

/* The path of file i without the root. */
static const char *rel(const ds_list *l, int i)
{
    return l->files[i].path + strlen(root) + 1;
}

static void globbing(void)
{
    ds_list l;
    pq_err e;
    CHECK(list("t/**/*.parquet", -1, NULL, &l, &e) == 0);
    CHECK_EQ_I64(l.nfiles, 5); /* hidden .h.parquet and x.txt left out */
    if (l.nfiles == 5) {
        CHECK_STR(rel(&l, 0), "t/a.parquet");
        CHECK_STR(rel(&l, 1), "t/k=1/b.parquet");
        CHECK_STR(rel(&l, 2), "t/k=1/deep/er/c.parquet");
        CHECK_STR(rel(&l, 3), "t/k=10/d.parquet");
        CHECK_STR(rel(&l, 4), "t/k=2/e.parquet");
    }
    ds_list_free(&l);
    CHECK(list("t/k=*/*.parquet", -1, NULL, &l, &e) == 0);
    CHECK_EQ_I64(l.nfiles, 3);
    ds_list_free(&l);
    CHECK(list("t/*/deep/**", -1, NULL, &l, &e) == 0); /* a trailing ** names files */
    CHECK_EQ_I64(l.nfiles, 1);
    ds_list_free(&l);
    CHECK(list("t", -1, NULL, &l, &e) == 0); /* a directory: its *.parquet, recursively */
    CHECK_EQ_I64(l.nfiles, 5);
    ds_list_free(&l);
    CHECK(list("t/k=?/[bd].parquet", -1, NULL, &l, &e) == 0);
    CHECK_EQ_I64(l.nfiles, 1);
    ds_list_free(&l);
    CHECK(list("t/**/*.nothing", -1, NULL, &l, &e) == -ENOENT);
    CHECK(strstr(e.msg, "*.nothing") && strstr(e.msg, "no file matches"));
    CHECK(list("t/nosuch.parquet", -1, NULL, &l, &e) == -ENOENT);
    CHECK(strstr(e.msg, "nosuch.parquet") != NULL);
    /* a file matched twice (its path and a pattern) is listed twice, as DuckDB's read_parquet
     * of the two reads it twice */
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/t/a.parquet", root);
    snprintf(b, sizeof b, "%s/t/*.parquet", root);
    const char *two[2] = {a, b};
    CHECK(ds_list_build(two, 2, -1, NULL, 0, NULL, &l, &e) == 0);
    CHECK_EQ_I64(l.nfiles, 2);
    CHECK(l.nfiles == 2 && strcmp(l.files[0].path, a) == 0 && strcmp(l.files[1].path, a) == 0);
    ds_list_free(&l);
    const char *same[2] = {a, a};
    CHECK(ds_list_build(same, 2, -1, NULL, 0, NULL, &l, &e) == 0 && l.nfiles == 2);
    ds_list_free(&l);
    /* max_files */
    CHECK(list("t", -1, NULL, &l, &e) == 0);
    ds_list_free(&l);
    const char *one[1] = {b};
    snprintf(b, sizeof b, "%s/t/**/*.parquet", root);
    CHECK(ds_list_build(one, 1, -1, NULL, 3, NULL, &l, &e) == RINGSCAN_ELIMIT);
    const char *url[1] = {"https://host/x/*.parquet"}; /* no listing over HTTP */
    CHECK(ds_list_build(url, 1, -1, NULL, 0, NULL, &l, &e) == RINGSCAN_EUNSUPPORTED);
}

static void inference(void)
{
    CHECK_EQ_I64(ds_part_infer("2024"), DS_BIGINT);
    CHECK_EQ_I64(ds_part_infer("-5"), DS_BIGINT);
    CHECK_EQ_I64(ds_part_infer("0"), DS_BIGINT);
    CHECK_EQ_I64(ds_part_infer("01"), DS_VARCHAR); /* DuckDB: leading zeros stay text */
    CHECK_EQ_I64(ds_part_infer("1.5"), DS_VARCHAR);
    CHECK_EQ_I64(ds_part_infer("99999999999999999999"), DS_VARCHAR);
    CHECK_EQ_I64(ds_part_infer(""), DS_VARCHAR);
    CHECK_EQ_I64(ds_part_infer("-0"), DS_BIGINT);   /* DuckDB 2.0.1 (its strict cast) */
    CHECK_EQ_I64(ds_part_infer("-01"), DS_BIGINT);  /* a negative may have leading zeros */
    CHECK_EQ_I64(ds_part_infer("+5"), DS_VARCHAR);
    CHECK_EQ_I64(ds_part_infer("0x10"), DS_BIGINT);
    CHECK_EQ_I64(ds_part_infer("2024-1-1"), DS_DATE);
    CHECK_EQ_I64(ds_part_infer("1-01-01"), DS_TIMESTAMP); /* a one-digit year: no strict DATE */
    CHECK_EQ_I64(ds_part_infer("2024-01-05 24:00:00"), DS_TIMESTAMP);
    CHECK_EQ_I64(ds_part_infer("2024-01-05 10:00:00+02"), DS_TIMESTAMP);
    CHECK_EQ_I64(ds_part_infer("2024-01-05"), DS_DATE);
    CHECK_EQ_I64(ds_part_infer("2023-02-29"), DS_VARCHAR); /* not a date */
    CHECK_EQ_I64(ds_part_infer("2024-02-29"), DS_DATE);
    CHECK_EQ_I64(ds_part_infer("2024-01-05 10:00:00"), DS_TIMESTAMP);
    CHECK_EQ_I64(ds_part_infer("2024-01-05T10:00:00.5"), DS_TIMESTAMP);
    CHECK_EQ_I64(ds_part_infer("2024-01-05 25:00:00"), DS_VARCHAR);
    CHECK_EQ_I64(ds_part_infer("2024-01-05 10:00"), DS_TIMESTAMP);
    CHECK_EQ_I64(ds_part_infer("2024-01-05 10"), DS_VARCHAR);
    int64_t v = 0;
    CHECK(ds_part_parse(DS_DATE, "1970-01-02", &v) && v == 1);
    CHECK(ds_part_parse(DS_DATE, "2024-01-05", &v) && v == 19727);
    CHECK(ds_part_parse(DS_BIGINT, "-42", &v) && v == -42);
    CHECK(ds_part_parse(DS_TIMESTAMP, "1970-01-02 00:00:01.25", &v) && v == INT64_C(86401250000));
    CHECK(!ds_part_parse(DS_BIGINT, "x", &v));
    CHECK(ds_part_parse(DS_BIGINT, "-01", &v) && v == -1);
    CHECK(ds_part_parse(DS_BIGINT, "25e-1", &v) && v == 3); /* a cast: rounded half away */
    CHECK(ds_part_parse(DS_TIMESTAMP, "1970-01-01 24:00:00", &v) && v == INT64_C(86400000000));
    CHECK(ds_part_parse(DS_TIMESTAMP, "1970-01-01 00:00:00.1234567+02", &v) && v == 123456);
    CHECK(ds_part_parse(DS_DATE, "2024-01-05 (BC)", &v) && v == -1458409);
}

static void partitions(void)
{
    ds_list l;
    pq_err e;
    touch("p/year=2024/month=01/day=2024-01-05/a.parquet");
    touch("p/year=2023/month=12/day=2023-12-01/b.parquet");
    CHECK(list("p/**/*.parquet", 0, NULL, &l, &e) == 0);
    CHECK_EQ_I64(l.npart, 3);
    if (l.npart == 3 && l.nfiles == 2) { /* sorted by name, as DuckDB */
        CHECK_STR(l.part[0].name, "day");
        CHECK_EQ_I64(l.part[0].type, DS_DATE);
        CHECK_STR(l.part[1].name, "month");
        CHECK_EQ_I64(l.part[1].type, DS_VARCHAR);
        CHECK_STR(l.part[2].name, "year");
        CHECK_EQ_I64(l.part[2].type, DS_BIGINT);
        CHECK_EQ_I64(l.part[2].desc.physical, PQ_INT64);
        CHECK_EQ_I64(l.files[0].ival[2], 2023); /* files sorted: year=2023 first */
        CHECK_STR(l.files[1].text[1], "01");
    }
    ds_list_free(&l);
    CHECK(list("p/**/*.parquet", 0, "month:BIGINT,year:VARCHAR", &l, &e) == 0);
    if (l.npart == 3) {
        CHECK_EQ_I64(l.part[1].type, DS_BIGINT);
        CHECK_EQ_I64(l.files[1].ival[1], 1);
        CHECK_EQ_I64(l.part[2].type, DS_VARCHAR);
    }
    ds_list_free(&l);
    CHECK(list("p/**/*.parquet", 0, "day:BIGINT", &l, &e) == -EINVAL);
    CHECK(strstr(e.msg, "day=") != NULL);
    CHECK(list("p/**/*.parquet", 0, "day:FLOAT", &l, &e) == -EINVAL);
    CHECK(list("p/**/*.parquet", -1, NULL, &l, &e) == 0 && l.npart == 0);
    ds_list_free(&l);
    /* keys that differ: auto reads none, on refuses naming the file */
    touch("q/k=1/a.parquet");
    touch("q/j=2/b.parquet");
    CHECK(list("q", 0, NULL, &l, &e) == 0 && l.npart == 0);
    ds_list_free(&l);
    CHECK(list("q", 1, NULL, &l, &e) == -EINVAL);
    CHECK(strstr(e.msg, "k=1/a.parquet") != NULL);
}

static pq_column_desc col(const char *name, pq_physical t, pq_logical lg)
{
    return (pq_column_desc){.name = name, .physical = t, .logical = lg, .repetition = PQ_OPTIONAL,
                            .max_def_level = 1, .field_id = -1};
}

static void schema_union(void)
{
    pq_column_desc c1[] = {col("a", PQ_INT32, PQ_LOGICAL_NONE), col("b", PQ_BYTE_ARRAY, PQ_LOGICAL_STRING)};
    pq_column_desc c2[] = {col("c", PQ_DOUBLE, PQ_LOGICAL_NONE), col("a", PQ_INT64, PQ_LOGICAL_INT64)};
    pq_column_desc c3[] = {col("a", PQ_BOOLEAN, PQ_LOGICAL_NONE)};
    pq_column_desc c4[] = {col("a", PQ_FLOAT, PQ_LOGICAL_NONE)};
    pq_file_meta m1 = {.ncolumns = 2, .columns = c1}, m2 = {.ncolumns = 2, .columns = c2};
    pq_file_meta m3 = {.ncolumns = 1, .columns = c3}, m4 = {.ncolumns = 1, .columns = c4};
    ds_schema s = {0};
    pq_err e = {.offset = -1};
    CHECK(ds_schema_add(&s, &m1, "one.parquet", true, &e) == 0);
    CHECK(ds_schema_add(&s, &m2, "two.parquet", true, &e) == 0);
    CHECK_EQ_I64(s.n, 3);
    if (s.n == 3) {
        CHECK_STR(s.cols[0].name, "a");
        CHECK_EQ_I64(s.cols[0].desc.physical, PQ_INT64); /* int32 + int64 */
        CHECK_STR(s.cols[2].name, "c");
    }
    /* types that do not widen: noted on the column (an error only for a query reading it) */
    CHECK(ds_schema_add(&s, &m3, "three.parquet", true, &e) == 0);
    const char *why = s.n >= 1 ? s.cols[0].conflict : NULL;
    CHECK(why && strstr(why, "'a'") && strstr(why, "one.parquet") && strstr(why, "three.parquet"));
    CHECK(ds_schema_add(&s, &m4, "four.parquet", true, &e) == 0);
    CHECK_EQ_I64(s.cols[0].desc.physical, PQ_FLOAT); /* an int with a FLOAT: DuckDB's FLOAT */
    /* an integer beside a string: the string's type (DuckDB's VARCHAR), in either order */
    pq_column_desc c5[] = {col("b", PQ_INT64, PQ_LOGICAL_NONE)};
    pq_file_meta m5 = {.ncolumns = 1, .columns = c5};
    CHECK(ds_schema_add(&s, &m5, "five.parquet", true, &e) == 0);
    CHECK(s.n >= 2 && s.cols[1].desc.physical == PQ_BYTE_ARRAY && !s.cols[1].conflict);
    /* a file's view: its columns, then the dataset's it lacks */
    ds_view v;
    CHECK(ds_view_init(&v, &s, &m1) == 0);
    CHECK_EQ_I64(v.nfile, 2);
    CHECK_EQ_I64(v.ncols, 3);
    CHECK_EQ_I64(v.leaf[0], 0);
    CHECK_EQ_I64(v.leaf[2], -1);
    CHECK_EQ_I64(v.virt[0], 2);
    ds_view_free(&v);
    ds_schema_free(&s);
    /* without union_by_name: the first file's columns; a missing one is named */
    CHECK(ds_schema_add(&s, &m1, "one.parquet", true, &e) == 0);
    CHECK(ds_schema_add(&s, &m2, "two.parquet", false, &e) == 0);
    CHECK_EQ_I64(s.n, 2);
    int noted = 0;
    for (int c = 0; c < s.n; c++)
        noted += s.cols[c].conflict && strstr(s.cols[c].conflict, "two.parquet") &&
                 strstr(s.cols[c].conflict, "union_by_name");
    CHECK_EQ_I64(noted, 1); /* b missing from it (a wider there: cast, range checked) */
    CHECK(s.n >= 1 && !s.cols[0].conflict);
    ds_schema_free(&s);
}

static void vectors(void)
{
    pq_vec v;
    pq_vec_init(&v, PQ_INT32, 0);
    CHECK(pq_vec_reserve(&v, 3, 0) == 0);
    int32_t x[3] = {-7, 0, 2000000000};
    memcpy(v.values, x, sizeof x);
    v.length = 3, v.null_count = 1;
    v.validity[0] = 0x5; /* row 1 null */
    pq_column_desc from = col("a", PQ_INT32, PQ_LOGICAL_NONE), to = col("a", PQ_INT64, PQ_LOGICAL_NONE);
    CHECK(ds_widen(&to, &from, &v) == 0);
    int64_t y[3];
    memcpy(y, v.values, sizeof y);
    CHECK(v.type == PQ_INT64 && y[0] == -7 && y[1] == 0 && y[2] == 2000000000 && v.null_count == 1);
    pq_vec_free(&v);
    /* a FIXED_LEN decimal(9,2) as INT64 */
    pq_column_desc df = col("d", PQ_FIXED_LEN_BYTE_ARRAY, PQ_LOGICAL_DECIMAL);
    df.type_length = 4, df.decimal_precision = 9, df.decimal_scale = 2;
    pq_column_desc di = col("d", PQ_INT64, PQ_LOGICAL_DECIMAL);
    di.decimal_precision = 9, di.decimal_scale = 2;
    pq_vec_init(&v, PQ_FIXED_LEN_BYTE_ARRAY, 4);
    CHECK(pq_vec_reserve(&v, 2, 0) == 0);
    const uint8_t be[8] = {0xff, 0xff, 0xff, 0x85, 0x00, 0x00, 0x30, 0x39}; /* -123, 12345 */
    memcpy(v.values, be, 8);
    v.length = 2;
    ds_col dc = {.name = "d", .desc = di, .from = "one.parquet"};
    pq_err de = {.offset = -1};
    CHECK(ds_dec_cast(&dc, &df, "two.parquet", &v, &de) == 0);
    memcpy(y, v.values, 16);
    CHECK(y[0] == -123 && y[1] == 12345);
    pq_vec_free(&v);
    /* constants: a partition's value in every row, a missing column's nulls */
    ds_list l;
    pq_err e;
    CHECK(list("p/**/*.parquet", 0, NULL, &l, &e) == 0);
    ds_schema s = {0};
    CHECK(ds_schema_parts(&s, &l) == 0 && s.n == 3);
    CHECK(ds_const_vec(&s, 2, &l.files[0], 4, &v) == 0);
    memcpy(y, v.values, 16);
    CHECK(v.length == 4 && v.null_count == 0 && y[0] == 2023 && y[1] == 2023);
    pq_vec_free(&v);
    CHECK(ds_const_vec(&s, 1, &l.files[1], 2, &v) == 0);
    CHECK(v.type == PQ_BYTE_ARRAY && v.offsets[2] == 4 && memcmp(v.data, "0101", 4) == 0);
    pq_vec_free(&v);
    s.cols[1].part = -1; /* as a data column a file lacks: nulls */
    CHECK(ds_const_vec(&s, 1, &l.files[1], 3, &v) == 0);
    CHECK(v.null_count == 3 && v.offsets[3] == 0);
    pq_vec_free(&v);
    ds_schema_free(&s);
    ds_list_free(&l);
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/test_dataset.XXXXXX");
    if (!mkdtemp(root)) return 1;
    touch("t/a.parquet");
    touch("t/x.txt");
    touch("t/.h.parquet");
    touch("t/k=1/b.parquet");
    touch("t/k=1/deep/er/c.parquet");
    touch("t/k=10/d.parquet");
    touch("t/k=2/e.parquet");
    RUN(globbing);
    RUN(inference);
    RUN(partitions);
    RUN(schema_union);
    RUN(vectors);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
    return CHECK_DONE("test_dataset");
}
