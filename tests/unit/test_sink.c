/* tests for cli/sink.c (the CLI's buffered output; not part of the library, so compiled in
 * here): bytes arrive whole and in order across the buffer's edge, a write error is sticky
 * and keeps its errno, a closed pipe is EPIPE (SIGPIPE ignored, as main() does), and the
 * exit status maps ENOSPC to 1 and EPIPE to the quiet 141. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "check.h"
#include "cli/sink.c"

static cli_sink s;

/* Writes through a sink into a file and reads the file back: every byte, in order. */
static void bytes_in_order(void)
{
    char path[] = "/tmp/test_sink_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    unlink(path);
    int rfd = dup(fd);
    sink_init(&s, fd, "test file");
    static char big[3 * SINK_BUF_BYTES];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (char)('a' + i % 26);
    int64_t expect = 0;
    for (int i = 0; i < 5000; i++) expect += sink_putc(&s, 'x') == 0; /* fills past one buffer */
    for (int i = 0; i < 5000; i++) CHECK(sink_printf(&s, "%05d\n", i) == 0);
    char wide[2000];
    memset(wide, 'w', sizeof wide);
    CHECK(sink_printf(&s, "%.*s", (int)sizeof wide, wide) == 0); /* past printf's small buffer */
    CHECK(sink_write(&s, big, sizeof big) == 0);                 /* larger than the buffer */
    CHECK(sink_write(&s, NULL, 0) == 0);
    CHECK(sink_puts(&s, "end\n") == 0);
    CHECK(sink_close(&s) == 0);
    CHECK_EQ_I64(expect, 5000);
    int64_t total = 5000 + 5000 * 6 + (int64_t)sizeof wide + (int64_t)sizeof big + 4;
    CHECK_EQ_I64(lseek(rfd, 0, SEEK_END), total);
    static char back[5000 + 30000 + 2000 + sizeof big + 4];
    CHECK_EQ_I64(pread(rfd, back, sizeof back, 0), total);
    CHECK(back[4999] == 'x' && memcmp(back + 5000, "00000\n", 6) == 0);
    CHECK(memcmp(back + 5000 + 4999 * 6, "04999\n", 6) == 0);
    CHECK(back[35000] == 'w' && back[36999] == 'w');
    CHECK(memcmp(back + 37000, big, sizeof big) == 0);
    CHECK(memcmp(back + total - 4, "end\n", 4) == 0);
    close(rfd);
}

/* /dev/full: ENOSPC on the first flush, then every call returns it and nothing is written. */
static void error_sticky(void)
{
    int fd = open("/dev/full", O_WRONLY);
    CHECK(fd >= 0);
    if (fd < 0) return;
    sink_init(&s, fd, "standard output");
    CHECK(sink_puts(&s, "row\n") == 0); /* buffered: no error yet */
    CHECK_EQ_I64(sink_flush(&s), -ENOSPC);
    CHECK_EQ_I64(sink_putc(&s, 'x'), -ENOSPC);
    CHECK_EQ_I64(sink_printf(&s, "%d", 1), -ENOSPC);
    CHECK_EQ_I64(s.len, 0);
    CHECK_EQ_I64(sink_close(&s), -ENOSPC);
    CHECK_EQ_I64(sink_exit_status(&s, 0), 1); /* prints the message naming the output */
    CHECK_EQ_I64(sink_exit_status(&s, 2), 2);
}

/* A pipe whose reader is gone: EPIPE, exit status 141 and no message. */
static void closed_pipe(void)
{
    int p[2];
    CHECK(pipe(p) == 0);
    close(p[0]);
    sink_init(&s, p[1], "standard output");
    CHECK(sink_puts(&s, "row\n") == 0);
    CHECK_EQ_I64(sink_close(&s), -EPIPE);
    CHECK_EQ_I64(sink_exit_status(&s, 1), SINK_EXIT_PIPE);
    sink_init(&s, STDERR_FILENO, "x");
    CHECK_EQ_I64(sink_exit_status(&s, 0), 0); /* no error: the command's status */
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    RUN(bytes_in_order);
    RUN(error_sticky);
    RUN(closed_pipe);
    return CHECK_DONE("test_sink");
}
