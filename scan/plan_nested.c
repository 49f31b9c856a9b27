/* scan/plan_nested.c: planning a nested slot (format/column_nested.h): which schema node its
 * packed rows hold (plan.h slot_node), and its pieces: one whole chunk per leaf under the
 * node. A nested slot's row groups are never cut (plan_index.c loads no index for it). */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "common/fail.h"
#include "format/column_nested.h"
#include "scan/plan_impl.h"

/* p->slot_node from o->proj_nodes (plan.h; nodes[0 .. nnodes), the caller's projections): a
 * nested slot holds its top-level field unless a projection names a node; two projections naming different nodes that start at one leaf
 * are RINGSCAN_EUNSUPPORTED ("s" and "s.a" when a is s's first field: project one). */
int plan_choose_nodes(scan_plan *p, const int32_t *nodes, int nnodes, pq_err *e)
{
    const pq_file_meta *m = &p->f->meta;
    p->slot_node = fail_malloc(sizeof(int32_t) * (size_t)(p->nneed + 1));
    if (!p->slot_node) return -ENOMEM;
    for (int i = 0; i < p->nneed; i++)
        p->slot_node[i] = m->columns[p->need[i]].nested ? pq_nest_field_of(m, p->need[i]) : -1;
    assert(!nodes || nnodes <= p->nproj);
    for (int j = 0; nodes && j < nnodes; j++) {
        int k = p->proj_slot[j];
        if (nodes[j] < 0 || nodes[j] == p->slot_node[k]) continue;
        for (int i = 0; i < j; i++)
            if (p->proj_slot[i] == k && nodes[i] >= 0 && nodes[i] != nodes[j])
                return pq_errf_col(e, RINGSCAN_EUNSUPPORTED, -1, m->nodes[nodes[j]].path,
                                   "'%.100s' and '%.100s' start at one leaf: project one of them",
                                   m->nodes[nodes[i]].path, m->nodes[nodes[j]].path);
        p->slot_node[k] = nodes[j];
    }
    return 0;
}

/* Whole-chunk pieces of slot k: its column's chunk, or for a nested node (its first leaf,
 * format/column_nested.h) one chunk per leaf under the node, in column order. */
int plan_whole_chunks(plan_build *b, const scan_split *sp, int k, scan_colplan *cp, pq_err *e)
{
    const pq_file_meta *m = &b->p->f->meta;
    int32_t first, n = b->p->slot_node[k] >= 0 ? pq_nest_leaves(m, b->p->slot_node[k], &first) : 1;
    assert(n == 1 || first == cp->col);
    cp->pieces = fail_calloc((size_t)n, sizeof *cp->pieces);
    if (!cp->pieces) return -ENOMEM;
    for (int32_t i = 0; i < n; i++) {
        uint64_t off, len;
        const pq_chunk_meta *cm = &m->row_groups[sp->rg].chunks[cp->col + i];
        int rc = pq_chunk_range(cm, b->p->f->file->size_bytes, &off, &len, e);
        if (rc) {
            pq_err_column(e, m->columns[cp->col + i].name);
            return rc;
        }
        cp->pieces[i] = (scan_piece){.off = off, .len = len, .nrows = sp->nrows, .whole_chunk = true};
    }
    cp->npieces = n;
    return 0;
}

