#!/usr/bin/env bash
# tests/cli/bench_strace.sh: the bench's read counts are checkable from outside. With
# --io pread every read is one pread64 call, or one preadv call for a merged range whose holes
# land in io/'s scratch buffer, so `strace -f -c -e trace=pread64,preadv` must count
# exactly the bench's own total (JSON "reads_total": every scan's footer, planning and data
# reads, plus the data-file checks and the floor's loading reads), after subtracting the
# calls the dynamic loader makes at startup (measured on `ringscan version`, which
# does nothing else). Data and expected answers are made first in a separate, untraced
# invocation. Run by tests/run.sh with $RINGSCAN set and cwd = the project root; skipped
# (0 passed, 0 failed) when strace is absent or cannot trace here.
# Last line: "bench_strace: N passed, N failed".
set -u
R=${RINGSCAN:-zig-out/bin/ringscan}
if ! command -v strace >/dev/null 2>&1; then
    echo "bench_strace: skipped: strace not installed (apt-get install strace)"
    echo "bench_strace: 0 passed, 0 failed"; exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
passed=0; failed=0
count() { # strace -c output file -> pread64 + preadv calls (0 when absent)
    awk '$NF == "pread64" || $NF == "preadv" { n += $4 } END { print n + 0 }' "$1"
}
if ! strace -f -c -o "$dir/base.txt" -e trace=pread64,preadv "$R" version >/dev/null 2>"$dir/base.err"; then
    echo "bench_strace: skipped: strace cannot trace here: $(head -n 2 "$dir/base.err")"
    echo "bench_strace: 0 passed, 0 failed"; exit 0
fi
base=$(count "$dir/base.txt")
"$R" bench --data "$dir" --sf 0.01 --rounds 1 --shapes lineitem_and,lineitem_cancel \
    --policies lazy --no-floor --no-aa >/dev/null 2>"$dir/gen.err" ||
    { echo "FAIL: data generation: $(tail -n 3 "$dir/gen.err")"; failed=$((failed + 1)); }

run() { # name, bench args...: strace count minus loader == the bench's reads_total
    local name=$1; shift
    strace -f -c -o "$dir/$name.strace" -e trace=pread64,preadv "$R" bench --data "$dir" --sf 0.01 \
        --io pread --json "$dir/$name.json" "$@" >"$dir/$name.out" 2>"$dir/$name.err"
    local rc=$?
    local seen; seen=$(count "$dir/$name.strace")
    local own; own=$(grep -oE '"reads_total":[0-9]+' "$dir/$name.json" 2>/dev/null | cut -d: -f2)
    local scans; scans=$(grep -oE '"scan_reads_total":[0-9]+' "$dir/$name.json" 2>/dev/null | cut -d: -f2)
    if [ $rc -eq 0 ] && [ -n "$own" ] && [ $((seen - base)) -eq "$own" ] && [ "${scans:-0}" -gt 0 ]; then
        passed=$((passed + 1))
        echo "ok $name: strace pread64+preadv $seen - loader $base = $((seen - base)) = bench reads_total $own (scans $scans)"
    else
        failed=$((failed + 1))
        echo "FAIL $name: exit $rc, strace pread64+preadv $seen - loader $base != bench reads_total '${own:-}' $(tail -n 3 "$dir/$name.err")"
    fi
}
run one --rounds 1 --shapes lineitem_and --policies adaptive --no-floor --no-aa
run all --rounds 1
run floor2 --rounds 2 --shapes lineitem_wide,lineitem_cancel --policies eager,adaptive --threads 2
echo "bench_strace: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
