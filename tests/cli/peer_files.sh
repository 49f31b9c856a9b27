#!/usr/bin/env bash
# tests/cli/peer_files.sh: ringscan reads what pyarrow and DuckDB write (peer_files.py).
# Needs scripts/pyenv.sh (pyarrow + duckdb), as writer_readback.sh does.
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
err=$dir/pyenv.err
if ! py=$(scripts/pyenv.sh 2>"$err" | tail -n1) || [ ! -x "$py" ]; then
    echo "peer_files: scripts/pyenv.sh failed: $(tail -n 3 "$err" | tr '\n' ' ')"
    echo "peer_files: 0 passed, 1 failed"; exit 1
fi
"$py" tests/cli/peer_files.py "$R" "$dir"
