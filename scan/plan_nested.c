/* scan/plan_nested.c: planning a nested slot (format/column_nested.h): which schema node its
 * packed rows hold (plan.h slot_node), and its pieces: one whole chunk per leaf under the
 * node, also in a split of a cut row group (plan_cut.c cuts a group with a nested slot
 * evenly, no index: plan_index.c loads none for it; the split decodes its rows from the
 * chunks, task_nested.c). A slot with a leaf's chunk over scan_nest_window_bytes reads its
 * chunks in windows as the split's rows need them (scan_piece.windowed, task_nwin.c). */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "common/fail.h"
#include "format/column_nested.h"
#include "scan/plan_impl.h"

/* The node projection j of column col reads: the one named, else its field (-1: flat). */
static int32_t proj_node(const pq_file_meta *m, int col, const int32_t *nodes, int nnodes, int j)
{
    if (nodes && j < nnodes && nodes[j] >= 0) return nodes[j];
    return m->columns[col].nested ? pq_nest_field_of(m, col) : -1;
}

int plan_proj_slot(scan_plan *p, const int *proj, const int32_t *nodes, int nnodes, int j,
                   int *slot_of)
{
    const pq_file_meta *m = &p->f->meta;
    int col = proj[j];
    if (slot_of[col] >= 0 && !m->columns[col].nested) return slot_of[col];
    if (slot_of[col] >= 0) { /* "s" and "s.a" start at one leaf: a slot per node (O(j): */
        int32_t node = proj_node(m, col, nodes, nnodes, j); /* nested columns only) */
        for (int i = 0; i < j; i++)
            if (proj[i] == col && proj_node(m, col, nodes, nnodes, i) == node) return p->proj_slot[i];
    }
    int s = p->nneed++;
    p->need[s] = col;
    if (slot_of[col] < 0) slot_of[col] = s;
    return s;
}

/* p->slot_node from o->proj_nodes (plan.h; nodes[0 .. nnodes), the caller's projections): a
 * nested slot holds its top-level field unless a projection names a node; projections of
 * one leaf naming different nodes have slots of their own (plan_proj_slot). */
int plan_choose_nodes(scan_plan *p, const int32_t *nodes, int nnodes)
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
        for (int i = 0; i < j; i++) /* (plan_proj_slot) */
            assert(p->proj_slot[i] != k || nodes[i] < 0 || nodes[i] == nodes[j]);
        p->slot_node[k] = nodes[j];
    }
    return 0;
}

enum { NEST_WINDOW_BYTES = 64 << 20 };
static uint64_t nest_window_bytes = NEST_WINDOW_BYTES;
static pthread_once_t nest_window_once = PTHREAD_ONCE_INIT;

static void nest_window_read(void)
{
    const char *v = getenv("RINGSCAN_TEST_NEST_WINDOW_BYTES");
    long long n = v ? strtoll(v, NULL, 10) : 0;
    if (n > 0) nest_window_bytes = (uint64_t)n;
}

uint64_t scan_nest_window_bytes(void)
{
    pthread_once(&nest_window_once, nest_window_read);
    assert(nest_window_bytes > 0);
    return nest_window_bytes;
}

/* Whole-chunk pieces of slot k: its column's chunk, or for a nested node (its first leaf,
 * format/column_nested.h) one chunk per leaf under the node, in column order, every one
 * windowed (read as its stream asks, task_nwin.c) when one leaf's is over the window size:
 * a unit request or a prefetch of the others would span the large one between them. */
int plan_whole_chunks(plan_build *b, const scan_split *sp, int k, scan_colplan *cp, pq_err *e)
{
    const pq_file_meta *m = &b->p->f->meta;
    int32_t first, n = b->p->slot_node[k] >= 0 ? pq_nest_leaves(m, b->p->slot_node[k], &first) : 1;
    assert(n == 1 || first == cp->col);
    cp->pieces = fail_calloc((size_t)n, sizeof *cp->pieces);
    if (!cp->pieces) return -ENOMEM;
    bool windowed = false;
    for (int32_t i = 0; i < n; i++) {
        uint64_t off, len;
        const pq_chunk_meta *cm = &m->row_groups[sp->rg].chunks[cp->col + i];
        int rc = pq_chunk_range(cm, b->p->f->file->size_bytes, &off, &len, e);
        if (rc) {
            pq_err_column(e, m->columns[cp->col + i].name);
            return rc;
        }
        cp->pieces[i] = (scan_piece){.off = off, .len = len, .nrows = sp->nrows,
                                     .whole_chunk = true, .chunk_len = len};
        windowed = windowed || (b->p->slot_node[k] >= 0 && len > scan_nest_window_bytes());
    }
    cp->npieces = n;
    uint64_t win = scan_nest_window_bytes();
    for (int32_t i = 0; windowed && i < n; i++) { /* every leaf: no unit request spans them */
        cp->pieces[i].windowed = true;
        if (cp->pieces[i].len > win) cp->pieces[i].len = win;
    }
    return 0;
}

