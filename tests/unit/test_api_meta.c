/* tests for the metadata half of the public API (include/ringscan.h "metadata",
 * scan/api_meta.c): file, column, key-value, row group and chunk values of a file written
 * here (checked against what was written), the text of statistics values (unsigned, float,
 * string escaping, hex, snprintf truncation), and every -EINVAL path (out left untouched). */
#include <errno.h>

#include "check.h"
#include "ringscan.h"
#include "scan/pqfile.h"
#include "test_scan_common.h"

enum { ROWS = 1000, RG_ROWS = 500, NC = 7 };

static char path[256];
static const char *const names[NC] = {"id", "u32", "s", "d", "b", "fl", "dec"};

static bool u32_null(int64_t r) { return r % 4 == 1; }
static uint32_t v_u32(int64_t r) { return 3000000000u + (uint32_t)r; } /* above INT32_MAX */
/* "k<r % 10>", and row 7 of each group "a\"\n" (the minimum: a quote and a newline) */
static int v_s(int64_t r, char *o)
{
    if (r % RG_ROWS == 7) return (int)(memcpy(o, "a\"\n", 3), 3);
    return snprintf(o, 8, "k%d", (int)(r % 10));
}
static double v_d(int64_t r) { return (double)r / 4.0 - 10.0; }
static int64_t v_dec(int64_t r) { return r * 100 - 5000; }

static int write_file(const char *p)
{
    pq_column_desc sch[NC];
    sch[0] = ts_desc(names[0], PQ_INT64, 0, false, PQ_LOGICAL_NONE);
    sch[1] = ts_desc(names[1], PQ_INT32, 0, true, PQ_LOGICAL_UINT32);
    sch[2] = ts_desc(names[2], PQ_BYTE_ARRAY, 0, false, PQ_LOGICAL_STRING);
    sch[3] = ts_desc(names[3], PQ_DOUBLE, 0, false, PQ_LOGICAL_NONE);
    sch[4] = ts_desc(names[4], PQ_BOOLEAN, 0, false, PQ_LOGICAL_NONE);
    sch[5] = ts_desc(names[5], PQ_FIXED_LEN_BYTE_ARRAY, 3, false, PQ_LOGICAL_NONE);
    sch[6] = ts_desc(names[6], PQ_INT64, 0, false, PQ_LOGICAL_DECIMAL);
    pq_vec v[NC];
    for (int c = 0; c < NC; c++) ts_vec_new(&v[c], sch[c].physical, sch[c].type_length, ROWS, ROWS * 8);
    for (int64_t r = 0; r < ROWS; r++) {
        uint32_t u = v_u32(r);
        double d = v_d(r);
        int64_t dec = v_dec(r);
        uint8_t b = r % 3 == 0, fl[3] = {(uint8_t)(0xa0 + r % 16), 0x0f, (uint8_t)(r / RG_ROWS)};
        char s[8];
        int n = v_s(r, s);
        ts_put_fixed(&v[0], &r, false);
        ts_put_fixed(&v[1], &u, u32_null(r));
        ts_put_bytes(&v[2], (const uint8_t *)s, n, false);
        ts_put_fixed(&v[3], &d, false);
        ts_put_fixed(&v[4], &b, false);
        ts_put_fixed(&v[5], fl, false);
        ts_put_fixed(&v[6], &dec, false);
    }
    static const uint8_t flags[NC] = {0, 0, PQ_WCOL_BLOOM, 0, 0, 0, 0};
    static const pq_kv kv[2] = {{"k1", "v1", 2}, {"k2", NULL, 0}};
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    wo.row_group_rows = RG_ROWS;
    wo.page_rows = 100;
    wo.page_index = true;
    wo.col_flags = flags;
    wo.kv = kv;
    wo.nkv = 2;
    int rc = ts_write(p, sch, NC, v, ROWS, &wo);
    for (int c = 0; c < NC; c++) pq_vec_free(&v[c]);
    return rc;
}

static ringscan_file *open_file(void)
{
    ringscan_file *f = NULL;
    ringscan_error err;
    if (ringscan_open(path, &f, &err)) fprintf(stderr, "open: %s\n", err.message);
    return f;
}

static void test_file_and_kv(void)
{
    ringscan_file *f = open_file();
    CHECK(f);
    if (!f) return;
    ringscan_file_info fi;
    CHECK(ringscan_file_info_get(f, &fi) == 0);
    CHECK(fi.rows == ROWS && fi.columns == NC && fi.row_groups == ROWS / RG_ROWS && fi.kv == 2);
    CHECK(fi.version == 2);
    CHECK(fi.created_by && strcmp(fi.created_by, "ringscan 0.1.0") == 0);
    CHECK(fi.column_orders == RINGSCAN_ORDERS_KNOWN);
    ringscan_kv kv;
    CHECK(ringscan_file_kv(f, 0, &kv) == 0);
    CHECK(strcmp(kv.key, "k1") == 0 && kv.value_len == 2 && memcmp(kv.value, "v1", 2) == 0);
    CHECK(ringscan_file_kv(f, 1, &kv) == 0);
    CHECK(strcmp(kv.key, "k2") == 0 && kv.value == NULL && kv.value_len == 0);
    ringscan_close(f);
}

static void test_columns(void)
{
    ringscan_file *f = open_file();
    CHECK(f);
    if (!f) return;
    static const struct {
        ringscan_physical phys;
        const char *phys_name, *logical;
        bool optional;
        int32_t type_length, precision, scale;
    } want[NC] = {
        {RINGSCAN_INT64, "INT64", "NONE", false, 0, 0, 0},
        {RINGSCAN_INT32, "INT32", "UINT32", true, 0, 0, 0},
        {RINGSCAN_BYTE_ARRAY, "BYTE_ARRAY", "STRING", false, 0, 0, 0},
        {RINGSCAN_DOUBLE, "DOUBLE", "NONE", false, 0, 0, 0},
        {RINGSCAN_BOOLEAN, "BOOLEAN", "NONE", false, 0, 0, 0},
        {RINGSCAN_FIXED_LEN_BYTE_ARRAY, "FIXED_LEN_BYTE_ARRAY", "NONE", false, 3, 0, 0},
        {RINGSCAN_INT64, "INT64", "DECIMAL", false, 0, 18, 2},
    };
    for (int i = 0; i < NC; i++) {
        ringscan_column_info c;
        CHECK(ringscan_file_column(f, i, &c) == 0);
        CHECK(strcmp(c.name, names[i]) == 0);
        CHECK(c.physical == want[i].phys && strcmp(c.physical_name, want[i].phys_name) == 0);
        CHECK(strcmp(c.logical_name, want[i].logical) == 0);
        CHECK(c.optional == want[i].optional && c.type_length == want[i].type_length);
        CHECK(c.precision == want[i].precision && c.scale == want[i].scale);
        CHECK(c.field_id == -1 && !c.adjusted_to_utc);
    }
    ringscan_close(f);
}

/* The text of statistics value v of column c (static buffer). */
static const char *text(const ringscan_file *f, int c, const uint8_t *v, uint32_t n)
{
    static char buf[128];
    int len = ringscan_stat_text(f, c, v, n, buf, sizeof buf);
    return len >= 0 && (size_t)len < sizeof buf ? buf : "(error)";
}

static void check_group_stats(const ringscan_file *f, int g)
{
    ringscan_chunk_info ch;
    char want[64];
    CHECK(ringscan_file_chunk(f, g, 0, &ch) == 0); /* id: [g * 500, g * 500 + 499] */
    CHECK(ch.stats.has_min_max && ch.stats.usable && ch.stats.min_len == 8);
    int64_t lo = (int64_t)g * RG_ROWS, hi = lo + RG_ROWS - 1;
    CHECK(memcmp(ch.stats.min, &lo, 8) == 0 && memcmp(ch.stats.max, &hi, 8) == 0);
    snprintf(want, sizeof want, "%lld", (long long)hi);
    CHECK(strcmp(text(f, 0, ch.stats.max, ch.stats.max_len), want) == 0);
    CHECK(ch.stats.has_null_count && ch.stats.null_count == 0);
    CHECK(ringscan_file_chunk(f, g, 1, &ch) == 0); /* u32: unsigned, a quarter null */
    snprintf(want, sizeof want, "%u", (unsigned)v_u32(hi)); /* hi % 4 == 3: not null */
    CHECK(strcmp(text(f, 1, ch.stats.max, ch.stats.max_len), want) == 0);
    CHECK(ch.stats.has_null_count && ch.stats.null_count == RG_ROWS / 4);
    CHECK(ringscan_file_chunk(f, g, 2, &ch) == 0); /* s: min "a\"\n", max "k9" */
    CHECK(strcmp(text(f, 2, ch.stats.min, ch.stats.min_len), "\"a\\\"\\u000a\"") == 0);
    CHECK(strcmp(text(f, 2, ch.stats.max, ch.stats.max_len), "\"k9\"") == 0);
    CHECK(ringscan_file_chunk(f, g, 3, &ch) == 0); /* d */
    snprintf(want, sizeof want, "%.17g", v_d(lo));
    CHECK(strcmp(text(f, 3, ch.stats.min, ch.stats.min_len), want) == 0);
    CHECK(ringscan_file_chunk(f, g, 4, &ch) == 0); /* b */
    CHECK(strcmp(text(f, 4, ch.stats.min, ch.stats.min_len), "false") == 0);
    CHECK(strcmp(text(f, 4, ch.stats.max, ch.stats.max_len), "true") == 0);
    CHECK(ringscan_file_chunk(f, g, 5, &ch) == 0); /* fl: hex */
    snprintf(want, sizeof want, "\"0xaf0f%02x\"", g);
    CHECK(ch.stats.max_len == 3 && strcmp(text(f, 5, ch.stats.max, ch.stats.max_len), want) == 0);
    CHECK(ringscan_file_chunk(f, g, 6, &ch) == 0); /* dec: the unscaled value */
    snprintf(want, sizeof want, "%lld", (long long)v_dec(lo));
    CHECK(strcmp(text(f, 6, ch.stats.min, ch.stats.min_len), want) == 0);
}

static void test_row_groups_and_chunks(void)
{
    ringscan_file *f = open_file();
    CHECK(f);
    if (!f) return;
    for (int g = 0; g < ROWS / RG_ROWS; g++) {
        ringscan_row_group_info rg;
        CHECK(ringscan_file_row_group(f, g, &rg) == 0);
        CHECK(rg.rows == RG_ROWS && rg.total_byte_size > 0);
        for (int c = 0; c < NC; c++) {
            ringscan_chunk_info ch;
            CHECK(ringscan_file_chunk(f, g, c, &ch) == 0);
            CHECK(ch.codec == 1 && strcmp(ch.codec_name, "SNAPPY") == 0);
            CHECK(ch.num_values == RG_ROWS && ch.compressed_size > 0 && ch.uncompressed_size > 0);
            CHECK(ch.data_page_offset >= 4);
            CHECK(ch.dictionary_page_offset == -1 || ch.dictionary_page_offset < ch.data_page_offset);
            CHECK(ch.has_offset_index && ch.has_column_index);
            CHECK(ch.has_bloom_filter == (c == 2));
            CHECK(ch.encodings != 0);
            for (int e = 0; e < 32; e++)
                if (ch.encodings & (1u << e)) CHECK(strcmp(ringscan_encoding_name(e), "?") != 0);
        }
        check_group_stats(f, g);
    }
    ringscan_close(f);
}

static void test_stat_text_contract(void)
{
    ringscan_file *f = open_file();
    CHECK(f);
    if (!f) return;
    const uint8_t s[] = "hello";
    char buf[4];
    memset(buf, 'z', sizeof buf);
    CHECK(ringscan_stat_text(f, 2, s, 5, buf, sizeof buf) == 7); /* "hello" with quotes */
    CHECK(memcmp(buf, "\"he", 4) == 0);                         /* 3 bytes and the NUL */
    CHECK(ringscan_stat_text(f, 2, s, 5, NULL, 0) == 7);
    CHECK(ringscan_stat_text(f, 2, NULL, 0, buf, sizeof buf) == 2 && strcmp(buf, "\"\"") == 0);
    int64_t x = -3;
    char big[32];
    CHECK(ringscan_stat_text(f, 0, (const uint8_t *)&x, 8, big, sizeof big) == 2 && strcmp(big, "-3") == 0);
    /* a length the type does not have: hex */
    CHECK(ringscan_stat_text(f, 0, (const uint8_t *)&x, 2, big, sizeof big) == 8 && strcmp(big, "\"0xfdff\"") == 0);
    double nan = 0.0 / 0.0;
    CHECK(ringscan_stat_text(f, 3, (const uint8_t *)&nan, 8, big, sizeof big) == 5 && strcmp(big, "\"NaN\"") == 0);
    CHECK(strcmp(ringscan_encoding_name(0), "PLAIN") == 0);
    CHECK(strcmp(ringscan_encoding_name(8), "RLE_DICTIONARY") == 0);
    CHECK(strcmp(ringscan_encoding_name(-1), "?") == 0 && strcmp(ringscan_encoding_name(100), "?") == 0);
    ringscan_close(f);
}

static void test_bad_arguments(void)
{
    ringscan_file *f = open_file();
    CHECK(f);
    if (!f) return;
    union {
        ringscan_file_info fi;
        ringscan_column_info c;
        ringscan_kv kv;
        ringscan_row_group_info rg;
        ringscan_chunk_info ch;
        unsigned char bytes[256];
    } u, same;
    memset(&u, 0x5a, sizeof u);
    same = u;
    CHECK(ringscan_file_info_get(NULL, &u.fi) == -EINVAL && ringscan_file_info_get(f, NULL) == -EINVAL);
    CHECK(ringscan_file_column(NULL, 0, &u.c) == -EINVAL && ringscan_file_column(f, 0, NULL) == -EINVAL);
    CHECK(ringscan_file_column(f, -1, &u.c) == -EINVAL && ringscan_file_column(f, NC, &u.c) == -EINVAL);
    CHECK(ringscan_file_kv(NULL, 0, &u.kv) == -EINVAL && ringscan_file_kv(f, 0, NULL) == -EINVAL);
    CHECK(ringscan_file_kv(f, -1, &u.kv) == -EINVAL && ringscan_file_kv(f, 2, &u.kv) == -EINVAL);
    CHECK(ringscan_file_row_group(NULL, 0, &u.rg) == -EINVAL && ringscan_file_row_group(f, 0, NULL) == -EINVAL);
    CHECK(ringscan_file_row_group(f, -1, &u.rg) == -EINVAL && ringscan_file_row_group(f, 2, &u.rg) == -EINVAL);
    CHECK(ringscan_file_chunk(NULL, 0, 0, &u.ch) == -EINVAL && ringscan_file_chunk(f, 0, 0, NULL) == -EINVAL);
    CHECK(ringscan_file_chunk(f, 2, 0, &u.ch) == -EINVAL && ringscan_file_chunk(f, 0, NC, &u.ch) == -EINVAL);
    CHECK(ringscan_file_chunk(f, -1, 0, &u.ch) == -EINVAL && ringscan_file_chunk(f, 0, -1, &u.ch) == -EINVAL);
    CHECK(memcmp(&u, &same, sizeof u) == 0); /* untouched by every failed call */
    char buf[8] = "keep";
    const uint8_t v[8] = {0};
    CHECK(ringscan_stat_text(NULL, 0, v, 8, buf, sizeof buf) == -EINVAL);
    CHECK(ringscan_stat_text(f, -1, v, 8, buf, sizeof buf) == -EINVAL);
    CHECK(ringscan_stat_text(f, NC, v, 8, buf, sizeof buf) == -EINVAL);
    CHECK(ringscan_stat_text(f, 0, NULL, 8, buf, sizeof buf) == -EINVAL);
    CHECK(ringscan_stat_text(f, 0, v, 8, NULL, sizeof buf) == -EINVAL);
    CHECK(strcmp(buf, "keep") == 0);
    ringscan_close(f);
}

/* The file at p (malloc'd, *n its length), or NULL. */
static uint8_t *read_whole(const char *p, size_t *n)
{
    FILE *f = fopen(p, "rb");
    uint8_t *d = NULL;
    if (f && fseek(f, 0, SEEK_END) == 0) {
        long len = ftell(f);
        d = len > 0 ? malloc((size_t)len) : NULL;
        *n = (size_t)len;
        if (d && (fseek(f, 0, SEEK_SET) != 0 || fread(d, 1, *n, f) != *n)) free(d), d = NULL;
    }
    if (f) fclose(f);
    return d;
}

/* Rows a scan of f under filter returns (-1 on an error, err filled). */
static int64_t scan_rows(ringscan_file *f, const char *filter, ringscan_error *err)
{
    ringscan_options o;
    ringscan_options_init(&o);
    o.filter = filter;
    ringscan_scan *s = NULL;
    if (ringscan_scan_start(f, &o, &s, err)) return -1;
    int64_t rows = 0;
    struct ArrowArray a;
    int rc;
    while ((rc = ringscan_scan_next(s, &a, err)) == 1) {
        rows += a.length;
        a.release(&a);
    }
    ringscan_scan_free(s);
    return rc == 0 ? rows : -1;
}

/* Statistics are decoded when first asked for (format/meta.h invariant 6). Column d's
 * Statistics in row group 1 get their null count relabelled as field 5 (max_value, which must
 * be a binary): the footer still parses, so a scan that never reads d's statistics (a filter
 * on id, every column projected, d's pages decoded) and a count on id run as before, while
 * what reads them (ringscan_file_stats as `ringscan meta` calls it, ringscan_file_chunk of
 * d, a filter on d) fails with the file, the field's offset and the column named. */
static void test_malformed_stats(void)
{
    char bad[256];
    ts_path(bad, sizeof bad, "bad_stats.parquet");
    size_t n = 0;
    uint8_t *d = read_whole(path, &n);
    pqf_t *pf = NULL;
    pq_err e = {.offset = -1};
    CHECK(d && pqf_open(&pf, path, NULL, &e) == 0);
    if (!d || !pf) {
        free(d);
        return;
    }
    const pq_chunk_meta *ch = &pf->meta.row_groups[1].chunks[3];
    CHECK(ch->stats_pending && ch->stats.has_null_count && ch->stats.null_count == 0);
    uint64_t at = pf->meta_offset + ch->stats_off;
    pqf_close(pf);
    CHECK(at < n && d[at] == 0x36); /* field 3 (delta 3) of type i64: the null count */
    d[at] = 0x56;                   /* field 5 (delta 5), still an i64 */
    FILE *out = fopen(bad, "wb");
    CHECK(out && fwrite(d, 1, n, out) == n);
    if (out) fclose(out);
    free(d);
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK(ringscan_open(bad, &f, &err) == 0);
    if (!f) return;
    CHECK_EQ_I64(scan_rows(f, "id >= 100", &err), ROWS - 100);
    ringscan_options o;
    ringscan_options_init(&o);
    o.filter = "id >= 600";
    ringscan_count_info ci;
    CHECK(ringscan_count(f, &o, &ci, &err) == 0 && ci.rows == ROWS - 600);
    ringscan_chunk_info chi;
    CHECK(ringscan_file_chunk(f, 1, 0, &chi) == 0 && chi.stats.has_min_max && chi.stats.usable);
    CHECK(ringscan_file_chunk(f, 1, 3, &chi) == RINGSCAN_EFORMAT);
    CHECK(chi.num_values == RG_ROWS && !chi.stats.has_min_max && !chi.stats.has_null_count);
    char want[128];
    snprintf(want, sizeof want, " (offset %llu, column d)", (unsigned long long)at + 1);
    for (int i = 0; i < 2; i++) { /* asked again: the same error */
        memset(&err, 0, sizeof err);
        CHECK(ringscan_file_stats(f, -1, &err) == RINGSCAN_EFORMAT && err.status == RINGSCAN_EFORMAT);
        CHECK(strncmp(err.message, bad, strlen(bad)) == 0 && strstr(err.message, want) != NULL);
        CHECK(strstr(err.message, "column 'd', row group 1, statistics") != NULL);
        CHECK(strstr(err.message, "Statistics min/max has wrong type 6") != NULL);
    }
    CHECK(ringscan_file_stats(f, 0, &err) == 0 && ringscan_file_stats(f, 2, &err) == 0);
    CHECK(ringscan_file_stats(f, NC, &err) == -EINVAL && ringscan_file_stats(NULL, 0, &err) == -EINVAL);
    memset(&err, 0, sizeof err);
    CHECK_EQ_I64(scan_rows(f, "d > 0", &err), -1);
    CHECK(err.status == RINGSCAN_EFORMAT && strstr(err.message, want) != NULL);
    ringscan_close(f);
}

int main(void)
{
    ts_dir_init();
    ts_path(path, sizeof path, "meta.parquet");
    if (write_file(path) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        return 1;
    }
    RUN(test_file_and_kv);
    RUN(test_columns);
    RUN(test_row_groups_and_chunks);
    RUN(test_stat_text_contract);
    RUN(test_bad_arguments);
    RUN(test_malformed_stats);
    ts_dir_remove();
    return CHECK_DONE("test_api_meta");
}
