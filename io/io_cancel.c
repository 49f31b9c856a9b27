/* io/io_cancel.c: a host's cancel of remote requests (store.h io_cancel): a flag and its
 * references. Calls nothing. */
#include <assert.h>
#include <stdlib.h>

#include "common/fail.h"
#include "io/store.h"

io_cancel *io_cancel_new(void)
{
    io_cancel *c = fail_calloc(1, sizeof *c);
    if (c) atomic_init(&c->refs, 1);
    return c;
}

io_cancel *io_cancel_ref(io_cancel *c)
{
    if (c) {
        int was = atomic_fetch_add(&c->refs, 1);
        assert(was > 0);
        (void)was;
    }
    return c;
}

void io_cancel_unref(io_cancel *c)
{
    if (!c) return;
    int was = atomic_fetch_sub(&c->refs, 1);
    assert(was > 0);
    if (was == 1) free(c);
}

void io_cancel_request(io_cancel *c)
{
    atomic_store(&c->requested, true);
}

bool io_cancel_requested(const io_cancel *c)
{
    return c && atomic_load(&((io_cancel *)c)->requested);
}
