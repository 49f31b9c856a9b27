/* scan/plan.c: splits (a row group, or page-aligned row ranges of a large one) and static
 * pruning before any data read.
 *
 * Pruning order per row group: chunk statistics (no I/O), page index (one read covering every
 * needed index of the file, done once - none when the footer's tail read brought the index:
 * pqf_index_bytes), bloom filters (one read per probed filter, only for
 * = / IN conjuncts on row groups the cheaper tests kept). What survives is, per needed
 * column, the list of byte ranges the split may read: the whole chunk, or with an offset
 * index the dictionary page and the data pages whose rows are still possible.
 *
 * Invariants: planning reads only metadata (indexes, blooms), synchronously, and counts them
 * in stats.plan_reads; a split marked pruned has no pieces; rows0 has len 0 (all rows) or
 * len == nrows. */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "filter/prune.h"
#include "common/fail.h"
#include "format/bloom.h"
#include "scan/scan_impl.h"

enum { PLAN_BLOOM_PROBE_BYTES = 256, PLAN_INDEX_MAX_BYTES = 256 << 20 };

/* Reads [off, +len) for planning (counted as a plan read), or copies it from the page index
 * bytes the footer read brought (pqf_index_bytes; no read, so nothing counted: plan_bytes is
 * bytes read, and bytes_read - plan_bytes the data bytes). */
static int plan_read(scan_t *s, uint64_t off, void *buf, size_t len, pq_err *e)
{
    if (pqf_index_bytes(s->f, off, buf, len)) return 0;
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
    /* after a failed allocation some arrays are NULL, and then nothing was parsed */
    for (int i = 0; x->has_oi && x->has_ci && i < n; i++) {
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
static int index_parse_one(const scan_t *s, int rg, const pq_chunk_meta *cm, const uint8_t *span,
                           uint64_t lo, pq_offset_index *oi, bool *has_oi, pq_column_index *ci,
                           bool *has_ci, pq_err *e)
{
    if (cm->has_offset_index && cm->offset_index_length > 0) {
        pq_err ignored = {.offset = -1};
        int rc = pq_offset_index_parse(span + ((uint64_t)cm->offset_index_offset - lo),
                                       (size_t)cm->offset_index_length, oi, &ignored);
        if (rc == -ENOMEM) return pq_errf(e, rc, -1, "out of memory");
        uint64_t off, len;
        *has_oi = rc == 0 && pq_chunk_range(cm, s->f->file->size_bytes, &off, &len, NULL) == 0 &&
                  pq_offset_index_valid(oi, s->f->meta.row_groups[rg].num_rows, off, len);
        if (rc == 0 && !*has_oi) pq_offset_index_free(oi);
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

/* Whether a row group is large enough to be cut into splits (then its offset indexes are
 * wanted even without a filter). */
static bool any_cut(const scan_t *s)
{
    for (int rg = 0; s->o.split_rows > 0 && rg < s->f->meta.nrow_groups; rg++)
        if (s->f->meta.row_groups[rg].num_rows >= 2 * s->o.split_rows) return true;
    return false;
}

static int index_load(scan_t *s, plan_index *x, pq_err *e)
{
    memset(x, 0, sizeof *x);
    uint64_t lo, hi;
    if (!s->o.use_page_index || (s->npreds == 0 && !any_cut(s)) || !index_span(s, &lo, &hi))
        return 0;
    size_t n = (size_t)s->f->meta.nrow_groups * (size_t)s->nneed;
    x->oi = fail_calloc(n, sizeof *x->oi);
    x->ci = fail_calloc(n, sizeof *x->ci);
    x->has_oi = fail_calloc(n, sizeof *x->has_oi);
    x->has_ci = fail_calloc(n, sizeof *x->has_ci);
    uint8_t *span = fail_malloc(hi - lo);
    int rc = (!x->oi || !x->ci || !x->has_oi || !x->has_ci || !span) ? -ENOMEM : 0;
    if (rc == 0) rc = plan_read(s, lo, span, hi - lo, e);
    for (int rg = 0; rc == 0 && rg < s->f->meta.nrow_groups; rg++)
        for (int k = 0; rc == 0 && k < s->nneed; k++) {
            size_t i = (size_t)rg * (size_t)s->nneed + (size_t)k;
            const pq_chunk_meta *cm = &s->f->meta.row_groups[rg].chunks[s->need[k]];
            rc = index_parse_one(s, rg, cm, span, lo, &x->oi[i], &x->has_oi[i], &x->ci[i],
                                 &x->has_ci[i], e);
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
    uint8_t *buf = fail_malloc(first);
    if (!buf) return -ENOMEM;
    int rc = plan_read(s, off, buf, first, e);
    pq_bloom_header h;
    if (rc == 0) rc = pq_bloom_header_parse(buf, first, &h, e);
    if (rc == 0 && h.header_len + (size_t)h.num_bytes > first) {
        size_t total = h.header_len + (size_t)h.num_bytes;
        uint8_t *more = total <= size - off ? fail_realloc(buf, total) : NULL;
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

/* Whether a column's min/max order may be used for its page index. */
static bool order_usable(const scan_t *s, const pq_chunk_meta *cm, const pq_column_desc *d)
{
    return cm->stats.usable || (d->sort_order != PQ_ORDER_UNDEFINED && s->f->meta.column_orders_known);
}

/* Clears in rows (a mask of the row group's nrows rows) the rows of the pages conjunct k's
 * column index rules out. */
static int page_prune_one(scan_t *s, const pq_offset_index *oi, const pq_column_index *ci,
                          int rg, int k, int64_t n, flt_mask *rows)
{
    const flt_pred *p = &s->filter->preds[k];
    const pq_chunk_meta *cm = &s->f->meta.row_groups[rg].chunks[p->column];
    int64_t *nr = fail_malloc(sizeof(int64_t) * (size_t)oi->npages);
    uint64_t *keep = fail_calloc((size_t)(oi->npages + 63) / 64 + 1, sizeof(uint64_t));
    if (!nr || !keep) {
        free(nr);
        free(keep);
        return -ENOMEM;
    }
    for (int pg = 0; pg < oi->npages; pg++) {
        int64_t b = pg + 1 < oi->npages ? oi->pages[pg + 1].first_row_index : n;
        nr[pg] = b - oi->pages[pg].first_row_index;
    }
    flt_prune_pages(p, ci, order_usable(s, cm, p->desc), nr, keep, NULL);
    int rc = rows->len == 0 ? flt_mask_init(rows, n, true) : 0;
    for (int pg = 0; rc == 0 && pg < oi->npages; pg++) {
        if ((keep[pg >> 6] >> (pg & 63)) & 1) continue;
        int64_t a = oi->pages[pg].first_row_index, b = a + nr[pg];
        if (a >= 0 && a < b && b <= n) flt_mask_set_range(rows, a, b, false);
    }
    free(nr);
    free(keep);
    return rc;
}

/* Rows of rg kept by the page indexes of every conjunct (mask len 0 when none applies). */
static int page_prune(scan_t *s, plan_index *x, int rg, int64_t n, flt_mask *rows)
{
    for (int k = 0; k < s->npreds; k++) {
        size_t i = (size_t)rg * (size_t)s->nneed + (size_t)s->pred_slot[k];
        if (!x->has_oi || !x->has_oi[i] || !x->has_ci[i]) continue;
        if (x->ci[i].npages != x->oi[i].npages) continue;
        int rc = page_prune_one(s, &x->oi[i], &x->ci[i], rg, k, n, rows);
        if (rc) return rc;
    }
    return 0;
}

/* The usable offset index of needed slot k in rg, or NULL. */
static const pq_offset_index *usable_oi(const scan_t *s, const plan_index *x, int rg, int k)
{
    size_t i = (size_t)rg * (size_t)s->nneed + (size_t)k;
    return x->has_oi && x->has_oi[i] ? &x->oi[i] : NULL; /* pq_offset_index_valid at load */
}

/* Rows [a, b) of page pg of an offset index over a row group of n rows. */
static void page_rows(const pq_offset_index *oi, int pg, int64_t n, int64_t *a, int64_t *b)
{
    *a = oi->pages[pg].first_row_index;
    *b = pg + 1 < oi->npages ? oi->pages[pg + 1].first_row_index : n;
}

/* Counts (in stats and for --explain) the pages of the needed columns with an offset index,
 * and those rows (the row group's page-index mask, len 0 = all) rules out. */
static void count_pages(scan_t *s, plan_index *x, int rg, const flt_mask *rows, int64_t *total,
                        int64_t *pruned)
{
    int64_t n = s->f->meta.row_groups[rg].num_rows;
    *total = *pruned = 0;
    for (int k = 0; k < s->nneed; k++) {
        const pq_offset_index *oi = usable_oi(s, x, rg, k);
        for (int pg = 0; oi && pg < oi->npages; pg++) {
            int64_t a, b;
            page_rows(oi, pg, n, &a, &b);
            ++*total;
            *pruned += rows->len != 0 && !flt_mask_any_range(rows, a, b);
        }
    }
    s->stats.pages_total += *total;
    s->stats.pages_pruned += *pruned;
}

/* ----------------------------------------------------------------------------- pieces */

/* Page pieces of one column from its offset index: the pages overlapping the split's rows
 * that rows0 still allows, the dictionary first. */
static int pieces_from_index(const scan_split *sp, const pq_chunk_meta *cm,
                             const pq_offset_index *oi, int64_t rg_rows, scan_colplan *cp)
{
    cp->pieces = fail_calloc((size_t)oi->npages + 1, sizeof *cp->pieces);
    if (!cp->pieces) return -ENOMEM;
    int64_t first_page = oi->npages > 0 ? oi->pages[0].offset : cm->data_page_offset;
    int64_t dict = cm->has_dictionary_page_offset ? cm->dictionary_page_offset : cm->data_page_offset;
    int64_t lo = sp->row_lo, hi = sp->row_lo + sp->nrows;
    for (int pg = 0; pg < oi->npages; pg++) {
        int64_t a, b;
        page_rows(oi, pg, rg_rows, &a, &b);
        if (b <= lo || a >= hi) continue;
        int64_t ca = a < lo ? lo : a, cb = b > hi ? hi : b; /* clipped to the split */
        if (sp->rows0.len && !flt_mask_any_range(&sp->rows0, ca - lo, cb - lo)) continue;
        cp->pieces[cp->npieces++] = (scan_piece){.off = (uint64_t)oi->pages[pg].offset,
                                                 .len = (uint64_t)oi->pages[pg].compressed_page_size,
                                                 .first_row = a - lo, .nrows = b - a};
    }
    if (cp->npieces && dict > 0 && dict < first_page) {
        memmove(cp->pieces + 1, cp->pieces, sizeof *cp->pieces * (size_t)cp->npieces);
        cp->pieces[0] = (scan_piece){.off = (uint64_t)dict, .len = (uint64_t)(first_page - dict),
                                     .dict = true};
        cp->npieces++;
    }
    return 0;
}

static int plan_pieces(scan_t *s, plan_index *x, scan_split *sp, pq_err *e)
{
    int64_t rg_rows = s->f->meta.row_groups[sp->rg].num_rows;
    sp->cols = fail_calloc((size_t)s->nneed, sizeof *sp->cols);
    if (!sp->cols) return -ENOMEM;
    for (int k = 0; k < s->nneed; k++) {
        scan_colplan *cp = &sp->cols[k];
        cp->col = s->need[k];
        const pq_chunk_meta *cm = &s->f->meta.row_groups[sp->rg].chunks[cp->col];
        const pq_offset_index *oi = usable_oi(s, x, sp->rg, k);
        if (oi) {
            if (pieces_from_index(sp, cm, oi, rg_rows, cp)) return -ENOMEM;
            continue;
        }
        assert(sp->row_lo == 0 && sp->nrows == rg_rows); /* only indexed groups are cut */
        uint64_t off, len;
        int rc = pq_chunk_range(cm, s->f->file->size_bytes, &off, &len, e);
        if (rc) {
            pq_err_column(e, s->f->meta.columns[cp->col].name);
            return rc;
        }
        cp->pieces = fail_calloc(1, sizeof *cp->pieces);
        if (!cp->pieces) return -ENOMEM;
        cp->pieces[0] = (scan_piece){.off = off, .len = len, .nrows = sp->nrows, .whole_chunk = true};
        cp->npieces = 1;
    }
    return 0;
}

/* ----------------------------------------------------------------------------- splits */

/* A new zeroed split at the end of s->splits (grown as needed); NULL with *rc = -ENOMEM, or
 * RINGSCAN_ELIMIT past SCAN_MAX_SPLITS (e filled). */
static scan_split *split_add(scan_t *s, int *cap, int *rc, pq_err *e)
{
    *rc = -ENOMEM;
    if (s->nsplits == SCAN_MAX_SPLITS) {
        *rc = pq_errf(e, RINGSCAN_ELIMIT, -1, "more than %d splits", SCAN_MAX_SPLITS);
        return NULL;
    }
    if (s->nsplits == *cap) {
        int ncap = *cap < 16 ? 16 : (*cap > SCAN_MAX_SPLITS / 2 ? SCAN_MAX_SPLITS : *cap * 2);
        scan_split *ns = fail_realloc(s->splits, sizeof *ns * ((size_t)ncap + 1));
        if (!ns) return NULL;
        s->splits = ns;
        *cap = ncap;
    }
    scan_split *sp = &s->splits[s->nsplits++];
    memset(sp, 0, sizeof *sp);
    *rc = 0;
    return sp;
}

/* Row boundaries cutting rg into splits of about split_rows rows: cuts[0] = 0 < ... <
 * cuts[n] = rows, each inner cut the first row of a page of the first needed column (pages
 * of other columns may straddle it). Returns n >= 1; *cuts is malloc'd. */
_Static_assert(FLT_MASK_MAX_LEN >= PQ_MAX_ROW_GROUP_ROWS, "a row group's mask fits a flt_mask");

static int plan_cuts(scan_t *s, plan_index *x, int rg, int64_t **cuts)
{
    int64_t n = s->f->meta.row_groups[rg].num_rows, target = s->o.split_rows;
    assert(n >= 0 && n <= PQ_MAX_ROW_GROUP_ROWS); /* pq_file_meta_check */
    int64_t want = target > 0 && n / 2 >= target ? (n - 1) / target + 1 : 1;
    for (int k = 0; want > 1 && k < s->nneed; k++)
        if (!usable_oi(s, x, rg, k)) want = 1;
    const pq_offset_index *oi = want > 1 ? usable_oi(s, x, rg, 0) : NULL;
    /* Cuts fall on distinct page starts: at most one per page, plus 0 and n. */
    int64_t ncuts = oi && oi->npages < want ? oi->npages : want;
    *cuts = fail_malloc(sizeof(int64_t) * ((size_t)ncuts + 1));
    if (!*cuts) return -ENOMEM;
    (*cuts)[0] = 0;
    int m = 0;
    for (int pg = 1, c = 1; oi && c < want; c++) { /* the first page at or past c/want of n */
        int64_t goal = n * c / want;
        while (pg < oi->npages && oi->pages[pg].first_row_index < goal) pg++;
        if (pg == oi->npages) break;
        if (oi->pages[pg].first_row_index > (*cuts)[m]) { /* < n: pq_offset_index_valid */
            assert(m + 1 < ncuts);
            (*cuts)[++m] = oi->pages[pg].first_row_index;
        }
    }
    assert(m < ncuts);
    (*cuts)[++m] = n;
    return m;
}

/* Splits rows [lo, hi) of rg; rows is the row group's page-index mask (len 0 = all rows). */
static int plan_range(scan_t *s, plan_index *x, int rg, int64_t lo, int64_t hi,
                      const flt_mask *rows, int *cap, pq_err *e)
{
    int rc;
    scan_split *sp = split_add(s, cap, &rc, e);
    if (!sp) return rc;
    *sp = (scan_split){.rg = rg, .row_lo = lo, .nrows = hi - lo};
    rc = rows->len ? flt_mask_slice(&sp->rows0, rows, lo, hi) : 0;
    if (rc) return rc;
    if (sp->rows0.len && flt_mask_all_false(&sp->rows0)) {
        sp->pruned = true;
        flt_mask_free(&sp->rows0);
        scan_explainf(s, "  split %d (row group %d, rows %lld..%lld): pruned by page index\n",
                      s->nsplits - 1, rg, (long long)lo, (long long)hi);
        return 0;
    }
    rc = plan_pieces(s, x, sp, e);
    if (rc == 0)
        scan_explainf(s, "  split %d (row group %d, rows %lld..%lld): read\n", s->nsplits - 1, rg,
                      (long long)lo, (long long)hi);
    return rc;
}

/* Decides one row group: pruned whole (with a reason), or cut into splits with their
 * pieces. */
static int plan_group(scan_t *s, plan_index *x, int rg, int *cap, pq_err *e)
{
    int64_t n = s->f->meta.row_groups[rg].num_rows;
    flt_mask rows = {0};
    const char *why = n == 0 ? "empty" : NULL;
    int rc = 0;
    for (int k = 0; !why && k < s->npreds; k++)
        if (stats_prune(s, rg, k)) why = "statistics";
    if (!why && (rc = page_prune(s, x, rg, n, &rows)) == 0 && rows.len && flt_mask_all_false(&rows))
        why = "page index";
    for (int k = 0; rc == 0 && !why && k < s->npreds; k++) {
        bool out = false;
        rc = bloom_prune(s, rg, k, &out, e);
        if (out) why = "bloom filter";
    }
    if (rc == 0 && why) {
        scan_split *sp = split_add(s, cap, &rc, e);
        if (sp) *sp = (scan_split){.rg = rg, .nrows = n, .pruned = true};
        s->stats.row_groups_pruned++;
        scan_explainf(s, "  split %d (row group %d, %lld rows): pruned by %s\n", s->nsplits - 1,
                      rg, (long long)n, why);
    } else if (rc == 0) {
        int64_t total, pruned, *cuts = NULL;
        count_pages(s, x, rg, &rows, &total, &pruned);
        int m = plan_cuts(s, x, rg, &cuts);
        rc = m < 0 ? m : 0;
        if (rc == 0)
            scan_explainf(s, "  row group %d (%lld rows): pages pruned %lld of %lld, %d split%s\n",
                          rg, (long long)n, (long long)pruned, (long long)total, m, m > 1 ? "s" : "");
        for (int i = 0; rc == 0 && i < m; i++) rc = plan_range(s, x, rg, cuts[i], cuts[i + 1], &rows, cap, e);
        free(cuts);
    }
    flt_mask_free(&rows);
    return rc;
}

/* Marks the splits that share a row group and makes the shared dictionary slots. */
static int plan_shared(scan_t *s)
{
    int ng = s->f->meta.nrow_groups;
    if (s->nsplits <= ng) return 0; /* no row group was cut */
    s->rg_left = fail_calloc((size_t)ng + 1, sizeof *s->rg_left);
    s->leader_live = fail_calloc((size_t)ng + 1, sizeof *s->leader_live);
    s->dicts = fail_calloc((size_t)ng * (size_t)s->nneed + 1, sizeof *s->dicts);
    bool *leader_seen = fail_calloc((size_t)ng + 1, sizeof(bool));
    if (!s->rg_left || !s->leader_live || !s->dicts || !leader_seen) {
        free(leader_seen);
        return -ENOMEM;
    }
    for (int i = 0; i < s->nsplits; i++)
        if (!s->splits[i].pruned) atomic_fetch_add(&s->rg_left[s->splits[i].rg], 1);
    for (int i = 0; i < s->nsplits; i++) {
        scan_split *sp = &s->splits[i];
        sp->shares_rg = !sp->pruned && atomic_load(&s->rg_left[sp->rg]) > 1;
        sp->leader = sp->shares_rg && !leader_seen[sp->rg];
        if (sp->leader) leader_seen[sp->rg] = true;
    }
    free(leader_seen);
    return 0;
}

/* Frees the shared dictionaries of row group rg (all when rg < 0). */
void scan_shared_dicts_free(scan_t *s, int rg)
{
    int lo = rg < 0 ? 0 : rg, hi = rg < 0 ? s->f->meta.nrow_groups : rg + 1;
    for (int g = lo; s->dicts && g < hi; g++)
        for (int k = 0; k < s->nneed; k++) {
            pq_vec *v = atomic_exchange(&s->dicts[(size_t)g * (size_t)s->nneed + (size_t)k], NULL);
            if (v) pq_vec_free(v);
            free(v);
        }
}

/* Chance that a conjunct's mask is all-false on split sp when its row group's statistics
 * estimate a share sel of rows matching it (flt_estimate_stats; < 0: they cannot say, 1.0):
 * none of the split's rows (after the page index) matching. */
static double split_prior(const scan_split *sp, double sel)
{
    if (sel < 0) return 1.0;
    if (sel >= 1) return 0.0;
    double rows = (double)(sp->rows0.len ? flt_mask_popcount(&sp->rows0) : sp->nrows);
    double q = rows > 0 ? exp(rows * log1p(-sel)) : 1.0;
    return q >= 0 && q <= 1 ? q : 1.0; /* a count or share read from the file: bound it */
}

/* Sets conj_prior[k]: the mean of split_prior over the live splits (1.0 when none), the
 * estimate made once per row group. The adaptive policy starts from it instead of assuming
 * the worst, so a first split whose conjuncts its statistics show to keep rows is read in one
 * go, not conjunct by conjunct. */
static void plan_priors(scan_t *s)
{
    for (int k = 0; k < s->npreds; k++) {
        const flt_pred *p = &s->filter->preds[k];
        double sum = 0, sel = -1;
        int n = 0, rg = -1;
        for (int i = 0; i < s->nsplits; i++) {
            const scan_split *sp = &s->splits[i];
            if (sp->pruned) continue;
            if (sp->rg != rg) {
                const pq_chunk_meta *cm = &s->f->meta.row_groups[sp->rg].chunks[p->column];
                rg = sp->rg;
                sel = flt_estimate_stats(p, &cm->stats, cm->num_values);
            }
            sum += split_prior(sp, sel), n++;
        }
        s->conj_prior[k] = n ? sum / n : 1.0;
        assert(s->conj_prior[k] >= 0 && s->conj_prior[k] <= 1);
        scan_explainf(s, "conjunct #%d %s: chance all-false on a split from statistics %.3f\n",
                      k + 1, s->filter->preds[k].desc->name, s->conj_prior[k]);
    }
}

int scan_plan(scan_t *s, pq_err *e)
{
    int cap = 0;
    s->nsplits = 0;
    s->splits = NULL;
    s->stats.row_groups_total = s->f->meta.nrow_groups;
    s->stats.reads = (uint64_t)s->f->tail_reads;
    plan_index x;
    int rc = index_load(s, &x, e);
    for (int rg = 0; rc == 0 && rg < s->f->meta.nrow_groups; rg++) rc = plan_group(s, &x, rg, &cap, e);
    index_free(s, &x);
    if (rc == 0) rc = plan_shared(s);
    if (rc == 0) plan_priors(s);
    return rc ? rc : scan_units_plan(s);
}

void scan_plan_free(scan_t *s)
{
    scan_units_free(s);
    scan_shared_dicts_free(s, -1);
    free(s->dicts);
    free(s->rg_left);
    free(s->leader_live);
    s->dicts = NULL;
    s->rg_left = NULL;
    s->leader_live = NULL;
    for (int i = 0; s->splits && i < s->nsplits; i++) {
        scan_split *sp = &s->splits[i];
        for (int k = 0; sp->cols && k < s->nneed; k++) free(sp->cols[k].pieces);
        free(sp->cols);
        flt_mask_free(&sp->rows0);
    }
    free(s->splits);
    s->splits = NULL;
}
