/* tests for ringscan_stat_display (include/ringscan.h, scan/api_meta.c): the value of each
 * logical type as `ringscan meta` prints it, on a file written here with one column of each
 * type, values passed in directly: dates (before 1970, leap day), timestamps in each unit with
 * and without UTC (before the epoch, INT64_MIN without overflow), times (and one past a day,
 * printed raw), decimals of INT64, 16-byte and 1-byte arrays (INT128 extremes; 17 bytes as
 * hex), FLOAT16, UUID, INT96, byte arrays (valid UTF-8 as a string, otherwise hex), floats as
 * the shortest text; the snprintf contract. */
#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "ringscan.h"
#include "test_scan_common.h"

enum { NC = 12 };
enum { C_DATE, C_TS_MS, C_TS_NS, C_TIME_US, C_DEC16, C_DEC_BA, C_F16, C_UUID, C_I96, C_BIN, C_DBL, C_FLT };
static char path[256];
static ringscan_file *file; /* opened once in main */

static int write_file(const char *p)
{
    pq_column_desc s[NC];
    s[C_DATE] = ts_desc("date", PQ_INT32, 0, false, PQ_LOGICAL_DATE);
    s[C_TS_MS] = ts_desc("ts_ms", PQ_INT64, 0, false, PQ_LOGICAL_TIMESTAMP_MILLIS);
    s[C_TS_MS].is_adjusted_to_utc = true;
    s[C_TS_NS] = ts_desc("ts_ns", PQ_INT64, 0, false, PQ_LOGICAL_TIMESTAMP_NANOS);
    s[C_TIME_US] = ts_desc("time_us", PQ_INT64, 0, false, PQ_LOGICAL_TIME_MICROS);
    s[C_DEC16] = ts_desc("dec16", PQ_FIXED_LEN_BYTE_ARRAY, 16, false, PQ_LOGICAL_DECIMAL);
    s[C_DEC16].decimal_precision = 38;
    s[C_DEC_BA] = ts_desc("dec_ba", PQ_BYTE_ARRAY, 0, false, PQ_LOGICAL_DECIMAL);
    s[C_F16] = ts_desc("f16", PQ_FIXED_LEN_BYTE_ARRAY, 2, false, PQ_LOGICAL_FLOAT16);
    s[C_UUID] = ts_desc("uuid", PQ_FIXED_LEN_BYTE_ARRAY, 16, false, PQ_LOGICAL_UUID);
    s[C_I96] = ts_desc("i96", PQ_INT96, 0, false, PQ_LOGICAL_NONE);
    s[C_BIN] = ts_desc("bin", PQ_BYTE_ARRAY, 0, false, PQ_LOGICAL_NONE);
    s[C_DBL] = ts_desc("dbl", PQ_DOUBLE, 0, false, PQ_LOGICAL_NONE);
    s[C_FLT] = ts_desc("flt", PQ_FLOAT, 0, false, PQ_LOGICAL_NONE);
    pq_vec v[NC];
    static const uint8_t zero[16];
    for (int c = 0; c < NC; c++) {
        ts_vec_new(&v[c], s[c].physical, s[c].type_length, 1, 64);
        if (s[c].physical == PQ_BYTE_ARRAY) ts_put_bytes(&v[c], zero, 1, false);
        else ts_put_fixed(&v[c], zero, false);
    }
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    int rc = ts_write(p, s, NC, v, 1, &wo);
    for (int c = 0; c < NC; c++) pq_vec_free(&v[c]);
    return rc;
}

/* The display text of n bytes p in column c (static buffer). */
static const char *show(const ringscan_file *f, int c, const void *p, uint32_t n)
{
    static char buf[160];
    int len = ringscan_stat_display(f, c, p, n, buf, sizeof buf);
    return len >= 0 && (size_t)len < sizeof buf ? buf : "(error)";
}

#define SHOW_IS(c, p, n, want)                                                                    \
    do {                                                                                          \
        const char *got_ = show(f, c, p, n);                                                      \
        if (strcmp(got_, want) != 0) fprintf(stderr, "column %d: got '%s', want '%s'\n", c, got_, want); \
        CHECK(strcmp(got_, want) == 0);                                                           \
    } while (0)

static void test_time_types(void)
{
    const ringscan_file *f = file;
    int32_t d[] = {0, -1, 19782, -135080};
    SHOW_IS(C_DATE, &d[0], 4, "1970-01-01");
    SHOW_IS(C_DATE, &d[1], 4, "1969-12-31");
    SHOW_IS(C_DATE, &d[2], 4, "2024-02-29");
    SHOW_IS(C_DATE, &d[3], 4, "1600-03-01");
    int64_t t[] = {-1, 1709251198123, INT64_MIN, 1, 86399999999, 86400000000};
    SHOW_IS(C_TS_MS, &t[0], 8, "1969-12-31 23:59:59.999Z");
    SHOW_IS(C_TS_MS, &t[1], 8, "2024-02-29 23:59:58.123Z");
    const char *low = show(f, C_TS_MS, &t[2], 8); /* no overflow: a year about -292 million */
    CHECK(low[0] == '-' && strlen(low) > 20 && low[strlen(low) - 1] == 'Z');
    SHOW_IS(C_TS_NS, &t[3], 8, "1970-01-01 00:00:00.000000001");
    SHOW_IS(C_TS_NS, &t[0], 8, "1969-12-31 23:59:59.999999999");
    SHOW_IS(C_TIME_US, &t[4], 8, "23:59:59.999999");
    SHOW_IS(C_TIME_US, &t[5], 8, "86400000000"); /* past a day: the raw number */
    uint8_t i96[12] = {1, 0, 0, 0, 0, 0, 0, 0, 0x8c, 0x3d, 0x25, 0}; /* 1 ns, Julian day 2440588 */
    SHOW_IS(C_I96, i96, 12, "1970-01-01 00:00:00.000000001");
}

static void test_decimals(void)
{
    const ringscan_file *f = file;
    uint8_t b[17];
    memset(b, 0xff, 16);
    SHOW_IS(C_DEC16, b, 16, "-0.01");
    b[0] = 0x7f;
    SHOW_IS(C_DEC16, b, 16, "1701411834604692317316873037158841057.27");
    memset(b, 0, 16);
    b[0] = 0x80;
    SHOW_IS(C_DEC16, b, 16, "-1701411834604692317316873037158841057.28");
    SHOW_IS(C_DEC_BA, b, 1, "-1.28");
    uint8_t five = 5;
    SHOW_IS(C_DEC_BA, &five, 1, "0.05");
    memset(b, 0x01, 17);
    SHOW_IS(C_DEC_BA, b, 17, "0x0101010101010101010101010101010101"); /* wider than 16 bytes */
}

static void test_other_types(void)
{
    const ringscan_file *f = file;
    uint16_t h[] = {0x3c00, 0xc000, 0x7c00, 0x7e00, 0x0000};
    SHOW_IS(C_F16, &h[0], 2, "1");
    SHOW_IS(C_F16, &h[1], 2, "-2");
    SHOW_IS(C_F16, &h[2], 2, "inf");
    SHOW_IS(C_F16, &h[3], 2, "NaN");
    SHOW_IS(C_F16, &h[4], 2, "0");
    uint8_t u[16];
    for (int i = 0; i < 16; i++) u[i] = (uint8_t)i;
    SHOW_IS(C_UUID, u, 16, "00010203-0405-0607-0809-0a0b0c0d0e0f");
    SHOW_IS(C_BIN, "a\"b", 3, "\"a\\\"b\"");
    SHOW_IS(C_BIN, "\xc3\xa9", 2, "\"\xc3\xa9\"");           /* é: valid UTF-8 */
    SHOW_IS(C_BIN, "\xff\x00", 2, "0xff00");                  /* not UTF-8: hex */
    SHOW_IS(C_BIN, "\xc0\x80", 2, "0xc080");                  /* overlong NUL: hex */
    SHOW_IS(C_BIN, "\xed\xa0\x80", 3, "0xeda080");            /* a surrogate: hex */
    double d[] = {0.1, 1e300, -0.0};
    SHOW_IS(C_DBL, &d[0], 8, "0.1");
    SHOW_IS(C_DBL, &d[1], 8, "1e+300");
    SHOW_IS(C_DBL, &d[2], 8, "-0");
    float x = 0.1f;
    SHOW_IS(C_FLT, &x, 4, "0.1");
    SHOW_IS(C_DBL, &d[0], 3, "0x9a9999"); /* a length the type does not have */
    /* the JSON form (ringscan_stat_text): the values JSON has no literal for are strings */
    double odd[] = {INFINITY, -INFINITY, NAN, 0.5};
    const char *want[] = {"\"Infinity\"", "\"-Infinity\"", "\"NaN\"", "0.5"};
    for (int i = 0; i < 4; i++) {
        char buf[64];
        int len = ringscan_stat_text(f, C_DBL, (const uint8_t *)&odd[i], 8, buf, sizeof buf);
        CHECK(len >= 0 && strcmp(buf, want[i]) == 0);
    }
    float finf = -INFINITY;
    char fbuf[64];
    CHECK(ringscan_stat_text(f, C_FLT, (const uint8_t *)&finf, 4, fbuf, sizeof fbuf) == 11 &&
          strcmp(fbuf, "\"-Infinity\"") == 0);
}

static void test_contract(void)
{
    const ringscan_file *f = file;
    int32_t d = 0;
    char buf[5];
    memset(buf, 'z', sizeof buf);
    CHECK(ringscan_stat_display(f, C_DATE, (const uint8_t *)&d, 4, buf, sizeof buf) == 10);
    CHECK(memcmp(buf, "1970", 5) == 0); /* 4 bytes and the NUL */
    CHECK(ringscan_stat_display(f, C_DATE, (const uint8_t *)&d, 4, NULL, 0) == 10);
    CHECK(ringscan_stat_display(NULL, 0, (const uint8_t *)&d, 4, buf, sizeof buf) == -EINVAL);
    CHECK(ringscan_stat_display(f, NC, (const uint8_t *)&d, 4, buf, sizeof buf) == -EINVAL);
    CHECK(ringscan_stat_display(f, 0, NULL, 4, buf, sizeof buf) == -EINVAL);
    CHECK(ringscan_stat_display(f, 0, (const uint8_t *)&d, 4, NULL, sizeof buf) == -EINVAL);
}

int main(void)
{
    ts_dir_init();
    ts_path(path, sizeof path, "display.parquet");
    if (write_file(path) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        return 1;
    }
    ringscan_error err;
    if (ringscan_open(path, &file, &err)) {
        fprintf(stderr, "open: %s\n", err.message);
        return 1;
    }
    RUN(test_time_types);
    RUN(test_decimals);
    RUN(test_other_types);
    RUN(test_contract);
    ringscan_close(file);
    ts_dir_remove();
    return CHECK_DONE("test_api_display");
}
