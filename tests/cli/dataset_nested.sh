#!/usr/bin/env bash
# tests/cli/dataset_nested.sh: nested fields (lists, structs, maps, lists of lists, structs
# holding lists, large lists) in a dataset, read whole (issue 23): schema and values equal
# pyarrow.dataset's through libringscan.so, and through the CLI under a filter, ORDER BY ..
# LIMIT, --limit, 1 and 2 threads, a union by name where files lack fields (nulls), paths
# inside fields; errors for a field of another shape (both files named), a nested sort key
# (tests/cli/dataset_nested.py). Last line: "dataset_nested: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_lib dataset_nested
need_pyenv dataset_nested
"$PY" tests/cli/dataset_nested.py "$LIB" "$R" "$dir" >"$dir/out" 2>&1
rc=$?
cat "$dir/out"
while read -r word _; do
    case "$word" in ok) ok ;; FAIL:) failed=$((failed + 1)) ;; esac
done <"$dir/out"
[ "$rc" -eq 0 ] || [ "$failed" -gt 0 ] || bad "dataset_nested.py exited $rc"
[ "$passed" -ge 15 ] || bad "only $passed cases passed"
summary dataset_nested
