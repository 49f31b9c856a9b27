#!/usr/bin/env bash
# tests/cli/interval_text.sh: Parquet INTERVAL values printed in jsonl, csv and the table as
# DuckDB prints an INTERVAL ("1 month 2 days 00:00:00.003"), flat and nested, from files
# DuckDB writes; the Arrow export stays fixed_size_binary(12) (tests/cli/interval_text.py).
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_py interval_text
lib=$(dirname "$R")/../lib/libringscan.so
[ "${RINGSCAN_SANITIZED:-0}" = 1 ] || [ ! -f "$lib" ] || export RINGSCAN_LIB=$lib
"$py" tests/cli/interval_text.py "$R" "$dir"
