/* cli/progress.c: the progress line (progress.h). */
#include "cli/progress.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

enum { PROGRESS_WIDTH_DEFAULT = 80 /* a terminal that does not say */ };

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

void cli_progress_start(cli_progress *p, bool wanted)
{
    *p = (cli_progress){.on = wanted && isatty(STDERR_FILENO), .start_ns = now_ns()};
    struct winsize ws;
    int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col
                                                                           : PROGRESS_WIDTH_DEFAULT;
    p->width = cols - 1 < CLI_PROGRESS_LINE_MAX - 1 ? cols - 1 : CLI_PROGRESS_LINE_MAX - 1;
    if (p->width < 1) p->on = false;
}

bool cli_progress_due(const cli_progress *p)
{
    if (!p->on) return false;
    int64_t t = now_ns();
    return t - p->start_ns >= (int64_t)CLI_PROGRESS_AFTER_MS * 1000000 &&
           (p->drawn == 0 || t - p->last_ns >= (int64_t)CLI_PROGRESS_EVERY_MS * 1000000);
}

double cli_progress_elapsed_s(const cli_progress *p)
{
    return (double)(now_ns() - p->start_ns) / 1e9;
}

/* "\r", then n columns: line's first ones, spaces past its end. */
static void put_line(const char *line, int n)
{
    char out[CLI_PROGRESS_LINE_MAX + 1];
    assert(n >= 0 && n < CLI_PROGRESS_LINE_MAX);
    size_t len = strlen(line);
    out[0] = '\r';
    for (int i = 0; i < n; i++) out[1 + i] = (size_t)i < len ? line[i] : ' ';
    fwrite(out, 1, (size_t)n + 1, stderr);
}

void cli_progress_draw(cli_progress *p, const char *line)
{
    if (!p->on) return;
    int len = (int)strnlen(line, (size_t)p->width);
    put_line(line, len > p->drawn ? len : p->drawn); /* spaces over a longer line's tail */
    if (len < p->drawn) put_line(line, len);         /* the cursor back after the text */
    fflush(stderr);
    p->drawn = len > 0 ? len : 1;
    p->last_ns = now_ns();
}

void cli_progress_end(cli_progress *p)
{
    if (p->on && p->drawn > 0) {
        put_line("", p->drawn);
        fputc('\r', stderr);
        fflush(stderr);
    }
    p->on = false;
    p->drawn = 0;
}

const char *cli_human_bytes(int64_t n, char buf[32])
{
    static const char *units[] = {"KiB", "MiB", "GiB", "TiB"};
    if (n < 1024) {
        snprintf(buf, 32, "%" PRId64 " B", n);
        return buf;
    }
    double v = (double)n / 1024;
    int u = 0;
    while (v >= 1024 && u < 3) v /= 1024, u++;
    snprintf(buf, 32, "%.1f %s", v, units[u]);
    return buf;
}

void cli_progress_scan_line(char *buf, size_t cap, int64_t rows, int64_t bytes, int64_t splits_done,
                            int64_t splits, double secs)
{
    char b[32], r[32];
    double s = secs > 1e-3 ? secs : 1e-3;
    snprintf(buf, cap, "scanned %" PRId64 " rows, %s read, %" PRId64 " of %" PRId64 " split%s, %s/s, "
             "%.0f rows/s", rows, cli_human_bytes(bytes, b), splits_done, splits,
             splits == 1 ? "" : "s", cli_human_bytes((int64_t)((double)bytes / s), r),
             (double)rows / s);
}

void cli_progress_gen_line(char *buf, size_t cap, int64_t rows, int64_t total, int64_t bytes,
                           double secs)
{
    char b[32];
    double s = secs > 1e-3 ? secs : 1e-3;
    /* the writer holds a row group until it is whole: bytes in the file jump, so the rate is
     * in rows */
    snprintf(buf, cap, "wrote %" PRId64 " of %" PRId64 " rows (%d%%), %s in the file, %.0f rows/s",
             rows, total, total > 0 ? (int)(rows * 100 / total) : 0, cli_human_bytes(bytes, b),
             (double)rows / s);
}
