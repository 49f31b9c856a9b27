/* runtime/coro.c: stackful coroutines (context switch, guarded stacks, per-thread pool).
 *
 * Owns: the hand-written context switch (top-level assembly below, x86-64 and aarch64), the
 * stack mappings, this thread's pool of free stacks, and the process-wide stash of free stacks
 * (under a mutex: touched only when a thread's pool is empty or a thread ends).
 * Design: a stack is one mmap of CORO_GUARD_BYTES + CORO_STACK_BYTES; the lowest page is
 * PROT_NONE. The coro_t header lives at the very top of its own stack, so coro_create on a
 * pooled stack allocates nothing. A switch pushes the callee-saved registers (plus MXCSR and
 * the x87 control word on x86-64, FPCR on aarch64) onto the current stack, stores the stack
 * pointer, loads the other one and pops. A new coroutine's stack is pre-filled so that the
 * first switch "returns" into coro_trampoline, which calls coro_entry(c).
 * What a switch saves, and why each thing is needed (nothing else is saved: no signal mask,
 * no caller-saved register, no vector register on x86-64):
 *  - rbx rbp r12-r15 (x86-64), x19-x29 x30 d8-d15 (aarch64): the callee-saved registers of
 *    the ABI. Each side of a switch sees it as a call that returns, so these must survive it;
 *    caller-saved registers are already dead at the call (the compiler spilled what it needs).
 *  - MXCSR's control bits and the x87 control word (x86-64), FPCR (aarch64): the ABI makes
 *    them callee-saved too, and the contract in coro.h keeps rounding and flush modes per
 *    coroutine (tests/unit/test_coro.c fp_control_preserved). Boost.Context's jump_fcontext
 *    saves the same pair; measured on the bench machine they are about 3 ns of a switch.
 *  - the return address: x86-64 leaves through `pop; jmp *reg`, never `ret`. The return
 *    stack predictor pairs each ret with the last call; a switch returns to a call made on
 *    the other stack, so a `ret` there (and every later ret on that side) is mispredicted.
 *    coro_resume and coro_yield end with the switch as a tail call (no work after it: the
 *    bookkeeping of both directions is done before switching), so in a ping-pong no `ret`
 *    runs at all and the indirect jump is predicted from its history, as in Boost's switch.
 *    `ringscan bench runtime --switch-only`: 17.6 ns per switch with `ret` and work after the
 *    switch, 6.0 ns without, beside jump_fcontext's 5.7 ns (bench/RESULTS.md, issue 26).
 * Invariants:
 *  1. Everything here is thread-local: a coroutine is resumed only on its creating thread.
 *  2. c->resumer_sp is valid only while c runs (it is where coro_yield switches back to).
 *     The side that switches does the bookkeeping of the switch before it (coro_cur and
 *     c->tag): nothing runs after a switch returns, except sanitizer calls.
 *  3. A stack enters the pool only when its coroutine finished or never started; the pool
 *     never holds more than CORO_POOL_MAX stacks. A stack enters the stash only from an
 *     ending thread's pool (coro_pool_drain); the stash never holds more than CORO_STASH_MAX,
 *     and a stack is in at most one pool or stash. Scans start executor threads per scan:
 *     unmapping their stacks at each thread's end (a TLB shootdown while the other executor
 *     still ran) cost 0.34 ms of CPU per 2-thread scan of lineitem_prune (bench/RESULTS.md,
 *     issue 26), and the next scan mapped, guarded and faulted in new ones.
 *  4. c->tag is CORO_TAG(state) for every live coroutine, 0 once destroyed (catches use after
 *     destroy). One word holds the magic and the state, so coro_resume's whole check of a
 *     coroutine it is given (live, not running, not finished) is one compare: the
 *     bookkeeping around the switch is what a switch costs beyond Boost's (issue 26).
 *     The states, in the tag's low byte: NEW -> RUNNING <-> SUSPENDED, RUNNING -> FINISHED.
 * Sanitizers: with RINGSCAN_ASAN every switch is bracketed by the ASan fiber calls; with
 * RINGSCAN_TSAN each coroutine is a TSan fiber. */
#include "runtime/coro.h"
#include "common/fail.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(RINGSCAN_ASAN) || defined(__SANITIZE_ADDRESS__)
#define CORO_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CORO_ASAN 1
#endif
#endif
#if defined(RINGSCAN_TSAN) || defined(__SANITIZE_THREAD__)
#define CORO_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CORO_TSAN 1
#endif
#endif

#ifdef CORO_ASAN
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old,
                                     size_t *size_old);
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);
#endif
#ifdef CORO_TSAN
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
#endif

enum {
    CORO_GUARD_BYTES = 4096,
    CORO_MAP_BYTES = CORO_GUARD_BYTES + CORO_STACK_BYTES,
};
#define CORO_MAGIC 0x636f726f75744eULL
/* NEW and SUSPENDED differ only in bit 0: (tag | 1) == CORO_TAG(CORO_SUSPENDED) is "resumable". */
enum { CORO_NEW = 0, CORO_SUSPENDED = 1, CORO_RUNNING = 2, CORO_FINISHED = 3 };
#define CORO_TAG(state) ((CORO_MAGIC << 8) | (uint64_t)(state))
#define CORO_LIVE(c) ((c)->tag >> 8 == CORO_MAGIC)

struct coro {
    void *sp;         /* saved stack pointer while suspended (or the initial frame) */
    void *resumer_sp; /* where coro_yield returns to, valid while running */
    coro_t *resumer;  /* the coroutine that resumed us (NULL = base context) */
    coro_fn fn;
    void *arg;
    void *data;
    void *map;    /* mmap base: guard page then stack */
    uint64_t tag; /* CORO_TAG(state) while live (invariant 4) */
#ifdef CORO_ASAN
    void *asan_fake;            /* our fake stack while we are switched out */
    const void *resumer_bottom; /* resumer's stack, learned on each switch in */
    size_t resumer_size;
#endif
#ifdef CORO_TSAN
    void *tsan_fiber;
    void *tsan_resumer;
#endif
};

/* Thread-local state: the running coroutine and the stack pool. */
static _Thread_local coro_t *coro_cur;
static _Thread_local void *coro_pool[CORO_POOL_MAX];
static _Thread_local int coro_pool_len;

/* The process-wide stash (invariant 3). */
static pthread_mutex_t coro_stash_mu = PTHREAD_MUTEX_INITIALIZER;
static void *coro_stash[CORO_STASH_MAX];
static int coro_stash_len;

/* Takes a stack from the stash, or NULL when it is empty. */
static void *coro_stash_take(void)
{
    pthread_mutex_lock(&coro_stash_mu);
    assert(coro_stash_len >= 0 && coro_stash_len <= CORO_STASH_MAX);
    void *map = coro_stash_len > 0 ? coro_stash[--coro_stash_len] : NULL;
    pthread_mutex_unlock(&coro_stash_mu);
    return map;
}

/* The switch: saves callee-saved state on the current stack, stores sp in *save_sp, loads
 * to_sp and restores the state found there. Returns when something switches back. */
void ringscan_coro_switch(void **save_sp, void *to_sp);
/* First code a new coroutine runs: calls coro_entry(c) with c taken from a saved register. */
void ringscan_coro_trampoline(void);

#if defined(__x86_64__)
/* Frame (low to high): mxcsr(4) fpucw(2) pad(2), r15 r14 r13 r12 rbx rbp, return address.
 * It leaves through the return address with `pop; jmp`, which is `ret` without the return
 * stack predictor (design notes). */
__asm__(".pushsection .text\n"
        ".globl ringscan_coro_switch\n"
        ".hidden ringscan_coro_switch\n"
        ".type ringscan_coro_switch,@function\n"
        ".p2align 4\n"
        "ringscan_coro_switch:\n"
        "  pushq %rbp\n"
        "  pushq %rbx\n"
        "  pushq %r12\n"
        "  pushq %r13\n"
        "  pushq %r14\n"
        "  pushq %r15\n"
        "  subq $8, %rsp\n"
        "  stmxcsr (%rsp)\n"
        "  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n"
        "  fldcw 4(%rsp)\n"
        "  addq $8, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  popq %rcx\n" /* the return address: rcx is caller-saved and free here */
        "  jmpq *%rcx\n" /* not `ret`: see the design notes above */
        ".size ringscan_coro_switch, .-ringscan_coro_switch\n"
        ".globl ringscan_coro_trampoline\n"
        ".hidden ringscan_coro_trampoline\n"
        ".type ringscan_coro_trampoline,@function\n"
        ".p2align 4\n"
        "ringscan_coro_trampoline:\n"
        "  movq %r12, %rdi\n"
        "  callq *%r13\n"
        "  ud2\n"
        ".size ringscan_coro_trampoline, .-ringscan_coro_trampoline\n"
        ".popsection\n");
enum { CORO_FRAME_WORDS = 10 }; /* csr, r15..rbp (6), ret, 2 words of alignment pad */
#elif defined(__aarch64__)
/* Frame (low to high): x19..x28, x29 x30, d8..d15, fpcr, pad: 176 bytes. */
__asm__(".pushsection .text\n"
        ".globl ringscan_coro_switch\n"
        ".hidden ringscan_coro_switch\n"
        ".type ringscan_coro_switch,%function\n"
        ".p2align 4\n"
        "ringscan_coro_switch:\n"
        "  sub sp, sp, #176\n"
        "  stp x19, x20, [sp, #0]\n"
        "  stp x21, x22, [sp, #16]\n"
        "  stp x23, x24, [sp, #32]\n"
        "  stp x25, x26, [sp, #48]\n"
        "  stp x27, x28, [sp, #64]\n"
        "  stp x29, x30, [sp, #80]\n"
        "  stp d8, d9, [sp, #96]\n"
        "  stp d10, d11, [sp, #112]\n"
        "  stp d12, d13, [sp, #128]\n"
        "  stp d14, d15, [sp, #144]\n"
        "  mrs x9, fpcr\n"
        "  str x9, [sp, #160]\n"
        "  mov x9, sp\n"
        "  str x9, [x0]\n"
        "  mov sp, x1\n"
        "  ldr x9, [sp, #160]\n"
        "  msr fpcr, x9\n"
        "  ldp x19, x20, [sp, #0]\n"
        "  ldp x21, x22, [sp, #16]\n"
        "  ldp x23, x24, [sp, #32]\n"
        "  ldp x25, x26, [sp, #48]\n"
        "  ldp x27, x28, [sp, #64]\n"
        "  ldp x29, x30, [sp, #80]\n"
        "  ldp d8, d9, [sp, #96]\n"
        "  ldp d10, d11, [sp, #112]\n"
        "  ldp d12, d13, [sp, #128]\n"
        "  ldp d14, d15, [sp, #144]\n"
        "  add sp, sp, #176\n"
        "  ret\n"
        ".size ringscan_coro_switch, .-ringscan_coro_switch\n"
        ".globl ringscan_coro_trampoline\n"
        ".hidden ringscan_coro_trampoline\n"
        ".type ringscan_coro_trampoline,%function\n"
        ".p2align 4\n"
        "ringscan_coro_trampoline:\n"
        "  mov x0, x19\n"
        "  blr x20\n"
        "  brk #0\n"
        ".size ringscan_coro_trampoline, .-ringscan_coro_trampoline\n"
        ".popsection\n");
enum { CORO_FRAME_WORDS = 22 }; /* 176 bytes of frame */
#else
#error "runtime/coro.c: only x86-64 and aarch64 have a context switch"
#endif

static _Noreturn void coro_entry(coro_t *c);

/* Captures the creator's floating-point control state for a new coroutine's first frame
 * (a new coroutine inherits it, as a new thread does). */
static void coro_fp_control(uint64_t *out)
{
#if defined(__x86_64__)
    uint32_t mxcsr = 0;
    uint16_t fpucw = 0;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(fpucw));
    *out = (uint64_t)mxcsr | ((uint64_t)fpucw << 32);
#else
    uint64_t fpcr = 0;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    *out = fpcr;
#endif
}

/* Lays out the first frame at the top of c's stack so the first switch lands in the
 * trampoline with c and coro_entry in callee-saved registers and an ABI-aligned stack. */
static void coro_init_frame(coro_t *c, uintptr_t top)
{
    assert(top % 16 == 0);
    assert(top > (uintptr_t)c->map + CORO_GUARD_BYTES + 4096);
    uint64_t *w = (uint64_t *)(top - CORO_FRAME_WORDS * 8);
    memset(w, 0, CORO_FRAME_WORDS * 8);
    uint64_t fp = 0;
    coro_fp_control(&fp);
#if defined(__x86_64__)
    /* [0] csr, [1] r15, [2] r14, [3] r13, [4] r12, [5] rbx, [6] rbp, [7] ret, [8..9] pad.
     * After `ret` rsp = top - 16: 16-aligned, as the trampoline's `call` needs. */
    w[0] = fp;
    w[3] = (uint64_t)(uintptr_t)coro_entry;
    w[4] = (uint64_t)(uintptr_t)c;
    w[6] = 0; /* rbp = 0 ends frame-pointer backtraces */
    w[7] = (uint64_t)(uintptr_t)ringscan_coro_trampoline;
#else
    /* [0] x19, [1] x20, ..., [10] x29, [11] x30, [12..19] d8-d15, [20] fpcr, [21] pad. */
    w[0] = (uint64_t)(uintptr_t)c;
    w[1] = (uint64_t)(uintptr_t)coro_entry;
    w[10] = 0;
    w[11] = (uint64_t)(uintptr_t)ringscan_coro_trampoline;
    w[20] = fp;
#endif
    c->sp = w;
}

/* Takes a stack mapping from the pool or maps a new one; NULL on failure. */
static void *coro_stack_get(void)
{
    assert(coro_pool_len >= 0 && coro_pool_len <= CORO_POOL_MAX);
    void *map = coro_pool_len > 0 ? coro_pool[--coro_pool_len] : coro_stash_take();
    if (map) {
#ifdef CORO_ASAN
        /* A finished coroutine's last frames never returned: clear their redzones. */
        __asan_unpoison_memory_region((char *)map + CORO_GUARD_BYTES, CORO_STACK_BYTES);
#endif
        return map;
    }
    if (fail_point(FAIL_STACK)) return NULL; /* tests: as if mmap met its limit */
    map = mmap(NULL, CORO_MAP_BYTES, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (map == MAP_FAILED) return NULL;
    if (mprotect(map, CORO_GUARD_BYTES, PROT_NONE) != 0) {
        munmap(map, CORO_MAP_BYTES);
        return NULL;
    }
    return map;
}

/* Unmaps one stack (unpoisoning it first so a later mapping at the same address is clean). */
static void coro_stack_unmap(void *map)
{
    assert(map != NULL);
#ifdef CORO_ASAN
    __asan_unpoison_memory_region((char *)map + CORO_GUARD_BYTES, CORO_STACK_BYTES);
#endif
    int rc = munmap(map, CORO_MAP_BYTES);
    assert(rc == 0);
    (void)rc;
}

int coro_create(coro_t **out, coro_fn fn, void *arg)
{
    assert(out != NULL && fn != NULL);
    assert(CORO_STACK_BYTES % 4096 == 0);
    void *map = coro_stack_get();
    if (!map) return -ENOMEM;
    uintptr_t end = (uintptr_t)map + CORO_MAP_BYTES;
    uintptr_t hdr = (end - sizeof(coro_t)) & ~(uintptr_t)63;
    coro_t *c = (coro_t *)hdr;
    memset(c, 0, sizeof *c);
    c->fn = fn;
    c->arg = arg;
    c->map = map;
    c->tag = CORO_TAG(CORO_NEW);
#ifdef CORO_TSAN
    c->tsan_fiber = __tsan_create_fiber(0);
#endif
    coro_init_frame(c, hdr & ~(uintptr_t)15);
    *out = c;
    return 0;
}

/* Switches out of c (running) back to its resumer, leaving it in state (SUSPENDED or
 * FINISHED): the one place a coroutine leaves. Does the resumer's bookkeeping first
 * (invariant 2), so the switch is the last thing it does and coro_yield reaches it as a tail
 * call (design notes). */
static void coro_switch_out(coro_t *c, int state)
{
    assert(c->tag == CORO_TAG(CORO_RUNNING) && coro_cur == c);
    assert(state == CORO_SUSPENDED || state == CORO_FINISHED);
    c->tag = CORO_TAG(state);
    coro_cur = c->resumer;
#ifdef CORO_ASAN
    __sanitizer_start_switch_fiber(state == CORO_FINISHED ? NULL : &c->asan_fake,
                                   c->resumer_bottom, c->resumer_size);
#endif
#ifdef CORO_TSAN
    __tsan_switch_to_fiber(c->tsan_resumer, 0);
#endif
    ringscan_coro_switch(&c->sp, c->resumer_sp);
    /* Resumed again: coro_resume already set coro_cur, c->tag and resumer_sp. */
#ifdef CORO_ASAN
    __sanitizer_finish_switch_fiber(c->asan_fake, &c->resumer_bottom, &c->resumer_size);
#endif
}

static _Noreturn void coro_entry(coro_t *c)
{
#ifdef CORO_ASAN
    __sanitizer_finish_switch_fiber(NULL, &c->resumer_bottom, &c->resumer_size);
#endif
    assert(c->tag == CORO_TAG(CORO_RUNNING));
    c->fn(c->arg);
    coro_switch_out(c, CORO_FINISHED);
    fprintf(stderr, "ringscan: finished coroutine %p was resumed\n", (void *)c);
    abort();
}

void coro_resume(coro_t *c)
{
    if (!c || (c->tag | 1) != CORO_TAG(CORO_SUSPENDED)) { /* new or suspended (invariant 4) */
        fprintf(stderr, "ringscan: coro_resume on a bad, finished or running coroutine\n");
        abort();
    }
    c->resumer = coro_cur;
    c->tag = CORO_TAG(CORO_RUNNING);
    coro_cur = c;
#ifdef CORO_ASAN
    void *fake = NULL;
    __sanitizer_start_switch_fiber(&fake, (char *)c->map + CORO_GUARD_BYTES,
                                   (size_t)((char *)c - (char *)c->map) - CORO_GUARD_BYTES);
#endif
#ifdef CORO_TSAN
    c->tsan_resumer = __tsan_get_current_fiber();
    __tsan_switch_to_fiber(c->tsan_fiber, 0);
#endif
    /* Back here when c yields or finishes: coro_switch_out restored coro_cur and set c->tag
     * before switching, so nothing is left to do (a tail call, design notes). */
    ringscan_coro_switch(&c->resumer_sp, c->sp);
#ifdef CORO_ASAN
    __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
}

void coro_yield(void)
{
    coro_t *c = coro_cur;
    if (!c) {
        fprintf(stderr, "ringscan: coro_yield outside a coroutine\n");
        abort();
    }
    coro_switch_out(c, CORO_SUSPENDED);
}

coro_t *coro_self(void)
{
    return coro_cur;
}

bool coro_finished(const coro_t *c)
{
    assert(c && CORO_LIVE(c));
    return c->tag == CORO_TAG(CORO_FINISHED);
}

void coro_destroy(coro_t *c)
{
    if (!c) return;
    if (c->tag != CORO_TAG(CORO_NEW) && c->tag != CORO_TAG(CORO_FINISHED)) {
        fprintf(stderr, "ringscan: coro_destroy on a bad, running or suspended coroutine\n");
        abort();
    }
    assert(coro_pool_len >= 0 && coro_pool_len <= CORO_POOL_MAX);
#ifdef CORO_TSAN
    __tsan_destroy_fiber(c->tsan_fiber);
#endif
    void *map = c->map;
    c->tag = 0;
    if (coro_pool_len < CORO_POOL_MAX)
        coro_pool[coro_pool_len++] = map;
    else
        coro_stack_unmap(map);
}

void coro_set_data(coro_t *c, void *data)
{
    assert(c && CORO_LIVE(c));
    c->data = data;
}

void *coro_get_data(const coro_t *c)
{
    assert(c && CORO_LIVE(c));
    return c->data;
}

void coro_pool_drain(void)
{
    assert(coro_pool_len >= 0 && coro_pool_len <= CORO_POOL_MAX);
    pthread_mutex_lock(&coro_stash_mu);
    while (coro_pool_len > 0 && coro_stash_len < CORO_STASH_MAX)
        coro_stash[coro_stash_len++] = coro_pool[--coro_pool_len];
    pthread_mutex_unlock(&coro_stash_mu);
    while (coro_pool_len > 0) /* the stash is full */
        coro_stack_unmap(coro_pool[--coro_pool_len]);
}

int coro_stash_drain(void)
{
    void *maps[CORO_STASH_MAX];
    pthread_mutex_lock(&coro_stash_mu);
    int n = coro_stash_len;
    assert(n >= 0 && n <= CORO_STASH_MAX);
    memcpy(maps, coro_stash, sizeof *maps * (size_t)n);
    coro_stash_len = 0;
    pthread_mutex_unlock(&coro_stash_mu);
    for (int i = 0; i < n; i++) coro_stack_unmap(maps[i]); /* outside the lock: syscalls */
    return n;
}

int coro_stash_size(void)
{
    pthread_mutex_lock(&coro_stash_mu);
    int n = coro_stash_len;
    pthread_mutex_unlock(&coro_stash_mu);
    assert(n >= 0 && n <= CORO_STASH_MAX);
    return n;
}

int coro_pool_size(void)
{
    assert(coro_pool_len >= 0 && coro_pool_len <= CORO_POOL_MAX);
    return coro_pool_len;
}

size_t coro_stack_usable_bytes(const coro_t *c)
{
    assert(c && CORO_LIVE(c));
    return (size_t)((char *)c - (char *)c->map) - CORO_GUARD_BYTES;
}
