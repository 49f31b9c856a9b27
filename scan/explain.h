/* scan/explain.h: the --explain text, a bounded buffer the plan and the driver write to.
 *
 * Invariants: at most SCAN_EXPLAIN_MAX - 1 bytes are kept, always NUL-terminated; text past
 * that is dropped; a sink that is off (buf NULL) ignores every write. */
#ifndef RINGSCAN_SCAN_EXPLAIN_H
#define RINGSCAN_SCAN_EXPLAIN_H
#include <stddef.h>
#include <stdint.h>

#include "filter/expr.h"
#include "filter/order.h"
#include "io/io.h"

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

/* Inserts printf-style text at byte at (<= len) of what was written, moving the rest after
 * it: the plan's summary line goes first though its counts are known only at its end. Text
 * past SCAN_EXPLAIN_MAX - 1 is dropped from the end. */
void scan_explainf_at(scan_explain_buf *x, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "s" unless n is 1: "1 split", "5 splits". */
const char *scan_explain_plural(long long n);

/* The order the filter is stated in, the one the first splits run in:
 *     conjunct order (start): #1 a -> #2 b */
void scan_explain_start_order(scan_explain_buf *x, const flt_expr *filter);
/* One line per conjunct: its normalized text, the columns it reads and how it prunes (with
 * the scan's page index and bloom switches). */
void scan_explain_filter(scan_explain_buf *x, const flt_expr *filter, bool page_index,
                         bool bloom);

/* The store's line: file f's cost model and the coalescing it implies, and the read-ahead:
 * tasks split tasks per core, base of them never waiting, under a budget of limit bytes; on
 * a local file, whether runs of units are read ahead (run_ahead). */
void scan_explain_store(scan_explain_buf *x, const io_file_t *f, int tasks, int base,
                        uint64_t limit, bool run_ahead);

/* The order the scan ran in at its end, perm (the file's last split's, split; -1: no split
 * ran the filter but those that explored, if any, perm unused: a dataset's file whose one
 * split took a shared order's exploring turn), with order's evidence for each conjunct, and
 * how many splits ran in an order not the stated one (reordered) or explored (explored):
 *     conjunct order (final, split 4; 3 splits reordered, 0 explored): #2 b (..) -> #1 a (..) */
void scan_explain_final_order(scan_explain_buf *x, const flt_order *order, const flt_expr *filter,
                              const int32_t *perm, int split, int reordered, int explored);

/* The text ("" when off). */
const char *scan_explain_text(const scan_explain_buf *x);

#endif
