#!/usr/bin/env bash
# tests/cli/dict_bits.sh: a conjunct on a dictionary-coded column, projected or not, evaluated
# from its indices (pages without nulls straight to bits), gives pyarrow's rows on v1 and v2
# pages, with and without nulls, dictionaries of 1..257 entries (dict_bits.py).
# Needs scripts/pyenv.sh (pyarrow), as filter_duckdb.sh does.
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_py dict_bits
"$py" tests/cli/dict_bits.py "$R" "$dir"
