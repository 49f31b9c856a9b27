/* scan/explain.h: the --explain text, a bounded buffer the plan and the driver write to.
 *
 * Invariants: at most SCAN_EXPLAIN_MAX - 1 bytes are kept, always NUL-terminated; text past
 * that is dropped; a sink that is off (buf NULL) ignores every write. */
#ifndef RINGSCAN_SCAN_EXPLAIN_H
#define RINGSCAN_SCAN_EXPLAIN_H
#include <stddef.h>

#include "filter/expr.h"
#include "filter/order.h"

enum { SCAN_EXPLAIN_MAX = 1 << 16 /* bytes of --explain text kept */ };

typedef struct scan_explain_buf {
    char *buf;                 /* NULL: off */
    size_t len;
} scan_explain_buf;

/* Turns the sink on (on: allocates its buffer) or leaves it off. 0 or -ENOMEM. */
int scan_explain_init(scan_explain_buf *x, int on);
void scan_explain_free(scan_explain_buf *x);

/* Appends printf-style text (a no-op when off). */
void scan_explainf(scan_explain_buf *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The conjunct order of filter as order holds it, labelled ("start" or "final"). */
void scan_explain_order(scan_explain_buf *x, const flt_order *order, const flt_expr *filter,
                        const char *label);

/* The text ("" when off). */
const char *scan_explain_text(const scan_explain_buf *x);

#endif
