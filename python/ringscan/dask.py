"""ringscan on a Dask cluster: the same scan, spread over workers.

    import ringscan.dask
    df = ringscan.dask.read_parquet(paths, columns=[...], filter="l_quantity > 49")
    df.l_extendedprice.sum().compute()          # on the active distributed Client

read_parquet plans on the client from the footers alone (ringscan_plan_row_groups: row groups
that statistics, bloom filters and page indexes rule out are never handed out), then builds a
dask.dataframe with dd.from_map: one partition per `split_row_groups` kept row groups of a
file, each read on a worker by ringscan with that worker's share of its cores.

topk runs ORDER BY ... LIMIT k as one task per part; with share=True the tasks exchange their
bound (the value their k-th row is at least as good as) through a distributed.Variable at every
row-group boundary, so a task skips the row groups a sibling has already beaten (the C API's
options.topk_bound prunes them before they are read). The final merge of every task's k rows is
exact.
"""
import os
import uuid

import pyarrow as pa

from ._reader import plan_row_groups, scan


def _paths(paths):
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


def plan(paths, columns=None, filter=None, split_row_groups=1):
    """The parts a distributed scan reads: [(path, [row groups]), ...], kept row groups only,
    split_row_groups of them per part (True: 1; False: a whole file's in one part)."""
    if split_row_groups is True:
        split_row_groups = 1
    parts = []
    for p in _paths(paths):
        kept = plan_row_groups(p, columns=columns, filter=filter)
        if not kept:
            continue
        step = len(kept) if split_row_groups is False else int(split_row_groups)
        if step < 1:
            raise ValueError("split_row_groups is a positive number of row groups, True or False")
        parts += [(p, kept[i:i + step]) for i in range(0, len(kept), step)]
    return parts


def _cores():
    """The cores a task may use: the machine's divided among the worker's task threads (one
    per core when the worker runs as many threads as cores); 1 outside a worker."""
    try:
        from distributed import get_worker
        w = get_worker()
        return max(1, (os.cpu_count() or 1) // max(1, w.state.nthreads))
    except (ImportError, ValueError):
        return 1


def _scan_options(options):
    """options for ringscan.scan with threads defaulted to the task's cores (options, which
    every partition shares, is not modified)."""
    return {**options, "threads": options.get("threads") or _cores()}


def _read_part(part, columns, filter, options):
    path, groups = part
    t = scan(path, columns=columns, filter=filter, row_groups=groups, **_scan_options(options)).to_arrow()
    return t.to_pandas()


def read_parquet(paths, columns=None, filter=None, split_row_groups=1, **options):
    """A dask.dataframe of the rows of paths (files or URLs) that pass filter, projected to
    columns. Partitions: split_row_groups kept row groups each (see plan). Other options go to
    ringscan.scan (e.g. threads, store, policy). Columns and dtypes come from the first file."""
    import dask.dataframe as dd
    parts = plan(paths, columns, filter, split_row_groups)
    first = _paths(paths)[0]
    meta = scan(first, columns=columns, filter=filter, row_groups=[]).to_arrow().to_pandas()
    if not parts:
        return dd.from_pandas(meta, npartitions=1)
    return dd.from_map(_read_part, parts, columns=columns, filter=filter, options=dict(options),
                       meta=meta, enforce_metadata=False,
                       label="ringscan-read-parquet")


# ---- Top-K ------------------------------------------------------------------------------

def _first_key(order_by):
    """An ORDER BY ("a DESC, b", or ["a", ("b", "descending")]) as pyarrow's sort keys:
    [(column, "ascending" | "descending"), ...]."""
    if isinstance(order_by, str):
        terms = [t.split() for t in order_by.split(",")]
        keys = [(t[0], "descending" if len(t) > 1 and t[1].upper() == "DESC" else "ascending")
                for t in terms]
    else:
        keys = [(k, "ascending") if isinstance(k, str) else tuple(k) for k in order_by]
    return keys


def _stricter(a, b, desc):
    """The stricter of two (is_float, value) bounds (None: no bound)."""
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b, key=lambda x: x[1]) if desc else min(a, b, key=lambda x: x[1])


def _top(tables, keys, k):
    return pa.concat_tables(tables).sort_by(keys).slice(0, k)


def _kth(t, keys, k):
    """The bound k rows of t give on the first key: its k-th value; None with fewer rows or a
    null there."""
    if t.num_rows < k:
        return None
    v = t.column(keys[0][0])[k - 1].as_py()
    if v is None:
        return None
    return (isinstance(v, float), v)


def _topk_part(part, keys, k, columns, filter, share, options):
    """One task: its row groups one at a time, each scan starting from the strictest bound
    known (its own, and with share the siblings' from the Variable), publishing its own after
    each. Returns (its best k rows, bytes read, row groups the bound pruned unread)."""
    from distributed import Lock, Variable
    path, groups, name = part
    desc = keys[0][1] == "descending"
    var, lock = (Variable(name), Lock(name)) if share else (None, None)
    order = ", ".join(f"{c} {'DESC' if d == 'descending' else 'ASC'}" for c, d in keys)
    assert groups, "plan() hands out parts of at least one row group"
    mine, best, nbytes, skipped = None, None, 0, 0
    for g in groups:
        bound = _stricter(mine, var.get() if share else None, desc)
        r = scan(path, columns=columns, filter=filter, order_by=order, limit=k, row_groups=[g],
                 topk_bound=bound, **_scan_options(options))
        t = r.to_arrow()
        st = r.stats()
        nbytes += st["bytes_read"]
        skipped += st["row_groups_pruned"] + st["topk_splits_pruned"]
        r.close()
        best = t if best is None else _top([best, t], keys, k)
        mine = _stricter(mine, _kth(best, keys, k), desc)
        if share and mine is not None:
            with lock:
                if _stricter(mine, var.get(), desc) == mine:
                    var.set(mine)
    return best, nbytes, skipped


def topk(paths, order_by, k, columns=None, filter=None, share=True, split_row_groups=1,
         **options):
    """ORDER BY order_by LIMIT k over paths on the active Dask client: a pyarrow.Table of the k
    rows in order (ties broken by the ORDER BY's later keys; give a unique last key for one
    answer), and a dict of what the tasks read: bytes_read, row_groups_pruned (by a bound,
    unread, at planning from an offered bound or statistics, or by the bound while running),
    tasks. The merge sorts with pyarrow: nulls last; NaN as pyarrow orders it."""
    import dask
    from distributed import Variable
    keys = _first_key(order_by)
    want = list(columns) if columns is not None else None
    if want is not None:
        want += [c for c, _ in keys if c not in want]
    parts = plan(paths, want, filter, split_row_groups)
    name = "ringscan-topk-" + uuid.uuid4().hex
    if share:
        Variable(name).set(None)
    tasks = [dask.delayed(_topk_part)((p, g, name), keys, k, want, filter, share, dict(options))
             for p, g in parts]
    results = dask.compute(*tasks)
    if share:
        Variable(name).delete()
    tables = [t for t, _, _ in results]
    if not tables:  # statistics ruled out every row group: no rows, the scan's columns
        tables = [scan(_paths(paths)[0], columns=want, row_groups=[]).to_arrow()]
    out = _top(tables, keys, k)
    if columns is not None:
        out = out.select(list(columns))
    return out, {"bytes_read": sum(b for _, b, _ in results),
                 "row_groups_pruned": sum(s for _, _, s in results), "tasks": len(results)}
