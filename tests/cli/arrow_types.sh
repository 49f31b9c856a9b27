#!/usr/bin/env bash
# tests/cli/arrow_types.sh: the Arrow types ringscan exports equal pyarrow's reading of the
# same file (issue 23, "faithful types"). pyarrow 26 writes files (tests/cli/arrow_types.py);
# libringscan.so is read through ctypes (tests/cli/rs_ctypes.py) and its stream imported as a
# pyarrow Table; each case asserts the schema (types, zones, field and schema metadata,
# extension types) and the values equal pyarrow.parquet.read_table's:
#  1. a zone stored in ARROW:schema (America/New_York, Asia/Tokyo with a seconds unit stored
#     as ms), a naive timestamp, isAdjustedToUTC without a stored schema ("UTC");
#  2. large_string and large_binary (int64 offsets) from the stored schema;
#  3. field metadata and schema metadata; PARQUET:field_id;
#  4. UUID as the arrow.uuid extension (fixed_size_binary(16)), with and without a stored
#     schema; FLOAT16 as halffloat;
#  5. durations ("tDs" ... "tDn") from the stored schema; the CLI prints the new formats;
#  6. an ARROW:schema that is not valid: refused with a message naming the key (pyarrow
#     refuses too).
# Last line: "arrow_types: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_lib arrow_types
need_pyenv arrow_types
py_cases tests/cli/arrow_types.py "$LIB" "$dir"
[ "$passed" -ge 8 ] || bad "only $passed cases passed"
# the CLI prints what the export now gives: durations as counts, zones as instants ("Z"),
# large strings as strings
out=$("$R" scan "$dir/durations.parquet" --format jsonl --ordered | head -n 1)
check '[ "$out" = "{\"s\":1,\"ms\":1,\"us\":1,\"ns\":1}" ]' "durations jsonl: $out"
out=$("$R" scan "$dir/zones.parquet" --columns ny,naive_ms --format jsonl --ordered | head -n 1)
check '[ "$out" = "{\"ny\":\"2024-01-01T12:30:05.123456Z\",\"naive_ms\":\"2024-01-01T12:30:05.000\"}" ]' "zones jsonl: $out"
out=$("$R" scan "$dir/large.parquet" --columns ls,lb --format jsonl --ordered | head -n 2 | tr '\n' ' ')
check '[ "$out" = "{\"ls\":\"a\",\"lb\":\"AAE=\"} {\"ls\":null,\"lb\":\"\"} " ]' "large jsonl: $out"
summary arrow_types
