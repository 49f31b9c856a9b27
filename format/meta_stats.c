/* format/meta_stats.c: Statistics decoding and the rules deciding when min/max may be trusted.
 *
 * Owns: pq_raw_stats_read, pq_raw_stats_skim, pq_stats_resolve, pq_stats_from_raw,
 * pq_created_by_old_parquet_mr, and pq_file_meta_stats: a footer's chunk statistics decoded
 * on demand from the bytes the parse kept (meta.h invariant 6).
 * Rules (conservative, after parquet-format's ColumnOrder notes, parquet-testing's README and
 * arrow-rs/parquet-cpp; a rule that fails leaves has_min_max as read but usable false):
 *  1. min_value/max_value (fields 6/5) win over the deprecated min/max (fields 2/1).
 *  2. The deprecated fields are used only when the type's order is signed and the physical type
 *     is not BYTE_ARRAY/FIXED_LEN_BYTE_ARRAY (they were written with signed byte comparison,
 *     which disagrees with unsigned and with decimal order).
 *  3. INT96 and types with undefined order (INTERVAL, geospatial): never usable.
 *  4. A ColumnOrder we do not know: never usable. ColumnOrder absent: min_value/max_value are
 *     usable only for signed orders (an unsigned order is then ambiguous).
 *  5. created_by "parquet-mr version" < 1.10: byte-array statistics unusable (PARQUET-686).
 *  6. Fixed-width types need min/max of exactly their width; FLOAT/DOUBLE/FLOAT16 with a NaN
 *     min or max are unusable; a zero min is stored as -0.0 and a zero max as +0.0 (the spec:
 *     "+0 min may hide -0, -0 max may hide +0"), so plain comparisons stay conservative.
 *  7. Exactness: is_*_value_exact when present; absent means exact except for BYTE_ARRAY and
 *     un-annotated FIXED_LEN_BYTE_ARRAY (writers may truncate those).
 *  8. Negative null/distinct/nan counts are dropped (treated as absent).
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "format/meta_priv.h"

static int read_bin(pq_tr *r, uint8_t t, const uint8_t **p, uint32_t *n, bool *has)
{
    if (pq_tr_expect(r, t, PQ_T_BINARY, "Statistics min/max")) return r->status;
    if (!pq_tr_binary(r, p, n)) *has = true;
    return r->status;
}

static void read_count(pq_tr *r, uint8_t t, int64_t *v, bool *has)
{
    int64_t x;
    if (!pq_tr_int(r, t, INT64_MIN, INT64_MAX, &x) && x >= 0) {
        *v = x;
        *has = true;
    }
}

int pq_raw_stats_read(pq_tr *r, pq_raw_stats *s)
{
    int16_t id;
    uint8_t t;
    memset(s, 0, sizeof *s);
    s->present = true;
    if (pq_tr_struct_begin(r)) return r->status;
    while (!pq_tr_field(r, &id, &t) && t != PQ_T_STOP) {
        switch (id) {
        case 1: read_bin(r, t, &s->max, &s->max_len, &s->has_max); break;
        case 2: read_bin(r, t, &s->min, &s->min_len, &s->has_min); break;
        case 3: read_count(r, t, &s->null_count, &s->has_null_count); break;
        case 4: read_count(r, t, &s->distinct_count, &s->has_distinct); break;
        case 5: read_bin(r, t, &s->max_value, &s->max_value_len, &s->has_max_value); break;
        case 6: read_bin(r, t, &s->min_value, &s->min_value_len, &s->has_min_value); break;
        case 7: s->has_max_exact = !pq_tr_bool_field(r, t, &s->max_exact); break;
        case 8: s->has_min_exact = !pq_tr_bool_field(r, t, &s->min_exact); break;
        case 9: read_count(r, t, &s->nan_count, &s->has_nan_count); break;
        default: pq_tr_skip(r, t); break;
        }
    }
    return r->status ? r->status : pq_tr_struct_end(r);
}

/* The null count's value as pq_tr_skip consumes it (type t is BYTE, I16, I32 or I64); false
 * (nothing kept) where pq_tr_int would refuse it. */
static bool skim_count(pq_tr *r, uint8_t t, int64_t *v)
{
    if (t == PQ_T_BYTE) return !pq_tr_int(r, t, INT64_MIN, INT64_MAX, v);
    uint64_t u;
    if (pq_tr_varint(r, &u)) return false;
    int64_t x = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
    if (t == PQ_T_I16 && (x < INT16_MIN || x > INT16_MAX)) return false;
    if (t == PQ_T_I32 && (x < INT32_MIN || x > INT32_MAX)) return false;
    *v = x;
    return true;
}

/* A binary whose length is a varint of at most 2 bytes and whose bytes lie in the buffer,
 * skipped without a call (every min and max under 16 KiB); false, nothing consumed, for any
 * other, which pq_tr_skip then reads and checks. */
static inline bool skip_short_binary(pq_tr *r)
{
    const uint8_t *p = r->p;
    if (r->status || r->end - p < 2) return false;
    size_t n = p[0], hl = 1;
    if (n >= 0x80) {
        if (p[1] >= 0x80) return false;
        n = (n & 0x7f) | (size_t)p[1] << 7, hl = 2;
    }
    if (n > (size_t)(r->end - p) - hl) return false;
    r->p = p + hl + n;
    return true;
}

int pq_raw_stats_skim(pq_tr *r, bool *has_null_count, int64_t *null_count)
{
    int16_t id;
    uint8_t t;
    int64_t x;
    *has_null_count = false; /* as pq_raw_stats_read's memset: the last struct read wins */
    *null_count = 0;
    if (pq_tr_struct_begin(r)) return r->status;
    while (!pq_tr_field(r, &id, &t) && t != PQ_T_STOP) {
        if (t == PQ_T_TRUE || t == PQ_T_FALSE) continue; /* the value is the header's */
        if (t == PQ_T_BINARY && skip_short_binary(r)) continue;
        if (id != 3 || t < PQ_T_BYTE || t > PQ_T_I64) {
            pq_tr_skip(r, t);
            continue;
        }
        if (skim_count(r, t, &x) && x >= 0) /* read_count's rule: a negative count is dropped */
            *has_null_count = true, *null_count = x;
    }
    return r->status ? r->status : pq_tr_struct_end(r);
}

bool pq_created_by_old_parquet_mr(const char *cb)
{
    static const char pfx[] = "parquet-mr version ";
    if (!cb || strncmp(cb, pfx, sizeof pfx - 1) != 0) return false;
    unsigned major = 0, minor = 0;
    if (sscanf(cb + sizeof pfx - 1, "%u.%u", &major, &minor) != 2) return true; /* unparsable */
    return major < 1 || (major == 1 && minor < 10);
}

static void copy_counts(const pq_raw_stats *raw, pq_stats *out)
{
    out->has_null_count = raw->has_null_count;
    out->null_count = raw->null_count;
    out->has_distinct = raw->has_distinct;
    out->distinct_count = raw->distinct_count;
    out->has_nan_count = raw->has_nan_count;
    out->nan_count = raw->nan_count;
}

void pq_stats_from_raw(const pq_raw_stats *raw, pq_stats *out)
{
    memset(out, 0, sizeof *out);
    copy_counts(raw, out);
    if (raw->has_min_value && raw->has_max_value) {
        out->min = raw->min_value, out->min_len = raw->min_value_len;
        out->max = raw->max_value, out->max_len = raw->max_value_len;
        out->has_min_max = true;
    } else if (raw->has_min && raw->has_max) {
        out->min = raw->min, out->min_len = raw->min_len;
        out->max = raw->max, out->max_len = raw->max_len;
        out->has_min_max = true;
    }
    out->min_exact = raw->has_min_exact ? raw->min_exact : out->has_min_max;
    out->max_exact = raw->has_max_exact ? raw->max_exact : out->has_min_max;
}

/* NaN test on a little-endian float of width 2, 4 or 8. */
static bool is_nan(const uint8_t *p, uint32_t w)
{
    if (w == 4) {
        uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        return (u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu);
    }
    if (w == 8) {
        uint64_t u = 0;
        for (int i = 0; i < 8; i++) u |= (uint64_t)p[i] << (8 * i);
        return (u & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (u & 0xfffffffffffffull);
    }
    assert(w == 2);
    uint16_t u = (uint16_t)(p[0] | p[1] << 8);
    return (u & 0x7c00) == 0x7c00 && (u & 0x03ff);
}

/* Zero (either sign) of width w: all bytes 0 except maybe the sign bit of the last. */
static void set_zero_sign(uint8_t *p, uint32_t w, bool negative)
{
    for (uint32_t i = 0; i + 1 < w; i++)
        if (p[i]) return;
    if ((p[w - 1] & 0x7f) != 0) return;
    p[w - 1] = negative ? 0x80 : 0x00;
}

/* Rule 6 for one resolved pair; returns false when unusable. */
static bool check_values(const pq_column_desc *c, pq_stats *s)
{
    uint32_t w = (uint32_t)pq_fixed_width(c->physical, c->type_length);
    if (c->physical == PQ_BOOLEAN) w = 1;
    if (w && (s->min_len != w || s->max_len != w)) return false;
    uint32_t fw = (c->physical == PQ_FLOAT || c->physical == PQ_DOUBLE) ? w
                  : (c->logical == PQ_LOGICAL_FLOAT16 && w == 2) ? 2 : 0;
    if (fw == 0) return true;
    if (is_nan(s->min, fw) || is_nan(s->max, fw)) return false;
    set_zero_sign((uint8_t *)s->min, fw, true);
    set_zero_sign((uint8_t *)s->max, fw, false);
    return true;
}

int pq_stats_resolve(const pq_raw_stats *raw, const pq_column_desc *c, const char *created_by,
                     pq_arena *a, pq_stats *out)
{
    assert(raw && c && a && out);
    pq_stats_from_raw(raw, out);
    bool bytes = c->physical == PQ_BYTE_ARRAY || c->physical == PQ_FIXED_LEN_BYTE_ARRAY;
    bool from_value = raw->has_min_value && raw->has_max_value;
    if (!from_value && out->has_min_max && (bytes || c->sort_order != PQ_ORDER_SIGNED))
        out->has_min_max = false; /* rule 2: deprecated fields disagree with the order */
    if (!out->has_min_max) {
        out->min = out->max = NULL;
        out->min_len = out->max_len = 0;
        out->min_exact = out->max_exact = false;
        return 0;
    }
    bool truncatable = c->physical == PQ_BYTE_ARRAY ||
                       (c->physical == PQ_FIXED_LEN_BYTE_ARRAY && c->logical == PQ_LOGICAL_NONE);
    if (!raw->has_min_exact) out->min_exact = !truncatable;
    if (!raw->has_max_exact) out->max_exact = !truncatable;
    uint8_t *mn = pq_arena_alloc(a, out->min_len + 1u);
    uint8_t *mx = pq_arena_alloc(a, out->max_len + 1u);
    if (!mn || !mx) return -ENOMEM;
    memcpy(mn, out->min, out->min_len);
    memcpy(mx, out->max, out->max_len);
    out->min = mn;
    out->max = mx;
    bool usable = c->physical != PQ_INT96 && c->sort_order != PQ_ORDER_UNDEFINED;
    usable = usable && c->column_order != 255 && c->column_order != 3;
    if (c->column_order == 0 && c->sort_order != PQ_ORDER_SIGNED) usable = false;
    if (bytes && pq_created_by_old_parquet_mr(created_by)) usable = false;
    out->usable = usable && check_values(c, out);
    return 0;
}

/* Decodes chunk (g, col)'s pending statistics from the copy of their bytes the parse kept. */
static int decode_chunk(pq_file_meta *m, int32_t g, int32_t col, pq_err *e)
{
    pq_chunk_meta *ch = &m->row_groups[g].chunks[col];
    assert(ch->stats_pending && ch->stats_raw && ch->stats_len > 0);
    int64_t off = m->footer_offset >= 0 ? m->footer_offset + (int64_t)ch->stats_off : -1;
    pq_err why = {.offset = -1};
    pq_tr r;
    pq_tr_init(&r, ch->stats_raw, ch->stats_len, off, 0, &why);
    pq_raw_stats raw;
    const char *name = m->columns[col].name;
    if (pq_raw_stats_read(&r, &raw))
        return pq_errf_col(e, r.status, why.offset, name, "column '%.100s', row group %d, statistics: %s", name,
                           (int)g, why.msg);
    if (pq_stats_resolve(&raw, &m->columns[col], m->created_by, m->arena, &ch->stats))
        return pq_errf_col(e, -ENOMEM, -1, name, "out of memory");
    ch->stats_pending = false;
    return 0;
}

int pq_file_meta_stats(pq_file_meta *m, int32_t col, pq_err *e)
{
    assert(m && col >= -1 && col < m->ncolumns);
    if (col >= 0 && m->stats_decoded && m->stats_decoded[col]) return 0;
    int32_t lo = col < 0 ? 0 : col, hi = col < 0 ? m->ncolumns : col + 1;
    for (int32_t g = 0; g < m->nrow_groups; g++)
        for (int32_t i = lo; i < hi; i++) {
            if (!m->row_groups[g].chunks[i].stats_pending) continue;
            int rc = decode_chunk(m, g, i, e);
            if (rc) return rc;
        }
    for (int32_t i = lo; m->stats_decoded && i < hi; i++) m->stats_decoded[i] = 1;
    return 0;
}
