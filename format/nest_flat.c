/* format/nest_flat.c: the assembly of a flat list (column_nested.h "Flat lists"): a LIST of
 * one fixed-width leaf, its rows computed from the leaf's levels in one pass (each row's byte
 * length and validity, checked as column_nested.c's walk checks them), then its values moved
 * or copied in bulk. No call per row or per element.
 *
 * Invariants:
 *  1. The checks are column_nested.h invariant 1 for this shape, with the same messages: a
 *     row starts at repetition level 0; an element is defined at least to the list's item
 *     level; the leaf ends neither before nor after rows rows.
 *  2. Failure leaves out's length, null count and bytes as they were (column_nested.h
 *     invariant 2).
 *  3. A pair is a value (one of l->vals) exactly when it is defined to the element's level,
 *     the leaf's maximum (leaf decoding counted those), so the values in order are the
 *     valid elements in order. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/column_nested.h"

int32_t pq_nest_flat_width(const pq_file_meta *m, const pq_nest *t)
{
    if (t[0].kind != PQ_NEST_LIST || t[1].kind != PQ_NEST_PRIM || t[0].rep_item != 1) return 0;
    const pq_column_desc *c = &m->columns[t[1].col];
    if (c->max_rep_level != 1 || c->physical == PQ_BOOLEAN || c->physical == PQ_BYTE_ARRAY) return 0;
    int32_t w = pq_fixed_width(c->physical, c->type_length);
    assert(t[1].def_valid == c->max_def_level); /* invariant 3 */
    return w >= 2 ? w : 0;
}

/* The bytes of a row of n elements, flagged or not. */
static int64_t flat_len(int64_t n, int32_t w, bool flagged)
{
    if (!flagged) return n * w;
    int64_t len = n * (w + 1);
    return len + ((1 - len % w) + w) % w; /* padded to 1 mod w */
}

static int flat_error(const pq_file_meta *m, const pq_nest *t, const pq_nest_leaf *l, int64_t pos,
                      const char *what, pq_err *e)
{
    return pq_nest_pair_error(e, l, m->columns[t[1].col].name, pos, what);
}

/* Pass 1: the rows' offsets and validity into out (reserved for rows rows) from the levels,
 * checked (invariant 1); *flagged whether some row carries element flags, *valid_els the
 * valid elements. out->length and data_len are not moved yet. */
static int flat_rows(const pq_file_meta *m, const pq_nest *t, int32_t w, const pq_nest_leaf *l,
                     int64_t rows, pq_vec *out, bool *flagged, int64_t *valid_els, int64_t *nulls,
                     pq_err *e)
{
    const uint16_t *rep = l->rep, *def = l->def;
    int dv = t[0].def_valid, di = t[0].def_item, de = t[1].def_valid;
    int64_t i = 0, n = l->n, len = out->data_len, base = out->length, vals = 0, nn = 0;
    for (int64_t r = 0; r < rows; r++) {
        if (i >= n) return flat_error(m, t, l, i, "the column ends before its row group", e);
        if (rep[i] != 0)
            return flat_error(m, t, l, i, "repetition level not the one the structure expects", e);
        int d = def[i];
        if (d >= di) { /* elements: every pair up to the next row's first (level 0) */
            int64_t j = i, v = 0;
            do {
                if (def[j] < di) return flat_error(m, t, l, j, "definition level below its parent's", e);
                v += def[j] >= de;
            } while (++j < n && rep[j] != 0);
            len += flat_len(j - i, w, v < j - i);
            *flagged |= v < j - i;
            vals += v;
            i = j;
        } else {
            i++; /* a null or empty list: one pair */
        }
        if (len > INT32_MAX) return RINGSCAN_ELIMIT;
        pq_bit_set(out->validity, base + r, d >= dv);
        nn += d < dv;
        out->offsets[base + r + 1] = (int32_t)len;
    }
    if (i != n)
        return pq_nest_pairs_past(e, l, m->columns[t[1].col].name, n - i, rows);
    assert(vals == l->vals.length); /* invariant 3 */
    *valid_els = vals, *nulls = nn;
    return 0;
}

/* flat_rows for the common split, one with no null element, in passes without a branch per
 * pair or per row boundary (a list's length is data: the checked loop's exits mispredict):
 *  1. over the pairs, sums and one folded flag: the rows (a pair at repetition 0 starts one),
 *     the null elements, and the rules (a next element, repetition 1, is defined to the
 *     item level, and so is the pair before it: a list's previous element or its start);
 *  2. each row's first pair index, compacted into out's offsets (out reserved one row more:
 *     the slot past the rows takes the index n, where the last row ends);
 *  3. per row: valid and elements from its first pair's definition level and the next row's
 *     first pair, turned into offsets in place.
 * False (out's offsets and validity past its rows overwritten) for a split with a null
 * element or a broken rule or past INT32_MAX bytes: flat_rows then does it, or names what
 * is wrong. */
static bool flat_rows_fast(const pq_nest *t, int32_t w, const pq_nest_leaf *l, int64_t rows,
                           pq_vec *out, bool *flagged, int64_t *valid_els, int64_t *nulls)
{
    const uint16_t *rep = l->rep, *def = l->def;
    const uint16_t dv = (uint16_t)t[0].def_valid, di = (uint16_t)t[0].def_item, de = (uint16_t)t[1].def_valid;
    int64_t n = l->n, starts = 0, el_nulls = 0, vals = 0;
    if (n == 0 || rows == 0 || n > UINT32_MAX) return n == 0 && rows == 0;
    uint32_t bad = rep[0] != 0;
    for (int64_t j = 0; j < n; j++) {
        starts += rep[j] == 0;
        el_nulls += (def[j] >= di) & (def[j] < de);
        vals += def[j] >= de;
    }
    for (int64_t j = 1; j < n; j++) bad |= (rep[j] != 0) & ((def[j] < di) | (def[j - 1] < di));
    if (bad || el_nulls || starts != rows) return false;
    uint32_t *word = (uint32_t *)out->offsets + out->length + 1;
    int64_t k = 0;
    for (int64_t j = 0; j < n; j++) {
        word[k] = (uint32_t)j; /* kept when j starts a row, else overwritten */
        k += rep[j] == 0;
    }
    assert(k == rows);
    word[rows] = (uint32_t)n;
    int64_t len = out->data_len, nn = 0, base = out->length;
    for (int64_t r = 0; r < rows; r++) {
        uint16_t d = def[word[r]];
        bool valid = d >= dv;
        len += (d >= di ? (int64_t)(word[r + 1] - word[r]) : 0) * w; /* else one pair: checked */
        pq_bit_set(out->validity, base + r, valid);
        nn += !valid;
        word[r] = (uint32_t)len; /* out->offsets[base + r + 1] */
    }
    if (len > INT32_MAX) return false;
    assert(vals == l->vals.length); /* invariant 3 */
    *flagged = false, *valid_els = vals, *nulls = nn;
    return true;
}

/* Pass 2 when some row is flagged: the rows' bytes written from the (checked) levels. */
static void flat_bytes(const pq_nest *t, int32_t w, pq_nest_leaf *l, int64_t base, pq_vec *out)
{
    const uint8_t *src = l->vals.values;
    int di = t[0].def_item, de = t[1].def_valid;
    int64_t i = 0;
    for (int64_t r = base; r < out->length; r++) {
        uint8_t *p = out->data + out->offsets[r];
        int64_t bytes = out->offsets[r + 1] - out->offsets[r];
        if (l->def[i] < di) { /* null or empty: no bytes */
            assert(bytes == 0);
            i++;
            continue;
        }
        bool flagged;
        int64_t n = pq_nest_flat_count(bytes, w, &flagged);
        assert(flat_len(n, w, flagged) == bytes);
        if (!flagged) {
            memcpy(p, src, (size_t)(n * w));
            src += n * w;
        } else {
            memset(p, 0, (size_t)bytes);
            for (int64_t k = 0; k < n; k++) {
                bool valid = l->def[i + k] >= de;
                p[n * w + k] = valid;
                if (valid) pq_copy_fixed(p + k * w, src, w), src += w;
            }
        }
        i += n;
    }
    assert(i == l->n && (l->vals.length == 0 || src == l->vals.values + l->vals.length * w));
}

int pq_nest_flat_assemble(const pq_file_meta *m, const pq_nest *t, int32_t w, pq_nest_leaf *l,
                          int64_t rows, pq_vec *out, pq_err *e)
{
    assert(w >= 2 && out->type == PQ_BYTE_ARRAY && rows >= 0);
    int rc = pq_vec_reserve(out, rows + 1, 0); /* a slot more for flat_rows_fast */
    if (rc) return rc;
    int64_t base = out->length, data0 = out->data_len, vals = 0, nulls = 0;
    if (out->null_count == 0) /* bits were not kept: the earlier rows are valid */
        for (int64_t r = 0; r < base; r++) pq_bit_set(out->validity, r, true);
    bool flagged = false;
    if (!flat_rows_fast(t, w, l, rows, out, &flagged, &vals, &nulls))
        rc = flat_rows(m, t, w, l, rows, out, &flagged, &vals, &nulls, e);
    if (rc == RINGSCAN_ELIMIT)
        pq_errf_col(e, rc, l->file_off, m->columns[t[1].col].name,
                    "nested rows past %d packed bytes in a split", INT32_MAX);
    int64_t bytes = rc ? 0 : out->offsets[base + rows] - data0;
    if (rc == 0 && !flagged && base == 0 && data0 == 0) { /* the values are the rows' bytes */
        assert(bytes == vals * w);
        free(out->data);
        out->data = l->vals.values, out->data_cap = l->vals.values_cap;
        l->vals.values = NULL, l->vals.values_cap = 0, l->vals.length = 0, l->n = 0; /* spent */
    } else if (rc == 0 && bytes > 0 && (rc = pq_vec_reserve(out, 0, bytes)) == 0 && !flagged) {
        memcpy(out->data + data0, l->vals.values, (size_t)bytes);
    }
    if (rc) return rc; /* invariant 2: nothing was committed */
    out->length = base + rows, out->data_len = data0 + bytes, out->null_count += nulls;
    if (flagged) flat_bytes(t, w, l, base, out);
    l->pos = l->n, l->vpos = l->vals.length;
    return 0;
}
