#!/usr/bin/env bash
# tests/cli/meta_text.sh: the text form of `ringscan meta` reads as the data's types, and
# --json keeps the raw numbers. Run by tests/run.sh with $RINGSCAN = the binary and cwd = the
# project root.
#  1. Conformance files, exact lines: types once each (INT96, DECIMAL(p,s), STRING),
#     decimals with their scale (INT32, INT64, FIXED_LEN_BYTE_ARRAY), floats as the shortest
#     text, sizes as B/KiB, "no min/max" where the Statistics hold none.
#  2. A pyarrow-written file (timestamps in ms UTC and us local, a date, a decimal, a string):
#     exact schema and statistics lines.
#  3. `gen demo-types`: each typed column's min and max equal pyarrow's statistics values
#     printed in ringscan's form; TIME_*/TIMESTAMP_* carry unit and UTC flag; a bigger file
#     shows MiB.
#  4. --json: statistics stay raw numbers, adjusted_to_utc is there for time types; typed
#     columns (dates, timestamps, FLOAT16, ...) add min_display/max_display, the text's values.
#  5. The whole text of `gen demo-types` (defaults) and `gen lineitem --sf 0.01`, exactly (the
#     generators are seeded: the same binary writes the same bytes); the lineitem file's
#     chunk lines also match pyarrow's metadata, formatted as ringscan formats it.
#  6. Nested files: the schema tree, exactly (groups with their kind and repetition, nested
#     leaves indented with their levels, flat columns as in a flat file), and --json's
#     "fields" tree and nested leaves' levels.
# Last line: "meta_text: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
D=$(dirname "${BASH_SOURCE[0]}")/../../../shared/parquet-testing/data
need_pyenv meta_text

# has FILE LINE: the text form of meta FILE has LINE exactly.
has() {
    if "$R" meta "$1" | grep -qxF -- "$2"; then ok; else bad "meta $(basename "$1") lacks: $2"; fi
}

# 1. conformance files
has "$D/alltypes_plain.parquet" "  10 timestamp_col INT96 optional"
has "$D/alltypes_plain.parquet" "row group 0: 8 rows, 671 B compressed, 671 B uncompressed"
has "$D/alltypes_plain.parquet" "row groups: 1, 671 B compressed, 671 B uncompressed"
has "$D/alltypes_plain.parquet" \
    "  id: UNCOMPRESSED, 8 values, 73 B compressed, 73 B uncompressed, encodings PLAIN PLAIN_DICTIONARY RLE, no min/max"
has "$D/int32_decimal.parquet" "  0 value INT32 DECIMAL(4,2) optional"
has "$D/int32_decimal.parquet" \
    "  value: UNCOMPRESSED, 24 values, 137 B compressed, 137 B uncompressed, encodings PLAIN RLE BIT_PACKED, min 1.00, max 24.00, nulls 0"
has "$D/int64_decimal.parquet" \
    "  value: UNCOMPRESSED, 24 values, 241 B compressed, 241 B uncompressed, encodings PLAIN RLE BIT_PACKED, min 1.00, max 24.00, nulls 0"
has "$D/byte_stream_split_extended.gzip.parquet" "  12 decimal_plain FIXED_LEN_BYTE_ARRAY(4) DECIMAL(7,3) optional"
has "$D/byte_stream_split_extended.gzip.parquet" \
    "  decimal_plain: GZIP, 200 values, 736 B compressed, 855 B uncompressed, encodings PLAIN RLE, min 635.159, max 1280.921, nulls 0"
has "$D/alltypes_tiny_pages_plain.parquet" "  8 date_string_col BYTE_ARRAY STRING optional"
has "$D/alltypes_tiny_pages_plain.parquet" \
    "  float_col: UNCOMPRESSED, 7300 values, 36.5 KiB compressed, 36.5 KiB uncompressed, encodings PLAIN RLE BIT_PACKED, min -0, max 9.9, nulls 0, offset index, column index"
check '! "$R" meta "$D/int64_decimal.parquet" | grep -q "INT64 INT64"' "a type printed twice"

# 2. a pyarrow-written file
"$PY" - "$dir/py.parquet" <<'PYEOF'
import sys, datetime as dt, decimal as de, pyarrow as pa, pyarrow.parquet as pq
t = pa.table({
    "ts_utc": pa.array([dt.datetime(2024, 2, 29, 23, 59, 58, 123000), dt.datetime(1969, 12, 31, 0, 0, 0, 1000)],
                       pa.timestamp("ms", tz="UTC")),
    "ts_local": pa.array([dt.datetime(2001, 9, 9, 1, 46, 40, 5), None], pa.timestamp("us")),
    "d": pa.array([dt.date(1999, 12, 31), dt.date(2000, 1, 1)], pa.date32()),
    "price": pa.array([de.Decimal("-0.05"), de.Decimal("123.40")], pa.decimal128(5, 2)),
    "name": pa.array(["zoë", "a,b"])})
pq.write_table(t, sys.argv[1], compression="none")
PYEOF
p="$dir/py.parquet"
has "$p" "  0 ts_utc INT64 TIMESTAMP(MILLIS, UTC) optional"
has "$p" "  1 ts_local INT64 TIMESTAMP(MICROS, local) optional"
has "$p" "  2 d INT32 DATE optional"
has "$p" "  3 price FIXED_LEN_BYTE_ARRAY(3) DECIMAL(5,2) optional"
has "$p" "  4 name BYTE_ARRAY STRING optional"
stat_of() { "$R" meta "$1" | grep "^  $2: " | sed 's/.*encodings [A-Z_ ]*, //'; }
check '[ "$(stat_of "$p" ts_utc)" = "min 1969-12-31 00:00:00.001Z, max 2024-02-29 23:59:58.123Z, nulls 0" ]' \
    "ts_utc statistics: $(stat_of "$p" ts_utc)"
check '[ "$(stat_of "$p" ts_local)" = "min 2001-09-09 01:46:40.000005, max 2001-09-09 01:46:40.000005, nulls 1" ]' \
    "ts_local statistics: $(stat_of "$p" ts_local)"
check '[ "$(stat_of "$p" d)" = "min 1999-12-31, max 2000-01-01, nulls 0" ]' "d statistics: $(stat_of "$p" d)"
check '[ "$(stat_of "$p" price)" = "min -0.05, max 123.40, nulls 0" ]' "price statistics: $(stat_of "$p" price)"
check '[ "$(stat_of "$p" name)" = "min \"a,b\", max \"zoë\", nulls 0" ]' "name statistics: $(stat_of "$p" name)"

# 3. gen demo-types against pyarrow's statistics
demo="$dir/demo.parquet"
"$R" gen demo-types -o "$demo" --rows 1000 >/dev/null 2>"$dir/gen.err"
check '[ -s "$demo" ]' "gen demo-types failed: $(tail -n 3 "$dir/gen.err")"
"$PY" - "$demo" >"$dir/want.txt" <<'PYEOF'
import sys, json, pyarrow.parquet as pq
rg = pq.ParquetFile(sys.argv[1]).metadata.row_group(0)
def form(name, v):
    if name == "date": return v.isoformat()
    if name.startswith("time_"):
        digits = {"time_ms": 3, "time_us": 6}[name]
        return v.strftime("%H:%M:%S.") + ("%06d" % v.microsecond)[:digits]
    if name == "ts_ms": return v.strftime("%Y-%m-%d %H:%M:%S.") + ("%06d" % v.microsecond)[:3] + "Z"
    if name == "ts_us": return v.strftime("%Y-%m-%d %H:%M:%S.%f")
    if name == "str": return json.dumps(v, ensure_ascii=False)
    return str(v)
names = ["i8", "u64", "date", "time_ms", "time_us", "ts_ms", "ts_us", "dec32", "dec64", "dec_flba", "dec_ba", "str", "req_i64"]
for i in range(rg.num_columns):
    c = rg.column(i)
    if c.path_in_schema in names:
        s = c.statistics
        print("%s min %s, max %s, nulls %d" % (c.path_in_schema, form(c.path_in_schema, s.min), form(c.path_in_schema, s.max), s.null_count))
PYEOF
check '[ "$(wc -l <"$dir/want.txt")" -eq 13 ]' "pyarrow printed $(wc -l <"$dir/want.txt") demo columns, not 13"
while read -r name rest; do
    got=$(stat_of "$demo" "$name" | sed 's/, offset index.*//')
    check '[ "$got" = "$rest" ]' "demo $name: ringscan '$got', pyarrow '$rest'"
done <"$dir/want.txt"
has "$demo" "  18 time_ns INT64 TIME(NANOS, UTC) optional"
has "$demo" "  21 ts_ns INT64 TIMESTAMP(NANOS, UTC) optional"
check '[[ "$(stat_of "$demo" ts_ns)" =~ ^min\ [0-9]{4}-[0-9]{2}-[0-9]{2}\ [0-9:]{8}\.[0-9]{9}Z,\ max ]]' \
    "ts_ns statistics: $(stat_of "$demo" ts_ns)"
check '[[ "$(stat_of "$demo" f16)" =~ ^min\ -?[0-9.e+-]+,\ max\ -?[0-9.e+-]+, ]]' "f16 statistics: $(stat_of "$demo" f16)"
check '[[ "$(stat_of "$demo" flba)" =~ ^min\ 0x[0-9a-f]{8},\ max\ 0x[0-9a-f]{8}, ]]' "flba statistics: $(stat_of "$demo" flba)"
"$R" gen demo-types -o "$dir/big.parquet" --rows 20000 >/dev/null 2>&1
check '"$R" meta "$dir/big.parquet" | grep -qE "^row group 0: 20000 rows, [0-9.]+ MiB compressed, [0-9]+\.[0-9] MiB uncompressed$"' \
    "no MiB size: $("$R" meta "$dir/big.parquet" | grep "^row group 0")"

# 4. --json stays raw
"$R" meta --json "$demo" >"$dir/demo.json"
day=$("$PY" -c "import datetime,sys; print((datetime.date.fromisoformat(sys.argv[1]) - datetime.date(1970,1,1)).days)" \
      "$(stat_of "$demo" date | sed 's/^min \([0-9-]*\),.*/\1/')")
check 'grep -q "\"column\": \"date\", [^}]*\"min\": $day, " "$dir/demo.json"' "JSON date min is not the raw day number $day"
check 'grep -q "\"name\": \"ts_ms\", \"physical\": \"INT64\", \"logical\": \"TIMESTAMP_MILLIS\", \"repetition\": \"OPTIONAL\", \"adjusted_to_utc\": true" "$dir/demo.json"' \
    "JSON ts_ms column lacks adjusted_to_utc"
check 'grep -q "\"compressed_size\": [0-9]*, " "$dir/demo.json"' "JSON sizes are not raw numbers"
# typed columns also carry the text form's values: min_display/max_display equal the text lines
for col in date ts_ns f16; do
    want=$(stat_of "$demo" "$col" | sed 's/^min \([^,]*\), max \([^,]*\),.*/\1|\2/')
    got=$(grep -o "\"column\": \"$col\", [^}]*}" "$dir/demo.json" | head -n1 |
          sed 's/.*"min_display": "\([^"]*\)", "max_display": "\([^"]*\)".*/\1|\2/')
    check '[ -n "$want" ] && [ "$got" = "$want" ]' "JSON $col display: '$got', text '$want'"
done
check '! grep -q "\"column\": \"str\", [^}]*min_display" "$dir/demo.json"' "a string column got min_display"

# 5. whole texts, exactly (the "file:" line, which names the temporary path, left out)
# same NAME FILE: meta FILE's text after its first line equals stdin.
same() {
    "$R" meta "$2" | sed 1d >"$dir/got.txt"
    if diff "$dir/want.txt" "$dir/got.txt" >"$dir/diff.txt"; then ok; else bad "$1: $(head -n 6 "$dir/diff.txt")"; fi
}
"$R" gen demo-types -o "$dir/demo10k.parquet" >/dev/null 2>&1
cat >"$dir/want.txt" <<'EOF'
rows: 10000
created_by: ringscan 0.1.0
column_orders: known
row groups: 1, 1.7 MiB compressed, 1.8 MiB uncompressed
schema (28 columns):
  0 bool BOOLEAN optional
  1 i8 INT32 INT8 optional
  2 i16 INT32 INT16 optional
  3 i32 INT32 optional
  4 i64 INT64 optional
  5 u8 INT32 UINT8 optional
  6 u16 INT32 UINT16 optional
  7 u32 INT32 UINT32 optional
  8 u64 INT64 UINT64 optional
  9 f32 FLOAT optional
  10 f64 DOUBLE optional
  11 str BYTE_ARRAY STRING optional
  12 bin BYTE_ARRAY optional
  13 flba FIXED_LEN_BYTE_ARRAY(4) optional
  14 f16 FIXED_LEN_BYTE_ARRAY(2) FLOAT16 optional
  15 date INT32 DATE optional
  16 time_ms INT32 TIME(MILLIS, UTC) optional
  17 time_us INT64 TIME(MICROS, UTC) optional
  18 time_ns INT64 TIME(NANOS, UTC) optional
  19 ts_ms INT64 TIMESTAMP(MILLIS, UTC) optional
  20 ts_us INT64 TIMESTAMP(MICROS, local) optional
  21 ts_ns INT64 TIMESTAMP(NANOS, UTC) optional
  22 dec32 INT32 DECIMAL(9,2) optional
  23 dec64 INT64 DECIMAL(18,4) optional
  24 dec_flba FIXED_LEN_BYTE_ARRAY(13) DECIMAL(30,3) optional
  25 dec_ba BYTE_ARRAY DECIMAL(25,5) optional
  26 i96 INT96 optional
  27 req_i64 INT64 required
row group 0: 10000 rows, 1.7 MiB compressed, 1.8 MiB uncompressed
  bool: SNAPPY, 10000 values, 2.6 KiB compressed, 2.6 KiB uncompressed, encodings PLAIN RLE, min false, max true, nulls 1217, offset index, column index
  i8: SNAPPY, 10000 values, 11.0 KiB compressed, 11.1 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min -128, max 127, nulls 1310, offset index, column index
  i16: SNAPPY, 10000 values, 48.6 KiB compressed, 48.6 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min -32762, max 32762, nulls 1225, offset index, column index
  i32: SNAPPY, 10000 values, 50.8 KiB compressed, 50.8 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min -2147395152, max 2147219564, nulls 1226, offset index, column index
  i64: SNAPPY, 10000 values, 84.8 KiB compressed, 84.9 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min -9223026736056145413, max 9222660340649424169, nulls 1254, offset index, column index
  u8: SNAPPY, 10000 values, 11.1 KiB compressed, 11.1 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 0, max 255, nulls 1270, offset index, column index
  u16: SNAPPY, 10000 values, 47.3 KiB compressed, 47.3 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 11, max 65532, nulls 1285, offset index, column index
  u32: SNAPPY, 10000 values, 50.6 KiB compressed, 50.6 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 68213, max 4294644378, nulls 1259, offset index, column index
  u64: SNAPPY, 10000 values, 84.9 KiB compressed, 85.0 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 2312168745293361, max 18446518316280527282, nulls 1246, offset index, column index
  f32: SNAPPY, 10000 values, 38.8 KiB compressed, 38.8 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min -inf, max inf, nulls 1238, offset index, column index
  f64: SNAPPY, 10000 values, 63.0 KiB compressed, 63.0 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min -inf, max inf, nulls 1207, offset index, column index
  str: SNAPPY, 10000 values, 59.2 KiB compressed, 82.6 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min "", max "😀😀😀\\7", nulls 1206, offset index, column index
  bin: SNAPPY, 10000 values, 68.8 KiB compressed, 76.6 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min "", max 0xfff3402fd663, nulls 1215, offset index, column index
  flba: SNAPPY, 10000 values, 50.7 KiB compressed, 50.7 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 0x00095a66, max 0xfff5ec83, nulls 1258, offset index, column index
  f16: SNAPPY, 10000 values, 32.6 KiB compressed, 32.6 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min -65504, max 65344, nulls 1194, offset index, column index
  date: SNAPPY, 10000 values, 48.7 KiB compressed, 48.7 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 1900-03-15, max 2100-01-12, nulls 1240, offset index, column index
  time_ms: SNAPPY, 10000 values, 50.7 KiB compressed, 50.7 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 00:00:14.735, max 23:59:57.281, nulls 1258, offset index, column index
  time_us: SNAPPY, 10000 values, 76.1 KiB compressed, 85.0 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 00:00:05.263854, max 23:59:54.887683, nulls 1232, offset index, column index
  time_ns: SNAPPY, 10000 values, 84.7 KiB compressed, 84.7 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 00:00:32.598267235, max 23:59:40.639679650, nulls 1270, offset index, column index
  ts_ms: SNAPPY, 10000 values, 84.5 KiB compressed, 85.1 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 1870-01-04 16:14:01.065Z, max 2069-12-29 07:14:33.221Z, nulls 1233, offset index, column index
  ts_us: SNAPPY, 10000 values, 85.1 KiB compressed, 85.1 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 1870-01-07 09:43:03.646213, max 2069-12-31 07:54:35.454347, nulls 1232, offset index, column index
  ts_ns: SNAPPY, 10000 values, 84.9 KiB compressed, 84.9 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 1870-01-02 11:24:19.397810408Z, max 2069-10-13 22:43:24.699717392Z, nulls 1252, offset index, column index
  dec32: SNAPPY, 10000 values, 50.7 KiB compressed, 50.8 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min -9998287.42, max 9999800.02, nulls 1239, offset index, column index
  dec64: SNAPPY, 10000 values, 85.0 KiB compressed, 85.1 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min -99995562838147.0896, max 99984376137668.5433, nulls 1230, offset index, column index
  dec_flba: SNAPPY, 10000 values, 128.4 KiB compressed, 128.4 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min -999919338861268433352.624, max 999971591190111394003.747, nulls 1192, offset index, column index
  dec_ba: SNAPPY, 10000 values, 126.9 KiB compressed, 139.1 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min -9995445883769862195.12516, max 9997711492143479112.05203, nulls 1268, offset index, column index
  i96: SNAPPY, 10000 values, 118.6 KiB compressed, 118.6 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, no min/max, nulls 1288, offset index
  req_i64: SNAPPY, 10000 values, 56.3 KiB compressed, 95.3 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 0, max 29997, nulls 0, offset index, column index
EOF
same "gen demo-types" "$dir/demo10k.parquet"
li="$dir/li.parquet"
"$R" gen lineitem --sf 0.01 -o "$li" >/dev/null 2>&1
cat >"$dir/want.txt" <<'EOF'
rows: 60134
created_by: ringscan 0.1.0
column_orders: known
row groups: 1, 1.9 MiB compressed, 3.0 MiB uncompressed
schema (16 columns):
  0 l_orderkey INT64 required
  1 l_partkey INT64 required
  2 l_suppkey INT64 required
  3 l_linenumber INT32 required
  4 l_quantity INT64 DECIMAL(15,2) required
  5 l_extendedprice INT64 DECIMAL(15,2) required
  6 l_discount INT64 DECIMAL(15,2) required
  7 l_tax INT64 DECIMAL(15,2) required
  8 l_returnflag BYTE_ARRAY STRING required
  9 l_linestatus BYTE_ARRAY STRING required
  10 l_shipdate INT32 DATE required
  11 l_commitdate INT32 DATE required
  12 l_receiptdate INT32 DATE required
  13 l_shipinstruct BYTE_ARRAY STRING required
  14 l_shipmode BYTE_ARRAY STRING required
  15 l_comment BYTE_ARRAY STRING required
row group 0: 60134 rows, 1.9 MiB compressed, 3.0 MiB uncompressed
  l_orderkey: SNAPPY, 60134 values, 142.0 KiB compressed, 217.7 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 1, max 59976, nulls 0, offset index, column index
  l_partkey: SNAPPY, 60134 values, 88.8 KiB compressed, 96.6 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 1, max 2000, nulls 0, offset index, column index
  l_suppkey: SNAPPY, 60134 values, 52.0 KiB compressed, 52.4 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 1, max 100, nulls 0, offset index, column index
  l_linenumber: SNAPPY, 60134 values, 15.4 KiB compressed, 22.2 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 1, max 7, nulls 0, offset index, column index
  l_quantity: SNAPPY, 60134 values, 44.5 KiB compressed, 44.6 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 1.00, max 50.00, nulls 0, offset index, column index
  l_extendedprice: SNAPPY, 60134 values, 294.1 KiB compressed, 394.1 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 902.00, max 94999.50, nulls 0, offset index, column index
  l_discount: SNAPPY, 60134 values, 29.6 KiB compressed, 29.7 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 0.00, max 0.10, nulls 0, offset index, column index
  l_tax: SNAPPY, 60134 values, 29.6 KiB compressed, 29.6 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 0.00, max 0.08, nulls 0, offset index, column index
  l_returnflag: SNAPPY, 60134 values, 14.5 KiB compressed, 14.5 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min "A", max "R", nulls 0, offset index, column index
  l_linestatus: SNAPPY, 60134 values, 9.3 KiB compressed, 9.3 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min "F", max "O", nulls 0, offset index, column index
  l_shipdate: SNAPPY, 60134 values, 98.1 KiB compressed, 98.1 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 1992-01-06, max 1998-11-28, nulls 0, offset index, column index
  l_commitdate: SNAPPY, 60134 values, 97.9 KiB compressed, 97.9 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 1992-02-02, max 1998-10-29, nulls 0, offset index, column index
  l_receiptdate: SNAPPY, 60134 values, 98.2 KiB compressed, 98.1 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min 1992-01-10, max 1998-12-19, nulls 0, offset index, column index
  l_shipinstruct: SNAPPY, 60134 values, 15.0 KiB compressed, 15.0 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min "COLLECT COD", max "TAKE BACK RETURN", nulls 0, offset index, column index
  l_shipmode: SNAPPY, 60134 values, 22.3 KiB compressed, 22.3 KiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min "AIR", max "TRUCK", nulls 0, offset index, column index
  l_comment: SNAPPY, 60134 values, 850.9 KiB compressed, 1.8 MiB uncompressed, encodings PLAIN RLE RLE_DICTIONARY, min "about the ", max "x-ray without the stealthy court", nulls 0, offset index, column index
EOF
same "gen lineitem --sf 0.01" "$li"
# the lineitem chunk lines from pyarrow's reading of the footer, in ringscan's forms
"$PY" - "$li" >"$dir/want.txt" <<'PYEOF'
import sys, pyarrow.parquet as pq
md = pq.ParquetFile(sys.argv[1]).metadata
def human(n):
    if n < 1024: return "%d B" % n
    v, u = n / 1024, 0
    while v >= 1024 and u < 3: v, u = v / 1024, u + 1
    return "%.1f %s" % (v, ["KiB", "MiB", "GiB", "TiB"][u])
def form(v):
    if isinstance(v, str): return '"%s"' % v
    return str(v)
rg = md.row_group(0)
for i in range(rg.num_columns):
    c = rg.column(i)
    s = c.statistics
    print("  %s: %s, %d values, %s compressed, %s uncompressed, encodings %s, min %s, max %s, nulls %d, offset index, column index"
          % (c.path_in_schema, c.compression, c.num_values, human(c.total_compressed_size),
             human(c.total_uncompressed_size), " ".join(sorted(c.encodings)), form(s.min), form(s.max), s.null_count))
PYEOF
"$R" meta "$li" | grep "^  l_[a-z]*: " >"$dir/got.txt"
if diff "$dir/want.txt" "$dir/got.txt" >"$dir/diff.txt"; then ok; else bad "lineitem vs pyarrow: $(head -n 6 "$dir/diff.txt")"; fi

# 6. nested files: the tree
tree_of() { "$R" meta "$1" | sed -n '/^schema (/,/^row group 0/p' | sed '$d'; }
cat >"$dir/want.txt" <<'EOF'
schema (5 columns):
  a MAP optional
    key_value group repeated
      0 key BYTE_ARRAY STRING required (levels: definition 2, repetition 1)
      value MAP optional
        key_value group repeated
          1 key INT32 required (levels: definition 4, repetition 2)
          2 value BOOLEAN required (levels: definition 4, repetition 2)
  3 b INT32 required
  4 c DOUBLE required
EOF
tree_of "$D/nested_maps.snappy.parquet" >"$dir/got.txt"
check 'diff "$dir/want.txt" "$dir/got.txt" >"$dir/diff.txt"' "nested_maps tree: $(head -n 6 "$dir/diff.txt")"
cat >"$dir/want.txt" <<'EOF'
schema (4 columns):
  0 Int32_list INT32 repeated (levels: definition 1, repetition 1)
  1 String_list BYTE_ARRAY STRING repeated (levels: definition 1, repetition 1)
  group_of_lists struct required
    2 Int32_list_in_group INT32 repeated (levels: definition 1, repetition 1)
    3 String_list_in_group BYTE_ARRAY STRING repeated (levels: definition 1, repetition 1)
EOF
tree_of "$D/repeated_primitive_no_list.parquet" >"$dir/got.txt"
check 'diff "$dir/want.txt" "$dir/got.txt" >"$dir/diff.txt"' "repeated_primitive_no_list tree: $(head -n 6 "$dir/diff.txt")"
has "$D/datapage_v2.snappy.parquet" "  e LIST optional"
has "$D/datapage_v2.snappy.parquet" "      4 element INT32 required (levels: definition 2, repetition 1)"
has "$D/datapage_v2.snappy.parquet" "  3 d BOOLEAN required"
"$R" meta --json "$D/nested_maps.snappy.parquet" >"$dir/nm.json"
cat >"$dir/nm_check.py" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
a, b = d["fields"][0], d["fields"][1]
assert [f["name"] for f in d["fields"]] == ["a", "b", "c"], d["fields"]
assert (a["kind"], a["arrow"], a["repetition"]) == ("MAP", "map", "OPTIONAL"), a
kv = a["children"][0]
assert (kv["kind"], kv["repetition"], kv["max_repetition_level"]) == ("group", "REPEATED", 1), kv
assert kv["children"][1]["children"][0]["children"][1] == {"name": "value", "kind": "primitive",
    "arrow": "flat", "repetition": "REQUIRED", "max_definition_level": 4,
    "max_repetition_level": 2, "column": 2}
assert b == {"name": "b", "kind": "primitive", "arrow": "flat", "repetition": "REQUIRED",
             "max_definition_level": 0, "max_repetition_level": 0, "column": 3}, b
s0 = d["schema"][0]
assert (s0["name"], s0["nested"], s0["max_definition_level"]) == ("a.key_value.key", True, 2), s0
assert "nested" not in d["schema"][3]
PYEOF
nm_err=$("$PY" "$dir/nm_check.py" "$dir/nm.json" 2>&1)
check '[ -z "$nm_err" ]' "meta --json of nested_maps: $(tail -n 2 <<<"$nm_err")"

summary meta_text
