/* cli/cli.h: subcommand entry points; each returns the process exit status
 * (0 ok, 1 error in the input or the scan, 2 usage). */
#ifndef RINGSCAN_CLI_H
#define RINGSCAN_CLI_H
#include <stdbool.h>
#include <stdio.h>

#include "format/err.h"
int cmd_version(int argc, char **argv);
int cmd_scan(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_meta(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_bench(int argc, char **argv);
/* Prints "ringscan: PATH: message (offset N, column C)" to stderr. */
void cli_print_error(const char *path, const pq_err *e, int rc);
struct scan_stats;
/* Prints a scan's counters, as one JSON object when json. */
void cli_print_stats(FILE *out, const struct scan_stats *st, bool json);
#endif
