#!/usr/bin/env bash
# tests/cli/adversarial_types.sh: a stored ARROW:schema that does not match the file's rows or
# Parquet types (s20 review): pyarrow writes ordinary columns, then a stored schema of other
# types is swapped in (tests/cli/pqcraft.py write_claiming):
#  1. a dictionary<int8> / <uint8> string column (flat, and inside a list) whose file holds
#     300 distinct values: an error naming the column and the index type, as pyarrow refuses
#     it, instead of indices narrowed to wrong values (uint8: v298 printed as v42) or to
#     negative ones (int8: an assertion in the printer, and an Arrow array a host reads out of
#     bounds); dictionary<int16> of the same rows reads as pyarrow reads it;
#  2. a stored decimal32/64/256 whose precision or scale differs from the Parquet column's
#     reads as decimal128 (pyarrow restores the stored width only for the same precision and
#     scale); the same width with the same precision and scale is kept;
#  3. a stored fixed_size_list<0> over null and empty lists prints (it was "a column type the
#     printer does not know");
#  4. decimals no Arrow type holds (files by tests/cli/pqcraft.py): a precision past 76 reads
#     as the physical type (it exported "d:100,50", which no consumer imports, its value cut to
#     32 bytes); a FIXED_LEN_BYTE_ARRAY(20) or 40-byte BYTE_ARRAY decimal(30..38) whose value
#     needs more than 16 bytes is an error naming the column (pyarrow refuses it; it was
#     silently cut to its low 16 bytes), one whose extra bytes are only its sign reads.
#  5. a dataset's first file whose decimal claims more digits than its physical type holds: a
#     later file's value past that form refused naming it (it was cut to its low bytes).
# Last line: "adversarial_types: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv adversarial_types
"$PY" - "$dir" <<'PYEOF' || { bad "pyarrow could not craft the files"; summary adversarial_types; exit 1; }
import sys, os, decimal, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "cli"))
from pqcraft import write_claiming
def write(name, table, claimed):
    write_claiming(f"{d}/{name}.parquet", table, claimed)
vals = [f"v{i}" for i in range(300)]
flat = pa.table({"s": pa.array(vals + [None], pa.string())})
lists = pa.table({"l": pa.array([vals[:150], vals[150:], None], pa.list_(pa.string()))})
for it in ("int8", "uint8", "int16"):
    ix = getattr(pa, it)()
    write(f"dict_{it}", flat, pa.schema([("s", pa.dictionary(ix, pa.string()))]))
    write(f"dictlist_{it}", lists, pa.schema([("l", pa.list_(pa.dictionary(ix, pa.string())))]))
dec = pa.table({"x": pa.array([decimal.Decimal("1.5"), None, decimal.Decimal("-2.25")], pa.decimal128(9, 2))})
for name, t in (("dec32_same", pa.decimal32(9, 2)), ("dec32_p5", pa.decimal32(5, 2)),
                ("dec64_s4", pa.decimal64(18, 4)), ("dec256_p60", pa.decimal256(60, 2))):
    write(name, dec, pa.schema([("x", t)]))
write("fsl0", pa.table({"l": pa.array([None, [], None], pa.list_(pa.int64()))}),
      pa.schema([("l", pa.list_(pa.int64(), 0))]))
PYEOF
for f in dict_int8:s:int8:127 dict_uint8:s:uint8:255 dictlist_int8:l:int8:127 dictlist_uint8:l:uint8:255; do
    IFS=: read -r name col it top <<<"$f"
    "$R" scan "$dir/$name.parquet" --format jsonl >"$dir/out" 2>"$dir/err"; rc=$?
    check '[ $rc -eq 1 ] && grep -qF "column '"'$col'"': dictionary index 299 does not fit the stored index type '"$it (0..$top)"'" "$dir/err"' \
        "$name: exit $rc, $(head -c 300 "$dir/err")"
done
"$R" scan "$dir/dict_int16.parquet" --format jsonl --ordered >"$dir/out" 2>"$dir/err"
check '[ "$(sed -n "299p;301p" "$dir/out" | tr "\n" " ")" = "{\"s\":\"v298\"} {\"s\":null} " ]' \
    "dict_int16: $(sed -n '299,301p' "$dir/out") $(head -c 200 "$dir/err")"
"$R" scan "$dir/dictlist_int16.parquet" --format jsonl --ordered >"$dir/out" 2>"$dir/err"
check '[ "$(sed -n 2p "$dir/out" | cut -c1-20)" = "{\"l\":[\"v150\",\"v151\"," ] && [ "$(sed -n 3p "$dir/out")" = "{\"l\":null}" ]' \
    "dictlist_int16: $(head -c 200 "$dir/out") $(head -c 200 "$dir/err")"
"$R" scan "$dir/fsl0.parquet" --format jsonl --ordered >"$dir/out" 2>"$dir/err"
check '[ "$(tr "\n" " " <"$dir/out")" = "{\"l\":null} {\"l\":[]} {\"l\":null} " ]' "fsl0: $(cat "$dir/out" "$dir/err")"
"$PY" - "$dir" <<'PYEOF' || bad "pqcraft could not write the decimal files"
import sys, os
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "cli"))
from pqcraft import *
d = sys.argv[1]
def one(name, ptype, p, s, vals, tl=None):
    sch = [elem("schema", nchildren=1), elem("x", OPT, ptype, conv=5, scale=s, precision=p, tl=tl)]
    lv = [0 if v is None else 1 for v in vals]
    page = page_v1([], lv, 0, 1, plain(ptype, [v for v in vals if v is not None]))
    write(f"{d}/{name}.parquet", sch, [(len(vals), [dict(ptype=ptype, path=["x"], num_values=len(vals), pages=[page])])])
one("dec_p100", BYTE_ARRAY, 100, 50, [b"\x01" * 50, None])
one("dec_flba20", FLBA, 30, 2, [b"\x01" * 20, None], tl=20)
one("dec_flba20_sign", FLBA, 30, 2, [b"\x00" * 19 + b"\x05", b"\xff" * 20, None], tl=20)
one("dec_ba40", BYTE_ARRAY, 38, 2, [b"\x01" * 40, None])
PYEOF
scan_json() { "$R" scan "$dir/$1.parquet" --format jsonl --ordered >"$dir/out" 2>"$dir/err"; }
scan_json dec_p100
check '[ "$(tr "\n" " " <"$dir/out")" = "{\"x\":\"$(printf "\\x01%.0s" $(seq 50) | base64 -w0)\"} {\"x\":null} " ]' \
    "dec_p100: $(cat "$dir/out" "$dir/err" | head -c 300)"
for name in dec_flba20 dec_ba40; do
    scan_json $name; rc=$?
    check '[ $rc -eq 1 ] && grep -qF "column '"'x'"': the decimal in row 0 of the batch needs more than 16 bytes" "$dir/err"' \
        "$name: exit $rc, $(cat "$dir/out" "$dir/err" | head -c 300)"
done
scan_json dec_flba20_sign
check '[ "$(tr "\n" " " <"$dir/out")" = "{\"x\":\"0.05\"} {\"x\":\"-0.01\"} {\"x\":null} " ]' \
    "dec_flba20_sign: $(cat "$dir/out" "$dir/err" | head -c 300)"
# the Arrow types of the library's export (not under the sanitizer pass: it builds no shared
# library to load)
if [ "${RINGSCAN_SANITIZED:-0}" != 1 ]; then
need_lib adversarial_types
"$PY" - "$LIB" "$dir" >"$dir/types" 2>&1 <<'PYEOF'
import sys, os
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "cli"))
import rs_ctypes, pyarrow.parquet as pq
lib = rs_ctypes.load(sys.argv[1]); d = sys.argv[2]
for name in ("dec32_same", "dec32_p5", "dec64_s4", "dec256_p60", "fsl0", "dict_int16"):
    t, err = rs_ctypes.read_table(lib, f"{d}/{name}.parquet")
    want = pq.read_table(f"{d}/{name}.parquet")
    got = "error " + err if t is None else str(t.schema.field(0).type)
    print(name, got, "==" if t is not None and t.schema == want.schema and t.to_pylist() == want.to_pylist() else "!=", want.schema.field(0).type)
for name in ("dict_int8", "dictlist_uint8"):
    t, err = rs_ctypes.read_table(lib, f"{d}/{name}.parquet")
    print(name, "refused" if t is None and "does not fit the stored index type" in (err or "") else f"read: {err}")
PYEOF
while read -r want; do
    check 'grep -qxF "$want" "$dir/types"' "want '$want' in: $(tr '\n' '|' <"$dir/types")"
done <<'WANT'
dec32_same decimal32(9, 2) == decimal32(9, 2)
dec32_p5 decimal128(9, 2) == decimal128(9, 2)
dec64_s4 decimal128(9, 2) == decimal128(9, 2)
dec256_p60 decimal128(9, 2) == decimal128(9, 2)
fsl0 fixed_size_list<element: int64>[0] == fixed_size_list<element: int64>[0]
dict_int16 dictionary<values=string, indices=int16, ordered=0> == dictionary<values=string, indices=int16, ordered=0>
dict_int8 refused
dictlist_uint8 refused
WANT
fi
# A row group whose string column holds only nulls has a dictionary page of no entries; a
# count whose filter reads it after another conjunct ("v < 0.5 AND s IS NULL") evaluated IS
# NULL on that dictionary: memset of its mask's NULL words (length 0), a SIGILL in ReleaseSafe
# (found through a dataset's OR folded per file, `y IS NULL OR (v < 0.5 AND s IS NULL)`).
"$PY" -c "import sys, pyarrow as pa, pyarrow.parquet as pq; pq.write_table(pa.table({'v': pa.array([0.3, 0.2]), 's': pa.array(['x', None], pa.string())}), sys.argv[1], row_group_size=1)" "$dir/emptydict.parquet"
while IFS='|' read -r where want; do
    for fmt in count checksum; do
        got=$("$R" scan "$dir/emptydict.parquet" --where "$where" --format $fmt 2>&1; echo "rc=$?")
        check '[[ "$got" == "rows $want"*"rc=0" ]]' "empty dictionary, $where ($fmt): $got"
    done
done <<'CASES'
v < 0.5 AND s IS NULL|1
v < 0.5 AND s IS NOT NULL|1
v < 0.25 AND (s IS NULL OR s = 'x')|1
v > 0.25 AND s IS NULL|0
CASES
# a literal outside an integer column's range settles the comparison, rows as DuckDB counts them
"$PY" -c "import pyarrow as pa, pyarrow.parquet as pq; pq.write_table(pa.table({'u': pa.array([0, 5, None, 2**64 - 1], pa.uint64()), 'i': pa.array([-128, 0, None, 127], pa.int8())}), '$dir/range.parquet')"
while read -r where; do
    got=$("$R" scan "$dir/range.parquet" --where "$where" --format count 2>&1)
    duck=$("$PY" -c "import duckdb; print(duckdb.sql(\"select count(*) from '$dir/range.parquet' where $where\").fetchall()[0][0])")
    check '[ "$got" = "rows $duck" ]' "$where: got '$got', DuckDB $duck"
done <<'CASES'
u > -1
u < -1
u = 18446744073709551616
i BETWEEN -1000 AND 0
i IN (-200, 127, 500)
i != 300
u NOT IN (-1)
i >= -129 AND u <= 18446744073709551616
CASES
# A dataset whose first file's decimal claims more digits than its physical type holds (an
# INT32 DECIMAL(20,0), an FLBA(3) DECIMAL(7,2): files pqcraft writes, as a broken writer
# would): a later file's value cast into that type beyond what the physical form holds is
# refused naming it, the column and both files. It was cut to its low bytes, exit 0 with
# wrong values: the string '99999999999' read as 1215752191, the INT64 2^40 as 0, '99999.99'
# as -67772.17. Values the physical form holds still read.
"$PY" - "$dir" <<'PYEOF' || bad "pqcraft could not write the held-decimal files"
import sys, os
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "cli"))
from pqcraft import *
d = sys.argv[1]
def one(name, ptype, vals, conv=None, p=None, s=None, tl=None):
    os.makedirs(os.path.dirname(f"{d}/{name}"), exist_ok=True)
    sch = [elem("schema", nchildren=1), elem("x", OPT, ptype, conv=conv, scale=s, precision=p, tl=tl)]
    lv = [0 if v is None else 1 for v in vals]
    page = page_v1([], lv, 0, 1, plain(ptype, [v for v in vals if v is not None]))
    write(f"{d}/{name}.parquet", sch, [(len(vals), [dict(ptype=ptype, path=["x"], num_values=len(vals), pages=[page])])])
for k in ("s", "i", "ok"):
    one(f"held_{k}/a", INT32, [1, None], conv=5, p=20, s=0)
    one(f"held3_{k}/a", FLBA, [b"\x00\x00\x07"], conv=5, p=7, s=2, tl=3)
one("held_s/b", BYTE_ARRAY, [b"3", b"99999999999"], conv=0)
one("held_i/b", INT64, [5, 2**40])
one("held_ok/b", BYTE_ARRAY, [b"-2147483647", b"2147483647"], conv=0)
one("held3_s/b", BYTE_ARRAY, [b"1.5", b"99999.99"], conv=0)
one("held3_i/b", INT64, [5, 99999])
one("held3_ok/b", BYTE_ARRAY, [b"-83886.07", b"83886.07"], conv=0)
PYEOF
while IFS='|' read -r name value type; do
    "$R" scan "$dir/$name" --format csv >"$dir/out" 2>"$dir/err"; rc=$?
    check '[ $rc -eq 1 ] && grep -qF "$dir/$name/b.parquet: column '"'x'"': the $value does not " "$dir/err" && grep -qF "$type held in" "$dir/err" && grep -qF "its type from $dir/$name/a.parquet" "$dir/err"' \
        "$name: exit $rc, $(tr '\n' ' ' <"$dir/out") $(head -c 300 "$dir/err")"
done <<'CASES'
held_s|string '99999999999'|DECIMAL(20,0)
held_i|value 1099511627776|DECIMAL(20,0)
held3_s|string '99999.99'|DECIMAL(7,2)
held3_i|value 99999|DECIMAL(7,2)
CASES
for name in "held_ok:1  -2147483647 2147483647 " "held3_ok:0.07 -83886.07 83886.07 "; do
    got=$("$R" scan "$dir/${name%%:*}" --format csv 2>&1 | tail -n +2 | tr '\n' ' ')
    check '[ "$got" = "${name#*:}" ]' "${name%%:*}: got '$got', want '${name#*:}'"
done
summary adversarial_types
