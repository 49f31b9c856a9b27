/* libFuzzer target for filter trees built through the C API (ringscan_expr_*, scan/api_expr.c)
 * and typed by filter/build.c: the input drives a small stack machine that pushes columns and
 * literals and applies operators (arithmetic and CAST too) with any operand count; whatever
 * tree results must either
 * type into well-formed predicates (then evaluated on three rows of each column and pruned)
 * or fail with RINGSCAN_EPARSE / RINGSCAN_ELIMIT and a message; never crash, leak or read out
 * of bounds. */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_eval.h"
#include "ringscan.h"
#include "scan/api_priv.h"

static const pq_column_desc schema[] = {
    {.name = "i", .physical = PQ_INT32},
    {.name = "l", .physical = PQ_INT64},
    {.name = "d", .physical = PQ_INT64, .logical = PQ_LOGICAL_DECIMAL, .decimal_scale = 2},
    {.name = "dt", .physical = PQ_INT32, .logical = PQ_LOGICAL_DATE},
    {.name = "ts", .physical = PQ_INT64, .logical = PQ_LOGICAL_TIMESTAMP_MICROS},
    {.name = "s", .physical = PQ_BYTE_ARRAY, .logical = PQ_LOGICAL_STRING},
    {.name = "f", .physical = PQ_FLOAT},
    {.name = "g", .physical = PQ_DOUBLE},
    {.name = "b", .physical = PQ_BOOLEAN},
};
enum { NCOLS = sizeof schema / sizeof *schema, STACK = 64 };


/* A leaf from the input at *at. */
static ringscan_expr *leaf(const uint8_t *d, size_t n, size_t *at, uint8_t op)
{
    uint8_t x = *at < n ? d[(*at)++] : 0;
    int16_t w = (int16_t)(x | (*at < n ? d[(*at)++] : 0) << 8);
    switch (op % 8) {
    case 0: return ringscan_expr_column(schema[x % NCOLS].name);
    case 1: return ringscan_expr_int(w);
    case 2: return ringscan_expr_double(w / 4.0);
    case 3: return ringscan_expr_bool(x & 1);
    case 4: return ringscan_expr_date(w);
    case 5: return ringscan_expr_timestamp_us((int64_t)w * 3600000000);
    case 6: { /* a string of up to 8 input bytes */
        size_t len = x % 9 < n - *at ? x % 9 : n - *at;
        ringscan_expr *e = ringscan_expr_string((const char *)d + *at, len);
        *at += len;
        return e;
    }
    default: { /* a date_trunc unit or a CAST type */
        static const char *names[] = {"year", "month", "INTEGER", "TINYINT", "DECIMAL(10,2)",
                                      "DOUBLE", "REAL", "DATE", "TIMESTAMP", "HUGEINT"};
        const char *t = names[x % (sizeof names / sizeof *names)];
        return ringscan_expr_string(t, strlen(t));
    }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 2048) return 0;
    ringscan_expr *st[STACK];
    int sp = 0;
    for (size_t at = 0; at < size;) {
        uint8_t b = data[at++];
        if (b < 128) { /* a leaf */
            if (sp == STACK) break;
            ringscan_expr *e = leaf(data, size, &at, b);
            if (!e) abort(); /* no allocation fails here (ASan returns NULL only when asked) */
            st[sp++] = e;
            continue;
        }
        int nargs = (b >> 5) & 3; /* 0..3 operands popped, fewer if the stack is short */
        if (nargs > sp) nargs = sp;
        ringscan_expr *e = ringscan_expr_call((ringscan_expr_op)(b % (RINGSCAN_EXPR_CAST + 1)),
                                              nargs, st + sp - nargs);
        sp -= nargs;
        if (e && sp < STACK) st[sp++] = e;
        else ringscan_expr_free(e);
    }
    if (sp > 0) {
        flt_expr *ex = NULL;
        pq_err e = {0};
        int rc = scan_filter_from_expr(st[sp - 1], schema, NCOLS, &ex, &e);
        if (rc == 0) {
            if (!ex || ex->npreds < 0) abort(); /* 0: a constant that always holds */
            for (int32_t i = 0; i < ex->npreds; i++) {
                const flt_pred *p = &ex->preds[i];
                fuzz_eval_small(schema, p);
            }
            flt_expr_free(ex);
        } else if (ex || (rc != RINGSCAN_EPARSE && rc != RINGSCAN_ELIMIT) || !e.msg[0]) {
            abort();
        }
    }
    while (sp > 0) ringscan_expr_free(st[--sp]);
    return 0;
}
