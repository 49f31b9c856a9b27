/* libFuzzer target: dictionary page decode + RLE index gather, and the dictionary builder.
 * Input: [0] type (INT32/INT64/INT96/FLOAT/DOUBLE/BYTE_ARRAY/FLBA), [1] FLBA width, [2..3]
 * dictionary values (<= 1024), [4..5] dictionary page bytes, [6..7] indices to gather
 * (<= 4096), then the dictionary page, then the index data (bit-width byte + RLE). */
#include <stdlib.h>
#include <string.h>

#include "format/encoding.h"

static void rebuild(const pq_vec *out)
{
    /* every gathered value must be found again by the builder, with stable indices */
    pq_dict_builder b;
    if (pq_dictb_init(&b, out->type, out->type_length, 1 << 20, 1 << 16)) return;
    int64_t n = out->length, k = 0, rows = 0;
    uint32_t *idx = malloc((size_t)(n + 1) * 4);
    int rc = pq_dictb_add(&b, out, 0, n, idx, &k, &rows);
    if (rc == 0) {
        if (k != n || rows != n) abort();
        pq_vec back;
        pq_vec_init(&back, out->type, out->type_length);
        if (pq_dict_gather(&b.values, idx, n, &back, NULL) == 0) {
            int32_t w = pq_fixed_width(out->type, out->type_length);
            if (out->type == PQ_BYTE_ARRAY) {
                if (back.data_len != out->data_len ||
                    (n && memcmp(back.offsets, out->offsets, (size_t)(n + 1) * 4)) ||
                    (out->data_len && memcmp(back.data, out->data, (size_t)out->data_len)))
                    abort();
            } else if (n && memcmp(back.values, out->values, (size_t)(n * w))) {
                abort();
            }
        }
        pq_vec_free(&back);
    } else if (rc != RINGSCAN_ELIMIT) {
        abort();
    }
    free(idx);
    pq_dictb_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const pq_physical types[7] = {PQ_INT32, PQ_INT64, PQ_INT96, PQ_FLOAT, PQ_DOUBLE,
                                         PQ_BYTE_ARRAY, PQ_FIXED_LEN_BYTE_ARRAY};
    if (size < 8) return 0;
    pq_physical t = types[data[0] % 7];
    int32_t tl = data[1] % 16 + 1;
    int64_t nd = (data[2] | data[3] << 8) % 1025, n = (data[6] | data[7] << 8) % 4097;
    size_t dlen = (size_t)(data[4] | data[5] << 8);
    const uint8_t *p = data + 8;
    size_t left = size - 8;
    if (dlen > left) dlen = left;
    pq_vec dict, out;
    pq_vec_init(&dict, t, tl);
    pq_vec_init(&out, t, tl);
    pq_err e = {0};
    if (pq_dict_decode_page(p, dlen, nd, &dict, &e) == 0) {
        pq_rle_dec d;
        if (pq_rle_init_dict(&d, p + dlen, left - dlen, &e) == 0) {
            int rc = pq_dict_decode(&dict, &d, n, &out, &e);
            if (rc == 0 && out.length != n) abort();
            if (rc != 0 && out.length != 0) abort();
            if (rc == 0) rebuild(&out);
        }
    }
    pq_vec_free(&dict);
    pq_vec_free(&out);
    return 0;
}
