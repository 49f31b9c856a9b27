#!/usr/bin/env bash
# tests/cli/nested_property.sh: random nested schemas and values written by pyarrow from a
# seed (40 files: page v1/v2, dictionary on/off or leaves in DELTA_* and BYTE_STREAM_SPLIT,
# five codecs, small pages so a row's levels cross pages, several row groups) read back by
# ringscan equal to pyarrow in jsonl, csv and the count checksum (tests/cli/nested_property.py
# says how). NESTED_SEED overrides the seed
# (default 23); a failure prints the file's seed. Run by tests/run.sh with $RINGSCAN = the
# binary and cwd = the project root. Last line: "nested_property: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv nested_property
"$PY" tests/cli/nested_property.py "$R" "$dir" "${NESTED_SEED:-23}" 40
