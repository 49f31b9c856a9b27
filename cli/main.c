/* cli/main.c: the `ringscan` binary; dispatches subcommands to cli/cmd_*.c. */
#include "cli/cli.h"

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

int main(int argc, char **argv)
{
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
