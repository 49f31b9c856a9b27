#!/usr/bin/env bash
# tests/cli/skip_uring.sh: a machine without io_uring skips the io_uring cases and says so in
# the closing line; with RINGSCAN_REQUIRE_URING=1 (what .ci/run sets) the same cases fail, so
# a ring setup regression cannot pass as a skip. io_uring is taken away by a preloaded
# io_uring_queue_init_params that returns -EPERM, as Docker's default seccomp profile does.
# Last line: "skip_uring: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
t=zig-out/tests/test_io
if [ ! -x "$t" ]; then bad "$t missing (run zig build first)"; summary skip_uring; exit; fi
cat >"$dir/nouring.c" <<'C'
#include <errno.h>
struct io_uring;
struct io_uring_params;
int io_uring_queue_init_params(unsigned n, struct io_uring *r, struct io_uring_params *p)
{
    (void)n, (void)r, (void)p;
    return -EPERM;
}
C
if ! gcc -shared -fPIC "$dir/nouring.c" -o "$dir/nouring.so" 2>"$dir/cc.err"; then
    bad "shim: $(head -c 300 "$dir/cc.err")"; summary skip_uring; exit
fi
RINGSCAN_REQUIRE_URING=0 "$t" >"$dir/real" 2>&1
check 'grep -qE "test_io: [0-9]+ passed, 0 failed, 0 skipped" "$dir/real"' "test_io with io_uring: $(tail -n1 "$dir/real")"
RINGSCAN_REQUIRE_URING=0 LD_PRELOAD="$dir/nouring.so" "$t" >"$dir/skip" 2>&1; rc=$?
check '[ $rc -eq 0 ] && grep -qE "test_io: [0-9]+ passed, 0 failed, [1-9][0-9]* skipped" "$dir/skip"' \
    "without io_uring: exit $rc, $(tail -n1 "$dir/skip")"
check 'grep -q "SKIP .*Operation not permitted" "$dir/skip"' "without io_uring: no SKIP line saying why"
RINGSCAN_REQUIRE_URING=1 LD_PRELOAD="$dir/nouring.so" "$t" >"$dir/req" 2>&1; rc=$?
check '[ $rc -ne 0 ] && grep -qE "test_io: [0-9]+ passed, [1-9][0-9]* failed, 0 skipped" "$dir/req"' \
    "RINGSCAN_REQUIRE_URING=1 without io_uring: exit $rc, $(tail -n1 "$dir/req")"
summary skip_uring
