#!/usr/bin/env bash
# tests/cli/json_utf8.sh: JSON output stays JSON (RFC 8259: UTF-8 text) when a file's strings
# or names are not UTF-8 (s26 adversarial pass). A STRING column may hold any bytes (pyarrow
# reads them unchecked; DuckDB refuses the file), and a column's name is any bytes too: `scan
# --format jsonl` and `meta --json` wrote them raw, so a JSON reader failed on the line. Now a
# byte that starts no well-formed UTF-8 sequence (a stray continuation byte, a lead without its
# continuations, an overlong form, a surrogate, a code point past U+10FFFF) is written as
# U+FFFD, one per byte; well-formed sequences of 2, 3 and 4 bytes are written as they are.
# Last line: "json_utf8: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv json_utf8
"$PY" - "$dir" <<'PYEOF' || { bad "could not craft the file"; summary json_utf8; exit 1; }
import sys, os
d = sys.argv[1]
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "cli"))
from pqcraft import write, elem, page_v1, plain, REQ, BYTE_ARRAY
vals = [b"\xff\x00a", b"ok \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", b"\xc3", b"\xe2\x82", b"\xc0\xaf",
        b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80x\x7f"]
write(f"{d}/bad.parquet", [elem("schema", nchildren=1), elem(b"n\xfe", REQ, BYTE_ARRAY, conv=0)],
      [(len(vals), [dict(ptype=BYTE_ARRAY, path=[b"n\xfe"], num_values=len(vals),
                         pages=[page_v1([], [0] * len(vals), 0, 0, plain(BYTE_ARRAY, vals))])])])
PYEOF
"$R" scan "$dir/bad.parquet" --format jsonl >"$dir/out" 2>"$dir/err"; rc=$?
got=$("$PY" -c '
import json, sys
for line in open(sys.argv[1], "rb"):
    for k, v in json.loads(line.decode("utf-8")).items(): print(ascii(k), ascii(v))
' "$dir/out" 2>&1 | tr '\n' ' ')
want="'n\ufffd' '\ufffd\x00a' 'n\ufffd' 'ok \xe9 \u20ac \U0001f600' 'n\ufffd' '\ufffd' 'n\ufffd' '\ufffd\ufffd' 'n\ufffd' '\ufffd\ufffd' 'n\ufffd' '\ufffd\ufffd\ufffd' 'n\ufffd' '\ufffd\ufffd\ufffd\ufffd' 'n\ufffd' '\ufffdx\x7f' "
check '[ $rc -eq 0 ] && [ "$got" = "$want" ]' "scan --format jsonl: exit $rc, got $got $(head -c 200 "$dir/err")"
"$R" meta "$dir/bad.parquet" --json >"$dir/out" 2>"$dir/err"; rc=$?
got=$("$PY" -c 'import json, sys; print(ascii(json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))["schema"][0]["name"]))' "$dir/out" 2>&1)
check '[ $rc -eq 0 ] && [ "$got" = "'"'n\\\\ufffd'"'" ]' "meta --json: exit $rc, name $got $(head -c 200 "$dir/err")"
summary json_utf8
