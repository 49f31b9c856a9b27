/* scan/arrow_leaf.c: one flat column's vector (or one leaf of a nested field) as an Arrow
 * array of a given format (scan/arrow.h scan_arrow_leaf). The format decides the layout:
 *   - the batch's buffers are taken over where Arrow's layout is the same (ints, floats,
 *     booleans, strings and binary with int32 offsets, fixed-size binary, float16);
 *   - "c"/"C"/"s"/"S" from INT32 values narrowed, "l"/"L" from INT32 widened (dictionary
 *     indices of a stored index type); INT96 to timestamp[ns] ("tsn:", pyarrow's wrapping
 *     arithmetic);
 *   - "d:P,S[,W]": the unscaled value (INT32, INT64, big-endian bytes) as a W-bit (32, 64,
 *     128 or 256) little-endian two's complement, sign-extended or cut to its low bytes (a
 *     value that does not fit its precision is the writer's; pyarrow keeps its low bytes too);
 *   - "U"/"Z": int64 offsets; "vu"/"vz": 16-byte views (inline up to 12 bytes, else a prefix
 *     and an offset into the one data buffer), then the variadic sizes buffer;
 *   - "n": the null type, no buffers, every row null.
 * Invariants: the array owns every buffer it points at and frees exactly those on release;
 * on failure v is untouched and nothing is left allocated. */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bufpool.h"
#include "common/fail.h"
#include "scan/arrow.h"

typedef struct leaf_priv {
    pq_vec vec;                 /* buffers taken over from the batch */
    void *converted;            /* values (or offsets, or views) in Arrow's layout */
    size_t converted_cap;       /* its bytes: a pooled size goes back to common/bufpool */
    int64_t variadic[1];        /* a view array's data buffer size */
    const void *buffers[4];
    struct ArrowArray **children;
    struct ArrowArray *child_mem;
} leaf_priv;

static void leaf_release(struct ArrowArray *a)
{
    leaf_priv *p = a->private_data;
    for (int64_t i = 0; i < a->n_children; i++)
        if (p->child_mem[i].release) p->child_mem[i].release(&p->child_mem[i]);
    pq_vec_free(&p->vec);
    bufpool_give(p->converted, p->converted_cap);
    if (a->dictionary && a->dictionary->release) a->dictionary->release(a->dictionary);
    free(a->dictionary);
    free(p->children);
    free(p->child_mem);
    free(p);
    a->release = NULL;
}

/* The unscaled decimal of row r of v as w bytes little-endian, sign-extended or cut; false
 * when the bytes cut are not the sign extension of those kept (the value needs more than w
 * bytes: a BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY longer than the type's width). */
static bool decimal_at(const pq_vec *v, int64_t r, uint8_t *out, int w)
{
    uint8_t be[32];
    int n;
    if (v->type == PQ_INT32 || v->type == PQ_INT64) {
        int64_t x = v->type == PQ_INT32 ? ((const int32_t *)(const void *)v->values)[r]
                                        : ((const int64_t *)(const void *)v->values)[r];
        n = 8;
        for (int i = 0; i < 8; i++) be[7 - i] = (uint8_t)((uint64_t)x >> (8 * i));
    } else {
        const uint8_t *b = v->type == PQ_BYTE_ARRAY ? v->data + v->offsets[r]
                                                    : v->values + (size_t)r * (size_t)v->type_length;
        int32_t len = v->type == PQ_BYTE_ARRAY ? v->offsets[r + 1] - v->offsets[r] : v->type_length;
        n = len > 32 ? 32 : len; /* the low 32 bytes: what a 256-bit value can hold */
        memcpy(be, b + (len - n), (size_t)n);
        uint8_t top = n > 0 && (be[0] & 0x80) ? 0xff : 0; /* the bytes above: its sign */
        for (int32_t i = 0; i < len - n; i++)
            if (b[i] != top) return false;
    }
    uint8_t sign = n > 0 && (be[0] & 0x80) ? 0xff : 0;
    for (int i = 0; i < w; i++) out[i] = i < n ? be[n - 1 - i] : sign;
    if (v->type == PQ_INT32 || v->type == PQ_INT64) return true; /* cut as pyarrow cuts it */
    uint8_t kept = w <= n && (out[w - 1] & 0x80) ? 0xff : sign; /* out's sign */
    for (int i = w; i < n; i++)
        if (be[n - 1 - i] != kept) return false;
    return true;
}

/* Rows of an INT32 or INT64 vector as w-byte little-endian (w a constant where inlined). */
static inline void ints_as(const pq_vec *v, uint8_t *o, int w)
{
    for (int64_t r = 0; r < v->length; r++) {
        int64_t x = pq_vec_int_at(v, r), sign = x >> 63;
        uint8_t *d = o + r * w;
        if (w == 4) {
            memcpy(d, &(uint32_t){(uint32_t)(uint64_t)x}, 4); /* the low bytes: cut */
            continue;
        }
        memcpy(d, &x, 8);
        for (int k = 8; k < w; k += 8) memcpy(d + k, &sign, 8);
    }
}

/* Unscaled INT32 or INT64 decimals as w-byte (4, 8, 16 or 32) little-endian two's complement:
 * what decimal_at gives each row, a word store per 8 bytes (a DECIMAL(15,2) column's widening
 * to 128 bits took a tenth of a one-thread scan projecting it when done byte by byte,
 * bench/RESULTS.md's twentieth session). */
static void decimal_ints(const pq_vec *v, uint8_t *o, int w)
{
    assert(v->type == PQ_INT32 || v->type == PQ_INT64);
    switch (w) {
    case 4: ints_as(v, o, 4); break;
    case 8: ints_as(v, o, 8); break;
    case 16: ints_as(v, o, 16); break;
    default: assert(w == 32); ints_as(v, o, 32); break;
    }
}

/* The bit width of a decimal format "d:P,S[,W]" (128 when absent). */
static int decimal_bits(const char *fmt)
{
    int p, s, w = 128;
    int k = sscanf(fmt, "d:%d,%d,%d", &p, &s, &w);
    assert(k >= 2);
    (void)k;
    return w;
}

/* A conversion's buffer of at least n bytes (zeroed when zero), *cap its size: a pooled block
 * (common/bufpool.h) past half the smallest class, as a batch's own buffers are, so a decimal
 * column's 16-byte values do not fault in fresh pages each batch. NULL when out of memory. */
static void *conv_alloc(size_t n, bool zero, size_t *cap)
{
    void *p = bufpool_alloc(n, cap);
    if (p && zero) memset(p, 0, n);
    return p;
}

/* The bytes of n values of w bytes, at least one value's (an empty batch's buffer is not
 * NULL). Exactly n values: a batch of 2^17 rows of decimal128 fills a 2 MiB class, where one
 * spare value took a 4 MiB block. */
static size_t conv_bytes(int64_t n, int w)
{
    assert(n >= 0 && w > 0);
    return (size_t)(n > 0 ? n : 1) * (size_t)w;
}

/* A view array's 16-byte views of v's BYTE_ARRAY rows into one new buffer *out. 0 or
 * -ENOMEM. */
static int views_of(const pq_vec *v, void **out, size_t *cap)
{
    uint8_t *o = conv_alloc(conv_bytes(v->length, 16), true, cap);
    *out = o;
    if (!o) return -ENOMEM;
    for (int64_t r = 0; r < v->length; r++) {
        int32_t at = v->offsets ? v->offsets[r] : 0;
        int32_t n = v->offsets ? v->offsets[r + 1] - at : 0;
        uint8_t *w = o + 16 * r;
        memcpy(w, &n, 4);
        if (n <= 12) {
            if (n) memcpy(w + 4, v->data + at, (size_t)n);
            continue;
        }
        memcpy(w + 4, v->data + at, 4); /* prefix, buffer 0, offset */
        memcpy(w + 12, &at, 4);
    }
    return 0;
}

/* Values in Arrow's layout for format fmt where it differs from v's: *conv (NULL when the
 * same). 0, -ENOMEM, or RINGSCAN_EFORMAT with e naming column col for a decimal whose bytes
 * hold a value wider than its Arrow width (pyarrow refuses such a file: "Invalid BYTE_ARRAY
 * length for decimal128"; one whose extra bytes are only its sign reads). */
static int convert(const char *fmt, const pq_vec *v, void **conv, size_t *cap, const char *col,
                   pq_err *e)
{
    *conv = NULL;
    int64_t n = v->length;
    if (fmt[0] == 'd') {
        int w = decimal_bits(fmt) / 8;
        uint8_t *o = conv_alloc(conv_bytes(n, w), false, cap);
        if (!o) return -ENOMEM;
        bool ints = v->type == PQ_INT32 || v->type == PQ_INT64;
        if (ints && (w == 4 || w == 8 || w == 16 || w == 32)) { /* cut as pyarrow cuts them */
            decimal_ints(v, o, w);
            *conv = o;
            return 0;
        }
        for (int64_t r = 0; r < n; r++) {
            if (!pq_vec_is_valid(v, r)) { /* a null's slot: zeroes, whatever the bytes */
                memset(o + r * w, 0, (size_t)w);
                continue;
            }
            if (decimal_at(v, r, o + r * w, w)) continue;
            bufpool_give(o, *cap);
            return pq_errf(e, RINGSCAN_EFORMAT, -1, "column '%.100s': the decimal in row %lld "
                           "of the batch needs more than %d bytes (%s)", col, (long long)r, w, fmt);
        }
        *conv = o;
        return 0;
    }
    if (v->type == PQ_INT96 && strcmp(fmt, "tsn:") == 0) {
        int64_t *o = conv_alloc(conv_bytes(n, 8), false, cap);
        if (!o) return -ENOMEM;
        for (int64_t r = 0; r < n; r++) o[r] = pq_int96_nanos(v->values + r * 12);
        *conv = o;
        return 0;
    }
    if (v->type == PQ_BYTE_ARRAY && (strcmp(fmt, "U") == 0 || strcmp(fmt, "Z") == 0)) {
        int64_t *o = conv_alloc(sizeof *o * (size_t)(n + 1), false, cap);
        if (!o) return -ENOMEM;
        for (int64_t r = 0; r <= n; r++) o[r] = v->offsets ? v->offsets[r] : 0;
        *conv = o;
        return 0;
    }
    if (v->type == PQ_BYTE_ARRAY && fmt[0] == 'v') return views_of(v, conv, cap);
    int width = strchr("cC", fmt[0]) ? 1 : strchr("sS", fmt[0]) ? 2 : strchr("lL", fmt[0]) ? 8 : 0;
    if (width == 0 || fmt[1] || v->type != PQ_INT32) return 0;
    uint8_t *o = conv_alloc(conv_bytes(n, width), false, cap);
    if (!o) return -ENOMEM;
    const int32_t *src = (const int32_t *)(const void *)v->values;
    for (int64_t r = 0; r < n; r++) {
        if (width == 1) o[r] = (uint8_t)src[r];
        else if (width == 2) memcpy(o + r * 2, &(uint16_t){(uint16_t)src[r]}, 2);
        else memcpy(o + r * 8, &(int64_t){src[r]}, 8);
    }
    *conv = o;
    return 0;
}

/* The null type: no buffers, every row null; v's buffers freed. */
static int null_array(pq_vec *v, struct ArrowArray *a)
{
    leaf_priv *p = fail_calloc(1, sizeof *p);
    if (!p) return -ENOMEM;
    pq_vec_init(&p->vec, v->type, v->type_length);
    *a = (struct ArrowArray){.length = v->length, .null_count = v->length, .buffers = p->buffers,
                             .release = leaf_release, .private_data = p};
    pq_vec_free(v);
    return 0;
}

int scan_arrow_leaf(const char *fmt, pq_vec *v, struct ArrowArray *a, const char *col, pq_err *e)
{
    if (strcmp(fmt, "n") == 0) return null_array(v, a);
    leaf_priv *p = fail_calloc(1, sizeof *p);
    if (!p) return -ENOMEM;
    int rc = convert(fmt, v, &p->converted, &p->converted_cap, col, e);
    if (rc) {
        free(p);
        return rc;
    }
    p->vec = *v;
    pq_vec_init(v, v->type, v->type_length); /* the array owns the buffers now */
    bool var = p->vec.type == PQ_BYTE_ARRAY && fmt[0] != 'd';
    static const int32_t zero_offset = 0;
    p->buffers[0] = p->vec.null_count > 0 ? p->vec.validity : NULL;
    p->buffers[1] = p->converted ? p->converted : var ? (const void *)p->vec.offsets : p->vec.values;
    if (!p->buffers[1] && var) p->buffers[1] = &zero_offset;
    p->buffers[2] = p->vec.data ? p->vec.data : (const void *)&zero_offset;
    int n_buffers = var ? 3 : 2;
    if (var && fmt[0] == 'v') { /* views: the data buffer, then its size */
        p->variadic[0] = p->vec.data_len;
        p->buffers[3] = p->variadic;
        n_buffers = 4;
    }
    *a = (struct ArrowArray){.length = p->vec.length, .null_count = p->vec.null_count,
                             .n_buffers = n_buffers, .buffers = p->buffers,
                             .release = leaf_release, .private_data = p};
    return 0;
}

int scan_arrow_struct_new(int64_t length, int64_t nchild, struct ArrowArray *a)
{
    leaf_priv *p = fail_calloc(1, sizeof *p);
    if (!p) return -ENOMEM;
    p->children = fail_calloc((size_t)nchild + 1, sizeof *p->children);
    p->child_mem = fail_calloc((size_t)nchild + 1, sizeof *p->child_mem);
    if (!p->children || !p->child_mem) {
        free(p->children);
        free(p->child_mem);
        free(p);
        return -ENOMEM;
    }
    pq_vec_init(&p->vec, PQ_INT32, 0);
    for (int64_t i = 0; i < nchild; i++) p->children[i] = &p->child_mem[i];
    *a = (struct ArrowArray){.length = length, .n_buffers = 1, .buffers = p->buffers,
                             .n_children = 0, .children = p->children,
                             .release = leaf_release, .private_data = p};
    return 0;
}
