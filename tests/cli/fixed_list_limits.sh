#!/usr/bin/env bash
# tests/cli/fixed_list_limits.sh: a stored ARROW:schema that claims a fixed_size_list the rows
# do not fit is an error naming the column, never a crash or gigabytes allocated (review of
# issue 23's types): pyarrow writes ordinary list columns, then the key of a stored schema
# claiming fixed_size_list<N> is swapped in (tests/cli/pqcraft.py write_claiming):
#  1. lists of 3 and 2 elements stored as fixed_size_list<3>: "a list of 2 elements where the
#     stored fixed_size_list needs 3", on the flat path (top-level list<int64>) and through a
#     struct (the general path);
#  2. null lists stored as fixed_size_list<2^31 - 1>: RINGSCAN_ELIMIT naming the column, in
#     well under 1 GB of memory (ulimit -v), flat and inside a struct;
#  3. the honest fixed_size_list<2> of the same shape reads as pyarrow reads it.
# Last line: "fixed_list_limits: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv fixed_list_limits
"$PY" - "$dir" <<'PYEOF'
import sys, os, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "cli"))
from pqcraft import write_claiming
def write(name, table, claimed):
    write_claiming(f"{d}/{name}.parquet", table, claimed)
big = 2**31 - 1
lst = pa.list_(pa.int64())
write("short_flat", pa.table({"l": pa.array([[1, 2, 3], [1, 2], None], lst)}),
      pa.schema([("l", pa.list_(pa.int64(), 3))]))
write("short_struct", pa.table({"s": pa.array([{"f": [1, 2, 3]}, {"f": [1, 2]}], pa.struct([("f", lst)]))}),
      pa.schema([("s", pa.struct([("f", pa.list_(pa.int64(), 3))]))]))
write("huge_flat", pa.table({"l": pa.array([None] * 4, lst)}), pa.schema([("l", pa.list_(pa.int64(), big))]))
write("huge_struct", pa.table({"s": pa.array([{"f": None}] * 4, pa.struct([("f", lst)]))}),
      pa.schema([("s", pa.struct([("f", pa.list_(pa.int64(), big))]))]))
pq.write_table(pa.table({"l": pa.array([[1, 2], None, [3, None]], pa.list_(pa.int64(), 2))}), f"{d}/honest.parquet")
PYEOF
: >"$dir/err"
# under 1 GB of address space (not under the sanitizer pass: ASan reserves terabytes of shadow)
vm=1000000
[ "${RINGSCAN_SANITIZED:-0}" = 1 ] && vm=unlimited
scan_of() { (ulimit -v $vm; "$R" scan "$dir/$1.parquet" --format jsonl >"$dir/out" 2>"$dir/err"); }
for f in short_flat:l short_struct:s; do
    name=${f%%:*}; col=${f#*:}
    check '! scan_of "$name" && grep -q "column '"'$col'"': a list of 2 elements where the stored fixed_size_list needs 3" "$dir/err"' \
        "$name: $(cat "$dir/err")"
done
for f in huge_flat:l huge_struct:s; do
    name=${f%%:*}; col=${f#*:}
    check '! scan_of "$name" && grep -q "column '"'$col'"': .*fixed_size_list<2147483647> take more than 268435456 elements" "$dir/err"' \
        "$name: $(cat "$dir/err")"
done
check 'scan_of honest && [ "$(tr "\n" " " <"$dir/out")" = "{\"l\":[1,2]} {\"l\":null} {\"l\":[3,null]} " ]' \
    "honest: $(cat "$dir/out" "$dir/err")"
summary fixed_list_limits
