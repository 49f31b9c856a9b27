/* format/column_list.c: a list<primitive> column chunk into Arrow's list layout (see
 * column_list.h for the level rules and the invariants). Pages are framed and their bodies
 * split by page_walk.c (pq_colr_frame, pq_colr_body), values decoded by column.c
 * (pq_colr_values, pq_colr_spread); this file reads the levels and builds the lists. */
#include "format/column_list.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "format/column_priv.h"
#include "format/encoding.h"

bool pq_list_levels_of(const pq_file_meta *m, int32_t col, pq_list_levels *out)
{
    if (col < 0 || col >= m->ncolumns || m->nnodes == 0) return false;
    const pq_column_desc *c = &m->columns[col];
    if (!c->nested || c->max_rep_level != 1) return false;
    const pq_schema_node *leaf = &m->nodes[c->node], *top = &m->nodes[leaf->top];
    /* a LIST whose element is the leaf, or a MAP of keys only (pyarrow's list of the keys) */
    bool list = top->kind == PQ_NODE_LIST && top->element == c->node;
    bool keys = top->kind == PQ_NODE_MAP && top->shape == PQ_SHAPE_LIST && top->element >= 0 &&
                top->element + 1 == c->node;
    if (!(list || keys) || top->repetition == PQ_REPEATED) return false;
    const pq_schema_node *rep = &m->nodes[leaf->top + 1]; /* the LIST's one repeated child */
    assert(rep->repetition == PQ_REPEATED && leaf->max_def_level >= rep->max_def_level);
    *out = (pq_list_levels){.def_list = top->max_def_level, .def_item = rep->max_def_level,
                            .def_value = leaf->max_def_level};
    return true;
}

void pq_list_vec_init(pq_list_vec *l, pq_physical type, int32_t type_length)
{
    memset(l, 0, sizeof *l);
    pq_vec_init(&l->items, type, type_length);
}

void pq_list_vec_free(pq_list_vec *l)
{
    free(l->validity);
    free(l->offsets);
    pq_vec_free(&l->items);
    memset(l, 0, sizeof *l);
}

/* Room for n more lists. 0 or -ENOMEM. */
static int lists_reserve(pq_list_vec *l, int64_t n)
{
    if (l->length + n <= l->cap && l->offsets) return 0;
    int64_t cap = l->cap ? l->cap : 64;
    while (cap < l->length + n) cap *= 2;
    int32_t *off = fail_realloc(l->offsets, sizeof(int32_t) * (size_t)(cap + 1));
    if (!off) return -ENOMEM;
    l->offsets = off;
    if (l->cap == 0) off[0] = 0;
    uint8_t *val = fail_realloc(l->validity, (size_t)(cap + 7) / 8);
    if (!val) return -ENOMEM;
    l->validity = val;
    l->cap = cap;
    return 0;
}

/* The n repetition levels (into r->sel_buf) and definition levels (into r->levels) of a data
 * page; *vals / *vlen: the value bytes after them. */
static int page_levels(pq_col_reader *r, const pq_list_levels *lv, const pq_page_header *h,
                       const pq_page_body *b, int64_t n, const uint8_t **vals, size_t *vlen,
                       pq_err *e)
{
    size_t need = (size_t)n * sizeof(uint32_t) + 4;
    int rc = pq_colr_reserve((void **)&r->levels, &r->levels_cap, need);
    if (rc == 0) rc = pq_colr_reserve((void **)&r->sel_buf, &r->sel_cap, need);
    if (rc) return rc;
    int dw = pq_bit_width((uint64_t)lv->def_value);
    pq_rle_dec rd, dd;
    if (h->type == PQ_PAGE_DATA_V2) {
        rc = pq_rle_init(&rd, b->rep, b->rep_len, 1, e);
        if (rc == 0) rc = pq_rle_init(&dd, b->levels, b->levels_len, dw, e);
        *vals = b->vals, *vlen = b->vals_len;
    } else {
        if (h->rep_level_encoding != PQ_ENC_RLE || h->def_level_encoding != PQ_ENC_RLE)
            return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "levels of a list column in %s",
                           pq_encoding_name(h->rep_level_encoding != PQ_ENC_RLE
                                                ? h->rep_level_encoding : h->def_level_encoding));
        size_t ru = 0, du = 0;
        rc = pq_rle_init_v1(&rd, b->levels, b->levels_len, 1, &ru, e);
        if (rc == 0) rc = pq_rle_init_v1(&dd, b->levels + ru, b->levels_len - ru, dw, &du, e);
        *vals = b->levels + ru + du, *vlen = b->levels_len - ru - du;
    }
    if (rc == 0) rc = pq_rle_get(&rd, r->sel_buf, n);
    if (rc == 0) rc = pq_rle_finish(&rd);
    if (rc == 0) rc = pq_rle_get(&dd, r->levels, n);
    if (rc == 0) rc = pq_rle_finish(&dd);
    return rc;
}

/* Checks the levels (invariant 1) and marks in present[0..*nelem) which elements are not
 * null; *nn of them are. open: the last list so far holds an element, so the page may
 * continue it (a level with repetition 1 adds an element to a list that has one: never to
 * a null or empty list, nor before the first list). */
static int page_elements(const pq_col_reader *r, const pq_list_levels *lv, int64_t n,
                         bool open, uint32_t *present, int64_t *nelem, int64_t *nn, pq_err *e)
{
    int64_t k = 0, v = 0;
    for (int64_t i = 0; i < n; i++) {
        uint32_t rep = r->sel_buf[i], def = r->levels[i];
        if (rep > 1 || def > (uint32_t)lv->def_value)
            return pq_errf(e, RINGSCAN_EFORMAT, -1, "level pair (%u, %u) above the column's "
                           "(1, %d)", rep, def, (int)lv->def_value);
        if (rep == 1 && (def < (uint32_t)lv->def_item || !open))
            return pq_errf(e, RINGSCAN_EFORMAT, -1, "a repetition level continues no list");
        if (rep == 0) open = def >= (uint32_t)lv->def_item;
        if (def < (uint32_t)lv->def_item) continue;
        present[k++] = def == (uint32_t)lv->def_value;
        v += def == (uint32_t)lv->def_value;
    }
    *nelem = k, *nn = v;
    return 0;
}

/* The page's lists onto out from its levels (elements already appended). */
static int page_lists(const pq_col_reader *r, const pq_list_levels *lv, int64_t n,
                      pq_list_vec *out, pq_err *e)
{
    int64_t starts = 0;
    for (int64_t i = 0; i < n; i++) starts += r->sel_buf[i] == 0;
    int rc = lists_reserve(out, starts);
    if (rc) return rc;
    int64_t end = out->offsets[out->length];
    for (int64_t i = 0; i < n; i++) {
        uint32_t def = r->levels[i];
        if (r->sel_buf[i] == 0) {
            bool valid = def >= (uint32_t)lv->def_list;
            pq_bit_set(out->validity, out->length, valid);
            out->null_count += !valid;
            out->length++;
        }
        end += def >= (uint32_t)lv->def_item;
        if (end > INT32_MAX)
            return pq_errf(e, RINGSCAN_ELIMIT, -1, "list elements past int32 offsets");
        out->offsets[out->length] = (int32_t)end;
    }
    return 0;
}

/* One data page (header h, body b) onto out; open: page_elements'. */
static int list_page(pq_col_reader *r, const pq_list_levels *lv, const pq_page_header *h,
                     const pq_page_body *b, bool open, pq_list_vec *out, pq_err *e)
{
    int64_t n = h->num_values;
    if (n < 0 || n > r->limits.max_page_values)
        return pq_errf(e, RINGSCAN_ELIMIT, -1, "limit max_page_values=%lld exceeded: page of "
                       "%lld values", (long long)r->limits.max_page_values, (long long)n);
    const uint8_t *vals;
    size_t vlen;
    int rc = page_levels(r, lv, h, b, n, &vals, &vlen, e);
    if (rc == 0) rc = pq_colr_reserve((void **)&r->idx, &r->idx_cap, (size_t)n * 4 + 4);
    if (rc) return rc;
    int64_t nelem, nn;
    rc = page_elements(r, lv, n, open, r->idx, &nelem, &nn, e);
    pq_vec *it = &out->items;
    int64_t base = it->length;
    if (rc == 0) rc = pq_vec_reserve(it, nelem, 0);
    if (rc == 0) rc = pq_colr_values(r, h->encoding, vals, vlen, nn, it, e);
    if (rc) return rc;
    assert(it->length == base + nn);
    rc = pq_vec_reserve(it, nelem - nn, 0);
    if (rc) return rc;
    it->length = base + nelem;
    pq_colr_spread(it, base, r->idx, nelem, nn);
    return page_lists(r, lv, n, out, e);
}

int pq_colr_list_chunk(pq_col_reader *r, const pq_list_levels *lv, const uint8_t *buf,
                       size_t len, int64_t file_off, int64_t rows, pq_list_vec *out, pq_err *e)
{
    assert(r && lv && r->col->nested && r->col->max_rep_level == 1 && out && rows >= 0);
    assert(lv->def_list < lv->def_item && lv->def_item <= lv->def_value);
    pq_list_vec keep = *out; /* invariant 2: what to restore on failure */
    int64_t data0 = out->items.data_len;
    int rc = lists_reserve(out, 0);
    size_t pos = 0;
    while (rc == 0 && pos < len) {
        pq_page_header h;
        int64_t off = file_off + (int64_t)pos;
        int hl = pq_colr_frame(r, buf + pos, len - pos, off, &h, e);
        if (hl < 0) {
            rc = hl;
            break;
        }
        pq_page_body b;
        rc = pq_colr_body(r, &h, hl, buf + pos + hl, off, &b, e);
        if (rc == 0 && (h.type == PQ_PAGE_DATA || h.type == PQ_PAGE_DATA_V2)) {
            int64_t k = out->length; /* a chunk's first level starts a list */
            bool open = k > keep.length && out->offsets[k] > out->offsets[k - 1];
            rc = list_page(r, lv, &h, &b, open, out, e);
            if (rc) pq_err_place(e, rc, off + hl, r->col->name);
        }
        pos += (size_t)hl + (size_t)h.compressed_size;
    }
    if (rc == 0 && out->length - keep.length != rows)
        rc = pq_errf_col(e, RINGSCAN_EFORMAT, file_off, r->col->name, "column chunk holds %lld "
                         "lists, its row group %lld rows", (long long)(out->length - keep.length),
                         (long long)rows);
    if (rc) { /* the buffers may have moved: keep them, restore the counts */
        out->length = keep.length, out->null_count = keep.null_count;
        out->items.length = keep.items.length, out->items.null_count = keep.items.null_count;
        out->items.data_len = data0;
    }
    return rc;
}
