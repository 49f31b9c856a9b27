/* cli/progress.h: the progress line on stderr for `scan` and `gen` (issue 25).
 *
 * A line such as
 *     scanned 1834522 rows, 12.4 MiB read, 3 of 5 splits, 8.3 MiB/s, 1227411 rows/s
 * (rows of the splits started, bytes read so far, splits finished; ringscan_scan_stats)
 * redrawn in place with "\r" and cleared at the end, so nothing of it stays on the screen or
 * reaches a file.
 *
 * Invariants:
 *  1. Drawn only when stderr is a terminal (isatty) and the caller wants it (no --no-progress,
 *     rows not being printed to that terminal): never into a pipe or a file.
 *  2. Nothing before CLI_PROGRESS_AFTER_MS from the start (a quick command prints nothing),
 *     then at most one draw per CLI_PROGRESS_EVERY_MS.
 *  3. The caller ticks from the thread that drives the work (a ringscan_scan is used by one
 *     thread at a time, ringscan.h): no thread and no timer of its own. A line is redrawn
 *     when a batch arrives, so it stands still while the next one is awaited.
 *  4. A line is cut to the terminal's width less one column (ASCII only), so "\r" always
 *     returns to its start; the end clears it with "\r", spaces to that width, "\r".
 */
#ifndef RINGSCAN_CLI_PROGRESS_H
#define RINGSCAN_CLI_PROGRESS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    CLI_PROGRESS_AFTER_MS = 1000, /* quiet before this */
    CLI_PROGRESS_EVERY_MS = 100,  /* at most ten draws a second */
    CLI_PROGRESS_LINE_MAX = 160,  /* bytes of one line, NUL included */
};

typedef struct cli_progress {
    bool on;                   /* invariant 1 */
    int width;                 /* columns drawn at most (invariant 4) */
    int drawn;                 /* columns of the line on the screen; 0: none */
    int64_t start_ns, last_ns; /* CLOCK_MONOTONIC */
} cli_progress;

/* Starts the clock; on only if wanted and stderr is a terminal (invariant 1). */
void cli_progress_start(cli_progress *p, bool wanted);

/* Whether a draw is due now (invariant 2); false when off. */
bool cli_progress_due(const cli_progress *p);

/* Seconds since cli_progress_start. */
double cli_progress_elapsed_s(const cli_progress *p);

/* Draws line (ASCII) in place of the previous one and notes the time; no-op when off. */
void cli_progress_draw(cli_progress *p, const char *line);

/* Clears the line if one is drawn; the progress is off from here on. */
void cli_progress_end(cli_progress *p);

/* The scan's line from a ringscan_stats snapshot's counters, secs after the start. */
void cli_progress_scan_line(char *buf, size_t cap, int64_t rows, int64_t bytes, int64_t splits_done,
                            int64_t splits, double secs);

/* gen's line: rows of total written, bytes in the file so far, secs after the start:
 *     wrote 1081150 of 1799092 rows (60%), 32.3 MiB in the file, 767455 rows/s */
void cli_progress_gen_line(char *buf, size_t cap, int64_t rows, int64_t total, int64_t bytes,
                           double secs);

#endif
