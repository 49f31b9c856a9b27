#!/usr/bin/env bash
# tests/cli/checksum_ref.sh: `--format checksum` equals the definition in cli/checksum.h
# computed independently by pyarrow and numpy (checksum_ref.py) on integer, decimal, date,
# time, timestamp, float, boolean and string columns of every width, with nulls, over several
# batches and row groups. Needs scripts/pyenv.sh (pyarrow), as dict_few.sh does.
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_py checksum_ref
"$py" tests/cli/checksum_ref.py "$R" "$dir"
