#!/usr/bin/env bash
# tests/cli/table_nested.sh: a nested value's `--format table` cell (issue 23): the JSON text
# jsonl prints for it (lists as arrays, structs as objects, maps as arrays of {"key","value"}
# objects, nulls inside as null), escaped as every table cell is (cli/table.c: a backslash
# doubled, so JSON's \" and \n show as \\" and \\n), a null list/struct/map as NULL. We keep
# our JSON text rather than DuckDB's CLI form ({'a': 1}, {k=1}): the same text as jsonl and
# csv. Exact output for lists, structs, maps, lists of lists and of structs; then each cell
# of a seeded random nested file checked against its jsonl value by that rule.
# Last line: "table_nested: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_py table_nested
f=$dir/t.parquet
"$py" - "$f" <<'P' || bad "writing $f"
import sys
import pyarrow as pa, pyarrow.parquet as pq
pq.write_table(pa.table({
    "id": [1, 2, 3],
    "l": pa.array([[1, None, 3], [], None]),
    "s": pa.array([{"a": 1, "b": 'x"y\\z'}, None, {"a": None, "b": "é\n中"}]),
    "m": pa.array([[("k", 1.5), ("j", None)], [], None], type=pa.map_(pa.string(), pa.float64())),
    "ll": pa.array([[[1], [2, 3]], [None], []]),
    "ls": pa.array([[{"x": True, "y": [1, 2]}], [{"x": None, "y": None}], None])}), sys.argv[1])
P
cat >"$dir/want" <<'T'
id | l          | s                        | m                                                  | ll          | ls
 1 | [1,null,3] | {"a":1,"b":"x\\"y\\\\z"} | [{"key":"k","value":1.5},{"key":"j","value":null}] | [[1],[2,3]] | [{"x":true,"y":[1,2]}]
 2 | []         | NULL                     | []                                                 | [null]      | [{"x":null,"y":null}]
 3 | NULL       | {"a":null,"b":"é\\n中"}  | NULL                                               | []          | NULL
T
"$R" scan "$f" --format table >"$dir/got" 2>"$dir/err"
check 'cmp -s "$dir/got" "$dir/want"' "table differs: $(diff "$dir/want" "$dir/got" | head -10) $(head -c 200 "$dir/err")"
# the rule over random nested values: each cell is its jsonl JSON text, backslashes doubled
"$py" - "$R" "$dir" <<'P' >"$dir/rule" 2>&1 || bad "rule check: $(tail -5 "$dir/rule")"
import json, random, subprocess, sys
import pyarrow as pa, pyarrow.parquet as pq
R, D = sys.argv[1], sys.argv[2]
rng = random.Random(26)
words = ["", "a", 'q"q', "b\\s", "t\tab", "n\nl", "ü", "中文"]
def s(): return rng.choice(words)
def maybe(v): return None if rng.random() < 0.2 else v
rows = 40
t = pa.table({
    "l": pa.array([maybe([maybe(rng.randint(-9, 9)) for _ in range(rng.randint(0, 3))]) for _ in range(rows)]),
    "s": pa.array([maybe({"w": maybe(s()), "n": maybe(rng.randint(0, 99))}) for _ in range(rows)]),
    "m": pa.array([maybe([(s() + str(k), maybe(s())) for k in range(rng.randint(0, 2))]) for _ in range(rows)],
                  type=pa.map_(pa.string(), pa.string())),
    "ls": pa.array([maybe([maybe({"v": maybe([s()])}) for _ in range(rng.randint(0, 2))]) for _ in range(rows)])})
f = D + "/r.parquet"
pq.write_table(t, f)
j = subprocess.run([R, "scan", f, "--format", "jsonl"], capture_output=True, text=True, check=True).stdout
tab = subprocess.run([R, "scan", f, "--format", "table"], capture_output=True, text=True, check=True).stdout
bad = 0
lines = tab.splitlines()[1:]
assert len(lines) == rows, len(lines)
for line, jl in zip(lines, j.splitlines()):
    obj = json.loads(jl)
    assert json.dumps(obj, separators=(",", ":"), ensure_ascii=False) == jl  # (so dumps gives jsonl's text)
    cells = [c.strip() for c in line.split(" | ")]
    want = ["NULL" if v is None else json.dumps(v, separators=(",", ":"), ensure_ascii=False).replace("\\", "\\\\")
            for v in obj.values()]
    if cells != want:
        bad += 1
        print("FAIL:", cells, want)
print("cells", rows * 4 - bad * 4, "bad rows", bad)
sys.exit(1 if bad else 0)
P
check 'grep -q "^cells 160 bad rows 0$" "$dir/rule"' "rule: $(head -5 "$dir/rule")"
summary table_nested
