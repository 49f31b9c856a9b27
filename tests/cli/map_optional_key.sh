#!/usr/bin/env bash
# tests/cli/map_optional_key.sh: a MAP whose key is OPTIONAL (parquet-mr 1.12.2's
# incorrect_map_schema.parquet, and files written by hand with a null key) read as DuckDB
# reads it, alone and in datasets; a null key fails the scan by name
# (tests/cli/map_optional_key.py). Last line: "map_optional_key: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_py map_optional_key
"$py" tests/cli/map_optional_key.py "$R" "$dir"
