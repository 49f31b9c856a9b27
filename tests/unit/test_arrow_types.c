/* tests for the Arrow formats of Parquet types without a stored Arrow schema
 * (scan/arrow.c scan_arrow_format), the metadata blocks of scan/arrow_types.c, and INT32 /
 * INT64 decimals widened or cut to each Arrow decimal width (scan/arrow_leaf.c). */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "scan/arrow.h"
#include "scan/arrow_types.h"

static const char *fmt_of(pq_physical p, int32_t tl, pq_logical lg, bool utc)
{
    static char buf[32];
    pq_column_desc d = {.physical = p, .type_length = tl, .logical = lg, .is_adjusted_to_utc = utc};
    return scan_arrow_format(&d, 0, buf, sizeof buf);
}

static void formats(void)
{
    CHECK(strcmp(fmt_of(PQ_FIXED_LEN_BYTE_ARRAY, 12, PQ_LOGICAL_INTERVAL, false), "w:12") == 0);
    CHECK(strcmp(fmt_of(PQ_FIXED_LEN_BYTE_ARRAY, 16, PQ_LOGICAL_UUID, false), "w:16") == 0);
    CHECK(strcmp(fmt_of(PQ_FIXED_LEN_BYTE_ARRAY, 2, PQ_LOGICAL_FLOAT16, false), "e") == 0);
    CHECK(strcmp(fmt_of(PQ_INT64, 0, PQ_LOGICAL_TIMESTAMP_MICROS, true), "tsu:UTC") == 0);
    CHECK(strcmp(fmt_of(PQ_INT64, 0, PQ_LOGICAL_TIMESTAMP_NANOS, false), "tsn:") == 0);
    CHECK(strcmp(fmt_of(PQ_INT32, 0, PQ_LOGICAL_TIMESTAMP_MILLIS, true), "tsm:UTC") == 0);
    CHECK(strcmp(fmt_of(PQ_BYTE_ARRAY, 0, PQ_LOGICAL_STRING, false), "u") == 0);
    CHECK(strcmp(fmt_of(PQ_BYTE_ARRAY, 0, PQ_LOGICAL_NONE, false), "z") == 0);
}

/* A UUID column and a field id, no stored schema: the extension name and the field id as
 * metadata, in the C Data Interface's encoding; the file's key-value pairs on the struct. */
static void metadata_blocks(void)
{
    pq_column_desc d = {.name = "u", .physical = PQ_FIXED_LEN_BYTE_ARRAY, .type_length = 16,
                        .logical = PQ_LOGICAL_UUID, .field_id = 42};
    pq_kv kv[2] = {{"ARROW:schema", "x", 1}, {"k", "val", 3}};
    pq_file_meta m = {.nkv = 2, .kv = kv};
    scan_arrow_col c = {.desc = &d, .name = "u", .node = -1};
    scan_arrow_types t;
    pq_err e = {0};
    /* "x" is not a schema message: refused, naming the key */
    CHECK(scan_arrow_types_build(&m, &c, 1, &t, &e) == RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "ARROW:schema") != NULL);
    kv[0].key = "other";
    CHECK(scan_arrow_types_build(&m, &c, 1, &t, &e) == 0);
    const char *md = t.cols[0].metadata;
    int32_t n, l;
    memcpy(&n, md, 4);
    CHECK_EQ_I64(n, 3);
    memcpy(&l, md + 4, 4);
    CHECK(l == 20 && memcmp(md + 8, "ARROW:extension:name", 20) == 0);
    memcpy(&l, md + 28, 4);
    CHECK(l == 10 && memcmp(md + 32, "arrow.uuid", 10) == 0);
    CHECK_EQ_I64((int64_t)scan_arrow_metadata_len(md), 4 + (4 + 20 + 4 + 10) + (4 + 24 + 4) + (4 + 16 + 4 + 2));
    CHECK(memcmp(md + scan_arrow_metadata_len(md) - 2, "42", 2) == 0);
    memcpy(&n, t.metadata, 4);
    CHECK_EQ_I64(n, 2); /* both pairs: "other" is not ARROW:schema */
    CHECK(t.cols[0].format[0] == '\0' && t.cols[0].index_format[0] == '\0' && !t.cols[0].dictionary);
    scan_arrow_types_free(&t);
    CHECK(t.cols == NULL && t.metadata == NULL);
}

/* Unscaled INT64 and INT32 decimals as 32-, 64-, 128- and 256-bit arrays: each value's
 * little-endian two's complement, sign-extended (negative values too) or cut to 4 bytes. */
static void decimal_widths(void)
{
    static const int64_t x64[] = {0, 1, -1, 12345678901, -12345678901, INT64_MAX, INT64_MIN};
    static const char *const fmts[] = {"d:9,2,32", "d:18,2,64", "d:15,2", "d:15,2,256"};
    static const int widths[] = {4, 8, 16, 32};
    enum { N = sizeof x64 / sizeof x64[0] };
    for (int narrow = 0; narrow < 2; narrow++)
        for (int f = 0; f < 4; f++) {
            pq_vec v;
            pq_vec_init(&v, narrow ? PQ_INT32 : PQ_INT64, 0);
            CHECK_EQ_I64(pq_vec_reserve(&v, N, 0), 0);
            for (int r = 0; r < N; r++) {
                if (narrow) ((int32_t *)(void *)v.values)[r] = (int32_t)x64[r];
                else ((int64_t *)(void *)v.values)[r] = x64[r];
            }
            v.length = N;
            struct ArrowArray a;
            pq_err e = {.offset = -1};
            CHECK_EQ_I64(scan_arrow_leaf(fmts[f], &v, &a, "d", &e), 0);
            CHECK_EQ_I64(a.length, N);
            const uint8_t *o = a.buffers[1];
            int w = widths[f];
            for (int r = 0; r < N; r++) {
                int64_t x = narrow ? (int32_t)x64[r] : x64[r];
                uint8_t want[32];
                for (int i = 0; i < w; i++)
                    want[i] = i < 8 ? (uint8_t)((uint64_t)x >> (8 * i)) : x < 0 ? 0xff : 0;
                CHECK(memcmp(o + r * w, want, (size_t)w) == 0);
            }
            a.release(&a);
            pq_vec_free(&v);
        }
}

int main(void)
{
    RUN(formats);
    RUN(decimal_widths);
    RUN(metadata_blocks);
    return CHECK_DONE("test_arrow_types");
}
