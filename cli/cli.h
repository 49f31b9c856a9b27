/* cli/cli.h: subcommand entry points; each returns the process exit status
 * (0 ok, 1 error in the input or the scan, 2 usage). */
#ifndef RINGSCAN_CLI_H
#define RINGSCAN_CLI_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/opts.h"
#include "ringscan.h"

#define RINGSCAN_CLI_VERSION RINGSCAN_VERSION_STRING /* the header's: one version everywhere */

/* Each command's option table and help (cli/opts.h), defined beside its parser. */
extern const cli_cmd cli_cmd_scan, cli_cmd_serve, cli_cmd_meta, cli_cmd_gen, cli_cmd_bench,
    cli_cmd_bench_runtime, cli_cmd_bench_topk, cli_cmd_version;
int cmd_version(int argc, char **argv);
int cmd_scan(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_meta(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_bench(int argc, char **argv);
/* bench's help after its option table: the shapes and `bench runtime`'s help. */
void cli_bench_help_tail(void);
/* n bytes as "N B" below 1 KiB, else with one decimal in KiB, MiB, GiB or TiB, into buf (meta's
 * text and the progress line; cli/progress.c). */
const char *cli_human_bytes(int64_t n, char buf[32]);
/* Row group g's compressed bytes: as the writer recorded them, else its chunks' sum (meta). */
int64_t cli_group_compressed(const ringscan_file *f, const ringscan_file_info *fi, int g);
/* (cli/dataset_opts.c) Whether paths[0..npaths) name a dataset: several, a directory, a
 * pattern (unless it lists as the one local file named as it is, '[' and all: a pattern
 * that matches nothing else), an s3:// prefix ending in '/', or a dataset option given
 * (dataset_opt). */
bool cli_is_dataset(const char *const *paths, int npaths, bool dataset_opt);
/* The dataset options scan and meta share: their table entries (a command's ids for them)
 * and their effect on o (cli_dataset_opt). */
enum cli_dataset_opt { CLI_DS_HIVE, CLI_DS_HIVE_TYPES, CLI_DS_UNION };
extern const char *const cli_hive_choices[];
#define CLI_DATASET_OPTS(HIVE, HIVE_TYPES, UNION)                                                  \
    {"--hive-partitioning", NULL, NULL, CLI_CHOICE, HIVE, .choices = cli_hive_choices,           \
     .dflt = "auto", .help = "key=value directories as columns (auto: when all files have them)"}, \
    {"--hive-types", NULL, "K:T,..", CLI_TEXT, HIVE_TYPES, .dflt = "inferred as DuckDB",         \
     .help = "partition column types: year:BIGINT,month:VARCHAR,day:DATE",                       \
     .once = CLI_ONCE_LIST},                                                                      \
    {"--union-by-name", NULL, NULL, CLI_FLAG, UNION,                                              \
     .help = "every file's columns by name (missing: null; ints widen)"}
void cli_dataset_opt(ringscan_options *o, enum cli_dataset_opt which, const cli_val *v);
/* `ringscan meta` over a dataset (cli/meta_dataset.c): its columns as a scan exports them, a
 * line per file and the totals, as text or one JSON object; the exit status. */
int cli_meta_dataset(const char *const *paths, int npaths, const ringscan_options *o, bool json);
/* Prints a scan's counters, as one JSON object when json. */
void cli_print_stats(FILE *out, const ringscan_stats *st, bool json);
/* --format count (cli/rows.c): ringscan_count over f, or ringscan_dataset_count over ds when
 * it is not NULL, with o; "rows N" on cli_out(), the counters on stderr when stats (1 text,
 * 2 JSON). 0 or the count's status (err filled). */
int cli_count_rows(ringscan_file *f, ringscan_dataset *ds, const ringscan_options *o, int stats,
                   ringscan_error *err);
/* --dictionary-columns LIST (cli/dictcols.c): the names into o->dictionary_columns (static
 * storage; *copy holds the split text, the caller frees it). 0, -ENOMEM or -E2BIG. */
int cli_dictionary_columns(const char *list, ringscan_options *o, char **copy);
#endif
