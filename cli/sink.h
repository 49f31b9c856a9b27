/* cli/sink.h: the one buffered output sink every `ringscan` command writes its results
 * through (rules and invariants in sink.c's header comment).
 *
 * Every function that writes returns 0 or the sink's first write error as a negative errno;
 * after an error the sink drops everything (the error is sticky), so a caller may write a
 * whole row and check once. */
#ifndef RINGSCAN_CLI_SINK_H
#define RINGSCAN_CLI_SINK_H
#include <stdbool.h>
#include <stddef.h>

enum {
    SINK_BUF_BYTES = 64 * 1024, /* flushed when full; a larger write goes straight to the fd */
    SINK_EXIT_PIPE = 141,       /* 128 + SIGPIPE: what a shell reports for a closed pipe */
};

typedef struct cli_sink {
    int fd;
    const char *name; /* for the message: "standard output" */
    int err;          /* 0 or the first error, negative errno; sticky */
    bool closed;      /* sink_close ran */
    size_t len;       /* bytes in buf, < SINK_BUF_BYTES between calls */
    char buf[SINK_BUF_BYTES];
} cli_sink;

/* Sets s up to write to fd (not owned until sink_close); name is borrowed. fd -1: a memory
 * sink, its text in buf, never written out: filling it (SINK_BUF_BYTES - 1 bytes) is the
 * sticky error -EFBIG, what fitted kept. */
void sink_init(cli_sink *s, int fd, const char *name);
/* The process's standard output sink (fd 1), set up on first use. */
cli_sink *cli_out(void);

/* Appends n bytes of p. 0 or the sticky error. */
int sink_write(cli_sink *s, const void *p, size_t n);
/* Appends the NUL-terminated str. */
int sink_puts(cli_sink *s, const char *str);
/* Appends printf-formatted text (any length). */
int sink_printf(cli_sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Writes out the buffer (write(2) loop: EINTR retried, short writes continued). */
int sink_flush(cli_sink *s);
/* Flushes and closes the fd (its error counts: NFS reports a failed write only there). */
int sink_close(cli_sink *s);

/* Appends one byte; inline because print.c writes text a byte at a time. */
static inline int sink_putc(cli_sink *s, char c)
{
    if (s->len + 1 >= SINK_BUF_BYTES) return sink_write(s, &c, 1);
    if (s->err) return s->err;
    s->buf[s->len++] = c;
    return 0;
}

/* The exit status of a command that returned status with s as its output: s's error wins.
 * A closed pipe (EPIPE) ends quietly with SINK_EXIT_PIPE; any other error prints
 * "ringscan: error writing <name>: <strerror>" on stderr and gives 1 (or status, when the
 * command already failed). No error: status. */
int sink_exit_status(const cli_sink *s, int status);

#endif
