#!/usr/bin/env bash
# tests/cli/lazy_libs.sh: libcurl is loaded on the first http(s):// or s3:// open (io/curl_dl.h)
# and cairo when a chart is drawn (bench/chart.c; bench_chart.sh tests that side), not linked:
# a process that reads local files maps neither. Run by tests/run.sh with $RINGSCAN = the
# binary and cwd = the project root.
#  1. Neither the binary nor libringscan.so names libcurl, cairo or fontconfig among its
#     needed libraries.
#  2. With a broken libcurl.so.4 first on the library path, a local scan and meta still work
#     (nothing loads it), and an http:// scan fails (exit 1) naming the URL, the loader's
#     reason and the package to install, without a crash.
#  3. With the real libcurl, an http:// scan of nginx's copy of a file equals the local scan
#     (the loaded functions work; http_nginx.sh covers the rest).
#  2b. With a libcurl.so.4 (or the fallback) lacking a function (a libcurl older than 7.66),
#     the http:// scan fails (exit 1) naming the file loaded, the function and what to install.
#  4. With libcurl.so.4 broken and Debian's libcurl-gnutls.so.4 installed, the same scan
#     through the fallback (skipped where that library is absent).
# Last line: "lazy_libs: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/net_lib.bash"

# 1. no link-time dependency
check '! readelf -d "$R" | grep -qE "NEEDED.*(libcurl|libcairo|libfontconfig)"' \
    "the binary links libcurl or cairo: $(readelf -d "$R" | grep NEEDED | tr '\n' ' ')"
so=$(cd "$(dirname "$R")/.." && pwd)/lib/libringscan.so
if [ -f "$so" ]; then
    check '! readelf -d "$so" | grep -qE "NEEDED.*(libcurl|libcairo|libfontconfig)"' "libringscan.so links libcurl or cairo"
fi

www=$dir/www
mkdir -p "$www" "$dir/ng" "$dir/badlib"
li=$www/lineitem.parquet
net_gen_lineitem "$li"
"$R" scan "$li" --format checksum >"$dir/local" 2>&1
check 'grep -q "^rows 60134 checksum" "$dir/local"' "local scan: $(head -c 300 "$dir/local")"

# 2. a broken libcurl.so.4 found first
echo "not a library" >"$dir/badlib/libcurl.so.4"
cp "$dir/badlib/libcurl.so.4" "$dir/badlib/libcurl-gnutls.so.4" # the fallback, if installed
LD_LIBRARY_PATH=$dir/badlib "$R" scan "$li" --format checksum >"$dir/out" 2>&1; rc=$?
check '[ $rc -eq 0 ] && cmp -s "$dir/out" "$dir/local"' "local scan beside a broken libcurl: exit $rc: $(head -c 300 "$dir/out")"
LD_LIBRARY_PATH=$dir/badlib "$R" meta "$li" >"$dir/out" 2>&1; rc=$?
check '[ $rc -eq 0 ]' "meta beside a broken libcurl: exit $rc: $(head -c 300 "$dir/out")"
u=http://127.0.0.1:9/lineitem.parquet
LD_LIBRARY_PATH=$dir/badlib timeout 60 "$R" scan "$u" --format checksum >"$dir/out" 2>"$dir/err"; rc=$?
check '[ $rc -eq 1 ] && [ ! -s "$dir/out" ]' "http scan with a broken libcurl: exit $rc, want 1: $(head -c 300 "$dir/out")"
check 'grep -q "$u" "$dir/err" && grep -q "libcurl.so.4" "$dir/err" && grep -q "libcurl4" "$dir/err"' \
    "the error names the URL, the library and the package: $(head -c 400 "$dir/err")"

# 2b. a libcurl without a function ringscan calls (older than 7.66: no curl_multi_poll): the
# error names the file that was loaded (also the fallback's) and what to install, not a crash
mkdir -p "$dir/oldlib" "$dir/oldlib2"
printf 'int curl_global_init(long f) { (void)f; return 0; }\nvoid *curl_easy_init(void) { return 0; }\n' >"$dir/old.c"
if gcc -shared -fPIC "$dir/old.c" -o "$dir/oldlib/libcurl.so.4" 2>"$dir/cc.err"; then
    LD_LIBRARY_PATH=$dir/oldlib timeout 60 "$R" scan "$u" --format checksum >"$dir/out" 2>"$dir/err"; rc=$?
    check '[ $rc -eq 1 ] && grep -q "$u: .*libcurl.so.4 has no curl_easy_setopt (.*libcurl 7.66 or later.*libcurl4)" "$dir/err"' \
        "a libcurl without curl_easy_setopt: exit $rc: $(head -c 400 "$dir/err")"
    cp "$dir/badlib/libcurl.so.4" "$dir/oldlib2/libcurl.so.4"
    cp "$dir/oldlib/libcurl.so.4" "$dir/oldlib2/libcurl-gnutls.so.4"
    LD_LIBRARY_PATH=$dir/oldlib2 timeout 60 "$R" scan "$u" --format checksum >"$dir/out" 2>"$dir/err"; rc=$?
    check '[ $rc -eq 1 ] && grep -q "libcurl-gnutls.so.4 has no curl_easy_setopt (.*libcurl4)" "$dir/err"' \
        "the fallback without curl_easy_setopt: exit $rc: $(head -c 400 "$dir/err")"
else
    bad "gcc could not build a stub libcurl: $(head -c 300 "$dir/cc.err")"
fi

# 3. the real libcurl, loaded
nginx_start "$www" "$dir/ng"
timeout 120 "$R" scan "http://127.0.0.1:$NGINX_PORT/lineitem.parquet" --format checksum >"$dir/out" 2>&1
check 'cmp -s "$dir/out" "$dir/local"' "http scan: $(head -c 300 "$dir/out") (local: $(cat "$dir/local"))"
# 4. libcurl.so.4 broken but Debian's GnuTLS build present: the fallback reads the same rows
if ldconfig -p | grep -q "libcurl-gnutls.so.4 "; then
    rm "$dir/badlib/libcurl-gnutls.so.4"
    LD_LIBRARY_PATH=$dir/badlib timeout 120 "$R" scan "http://127.0.0.1:$NGINX_PORT/lineitem.parquet" \
        --format checksum >"$dir/out" 2>&1
    check 'cmp -s "$dir/out" "$dir/local"' "http scan through libcurl-gnutls.so.4: $(head -c 300 "$dir/out")"
else
    echo "skip: no libcurl-gnutls.so.4 here (the fallback is not tested)"
fi
summary lazy_libs
