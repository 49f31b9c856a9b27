#!/usr/bin/env bash
# tests/cli/nested_overlap.sh: a nested field and a path inside it that start at one leaf
# (`--columns s,s.a`) read together, values equal DuckDB's `SELECT s, s.a` (one file at 1 and 2
# threads, a dataset) (tests/cli/nested_overlap.py). Last line: "nested_overlap: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_py nested_overlap
"$py" tests/cli/nested_overlap.py "$R" "$dir"
