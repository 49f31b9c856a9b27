#!/usr/bin/env bash
# bench/compare/run_http.sh: ringscan, DuckDB (httpfs), pyarrow (fsspec HTTP) and Polars on the
# nginx path (issue 20): the bench shapes over HTTP range GETs from nginx behind the delay proxy.
#   bash bench/compare/run_http.sh [--sf 1] [--rounds 3] [--latency-ms 50] [--bw BYTES_PER_S]
#                                  [--shapes a,b] [--engines duckdb,pyarrow,polars] [--threads 2]
# Makes .tools/http-venv (pinned; its own venv because DuckDB 1.4.4, the version PyPI's
# duckdb-ext-httpfs is built for, cannot share compare-venv with duckdb 2.x), builds ringscan
# (ReleaseFast; the binary copied to out/bin as run.sh does), makes the same ringscan file as
# compare.py (out/data/sfN/ringscan.parquet), starts nginx on a free loopback port serving it
# and tests/cli/fault_proxy.py in front (tests/cli/net_lib.bash: bounded waits, stopped at exit
# whatever ends the script), then runs bench/compare/http_peers.py, which writes
# bench/compare/out/http-sfN/{results.json,table.md} and prints the table. Loopback only.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
VENV="$ROOT/.tools/http-venv"
PINS=(duckdb==1.4.4 duckdb-ext-httpfs==1.4.4.20260205 pyarrow==26.0.1 polars==2.1.0 numpy==2.4.6
      fsspec==2026.9.0 aiohttp==3.14.5)
source "$HERE/lib.sh"
compare_venv "$VENV" run_http.sh "${PINS[@]}"
PY="$VENV/bin/python"
cd "$ROOT"
compare_ringscan run_http.sh
sf=1 lat=50 bw=0
args=("$@")
while [[ $# -gt 0 ]]; do
    case "$1" in
        --sf) sf=$2; shift 2 ;;
        --latency-ms) lat=$2; shift 2 ;;
        --bw) bw=$2; shift 2 ;;
        *) shift ;;
    esac
done
file=$("$PY" "$HERE/http_peers.py" data --sf "$sf" --ringscan "$RINGSCAN")
# net_lib.bash: servers on free loopback ports, reaped after NET_MAX_SECONDS at the latest
set +eu
export NET_MAX_SECONDS=${NET_MAX_SECONDS:-10800} NET_NAME=run_http
source "$ROOT/tests/cli/net_lib.bash"
nginx_start "$(dirname "$file")" "$dir/ng"
proxy_start "$NGINX_PORT" "$lat" "$bw"
echo "run_http.sh: nginx on 127.0.0.1:$NGINX_PORT, proxy (latency $lat ms, bw $bw B/s) on 127.0.0.1:$PROXY_PORT" >&2
# in the background and waited for, so a TERM or INT runs the EXIT trap at once (bash holds a
# trap until a foreground child ends); the trap stops the driver too (its workers see EOF)
"$PY" "$HERE/http_peers.py" bench --ringscan "$RINGSCAN" --file "$file" \
    --url "http://127.0.0.1:$PROXY_PORT/$(basename "$file")" --nginx-log "$dir/ng/access.log" "${args[@]}" &
NET_PIDS+=("$!")
wait "$!"
rc=$?
echo "run_http.sh: proxy stats $(proxy_stats)" >&2
exit $rc
