#!/usr/bin/env bash
# tests/cli/explain.sh: `ringscan scan --explain` (issue 25: it never printed the order the
# scan ended in, and said "plan: 1 splits" then "5 splits"). Exact lines, with only the rank
# (a measured cost in ns per row) masked as "rank R":
#  1. The plan line comes first and gives the one split count the row-group lines and --stats
#     give, singular where one ("1 row group", "1 split", "1 conjunct").
#  2. A filter whose stated order is the wrong one (l_quantity >= 1 keeps every row): on one
#     core under adaptive the first split runs the stated order, every later one the
#     measured order; the last line is the order the file's last split ran in, with the
#     evidence behind it (rows in, the share passed, the runs that emptied their split).
#  3. Over 61 splits, splits 15, 31 and 47 explore and are counted apart.
#  4. Every split pruned: the final order says no split ran the filter.
#  5. Two cores: the final line is the last one and puts the selective conjunct first.
#  6. A scan a limit ends early still ends with its final order.
# Run by tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
# Last line: "explain: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
"$R" gen lineitem --sf 0.01 --row-group-rows 20000 -o "$dir/l4.parquet" >/dev/null || bad "gen l4"
"$R" gen lineitem --sf 0.01 -o "$dir/l1.parquet" >/dev/null || bad "gen l1"
"$R" gen lineitem --sf 0.01 --page-rows 1000 -o "$dir/lp.parquet" >/dev/null || bad "gen lp"
mask() { sed -E 's/rank [0-9.]+/rank R/g'; }

# expect NAME FILE ARGS...: --explain of scan FILE ARGS --format checksum equals stdin exactly.
expect() {
    local name=$1 f=$2; shift 2
    cat >"$dir/want"
    "$R" scan "$dir/$f" "$@" --format checksum --explain 2>"$dir/err" >/dev/null || bad "$name: exit $?"
    mask <"$dir/err" >"$dir/got"
    if cmp -s "$dir/want" "$dir/got"; then ok; else bad "$name:"; diff "$dir/want" "$dir/got"; fi
}

# 1. counts, singular and plural
expect "pruned groups" l4.parquet --where "l_orderkey < 100" <<'EOF'
plan: 4 row groups (3 pruned), 4 splits (3 pruned), 1 conjunct, 16 columns read, policy adaptive
conjunct #1: l_orderkey < 100 (reads l_orderkey; prunes by statistics, page index)
  row group 0 (20000 rows): pages pruned 0 of 16, 1 split
  split 0 (row group 0, rows 0..20000): read
  split 1 (row group 1, 20000 rows): pruned by statistics
  split 2 (row group 2, 20000 rows): pruned by statistics
  split 3 (row group 3, 134 rows): pruned by statistics
conjunct #1 l_orderkey: chance all-false on a split from statistics 0.000
store: local file; read-ahead: none
EOF
expect "one of each" l1.parquet --columns l_orderkey --where "l_quantity >= 1" --split-rows 0 <<'EOF'
plan: 1 row group (0 pruned), 1 split (0 pruned), 1 conjunct, 2 columns read, policy adaptive
conjunct #1: l_quantity >= 1.00 (reads l_quantity; prunes by statistics, page index)
  row group 0 (60134 rows): pages pruned 0 of 8, 1 split
  split 0 (row group 0, rows 0..60134): read
conjunct #1 l_quantity: chance all-false on a split from statistics 0.000
store: local file; read-ahead: none
EOF
"$R" scan "$dir/l4.parquet" --where "l_orderkey < 100" --format checksum --explain --stats \
    2>"$dir/err" >/dev/null
check 'grep -q ", splits 4, " "$dir/err" && grep -q "^plan: .*, 4 splits (3 pruned)," "$dir/err"' \
    "--stats and --explain differ on the splits: $(grep -E "^plan|splits" "$dir/err")"

# 2. reordered after the first split
expect "reordered" l1.parquet --columns l_orderkey --where "l_quantity >= 1 AND l_shipmode = 'AIR'" \
    --threads 1 --split-rows 15000 <<'EOF'
plan: 1 row group (0 pruned), 4 splits (0 pruned), 2 conjuncts, 3 columns read, policy adaptive
conjunct #1: l_quantity >= 1.00 (reads l_quantity; prunes by statistics, page index)
conjunct #2: l_shipmode = 'AIR' (reads l_shipmode; prunes by statistics, page index, bloom filter)
  row group 0 (60134 rows): pages pruned 0 of 12, 4 splits
  split 0 (row group 0, rows 0..20000): read
  split 1 (row group 0, rows 20000..40000): read
  split 2 (row group 0, rows 40000..60000): read
  split 3 (row group 0, rows 60000..60134): read
conjunct #1 l_quantity: chance all-false on a split from statistics 0.000
conjunct #2 l_shipmode: chance all-false on a split from statistics 1.000 (statistics cannot say)
conjunct order (start): #1 l_quantity -> #2 l_shipmode
store: local file; read-ahead: none
conjunct order (final, split 3; 3 splits reordered, 0 explored): #2 l_shipmode (rows in 60134, passed 0.144, emptied 0 of 4, rank R) -> #1 l_quantity (rows in 25777, passed 1.000, emptied 0 of 4, rank R)
EOF

# 3. exploring splits
"$R" scan "$dir/lp.parquet" --columns l_orderkey --where "l_quantity >= 1 AND l_shipmode = 'AIR'" \
    --threads 1 --split-rows 1000 --format checksum --explain 2>"$dir/err" >/dev/null
want='conjunct order (final, split 60; 57 splits reordered, 3 explored): #2 l_shipmode (rows in 60134, passed 0.144, emptied 0 of 61, rank R) -> #1 l_quantity (rows in 12121, passed 1.000, emptied 0 of 61, rank R)'
check '[ "$(tail -n 1 "$dir/err" | mask)" = "$want" ]' "61 splits: $(tail -n 1 "$dir/err")"
check 'grep -qxF "plan: 1 row group (0 pruned), 61 splits (0 pruned), 2 conjuncts, 3 columns read, policy adaptive" "$dir/err"' \
    "61 splits: $(head -n 1 "$dir/err")"

# The normal form: NOT pushed down, literals typed (rounded, folded), IN sorted, a clause
#    over two columns, LIKE patterns re-escaped, and what each conjunct can prune by
"$R" scan "$dir/l1.parquet" --columns l_orderkey --format checksum --explain --where \
    "NOT (l_quantity < 5 OR l_shipmode IN ('SHIP', 'AIR', 'AIR')) AND (l_discount > 0.055 OR l_receiptdate > l_commitdate) AND l_comment NOT LIKE '%a!%b_' ESCAPE '!' AND year(l_shipdate) = 1995 AND l_discount = 0.055" \
    2>"$dir/err" >/dev/null
grep '^conjunct #[0-9]*:' "$dir/err" >"$dir/got"
cat >"$dir/want" <<'EOF'
conjunct #1: l_quantity >= 5.00 (reads l_quantity; prunes by statistics, page index)
conjunct #2: l_shipmode NOT IN ('AIR', 'SHIP') (reads l_shipmode; prunes by statistics, page index)
conjunct #3: l_discount >= 0.06 OR l_receiptdate > l_commitdate (reads l_discount,l_receiptdate,l_commitdate; prunes by statistics (each part))
conjunct #4: l_comment NOT LIKE '%a\%b_' ESCAPE '\' (reads l_comment; prunes by nothing (no bound rules it out))
conjunct #5: l_shipdate >= DATE '1995-01-01' (reads l_shipdate; prunes by statistics, page index)
conjunct #6: l_shipdate < DATE '1996-01-01' (reads l_shipdate; prunes by statistics, page index)
conjunct #7: FALSE (reads l_discount; prunes by statistics, page index)
EOF
if cmp -s "$dir/want" "$dir/got"; then ok; else bad "normal form:"; diff "$dir/want" "$dir/got"; fi

# 4. nothing ran
expect "all pruned" l4.parquet --columns l_orderkey --where "l_orderkey < 0 AND l_quantity > 1" <<'EOF'
plan: 4 row groups (4 pruned), 4 splits (4 pruned), 2 conjuncts, 2 columns read, policy adaptive
conjunct #1: l_orderkey < 0 (reads l_orderkey; prunes by statistics, page index)
conjunct #2: l_quantity > 1.00 (reads l_quantity; prunes by statistics, page index)
  split 0 (row group 0, 20000 rows): pruned by statistics
  split 1 (row group 1, 20000 rows): pruned by statistics
  split 2 (row group 2, 20000 rows): pruned by statistics
  split 3 (row group 3, 134 rows): pruned by statistics
conjunct #1 l_orderkey: chance all-false on a split from statistics 1.000 (every split pruned)
conjunct #2 l_quantity: chance all-false on a split from statistics 1.000 (every split pruned)
conjunct order (start): #1 l_orderkey -> #2 l_quantity
store: local file; read-ahead: none
conjunct order (final): as at the start (no split ran the filter)
EOF

# 5. two cores, every policy: the selective conjunct ends first, on the last line
for pol in adaptive eager lazy; do
    "$R" scan "$dir/lp.parquet" --columns l_orderkey --where "l_quantity >= 1 AND l_shipmode = 'AIR'" \
        --threads 2 --split-rows 1000 --policy "$pol" --format checksum --explain 2>"$dir/err" >/dev/null
    check 'tail -n 1 "$dir/err" | grep -qE "^conjunct order \(final, split 60; [0-9]+ splits? reordered, [0-9]+ explored\): #2 l_shipmode \(rows in 60134, passed 0\.144, emptied 0 of 61, rank [0-9.]+\) -> #1 l_quantity \(rows in [0-9]+, passed 1\.000, emptied 0 of 61, rank [0-9.]+\)$"' \
        "threads 2, $pol: $(tail -n 1 "$dir/err")"
done
# 6. a limit ends the scan early: the final order is still the last line
"$R" scan "$dir/lp.parquet" --columns l_orderkey --where "l_quantity >= 1 AND l_shipmode = 'AIR'" \
    --threads 1 --split-rows 1000 --limit 10 --format checksum --explain 2>"$dir/err" >/dev/null
check 'tail -n 1 "$dir/err" | grep -qE "^conjunct order \(final, split [0-9]+; [0-9]+ splits? reordered, 0 explored\): #[12] l_"' \
    "--limit 10: $(tail -n 1 "$dir/err")"
# 7. implied conjuncts (filter/vexpr_imply.c): the bounds each comparison of value expressions
#    sets on its columns alone from the file's statistics, listed after the user's and run first
"$R" scan "$dir/l1.parquet" --columns l_orderkey --format checksum --explain --where \
    "l_extendedprice * (1 - l_discount) * (1 + l_tax) > 100000 AND CAST(l_quantity AS INTEGER) * 2 - l_linenumber > 90" \
    2>"$dir/err" >/dev/null
grep -E '^conjunct #[0-9]*:|^conjunct order \(start\)' "$dir/err" >"$dir/got"
cat >"$dir/want" <<'EOF'
conjunct #1: l_extendedprice * (1 - l_discount) * (1 + l_tax) > 100000 (reads l_extendedprice,l_discount,l_tax; prunes by statistics (each part))
conjunct #2: CAST(l_quantity AS INTEGER) * 2 - l_linenumber > 90 (reads l_quantity,l_linenumber; prunes by statistics (each part))
conjunct #3: l_extendedprice > 92592.59 (implied by conjunct #1; reads l_extendedprice; prunes by statistics, page index)
conjunct #4: l_discount < 0.03 (implied by conjunct #1; reads l_discount; prunes by statistics, page index)
conjunct #5: l_tax > 0.05 (implied by conjunct #1; reads l_tax; prunes by statistics, page index)
conjunct #6: l_quantity > 45.49 (implied by conjunct #2; reads l_quantity; prunes by statistics, page index)
conjunct order (start): #3 l_extendedprice -> #4 l_discount -> #5 l_tax -> #6 l_quantity -> #1 l_extendedprice|l_discount|l_tax -> #2 l_quantity|l_linenumber
EOF
if cmp -s "$dir/want" "$dir/got"; then ok; else bad "implied:"; diff "$dir/want" "$dir/got"; fi
summary explain
