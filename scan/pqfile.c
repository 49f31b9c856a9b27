/* scan/pqfile.c: synchronous Parquet file access (see pqfile.h). */
#include "scan/pqfile.h"
#include "common/fail.h"
#include "filter/expr.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int pqf_io_fail(pq_err *e, int rc, int64_t off, const char *path, const char *msg)
{
    msg += io_msg_named(msg, path);
    return pq_errf(e, rc, off, "%s", msg);
}

/* The span [*lo, *hi) of every column and offset index the metadata points at; false when
 * there is none. The offsets are the file's word: the caller checks the span. */
static bool all_index_span(const pq_file_meta *m, uint64_t *lo, uint64_t *hi)
{
    *lo = UINT64_MAX;
    *hi = 0;
    for (int rg = 0; rg < m->nrow_groups; rg++)
        for (int c = 0; c < m->ncolumns; c++) {
            const pq_chunk_meta *cm = &m->row_groups[rg].chunks[c];
            int64_t off[2] = {cm->has_offset_index ? cm->offset_index_offset : -1,
                              cm->has_column_index ? cm->column_index_offset : -1};
            int64_t len[2] = {cm->offset_index_length, cm->column_index_length};
            for (int i = 0; i < 2; i++) {
                if (off[i] < 0 || len[i] <= 0 || (uint64_t)off[i] > UINT64_MAX - (uint64_t)len[i])
                    continue;
                if ((uint64_t)off[i] < *lo) *lo = (uint64_t)off[i];
                uint64_t end = (uint64_t)off[i] + (uint64_t)len[i];
                if (end > *hi) *hi = end;
            }
        }
    return *lo < *hi;
}

/* Keeps the page index bytes when the tail [tail_off, +tail_len) holds every index of the file
 * (a copy of just that span; the tail itself is freed by the caller). */
static void keep_index(pqf_t *f, const uint8_t *tail, uint64_t tail_off, size_t tail_len)
{
    uint64_t lo, hi;
    if (!all_index_span(&f->meta, &lo, &hi) || lo < tail_off || hi > tail_off + tail_len) return;
    f->index_bytes = fail_malloc((size_t)(hi - lo));
    if (!f->index_bytes) return; /* planning reads them instead */
    memcpy(f->index_bytes, tail + (lo - tail_off), (size_t)(hi - lo));
    f->index_off = lo;
    f->index_len = (size_t)(hi - lo);
}

/* The span [*lo, *hi) of the column chunks the tail [tail_off, end) holds whole; false when
 * it holds none. Walks the row groups from the last (written last, nearest the footer) and
 * stops at the first one with no chunk inside the tail: a writer that orders its groups
 * otherwise only keeps fewer chunks. */
static bool chunks_in_tail(const pq_file_meta *m, uint64_t size, uint64_t tail_off, uint64_t *lo,
                           uint64_t *hi)
{
    *lo = UINT64_MAX, *hi = 0;
    for (int rg = m->nrow_groups - 1; rg >= 0; rg--) {
        bool any = false;
        for (int c = 0; c < m->ncolumns; c++) {
            uint64_t off, len;
            if (pq_chunk_range(&m->row_groups[rg].chunks[c], size, &off, &len, NULL) != 0 ||
                len == 0 || off < tail_off)
                continue; /* the scan reports a bad range; one outside the tail is read */
            any = true;
            if (off < *lo) *lo = off;
            if (off + len > *hi) *hi = off + len;
        }
        if (!any) break;
    }
    return *lo < *hi;
}

/* Gives f's file the column chunks its footer's tail [tail_off, +tail_len) holds whole (a
 * small file's every chunk: its tail is the whole file) as kept bytes (io_file_keep): the
 * scan's reads of them are served from this copy of what the open read, one snapshot with
 * the footer, instead of read again (pqfile.h). */
static void keep_chunks(pqf_t *f, const uint8_t *tail, uint64_t tail_off, size_t tail_len)
{
    uint64_t lo, hi, size = f->file->size_bytes;
    assert(tail_off + tail_len == size);
    if (!chunks_in_tail(&f->meta, size, tail_off, &lo, &hi)) return;
    assert(lo >= tail_off && hi <= size);
    uint8_t *buf = fail_malloc((size_t)(hi - lo));
    if (!buf) return; /* the scan reads them instead */
    memcpy(buf, tail + (lo - tail_off), (size_t)(hi - lo));
    io_file_keep(f->file, buf, lo, (size_t)(hi - lo));
}

bool pqf_index_bytes(const pqf_t *f, uint64_t off, void *buf, size_t len)
{
    if (!f->index_bytes || off < f->index_off || off - f->index_off > f->index_len ||
        len > f->index_len - (size_t)(off - f->index_off))
        return false;
    memcpy(buf, f->index_bytes + (off - f->index_off), len);
    return true;
}

size_t pqf_tail_bytes(uint64_t size, bool remote)
{
    uint64_t n = size / (remote ? PQF_TAIL_SHARE : PQF_LOCAL_TAIL_SHARE);
    uint64_t lo = remote ? PQF_TAIL_MIN_BYTES : PQF_LOCAL_TAIL_MIN_BYTES;
    uint64_t hi = remote ? PQF_TAIL_MAX_BYTES : PQF_LOCAL_TAIL_MAX_BYTES;
    if (n < lo) n = lo;
    if (n > hi) n = hi;
    return (size_t)(size < n ? size : n);
}

int pqf_tail_len(const pqf_t *f, size_t tail_max, size_t *len, pq_err *e)
{
    uint64_t size = f->file->size_bytes;
    if (size < 12) return pq_errf(e, RINGSCAN_EFORMAT, 0, "file of %llu bytes is too small for Parquet",
                                  (unsigned long long)size);
    *len = pqf_tail_bytes(size, f->file->be->remote);
    if (tail_max > 0 && *len > tail_max) *len = tail_max;
    return 0;
}

int pqf_footer_meta(pqf_t *f, const uint8_t *meta, const uint8_t *tail, size_t tail_len,
                    const pq_meta_limits *limits, pq_err *e)
{
    uint64_t size = f->file->size_bytes;
    assert(tail_len <= size);
    int rc = pq_file_meta_parse(meta, f->meta_len, limits, &f->meta, e);
    if (rc && e) /* (the parse names a position in the footer: the byte where it failed) */
        e->offset = (int64_t)f->meta_offset + (e->offset > 0 ? e->offset : 0);
    if (rc == 0) f->meta.footer_offset = (int64_t)f->meta_offset;
    if (rc == 0) rc = pq_file_meta_check(&f->meta, size, e);
    if (rc && e && e->offset < 0) e->offset = (int64_t)f->meta_offset;
    if (rc == 0) keep_index(f, tail, size - tail_len, tail_len);
    if (rc == 0) keep_chunks(f, tail, size - tail_len, tail_len);
    return rc;
}

int pqf_footer_tail(pqf_t *f, const uint8_t *tail, size_t tail_len, const pq_meta_limits *limits,
                    bool *more, pq_err *e)
{
    uint64_t size = f->file->size_bytes;
    assert(tail_len <= size);
    bool in_tail = false;
    uint64_t max_meta = limits ? limits->max_meta_bytes : 0;
    *more = false;
    int rc = pq_footer_locate(tail, tail_len, size, max_meta, &f->meta_offset, &f->meta_len, &in_tail, e);
    if (rc) return rc;
    if (!in_tail) return *more = true, 0;
    return pqf_footer_meta(f, tail + (f->meta_offset - (size - tail_len)), tail, tail_len, limits, e);
}

/* Reads the tail, locates and parses the FileMetaData (a second read when it starts before
 * the tail). */
static int read_footer(pqf_t *f, const pq_meta_limits *limits, size_t tail_max, pq_err *e)
{
    uint64_t size = f->file->size_bytes;
    size_t tail_len;
    int rc = pqf_tail_len(f, tail_max, &tail_len, e);
    if (rc) return rc;
    uint8_t *tail = fail_malloc(tail_len);
    if (!tail) return -ENOMEM;
    char msg[256];
    rc = io_read_sync(f->file, size - tail_len, tail, tail_len, msg, sizeof msg);
    if (rc) {
        free(tail);
        return pqf_io_fail(e, rc, (int64_t)(size - tail_len), f->file->name, msg);
    }
    f->tail_reads = 1;
    bool more = false;
    rc = pqf_footer_tail(f, tail, tail_len, limits, &more, e);
    uint8_t *second = NULL;
    if (rc == 0 && more) {
        second = fail_malloc(f->meta_len ? f->meta_len : 1);
        rc = second ? io_read_sync(f->file, f->meta_offset, second, f->meta_len, msg, sizeof msg)
                    : -ENOMEM;
        if (rc && rc != -ENOMEM) pqf_io_fail(e, rc, (int64_t)f->meta_offset, f->file->name, msg);
        f->tail_reads = 2;
        if (rc == 0) rc = pqf_footer_meta(f, second, tail, tail_len, limits, e);
    }
    free(second);
    free(tail);
    return rc;
}

int pqf_open(pqf_t **out, const char *path, const pq_meta_limits *limits, pq_err *e)
{
    return pqf_open_with(out, path, NULL, limits, e);
}

int pqf_open_with(pqf_t **out, const char *path, const io_open_opts *io,
                  const pq_meta_limits *limits, pq_err *e)
{
    return pqf_open_tail(out, path, io, 0, limits, e);
}

int pqf_open_tail(pqf_t **out, const char *path, const io_open_opts *io, size_t tail_max,
                  const pq_meta_limits *limits, pq_err *e)
{
    assert(out && path);
    *out = NULL;
    pqf_t *f = pqf_new();
    if (!f) return -ENOMEM;
    char msg[256];
    int rc = io_file_open_with(&f->file, path, io, msg, sizeof msg);
    if (rc) {
        pqf_close(f);
        return pqf_io_fail(e, rc, -1, path, msg);
    }
    rc = read_footer(f, limits, tail_max, e);
    if (rc) {
        pqf_close(f);
        return rc;
    }
    *out = f;
    return 0;
}

pqf_t *pqf_new(void)
{
    pqf_t *f = fail_calloc(1, sizeof *f);
    if (f && pthread_mutex_init(&f->stats_mu, NULL) != 0) {
        free(f);
        return NULL;
    }
    return f;
}

void pqf_close(pqf_t *f)
{
    if (!f) return;
    pq_file_meta_free(&f->meta);
    free(f->index_bytes);
    io_file_close(f->file);
    pthread_mutex_destroy(&f->stats_mu);
    free(f);
}

int pqf_stats(pqf_t *f, int col, pq_err *e)
{
    assert(f && col >= -1 && col < f->meta.ncolumns);
    pthread_mutex_lock(&f->stats_mu);
    int rc = pq_file_meta_stats(&f->meta, col, e);
    pthread_mutex_unlock(&f->stats_mu);
    if (rc && e && e->offset < 0) e->offset = (int64_t)f->meta_offset;
    return rc;
}

int pqf_stats_expr(pqf_t *f, const flt_expr *x, pq_err *e)
{
    int rc = 0;
    for (int k = 0; x && rc == 0 && k < x->npreds; k++) {
        const flt_pred *p = &x->preds[k];
        for (int i = 0; rc == 0 && i < (p->multi ? p->multi->ncols : 1); i++) {
            int col = p->multi ? p->multi->cols[i] : p->column;
            if (col >= 0) rc = pqf_stats(f, col, e);
        }
    }
    return rc;
}

int pqf_read_column(pqf_t *f, int rg, int col, const pq_col_limits *limits, pq_vec *out,
                    pq_err *e)
{
    assert(rg >= 0 && rg < f->meta.nrow_groups && col >= 0 && col < f->meta.ncolumns);
    const pq_column_desc *cd = &f->meta.columns[col];
    const pq_chunk_meta *cm = &f->meta.row_groups[rg].chunks[col];
    if (cd->nested) /* only flat columns are decoded (format/meta.h invariant 2) */
        return pq_errf_col(e, RINGSCAN_EUNSUPPORTED, -1, cd->name,
                           "column '%.200s': nested columns cannot be read yet", cd->name);
    if (cm->num_values == 0 && f->meta.row_groups[rg].num_rows == 0) return 0; /* no pages */
    uint64_t off, len;
    int rc = pq_chunk_range(cm, f->file->size_bytes, &off, &len, e);
    if (rc) {
        pq_err_column(e, cd->name);
        return rc;
    }
    pq_col_limits lim;
    if (limits) lim = *limits;
    else pq_col_limits_default(&lim);
    if ((int64_t)len > lim.max_page_bytes * 64)
        return pq_errf(e, RINGSCAN_ELIMIT, (int64_t)off, "column chunk of %llu bytes is over the "
                       "limit 64 * max_page_bytes (max_page_bytes=%lld)",
                       (unsigned long long)len, (long long)lim.max_page_bytes);
    uint8_t *buf = fail_malloc(len);
    if (!buf) return -ENOMEM;
    char msg[256];
    rc = io_read_sync(f->file, off, buf, len, msg, sizeof msg);
    if (rc) {
        free(buf);
        pq_err_column(e, cd->name);
        return pqf_io_fail(e, rc, (int64_t)off, f->file->name, msg);
    }
    pq_col_reader r;
    pq_colr_init(&r, cd, cm->codec, &lim);
    rc = pq_colr_chunk(&r, cm, buf, len, (int64_t)off, out, e);
    pq_colr_free(&r);
    free(buf);
    return rc;
}
