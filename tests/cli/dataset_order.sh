#!/usr/bin/env bash
# tests/cli/dataset_order.sh: a dataset's files share one adaptive conjunct order (issue 23
# section 4, "the same policies"; policy.h scan_order_share, scan/ds_order.c). Each file of
# the dataset here is one split, which alone never ranks from its own evidence: it runs the
# stated order, so a bad stated order was never corrected (hive84: a LIKE before
# l_quantity > 49, ~3x the CPU of the other order). Counts, not timings:
#  1. 40 one-split files, the LIKE stated first: at least a quarter of the files' final orders
#     (--explain, one line per file; a file whose one split explored says so) put
#     l_quantity first once the first files' evidence is in (before: every file
#     "#1 l_comment ... -> #2 l_quantity", 0 reordered); on one core and on two. The first
#     wave (16 files in flight, DS_INFLIGHT_MAX) runs the stated order.
#  2. The same conjuncts stated the good way round stay so: no file runs the LIKE first
#     outside an exploring split.
#  3. Rows and checksum equal for both orders, and each file's line gives the runs that
#     emptied their split.
#  4. A file whose one split explored (the shared order's every 16th turn) says so, not "no
#     split ran the filter".
# Run by tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
# Last line: "dataset_order: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
n=40
for i in $(seq 1 $n); do
    mkdir -p "$dir/ds/part=$i"
    "$R" gen lineitem --sf 0.005 --seed "$i" -o "$dir/ds/part=$i/f.parquet" >/dev/null || bad "gen $i"
done
bad_where="l_comment LIKE '%special%requests%' AND l_quantity > 49"
good_where="l_quantity > 49 AND l_comment LIKE '%special%requests%'"

# run NAME WHERE THREADS: --explain of the dataset's scan into $dir/NAME.err, rows into .out
run() {
    "$R" scan "$dir/ds/**/*.parquet" --columns l_orderkey --where "$2" --threads "$3" \
        --format checksum --explain >"$dir/$1.out" 2>"$dir/$1.err" || bad "$1: exit $?"
}
finals() { grep -c "^conjunct order (final" "$dir/$1.err"; }
first() { grep -c "^conjunct order (final, split 0; [^)]*): $2 " "$dir/$1.err"; }

for t in 1 2; do
    run bad$t "$bad_where" "$t"
    run good$t "$good_where" "$t"
    # 1. a final order for every file (its one split's, or an exploring one's); most learned
    #    the order from the others'
    check '[ "$(finals bad$t)" = $n ] && [ "$(first bad$t "#[12] l_[a-z]*")" -ge $((n - 4)) ]' \
        "threads $t: $(finals bad$t) files' final orders, $(first bad$t "#[12] l_[a-z]*") ran the filter, want $n and >= $((n - 4)): $(head -c 400 "$dir/bad$t.err")"
    check '[ "$(first bad$t "#2 l_quantity")" -ge $((n / 4)) ]' \
        "threads $t, LIKE stated first: $(first bad$t "#2 l_quantity") of $n files ran l_quantity first, want >= $((n / 4)): $(grep -m 3 '^conjunct order (final' "$dir/bad$t.err")"
    # 2. the good order kept (an exploring split is counted apart: its line is not the order)
    check '[ "$(first good$t "#2 l_comment")" = 0 ] && [ "$(first good$t "#1 l_quantity")" -ge $((n - 4)) ]' \
        "threads $t, l_quantity stated first: $(first good$t "#2 l_comment") files ran the LIKE first: $(grep -m 3 '#2 l_comment' "$dir/good$t.err")"
    # 3. the same rows either way, and the emptied runs told
    check 'cmp -s "$dir/bad$t.out" "$dir/good$t.out" && grep -q "^rows [1-9]" "$dir/bad$t.out"' \
        "threads $t: rows differ: $(cat "$dir/bad$t.out" "$dir/good$t.out" | tr '\n' ' ')"
    check 'grep -qE "l_comment \(rows in [0-9]+, passed [0-9.]+, emptied [0-9]+ of [0-9]+, rank " "$dir/bad$t.err"' \
        "threads $t: no emptied count: $(grep -m 1 '^conjunct order (final' "$dir/bad$t.err")"
    # 4. a file whose one split took an exploring turn says so, not that no split ran
    check '! grep -q "no split ran the filter" "$dir/bad$t.err" "$dir/good$t.err"' \
        "threads $t: $(grep -h -m 2 "no split ran the filter" "$dir/bad$t.err" "$dir/good$t.err")"
done
summary dataset_order
