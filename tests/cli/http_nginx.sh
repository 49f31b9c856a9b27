#!/usr/bin/env bash
# tests/cli/http_nginx.sh: `ringscan scan` and `ringscan meta` over HTTP range GETs from a real
# nginx (issue 20) started here on a free loopback port (tests/cli/net_lib.bash). Run by
# tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
#  1. A lineitem file (5 row groups) and a demo-types file (nulls, nested, every type) scan to
#     the same bytes as the local files: three shapes (all columns; a projection with a
#     conjunct; two conjuncts) under --threads 1 and 2 and each --policy, in file order (byte
#     for byte) and --unordered (the same lines in any order: no order is promised). --limit
#     too (in file order: the same first rows; unordered: as many rows).
#  2. `meta` over HTTP prints what it prints for the local file (the name aside).
#  3. nginx's log: a whole scan makes at least one and at most 200 requests, all answered 200
#     or 206, sending at most twice the file's bytes, on at most 64 connections, all GETs (the
#     size comes from the suffix GET's Content-Range: no HEAD, which some servers refuse).
#  4. A missing file: exit non-zero, stderr names the URL, the byte range and 404 (scan and
#     meta). An empty file, a port that refuses connections: exit non-zero within a bound,
#     stderr names the URL. An IPv6 host ("[::1]") is a host, not a pattern.
#  3b. Body copies (--stats body_copies, body_bytes_copied; io/store_http.h invariant 2): a
#     whole scan on each policy on 1 and 2 threads, all columns and a projection, copies
#     exactly the footer's read and the chunk straddling the start of the object's last MiB
#     (when projected) out of the open's GET, no other bytes (net_copies_want, from the
#     file's chunk offsets); the demo-types file, smaller than a MiB, one copy of all of it.
#  5. Names that need percent-encoding (a space, '+', a lone '%', a non-ASCII letter, '#' and
#     '?' as %23 and %3F), each file different: the URL as typed reads the file of that name,
#     byte for byte, and nginx logged the path encoded once (as curl and DuckDB's httpfs send
#     it; "%20" typed is not encoded again).
# Last line: "http_nginx: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/net_lib.bash"

www=$dir/www
mkdir -p "$www" "$dir/ng"
li=$www/lineitem.parquet demo=$www/demo.parquet
net_gen_lineitem "$li"
"$R" gen demo-types --rows 3000 --row-group-rows 1000 --page-rows 100 --seed 5 -o "$demo" >/dev/null ||
    net_fatal "gen demo-types failed"
nginx_start "$www" "$dir/ng"
base=http://127.0.0.1:$NGINX_PORT
u_li=$base/lineitem.parquet u_demo=$base/demo.parquet

# 1. results equal to the local file's
net_shapes_same "$li" "$u_li" 0 1 2
scan_same "limit" "$li" "$u_li" --columns l_orderkey,l_linenumber --limit 10 --threads 1 --ordered --format csv
rs "$dir/o" "$dir/e" scan "$u_li" --columns l_orderkey --limit 10 --threads 2 --unordered --format csv
check '[ "$RS_RC" -eq 0 ] && [ "$(wc -l <"$dir/o")" -eq 11 ]' "unordered --limit 10: exit $RS_RC, $(wc -l <"$dir/o") lines (want a header and 10 rows)"
scan_same "count" "$li" "$u_li" --where "l_discount > 0.05" --format checksum
for t in 1 2; do
    scan_same "demo-types t$t" "$demo" "$u_demo" --threads "$t" --ordered --format csv
done
scan_same "demo-types jsonl" "$demo" "$u_demo" --threads 1 --format jsonl

# 2. meta
meta_same "meta lineitem" "$li" "$u_li"
meta_same "meta demo-types" "$demo" "$u_demo"

# 3. requests as nginx logged them, for one whole scan on one thread
nginx_log_reset "$dir/ng"
rs "$dir/o" "$dir/e" scan "$u_li" --threads 1 --format checksum
size=$(stat -c %s "$li")
n=$(nginx_requests "$dir/ng"); good=$(nginx_requests "$dir/ng" '^20[06] ')
nb=$(nginx_bytes "$dir/ng"); nc=$(nginx_connections "$dir/ng")
echo "http_nginx: whole scan on 1 thread: exit $RS_RC, $n requests, $nb bytes (file $size), $nc connections, ${RS_MS} ms"
check '[ "$RS_RC" -eq 0 ] && [ "$n" -ge 1 ] && [ "$n" -le 200 ]' "whole scan: exit $RS_RC, $n requests (want 1..200)"
check '[ "$n" -ge 1 ] && [ "$good" -eq "$n" ]' "whole scan: $((n - good)) of $n requests not answered 200/206: $(grep -v '^20[06] ' "$dir/ng/access.log" | head -n 3)"
check '[ "$nb" -ge 1 ] && [ "$nb" -le $((2 * size)) ]' "whole scan: nginx sent $nb bytes for a $size-byte file"
check '[ "$nc" -ge 1 ] && [ "$nc" -le 64 ]' "whole scan: $nc connections"
nh=$(nginx_requests "$dir/ng" '"GET ')
check '[ "$nh" -eq "$n" ]' "whole scan: $((n - nh)) of $n requests not GETs (no HEAD: a server without one serves ringscan)"

# 3b. body copies: a response lands in the read's own buffer; the only copies are of what the
# open's GET of the object's last MiB holds (the footer; the chunk that straddles that MiB's
# start): counted exactly, on every policy, on 1 and 2 threads, all columns and a projection
for t in 1 2; do
    for p in lazy eager adaptive; do
        net_copies_same "copies t$t $p" "$li" "$u_li" "" --threads "$t" --policy "$p"
        net_copies_same "copies t$t $p projection" "$li" "$u_li" "l_orderkey,l_comment" --threads "$t" --policy "$p"
    done
done
net_copies_same "copies demo-types (its tail is the whole file)" "$demo" "$u_demo" ""

# 4. errors
scan_fails "404 scan" 60 "$base/missing.parquet" "404" "bytes=" -- scan "$base/missing.parquet" --format csv
scan_fails "404 meta" 60 "$base/missing.parquet" "404" "bytes=" -- meta "$base/missing.parquet"
: >"$www/empty.parquet" # nginx answers a suffix range on an empty file with 200 and no body
scan_fails "empty file" 60 "$base/empty.parquet" "0 bytes is too small" -- scan "$base/empty.parquet" --format csv
dead=$(net_free_port)
RINGSCAN_HTTP_RETRIES=2 RINGSCAN_HTTP_TIMEOUT_MS=2000 \
    scan_fails "refused" 60 "127.0.0.1:$dead/x.parquet" -- scan "http://127.0.0.1:$dead/x.parquet" --format csv
# an IPv6 host's brackets are no pattern: the request is made (and refused, or unreachable
# where the machine has no IPv6 loopback), never "patterns ... not supported"
RINGSCAN_HTTP_RETRIES=0 RINGSCAN_HTTP_TIMEOUT_MS=2000 \
    scan_fails "IPv6 host" 60 "\[::1\]:$dead/x.parquet: GET bytes=" -- scan "http://[::1]:$dead/x.parquet" --format csv

# 5. names that need percent-encoding: "URL path|file name|path nginx logs"
mkdir -p "$dir/enc"
k=0
for f in "a b.parquet|a b.parquet|/a%20b.parquet" "a%20b.parquet|a b.parquet|/a%20b.parquet" \
    "a+b.parquet|a+b.parquet|/a+b.parquet" "a%b.parquet|a%b.parquet|/a%25b.parquet" \
    "é.parquet|é.parquet|/%C3%A9.parquet" "a%23b.parquet|a#b.parquet|/a%23b.parquet" \
    "a%3Fb.parquet|a?b.parquet|/a%3Fb.parquet"; do
    IFS='|' read -r upath fname logged <<<"$f"
    k=$((k + 1))
    "$R" gen demo-types --rows 300 --row-group-rows 100 --seed "$k" -o "$dir/enc/$k.parquet" >/dev/null ||
        net_fatal "gen demo-types failed"
    cp "$dir/enc/$k.parquet" "$www/$fname"
    nginx_log_reset "$dir/ng"
    scan_same "encoded '$upath'" "$dir/enc/$k.parquet" "$base/$upath" --threads 2 --ordered --format csv
    n=$(nginx_requests "$dir/ng"); m=$(nginx_requests "$dir/ng" "^20[06] .*\"GET ${logged//+/\\+} HTTP")
    check '[ "$n" -ge 1 ] && [ "$m" -eq "$n" ]' "encoded '$upath': $m of $n requests for $logged: $(grep -v __ready "$dir/ng/access.log" | head -n 2)"
done

nginx_stop "$dir/ng"
summary http_nginx
