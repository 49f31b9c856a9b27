/* format/writer.c: the Parquet writer's file level: options, schema checks, row groups,
 * bloom filters and page indexes at close, the footer. Column chunks are built by
 * writer_col.c / writer_page.c, statistics by writer_stats.c. See format/writer.h for the
 * layout and the invariants; the ones this file keeps:
 *  1. w->fm.row_groups[0..nrow_groups) describe exactly the row groups already sent.
 *  2. w->ix[g * ncols + c] records where chunk (g, c)'s serialised ColumnIndex / OffsetIndex /
 *     bloom filter sit inside ci_buf / oi_buf / bloom_buf; their file offsets are set at close
 *     when those buffers are sent (bloom filters, then column indexes, then offset indexes).
 *  3. w->status is sticky: the first failure is returned by every later call.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/codec.h"
#include "common/fail.h"
#include "format/writer_priv.h"

void pq_writer_opts_default(pq_writer_opts *o)
{
    memset(o, 0, sizeof *o);
    o->codec = PQ_CODEC_SNAPPY;
    o->row_group_rows = 1 << 20;
    o->page_rows = 20000;
    o->page_bytes = 1 << 20;
    o->dictionary = true;
    o->dict_page_bytes = 1 << 20;
    o->statistics = true;
    o->bloom_fpp = 0.01;
}

static int check_opts(const pq_writer_opts *o, pq_err *e)
{
    if (o->row_group_rows < 1 || o->row_group_rows > INT32_MAX)
        return pq_errf(e, -EINVAL, -1, "row_group_rows %lld out of range", (long long)o->row_group_rows);
    if (o->page_rows < 1 || o->page_rows > PQ_WRITER_MAX_PAGE_ROWS)
        return pq_errf(e, -EINVAL, -1, "page_rows %lld out of [1, %d]", (long long)o->page_rows,
                       PQ_WRITER_MAX_PAGE_ROWS);
    if (o->page_bytes < 1 || o->page_bytes > PQ_WRITER_MAX_PAGE_BYTES)
        return pq_errf(e, -EINVAL, -1, "page_bytes %lld out of range", (long long)o->page_bytes);
    if (o->dict_page_bytes < 0 || o->dict_page_bytes > PQ_WRITER_MAX_PAGE_BYTES)
        return pq_errf(e, -EINVAL, -1, "dict_page_bytes %lld out of range",
                       (long long)o->dict_page_bytes);
    if (!(o->bloom_fpp > 0.0 && o->bloom_fpp < 1.0))
        return pq_errf(e, -EINVAL, -1, "bloom_fpp must be in (0, 1)");
    if (o->nkv < 0 || (o->nkv > 0 && !o->kv)) return pq_errf(e, -EINVAL, -1, "bad key-value list");
    if (o->codec != PQ_CODEC_UNCOMPRESSED && pq_compress_bound((int)o->codec, 1) == 0)
        return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "codec %s cannot be written",
                       pq_codec_name(o->codec));
    return 0;
}

/* Physical types a logical type may annotate (bit per pq_physical). */
static uint32_t logical_physicals(const pq_column_desc *c)
{
    enum { B = 1u << PQ_BYTE_ARRAY, F = 1u << PQ_FIXED_LEN_BYTE_ARRAY, I = 1u << PQ_INT32,
           L = 1u << PQ_INT64 };
    switch (c->logical) {
    case PQ_LOGICAL_NONE: return 0xff;
    case PQ_LOGICAL_STRING: case PQ_LOGICAL_ENUM: case PQ_LOGICAL_JSON: case PQ_LOGICAL_BSON: return B;
    case PQ_LOGICAL_UUID: return c->type_length == 16 ? F : 0;
    case PQ_LOGICAL_FLOAT16: return c->type_length == 2 ? F : 0;
    case PQ_LOGICAL_INTERVAL: return c->type_length == 12 ? F : 0;
    case PQ_LOGICAL_DECIMAL: return B | F | I | L;
    case PQ_LOGICAL_DATE: case PQ_LOGICAL_TIME_MILLIS: return I;
    case PQ_LOGICAL_INT8: case PQ_LOGICAL_INT16: case PQ_LOGICAL_INT32: case PQ_LOGICAL_UINT8:
    case PQ_LOGICAL_UINT16: case PQ_LOGICAL_UINT32: return I;
    case PQ_LOGICAL_TIME_MICROS: case PQ_LOGICAL_TIME_NANOS: case PQ_LOGICAL_TIMESTAMP_MILLIS:
    case PQ_LOGICAL_TIMESTAMP_MICROS: case PQ_LOGICAL_TIMESTAMP_NANOS: case PQ_LOGICAL_INT64:
    case PQ_LOGICAL_UINT64: return L;
    case PQ_LOGICAL_UNKNOWN: return 0xff;
    }
    return 0;
}

static int check_column(const pq_column_desc *c, uint8_t flags, pq_err *e)
{
    if (!c->name || !c->name[0]) return pq_errf(e, -EINVAL, -1, "column without a name");
    if ((unsigned)c->physical > PQ_FIXED_LEN_BYTE_ARRAY)
        return pq_errf(e, -EINVAL, -1, "column %s: bad physical type %d", c->name, (int)c->physical);
    if ((c->physical == PQ_FIXED_LEN_BYTE_ARRAY) != (c->type_length > 0))
        return pq_errf(e, -EINVAL, -1, "column %s: type_length %d", c->name, c->type_length);
    if (c->repetition != PQ_REQUIRED && c->repetition != PQ_OPTIONAL)
        return pq_errf(e, -EINVAL, -1, "column %s: only REQUIRED/OPTIONAL leaves", c->name);
    if (!(logical_physicals(c) & (1u << c->physical)))
        return pq_errf(e, -EINVAL, -1, "column %s: %s cannot annotate %s", c->name,
                       pq_logical_name(c->logical), pq_physical_name(c->physical));
    if (c->logical == PQ_LOGICAL_DECIMAL) {
        int maxp = c->physical == PQ_INT32 ? 9 : c->physical == PQ_INT64 ? 18 : 76;
        if (c->decimal_precision < 1 || c->decimal_precision > maxp || c->decimal_scale < 0 ||
            c->decimal_scale > c->decimal_precision)
            return pq_errf(e, -EINVAL, -1, "column %s: bad DECIMAL(%d, %d)", c->name,
                           c->decimal_precision, c->decimal_scale);
    }
    if ((flags & PQ_WCOL_BLOOM) && c->physical == PQ_BOOLEAN)
        return pq_errf(e, -EINVAL, -1, "column %s: no bloom filter for BOOLEAN", c->name);
    return 0;
}

/* Copies the schema and key-value metadata into w->fm (arena-owned). */
static int build_meta(pq_writer *w, const pq_column_desc *cols, int n)
{
    pq_file_meta *m = &w->fm;
    m->version = 2;
    m->ncolumns = n;
    m->columns = pq_file_meta_alloc(m, (size_t)n * sizeof *m->columns);
    char *cb = pq_file_meta_alloc(m, sizeof PQ_WRITER_CREATED_BY);
    if (!m->columns || !cb) return -ENOMEM;
    memcpy(cb, PQ_WRITER_CREATED_BY, sizeof PQ_WRITER_CREATED_BY);
    m->created_by = cb;
    m->column_orders_present = m->column_orders_known = true;
    for (int i = 0; i < n; i++) {
        pq_column_desc *c = &m->columns[i];
        *c = cols[i];
        size_t len = strlen(cols[i].name);
        char *name = pq_file_meta_alloc(m, len + 1);
        if (!name) return -ENOMEM;
        memcpy(name, cols[i].name, len + 1);
        c->name = name;
        c->index = i;
        c->max_def_level = c->repetition == PQ_OPTIONAL ? 1 : 0;
        c->max_rep_level = 0;
        c->column_order = 1;
    }
    if (w->o.nkv == 0) return 0;
    m->kv = pq_file_meta_alloc(m, (size_t)w->o.nkv * sizeof *m->kv);
    if (!m->kv) return -ENOMEM;
    for (int32_t i = 0; i < w->o.nkv; i++) {
        const pq_kv *s = &w->o.kv[i];
        size_t kl = strlen(s->key);
        char *k = pq_file_meta_alloc(m, kl + 1), *v = NULL;
        if (!k) return -ENOMEM;
        memcpy(k, s->key, kl + 1);
        if (s->value && !(v = pq_file_meta_alloc(m, (size_t)s->value_len + 1))) return -ENOMEM;
        if (v) memcpy(v, s->value, s->value_len);
        m->kv[i] = (pq_kv){.key = k, .value = v, .value_len = s->value_len};
    }
    m->nkv = w->o.nkv;
    w->o.kv = NULL; /* the caller's list is not kept */
    return 0;
}

int pq_writer_open(pq_writer **out, const pq_column_desc *cols, int n, const pq_writer_opts *o,
                   pq_sink_fn write, void *ctx, pq_err *e)
{
    assert(out && write);
    *out = NULL;
    pq_writer_opts def;
    if (!o) {
        pq_writer_opts_default(&def);
        o = &def;
    }
    if (n < 1 || n > PQ_WRITER_MAX_COLUMNS || !cols)
        return pq_errf(e, -EINVAL, -1, "writer needs 1..%d columns, got %d", PQ_WRITER_MAX_COLUMNS, n);
    int rc = check_opts(o, e);
    for (int i = 0; i < n && !rc; i++) rc = check_column(&cols[i], o->col_flags ? o->col_flags[i] : 0, e);
    if (rc) return rc;
    pq_writer *w = fail_calloc(1, sizeof *w);
    if (!w) return pq_errf(e, -ENOMEM, -1, "out of memory");
    w->o = *o;
    w->o.col_flags = NULL; /* only read here */
    w->sink = write;
    w->ctx = ctx;
    w->ncols = n;
    if (!(w->cols = fail_calloc((size_t)n, sizeof *w->cols)) || (rc = build_meta(w, cols, n))) goto nomem;
    for (int i = 0; i < n; i++)
        if ((rc = pq_wcol_init(&w->cols[i], &w->fm.columns[i], o, o->col_flags ? o->col_flags[i] : 0)))
            goto nomem;
    if ((rc = pq_writer_emit(w, "PAR1", 4, e))) goto fail;
    *out = w;
    return 0;
nomem:
    pq_errf(e, -ENOMEM, -1, "out of memory");
    rc = -ENOMEM;
fail:
    pq_writer_free(w);
    return rc;
}

static int fail(pq_writer *w, int rc)
{
    if (!w->status) w->status = rc;
    return rc;
}

static int flush_row_group(pq_writer *w, pq_err *e)
{
    pq_file_meta *m = &w->fm;
    assert(w->rg_fill > 0 && m->nrow_groups <= w->rg_cap);
    if (m->nrow_groups == w->rg_cap) {
        int32_t ncap = w->rg_cap ? w->rg_cap * 2 : 8;
        pq_row_group *g = fail_realloc(m->row_groups, (size_t)ncap * sizeof *g);
        if (g) m->row_groups = g;
        pq_wchunk_ix *ix = fail_realloc(w->ix, (size_t)ncap * (size_t)w->ncols * sizeof *ix);
        if (ix) w->ix = ix;
        if (!g || !ix) return pq_errf(e, -ENOMEM, -1, "out of memory");
        w->rg_cap = ncap;
    }
    pq_row_group *g = &m->row_groups[m->nrow_groups];
    memset(g, 0, sizeof *g);
    g->chunks = pq_file_meta_alloc(m, (size_t)w->ncols * sizeof *g->chunks);
    if (!g->chunks) return pq_errf(e, -ENOMEM, -1, "out of memory");
    g->has_file_offset = true;
    g->file_offset = w->pos;
    g->num_rows = w->rg_fill;
    for (int c = 0; c < w->ncols; c++) {
        pq_chunk_meta *cm = &g->chunks[c];
        int rc = pq_wcol_flush_chunk(w, &w->cols[c], cm,
                                     &w->ix[(size_t)m->nrow_groups * (size_t)w->ncols + (size_t)c], e);
        if (rc) return rc;
        assert(cm->num_values == w->rg_fill);
        g->total_byte_size += cm->total_uncompressed_size;
        g->total_compressed_size += cm->total_compressed_size;
    }
    m->nrow_groups++;
    m->num_rows += w->rg_fill;
    w->rg_fill = 0;
    w->st.row_groups = m->nrow_groups;
    return 0;
}

/* -EINVAL unless column c's vector can supply rows [0, rows). */
static int check_vec(const pq_wcol *c, const pq_vec *v, int64_t rows, pq_err *e)
{
    const pq_column_desc *d = &c->desc;
    if (v->type != d->physical || (d->physical == PQ_FIXED_LEN_BYTE_ARRAY && v->type_length != d->type_length))
        return pq_errf(e, -EINVAL, -1, "column %s: vector of type %s, column is %s", d->name,
                       pq_physical_name(v->type), pq_physical_name(d->physical));
    if (v->length < rows)
        return pq_errf(e, -EINVAL, -1, "column %s: vector has %lld rows, %lld asked", d->name,
                       (long long)v->length, (long long)rows);
    if (v->null_count > 0 && !v->validity)
        return pq_errf(e, -EINVAL, -1, "column %s: null_count without validity", d->name);
    if (v->type == PQ_BYTE_ARRAY && rows > 0 && (!v->offsets || v->offsets[0] != 0))
        return pq_errf(e, -EINVAL, -1, "column %s: bad offsets", d->name);
    if (d->repetition == PQ_REQUIRED && v->null_count > 0)
        for (int64_t i = 0; i < rows; i++)
            if (!pq_bit_get(v->validity, i))
                return pq_errf(e, -EINVAL, -1, "column %s is REQUIRED but row %lld is null",
                               d->name, (long long)i);
    return 0;
}

int pq_writer_write(pq_writer *w, const pq_vec *cols, int64_t rows, pq_err *e)
{
    assert(w && rows >= 0);
    if (w->status) return pq_errf(e, w->status, -1, "writer failed earlier");
    if (w->closed) return pq_errf(e, -EINVAL, -1, "writer is closed");
    for (int c = 0; c < w->ncols; c++) {
        int rc = check_vec(&w->cols[c], &cols[c], rows, e);
        if (rc) return rc; /* nothing written: the writer stays usable */
    }
    for (int64_t done = 0, guard = 0; done < rows; guard++) {
        assert(guard <= rows);
        int64_t k = w->o.row_group_rows - w->rg_fill;
        if (k > rows - done) k = rows - done;
        for (int c = 0; c < w->ncols; c++) {
            int rc = pq_wcol_append(w, &w->cols[c], &cols[c], done, k, e);
            if (rc) return fail(w, rc);
        }
        done += k;
        w->rg_fill += k;
        w->st.rows += k;
        if (w->rg_fill == w->o.row_group_rows) {
            int rc = flush_row_group(w, e);
            if (rc) return fail(w, rc);
        }
    }
    return 0;
}

/* Sends buf and points every chunk's record (selected by which: 0 bloom, 1 ci, 2 oi) at it. */
static int emit_indexes(pq_writer *w, int which, pq_err *e)
{
    const pq_buf *b = which == 0 ? &w->bloom_buf : which == 1 ? &w->ci_buf : &w->oi_buf;
    int64_t base = w->pos;
    int rc = pq_writer_emit(w, b->data, b->len, e);
    if (rc) return rc;
    for (int32_t g = 0; g < w->fm.nrow_groups; g++)
        for (int c = 0; c < w->ncols; c++) {
            const pq_wchunk_ix *ix = &w->ix[(size_t)g * (size_t)w->ncols + (size_t)c];
            pq_chunk_meta *cm = &w->fm.row_groups[g].chunks[c];
            if (which == 0 && ix->bloom_off >= 0) {
                cm->has_bloom_filter = cm->has_bloom_filter_length = true;
                cm->bloom_filter_offset = base + ix->bloom_off;
                cm->bloom_filter_length = ix->bloom_len;
            } else if (which == 1 && ix->ci_off >= 0) {
                cm->has_column_index = true;
                cm->column_index_offset = base + ix->ci_off;
                cm->column_index_length = ix->ci_len;
            } else if (which == 2 && ix->oi_off >= 0) {
                cm->has_offset_index = true;
                cm->offset_index_offset = base + ix->oi_off;
                cm->offset_index_length = ix->oi_len;
            }
        }
    return 0;
}

int pq_writer_close(pq_writer *w, pq_err *e)
{
    assert(w);
    if (w->status) return pq_errf(e, w->status, -1, "writer failed earlier");
    if (w->closed) return pq_errf(e, -EINVAL, -1, "writer closed twice");
    w->closed = true;
    int rc = w->rg_fill > 0 ? flush_row_group(w, e) : 0;
    for (int which = 0; which < 3 && !rc; which++) rc = emit_indexes(w, which, e);
    if (rc) return fail(w, rc);
    w->scratch.len = 0;
    if ((rc = pq_write_file_meta(&w->scratch, &w->fm)))
        return fail(w, pq_errf(e, rc, -1, "out of memory"));
    if (w->scratch.len > UINT32_MAX)
        return fail(w, pq_errf(e, RINGSCAN_ELIMIT, -1, "footer of %zu bytes", w->scratch.len));
    uint8_t tail[8] = {0, 0, 0, 0, 'P', 'A', 'R', '1'};
    for (int i = 0; i < 4; i++) tail[i] = (uint8_t)(w->scratch.len >> (8 * i));
    if ((rc = pq_writer_emit(w, w->scratch.data, w->scratch.len, e)) ||
        (rc = pq_writer_emit(w, tail, sizeof tail, e)))
        return fail(w, rc);
    return 0;
}

void pq_writer_free(pq_writer *w)
{
    if (!w) return;
    for (int c = 0; c < w->ncols && w->cols; c++) pq_wcol_free(&w->cols[c]);
    free(w->cols);
    free(w->fm.row_groups);
    w->fm.row_groups = NULL;
    pq_file_meta_free(&w->fm);
    free(w->ix);
    pq_buf_free(&w->scratch);
    pq_buf_free(&w->cbuf);
    pq_buf_free(&w->hdr);
    pq_buf_free(&w->ci_buf);
    pq_buf_free(&w->oi_buf);
    pq_buf_free(&w->bloom_buf);
    free(w);
}

void pq_writer_get_stats(const pq_writer *w, pq_writer_stats *s)
{
    *s = w->st;
}
