/* bench/topk_gen.c: the Top-K seed workload's value functions, batch filler, writer loop and
 * model (bench/topk_gen.h has the table's definition and the invariants).
 *
 * Design notes:
 *  - Counter-based randomness: h(seed, r, stream) = splitmix64 finalizer of a linear mix, so
 *    a row's values never depend on what was generated before (the model and any later
 *    reader of a row range get the same values as the writer).
 *  - The model is a bounded heap of the k best (score, id) pairs seen so far, worst at the
 *    root; rows arrive in id order, so a row that only ties the root's score has a larger id
 *    and never displaces it: ties are broken by file order without extra work. */
#include "bench/topk_gen.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ringscan.h"

enum { STREAM_SCORE = 1, STREAM_SENTINEL = 2, STREAM_PAYLOAD = 3 };

static uint64_t mix(uint64_t seed, uint64_t r, uint64_t stream)
{
    uint64_t z = seed * 0x9e3779b97f4a7c15ull + r * 0xbf58476d1ce4e5b9ull +
                 stream * 0x94d049bb133111ebull + 0x2545f4914f6cdd1dull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int topk_gen_init(topk_gen *g, topk_layout layout, uint64_t seed, int64_t row_groups,
                  int64_t row_group_rows)
{
    memset(g, 0, sizeof *g);
    if (layout != TOPK_LAYOUT_PRUNING && layout != TOPK_LAYOUT_CONTROL) return -EINVAL;
    if (row_groups < 1 || row_groups > TOPK_ROW_GROUPS_MAX) return -EINVAL;
    if (row_group_rows < 1 || row_group_rows > TOPK_ROW_GROUP_ROWS_MAX) return -EINVAL;
    int64_t rows = 0;
    if (__builtin_mul_overflow(row_groups, row_group_rows, &rows) || rows > TOPK_ROWS_MAX)
        return -EINVAL;
    *g = (topk_gen){.layout = layout,
                    .seed = seed,
                    .row_groups = row_groups,
                    .row_group_rows = row_group_rows,
                    .rows = rows};
    return 0;
}

/* The pruning layout's score of row r: band(r / R).lo + h % W, W = R, stride 2W. */
static int64_t band_score(const topk_gen *g, int64_t r)
{
    int64_t R = g->row_group_rows, grp = r / R;
    int64_t lo = (g->row_groups - 1 - grp) * 2 * R; /* <= 2N: invariant 1 */
    int64_t s = lo + (int64_t)(mix(g->seed, (uint64_t)r, STREAM_SCORE) % (uint64_t)R);
    assert(s >= 0 && s < 2 * g->rows);
    return s;
}

int64_t topk_sentinel_pos(const topk_gen *g, int64_t grp)
{
    assert(grp >= 0 && grp < g->row_groups);
    return (int64_t)(mix(g->seed, (uint64_t)grp, STREAM_SENTINEL) % (uint64_t)g->row_group_rows);
}

static bool is_sentinel(const topk_gen *g, int64_t r)
{
    if (g->layout != TOPK_LAYOUT_CONTROL) return false;
    int64_t R = g->row_group_rows;
    return r % R == topk_sentinel_pos(g, r / R);
}

int64_t topk_score(const topk_gen *g, int64_t r)
{
    assert(r >= 0 && r < g->rows);
    if (g->layout == TOPK_LAYOUT_PRUNING) return band_score(g, r);
    if (is_sentinel(g, r)) return INT64_MAX;
    int64_t G = g->row_groups;
    int64_t src = (r % G) * g->row_group_rows + r / G; /* sigma: a bijection of [0, N) */
    assert(src >= 0 && src < g->rows);
    return band_score(g, src);
}

int32_t topk_flag(const topk_gen *g, int64_t r)
{
    assert(r >= 0 && r < g->rows);
    return is_sentinel(g, r) ? 1 : 0;
}

int topk_payload(const topk_gen *g, int64_t r, char *out)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz012345"; /* 32 symbols */
    assert(r >= 0 && r < g->rows);
    uint64_t h = mix(g->seed, (uint64_t)r, STREAM_PAYLOAD);
    int len = TOPK_PAYLOAD_LEN_MIN + (int)(h % (TOPK_PAYLOAD_LEN_MAX - TOPK_PAYLOAD_LEN_MIN + 1));
    char head[32];
    int n = snprintf(head, sizeof head, "r%" PRId64 ":", r); /* r < 2^36: at most 13 bytes */
    assert(n > 0 && n < TOPK_PAYLOAD_LEN_MIN);
    memcpy(out, head, (size_t)n);
    for (int i = n; i < len; i++) {
        if ((i - n) % 12 == 0) h = mix(h, (uint64_t)i, STREAM_PAYLOAD); /* 12 x 5 bits a draw */
        out[i] = alphabet[h & 31];
        h >>= 5;
    }
    return len;
}

/* ---- writing ------------------------------------------------------------------------------- */

void topk_gen_schema(pq_column_desc *d)
{
    static const struct {
        const char *name;
        pq_physical p;
        pq_logical l;
    } cols[TOPK_COLS] = {{"score", PQ_INT64, PQ_LOGICAL_NONE},
                         {"id", PQ_INT64, PQ_LOGICAL_NONE},
                         {"payload", PQ_BYTE_ARRAY, PQ_LOGICAL_STRING},
                         {"flag", PQ_INT32, PQ_LOGICAL_NONE}};
    for (int c = 0; c < TOPK_COLS; c++) {
        memset(&d[c], 0, sizeof d[c]);
        d[c].name = cols[c].name;
        d[c].physical = cols[c].p;
        d[c].logical = cols[c].l;
        d[c].repetition = PQ_REQUIRED;
        d[c].field_id = -1;
    }
}

static int reserve_all(pq_vec *cols, int64_t n)
{
    int64_t bytes = n * TOPK_PAYLOAD_LEN_MAX; /* n <= N <= 2^36: no overflow */
    if (cols[TOPK_COL_PAYLOAD].data_len + bytes > INT32_MAX) return RINGSCAN_ELIMIT;
    for (int c = 0; c < TOPK_COLS; c++) {
        int rc = pq_vec_reserve(&cols[c], n, c == TOPK_COL_PAYLOAD ? bytes : 0);
        if (rc) return rc;
    }
    if (cols[TOPK_COL_PAYLOAD].length == 0) cols[TOPK_COL_PAYLOAD].offsets[0] = 0;
    return 0;
}

static void put_row(const topk_gen *g, pq_vec *cols, int64_t r)
{
    int64_t score = topk_score(g, r);
    int32_t flag = topk_flag(g, r);
    pq_vec *s = &cols[TOPK_COL_SCORE], *id = &cols[TOPK_COL_ID], *f = &cols[TOPK_COL_FLAG];
    memcpy(s->values + s->length++ * 8, &score, 8);
    memcpy(id->values + id->length++ * 8, &r, 8);
    memcpy(f->values + f->length++ * 4, &flag, 4);
    pq_vec *p = &cols[TOPK_COL_PAYLOAD];
    int len = topk_payload(g, r, (char *)p->data + p->data_len);
    p->data_len += len;
    p->length++;
    p->offsets[p->length] = (int32_t)p->data_len;
}

int topk_gen_batch(const topk_gen *g, int64_t first, int64_t n, pq_vec *cols)
{
    if (first < 0 || n < 0 || first > g->rows || n > g->rows - first) return -EINVAL;
    for (int c = 0; c < TOPK_COLS; c++)
        assert(cols[c].length == cols[0].length);
    int rc = reserve_all(cols, n);
    if (rc) return rc;
    for (int64_t r = first; r < first + n; r++)
        put_row(g, cols, r);
    for (int c = 0; c < TOPK_COLS; c++)
        assert(cols[c].length == cols[0].length);
    return 0;
}

int topk_gen_write(const topk_gen *g, pq_writer *w, topk_gen_tick tick, void *ctx, pq_err *e)
{
    pq_column_desc d[TOPK_COLS];
    topk_gen_schema(d);
    pq_vec cols[TOPK_COLS];
    for (int c = 0; c < TOPK_COLS; c++)
        pq_vec_init(&cols[c], d[c].physical, 0);
    int rc = 0;
    for (int64_t first = 0; first < g->rows && !rc; first += TOPK_BATCH_ROWS) {
        int64_t n = g->rows - first < TOPK_BATCH_ROWS ? g->rows - first : TOPK_BATCH_ROWS;
        for (int c = 0; c < TOPK_COLS; c++)
            pq_vec_clear(&cols[c]);
        rc = topk_gen_batch(g, first, n, cols);
        if (rc)
            pq_errf(e, rc, -1, "topk generator failed at row %" PRId64, first);
        else
            rc = pq_writer_write(w, cols, n, e);
        if (!rc && tick) tick(ctx, first + n, g->rows);
    }
    for (int c = 0; c < TOPK_COLS; c++)
        pq_vec_free(&cols[c]);
    return rc;
}

/* ---- the model ----------------------------------------------------------------------------- */

typedef struct topk_cand {
    int64_t score, id;
} topk_cand;

/* True when a ranks after b in ORDER BY score [DESC|ASC], id. */
static bool worse(topk_cand a, topk_cand b, bool desc)
{
    if (a.score != b.score) return desc ? a.score < b.score : a.score > b.score;
    return a.id > b.id;
}

/* Restores the heap (worst at 0) below position at, of n entries. */
static void sift_down(topk_cand *h, int64_t n, int64_t at, bool desc)
{
    for (int64_t steps = 0; steps < 64; steps++) { /* depth <= log2(TOPK_EXPECT_MAX) + 1 */
        int64_t l = 2 * at + 1, r = l + 1, top = at;
        if (l < n && worse(h[l], h[top], desc)) top = l;
        if (r < n && worse(h[r], h[top], desc)) top = r;
        if (top == at) return;
        topk_cand t = h[at];
        h[at] = h[top], h[top] = t;
        at = top;
    }
    assert(!"heap deeper than 64 levels");
}

static void sift_up(topk_cand *h, int64_t at, bool desc)
{
    while (at > 0) {
        int64_t up = (at - 1) / 2;
        if (!worse(h[at], h[up], desc)) return;
        topk_cand t = h[at];
        h[at] = h[up], h[up] = t;
        at = up;
    }
}

int topk_gen_expect(const topk_gen *g, int64_t k, bool desc, bool where_flag, int64_t *ids,
                    int64_t *n)
{
    *n = 0;
    if (k < 0 || k > TOPK_EXPECT_MAX) return -EINVAL;
    if (k == 0) return 0;
    topk_cand *h = malloc((size_t)k * sizeof *h);
    if (!h) return -ENOMEM;
    int64_t size = 0;
    for (int64_t r = 0; r < g->rows; r++) {
        if (where_flag && topk_flag(g, r) != 0) continue;
        topk_cand c = {topk_score(g, r), r};
        if (size < k) {
            h[size] = c;
            sift_up(h, size++, desc);
        } else if (worse(h[0], c, desc)) {
            h[0] = c;
            sift_down(h, size, 0, desc);
        }
    }
    *n = size;
    for (int64_t i = size - 1; i >= 0; i--) { /* pop the worst into the last free place */
        ids[i] = h[0].id;
        h[0] = h[i];
        sift_down(h, i, 0, desc);
    }
    free(h);
    return 0;
}
