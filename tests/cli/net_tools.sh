#!/usr/bin/env bash
# tests/cli/net_tools.sh: the network test tools themselves (tests/cli/net_lib.bash), with curl
# and no ringscan, so a failure of the http_*.sh tests can be told apart from one of its
# servers. Run by tests/run.sh from the project root. Each case:
#  1. nginx serves a file whole and by ranges (single, suffix) byte for byte, keeps connections
#     alive, and logs each request once with its Range header.
#  2. fault_proxy.py forwards whole and ranged GETs intact over one kept connection, adds at
#     least --latency-ms to each request, caps a connection at --bw bytes/s, and counts.
#  3. Each fault mode is seen by curl: 503 (status), slowdown (503 + S3 <Code>SlowDown</Code>),
#     reset (curl exit 56, or 18 when the reset lands as an early close), stall (--max-time
#     fires: exit 28), short (exit 18); COUNT is honoured (the next request is served).
#  4. The proxy exits by itself after --max-seconds.
#  5. SeaweedFS takes a SigV4-signed PUT and serves it back whole, by range and through the
#     proxy (the signature survives it); a wrong secret gets 403, a missing key 404 NoSuchKey.
# Timings are asserted as lower bounds of what the proxy must add, never as speeds.
# Last line: "net_tools: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/net_lib.bash"

mkdir -p "$dir/www" "$dir/ng"
head -c 3000000 /dev/urandom >"$dir/www/blob.bin"
blob=$dir/www/blob.bin
slice() { tail -c +$(($1 + 1)) "$blob" | head -c "$2"; } # OFFSET LEN of the file

# 1. nginx
nginx_start "$dir/www" "$dir/ng"
base=http://127.0.0.1:$NGINX_PORT
check 'curl -s --max-time 10 "$base/blob.bin" | cmp -s - "$blob"' "nginx: whole GET differs"
check 'curl -s --max-time 10 -r 1000-99999 "$base/blob.bin" | cmp -s - <(slice 1000 99000)' "nginx: range GET differs"
check 'curl -s --max-time 10 -r -5000 "$base/blob.bin" | cmp -s - <(slice 2995000 5000)' "nginx: suffix range differs"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$base/missing.parquet")
check '[ "$code" = 404 ]' "nginx: missing file answered $code"
nginx_log_reset "$dir/ng"
curl -s --max-time 10 -r 0-9 -o /dev/null "$base/blob.bin" --next --max-time 10 -r 10-19 -o /dev/null "$base/blob.bin"
n=$(nginx_requests "$dir/ng"); nr=$(nginx_requests "$dir/ng" '"bytes=10-19" "GET /blob.bin ')
check '[ "$n" -eq 2 ] && [ "$nr" -eq 1 ]' "nginx log: $n requests, $nr with the second range (want 2, 1): $(cat "$dir/ng/access.log")"
check 'grep -qE "^206 10 \"bytes=0-9\" \"GET /blob.bin HTTP/1.1\" [0-9]+$" "$dir/ng/access.log"' "nginx log line format: $(head -n1 "$dir/ng/access.log")"
check '[ "$(nginx_connections "$dir/ng")" -eq 1 ]' "nginx: one curl with two URLs used $(nginx_connections "$dir/ng") connections"

# 2. the proxy: forwarding, keep-alive, latency, counts
proxy_start "$NGINX_PORT" 150
pbase=http://127.0.0.1:$PROXY_PORT
check 'curl -s --max-time 10 "$pbase/blob.bin" | cmp -s - "$blob"' "proxy: whole GET differs"
check 'curl -s --max-time 10 -r 123-456788 "$pbase/blob.bin" | cmp -s - <(slice 123 456666)' "proxy: range GET differs"
check 'curl -s --max-time 10 -r -777 "$pbase/blob.bin" | cmp -s - <(slice $((3000000 - 777)) 777)' "proxy: suffix range differs"
hdr=$(curl -s --max-time 10 -I "$pbase/blob.bin" | tr -d '\r')
check 'echo "$hdr" | grep -q "^Content-Length: 3000000$"' "proxy: HEAD lost Content-Length: $hdr"
c0=$(proxy_stats connections); nginx_log_reset "$dir/ng"
t=$(curl -s --max-time 10 -o /dev/null -w '%{time_total}\n' -r 0-99 "$pbase/blob.bin" --next -s --max-time 10 -o /dev/null -w '%{time_total}\n' -r 100-199 "$pbase/blob.bin" | tail -n1)
c1=$(proxy_stats connections)
check '[ $((c1 - c0)) -eq 1 ]' "proxy: two requests from one curl used $((c1 - c0)) connections (keep-alive)"
check 'python3 -c "import sys; sys.exit(float(sys.argv[1]) < 0.150)" "$t"' "proxy: a request took ${t}s, below the 150 ms latency"
check '[ "$(nginx_requests "$dir/ng")" -eq 2 ]' "proxy: nginx saw $(nginx_requests "$dir/ng") requests for 2"
check '[ "$(proxy_stats requests)" -eq 6 ] && [ "$(proxy_stats forwarded)" -eq 6 ]' "proxy stats: $(proxy_stats)"

# 3. faults as curl sees them
proxy_fault 503 2
codes=$(for i in 1 2 3; do curl -s -o /dev/null -w '%{http_code} ' --max-time 10 "$pbase/blob.bin"; done)
check '[ "$codes" = "503 503 200 " ]' "proxy 503 x2: statuses '$codes'"
proxy_fault slowdown 1
body=$(curl -s -w ' %{http_code}' --max-time 10 -r 0-99 "$pbase/blob.bin")
check 'echo "$body" | grep -q "<Code>SlowDown</Code>.* 503$"' "proxy slowdown: '$body'"
proxy_fault reset 1
curl -s -o /dev/null --max-time 10 "$pbase/blob.bin"; rc=$?
check '[ $rc -eq 56 ] || [ $rc -eq 18 ]' "proxy reset: curl exit $rc, want 56 (or 18)"
proxy_fault short 1
curl -s -o "$dir/short.out" --max-time 10 -r 0-199999 "$pbase/blob.bin"; rc=$?
check '[ $rc -eq 18 ] && [ "$(stat -c %s "$dir/short.out")" -eq 100000 ]' "proxy short: curl exit $rc, $(stat -c %s "$dir/short.out") bytes (want 18, 100000)"
proxy_fault stall 1
s0=$SECONDS; curl -s -o /dev/null --max-time 2 "$pbase/blob.bin"; rc=$?; el=$((SECONDS - s0))
check '[ $rc -eq 28 ] && [ $el -le 8 ]' "proxy stall: curl exit $rc after ${el}s, want 28 (--max-time 2)"
check 'curl -s --max-time 10 "$pbase/blob.bin" | cmp -s - "$blob"' "proxy: a GET after the faults differs"
check '[ "$(proxy_stats faults.503)" -eq 2 ] && [ "$(proxy_stats faults.slowdown)" -eq 1 ] && [ "$(proxy_stats faults.reset)" -eq 1 ] && [ "$(proxy_stats faults.short)" -eq 1 ] && [ "$(proxy_stats faults.stall)" -eq 1 ] && [ "$(proxy_stats pending.count)" -eq 0 ]' "proxy fault counts: $(proxy_stats)"
# a cutting fault skips a HEAD (no body) and hits the next GET
proxy_fault short 1
hc=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -I "$pbase/blob.bin")
curl -s -o /dev/null --max-time 10 "$pbase/blob.bin"; rc=$?
check '[ "$hc" = 200 ] && [ $rc -eq 18 ]' "proxy short after HEAD: HEAD $hc, GET exit $rc (want 200, 18)"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$pbase/__fault?mode=bogus&count=1")
check '[ "$code" = 400 ]' "proxy: an unknown mode answered $code"
proxy_stop

# bandwidth: 600 kB at 1 MB/s takes at least 0.55 s more than without the cap
proxy_start "$NGINX_PORT" 0 1000000
t=$(curl -s --max-time 20 -o /dev/null -w '%{time_total}' -r 0-599999 "http://127.0.0.1:$PROXY_PORT/blob.bin")
check 'python3 -c "import sys; sys.exit(float(sys.argv[1]) < 0.55)" "$t"' "proxy --bw 1000000: 600 kB in ${t}s"
proxy_stop

# 4. --max-seconds
p=$(net_free_port)
python3 "$NET_LIB_DIR/fault_proxy.py" --listen-port "$p" --upstream-port "$NGINX_PORT" --max-seconds 1 >/dev/null 2>&1 &
pp=$!; NET_PIDS+=("$pp")
for i in $(seq 50); do kill -0 "$pp" 2>/dev/null || break; sleep 0.1; done
check '! kill -0 "$pp" 2>/dev/null' "proxy still running 5 s after --max-seconds 1"

# 5. SeaweedFS: signed PUT/GET, ranges, through the proxy, errors
weed_start "$dir/weed"
echo "net_tools: SeaweedFS S3 on 127.0.0.1:$S3_PORT, resident $(weed_rss_kb) KiB after start"
weed_mkbucket ringscan
weed_put ringscan dir/blob.bin "$blob"
s3=$AWS_ENDPOINT_URL/ringscan/dir/blob.bin
check 'weed_curl "$s3" | cmp -s - "$blob"' "S3: whole GET differs"
check 'weed_curl -r 2999000-2999999 "$s3" | cmp -s - <(slice 2999000 1000)' "S3: range GET differs"
code=$(curl -s -o "$dir/e403" -w '%{http_code}' --max-time 10 --aws-sigv4 "aws:amz:us-east-1:s3" --user "$S3_KEY:wrong" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$s3")
check '[ "$code" = 403 ]' "S3 wrong secret: HTTP $code $(head -c 200 "$dir/e403")"
code=$(weed_curl -o "$dir/e404" -w '%{http_code}' "$AWS_ENDPOINT_URL/ringscan/no/such.parquet")
check '[ "$code" = 404 ] && grep -q "<Code>NoSuchKey</Code>" "$dir/e404"' "S3 missing key: HTTP $code $(head -c 200 "$dir/e404")"
proxy_start "$S3_PORT" 20
ps3=http://127.0.0.1:$PROXY_PORT/ringscan/dir/blob.bin
check 'weed_curl -r 5-99999 "$ps3" | cmp -s - <(slice 5 99995)' "S3 through the proxy: signed range GET differs"
proxy_fault slowdown 1
code=$(weed_curl -o "$dir/sd" -w '%{http_code}' -r 0-9 "$ps3")
check '[ "$code" = 503 ] && grep -q SlowDown "$dir/sd"' "S3 through the proxy: slowdown gave $code"
echo "net_tools: SeaweedFS resident $(weed_rss_kb) KiB at the end"
proxy_stop
weed_stop "$dir/weed"
nginx_stop "$dir/ng"
check '! curl -s -o /dev/null --max-time 2 "$base/blob.bin"' "nginx still answers after nginx_stop"
check '! kill -0 "$WEED_PID" 2>/dev/null' "SeaweedFS still running after weed_stop"

summary net_tools
