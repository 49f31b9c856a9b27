/* format/column.c: decoding the body of one page of a column chunk (see column.h): the
 * dictionary page into the reader, a data page's definition levels, values and nulls into a
 * pq_vec as a pq_page_req asks. Framing (headers, CRCs, decompression, the page loop) is
 * format/page_walk.c's.
 *
 * A data page is decoded in three steps: definition levels into r->levels (counting the
 * non-null values), the non-null values appended densely to the output by the encoding's
 * decoder, then a backward in-place scatter that spreads them over the page's rows and
 * zeroes the null slots. Decoding densely first keeps every decoder free of null logic.
 *
 * Invariants (besides column.h's):
 *  1. Levels are decoded once per page, before the request picks a path; every path reads
 *     them from r->levels.
 *  2. The request is resolved once per page into a data_req (values, selected values or
 *     indices); nothing in the reader records what one call asked for. */
#include "format/column.h"
#include "format/column_priv.h"
#include "common/bits.h"
#include "common/bufpool.h"
#include "common/fail.h"

#include <assert.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "format/codec.h"
#include "format/column_nested.h"
#include "format/encoding.h"

void pq_col_limits_default(pq_col_limits *l)
{
    l->max_page_bytes = (int64_t)1 << 30;
    l->max_page_values = (int64_t)64 << 20;
    l->max_dict_values = (int64_t)64 << 20;
    l->max_decompressed_bytes = (int64_t)64 << 30;
    l->max_scan_decompressed_bytes = (int64_t)256 << 30;
    l->verify_crc = false;
}

void pq_colr_init(pq_col_reader *r, const pq_column_desc *col, pq_codec codec,
                  const pq_col_limits *limits)
{
    assert(col && (col->nested || (col->max_rep_level == 0 && col->max_def_level <= 1)));
    memset(r, 0, sizeof *r);
    r->col = col;
    r->codec = codec;
    if (limits) r->limits = *limits;
    else pq_col_limits_default(&r->limits);
    pq_vec_init(&r->dict, col->physical, col->type_length);
    pq_vec_init(&r->page, col->physical, col->type_length);
}

void pq_colr_free(pq_col_reader *r)
{
    pq_vec_free(&r->dict);
    pq_vec_free(&r->page);
    bufpool_give(r->idx, r->idx_cap); /* pq_colr_reserve's buffers: pooled sizes kept */
    bufpool_give(r->sel_buf, r->sel_cap);
    bufpool_give(r->range_buf, r->range_cap);
    r->idx = r->sel_buf = r->range_buf = NULL;
    r->idx_cap = r->sel_cap = r->range_cap = 0;
    bufpool_give(r->scratch, r->scratch_cap);
    bufpool_give(r->levels, r->levels_cap);
    r->scratch = NULL;
    r->levels = NULL;
    r->scratch_cap = r->levels_cap = 0;
    r->has_dict = false;
    for (int32_t i = 0; i < r->nest_nkeep; i++) pq_nest_leaf_free(&r->nest_keep[i]);
    for (int32_t i = 0; r->nest_stream && i < r->nest_nkeep; i++)
        pq_nest_stream_free(&r->nest_stream[i]);
    free(r->nest_stream);
    r->nest_stream = NULL;
    free(r->nest_keep);
    r->nest_keep = NULL;
    r->nest_nkeep = 0;
}

int pq_colr_reserve(void **buf, size_t *cap, size_t n)
{
    if (n <= *cap) return 0;
    size_t c = *cap ? *cap : 4096;
    while (c < n) c *= 2;
    void *p = bufpool_take(c); /* a buffer an earlier reader (or scan) gave back */
    if (!p && !(p = fail_malloc(c))) return -ENOMEM;
    bufpool_give(*buf, *cap);
    *buf = p;
    *cap = c;
    return 0;
}

/* The dictionary data pages decode against: the shared one, else the reader's own. */
static const pq_vec *dict_of(const pq_col_reader *r)
{
    return r->shared_dict ? r->shared_dict : (r->has_dict ? &r->dict : NULL);
}

/* A decoder that stopped short of the bytes the page gives it: the page's counts and its data
 * disagree, which is corruption (a flipped bit in a count, a length or a run header). */
static int err_leftover(pq_err *e, const char *what, size_t used, size_t len, int64_t n)
{
    assert(used != len);
    return pq_errf(e, RINGSCAN_EFORMAT, -1, "%s: the page's %lld values end at byte %zu of %zu",
                   what, (long long)n, used, len);
}

/* ---------------------------------------------------------------------- dictionary page */

int pq_colr_dict_reset(pq_col_reader *r, const pq_page_header *h, int64_t off, pq_err *e)
{
    const char *col = r->col->name;
    if (h->encoding != PQ_ENC_PLAIN && h->encoding != PQ_ENC_PLAIN_DICTIONARY)
        return pq_errf_col(e, RINGSCAN_EUNSUPPORTED, off, col, "dictionary page encoding is not PLAIN");
    if (h->num_values < 0 || h->num_values > r->limits.max_dict_values)
        return pq_errf_col(e, RINGSCAN_ELIMIT, off, col,
                           "limit max_dict_values=%lld exceeded: dictionary of %d values",
                           (long long)r->limits.max_dict_values, h->num_values);
    pq_vec_clear(&r->dict);
    r->has_dict = false;
    r->shared_dict = NULL;
    r->dict_loads++;
    return 0;
}

int pq_colr_dict_page(pq_col_reader *r, const pq_page_header *h, const uint8_t *body, size_t n,
                      int64_t off, pq_err *e)
{
    int rc = pq_colr_dict_reset(r, h, off, e);
    if (rc) return rc;
    rc = pq_dict_decode_page(body, n, h->num_values, &r->dict, e);
    if (rc) return pq_err_place(e, rc, off, r->col->name);
    r->has_dict = true;
    return 0;
}

/* --------------------------------------------------------------------------- levels */

/* Decodes n definition levels (max level 1) into r->levels; *nonnull = count of ones. */
static int def_levels(pq_col_reader *r, const uint8_t *p, size_t len, int64_t n, bool v1,
                      pq_encoding enc, size_t *used, int64_t *nonnull, pq_err *e)
{
    int rc = pq_colr_reserve((void **)&r->levels, &r->levels_cap, (size_t)n * sizeof(uint32_t) + 4);
    if (rc) return rc;
    if (v1 && enc == PQ_ENC_BIT_PACKED) {
        rc = pq_bitpacked_msb_decode(p, len, 1, r->levels, n, used, e);
    } else {
        pq_rle_dec d;
        rc = v1 ? pq_rle_init_v1(&d, p, len, 1, used, e) : pq_rle_init(&d, p, len, 1, e);
        if (!v1) *used = len;
        if (rc == 0) rc = pq_rle_get(&d, r->levels, n);
        if (rc == 0) rc = pq_rle_finish(&d); /* the runs cover exactly n levels */
    }
    if (rc) return rc;
    int64_t ones = 0;
    for (int64_t i = 0; i < n; i++) {
        if (r->levels[i] > 1) return pq_errf(e, RINGSCAN_EFORMAT, -1, "definition level %u > 1",
                                            r->levels[i]);
        ones += r->levels[i];
    }
    *nonnull = ones;
    return 0;
}

/* --------------------------------------------------------------------------- values */

static int bool_rle(const uint8_t *p, size_t len, int64_t n, pq_vec *out, pq_err *e)
{
    pq_rle_dec d;
    size_t used;
    int rc = pq_rle_init_v1(&d, p, len, 1, &used, e);
    if (rc) return rc;
    rc = pq_vec_reserve(out, n, 0);
    if (rc) return rc;
    uint32_t tmp[256];
    for (int64_t done = 0; done < n;) {
        int64_t k = n - done < 256 ? n - done : 256;
        rc = pq_rle_get(&d, tmp, k);
        if (rc) return rc;
        for (int64_t i = 0; i < k; i++) pq_bit_set(out->values, out->length + done + i, tmp[i] & 1);
        done += k;
    }
    if ((rc = pq_rle_finish(&d))) return rc;
    if (used != len) return err_leftover(e, "RLE BOOLEAN", used, len, n);
    out->length += n;
    return 0;
}

static int delta_ints(const uint8_t *p, size_t len, int64_t n, pq_vec *out, pq_err *e)
{
    pq_delta_dec d;
    int64_t base = out->length;
    int rc = pq_delta_init(&d, p, len, out->type == PQ_INT32, n, e); /* total <= n */
    if (rc == 0) rc = pq_delta_decode(&d, n, out);                     /* total >= n */
    if (rc == 0 && pq_delta_used(&d) != len) {
        out->length = base;
        return err_leftover(e, "DELTA_BINARY_PACKED", pq_delta_used(&d), len, n);
    }
    return rc;
}

static int delta_bytes(const uint8_t *p, size_t len, int64_t n, bool prefixed, pq_vec *out,
                       pq_err *e)
{
    pq_dba_dec d;
    const char *what = prefixed ? "DELTA_BYTE_ARRAY" : "DELTA_LENGTH_BYTE_ARRAY";
    int64_t base = out->length, data0 = out->data_len;
    int rc = prefixed ? pq_dba_init(&d, p, len, n, e) : pq_dlba_init(&d, p, len, n, e);
    if (rc == 0) rc = pq_dba_next(&d, n, out); /* init: count <= n; next: count >= n */
    if (rc == 0 && d.data != d.end) {
        rc = err_leftover(e, what, (size_t)(d.data - d.base), len, n);
        out->length = base, out->data_len = data0;
    }
    pq_dba_free(&d);
    return rc;
}

/* Decodes exactly nn dictionary indices (an RLE_DICTIONARY body) into idx, each checked
 * against the dictionary's dict_len values. */
static int dict_index_run(const uint8_t *p, size_t len, int64_t nn, int64_t dict_len,
                          uint32_t *idx, pq_err *e)
{
    pq_rle_dec d;
    int rc = pq_rle_init_dict(&d, p, len, e);
    if (rc) return rc;
    rc = pq_rle_get(&d, idx, nn);
    if (rc) return pq_errf(e, rc, -1, "dictionary indices end before the page's %lld values", (long long)nn);
    if ((rc = pq_rle_finish(&d))) return rc;
    uint32_t max = 0;
    for (int64_t i = 0; i < nn; i++) max = idx[i] > max ? idx[i] : max;
    if (nn > 0 && (int64_t)max >= dict_len)
        return pq_errf(e, RINGSCAN_EFORMAT, -1,
                       "dictionary index %u out of range (dictionary has %lld values)", max,
                       (long long)dict_len);
    return 0;
}

/* Appends nn dictionary indices (an RLE_DICTIONARY body) to out, an INT32 vector with room. */
static int dict_indices(const uint8_t *p, size_t len, int64_t nn, int64_t dict_len, pq_vec *out,
                        pq_err *e)
{
    assert(out->type == PQ_INT32 && out->values_cap >= (out->length + nn) * 4);
    if (nn == 0) return 0; /* an all-null page: values may still be unallocated */
    uint32_t *idx = (uint32_t *)(void *)(out->values + (size_t)out->length * 4);
    int rc = dict_index_run(p, len, nn, dict_len, idx, e);
    if (rc) return rc;
    out->length += nn;
    return 0;
}

/* PLAIN values: exactly the page's value bytes (leftover bytes mean a corrupt count). */
static int plain_values(const uint8_t *p, size_t len, int64_t nn, pq_vec *out, pq_err *e)
{
    int64_t base = out->length, data0 = out->data_len;
    size_t used = 0;
    int rc = pq_plain_decode(p, len, nn, out, &used, e);
    if (rc == 0 && used != len) {
        out->length = base;
        if (out->type == PQ_BYTE_ARRAY) out->data_len = data0;
        return err_leftover(e, "PLAIN", used, len, nn);
    }
    return rc;
}

/* Appends nn non-null values encoded with enc to out. */
static int values(pq_col_reader *r, pq_encoding enc, const uint8_t *p, size_t len, int64_t nn,
                  pq_vec *out, pq_err *e)
{
    pq_physical t = r->col->physical;
    switch (enc) {
    case PQ_ENC_PLAIN: return plain_values(p, len, nn, out, e);
    case PQ_ENC_PLAIN_DICTIONARY:
    case PQ_ENC_RLE_DICTIONARY: {
        const pq_vec *dict = dict_of(r);
        if (!dict)
            return pq_errf(e, RINGSCAN_EFORMAT, -1, "dictionary-encoded page without a dictionary");
        pq_rle_dec d;
        int64_t base = out->length, data0 = out->data_len;
        int rc = pq_rle_init_dict(&d, p, len, e);
        if (rc == 0) rc = pq_dict_decode(dict, &d, nn, out, e);
        if (rc == 0 && (rc = pq_rle_finish(&d))) {
            out->length = base;
            if (out->type == PQ_BYTE_ARRAY) out->data_len = data0;
        }
        return rc;
    }
    case PQ_ENC_RLE:
        if (t != PQ_BOOLEAN) break;
        return bool_rle(p, len, nn, out, e);
    case PQ_ENC_DELTA_BINARY_PACKED:
        if (t != PQ_INT32 && t != PQ_INT64) break;
        return delta_ints(p, len, nn, out, e);
    case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
    case PQ_ENC_DELTA_BYTE_ARRAY:
        if (t != PQ_BYTE_ARRAY && t != PQ_FIXED_LEN_BYTE_ARRAY) break;
        return delta_bytes(p, len, nn, enc == PQ_ENC_DELTA_BYTE_ARRAY, out, e);
    case PQ_ENC_BYTE_STREAM_SPLIT:
        if (pq_fixed_width(t, r->col->type_length) == 0) break;
        return pq_bss_decode(p, len, nn, 0, nn, out, e);
    default: break;
    }
    return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "encoding %s is not supported for %s columns",
                   pq_encoding_name(enc), pq_physical_name(t));
}

/* ---------------------------------------------------------------------------- scatter */

/* Marks rows [base, base+n) valid or not from levels; first null ever: back-fill ones. */
static void set_validity(pq_vec *out, int64_t base, const uint32_t *lv, int64_t n, int64_t nulls)
{
    if (nulls == 0 && out->null_count == 0) return;
    if (out->null_count == 0)
        for (int64_t i = 0; i < base; i++) pq_bit_set(out->validity, i, true);
    for (int64_t i = 0; i < n; i++) pq_bit_set(out->validity, base + i, lv ? lv[i] != 0 : true);
    out->null_count += nulls;
}

/* Spreads the nn values at [base, base+nn) over rows [base, base+n) following levels. */
static void scatter(pq_vec *out, int64_t base, const uint32_t *lv, int64_t n, int64_t nn)
{
    assert(nn <= n && out->length == base + n);
    int64_t k = nn;
    if (out->type == PQ_BYTE_ARRAY) {
        int32_t *off = out->offsets + base;
        for (int64_t i = n - 1; i >= 0; i--) {
            off[i + 1] = off[k];
            if (lv[i]) k--;
        }
    } else if (out->type == PQ_BOOLEAN) {
        for (int64_t i = n - 1; i >= 0; i--) {
            bool v = lv[i] ? pq_bit_get(out->values, base + --k) : false;
            pq_bit_set(out->values, base + i, v);
        }
    } else {
        size_t w = (size_t)pq_fixed_width(out->type, out->type_length);
        uint8_t *v = out->values + (size_t)base * w;
        for (int64_t i = n - 1; i >= 0; i--) {
            if (lv[i]) memmove(v + (size_t)i * w, v + (size_t)--k * w, w);
            else memset(v + (size_t)i * w, 0, w);
        }
    }
    assert(k == 0);
}

/* --------------------------------------------------------------------------- data pages */

/* A selection over a page of n rows: the rows sel[0..nsel) of the page (page-relative). */
typedef struct page_sel {
    const uint32_t *rows;
    int64_t n;
} page_sel;

/* Rows rising strictly with the last below n: one branch-free pass (it vectorizes). */
static int check_sel(const page_sel *sel, int64_t n, pq_err *e)
{
    const uint32_t *rows = sel->rows;
    bool bad = sel->n > 0 && rows[sel->n - 1] >= (uint64_t)n;
    for (int64_t j = 1; j < sel->n; j++) bad |= rows[j] <= rows[j - 1];
    if (bad)
        return pq_errf(e, RINGSCAN_EFORMAT, -1, "row selection does not fit a page of %lld rows",
                       (long long)n);
    return 0;
}

/* A page without nulls (the selection checked by the caller): only the selected rows'
 * indices are decoded (pq_rle_select reads a bit-packed index from its bytes), then
 * gathered; the gather checks them against the dictionary. The unselected indices are never unpacked: they were 10% of a
 * one-thread lineitem_wide scan, which keeps 1 row in 9 (bench/RESULTS.md, issue 26). */
static int dict_selected_dense(pq_col_reader *r, const uint8_t *vp, size_t vlen, int64_t n,
                               const page_sel *sel, pq_vec *out, pq_err *e)
{
    pq_rle_dec d;
    int rc = pq_colr_reserve((void **)&r->sel_buf, &r->sel_cap, (size_t)(sel->n + 1) * sizeof(uint32_t));
    if (rc == 0) rc = pq_rle_init_dict(&d, vp, vlen, e);
    if (rc == 0) rc = pq_rle_select(&d, n, sel->rows, sel->n, r->sel_buf);
    if (rc == 0) rc = pq_rle_finish(&d);
    if (rc == 0) rc = pq_dict_gather(dict_of(r), r->sel_buf, sel->n, out, e);
    if (rc == 0) set_validity(out, out->length - sel->n, NULL, sel->n, 0);
    return rc;
}

/* Dictionary page values for the selected rows only: indices decoded once, then only the
 * selected ones gathered; nulls among them scattered as in a full page (a page without
 * nulls: dict_selected_dense). */
static int dict_selected(pq_col_reader *r, const uint8_t *vp, size_t vlen, int64_t n, int64_t nn,
                         const page_sel *sel, pq_vec *out, pq_err *e)
{
    if (nn == n) return dict_selected_dense(r, vp, vlen, n, sel, out, e);
    int rc = pq_colr_reserve((void **)&r->idx, &r->idx_cap, (size_t)(nn + 1) * sizeof(uint32_t));
    if (rc == 0) rc = pq_colr_reserve((void **)&r->sel_buf, &r->sel_cap, (size_t)(2 * sel->n + 1) * sizeof(uint32_t));
    if (rc == 0) rc = dict_index_run(vp, vlen, nn, dict_of(r)->length, r->idx, e);
    if (rc) return rc;
    uint32_t *gather = r->sel_buf, *lv = r->sel_buf + sel->n;
    int64_t k = 0, vi = 0, row = 0;
    for (int64_t j = 0; j < sel->n; j++) {
        int64_t target = sel->rows[j];
        for (; row < target; row++) vi += r->levels[row];
        lv[j] = r->levels[target];
        if (lv[j]) gather[k++] = r->idx[vi];
    }
    int64_t base = out->length;
    rc = pq_dict_gather(dict_of(r), gather, k, out, e);
    if (rc) return rc;
    if (k < sel->n) {
        rc = pq_vec_reserve(out, sel->n - k, 0);
        if (rc) return rc;
        out->length = base + sel->n;
        scatter(out, base, lv, sel->n, k);
    }
    set_validity(out, base, lv, sel->n, sel->n - k);
    return 0;
}

/* PLAIN page values for the selected rows only (a page without nulls), appended valid (rows
 * after earlier nulls get their validity bits): fixed-width values are copied from their
 * slots; every byte-array length is walked and checked and only the selected values copied -
 * a string conjunct late in the chain copies the few rows that reach it, not the page. */
static int plain_selected(pq_col_reader *r, const uint8_t *vp, size_t vlen, int64_t n,
                          const page_sel *sel, pq_vec *out, pq_err *e)
{
    int64_t base = out->length, data0 = out->data_len;
    int rc = 0;
    size_t used = vlen;
    if (out->type != PQ_BYTE_ARRAY) {
        used = (size_t)n * (size_t)pq_fixed_width(out->type, out->type_length);
        rc = pq_plain_select_fixed(vp, vlen, n, sel->rows, sel->n, out, e);
    } else {
        size_t bytes = (size_t)(sel->n + 1) * sizeof(uint32_t);
        rc = pq_colr_reserve((void **)&r->sel_buf, &r->sel_cap, bytes);
        if (rc == 0)
            rc = pq_plain_select_ba(vp, vlen, n, sel->rows, sel->n, r->sel_buf, out, &used, e);
    }
    if (rc == 0 && used != vlen) {
        out->length = base;
        if (out->type == PQ_BYTE_ARRAY) out->data_len = data0;
        return err_leftover(e, "PLAIN", used, vlen, n);
    }
    if (rc == 0) set_validity(out, base, NULL, sel->n, 0);
    return rc;
}

/* What one data page is decoded into: the caller's pq_page_req resolved for this page. */
typedef enum page_want {
    WANT_VALUES,   /* every row's value appended to out */
    WANT_SELECTED, /* only the values of rows sel */
    WANT_INDICES,  /* every row's dictionary index appended to out (INT32; nulls 0, invalid) */
} page_want;

typedef struct data_req {
    page_want want;
    pq_vec *out;
    page_sel sel;       /* WANT_SELECTED only */
    pq_dict_bits *bits; /* WANT_INDICES only: NULL, or the page's rows' bits wanted instead */
    pq_vec *vals;       /* WANT_INDICES with out NULL: every row's values when not to bits */
} data_req;

static bool dict_encoded(pq_encoding enc)
{
    return enc == PQ_ENC_PLAIN_DICTIONARY || enc == PQ_ENC_RLE_DICTIONARY;
}

/* Whether a dictionary-encoded page of n rows, nn of them valid, goes to b's bits. */
static bool bits_fit(const pq_col_reader *r, const pq_dict_bits *b, int64_t n, int64_t nn)
{
    return b && nn == n && n <= b->cap && b->dlen >= 1 && b->dlen == dict_of(r)->length &&
           b->dlen <= UINT32_MAX;
}

static int dict_selected_dense(pq_col_reader *r, const uint8_t *vp, size_t vlen, int64_t n,
                               const page_sel *sel, pq_vec *out, pq_err *e);

/* The values of the page's rows whose bit in b->out and b->in are set, appended to b->kept:
 * their indices read again from the body (no second decompression; unpacked: every index is
 * in r->sel_buf already), then gathered. Under a quarter of the rows and not unpacked: only
 * theirs (pq_rle_select); else every index unpacked in bulk and the kept ones moved down in
 * place (lineitem_prune's l_orderkey < 600000 keeps most rows of its groups: selected row
 * by row it took 10-35% more cores' CPU than the full decode before). */
static int bits_kept(pq_col_reader *r, const uint8_t *vp, size_t vlen, int64_t n,
                     const pq_dict_bits *b, bool unpacked, pq_err *e)
{
    int64_t nw = (n + 63) >> 6, k = 0;
    const uint64_t all = ~UINT64_C(0);
    for (int64_t w = 0; w < nw; w++) k += __builtin_popcountll(b->out[w] & (b->in ? b->in[w] : all));
    int rc = 0;
    if (!unpacked && 4 * k <= n) { /* list the kept rows, read only their indices */
        rc = pq_colr_reserve((void **)&r->idx, &r->idx_cap, (size_t)(k + 8) * sizeof(uint32_t));
        int64_t j = 0;
        for (int64_t w = 0; rc == 0 && w < nw; w++) { /* (room for k + 8: bits_rows_wide) */
            uint64_t kept = b->out[w] & (b->in ? b->in[w] : all);
            j += bits_rows_wide(kept, (uint32_t)(w << 6), r->idx + j);
        }
        assert(rc || j == k);
        page_sel sel = {.rows = r->idx, .n = k};
        return rc ? rc : dict_selected_dense(r, vp, vlen, n, &sel, b->kept, e);
    }
    if (!unpacked)
        rc = pq_colr_reserve((void **)&r->sel_buf, &r->sel_cap, (size_t)(n + 1) * sizeof(uint32_t));
    if (rc == 0 && !unpacked) rc = dict_index_run(vp, vlen, n, dict_of(r)->length, r->sel_buf, e);
    if (rc) return rc;
    for (int64_t w = 0, j = 0; k < n && w < nw; w++) /* each kept index moved down: pos >= j */
        j += bits_keep32(b->out[w] & (b->in ? b->in[w] : all), r->sel_buf + (w << 6),
                         r->sel_buf + j);
    rc = pq_dict_gather(dict_of(r), r->sel_buf, k, b->kept, e);
    if (rc == 0) set_validity(b->kept, b->kept->length - k, NULL, k, 0);
    return rc;
}

/* The page's bits from every index unpacked into r->sel_buf (checked against the dictionary),
 * for kept values of a page whose indices are wider than pq_rle_bits' vector path takes:
 * unpacked once for both. */
static int bits_unpacked(pq_col_reader *r, const uint8_t *vp, size_t vlen, int64_t n,
                         pq_dict_bits *b, pq_err *e)
{
    int rc = pq_colr_reserve((void **)&r->sel_buf, &r->sel_cap, (size_t)(n + 1) * sizeof(uint32_t));
    if (rc == 0) rc = dict_index_run(vp, vlen, n, dict_of(r)->length, r->sel_buf, e);
    if (rc) return rc;
    for (int64_t w = 0; w < (n + 63) >> 6; w++) {
        uint64_t bits = 0;
        for (int64_t i = w << 6, end = i + 64 < n ? i + 64 : n; i < end; i++) {
            uint32_t v = r->sel_buf[i]; /* < dlen: checked */
            bits |= ((b->dm[v >> 6] >> (v & 63)) & 1) << (i & 63);
        }
        b->out[w] = bits;
    }
    return bits_kept(r, vp, vlen, n, b, true, e);
}

/* A dictionary-encoded page without nulls: its n rows' bits through b->dm, no index stored
 * (format/encoding.h pq_rle_bits), and the kept rows' values when b->kept; b->done on
 * success. */
static int dict_bits(pq_col_reader *r, const uint8_t *vp, size_t vlen, int64_t n,
                     pq_dict_bits *b, pq_err *e)
{
    int rc;
    if (b->kept && vlen > 0 && (vp[0] > 8 || b->dlen > 64)) {
        rc = bits_unpacked(r, vp, vlen, n, b, e);
    } else {
        pq_rle_dec d;
        rc = pq_rle_init_dict(&d, vp, vlen, e);
        if (rc == 0) rc = pq_rle_bits(&d, n, b->dm, (uint32_t)b->dlen, b->out);
        if (rc == 0) rc = pq_rle_finish(&d);
        if (rc == 0 && b->kept) rc = bits_kept(r, vp, vlen, n, b, false, e);
    }
    b->done = rc == 0;
    return rc;
}

/* Every row of a page whose levels are in r->levels: nn values (or dictionary indices)
 * decoded densely, then scattered over the n rows. Nothing appended on error. */
static int dense(pq_col_reader *r, pq_encoding enc, const uint8_t *vp, size_t vlen, int64_t n,
                 int64_t nn, bool as_idx, pq_vec *out, pq_err *e)
{
    int64_t base = out->length;
    int rc = pq_vec_reserve(out, n, 0);
    if (rc) return rc;
    rc = as_idx ? dict_indices(vp, vlen, nn, dict_of(r)->length, out, e)
                : values(r, enc, vp, vlen, nn, out, e);
    if (rc) {
        out->length = base;
        if (out->type == PQ_BYTE_ARRAY) out->data_len = out->offsets[base];
        return rc;
    }
    assert(out->length == base + nn);
    if (nn < n) {
        rc = pq_vec_reserve(out, n - nn, 0);
        if (rc) return rc;
        out->length = base + n;
        scatter(out, base, r->levels, n, nn);
    }
    set_validity(out, base, r->col->max_def_level > 0 ? r->levels : NULL, n, n - nn);
    return 0;
}

/* A selection over a page no selective path takes: decode it whole into r->page, take rows. */
static int full_then_take(pq_col_reader *r, pq_encoding enc, const uint8_t *vp, size_t vlen,
                          int64_t n, int64_t nn, const page_sel *sel, pq_vec *out, pq_err *e)
{
    pq_vec_clear(&r->page);
    int rc = dense(r, enc, vp, vlen, n, nn, false, &r->page, e);
    return rc ? rc : pq_vec_take(&r->page, sel->rows, sel->n, out);
}

/* The selected rows (checked against the page's n rows) by the cheapest path: gathered from
 * the dictionary, copied from PLAIN slots (no nulls), else through a whole-page decode. */
static int selected(pq_col_reader *r, pq_encoding enc, const uint8_t *vp, size_t vlen,
                    int64_t n, int64_t nn, const page_sel *sel, pq_vec *out, pq_err *e)
{
    int rc = check_sel(sel, n, e);
    if (rc) return rc;
    pq_physical t = r->col->physical;
    if (dict_encoded(enc) && dict_of(r)) return dict_selected(r, vp, vlen, n, nn, sel, out, e);
    bool plain = enc == PQ_ENC_PLAIN && nn == n && t != PQ_BOOLEAN &&
                 (t != PQ_BYTE_ARRAY || vlen <= UINT32_MAX);
    if (plain) return plain_selected(r, vp, vlen, n, sel, out, e);
    return full_then_take(r, enc, vp, vlen, n, nn, sel, out, e);
}

/* Decodes a data page (header h, body split into b, body at file offset off) as q asks. */
static int data_page(pq_col_reader *r, const pq_page_header *h, const pq_page_body *b,
                     int64_t off, const data_req *q, pq_err *e)
{
    const char *col = r->col->name;
    int64_t n = h->num_values, nn = n;
    if (n < 0 || n > r->limits.max_page_values)
        return pq_errf_col(e, RINGSCAN_ELIMIT, off, col,
                           "limit max_page_values=%lld exceeded: page of %lld values",
                           (long long)r->limits.max_page_values, (long long)n);
    const uint8_t *vp = b->vals;
    size_t vlen = b->vals_len;
    bool v1 = h->type == PQ_PAGE_DATA;
    if (r->col->max_def_level > 0) {
        size_t used = 0;
        int rc = def_levels(r, b->levels, b->levels_len, n, v1, h->def_level_encoding, &used,
                            &nn, e);
        if (rc) return rc;
        if (v1) {
            vp = b->levels + used;
            vlen = b->levels_len - used;
        }
    }
    if (!v1 && h->num_nulls != n - nn)
        return pq_errf_col(e, RINGSCAN_EFORMAT, off, col, "%s",
                           r->col->max_def_level ? "page num_nulls disagrees with its levels"
                                                 : "nulls in a required column");
    if (q->want == WANT_SELECTED)
        return selected(r, h->encoding, vp, vlen, n, nn, &q->sel, q->out, e);
    if (q->want == WANT_INDICES && bits_fit(r, q->bits, n, nn))
        return dict_bits(r, vp, vlen, n, q->bits, e);
    if (q->want == WANT_INDICES && !q->out) /* bits only: values then */
        return dense(r, h->encoding, vp, vlen, n, nn, false, q->vals, e);
    return dense(r, h->encoding, vp, vlen, n, nn, q->want == WANT_INDICES, q->out, e);
}

int pq_colr_values(pq_col_reader *r, pq_encoding enc, const uint8_t *p, size_t len, int64_t nn,
                   pq_vec *out, pq_err *e)
{
    return values(r, enc, p, len, nn, out, e);
}

void pq_colr_spread(pq_vec *out, int64_t base, const uint32_t *present, int64_t n, int64_t nn)
{
    if (nn < n) scatter(out, base, present, n, nn);
    set_validity(out, base, present, n, n - nn);
}

int pq_colr_data_page(pq_col_reader *r, const pq_page_header *h, const pq_page_body *b,
                      int64_t off, const pq_page_req *q, bool *as_idx, pq_err *e)
{
    assert(!r->col->nested); /* flat levels only: a nested leaf goes through column_nested.c */
    assert(q && q->vals && (q->nsel < 0 || q->sel || q->nsel == 0));
    assert(!q->idx || q->idx->type == PQ_INT32);
    bool dict = dict_encoded(h->encoding) && dict_of(r), idx = q->idx && dict;
    bool bits = q->bits && dict; /* (with idx NULL: to bits or else values) */
    data_req d = {.want = idx || bits ? WANT_INDICES : q->nsel >= 0 ? WANT_SELECTED : WANT_VALUES,
                  .out = idx ? q->idx : bits ? NULL : q->vals,
                  .sel = {.rows = q->sel, .n = q->nsel}, .bits = q->bits, .vals = q->vals};
    int rc = data_page(r, h, b, off, &d, e);
    if (rc) return pq_err_place(e, rc, off, r->col->name);
    if (as_idx) *as_idx = idx || (bits && q->bits->done);
    r->pages_decoded++;
    return 0;
}
