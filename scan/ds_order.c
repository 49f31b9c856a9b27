/* scan/ds_order.c: the conjunct orders a dataset's files share (ds_run.h ds_orders): files
 * whose filters print the same conjuncts in the same order report into one adaptive order
 * (policy.h scan_order_share), so a dataset of many small files learns which conjunct to run
 * first as one file of as many splits does. A filter is told apart by its text: the same
 * text over the dataset's column names is the same conjuncts on the same columns (a file's
 * columns are renamed to the dataset's, ds_view_init), so their evidence may be pooled. */
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "scan/ds_order.h"

enum { SIG_PRED_MAX = 4096 }; /* a conjunct's text; a longer one is not told apart */

/* x's conjuncts as text, one per line (owned), or NULL (a text too long, no memory). */
static char *signature(const flt_expr *x)
{
    size_t len = 0, cap = 0;
    char *sig = NULL, *one = fail_malloc(SIG_PRED_MAX);
    for (int32_t k = 0; one && k < x->npreds; k++) {
        size_t n = flt_pred_print(&x->preds[k], one, SIG_PRED_MAX);
        if (n + 1 >= SIG_PRED_MAX) break; /* ("..." ends a cut text: two may print alike) */
        if (len + n + 2 > cap) {
            cap = 2 * (len + n + 2);
            char *g = fail_realloc(sig, cap);
            if (!g) break;
            sig = g;
        }
        memcpy(sig + len, one, n);
        len += n;
        sig[len++] = '\n', sig[len] = '\0';
        if (k + 1 == x->npreds) {
            free(one);
            return sig;
        }
    }
    free(one);
    free(sig);
    return NULL;
}

scan_order_share *ds_orders_for(ds_orders *o, const flt_expr *x)
{
    if (!x || x->npreds < 2 || x->npreds > FLT_ORDER_MAX) return NULL;
    char *sig = signature(x);
    if (!sig) return NULL;
    for (int i = 0; i < o->n; i++)
        if (strcmp(o->sig[i], sig) == 0) {
            free(sig);
            return &o->s[i];
        }
    if (o->n == DS_ORDERS_MAX) {
        free(sig);
        return NULL;
    }
    o->sig[o->n] = sig;
    o->s[o->n] = (scan_order_share){0};
    return &o->s[o->n++];
}

void ds_orders_free(ds_orders *o)
{
    for (int i = 0; i < o->n; i++) {
        scan_order_share_free(&o->s[i]);
        free(o->sig[i]);
    }
    o->n = 0;
}
