/* cli/dictcols.c: `scan --dictionary-columns a,b` into options.dictionary_columns (names split
 * at commas, spaces around them dropped; at most CLI_DICT_COLUMNS_MAX). The library checks the
 * names (each a projected string or binary column). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

enum { CLI_DICT_COLUMNS_MAX = 4096 }; /* as --columns (cmd_scan.c CLI_COLUMNS_MAX) */

int cli_dictionary_columns(const char *list, ringscan_options *o, char **copy)
{
    static const char *names[CLI_DICT_COLUMNS_MAX];
    int n = 0;
    if (!list) return 0;
    if (!(*copy = strdup(list))) return -ENOMEM;
    for (char *t = *copy, *next; t; t = next) {
        next = strchr(t, ',');
        if (next) *next++ = 0;
        while (*t == ' ') t++;
        for (size_t k = strlen(t); k > 0 && t[k - 1] == ' '; k--) t[k - 1] = 0;
        if (n == CLI_DICT_COLUMNS_MAX) return -E2BIG;
        names[n++] = t;
    }
    o->dictionary_columns = names;
    o->ndictionary_columns = n;
    return 0;
}
