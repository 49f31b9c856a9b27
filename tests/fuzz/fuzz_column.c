/* tests/fuzz/fuzz_column.c: libFuzzer target for format/column.c (pq_colr_page and
 * pq_colr_page_idx), format/page_walk.c's walker, and through them every value decoder, the
 * level decoders and the codecs.
 * Input: [0] column kind (physical type x REQUIRED/OPTIONAL x FLBA width, see kinds[]),
 * [1] codec (low 3 bits), [2] flags (bit 0: verify CRCs; bit 1: small limits; bit 2: decode
 * through pq_colr_page_idx, dictionary-encoded pages as indices; bit 3 with bit 2: through
 * pq_colr_page_idx_sel, rows 0, 1, 3 .. of each page selected - (flags >> 4) & 3 of them -, so
 * other pages append only those rows' values; bit 6: through the page walker instead, see
 * walk()), then a sequence of pages
 * (header + body) decoded one after another into one vector, as a column chunk would be.
 * A selection past a page's rows must be refused (EFORMAT).
 * After every page that decodes, the vector's invariants (format/vec.h) are checked: length
 * grew by exactly the rows reported (values or indices, never both), null slots are zeroed /
 * empty, byte-array offsets are monotone and end at data_len. A broken invariant aborts (a
 * crash for libFuzzer). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/column.h"
#include "format/page_walk.h"

typedef struct kind {
    pq_physical t;
    int32_t len;
} kind;

static const kind kinds[] = {
    {PQ_BOOLEAN, 0}, {PQ_INT32, 0}, {PQ_INT64, 0}, {PQ_INT96, 0}, {PQ_FLOAT, 0},
    {PQ_DOUBLE, 0},  {PQ_BYTE_ARRAY, 0}, {PQ_FIXED_LEN_BYTE_ARRAY, 1},
    {PQ_FIXED_LEN_BYTE_ARRAY, 2}, {PQ_FIXED_LEN_BYTE_ARRAY, 16},
};
enum { NKINDS = sizeof kinds / sizeof kinds[0], MAX_PAGES = 64 };

static void check_vec(const pq_vec *v, int64_t before, int64_t rows)
{
    if (v->length != before + rows) abort();
    if (v->null_count < 0 || v->null_count > v->length) abort();
    if (v->type == PQ_BYTE_ARRAY) {
        if (v->length > 0 && v->offsets[0] != 0) abort();
        for (int64_t i = before; i < v->length; i++) {
            if (v->offsets[i + 1] < v->offsets[i]) abort();
            if (!pq_vec_is_valid(v, i) && v->offsets[i + 1] != v->offsets[i]) abort();
        }
        if (v->length > 0 && v->offsets[v->length] != v->data_len) abort();
        return;
    }
    int32_t w = pq_fixed_width(v->type, v->type_length);
    for (int64_t i = before; i < v->length; i++) {
        if (pq_vec_is_valid(v, i)) continue;
        if (v->type == PQ_BOOLEAN) {
            if (pq_bit_get(v->values, i)) abort();
            continue;
        }
        for (int32_t b = 0; b < w; b++)
            if (v->values[(size_t)i * (size_t)w + (size_t)b] != 0) abort();
    }
}

/* flags bit 6: the pages walked (pq_walk_next) as a whole chunk (window of 40 * ((flags >> 4)
 * & 3) rows, or 2^20 when 0; every third page skipped) or with bit 7 as one page piece starting
 * at window row -2 (so the walker decodes only its rows from 2 on). Bit 3: pq_walk_indices,
 * else pq_walk_values; bit 2: a selection of rows 0, 1, 3 that lie inside [a, e). A returned
 * page must lie inside the window; a decoded one appends exactly the rows its contract says;
 * a failed one appends nothing and says why. */
static void walk(pq_col_reader *r, pq_vec *out, pq_vec *idx, uint8_t flags, const uint8_t *d,
                 size_t n)
{
    bool piece = flags & 0x80;
    int64_t window = piece || !(flags & 0x30) ? 1 << 20 : ((flags >> 4) & 3) * 40;
    pq_page_walk w;
    pq_walk_init(&w, r, d, n, 0, piece ? -2 : 0, -1, window, piece);
    pq_walk_page pg;
    pq_err e = {.offset = -1};
    int rc = 0;
    for (int p = 0; p < MAX_PAGES && (rc = pq_walk_next(&w, &pg, &e)) == 1; p++) {
        if (pg.a < 0 || pg.a > pg.e || pg.e > window || pg.rows != pg.h.num_values) abort();
        if (pg.a < pg.e && (pg.a < pg.first_row || pg.e > pg.first_row + pg.rows)) abort();
        if (!piece && p % 3 == 2) continue; /* skipped undecoded */
        static const uint32_t cand[3] = {0, 1, 3};
        uint32_t sel[3];
        int64_t k = 0;
        for (int i = 0; i < 3; i++)
            if (cand[i] >= pg.a - pg.first_row && cand[i] < pg.e - pg.first_row) sel[k++] = cand[i];
        const uint32_t *s = flags & 4 ? sel : NULL;
        int64_t before = out->length, ibefore = idx->length;
        bool as_idx = false;
        int drc = flags & 8 ? pq_walk_indices(&w, s, k, idx, out, &as_idx, &e)
                            : pq_walk_values(&w, s, k, out, &e);
        if (drc) {
            if (drc >= 0 || out->length != before || idx->length != ibefore) abort();
            if (as_idx || (e.msg[0] == 0 && drc != -ENOMEM)) abort();
            return;
        }
        int64_t want = s ? k : flags & 8 ? pg.rows : pg.e - pg.a;
        check_vec(as_idx ? idx : out, as_idx ? ibefore : before, as_idx ? pg.rows : want);
        if (as_idx ? out->length != before : idx->length != ibefore) abort();
    }
    if (rc < 0 && (e.msg[0] == 0 && rc != -ENOMEM)) abort();
    if (rc < 0 && pq_walk_next(&w, &pg, &e) != rc) abort(); /* a failed walk stays failed */
}

static void run(const kind *k, bool optional, pq_codec codec, uint8_t flags, const uint8_t *d,
                size_t n)
{
    pq_column_desc col = {.name = "c", .physical = k->t, .type_length = k->len,
                          .repetition = optional ? PQ_OPTIONAL : PQ_REQUIRED,
                          .max_def_level = optional ? 1 : 0, .field_id = -1};
    pq_col_limits lim;
    pq_col_limits_default(&lim);
    lim.verify_crc = flags & 1;
    if (flags & 2) { /* small limits: the limit paths get exercised too */
        lim.max_page_bytes = 4096;
        lim.max_page_values = 1000;
        lim.max_dict_values = 100;
        lim.max_decompressed_bytes = 1 << 16;
    } else {
        lim.max_page_bytes = 16 << 20; /* keep libFuzzer's RSS bounded */
        lim.max_page_values = 1 << 20;
        lim.max_decompressed_bytes = 64 << 20;
    }
    pq_col_reader r;
    pq_colr_init(&r, &col, codec, &lim);
    pq_vec out, idx;
    pq_vec_init(&out, k->t, k->len);
    pq_vec_init(&idx, PQ_INT32, 0);
    size_t pos = 0;
    if (flags & 0x40) {
        walk(&r, &out, &idx, flags, d, n);
        n = 0; /* the loop below has nothing left to do */
    }
    for (int p = 0; p < MAX_PAGES && pos < n; p++) {
        size_t used = 0;
        int64_t rows = 0, before = out.length;
        pq_err e = {.offset = -1};
        int64_t ibefore = idx.length;
        bool as_idx = false;
        static const uint32_t sel[3] = {0, 1, 3};
        int64_t nsel = flags & 8 ? (flags >> 4) & 3 : -1;
        int rc = flags & 4 ? pq_colr_page_idx_sel(&r, d + pos, n - pos, (int64_t)pos, sel, nsel,
                                                  &idx, &out, &as_idx, &used, &rows, &e)
                           : pq_colr_page(&r, d + pos, n - pos, (int64_t)pos, &out, &used, &rows, &e);
        if (rc) {
            /* a failed page leaves the output as it was, with a status and a message */
            if (rc >= 0 || out.length != before || (e.msg[0] == 0 && rc != -ENOMEM)) abort();
            if (as_idx || idx.length != ibefore) abort();
            break;
        }
        if (used == 0 || used > n - pos) abort();
        /* indices or values, never both */
        bool selected = flags & 4 && nsel >= 0 && !as_idx && rows > 0;
        if (selected && nsel > rows) abort(); /* a selection past the page was accepted */
        check_vec(as_idx ? &idx : &out, as_idx ? ibefore : before, selected ? nsel : rows);
        if ((as_idx ? out.length != before : idx.length != ibefore)) abort();
        pos += used;
    }
    pq_vec_free(&out);
    pq_vec_free(&idx);
    pq_colr_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n < 3) return 0;
    const kind *k = &kinds[(d[0] & 0x7f) % NKINDS];
    bool optional = d[0] & 0x80;
    pq_codec codec = (pq_codec)(d[1] & 7);
    run(k, optional, codec, d[2], d + 3, n - 3);
    return 0;
}
