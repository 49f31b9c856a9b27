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

/* The commands, in the order the help lists them; each one's options and help are its
 * cli_cmd table (cli/opts.h), beside its parser. */
static const struct {
    const cli_cmd *cmd;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {&cli_cmd_scan, cmd_scan, "scan a Parquet file: columns, a filter, a limit; table, CSV, JSON"},
    {&cli_cmd_meta, cmd_meta, "print a file's metadata: schema, row groups, chunks, statistics"},
    {&cli_cmd_gen, cmd_gen, "write test data: TPC-H lineitem, every type, or the Top-K workload"},
    {&cli_cmd_bench, cmd_bench, "benchmark scans of generated data under each read policy"},
    {&cli_cmd_serve, cmd_serve, "run one scan per stdin line, answer each with a JSON line"},
    {&cli_cmd_version, cmd_version, "print the version"},
};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

/* The top-level help (`ringscan --help`) to out. */
static void top_help(FILE *out)
{
    fprintf(out,
            "ringscan %s: a Parquet scan runtime (io_uring, coroutines, pruning by statistics,\n"
            "page indexes and bloom filters).\n\nusage: ringscan COMMAND [ARGS]\n\ncommands:\n",
            RINGSCAN_CLI_VERSION);
    for (int i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].cmd->name, commands[i].summary);
    fprintf(out, "  %-10s %s\n", "help", "`ringscan help COMMAND` (or COMMAND --help): options");
    fprintf(out, "\noptions: -h, --help (this text), -V, --version (the version)\n"
                 "\nexamples:\n"
                 "  ringscan gen lineitem --sf 0.1 -o lineitem.parquet\n"
                 "  ringscan scan lineitem.parquet --where \"l_quantity > 45\" --limit 5 --stats\n"
                 "  ringscan meta lineitem.parquet\n");
}

/* The command named name, or -1 after printing the error (with the nearest name) on stderr. */
static int find_command(const char *name)
{
    const char *names[NCOMMANDS + 1];
    for (int i = 0; i < NCOMMANDS; i++) {
        names[i] = commands[i].cmd->name;
        if (strcmp(name, names[i]) == 0) return i;
    }
    names[NCOMMANDS] = "help";
    int at = cli_nearest(name, names, NCOMMANDS + 1);
    size_t n = strlen(name);
    if (at < 0 && (strchr(name, '/') || (n > 8 && strcmp(name + n - 8, ".parquet") == 0)))
        fprintf(stderr, "ringscan: unknown command '%s' (did you mean ringscan scan %s?)\n", name,
                name); /* (a file named first: the command was left out) */
    else if (at >= 0)
        fprintf(stderr, "ringscan: unknown command '%s' (did you mean %s?)\n", name, names[at]);
    else fprintf(stderr, "ringscan: unknown command '%s'\n", name);
    fprintf(stderr, "ringscan --help lists the commands\n");
    return -1;
}

/* `ringscan help [COMMAND]` (and `help bench runtime`, `help bench topk`): the top help or one command's, on
 * stdout; 0, or 2 for an unknown command or more than one argument. */
static int cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        top_help(stdout);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "bench") == 0 && strcmp(argv[2], "runtime") == 0) {
        cli_help(&cli_cmd_bench_runtime);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "bench") == 0 && strcmp(argv[2], "topk") == 0) {
        cli_help(&cli_cmd_bench_topk);
        return 0;
    }
    if (argc > 2) {
        fprintf(stderr, "ringscan: help: one command at a time (got '%s' after '%s')\n", argv[2],
                argv[1]);
        return CLI_EXIT_USAGE;
    }
    int i = find_command(argv[1]);
    if (i < 0) return CLI_EXIT_USAGE;
    cli_help(commands[i].cmd);
    if (commands[i].cmd == &cli_cmd_bench) cli_bench_help_tail();
    return 0;
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
 * process's RSS stays at its largest scan's, as a query engine's buffer pool does.
 * mimalloc 2.0.9 still decommitted freed spans of its segments (MADV_DONTNEED) after
 * decommit_delay once allow_decommit was off when set here (its segments' own flag does not
 * follow the option): in a warm `serve` process the Arrow export's decimal buffers were
 * faulted in and zeroed again every scan, 1,350 page faults a scan of expr_cols and 5-9% of
 * its CPU (bench/RESULTS.md, twentieth session). The delays are set to 1,000 s: a process
 * idle that long still gives the memory back. */
enum { DECOMMIT_DELAY_MS = 1000 * 1000 };

static void allocator_setup(void)
{
    mi_option_disable(mi_option_allow_decommit);
    mi_option_set(mi_option_decommit_delay, DECOMMIT_DELAY_MS);
    mi_option_set(mi_option_segment_decommit_delay, DECOMMIT_DELAY_MS);
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
        top_help(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *a = argv[1];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0 || strcmp(a, "help") == 0)
        return finish_output(cmd_help(argc - 1, argv + 1));
    if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0)
        return finish_output(cmd_version(1, argv + 1));
    if (a[0] == '-') {
        fprintf(stderr, "ringscan: unknown option '%s' before the command\n"
                        "ringscan --help lists the commands\n", a);
        return CLI_EXIT_USAGE;
    }
    int i = find_command(a);
    return i < 0 ? CLI_EXIT_USAGE : finish_output(commands[i].run(argc - 1, argv + 1));
}

static const char *const version_examples[] = {"ringscan version", "ringscan --version", NULL};

const cli_cmd cli_cmd_version = {
    .name = "version",
    .usage = "",
    .purpose = "Prints the version (also: ringscan --version).",
    .examples = version_examples,
};

int cmd_version(int argc, char **argv)
{
    int npos = 0;
    int rc = cli_parse(&cli_cmd_version, argc, argv, 1, NULL, NULL, NULL, &npos);
    if (rc) return rc == CLI_HELP_SHOWN ? 0 : rc;
    sink_puts(cli_out(), "ringscan " RINGSCAN_CLI_VERSION "\n");
    return 0; /* main() checks the write */
}
