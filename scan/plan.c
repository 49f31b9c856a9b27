/* scan/plan.c: splits (one per row group) and static pruning before any data read.
 *
 * Pruning order per row group: chunk statistics (no I/O), page index (one read covering every
 * needed index of the file, done once), bloom filters (one read per probed filter, only for
 * = / IN conjuncts on row groups the cheaper tests kept). What survives is, per needed
 * column, the list of byte ranges the split may read: the whole chunk, or with an offset
 * index the dictionary page and the data pages whose rows are still possible.
 *
 * Invariants: planning reads only metadata (indexes, blooms), synchronously, and counts them
 * in stats.plan_reads; a split marked pruned has no pieces; rows0 has len 0 (all rows) or
 * len == nrows. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/prune.h"
#include "format/bloom.h"
#include "scan/scan_impl.h"

enum { PLAN_BLOOM_PROBE_BYTES = 256, PLAN_INDEX_MAX_BYTES = 256 << 20 };

/* A synchronous metadata read, counted. */
static int plan_read(scan_t *s, uint64_t off, void *buf, size_t len, pq_err *e)
{
    char msg[256];
    int rc = io_read_sync(s->f->file, off, buf, len, msg, sizeof msg);
    if (rc) return pq_errf(e, rc, (int64_t)off, "%s", msg);
    s->stats.plan_reads++;
    s->stats.plan_bytes += len;
    s->stats.reads++;
    s->stats.bytes_read += len;
    s->stats.bytes_used += len;
    return 0;
}

/* ------------------------------------------------------------------------- page index */

/* Parsed indexes of one file: per row group and needed slot (NULL entries when absent). */
typedef struct plan_index {
    pq_offset_index *oi; /* [rg * nneed + slot] */
    pq_column_index *ci;
    bool *has_oi, *has_ci;
} plan_index;

static void index_free(scan_t *s, plan_index *x)
{
    int n = s->f->meta.nrow_groups * s->nneed;
    for (int i = 0; x->oi && i < n; i++) {
        if (x->has_oi[i]) pq_offset_index_free(&x->oi[i]);
        if (x->has_ci[i]) pq_column_index_free(&x->ci[i]);
    }
    free(x->oi);
    free(x->ci);
    free(x->has_oi);
    free(x->has_ci);
}

/* The byte span covering every needed column's offset and column index. */
static bool index_span(scan_t *s, uint64_t *lo, uint64_t *hi)
{
    *lo = UINT64_MAX;
    *hi = 0;
    for (int rg = 0; rg < s->f->meta.nrow_groups; rg++)
        for (int k = 0; k < s->nneed; k++) {
            const pq_chunk_meta *cm = &s->f->meta.row_groups[rg].chunks[s->need[k]];
            if (cm->has_offset_index && cm->offset_index_length > 0) {
                if ((uint64_t)cm->offset_index_offset < *lo) *lo = (uint64_t)cm->offset_index_offset;
                uint64_t end = (uint64_t)cm->offset_index_offset + (uint64_t)cm->offset_index_length;
                if (end > *hi) *hi = end;
            }
            if (cm->has_column_index && cm->column_index_length > 0) {
                if ((uint64_t)cm->column_index_offset < *lo) *lo = (uint64_t)cm->column_index_offset;
                uint64_t end = (uint64_t)cm->column_index_offset + (uint64_t)cm->column_index_length;
                if (end > *hi) *hi = end;
            }
        }
    return *hi > *lo && *hi <= s->f->file->size_bytes && *hi - *lo <= PLAN_INDEX_MAX_BYTES;
}

/* Parses the indexes of one chunk out of the span buffer. An index is an optimisation: one
 * that does not parse is dropped (the chunk is then read whole), never trusted. */
static int index_parse_one(const pq_chunk_meta *cm, const uint8_t *span, uint64_t lo,
                           pq_offset_index *oi, bool *has_oi, pq_column_index *ci, bool *has_ci,
                           pq_err *e)
{
    if (cm->has_offset_index && cm->offset_index_length > 0) {
        pq_err ignored = {.offset = -1};
        int rc = pq_offset_index_parse(span + ((uint64_t)cm->offset_index_offset - lo),
                                       (size_t)cm->offset_index_length, oi, &ignored);
        if (rc == -ENOMEM) return pq_errf(e, rc, -1, "out of memory");
        *has_oi = rc == 0;
    }
    if (cm->has_column_index && cm->column_index_length > 0) {
        pq_err ignored = {.offset = -1};
        int rc = pq_column_index_parse(span + ((uint64_t)cm->column_index_offset - lo),
                                       (size_t)cm->column_index_length, ci, &ignored);
        if (rc == -ENOMEM) return pq_errf(e, rc, -1, "out of memory");
        *has_ci = rc == 0;
    }
    return 0;
}

static int index_load(scan_t *s, plan_index *x, pq_err *e)
{
    memset(x, 0, sizeof *x);
    uint64_t lo, hi;
    if (!s->o.use_page_index || s->npreds == 0 || !index_span(s, &lo, &hi)) return 0;
    size_t n = (size_t)s->f->meta.nrow_groups * (size_t)s->nneed;
    x->oi = calloc(n, sizeof *x->oi);
    x->ci = calloc(n, sizeof *x->ci);
    x->has_oi = calloc(n, sizeof *x->has_oi);
    x->has_ci = calloc(n, sizeof *x->has_ci);
    uint8_t *span = malloc(hi - lo);
    int rc = (!x->oi || !x->ci || !x->has_oi || !x->has_ci || !span) ? -ENOMEM : 0;
    if (rc == 0) rc = plan_read(s, lo, span, hi - lo, e);
    for (int rg = 0; rc == 0 && rg < s->f->meta.nrow_groups; rg++)
        for (int k = 0; rc == 0 && k < s->nneed; k++) {
            size_t i = (size_t)rg * (size_t)s->nneed + (size_t)k;
            const pq_chunk_meta *cm = &s->f->meta.row_groups[rg].chunks[s->need[k]];
            rc = index_parse_one(cm, span, lo, &x->oi[i], &x->has_oi[i], &x->ci[i], &x->has_ci[i], e);
            if (rc) pq_err_column(e, s->f->meta.columns[s->need[k]].name);
        }
    free(span);
    return rc;
}

/* ---------------------------------------------------------------------------- pruning */

/* Statistics: true when conjunct k cannot match anything in row group rg. */
static bool stats_prune(scan_t *s, int rg, int k)
{
    const flt_pred *p = &s->filter->preds[k];
    const pq_row_group *g = &s->f->meta.row_groups[rg];
    const pq_chunk_meta *cm = &g->chunks[p->column];
    return flt_prune_stats(p, &cm->stats, cm->num_values) == FLT_CANNOT_MATCH;
}

/* Bloom filters answer only predicates made of = / IN terms (prune.h invariant 6). */
static bool bloom_applies(const flt_pred *p)
{
    for (int t = 0; t < p->nterms; t++)
        if (p->terms[t].op != FLT_OP_EQ && p->terms[t].op != FLT_OP_IN) return false;
    return p->nterms > 0 && !p->dyn;
}

/* Bloom filter: true when conjunct k's values are all absent from rg's filter. */
static int bloom_prune(scan_t *s, int rg, int k, bool *pruned, pq_err *e)
{
    *pruned = false;
    const flt_pred *p = &s->filter->preds[k];
    const pq_chunk_meta *cm = &s->f->meta.row_groups[rg].chunks[p->column];
    if (!s->o.use_bloom || !cm->has_bloom_filter || !bloom_applies(p)) return 0;
    uint64_t off = (uint64_t)cm->bloom_filter_offset, size = s->f->file->size_bytes;
    if (off >= size) return 0;
    size_t first = cm->has_bloom_filter_length && cm->bloom_filter_length > 0
                       ? (size_t)cm->bloom_filter_length
                       : PLAN_BLOOM_PROBE_BYTES;
    if (first > size - off) first = (size_t)(size - off);
    uint8_t *buf = malloc(first);
    if (!buf) return -ENOMEM;
    int rc = plan_read(s, off, buf, first, e);
    pq_bloom_header h;
    if (rc == 0) rc = pq_bloom_header_parse(buf, first, &h, e);
    if (rc == 0 && h.header_len + (size_t)h.num_bytes > first) {
        size_t total = h.header_len + (size_t)h.num_bytes;
        uint8_t *more = total <= size - off ? realloc(buf, total) : NULL;
        if (!more) rc = total <= size - off ? -ENOMEM : pq_errf(e, RINGSCAN_EFORMAT, (int64_t)off,
                                                                "bloom filter extends past the file");
        else buf = more, rc = plan_read(s, off + first, buf + first, total - first, e);
    }
    if (rc == 0)
        *pruned = flt_prune_bloom_sbbf(p, buf + h.header_len, (size_t)h.num_bytes) == FLT_CANNOT_MATCH;
    if (rc && e) e->offset = (int64_t)off;
    free(buf);
    return rc;
}

/* An offset index is used only when its pages tile the row group: first row 0, strictly
 * increasing, every first row below nrows (else the chunk is read whole). */
static bool index_rows_ok(const pq_offset_index *oi, int64_t nrows)
{
    if (oi->npages <= 0 || oi->pages[0].first_row_index != 0) return false;
    for (int pg = 1; pg < oi->npages; pg++)
        if (oi->pages[pg].first_row_index <= oi->pages[pg - 1].first_row_index ||
            oi->pages[pg].first_row_index >= nrows)
            return false;
    return true;
}

/* Whether a column's min/max order may be used for its page index. */
static bool order_usable(const scan_t *s, const pq_chunk_meta *cm, const pq_column_desc *d)
{
    return cm->stats.usable || (d->sort_order != PQ_ORDER_UNDEFINED && s->f->meta.column_orders_known);
}

/* Clears in rows0 the rows of the pages conjunct k's column index rules out. */
static int page_prune_one(scan_t *s, const pq_offset_index *oi, const pq_column_index *ci,
                          int rg, int k, scan_split *sp)
{
    const flt_pred *p = &s->filter->preds[k];
    const pq_chunk_meta *cm = &s->f->meta.row_groups[rg].chunks[p->column];
    int64_t n = sp->nrows;
    int64_t *rows = malloc(sizeof(int64_t) * (size_t)oi->npages);
    uint64_t *keep = calloc((size_t)(oi->npages + 63) / 64 + 1, sizeof(uint64_t));
    if (!rows || !keep) {
        free(rows);
        free(keep);
        return -ENOMEM;
    }
    for (int pg = 0; pg < oi->npages; pg++) {
        int64_t b = pg + 1 < oi->npages ? oi->pages[pg + 1].first_row_index : n;
        rows[pg] = b - oi->pages[pg].first_row_index;
    }
    flt_prune_pages(p, ci, order_usable(s, cm, p->desc), rows, keep, NULL);
    int rc = sp->rows0.len == 0 ? flt_mask_init(&sp->rows0, n, true) : 0;
    for (int pg = 0; rc == 0 && pg < oi->npages; pg++) {
        if ((keep[pg >> 6] >> (pg & 63)) & 1) continue;
        int64_t a = oi->pages[pg].first_row_index, b = a + rows[pg];
        if (a >= 0 && a < b && b <= n) flt_mask_set_range(&sp->rows0, a, b, false);
    }
    free(rows);
    free(keep);
    return rc;
}

/* Rows of rg kept by the page indexes of every conjunct (mask len 0 when none applies). */
static int page_prune(scan_t *s, plan_index *x, int rg, scan_split *sp)
{
    for (int k = 0; k < s->npreds; k++) {
        size_t i = (size_t)rg * (size_t)s->nneed + (size_t)s->pred_slot[k];
        if (!x->has_oi || !x->has_oi[i] || !x->has_ci[i]) continue;
        if (x->ci[i].npages != x->oi[i].npages || !index_rows_ok(&x->oi[i], sp->nrows)) continue;
        int rc = page_prune_one(s, &x->oi[i], &x->ci[i], rg, k, sp);
        if (rc) return rc;
    }
    return 0;
}

/* ----------------------------------------------------------------------------- pieces */

static bool rows_possible(const scan_split *sp, int64_t a, int64_t b)
{
    return sp->rows0.len == 0 || flt_mask_any_range(&sp->rows0, a, b);
}

/* Page pieces of one column from its offset index (dictionary first). */
static int pieces_from_index(scan_split *sp, const pq_chunk_meta *cm, const pq_offset_index *oi,
                             scan_colplan *cp)
{
    cp->pieces = calloc((size_t)oi->npages + 1, sizeof *cp->pieces);
    if (!cp->pieces) return -ENOMEM;
    int64_t first_page = oi->npages > 0 ? oi->pages[0].offset : cm->data_page_offset;
    int64_t dict = cm->has_dictionary_page_offset ? cm->dictionary_page_offset : cm->data_page_offset;
    bool any = false;
    for (int pg = 0; pg < oi->npages; pg++) {
        int64_t a = oi->pages[pg].first_row_index;
        int64_t b = pg + 1 < oi->npages ? oi->pages[pg + 1].first_row_index : sp->nrows;
        sp->pages_total++;
        if (!rows_possible(sp, a, b)) {
            sp->pages_pruned++;
            continue;
        }
        any = true;
        cp->pieces[cp->npieces++] = (scan_piece){.off = (uint64_t)oi->pages[pg].offset,
                                                 .len = (uint64_t)oi->pages[pg].compressed_page_size,
                                                 .first_row = a, .nrows = b - a};
    }
    if (any && dict > 0 && dict < first_page) {
        memmove(cp->pieces + 1, cp->pieces, sizeof *cp->pieces * (size_t)cp->npieces);
        cp->pieces[0] = (scan_piece){.off = (uint64_t)dict, .len = (uint64_t)(first_page - dict),
                                     .dict = true};
        cp->npieces++;
    }
    return 0;
}

static int plan_pieces(scan_t *s, plan_index *x, int rg, scan_split *sp, pq_err *e)
{
    sp->cols = calloc((size_t)s->nneed, sizeof *sp->cols);
    if (!sp->cols) return -ENOMEM;
    for (int k = 0; k < s->nneed; k++) {
        scan_colplan *cp = &sp->cols[k];
        cp->col = s->need[k];
        const pq_chunk_meta *cm = &s->f->meta.row_groups[rg].chunks[cp->col];
        size_t i = (size_t)rg * (size_t)s->nneed + (size_t)k;
        if (x->has_oi && x->has_oi[i] && index_rows_ok(&x->oi[i], sp->nrows)) {
            if (pieces_from_index(sp, cm, &x->oi[i], cp)) return -ENOMEM;
            continue;
        }
        uint64_t off, len;
        int rc = pq_chunk_range(cm, s->f->file->size_bytes, &off, &len, e);
        if (rc) {
            pq_err_column(e, s->f->meta.columns[cp->col].name);
            return rc;
        }
        cp->pieces = calloc(1, sizeof *cp->pieces);
        if (!cp->pieces) return -ENOMEM;
        cp->pieces[0] = (scan_piece){.off = off, .len = len, .nrows = sp->nrows, .whole_chunk = true};
        cp->npieces = 1;
    }
    return 0;
}

/* Decides one row group: pruned (with a reason) or its pieces. */
static int plan_group(scan_t *s, plan_index *x, int rg, pq_err *e)
{
    scan_split *sp = &s->splits[rg];
    sp->rg = rg;
    sp->nrows = s->f->meta.row_groups[rg].num_rows;
    const char *why = sp->nrows == 0 ? "empty" : NULL;
    int rc = 0;
    for (int k = 0; !why && k < s->npreds; k++)
        if (stats_prune(s, rg, k)) why = "statistics";
    if (!why && (rc = page_prune(s, x, rg, sp)) == 0 && sp->rows0.len && flt_mask_all_false(&sp->rows0))
        why = "page index";
    for (int k = 0; rc == 0 && !why && k < s->npreds; k++) {
        bool out = false;
        rc = bloom_prune(s, rg, k, &out, e);
        if (out) why = "bloom filter";
    }
    if (rc) return rc;
    if (why) {
        sp->pruned = true;
        s->stats.row_groups_pruned++;
        if (sp->rows0.len) flt_mask_free(&sp->rows0);
        scan_explainf(s, "  split %d (row group %d, %lld rows): pruned by %s\n", rg, rg,
                      (long long)sp->nrows, why);
        return 0;
    }
    rc = plan_pieces(s, x, rg, sp, e);
    s->stats.pages_total += sp->pages_total;
    s->stats.pages_pruned += sp->pages_pruned;
    if (rc == 0)
        scan_explainf(s, "  split %d (row group %d, %lld rows): read, pages pruned %d of %d\n", rg,
                      rg, (long long)sp->nrows, sp->pages_pruned, sp->pages_total);
    return rc;
}

int scan_plan(scan_t *s, pq_err *e)
{
    s->nsplits = s->f->meta.nrow_groups;
    s->splits = calloc((size_t)s->nsplits + 1, sizeof *s->splits);
    if (!s->splits) return -ENOMEM;
    s->stats.row_groups_total = s->nsplits;
    s->stats.reads = (uint64_t)s->f->tail_reads;
    plan_index x;
    int rc = index_load(s, &x, e);
    for (int rg = 0; rc == 0 && rg < s->nsplits; rg++) rc = plan_group(s, &x, rg, e);
    index_free(s, &x);
    return rc;
}

void scan_plan_free(scan_t *s)
{
    for (int i = 0; s->splits && i < s->nsplits; i++) {
        scan_split *sp = &s->splits[i];
        for (int k = 0; sp->cols && k < s->nneed; k++) free(sp->cols[k].pieces);
        free(sp->cols);
        flt_mask_free(&sp->rows0);
    }
    free(s->splits);
    s->splits = NULL;
}
