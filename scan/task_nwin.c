/* scan/task_nwin.c: a nested leaf's column chunk read in windows. A nested slot one of whose
 * leaves' chunks is over scan_nest_window_bytes has its pieces windowed (plan_nested.c):
 * nothing is read up front, and its split decodes its rows through each leaf's stream
 * (format/nest_stream.c), which decodes the pages wholly inside the window it is given and
 * asks (PQ_NEST_NEED) for the bytes of the next page when the window ends first. This file
 * answers by reading a window of the chunk from that page on (the larger of the window size
 * and what the stream asked, within the chunk) with io_read on the core's context, awaited:
 * counted in --stats and in the fetch budget's held bytes by io/ as every read is. Other
 * slots' pieces hold their whole chunk (the one window their streams get). Chosen over one
 * read of the whole chunk: pyarrow's default row group of a list<float32> of 600 held a
 * 2.4 GB chunk, which a --limit 2 read whole and a full scan held about three times over.
 *
 * Invariants:
 *  1. The core holds at most one window per leaf of a nested slot (the one its stream
 *     reads in, kept across the splits the core runs so the next split goes on in it),
 *     released before the next one is read and once the stream reaches its chunk's end, and
 *     every one at the core's end (scan_task_core_windows_free, before its io context goes).
 *  2. A task awaiting a window holds the slot's gate (made before its first await): the
 *     core's other tasks wait on it before touching the slot's reader, streams or kept
 *     leaves (task_nest_enter), and it is resolved when the holder's decode ends. Decoding
 *     that reads no window never yields and takes no gate.
 *  3. Every window given to a stream holds the bytes it asked for, so each call after a
 *     PQ_NEST_NEED decodes a page or grows the window (nest_stream.c invariant 6): the loop
 *     ends within the chunk's pages and growths.
 *  4. The gate passes in file order: a gate up has one owner, the task inside the slot; the
 *     tasks waiting at it are listed (at most the core's tasks, each once) and the
 *     owner's leave hands a new gate to the waiter whose split comes first (plan order), or
 *     lowers it when none waits. A task that finds the gate up, or owned by another, waits,
 *     so the task leaving never takes the slot again ahead of the waiters: it did (it
 *     claimed its next split and entered before the woken ones ran), and the splits between
 *     ran late, their rows parked or, past the parks, decoded again from the chunk's start
 *     (2.4 GB chunk: 6-10 GB read for 2.4). The first waiter always goes on when the owner
 *     leaves, so no wait is circular. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "common/fail.h"
#include "format/column_nested.h"
#include "scan/fetch.h"
#include "scan/task.h"

typedef struct task_nwin {
    fut_t *f;          /* the read, NULL when none is held */
    uint64_t file_off; /* its chunk's offset */
    uint64_t off;      /* its first byte's offset in the chunk */
    io_bytes b;        /* its bytes (valid while f is held) */
} task_nwin;

/* The tasks a core runs at most: its split tasks and, on a remote store, its read-ahead ones. */
enum { NSLOT_WAIT_MAX = SCAN_TASKS_PER_CORE + SCAN_TASKS_AHEAD };

typedef struct task_nslot {
    fut_t *gate;       /* invariant 2: NULL, or pending from a task's first window read
                          until its decode of the slot ends */
    const scan_task *owner; /* invariant 4: the gate's (NULL when it is down) */
    int nwait;              /* tasks listed in wait */
    const scan_task *wait[NSLOT_WAIT_MAX]; /* invariant 4: waiting at the gate */
    int n;             /* leaves (wins), 0 until the slot first reads a window */
    task_nwin *wins;
} task_nslot;

static void win_drop(task_nwin *w)
{
    if (w->f) fut_unref(w->f);
    *w = (task_nwin){0};
}

/* Slot's state on the core, made on first use (n leaves); NULL on -ENOMEM. */
static task_nslot *nslot_of(scan_task *x, int slot, int n)
{
    scan_task_core *tc = x->tc;
    if (!tc->nslots) tc->nslots = fail_calloc((size_t)x->plan->nneed, sizeof *tc->nslots);
    if (!tc->nslots) return NULL;
    task_nslot *ns = &tc->nslots[slot];
    if (n > 0 && !ns->wins) {
        ns->wins = fail_calloc((size_t)n, sizeof *ns->wins);
        if (!ns->wins) return NULL;
        ns->n = n;
    }
    assert(n <= ns->n);
    return ns;
}

/* Lists x among ns's waiters (invariant 4: never twice; at most one per task of the core). A
 * task not listed (none is: the list holds every task) would still go on once the gate is
 * down, only not handed it. */
static void wait_add(task_nslot *ns, const scan_task *x)
{
    for (int i = 0; i < ns->nwait; i++)
        if (ns->wait[i] == x) return;
    assert(ns->nwait < NSLOT_WAIT_MAX);
    if (ns->nwait < NSLOT_WAIT_MAX) ns->wait[ns->nwait++] = x;
}

static void wait_del(task_nslot *ns, const scan_task *x)
{
    for (int i = 0; i < ns->nwait; i++)
        if (ns->wait[i] == x) {
            ns->wait[i] = ns->wait[--ns->nwait];
            return;
        }
}

/* Invariant 4: the gate (owned by the task leaving) resolved, and a new one handed to the
 * waiter whose split is first in the plan, or the gate lowered when none waits. */
static void gate_pass(task_nslot *ns)
{
    assert(ns->gate && ns->owner);
    fut_t *g = ns->gate;
    ns->gate = NULL, ns->owner = NULL;
    const scan_task *next = NULL;
    for (int i = 0; i < ns->nwait; i++)
        if (!next || ns->wait[i]->sp < next->sp) next = ns->wait[i];
    if (next && (ns->gate = fut_new())) ns->owner = next; /* (-ENOMEM: down, all retry) */
    fut_resolve(g, NULL, NULL);
    fut_unref(g);
}

int task_nest_enter(scan_task *x, int slot)
{
    task_nslot *ns = x->tc->nslots ? &x->tc->nslots[slot] : NULL;
    /* bounded: each round the gate passed to a waiter ahead (at most the core's tasks, in
     * plan order, invariant 4) or went down with none left */
    while (ns && ns->gate && ns->owner != x) {
        wait_add(ns, x);
        fut_t *g = fut_ref(ns->gate);
        int rc = task_await(x, g);
        fut_unref(g);
        if (rc) {
            wait_del(ns, x);
            if (ns->owner == x) gate_pass(ns); /* (handed it while failing: on to the next) */
            return rc;
        }
    }
    if (ns) wait_del(ns, x);
    return 0;
}

void task_nest_leave(scan_task *x, int slot)
{
    task_nslot *ns = x->tc->nslots ? &x->tc->nslots[slot] : NULL;
    if (!ns || !ns->gate) return;
    assert(ns->owner == x); /* (invariant 4: a gate up now is this task's) */
    gate_pass(ns);
}

/* Reads chunk bytes [a, +n) of piece pc (at least, a window's worth when more is left;
 * exactly n when exact: a chunk's dictionary before a jump, format/nest_stream.c invariant
 * 7) into w, the leaf's window, awaited under the slot's gate. 0 or the read's status with
 * x->err naming its offset and the column. */
static int win_read(scan_task *x, task_nslot *ns, task_nwin *w, const scan_piece *pc,
                    const char *col, uint64_t a, uint64_t n, bool exact)
{
    assert(a < pc->chunk_len && n > 0 && n <= pc->chunk_len - a);
    uint64_t rest = pc->chunk_len - a, len = scan_nest_window_bytes();
    len = n > len || exact ? n : len;
    len = len < rest ? len : rest;
    win_drop(w); /* invariant 1: the one before goes first */
    if (!ns->gate && !(ns->gate = fut_new())) return -ENOMEM;
    assert(!ns->owner || ns->owner == x); /* (invariant 4: it owns the gate up, if any) */
    ns->owner = x;
    fut_t *f = io_read(task_io(x), x->plan->f->file, pc->off + a, len);
    if (!f) return -ENOMEM;
    int rc = task_await(x, f);
    if (rc) {
        rc = pq_errf_col(&x->err, rc, (int64_t)(pc->off + a), col, "%s", fut_message(f));
        fut_unref(f);
        return rc;
    }
    *w = (task_nwin){.f = f, .file_off = pc->off, .off = a, .b = *(const io_bytes *)fut_value(f)};
    assert(w->b.len == len); /* (io_read: exactly len bytes, or it fails) */
    return 0;
}

/* The window v of piece pc's chunk from bytes b at chunk offset off, for split tasks whose
 * rows start at from (their unit's first row, scan_task.unit: the rows the core may still
 * be asked for before a split's, by its other tasks running the unit's earlier splits). */
static pq_nest_win win_of(const scan_piece *pc, io_bytes b, uint64_t off, int64_t from)
{
    uint64_t len = b.len < pc->chunk_len - off ? b.len : pc->chunk_len - off;
    return (pq_nest_win){.data = b.data, .off = off, .len = (size_t)len,
                         .chunk_len = pc->chunk_len, .file_off = (int64_t)pc->off, .oi = pc->oi,
                         .park_from = pc->oi ? from : 0};
}

static bool win_holds(const pq_nest_win *v, uint64_t a, uint64_t n)
{
    return a >= v->off && a - v->off <= v->len && n <= v->len - (a - v->off);
}

int task_nest_rows(scan_task *x, int slot, int i, pq_col_reader *ri, pq_nest_stream *s,
                   const scan_piece *pc, io_bytes first, int64_t lo, int64_t hi, bool to_end,
                   pq_nest_leaf *l)
{
    assert(pc->whole_chunk && (pc->windowed ? first.len == 0 : pc->len == pc->chunk_len));
    const int n = x->sp->cols[slot].npieces;
    int64_t from = x->plan->splits[x->fx->units[x->unit].first].row_lo; /* (the unit's) */
    pq_nest_win head = win_of(pc, first, 0, from), v = head;
    task_nslot *ns = x->tc->nslots ? &x->tc->nslots[slot] : NULL;
    task_nwin *w = ns && ns->wins ? &ns->wins[i] : NULL;
    if (w && w->f && w->file_off == pc->off) v = win_of(pc, w->b, w->off, from); /* (inv. 1) */
    for (;;) { /* invariant 3 */
        int rc = pq_nest_leaf_rows(ri, s, x->sp->rg, &v, lo, hi, to_end, l, &x->err);
        if (rc != PQ_NEST_NEED) {
            if (w && s->rg < 0) win_drop(w); /* the chunk's end, or an error */
            return rc;
        }
        uint64_t a = s->need_off, need = s->need_len;
        assert(!win_holds(&head, a, need)); /* (a whole chunk's stream never asks) */
        if (!w) {
            if (!(ns = nslot_of(x, slot, n))) return -ENOMEM;
            w = &ns->wins[i];
        }
        rc = win_read(x, ns, w, pc, ri->col->name, a, need, s->need_exact);
        if (rc) return rc;
        v = win_of(pc, w->b, w->off, from);
        assert(win_holds(&v, a, need));
    }
}

void scan_task_core_windows_free(scan_task_core *tc, int nneed)
{
    for (int k = 0; tc->nslots && k < nneed; k++) {
        task_nslot *ns = &tc->nslots[k];
        if (ns->gate) { /* (no task is left decoding on the core: none waits on it) */
            fut_resolve(ns->gate, NULL, NULL);
            fut_unref(ns->gate);
        }
        assert(ns->nwait == 0);
        for (int i = 0; i < ns->n; i++) win_drop(&ns->wins[i]);
        free(ns->wins);
    }
    free(tc->nslots);
    tc->nslots = NULL;
}
