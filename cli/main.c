/* cli/main.c: the `ringscan` binary; dispatches subcommands to cli/cmd_*.c. */
#include "cli/cli.h"
#include "cli/sink.h"

#include <assert.h>
#include <errno.h>
#include <mimalloc.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
} commands[] = {
    {"bench", cmd_bench, "[--sf N] [--shapes ...] [--policies ...] [--json F] | runtime: benchmarks"},
    {"gen", cmd_gen, "lineitem --sf N -o FILE [...] | demo-types -o FILE: write test data"},
    {"meta", cmd_meta, "FILE [--json]: schema, row groups, chunks, statistics, indexes"},
    {"scan", cmd_scan, "FILE [--columns a,b] [--format table|csv|jsonl] [--limit N]"},
    {"serve", cmd_serve, "one scan per stdin line (scan arguments, tab-separated): JSON lines"},
    {"version", cmd_version, "print the version"},
};

static void usage(void)
{
    fprintf(stderr, "usage: ringscan COMMAND [ARGS]\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(stderr, "  %-10s %s\n", commands[i].name, commands[i].help);
}

/* Address space mapped up front for mimalloc's arena (committed, so its pages are not
 * decommitted on free, but untouched: no RSS until used): range buffers above its huge-object
 * size come from this arena and are reused, where an OS-backed huge block is unmapped on free
 * and faulted in again. */
#define ARENA_RESERVE_BYTES ((size_t)1 << 30)

/* Maps the arena, 64 MiB aligned (a multiple of mimalloc's segment alignment), advises it
 * MADV_HUGEPAGE and hands it to mimalloc: where transparent huge pages are "madvise" (Debian's
 * default) a fresh process faults 2 MiB pages, not 4 KiB ones. A fresh `ringscan scan` of
 * lineitem_prune at sf=1: 4195 -> 657 page faults, 17.6 -> 11.6 ms (median of 60 interleaved
 * runs), peak RSS 21.7 -> 26.8 MB; warm scans and lineitem_wide unchanged. False if the kernel
 * refused the mapping (vm.overcommit_memory=2) or mimalloc the memory. */
static bool huge_page_arena(void)
{
    size_t align = (size_t)64 << 20;
    uint8_t *p = mmap(NULL, ARENA_RESERVE_BYTES + align, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return false;
    uint8_t *a = (uint8_t *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
    assert(a >= p && a + ARENA_RESERVE_BYTES <= p + ARENA_RESERVE_BYTES + align);
    (void)madvise(a, ARENA_RESERVE_BYTES, MADV_HUGEPAGE); /* a hint: EINVAL without THP */
    if (mi_manage_os_memory(a, ARENA_RESERVE_BYTES, true, false, true, -1)) return true;
    munmap(p, ARENA_RESERVE_BYTES + align);
    return false;
}

/* The binary's allocator settings (a library host chooses its own; see README "Memory (embedding)").
 * Scans run back to back in one process (`serve`, bench rounds) and each starts its own
 * threads, whose heaps are new: memory mimalloc handed back to the OS 25 ms after a scan was
 * faulted in and zeroed again by the next one - lineitem_prune 14.2 -> 7.0 ms at sf=1 when it
 * is kept (bench/RESULTS-peers.md, fourth session). So freed memory stays committed: a
 * process's RSS stays at its largest scan's, as a query engine's buffer pool does. */
static void allocator_setup(void)
{
    mi_option_disable(mi_option_allow_decommit);
    if (huge_page_arena()) return;
    /* may fail too: mimalloc then takes memory from the OS as it goes, which is only slower;
     * nothing to report */
    (void)mi_reserve_os_memory(ARENA_RESERVE_BYTES, true, false);
}

/* The exit status of a command that returned status, once its output is out: writes what
 * stdio still holds (bench's report table prints through stdio), then flushes and closes
 * cli_out(); a failure of either is the output's (cli/sink.h: message and status 1, or a
 * quiet SINK_EXIT_PIPE for a closed pipe). */
static int finish_output(int status)
{
    cli_sink *out = cli_out();
    if ((fflush(stdout) != 0 || ferror(stdout)) && !out->err)
        out->err = errno ? -errno : -EIO;
    (void)sink_close(out);
    return sink_exit_status(out, status);
}

int main(int argc, char **argv)
{
    allocator_setup();
    /* a closed pipe becomes EPIPE from write(2), so a command stops and frees its scan
     * instead of dying mid-scan; it still exits quietly (cli/sink.c invariant 5) */
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2) {
        usage();
        return 2;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return finish_output(commands[i].run(argc - 1, argv + 1));
    fprintf(stderr, "ringscan: unknown command '%s'\n", argv[1]);
    usage();
    return 2;
}

int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    sink_puts(cli_out(), "ringscan 0.1.0\n");
    return 0; /* main() checks the write */
}
