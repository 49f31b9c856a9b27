#!/usr/bin/env bash
# tests/cli/small_files.sh: a small file's column chunks are served from its footer's tail
# (read once at open) instead of read again, locally (copy, pread, mmap) and through a
# simulated store: rows against DuckDB's read_parquet and read counts from --stats
# (small_files.py); then over HTTP from a real nginx (tests/cli/net_lib.bash): one small
# file's scan makes one request (the open's suffix GET, which holds the whole file), counts one
# read (its footer) and its column reads as kept, and prints the local file's rows. Needs
# scripts/pyenv.sh (pyarrow + duckdb), as dataset_onescan.sh does. Last line:
# "small_files: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/net_lib.bash"
need_py small_files
"$py" tests/cli/small_files.py "$R" "$dir" "$@" >"$dir/py.out" 2>&1
cat "$dir/py.out"
line=$(grep -E '^small_files: [0-9]+ passed, [0-9]+ failed' "$dir/py.out" | tail -n1)
[ -n "$line" ] || bad "small_files.py printed no summary"
passed=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
failed=$((failed + $(echo "${line:-x: 0 passed, 0 failed}" | sed -E 's/.* ([0-9]+) failed.*/\1/')))

f=$dir/small/part-007.parquet
if [ -f "$f" ]; then
    nginx_start "$dir/small" "$dir/ng"
    url=http://127.0.0.1:$NGINX_PORT/part-007.parquet
    "$R" scan "$f" --format csv >"$dir/want" 2>/dev/null
    nginx_log_reset "$dir/ng"
    "$R" scan "$url" --format csv --stats=json >"$dir/got" 2>"$dir/err"
    st() { grep -o "\"$1\":[0-9]*" "$dir/err" | tail -n1 | cut -d: -f2; }
    check 'cmp -s "$dir/want" "$dir/got" && [ -s "$dir/want" ]' "http: rows differ from the local file's: $(head -c 300 "$dir/err")"
    check '[ "$(nginx_requests "$dir/ng")" = 1 ]' "http: $(nginx_requests "$dir/ng") requests, want 1 (the open's)"
    check '[ "$(st reads)" = 1 ] && [ "$(st reads_kept)" -gt 0 ]' "http: reads $(st reads) reads_kept $(st reads_kept), want 1 and > 0"
    nginx_stop "$dir/ng"
fi
summary small_files
