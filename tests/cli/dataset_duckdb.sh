#!/usr/bin/env bash
# tests/cli/dataset_duckdb.sh: many files as one dataset (hive partitions, union_by_name,
# partition pruning counted in --stats, limit, ORDER BY across files, errors naming files)
# against DuckDB's read_parquet([...], hive_partitioning = true, union_by_name = true)
# (dataset_duckdb.py). Needs scripts/pyenv.sh (pyarrow + duckdb), as filter_duckdb.sh does.
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
err=$dir/pyenv.err
if ! py=$(scripts/pyenv.sh 2>"$err" | tail -n1) || [ ! -x "$py" ]; then
    echo "dataset_duckdb: scripts/pyenv.sh failed: $(tail -n 3 "$err" | tr '\n' ' ')"
    echo "dataset_duckdb: 0 passed, 1 failed"; exit 1
fi
"$py" tests/cli/dataset_duckdb.py "$R" "$dir" "$@"
