#!/usr/bin/env bash
# The full out-of-memory sweep (tests/unit/test_oom.c): every failure point of every scan
# case, once with only the nth point failing and once with every point from the nth on.
# Usage: scripts/oom.sh [test_oom binary]   (default zig-out/tests/test_oom; give
# build-address/tests/test_oom after scripts/sanitize.sh address to sweep under ASan+LSan).
# RINGSCAN_OOM_FROM=n starts each case's sweep at point n (to rerun a failure).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin=${1:-zig-out/tests/test_oom}
[ -x "$bin" ] || { echo "no $bin: build first"; exit 2; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
rc=0
RINGSCAN_OOM_FULL=1 "$bin" || rc=1
RINGSCAN_OOM_FULL=1 RINGSCAN_OOM_PERSIST=1 "$bin" || rc=1
exit $rc
