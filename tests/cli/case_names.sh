#!/usr/bin/env bash
# tests/cli/case_names.sh: names differing in case alone read as DuckDB 2.0.1 reads them: a
# file with `a` and `A` gives `a`, `A_1` (struct fields too), --columns/--where find a name
# exactly, else in any case when one matches, datasets pair the renamed names, nested paths
# in any case (tests/cli/case_names.py). Last line: "case_names: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_py case_names
"$py" tests/cli/case_names.py "$R" "$dir"
