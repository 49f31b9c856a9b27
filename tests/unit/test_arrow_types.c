/* tests for the Arrow formats of Parquet types without a stored Arrow schema
 * (scan/arrow.c scan_arrow_format) and the metadata blocks of scan/arrow_types.c. */
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

int main(void)
{
    RUN(formats);
    RUN(metadata_blocks);
    return CHECK_DONE("test_arrow_types");
}
