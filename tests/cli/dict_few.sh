#!/usr/bin/env bash
# tests/cli/dict_few.sh: a string conjunct late in the chain on a dictionary-coded column with
# a large dictionary, reached by few rows of each page, is evaluated on those rows' entries
# only (scan/task_eval.c eval_dict_selected) and gives pyarrow's rows (dict_few.py).
# Needs scripts/pyenv.sh (pyarrow), as dict_bits.sh does.
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_py dict_few
"$py" tests/cli/dict_few.py "$R" "$dir"
