/* format/err.c: filling pq_err reports. */
#include "format/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* pq_errf's body for both entry points. */
static int verrf(pq_err *e, int status, int64_t offset, const char *fmt, va_list ap)
{
    if (!e) return status;
    e->status = status;
    e->offset = offset;
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    return status;
}

int pq_errf(pq_err *e, int status, int64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verrf(e, status, offset, fmt, ap);
    va_end(ap);
    return status;
}

void pq_err_column(pq_err *e, const char *column)
{
    if (e && e->column[0] == 0 && column) snprintf(e->column, sizeof e->column, "%s", column);
}

int pq_errf_col(pq_err *e, int status, int64_t offset, const char *column, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verrf(e, status, offset, fmt, ap);
    va_end(ap);
    pq_err_column(e, column);
    return status;
}

int pq_err_place(pq_err *e, int status, int64_t offset, const char *column)
{
    if (!e) return status;
    e->status = status;
    e->offset = offset;
    pq_err_column(e, column);
    return status;
}
