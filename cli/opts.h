/* cli/opts.h: the one option parser every `ringscan` command uses, driven by a table of the
 * command's options that its help text (cli_help) is printed from as well, so the two cannot
 * disagree (tests/cli/help.sh checks it against the sources).
 *
 * Usage errors are printed here, in one form, and give exit status 2 (cli/cli.h):
 *   ringscan: scan: --limit: '10x' is not a whole number
 *   ringscan: scan: unknown option '--colums' (did you mean --columns?)
 * followed by one line naming where the full help is. */
#ifndef RINGSCAN_CLI_OPTS_H
#define RINGSCAN_CLI_OPTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    CLI_OPTS_MAX = 64,  /* entries in one command's table */
    CLI_EXIT_USAGE = 2, /* the exit status of every usage error (cli/cli.h) */
    CLI_HELP_SHOWN = -2 /* cli_parse: --help was asked for and printed; exit 0 */
};

typedef enum {
    CLI_FLAG,   /* no value */
    CLI_INT,    /* a whole number in [lo, hi] */
    CLI_REAL,   /* a finite number in (rlo, rhi] */
    CLI_BYTES,  /* a byte count in [lo, hi]: N, or N with B, KiB, MiB, GiB or TiB */
    CLI_CHOICE, /* one of choices (its index is the value) */
    CLI_TEXT    /* any text, even empty */
} cli_opt_kind;

typedef struct cli_opt {
    const char *name;  /* "--limit" */
    const char *alias; /* a second spelling ("-o"), or NULL */
    const char *arg;   /* the value's name in the help ("N"); NULL for CLI_FLAG */
    cli_opt_kind kind;
    int id;                     /* the command's own code for the option */
    int64_t lo, hi;             /* CLI_INT, CLI_BYTES: the range, both ends included */
    double rlo, rhi;            /* CLI_REAL: the range, rlo excluded */
    const char *const *choices; /* CLI_CHOICE: NULL-terminated */
    const char *dflt;           /* the default as the help shows it, or NULL */
    const char *help;           /* one line of meaning */
    const char *once;           /* NULL: a later value replaces an earlier one (a number, a
                                   choice, a path: the last wins, as in curl and the DuckDB
                                   CLI). Else the value is a list or a condition, which a
                                   second one would silently replace or oddly merge: given
                                   twice is a usage error, and this is its hint ("list them
                                   in one, separated by commas") */
} cli_opt;

#define CLI_ONCE_LIST "list them in one, separated by commas" /* cli_opt.once's usual hint */

typedef struct cli_val {
    int64_t i;     /* CLI_INT, CLI_BYTES, CLI_CHOICE (the index), CLI_FLAG (1) */
    double r;      /* CLI_REAL */
    const char *s; /* the value's text (CLI_FLAG: the option's name) */
} cli_val;

typedef struct cli_cmd {
    const char *name;    /* "scan", "bench runtime" */
    const char *usage;   /* what follows the name: "FILE [options]" */
    const char *purpose; /* a paragraph: what the command does */
    const cli_opt *opts;
    int nopts;
    const char *const *examples; /* NULL-terminated command lines */
    int pos_min, pos_max;        /* positional arguments accepted */
} cli_cmd;

/* Applies one parsed option to the command's state. 0, or CLI_EXIT_USAGE after printing a
 * message with cli_usage_error. */
typedef int (*cli_apply_fn)(void *ctx, const cli_opt *o, const cli_val *v);

/* Parses argv[first .. argc) against cmd's table: "--name VALUE", "--name=VALUE" and flags call
 * apply in command-line order (an option with `once` given a second time is a usage error
 * naming it, with its hint); "--" ends the options; any other argument is a positional one,
 * stored in pos[0 .. *npos) (pos_max at most; fewer than pos_min is an error). "--help" and
 * "-h" print cli_help to standard output and return CLI_HELP_SHOWN. Returns 0, CLI_HELP_SHOWN,
 * or CLI_EXIT_USAGE with the message printed (unknown option with the nearest name, missing or
 * malformed value, out-of-range number, wrong number of positional arguments). */
int cli_parse(const cli_cmd *cmd, int argc, char **argv, int first, cli_apply_fn apply, void *ctx,
              const char **pos, int *npos);

/* Prints "ringscan: CMD: <message>" and the line that points at the help, on stderr; returns
 * CLI_EXIT_USAGE. */
int cli_usage_error(const cli_cmd *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints cmd's help (usage, purpose, every option with its value, default and meaning, the
 * examples) to standard output (cli_out()). */
void cli_help(const cli_cmd *cmd);

/* Strict number parsers, shared by the table kinds and by any caller: the whole of s must be
 * the number (no spaces, no trailing text, no "+"), within the range. 0, or -EINVAL (not a
 * number of the kind) or -ERANGE (overflow or outside the range). */
int cli_parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out);
int cli_parse_real(const char *s, double lo_excl, double hi, double *out);
int cli_parse_bytes(const char *s, int64_t lo, int64_t hi, int64_t *out);

/* The index of the candidate nearest to word in edit distance (insert, delete, substitute,
 * swap of neighbours), when that distance is small enough to be a likely typo (at most 1 +
 * length/4, and less than the word's length); -1 when none is. Ties go to the first. Words
 * and candidates over CLI_SUGGEST_MAX bytes are never matched. */
enum { CLI_SUGGEST_MAX = 128 };
int cli_nearest(const char *word, const char *const *cands, int n);
/* The edit distance of a and b (both at most CLI_SUGGEST_MAX bytes; longer: SIZE_MAX). */
size_t cli_edit_distance(const char *a, const char *b);

#endif
