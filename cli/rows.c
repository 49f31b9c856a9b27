/* cli/rows.c: `ringscan scan --format count` (or its old name `rows`): the number of rows that
 * pass the filter, through ringscan_count or, for a dataset, ringscan_dataset_count (answered
 * from the footers where statistics settle a row group; the rest is scanned). Unlike
 * --format checksum it prints no checksum: a checksum needs the values, which the footer does
 * not hold. Prints "rows N" on cli_out(); with --stats, the counters of the
 * scan of the unsettled groups (all zero when none was needed) and a line
 * "count: row_groups N, settled N, pruned N, scanned N" on stderr (--stats=json: the
 * counters object with those four fields added at its end). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/sink.h"

int cli_count_rows(ringscan_file *f, ringscan_dataset *ds, const ringscan_options *o, int stats,
                   ringscan_error *err)
{
    ringscan_count_info c;
    int rc = ds ? ringscan_dataset_count(ds, o, &c, err) : ringscan_count(f, o, &c, err);
    if (rc) return rc;
    sink_printf(cli_out(), "rows %lld\n", (long long)c.rows);
    if (stats == 0) return 0;
    if (sink_flush(cli_out()) != 0) return 0; /* the caller reports the output's error */
    if (stats == 2) {
        char line[2048];
        FILE *m = fmemopen(line, sizeof line, "w");
        if (!m) return 0;
        cli_print_stats(m, &c.scan, true);
        fclose(m);
        char *end = strrchr(line, '}');
        if (end) *end = '\0';
        fprintf(stderr, "%s,\"count_row_groups\":%d,\"count_settled\":%d,\"count_pruned\":%d,"
                "\"count_scanned\":%d}\n", line, c.row_groups, c.row_groups_settled,
                c.row_groups_pruned, c.row_groups_scanned);
        return 0;
    }
    cli_print_stats(stderr, &c.scan, false);
    fprintf(stderr, "count: row_groups %d, settled %d, pruned %d, scanned %d\n", c.row_groups,
            c.row_groups_settled, c.row_groups_pruned, c.row_groups_scanned);
    return 0;
}
