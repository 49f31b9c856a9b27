/* Shared helpers of the scan engine tests (test_scan*.c): a seeded RNG, a temp directory,
 * generated tables written with format/writer.h, and row hashing. Header-only (each test
 * program is one translation unit). */
#ifndef RINGSCAN_TESTS_SCAN_COMMON_H
#define RINGSCAN_TESTS_SCAN_COMMON_H
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/writer.h"

/* ---- rng ------------------------------------------------------------------------------ */

static uint64_t ts_rng;
static inline uint64_t ts_rnd(void)
{
    uint64_t z = (ts_rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static inline int64_t ts_range(int64_t lo, int64_t hi) /* inclusive */
{
    return lo + (int64_t)(ts_rnd() % (uint64_t)(hi - lo + 1));
}
static inline uint64_t ts_mix(uint64_t h, uint64_t x)
{
    h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}
static inline uint64_t ts_hash_bytes(uint64_t h, const uint8_t *p, int64_t n)
{
    uint64_t f = 0xcbf29ce484222325ull;
    for (int64_t i = 0; i < n; i++) f = (f ^ p[i]) * 0x100000001b3ull;
    return ts_mix(ts_mix(h, f), (uint64_t)n);
}

/* ---- temp files ----------------------------------------------------------------------- */

static char ts_dir[128];
static inline void ts_dir_init(void)
{
    snprintf(ts_dir, sizeof ts_dir, "/tmp/ringscan-test-%d", (int)getpid());
    mkdir(ts_dir, 0700);
}
static inline void ts_path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", ts_dir, name);
}
static inline void ts_dir_remove(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", ts_dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", ts_dir);
}

static int ts_file_sink(void *ctx, const void *buf, size_t len)
{
    return fwrite(buf, 1, len, (FILE *)ctx) == len ? 0 : -EIO;
}

/* Writes rows of cols (schema sch) to path. 0 or the writer's status (message printed). */
static inline int ts_write(const char *path, const pq_column_desc *sch, int ncols, const pq_vec *cols,
                    int64_t rows, const pq_writer_opts *o)
{
    FILE *fp = fopen(path, "wb");
    if (!fp) return -errno;
    pq_err e = {.offset = -1};
    pq_writer *w = NULL;
    int rc = pq_writer_open(&w, sch, ncols, o, ts_file_sink, fp, &e);
    if (rc == 0) rc = pq_writer_write(w, cols, rows, &e);
    if (rc == 0) rc = pq_writer_close(w, &e);
    if (rc) fprintf(stderr, "writer: %s (status %d)\n", e.msg, rc);
    pq_writer_free(w);
    if (fclose(fp) != 0 && rc == 0) rc = -EIO;
    return rc;
}

/* ---- building vectors ----------------------------------------------------------------- */

static inline void ts_vec_new(pq_vec *v, pq_physical t, int32_t tl, int64_t rows, int64_t bytes)
{
    pq_vec_init(v, t, tl);
    if (pq_vec_reserve(v, rows, bytes) != 0) abort();
    if (t == PQ_BYTE_ARRAY) v->offsets[0] = 0;
}
/* Appends a fixed-width value (w bytes at p) or null. */
static inline void ts_put_fixed(pq_vec *v, const void *p, bool null)
{
    int64_t i = v->length;
    size_t w = (size_t)pq_fixed_width(v->type, v->type_length);
    pq_bit_set(v->validity, i, !null);
    if (v->type == PQ_BOOLEAN) pq_bit_set(v->values, i, !null && *(const uint8_t *)p);
    else if (null) memset(v->values + (size_t)i * w, 0, w);
    else memcpy(v->values + (size_t)i * w, p, w);
    v->null_count += null;
    v->length++;
}
static inline void ts_put_bytes(pq_vec *v, const uint8_t *p, int32_t n, bool null)
{
    int64_t i = v->length;
    pq_bit_set(v->validity, i, !null);
    if (null) n = 0;
    if (v->data_len + n > v->data_cap) abort();
    if (n) memcpy(v->data + v->data_len, p, (size_t)n);
    v->data_len += n;
    v->offsets[i + 1] = (int32_t)v->data_len;
    v->null_count += null;
    v->length++;
}

static inline pq_column_desc ts_desc(const char *name, pq_physical p, int32_t tl, bool optional,
                              pq_logical lg)
{
    pq_column_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.physical = p;
    d.type_length = tl;
    d.repetition = optional ? PQ_OPTIONAL : PQ_REQUIRED;
    d.logical = lg;
    d.field_id = -1;
    if (lg == PQ_LOGICAL_DECIMAL) d.decimal_precision = 18, d.decimal_scale = 2;
    return d;
}

/* Writes path: one required INT64 column `name` of rows 0, 1, ..; rg_rows per row group and
 * page_rows per page (0: the writer's defaults), a page index when asked. 0 or a status. */
static inline int ts_write_ids(const char *path, const char *name, int64_t rows, int64_t rg_rows,
                               int64_t page_rows, bool page_index)
{
    pq_column_desc sch[1] = {ts_desc(name, PQ_INT64, 0, false, PQ_LOGICAL_NONE)};
    pq_vec v;
    ts_vec_new(&v, PQ_INT64, 0, rows, 0);
    for (int64_t i = 0; i < rows; i++) ts_put_fixed(&v, &i, false);
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    if (rg_rows) wo.row_group_rows = rg_rows;
    if (page_rows) wo.page_rows = page_rows;
    wo.page_index = page_index;
    int rc = ts_write(path, sch, 1, &v, rows, &wo);
    pq_vec_free(&v);
    return rc;
}

#endif
