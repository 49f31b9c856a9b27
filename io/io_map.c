/* io/io_map.c: the mmap read mode of a local file (io_open_opts.read_mode = IO_READ_MMAP):
 * the file mapped whole, read requests served as views into the mapping, and the SIGBUS that
 * touching a page past a shrunk file's end raises turned into an error.
 *
 * Why: a buffered read copies every byte from the page cache into a range buffer (the
 * kernel's _copy_to_iter, 0.30-0.40x of a one-thread scan's decompression floor, issue 26);
 * a view into the mapping reads the page cache's own pages. Only a range whose pages are
 * cached becomes a view (io_map_resident, sampled): its "read" populates its page tables on
 * the ring's io-wq workers (exec_populate), so the decode thread takes no page fault. A range
 * that is not cached is read by copy as in IO_READ_COPY: buffered reads bring it in with the
 * kernel's read-ahead, in large folios, and never wait on a worker. (Populating cold pages
 * instead read them a fault at a time or, with MADV_WILLNEED first, into 4 KiB folios that
 * made every later scan of the file slower, copy's too: bench/RESULTS.md.) The mapping lives
 * as long as the io_file_t, which every request's future outlives only after it was
 * released (io_file_close: no request pending), so a view never outlives the bytes it
 * points into.
 *
 * Owns: the process-wide table of mappings and the SIGBUS handler (installed once, at the
 * first mapping; it chains to the handler it replaced for any fault outside the table).
 * Invariants:
 *  1. A mapping is in the table from io_map_file until io_map_unmap, which removes it before
 *     munmap: the handler never patches memory that is no longer the file's mapping.
 *  2. A fault inside a mapping (the file shrank under it) maps an anonymous zero page over
 *     the faulting page, so the access completes reading zeros, and records the page's file
 *     offset in the file (map_fault, the first one kept). Every consumer of a mapped file's
 *     bytes checks io_file_faulted after using them (on the same thread: the handler ran on
 *     the faulting thread before it returned), so zeros never pass for the file's bytes.
 *  3. At most IO_MAPS_MAX files are mapped at once; a file past that, an empty one, one
 *     mmap refuses, or any file on a kernel without MADV_POPULATE_READ (before 5.14) is read
 *     by copy (f->map NULL), with the same results. */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io/io.h"

enum {
    IO_MAPS_MAX = 256,
    IO_MAP_SAMPLE_BYTES = 256 * 1024 /* io_map_resident looks at one page in this many bytes */
};

/* One mapping; base 0 = a free slot. The handler reads it without a lock (acquire on base,
 * written last on registration and first on removal). */
static struct io_map_slot {
    _Atomic uintptr_t base;
    size_t len;
    io_file_t *file;
} maps[IO_MAPS_MAX];
static pthread_mutex_t maps_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t handler_once = PTHREAD_ONCE_INIT;
static bool handler_ok;
static struct sigaction handler_prev;
static uintptr_t page_bytes;

/* The slot whose mapping holds address a, or NULL. Async-signal-safe. */
static struct io_map_slot *slot_of(uintptr_t a)
{
    for (int i = 0; i < IO_MAPS_MAX; i++) {
        uintptr_t base = atomic_load_explicit(&maps[i].base, memory_order_acquire);
        if (base && a >= base && a - base < maps[i].len) return &maps[i];
    }
    return NULL;
}

/* SIGBUS: a page of a mapped file past its end (invariant 2), or someone else's fault. */
static void io_map_sigbus(int sig, siginfo_t *si, void *uc)
{
    /* si_code > 0: the kernel's, for a fault at si_addr (a kill or raise has none) */
    struct io_map_slot *s = si->si_code > 0 ? slot_of((uintptr_t)si->si_addr) : NULL;
    if (s) {
        uintptr_t page = (uintptr_t)si->si_addr & ~(page_bytes - 1);
        uint64_t none = 0, at = (uint64_t)(page - atomic_load(&s->base)) + 1;
        atomic_compare_exchange_strong(&s->file->map_fault, &none, at);
        void *z = mmap((void *)page, page_bytes, PROT_READ,
                       MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (z != MAP_FAILED) return; /* the access is retried and reads zeros */
    }
    if ((handler_prev.sa_flags & SA_SIGINFO) && handler_prev.sa_sigaction) {
        handler_prev.sa_sigaction(sig, si, uc);
        return;
    }
    if (handler_prev.sa_handler != SIG_DFL && handler_prev.sa_handler != SIG_IGN) {
        handler_prev.sa_handler(sig);
        return;
    }
    signal(SIGBUS, SIG_DFL); /* ends the process as it would have without us: */
    if (si->si_code <= 0) raise(SIGBUS); /* sent: again, now; a fault: the access faults again */
}

static void handler_install(void)
{
    page_bytes = (uintptr_t)sysconf(_SC_PAGESIZE);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = io_map_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    handler_ok = sigaction(SIGBUS, &sa, &handler_prev) == 0;
}

/* Puts f's mapping in a free slot. False when the table is full. */
static bool slot_add(io_file_t *f, size_t len)
{
    pthread_mutex_lock(&maps_mu);
    int i = 0;
    while (i < IO_MAPS_MAX && atomic_load_explicit(&maps[i].base, memory_order_relaxed)) i++;
    if (i < IO_MAPS_MAX) {
        maps[i].len = len;
        maps[i].file = f;
        atomic_store_explicit(&maps[i].base, (uintptr_t)f->map, memory_order_release);
    }
    pthread_mutex_unlock(&maps_mu);
    return i < IO_MAPS_MAX;
}

void io_map_file(io_file_t *f)
{
    assert(f && f->fd >= 0 && !f->map);
    pthread_once(&handler_once, handler_install);
    if (!handler_ok || f->size_bytes == 0 || f->size_bytes > SIZE_MAX) return; /* inv. 3 */
    void *m = mmap(NULL, (size_t)f->size_bytes, PROT_READ, MAP_SHARED, f->fd, 0);
    if (m == MAP_FAILED) return;
    /* length 0: the advice is checked (EINVAL before Linux 5.14: reads copy, invariant 3)
     * and nothing is read */
    if (madvise(m, 0, MADV_POPULATE_READ) != 0) {
        munmap(m, (size_t)f->size_bytes);
        return;
    }
    f->map = m;
    if (!slot_add(f, (size_t)f->size_bytes)) {
        munmap(m, (size_t)f->size_bytes);
        f->map = NULL;
    }
}

void io_map_unmap(io_file_t *f)
{
    if (!f->map) return;
    pthread_mutex_lock(&maps_mu);
    for (int i = 0; i < IO_MAPS_MAX; i++)
        if (atomic_load_explicit(&maps[i].base, memory_order_relaxed) == (uintptr_t)f->map)
            atomic_store_explicit(&maps[i].base, 0, memory_order_release);
    pthread_mutex_unlock(&maps_mu);
    munmap((void *)f->map, (size_t)f->size_bytes);
    f->map = NULL;
}

bool io_map_resident(const io_file_t *f, uint64_t off, uint64_t len)
{
    assert(f->map && len > 0);
    if (off > f->size_bytes || len > f->size_bytes - off) return false; /* past the end: copied,
                                                                          which reports it */
    uintptr_t first = ((uintptr_t)f->map + off) & ~(page_bytes - 1);
    uintptr_t last = ((uintptr_t)f->map + off + len - 1) & ~(page_bytes - 1);
    for (uintptr_t p = first;; p += IO_MAP_SAMPLE_BYTES) { /* (last - first) / sample + 1 passes */
        if (p > last) p = last; /* the last page is always looked at */
        unsigned char in = 0;
        if (mincore((void *)p, page_bytes, &in) != 0 || !(in & 1)) return false;
        if (p == last) return true;
    }
}

int io_file_faulted(const io_file_t *f, char *err, size_t errlen)
{
    uint64_t at = atomic_load(&((io_file_t *)f)->map_fault);
    if (at == 0) return 0;
    if (err)
        snprintf(err, errlen,
                 "%s: the file shrank while it was read (mapped: the page at byte %" PRIu64
                 " is past its end now; it was %" PRIu64 " bytes when opened)",
                 f->name, at - 1, f->size_bytes);
    return -EIO;
}
