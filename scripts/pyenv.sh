#!/usr/bin/env bash
# Creates (or reuses) the Python venv at .tools/pyvenv with the pinned tools that generate the
# conformance oracle (tests/conformance/gen_expected.py): pyarrow, duckdb, numpy. Tests never
# need it: the oracle's outputs are committed. Idempotent: when the venv already holds the pinned
# versions it only checks them (well under a second). Prints the venv's python path on its last
# line.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
PINS="pyarrow==26.0.1 duckdb==2.0.1 numpy==2.4.6"
venv="$root/.tools/pyvenv"
py="$venv/bin/python"
stamp="$venv/.pins"
if [ -x "$py" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$PINS" ]; then
  echo "$py"
  exit 0
fi
if [ ! -x "$py" ]; then
  echo "pyenv: creating $venv" >&2
  python3 -m venv "$venv" >&2
fi
echo "pyenv: installing $PINS" >&2
"$py" -m pip install -q --disable-pip-version-check $PINS >&2
"$py" -c 'import pyarrow, duckdb, numpy' >&2
echo "$PINS" >"$stamp"
echo "$py"
