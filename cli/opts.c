/* cli/opts.c: the table-driven option parser and help printer of cli/opts.h.
 *
 * Invariants:
 *  1. Every value is parsed whole: a number with trailing text, spaces, an empty string, an
 *     overflow or a value outside the option's range is a usage error naming the option and
 *     the value, never a silent default or a clamp.
 *  2. An argument starting with "-" (other than "-" itself and negative numbers taken as an
 *     option's value) is an option: one that is not in the table is an error that names it
 *     and, when one is close, the nearest valid name.
 *  3. The help is printed from the same table the parser reads, so every accepted option is
 *     listed with its value, default and meaning.
 *  4. Bounded: option names and suggestions are compared up to CLI_SUGGEST_MAX bytes.
 *  5. One rule for an option given twice, in every command: a single value (a number, a
 *     choice, a path, a flag) takes the last, as curl and the DuckDB CLI do; a list or a
 *     condition (its table entry has `once`) is refused, since replacing the first would drop
 *     names or let through rows it meant to filter out, and merging has no one obvious
 *     meaning (AND? a union of columns?). */
#include "cli/opts.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/sink.h"

/* ------------------------------------------------------------------------ numbers */

int cli_parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    const char *d = s[0] == '-' ? s + 1 : s;
    if (*d < '0' || *d > '9') return -EINVAL; /* empty, spaces, "+", letters */
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end) return -EINVAL;
    if (errno == ERANGE || v < lo || v > hi) return -ERANGE;
    *out = v;
    return 0;
}

int cli_parse_real(const char *s, double lo_excl, double hi, double *out)
{
    const char *d = s[0] == '-' ? s + 1 : s;
    if ((*d < '0' || *d > '9') && *d != '.') return -EINVAL; /* also "nan", "inf", "0x" forms */
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || end == s || strpbrk(s, "xXpP")) return -EINVAL;
    if (errno == ERANGE || !isfinite(v) || !(v > lo_excl && v <= hi)) return -ERANGE;
    *out = v;
    return 0;
}

int cli_parse_bytes(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    static const struct {
        const char *suffix;
        int shift;
    } units[] = {{"", 0}, {"B", 0}, {"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}};
    size_t digits = strspn(s, "0123456789");
    if (digits == 0) return -EINVAL;
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        if (strcmp(s + digits, units[u].suffix) != 0) continue;
        char num[32];
        if (digits >= sizeof num) return -ERANGE;
        memcpy(num, s, digits);
        num[digits] = 0;
        int64_t n = 0;
        int rc = cli_parse_int(num, 0, INT64_MAX >> units[u].shift, &n);
        if (rc) return rc;
        n <<= units[u].shift;
        if (n < lo || n > hi) return -ERANGE;
        *out = n;
        return 0;
    }
    return -EINVAL;
}

/* ------------------------------------------------------------------- suggestions */

size_t cli_edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > CLI_SUGGEST_MAX || m > CLI_SUGGEST_MAX) return SIZE_MAX;
    /* three rows of the Damerau (optimal string alignment) table */
    size_t rows[3][CLI_SUGGEST_MAX + 1];
    size_t *pp = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= m; j++)
        prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            size_t best = sub < del ? sub : del;
            if (ins < best) best = ins;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                pp[j - 2] + 1 < best)
                best = pp[j - 2] + 1;
            cur[j] = best;
        }
        size_t *t = pp;
        pp = prev;
        prev = cur;
        cur = t;
    }
    return prev[m];
}

int cli_nearest(const char *word, const char *const *cands, int n)
{
    size_t len = strlen(word), limit = 1 + len / 4, best = SIZE_MAX;
    if (limit >= len) limit = len ? len - 1 : 0;
    int at = -1;
    for (int i = 0; i < n; i++) {
        size_t d = cli_edit_distance(word, cands[i]);
        if (d <= limit && d < best) best = d, at = i;
    }
    return at;
}

/* ------------------------------------------------------------------------ errors */

int cli_usage_error(const cli_cmd *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ringscan: %s: ", cmd->name);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: ringscan %s%s%s (ringscan %s --help lists the options)\n", cmd->name,
            cmd->usage[0] ? " " : "", cmd->usage, cmd->name);
    return CLI_EXIT_USAGE;
}

/* The nearest option name (or alias) of cmd to word, or NULL. */
static const char *nearest_option(const cli_cmd *cmd, const char *word)
{
    const char *names[2 * CLI_OPTS_MAX + 1];
    int n = 0;
    for (int i = 0; i < cmd->nopts && n + 2 < (int)(sizeof names / sizeof names[0]); i++) {
        names[n++] = cmd->opts[i].name;
        if (cmd->opts[i].alias) names[n++] = cmd->opts[i].alias;
    }
    names[n++] = "--help";
    int at = cli_nearest(word, names, n);
    return at < 0 ? NULL : names[at];
}

static int unknown_option(const cli_cmd *cmd, const char *arg)
{
    const char *near = nearest_option(cmd, arg);
    if (near) return cli_usage_error(cmd, "unknown option '%s' (did you mean %s?)", arg, near);
    return cli_usage_error(cmd, "unknown option '%s'", arg);
}

/* "table, csv, jsonl" (sep ", ") into buf, cut at cap. */
static const char *choice_list(const char *const *choices, const char *sep, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; choices[i] && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? sep : "", choices[i]);
    return buf;
}

static int bad_choice(const cli_cmd *cmd, const cli_opt *o, const char *v)
{
    int n = 0;
    while (o->choices[n])
        n++;
    char list[512];
    choice_list(o->choices, ", ", list, sizeof list);
    int at = cli_nearest(v, o->choices, n);
    if (at >= 0)
        return cli_usage_error(cmd, "%s: unknown value '%s' (did you mean %s?); one of %s", o->name,
                               v, o->choices[at], list);
    return cli_usage_error(cmd, "%s: unknown value '%s'; one of %s", o->name, v, list);
}

/* The message for a number that did not parse (rc -EINVAL) or is out of range (-ERANGE). */
static int bad_number(const cli_cmd *cmd, const cli_opt *o, const char *v, int rc)
{
    if (o->kind == CLI_REAL) {
        if (rc == -EINVAL) return cli_usage_error(cmd, "%s: '%s' is not a number", o->name, v);
        return cli_usage_error(cmd, "%s: '%s' is out of range (above %g, at most %g)", o->name, v,
                               o->rlo, o->rhi);
    }
    if (rc == -EINVAL)
        return cli_usage_error(
            cmd,
            o->kind == CLI_BYTES
                ? "%s: '%s' is not a byte count (N, or N with B, KiB, MiB, GiB, TiB)"
                : "%s: '%s' is not a whole number",
            o->name, v);
    return cli_usage_error(cmd, "%s: '%s' is out of range (%lld to %lld)", o->name, v,
                           (long long)o->lo, (long long)o->hi);
}

/* ------------------------------------------------------------------------ parsing */

/* The message for flag o given a value v: the spellings with one named ("--stats takes no
 * value (got 'xml')" hid --stats=json). */
static int flag_value(const cli_cmd *cmd, const cli_opt *o, const char *v)
{
    size_t len = strlen(o->name);
    for (int i = 0; i < cmd->nopts; i++) {
        const char *n = cmd->opts[i].name;
        if (strncmp(n, o->name, len) == 0 && n[len] == '=')
            return cli_usage_error(cmd, "%s takes no value (got '%s'); %s is one form with a value",
                                   o->name, v, n);
    }
    return cli_usage_error(cmd, "%s takes no value (got '%s')", o->name, v);
}

/* The value of option o from its text v into *val. 0 or CLI_EXIT_USAGE (printed). */
static int parse_value(const cli_cmd *cmd, const cli_opt *o, const char *v, cli_val *val)
{
    assert(v && (o->kind != CLI_CHOICE || o->choices));
    assert(o->kind == CLI_FLAG || o->kind == CLI_CHOICE || o->arg); /* the help names the value */
    *val = (cli_val){.s = v};
    int rc = 0;
    switch (o->kind) {
    case CLI_FLAG:
        return flag_value(cmd, o, v);
    case CLI_INT:
        rc = cli_parse_int(v, o->lo, o->hi, &val->i);
        break;
    case CLI_BYTES:
        rc = cli_parse_bytes(v, o->lo, o->hi, &val->i);
        break;
    case CLI_REAL:
        rc = cli_parse_real(v, o->rlo, o->rhi, &val->r);
        break;
    case CLI_CHOICE:
        for (int i = 0; o->choices[i]; i++)
            if (strcasecmp(v, o->choices[i]) == 0) return val->i = i, 0; /* (--format CSV) */
        return bad_choice(cmd, o, v);
    case CLI_TEXT:
        return 0;
    }
    return rc ? bad_number(cmd, o, v, rc) : 0;
}

/* The table entry of cmd named (or aliased) name[0 .. len), or NULL. */
static const cli_opt *find_option(const cli_cmd *cmd, const char *name, size_t len)
{
    for (int i = 0; i < cmd->nopts; i++) {
        const cli_opt *o = &cmd->opts[i];
        if (strlen(o->name) == len && strncmp(o->name, name, len) == 0) return o;
        if (o->alias && strlen(o->alias) == len && strncmp(o->alias, name, len) == 0) return o;
    }
    return NULL;
}

/* One option at argv[*i] (its value, if any, consumed too); *seen has a bit per table entry
 * given so far. 0 or CLI_EXIT_USAGE. */
static int parse_one(const cli_cmd *cmd, int argc, char **argv, int *i, cli_apply_fn apply,
                     void *ctx, uint64_t *seen)
{
    const char *arg = argv[*i], *eq = strchr(arg, '=');
    const cli_opt *o = find_option(cmd, arg, strlen(arg)); /* whole: "--stats=json" is a flag */
    const char *v = NULL;
    if (!o && eq && (o = find_option(cmd, arg, (size_t)(eq - arg)))) v = eq + 1;
    if (!o) return unknown_option(cmd, arg);
    uint64_t bit = 1ull << (o - cmd->opts); /* (cli_parse: at most CLI_OPTS_MAX entries) */
    if (o->once && (*seen & bit)) return cli_usage_error(cmd, "%s given twice; %s", o->name, o->once);
    *seen |= bit;
    cli_val val = {.i = 1, .s = o->name};
    if (o->kind == CLI_FLAG && !v) return apply(ctx, o, &val);
    if (!v && *i + 1 >= argc) { /* a choice has no arg: its values are the name ("(null)") */
        char list[512];
        const char *what =
            o->kind == CLI_CHOICE ? choice_list(o->choices, "|", list, sizeof list) : o->arg;
        return cli_usage_error(cmd, "%s needs a value (%s)", o->name, what);
    }
    if (!v) v = argv[++*i];
    int rc = parse_value(cmd, o, v, &val);
    return rc ? rc : apply(ctx, o, &val);
}

int cli_parse(const cli_cmd *cmd, int argc, char **argv, int first, cli_apply_fn apply, void *ctx,
              const char **pos, int *npos)
{
    assert(cmd && argv && npos && first >= 1);
    assert(cmd->pos_min <= cmd->pos_max && (cmd->pos_max == 0 || pos));
    assert(cmd->nopts == 0 || apply); /* a table needs someone to apply it */
    assert(cmd->nopts <= CLI_OPTS_MAX); /* a bit each in parse_one's seen */
    uint64_t seen = 0;
    bool options = true;
    *npos = 0;
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        if (options && (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)) {
            cli_help(cmd);
            return CLI_HELP_SHOWN;
        }
        if (options && strcmp(arg, "--") == 0) {
            options = false;
        } else if (options && arg[0] == '-' && arg[1]) {
            int rc = parse_one(cmd, argc, argv, &i, apply, ctx, &seen);
            if (rc) return rc;
        } else if (*npos >= cmd->pos_max) {
            return cli_usage_error(cmd, "unexpected argument '%s'", arg);
        } else {
            pos[(*npos)++] = arg;
        }
    }
    if (*npos < cmd->pos_min) return cli_usage_error(cmd, "missing %s", cmd->usage);
    return 0;
}

/* ------------------------------------------------------------------------ help */

enum { HELP_NAME_COLS = 28, HELP_LINE_COLS = 100 }; /* the option column's width, a line's */

/* "  --format table|csv|jsonl|count" and the rest of one option's help line. */
static void help_option(cli_sink *out, const cli_opt *o)
{
    char head[160], list[512];
    const char *arg =
        o->kind == CLI_CHOICE ? choice_list(o->choices, "|", list, sizeof list) : o->arg;
    snprintf(head, sizeof head, "%s%s%s%s%s", o->alias ? o->alias : "", o->alias ? ", " : "",
             o->name, arg ? " " : "", arg ? arg : "");
    if (strlen(head) > HELP_NAME_COLS)
        sink_printf(out, "  %s\n  %-*s ", head, HELP_NAME_COLS, "");
    else
        sink_printf(out, "  %-*s ", HELP_NAME_COLS, head);
    sink_puts(out, o->help);
    if (o->dflt && HELP_NAME_COLS + 3 + strlen(o->help) + strlen(o->dflt) + 12 > HELP_LINE_COLS)
        sink_printf(out, "\n  %-*s (default: %s)", HELP_NAME_COLS, "",
                    o->dflt); /* too long for one line */
    else if (o->dflt)
        sink_printf(out, " (default: %s)", o->dflt);
    sink_putc(out, '\n');
}

void cli_help(const cli_cmd *cmd)
{
    cli_sink *out = cli_out();
    sink_printf(out, "usage: ringscan %s%s%s\n\n%s\n", cmd->name, cmd->usage[0] ? " " : "",
                cmd->usage, cmd->purpose);
    if (cmd->nopts) sink_puts(out, "\noptions:\n");
    for (int i = 0; i < cmd->nopts; i++)
        help_option(out, &cmd->opts[i]);
    sink_printf(out, "  %-*s %s\n", HELP_NAME_COLS, "-h, --help", "print this help and exit");
    if (cmd->examples && cmd->examples[0]) sink_puts(out, "\nexamples:\n");
    for (int i = 0; cmd->examples && cmd->examples[i]; i++)
        sink_printf(out, "  %s\n", cmd->examples[i]);
}
