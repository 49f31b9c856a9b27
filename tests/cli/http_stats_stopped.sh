#!/usr/bin/env bash
# tests/cli/http_stats_stopped.sh: a dataset's --stats after the scan ends early (a limit;
# the CLI then calls ringscan_scan_stop) are final: store_requests equals the requests the
# server received over the whole run. A dataset reads the next window of footers ahead, in the
# background; ringscan_scan_stop closed the running files but left that window's reads in
# flight, so the stats said "complete" and later counted one request and one footer read more
# (each of 8 runs of a C client over this setup; here: printed store_requests 11, the proxy
# saw 12). 30 small files over HTTP (nginx behind a proxy adding 300 ms a request, started on
# free loopback ports by net_lib.bash), 2 footers held (one read ahead), limits of 1 and
# 25000 rows, 1 and 2 threads. (A C client that reads the stats after ringscan_scan_next
# returned 0 at a limit, without a stop, saw the same: the end of a dataset's rows now waits
# for the footers read ahead too, dataset.c end_all.)
# Last line: "http_stats_stopped: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/net_lib.bash"

www=$dir/www
mkdir -p "$www" "$dir/ng"
"$R" gen lineitem --sf 0.002 -o "$www/f00.parquet" >/dev/null || net_fatal "gen lineitem failed"
for i in $(seq -w 1 29); do cp "$www/f00.parquet" "$www/f$i.parquet"; done
nginx_start "$www" "$dir/ng"
proxy_start "$NGINX_PORT" 300
urls=()
for f in "$www"/*.parquet; do urls+=("http://127.0.0.1:$PROXY_PORT/$(basename "$f")"); done
field() { grep -oE "$1 [0-9]+" "$dir/err" | head -n1 | cut -d' ' -f2; }
for limit in 1 25000; do
    for t in 1 2; do
        before=$(proxy_stats requests)
        rs "$dir/out" "$dir/err" scan "${urls[@]}" --limit "$limit" --threads "$t" \
            --max-open-files 2 --format checksum --stats
        after=$(proxy_stats requests)
        n=$(field store_requests)
        check '[ "$RS_RC" -eq 0 ] && [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$n" -eq $((after - before)) ]' \
            "limit $limit, $t threads: store_requests $n printed, the server got $((after - before)) (exit $RS_RC: $(head -c 300 "$dir/err"))"
    done
done
summary http_stats_stopped
