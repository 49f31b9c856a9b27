#!/usr/bin/env bash
# bench/compare/run.sh: ringscan against DuckDB, DataFusion, pyarrow, Polars and Vortex on the
# bench shapes (issue 7). One command:
#   bash bench/compare/run.sh [--sf 1] [--rounds 5] [--threads 1,2] [--engines duckdb,...]
#                             [--shapes a,b] [--policy adaptive] [--skip-count] [--skip-rss]
#                             [--codec snappy|none|zstd|lz4|gzip] [--data ringscan,tpchgen]
# Makes .tools/compare-venv (pinned versions, idempotent), builds ringscan (ReleaseFast) and
# copies the binary to bench/compare/out/bin so a rebuild of the tree during the run does not
# change what is measured, generates the data under bench/compare/out/data/sfN, and writes
# bench/compare/out/sfN/{results.json,table.md,chart.png}. Needs strace and /usr/bin/time
# (Debian packages strace, time: installed here when absent).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
VENV="$ROOT/.tools/compare-venv"
PINS=(duckdb==2.0.1 datafusion==55.0.0 pyarrow==26.0.1 polars==2.1.0 vortex-data==0.93.0
      tpchgen-cli==4.0.0 matplotlib==3.11.2 numpy==2.4.6)
source "$HERE/lib.sh"
compare_venv "$VENV" run.sh "${PINS[@]}"
if ! command -v strace >/dev/null || [[ ! -x /usr/bin/time ]]; then
    apt-get install -y -q strace time >/dev/null || { apt-get update -q && apt-get install -y -q strace time; }
fi
cd "$ROOT"
compare_ringscan run.sh
exec "$VENV/bin/python" "$HERE/compare.py" --ringscan "$RINGSCAN" "$@"
