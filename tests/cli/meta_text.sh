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
#  4. --json: statistics stay raw numbers, adjusted_to_utc is there for time types.
# Last line: "meta_text: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
D=$(dirname "${BASH_SOURCE[0]}")/../../../shared/parquet-testing/data
if ! PY=$(scripts/pyenv.sh 2>"$dir/pyenv.err" | tail -n1) || [ ! -x "$PY" ]; then
    bad "scripts/pyenv.sh failed: $(tail -n 3 "$dir/pyenv.err" | tr '\n' ' ')"
    summary meta_text
    exit 1
fi

# has FILE LINE: the text form of meta FILE has LINE exactly.
has() {
    if "$R" meta "$1" | grep -qxF -- "$2"; then ok; else bad "meta $(basename "$1") lacks: $2"; fi
}

# 1. conformance files
has "$D/alltypes_plain.parquet" "  10 timestamp_col INT96 optional"
has "$D/alltypes_plain.parquet" "row group 0: 8 rows, 671 B"
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
check '"$R" meta "$dir/big.parquet" | grep -qE "^row group 0: 20000 rows, [0-9]+\.[0-9] MiB$"' \
    "no MiB size: $("$R" meta "$dir/big.parquet" | grep "^row group 0")"

# 4. --json stays raw
"$R" meta --json "$demo" >"$dir/demo.json"
day=$("$PY" -c "import datetime,sys; print((datetime.date.fromisoformat(sys.argv[1]) - datetime.date(1970,1,1)).days)" \
      "$(stat_of "$demo" date | sed 's/^min \([0-9-]*\),.*/\1/')")
check 'grep -q "\"column\": \"date\", [^}]*\"min\": $day, " "$dir/demo.json"' "JSON date min is not the raw day number $day"
check 'grep -q "\"name\": \"ts_ms\", \"physical\": \"INT64\", \"logical\": \"TIMESTAMP_MILLIS\", \"repetition\": \"OPTIONAL\", \"adjusted_to_utc\": true" "$dir/demo.json"' \
    "JSON ts_ms column lacks adjusted_to_utc"
check 'grep -q "\"compressed_size\": [0-9]*, " "$dir/demo.json"' "JSON sizes are not raw numbers"

summary meta_text
