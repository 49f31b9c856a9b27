#!/usr/bin/env bash
# tests/cli/http_hostile.sh: `ringscan scan`/`meta` against a hostile or broken HTTP server
# (tests/cli/hostile_http.py, one fault per URL path; issue 20). Run by tests/run.sh with
# $RINGSCAN = the binary and cwd = the project root. With RINGSCAN_HTTP_RETRIES=2 and
# RINGSCAN_HTTP_TIMEOUT_MS=2000:
#  1. Answers that are right in another form read exactly (byte for byte against the local
#     file): chunked bodies, 301/302/307 redirects (one to another host name), a URL with a
#     query string (a presigned URL's signature is no pattern), interim 100 and 103 answers
#     before the 206, a server that answers the
#     open's suffix range with the whole object (then asked for an explicit range), a read
#     whose connection closes mid-body without a Content-Length (retried).
#  2. Answers that are wrong fail, never a silently short or wrong result, each naming the URL,
#     the byte range asked and what was wrong: no or a wrong Content-Range (one that does not
#     parse quoted, not called missing; one that starts
#     where asked and ends past the range over a body of the range's length was read before:
#     the server's account of its bytes disagrees with itself), a short or long
#     body, a cut connection, a 404 with an S3 code (and one with 256 MiB of body sent slowly:
#     only its first KiB is read), a redirect loop; an object that changed
#     between the open and a read (another size; the same size with another ETag; emptied: a
#     416), unless told (--unsafe-disable-etag-checks: an ETag changing per request reads);
#     256 MiB of headers; a server that ignores Range; a body with a Content-Encoding; no HTTP
#     at all; an object that claims 2^63 bytes more than it has (its tail where the claim puts
#     it, the rest short).
#  2b. A dataset file's error names its URL once; a listing whose server repeats or cycles
#     its continuation token stops at once naming it.
#  2c. A footer fetched as 8 parallel ranged GETs: a part cut once is retried (the footer
#     exact); a part failing for good after the others succeeded, one cut on every try, one
#     whose Content-Range ends past its range fail naming the part's range.
#  3. Drips are bounded: a body or an error body sent a byte every 0.3 s ends as a timeout
#     (a try must move 1 KiB/s over the timeout's window), after at most 3 tries; so do a
#     server that never answers and one that drips its headers without end.
#  4. A URL's userinfo password never appears in any output, whatever the answer, and never
#     goes to another host on a redirect.
#  5. A dataset's URL, opened by a task on a core (its open request awaited there), reads and
#     fails as the file's scan does.
# Last line: "http_hostile: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/net_lib.bash"

www=$dir/www
mkdir -p "$www"
li=$www/li.parquet
net_gen_lineitem "$li"
"$R" gen lineitem --sf 0.02 --row-group-rows 15000 --page-rows 1000 -o "$li.big" >/dev/null ||
    net_fatal "gen lineitem (big) failed"
python3 - "$li" <<'PY' # the same size, other bytes (a rewrite the size alone does not show)
import sys
d = bytearray(open(sys.argv[1], "rb").read())
for i in range(1000, 1100): d[i] ^= 0x55
open(sys.argv[1] + ".alt", "wb").write(d)
PY

hostile_start() {
    local try port pid
    for try in 1 2 3; do
        port=$(net_free_port)
        python3 "$NET_LIB_DIR/hostile_http.py" --root "$www" --port "$port" --log "$dir/hostile.log" \
            --max-seconds "$NET_MAX_SECONDS" </dev/null >>"$dir/hostile.out" 2>&1 &
        pid=$!
        disown "$pid" 2>/dev/null || true
        NET_PIDS+=("$pid")
        net_reap "$pid"
        if net_wait_http "http://127.0.0.1:$port/ok/none" 10 && kill -0 "$pid" 2>/dev/null; then
            HOSTILE_PORT=$port
            return 0
        fi
        net_kill "$pid"
    done
    net_fatal "hostile_http.py did not start" "$dir/hostile.out"
}
hostile_start
export RINGSCAN_HTTP_RETRIES=2 RINGSCAN_HTTP_TIMEOUT_MS=2000
base=http://127.0.0.1:$HOSTILE_PORT
tries() { grep -c "^$1 " "$dir/hostile.log"; }

# 1. right in another form
for m in ok chunked redir301 redir302 redir307 redirhost latechunked nosuffix cutonce cont100; do
    scan_same "$m" "$li" "$base/$m/li.parquet" --threads 2 --ordered --format csv
done
scan_same "query string" "$li" "$base/ok/li.parquet?X-Amz-Signature=ab%2Fc&x=1" --threads 1 --format csv
meta_same "meta with a query string" "$li" "$base/ok/li.parquet?v=1"

# 2. wrong answers: the URL, the range, the cause
for f in "latenocr|Content-Range missing" "latewrongcr|Content-Range elsewhere" \
    "lateshortcr|short body" "lateoverlong|longer than" "latecut|short body.*after 3 tries" \
    "late404xml|HTTP 404 NoSuchKey" "hugeerr|HTTP 404 NoSuchKey" "redirloop|redirect" \
    "403|HTTP 403 \\(after|HTTP 403$" \
    "grow|changed since it was opened.*size 2" "same|changed since it was opened.*ETag" \
    "hugehdr|too large response headers" "norange|ignores Range" "gzip|Content-Encoding" \
    "shrink|changed since it was opened.*now: size 0" "garbage|HTTP/0.9" \
    "hugetotal|does not answer the range" \
    "latelastcr|Content-Range elsewhere: bytes [0-9]+-[0-9]+/[0-9]+" \
    "latebackcr|Content-Range 'bytes [0-9]+-[0-9]+/[0-9]+' does not parse"; do
    m=${f%%|*}
    scan_fails "$m" 60 "127.0.0.1:$HOSTILE_PORT/$m/li.parquet" "GET bytes=[0-9]*-[0-9]*" "${f#*|}" -- \
        scan "$base/$m/li.parquet" --threads 2 --format csv
    check '[ "$(wc -l <"$dir/fout")" -le 1 ]' "$m: a failed scan printed rows: $(sed -n 2p "$dir/fout" | head -c 200)"
    check '! grep -q "no credentials" "$dir/ferr"' "$m: an http:// URL's error speaks of credentials: $(net_mask <"$dir/ferr" | head -c 300)"
    check '[ "$(grep -o "$m/li.parquet" "$dir/ferr" | wc -l)" -eq 1 ]' "$m: the URL is not named once: $(net_mask <"$dir/ferr" | head -c 300)"
done
# a dataset's file: its read error names the URL once too (ds_file_errf and io/ share one rule)
cp "$li" "$www/ds.parquet" # a name of its own: "late" counts requests per mode and name
scan_fails "dataset latenocr" 60 "127.0.0.1:$HOSTILE_PORT/latenocr/ds.parquet" "GET bytes=[0-9]*-[0-9]*" \
    "Content-Range missing" -- scan "$base/ok/li.parquet" "$base/latenocr/ds.parquet" --threads 2 --format csv
check '[ "$(grep -o "latenocr/ds.parquet" "$dir/ferr" | wc -l)" -eq 1 ]' "dataset: the URL is not named once: $(head -c 300 "$dir/ferr")"
# an ETag that changes while the bytes do not: an error by default, read exactly when told
scan_fails "etagflip" 60 "127.0.0.1:$HOSTILE_PORT/etagflip/li.parquet" "changed since it was opened.*ETag" -- \
    scan "$base/etagflip/li.parquet" --threads 2 --format csv
scan_same "etagflip --unsafe-disable-etag-checks" "$li" "$base/etagflip/li.parquet" --threads 2 \
    --ordered --format csv --url-args --unsafe-disable-etag-checks
cp "$li" "$www/g2.parquet" && cp "$li.big" "$www/g2.parquet.big" # "grow" from its 2nd request
scan_fails "grow --unsafe-disable-etag-checks" 60 "changed since it was opened.*size 2" -- \
    scan "$base/grow/g2.parquet" --threads 2 --format csv --unsafe-disable-etag-checks
# a listing whose server repeats a token (or cycles, or truncates without one) stops at once,
# naming the URL and the token, instead of listing the same keys up to 10000 pages
for f in "listrepeat|page 2's continuation token 'tokA' came before" \
    "listcycle|page 3's continuation token 'tokA' came before" \
    "listnotoken|truncated page without a continuation token.*token 'tokA'"; do
    m=${f%%|*}
    AWS_ENDPOINT_URL=$base/$m scan_fails "$m" 60 "s3://bkt/ds/: listing" "${f#*|}" -- \
        scan 's3://bkt/ds/*.parquet' --format count
    n=$(tries "$m")
    check '[ "$n" -le 3 ]' "$m: $n listing requests (want at most 3: it stops at the first repeat)"
done
# latecut: the open once, then each range read tried at most 3 times and the failing one exactly
# 3 (how many ranges the cores sent before the scan failed depends on timing and coalescing)
grep "^latecut " "$dir/hostile.log" | awk '$2 !~ /^bytes=-/ {print $2}' | sort | uniq -c >"$dir/cut_tries"
n=$(tries latecut)
most=$(awk 'BEGIN {m = 0} $1 > m {m = $1} END {print m}' "$dir/cut_tries")
check '[ "$(grep -c "^latecut bytes=-" "$dir/hostile.log")" -eq 1 ] && [ "$most" -eq 3 ]' \
    "latecut: $n requests, tries per range: $(tr '\n' ' ' <"$dir/cut_tries") (want the open once, at most 3 per range, one range 3 times)"

# 2c. a footer longer than the open's 1 MiB tail comes as 8 parallel ranged GETs
# (io/store_http_parts.c): a part cut once is retried and the footer read exactly; a part
# that fails for good after the others succeeded (the 5th request: a 404), one cut on every
# try, one whose Content-Range ends past it: meta fails naming that part's range (the
# sanitizer pass checks that the other parts' handles and buffers are freed once)
"$R" gen lineitem --sf 0.02 --row-group-rows 25 -o "$www/parts.parquet" >/dev/null ||
    net_fatal "gen lineitem (parts) failed"
for n in pc pf pk pl; do ln -f "$www/parts.parquet" "$www/$n.parquet"; done
# (a longer timeout: 8 parts of 720 KB from this one-threaded server on a loaded machine)
RINGSCAN_HTTP_TIMEOUT_MS=20000 meta_same "parts: one cut once" "$www/parts.parquet" "$base/cutonce/pc.parquet"
check '[ "$(grep -c "^cutonce bytes=[0-9]" "$dir/hostile.log")" -ge 9 ]' \
    "parts: $(grep -c "^cutonce bytes=[0-9]" "$dir/hostile.log") ranged GETs, want 8 parts and a retry"
for f in "fail5/pf|HTTP 404 NoSuchKey" "latecut/pk|short body.*after 3 tries" \
    "latelastcr/pl|Content-Range elsewhere: bytes [0-9]+-[0-9]+/"; do
    RINGSCAN_HTTP_TIMEOUT_MS=20000 scan_fails "parts: ${f%%|*}" 120 "${f%%|*}.parquet" \
        "GET bytes=[0-9]+-[0-9]+: .*${f#*|}" -- meta "$base/${f%%|*}.parquet"
done

# 3. drips end as timeouts, bounded in tries
for m in drip dripeerr latedrip mute driphdr; do
    scan_fails "$m" 60 "127.0.0.1:$HOSTILE_PORT/$m/li.parquet" "timed out" -- scan "$base/$m/li.parquet" --threads 1 --format csv
done
n=$(tries drip)
check '[ "$n" -eq 3 ]' "drip: $n requests (want 3: the first try and 2 retries)"

# 4. a password in the URL stays out of every output
secret=hostilePW0123456789
for m in ok late404xml latenocr grow; do
    rs "$dir/o" "$dir/e" scan "http://user:$secret@127.0.0.1:$HOSTILE_PORT/$m/li.parquet" --columns l_orderkey \
        --threads 2 --explain --stats --format checksum
    check '! grep -qF "$secret" "$dir/o" "$dir/e"' "$m: the URL's password is printed (exit $RS_RC)"
done
# a redirect to another host name takes no credentials along (curl's default, kept)
a0=$(grep -c "^ok .* auth$" "$dir/hostile.log")
rs "$dir/o" "$dir/e" scan "http://user:$secret@127.0.0.1:$HOSTILE_PORT/redirhost/li.parquet" --format checksum
a1=$(grep -c "^ok .* auth$" "$dir/hostile.log") r1=$(grep -c "^redirhost .* auth$" "$dir/hostile.log")
check '[ "$RS_RC" -eq 0 ] && [ "$r1" -ge 1 ] && [ "$a1" -eq "$a0" ]' "redirhost with a password: exit $RS_RC, $r1 requests with it to 127.0.0.1, $((a1 - a0)) to localhost (want 0)"
rs "$dir/o" "$dir/e" meta "http://user:$secret@127.0.0.1:$HOSTILE_PORT/ok/li.parquet"
check '[ "$RS_RC" -eq 0 ] && ! grep -qF "$secret" "$dir/o" "$dir/e"' "meta: exit $RS_RC or the URL's password is printed"

# 5. the same through a dataset (the URL beside a local file): its footer is opened by a task
#    on the runtime's cores, the open's suffix GET sent on the core's multi handle and awaited
#    there (io_file_open_await): right answers in another form read as the local file does, and
#    wrong answers to the open fail naming the URL and the cause
for m in chunked redir301 redirhost nosuffix; do
    scan_same "dataset $m" "$li" "$base/$m/li.parquet" "$li" --threads 2 --format csv
done
# the tail asked again as an explicit range, its first try cut: retried as any read (the
# re-ask had cleared the request's start time, so a task's open never retried it)
scan_same "dataset nosuffixcut" "$li" "$base/nosuffixcut/li.parquet" "$li" --threads 2 --format csv
check '[ "$(tries nosuffixcut)" -ge 3 ]' "nosuffixcut: $(tries nosuffixcut) requests (want the suffix, the cut range and its retry)"
for f in "hugeerr|HTTP 404 NoSuchKey" "redirloop|redirect" "drip|timed out" "latenocr|Content-Range missing"; do
    m=${f%%|*}
    scan_fails "dataset $m" 60 "127.0.0.1:$HOSTILE_PORT/$m/li.parquet" "GET bytes=" "${f#*|}" -- \
        scan "$base/$m/li.parquet" "$li" --threads 2 --format csv
done
summary http_hostile
