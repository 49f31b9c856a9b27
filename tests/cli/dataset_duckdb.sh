#!/usr/bin/env bash
# tests/cli/dataset_duckdb.sh: many files as one dataset (hive partitions, union_by_name,
# partition pruning counted in --stats, limit, ORDER BY across files, errors naming files)
# against DuckDB's read_parquet([...], hive_partitioning = true, union_by_name = true)
# (dataset_duckdb.py). Needs scripts/pyenv.sh (pyarrow + duckdb), as filter_duckdb.sh does.
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_py dataset_duckdb
"$py" tests/cli/dataset_duckdb.py "$R" "$dir" "$@"
