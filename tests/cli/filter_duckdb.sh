#!/usr/bin/env bash
# tests/cli/filter_duckdb.sh: random filters (AND / OR / NOT trees over one column per clause,
# comparisons, BETWEEN, IN, IS [NOT] DISTINCT FROM, LIKE / ILIKE, starts_with) give DuckDB's
# count and sum(i) on a pyarrow file, under every policy and 1 or 2 threads, and the filters
# ringscan does not take are refused by name (filter_duckdb.py). Extra arguments go to the
# script: --seed S, --count N, --case K, --only-supported-today, --verbose.
# Needs scripts/pyenv.sh (pyarrow + duckdb), as peer_files.sh does.
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_py filter_duckdb
"$py" tests/cli/filter_duckdb.py "$R" "$dir" "$@"
