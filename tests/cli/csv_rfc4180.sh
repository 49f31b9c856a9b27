#!/usr/bin/env bash
# tests/cli/csv_rfc4180.sh: `ringscan scan --format csv` of every conformance file (the "read"
# rows of tests/conformance/expected/MANIFEST.tsv, over ../shared/parquet-testing/data) and of
# files of strings CSV must quote is read back by pyarrow.csv and DuckDB read_csv and compared
# value by value with pyarrow.parquet's reading (tests/cli/csv_rfc4180.py). Needs
# scripts/pyenv.sh (pyarrow + duckdb), as writer_readback.sh; when that fails (e.g. PyPI
# unreachable) the test is skipped with the reason.
# Run by tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
# Last line: "csv_rfc4180: N passed, N failed".
set -u
R=${RINGSCAN:-zig-out/bin/ringscan}
err=$(mktemp)
if ! py=$(scripts/pyenv.sh 2>"$err" | tail -n1) || [ ! -x "$py" ]; then
    echo "csv_rfc4180: skipped: scripts/pyenv.sh failed: $(tail -n 3 "$err" | tr '\n' ' ')"
    echo "csv_rfc4180: 0 passed, 0 failed (skipped: no pyarrow/duckdb)"
    rm -f "$err"
    exit 0
fi
rm -f "$err"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$("$py" tests/cli/csv_rfc4180.py "$R" ../shared/parquet-testing/data \
    tests/conformance/expected/MANIFEST.tsv "$dir" 2>&1)
rc=$?
echo "$out" | grep -v '^PASS'
line=$(echo "$out" | grep -E '^csv_rfc4180: [0-9]+ passed, [0-9]+ failed' | tail -n1)
if [ -z "$line" ]; then
    echo "$out" | tail -n 20
    echo "csv_rfc4180: 0 passed, 1 failed (no summary, exit $rc)"
    exit 1
fi
[ "$rc" -eq 0 ]
