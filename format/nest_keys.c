/* format/nest_keys.c: the null keys of a map whose key the schema makes OPTIONAL.
 *
 * The format says a MAP's key is REQUIRED; parquet-mr 1.12 wrote some as OPTIONAL
 * (meta_schema.c invariant 4). Such a map reads (DuckDB reads it, pyarrow refuses the file),
 * and since Arrow's map keys are never null (nest_schema.c invariant 3), a key that is null
 * in the data fails the read naming the row, the row group, the map and the key's column
 * (DuckDB's "Map keys can not be NULL"), never a null key exported as a valid one. As
 * DuckDB, only the rows a scan keeps are checked: the caller checks the leaves after they are
 * cut to a filtered split's rows (nest_select.c), naming a row by its index in the row group,
 * and learns the row's index among the leaves' rows, so that under a limit it can keep the
 * rows before it and fail only when the output reaches it (scan/task_nested.c); under
 * ORDER BY ... LIMIT it lists every such row (pq_nest_keys_rows), for the Top-K merge to fail
 * only if one is in the answer (scan/topk.h invariant 4).
 *
 * Invariants:
 *  1. Only a map node's key is checked: a path that reaches the keys as a list
 *     ("m.key_value.key", DuckDB's map_keys) or a map of keys alone (read as a list of them)
 *     holds a null key as a null element, which is the data as written.
 *  2. An entry's key is null when the first level pair of its key's first leaf (repetition at
 *     most the map's rep_item) is defined to the entry (def_item) but not to the key
 *     (def_valid). The levels were checked against the leaf's maxima when decoded
 *     (column_nested.h invariant 1); the work is one pass over that leaf's levels, bounded by
 *     its count, for such maps only.
 *  3. The row named is the earliest holding a null key in any of the field's maps (a field
 *     may hold several), so the rows before it hold none: a caller that keeps only those
 *     exports no null key. */
#include <assert.h>

#include "format/column_nested.h"

/* The level pair of leaf l at which map node k's key (node key) is first null, or -1. */
static int64_t first_null_key(const pq_nest *map, const pq_nest *key, const pq_nest_leaf *l)
{
    for (int64_t i = 0; i < l->n; i++) {
        if (l->rep[i] > map->rep_item) continue; /* inside a key that repeats itself */
        if (l->def[i] >= map->def_item && l->def[i] < key->def_valid) return i;
    }
    return -1;
}

/* The row (among leaf l's rows) holding l's level pair at. */
static int64_t row_of(const pq_nest_leaf *l, int64_t at)
{
    int64_t row = -1;
    for (int64_t i = 0; i <= at; i++) row += l->rep[i] == 0;
    assert(row >= 0); /* (a leaf's first pair starts a row: nest_select.c invariant 1) */
    return row;
}

/* Map node t[k]'s key node when the schema makes that key OPTIONAL (its null keys are to be
 * found), else NULL (not a map, or a REQUIRED key). */
static const pq_nest *optional_key(const pq_nest *t, int32_t k)
{
    if (t[k].kind != PQ_NEST_MAP) return NULL;
    const pq_nest *s = &t[k + 1], *key = &t[k + 2]; /* the entries, their first field */
    assert(s->kind == PQ_NEST_STRUCT && s->nchildren >= 1 && s->def_valid == t[k].def_item);
    assert(!key->nullable); /* nest_schema.c invariant 3 */
    if (key->def_valid <= s->def_valid) return NULL; /* a REQUIRED key */
    assert(key->leaf_lo >= t[0].leaf_lo && key->leaf_lo < t[0].leaf_hi);
    return key;
}

/* The null key of map t[map] (key node key, leaf l) in the leaves' row `row`. */
static pq_nest_null_key null_key(const pq_nest *t, int32_t map, const pq_nest *key,
                                 const pq_nest_leaf *l, const uint32_t *sel, int32_t rg,
                                 int64_t row0, int64_t row)
{
    return (pq_nest_null_key){.row = row0 + (sel ? sel[row] : row), .file_off = l->file_off,
                              .rg = rg, .map = t[map].src, .col = key->leaf_lo};
}

int pq_nest_null_key_named(const pq_nest_null_key *k, const char *column, const char *map,
                           pq_err *e)
{
    return pq_errf_col(e, RINGSCAN_EFORMAT, k->file_off, column,
                       "row %lld of row group %d holds a null key in map '%.200s' (its key "
                       "is optional in the schema; a map's keys cannot be null)",
                       (long long)k->row, (int)k->rg, map);
}

int pq_nest_null_key_err(const pq_file_meta *m, const pq_nest_null_key *k, pq_err *e)
{
    assert(k->map >= 0 && k->map < m->nnodes && k->col >= 0 && k->col < m->ncolumns);
    return pq_nest_null_key_named(k, m->columns[k->col].name, m->nodes[k->map].path, e);
}

int pq_nest_keys_check(const pq_file_meta *m, const pq_nest *t, const pq_nest_leaf *leaves,
                       const uint32_t *sel, int32_t rg, int64_t row0, int64_t *at_row,
                       pq_err *e)
{
    int32_t map = -1; /* the map whose null key lies in the earliest row (*at_row) */
    *at_row = -1;
    for (int32_t k = 0; k < t[0].end; k++) {
        const pq_nest *key = optional_key(t, k);
        if (!key) continue;
        const pq_nest_leaf *l = &leaves[key->leaf_lo - t[0].leaf_lo];
        int64_t at = first_null_key(&t[k], key, l), row = at < 0 ? -1 : row_of(l, at);
        if (row >= 0 && (*at_row < 0 || row < *at_row)) *at_row = row, map = k;
    }
    if (map < 0) return 0;
    const pq_nest *key = &t[map + 2];
    const pq_nest_leaf *l = &leaves[key->leaf_lo - t[0].leaf_lo];
    pq_nest_null_key nk = null_key(t, map, key, l, sel, rg, row0, *at_row);
    return pq_nest_null_key_err(m, &nk, e);
}

int64_t pq_nest_keys_rows(const pq_nest *t, const pq_nest_leaf *leaves, int64_t rows,
                          const uint32_t *sel, int32_t rg, int64_t row0, pq_nest_null_key *out)
{
    int64_t marked = 0;
    for (int64_t i = 0; i < rows; i++) out[i].map = -1;
    for (int32_t k = 0; k < t[0].end; k++) {
        const pq_nest *key = optional_key(t, k);
        if (!key) continue;
        const pq_nest_leaf *l = &leaves[key->leaf_lo - t[0].leaf_lo];
        int64_t row = -1;
        for (int64_t i = 0; i < l->n; i++) { /* (invariant 2, for each row) */
            row += l->rep[i] == 0;
            if (row >= rows) break;
            if (row < 0 || l->rep[i] > t[k].rep_item || out[row].map >= 0) continue;
            if (l->def[i] >= t[k].def_item && l->def[i] < key->def_valid) {
                out[row] = null_key(t, k, key, l, sel, rg, row0, row);
                marked++;
            }
        }
    }
    assert(marked >= 0 && marked <= rows);
    return marked;
}
