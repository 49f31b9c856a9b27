#!/usr/bin/env bash
# tests/cli/gen_topk.sh: `ringscan gen topk` (issue 21's seed workload, bench/topk_gen.h).
# Usage errors exit 2 with the exact message and write no file; the same seed writes a
# byte-identical file and another seed a different one; `--expect K` answers without a file.
# Then tests/cli/gen_topk.py checks with pyarrow the row groups, rows, types, statistics and
# page index, the pruning layout's falling bands and the control layout's one INT64_MAX /
# flag = 1 sentinel per group, and with DuckDB that `SELECT id [WHERE flag = 0] ORDER BY score
# DESC|ASC, id LIMIT K` equals the model's `--expect K` for K in 0, 1, 100, 1000 (and more
# than the rows on the small files), on small files and on the default size (32 x 65,536).
# Needs scripts/pyenv.sh (pyarrow + duckdb) for the second part; skipped without it.
# Run by tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
# Last line: "gen_topk: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
G="ringscan: gen:"
x=$dir/x.parquet
usage_is "$G --layout: unknown value 'prunning' (did you mean pruning?); one of tpch, cancel, pruning, control" \
    "$R" gen topk --layout prunning -o "$x"
usage_is "$G topk needs --layout pruning or --layout control" "$R" gen topk -o "$x"
usage_is "$G topk needs --layout pruning or --layout control" "$R" gen topk --layout tpch -o "$x"
usage_is "$G -o FILE is required" "$R" gen topk --layout pruning
usage_is "$G --expect prints ids and writes no file (drop -o)" "$R" gen topk --layout control --expect 5 -o "$x"
usage_is "$G --asc and --where-flag go with --expect K" "$R" gen topk --layout control --asc -o "$x"
usage_is "$G --sf, --rows and --bloom are not for topk (its size is --row-groups)" \
    "$R" gen topk --layout pruning --rows 5 -o "$x"
usage_is "$G --row-groups x --row-group-rows is over 2^36 rows" \
    "$R" gen topk --layout pruning --row-groups 1048576 --row-group-rows 1048576 -o "$x"
usage_is "$G --expect: '4194305' is out of range (0 to 4194304)" "$R" gen topk --layout pruning --expect 4194305
usage_is "$G --row-groups, --expect, --asc and --where-flag are for topk" \
    "$R" gen demo-types --row-groups 3 -o "$x"
usage_is "$G --layout pruning|control is for topk (lineitem: tpch or cancel)" \
    "$R" gen lineitem --sf 0.01 --layout control -o "$x"
usage_is "$G unknown data set 'topc' (did you mean topk?); one of lineitem, demo-types, topk" \
    "$R" gen topc --layout pruning -o "$x"
check '[ ! -e "$x" ]' "a refused gen topk wrote its file"
# determinism: the same seed, the same bytes; another seed, other bytes
small=(--row-groups 8 --row-group-rows 4096 --page-rows 1000)
for run in 1 2 3; do
    s=$((run < 3 ? 7 : 8))
    "$R" gen topk --layout control "${small[@]}" --seed $s -o "$dir/seed$s.$run.parquet" >/dev/null ||
        bad "gen topk --seed $s"
done
seven=("$dir"/seed7.*.parquet)
check '[ ${#seven[@]} -eq 2 ] && cmp -s "${seven[0]}" "${seven[1]}"' "two runs of --seed 7 differ"
check '! cmp -s "${seven[0]}" "$dir"/seed8.*.parquet' "--seed 7 and --seed 8 wrote the same file"
out=$("$R" gen topk --layout pruning "${small[@]}" -o "$dir/summary.parquet")
check '[ "$out" = "$dir/summary.parquet: 32768 rows, 8 row groups, $(stat -c %s "$dir/summary.parquet") bytes, ${out##*bytes, }" ]' \
    "summary line: $out"
# --expect on the pruning layout: the first rows of group 0 in score order, computed alone
n=$("$R" gen topk --layout pruning "${small[@]}" --expect 1000 | wc -l)
check '[ "$n" = 1000 ]' "--expect 1000 printed $n lines"
n=$("$R" gen topk --layout pruning "${small[@]}" --expect 0 | wc -l)
check '[ "$n" = 0 ]' "--expect 0 printed $n lines"
n=$("$R" gen topk --layout control "${small[@]}" --expect 40000 --where-flag | wc -l)
check '[ "$n" = $((32768 - 8)) ]' "--expect 40000 --where-flag on 32768 rows with 8 sentinels: $n lines"
top=$("$R" gen topk --layout control "${small[@]}" --expect 8 | sort -n | awk '{printf "%d ", int($1 / 4096)}')
check '[ "$top" = "0 1 2 3 4 5 6 7 " ]' "control --expect 8 (no filter) is not one sentinel per group: $top"

err=$(mktemp)
if ! py=$(scripts/pyenv.sh 2>"$err" | tail -n1) || [ ! -x "$py" ]; then
    echo "gen_topk: pyarrow/duckdb part skipped: scripts/pyenv.sh failed: $(tail -n 3 "$err" | tr '\n' ' ')"
    rm -f "$err"
    summary gen_topk
    exit $?
fi
rm -f "$err"
# name layout groups rows [extra K]: the file and every --expect answer the checker compares
specs=()
make() {
    local name=$1 layout=$2 g=$3 r=$4 ks="0 1 100 1000 ${5:-}"
    local size=(--row-groups "$g" --row-group-rows "$r")
    "$R" gen topk --layout "$layout" "${size[@]}" -o "$dir/$name.parquet" >/dev/null || bad "gen $name"
    for k in $ks; do
        for order in desc asc; do
            for filt in all flag0; do
                local o=(); [ $order = asc ] && o+=(--asc); [ $filt = flag0 ] && o+=(--where-flag)
                "$R" gen topk --layout "$layout" "${size[@]}" --expect "$k" "${o[@]}" \
                    >"$dir/$name.$k.$order.$filt.ids" || bad "$name --expect $k ${o[*]}"
            done
        done
    done
    specs+=("$name:$layout:$g:$r")
}
make small_p pruning 8 4096 40000
make small_c control 8 4096 40000
make one_group control 1 100 150
make full_p pruning 32 65536
make full_c control 32 65536
out=$("$py" tests/cli/gen_topk.py "$dir" "${specs[@]}" 2>&1)
echo "$out" | grep -v '^gen_topk_py:'
line=$(echo "$out" | grep -E '^gen_topk_py: [0-9]+ passed, [0-9]+ failed' | tail -n1)
if [ -z "$line" ]; then
    bad "gen_topk.py: $(echo "$out" | tail -n 5)"
else
    passed=$((passed + $(echo "$line" | sed -E 's/gen_topk_py: ([0-9]+) passed.*/\1/')))
    failed=$((failed + $(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
fi
summary gen_topk
