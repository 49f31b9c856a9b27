#!/usr/bin/env bash
# tests/cli/nested_budget.sh: under a slow consumer the output window holds batches within the
# fetch budget, not a count of splits (scan/output.h invariant 7): a split starts only while
# the batches waiting, the one taken and the running splits' estimates leave room for its
# own under --fetch-budget, or it is the split the consumer needs next (ordered), or nothing
# else could free bytes. Before, the window held two splits per task (16 on 2 threads): a
# 2.4 GB nested row group's 32 MiB splits held ~0.8 GB under the CLI's jsonl. Run by
# tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
#  1. pyarrow writes (seeded) 4,000 rows in one row group: a flat int64 id and a list<int64>
#     of 500 random values (16 MB of leaves), cut into 16 splits of 1 MiB and read in 1 MiB
#     windows by the test hooks (RINGSCAN_TEST_NEST_SPLIT_BYTES, _WINDOW_BYTES).
#  2. jsonl on 2 threads into a reader that starts after 1 s (a slow consumer: every split
#     could be decoded meanwhile), --fetch-budget 1MiB, ordered and unordered, the list
#     projected first and last (id first: its one page moved every split's edges to the
#     group's ends, so the first split decoded all 16 MB at once): the rows equal
#     the ungated run's (--fetch-budget 0), and budget_peak (--stats) is at most the budget
#     plus 12 MiB: the split the consumer needs next, the batch it holds, one more decoded
#     while it works, and the cores' read windows. Before: every one of the 16 splits waited
#     (27-35 MB).
#  3. A budget of one byte, smaller than any split, still ends (no deadlock: the split the
#     consumer needs always runs), on 1 and 2 threads, ordered and unordered, with the
#     ungated checksum.
# Last line: "nested_budget: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv nested_budget

f="$dir/emb.parquet"
if ! "$PY" - "$f" >"$dir/py.out" 2>&1 <<'PYEOF'; then
import sys
import numpy as np, pyarrow as pa, pyarrow.parquet as pq
n, k = 4000, 500
vals = np.random.default_rng(7).integers(0, 1 << 62, n * k, dtype=np.int64)
offs = np.arange(0, (n + 1) * k, k, dtype=np.int32)
t = pa.table({"id": pa.array(np.arange(n, dtype=np.int64)),
              "emb": pa.ListArray.from_arrays(pa.array(offs), pa.array(vals))})
pq.write_table(t, sys.argv[1], row_group_size=n, compression="snappy", data_page_size=65536)
assert pq.ParquetFile(sys.argv[1]).metadata.num_row_groups == 1
PYEOF
    bad "pyarrow could not write the file: $(tail -n 3 "$dir/py.out")"
    summary nested_budget
    exit 1
fi

stat_of() { sed -n "s/\(^\|.*[ ,]\)$1 \([0-9]*\).*/\2/p" "$2" | head -n1; }
mib=$((1 << 20))
export RINGSCAN_TEST_NEST_SPLIT_BYTES=$mib RINGSCAN_TEST_NEST_WINDOW_BYTES=$mib
# 2. a slow consumer: the batches waiting stay within the budget
for cols in emb,id id,emb; do
  for order in ordered unordered; do
    "$R" scan "$f" --columns $cols --format jsonl --$order --fetch-budget 0 | sort | md5sum >"$dir/want"
    "$R" scan "$f" --columns $cols --format jsonl --$order --threads 2 --fetch-budget 1MiB \
        --no-progress --stats 2>"$dir/s" | (sleep 1; sort | md5sum) >"$dir/got"
    check 'cmp -s "$dir/want" "$dir/got"' "$cols $order: the gated rows differ from the ungated ones"
    peak=$(stat_of budget_peak "$dir/s"); sp=$(stat_of splits "$dir/s")
    check '[ "$sp" = 16 ]' "$cols $order: splits $sp, want 16 (16 MB of leaves cut at 1 MiB)"
    check '[ -n "$peak" ] && [ "$peak" -le $((13 * mib)) ]' \
        "$cols $order: budget_peak $peak under a slow consumer, want at most the 1 MiB budget + 12 MiB"
  done
done
# 3. a budget below any split ends, with the same rows
tiny_budget_same "$f" 4000
summary nested_budget
