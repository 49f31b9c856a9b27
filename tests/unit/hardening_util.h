/* tests/unit/hardening_util.h: shared by test_faults.c, test_badinput.c and test_limits.c:
 * a small generated Parquet file (format/writer.h) with a fixed five-column schema, and a
 * whole scan reduced to a digest of its rows (order-independent, plus an ordered digest when
 * the scan was ordered). Header-only (static functions); each test program includes it once. */
#ifndef RINGSCAN_TESTS_HARDENING_UTIL_H
#define RINGSCAN_TESTS_HARDENING_UTIL_H
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/expr.h"
#include "format/writer.h"
#include "scan/scan.h"

static uint64_t hu_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

#define HU_D(n, p, rep, lg) {.name = n, .physical = p, .repetition = rep, .logical = lg, .field_id = -1}
static const pq_column_desc hu_schema[] = {
    HU_D("id", PQ_INT64, PQ_REQUIRED, PQ_LOGICAL_NONE),
    HU_D("a", PQ_INT32, PQ_OPTIONAL, PQ_LOGICAL_NONE),
    HU_D("s", PQ_BYTE_ARRAY, PQ_OPTIONAL, PQ_LOGICAL_STRING),
    HU_D("d", PQ_DOUBLE, PQ_REQUIRED, PQ_LOGICAL_NONE),
    HU_D("b", PQ_BOOLEAN, PQ_OPTIONAL, PQ_LOGICAL_NONE),
};
enum { HU_NCOLS = 5 };

typedef struct hu_file_opts {
    int64_t rows, row_group_rows, page_rows;
    pq_codec codec;
    bool page_index, dictionary, bloom, crc;
} hu_file_opts;

static int hu_sink(void *ctx, const void *buf, size_t len)
{
    return fwrite(buf, 1, len, ctx) == len ? 0 : -EIO;
}

/* Row i's values: a pure function of i (so results can be recomputed). */
static void hu_fill(pq_vec *v, int64_t n)
{
    for (int c = 0; c < HU_NCOLS; c++) {
        pq_vec_init(&v[c], hu_schema[c].physical, 0);
        if (pq_vec_reserve(&v[c], n, n * 8)) abort();
        if (hu_schema[c].repetition == PQ_OPTIONAL)
            for (int64_t i = 0; i < n; i++) pq_bit_set(v[c].validity, i, true);
    }
    int32_t pos = 0;
    v[2].offsets[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        uint64_t h = hu_mix((uint64_t)i);
        ((int64_t *)(void *)v[0].values)[i] = i;
        bool na = h % 8 == 0, ns = (h >> 8) % 10 == 0, nb = (h >> 16) % 5 == 0;
        ((int32_t *)(void *)v[1].values)[i] = na ? 0 : (int32_t)((h >> 20) % 1000);
        if (na) pq_bit_set(v[1].validity, i, false), v[1].null_count++;
        if (ns) {
            pq_bit_set(v[2].validity, i, false), v[2].null_count++;
        } else {
            int len = snprintf((char *)v[2].data + pos, 16, "s%03d", (int)((h >> 32) % 500));
            pos += len;
        }
        v[2].offsets[i + 1] = pos;
        ((double *)(void *)v[3].values)[i] = (double)((h >> 40) % 10000) / 4.0;
        pq_bit_set(v[4].values, i, !nb && ((h >> 50) & 1));
        if (nb) pq_bit_set(v[4].validity, i, false), v[4].null_count++;
    }
    v[2].data_len = pos;
    for (int c = 0; c < HU_NCOLS; c++) v[c].length = n;
}

/* Writes the file; 0 or a status. */
static int hu_write(const char *path, const hu_file_opts *fo)
{
    FILE *fp = fopen(path, "wb");
    if (!fp) return -errno;
    pq_writer_opts o;
    pq_writer_opts_default(&o);
    o.codec = fo->codec;
    o.row_group_rows = fo->row_group_rows;
    o.page_rows = fo->page_rows;
    o.page_index = fo->page_index;
    o.dictionary = fo->dictionary;
    o.page_crc = fo->crc;
    uint8_t flags[HU_NCOLS] = {0, 0, PQ_WCOL_BLOOM, 0, 0};
    if (fo->bloom) o.col_flags = flags;
    pq_writer *w = NULL;
    pq_err e = {.offset = -1};
    pq_vec v[HU_NCOLS];
    hu_fill(v, fo->rows);
    int rc = pq_writer_open(&w, hu_schema, HU_NCOLS, &o, hu_sink, fp, &e);
    if (rc == 0) rc = pq_writer_write(w, v, fo->rows, &e);
    if (rc == 0) rc = pq_writer_close(w, &e);
    if (rc) fprintf(stderr, "  writer: %s\n", e.msg);
    pq_writer_free(w);
    for (int c = 0; c < HU_NCOLS; c++) pq_vec_free(&v[c]);
    if (fclose(fp) != 0 && rc == 0) rc = -EIO;
    return rc;
}

typedef struct hu_result {
    int status;
    pq_err err;
    int64_t rows;
    uint64_t sum, xor_, ordered; /* order-independent sum/xor of row hashes; ordered chain */
    int64_t schema_mismatches;   /* batches whose columns differ from f's footer's schema */
} hu_result;

static uint64_t hu_cell(const pq_vec *v, int64_t i)
{
    if (!pq_vec_is_valid(v, i)) return 0x5555;
    uint64_t h = 0;
    if (v->type == PQ_BYTE_ARRAY) {
        for (int32_t k = v->offsets[i]; k < v->offsets[i + 1]; k++) h = hu_mix(h ^ v->data[k]);
        return hu_mix(h ^ (uint64_t)(v->offsets[i + 1] - v->offsets[i]));
    }
    if (v->type == PQ_BOOLEAN) return pq_bit_get(v->values, i) ? 7 : 3;
    int32_t w = pq_fixed_width(v->type, v->type_length);
    memcpy(&h, v->values + (size_t)i * (size_t)w, (size_t)(w < 8 ? w : 8));
    return hu_mix(h);
}

/* Runs a whole scan of f (filter text may be NULL) and digests its rows; counts the batches
 * whose column count or types are not the projected columns of f's footer. */
static void hu_scan(pqf_t *f, const int *proj, int nproj, const char *filter, const scan_opts *o,
                    hu_result *r)
{
    memset(r, 0, sizeof *r);
    r->err.offset = -1;
    flt_expr *ex = NULL;
    if (filter) {
        r->status = flt_parse(filter, f->meta.columns, f->meta.ncolumns, &ex, &r->err);
        if (r->status) return;
    }
    scan_t *s = NULL;
    r->status = scan_start(f, proj, nproj, ex, o, &s, &r->err);
    if (r->status) return;
    scan_batch b;
    for (;;) {
        pq_err e = {.offset = -1};
        int rc = scan_next(s, &b, &e);
        if (rc < 0) {
            r->status = rc;
            r->err = e;
        }
        if (rc <= 0) break;
        bool same = b.ncols == nproj;
        for (int c = 0; same && c < b.ncols; c++)
            same = b.cols[c].type == f->meta.columns[proj[c]].physical && b.cols[c].length == b.rows;
        if (!same) r->schema_mismatches++;
        for (int64_t i = 0; i < b.rows; i++) {
            uint64_t h = 0;
            for (int c = 0; c < b.ncols; c++) h = hu_mix(h * 31 + hu_cell(&b.cols[c], i));
            r->sum += h;
            r->xor_ ^= hu_mix(h);
            r->ordered = hu_mix(r->ordered ^ h);
        }
        r->rows += b.rows;
        scan_batch_free(&b);
    }
    scan_free(s);
}

#endif
