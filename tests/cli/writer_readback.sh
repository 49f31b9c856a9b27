#!/usr/bin/env bash
# tests/cli/writer_readback.sh: files written by `ringscan gen` (format/writer*.c) read back by
# other engines. Run by tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
# Writes demo-types files (every supported type, nulls) under several codecs/options and two
# lineitem files, then tests/cli/readback.py compares pyarrow, duckdb and `ringscan scan
# --format jsonl` value by value. Needs scripts/pyenv.sh (pyarrow + duckdb); when that fails
# (e.g. PyPI unreachable) the test is skipped with the reason.
# Last line: "writer_readback: N passed, N failed".
set -u
R=${RINGSCAN:-zig-out/bin/ringscan}
err=$(mktemp)
if ! py=$(scripts/pyenv.sh 2>"$err" | tail -n1) || [ ! -x "$py" ]; then
    echo "writer_readback: skipped: scripts/pyenv.sh failed: $(tail -n 3 "$err" | tr '\n' ' ')"
    echo "writer_readback: 0 passed, 0 failed (skipped: no pyarrow/duckdb)"
    rm -f "$err"
    exit 0
fi
rm -f "$err"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
passed=0; failed=0; files=()
gen() { # name, args... : one pass/fail for the generation itself
    local name=$1; shift
    if "$R" gen "$@" -o "$dir/$name" >"$dir/$name.log" 2>&1; then
        passed=$((passed + 1)); files+=("$dir/$name${PROBE:+@$PROBE}")
    else
        failed=$((failed + 1)); echo "FAIL gen $name: $(tail -n 3 "$dir/$name.log")"
    fi
}
gen demo_default.parquet demo-types --rows 5000 --seed 7 --row-group-rows 2000 --page-rows 300
gen demo_zstd.parquet demo-types --rows 3000 --seed 8 --compression zstd --no-dictionary --page-index
gen demo_gzip.parquet demo-types --rows 1000 --seed 9 --compression gzip --page-rows 64
gen demo_lz4.parquet demo-types --rows 1000 --seed 10 --compression lz4 --row-group-rows 333
gen demo_none.parquet demo-types --rows 1000 --seed 11 --compression none --page-index
gen li_default.parquet lineitem --sf 0.01 --seed 3
PROBE=l_orderkey,l_comment,l_shipmode gen li_bloom.parquet lineitem --sf 0.01 --compression zstd \
    --page-index --bloom l_orderkey,l_comment,l_shipmode --row-group-rows 20000 --page-rows 5000
out=$("$py" tests/cli/readback.py "$R" "${files[@]}" 2>&1)
echo "$out" | grep -v '^readback:'
line=$(echo "$out" | grep -E '^readback: [0-9]+ passed, [0-9]+ failed' | tail -n1)
if [ -z "$line" ]; then
    echo "$out" | tail -n 20; failed=$((failed + 1))
else
    echo "$line"
    passed=$((passed + $(echo "$line" | sed -E 's/readback: ([0-9]+) passed.*/\1/')))
    failed=$((failed + $(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
fi
echo "writer_readback: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
