#!/usr/bin/env bash
# tests/cli/lazy_stats.sh: a footer's column chunk statistics are decoded when something asks
# for them (format/meta.h invariant 6), so a malformed Statistics struct fails only what reads
# it. A file by tests/cli/pqcraft.py: INT64 columns a and b, two row groups of four rows; b's
# Statistics in row group 1 hold max_value as an i32 (it must be a binary): a thrift
# structure any reader can skip, a field no reader can use. Checked:
#  1. a scan of every column, one filtered on a (its statistics prune row group 0), a count
#     filtered on a, ORDER BY a LIMIT: the rows pyarrow reads;
#  2. a filter on b, an ORDER BY b LIMIT, `ringscan meta` (text and JSON): exit 1 naming the
#     file, the offset of the bad field and the column (before, the open itself failed, so
#     every command on the file did);
#  3. a dataset of the file and a good copy: a filter on a runs, a filter on b names the file.
# Last line: "lazy_stats: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv lazy_stats
mkdir -p "$dir/ds"
at=$("$PY" - "$dir" <<'PYEOF'
import os, struct, sys
d = sys.argv[1]
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "cli"))
from pqcraft import S, elem, page_v1, plain, write, INT64, REQ
def le(v): return struct.pack("<q", v)
def stats(lo, hi, bad=False):
    return S((3, "i64", 0), (5, "i32" if bad else "bin", 7 if bad else le(hi)), (6, "bin", le(lo)))
def chunk(name, vals, st):
    return dict(ptype=INT64, path=[name], num_values=len(vals), stats=st,
                pages=[page_v1([], [0] * len(vals), 0, 0, plain(INT64, vals))])
schema = [elem("schema", nchildren=2), elem("a", REQ, INT64), elem("b", REQ, INT64)]
def groups(bad):
    out = []
    for g in range(2):
        a = list(range(4 * g, 4 * g + 4)); b = [v + 10 for v in a]
        out.append((4, [chunk("a", a, stats(a[0], a[-1])), chunk("b", b, stats(b[0], b[-1], bad and g == 1))]))
    return out
write(f"{d}/bad.parquet", schema, groups(True))
write(f"{d}/ds/good.parquet", schema, groups(False))
data = open(f"{d}/bad.parquet", "rb").read()
st = stats(14, 17, True).enc()
assert data.count(st) == 1
# the struct opens with field 3 (header and a one-byte zero), then field 5's header: the
# reader names the position after it
print(data.index(st) + 3)
PYEOF
) || { bad "pqcraft could not write the files"; summary lazy_stats; exit 1; }
cp "$dir/bad.parquet" "$dir/ds/bad.parquet"
f=$dir/bad.parquet
named="$f: column 'b', row group 1, statistics: thrift: field Statistics min/max has wrong type 5 (offset $at, column b)"

"$R" scan "$f" --format jsonl --ordered >"$dir/out" 2>"$dir/err"; rc=$?
want='{"a":0,"b":10}{"a":1,"b":11}{"a":2,"b":12}{"a":3,"b":13}{"a":4,"b":14}{"a":5,"b":15}{"a":6,"b":16}{"a":7,"b":17}'
check '[ $rc -eq 0 ] && [ "$(tr -d "\n" <"$dir/out")" = "$want" ]' "every column: exit $rc, $(head -c 300 "$dir/out" "$dir/err")"
"$R" scan "$f" --where 'a >= 6' --format jsonl --ordered --stats=json >"$dir/out" 2>"$dir/err"; rc=$?
check '[ $rc -eq 0 ] && [ "$(tr -d "\n" <"$dir/out")" = "{\"a\":6,\"b\":16}{\"a\":7,\"b\":17}" ] && grep -q "\"row_groups_pruned\":1" "$dir/err"' \
    "a >= 6: exit $rc, $(head -c 300 "$dir/out") $(head -c 300 "$dir/err")"
out=$("$R" scan "$f" --where 'a > 1' --format count 2>&1)
check '[ "$out" = "rows 6" ]' "count of a > 1: '$out'"
out=$("$R" scan "$f" --order-by a --desc --limit 2 --format jsonl 2>&1 | tr -d '\n')
check '[ "$out" = "{\"a\":7,\"b\":17}{\"a\":6,\"b\":16}" ]' "ORDER BY a DESC LIMIT 2: '$out'"

for cmd in "scan $f --where b>15" "scan $f --where b>15 --format count" "scan $f --order-by b --limit 2" "meta $f" "meta $f --json"; do
    # shellcheck disable=SC2086
    "$R" $cmd >"$dir/out" 2>"$dir/err"; rc=$?
    check '[ $rc -eq 1 ] && [ "$(cat "$dir/err")" = "ringscan: $named" ]' \
        "ringscan $cmd: exit $rc, stderr '$(head -c 400 "$dir/err")', want 'ringscan: $named'"
done

out=$("$R" scan "$dir/ds" --where 'a >= 6' --format count 2>&1)
check '[ "$out" = "rows 4" ]' "dataset, a >= 6: '$out'"
"$R" scan "$dir/ds" --where 'b > 15' --format count >"$dir/out" 2>"$dir/err"; rc=$?
check '[ $rc -eq 1 ] && grep -qF "$dir/ds/bad.parquet: column '"'b'"', row group 1, statistics" "$dir/err"' \
    "dataset, b > 15: exit $rc, $(head -c 300 "$dir/err")"
summary lazy_stats
