#!/usr/bin/env bash
# tests/cli/dataset_cast.sh: a dataset's later files read in the first file's types as DuckDB
# 2.x's read_parquet([...]) reads them (issue 23 section 4): strings under a first file's
# boolean, number, date, time or timestamp parsed as DuckDB's cast parses them (or refused as
# it refuses them, naming both files and the column), filtered, ordered and counted; integers,
# decimals and UINT64 beside a FLOAT or DOUBLE (DuckDB's FLOAT with and without union_by_name)
# (tests/cli/dataset_cast.py). Needs scripts/pyenv.sh (pyarrow + duckdb).
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_py dataset_cast
"$py" tests/cli/dataset_cast.py "$R" "$dir"
