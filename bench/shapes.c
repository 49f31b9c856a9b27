/* bench/shapes.c: the shape table and the reference evaluation (see shapes.h for the checksum
 * and invariants). The predicates here are hand-written C over lineitem_row, independent of
 * filter/, so a filter bug cannot hide in both sides. */
#include "bench/shapes.h"

#include <assert.h>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif
#include <errno.h>
#include <pthread.h>
#include <string.h>

#define P(...) {__VA_ARGS__}
#define WIDE_PROJ                                                                          \
    P(LI_ORDERKEY, LI_PARTKEY, LI_SUPPKEY, LI_LINENUMBER, LI_QUANTITY, LI_EXTENDEDPRICE,   \
      LI_DISCOUNT, LI_TAX, LI_RETURNFLAG, LI_LINESTATUS, LI_SHIPDATE, LI_COMMITDATE,       \
      LI_RECEIPTDATE, LI_SHIPINSTRUCT, LI_SHIPMODE, LI_COMMENT)

const bench_shape bench_shapes[SHAPE_COUNT] = {
    {SHAPE_FILTER_ONLY, "lineitem_filter_only", "l_linenumber > 5", "l_extendedprice", 1,
     P(LI_EXTENDEDPRICE), LINEITEM_LAYOUT_TPCH,
     "Vortex shape; ~3/28 = 10.7% of rows pass (lines 6 and 7)"},
    {SHAPE_LINEITEM, "lineitem", "l_linenumber > 5", "l_orderkey,l_linenumber", 2,
     P(LI_ORDERKEY, LI_LINENUMBER), LINEITEM_LAYOUT_TPCH, "Vortex shape; ~10.7% pass"},
    {SHAPE_AND, "lineitem_and", "l_linenumber > 5 AND l_orderkey < 3000000",
     "l_orderkey,l_linenumber", 2, P(LI_ORDERKEY, LI_LINENUMBER), LINEITEM_LAYOUT_TPCH,
     "Vortex shape; orderkey sorted, < 3,000,000 is the first half at sf=1 (prunable)"},
    {SHAPE_PRUNE, "lineitem_prune", "l_orderkey < 600000", "l_orderkey,l_extendedprice", 2,
     P(LI_ORDERKEY, LI_EXTENDEDPRICE), LINEITEM_LAYOUT_TPCH,
     "Vortex shape; first 10% of the file at sf=1, statistics prune the rest"},
    {SHAPE_WIDE, "lineitem_wide", "l_linenumber > 5",
     "l_orderkey,l_partkey,l_suppkey,l_linenumber,l_quantity,l_extendedprice,l_discount,"
     "l_tax,l_returnflag,l_linestatus,l_shipdate,l_commitdate,l_receiptdate,l_shipinstruct,"
     "l_shipmode,l_comment",
     16, WIDE_PROJ, LINEITEM_LAYOUT_TPCH, "Vortex shape; all 16 TPC-H columns, ~10.7% pass"},
    {SHAPE_CANCEL, "lineitem_cancel", "l_cancelkey = 1000001 AND l_shipdate >= DATE '1994-01-01'",
     "l_orderkey,l_extendedprice,l_comment", 3, P(LI_ORDERKEY, LI_EXTENDEDPRICE, LI_COMMENT),
     LINEITEM_LAYOUT_CANCEL,
     "first conjunct all-false outside row groups 3, 11, 19, ... while min/max always span "
     "the literal; 1/64 of the rows of those groups match it; the date passes ~72%"},
    {SHAPE_ORDER, "lineitem_order", "l_comment >= 'c' AND l_shipmode = 'AIR' AND l_quantity < 2",
     "l_orderkey,l_extendedprice", 2, P(LI_ORDERKEY, LI_EXTENDEDPRICE), LINEITEM_LAYOUT_TPCH,
     "worst order: the biggest column with the costliest test and the weakest cut first "
     "(~85% pass: comments starting with a or b fail), a string equality next (1/7), the "
     "cheapest and most selective last (1/50)"},
};

const bench_shape *shape_find(const char *name)
{
    for (int i = 0; i < SHAPE_COUNT; i++)
        if (strcmp(bench_shapes[i].name, name) == 0) return &bench_shapes[i];
    return NULL;
}

/* a >= b in unsigned byte order, shorter-is-smaller on a common prefix (Parquet's order). */
static bool bytes_ge(const char *a, int64_t alen, const char *b)
{
    int64_t blen = (int64_t)strlen(b), n = alen < blen ? alen : blen;
    int c = memcmp(a, b, (size_t)n);
    return c > 0 || (c == 0 && alen >= blen);
}

bool shape_match(const bench_shape *s, const lineitem_row *r)
{
    switch (s->id) {
    case SHAPE_FILTER_ONLY:
    case SHAPE_LINEITEM:
    case SHAPE_WIDE: return r->linenumber > 5;
    case SHAPE_AND: return r->linenumber > 5 && r->orderkey < 3000000;
    case SHAPE_PRUNE: return r->orderkey < 600000;
    case SHAPE_CANCEL:
        return r->cancelkey == LINEITEM_CANCEL_LITERAL && r->shipdate >= 8766; /* 1994-01-01 */
    case SHAPE_ORDER:
        return bytes_ge(r->comment, r->comment_len, "c") &&
               strcmp(lineitem_shipmode[r->shipmode], "AIR") == 0 && r->quantity < 200;
    default: assert(0 && "unknown shape"); return false;
    }
}

uint64_t shape_fnv1a64(const void *p, int64_t len)
{
    assert(len >= 0);
    const uint8_t *b = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (int64_t i = 0; i < len; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* Adds f(value) over the valid rows of v (type dispatch outside the row loop). */
#define SUM_ROWS(v, acc, expr)                                                                    \
    for (int64_t i = 0; i < (v)->length; i++)                                                     \
        if (pq_vec_is_valid((v), i)) (acc) += (expr)

static uint64_t load64(const uint8_t *p) { uint64_t x; memcpy(&x, p, 8); return x; }

static uint32_t load32(const uint8_t *p) { uint32_t x; memcpy(&x, p, 4); return x; }

/* FNV-1a 64 of BYTE_ARRAY row i of v. A batch of only empty strings may carry data == NULL
 * (nothing was ever appended), and NULL + 0 is undefined in C: an empty value is hashed
 * without forming that pointer, to the same value as any other empty value. */
static uint64_t bytes_hash(const pq_vec *v, int64_t i)
{
    int64_t len = v->offsets[i + 1] - v->offsets[i];
    assert(len >= 0);
    if (len == 0) return shape_fnv1a64(NULL, 0);
    assert(v->data);
    return shape_fnv1a64(v->data + v->offsets[i], len);
}

/* The hashes of rows [i, i + 8) of BYTE_ARRAY v, one per 64-bit lane, added to *acc where
 * the row is valid: each lane's 8-byte words gathered (only while it has bytes left) and
 * hashed a byte at a time, 8 multiply chains at once. The caller checked that every value's
 * last word lies within v's data_cap bytes. */
#if defined(__AVX512F__) && defined(__AVX512DQ__)
static void hash8(const pq_vec *v, int64_t i, __m512i *acc)
{
    const __m512i prime = _mm512_set1_epi64((int64_t)0x100000001b3ull), ff = _mm512_set1_epi64(0xff);
    __m256i o0 = _mm256_loadu_si256((const void *)(v->offsets + i));
    __m256i o1 = _mm256_loadu_si256((const void *)(v->offsets + i + 1));
    __m256i len32 = _mm256_sub_epi32(o1, o0);
    __m512i start = _mm512_cvtepi32_epi64(o0), len = _mm512_cvtepi32_epi64(len32);
    int32_t most = _mm512_reduce_max_epi32(_mm512_zextsi256_si512(len32));
    __m512i h = _mm512_set1_epi64((int64_t)0xcbf29ce484222325ull);
    for (int32_t k = 0; k < most; k += 8) {
        __m512i kk = _mm512_set1_epi64(k), left = _mm512_sub_epi64(len, kk);
        __mmask8 live = _mm512_cmpgt_epi64_mask(left, _mm512_setzero_si512());
        __m512i w = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), live,
                                                _mm512_add_epi64(start, kk), v->data, 1);
        for (int b = 0; b < 8; b++) {
            __mmask8 m = _mm512_cmpgt_epi64_mask(left, _mm512_set1_epi64(b));
            __m512i x = _mm512_xor_si512(h, _mm512_and_si512(w, ff));
            h = _mm512_mask_mullo_epi64(h, m, x, prime);
            w = _mm512_srli_epi64(w, 8);
        }
    }
    __mmask8 valid = v->null_count ? v->validity[i / 8] : 0xff;
    *acc = _mm512_mask_add_epi64(*acc, valid, *acc, h);
}
#endif

/* Sum of FNV-1a 64 over the valid rows of BYTE_ARRAY v: with AVX-512, 8 rows at a time
 * (hash8) while their words lie within the data buffer, the rest one by one. FNV-1a is one
 * multiply chain per value (about 4 cycles a byte); lineitem_wide's consumer spent 27 ms of
 * CPU per scan in it with one chain. Sums are order-free: equal to the row-by-row sum. */
static uint64_t ba_sum(const pq_vec *v)
{
    int64_t i = 0;
    uint64_t acc = 0;
#if defined(__AVX512F__) && defined(__AVX512DQ__)
    __m512i acc8 = _mm512_setzero_si512();
    if (v->data)
        for (; i + 8 <= v->length && (int64_t)v->offsets[i + 8] + 8 <= v->data_cap; i += 8)
            hash8(v, i, &acc8);
    acc = (uint64_t)_mm512_reduce_add_epi64(acc8);
#endif
    for (; i < v->length; i++)
        if (pq_vec_is_valid(v, i)) acc += bytes_hash(v, i);
    return acc;
}

void shape_vec_sum(const pq_vec *v, uint64_t *sum)
{
    uint64_t acc = *sum;
    const uint8_t *p = v->values;
    int32_t w = pq_fixed_width(v->type, v->type_length);
    switch (v->type) {
    case PQ_INT64: case PQ_DOUBLE: SUM_ROWS(v, acc, load64(p + i * 8)); break;
    case PQ_INT32: SUM_ROWS(v, acc, (uint64_t)(int64_t)(int32_t)load32(p + i * 4)); break;
    case PQ_FLOAT: SUM_ROWS(v, acc, (uint64_t)load32(p + i * 4)); break;
    case PQ_BOOLEAN: SUM_ROWS(v, acc, (uint64_t)pq_bit_get(p, i)); break;
    case PQ_INT96:
    case PQ_FIXED_LEN_BYTE_ARRAY: SUM_ROWS(v, acc, shape_fnv1a64(p + i * w, w)); break;
    case PQ_BYTE_ARRAY: acc += ba_sum(v); break;
    }
    *sum = acc;
}

uint64_t shape_checksum(const uint64_t *col_sum, int nproj)
{
    assert(nproj >= 0);
    uint64_t c = 0;
    for (int j = 0; j < nproj; j++) c = c * 1000003ull + col_sum[j];
    return c;
}

/* Contribution of column col of row r to its col_sum. */
static uint64_t row_value(const lineitem_row *r, int col)
{
    switch (col) {
    case LI_ORDERKEY: return (uint64_t)r->orderkey;
    case LI_PARTKEY: return (uint64_t)r->partkey;
    case LI_SUPPKEY: return (uint64_t)r->suppkey;
    case LI_LINENUMBER: return (uint64_t)(int64_t)r->linenumber;
    case LI_QUANTITY: return (uint64_t)r->quantity;
    case LI_EXTENDEDPRICE: return (uint64_t)r->extendedprice;
    case LI_DISCOUNT: return (uint64_t)r->discount;
    case LI_TAX: return (uint64_t)r->tax;
    case LI_RETURNFLAG: return shape_fnv1a64(&r->returnflag, 1);
    case LI_LINESTATUS: return shape_fnv1a64(&r->linestatus, 1);
    case LI_SHIPDATE: return (uint64_t)(int64_t)r->shipdate;
    case LI_COMMITDATE: return (uint64_t)(int64_t)r->commitdate;
    case LI_RECEIPTDATE: return (uint64_t)(int64_t)r->receiptdate;
    case LI_SHIPINSTRUCT: {
        const char *t = lineitem_shipinstruct[r->shipinstruct];
        return shape_fnv1a64(t, (int64_t)strlen(t));
    }
    case LI_SHIPMODE: {
        const char *t = lineitem_shipmode[r->shipmode];
        return shape_fnv1a64(t, (int64_t)strlen(t));
    }
    case LI_COMMENT: return shape_fnv1a64(r->comment, r->comment_len);
    case LI_CANCELKEY: return (uint64_t)r->cancelkey;
    default: assert(0 && "bad column"); return 0;
    }
}

void shape_result_init(shape_result *acc)
{
    memset(acc, 0, sizeof *acc);
}

void shape_result_merge(shape_result *acc, const shape_result *other)
{
    acc->rows += other->rows;
    for (int j = 0; j < LINEITEM_COLS_MAX; j++) acc->col_sum[j] += other->col_sum[j];
}

void shape_result_finish(const bench_shape *s, shape_result *acc)
{
    acc->checksum = shape_checksum(acc->col_sum, s->nproj);
}

void shape_acc_range(const lineitem_gen *g, const bench_shape *s, int64_t first_order,
                     int64_t n_orders, shape_result *acc)
{
    assert(first_order >= 0 && n_orders >= 0 && first_order + n_orders <= g->n_orders);
    assert(s->layout != LINEITEM_LAYOUT_CANCEL || g->layout == LINEITEM_LAYOUT_CANCEL);
    assert(s->nproj >= 1 && s->nproj <= LINEITEM_COLS_MAX);
    lineitem_row rows[LINEITEM_LINES_MAX];
    int64_t row = lineitem_order_first_row(g, first_order);
    for (int64_t i = first_order; i < first_order + n_orders; i++) {
        int n = lineitem_order_rows(g, i, row, rows);
        row += n;
        for (int l = 0; l < n; l++) {
            if (!shape_match(s, &rows[l])) continue;
            acc->rows++;
            for (int j = 0; j < s->nproj; j++) acc->col_sum[j] += row_value(&rows[l], s->proj[j]);
        }
    }
}

typedef struct shape_job {
    const lineitem_gen *g;
    const bench_shape *s;
    int64_t first_order, n_orders;
    shape_result acc;
} shape_job;

static void *shape_job_run(void *arg)
{
    shape_job *j = arg;
    shape_acc_range(j->g, j->s, j->first_order, j->n_orders, &j->acc);
    return NULL;
}

int shape_expected(const lineitem_gen *g, const bench_shape *s, int nthreads, shape_result *out)
{
    enum { THREADS_MAX = 64 };
    shape_result_init(out);
    if (nthreads < 1 || nthreads > THREADS_MAX) return -EINVAL;
    if (s->layout == LINEITEM_LAYOUT_CANCEL && g->layout != LINEITEM_LAYOUT_CANCEL) return -EINVAL;
    shape_job jobs[THREADS_MAX];
    pthread_t tid[THREADS_MAX];
    int started = 0, rc = 0;
    int64_t per = g->n_orders / nthreads;
    for (int t = 0; t < nthreads; t++) {
        jobs[t] = (shape_job){g, s, per * t, t == nthreads - 1 ? g->n_orders - per * t : per, {0}};
        shape_result_init(&jobs[t].acc);
    }
    for (int t = 1; t < nthreads && rc == 0; t++) {
        rc = -pthread_create(&tid[t], NULL, shape_job_run, &jobs[t]);
        if (rc == 0) started = t;
    }
    if (rc == 0) shape_job_run(&jobs[0]);
    for (int t = 1; t <= started; t++) pthread_join(tid[t], NULL);
    if (rc) return rc;
    for (int t = 0; t < nthreads; t++) shape_result_merge(out, &jobs[t].acc);
    shape_result_finish(s, out);
    return 0;
}
