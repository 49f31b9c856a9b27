/* tests for options.dictionary_columns (scan/arrow_dict.c, scan/arrow.c): a string column
 * whose chunks fall back from dictionary to PLAIN pages mid-chunk, and a binary one, scanned as
 * dictionary arrays: the schema is int32 indices with a dictionary of the value type; every
 * row's dictionary value (or null) equals the same scan's plain value; indices lie in the
 * dictionary; the dictionary holds distinct values; with a filter on the column too; bad
 * names refused. */
#include <string.h>

#include "check.h"
#include "ringscan.h"
#include "test_scan_common.h"

enum { ROWS = 30000 };

static char path[256];
static int64_t split_rows; /* scans' options.split_rows (0: the default) */

static void write_file_with(bool page_index)
{
    pq_column_desc sch[3] = {ts_desc("id", PQ_INT64, 0, false, PQ_LOGICAL_NONE),
                             ts_desc("s", PQ_BYTE_ARRAY, 0, true, PQ_LOGICAL_STRING),
                             ts_desc("b", PQ_BYTE_ARRAY, 0, true, PQ_LOGICAL_NONE)};
    pq_vec v[3];
    ts_vec_new(&v[0], PQ_INT64, 0, ROWS, 0);
    ts_vec_new(&v[1], PQ_BYTE_ARRAY, 0, ROWS, ROWS * 16);
    ts_vec_new(&v[2], PQ_BYTE_ARRAY, 0, ROWS, ROWS * 4);
    for (int64_t i = 0; i < ROWS; i++) {
        ts_put_fixed(&v[0], &i, false);
        char t[32];
        /* few distinct values first, then many: the 4 KiB dictionary fills, PLAIN follows */
        int n = snprintf(t, sizeof t, "v%lld", (long long)(i < 10000 ? i % 40 : i % 5000));
        ts_put_bytes(&v[1], (const uint8_t *)t, n, i % 11 == 0);
        uint8_t bb[2] = {(uint8_t)(i % 3), 0};
        ts_put_bytes(&v[2], bb, (int32_t)(i % 2) + 1, i % 13 == 0);
    }
    pq_writer_opts o;
    pq_writer_opts_default(&o);
    o.row_group_rows = 12000;
    o.page_rows = 1000;
    o.dict_page_bytes = 4096;
    o.page_index = page_index;
    CHECK(ts_write(path, sch, 3, v, ROWS, &o) == 0);
    for (int i = 0; i < 3; i++) pq_vec_free(&v[i]);
    /* the case this file is for: s's first chunk has dictionary pages, then PLAIN ones */
    ringscan_file *f;
    ringscan_error err;
    ringscan_chunk_info ci;
    CHECK(ringscan_open(path, &f, &err) == 0);
    CHECK(ringscan_file_chunk(f, 0, 1, &ci) == 0);
    CHECK((ci.encodings & (1u << 0)) && (ci.encodings & ((1u << 8) | (1u << 2))));
    CHECK(ci.dictionary_page_offset > 0);
    ringscan_close(f);
}

/* Row r of a utf8/binary array (int32 offsets) into *p, its length; -1 when null. */
static int64_t value_at(const struct ArrowArray *a, int64_t r, const uint8_t **p)
{
    const uint8_t *valid = a->buffers[0];
    if (a->null_count && valid && !((valid[r >> 3] >> (r & 7)) & 1)) return -1;
    const int32_t *off = a->buffers[1];
    *p = (const uint8_t *)a->buffers[2] + off[r];
    return off[r + 1] - off[r];
}

/* Scans columns id, s, b with filter, s and b as dictionaries when dict; a running hash of
 * each row's (id, s, b) values into *h and the row count into *rows. */
static void scan_hash(const char *filter, bool dict, uint64_t *h, int64_t *rows)
{
    ringscan_file *f;
    ringscan_error err;
    CHECK(ringscan_open(path, &f, &err) == 0);
    ringscan_options o;
    ringscan_options_init(&o);
    const char *cols[] = {"id", "s", "b"}, *dcols[] = {"s", "b"};
    o.columns = cols, o.ncolumns = 3, o.filter = filter, o.ordered = true;
    o.split_rows = split_rows;
    if (dict) o.dictionary_columns = dcols, o.ndictionary_columns = 2;
    ringscan_scan *sc;
    CHECK(ringscan_scan_start(f, &o, &sc, &err) == 0);
    struct ArrowSchema s;
    CHECK(ringscan_scan_schema(sc, &s, &err) == 0);
    CHECK(strcmp(s.children[1]->format, dict ? "i" : "u") == 0);
    CHECK(strcmp(s.children[2]->format, dict ? "i" : "z") == 0);
    CHECK(!dict || (s.children[1]->dictionary && strcmp(s.children[1]->dictionary->format, "u") == 0));
    CHECK(!dict || (s.children[2]->dictionary && strcmp(s.children[2]->dictionary->format, "z") == 0));
    s.release(&s);
    struct ArrowArray a;
    *h = 0, *rows = 0;
    while (ringscan_scan_next(sc, &a, &err) == 1) {
        const int64_t *id = a.children[0]->buffers[1];
        for (int64_t r = 0; r < a.length; r++) {
            *h = ts_mix(*h, (uint64_t)id[r]);
            for (int c = 1; c <= 2; c++) {
                const struct ArrowArray *col = a.children[c];
                const uint8_t *p = NULL;
                int64_t n;
                if (dict) {
                    const int32_t *ix = col->buffers[1];
                    const uint8_t *valid = col->buffers[0];
                    bool null = col->null_count && !((valid[r >> 3] >> (r & 7)) & 1);
                    CHECK(null || (ix[r] >= 0 && ix[r] < col->dictionary->length));
                    n = null ? -1 : value_at(col->dictionary, ix[r], &p);
                } else {
                    n = value_at(col, r, &p);
                }
                *h = n < 0 ? ts_mix(*h, 77) : ts_hash_bytes(*h, p, n);
            }
        }
        if (dict) { /* the dictionary's values are distinct */
            const struct ArrowArray *d = a.children[1]->dictionary;
            for (int64_t i = 1; i < d->length && i < 50; i++) {
                const uint8_t *p, *q;
                int64_t n = value_at(d, i, &p), m = value_at(d, i - 1, &q);
                CHECK(n != m || memcmp(p, q, (size_t)n) != 0);
            }
        }
        *rows += a.length;
        a.release(&a);
    }
    ringscan_stats st;
    ringscan_scan_stats(sc, &st);
    CHECK(split_rows == 0 || filter || st.splits >= 12); /* 3 groups of 12,000 rows, cut */
    ringscan_scan_free(sc);
    ringscan_close(f);
}

static void dictionary_equals_plain(void)
{
    const char *filters[] = {NULL, "s = 'v7' OR id > 29000", "s LIKE 'v12%'", "b IS NULL",
                             "id >= 9000 AND id < 15000", "id IN (1, 100, 10001, 29999)"};
    for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++) {
        uint64_t h1, h2;
        int64_t r1, r2;
        scan_hash(filters[i], false, &h1, &r1);
        scan_hash(filters[i], true, &h2, &r2);
        CHECK_EQ_I64(r2, r1);
        CHECK(h1 == h2);
        CHECK(r1 > 0);
        if (i == 0) CHECK_EQ_I64(r1, ROWS);
    }
}

/* A filter on id alone: s is decoded as indices (no value of a dictionary page's rows is
 * materialized) and the batch's dictionary is the chunk's, so it holds more values than the
 * 4 selected non-null rows; a filter on s itself reads its values and encodes them again
 * (only the selected rows' distinct values). */
static int64_t dict_len(const char *filter)
{
    ringscan_file *f;
    ringscan_error err;
    CHECK(ringscan_open(path, &f, &err) == 0);
    ringscan_options o;
    ringscan_options_init(&o);
    const char *cols[] = {"s"}, *dcols[] = {"s"};
    o.columns = cols, o.ncolumns = 1, o.filter = filter;
    o.dictionary_columns = dcols, o.ndictionary_columns = 1;
    ringscan_scan *sc;
    CHECK(ringscan_scan_start(f, &o, &sc, &err) == 0);
    struct ArrowArray a;
    int64_t n = -1, rows = 0;
    while (ringscan_scan_next(sc, &a, &err) == 1) {
        if (a.length > 0) n = a.children[0]->dictionary->length, rows += a.length;
        a.release(&a);
    }
    CHECK_EQ_I64(rows, 5);
    ringscan_scan_free(sc);
    ringscan_close(f);
    return n;
}

static void passes_the_chunk_dictionary(void)
{
    CHECK(dict_len("id < 5") >= 40);        /* v0..v39 at least: the chunk's dictionary page */
    CHECK_EQ_I64(dict_len("id < 5 AND s IS NOT NULL OR id = 0"), 4); /* v1..v4, encoded here */
}

/* The same with a page index and splits of ~2,000 rows: a row group's splits share its
 * dictionary (one decodes it, the others borrow it) and pages are pruned. */
static void cut_row_groups(void)
{
    write_file_with(true);
    split_rows = 2000;
    dictionary_equals_plain();
    split_rows = 0;
}

static void write_file(void) { write_file_with(false); }

static void refuses_bad_names(void)
{
    ringscan_file *f;
    ringscan_error err;
    CHECK(ringscan_open(path, &f, &err) == 0);
    ringscan_options o;
    ringscan_options_init(&o);
    const char *cols[] = {"id", "s"}, *bad1[] = {"id"}, *bad2[] = {"b"};
    o.columns = cols, o.ncolumns = 2;
    ringscan_scan *sc = NULL;
    o.dictionary_columns = bad1, o.ndictionary_columns = 1;
    CHECK(ringscan_scan_start(f, &o, &sc, &err) == -EINVAL);
    CHECK(strstr(err.message, "'id' is not a string or binary column") != NULL);
    o.dictionary_columns = bad2;
    CHECK(ringscan_scan_start(f, &o, &sc, &err) == -EINVAL);
    CHECK(strstr(err.message, "'b' is not a projected column") != NULL);
    CHECK(sc == NULL);
    ringscan_close(f);
}

int main(void)
{
    ts_dir_init();
    ts_path(path, sizeof path, "dict.parquet");
    RUN(write_file);
    RUN(dictionary_equals_plain);
    RUN(passes_the_chunk_dictionary);
    RUN(refuses_bad_names);
    RUN(cut_row_groups);
    ts_dir_remove();
    return CHECK_DONE("test_arrow_dict");
}
