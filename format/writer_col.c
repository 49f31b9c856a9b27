/* format/writer_col.c: one column's open chunk in the writer: rows -> pages -> chunk.
 *
 * Owns: slicing caller rows into pages (page_rows / page_bytes), dictionary encoding with the
 * mid-chunk fallback to PLAIN, v1 data pages (RLE definition levels, then RLE_DICTIONARY
 * indices or PLAIN values), the dictionary page, compression, page statistics, the per-chunk
 * page locations, the column/offset index of a chunk and its bloom filter.
 *
 * Invariants:
 *  1. A chunk is [dictionary page] data pages...; the dictionary page exists only when some
 *     data page is RLE_DICTIONARY, and every RLE_DICTIONARY page precedes every PLAIN page
 *     (once the dictionary is full the chunk stays PLAIN: the open page is cut at the row that
 *     did not fit, so no page mixes encodings).
 *  2. Rows are processed in slices of at most PQ_WSLICE rows; the page byte estimate is checked
 *     between slices, so a page passes page_bytes by at most one slice.
 *  3. No allocation per row: buffers grow geometrically and are reused across pages/chunks.
 *  4. Page and chunk sizes fit int32/int64 as the thrift fields require (ELIMIT otherwise).
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/bloom.h"
#include "common/fail.h"
#include "format/codec.h"
#include "format/writer_priv.h"

#define PQ_WSLICE 4096

/* ---- hash set for bloom filter input ----------------------------------------------------- */

static int hset_grow(pq_hset *s)
{
    uint64_t ncap = s->cap ? s->cap * 2 : 1024;
    uint64_t *ns = fail_calloc(ncap, sizeof *ns);
    if (!ns) return -ENOMEM;
    for (uint64_t i = 0; i < s->cap; i++) {
        uint64_t h = s->slots[i];
        if (!h) continue;
        uint64_t j = h & (ncap - 1);
        while (ns[j]) j = (j + 1) & (ncap - 1);
        ns[j] = h;
    }
    free(s->slots);
    s->slots = ns;
    s->cap = ncap;
    return 0;
}

static int hset_add(pq_hset *s, uint64_t h)
{
    if (h == 0) {
        s->has_zero = true;
        return 0;
    }
    if ((s->count + 1) * 2 > s->cap) {
        int rc = hset_grow(s);
        if (rc) return rc;
    }
    uint64_t j = h & (s->cap - 1);
    for (uint64_t probes = 0; s->slots[j]; j = (j + 1) & (s->cap - 1), probes++) {
        assert(probes < s->cap);
        if (s->slots[j] == h) return 0;
    }
    s->slots[j] = h;
    s->count++;
    return 0;
}

void pq_hset_clear(pq_hset *s)
{
    if (s->cap > (1u << 22)) { /* do not keep a huge table around */
        free(s->slots);
        s->slots = NULL;
        s->cap = 0;
    } else if (s->slots) {
        memset(s->slots, 0, s->cap * sizeof *s->slots);
    }
    s->count = 0;
    s->has_zero = false;
}

/* ---- init / free -------------------------------------------------------------------------- */

int pq_wcol_init(pq_wcol *c, const pq_column_desc *d, const pq_writer_opts *o, uint8_t flags)
{
    memset(c, 0, sizeof *c);
    c->desc = *d;
    c->cmp = pq_wcmp_kind(d);
    c->width = pq_fixed_width(d->physical, d->type_length);
    c->dict_allowed = o->dictionary && d->physical != PQ_BOOLEAN && !(flags & PQ_WCOL_NO_DICT);
    c->bloom = (flags & PQ_WCOL_BLOOM) != 0;
    c->track_stats = o->statistics || o->page_index;
    c->dict_mode = c->dict_allowed;
    c->all_pages_ordered = true;
    size_t n = (size_t)o->page_rows;
    if (d->repetition == PQ_OPTIONAL && !(c->defs = fail_malloc(n * sizeof *c->defs))) return -ENOMEM;
    if (c->dict_allowed) {
        if (!(c->idx = fail_malloc(n * sizeof *c->idx))) return -ENOMEM;
        int rc = pq_dictb_init(&c->db, d->physical, d->type_length, o->dict_page_bytes, INT32_MAX);
        if (rc) return rc;
    }
    return 0;
}

void pq_wcol_free(pq_wcol *c)
{
    if (c->dict_allowed) pq_dictb_free(&c->db);
    pq_wstats_free(&c->chunk_st);
    pq_wstats_free(&c->page_st);
    pq_buf_free(&c->pages);
    pq_buf_free(&c->page_mm);
    pq_buf_free(&c->plain);
    free(c->locs);
    free(c->defs);
    free(c->idx);
    free(c->hashes.slots);
    memset(c, 0, sizeof *c);
}

/* ---- appending rows ----------------------------------------------------------------------- */

/* BOOLEAN PLAIN: appends the valid bits of rows [s, s+k) LSB first. */
static int append_bits(pq_wcol *c, const pq_vec *v, int64_t s, int64_t k)
{
    int rc = pq_enc_reserve(&c->plain, (size_t)(k + 7) / 8 + 1);
    if (rc) return rc;
    for (int64_t i = s; i < s + k; i++) {
        if (!pq_vec_is_valid(v, i)) continue;
        if ((c->nbits & 7) == 0) c->plain.data[c->plain.len++] = 0;
        if (pq_bit_get(v->values, i)) c->plain.data[c->plain.len - 1] |= (uint8_t)(1u << (c->nbits & 7));
        c->nbits++;
    }
    assert(c->plain.len == (size_t)(c->nbits + 7) / 8);
    return 0;
}

static int add_bloom(pq_wcol *c, const pq_vec *v, int64_t s, int64_t k)
{
    for (int64_t i = s; i < s + k; i++) {
        if (!pq_vec_is_valid(v, i)) continue;
        uint64_t h;
        if (v->type == PQ_BYTE_ARRAY)
            h = pq_bloom_hash(v->data + v->offsets[i], (size_t)(v->offsets[i + 1] - v->offsets[i]));
        else
            h = pq_bloom_hash(v->values + i * c->width, (size_t)c->width);
        int rc = hset_add(&c->hashes, h);
        if (rc) return rc;
    }
    return 0;
}

/* Levels, statistics and bloom input of rows [s, s+k), which the open page now holds. */
static int account_rows(pq_wcol *c, const pq_vec *v, int64_t s, int64_t k)
{
    if (c->defs) {
        uint32_t *d = c->defs + c->page_fill;
        int64_t nulls = 0;
        for (int64_t i = 0; i < k; i++) {
            d[i] = pq_vec_is_valid(v, s + i);
            nulls += !d[i];
        }
        c->page_nulls += nulls;
    }
    int rc = 0;
    if (c->track_stats && (rc = pq_wstats_add(&c->page_st, c->cmp, v, s, k))) return rc;
    if (c->bloom && (rc = add_bloom(c, v, s, k))) return rc;
    c->page_fill += k;
    return 0;
}

/* Adds up to k rows from s to the open page; *took = rows taken (fewer only when the
 * dictionary filled up: the page is then cut and the chunk switches to PLAIN). */
static int col_slice(pq_writer *w, pq_wcol *c, const pq_vec *v, int64_t s, int64_t k,
                     int64_t *took, pq_err *e)
{
    int64_t take = k;
    bool full = false;
    int rc;
    if (c->dict_mode) {
        int64_t nidx = 0, done = 0;
        rc = pq_dictb_add(&c->db, v, s, k, c->idx + c->n_idx, &nidx, &done);
        if (rc == RINGSCAN_ELIMIT) {
            full = true;
            take = done;
            rc = 0;
        }
        c->n_idx += nidx;
    } else if (v->type == PQ_BOOLEAN) {
        rc = append_bits(c, v, s, k);
    } else {
        rc = pq_plain_encode(&c->plain, v, s, k, true);
    }
    if (rc || (rc = account_rows(c, v, s, take)))
        return pq_errf(e, rc, -1, "encoding column %s failed", c->desc.name);
    if (full) {
        if ((rc = pq_wcol_flush_page(w, c, e))) return rc;
        c->dict_mode = false;
        c->dict_fell_back = true;
        w->st.dict_fallbacks++;
    }
    *took = take;
    return 0;
}

static int64_t page_bytes_estimate(const pq_wcol *c)
{
    if (!c->dict_mode) return (int64_t)c->plain.len;
    return c->n_idx * (int64_t)pq_bit_width((uint64_t)pq_dictb_count(&c->db)) / 8;
}

int pq_wcol_append(pq_writer *w, pq_wcol *c, const pq_vec *v, int64_t start, int64_t n, pq_err *e)
{
    assert(start >= 0 && n >= 0 && start + n <= v->length);
    const int64_t max_passes = 2 * (n / PQ_WSLICE + n / w->o.page_rows) + 4; /* + fallback */
    for (int64_t guard = 0; n > 0; guard++) {
        assert(guard <= max_passes); /* each pass takes rows or switches the chunk to PLAIN */
        int64_t k = w->o.page_rows - c->page_fill;
        if (k > n) k = n;
        if (k > PQ_WSLICE) k = PQ_WSLICE;
        assert(k > 0);
        int64_t took = 0;
        int rc = col_slice(w, c, v, start, k, &took, e);
        if (rc) return rc;
        start += took;
        n -= took;
        if (c->page_fill >= w->o.page_rows || page_bytes_estimate(c) >= w->o.page_bytes)
            if ((rc = pq_wcol_flush_page(w, c, e))) return rc;
    }
    return 0;
}
