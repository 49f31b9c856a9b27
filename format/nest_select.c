/* format/nest_select.c: a nested field's decoded leaves cut down to a split's selected rows
 * before they are assembled, so a filtered split builds the packed rows or columns of the
 * rows it keeps only (scan/task_nested.c), instead of building every row and then taking the
 * kept ones (format/nest_take.c); or cut to their first rows, so a split under a limit
 * builds the rows before one whose map key is null and never that one (pq_nest_leaves_head).
 *
 * Invariants:
 *  1. The leaves are cut only when each holds exactly the split's rows (a row starts at each
 *     repetition level 0; a leaf repeated nowhere has one level pair per row); otherwise they
 *     are left whole, so the assembly meets the broken leaf and names it (column_nested.h
 *     invariant 1).
 *  2. A cut leaf keeps, in order, the level pairs of the selected rows and the values those
 *     pairs define (definition level at the leaf's maximum): what decoding only those rows
 *     would have given. It is done in place (a kept pair or value only moves down), with no
 *     allocation.
 *  3. Work is one pass over each leaf's levels (the skipped ones in blocks: rows_past) and
 *     one move of its kept values.
 *  4. A blanked row (pq_nest_leaves_blank) keeps one level pair, (0, 0), in every leaf that
 *     has a definition level: the shallowest optional or repeated node on each leaf's path is
 *     null or empty. Two leaves share the nodes above where their paths part, so they agree
 *     on which node that is: the rows read as a valid value, with no value of a leaf left. */
#include <assert.h>
#include <string.h>

#include "format/column_nested.h"

/* Whether leaf l holds exactly rows rows (invariant 1). */
static bool leaf_rows(const pq_nest_leaf *l, bool repeated, int64_t rows)
{
    if (!repeated) return l->n == rows;
    int64_t starts = 0;
    for (int64_t i = 0; i < l->n; i++) starts += l->rep[i] == 0;
    return starts == rows && (l->n == 0 || l->rep[0] == 0);
}

/* The level pair k rows past pair p (a row's first), counting into *defined the pairs on the
 * way whose definition level is md (the values they hold). A repeated leaf's row ends before
 * the next repetition level 0: whole blocks of BLOCK pairs holding no more row starts than
 * are left are counted in one branch-free pass (most of a sparse selection's levels are
 * skipped), the rest pair by pair. */
enum { BLOCK = 64 };
static int64_t rows_past(const pq_nest_leaf *l, bool repeated, int64_t p, int64_t k, int md,
                         int64_t *defined)
{
    const uint16_t *rep = l->rep, *def = l->def;
    int64_t end = repeated ? p : p + k, d = 0, starts = 0; /* row starts in [p, end) */
    while (repeated && end + BLOCK <= l->n) {
        int s = 0, dd = 0; /* (int: the loop vectorizes) */
        for (int i = 0; i < BLOCK; i++) s += rep[end + i] == 0, dd += def[end + i] == md;
        if (starts + s > k) break; /* the row after the k-th starts in this block */
        starts += s, d += dd, end += BLOCK;
    }
    for (; repeated && end < l->n; end++) {
        if (rep[end] == 0 && starts++ == k) break;
        d += def[end] == md;
    }
    assert(end <= l->n);
    for (int64_t i = p; !repeated && i < end; i++) d += def[i] == md;
    *defined += d;
    return end;
}

/* Values [from, from + n) of v moved down to [to, to + n) (to <= from). */
static void vals_move(pq_vec *v, int64_t from, int64_t n, int64_t to)
{
    assert(to <= from && from + n <= v->length);
    if (to == from || n == 0) return;
    if (v->type == PQ_BOOLEAN) {
        for (int64_t i = 0; i < n; i++)
            pq_bit_set(v->values, to + i, pq_bit_get(v->values, from + i));
    } else if (v->type == PQ_BYTE_ARRAY) {
        int32_t lo = v->offsets[from], at = v->offsets[to], bytes = v->offsets[from + n] - lo;
        if (bytes) memmove(v->data + at, v->data + lo, (size_t)bytes); /* (none: data may be NULL) */
        for (int64_t i = 1; i <= n; i++) v->offsets[to + i] = v->offsets[from + i] - lo + at;
    } else {
        size_t w = (size_t)pq_fixed_width(v->type, v->type_length);
        memmove(v->values + (size_t)to * w, v->values + (size_t)from * w, (size_t)n * w);
    }
}

/* Leaf l cut to the rows sel[0..nsel) (rising; invariant 2). */
static void leaf_select(pq_nest_leaf *l, bool repeated, int md, const uint32_t *sel, int64_t nsel)
{
    int64_t p = 0, w = 0, vp = 0, vw = 0, row = 0;
    for (int64_t i = 0; i < nsel;) {
        int64_t lo = sel[i], hi = lo + 1;
        for (i++; i < nsel && sel[i] == hi; i++) hi++;
        assert(lo >= row);
        p = rows_past(l, repeated, p, lo - row, md, &vp); /* the rows skipped */
        int64_t nv = 0, e = rows_past(l, repeated, p, hi - lo, md, &nv);
        memmove(l->rep + w, l->rep + p, sizeof *l->rep * (size_t)(e - p));
        memmove(l->def + w, l->def + p, sizeof *l->def * (size_t)(e - p));
        vals_move(&l->vals, vp, nv, vw);
        w += e - p, vw += nv, vp += nv, p = e, row = hi;
    }
    l->n = w, l->vals.length = vw;
    if (l->vals.type == PQ_BYTE_ARRAY) /* (no value kept: the offsets may never have been made) */
        l->vals.data_len = vw ? l->vals.offsets[vw] : 0;
}

/* Whether each of field t's leaves holds exactly rows rows, decoded and not yet assembled
 * (invariant 1). */
static bool leaves_rows(const pq_file_meta *m, const pq_nest *t, const pq_nest_leaf *leaves,
                        int64_t rows)
{
    int32_t n = t[0].leaf_hi - t[0].leaf_lo;
    for (int32_t i = 0; i < n; i++) {
        const pq_column_desc *d = &m->columns[t[0].leaf_lo + i];
        assert(leaves[i].pos == 0 && leaves[i].vpos == 0); /* decoded, not yet assembled */
        if (!leaf_rows(&leaves[i], d->max_rep_level > 0, rows)) return false;
    }
    return true;
}

bool pq_nest_leaves_select(const pq_file_meta *m, const pq_nest *t, pq_nest_leaf *leaves,
                           int64_t rows, const uint32_t *sel, int64_t nsel)
{
    assert(nsel >= 0 && nsel <= rows);
    int32_t n = t[0].leaf_hi - t[0].leaf_lo;
    if (!leaves_rows(m, t, leaves, rows)) return false;
    for (int32_t i = 0; i < n; i++) {
        const pq_column_desc *d = &m->columns[t[0].leaf_lo + i];
        leaf_select(&leaves[i], d->max_rep_level > 0, d->max_def_level, sel, nsel);
    }
    return true;
}

bool pq_nest_leaves_head(const pq_file_meta *m, const pq_nest *t, pq_nest_leaf *leaves,
                         int64_t rows, int64_t keep)
{
    assert(keep >= 0 && keep <= rows);
    int32_t n = t[0].leaf_hi - t[0].leaf_lo;
    if (!leaves_rows(m, t, leaves, rows)) return false;
    for (int32_t i = 0; i < n; i++) { /* (a prefix: nothing moves, the ends come down) */
        const pq_column_desc *d = &m->columns[t[0].leaf_lo + i];
        pq_nest_leaf *l = &leaves[i];
        int64_t nv = 0;
        l->n = rows_past(l, d->max_rep_level > 0, 0, keep, d->max_def_level, &nv);
        l->vals.length = nv;
        if (l->vals.type == PQ_BYTE_ARRAY) l->vals.data_len = nv ? l->vals.offsets[nv] : 0;
    }
    return true;
}

/* Leaf l with the rows blank[0..nb) made absent (invariant 4), in place: a blanked row's
 * pairs (at least one) become one, so nothing moves up. */
static void leaf_blank(pq_nest_leaf *l, bool repeated, int md, const uint32_t *blank, int64_t nb)
{
    int64_t p = 0, w = 0, vp = 0, vw = 0, row = 0;
    for (int64_t i = 0; i <= nb; i++) {
        int64_t nv = 0, e = i < nb ? rows_past(l, repeated, p, blank[i] - row, md, &nv) : l->n;
        if (i == nb) nv = l->vals.length - vp; /* the rows after the last blanked one */
        assert(i == nb || blank[i] >= row);
        memmove(l->rep + w, l->rep + p, sizeof *l->rep * (size_t)(e - p));
        memmove(l->def + w, l->def + p, sizeof *l->def * (size_t)(e - p));
        vals_move(&l->vals, vp, nv, vw);
        w += e - p, vw += nv, vp += nv, p = e;
        if (i == nb) break;
        int64_t dropped = 0; /* the blanked row's pairs and values */
        p = rows_past(l, repeated, p, 1, md, &dropped);
        vp += dropped;
        l->rep[w] = 0, l->def[w] = 0, w++;
        row = blank[i] + 1;
    }
    assert(w <= l->n && vw <= l->vals.length);
    l->n = w, l->vals.length = vw;
    if (l->vals.type == PQ_BYTE_ARRAY) l->vals.data_len = vw ? l->vals.offsets[vw] : 0;
}

bool pq_nest_leaves_blank(const pq_file_meta *m, const pq_nest *t, pq_nest_leaf *leaves,
                          int64_t rows, const uint32_t *blank, int64_t nblank)
{
    assert(nblank >= 0 && nblank <= rows);
    int32_t n = t[0].leaf_hi - t[0].leaf_lo;
    if (!leaves_rows(m, t, leaves, rows)) return false;
    for (int32_t i = 0; i < n; i++) {
        const pq_column_desc *d = &m->columns[t[0].leaf_lo + i];
        if (d->max_def_level == 0) continue; /* (required all the way: one value per row) */
        leaf_blank(&leaves[i], d->max_rep_level > 0, d->max_def_level, blank, nblank);
    }
    return true;
}
