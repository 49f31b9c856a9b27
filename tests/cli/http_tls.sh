#!/usr/bin/env bash
# tests/cli/http_tls.sh: HTTPS with verification on (issue 20): nginx started here with a
# self-signed certificate made by openssl for 127.0.0.1 only (tests/cli/net_lib.bash). Run by
# tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
#  0. The server itself: curl with the certificate as CA gets the file intact, curl without it
#     is refused (so what follows tests ringscan, not the setup).
#  1. Default verification: the scan fails, naming the URL and the certificate.
#  2. --tls-insecure: the local file's exact result, and a warning on stderr.
#  3. CURL_CA_BUNDLE = the certificate: the exact result (on 1 and 2 threads), meta too.
#  4. Host verification stays on: the same server as https://localhost (not in the
#     certificate) with the certificate trusted still fails, naming the certificate or host.
# Last line: "http_tls: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/net_lib.bash"

www=$dir/www
mkdir -p "$www" "$dir/ng"
li=$www/lineitem.parquet
net_gen_lineitem "$li"
cert=$dir/cert.pem key=$dir/key.pem
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" \
    -addext "subjectAltName=IP:127.0.0.1" -keyout "$key" -out "$cert" >"$dir/openssl.log" 2>&1 ||
    net_fatal "openssl could not make a certificate" "$dir/openssl.log"
nginx_start "$www" "$dir/ng" "$cert" "$key"
u=https://127.0.0.1:$NGINX_PORT/lineitem.parquet

# 0. the server
check 'curl -s --max-time 10 --cacert "$cert" "$u" | cmp -s - "$li"' "curl --cacert: the file differs"
curl -s -o /dev/null --max-time 10 "$u"; rc=$?
check '[ $rc -eq 60 ]' "curl without the CA: exit $rc, want 60 (certificate refused)"
unset CURL_CA_BUNDLE SSL_CERT_FILE SSL_CERT_DIR

# 1. default verification
scan_fails "default verify" 60 "127.0.0.1:$NGINX_PORT/lineitem.parquet" "certificate" -- scan "$u" --format csv
scan_fails "default verify meta" 60 "127.0.0.1:$NGINX_PORT/lineitem.parquet" "certificate" -- meta "$u"

# 2. --tls-insecure
scan_same "insecure" "$li" "$u" --threads 1 --format csv --url-args --tls-insecure
check 'grep -qiE "insecure|verif" "$dir/got.err"' "--tls-insecure printed no warning: $(head -c 300 "$dir/got.err")"

# 3. the certificate as CA bundle
export CURL_CA_BUNDLE=$cert
nginx_log_reset "$dir/ng"
scan_same "CA bundle t1" "$li" "$u" --threads 1 --format csv
scan_same "CA bundle t2" "$li" "$u" --columns l_orderkey,l_comment --where "l_quantity < 5" --threads 2 --ordered --format csv
meta_same "CA bundle meta" "$li" "$u"
check '[ "$(nginx_requests "$dir/ng" " /lineitem.parquet HTTP/")" -ge 1 ]' "nginx logged no request for the file"
echo "http_tls: protocols seen by nginx: $(grep -v __ready "$dir/ng/access.log" | grep -oE 'HTTP/[0-9.]+"' | sort | uniq -c | tr '\n' ' ')"
# nginx offers HTTP/2 over TLS (listen ssl http2): every request of ringscan's used it
check '! grep -v __ready "$dir/ng/access.log" | grep -qE " /lineitem.parquet HTTP/1"' \
    "a request went over HTTP/1 where the server offers HTTP/2"
check 'grep -qE " /lineitem.parquet HTTP/2.0" "$dir/ng/access.log"' "no request went over HTTP/2"

# 4. host verification
scan_fails "host mismatch" 60 "localhost:$NGINX_PORT/lineitem.parquet" "certificate|host" -- scan "https://localhost:$NGINX_PORT/lineitem.parquet" --format csv
unset CURL_CA_BUNDLE

nginx_stop "$dir/ng"
summary http_tls
