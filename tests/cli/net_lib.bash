# tests/cli/net_lib.bash: real servers for the network tests (issue 20), sourced by the
# tests/cli/http_*.sh and net_tools.sh scripts after lib.bash (it sources lib.bash itself when
# that has not been). Every server listens on a free loopback port (127.0.0.1 only), is started
# and stopped by the test that uses it, and is bounded in time:
#   nginx      nginx_start ROOT WORK [CERT KEY]  NGINX_PORT; nginx_requests, nginx_connections,
#                                                nginx_bytes, nginx_log_reset, nginx_stop
#   SeaweedFS  weed_start WORK                   S3_PORT, AWS_* env; weed_mkbucket, weed_put,
#                                                weed_curl, weed_rss_kb, weed_stop
#   proxy      proxy_start UPSTREAM LATENCY [BW] PROXY_PORT; proxy_fault, proxy_stats, proxy_stop
#   ringscan   rs, scan_same, meta_same, scan_fails (bounded runs compared with the local file)
# Invariants:
#  1. A server that does not start FAILS the test (never a skip): net_fatal prints "FAIL: ..."
#     with the tail of its log and the "NAME: N passed, N failed" line, and exits 1.
#  2. Every process started here is stopped at exit, whatever ends the script (a failure, a
#     signal, `timeout` from tests/run.sh): the EXIT trap stops them, and a reaper per server
#     kills it once the test's shell is gone or NET_MAX_SECONDS (default 900) have passed, so
#     even a SIGKILLed test leaves nothing listening.
#  3. Every wait is bounded (NET_START_SECONDS, default 60, for a server to answer).
#  4. No proxy from the environment: libcurl and curl honour http_proxy and friends, which
#     would send loopback requests elsewhere; they are unset and NO_PROXY covers 127.0.0.1.
[ -n "${dir:-}" ] || source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
NET_NAME=${NET_NAME:-$(basename "$0" .sh)}
NET_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NET_ROOT=$(cd "$NET_LIB_DIR/../.." && pwd)
NET_MAX_SECONDS=${NET_MAX_SECONDS:-900}
NET_START_SECONDS=${NET_START_SECONDS:-60}
WEED=${WEED:-$NET_ROOT/.tools/venv/bin/weed}
S3_KEY=ringscanTESTKEY
S3_SECRET=ringscanTESTsecret0123456789 # tests/cli/s3_config.json; tests grep outputs for it
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost
NET_PIDS=()     # servers to stop at exit (pids)
NET_NGINX=()    # nginx work folders to stop at exit
NET_CLEANUP=()  # extra files to remove at exit

net_cleanup() {
    local w p
    for w in "${NET_NGINX[@]}"; do nginx_stop "$w"; done
    for p in "${NET_PIDS[@]}"; do net_kill "$p"; done
    [ ${#NET_CLEANUP[@]} -eq 0 ] || rm -f ${NET_CLEANUP[@]} # globs (no spaces in them)
    rm -rf "$dir"
}
trap net_cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP

# net_fatal MESSAGE [LOG...]: invariant 1 (the tail of each LOG that exists and is not empty).
net_fatal() {
    local log
    bad "$1"; shift
    for log in "$@"; do
        if [ -s "$log" ]; then echo "--- tail of $log"; tail -n 30 "$log"; echo "---"; fi
    done
    summary "$NET_NAME"
    exit 1
}

# net_free_port [N]: N (default 1) distinct free loopback TCP ports, space-separated. They are
# bound together and released, so another process may take one before the caller binds it; the
# start functions retry on "address in use".
net_free_port() {
    python3 -c '
import socket, sys
ss = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))' "${1:-1}"
}

# net_kill PID: TERM, up to 3 s to exit, then KILL (SeaweedFS can hang in its graceful stop).
net_kill() {
    local p=$1 i
    kill -0 "$p" 2>/dev/null || return 0
    kill -TERM "$p" 2>/dev/null
    for i in $(seq 30); do kill -0 "$p" 2>/dev/null || return 0; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null
    for i in $(seq 20); do kill -0 "$p" 2>/dev/null || return 0; sleep 0.1; done
}

# net_reap PID [GLOB...]: invariant 2's reaper (a detached loop that holds no test output
# open); once it has killed PID it removes the files matching each GLOB (SeaweedFS's sockets,
# which it puts in /tmp whatever TMPDIR says).
net_reap() {
    local target=$1 owner=$$ max=$NET_MAX_SECONDS; shift
    local globs="$*"
    (
        trap '' TERM INT HUP
        end=$((SECONDS + max))
        while kill -0 "$owner" 2>/dev/null && kill -0 "$target" 2>/dev/null && [ $SECONDS -lt $end ]; do
            sleep 1
        done
        kill -TERM "$target" 2>/dev/null; sleep 3; kill -KILL "$target" 2>/dev/null
        [ -z "$globs" ] || rm -f $globs
    ) </dev/null >/dev/null 2>&1 &
    disown $! 2>/dev/null || true
}

# net_wait_http URL SECONDS [CURL ARGS...]: 0 once URL answers with any HTTP status.
net_wait_http() {
    local url=$1 secs=$2; shift 2
    local end=$((SECONDS + secs)) code
    while [ $SECONDS -lt $end ]; do
        code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$@" "$url" 2>/dev/null)
        [ -n "$code" ] && [ "$code" != 000 ] && return 0
        sleep 0.2
    done
    return 1
}

# ---- nginx -------------------------------------------------------------------------------
# nginx_start ROOT WORK [CERT KEY]: nginx serving ROOT on 127.0.0.1:$NGINX_PORT (exported),
# over TLS (HTTP/1.1 and HTTP/2) when a certificate and key are given. WORK holds the config,
# pid, logs and temp folders. Waits (bounded) until it answers; fails the test otherwise. The
# readiness probes ask for /__ready, which nginx_requests does not count.
nginx_start() {
    local root=$1 work=$2 cert=${3:-} key=${4:-} try port scheme=http listen="" tls="" user=""
    mkdir -p "$work/tmp"
    [ "$(id -u)" -eq 0 ] && user="user root;" # workers must read the test's 0700 folder
    if [ -n "$cert" ]; then
        scheme=https listen="ssl http2"
        tls="        ssl_certificate $cert;
        ssl_certificate_key $key;"
    fi
    for try in 1 2 3; do
        port=$(net_free_port)
        sed -e "s|@USER@|$user|" -e "s|@WORK@|$work|g" -e "s|@PORT@|$port|" -e "s|@ROOT@|$root|" \
            -e "s|@LISTEN@|$listen|" "$NET_LIB_DIR/nginx.conf.in" |
            awk -v tls="$tls" '$0 == "@TLS@" { print tls; next } { print }' >"$work/nginx.conf"
        rm -f "$work/nginx.pid"
        if nginx -p "$work" -c "$work/nginx.conf" -e "$work/error.log" </dev/null >>"$work/nginx.out" 2>&1; then
            break
        fi
        grep -q "Address already in use" "$work/error.log" "$work/nginx.out" 2>/dev/null || try=3
        [ "$try" -lt 3 ] || net_fatal "nginx did not start (config $work/nginx.conf)" "$work/error.log" "$work/nginx.out"
    done
    NET_NGINX+=("$work")
    local end=$((SECONDS + 10))
    while [ ! -s "$work/nginx.pid" ] && [ $SECONDS -lt $end ]; do sleep 0.1; done
    [ -s "$work/nginx.pid" ] || net_fatal "nginx wrote no pid file" "$work/error.log"
    net_reap "$(cat "$work/nginx.pid")"
    net_wait_http "$scheme://127.0.0.1:$port/__ready" "$NET_START_SECONDS" -k ||
        net_fatal "nginx does not answer on 127.0.0.1:$port" "$work/error.log"
    export NGINX_PORT=$port
}

# nginx_requests WORK [PATTERN]: how many requests nginx logged (without the readiness probes),
# only those whose log line matches the extended regex PATTERN when given (e.g. a path).
nginx_requests() {
    local log=$1/access.log
    [ -f "$log" ] || { echo 0; return; }
    grep -v '/__ready' "$log" | grep -cE "${2:-.}"
}

# nginx_connections WORK: how many distinct connections the logged requests came on.
nginx_connections() {
    [ -f "$1/access.log" ] || { echo 0; return; }
    grep -v '/__ready' "$1/access.log" | awk '{ print $NF }' | sort -u | wc -l
}

# nginx_bytes WORK: body bytes nginx sent for the logged requests.
nginx_bytes() {
    [ -f "$1/access.log" ] || { echo 0; return; }
    grep -v '/__ready' "$1/access.log" | awk '{ n += $2 } END { print n + 0 }'
}

# nginx_log_reset WORK: empties the access log (nginx appends, so later lines land at the top).
nginx_log_reset() { : >"$1/access.log"; }

# nginx_stop WORK: fast shutdown (TERM to the master, which stops its worker), bounded.
nginx_stop() {
    local work=$1
    [ -s "$work/nginx.pid" ] || return 0
    net_kill "$(cat "$work/nginx.pid")"
    rm -f "$work/nginx.pid"
}

# ---- SeaweedFS ---------------------------------------------------------------------------
# weed_start WORK: `weed server` (master, volume, filer, S3 gateway in one process) on free
# loopback ports, data in WORK/data, credentials from tests/cli/s3_config.json (one identity,
# S3_KEY / S3_SECRET, every action). Waits (bounded by NET_START_SECONDS) until an object can be
# written and read back, then exports S3_PORT, AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
# AWS_SECRET_ACCESS_KEY, AWS_REGION (us-east-1), and unsets the other AWS_* that could change
# where or as whom requests go. Its Unix sockets (in /tmp, named by port) are removed at exit.
weed_start() {
    local work=$1 try pid pm pmg pv pvg pf pfg ps3 ps3g
    [ -x "$WEED" ] || net_fatal "no SeaweedFS at $WEED (run scripts/setup.sh)"
    mkdir -p "$work/data" "$work/tmp"
    for try in 1 2 3; do
        read -r pm pmg pv pvg pf pfg ps3 ps3g < <(net_free_port 8)
        TMPDIR=$work/tmp "$WEED" server -ip=127.0.0.1 -ip.bind=127.0.0.1 -dir="$work/data" \
            -master.port="$pm" -master.port.grpc="$pmg" -master.telemetry=false \
            -master.volumeSizeLimitMB=256 -volume.max=16 \
            -volume.port="$pv" -volume.port.grpc="$pvg" \
            -filer.port="$pf" -filer.port.grpc="$pfg" -filer.localSocket="$work/tmp/filer.sock" \
            -s3 -s3.port="$ps3" -s3.port.grpc="$ps3g" -s3.port.iceberg=0 -s3.port.lance=0 \
            -s3.config="$NET_LIB_DIR/s3_config.json" </dev/null >"$work/weed.log" 2>&1 &
        pid=$!
        disown "$pid" 2>/dev/null || true # no "Killed" job notice when it is stopped
        NET_PIDS+=("$pid")
        local socks=(/tmp/seaweedfs-*-{"$pmg","$pvg","$pfg","$ps3","$ps3g"}.sock)
        NET_CLEANUP+=("${socks[@]}")
        net_reap "$pid" "${socks[@]}"
        WEED_PID=$pid
        export S3_PORT=$ps3 AWS_ENDPOINT_URL=http://127.0.0.1:$ps3
        export AWS_ACCESS_KEY_ID=$S3_KEY AWS_SECRET_ACCESS_KEY=$S3_SECRET AWS_REGION=us-east-1
        unset AWS_SESSION_TOKEN AWS_DEFAULT_REGION AWS_PROFILE AWS_CONFIG_FILE AWS_SHARED_CREDENTIALS_FILE
        if weed_ready "$pid" "$work"; then return 0; fi
        kill -0 "$pid" 2>/dev/null && try=3 # it runs but never got ready: no point in a new port
        grep -q "address already in use" "$work/weed.log" || try=3
        if [ "$try" -ge 3 ]; then
            kill -0 "$pid" 2>/dev/null || net_fatal "SeaweedFS ($WEED) exited before its S3 answered on 127.0.0.1:$ps3" "$work/weed.log"
            net_fatal "SeaweedFS S3 not ready on 127.0.0.1:$ps3 within ${NET_START_SECONDS}s" "$work/weed.log"
        fi
        net_kill "$pid"
    done
}

# weed_ready PID WORK: 0 once a canary object round-trips through S3 (the gateway answers
# before the volume server has registered, and a PUT fails until it has).
weed_ready() {
    local pid=$1 work=$2 end=$((SECONDS + NET_START_SECONDS))
    echo ready >"$work/canary"
    while [ $SECONDS -lt $end ] && kill -0 "$pid" 2>/dev/null; do
        if [ "$(weed_curl -o /dev/null -w '%{http_code}' -X PUT "$AWS_ENDPOINT_URL/ringscan-ready")" = 200 ] &&
            [ "$(weed_curl -o /dev/null -w '%{http_code}' -X PUT -T "$work/canary" "$AWS_ENDPOINT_URL/ringscan-ready/canary")" = 200 ] &&
            [ "$(weed_curl "$AWS_ENDPOINT_URL/ringscan-ready/canary")" = ready ]; then
            return 0
        fi
        sleep 0.3
    done
    return 1
}

# weed_curl ARGS...: curl signed for the test identity (SigV4, UNSIGNED-PAYLOAD), bounded.
weed_curl() {
    curl -s --max-time 30 --aws-sigv4 "aws:amz:us-east-1:s3" --user "$S3_KEY:$S3_SECRET" \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"
}

# weed_mkbucket BUCKET: creates it (an existing one is fine); fails the test otherwise.
weed_mkbucket() {
    local code; code=$(weed_curl -o "$dir/.mkbucket" -w '%{http_code}' -X PUT "$AWS_ENDPOINT_URL/$1")
    [ "$code" = 200 ] || grep -q BucketAlreadyOwnedByYou "$dir/.mkbucket" ||
        net_fatal "create bucket $1: HTTP $code $(head -c 300 "$dir/.mkbucket")"
}

# weed_put BUCKET KEY FILE: uploads FILE and checks its size from a HEAD; fails the test otherwise.
weed_put() {
    local url=$AWS_ENDPOINT_URL/$1/$2 code len
    code=$(weed_curl -o "$dir/.put" -w '%{http_code}' -X PUT -T "$3" "$url")
    [ "$code" = 200 ] || net_fatal "PUT $url: HTTP $code $(head -c 300 "$dir/.put")"
    len=$(weed_curl -I "$url" | tr -d '\r' | sed -nE 's/^[Cc]ontent-[Ll]ength: *([0-9]+).*/\1/p')
    [ "$len" = "$(stat -c %s "$3")" ] || net_fatal "PUT $url: HEAD says ${len:-nothing} bytes, file has $(stat -c %s "$3")"
}

# weed_rss_kb: resident memory of the running SeaweedFS in KiB (for reports, never asserted).
weed_rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/${WEED_PID:-0}/status" 2>/dev/null || echo 0; }

# weed_stop WORK: stops the server (bounded) and removes its sockets.
weed_stop() {
    [ -n "${WEED_PID:-}" ] && net_kill "$WEED_PID"
    [ ${#NET_CLEANUP[@]} -eq 0 ] || rm -f ${NET_CLEANUP[@]} # globs (no spaces in them)
}

# ---- the fault proxy (tests/cli/fault_proxy.py) -------------------------------------------
# proxy_start UPSTREAM_PORT LATENCY_MS [BW_BYTES_PER_S]: the proxy on 127.0.0.1:$PROXY_PORT
# (exported) in front of 127.0.0.1:UPSTREAM_PORT; waits (bounded) until /__stats answers. One
# proxy at a time (PROXY_PID); its log is $dir/proxy.log.
proxy_start() {
    local up=$1 lat=${2:-0} bw=${3:-0} try port
    for try in 1 2 3; do
        port=$(net_free_port)
        python3 "$NET_LIB_DIR/fault_proxy.py" --listen-port "$port" --upstream-port "$up" \
            --latency-ms "$lat" --bw "$bw" --max-seconds "$NET_MAX_SECONDS" \
            </dev/null >>"$dir/proxy.log" 2>&1 &
        PROXY_PID=$!
        disown "$PROXY_PID" 2>/dev/null || true
        NET_PIDS+=("$PROXY_PID")
        net_reap "$PROXY_PID"
        if net_wait_http "http://127.0.0.1:$port/__stats" 10 && kill -0 "$PROXY_PID" 2>/dev/null; then
            export PROXY_PORT=$port
            return 0
        fi
        net_kill "$PROXY_PID"
        grep -q "Address already in use" "$dir/proxy.log" || try=3
    done
    net_fatal "fault proxy did not start" "$dir/proxy.log"
}

# proxy_fault MODE COUNT: the next COUNT requests forwarded get MODE (503 slowdown reset stall
# short; none clears). Fails the test when the proxy refuses.
proxy_fault() {
    local r; r=$(curl -s --max-time 5 "http://127.0.0.1:$PROXY_PORT/__fault?mode=$1&count=$2")
    echo "$r" | grep -q '"mode"' || net_fatal "proxy_fault $1 $2: $r" "$dir/proxy.log"
}

# proxy_stats [FIELD]: the proxy's /__stats JSON, or one top-level number from it.
proxy_stats() {
    local j; j=$(curl -s --max-time 5 "http://127.0.0.1:$PROXY_PORT/__stats")
    if [ -z "${1:-}" ]; then echo "$j"; return; fi
    echo "$j" | python3 -c 'import json,sys; v=json.load(sys.stdin); [v:=v[k] for k in sys.argv[1].split(".")]; print(v)' "$1"
}

proxy_stop() { [ -n "${PROXY_PID:-}" ] && net_kill "$PROXY_PID"; PROXY_PID=; }

# ---- ringscan runs -----------------------------------------------------------------------
# net_mask: stdin to stdout with the test secret replaced, so a failure message about a leak
# does not itself spread the secret through test logs.
net_mask() { sed "s|$S3_SECRET|<SECRET>|g"; }

# Every run is bounded by NET_CMD_SECONDS (default 120; `timeout` exit 124 is a failure).
NET_CMD_SECONDS=${NET_CMD_SECONDS:-120}

# rs OUT ERR ARGS...: `$R ARGS` with stdout in OUT and stderr in ERR; sets RS_RC (its exit
# status) and RS_MS (its wall time in ms, for bounds and reports, never for speed asserts).
rs() {
    local out=$1 err=$2 t0; shift 2
    t0=$(date +%s%N)
    timeout -k 5 "$NET_CMD_SECONDS" "$R" "$@" >"$out" 2>"$err"
    RS_RC=$?
    RS_MS=$((($(date +%s%N) - t0) / 1000000))
}

# net_gen_lineitem FILE: the network tests' data, lineitem sf 0.01 in 4 row groups of 15000
# rows with 1000-row pages (several splits and reads per scan).
net_gen_lineitem() {
    "$R" gen lineitem --sf 0.01 --row-group-rows 15000 --page-rows 1000 -o "$1" >/dev/null ||
        net_fatal "gen lineitem failed"
}

# The query shapes net_shapes_same runs: everything; two columns behind one conjunct; three
# columns behind two.
NET_COLS=("" "l_orderkey,l_comment" "l_orderkey,l_extendedprice,l_shipdate")
NET_WHERES=("" "l_quantity < 5" "l_shipmode = 'AIR' AND l_quantity < 5")

# net_shapes_same LOCAL URL I...: scan_same for shapes I of NET_COLS/NET_WHERES under every
# policy on 1 and 2 threads, in file order (byte for byte) and --unordered (as a set of lines).
net_shapes_same() {
    local loc=$1 url=$2 i p t; shift 2
    for i in "$@"; do
        local args=()
        [ -n "${NET_COLS[$i]}" ] && args+=(--columns "${NET_COLS[$i]}")
        [ -n "${NET_WHERES[$i]}" ] && args+=(--where "${NET_WHERES[$i]}")
        for p in lazy eager adaptive; do
            for t in 1 2; do
                scan_same "shape $i $p t$t" "$loc" "$url" "${args[@]}" --policy "$p" --threads "$t" --format csv
                scan_same "shape $i $p t$t unordered" "$loc" "$url" "${args[@]}" --policy "$p" --threads "$t" --unordered --format csv
            done
        done
    done
}

# scan_same LABEL LOCAL URL ARGS... [--url-args ARGS...]: `ringscan scan URL ARGS` exits 0 and
# prints what `ringscan scan LOCAL ARGS` prints: byte for byte (rows come in file order by
# default), or as the same lines in any order with --unordered, which promises no row order
# (even on one thread splits may finish in another order when reads take longer). Arguments
# after --url-args go to the URL's run only (e.g. --tls-insecure). One check; on a failure it
# names the case and shows the head of stderr and the first differing line. Leaves the URL
# run's stdout in $dir/got, its stderr in $dir/got.err, RS_RC and RS_MS.
scan_same() {
    local label=$1 loc=$2 url=$3 sorted=0 a; shift 3
    local common=() extra=()
    while [ $# -gt 0 ] && [ "$1" != --url-args ]; do common+=("$1"); shift; done
    [ $# -gt 0 ] && { shift; extra=("$@"); }
    for a in "${common[@]}"; do [ "$a" = --unordered ] && sorted=1; done
    : >"$dir/got.err"
    rs "$dir/want" "$dir/want.err" scan "$loc" "${common[@]}"
    if [ "$RS_RC" -ne 0 ]; then bad "$label: local scan exited $RS_RC: $(net_mask <"$dir/want.err" | head -c 300)"; return 1; fi
    rs "$dir/got" "$dir/got.err" scan "$url" "${common[@]}" "${extra[@]}"
    set -- "${common[@]}" "${extra[@]}"
    if [ "$RS_RC" -ne 0 ]; then bad "$label: scan $url $* exited $RS_RC after ${RS_MS} ms: $(net_mask <"$dir/got.err" | head -c 400)"; return 1; fi
    if [ $sorted -eq 1 ]; then
        LC_ALL=C sort "$dir/want" >"$dir/want.s"; LC_ALL=C sort "$dir/got" >"$dir/got.s"
        cmp -s "$dir/want.s" "$dir/got.s" || { bad "$label: scan $url $* (sorted) differs: $(diff "$dir/want.s" "$dir/got.s" | head -n 3)"; return 1; }
    else
        cmp -s "$dir/want" "$dir/got" || { bad "$label: scan $url $* differs: $(diff "$dir/want" "$dir/got" | head -n 3)"; return 1; }
    fi
    [ -s "$dir/got" ] || { bad "$label: scan $url $* printed nothing"; return 1; }
    ok
}

# meta_same LABEL LOCAL URL: `ringscan meta URL` prints what `ringscan meta LOCAL` does, the
# name it was given aside.
meta_same() {
    local label=$1 loc=$2 url=$3
    rs "$dir/mwant" "$dir/mwant.err" meta "$loc"
    rs "$dir/mgot" "$dir/mgot.err" meta "$url"
    if [ "$RS_RC" -ne 0 ]; then bad "$label: meta $url exited $RS_RC: $(net_mask <"$dir/mgot.err" | head -c 400)"; return 1; fi
    if ! diff -q <(sed "s|$loc|NAME|g" "$dir/mwant") <(sed "s|$url|NAME|g" "$dir/mgot") >/dev/null; then
        bad "$label: meta $url differs: $(diff <(sed "s|$loc|NAME|g" "$dir/mwant") <(sed "s|$url|NAME|g" "$dir/mgot") | head -n 4)"
        return 1
    fi
    ok
}

# scan_fails LABEL SECONDS PATTERN... -- ARGS...: `ringscan ARGS` exits non-zero (not by the
# timeout) within SECONDS, and stderr matches every extended regex PATTERN (case-insensitive).
scan_fails() {
    local label=$1 secs=$2 p; shift 2
    local pats=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do pats+=("$1"); shift; done
    shift
    rs "$dir/fout" "$dir/ferr" "$@"
    if [ "$RS_RC" -eq 0 ]; then bad "$label: $* exited 0"; return 1; fi
    if [ "$RS_RC" -eq 124 ] || [ "$RS_RC" -eq 137 ]; then bad "$label: $* killed by the ${NET_CMD_SECONDS}s timeout"; return 1; fi
    if [ "$RS_MS" -gt $((secs * 1000)) ]; then bad "$label: $* took ${RS_MS} ms to fail, bound ${secs} s"; return 1; fi
    for p in "${pats[@]}"; do
        grep -qiE -- "$p" "$dir/ferr" || { bad "$label: $* (exit $RS_RC): stderr lacks /$p/: $(net_mask <"$dir/ferr" | head -c 400)"; return 1; }
    done
    ok
}

# net_copies_want LOCAL [COLS]: "N BYTES", the body copies a whole scan of LOCAL's object
# (projecting COLS, default all) makes over HTTP or S3 (io/store_http.h invariant 2): its
# footer read, copied from the open's GET of the object's last MiB (all of it when the object
# is smaller), and the one read whose column chunk begins before that MiB and ends inside it,
# copied from there up to the chunk's end (chunks wholly inside are the scan's kept bytes:
# never read, never copied). From `meta --json`'s chunk offsets, not from the scan.
net_copies_want() {
    local size; size=$(stat -c %s "$1")
    "$R" meta --json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
size, cols = int(sys.argv[1]), sys.argv[2].split(",") if sys.argv[2] else None
tail = min(size, 1 << 20)
n, b = 1, tail
for rg in d["row_groups"]:
    for c in rg["columns"]:
        s = min(c.get("dictionary_page_offset", c["data_page_offset"]), c["data_page_offset"])
        e = s + c["compressed_size"]
        if s < size - tail < e and (cols is None or c["column"] in cols):
            n, b = n + 1, b + e - (size - tail)
print(n, b)' "$size" "${2:-}"
}

# net_copies_same LABEL LOCAL URL [COLS] ARGS...: a whole scan of URL (projecting COLS, ""
# for all) with ARGS exits 0 and its --stats=json counts body_copies and body_bytes_copied
# exactly as net_copies_want says. One check.
net_copies_same() {
    local label=$1 local=$2 url=$3 cols=$4; shift 4
    local want got
    want=$(net_copies_want "$local" "$cols")
    rs "$dir/cout" "$dir/cerr" scan "$url" ${cols:+--columns "$cols"} --format checksum --stats=json "$@"
    got=$(grep -o '"body_copies":[0-9]*,"body_bytes_copied":[0-9]*' "$dir/cerr" | tr -dc '0-9,' | tr , ' ')
    check '[ "$RS_RC" -eq 0 ] && [ -n "$want" ] && [ "$got" = "$want" ]' \
        "$label: exit $RS_RC, body copies and bytes '$got', want '$want' (the footer's and a straddling chunk's): $(net_mask <"$dir/cerr" | head -c 300)"
}
