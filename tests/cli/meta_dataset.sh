#!/usr/bin/env bash
# tests/cli/meta_dataset.sh: `ringscan meta` over a dataset (several files, a directory, a
# pattern): its columns with the types a scan exports (compared with pyarrow.dataset's; hive
# partition columns typed as DuckDB infers them), one line per file with its rows and row
# groups from the footer, the totals, --union-by-name, nested types as pyarrow prints them,
# one file still printing its own metadata, and errors naming the broken file
# (tests/cli/meta_dataset.py).
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_py meta_dataset
"$py" tests/cli/meta_dataset.py "$R" "$dir"
