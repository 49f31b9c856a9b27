#!/usr/bin/env bash
# tests/cli/dataset_nested.sh: nested fields (lists, structs, maps, lists of lists, structs
# holding lists, large lists) in a dataset, read whole (issue 23): schema and values equal
# pyarrow.dataset's through libringscan.so, and through the CLI under a filter, ORDER BY ..
# LIMIT, --limit, 1 and 2 threads, a union by name where files lack fields (nulls), paths
# inside fields; errors for a field of another shape (both files named), a nested sort key
# (tests/cli/dataset_nested.py). Last line: "dataset_nested: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_lib dataset_nested
need_py dataset_nested
"$py" tests/cli/dataset_nested.py "$LIB" "$R" "$dir"
