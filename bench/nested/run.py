#!/usr/bin/env python3
"""Nested decode throughput: ringscan beside pyarrow on list, struct and map columns.

Usage (from the repo root, after `zig build`; the venv tests/cli/python_pkg.sh makes, which
has cffi for the package):
  .tools/pkgvenv/bin/python bench/nested/run.py [--rows 5000000] [--rounds 5]
      [--dir /tmp/nested-bench] [--lib zig-out/lib/libringscan.so] [--threads 1]
      [--compare BASE.so [--compare BASE2.so]] [--columns lst,st,ls,mp]
      [--variants full,filtered,sparse,limited,topk,dataset]

Writes (once, or with --regen) one file of --rows rows with pyarrow (snappy, dictionary off,
1 Mi rows per row group): `lst` list<int64> (0-8 random elements, 1 in 10 lists null), `st`
struct<a: int64, b: double, c: string> (1 in 10 structs null), `ls` list<string> (0-8 tags of
5,000 words, 1 in 10 lists and 1 in 20 tags null) and `mp` map<string, int64> (0-4 entries of
50 keys, 1 in 10 maps and values null), and two flat columns the variants filter and sort
by: `k` int32 (0-99 uniform) and `r` int64 (uniform). Per variant, round and column, in
alternating order, times the wall clock of
  ringscan: libringscan.so through the python/ package: ringscan.scan (that column, --threads
            cores) read whole by pyarrow through the Arrow C stream: decode, assembly, Arrow
            export;
  pyarrow:  pq.read_table(path, columns=[column], use_threads=(threads > 1)).
The variants (--variants): full (as above); filtered (filter k < 50: half the rows of every
split kept; pyarrow: read_table's filters=[("k", "<", 50)]); sparse (filter k < 1: 1% of
the rows, scattered); limited (the first rows/2 rows
in file order; pyarrow: pyarrow.dataset's head); topk (order_by r, limit 1000; pyarrow:
read_table of the column and r, sort_by r, the first 1000); dataset (the file's rows as a
directory of 4 files, written once; both read the directory). Each checks once that every
library's table equals pyarrow's. Prints the median of the rounds (wall clock, and
CPU time: user + system of every thread of the process, getrusage) and the decoded Arrow
bytes per second (the pyarrow table's nbytes / median wall time).

With --compare (copies of other builds, e.g. the base commit's libringscan.so.0.1.0 copied
twice for an A/A line), each round also times every compared library, all in a rotated
order, and a second table gives each library's median and its ratio to --lib's and to
pyarrow's, measured side by side in the one run.
"""
import argparse
import sys
import os
import resource
import statistics as st
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def gen(path, n):
    rng = np.random.default_rng(7)
    lens = rng.integers(0, 9, n)
    offs = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(lens, out=offs[1:])
    vals = pa.array(rng.integers(-2**62, 2**62, int(offs[-1]), dtype=np.int64))
    nulls = pa.array(rng.random(n) < 0.1)
    lst = pa.ListArray.from_arrays(pa.array(offs), vals, mask=nulls)
    a = pa.array(rng.integers(-2**40, 2**40, n, dtype=np.int64))
    b = pa.array(rng.random(n))
    c = pa.array(["v%d" % (i % 977) for i in range(n)])
    st_ = pa.StructArray.from_arrays([a, b, c], names=["a", "b", "c"],
                                     mask=pa.array(rng.random(n) < 0.1))
    # ls: list<string> of tags (0-8 of 5,000 words, 1 in 10 lists null, 1 in 20 tags null)
    words = pa.array(["tag%d" % i for i in range(5000)])
    tlens = rng.integers(0, 9, n)
    toffs = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(tlens, out=toffs[1:])
    nt = int(toffs[-1])
    tags = words.take(pa.array(rng.integers(0, 5000, nt), mask=rng.random(nt) < 0.05))
    ls = pa.ListArray.from_arrays(pa.array(toffs), tags, mask=pa.array(rng.random(n) < 0.1))
    # mp: map<string, int64> (0-4 entries keyed k0..k49, 1 in 10 maps null, 1 in 10 values null)
    mlens = rng.integers(0, 5, n)
    moffs = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(mlens, out=moffs[1:])
    nm = int(moffs[-1])
    keys = pa.array(["k%d" % i for i in range(50)]).take(pa.array(rng.integers(0, 50, nm)))
    mvals = pa.array(rng.integers(-2**40, 2**40, nm), mask=rng.random(nm) < 0.1)
    mp = pa.MapArray.from_arrays(pa.array(moffs), keys, mvals, mask=pa.array(rng.random(n) < 0.1))
    k = pa.array(rng.integers(0, 100, n, dtype=np.int32))
    r = pa.array(rng.integers(-2**62, 2**62, n, dtype=np.int64))
    pq.write_table(pa.table({"lst": lst, "st": st_, "ls": ls, "mp": mp, "k": k, "r": r}), path,
                   compression="snappy", use_dictionary=False, row_group_size=1 << 20)


def gen_dataset(path, root, parts=4):
    """path's rows as parts files under root (row groups of 1 Mi rows, as path's)."""
    os.makedirs(root, exist_ok=True)
    t = pq.read_table(path)
    step = (t.num_rows + parts - 1) // parts
    for i in range(parts):
        pq.write_table(t.slice(i * step, step), os.path.join(root, "part%d.parquet" % i),
                       compression="snappy", use_dictionary=False, row_group_size=1 << 20)


class Lib:
    """libringscan.so through the project's Python package (cffi over ringscan.h: no struct
    offsets written here). Each Lib imports the package afresh, so two libraries (two
    files: the loader maps a path once) live side by side in one process."""

    def __init__(self, path):
        os.environ["RINGSCAN_LIB"] = os.path.abspath(path)
        os.environ.setdefault("RINGSCAN_INCLUDE", os.path.abspath("include/ringscan.h"))
        if os.path.abspath("python") not in sys.path:
            sys.path.insert(0, os.path.abspath("python"))
        for name in [m for m in sys.modules if m == "ringscan" or m.startswith("ringscan.")]:
            del sys.modules[name]
        import ringscan
        self.rs = ringscan

    def read(self, path, column, threads, variant="full", rows=0):
        kw = {}
        if variant == "filtered":
            kw = dict(filter="k < 50")
        elif variant == "sparse":
            kw = dict(filter="k < 1")
        elif variant == "limited":
            kw = dict(limit=rows // 2)
        elif variant == "topk":
            kw = dict(order_by="r", limit=TOPK)
        return self.rs.scan(path, columns=[column], threads=threads, ordered=True, **kw).to_arrow()


TOPK = 1000


def py_read(path, column, threads, variant, rows):
    """pyarrow's reading of the variant (main's docstring)."""
    use = threads > 1
    if variant in ("filtered", "sparse"):
        bound = 50 if variant == "filtered" else 1
        return pq.read_table(path, columns=[column], filters=[("k", "<", bound)], use_threads=use)
    if variant == "limited":
        import pyarrow.dataset as pads
        return pads.dataset(path).head(rows // 2, columns=[column], use_threads=use)
    if variant == "topk":
        t = pq.read_table(path, columns=[column, "r"], use_threads=use)
        return t.sort_by("r").slice(0, TOPK).select([column])
    return pq.read_table(path, columns=[column], use_threads=use)


def timed(fn):
    u0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    fn()
    t1, u1 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
    return t1 - t0, u1.ru_utime - u0.ru_utime + u1.ru_stime - u0.ru_stime  # every thread


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=5_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--dir", default="/tmp/nested-bench")
    ap.add_argument("--lib", default="zig-out/lib/libringscan.so")
    ap.add_argument("--compare", action="append", default=[])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--regen", action="store_true")
    ap.add_argument("--columns", default="lst,st,ls,mp")
    ap.add_argument("--variants", default="full")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    path = os.path.join(a.dir, "nested5_%d.parquet" % a.rows)
    if a.regen or not os.path.exists(path):
        gen(path, a.rows)
    root = os.path.join(a.dir, "nested5_%d_dataset" % a.rows)
    if "dataset" in a.variants.split(",") and (a.regen or not os.path.exists(root)):
        gen_dataset(path, root)
    libs = [(name, Lib(os.path.abspath(name))) for name in [a.lib] + a.compare]
    print("file %s (%d bytes), %d rows, %d rounds, threads %d, load average %s" % (
        path, os.path.getsize(path), a.rows, a.rounds, a.threads,
        " ".join("%.2f" % x for x in os.getloadavg())))
    print("| variant | column | pyarrow median s | ringscan median s | Arrow MB | pyarrow MB/s | "
          "ringscan MB/s | pyarrow CPU s | ringscan CPU s |")
    print("|---|---|---|---|---|---|---|---|---|")
    ratios = []
    for var in a.variants.split(","):
        src = root if var == "dataset" else path
        for col in a.columns.split(","):
            run_one(a, libs, var, src, col, ratios)
    if len(libs) > 1:
        print("\n| variant | column | library | median s | CPU s | / --lib | / pyarrow | CPU / --lib |")
        print("|---|---|---|---|---|---|---|---|")
        print("\n".join(ratios))
    print("load average at the end %s" % " ".join("%.2f" % x for x in os.getloadavg()))


def run_one(a, libs, var, src, col, ratios):
    """One variant and column: checked, then timed in rotated rounds; a row printed, each
    library's ratios added to ratios."""
    want = py_read(src, col, a.threads, var, a.rows)
    for _, lib in libs:
        got = lib.read(src, col, a.threads, var, a.rows)
        assert got.num_rows == want.num_rows, (var, col, got.num_rows, want.num_rows)
        assert got.column(0).equals(want.column(0).cast(got.column(0).type)) or \
            got.column(0).to_pylist() == want.column(0).to_pylist(), (var, col)
        del got
    mb = want.nbytes / 1e6
    del want
    who = ["py"] + list(range(len(libs)))
    wall = {w: [] for w in who}
    cpu = {w: [] for w in who}
    for r in range(a.rounds):
        for w in who[r % len(who):] + who[:r % len(who)]:  # rotated: no fixed first place
            if w == "py":
                t, c = timed(lambda: py_read(src, col, a.threads, var, a.rows))
            else:
                t, c = timed(lambda: libs[w][1].read(src, col, a.threads, var, a.rows))
            wall[w].append(t)
            cpu[w].append(c)
    mp, mr, cr = st.median(wall["py"]), st.median(wall[0]), st.median(cpu[0])
    print("| %s | %s | %.3f | %.3f | %.1f | %.0f | %.0f | %.3f | %.3f |" % (
        var, col, mp, mr, mb, mb / mp, mb / mr, st.median(cpu["py"]), cr), flush=True)
    for w in range(len(libs)):
        m, c = st.median(wall[w]), st.median(cpu[w])
        ratios.append("| %s | %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f |" % (
            var, col, libs[w][0], m, c, m / mr, m / mp, c / cr))


if __name__ == "__main__":
    main()
