/* libFuzzer target for filter/parse.c: any byte string must either parse into a well-formed
 * expression or fail with RINGSCAN_EPARSE / RINGSCAN_ELIMIT, a message, and a position inside
 * the text; never crash, leak or read out of bounds. Parsed expressions are also evaluated on
 * a small vector of the column's type and pruned, so typed literals reach the kernels.
 * Build: clang -fsanitize=fuzzer,address,undefined -I. -Iinclude filter/[a-z_]*.c format/vec.c
 *        format/err.c format/bloom.c format/thrift.c tests/fuzz/fuzz_filter_parse.c -lxxhash */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_eval.h"

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
        if (!ex || ex->npreds < 0) abort(); /* 0: a constant that always holds ("5 > 0") */
        for (int32_t i = 0; i < ex->npreds; i++) {
            const flt_pred *p = &ex->preds[i];
            if ((p->nterms < 1 && !p->multi) || p->column < 0 || p->desc != &schema[p->column]) abort();
            fuzz_eval_small(schema, p);
        }
        flt_expr_free(ex);
    } else {
        if (ex || (rc != RINGSCAN_EPARSE && rc != RINGSCAN_ELIMIT) || !e.msg[0]) abort();
        if (e.offset > (int64_t)len + 1 || (rc == RINGSCAN_EPARSE && e.offset < 1)) abort();
    }
    free(text);
    return 0;
}
