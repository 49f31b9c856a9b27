#!/usr/bin/env bash
# The README's test command: set up the machine, build, run every test in the normal build,
# then the AddressSanitizer+UBSan build and a short fuzz smoke run. Ends with the line
# "N passed, N failed, N skipped" summed over all of them. A case that cannot run here (no
# io_uring in a container) is skipped and counted; RINGSCAN_REQUIRE_URING=1 (set by .ci/run,
# whose machines have io_uring) makes such a case fail instead.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
zig=$(./scripts/setup.sh) || { echo "setup failed"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
total_p=0; total_f=0; total_s=0
tally() { # reads a run's output on stdin, echoes it, adds its closing line to the totals
    local out; out=$(mktemp); tee "$out"
    local line; line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n1)
    rm -f "$out"
    [ -z "$line" ] && { total_f=$((total_f + 1)); return; }
    total_p=$((total_p + $(echo "$line" | cut -d' ' -f1))); total_f=$((total_f + $(echo "$line" | cut -d' ' -f3)))
    local k; k=$(echo "$line" | sed -nE 's/.* ([0-9]+) skipped.*/\1/p'); total_s=$((total_s + ${k:-0}))
}
echo "== build (zig, ReleaseSafe) ($(date -u +%H:%M:%S))"
if "$zig" build tests -Doptimize=ReleaseSafe --summary none; then
    echo "== tests ($(date -u +%H:%M:%S))"
    tally < <(tests/run.sh zig-out/tests)
else
    echo "build failed"; total_f=$((total_f + 1))
fi
if [ "${RINGSCAN_SKIP_SANITIZE:-0}" != 1 ]; then
    echo "== tests under AddressSanitizer + UndefinedBehaviorSanitizer (clang) ($(date -u +%H:%M:%S))"
    tally < <(scripts/sanitize.sh address)
fi
if [ "${RINGSCAN_SKIP_FUZZ:-0}" != 1 ] && [ -x scripts/fuzz.sh ]; then
    echo "== fuzz smoke ($(date -u +%H:%M:%S))"
    tally < <(scripts/fuzz.sh --smoke)
fi
echo "== done ($(date -u +%H:%M:%S))"
echo "$total_p passed, $total_f failed, $total_s skipped"
[ "$total_f" -eq 0 ]
