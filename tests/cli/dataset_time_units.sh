#!/usr/bin/env bash
# tests/cli/dataset_time_units.sh: a dataset whose files store a timestamp or a time of day in
# different units or zones (issue 23, section 4). With union_by_name the dataset takes the
# finer unit, UTC-adjusted when any file is (DuckDB's union_by_name: values compared with
# read_parquet(..., union_by_name = true), under a filter and ORDER BY .. LIMIT too); without
# it the first file's unit and zone, later files cast exactly or refused naming both files,
# the column and the value, as pyarrow.dataset casts them; an overflowing unit change refused
# (tests/cli/dataset_time_units.py). Decimals of other precisions and scales: a union by name
# holds both (DuckDB's DECIMAL with the larger scale and integer digits), values exact. INT96
# timestamps beside INT64 ones: nanoseconds in a union, cast to a first INT64 file's unit, and
# a first INT96 file's nanoseconds take a later INT64 file's values cast; INT96 ranges and
# ORDER BY across INT96 files as DuckDB's.
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_py dataset_time_units
"$py" tests/cli/dataset_time_units.py "$R" "$dir"
