#!/usr/bin/env bash
# Runs every test program in BIN_DIR (default zig-out/tests) and every tests/cli/*.sh script
# (which get RINGSCAN=path-to-binary), each under a time limit, from the project root.
# Each prints lines "<name>: N passed, N failed[, N skipped]"; this adds them up, echoes each
# one with its wall seconds ("[12 s]": where the suite's time goes) and ends with one line
# "N passed, N failed, N skipped". A program that crashes, times out or prints
# no summary counts as one failure. Exit status 0 only when nothing failed.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin_dir=${1:-zig-out/tests}
export RINGSCAN=${RINGSCAN:-$root/zig-out/bin/ringscan}
limit=${TEST_TIMEOUT:-600}
passed=0; failed=0; skipped=0
run_one() { # name, command...
    local name=$1; shift
    local out; out=$(mktemp)
    local t0=$SECONDS
    timeout "$limit" "$@" >"$out" 2>&1
    local rc=$?
    local secs=$((SECONDS - t0))
    local line; line=$(grep -E '^[A-Za-z0-9_./-]+: [0-9]+ passed, [0-9]+ failed' "$out" | tail -n1)
    if [ -z "$line" ]; then
        echo "$name: no summary (exit $rc) [${secs} s]"; tail -n 30 "$out"; failed=$((failed + 1))
    else
        local p f; p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/'); f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
        local k; k=$(echo "$line" | sed -nE 's/.* ([0-9]+) skipped.*/\1/p')
        passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + ${k:-0}))
        if [ "$f" -ne 0 ] || [ "$rc" -ne 0 ]; then
            grep -E 'FAIL|ERROR|Sanitizer|runtime error' "$out" | head -n 40
            [ "$f" -eq 0 ] && { echo "$name: exit $rc"; failed=$((failed + 1)); }
        fi
        echo "$line [${secs} s]"
    fi
    rm -f "$out"
}
for t in "$bin_dir"/test_*; do
    [ -x "$t" ] || continue
    run_one "$(basename "$t")" "$t"
done
for s in tests/cli/*.sh; do
    [ -f "$s" ] || continue
    run_one "$(basename "$s")" bash "$s"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
