#!/usr/bin/env bash
# tests/cli/dataset_random.sh: random datasets (pyarrow files whose schemas differ) scanned with
# random options must never crash (tests/cli/dataset_random.py says what is drawn and checked).
# DATASET_RANDOM_SEEDS=A-B overrides the seeds (default 0-100, 4 scans each); a failure prints
# its seed and command. Run by tests/run.sh with $RINGSCAN = the binary and cwd = the project
# root. Last line: "dataset_random: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv dataset_random
seeds=${DATASET_RANDOM_SEEDS:-0-100}
"$PY" tests/cli/dataset_random.py "$R" "$dir" "${seeds%-*}" "${seeds#*-}" 120
