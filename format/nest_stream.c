/* format/nest_stream.c: a nested field's leaf decoded for one split of a cut row group: the
 * level pairs and values of its rows [lo, hi) only, its chunk's pages decoded once across
 * the splits one core runs in order (scan/task_nested.c). A row group too large for one
 * split's packed rows (their INT32_MAX bytes, Arrow's int32 offsets) is cut by rows
 * (scan/plan_cut.c), and a nested leaf has no offset index to find a row's page: its rows
 * are found by their repetition levels (a row starts at each level 0) as the pages are
 * decoded. Chosen over keeping the whole chunk's decoded leaves for its splits: those held a
 * row group's worth (4.8 GB of levels and values for 600M floats) where this holds one
 * split's and the rest of one page.
 *
 * Invariants:
 *  1. s->carry holds the level pairs (and the values they define) of rows s->row onwards
 *     decoded from the pages before s->pos, and nothing else: it starts at a row start
 *     (repetition level 0), or is empty.
 *  2. A call hands l exactly what decoding rows [lo, hi) alone would give (nest_select.c's
 *     invariant 2), when the chunk holds them: rows before lo are dropped as pages come in
 *     (at most one page's worth beyond the split's rows is held), the pairs from row hi on
 *     go to the carry for the next split.
 *  3. Each page is decoded once while the calls ask for rising row ranges; a call for rows
 *     before s->row starts over from the chunk's first page (its dictionary with it), or
 *     with an offset index from the page holding its first row (invariant 7).
 *  4. Every loop is bounded by the chunk's bytes (each page moves pos forward) or the level
 *     pairs held.
 *  5. A core runs several split tasks at once, which may reach a nested slot out of their
 *     order: a live stream asked for rows past the next ones parks the rows it skips (whole
 *     rows, contiguous, of one chunk) and a later call for rows among them takes them from
 *     there instead of decoding the chunk again from its start. Parked rows are what the
 *     out-of-order tasks of one core skipped, no more: a stream started over (a steal, or a
 *     row range behind it that nothing parked) drops the rows before its split.
 *  6. A call decodes only pages that lie wholly inside the window of the chunk it is given
 *     (a chunk larger than a window is read in windows by the scan: scan/task_nwin.c). At a
 *     page that passes the window's end while the chunk goes on it returns PQ_NEST_NEED with
 *     the rows decoded so far in the carry (from row s->row, a row start: invariant 1 holds)
 *     and the window asked for strictly larger than what the window held from s->pos, so the
 *     calls that answer it move pos forward or reach the chunk's end (at most
 *     log2(PQ_NEST_HEADER_MAX) growths for one header).
 *  7. Given the chunk's offset index (w->oi, checked against the chunk), a call whose row lo
 *     lies in a page the stream has not reached jumps there: the rows held before it go (not
 *     parked), the stream's row becomes the page's first_row_index and its position the
 *     page's, once the pages before the first data page (the dictionary) are decoded; a
 *     stream started over on the chunk it had passed the dictionary of keeps it. So a split
 *     another core runs (a steal: scan/fetch_unit.c fetch_stealable_in) decodes its own
 *     pages and the chunk's dictionary page, not the pages before its rows. Which skipped
 *     rows a call parks (invariant 5) the caller says (w->park_from: its core's unit of
 *     splits starts there, so rows before it are another core's): a call parks only rows
 *     from there (a stream new to the chunk too: its core's other task may run the unit's
 *     first split after) and jumps over the rest; rows the stream already ran (before it
 *     went back behind them, or on to the chunk's end: s->done_*) are never parked again
 *     (each would be decoded twice), and a stream going back parks nothing. The index
 *     promises that its pages begin at rows (Parquet's PageLocation); a file need not keep
 *     it, so every page a stream decodes that the index starts is checked: it begins a row,
 *     the row the pages decoded since the stream's start or jump reached (s->next_row), and
 *     no page of the index starts inside a page decoded (RINGSCAN_EFORMAT naming the page
 *     otherwise). A jump's page is taken on trust, but the stream of the rows before it
 *     decodes that page too (to find where its last row ends) and checks it, so a scan that
 *     runs to its end fails on an index whose rows disagree with the levels. Before a jump
 *     the stream asks for the dictionary's bytes only (need_exact), not a window from the
 *     chunk's start. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "format/column_nested.h"

pq_nest_stream *pq_nest_streams(pq_col_reader *r, const pq_column_desc *first, int32_t n)
{
    assert(n > 0 && r->nest_nkeep == n); /* (pq_nest_leaves_keep first) */
    if (r->nest_stream) return r->nest_stream;
    r->nest_stream = fail_calloc((size_t)n, sizeof *r->nest_stream);
    if (!r->nest_stream) return NULL;
    for (int32_t i = 0; i < n; i++) {
        r->nest_stream[i].rg = r->nest_stream[i].park_rg = r->nest_stream[i].done_rg = -1;
        pq_nest_leaf_init(&r->nest_stream[i].carry, &first[i]);
        for (int k = 0; k < PQ_NEST_PARKS; k++)
            pq_nest_leaf_init(&r->nest_stream[i].park[k].l, &first[i]);
    }
    return r->nest_stream;
}

void pq_nest_stream_free(pq_nest_stream *s)
{
    pq_nest_leaf_free(&s->carry);
    for (int k = 0; k < PQ_NEST_PARKS; k++) pq_nest_leaf_free(&s->park[k].l);
    if (s->rd.col) pq_colr_free(&s->rd);
    memset(s, 0, sizeof *s);
    s->rg = s->park_rg = s->done_rg = -1;
}

static void leaf_empty(pq_nest_leaf *l)
{
    l->n = l->pos = l->vpos = 0;
    pq_vec_clear(&l->vals);
}

/* a's and b's pairs and values swapped (their buffers with them; each keeps its file_off
 * and row0). */
static void leaf_swap(pq_nest_leaf *a, pq_nest_leaf *b)
{
    pq_nest_leaf t = *a;
    int64_t a_off = a->file_off, b_off = b->file_off, a_row0 = a->row0, b_row0 = b->row0;
    *a = *b, *b = t;
    a->file_off = a_off, b->file_off = b_off, a->row0 = a_row0, b->row0 = b_row0;
}

/* s at the start of rg's chunk at file_off, its carry empty (invariant 1). */
static void stream_reset(pq_nest_stream *s, int32_t rg, int64_t file_off)
{
    s->rg = rg, s->file_off = file_off, s->row = 0, s->pos = 0;
    s->ran_lo = s->next_row = 0;
    leaf_empty(&s->carry);
}

/* Where a call for rows from lo may start by w's offset index (invariant 7): chunk bytes
 * data (its first data page) and off (the page holding row lo, first row row). */
typedef struct nest_seek {
    uint64_t data, off;
    int64_t row;
} nest_seek;

/* The seek of w's offset index for row lo; false without an index. */
static bool seek_of(const pq_nest_win *w, int64_t lo, nest_seek *k)
{
    const pq_offset_index *oi = w->oi;
    if (!oi) return false;
    assert(oi->npages > 0 && oi->pages[0].first_row_index == 0 && lo >= 0);
    int32_t a = 0, b = oi->npages; /* the last page whose first row is at most lo: in [a, b) */
    while (b - a > 1) {
        int32_t m = a + (b - a) / 2;
        if (oi->pages[m].first_row_index <= lo) a = m;
        else b = m;
    }
    const pq_page_location *pg = &oi->pages[a];
    assert(pg->offset >= w->file_off && (uint64_t)(pg->offset - w->file_off) < w->chunk_len);
    assert(oi->pages[0].offset >= w->file_off && oi->pages[0].offset <= pg->offset);
    k->data = (uint64_t)(oi->pages[0].offset - w->file_off);
    k->off = (uint64_t)(pg->offset - w->file_off);
    k->row = pg->first_row_index;
    assert(k->row <= lo);
    return true;
}

/* Values [from, from + n) of s appended to d (same type; room reserved). */
static void vals_append(pq_vec *d, const pq_vec *s, int64_t from, int64_t n)
{
    assert(from >= 0 && from + n <= s->length && d->type == s->type);
    if (n == 0) return;
    if (s->type == PQ_BOOLEAN) {
        for (int64_t i = 0; i < n; i++)
            pq_bit_set(d->values, d->length + i, pq_bit_get(s->values, from + i));
    } else if (s->type == PQ_BYTE_ARRAY) {
        int32_t lo = s->offsets[from], at = (int32_t)d->data_len;
        int32_t bytes = s->offsets[from + n] - lo;
        if (bytes) memcpy(d->data + at, s->data + lo, (size_t)bytes); /* (none: data may be NULL) */
        d->offsets[d->length] = at;
        for (int64_t i = 1; i <= n; i++) d->offsets[d->length + i] = s->offsets[from + i] - lo + at;
        d->data_len = d->offsets[d->length + n];
    } else {
        size_t w = (size_t)pq_fixed_width(s->type, s->type_length);
        memcpy(d->values + (size_t)d->length * w, s->values + (size_t)from * w, (size_t)n * w);
    }
    d->length += n;
}

/* Level pairs [a, b) of l (leaf of maximum definition level md) and the values they define
 * appended to d. 0 or -ENOMEM (d then unchanged). */
static int span_to(const pq_nest_leaf *l, int64_t a, int64_t b, int md, pq_nest_leaf *d)
{
    assert(a >= 0 && a <= b && b <= l->n);
    if (a == b) return 0; /* (nothing to move: the buffers may not exist yet) */
    int64_t k = b - a, v0 = 0, nv = 0, bytes = 0;
    for (int64_t i = 0; i < a; i++) v0 += l->def[i] == md;
    for (int64_t i = a; i < b; i++) nv += l->def[i] == md;
    assert(v0 + nv <= l->vals.length); /* (a defined pair holds one value: leaf_page) */
    if (l->vals.type == PQ_BYTE_ARRAY && nv) bytes = l->vals.offsets[v0 + nv] - l->vals.offsets[v0];
    int rc = pq_nest_leaf_reserve(d, k);
    if (rc == 0) rc = pq_vec_reserve(&d->vals, nv, bytes);
    if (rc) return rc;
    memcpy(d->rep + d->n, l->rep + a, sizeof *l->rep * (size_t)k);
    memcpy(d->def + d->n, l->def + a, sizeof *l->def * (size_t)k);
    d->n += k;
    vals_append(&d->vals, &l->vals, v0, nv);
    return 0;
}

/* l cut before pair p (its values with it). */
static void leaf_cut(pq_nest_leaf *l, int64_t p, int md)
{
    assert(p >= 0 && p <= l->n);
    int64_t nv = 0;
    for (int64_t i = p; i < l->n; i++) nv += l->def[i] == md;
    int64_t v0 = l->vals.length - nv;
    assert(v0 >= 0);
    l->n = p, l->vals.length = v0;
    if (l->vals.type == PQ_BYTE_ARRAY) l->vals.data_len = v0 ? l->vals.offsets[v0] : 0;
}

/* Level pairs [p, l->n) of l and their values appended to d; l cut before them. 0 or
 * -ENOMEM (l and d then unchanged). */
static int tail_to(pq_nest_leaf *l, int64_t p, int md, pq_nest_leaf *d)
{
    int rc = span_to(l, p, l->n, md, d);
    if (rc == 0) leaf_cut(l, p, md);
    return rc;
}

/* l's pairs before p and their values dropped, the rest moved down. */
static void leaf_drop(pq_nest_leaf *l, int64_t p, int md)
{
    assert(p >= 0 && p <= l->n);
    if (p == 0) return;
    int64_t v0 = 0, k = l->n - p;
    for (int64_t i = 0; i < p; i++) v0 += l->def[i] == md;
    int64_t nv = l->vals.length - v0;
    memmove(l->rep, l->rep + p, sizeof *l->rep * (size_t)k);
    memmove(l->def, l->def + p, sizeof *l->def * (size_t)k);
    pq_vec *v = &l->vals;
    if (v->type == PQ_BOOLEAN) {
        for (int64_t i = 0; i < nv; i++) pq_bit_set(v->values, i, pq_bit_get(v->values, v0 + i));
    } else if (v->type == PQ_BYTE_ARRAY && nv) {
        int32_t at = v->offsets[v0], bytes = v->offsets[v0 + nv] - at;
        if (bytes) memmove(v->data, v->data + at, (size_t)bytes); /* (none: data may be NULL) */
        for (int64_t i = 0; i <= nv; i++) v->offsets[i] = v->offsets[v0 + i] - at;
        v->data_len = v->offsets[nv];
    } else if (v->type == PQ_BYTE_ARRAY) {
        v->data_len = 0;
    } else if (nv) {
        size_t w = (size_t)pq_fixed_width(v->type, v->type_length);
        memmove(v->values, v->values + (size_t)v0 * w, (size_t)nv * w);
    }
    l->n = k, v->length = nv;
}

/* Row scanning: pairs below at scanned, starts the rows begun among them. */
typedef struct {
    int64_t at, starts;
} row_cur;

/* The index of the pair starting l's row k (0-based), scanning on from c; -1 when the pairs
 * held do not reach it yet. A leaf repeated nowhere has one pair per row. */
static int64_t row_start(const pq_nest_leaf *l, bool repeated, row_cur *c, int64_t k)
{
    assert(k >= 0);
    if (!repeated) return k < l->n ? k : -1;
    for (; c->at < l->n; c->at++) {
        if (l->rep[c->at] != 0) continue;
        if (c->starts == k) return c->at;
        c->starts++;
    }
    return -1;
}

/* The park holding rows [lo, hi) of rg's chunk at file_off, or NULL. */
static struct pq_nest_park *park_of(pq_nest_stream *s, int32_t rg, int64_t file_off, int64_t lo,
                                    int64_t hi)
{
    for (int i = 0; s->park_rg == rg && s->park_off == file_off && i < PQ_NEST_PARKS; i++)
        if (s->park[i].lo <= lo && hi <= s->park[i].hi && s->park[i].lo < s->park[i].hi)
            return &s->park[i];
    return NULL;
}

/* Parks l's pairs before p, rows [row0, lo) of the stream's chunk (a live stream skipping
 * rows another task of the core has not taken yet: invariant 5): after the park ending at
 * row0, else in an empty one, else in place of the one parked first. 0 or -ENOMEM. */
static int park(pq_nest_stream *s, const pq_nest_leaf *l, int64_t p, int md, int64_t row0,
                int64_t lo)
{
    if (s->park_rg != s->rg || s->park_off != s->file_off) {
        for (int i = 0; i < PQ_NEST_PARKS; i++)
            leaf_empty(&s->park[i].l), s->park[i].lo = s->park[i].hi = 0;
        s->park_rg = s->rg, s->park_off = s->file_off;
    }
    struct pq_nest_park *k = NULL;
    for (int i = 0; !k && i < PQ_NEST_PARKS; i++)
        if (s->park[i].lo < s->park[i].hi && s->park[i].hi == row0) k = &s->park[i];
    for (int i = 0; !k && i < PQ_NEST_PARKS; i++)
        if (s->park[i].lo == s->park[i].hi) k = &s->park[i];
    for (int i = 0; !k && i < PQ_NEST_PARKS; i++) /* (every one full: the lowest rows go) */
        if (i + 1 == PQ_NEST_PARKS || s->park[i].lo < s->park[i + 1].lo) k = &s->park[i];
    if (k->lo == k->hi || k->hi != row0) leaf_empty(&k->l), k->lo = row0;
    int rc = span_to(l, 0, p, md, &k->l);
    k->hi = rc == 0 ? lo : k->lo;
    if (rc) leaf_empty(&k->l);
    return rc;
}

/* l's pairs before p (rows before the split's first) dropped, or parked when live: the rest
 * moved down through the carry (empty here: moved into l first), at most a page's worth. 0
 * or -ENOMEM. */
static int drop_front(pq_nest_stream *s, pq_nest_leaf *l, int64_t p, int md, bool live,
                      int64_t row0, int64_t lo)
{
    assert(s->carry.n == 0 && s->carry.vals.length == 0);
    int rc = live ? park(s, l, p, md, row0, lo) : 0;
    if (rc == 0) rc = tail_to(l, p, md, &s->carry);
    if (rc) return rc;
    leaf_empty(l);
    return tail_to(&s->carry, 0, md, l);
}

/* Rows [lo, hi) from a park into l when one holds them (true), the park's rows before hi
 * then dropped when it starts at lo; *rc 0 or -ENOMEM. */
static bool unpark(pq_nest_stream *s, bool repeated, int md, int32_t rg, int64_t file_off,
                   int64_t lo, int64_t hi, pq_nest_leaf *l, int *rc)
{
    struct pq_nest_park *k = park_of(s, rg, file_off, lo, hi);
    if (!k) return false;
    row_cur c = {0, 0};
    int64_t a = row_start(&k->l, repeated, &c, lo - k->lo);
    int64_t b = hi == k->hi ? k->l.n : row_start(&k->l, repeated, &c, hi - k->lo);
    assert(a >= 0 && b >= a); /* (parked: whole rows [lo, hi)) */
    *rc = span_to(&k->l, a, b, md, l);
    if (*rc == 0 && lo == k->lo) { /* (the rest kept for a later split) */
        leaf_drop(&k->l, b, md);
        k->lo = hi;
    }
    return true;
}

/* PQ_NEST_NEED for chunk bytes from s->pos, n of them at least (1 <= n, at most the
 * chunk's rest: invariant 6). */
static int need(pq_nest_stream *s, const pq_nest_win *w, uint64_t n)
{
    assert(s->pos < w->chunk_len);
    uint64_t rest = w->chunk_len - s->pos;
    s->need_off = s->pos, s->need_len = n < 1 ? 1 : n > rest ? rest : n;
    return PQ_NEST_NEED;
}

/* The page at s->pos decoded onto l (pq_nest_leaf_next), s->pos moved past it, when it lies
 * wholly inside w, or w reaches the chunk's end, or its header does not parse within
 * PQ_NEST_HEADER_MAX bytes, or its sizes pass the limit or the chunk (its error then);
 * else PQ_NEST_NEED for a window holding it (invariant 6). */
static int win_page(pq_col_reader *r, pq_nest_stream *s, const pq_nest_win *w, pq_nest_leaf *l,
                    pq_err *e)
{
    assert(s->pos < w->chunk_len && w->len <= w->chunk_len && w->off <= w->chunk_len - w->len);
    if (s->pos < w->off || s->pos - w->off >= w->len) return need(s, w, 1);
    size_t at = (size_t)(s->pos - w->off), avail = w->len - at;
    if (w->off + w->len < w->chunk_len) { /* the chunk goes on past w */
        pq_page_header h;
        pq_err quiet;
        memset(&quiet, 0, sizeof quiet);
        int hl = pq_page_header_parse(w->data + at, avail, &h, &quiet);
        uint64_t grown = 2 * (uint64_t)avail; /* (at most the limit: any window size) */
        if (hl < 0 && (at > 0 || avail < PQ_NEST_HEADER_MAX))
            return need(s, w, at > 0 ? (uint64_t)avail + 1
                                     : grown < PQ_NEST_HEADER_MAX ? grown : PQ_NEST_HEADER_MAX);
        if (hl > 0 && h.compressed_size >= 0 && h.compressed_size <= r->limits.max_page_bytes) {
            uint64_t page = (uint64_t)hl + (uint64_t)h.compressed_size;
            if (page > avail && page <= w->chunk_len - s->pos) return need(s, w, page);
        }
    }
    size_t p = at;
    int rc = pq_nest_leaf_next(r, w->data, w->len, w->file_off + (int64_t)w->off, &p, l, e);
    s->pos = (size_t)w->off + p;
    return rc;
}

/* win_page under w's offset index (invariant 7): a page the index starts at s->pos begins
 * a row, the one the pages decoded since the stream's start or jump reached (s->next_row),
 * and no page of the index starts inside it; the rows it starts are counted into
 * s->next_row. 0, win_page's status, or RINGSCAN_EFORMAT naming the page. */
static int index_page(pq_col_reader *r, pq_nest_stream *s, const pq_nest_win *w,
                      pq_nest_leaf *l, bool repeated, pq_err *e)
{
    const pq_offset_index *oi = w->oi;
    uint64_t at = s->pos;
    int32_t a = 0, b = oi->npages; /* the first index page at or past at: a */
    while (a < b) {
        int32_t m = a + (b - a) / 2;
        if ((uint64_t)(oi->pages[m].offset - w->file_off) < at) a = m + 1;
        else b = m;
    }
    int64_t n0 = l->n;
    int rc = win_page(r, s, w, l, e);
    if (rc) return rc;
    bool on = a < oi->npages && (uint64_t)(oi->pages[a].offset - w->file_off) == at;
    int64_t starts = repeated ? 0 : l->n - n0;
    for (int64_t i = n0; repeated && i < l->n; i++) starts += l->rep[i] == 0;
    bool begins = !repeated || l->n == n0 || l->rep[n0] == 0;
    int64_t off = w->file_off + (int64_t)at;
    if (on && (!begins || s->next_row != oi->pages[a].first_row_index))
        return pq_errf_col(e, RINGSCAN_EFORMAT, off, r->col->name, "page %s row %lld where "
                           "the offset index starts row %lld", begins ? "starts" : "continues",
                           (long long)s->next_row, (long long)oi->pages[a].first_row_index);
    if (!on && a < oi->npages && (uint64_t)(oi->pages[a].offset - w->file_off) < s->pos)
        return pq_errf_col(e, RINGSCAN_EFORMAT, off, r->col->name, "page holds the offset "
                           "index's page at %lld", (long long)oi->pages[a].offset);
    s->next_row += starts;
    return 0;
}

/* The call waits for chunk bytes (invariant 6): l's rows (from row0, a row start) go to the
 * carry, empty here (l gets its buffers: the resumed call swaps them back), with the call's
 * rows and choice to park. PQ_NEST_NEED. */
static int wait_bytes(pq_nest_stream *s, pq_nest_leaf *l, int64_t row0, int64_t lo, int64_t hi,
                      bool keep)
{
    assert(s->carry.n == 0 && s->carry.vals.length == 0 && s->need_len > 0 && row0 <= lo);
    leaf_swap(l, &s->carry);
    s->row = row0, s->resume_lo = lo, s->resume_hi = hi, s->resume_keep = keep;
    return PQ_NEST_NEED;
}

/* wait_bytes, asking for the dictionary's bytes only (need_exact) while a jump waits for
 * them (k: the call's seek, invariant 7; NULL without an index). PQ_NEST_NEED. */
static int wait_dict(pq_nest_stream *s, pq_nest_leaf *l, const nest_seek *k, int64_t row0,
                     int64_t lo, int64_t hi, bool keep)
{
    s->need_exact = false;
    if (k && s->pos < k->data && k->off > k->data && k->row > row0) {
        uint64_t dict = k->data - s->pos;
        s->need_len = s->need_len > dict ? s->need_len : dict; /* (no less: invariant 6) */
        s->need_exact = true;
    }
    return wait_bytes(s, l, row0, lo, hi, keep);
}

/* A call's start for rows [lo, hi) of rg's chunk (invariants 3, 5, 7): the stream made live
 * for them (started over when it is not); *from set to the first row whose rows the call
 * may park (rows before it are neither parked nor, with an index, decoded); returns
 * whether it parks (keep). Without an index from is 0 and keep as ever: live, with no more
 * rows to skip than the parks hold. With one, a stream started over behind the rows it ran
 * parks nothing and notes those rows as done (s->done_*: never parked again), and one new
 * to the chunk parks from w->park_from (the caller's core may still ask for those rows). */
static bool call_start(pq_col_reader *r, pq_nest_stream *s, int32_t rg, const pq_nest_win *w,
                       int64_t lo, int64_t hi, int64_t *from)
{
    bool same = s->rg == rg && s->file_off == w->file_off;
    bool live = same && s->row <= lo && s->pos <= w->chunk_len;
    *from = 0;
    if (!w->oi) { /* invariant 3: the chunk from its first page, its own dictionary only */
        if (!live) stream_reset(s, rg, w->file_off), r->has_dict = false, r->shared_dict = NULL;
        return live && lo - s->row <= PQ_NEST_PARKS * (hi - lo);
    }
    uint64_t data = (uint64_t)(w->oi->pages[0].offset - w->file_off);
    bool ran = s->done_rg == rg && s->done_off == w->file_off; /* (it ran this chunk) */
    if (same && !live) /* behind the rows the stream ran: those are done (invariant 7) */
        s->done_rg = rg, s->done_off = w->file_off, s->done_lo = s->ran_lo, s->done_hi = s->row;
    if (!live) {
        bool dict_kept = same && s->pos >= data;
        stream_reset(s, rg, w->file_off);
        if (dict_kept) s->pos = (size_t)data; /* (row 0 starts there) */
        else r->has_dict = false, r->shared_dict = NULL; /* (not the last chunk's) */
    }
    int64_t f = w->park_from < 0 ? 0 : w->park_from < lo ? w->park_from : lo;
    if (s->done_rg == rg && s->done_off == w->file_off && s->done_lo <= f && f < s->done_hi)
        f = s->done_hi < lo ? s->done_hi : lo;
    *from = f;
    if (!live && (same || ran)) return false;
    return lo - (s->row > f ? s->row : f) <= PQ_NEST_PARKS * (hi - lo);
}

int pq_nest_leaf_rows(pq_col_reader *r, pq_nest_stream *s, int32_t rg, const pq_nest_win *w,
                      int64_t lo, int64_t hi, bool to_end, pq_nest_leaf *l, pq_err *e)
{
    assert(r->col->nested && l->n == 0 && l->vals.length == 0 && lo >= 0 && lo <= hi);
    assert(w->len <= w->chunk_len && w->off <= w->chunk_len - w->len);
    bool repeated = r->col->max_rep_level > 0;
    int md = r->col->max_def_level;
    int64_t file_off = w->file_off;
    l->file_off = file_off, l->row0 = lo; /* (l holds rows [lo, hi): invariant 2) */
    bool resume = s->need_len > 0 && s->rg == rg && s->file_off == file_off &&
                  s->resume_lo == lo && s->resume_hi == hi;
    s->need_len = 0;
    int rc = 0;
    if (!resume && unpark(s, repeated, md, rg, file_off, lo, hi, l, &rc)) return rc; /* inv. 5 */
    int64_t from = s->resume_from;
    bool keep = resume ? s->resume_keep : call_start(r, s, rg, w, lo, hi, &from);
    nest_seek sk;
    bool seek = seek_of(w, keep ? from : lo, &sk);
    int64_t row0 = s->row;               /* the row l starts at */
    if (resume) leaf_swap(l, &s->carry); /* (its own buffers back: wait_bytes) */
    else rc = tail_to(&s->carry, 0, md, l);
    row_cur c = {0, 0};
    while (rc == 0) {
        int64_t to = row0 < from ? from : lo; /* (from <= lo) */
        bool park_ok = keep && row0 >= from;
        int64_t p = row0 < lo ? row_start(l, repeated, &c, to - row0) : -1;
        if (p >= 0) { /* invariant 2: the rows before lo go (or wait: invariant 5) */
            rc = drop_front(s, l, p, md, park_ok, row0, to);
            row0 = to, c = (row_cur){0, 0};
            continue;
        }
        p = row0 == lo && !to_end ? row_start(l, repeated, &c, hi - lo) : -1;
        if (p >= 0) {
            rc = tail_to(l, p, md, &s->carry);
            s->row = hi;
            return rc ? (stream_reset(s, -1, 0), rc) : 0;
        }
        if (row0 < lo && l->n > 0) { /* invariant 2: the whole rows held go as pages come in */
            int64_t q = l->n, k = l->n; /* (to not reached: c scanned every pair held) */
            if (repeated)
                for (q = l->n - 1, k = c.starts - 1; q > 0 && l->rep[q] != 0; q--) {}
            if (k > 0 && q > 0) { /* rows [row0, row0 + k): the pairs before q */
                rc = drop_front(s, l, q, md, park_ok, row0, row0 + k);
                row0 += k, c = (row_cur){0, 0};
                if (rc) break;
            }
        }
        if (seek && !park_ok && s->pos >= sk.data && sk.off > s->pos && sk.row > row0) {
            leaf_empty(l); /* invariant 7: a jump */
            row0 = s->ran_lo = s->next_row = sk.row, s->pos = (size_t)sk.off;
            c = (row_cur){0, 0};
        }
        if (s->pos >= w->chunk_len) break;
        rc = w->oi ? index_page(r, s, w, l, repeated, e) : win_page(r, s, w, l, e);
        if (rc == PQ_NEST_NEED) {
            s->resume_from = from;
            return wait_dict(s, l, seek ? &sk : NULL, row0, lo, hi, keep);
        }
    }
    if (rc == 0 && row0 < lo)
        rc = pq_errf_col(e, RINGSCAN_EFORMAT, file_off, r->col->name, "column chunk ends "
                         "before row %lld of its row group", (long long)lo);
    if (rc == 0 && w->oi) /* (invariant 7: every row it ran is done) */
        s->done_rg = rg, s->done_off = file_off, s->done_lo = s->ran_lo, s->done_hi = INT64_MAX;
    stream_reset(s, -1, 0); /* the chunk's end (or an error): the next call starts over */
    return rc;
}
