#!/usr/bin/env bash
# tests/cli/dataset_union.sh: schemas that differ between a dataset's files (issue 23 section
# 4) against DuckDB 2.x's read_parquet([...], union_by_name = true / false), rows and values
# (dataset_union.py): floats, dates, times and timestamps (every unit, with and without a
# zone, INT96) beside a string column read as DuckDB's VARCHAR, printed as its cast prints
# them; filters on such a column; decimals whose union needs more than 38 digits and later
# files with wider decimals; nested widenings; what DuckDB reads and ringscan refuses names
# both files and the column. Needs scripts/pyenv.sh (pyarrow + duckdb).
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_py dataset_union
"$py" tests/cli/dataset_union.py "$R" "$dir" "$@"
