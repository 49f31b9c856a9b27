#!/usr/bin/env bash
# tests/cli/read_mode.sh: `--read-mode mmap` (io/io_map.c) returns what `--read-mode copy`
# returns, with the same read calls. Run by tests/run.sh with $RINGSCAN set and cwd = the
# project root.
#  1. Every parquet-testing file ringscan reads (../shared/parquet-testing/data; skipped when
#     absent) and a generated demo-types file: `scan --format jsonl` prints the same bytes
#     under copy and mmap, on io_uring and on the pread fallback (a file that fails to read
#     fails with the same message in both modes).
#  2. lineitem at sf 0.05, one thread: `scan --stats=json` counts the same reads, bytes read
#     and rows under both modes for a filter and a projection; the checksum output is equal.
#  3. `bench --read-mode mmap`, every shape and policy at sf 0.02 on one thread: every
#     checksum matches the data model (exit 0), and each entry's read calls and bytes read
#     equal the copy run's.
# A file truncated under the mapping is tested in test_io_map.c and test_scan_api.c (it needs
# the truncation between open and read).
# Last line: "read_mode: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

files=()
pt=../shared/parquet-testing/data
[ -d "$pt" ] && for f in "$pt"/*.parquet; do files+=("$f"); done
"$R" gen demo-types -o "$dir/demo.parquet" --rows 20000 >/dev/null 2>&1 ||
    bad "gen demo-types failed"
files+=("$dir/demo.parquet")
same=0
for f in "${files[@]}"; do
    for io in auto pread; do
        "$R" scan "$f" --io $io --format jsonl >"$dir/c.out" 2>"$dir/c.err"; rc_c=$?
        "$R" scan "$f" --io $io --read-mode mmap --format jsonl >"$dir/m.out" 2>"$dir/m.err"; rc_m=$?
        if [ $rc_c -eq $rc_m ] && cmp -s "$dir/c.out" "$dir/m.out" && cmp -s "$dir/c.err" "$dir/m.err"; then
            same=$((same + 1))
        else
            bad "$(basename "$f") --io $io: copy exit $rc_c, mmap exit $rc_m, outputs or messages differ: $(head -c 300 "$dir/m.err")"
        fi
    done
done
check '[ $same -eq $((2 * ${#files[@]})) ] && [ $same -ge 2 ]' "only $same of $((2 * ${#files[@]})) scans equal"

"$R" gen lineitem --sf 0.05 -o "$dir/li.parquet" >/dev/null 2>&1 || bad "gen lineitem failed"
stat_of() { # json file, key -> value
    grep -oE "\"$2\":[0-9]+" "$1" | head -n1 | cut -d: -f2
}
for q in "--where l_linenumber>5 --columns l_orderkey,l_extendedprice" "--columns l_comment,l_shipdate"; do
    for m in copy mmap; do
        # shellcheck disable=SC2086
        "$R" scan "$dir/li.parquet" $q --threads 1 --read-mode $m --format checksum --stats=json \
            >"$dir/$m.sum" 2>"$dir/$m.json"
    done
    check 'cmp -s "$dir/copy.sum" "$dir/mmap.sum" && [ -s "$dir/copy.sum" ]' \
        "$q: checksums differ: $(cat "$dir/copy.sum") / $(cat "$dir/mmap.sum")"
    for k in reads bytes_read rows_out; do
        a=$(stat_of "$dir/copy.json" $k); b=$(stat_of "$dir/mmap.json" $k)
        check '[ -n "$a" ] && [ "$a" = "$b" ]' "$q: $k copy '$a' mmap '$b'"
    done
done

for m in copy mmap; do
    "$R" bench --data "$dir" --sf 0.02 --rounds 1 --threads 1 --no-floor --no-aa --read-mode $m \
        --json "$dir/b_$m.json" >"$dir/b_$m.txt" 2>"$dir/b_$m.err"
    rc=$?
    check '[ $rc -eq 0 ] && grep -q "\"all_match\":true" "$dir/b_$m.json"' \
        "bench --read-mode $m: exit $rc: $(tail -n 3 "$dir/b_$m.err")"
done
reads_of() { grep -oE '"(reads|bytes_read)":[0-9]+' "$1" | tr '\n' ' '; }
a=$(reads_of "$dir/b_copy.json"); b=$(reads_of "$dir/b_mmap.json")
check '[ -n "$a" ] && [ "$a" = "$b" ]' "bench read calls or bytes differ: copy $a / mmap $b"
summary read_mode
