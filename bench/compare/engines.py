"""bench/compare/engines.py: the bench shapes as peer-engine queries, the shared checksum, and
the per-engine worker process.

Owns: the shape table mirrored from bench/shapes.c (where text, projection, and the same filter
as a small conjunct list that each adapter turns into its own expression type), the checksum of
an Arrow table (bench/shapes.h definition), and one adapter per peer engine.

Run as a process:
  python engines.py worker ENGINE THREADS     JSON lines on stdin -> JSON lines on stdout
  python engines.py oneshot ENGINE THREADS SHAPE FILE [--noop]
                                                one query (or, with --noop, import + open only),
                                                prints one JSON line; used under strace and
                                                /usr/bin/time so the process holds one query only.
The thread count is applied before the engine runs anything (POLARS_MAX_THREADS must be in the
environment before `import polars`: the caller sets it for every engine process).

What a timed query covers: opening the file (footer/metadata read; no engine-level cache kept
between queries where the API allows: a fresh SessionContext / connection-level read_parquet /
dataset object / scan_parquet / vx.open without segment cache per query), filtering, and
materialising the projected rows as Arrow (or a Polars DataFrame). The checksum is computed
afterwards, outside the timer.
"""
from __future__ import annotations

import datetime
import decimal
import json
import os
import sys
import time

import numpy as np

# ---------------------------------------------------------------- shapes (mirror bench/shapes.c)
WIDE = ("l_orderkey,l_partkey,l_suppkey,l_linenumber,l_quantity,l_extendedprice,l_discount,"
        "l_tax,l_returnflag,l_linestatus,l_shipdate,l_commitdate,l_receiptdate,l_shipinstruct,"
        "l_shipmode,l_comment")
D1994 = datetime.date(1994, 1, 1)
# conjunct: (column, op, value, kind); kind in i32 i64 dec date str
SHAPES = {
    "lineitem_filter_only": ("l_linenumber > 5", "l_extendedprice",
                             [("l_linenumber", ">", 5, "i32")], "tpch"),
    "lineitem": ("l_linenumber > 5", "l_orderkey,l_linenumber",
                 [("l_linenumber", ">", 5, "i32")], "tpch"),
    "lineitem_and": ("l_linenumber > 5 AND l_orderkey < 3000000", "l_orderkey,l_linenumber",
                     [("l_linenumber", ">", 5, "i32"), ("l_orderkey", "<", 3000000, "i64")], "tpch"),
    "lineitem_prune": ("l_orderkey < 600000", "l_orderkey,l_extendedprice",
                       [("l_orderkey", "<", 600000, "i64")], "tpch"),
    "lineitem_wide": ("l_linenumber > 5", WIDE, [("l_linenumber", ">", 5, "i32")], "tpch"),
    "lineitem_cancel": ("l_cancelkey = 1000001 AND l_shipdate >= DATE '1994-01-01'",
                        "l_orderkey,l_extendedprice,l_comment",
                        [("l_cancelkey", "=", 1000001, "i64"), ("l_shipdate", ">=", D1994, "date")],
                        "cancel"),
    "lineitem_order": ("l_comment >= 'c' AND l_shipmode = 'AIR' AND l_quantity < 2",
                       "l_orderkey,l_extendedprice",
                       [("l_comment", ">=", "c", "str"), ("l_shipmode", "=", "AIR", "str"),
                        ("l_quantity", "<", decimal.Decimal("2.00"), "dec")], "tpch"),
    # Top-K (issue 21); an empty where is no WHERE clause. Every ORDER BY key is projected.
    "topk_price": ("", "l_orderkey,l_linenumber,l_extendedprice", [], "tpch"),
    "topk_air_ship": ("l_shipmode = 'AIR'", "l_orderkey,l_linenumber,l_shipdate,l_extendedprice",
                      [("l_shipmode", "=", "AIR", "str")], "tpch"),
    # Filters beyond conjunctions of column-vs-literal tests (issue 22): no conjunct list (None);
    # engines that take SQL text (DuckDB, DataFusion, Polars' sql_expr) run them as written.
    "expr_cols": ("l_receiptdate > l_commitdate AND l_shipmode IN ('MAIL', 'SHIP')",
                  "l_orderkey,l_extendedprice", None, "tpch"),
    "expr_or": ("(l_quantity < 5 OR l_discount > 0.09) AND l_shipdate >= DATE '1995-01-01'",
                "l_orderkey,l_extendedprice", None, "tpch"),
    "expr_like": ("l_comment LIKE '%special%'", "l_orderkey,l_extendedprice", None, "tpch"),
    "expr_year": ("year(l_shipdate) = 1994 AND NOT l_returnflag = 'N'",
                  "l_orderkey,l_extendedprice", None, "tpch"),
    # arithmetic and CAST (issue 22's value expressions)
    "expr_arith": ("l_extendedprice * (1 - l_discount) * (1 + l_tax) > 100000 AND "
                   "CAST(l_quantity AS INTEGER) * 2 - l_linenumber > 90",
                   "l_orderkey,l_extendedprice", None, "tpch"),
}
# the same filter in an engine's own words where its SQL lacks a function (DataFusion 55 has
# no year(); date_part('year', ...) is the same function)
WHERE_FOR = {("expr_year", "datafusion"): "date_part('year', l_shipdate) = 1994 AND "
                                          "NOT l_returnflag = 'N'"}
SHAPE_ORDER = list(SHAPES)
# ORDER BY keys (column, descending) and LIMIT of the Top-K shapes. Issue 21's queries are
# ORDER BY l_extendedprice DESC LIMIT 100 and ORDER BY l_shipdate, l_orderkey LIMIT 1000; each
# gets l_orderkey, l_linenumber (lineitem's primary key) as trailing ASC keys, so the K rows and
# their order are unique and every engine must return them row for row (without the tiebreak
# the rows tied at the K-th value may be any of them: ringscan breaks ties by file order,
# DuckDB, DataFusion and Polars promise nothing).
TIEBREAK = [("l_orderkey", False), ("l_linenumber", False)]
TOPK = {
    "topk_price": ([("l_extendedprice", True)] + TIEBREAK, 100),
    "topk_air_ship": ([("l_shipdate", False)] + TIEBREAK, 1000),
}
# engines without an adapter for Top-K: their cells are left out ("-" in the tables)
NO_TOPK = {"vortex"}


def order_sql(shape):
    """The ORDER BY list of a Top-K shape as SQL (and as ringscan's --order-by takes it)."""
    return ", ".join(f"{c} {'DESC' if d else 'ASC'}" for c, d in TOPK[shape][0])


# engines whose filters are built from the conjunct list only: no cells for the expr_ shapes
NO_EXPR = {"pyarrow", "vortex"}


def runs(engine, shape):
    """Whether engine has an adapter for shape."""
    if SHAPES[shape][2] is None and engine in NO_EXPR:
        return False
    return not (shape in TOPK and engine in NO_TOPK)


def proj_of(shape):
    return SHAPES[shape][1].split(",")


# ---------------------------------------------------------------- checksum (bench/shapes.h)
M64 = (1 << 64) - 1
FNV_BASIS = np.uint64(0xcbf29ce484222325)
FNV_PRIME = np.uint64(0x100000001b3)


def _fnv_all(offsets, data):
    """FNV-1a 64 of every value; offsets int64 (n+1), data uint8. Vectorised by position."""
    starts = offsets[:-1]
    lens = offsets[1:] - starts
    n = len(lens)
    h = np.full(n, FNV_BASIS, dtype=np.uint64)
    if n == 0:
        return h
    order = np.argsort(-lens, kind="stable")
    sl = lens[order]
    ss = starts[order]
    maxlen = int(sl[0])
    # rows with len > k form a prefix of the descending order
    cnt = np.searchsorted(-sl, -np.arange(maxlen), side="left")
    for k in range(maxlen):
        c = int(cnt[k])
        b = data[ss[:c] + k].astype(np.uint64)
        with np.errstate(over="ignore"):
            h[:c] = (h[:c] ^ b) * FNV_PRIME
    out = np.empty_like(h)
    out[order] = h  # back to the input order (callers weight by per-value counts)
    return out


def _binary_sum(arr):
    import pyarrow as pa
    import pyarrow.compute as pc
    arr = arr.cast(pa.large_binary()) if not pa.types.is_large_binary(arr.type) else arr
    if len(arr) == 0:
        return 0
    # low-cardinality columns: hash the distinct values once
    vc = pc.value_counts(arr)
    vals, cnts = vc.field("values"), vc.field("counts")
    if len(vals) * 4 < len(arr):
        hs = _fnv_all(*_bufs(vals))
        with np.errstate(over="ignore"):
            return int((hs * np.asarray(cnts, dtype=np.uint64)).sum(dtype=np.uint64))
    hs = _fnv_all(*_bufs(arr))
    return int(hs.sum(dtype=np.uint64))


def _bufs(arr):
    _, ob, db = arr.buffers()
    off = np.frombuffer(ob, dtype=np.int64)[arr.offset:arr.offset + len(arr) + 1]
    data = np.frombuffer(db, dtype=np.uint8) if db is not None else np.zeros(1, np.uint8)
    return off, data


def col_sum(chunked):
    """Sum mod 2^64 of one projected column (ints, decimals unscaled, dates as days, strings
    as FNV-1a 64 per value)."""
    import pyarrow as pa
    total = 0
    chunks = chunked.chunks if isinstance(chunked, pa.ChunkedArray) else [chunked]
    for a in chunks:
        if a.null_count:
            raise ValueError("nulls in a lineitem column")
        t = a.type
        if pa.types.is_dictionary(t):
            a = a.dictionary_decode()
            t = a.type
        if pa.types.is_decimal(t):
            w = t.byte_width
            buf = a.buffers()[1]
            if w == 16:
                v = np.frombuffer(buf, dtype="<i8").reshape(-1, 2)[a.offset:a.offset + len(a), 0]
            elif w == 8:
                v = np.frombuffer(buf, dtype="<i8")[a.offset:a.offset + len(a)]
            elif w == 4:
                v = np.frombuffer(buf, dtype="<i4")[a.offset:a.offset + len(a)].astype(np.int64)
            else:
                raise ValueError(f"decimal width {w}")
            total += int(v.view(np.uint64).sum(dtype=np.uint64))
        elif pa.types.is_date32(t):
            v = np.asarray(a.view(pa.int32())).astype(np.int64)
            total += int(v.view(np.uint64).sum(dtype=np.uint64))
        elif pa.types.is_integer(t):
            v = np.asarray(a).astype(np.int64)
            total += int(v.view(np.uint64).sum(dtype=np.uint64))
        elif (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t)
              or pa.types.is_large_binary(t) or pa.types.is_string_view(t)
              or pa.types.is_binary_view(t)):
            if pa.types.is_string_view(t) or pa.types.is_binary_view(t):
                a = a.cast(pa.large_string() if pa.types.is_string_view(t) else pa.large_binary())
            total += _binary_sum(a)
        else:
            raise ValueError(f"unsupported type {t}")
    return total & M64


def checksum(table, shape):
    c = 0
    for name in proj_of(shape):
        c = (c * 1000003 + col_sum(table.column(name))) & M64
    return c


def csv_value(v):
    """One value as ringscan's --format csv prints it (ints, decimals with their scale, dates
    ISO 8601; lineitem has no nulls and these columns no characters that need quoting)."""
    return v.isoformat() if isinstance(v, datetime.date) else str(v)


def row_lines(table, shape):
    """The rows of table, in order, as CSV lines of the projected columns."""
    cols = [table.column(c).to_pylist() for c in proj_of(shape)]
    return [",".join(csv_value(v) for v in row) for row in zip(*cols)]


def seq_digest(lines):
    """An order-sensitive digest of a row sequence (the checksum above is a sum of columns, the
    same for any order of the rows; Top-K results must match row for row)."""
    import hashlib
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


# ---------------------------------------------------------------- adapters
def _sql(shape, src, engine=""):
    where, proj, _, _ = SHAPES[shape]
    where = WHERE_FOR.get((shape, engine), where)
    q = f"SELECT {proj} FROM {src}" + (f" WHERE {where}" if where else "")
    if shape in TOPK:
        q += f" ORDER BY {order_sql(shape)} LIMIT {TOPK[shape][1]}"
    return q


class DuckDB:
    name = "duckdb"

    def __init__(self, threads):
        import duckdb
        self.duckdb = duckdb
        self.con = duckdb.connect()
        self.con.execute(f"SET threads={threads}")

    def version(self):
        return self.duckdb.__version__

    def open_only(self, path):
        self.con.execute(f"SELECT count(*) FROM parquet_metadata('{path}')").fetchall()

    def run(self, shape, path):
        rel = self.con.sql(_sql(shape, f"read_parquet('{path}')"))
        for m in ("to_arrow_table", "fetch_arrow_table", "arrow"):
            if hasattr(rel, m):
                t = getattr(rel, m)()
                break
        if not hasattr(t, "num_rows"):  # a RecordBatchReader
            t = t.read_all()
        return t


class DataFusion:
    name = "datafusion"

    def __init__(self, threads):
        import datafusion
        self.df = datafusion
        self.threads = threads

    def version(self):
        return self.df.__version__

    def _ctx(self, path):
        cfg = self.df.SessionConfig().with_target_partitions(self.threads)
        ctx = self.df.SessionContext(cfg)
        ctx.register_parquet("lineitem", path)
        return ctx

    def open_only(self, path):
        self._ctx(path)

    def run(self, shape, path):
        import pyarrow as pa
        ctx = self._ctx(path)
        batches = ctx.sql(_sql(shape, "lineitem", self.name)).collect()
        if not batches:
            return pa.table({c: [] for c in proj_of(shape)})
        return pa.Table.from_batches(batches)


class PyArrow:
    name = "pyarrow"
    open_kw = {}  # extra pyarrow.dataset.dataset() arguments (http.py: a fresh filesystem)

    def __init__(self, threads):
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.dataset as ds
        self.pa, self.pc, self.ds = pa, pc, ds
        pa.set_cpu_count(threads)
        pa.set_io_thread_count(threads)

    def version(self):
        return self.pa.__version__

    def _expr(self, shape):
        pa, pc = self.pa, self.pc
        e = None
        for col, op, v, kind in SHAPES[shape][2]:
            if kind == "dec":
                v = pa.scalar(v, pa.decimal128(15, 2))
            elif kind == "date":
                v = pa.scalar(v, pa.date32())
            f = pc.field(col)
            c = {">": f > v, "<": f < v, ">=": f >= v, "=": f == v}[op]
            e = c if e is None else e & c
        return e

    def open_only(self, path):
        self._dataset(path)

    def _dataset(self, path):
        # pyarrow 26 has no array_filter kernel for string_view (tpchgen-cli's files store
        # string_view in their Arrow schema): read those columns as plain string instead.
        # Returns (dataset, whether a string_view column was retyped).
        d = self.ds.dataset(path, format="parquet", **self.open_kw)
        pa = self.pa
        if any(pa.types.is_string_view(f.type) for f in d.schema):
            sch = pa.schema([f.with_type(pa.string()) if pa.types.is_string_view(f.type) else f
                             for f in d.schema])
            return self.ds.dataset(path, format="parquet", schema=sch, **self.open_kw), True
        return d, False

    def run(self, shape, path):
        t = self._scan(shape, path)
        if shape in TOPK:
            # select_k_unstable: a heap of K (pyarrow's Top-K kernel); the keys are unique
            # (TIEBREAK), so "unstable" cannot change the answer; its K rows are sorted after
            keys, k = TOPK[shape]
            sk = [(c, "descending" if d else "ascending") for c, d in keys]
            t = t.take(self.pc.select_k_unstable(t, k, sort_keys=sk)).sort_by(sk)
        return t

    def _scan(self, shape, path):
        d, retyped = self._dataset(path)
        if retyped and any(k == "str" for _, _, _, k in SHAPES[shape][2]):
            # a string comparison pushed into such a dataset fails too (its statistics check
            # compares the physical string_view with the string literal: no kernel), so the
            # filter columns are read and the filter runs on the table (no pushdown)
            cols = proj_of(shape)
            need = cols + [c for c, _, _, _ in SHAPES[shape][2] if c not in cols]
            t = d.to_table(columns=need)
            return t.filter(self._expr(shape)).select(cols)
        return d.to_table(columns=proj_of(shape), filter=self._expr(shape))


class Polars:
    name = "polars"

    def __init__(self, threads):
        import polars as pl
        self.pl = pl
        if os.environ.get("POLARS_MAX_THREADS") != str(threads):
            raise RuntimeError("POLARS_MAX_THREADS must be set before import")

    def version(self):
        return self.pl.__version__

    def _expr(self, shape):
        pl = self.pl
        if SHAPES[shape][2] is None:
            return pl.sql_expr(SHAPES[shape][0])
        e = None
        for col, op, v, kind in SHAPES[shape][2]:
            if kind == "dec":
                v = pl.lit(v, dtype=pl.Decimal(15, 2))
            f = pl.col(col)
            c = {">": f > v, "<": f < v, ">=": f >= v, "=": f == v}[op]
            e = c if e is None else e & c
        return e

    def open_only(self, path):
        self.pl.scan_parquet(path).collect_schema()

    def run(self, shape, path):
        lf = self.pl.scan_parquet(path)
        if SHAPES[shape][0]:
            lf = lf.filter(self._expr(shape))
        if shape in TOPK:
            # sort + head: Polars' optimiser runs it as a Top-K (no full sort)
            keys, k = TOPK[shape]
            lf = lf.sort([c for c, _ in keys], descending=[d for _, d in keys]).head(k)
        return lf.select(proj_of(shape)).collect()

    @staticmethod
    def to_arrow(df):
        return df.to_arrow()


class Vortex:
    name = "vortex"

    def __init__(self, threads):
        import vortex as vx
        import vortex.expr as ve
        self.vx, self.ve = vx, ve
        # N threads = the calling thread + N-1 background workers (vortex's default is
        # available_parallelism() - 1 workers).
        vx.set_worker_threads(threads - 1)

    def version(self):
        import importlib.metadata
        return importlib.metadata.version("vortex-data")

    def _expr(self, shape):
        vx, ve = self.vx, self.ve
        e = None
        for col, op, v, kind in SHAPES[shape][2]:
            lit = {"i32": lambda: ve.literal(vx.int_(32), v), "i64": lambda: ve.literal(vx.int_(64), v),
                   "dec": lambda: ve.literal(vx.decimal(precision=15, scale=2), v),
                   "date": lambda: ve.literal(vx.date("days"), v),
                   "str": lambda: v}[kind]()
            f = ve.column(col)
            c = {">": f > lit, "<": f < lit, ">=": f >= lit, "=": f == lit}[op]
            e = c if e is None else ve.and_(e, c)
        return e

    def open_only(self, path):
        self.vx.open(path, without_segment_cache=True)

    def run(self, shape, path):
        f = self.vx.open(path, without_segment_cache=True)
        return f.to_arrow(proj_of(shape), expr=self._expr(shape)).read_all()


ENGINES = {c.name: c for c in (DuckDB, DataFusion, PyArrow, Polars, Vortex)}


def _as_arrow(eng, res):
    return eng.to_arrow(res) if hasattr(eng, "to_arrow") else res


def _num_rows(res):
    return res.num_rows if hasattr(res, "num_rows") else res.height


def run_once(eng, shape, path, want_checksum):
    if hasattr(eng, "prepare"):  # per-query set-up kept out of the timer (bench/compare/http.py)
        eng.prepare(shape, path)
    c0 = time.process_time()
    t0 = time.perf_counter()
    res = eng.run(shape, path)
    secs = time.perf_counter() - t0
    cpu = time.process_time() - c0  # user + system of all the process's threads
    out = {"rows": int(_num_rows(res)), "secs": secs, "cpu": cpu}
    if want_checksum:
        out["checksum"] = str(checksum(_as_arrow(eng, res), shape))
        if shape in TOPK:
            lines = row_lines(_as_arrow(eng, res), shape)
            out["seq"] = seq_digest(lines)
            out["seq_head"] = lines[:3]
    return out


def main(argv, engines=None):
    mode, engine, threads = argv[1], argv[2], int(argv[3])
    eng = (engines or ENGINES)[engine](threads)
    if mode == "worker":
        print(json.dumps({"ready": True, "version": eng.version()}), flush=True)
        for line in sys.stdin:
            req = json.loads(line)
            try:
                out = run_once(eng, req["shape"], req["file"], req.get("checksum", False))
            except Exception as ex:  # reported, never silent
                out = {"error": f"{type(ex).__name__}: {ex}"[:2000]}
            print(json.dumps(out), flush=True)
    elif mode == "oneshot":
        shape, path = argv[4], argv[5]
        if "--noop" in argv:
            eng.open_only(path)
            print(json.dumps({"noop": True}), flush=True)
        else:
            print(json.dumps(run_once(eng, shape, path, "--checksum" in argv)), flush=True)
    else:
        raise SystemExit(f"usage: {os.path.basename(argv[0])} worker|oneshot ENGINE THREADS [SHAPE FILE]")


if __name__ == "__main__":
    main(sys.argv)
