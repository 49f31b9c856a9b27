#!/usr/bin/env bash
# tests/cli/dataset_types.sh: a dataset scan's Arrow types are pyarrow.dataset's (issue 23,
# sections 3 and 4): the first file's stored ARROW:schema gives the dataset's types (zones,
# large strings and binaries, dictionaries and their index type, decimal32/64, durations,
# field and schema metadata) and later files are cast to them as pyarrow casts them
# (tests/cli/dataset_types.py, through libringscan.so and rs_ctypes, against
# pyarrow.dataset.dataset(dir, partitioning="hive").to_table()):
#  1. a hive dataset (year, region) of every stored type; partition columns keep DuckDB's
#     types, their values equal pyarrow's;
#  2. the first file stores a schema and a later one not, and the reverse;
#  3. files storing different zones, duration units (later files' counts rescaled to the
#     first's unit) and dictionary index types; a projection in another order;
#  4. a duration whose cast would lose data or overflow: refused as pyarrow refuses it,
#     naming both files, the column and the value.
#  5. a union by name's nested field merged from two or three files' shapes keeps the stored
#     types the files agree on, each field's metadata the first file's (against
#     pyarrow.dataset under pa.unify_schemas(..., promote_options="permissive"), and the
#     values against DuckDB's union_by_name too).
# Then the CLI: durations printed in the dataset's unit, ORDER BY on a rescaled duration
# across files, and a filter on it refused with both files named (its literal would be read
# in each file's own unit); nested fields read whole or by a path inside.
# Last line: "dataset_types: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_lib dataset_types
need_pyenv dataset_types
py_cases dataset_types.py 7
# disagree/: a.parquet stores dur as duration[ms], b.parquet as [s], c.parquet as [us]; row
# id i holds 7*i seconds
out=$("$R" scan "$dir/disagree" --columns id,dur --format jsonl | sed -n '2p;42p;82p' | tr '\n' ' ')
check '[ "$out" = "{\"id\":1,\"dur\":7000} {\"id\":101,\"dur\":707000} {\"id\":201,\"dur\":1407000} " ]' "durations in ms: $out"
out=$("$R" scan "$dir/disagree" --columns id,dur --order-by 'dur desc' --limit 2 --format jsonl | tr '\n' ' ')
check '[ "$out" = "{\"id\":238,\"dur\":1666000} {\"id\":237,\"dur\":1659000} " ]' "order by dur: $out"
"$R" scan "$dir/disagree" --where 'dur > 5' --format checksum >"$dir/o" 2>"$dir/e"
rc=$?
err=$(cat "$dir/e")
check '[ "$rc" -ne 0 ] && [[ "$err" == *"disagree/b.parquet: column '"'"'dur'"'"'"*"disagree/a.parquet"* ]]' "filter on a rescaled duration: rc $rc: $err"
# a filter on a column no file rescales still runs
out=$("$R" scan "$dir/disagree" --where 'id >= 238' --columns id,dur --format jsonl | tr '\n' ' ')
check '[ "$out" = "{\"id\":238,\"dur\":1666000} {\"id\":239,\"dur\":null} " ]' "filter on id: $out"
# a stored dictionary column through ORDER BY ... LIMIT (merged as values, encoded at export)
# and through a filter that reads it (hive/: id i holds words[i % 4], null every 5th row)
out=$("$R" scan "$dir/hive" --columns id,word --order-by 'id desc' --limit 3 --format jsonl | tr '\n' ' ')
check '[ "$out" = "{\"id\":3119,\"word\":null} {\"id\":3118,\"word\":\"gamma\"} {\"id\":3117,\"word\":\"beta\"} " ]' "order by with a dictionary: $out"
out=$("$R" scan "$dir/hive" --columns id,word --where "word = 'beta' AND id > 3100" --format jsonl | tr '\n' ' ')
check '[ "$out" = "{\"id\":3101,\"word\":\"beta\"} {\"id\":3105,\"word\":\"beta\"} {\"id\":3113,\"word\":\"beta\"} {\"id\":3117,\"word\":\"beta\"} " ]' "filter on a dictionary: $out"
# nested fields are read whole, or a path inside one (tests/cli/dataset_nested.sh has the rest)
out=$("$R" scan "$dir/nested" --columns id,s --format jsonl | tr '\n' ' ')
check '[ "$out" = "{\"id\":1,\"s\":{\"a\":1}} {\"id\":2,\"s\":{\"a\":2}} {\"id\":3,\"s\":{\"a\":3}} " ]' "nested s: $out"
out=$("$R" scan "$dir/nested" --columns id,s.a --format jsonl | tr '\n' ' ')
check '[ "$out" = "{\"id\":1,\"s.a\":1} {\"id\":2,\"s.a\":2} {\"id\":3,\"s.a\":3} " ]' "nested s.a: $out"
out=$("$R" scan "$dir/nested" --format jsonl | tr '\n' ' ')
check '[ "$out" = "{\"id\":1,\"lst\":[1],\"s\":{\"a\":1}} {\"id\":2,\"lst\":[2,3],\"s\":{\"a\":2}} {\"id\":3,\"lst\":[4],\"s\":{\"a\":3}} " ]' "every column of a nested dataset: $out"
summary dataset_types
