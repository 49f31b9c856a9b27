#!/usr/bin/env bash
# tests/cli/dataset_gate.sh: the files of a dataset share one output byte bound (scan/output.h
# invariant 9, scan/out_pool.h): under a slow consumer the batches every running file holds
# stay within the one --fetch-budget plus the split the file being drained needs next, where
# each file's own gate (invariant 7) let every file hold the whole budget. Run by tests/run.sh
# with $RINGSCAN = the binary and cwd = the project root.
#  1. pyarrow writes (seeded) 3 files of 4,000 rows in one row group each: a flat int64 id
#     (0 .. 11,999 across the files, in path order) and a list<int64> of 500 values (16 MB of
#     leaves a file, each alone past the budget), cut into 16 splits of 1 MiB and read in 1 MiB
#     windows by the test hooks (RINGSCAN_TEST_NEST_SPLIT_BYTES, _WINDOW_BYTES).
#  2. The directory as one dataset, jsonl into a reader that starts after 1 s (a slow
#     consumer: the cores could decode every file meanwhile), --fetch-budget 8MiB, on 2
#     threads ordered and unordered and on 1 thread: every row once, each row's list length
#     and sum equal pyarrow's, ids ascending when ordered; and budget_peak (--stats) at most
#     the budget + 8 MiB: the split the consumer needs next, the batch it holds and one more
#     decoded while it works (about 2 MB each), and the cores' read windows, as
#     nested_budget.sh allows for one file. Before, the file being drained and the next file
#     (dataset.c room: the files behind the first start while they may decode less than
#     budget/16, so a big second one starts) each held up to the budget: 23.4 MB (now 13.8-14.8).
#  3. --limit 5000 (the first file and 1,000 rows of the second), ordered and unordered on 2
#     threads under the slow consumer: 5,000 rows, each equal to pyarrow's, the first 5,000
#     ids when ordered; the peak within the same bound.
#  4. A budget of one byte, smaller than any split, still ends (no deadlock: the file being
#     drained never waits on the files behind it), on 1 and 2 threads, ordered and unordered,
#     with the ungated checksum.
# Last line: "dataset_gate: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv dataset_gate

ds="$dir/ds"
mkdir -p "$ds"
if ! "$PY" - "$ds" >"$dir/py.out" 2>&1 <<'PYEOF'; then
import sys
import numpy as np, pyarrow as pa, pyarrow.parquet as pq
n, k = 4000, 500
for f in range(3):
    vals = np.random.default_rng(11 + f).integers(0, 1000, n * k, dtype=np.int64)
    offs = np.arange(0, (n + 1) * k, k, dtype=np.int32)
    t = pa.table({"id": pa.array(np.arange(f * n, (f + 1) * n, dtype=np.int64)),
                  "emb": pa.ListArray.from_arrays(pa.array(offs), pa.array(vals))})
    path = f"{sys.argv[1]}/part{f}.parquet"
    pq.write_table(t, path, row_group_size=n, compression="snappy", data_page_size=65536,
                   use_dictionary=False)
    assert pq.ParquetFile(path).metadata.num_row_groups == 1
PYEOF
    bad "pyarrow could not write the files: $(tail -n 3 "$dir/py.out")"
    summary dataset_gate
    exit 1
fi

# the checker: jsonl rows on stdin against pyarrow's; args: the dataset, ordered (0/1), the
# rows wanted; prints "ok N" or what differs
cat >"$dir/check.py" <<'PYEOF'
import glob, json, sys
import pyarrow.parquet as pq
ds, ordered, want = sys.argv[1], sys.argv[2] == "1", int(sys.argv[3])
exp, order = {}, []
for p in sorted(glob.glob(ds + "/*.parquet")):
    t = pq.read_table(p).to_pydict()
    for i, e in zip(t["id"], t["emb"]):
        exp[i] = (len(e), sum(e))
        order.append(i)
seen = []
for line in sys.stdin:
    r = json.loads(line)
    i, e = r["id"], r["emb"]
    if exp.get(i) != (len(e), sum(e)):
        print(f"row id {i}: {len(e)} values summing to {sum(e)}, pyarrow's {exp.get(i)}"); sys.exit()
    seen.append(i)
if len(seen) != want or len(set(seen)) != want:
    print(f"{len(seen)} rows ({len(set(seen))} ids), want {want}"); sys.exit()
if ordered and seen != order[:want]:
    print("ordered: the rows are not the first ones in path order"); sys.exit()
print(f"ok {want}")
PYEOF

stat_of() { sed -n "s/\(^\|.*[ ,]\)$1 \([0-9]*\).*/\2/p" "$2" | head -n1; }
mib=$((1 << 20))
export RINGSCAN_TEST_NEST_SPLIT_BYTES=$mib RINGSCAN_TEST_NEST_WINDOW_BYTES=$mib
B=$((8 * mib))
# run NAME ROWS ARGS...: the dataset's jsonl into a reader that starts after 1 s, checked
# against pyarrow, and its budget_peak within B + 8 MiB
run() {
    local name=$1 want=$2 ord=0; shift 2
    case " $* " in *" --ordered "*) ord=1 ;; esac
    timeout 300 "$R" scan "$ds" --columns emb,id --format jsonl --fetch-budget $B --no-progress \
        --stats "$@" 2>"$dir/s" | (sleep 1; "$PY" "$dir/check.py" "$ds" $ord "$want") >"$dir/got"
    check '[ "$(cat "$dir/got")" = "ok $want" ]' "$name: $(head -c 300 "$dir/got") $(head -c 300 "$dir/s")"
    local peak; peak=$(stat_of budget_peak "$dir/s")
    check '[ -n "$peak" ] && [ "$peak" -le $((B + 8 * mib)) ]' \
        "$name: budget_peak $peak under a slow consumer, want at most the 8 MiB budget + 8 MiB"
    echo "$name: budget_peak $peak"
}
# 2. every row, the batches held within the budget
run "2 threads ordered" 12000 --threads 2 --ordered
run "2 threads unordered" 12000 --threads 2 --unordered
run "1 thread ordered" 12000 --threads 1 --ordered
# 3. a limit
run "2 threads ordered, limit 5000" 5000 --threads 2 --ordered --limit 5000
run "2 threads unordered, limit 5000" 5000 --threads 2 --unordered --limit 5000
# 4. a budget below any split ends, with the same rows
tiny_budget_same "$ds" 12000
summary dataset_gate
