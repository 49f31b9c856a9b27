/* tests/fuzz/fuzz_list.c: libFuzzer target for format/column_list.c (pq_colr_list_chunk): a
 * list<primitive> column chunk's repetition and definition levels, v1 and v2 page bodies with
 * repetition levels (page_walk.c), and through them the value decoders and codecs.
 * Input: [0] element kind (kinds[] below), [1] codec (low 3 bits), [2] flags (bit 0: verify
 * CRCs; bit 1: small limits; bits 2-3: the levels: 0 optional list of optional elements
 * (1, 2, 3), 1 required list of required elements (0, 1, 1), 2 optional list of required
 * elements (1, 2, 2), 3 required list of optional elements (0, 1, 2)), [3] the lists the
 * chunk must hold, then the chunk's pages (header + body, as in a file).
 * After a decode the list vector's invariants are checked (column_list.h): on success it grew
 * by exactly the lists asked, offsets start at 0 and never decrease, end at the elements'
 * count, null lists are empty, null elements zeroed / empty; on failure nothing was appended
 * and the error has a message. A broken invariant aborts (a crash for libFuzzer). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/column_list.h"

static const struct {
    pq_physical t;
    int32_t len;
} list_kinds[] = {
    {PQ_BOOLEAN, 0}, {PQ_INT32, 0}, {PQ_INT64, 0}, {PQ_DOUBLE, 0}, {PQ_BYTE_ARRAY, 0},
    {PQ_FIXED_LEN_BYTE_ARRAY, 3}, {PQ_INT96, 0}, {PQ_FLOAT, 0},
};

static const pq_list_levels shapes[4] = {{1, 2, 3}, {0, 1, 1}, {1, 2, 2}, {0, 1, 2}};

/* The elements' vector: nulls zeroed or empty, offsets monotone (format/vec.h). */
static void check_items(const pq_vec *v)
{
    if (v->null_count < 0 || v->null_count > v->length) abort();
    if (v->type == PQ_BYTE_ARRAY) {
        for (int64_t i = 0; i < v->length; i++) {
            if (v->offsets[i + 1] < v->offsets[i]) abort();
            if (!pq_vec_is_valid(v, i) && v->offsets[i + 1] != v->offsets[i]) abort();
        }
        if (v->length > 0 && v->offsets[v->length] != v->data_len) abort();
        return;
    }
    int32_t w = pq_fixed_width(v->type, v->type_length);
    for (int64_t i = 0; i < v->length; i++) {
        if (pq_vec_is_valid(v, i)) continue;
        if (v->type == PQ_BOOLEAN ? pq_bit_get(v->values, i) : 0) abort();
        for (int32_t b = 0; v->type != PQ_BOOLEAN && b < w; b++)
            if (v->values[(size_t)i * (size_t)w + (size_t)b] != 0) abort();
    }
}

static void check_lists(const pq_list_vec *l)
{
    int64_t nulls = 0;
    if (l->length > 0 && l->offsets[0] != 0) abort();
    for (int64_t r = 0; r < l->length; r++) {
        if (l->offsets[r + 1] < l->offsets[r]) abort();
        bool valid = pq_bit_get(l->validity, r);
        nulls += !valid;
        if (!valid && l->offsets[r + 1] != l->offsets[r]) abort();
    }
    if (nulls != l->null_count) abort();
    if (l->length > 0 && l->offsets[l->length] != l->items.length) abort();
    check_items(&l->items);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n < 4) return 0;
    size_t nk = sizeof list_kinds / sizeof list_kinds[0];
    pq_physical t = list_kinds[d[0] % nk].t;
    int32_t tl = list_kinds[d[0] % nk].len;
    const pq_list_levels *lv = &shapes[(d[2] >> 2) & 3];
    int64_t rows = d[3];
    pq_column_desc col = {.name = "l.list.element", .physical = t, .type_length = tl,
                          .repetition = lv->def_value > lv->def_item ? PQ_OPTIONAL : PQ_REQUIRED,
                          .max_def_level = lv->def_value, .max_rep_level = 1, .nested = true,
                          .field_id = -1};
    pq_col_limits lim;
    pq_col_limits_default(&lim);
    lim.verify_crc = d[2] & 1;
    lim.max_page_bytes = d[2] & 2 ? 4096 : 16 << 20; /* keep libFuzzer's RSS bounded */
    lim.max_page_values = d[2] & 2 ? 1000 : 1 << 20;
    lim.max_dict_values = d[2] & 2 ? 100 : 1 << 20;
    lim.max_decompressed_bytes = d[2] & 2 ? 1 << 16 : 64 << 20;
    pq_col_reader r;
    pq_colr_init(&r, &col, (pq_codec)(d[1] & 7), &lim);
    pq_list_vec l;
    pq_list_vec_init(&l, t, tl);
    for (int pass = 0; pass < 2; pass++) { /* the second appends to the first's lists */
        int64_t before = l.length, ibefore = l.items.length;
        pq_err e = {.offset = -1};
        int rc = pq_colr_list_chunk(&r, lv, d + 4, n - 4, 0, rows, &l, &e);
        if (rc > 0) abort();
        if (rc < 0 && (l.length != before || l.items.length != ibefore)) abort();
        if (rc < 0 && e.msg[0] == 0 && rc != -ENOMEM) abort();
        if (rc == 0 && l.length != before + rows) abort();
        check_lists(&l);
        if (rc) break;
    }
    pq_list_vec_free(&l);
    pq_colr_free(&r);
    return 0;
}
