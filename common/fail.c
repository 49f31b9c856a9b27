/* common/fail.c: the failure-point countdown (see fail.h).
 * Invariant: seen counts points of armed kinds since fail_arm; point number seen fails when
 * seen == nth, or seen >= nth when persistent (fetch_add makes each number unique). */
#include "common/fail.h"

#include <assert.h>

_Atomic unsigned fail_armed_kinds;
static _Atomic int64_t fail_nth, fail_seen, fail_fired;
static _Atomic bool fail_persistent;

bool fail_point_slow(fail_kind k)
{
    assert(k != 0 && (k & ~(unsigned)FAIL_ALL) == 0);
    if ((atomic_load(&fail_armed_kinds) & k) == 0) return false;
    int64_t n = atomic_fetch_add(&fail_seen, 1) + 1;
    int64_t nth = atomic_load(&fail_nth);
    assert(n >= 1 && nth >= 1);
    bool fail = n == nth || (n > nth && atomic_load(&fail_persistent));
    if (fail) atomic_fetch_add(&fail_fired, 1);
    return fail;
}

void fail_arm(unsigned kinds, int64_t nth, bool persistent)
{
    assert(nth >= 1 && (kinds & ~(unsigned)FAIL_ALL) == 0);
    atomic_store(&fail_armed_kinds, 0);
    atomic_store(&fail_nth, nth);
    atomic_store(&fail_persistent, persistent);
    atomic_store(&fail_seen, 0);
    atomic_store(&fail_fired, 0);
    atomic_store(&fail_armed_kinds, kinds);
}

void fail_disarm(void)
{
    atomic_store(&fail_armed_kinds, 0);
}

int64_t fail_points_seen(void)
{
    return atomic_load(&fail_seen);
}

int64_t fail_points_fired(void)
{
    return atomic_load(&fail_fired);
}
