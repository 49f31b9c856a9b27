#!/usr/bin/env bash
# tests/cli/dataset_onescan.sh: a dataset's files run as one scan on one runtime (scan/
# scan_rt.h): many small files and a skewed dataset (one big file, then small ones) against
# DuckDB's read_parquet, --stats showing one runtime and both cores at work across files, a
# limit and an early close mid-dataset, an error naming the file (dataset_onescan.py). Needs
# scripts/pyenv.sh (pyarrow + duckdb), as dataset_duckdb.sh does.
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_py dataset_onescan
"$py" tests/cli/dataset_onescan.py "$R" "$dir" "$@"
