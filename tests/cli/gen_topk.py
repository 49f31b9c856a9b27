"""tests/cli/gen_topk.py: checks `ringscan gen topk` files with pyarrow and the model's
`--expect` answers with DuckDB. Called by tests/cli/gen_topk.sh:

    python gen_topk.py DIR NAME:LAYOUT:GROUPS:ROWS_PER_GROUP ...

DIR holds NAME.parquet for each file and NAME.K.ORDER.FILTER.ids, the output of
`ringscan gen topk --expect K [--asc] [--where-flag]` with the file's options (ORDER is
desc or asc, FILTER is all or flag0). Last line: "gen_topk_py: N passed, N failed"."""
import collections
import glob
import os
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, counts  # noqa: E402

I64_MAX = 2**63 - 1


def check_shape(name, f, groups, rows):
    md = f.metadata
    check(md.num_row_groups == groups, f"{name}: {md.num_row_groups} row groups, want {groups}")
    got = [md.row_group(g).num_rows for g in range(md.num_row_groups)]
    check(got == [rows] * groups, f"{name}: rows per group {got[:4]}..., want {rows}")
    want = pa.schema([pa.field("score", pa.int64(), False), pa.field("id", pa.int64(), False),
                      pa.field("payload", pa.string(), False), pa.field("flag", pa.int32(), False)])
    check(f.schema_arrow.equals(want), f"{name}: schema {f.schema_arrow}")
    for g in range(md.num_row_groups):
        for c in range(md.num_columns):
            cc = md.row_group(g).column(c)
            ok = cc.is_stats_set and cc.has_column_index and cc.has_offset_index
            if not ok:
                check(False, f"{name}: group {g} column {c}: statistics or page index missing")
                return
    check(True, "")


def group_scores(t, groups, rows):
    s = t.column("score").to_pylist()
    return [s[g * rows:(g + 1) * rows] for g in range(groups)]


def check_common(name, t, groups, rows):
    ids = t.column("id").to_pylist()
    check(ids == list(range(groups * rows)), f"{name}: id is not the row index")
    lens = [len(p) for p in t.column("payload").to_pylist()]
    check(min(lens) >= 24 and max(lens) <= 56, f"{name}: payload lengths {min(lens)}..{max(lens)}")


def check_pruning(name, f, t, groups, rows):
    flags = t.column("flag").to_pylist()
    check(set(flags) == {0}, f"{name}: pruning flags {set(flags)}")
    gs = group_scores(t, groups, rows)
    for g in range(1, groups):
        check(max(gs[g]) < min(gs[g - 1]),
              f"{name}: group {g} max {max(gs[g])} >= group {g - 1} min {min(gs[g - 1])}")
        st, prev = (f.metadata.row_group(x).column(0).statistics for x in (g, g - 1))
        check(st.max < prev.min, f"{name}: statistics of group {g} overlap group {g - 1}")
    check(len(set(gs[0])) < rows, f"{name}: no duplicate scores in group 0")


def check_control(name, f, t, groups, rows, pruning_t):
    s, fl = t.column("score").to_pylist(), t.column("flag").to_pylist()
    for g in range(groups):
        lo, hi = g * rows, (g + 1) * rows
        top = [i for i in range(lo, hi) if s[i] == I64_MAX]
        marked = [i for i in range(lo, hi) if fl[i] != 0]
        check(len(top) == 1 and top == marked and fl[top[0]] == 1,
              f"{name}: group {g}: INT64_MAX rows {top[:3]}, flag rows {marked[:3]}")
        st = f.metadata.row_group(g).column(0).statistics
        check(st.max == I64_MAX, f"{name}: group {g} statistics max {st.max}")
    gs = [[v for v in x if v != I64_MAX] for x in group_scores(t, groups, rows)]
    if groups >= 2:
        check(any(max(gs[g]) >= min(gs[g - 1]) for g in range(1, groups)),
              f"{name}: control groups' bands still decrease")
    if pruning_t is not None:  # the same scores, but for the one each sentinel replaced
        want = collections.Counter(pruning_t.column("score").to_pylist())
        got = collections.Counter(v for x in gs for v in x)
        check(not (got - want) and sum((want - got).values()) == groups,
              f"{name}: control scores are not the pruning scores less one per group")
        check(t.column("payload").equals(pruning_t.column("payload")),
              f"{name}: payload differs from the pruning file's (it is a function of seed, id)")


def check_expect(d, name):
    files = sorted(glob.glob(os.path.join(d, name + ".*.ids")))
    check(len(files) >= 16, f"{name}: {len(files)} --expect outputs")
    con = duckdb.connect()
    path = os.path.join(d, name + ".parquet")
    for fn in files:
        k, order, filt = os.path.basename(fn).split(".")[1:4]
        where = "WHERE flag = 0" if filt == "flag0" else ""
        q = f"SELECT id FROM read_parquet('{path}') {where} ORDER BY score {order}, id LIMIT {k}"
        want = [r[0] for r in con.execute(q).fetchall()]
        with open(fn) as fh:
            got = [int(x) for x in fh.read().split()]
        check(got == want, f"{name} K={k} {order} {filt}: model {got[:5]}... ({len(got)}), "
                           f"duckdb {want[:5]}... ({len(want)})")


def main():
    d = sys.argv[1]
    tables = {}
    for spec in sys.argv[2:]:
        name, layout, groups, rows = spec.split(":")
        groups, rows = int(groups), int(rows)
        f = pq.ParquetFile(os.path.join(d, name + ".parquet"))
        t = f.read()
        check_shape(name, f, groups, rows)
        check_common(name, t, groups, rows)
        if layout == "pruning":
            check_pruning(name, f, t, groups, rows)
            tables[(groups, rows)] = t
        else:
            check_control(name, f, t, groups, rows, tables.get((groups, rows)))
        check_expect(d, name)
        del t
    print(f"gen_topk_py: {counts['passed']} passed, {counts['failed']} failed")


main()
