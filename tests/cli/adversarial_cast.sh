#!/usr/bin/env bash
# tests/cli/adversarial_cast.sh: a later dataset file's strings read under a first file's
# typed column (scan/ds_parse.c) when a string holds a NUL byte (s26 adversarial pass): the
# casts read NUL-terminated text, so "12\0abc" under an INT64 column read as 12 and
# "2024-03-01 12:00:00 UTC\0junk" under a timestamp[us, UTC] one as 12:00 UTC; DuckDB refuses
# both ("Could not convert string '12\0abc' to INT64"). Now an error naming the file, the
# column and the string up to its NUL (shown as \0...). The same strings without the NUL still
# read, and so does an empty string's neighbour in a file of several rows.
# Last line: "adversarial_cast: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv adversarial_cast
"$PY" - "$dir" <<'PYEOF' || { bad "could not craft the files"; summary adversarial_cast; exit 1; }
import sys, os, datetime, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "cli"))
from pqcraft import write, elem, page_v1, plain, REQ, BYTE_ARRAY
pq.write_table(pa.table({"x": pa.array([1], pa.int64())}), f"{d}/a_int.parquet")
pq.write_table(pa.table({"x": pa.array([datetime.datetime(2024, 1, 1)], pa.timestamp("us", tz="UTC"))}), f"{d}/a_utc.parquet")
for name, vals in (("i_nul", [b"7", b"12\x00abc"]), ("i_end", [b"12\x00"]), ("i_ok", [b"7", b"12"]),
                   ("t_nul", [b"2024-03-01 12:00:00 UTC\x00junk"]), ("t_ok", [b"2024-03-01 12:00:00 Europe/Paris"])):
    write(f"{d}/{name}.parquet", [elem("schema", nchildren=1), elem("x", REQ, BYTE_ARRAY, conv=0)],
          [(len(vals), [dict(ptype=BYTE_ARRAY, path=["x"], num_values=len(vals),
                             pages=[page_v1([], [0] * len(vals), 0, 0, plain(BYTE_ARRAY, vals))])])])
PYEOF
while IFS='|' read -r first name shown; do
    "$R" scan "$dir/$first.parquet" "$dir/$name.parquet" --format csv >"$dir/out" 2>"$dir/err"; rc=$?
    check '[ $rc -eq 1 ] && grep -qF "$dir/$name.parquet: column '"'x'"': the string '"'$shown\\0...'"' does not parse" "$dir/err"' \
        "$name: exit $rc, $(tr '\n' ' ' <"$dir/out") $(head -c 300 "$dir/err")"
done <<'CASES'
a_int|i_nul|12
a_int|i_end|12
a_utc|t_nul|2024-03-01 12:00:00 UTC
CASES
for c in "a_int:i_ok:1 7 12 " "a_utc:t_ok:2024-01-01T00:00:00.000000Z 2024-03-01T11:00:00.000000Z "; do
    IFS=: read -r first name want <<<"$c"
    got=$("$R" scan "$dir/$first.parquet" "$dir/$name.parquet" --format csv 2>&1 | tail -n +2 | tr '\n' ' ')
    check '[ "$got" = "$want" ]' "$name: got '$got', want '$want'"
done
summary adversarial_cast
