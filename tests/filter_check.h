/* tests/filter_check.h: parsing a filter against a test's own schema, for the filter unit
 * tests. A test defines `schema` and `NCOLS` before including this header. */
#ifndef RINGSCAN_TESTS_FILTER_CHECK_H
#define RINGSCAN_TESTS_FILTER_CHECK_H
#include "check.h"
#include "filter/expr.h"

/* text parsed against schema; fails the case (printing the message) when it does not. */
static flt_expr *parse_ok(const char *text)
{
    flt_expr *ex = NULL;
    pq_err e = {0};
    int rc = flt_parse(text, schema, NCOLS, &ex, &e);
    if (rc) fprintf(stderr, "  unexpected error for \"%s\": %s\n", text, e.msg);
    CHECK(rc == 0 && ex);
    return ex;
}

/* text refused with RINGSCAN_EPARSE, exactly msg, at 1-based position pos. */
static void parse_err(const char *text, const char *msg, int64_t pos)
{
    flt_expr *ex = (flt_expr *)1;
    pq_err e = {0};
    CHECK_EQ_I64(flt_parse(text, schema, NCOLS, &ex, &e), RINGSCAN_EPARSE);
    CHECK(ex == NULL);
    CHECK_STR(e.msg, msg);
    CHECK_EQ_I64(e.offset, pos);
}

#endif
