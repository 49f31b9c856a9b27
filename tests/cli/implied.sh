#!/usr/bin/env bash
# tests/cli/implied.sh: the one-column conjuncts a comparison of value expressions implies
# (filter/vexpr_imply.c) keep DuckDB's rows at the bounds' edges and show in --explain
# (implied.py). Needs scripts/pyenv.sh (pyarrow + duckdb), as filter_duckdb.sh does.
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_py implied
"$py" tests/cli/implied.py "$R" "$dir"
