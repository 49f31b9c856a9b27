/* scan/out_pool.h: the byte bound the output windows of a dataset's files share
 * (scan/output.h invariant 9): one count of what every file's batches hold and its running
 * splits will, against the dataset's one fetch budget, and the file that leads it (the one
 * whose batches the consumer takes).
 *
 * Invariants:
 *  1. used is the sum over every window whose pool this is (members, and windows that left
 *     but still hold batches) of waiting + taken + running_bytes (output.h invariant 7):
 *     each change of those changes used by as much, a rise before the fall it replaces (a
 *     push's batch before its estimate leaves), so used never reads below what is held.
 *  2. Admission (scan_out_pool_pass) reads and adds to used under mu: two files' cores are
 *     never both admitted by one room. A window takes mu only under its own mutex, or
 *     holding none; never the other way round.
 *  3. members are windows whose events are set and not yet detached: every fall of used
 *     and every new head signals each one's event under mu, and a window leaves under mu
 *     before its event goes (scan_out_detach_ev), so no wake reaches a gone event.
 *  4. head is a member or NULL: a window leaving the pool stops leading it (a later
 *     window at the same address is never taken for the lead).
 *  5. listed counts the splits waiting at the members' gates (output.h invariant 8's lists)
 *     and the ones being checked: a split counts itself before its check reads used, and
 *     a fall of used is followed by a read of listed (both seq_cst, Dekker), so a fall skips
 *     the wake only when no split could have seen used before it and waits. (Waking every
 *     member at every batch taken would wake the window waits of the files behind the lead
 *     for nothing.) */
#ifndef RINGSCAN_SCAN_OUT_POOL_H
#define RINGSCAN_SCAN_OUT_POOL_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct scan_out;

enum { SCAN_OUT_POOL_MAX = 32 /* windows in one pool at once (a dataset's files attached) */ };

typedef struct scan_out_pool {
    uint64_t limit;            /* the dataset's fetch budget (> 0) */
    _Atomic uint64_t used;     /* invariant 1 */
    _Atomic(struct scan_out *) head; /* the lead (scan_out_lead), or NULL (invariant 4) */
    _Atomic int listed;        /* invariant 5 */
    pthread_mutex_t mu;        /* admission (invariant 2) and the members */
    struct scan_out *members[SCAN_OUT_POOL_MAX]; /* invariant 3 */
    int nmembers;
} scan_out_pool;

/* The pool of a dataset whose fetch budget is limit (> 0). */
void scan_out_pool_init(scan_out_pool *p, int64_t limit);
/* Every member left and every byte was given back. */
void scan_out_pool_free(scan_out_pool *p);
/* o (its pool and event set) joins its pool: its gate waits are woken by the others'
 * releases. No-op without a pool. */
void scan_out_pool_join(struct scan_out *o);
/* o's file is the one the consumer drains now: it leads its pool (output.h invariant 9),
 * and every member's waiting splits are woken. No-op without a pool or when it leads. */
void scan_out_lead(struct scan_out *o);

/* For output.c. o leaves its pool (no-op if not a member) and stops leading it; its bytes
 * stay in used until it gives them back. */
void scan_out_pool_leave(struct scan_out *o);
/* n bytes more of p's members count (invariant 1). */
void scan_out_pool_add(scan_out_pool *p, uint64_t n);
/* n bytes leave: every member's gate may open (invariant 3), woken if a split waits at one
 * (invariant 5). */
void scan_out_pool_sub(scan_out_pool *p, uint64_t n);
/* Whether a split of o whose estimate is est passes by the pool (output.h invariant 9):
 * exempt, or by_room (no lower place waits at o's gate) and room under the limit and,
 * unless o leads, under half of it for the files behind the lead; est then counts in used.
 * listed: the split waits at the gate already (counted in listed; it is counted now if not,
 * and uncounted once it passes). Under o's mutex. */
bool scan_out_pool_pass(struct scan_out *o, uint64_t est, bool exempt, bool by_room,
                        bool listed);
/* n splits listed at a member's gate leave it without passing (invariant 5). */
void scan_out_pool_unlisted(scan_out_pool *p, int n);
/* waiting + taken + running_bytes of o (output.h invariant 7), read without its mutex. */
uint64_t scan_out_used(const struct scan_out *o);

#endif
