/* tests for format/thrift.c: varints, zigzag, field headers, booleans, skipping, limits,
 * truncation, and the writer/reader round trip of small structs. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "format/thrift.h"

static void varint_edges(void)
{
    const uint64_t vals[] = {0, 1, 127, 128, 16383, 16384, UINT32_MAX, (uint64_t)INT64_MAX, UINT64_MAX};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        pq_buf b = {0};
        pq_tw w;
        pq_tw_init(&w, &b);
        pq_tw_varint(&w, vals[i]);
        CHECK(w.status == 0);
        pq_tr r;
        pq_tr_init(&r, b.data, b.len, 0, 0, NULL);
        uint64_t v = 1234;
        CHECK(pq_tr_varint(&r, &v) == 0);
        CHECK(v == vals[i]);
        CHECK(pq_tr_left(&r) == 0);
        pq_buf_free(&b);
    }
    /* UINT64_MAX is 10 bytes ending 0x01 */
    const uint8_t max[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    pq_tr r;
    uint64_t v;
    pq_tr_init(&r, max, 10, 0, 0, NULL);
    CHECK(pq_tr_varint(&r, &v) == 0 && v == UINT64_MAX);
    /* 10th byte > 1 overflows; 11 bytes too long */
    const uint8_t over[11] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0};
    pq_err e = {0};
    pq_tr_init(&r, over, 11, 100, 0, &e);
    CHECK(pq_tr_varint(&r, &v) == RINGSCAN_EFORMAT);
    CHECK_EQ_I64(e.offset, 100);
    const uint8_t longv[11] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0};
    pq_tr_init(&r, longv, 11, 0, 0, NULL);
    CHECK(pq_tr_varint(&r, &v) == RINGSCAN_EFORMAT);
    /* sticky error */
    CHECK(pq_tr_varint(&r, &v) == RINGSCAN_EFORMAT);
}

static void zigzag_edges(void)
{
    const int64_t vals[] = {0, -1, 1, -2, 2, INT32_MIN, INT32_MAX, INT64_MIN, INT64_MAX};
    const uint8_t one[] = {0x01}; /* zigzag 1 -> -1 */
    pq_tr r;
    int64_t v;
    pq_tr_init(&r, one, 1, 0, 0, NULL);
    CHECK(pq_tr_zigzag(&r, &v) == 0 && v == -1);
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        pq_buf b = {0};
        pq_tw w;
        pq_tw_init(&w, &b);
        pq_tw_zigzag(&w, vals[i]);
        pq_tr_init(&r, b.data, b.len, 0, 0, NULL);
        CHECK(pq_tr_zigzag(&r, &v) == 0);
        CHECK(v == vals[i]);
        pq_buf_free(&b);
    }
    /* i32 range check */
    pq_buf b = {0};
    pq_tw w;
    pq_tw_init(&w, &b);
    pq_tw_zigzag(&w, (int64_t)INT32_MAX + 1);
    pq_tr_init(&r, b.data, b.len, 0, 0, NULL);
    CHECK(pq_tr_int(&r, PQ_T_I32, INT32_MIN, INT32_MAX, &v) == RINGSCAN_EFORMAT);
    pq_buf_free(&b);
}

static void field_headers(void)
{
    /* field 1 i32 = 5 (delta), field 20 i64 = -3 (long form), field 21 bool true (delta) */
    const uint8_t msg[] = {0x15, 0x0a, 0x06, 0x28, 0x05, 0x11, 0x00};
    pq_tr r;
    pq_tr_init(&r, msg, sizeof msg, 0, 0, NULL);
    int16_t id;
    uint8_t t;
    int64_t v;
    bool bv;
    CHECK(pq_tr_struct_begin(&r) == 0);
    CHECK(pq_tr_field(&r, &id, &t) == 0 && id == 1 && t == PQ_T_I32);
    CHECK(pq_tr_int(&r, t, INT32_MIN, INT32_MAX, &v) == 0 && v == 5);
    CHECK(pq_tr_field(&r, &id, &t) == 0 && id == 20 && t == PQ_T_I64);
    CHECK(pq_tr_int(&r, t, INT64_MIN, INT64_MAX, &v) == 0 && v == -3);
    CHECK(pq_tr_field(&r, &id, &t) == 0 && id == 21 && t == PQ_T_TRUE);
    CHECK(pq_tr_bool_field(&r, t, &bv) == 0 && bv);
    CHECK(pq_tr_field(&r, &id, &t) == 0 && t == PQ_T_STOP);
    CHECK(pq_tr_struct_end(&r) == 0 && pq_tr_left(&r) == 0);
    /* writer produces the same bytes */
    pq_buf b = {0};
    pq_tw w;
    pq_tw_init(&w, &b);
    pq_tw_struct_begin(&w);
    pq_tw_i32_field(&w, 1, 5);
    pq_tw_i64_field(&w, 20, -3);
    pq_tw_bool_field(&w, 21, true);
    pq_tw_struct_end(&w);
    CHECK(w.status == 0 && b.len == sizeof msg && memcmp(b.data, msg, sizeof msg) == 0);
    pq_buf_free(&b);
}

static void bool_lists(void)
{
    /* element type 1 with 1/2 values (most writers) and type 2 with 0/1 values (Go) */
    const uint8_t a[] = {0x31, 0x01, 0x02, 0x01};
    const uint8_t g[] = {0x32, 0x01, 0x00, 0x01};
    const uint8_t *msgs[] = {a, g};
    for (int k = 0; k < 2; k++) {
        pq_tr r;
        pq_tr_init(&r, msgs[k], 4, 0, 0, NULL);
        uint8_t et;
        uint32_t n;
        bool v[3];
        CHECK(pq_tr_list_begin(&r, &et, &n, 0) == 0 && n == 3);
        for (int i = 0; i < 3; i++) CHECK(pq_tr_bool_elem(&r, &v[i]) == 0);
        CHECK(v[0] && !v[1] && v[2]);
        CHECK(pq_tr_list_end(&r) == 0);
    }
    const uint8_t bad[] = {0x11, 0x07};
    pq_tr r;
    pq_tr_init(&r, bad, 2, 0, 0, NULL);
    uint8_t et;
    uint32_t n;
    bool v;
    CHECK(pq_tr_list_begin(&r, &et, &n, 0) == 0);
    CHECK(pq_tr_bool_elem(&r, &v) == RINGSCAN_EFORMAT);
    /* a list count larger than the bytes left */
    const uint8_t big[] = {0xf5, 0xff, 0x7f, 0x00};
    pq_tr_init(&r, big, 4, 0, 0, NULL);
    CHECK(pq_tr_list_begin(&r, &et, &n, 0) == RINGSCAN_EFORMAT);
}

/* struct { 1: struct { 1: list<struct{1: binary}>, 2: map<i32,binary>, 3: double }, 2: i32 } */
static void skip_nested(void)
{
    pq_buf b = {0};
    pq_tw w;
    pq_tw_init(&w, &b);
    pq_tw_struct_begin(&w);
    pq_tw_field(&w, 1, PQ_T_STRUCT);
    pq_tw_struct_begin(&w);
    pq_tw_field(&w, 1, PQ_T_LIST);
    pq_tw_list_begin(&w, PQ_T_STRUCT, 2);
    for (int i = 0; i < 2; i++) {
        pq_tw_struct_begin(&w);
        pq_tw_binary_field(&w, 1, "xy", 2);
        pq_tw_struct_end(&w);
    }
    pq_tw_field(&w, 2, PQ_T_MAP);
    pq_tw_varint(&w, 1);
    uint8_t kv = PQ_T_I32 << 4 | PQ_T_BINARY;
    pq_tw_bytes(&w, &kv, 1);
    pq_tw_zigzag(&w, 7);
    pq_tw_binary(&w, "v", 1);
    pq_tw_field(&w, 3, PQ_T_DOUBLE);
    pq_tw_bytes(&w, "\0\0\0\0\0\0\xf0\x3f", 8);
    pq_tw_struct_end(&w);
    pq_tw_i32_field(&w, 2, 42);
    pq_tw_struct_end(&w);
    CHECK(w.status == 0);
    pq_tr r;
    pq_tr_init(&r, b.data, b.len, 0, 0, NULL);
    int16_t id;
    uint8_t t;
    int64_t v = 0;
    CHECK(pq_tr_struct_begin(&r) == 0);
    CHECK(pq_tr_field(&r, &id, &t) == 0 && id == 1 && t == PQ_T_STRUCT);
    CHECK(pq_tr_skip(&r, t) == 0);
    CHECK(pq_tr_field(&r, &id, &t) == 0 && id == 2);
    CHECK(pq_tr_int(&r, t, 0, 100, &v) == 0 && v == 42);
    CHECK(pq_tr_field(&r, &id, &t) == 0 && t == PQ_T_STOP);
    CHECK(pq_tr_struct_end(&r) == 0 && pq_tr_left(&r) == 0);
    /* truncated at every byte: an error, never a crash or success */
    for (size_t cut = 0; cut < b.len; cut++) {
        pq_tr_init(&r, b.data, cut, 0, 0, NULL);
        int rc = pq_tr_skip(&r, PQ_T_STRUCT);
        CHECK(rc == RINGSCAN_EFORMAT);
    }
    pq_buf_free(&b);
}

static void depth_limit(void)
{
    uint8_t deep[200];
    for (int i = 0; i < 199; i++) deep[i] = 0x1c; /* field 1, struct */
    deep[199] = 0;
    pq_tr r;
    pq_err e = {0};
    pq_tr_init(&r, deep, sizeof deep, 0, 0, &e);
    CHECK(pq_tr_skip(&r, PQ_T_STRUCT) == RINGSCAN_ELIMIT);
    CHECK(strstr(e.msg, "depth") != NULL);
    /* a list nesting bomb hits the same limit */
    uint8_t lists[200];
    memset(lists, 0x19, sizeof lists); /* list of 1 list */
    pq_tr_init(&r, lists, sizeof lists, 0, 0, NULL);
    CHECK(pq_tr_skip(&r, PQ_T_LIST) == RINGSCAN_ELIMIT);
    /* a low configured limit */
    const uint8_t two[] = {0x1c, 0x1c, 0x00, 0x00, 0x00};
    pq_tr_init(&r, two, sizeof two, 0, 2, NULL);
    CHECK(pq_tr_skip(&r, PQ_T_STRUCT) == RINGSCAN_ELIMIT);
    pq_tr_init(&r, two, sizeof two, 0, 3, NULL);
    CHECK(pq_tr_skip(&r, PQ_T_STRUCT) == 0 && pq_tr_left(&r) == 0);
}

static void binary_bounds(void)
{
    const uint8_t m[] = {0x05, 'a', 'b'};
    pq_tr r;
    const uint8_t *p;
    uint32_t n;
    pq_tr_init(&r, m, sizeof m, 0, 0, NULL);
    CHECK(pq_tr_binary(&r, &p, &n) == RINGSCAN_EFORMAT);
    const uint8_t ok[] = {0x02, 'a', 'b'};
    pq_tr_init(&r, ok, sizeof ok, 0, 0, NULL);
    CHECK(pq_tr_binary(&r, &p, &n) == 0 && n == 2 && p[1] == 'b');
}

/* The inline fast paths (thrift.h) run only with 10 bytes to spare; the same bytes read with
 * and without 16 bytes of padding after them must give the same values, positions, statuses
 * and error offsets, for well-formed and out-of-range input alike (each message ends in a stop
 * or an error, so the padding is never read). */
static int read_items(const uint8_t *msg, size_t n, size_t pad, int64_t *out, size_t *pos,
                      int64_t *err_off)
{
    uint8_t buf[64] = {0};
    memcpy(buf, msg, n);
    pq_err e = {0};
    pq_tr r;
    pq_tr_init(&r, buf, n + pad, 1000, 0, &e);
    int16_t id;
    uint8_t t;
    int k = 0;
    pq_tr_struct_begin(&r);
    while (k < 6 && pq_tr_field(&r, &id, &t) == 0 && t != PQ_T_STOP) {
        int64_t v = 0;
        if (pq_tr_int(&r, t, -1000, 1000, &v)) break;
        out[k++] = id * 10000 + v;
    }
    *pos = pq_tr_pos(&r);
    *err_off = e.offset;
    return r.status;
}

static void fast_paths_agree(void)
{
    static const struct { uint8_t b[16]; size_t n; } msgs[] = {
        {{0x15, 0x0a, 0x16, 0x06, 0x00}, 5},                   /* 1: 5, 2 (i64): 3, stop */
        {{0x15, 0xd0, 0x0f, 0x00}, 4},                         /* 1: 1000 (2-byte varint) */
        {{0x15, 0xd2, 0x0f, 0x00}, 4},                         /* 1: 1001: out of range */
        {{0x15, 0x80, 0x80, 0x80, 0x80, 0x10, 0x00}, 7},       /* above i32 */
        {{0x05, 0x14, 0x0a, 0x00}, 4},                         /* long-form id 10 */
        {{0xf5, 0x02, 0xf5, 0x02, 0xf5, 0x02, 0x00}, 7},       /* deltas of 15 */
        {{0x1d, 0x00}, 2},                                     /* type 13: unknown */
        {{0x15, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, 11}, /* 10 bytes */
    };
    for (size_t i = 0; i < sizeof msgs / sizeof msgs[0]; i++) {
        int64_t a[6] = {0}, b[6] = {0}, ea, eb;
        size_t pa, pb;
        int sa = read_items(msgs[i].b, msgs[i].n, 0, a, &pa, &ea);
        int sb = read_items(msgs[i].b, msgs[i].n, 16, b, &pb, &eb);
        CHECK_EQ_I64(sb, sa);
        CHECK_EQ_I64((int64_t)pb, (int64_t)pa);
        CHECK(memcmp(a, b, sizeof a) == 0);
        if (sa) CHECK_EQ_I64(eb, ea);
        if (i == 0) CHECK(sa == 0 && a[0] == 10005 && a[1] == 20003);
        if (i == 2 || i == 3 || i == 6) CHECK(sa == RINGSCAN_EFORMAT);
        if (i == 2) CHECK_EQ_I64(ea, 1003); /* after the varint, as the checked reader says */
    }
}

int main(void)
{
    RUN(varint_edges);
    RUN(zigzag_edges);
    RUN(field_headers);
    RUN(bool_lists);
    RUN(skip_nested);
    RUN(depth_limit);
    RUN(binary_bounds);
    RUN(fast_paths_agree);
    return CHECK_DONE("test_thrift");
}
