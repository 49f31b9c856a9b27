/* scan/ds_count.c: a dataset count's decision on one file (ds_scan.h ds_count_file): as
 * ringscan_count decides a file's row groups (api_count.c), from the footer's statistics.
 * Invariant: every row group of a file whose footer was read lands in exactly one of
 * settled, pruned and scanned. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "common/fail.h"
#include "filter/prune.h"
#include "scan/ds_scan.h"

int ds_count_file(ds_count *c, const pqf_t *f, const flt_expr *x, scan_opts *so, int **groups,
                  bool *none)
{
    int ng = f->meta.nrow_groups, n = 0;
    int *g = fail_malloc(sizeof(int) * (size_t)(ng + 1));
    if (!g) return -ENOMEM;
    for (int i = 0; i < ng; i++) {
        const pq_row_group *rg = &f->meta.row_groups[i];
        flt_prune v = flt_prune_expr_group(x, rg->chunks);
        if (v == FLT_ALL_MATCH) c->rows += rg->num_rows, c->settled++;
        else if (v == FLT_CANNOT_MATCH) c->pruned++;
        else g[n++] = i;
    }
    c->groups += ng, c->scanned += n;
    assert(n <= ng);
    so->rg_order = g, so->nrg_order = n;
    *groups = g, *none = n == 0;
    return 0;
}
