/* scan/core_time.h: where each core's time goes during a scan (scan_stats.core, printed by
 * `ringscan bench`): running, or asleep (its executor had nothing runnable) while its tasks
 * waited for reads, a leader's dictionary, the output window, work to claim, or their end.
 *
 * Invariants:
 *  1. Only the core's own thread changes a core's state (its tasks run there), so the state
 *     counts are plain ints; the totals are relaxed atomics read by the host.
 *  2. A core sleeps only between its tasks' steps, and every step that changes what a task
 *     waits for goes through scan_core_time_enter/leave, so the executor's sleep time between
 *     two changes (exec_slept_ns) belongs to the state the core was in: the first state with a
 *     task in it in enum order (a task inside its split is waiting for a read or a lend, the
 *     likeliest event to wake the core).
 *  3. Counts only: a test may assert splits and that the totals are consistent (every
 *     state's sleep within the core's wall time), never a duration. */
#ifndef RINGSCAN_SCAN_CORE_TIME_H
#define RINGSCAN_SCAN_CORE_TIME_H
#include <stdatomic.h>
#include <stdint.h>

#include "runtime/exec.h"

typedef enum scan_wait {
    SCAN_WAIT_TASK,   /* inside a split: awaiting a read or a lend */
    SCAN_WAIT_DICT,   /* a cut group's split awaiting its leader's dictionary */
    SCAN_WAIT_WINDOW, /* a claimed split awaiting its place in the output window */
    SCAN_WAIT_CLAIM,  /* before a claim: paced (fetch.c) or read-ahead not admitted */
    SCAN_WAIT_DRAIN,  /* the core's last worker awaiting lends and holds (core_drain) */
    SCAN_WAIT_OTHER,  /* asleep with no task in any state above */
    SCAN_WAIT_N
} scan_wait;

typedef struct scan_core_time {
    const exec_t *core;          /* NULL until the core's first worker started */
    int in[SCAN_WAIT_N];         /* the core's tasks in each state (OTHER unused) */
    uint64_t mark_ns;            /* the core's sleep_ns at the last state change */
    uint64_t cpu0_ns;            /* thread CPU time at the first worker's start */
    uint64_t start_ns;           /* monotonic, the first worker's start */
    _Atomic uint64_t sleep_ns[SCAN_WAIT_N];
    _Atomic uint64_t wall_ns, cpu_ns; /* the first worker's start to the last one's end */
    _Atomic uint64_t end_ns;     /* monotonic, the last worker's end (0 while it runs) */
    _Atomic int64_t splits;      /* splits the core ran */
} scan_core_time;

/* The core's first worker starts (on the core's thread). */
void scan_core_time_start(scan_core_time *t);
/* A task of the core enters (leave: leaves) state w; on the core's thread. */
void scan_core_time_enter(scan_core_time *t, scan_wait w);
void scan_core_time_leave(scan_core_time *t, scan_wait w);
/* The core's last worker ends (on the core's thread): wall and CPU time are final. */
void scan_core_time_end(scan_core_time *t);

#endif
