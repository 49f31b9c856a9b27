/* cli/main.c: the `ringscan` binary; dispatches subcommands to cli/cmd_*.c. */
#include "cli/cli.h"

#include <mimalloc.h>
#include <stdio.h>
#include <string.h>

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

/* Address space mimalloc maps up front (committed, so its pages are not decommitted on free, but
 * untouched: no RSS until used): range buffers above its huge-object size come from this arena
 * and are reused, where an OS-backed huge block is unmapped on free and faulted in again. */
#define ARENA_RESERVE_BYTES ((size_t)1 << 30)

/* The binary's allocator settings (a library host chooses its own; see README "Memory (embedding)").
 * Scans run back to back in one process (`serve`, bench rounds) and each starts its own
 * threads, whose heaps are new: memory mimalloc handed back to the OS 25 ms after a scan was
 * faulted in and zeroed again by the next one - lineitem_prune 14.2 -> 7.0 ms at sf=1 when it
 * is kept (bench/RESULTS-peers.md, fourth session). So freed memory stays committed: a
 * process's RSS stays at its largest scan's, as a query engine's buffer pool does. */
static void allocator_setup(void)
{
    mi_option_disable(mi_option_allow_decommit);
    /* may fail where the kernel does not overcommit (vm.overcommit_memory=2): mimalloc then
     * takes memory from the OS as it goes, which is only slower; nothing to report */
    (void)mi_reserve_os_memory(ARENA_RESERVE_BYTES, true, false);
}

int main(int argc, char **argv)
{
    allocator_setup();
    if (argc < 2) {
        usage();
        return 2;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "ringscan: unknown command '%s'\n", argv[1]);
    usage();
    return 2;
}

int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("ringscan 0.1.0\n");
    return 0;
}
