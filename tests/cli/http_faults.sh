#!/usr/bin/env bash
# tests/cli/http_faults.sh: retries and their bounds on real sockets (issue 20): `ringscan scan`
# over HTTP through tests/cli/fault_proxy.py (latency, a bandwidth cap, injected faults) in
# front of a real nginx, and of SeaweedFS for S3's SlowDown. Run by tests/run.sh with
# $RINGSCAN = the binary and cwd = the project root.
#  1. Through a 30 ms, 4 MB/s proxy a scan is exact (byte for byte against the local file),
#     in at most 200 requests a scan.
#  2. Recovery: 2x503, 2x slowdown, 1x reset mid-body, 1x short body: each scan is still exact,
#     and the proxy served every fault it was told to (the faults were hit, not skipped).
#  3. Giving up, with RINGSCAN_HTTP_RETRIES=2 and RINGSCAN_HTTP_TIMEOUT_MS=2000: 100x503 exits
#     non-zero within 60 s naming the URL and 503, after at most a bounded number of tries; a
#     stalled body exits non-zero within 30 s mentioning a timeout; endless resets and short
#     bodies exit non-zero (never a silently short result).
#  4. S3 through the proxy: 2x SlowDown then an exact result (signing survives the proxy).
# Last line: "http_faults: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/net_lib.bash"

www=$dir/www
mkdir -p "$www" "$dir/ng"
li=$www/lineitem.parquet
net_gen_lineitem "$li"
nginx_start "$www" "$dir/ng"
shape=(--columns l_orderkey,l_extendedprice,l_shipdate --where "l_shipmode = 'AIR' AND l_quantity < 5")

# 1. latency and bandwidth
proxy_start "$NGINX_PORT" 30 4000000
u=http://127.0.0.1:$PROXY_PORT/lineitem.parquet
scan_same "delay proxy t1" "$li" "$u" --threads 1 --format csv
echo "http_faults: whole scan through 30 ms + 4 MB/s: ${RS_MS} ms, $(proxy_stats requests) requests so far"
scan_same "delay proxy t2" "$li" "$u" "${shape[@]}" --threads 2 --ordered --format csv
n=$(proxy_stats requests)
check '[ "$n" -ge 2 ] && [ "$n" -le 400 ]' "two scans through the delay proxy made $n requests (want 2..400)"
proxy_stop

# 2. recovery (default retry settings)
proxy_start "$NGINX_PORT" 5
u=http://127.0.0.1:$PROXY_PORT/lineitem.parquet
for f in "503 2" "slowdown 2" "reset 1" "short 1"; do
    read -r mode count <<<"$f"
    for t in 1 2; do
        proxy_fault "$mode" "$count"
        scan_same "$mode x$count t$t" "$li" "$u" "${shape[@]}" --threads "$t" --ordered --format csv
        left=$(proxy_stats pending.count)
        check '[ "$left" -eq 0 ]' "$mode x$count t$t: $left faults never served (the scan did not hit them)"
    done
done
scan_same "after the faults" "$li" "$u" --threads 2 --ordered --format csv
echo "http_faults: proxy after recovery: $(proxy_stats)"

# 3. giving up, bounded
export RINGSCAN_HTTP_RETRIES=2 RINGSCAN_HTTP_TIMEOUT_MS=2000
proxy_fault 503 100
f0=$(proxy_stats faults.503)
scan_fails "100x503" 60 "127.0.0.1:$PROXY_PORT/lineitem.parquet" "503" -- scan "$u" --threads 1 --format csv
tries=$(($(proxy_stats faults.503) - f0))
echo "http_faults: 100x503 gave up after ${RS_MS} ms and $tries tries"
check '[ "$tries" -ge 1 ] && [ "$tries" -le 12 ]' "100x503 with RINGSCAN_HTTP_RETRIES=2: $tries tries (want 1..12)"
proxy_fault none 0
proxy_fault stall 100
scan_fails "stall" 30 "127.0.0.1:$PROXY_PORT/lineitem.parquet" "time(d)? ?out" -- scan "$u" --threads 1 --format csv
echo "http_faults: stall gave up after ${RS_MS} ms: $(head -c 200 "$dir/ferr")"
proxy_fault reset 100
scan_fails "endless resets" 60 "127.0.0.1:$PROXY_PORT/lineitem.parquet" -- scan "$u" --threads 1 --format csv
proxy_fault short 100
scan_fails "endless short bodies" 60 "127.0.0.1:$PROXY_PORT/lineitem.parquet" -- scan "$u" --threads 1 --format csv
proxy_fault none 0
unset RINGSCAN_HTTP_RETRIES RINGSCAN_HTTP_TIMEOUT_MS
scan_same "after giving up" "$li" "$u" --threads 1 --format csv
proxy_stop

# 4. S3 SlowDown through the proxy
weed_start "$dir/weed"
weed_mkbucket ringscan
weed_put ringscan lineitem.parquet "$li"
proxy_start "$S3_PORT" 5
export AWS_ENDPOINT_URL=http://127.0.0.1:$PROXY_PORT
proxy_fault slowdown 2
scan_same "S3 slowdown x2" "$li" s3://ringscan/lineitem.parquet "${shape[@]}" --threads 2 --ordered --format csv
check '[ "$(proxy_stats faults.slowdown)" -eq 2 ]' "S3: $(proxy_stats faults.slowdown) SlowDown served of 2"
n=$(proxy_stats requests)
check '[ "$n" -ge 3 ] && [ "$n" -le 200 ]' "S3 scan through the proxy: $n requests (want 3..200)"
proxy_stop
weed_stop "$dir/weed"
nginx_stop "$dir/ng"
summary http_faults
