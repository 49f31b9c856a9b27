#!/usr/bin/env bash
# tests/cli/http_footer_parts.sh: a footer longer than the open's suffix GET is fetched as
# parallel ranged GETs (io/store_http_parts.c, issue 20), from a real nginx and SeaweedFS
# started here on free loopback ports (tests/cli/net_lib.bash), and on the simulated store.
# The file: 1,500 INT64 columns in 40 row groups of 4 rows, written by pyarrow: a footer of
# ~6.8 MB, so the open's 1 MiB tail (HTTP_TAIL_BYTES, also the footer tail pqf_tail_bytes
# reads for a file this size) holds its last MiB only and ~5.8 MB are missing.
#  1. nginx: `meta` prints what it prints for the local file, and nginx logged 9 GETs: the
#     suffix GET, then the footer's missing bytes [meta_offset, size - 1 MiB) as 8 ranges
#     that cover them exactly once (each part's length within a byte of the others').
#     io_cost_parts sizes them: parts of at least 128 KiB, one per idle connection, at most
#     8, and only when the transfer the split saves at the seeded 100 MB/s a connection beats
#     the first bytes' spread, 30 ms over HTTP (each part waits for its own first byte): a
#     missing span under ~3.4 MB stays one GET. One GET for the rest was the old way: 2
#     requests.
#     Faults: with 4 of the parts answered 503 (a proxy in front of nginx, after the open's GET)
#     meta is the same after 13 requests; with every part answered 503 and one retry it fails
#     naming the URL, a part's range and 503.
#  2. nginx: scans of every column, and of two with a conjunct, on 1 and 2 threads, print
#     what the local file's print.
#  3. SeaweedFS (S3, signed): `meta` and a scan of every column equal the local file's, and
#     a scan's --stats count 9 requests more than its data reads need (the same 1 + 8).
#  4. The simulated store: the scan equals the local one, and its footer is 8 + 8 requests
#     (the 1 MiB tail in 8 parts, then the footer's metadata in 8: the sim has no open GET).
# Last line: "http_footer_parts: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/net_lib.bash"
need_py http_footer_parts

www=$dir/www
mkdir -p "$www" "$dir/ng"
f=$www/wide.parquet
"$py" - "$f" <<'PY' || net_fatal "pyarrow: writing the file"
import sys
import pyarrow as pa, pyarrow.parquet as pq
n = 160
t = pa.table({f"c{i}": pa.array([i * 1000 + r for r in range(n)], pa.int64()) for i in range(1500)})
pq.write_table(t, sys.argv[1], row_group_size=4, compression="none")
PY
size=$(stat -c %s "$f")
foot=$("$py" -c "import pyarrow.parquet as pq,sys; print(pq.ParquetFile(sys.argv[1]).metadata.serialized_size)" "$f")
meta_off=$((size - 8 - foot))
tail=1048576
missing=$((size - tail - meta_off))
echo "http_footer_parts: file $size bytes, footer $foot bytes, $missing bytes past the 1 MiB tail"
check '[ "$missing" -ge 4000000 ]' "the footer ($foot bytes) leaves $missing bytes past the tail, want >= 4 MB"

# 1. meta over nginx: the suffix GET and 8 parts
nginx_start "$www" "$dir/ng"
u=http://127.0.0.1:$NGINX_PORT/wide.parquet
nginx_log_reset "$dir/ng"
meta_same "meta" "$f" "$u"
n=$(nginx_requests "$dir/ng"); good=$(nginx_requests "$dir/ng" '^206 ')
echo "http_footer_parts: meta: $n requests, $(nginx_connections "$dir/ng") connections"
check '[ "$n" -eq 9 ] && [ "$good" -eq 9 ]' "meta: $n requests ($good answered 206), want 9: $(head -c 600 "$dir/ng/access.log")"
# the parts' ranges from the log ("bytes=A-B"), in offset order: contiguous over the missing span
grep -oE '"bytes=[0-9]+-[0-9]+"' "$dir/ng/access.log" | tr -d '"' | sed 's/bytes=//' |
    sort -n -t- -k1,1 >"$dir/parts"
at=$meta_off lens=() cover=1
while IFS=- read -r a b; do
    [ "$a" -eq "$at" ] || cover=0
    lens+=($((b - a + 1))); at=$((b + 1))
done <"$dir/parts"
lo=${lens[0]:-0} hi=${lens[0]:-0}
for l in "${lens[@]}"; do [ "$l" -lt "$lo" ] && lo=$l; [ "$l" -gt "$hi" ] && hi=$l; done
check '[ "${#lens[@]}" -eq 8 ] && [ "$cover" -eq 1 ] && [ "$at" -eq $((size - tail)) ] && [ $((hi - lo)) -le 1 ]' \
    "meta: the parts $(tr '\n' ' ' <"$dir/parts") do not cover [$meta_off, $((size - tail))) once in 8 even parts"
check '[ "$(nginx_requests "$dir/ng" '"'"'"bytes=-'"'"')" -eq 1 ]' "meta: not one suffix GET: $(head -c 300 "$dir/ng/access.log")"

nc=$(nginx_connections "$dir/ng")
check '[ "$nc" -ge 8 ]' "meta: the parts came on $nc connections, want 8 or more (one a part)"

# 1b. faults in the parts, through the proxy with 2 s of latency a request: once the open's
# GET was forwarded, the next 4 requests (4 of the 8 parts) get 503 and are retried (the
# meta is the local one's, the proxy forwarded 1 + 8 + 4); with 100 of them and one retry
# the read gives up naming the URL, a part's range and 503
proxy_start "$NGINX_PORT" 2000
up=http://127.0.0.1:$PROXY_PORT/wide.parquet
# wait_open N: until the proxy forwarded N requests, the last the open's GET (the parts
# arrive after its answer and wait 2 s before they are forwarded; curl, not proxy_stats's
# python, so a poll is quick under load; bounded: 30 s)
wait_open() {
    local i k
    for i in $(seq 300); do
        k=$(curl -s --max-time 5 "http://127.0.0.1:$PROXY_PORT/__stats" | grep -oE '"forwarded": [0-9]+' | grep -oE '[0-9]+$')
        [ -n "$k" ] && [ "$k" -ge "$1" ] && return 0
        sleep 0.1
    done
    return 1
}
"$R" meta "$up" >"$dir/fmeta" 2>"$dir/fmeta.err" &
mpid=$!
wait_open 1 && proxy_fault 503 4
wait "$mpid"; mrc=$?
"$R" meta "$f" >"$dir/lmeta"
check '[ "$mrc" -eq 0 ] && diff -q <(sed "s|$f|NAME|g" "$dir/lmeta") <(sed "s|$up|NAME|g" "$dir/fmeta") >/dev/null' \
    "meta with 4 parts answered 503: exit $mrc, $(head -c 300 "$dir/fmeta.err")"
n=$(proxy_stats requests); f503=$(proxy_stats faults.503)
check '[ "$n" -eq 13 ] && [ "$f503" -eq 4 ]' "meta with 4 parts answered 503: the proxy forwarded $n requests ($f503 answered 503), want 13 (4)"
r0=$(proxy_stats forwarded)
RINGSCAN_HTTP_RETRIES=1 "$R" meta "$up" >"$dir/fmeta" 2>"$dir/fmeta.err" &
mpid=$!
wait_open $((r0 + 1)) && proxy_fault 503 100
wait "$mpid"; mrc=$?
check '[ "$mrc" -ne 0 ] && grep -q "127.0.0.1:$PROXY_PORT/wide.parquet" "$dir/fmeta.err" && grep -qE "bytes=[0-9]+-[0-9]+" "$dir/fmeta.err" && grep -q 503 "$dir/fmeta.err"' \
    "meta with every part answered 503: exit $mrc, stderr $(head -c 300 "$dir/fmeta.err") (want the URL, a range and 503)"
proxy_fault none 0
proxy_stop

# 2. scans over nginx equal the local file's
for t in 1 2; do
    scan_same "every column t$t" "$f" "$u" --threads "$t" --format checksum
    scan_same "two columns t$t" "$f" "$u" --columns c7,c1499 --where "c3 > 3010" --threads "$t" --format csv
done

# 3. SeaweedFS
weed_start "$dir/weed"
weed_mkbucket ringscan
weed_put ringscan wide.parquet "$f"
s=s3://ringscan/wide.parquet
meta_same "s3 meta" "$f" "$s"
scan_same "s3 every column" "$f" "$s" --threads 2 --format checksum
field() { grep -oE "$1 [0-9]+" "$2" | head -1 | cut -d' ' -f2; }
rs "$dir/o" "$dir/e" scan "$s" --columns c0 --threads 1 --format checksum --stats
n=$(field store_requests "$dir/e"); reads=$(field reads "$dir/e")
echo "http_footer_parts: s3 scan of c0: exit $RS_RC, $n requests, $reads read calls"
# read calls: the footer's 2 (tail, rest) and one a data range; requests: the open's GET, the
# rest's 8 parts and one a data range
check '[ "$RS_RC" -eq 0 ] && [ -n "$n" ] && [ -n "$reads" ] && [ "$n" -eq $((reads - 2 + 9)) ]' \
    "s3 scan of c0: $n requests for $reads read calls, want $((${reads:-0} - 2 + 9))"
weed_stop

# 4. the simulated store
plain=$("$R" scan "$f" --columns c0 --threads 1 --format checksum)
out=$("$R" scan "$f" --columns c0 --threads 1 --format checksum --store sim:ttfb=1ms,bw=500MB/s \
    --stats 2>"$dir/e")
n=$(field store_requests "$dir/e"); reads=$(field reads "$dir/e")
check '[ "$out" = "$plain" ]' "sim scan of c0: '$out', want '$plain'"
check '[ -n "$n" ] && [ -n "$reads" ] && [ "$n" -eq $((reads - 2 + 16)) ]' \
    "sim scan of c0: $n requests for $reads read calls, want $((${reads:-0} - 2 + 16))"
summary http_footer_parts
