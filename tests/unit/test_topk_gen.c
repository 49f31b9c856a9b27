/* tests for bench/topk_gen.c: the layouts' value functions (bands, sentinels, the control
 * layout's permutation of the pruning scores), the batch filler against the value functions,
 * and topk_gen_expect against a brute-force sort of every row (ties at the k-th value, K of 0,
 * 1 and more than the rows, both orders, with and without the flag filter). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bench/topk_gen.h"
#include "check.h"

typedef struct row {
    int64_t score, id;
} row;

static bool g_desc; /* qsort's order */

static int cmp_rows(const void *pa, const void *pb)
{
    const row *a = pa, *b = pb;
    if (a->score != b->score) return (a->score < b->score) == g_desc ? 1 : -1;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* Checks topk_gen_expect(g, k, desc, where) against sorting every passing row. */
static void against_sort(const topk_gen *g, int64_t k, bool desc, bool where)
{
    row *all = malloc((size_t)g->rows * sizeof *all);
    int64_t *ids = malloc((size_t)(k > 0 ? k : 1) * sizeof *ids);
    CHECK(all && ids);
    if (!all || !ids) goto done;
    int64_t n = 0;
    for (int64_t r = 0; r < g->rows; r++)
        if (!where || topk_flag(g, r) == 0) all[n++] = (row){topk_score(g, r), r};
    g_desc = desc;
    qsort(all, (size_t)n, sizeof *all, cmp_rows);
    int64_t got = -1;
    CHECK_EQ_I64(topk_gen_expect(g, k, desc, where, ids, &got), 0);
    CHECK_EQ_I64(got, k < n ? k : n);
    int64_t bad = 0;
    for (int64_t i = 0; i < got; i++)
        bad += ids[i] != all[i].id;
    CHECK_EQ_I64(bad, 0);
done:
    free(all);
    free(ids);
}

static void model_matches_sort(void)
{
    static const int64_t sizes[][2] = {{1, 1}, {1, 7}, {3, 5}, {8, 512}, {5, 1000}};
    static const int64_t ks[] = {0, 1, 2, 100, 1000, 5001};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int layout = 0; layout < 2; layout++) {
            topk_gen g;
            CHECK_EQ_I64(topk_gen_init(&g, (topk_layout)layout, 3 + s, sizes[s][0], sizes[s][1]),
                         0);
            for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++)
                for (int m = 0; m < 4; m++)
                    against_sort(&g, ks[k], m & 1, m & 2);
        }
}

static void pruning_bands(void)
{
    topk_gen g;
    CHECK_EQ_I64(topk_gen_init(&g, TOPK_LAYOUT_PRUNING, 9, 6, 300), 0);
    int64_t prev_min = INT64_MAX, dups = 0;
    for (int64_t grp = 0; grp < 6; grp++) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        bool seen[300] = {0};
        for (int64_t r = grp * 300; r < (grp + 1) * 300; r++) {
            int64_t s = topk_score(&g, r), band = (5 - grp) * 600;
            CHECK(s >= band && s < band + 300);
            CHECK_EQ_I64(topk_flag(&g, r), 0);
            dups += seen[s - band];
            seen[s - band] = true;
            lo = s < lo ? s : lo, hi = s > hi ? s : hi;
        }
        CHECK(hi < prev_min);
        prev_min = lo;
    }
    CHECK(dups > 0); /* 300 draws from 300 values: duplicates are all but certain */
}

static void control_sentinels_and_permutation(void)
{
    enum { G = 7, R = 64 };
    topk_gen p, c;
    CHECK_EQ_I64(topk_gen_init(&p, TOPK_LAYOUT_PRUNING, 5, G, R), 0);
    CHECK_EQ_I64(topk_gen_init(&c, TOPK_LAYOUT_CONTROL, 5, G, R), 0);
    static bool used[G * R];
    memset(used, 0, sizeof used);
    for (int64_t grp = 0; grp < G; grp++) {
        int64_t sentinels = 0, hi = INT64_MIN;
        for (int64_t r = grp * R; r < (grp + 1) * R; r++) {
            bool s = topk_score(&c, r) == INT64_MAX;
            CHECK_EQ_I64(topk_flag(&c, r), s);
            sentinels += s;
            if (s) CHECK_EQ_I64(r - grp * R, topk_sentinel_pos(&c, grp));
            if (s) continue;
            int64_t src = (r % G) * R + r / G; /* the header's sigma */
            CHECK(!used[src]);
            used[src] = true;
            CHECK_EQ_I64(topk_score(&c, r), topk_score(&p, src));
            hi = topk_score(&c, r) > hi ? topk_score(&c, r) : hi;
        }
        CHECK_EQ_I64(sentinels, 1);
        CHECK(hi >= (G - 1) * 2 * R); /* every group reaches into the top band */
    }
}

static void batch_matches_value_functions(void)
{
    topk_gen g;
    CHECK_EQ_I64(topk_gen_init(&g, TOPK_LAYOUT_CONTROL, 11, 3, 1000), 0);
    pq_column_desc d[TOPK_COLS];
    topk_gen_schema(d);
    CHECK_STR(d[TOPK_COL_SCORE].name, "score");
    CHECK_STR(d[TOPK_COL_PAYLOAD].name, "payload");
    pq_vec cols[TOPK_COLS];
    for (int i = 0; i < TOPK_COLS; i++)
        pq_vec_init(&cols[i], d[i].physical, 0);
    CHECK_EQ_I64(topk_gen_batch(&g, 1500, 1000, cols), 0);
    CHECK_EQ_I64(topk_gen_batch(&g, 2500, 501, cols), -EINVAL);
    CHECK_EQ_I64(cols[TOPK_COL_ID].length, 1000);
    int64_t bad = 0;
    for (int64_t i = 0; i < 1000; i++) {
        int64_t r = 1500 + i, s, id;
        int32_t f;
        char want[TOPK_PAYLOAD_LEN_MAX];
        memcpy(&s, cols[TOPK_COL_SCORE].values + i * 8, 8);
        memcpy(&id, cols[TOPK_COL_ID].values + i * 8, 8);
        memcpy(&f, cols[TOPK_COL_FLAG].values + i * 4, 4);
        int len = topk_payload(&g, r, want), at = cols[TOPK_COL_PAYLOAD].offsets[i];
        bad += s != topk_score(&g, r) || id != r || f != topk_flag(&g, r);
        bad += len != cols[TOPK_COL_PAYLOAD].offsets[i + 1] - at ||
               memcmp(want, cols[TOPK_COL_PAYLOAD].data + at, (size_t)len) != 0;
        bad += len < TOPK_PAYLOAD_LEN_MIN || len > TOPK_PAYLOAD_LEN_MAX;
    }
    CHECK_EQ_I64(bad, 0);
    for (int i = 0; i < TOPK_COLS; i++)
        pq_vec_free(&cols[i]);
}

static void errors(void)
{
    topk_gen g;
    int64_t ids[1], n = 7;
    CHECK_EQ_I64(topk_gen_init(&g, (topk_layout)2, 1, 1, 1), -EINVAL);
    CHECK_EQ_I64(topk_gen_init(&g, TOPK_LAYOUT_PRUNING, 1, 0, 1), -EINVAL);
    CHECK_EQ_I64(topk_gen_init(&g, TOPK_LAYOUT_PRUNING, 1, 1, 0), -EINVAL);
    CHECK_EQ_I64(topk_gen_init(&g, TOPK_LAYOUT_PRUNING, 1, TOPK_ROW_GROUPS_MAX, INT32_MAX),
                 -EINVAL);
    CHECK_EQ_I64(topk_gen_init(&g, TOPK_LAYOUT_PRUNING, 1, 2, 3), 0);
    CHECK_EQ_I64(topk_gen_expect(&g, -1, true, false, ids, &n), -EINVAL);
    CHECK_EQ_I64(n, 0);
    CHECK_EQ_I64(topk_gen_expect(&g, TOPK_EXPECT_MAX + 1, true, false, ids, &n), -EINVAL);
}

int main(void)
{
    RUN(model_matches_sort);
    RUN(pruning_bands);
    RUN(control_sentinels_and_permutation);
    RUN(batch_matches_value_functions);
    RUN(errors);
    return CHECK_DONE("test_topk_gen");
}
