#!/usr/bin/env bash
# tests/cli/dataset_s3.sh: datasets over s3:// (issue 20 item 7, issue 23): patterns listed
# with ListObjectsV2 against a real S3-compatible store (SeaweedFS, started here on free
# loopback ports by net_lib.bash's weed_start). A hive layout put into a bucket (and the same
# layout on disk) must give the local dataset's rows and checksum for `**`, one-level and
# prefix ('/'-ended) forms, partition pruning must read only the kept footers, pages of two
# keys (RINGSCAN_S3_LIST_KEYS=2) must list the same files as one page, and a pattern that
# matches nothing, a wildcard ending in '/' (the local message), or a missing bucket, must
# fail naming it. Last line: "dataset_s3: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/net_lib.bash"

li=$dir/lineitem.parquet
net_gen_lineitem "$li"
weed_start "$dir/weed"
weed_mkbucket ringscan
keys=(ds/year=2020/a.parquet ds/year=2021/b.parquet ds/year=2021/sub/c.parquet ds/notes.txt
      other/year=2020/x.parquet)
for k in "${keys[@]}"; do
    mkdir -p "$dir/local/$(dirname "$k")"
    cp "$li" "$dir/local/$k"
    weed_put ringscan "data/${k//=/%3D}" "$li" # '=' encoded, as SigV4 signs the path
done
rm "$dir/local/ds/notes.txt" "$dir/local/ds/year=2021/sub/c.parquet" # not hive: keys differ
rmdir "$dir/local/ds/year=2021/sub"
cp "$li" "$dir/local/ds/year=2021/c.parquet"

# count_of ARGS...: OUT = "rows N checksum C" of a scan, RC its exit status, stderr in $dir/err
count_of() { OUT=$(timeout 120 "$R" scan "$@" --format checksum 2>"$dir/err"); RC=$?; }

# one level: the two files under year=*/ (sub/c.parquet is one level deeper)
count_of "$dir/local/ds/year=20[0-9][0-9]/[ab].parquet" --threads 2; want=$OUT
count_of 's3://ringscan/data/ds/year=*/*.parquet' --threads 2; got=$OUT
check '[ "$RC" -eq 0 ] && [ -n "$want" ] && [ "$got" = "$want" ]' "year=*/*.parquet: '$got' vs local '$want' ($(head -c 300 "$dir/err"))"
# ** : three parquet files, notes.txt left out; hive keys differ (sub/ has none) -> no year
count_of 's3://ringscan/data/ds/**/*.parquet' --columns l_orderkey --stats=json; n=$(grep -o '"files":[0-9]*' "$dir/err")
check '[ "$RC" -eq 0 ] && echo "$n" | grep -q "\"files\":3"' "**/*.parquet: $n $(head -c 300 "$dir/err")"
# a prefix ending in '/': every *.parquet below it
count_of 's3://ringscan/data/ds/' --columns l_orderkey --stats=json; n=$(grep -o '"files":[0-9]*' "$dir/err")
check '[ "$RC" -eq 0 ] && echo "$n" | grep -q "\"files\":3"' "prefix/: $n $(head -c 300 "$dir/err")"
# partition pruning before footers
count_of 's3://ringscan/data/ds/year=*/*.parquet' --where "year = 2021 AND l_quantity < 10" --columns l_orderkey,year --stats=json; got=$OUT rc=$RC
cp "$dir/err" "$dir/err.s3"
count_of "$dir/local/ds/year=*/b.parquet" --where "year = 2021 AND l_quantity < 10" --columns l_orderkey,year; want=$OUT
check '[ "$rc" -eq 0 ] && [ -n "$want" ] && [ "$got" = "$want" ]' "year = 2021: '$got' vs local '$want'"
cp "$dir/err.s3" "$dir/err"
check 'grep -q "\"files_pruned\":1" "$dir/err" && grep -q "\"footers_read\":1" "$dir/err"' \
    "year = 2021: the pruned file's footer read: $(grep -o '"files[^,]*,"files_pruned[^,]*,"footers_read[^,]*' "$dir/err")"
check 'grep -q "\"footers_on_cores\":1" "$dir/err" && grep -q "\"footer_reads\":1" "$dir/err"' \
    "the URL's footer read on a core (its open's suffix GET awaited, the footer served from it): $(grep -o '"footer[^,]*' "$dir/err")"
# pages of two keys list the same files
RINGSCAN_S3_LIST_KEYS=2 count_of 's3://ringscan/data/**/*.parquet' --columns l_orderkey --stats=json; got=$(grep -o '"files":[0-9]*' "$dir/err")
check '[ "$RC" -eq 0 ] && echo "$got" | grep -q "\"files\":4"' "paged listing: $got $(head -c 300 "$dir/err")"
# a pattern whose wildcard ends in '/' names directories: no file matches, with the local
# message (adversarial_dataset.sh), though the store lists keys below it; the same wildcard
# naming the files lists them
for p in 'year=*/' '**/' 'y*/'; do
    count_of "s3://ringscan/data/ds/$p"; got=$(cat "$dir/err")
    "$R" scan "$dir/local/ds/$p" --format checksum >/dev/null 2>"$dir/err.local"
    want=$(sed "s|$dir/local/|s3://ringscan/data/|g" "$dir/err.local")
    check '[ "$RC" -eq 1 ] && [ "$got" = "$want" ] && [ "$got" = "ringscan: s3://ringscan/data/ds/$p: no file matches (a pattern ending in '"'/'"' names directories; name their files, e.g. '"'s3://ringscan/data/ds/$p*.parquet'"')" ]' \
        "s3 $p: exit $RC, '$(head -c 300 <<<"$got")' vs local '$(head -c 300 <<<"$want")'"
done
count_of "$dir/local/ds/y*/[ab].parquet"; want=$OUT
count_of 's3://ringscan/data/ds/y*/*.parquet'; got=$OUT
check '[ "$RC" -eq 0 ] && [ -n "$want" ] && [ "$got" = "$want" ]' "y*/*.parquet: '$got' vs local '$want' ($(head -c 300 "$dir/err"))"
# errors: nothing matches; a missing bucket
count_of 's3://ringscan/data/ds/**/*.nothing'
check '[ "$RC" -eq 1 ] && grep -q "no file matches" "$dir/err" && grep -qF "*.nothing" "$dir/err"' "no match: $RC $(head -c 300 "$dir/err")"
count_of 's3://nosuchbucket/x/*.parquet'
check '[ "$RC" -eq 1 ] && grep -q "nosuchbucket" "$dir/err" && grep -q "HTTP 404" "$dir/err"' "missing bucket: $RC $(head -c 300 "$dir/err")"
check '! grep -qF "$S3_SECRET" "$dir/err"' "the secret is printed"
summary dataset_s3
