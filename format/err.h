/* format/err.h: error reports from the decoders. A decoder that fails returns a negative status
 * (RINGSCAN_EFORMAT, RINGSCAN_EUNSUPPORTED, RINGSCAN_ELIMIT, -ENOMEM) and, when given a pq_err,
 * fills it with the status, the byte offset in the file where known (-1 otherwise), the column
 * path where known, and a message. Callers add context (file name) when printing. */
#ifndef RINGSCAN_FORMAT_ERR_H
#define RINGSCAN_FORMAT_ERR_H
#include <stdint.h>

#include "ringscan.h"

typedef struct pq_err {
    int status;
    int64_t offset;    /* byte offset in the file, or -1 */
    char column[128];  /* dotted column path, or "" */
    char msg[256];
} pq_err;

/* Fills e (if not NULL) and returns status. printf-style message. */
int pq_errf(pq_err *e, int status, int64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Sets e->column (if e is not NULL and its column is still empty). */
void pq_err_column(pq_err *e, const char *column);

/* pq_errf and pq_err_column in one call: an error about the bytes of one column (column NULL:
 * none). Returns status. */
int pq_errf_col(pq_err *e, int status, int64_t offset, const char *column, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Places an error a callee returned (status; its message, if it wrote one, is kept): sets
 * e->status, replaces e->offset (the callee's -1 or buffer-relative offset) with the file
 * offset, and sets the column as pq_err_column does. Returns status. */
int pq_err_place(pq_err *e, int status, int64_t offset, const char *column);

#endif
