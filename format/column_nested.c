/* format/column_nested.c: a nested field's leaves decoded into levels and values, and their
 * assembly into packed rows (column_nested.h has the layout and the invariants). Pages are
 * framed by page_walk.c (pq_colr_frame, pq_colr_body), values decoded by column.c
 * (pq_colr_values). */
#include "format/column_nested.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "format/column_priv.h"
#include "format/encoding.h"

void pq_nest_leaf_init(pq_nest_leaf *l, const pq_column_desc *c)
{
    memset(l, 0, sizeof *l);
    pq_vec_init(&l->vals, c->physical, c->type_length);
}

int pq_nest_pair_error(pq_err *e, const pq_nest_leaf *l, const char *col, int64_t pos,
                       const char *what)
{
    assert(pos >= 0 && l->row0 >= 0);
    if (l->row0 == 0)
        return pq_errf_col(e, RINGSCAN_EFORMAT, l->file_off, col,
                           "level pair %lld of the column chunk: %s", (long long)pos, what);
    return pq_errf_col(e, RINGSCAN_EFORMAT, l->file_off, col,
                       "level pair %lld from row %lld of the column chunk: %s", (long long)pos,
                       (long long)l->row0, what);
}

int pq_nest_pairs_past(pq_err *e, const pq_nest_leaf *l, const char *col, int64_t extra,
                       int64_t rows)
{
    assert(extra > 0 && rows >= 0 && l->row0 >= 0);
    return pq_errf_col(e, RINGSCAN_EFORMAT, l->file_off, col,
                       "column chunk holds %lld level pairs past the %lld rows read of its row "
                       "group", (long long)extra, (long long)(l->row0 + rows));
}

void pq_nest_leaf_free(pq_nest_leaf *l)
{
    free(l->rep);
    free(l->def);
    pq_vec_free(&l->vals);
    memset(l, 0, sizeof *l);
}

pq_nest_leaf *pq_nest_leaves_keep(pq_col_reader *r, const pq_column_desc *first, int32_t n)
{
    assert(n > 0 && (r->nest_nkeep == 0 || r->nest_nkeep == n)); /* one field per reader */
    if (r->nest_nkeep == 0) {
        r->nest_keep = fail_calloc((size_t)n, sizeof *r->nest_keep);
        if (!r->nest_keep) return NULL;
        for (int32_t i = 0; i < n; i++) pq_nest_leaf_init(&r->nest_keep[i], &first[i]);
        r->nest_nkeep = n;
    }
    for (int32_t i = 0; i < n; i++) {
        pq_nest_leaf *l = &r->nest_keep[i];
        assert(l->vals.type == first[i].physical);
        l->n = l->pos = l->vpos = l->row0 = 0;
        pq_vec_clear(&l->vals);
    }
    return r->nest_keep;
}

/* Room for n more level pairs. 0 or -ENOMEM. */
static int leaf_reserve(pq_nest_leaf *l, int64_t n)
{
    if (l->n + n <= l->cap) return 0;
    int64_t cap = l->cap ? l->cap : 256;
    while (cap < l->n + n) cap *= 2;
    uint16_t *rep = fail_realloc(l->rep, sizeof(uint16_t) * (size_t)cap);
    if (!rep) return -ENOMEM;
    l->rep = rep;
    uint16_t *def = fail_realloc(l->def, sizeof(uint16_t) * (size_t)cap);
    if (!def) return -ENOMEM;
    l->def = def;
    l->cap = cap;
    return 0;
}

int pq_nest_leaf_reserve(pq_nest_leaf *l, int64_t n)
{
    assert(n >= 0);
    int rc = leaf_reserve(l, n);
    return rc ? rc : pq_vec_reserve(&l->vals, n, 0);
}

/* One level stream of n values and bit width w (0: all zero, no bytes) into out. */
static int levels_get(pq_rle_dec *d, int w, uint32_t *out, int64_t n)
{
    if (w == 0) {
        memset(out, 0, sizeof(uint32_t) * (size_t)n);
        return 0;
    }
    int rc = pq_rle_get(d, out, n);
    return rc ? rc : pq_rle_finish(d);
}

/* The n repetition levels (into r->sel_buf) and definition levels (into r->levels) of a data
 * page; *vals / *vlen: the value bytes after them. */
static int page_levels(pq_col_reader *r, const pq_page_header *h, const pq_page_body *b,
                       int64_t n, const uint8_t **vals, size_t *vlen, pq_err *e)
{
    size_t need = (size_t)n * sizeof(uint32_t) + 4;
    int rc = pq_colr_reserve((void **)&r->levels, &r->levels_cap, need);
    if (rc == 0) rc = pq_colr_reserve((void **)&r->sel_buf, &r->sel_cap, need);
    if (rc) return rc;
    int rw = pq_bit_width((uint64_t)r->col->max_rep_level);
    int dw = pq_bit_width((uint64_t)r->col->max_def_level);
    pq_rle_dec rd, dd;
    if (h->type == PQ_PAGE_DATA_V2) {
        if (rw) rc = pq_rle_init(&rd, b->rep, b->rep_len, rw, e);
        if (rc == 0 && dw) rc = pq_rle_init(&dd, b->levels, b->levels_len, dw, e);
        *vals = b->vals, *vlen = b->vals_len;
    } else {
        if ((rw && h->rep_level_encoding != PQ_ENC_RLE) || (dw && h->def_level_encoding != PQ_ENC_RLE))
            return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "levels of a nested column in %s",
                           pq_encoding_name(rw && h->rep_level_encoding != PQ_ENC_RLE
                                                ? h->rep_level_encoding : h->def_level_encoding));
        size_t ru = 0, du = 0;
        if (rw) rc = pq_rle_init_v1(&rd, b->levels, b->levels_len, rw, &ru, e);
        if (rc == 0 && dw) rc = pq_rle_init_v1(&dd, b->levels + ru, b->levels_len - ru, dw, &du, e);
        *vals = b->levels + ru + du, *vlen = b->levels_len - ru - du;
    }
    if (rc == 0) rc = levels_get(&rd, rw, r->sel_buf, n);
    if (rc == 0) rc = levels_get(&dd, dw, r->levels, n);
    return rc;
}

/* One data page: its levels checked (column_nested.h invariant 1) onto l, its values onto
 * l->vals. */
static int leaf_page(pq_col_reader *r, const pq_page_header *h, const pq_page_body *b,
                     pq_nest_leaf *l, pq_err *e)
{
    int64_t n = h->num_values;
    if (n < 0 || n > r->limits.max_page_values)
        return pq_errf(e, RINGSCAN_ELIMIT, -1, "limit max_page_values=%lld exceeded: page of "
                       "%lld values", (long long)r->limits.max_page_values, (long long)n);
    const uint8_t *vals;
    size_t vlen;
    int rc = page_levels(r, h, b, n, &vals, &vlen, e);
    if (rc == 0) rc = leaf_reserve(l, n);
    if (rc) return rc;
    uint32_t mr = (uint32_t)r->col->max_rep_level, md = (uint32_t)r->col->max_def_level;
    int64_t nn = 0;
    for (int64_t i = 0; i < n; i++) {
        uint32_t rep = r->sel_buf[i], def = r->levels[i];
        if (rep > mr || def > md)
            return pq_errf(e, RINGSCAN_EFORMAT, -1, "level pair (%u, %u) above the column's "
                           "(%u, %u)", rep, def, mr, md);
        if (i == 0 && l->n == 0 && rep != 0)
            return pq_errf(e, RINGSCAN_EFORMAT, -1, "the chunk's first repetition level is %u, "
                           "not 0", rep);
        l->rep[l->n + i] = (uint16_t)rep;
        l->def[l->n + i] = (uint16_t)def;
        nn += def == md;
    }
    int64_t base = l->vals.length, data0 = l->vals.data_len;
    rc = pq_vec_reserve(&l->vals, nn, 0);
    if (rc == 0) rc = pq_colr_values(r, h->encoding, vals, vlen, nn, &l->vals, e);
    if (rc) { /* invariant 2 of the leaf: nothing of the page stays */
        l->vals.length = base, l->vals.data_len = data0;
        return rc;
    }
    assert(l->vals.length == base + nn);
    l->n += n;
    return 0;
}

int pq_nest_leaf_next(pq_col_reader *r, const uint8_t *buf, size_t len, int64_t file_off,
                      size_t *pos, pq_nest_leaf *l, pq_err *e)
{
    assert(r && l && r->col->nested && *pos < len);
    pq_page_header h;
    int64_t off = file_off + (int64_t)*pos;
    if (len - *pos >= PQ_NEST_HEADER_MAX) { /* a whole chunk reads as its windows do */
        pq_err quiet;
        memset(&quiet, 0, sizeof quiet);
        if (pq_page_header_parse(buf + *pos, PQ_NEST_HEADER_MAX, &h, &quiet) < 0)
            return pq_errf_col(e, RINGSCAN_EFORMAT, off, r->col->name, "page header not "
                               "parsed within %llu bytes", (unsigned long long)PQ_NEST_HEADER_MAX);
    }
    int hl = pq_colr_frame(r, buf + *pos, len - *pos, off, &h, e);
    if (hl < 0) return hl;
    pq_page_body b;
    int rc = pq_colr_body(r, &h, hl, buf + *pos + hl, off, &b, e);
    if (rc == 0 && (h.type == PQ_PAGE_DATA || h.type == PQ_PAGE_DATA_V2)) {
        rc = leaf_page(r, &h, &b, l, e);
        if (rc) pq_err_place(e, rc, off + hl, r->col->name);
    }
    *pos += (size_t)hl + (size_t)h.compressed_size; /* (framed: within len) */
    return rc;
}

int pq_nest_leaf_chunk(pq_col_reader *r, const uint8_t *buf, size_t len, int64_t file_off,
                       pq_nest_leaf *l, pq_err *e)
{
    assert(r && l && r->col->nested);
    l->file_off = file_off, l->row0 = 0;
    size_t pos = 0;
    int rc = 0;
    while (rc == 0 && pos < len) rc = pq_nest_leaf_next(r, buf, len, file_off, &pos, l, e);
    return rc;
}

/* ------------------------------------------------------------------------ assembly */

typedef struct nest_asm {
    const pq_file_meta *m;
    const pq_nest *t;      /* the field's nodes */
    pq_nest_leaf *leaves;  /* indexed by column - t[0].leaf_lo */
    pq_vec *out;           /* the row being packed is written past out->data_len (not yet
                              committed: a failure leaves out's length and bytes as they were) */
    uint8_t *buf;          /* out->data + out->data_len, renewed when out grows */
    int64_t len;           /* the row's bytes so far */
    pq_err *e;
} nest_asm;

/* Room for n more packed bytes of the row. 0, RINGSCAN_ELIMIT or -ENOMEM. */
static int put_room(nest_asm *a, int64_t n)
{
    pq_vec *o = a->out;
    if (o->data_len + a->len + n <= o->data_cap) return 0;
    if (o->data_len + a->len + n > INT32_MAX) return RINGSCAN_ELIMIT;
    int rc = pq_vec_reserve(o, 1, a->len + n);
    if (rc == 0) a->buf = o->data + o->data_len;
    return rc;
}

static pq_nest_leaf *leaf_of(nest_asm *a, int32_t col)
{
    return &a->leaves[col - a->t[0].leaf_lo];
}

/* The level-pair error of leaf col (invariant 1). */
static int level_error(nest_asm *a, int32_t col, const char *what)
{
    pq_nest_leaf *l = leaf_of(a, col);
    return pq_nest_pair_error(a->e, l, a->m->columns[col].name, l->pos, what);
}

/* Leaf col's next level pair, checked to exist, to repeat at level rep and to be defined to
 * at least def_exist. */
static int peek(nest_asm *a, int32_t col, int rep, int def_exist, int *def)
{
    pq_nest_leaf *l = leaf_of(a, col);
    if (l->pos >= l->n) return level_error(a, col, "the column ends before its row group");
    if (l->rep[l->pos] != rep) return level_error(a, col, "repetition level not the one the "
                                                  "structure expects");
    if (l->def[l->pos] < def_exist) return level_error(a, col, "definition level below its parent's");
    *def = l->def[l->pos];
    return 0;
}

/* A null or empty value of node k: one level pair of every leaf under it, each defined to
 * at least def_exist and below def_bound, as the first leaf's. */
static int skip(nest_asm *a, int32_t k, int rep, int def_exist, int def_bound)
{
    for (int32_t c = a->t[k].leaf_lo; c < a->t[k].leaf_hi; c++) {
        int d;
        int rc = peek(a, c, rep, def_exist, &d);
        if (rc) return rc;
        if (d >= def_bound) return level_error(a, c, "defined where the field's first leaf is not");
        leaf_of(a, c)->pos++;
    }
    return 0;
}

/* Leaf value at index i of v, packed at the end of a->buf. */
static int put_value(nest_asm *a, const pq_vec *v, int64_t i)
{
    int64_t w = v->type == PQ_BOOLEAN ? 1 : v->type == PQ_BYTE_ARRAY
                ? 4 + (int64_t)(v->offsets[i + 1] - v->offsets[i]) : pq_fixed_width(v->type, v->type_length);
    int rc = put_room(a, w);
    if (rc) return rc;
    uint8_t *p = a->buf + a->len;
    if (v->type == PQ_BOOLEAN) {
        p[0] = pq_bit_get(v->values, i);
    } else if (v->type == PQ_BYTE_ARRAY) {
        uint32_t n = (uint32_t)(w - 4);
        memcpy(p, &n, 4);
        if (n) memcpy(p + 4, v->data + v->offsets[i], n);
    } else {
        memcpy(p, v->values + (size_t)i * (size_t)w, (size_t)w);
    }
    a->len += w;
    return 0;
}

static int value(nest_asm *a, int32_t k, int rep, int def_exist);

/* The elements of list node k whose element is a fixed-width leaf, in one pass over the
 * leaf's run of pairs (what value() would do for each, without the per-element calls): the
 * first pair at repetition level rep, the others at the list's own; *n their count. */
static int fixed_elements(nest_asm *a, int32_t k, int rep, uint32_t *n)
{
    const pq_nest *t = &a->t[k], *c = &a->t[k + 1];
    pq_nest_leaf *l = leaf_of(a, c->col);
    int d;
    int rc = peek(a, c->col, rep, t->def_item, &d);
    if (rc) return rc;
    int64_t end = l->pos + 1, w = pq_fixed_width(l->vals.type, l->vals.type_length);
    while (end < l->n && l->rep[end] == t->rep_item) end++; /* the leaf repeats no deeper */
    rc = put_room(a, (end - l->pos) * (1 + w));
    if (rc) return rc;
    uint8_t *p = a->buf + a->len;
    for (int64_t i = l->pos; i < end; i++) {
        if (l->def[i] < t->def_item) {
            l->pos = i;
            return level_error(a, c->col, "definition level below its parent's");
        }
        bool valid = l->def[i] >= c->def_valid;
        *p++ = valid;
        if (!valid) continue;
        assert(l->vpos < l->vals.length); /* one value per pair at the max level */
        memcpy(p, l->vals.values + (size_t)(l->vpos++ * w), (size_t)w);
        p += w;
    }
    *n = (uint32_t)(end - l->pos);
    a->len = p - a->buf;
    l->pos = end;
    return 0;
}

/* List or map node k (valid, with at least one element at this pair): its elements, the
 * first at repetition level rep, each next at the list's own. */
static int elements(nest_asm *a, int32_t k, int rep)
{
    const pq_nest *t = &a->t[k];
    int rc = put_room(a, 4);
    if (rc) return rc;
    int64_t at = a->len;
    a->len += 4;
    pq_nest_leaf *first = leaf_of(a, t->leaf_lo);
    uint32_t n = 0;
    const pq_nest *c = &a->t[k + 1];
    if (c->kind == PQ_NEST_PRIM && first->vals.type != PQ_BOOLEAN && first->vals.type != PQ_BYTE_ARRAY) {
        rc = fixed_elements(a, k, rep, &n);
        if (rc == 0) memcpy(a->buf + at, &n, 4);
        return rc;
    }
    do {
        rc = value(a, k + 1, n == 0 ? rep : t->rep_item, t->def_item);
        if (rc) return rc;
        n++;
    } while (first->pos < first->n && first->rep[first->pos] == t->rep_item);
    memcpy(a->buf + at, &n, 4);
    return 0;
}

/* The value of node k at the leaves' cursors: its level pairs consumed, its packed bytes
 * appended. rep: the repetition level its first pair has; def_exist: the level at which it
 * exists (its parent's). */
static int value(nest_asm *a, int32_t k, int rep, int def_exist)
{
    const pq_nest *t = &a->t[k];
    int d;
    int rc = peek(a, t->leaf_lo, rep, def_exist, &d);
    if (rc == 0) rc = put_room(a, 1);
    if (rc) return rc;
    bool valid = d >= t->def_valid;
    a->buf[a->len++] = valid;
    if (t->kind == PQ_NEST_PRIM) {
        pq_nest_leaf *l = leaf_of(a, t->col);
        l->pos++;
        if (!valid) return 0;
        assert(l->vpos < l->vals.length); /* one value per pair at the max level */
        return put_value(a, &l->vals, l->vpos++);
    }
    if (!valid) return skip(a, k, rep, def_exist, t->def_valid);
    if (t->kind == PQ_NEST_STRUCT) {
        for (int32_t c = k + 1, i = 0; i < t->nchildren; i++, c = a->t[c].end)
            if ((rc = value(a, c, rep, t->def_valid))) return rc;
        return 0;
    }
    if (d < t->def_item) { /* empty */
        rc = put_room(a, 4);
        if (rc) return rc;
        memset(a->buf + a->len, 0, 4);
        a->len += 4;
        return skip(a, k, rep, t->def_valid, t->def_item); /* every leaf says empty */
    }
    return elements(a, k, rep);
}

/* The cursors of every leaf back to the start. */
static void rewind_leaves(nest_asm *a)
{
    for (int32_t c = a->t[0].leaf_lo; c < a->t[0].leaf_hi; c++) leaf_of(a, c)->pos = leaf_of(a, c)->vpos = 0;
}

int pq_nest_assemble(const pq_file_meta *m, const pq_nest *t, pq_nest_leaf *leaves,
                     int64_t rows, pq_vec *out, pq_err *e)
{
    assert(out->type == PQ_BYTE_ARRAY && rows >= 0);
    int32_t w = pq_nest_flat_width(m, t);
    if (w) return pq_nest_flat_assemble(m, t, w, &leaves[0], rows, out, e);
    if (pq_nest_prim_struct(m, t)) return pq_nest_struct_assemble(m, t, leaves, rows, out, e);
    if (pq_nest_leaf_list(m, t)) return pq_nest_list_assemble(m, t, leaves, rows, out, e);
    return pq_nest_walk_assemble(m, t, leaves, rows, out, e);
}

int pq_nest_walk_assemble(const pq_file_meta *m, const pq_nest *t, pq_nest_leaf *leaves,
                          int64_t rows, pq_vec *out, pq_err *e)
{
    assert(out->type == PQ_BYTE_ARRAY && rows >= 0 && !pq_nest_flat_width(m, t));
    nest_asm a = {.m = m, .t = t, .leaves = leaves, .out = out, .e = e};
    rewind_leaves(&a);
    pq_vec keep = *out;
    int rc = pq_vec_reserve(out, rows, 0);
    for (int64_t r = 0; rc == 0 && r < rows; r++) {
        a.len = 0;
        a.buf = out->data ? out->data + out->data_len : NULL; /* put_room sets it first */
        rc = value(&a, 0, 0, 0);
        if (rc) break;
        bool valid = a.buf[0] != 0;
        int64_t i = out->length;
        if (!valid && out->null_count == 0)
            for (int64_t j = 0; j < i; j++) pq_bit_set(out->validity, j, true);
        if (out->null_count > 0 || !valid) pq_bit_set(out->validity, i, valid);
        out->null_count += !valid;
        out->data_len += a.len; /* the row's bytes are already in place: commit them */
        out->offsets[i + 1] = (int32_t)out->data_len;
        out->length++;
    }
    for (int32_t c = t[0].leaf_lo; rc == 0 && c < t[0].leaf_hi; c++) {
        assert(leaf_of(&a, c)->pos != leaf_of(&a, c)->n ||
               leaf_of(&a, c)->vpos == leaf_of(&a, c)->vals.length); /* a value per max level */
        if (leaf_of(&a, c)->pos != leaf_of(&a, c)->n)
            rc = pq_nest_pairs_past(e, leaf_of(&a, c), m->columns[c].name,
                                    leaf_of(&a, c)->n - leaf_of(&a, c)->pos, rows);
    }
    if (rc == RINGSCAN_ELIMIT)
        pq_errf_col(e, rc, leaves[0].file_off, m->columns[t[0].leaf_lo].name,
                    "nested rows past %d packed bytes in a split", INT32_MAX);
    if (rc) {
        out->length = keep.length, out->null_count = keep.null_count, out->data_len = keep.data_len;
    }
    return rc;
}
