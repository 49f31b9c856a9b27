/* runtime/coro.h: stackful coroutines.
 *
 * Owns: the context switch (assembly for x86-64 and aarch64, never ucontext), coroutine
 * stacks (mmap with a PROT_NONE guard page below the stack), a per-thread stack pool and a
 * process-wide stash of free stacks that threads ending hand to threads starting.
 * Invariants:
 *  1. A coroutine runs only on the thread that created it (stacks and pool are thread-local).
 *  2. coro_resume() is called from the thread's base context or from another coroutine; the
 *     resumed coroutine returns control to exactly that resumer on coro_yield() or return.
 *  3. A stack is returned to the pool only after its coroutine finished or never started.
 *  4. Overflowing a stack faults on the guard page (SIGSEGV), never corrupts a neighbour.
 * Sanitizer builds (RINGSCAN_ASAN) annotate every switch for AddressSanitizer; RINGSCAN_TSAN
 * builds make each coroutine a ThreadSanitizer fiber.
 * Floating-point control state (MXCSR and x87 control word on x86-64, FPCR on aarch64) is
 * per coroutine: a new coroutine starts with its creator's, and each switch preserves it. */
#ifndef RINGSCAN_RUNTIME_CORO_H
#define RINGSCAN_RUNTIME_CORO_H
#include <stdbool.h>
#include <stddef.h>

typedef struct coro coro_t;
typedef void (*coro_fn)(void *arg);

enum { CORO_STACK_BYTES = 256 * 1024, CORO_POOL_MAX = 256, CORO_STASH_MAX = 64 };

/* Creates a suspended coroutine that will run fn(arg) on a pooled guarded stack of
 * CORO_STACK_BYTES. Returns 0 and sets *out, or -ENOMEM. The caller owns *out. */
int coro_create(coro_t **out, coro_fn fn, void *arg);

/* Switches into c until it yields or returns. c must not be finished nor running. */
void coro_resume(coro_t *c);

/* From inside a coroutine: suspends it and switches back to its resumer. */
void coro_yield(void);

/* The running coroutine, or NULL on a thread's base context. */
coro_t *coro_self(void);

/* True once c's function has returned. */
bool coro_finished(const coro_t *c);

/* Frees c and returns its stack to this thread's pool. c must be finished or never resumed. */
void coro_destroy(coro_t *c);

/* One pointer of user data per coroutine (the scheduler stores its task here). */
void coro_set_data(coro_t *c, void *data);
void *coro_get_data(const coro_t *c);

/* Empties this thread's pool (call before a thread exits): its stacks go to the process-wide
 * stash while it holds fewer than CORO_STASH_MAX, the rest are unmapped. A scan starts and
 * ends its executor threads, so the next scan's coroutines take the stash's stacks (mapped,
 * guarded and faulted in) instead of mapping new ones. Thread-safe. */
void coro_pool_drain(void);

/* Stacks currently in this thread's pool (0..CORO_POOL_MAX); for tests and metrics. */
int coro_pool_size(void);

/* Unmaps the stash's stacks (for hosts that want the memory back, and tests); returns how
 * many. Thread-safe. */
int coro_stash_drain(void);

/* Stacks in the stash (0..CORO_STASH_MAX); for tests and metrics. Thread-safe. */
int coro_stash_size(void);

/* Bytes of stack usable by c's function (CORO_STACK_BYTES minus the coroutine header). */
size_t coro_stack_usable_bytes(const coro_t *c);

#endif
