/* libFuzzer target for filter/parse.c: any byte string must either parse into a well-formed
 * expression or fail with RINGSCAN_EPARSE / RINGSCAN_ELIMIT, a message, and a position inside
 * the text; never crash, leak or read out of bounds. Parsed expressions are also evaluated on
 * a small vector of the column's type and pruned, so typed literals reach the kernels.
 * Build: clang -fsanitize=fuzzer,address,undefined -I. -Iinclude filter/[a-z_]*.c format/vec.c
 *        format/err.c format/bloom.c format/thrift.c tests/fuzz/fuzz_filter_parse.c -lxxhash */
#include <stdlib.h>
#include <string.h>

#include "filter/kernel.h"
#include "filter/prune.h"

static const pq_column_desc schema[] = {
    {.name = "i", .physical = PQ_INT32},
    {.name = "l", .physical = PQ_INT64},
    {.name = "d", .physical = PQ_INT64, .logical = PQ_LOGICAL_DECIMAL, .decimal_scale = 2},
    {.name = "dt", .physical = PQ_INT32, .logical = PQ_LOGICAL_DATE},
    {.name = "ts", .physical = PQ_INT64, .logical = PQ_LOGICAL_TIMESTAMP_NANOS},
    {.name = "s", .physical = PQ_BYTE_ARRAY, .logical = PQ_LOGICAL_STRING},
    {.name = "f", .physical = PQ_FLOAT},
    {.name = "g", .physical = PQ_DOUBLE},
    {.name = "b", .physical = PQ_BOOLEAN},
    {.name = "x", .physical = PQ_FIXED_LEN_BYTE_ARRAY, .type_length = 4, .logical = PQ_LOGICAL_DECIMAL, .decimal_scale = 1},
    {.name = "y", .physical = PQ_BYTE_ARRAY, .logical = PQ_LOGICAL_DECIMAL, .decimal_scale = 3},
    {.name = "q", .physical = PQ_INT96},
    {.name = "u", .physical = PQ_INT32, .logical = PQ_LOGICAL_UINT16},
    {.name = "h", .physical = PQ_FIXED_LEN_BYTE_ARRAY, .type_length = 2, .logical = PQ_LOGICAL_FLOAT16},
};

/* Three rows of column d: zeroes, or "", "ab", "abc". */
static void small_vec(const pq_column_desc *d, pq_vec *v)
{
    pq_vec_init(v, d->physical, d->type_length);
    if (pq_vec_reserve(v, 3, 8) != 0) abort();
    v->length = 3;
    if (v->type == PQ_BYTE_ARRAY) {
        memcpy(v->data, "ababc", 5), v->data_len = 5;
        v->offsets[0] = 0, v->offsets[1] = 0, v->offsets[2] = 2, v->offsets[3] = 5;
    }
    free(v->validity), v->validity = NULL, v->validity_cap = 0;
}

static void eval_small(const flt_pred *p)
{
    const flt_multi *m = p->multi;
    int n = m ? m->ncols : 1;
    if (m && (n < 1 || n > FLT_MAX_MULTI_COLS || m->nitems < 1 || m->cols[0] != p->column)) abort();
    pq_vec v[FLT_MAX_MULTI_COLS];
    const pq_vec *vp[FLT_MAX_MULTI_COLS];
    for (int i = 0; i < n; i++) small_vec(&schema[m ? m->cols[i] : p->column], &v[i]), vp[i] = &v[i];
    flt_mask out = {0};
    int rc = m ? flt_eval_multi(p, vp, NULL, &out) : flt_eval(p, &v[0], NULL, &out);
    if (rc != 0 || out.len != 3) abort();
    flt_mask_free(&out);
    for (int i = 0; i < n; i++) pq_vec_free(&v[i]);
    (void)flt_prune_stats(p, NULL, 3);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    size_t len = strlen(text);
    flt_expr *ex = NULL;
    pq_err e = {0};
    int rc = flt_parse(text, schema, (int32_t)(sizeof schema / sizeof *schema), &ex, &e);
    if (rc == 0) {
        if (!ex || ex->npreds < 1) abort();
        for (int32_t i = 0; i < ex->npreds; i++) {
            const flt_pred *p = &ex->preds[i];
            if ((p->nterms < 1 && !p->multi) || p->column < 0 || p->desc != &schema[p->column]) abort();
            eval_small(p);
        }
        flt_expr_free(ex);
    } else {
        if (ex || (rc != RINGSCAN_EPARSE && rc != RINGSCAN_ELIMIT) || !e.msg[0]) abort();
        if (e.offset > (int64_t)len + 1 || (rc == RINGSCAN_EPARSE && e.offset < 1)) abort();
    }
    free(text);
    return 0;
}
