/* tests for format/delta.c, format/enc_dba.c and format/bss.c */
#include "check.h"
#include "format/encoding.h"

static uint64_t rng(uint64_t *s)
{
    *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static void delta_spec_examples(void)
{
    /* Encodings.md example 1: 1 2 3 4 5 */
    uint8_t ex1[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00};
    pq_delta_dec d;
    int32_t o[8];
    CHECK(pq_delta_init(&d, ex1, sizeof ex1, true, 5, NULL) == 0);
    CHECK_EQ_I64(pq_delta_next(&d, o, 8), 5);
    for (int i = 0; i < 5; i++) CHECK_EQ_I64(o[i], i + 1);
    CHECK_EQ_I64(pq_delta_used(&d), sizeof ex1);
    /* example 2: 7 5 3 1 2 3 4 5: min delta -2, relative 0 0 0 3 3 3 3 at width 2 */
    uint8_t ex2[20] = {0x80, 0x01, 0x04, 0x08, 0x0e, 0x03, 0x02, 0, 0, 0, 0xC0, 0x3F};
    CHECK(pq_delta_init(&d, ex2, sizeof ex2, true, 8, NULL) == 0);
    int64_t got = 0;
    while (got < 8) { /* one at a time */
        int64_t k = pq_delta_next(&d, o + got, 1);
        CHECK_EQ_I64(k, 1);
        if (k != 1) break;
        got++;
    }
    int32_t want[8] = {7, 5, 3, 1, 2, 3, 4, 5};
    CHECK(memcmp(o, want, sizeof want) == 0);
    CHECK_EQ_I64(pq_delta_used(&d), 10 + 8); /* miniblock padded to 32 values */
    /* an empty page into a vector with no values buffer yet (NULL + 0 trapped in checked
     * builds; found by review) */
    uint8_t ex0[] = {0x80, 0x01, 0x04, 0x00, 0x00};
    pq_vec v;
    pq_vec_init(&v, PQ_INT32, 0);
    CHECK(pq_delta_init(&d, ex0, sizeof ex0, true, 0, NULL) == 0);
    CHECK(pq_delta_decode(&d, 0, &v) == 0);
    CHECK_EQ_I64(v.length, 0);
    pq_vec_free(&v);
    /* total_values beyond what the page says */
    pq_err e = {0};
    CHECK(pq_delta_init(&d, ex2, sizeof ex2, true, 7, &e) == RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "declares 8 values, the page has 7") != NULL);
    /* a truncated padded miniblock */
    CHECK(pq_delta_init(&d, ex2, 17, true, 8, &e) == 0);
    CHECK(pq_delta_next(&d, o, 8) == RINGSCAN_EFORMAT);
}

static void delta_header_errors(void)
{
    pq_delta_dec d;
    pq_err e = {0};
    uint8_t bs[] = {100, 4, 1, 0};
    CHECK(pq_delta_init(&d, bs, 4, false, 10, &e) == RINGSCAN_EFORMAT);
    uint8_t mb[] = {0x80, 0x01, 3, 1, 0};
    CHECK(pq_delta_init(&d, mb, 5, false, 10, &e) == RINGSCAN_EFORMAT);
    uint8_t huge[] = {0x80, 0x80, 0x80, 0x80, 0x08, 1, 1, 0}; /* block of 2^31 values */
    CHECK(pq_delta_init(&d, huge, sizeof huge, false, 10, &e) == RINGSCAN_EFORMAT);
    uint8_t cnt[] = {0x80, 0x01, 4, 0xff, 0xff, 0xff, 0xff, 0x0f, 0}; /* 4G values */
    CHECK(pq_delta_init(&d, cnt, sizeof cnt, false, 1000, &e) == RINGSCAN_EFORMAT);
    uint8_t w65[] = {0x80, 0x01, 4, 3, 0, 0, 65, 0, 0, 0};
    CHECK(pq_delta_init(&d, w65, sizeof w65, false, 3, &e) == 0);
    int64_t o[4];
    CHECK(pq_delta_next(&d, o, 3) == RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "above 64") != NULL);
    /* empty page: 0 values */
    uint8_t z[] = {0x80, 0x01, 4, 0, 0};
    CHECK(pq_delta_init(&d, z, sizeof z, false, 0, &e) == 0);
    CHECK_EQ_I64(pq_delta_next(&d, o, 4), 0);
    CHECK(pq_delta_finish(&d) == 0);
    CHECK_EQ_I64(pq_delta_used(&d), sizeof z);
    uint8_t *nothing = NULL;
    CHECK(pq_delta_init(&d, nothing, 0, false, 0, &e) == RINGSCAN_EFORMAT);
}

static void delta_check_round_trip(const int64_t *v, int64_t n, bool is32)
{
    pq_buf b = {0};
    if (is32) {
        int32_t *v32 = malloc((size_t)(n + 1) * 4);
        for (int64_t i = 0; i < n; i++) v32[i] = (int32_t)v[i];
        CHECK(pq_delta_encode_i32(&b, v32, n) == 0);
        free(v32);
    } else {
        CHECK(pq_delta_encode_i64(&b, v, n) == 0);
    }
    pq_delta_dec d;
    CHECK(pq_delta_init(&d, b.data, b.len, is32, n, NULL) == 0);
    int64_t *o = malloc((size_t)(n + 1) * 8);
    int64_t got = 0, step = 1;
    while (got < n) {
        int64_t k = pq_delta_next(&d, is32 ? (void *)((int32_t *)o + got) : (void *)(o + got), step);
        CHECK(k > 0);
        if (k <= 0) break;
        got += k;
        step = step * 3 + 1;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t x = is32 ? ((int32_t *)o)[i] : o[i];
        int64_t y = is32 ? (int32_t)v[i] : v[i];
        if (x != y) {
            CHECK_EQ_I64(x, y);
            break;
        }
    }
    CHECK_EQ_I64(pq_delta_used(&d), b.len); /* ends exactly at the padded end */
    free(o);
    pq_buf_free(&b);
}

static void delta_round_trips(void)
{
    static int64_t v[5000];
    for (uint64_t seed = 1; seed <= 8; seed++) {
        uint64_t s = seed;
        int64_t n = (int64_t)(rng(&s) % 5000);
        int kind = (int)(seed % 4);
        for (int64_t i = 0; i < n; i++) {
            uint64_t r = rng(&s);
            v[i] = kind == 0 ? (int64_t)r                               /* full range */
                 : kind == 1 ? (int64_t)(r % 1000) + 1000000 * (i / 7) /* sorted-ish */
                 : kind == 2 ? (r & 1 ? INT64_MIN : INT64_MAX)          /* extremes, wrapping */
                             : (int64_t)(int32_t)r;                     /* int32 range */
        }
        delta_check_round_trip(v, n, false);
        delta_check_round_trip(v, n, true);
    }
    int64_t lens[] = {0, 1, 2, 32, 33, 128, 129, 130, 161, 257};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        for (int64_t i = 0; i < lens[k]; i++) v[i] = i * i - 50;
        delta_check_round_trip(v, lens[k], false);
        delta_check_round_trip(v, lens[k], true);
    }
    /* INT32 extremes: deltas of 33 bits wrap back */
    int64_t ex[] = {INT32_MIN, INT32_MAX, INT32_MIN, 0, INT32_MAX, -1};
    delta_check_round_trip(ex, 6, true);
    int64_t ex64[] = {INT64_MIN, INT64_MAX, INT64_MIN, 0, INT64_MAX, -1, INT64_MIN};
    delta_check_round_trip(ex64, 7, false);
}

/* For every width w in 0..64: values whose deltas need exactly w bits after the min. */
static void delta_every_width(void)
{
    int64_t v[40];
    for (int w = 0; w <= 64; w++) {
        uint64_t big = w == 0 ? 0 : w == 64 ? ~0ull : (1ull << w) - 1, acc = 5;
        v[0] = 5;
        for (int i = 1; i < 40; i++) { /* deltas alternate 0 and big: relative width w */
            if (w == 64) /* deltas INT64_MAX and INT64_MIN: relative span 2^64-1 */
                acc += (i % 2) ? (uint64_t)INT64_MAX : (uint64_t)INT64_MIN;
            else
                acc += (i % 2) ? big : 0;
            v[i] = (int64_t)acc;
        }
        pq_buf b = {0};
        CHECK(pq_delta_encode_i64(&b, v, 40) == 0);
        /* header 2+1+1+1 bytes... find the first block's width bytes after its min delta */
        const uint8_t *p = b.data + 2 + 1 + 1 + 1; /* 128, 4, 40, zigzag(5)=10 */
        while (*p & 0x80) p++;                     /* min delta varint */
        p++;
        CHECK_EQ_I64(p[0], w);
        delta_check_round_trip(v, 40, false);
        pq_buf_free(&b);
    }
}

static void delta_truncated_every_byte(void)
{
    int64_t v[300];
    uint64_t s = 3;
    for (int i = 0; i < 300; i++) v[i] = (int64_t)(rng(&s) % 100000);
    pq_buf b = {0};
    CHECK(pq_delta_encode_i64(&b, v, 300) == 0);
    int64_t o[300];
    for (size_t cut = 0; cut < b.len; cut++) {
        uint8_t *c = malloc(cut ? cut : 1);
        memcpy(c, b.data, cut);
        pq_delta_dec d;
        pq_err e = {0};
        int rc = pq_delta_init(&d, c, cut, false, 300, &e);
        if (rc == 0) {
            int64_t k = pq_delta_next(&d, o, 300);
            CHECK(k == RINGSCAN_EFORMAT || (k == 300 && memcmp(o, v, sizeof v) == 0));
        } else {
            CHECK(rc == RINGSCAN_EFORMAT);
        }
        free(c);
    }
    pq_buf_free(&b);
}

static void fill_strings(pq_vec *v, int64_t n, uint64_t *s, int fixed)
{
    CHECK(pq_vec_reserve(v, n, n * 20) == 0);
    for (int64_t i = 0; i < n; i++) {
        int l = fixed ? fixed : (int)(rng(s) % 20);
        uint8_t *dst = fixed ? v->values + i * fixed : v->data + v->data_len;
        for (int k = 0; k < l; k++) /* shared prefixes: low entropy at the front */
            dst[k] = (uint8_t)(k < 4 ? 'a' + (rng(s) % 2) : rng(s));
        if (!fixed) {
            v->data_len += l;
            v->offsets[i + 1] = (int32_t)v->data_len;
        }
        v->length++;
    }
}

static void dba_round_trips(void)
{
    for (int fixed = 0; fixed <= 5; fixed += 5) {
        for (uint64_t seed = 1; seed <= 4; seed++) {
            uint64_t s = seed;
            pq_physical t = fixed ? PQ_FIXED_LEN_BYTE_ARRAY : PQ_BYTE_ARRAY;
            pq_vec in, out;
            pq_vec_init(&in, t, fixed);
            int64_t n = (int64_t)(rng(&s) % 700);
            fill_strings(&in, n, &s, fixed);
            for (int prefixed = 0; prefixed <= 1; prefixed++) {
                pq_buf b = {0};
                CHECK((prefixed ? pq_dba_encode(&b, &in, 0, n) : pq_dlba_encode(&b, &in, 0, n)) == 0);
                pq_dba_dec d;
                int rc = prefixed ? pq_dba_init(&d, b.data, b.len, n, NULL)
                                  : pq_dlba_init(&d, b.data, b.len, n, NULL);
                CHECK(rc == 0);
                CHECK_EQ_I64(pq_dba_count(&d), n);
                pq_vec_init(&out, t, fixed);
                int64_t got = 0, step = 1;
                while (got < n && rc == 0) {
                    int64_t k = n - got < step ? n - got : step;
                    CHECK((rc = pq_dba_next(&d, k, &out)) == 0);
                    got += k;
                    step = step * 2 + 1;
                }
                CHECK_EQ_I64(out.length, n);
                if (fixed) {
                    CHECK(memcmp(out.values, in.values, (size_t)(n * fixed)) == 0);
                } else {
                    CHECK(out.data_len == in.data_len);
                    CHECK(memcmp(out.data, in.data, (size_t)in.data_len) == 0);
                    CHECK(memcmp(out.offsets, in.offsets, (size_t)(n + 1) * 4) == 0);
                }
                CHECK(pq_dba_next(&d, 1, &out) == RINGSCAN_EFORMAT); /* no more values */
                pq_dba_free(&d);
                pq_vec_free(&out);
                /* truncation at every byte: error or (never) success with wrong values */
                for (size_t cut = 0; cut < b.len; cut++) {
                    uint8_t *c = malloc(cut ? cut : 1);
                    memcpy(c, b.data, cut);
                    pq_err e = {0};
                    rc = prefixed ? pq_dba_init(&d, c, cut, n, &e) : pq_dlba_init(&d, c, cut, n, &e);
                    if (rc == 0) {
                        pq_vec_init(&out, t, fixed);
                        CHECK(pq_dba_next(&d, n, &out) == 0);
                        pq_vec_free(&out);
                    }
                    pq_dba_free(&d);
                    free(c);
                }
                pq_buf_free(&b);
            }
            pq_vec_free(&in);
        }
    }
}

/* builds a DBA page: prefix lengths, suffix lengths, suffix bytes */
static void build_dba(pq_buf *b, const int32_t *pre, const int32_t *suf, int n, const char *data)
{
    CHECK(pq_delta_encode_i32(b, pre, n) == 0);
    CHECK(pq_delta_encode_i32(b, suf, n) == 0);
    CHECK(pq_buf_append(b, data, strlen(data)) == 0);
}

static void dba_bad_input(void)
{
    pq_buf b = {0};
    pq_dba_dec d;
    pq_err e = {0};
    int32_t pre[3] = {0, 2, 5}, suf[3] = {3, 1, 0};
    build_dba(&b, pre, suf, 3, "abcd");
    CHECK(pq_dba_init(&d, b.data, b.len, 3, &e) == RINGSCAN_EFORMAT);
    CHECK_STR(e.msg, "DELTA_BYTE_ARRAY: prefix length 5 of value 2 exceeds the previous "
                     "value's length 3");
    pq_dba_free(&d);
    pq_buf_free(&b);
    int32_t pre1[1] = {1}, suf1[1] = {1};
    build_dba(&b, pre1, suf1, 1, "x");
    CHECK(pq_dba_init(&d, b.data, b.len, 1, &e) == RINGSCAN_EFORMAT); /* first prefix > 0 */
    pq_dba_free(&d);
    pq_buf_free(&b);
    int32_t pre2[2] = {0, -1}, suf2[2] = {1, 1};
    build_dba(&b, pre2, suf2, 2, "xy");
    CHECK(pq_dba_init(&d, b.data, b.len, 2, &e) == RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "negative") != NULL);
    pq_dba_free(&d);
    pq_buf_free(&b);
    int32_t pre3[2] = {0, 1}, suf3[2] = {2, 9};
    build_dba(&b, pre3, suf3, 2, "ab");
    CHECK(pq_dba_init(&d, b.data, b.len, 2, &e) == RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "exceed") != NULL);
    pq_dba_free(&d);
    pq_buf_free(&b);
    /* good: "abc", "abd", "ab" */
    int32_t pre4[3] = {0, 2, 2}, suf4[3] = {3, 1, 0};
    build_dba(&b, pre4, suf4, 3, "abcd");
    CHECK(pq_dba_init(&d, b.data, b.len, 3, &e) == 0);
    pq_vec out;
    pq_vec_init(&out, PQ_FIXED_LEN_BYTE_ARRAY, 3);
    CHECK(pq_dba_next(&d, 3, &out) == RINGSCAN_EFORMAT); /* "ab" is not FLBA(3) */
    CHECK_EQ_I64(out.length, 0);
    pq_vec_free(&out);
    pq_dba_free(&d);
    CHECK(pq_dba_init(&d, b.data, b.len, 3, &e) == 0);
    pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
    CHECK(pq_dba_next(&d, 2, &out) == 0);
    CHECK(pq_dba_next(&d, 1, &out) == 0);
    CHECK(out.data_len == 8 && memcmp(out.data, "abcabdab", 8) == 0);
    CHECK(out.offsets[1] == 3 && out.offsets[2] == 6 && out.offsets[3] == 8);
    pq_vec_free(&out);
    pq_dba_free(&d);
    pq_buf_free(&b);
    /* counts disagree */
    int32_t one[1] = {0}, two[2] = {1, 1};
    CHECK(pq_delta_encode_i32(&b, one, 1) == 0);
    CHECK(pq_delta_encode_i32(&b, two, 2) == 0);
    CHECK(pq_buf_append(&b, "xy", 2) == 0);
    CHECK(pq_dba_init(&d, b.data, b.len, 2, &e) == RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "1 prefix lengths but 2 suffix") != NULL);
    pq_dba_free(&d);
    pq_buf_free(&b);
    /* empty DLBA page */
    CHECK(pq_delta_encode_i32(&b, one, 0) == 0);
    CHECK(pq_dlba_init(&d, b.data, b.len, 0, &e) == 0);
    pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
    CHECK(pq_dba_next(&d, 0, &out) == 0);
    CHECK(pq_dba_next(&d, 1, &out) == RINGSCAN_EFORMAT);
    pq_vec_free(&out);
    pq_dba_free(&d);
    pq_buf_free(&b);
}

static void bss(void)
{
    /* FLOAT 1.0f (0x3f800000) and 2.0f (0x40000000): streams of byte 0..3 */
    uint8_t f[8] = {0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x3f, 0x40};
    pq_vec v;
    pq_vec_init(&v, PQ_FLOAT, 0);
    CHECK(pq_bss_decode(f, 8, 2, 0, 2, &v, NULL) == 0);
    float *fv = (float *)(void *)v.values;
    CHECK(fv[0] == 1.0f && fv[1] == 2.0f);
    CHECK(pq_bss_decode(f, 8, 2, 1, 1, &v, NULL) == 0);
    CHECK(v.length == 3 && ((float *)(void *)v.values)[2] == 2.0f);
    pq_err e = {0};
    CHECK(pq_bss_decode(f, 7, 2, 0, 2, &v, &e) == RINGSCAN_EFORMAT);
    CHECK(pq_bss_decode(f, 8, 2, 1, 2, &v, &e) == RINGSCAN_EFORMAT);
    CHECK(pq_bss_decode(f, 0, 0, 0, 0, &v, &e) == 0); /* empty page */
    pq_vec_free(&v);
    /* float16 (FLBA 2): 3 values */
    uint8_t h[6] = {0x00, 0x01, 0x02, 0x3c, 0x40, 0xc0};
    pq_vec_init(&v, PQ_FIXED_LEN_BYTE_ARRAY, 2);
    CHECK(pq_bss_decode(h, 6, 3, 0, 3, &v, NULL) == 0);
    uint8_t wh[6] = {0x00, 0x3c, 0x01, 0x40, 0x02, 0xc0};
    CHECK(memcmp(v.values, wh, 6) == 0);
    pq_vec_free(&v);
    /* round trips for widths 4, 8, 3 (FLBA), with nulls skipped by the encoder */
    pq_physical ts[4] = {PQ_INT32, PQ_DOUBLE, PQ_FIXED_LEN_BYTE_ARRAY, PQ_INT64};
    for (int t = 0; t < 4; t++) {
        pq_vec in, out;
        pq_vec_init(&in, ts[t], 3);
        int32_t w = pq_fixed_width(ts[t], 3);
        CHECK(pq_vec_reserve(&in, 100, 0) == 0);
        uint64_t s = 5 + (uint64_t)t;
        for (int i = 0; i < 100 * w; i++) in.values[i] = (uint8_t)rng(&s);
        in.length = 100;
        pq_buf b = {0};
        CHECK(pq_bss_encode(&b, &in, 0, 100) == 0);
        CHECK_EQ_I64(b.len, 100 * w);
        pq_vec_init(&out, ts[t], 3);
        CHECK(pq_bss_decode(b.data, b.len, 100, 0, 60, &out, NULL) == 0);
        CHECK(pq_bss_decode(b.data, b.len, 100, 60, 40, &out, NULL) == 0);
        CHECK(memcmp(in.values, out.values, (size_t)(100 * w)) == 0);
        pq_buf_free(&b);
        pq_vec_free(&in);
        pq_vec_free(&out);
    }
    pq_vec_init(&v, PQ_INT96, 0);
    CHECK(pq_bss_decode(f, 0, 0, 0, 0, &v, &e) == RINGSCAN_EFORMAT);
}

int main(void)
{
    RUN(delta_spec_examples);
    RUN(delta_header_errors);
    RUN(delta_round_trips);
    RUN(delta_every_width);
    RUN(delta_truncated_every_byte);
    RUN(dba_round_trips);
    RUN(dba_bad_input);
    RUN(bss);
    return CHECK_DONE("test_enc_delta");
}
