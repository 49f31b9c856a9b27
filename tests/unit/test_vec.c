/* tests for format/vec.c */
#include "check.h"
#include "format/vec.h"

static void reserve_grows_and_zeroes(void)
{
    pq_vec v;
    pq_vec_init(&v, PQ_BYTE_ARRAY, 0);
    CHECK(pq_vec_reserve(&v, 1000, 5000) == 0);
    CHECK(v.offsets_cap >= 1001);
    CHECK(v.data_cap >= 5000);
    CHECK(v.offsets[1000] == 0);
    pq_vec_free(&v);
    CHECK(v.offsets == NULL && v.type == PQ_BYTE_ARRAY);
    pq_vec_init(&v, PQ_FIXED_LEN_BYTE_ARRAY, 16);
    CHECK(pq_vec_reserve(&v, 10, 0) == 0);
    CHECK(v.values_cap >= 160);
    pq_vec_free(&v);
}

static void bits(void)
{
    uint8_t b[2] = {0, 0};
    pq_bit_set(b, 9, true);
    CHECK_EQ_I64(b[1], 2);
    CHECK(pq_bit_get(b, 9) && !pq_bit_get(b, 8));
    pq_bit_set(b, 9, false);
    CHECK_EQ_I64(b[1], 0);
}

int main(void)
{
    RUN(reserve_grows_and_zeroes);
    RUN(bits);
    return CHECK_DONE("test_vec");
}
