#!/usr/bin/env bash
# tests/cli/multi_short.sh: a conjunct over several columns that a selective conjunct runs
# before evaluates the few rows it reaches on their own (scan/task_multi.c: columns decoded
# straight into those rows, a decoded one cut to them, the result bits put back) and gives
# DuckDB's rows (multi_short.py). Needs scripts/pyenv.sh (pyarrow, duckdb).
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_py multi_short
"$py" tests/cli/multi_short.py "$R" "$dir"
