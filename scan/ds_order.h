/* scan/ds_order.h: the conjunct orders a dataset's files share (ds_order.c), kept in its
 * ds_scan (ds_run.h). */
#ifndef RINGSCAN_SCAN_DS_ORDER_H
#define RINGSCAN_SCAN_DS_ORDER_H
#include "filter/expr.h"
#include "scan/policy.h"

/* The conjunct orders a dataset's files share (policy.h scan_order_share): one per distinct
 * filter, told apart by its conjuncts' text, at most DS_ORDERS_MAX; a file whose filter is
 * another when they are all taken keeps its own. Used on the consumer's thread only (fill). */
enum { DS_ORDERS_MAX = 8 };
typedef struct ds_orders {
    int n;
    char *sig[DS_ORDERS_MAX];  /* each filter's conjuncts as text, one per line, owned */
    scan_order_share s[DS_ORDERS_MAX];
} ds_orders;

/* (ds_order.c) The order the files whose filter is x share; NULL when none is (fewer than two
 * conjuncts, a conjunct's text too long to tell apart, the table full, no memory). */
scan_order_share *ds_orders_for(ds_orders *o, const flt_expr *x);
/* Frees them once every file's scan has ended. */
void ds_orders_free(ds_orders *o);

#endif
