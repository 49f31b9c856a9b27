#!/usr/bin/env bash
# tests/cli/http_s3.sh: `ringscan scan` and `ringscan meta` on s3:// URLs against a real
# S3-compatible store (SeaweedFS, issue 20) started here on free loopback ports, reached through
# the standard environment (AWS_ENDPOINT_URL, path-style; AWS_ACCESS_KEY_ID,
# AWS_SECRET_ACCESS_KEY, AWS_REGION) that tests/cli/net_lib.bash's weed_start exports. Run by
# tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
#  1. A lineitem file (5 row groups) put into a bucket scans to the same bytes as the local
#     file: two shapes under --threads 1 and 2 and each --policy, in file order and
#     --unordered; `meta` equals too. With
#     AWS_DEFAULT_REGION in place of AWS_REGION it still works.
#  2. A large object (lineitem sf=1, ~200 MB, 6 row groups) gives the local file's rows and
#     checksum on 2 threads, and projections of it on 2 and 8 threads too.
#     Body copies (--stats body_copies, body_bytes_copied) of whole scans of both objects
#     are exactly the footer's and the chunk straddling the object's last MiB, as over
#     nginx (http_nginx.sh 3b; net_lib.bash net_copies_want).
#  3. Credentials never leak: a scan with --explain --stats (right secret) and a scan with a
#     wrong secret (403, naming the URL and the byte range) print the secret string nowhere,
#     stdout or stderr.
#  4. A missing key: non-zero exit, stderr names the URL, the range, 404 and NoSuchKey (a
#     HEAD's 404 has no body: the code comes from a GET). A missing bucket, an empty object
#     and a 4-byte one: non-zero exit naming the URL.
#  5. Keys that need percent-encoding (a space, '+', '%', '#', a non-ASCII letter, "%20" as
#     three characters), each object different: s3://bucket/KEY names the key as written and
#     reads it byte for byte (every byte but unreserved ones and '/' sent as %XX, as aws-cli
#     and DuckDB do). A key with '?', '*' or '[' is reached through a pattern whose class
#     names the character ('q[?]x.parquet': s3:// patterns are listed) and reads the same.
#     A key's "../" is sent as it is (curl resolved it: another key's bytes, exit 0).
#  6. S3 credentials through ringscan_options alone (tests/unit/test_s3_opts.c run against
#     this server: its 6 cases run and pass, none skipped, the secret in none of its output; two opens
#     refused with 403 SignatureDoesNotMatch, the options' wrong secret winning over none
#     and over the environment's right one).
# Last line: "http_s3: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/net_lib.bash"

li=$dir/lineitem.parquet big=$dir/big.parquet
net_gen_lineitem "$li"
weed_start "$dir/weed"
weed_mkbucket ringscan
weed_put ringscan data/lineitem.parquet "$li"
u=s3://ringscan/data/lineitem.parquet

# 1. results equal to the local file's
net_shapes_same "$li" "$u" 0 2
meta_same "meta" "$li" "$u"
unset AWS_REGION
AWS_DEFAULT_REGION=us-east-1 scan_same "AWS_DEFAULT_REGION" "$li" "$u" --columns l_orderkey --threads 1 --format csv
export AWS_REGION=us-east-1

# 2. a large object
"$R" gen lineitem --sf 1 -o "$big" >/dev/null || net_fatal "gen lineitem --sf 1 failed"
t0=$SECONDS; weed_put ringscan data/big.parquet "$big"
echo "http_s3: put $(stat -c %s "$big") bytes in $((SECONDS - t0)) s; SeaweedFS resident $(weed_rss_kb) KiB"
scan_same "large t2" "$big" s3://ringscan/data/big.parquet --threads 2 --format checksum
scan_same "large t8" "$big" s3://ringscan/data/big.parquet --columns l_comment,l_partkey --threads 8 --format checksum
scan_same "large projection" "$big" s3://ringscan/data/big.parquet --columns l_orderkey,l_shipdate --where "l_quantity < 3" --threads 2 --format checksum
echo "http_s3: large scan ${RS_MS} ms; SeaweedFS resident $(weed_rss_kb) KiB"
net_copies_same "copies large t2" "$big" s3://ringscan/data/big.parquet "" --threads 2
net_copies_same "copies large projection t8" "$big" s3://ringscan/data/big.parquet "l_comment,l_partkey" --threads 8
net_copies_same "copies t1 lazy" "$li" "$u" "" --threads 1 --policy lazy
rm -f "$big"

# 3. the secret never printed
secret=$AWS_SECRET_ACCESS_KEY
rs "$dir/o" "$dir/e" scan "$u" --columns l_orderkey --where "l_quantity < 5" --threads 2 --explain --stats --format checksum
check '[ "$RS_RC" -eq 0 ]' "--explain --stats scan exited $RS_RC: $(head -c 300 "$dir/e")"
check '! grep -qF "$secret" "$dir/o" "$dir/e"' "the secret is printed by a scan with --explain --stats"
rs "$dir/o" "$dir/e" scan "$u" --columns l_orderkey --threads 1 --stats=json --format checksum
check '! grep -qF "$secret" "$dir/o" "$dir/e"' "the secret is printed by a scan with --stats=json"
wrong=${secret}WRONG # holds the real secret: a leak of either is caught
AWS_SECRET_ACCESS_KEY=$wrong scan_fails "wrong secret" 60 "$u" "403" "bytes=" -- scan "$u" --format csv --explain --stats
check '! grep -qF "$secret" "$dir/fout" "$dir/ferr"' "a wrong secret is printed: $(grep -F "$secret" "$dir/ferr" | net_mask | head -c 300)"
AWS_SECRET_ACCESS_KEY=$wrong scan_fails "wrong secret meta" 60 "$u" "403" -- meta "$u"
check '! grep -qF "$secret" "$dir/fout" "$dir/ferr"' "a wrong secret is printed by meta"

# 4. missing objects
scan_fails "missing key" 60 "s3://ringscan/data/nope.parquet" "404" "NoSuchKey" "bytes=" -- scan s3://ringscan/data/nope.parquet --format csv
check '! grep -qF "$secret" "$dir/fout" "$dir/ferr"' "the secret is printed by a missing key's error"
scan_fails "missing key meta" 60 "s3://ringscan/data/nope.parquet" "404" "NoSuchKey" -- meta s3://ringscan/data/nope.parquet
scan_fails "missing bucket" 60 "s3://no-such-bucket/x.parquet" -- scan s3://no-such-bucket/x.parquet --format csv --explain --stats
check '! grep -qF "$secret" "$dir/fout" "$dir/ferr"' "the secret is printed by a missing bucket's error"
echo "http_s3: missing bucket said: $(net_mask <"$dir/ferr" | head -c 300)"
# objects too small to be Parquet (an empty one answers a suffix range with 416)
: >"$dir/empty"; printf 'PAR1' >"$dir/tiny"
weed_put ringscan empty.parquet "$dir/empty"
weed_put ringscan tiny.parquet "$dir/tiny"
scan_fails "empty object" 60 "s3://ringscan/empty.parquet" -- scan s3://ringscan/empty.parquet --format csv
scan_fails "4-byte object" 60 "s3://ringscan/tiny.parquet" -- meta s3://ringscan/tiny.parquet

# 5. keys that need percent-encoding
urlenc() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe="/"))' "$1"; }
mkdir -p "$dir/enc"
k=0
for key in "enc/a b.parquet" "enc/a+b.parquet" "enc/a%b.parquet" "enc/a#b.parquet" "enc/é.parquet" \
    "enc/a%20b.parquet" "enc/q?x.parquet|enc/q[?]x.parquet" "enc/s*x.parquet|enc/s[*]x.parquet" \
    "enc/b[x.parquet|enc/b[[]x.parquet"; do
    IFS='|' read -r key named <<<"$key"
    k=$((k + 1))
    "$R" gen demo-types --rows 300 --row-group-rows 100 --seed "$k" -o "$dir/enc/$k.parquet" >/dev/null ||
        net_fatal "gen demo-types failed"
    weed_put ringscan "$(urlenc "$key")" "$dir/enc/$k.parquet"
    # a pattern is a dataset: against the local file as a one-file dataset (a file scan prints
    # INT96 without the dataset's 'Z')
    loc=$dir/enc/$k.parquet; [ -z "$named" ] || loc="$dir/enc/[$k].parquet"
    scan_same "key '$key'" "$loc" "s3://ringscan/${named:-$key}" --threads 2 --ordered --format csv
done

# an S3 key's "../" is part of the key (AWS allows it), never resolved into another key: here
# SeaweedFS refuses such a key, and the scan must fail rather than read enc/dot.parquet
weed_put ringscan enc/dot.parquet "$dir/enc/1.parquet"
scan_fails "key with ../" 60 "s3://ringscan/enc/d/\.\./dot\.parquet" "HTTP 400" -- \
    scan 's3://ringscan/enc/d/../dot.parquet' --format checksum

# 6. credentials through ringscan_options alone (tests/unit/test_s3_opts.c: the options' key
# set wins over the environment's, right or wrong; a wrong secret is S3's 403
# SignatureDoesNotMatch; a key id without its secret is refused), the secret printed nowhere
t=zig-out/tests/test_s3_opts
if [ -x "$t" ]; then
    RINGSCAN_TEST_S3_URL=$u RINGSCAN_TEST_S3_ENDPOINT=$AWS_ENDPOINT_URL RINGSCAN_TEST_S3_KEY=$S3_KEY \
        RINGSCAN_TEST_S3_SECRET=$S3_SECRET RINGSCAN_TEST_S3_LOCAL=$li timeout 120 "$t" >"$dir/opts" 2>&1
    rc=$?
    check '[ $rc -eq 0 ] && grep -qE "^test_s3_opts: 1 passed, 0 failed, 0 skipped" "$dir/opts" && [ "$(grep -cE "^  [1-6]\. " "$dir/opts")" -eq 6 ]' \
        "test_s3_opts against SeaweedFS: exit $rc: $(net_mask <"$dir/opts" | grep -E "FAIL|passed" | head -n 8)"
    check '! grep -qF "$S3_SECRET" "$dir/opts"' "test_s3_opts printed the secret"
    check 'grep -c "refused (-13): .*HTTP 403 SignatureDoesNotMatch" "$dir/opts" | grep -qx 2' \
        "test_s3_opts: two opens refused with 403 SignatureDoesNotMatch: $(net_mask <"$dir/opts" | grep refused)"
else
    bad "$t missing (zig build tests first)"
fi

weed_stop "$dir/weed"
summary http_s3
