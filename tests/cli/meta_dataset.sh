#!/usr/bin/env bash
# tests/cli/meta_dataset.sh: `ringscan meta` over a dataset (several files, a directory, a
# pattern): its columns with the types a scan exports (compared with pyarrow.dataset's; hive
# partition columns typed as DuckDB infers them), one line per file with its rows and row
# groups from the footer, the totals, --union-by-name, nested types as pyarrow prints them,
# one file still printing its own metadata, and errors naming the broken file
# (tests/cli/meta_dataset.py).
# Last line: "meta_dataset: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv meta_dataset
"$PY" tests/cli/meta_dataset.py "$R" "$dir" >"$dir/out" 2>&1
rc=$?
cat "$dir/out"
while read -r word _; do
    case "$word" in ok) ok ;; FAIL:) failed=$((failed + 1)) ;; esac
done <"$dir/out"
[ "$rc" -eq 0 ] || [ "$failed" -gt 0 ] || bad "meta_dataset.py exited $rc"
[ "$passed" -ge 11 ] || bad "only $passed cases passed"
summary meta_dataset
