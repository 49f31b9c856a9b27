/* cli/dataset_opts.c: what `ringscan scan` and `ringscan meta` share about datasets: whether
 * the paths name one, and the options that shape it (--hive-partitioning, --hive-types,
 * --union-by-name; their table entries are CLI_DATASET_OPTS in cli.h). */
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

/* in the order of ringscan_options.hive_partitioning 0, 1, -1 */
const char *const cli_hive_choices[] = {"auto", "true", "false", NULL};

/* Whether local pattern p lists as the one file named p itself (as DuckDB lists it: the
 * pattern's matches, else the file so named): "x*.parquet" alone beside no other match. */
static bool lists_itself(const char *p)
{
    ringscan_dataset *d = NULL;
    ringscan_error err;
    if (ringscan_dataset_open(&p, 1, NULL, &d, &err) != 0) return false; /* (said again) */
    bool self = ringscan_dataset_files(d) == 1 && strcmp(ringscan_dataset_file(d, 0), p) == 0;
    ringscan_dataset_close(d);
    return self;
}

bool cli_is_dataset(const char *const *paths, int npaths, bool dataset_opt)
{
    struct stat st;
    const char *p = paths[0];
    size_t n = strlen(p);
    if (npaths > 1 || dataset_opt) return true;
    bool local = !strstr(p, "://");
    bool file = local && stat(p, &st) == 0 && S_ISREG(st.st_mode);
    if (file && ringscan_path_is_pattern(p)) return !lists_itself(p);
    if (file) return false;
    if (ringscan_path_is_pattern(p)) return true;
    if (strncmp(p, "s3://", 5) == 0 && n && p[n - 1] == '/') return true; /* a prefix */
    return local && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

void cli_dataset_opt(ringscan_options *o, enum cli_dataset_opt which, const cli_val *v)
{
    switch (which) {
    case CLI_DS_HIVE: o->hive_partitioning = v->i == 2 ? -1 : (int)v->i; break;
    case CLI_DS_HIVE_TYPES: o->hive_types = v->s; break;
    case CLI_DS_UNION: o->union_by_name = true; break;
    }
}
