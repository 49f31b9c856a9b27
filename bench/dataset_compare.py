"""bench/dataset_compare.py: a hive-partitioned lineitem (issue 23 section 4) scanned by
ringscan, DuckDB, Polars and pyarrow.dataset, side by side in one run.

Data: `ringscan gen lineitem --sf SF` rewritten by DuckDB's COPY ... PARTITION_BY (year,
month) of l_shipdate (84 files at sf=1), in OUT/sfSF/ds/.
Queries (projecting l_orderkey, l_extendedprice, l_shipdate; every engine reads the three,
DuckDB through an aggregate of each, and the arm duckdb_2col is DuckDB asked for count(*) and
sum(l_orderkey) alone, which reads two columns, not three: the query earlier tables ran):
  partition  year = 1995            (a filter on a partition column: 12 of 84 files)
  data       l_quantity > 49        (a data column: every file, row groups kept)
Timing: R interleaved rounds (engine order rotated per round), each engine in one warm
process (ringscan: `ringscan serve`; peers: a Python worker per engine), THREADS threads;
median and range reported. Counting: a fresh process per (engine, query) under
`strace -f -y -e trace=openat,read,pread64,preadv,preadv2`, counting the dataset's files
opened and the read calls on them (ringscan with --io pread, whose io_uring reads strace does
not see; its --stats reads of an io_uring run beside). Every engine's rows and
sum(l_orderkey) must agree, else the script fails.
Usage: python bench/dataset_compare.py [--sf 1] [--rounds 5] [--threads 2] [--out /tmp/dsb]
       [--ringscan NAME=BINARY ...] (run with .tools/compare-venv/bin/python: polars, duckdb,
       pyarrow). Each --ringscan is an arm of its own (default: ringscan=zig-out/bin/ringscan),
       so two builds are timed side by side with the peers (the first one's --stats shown)."""
import argparse
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RS = os.path.join(ROOT, "zig-out", "bin", "ringscan")
COLS = ["l_orderkey", "l_extendedprice", "l_shipdate"]
QUERIES = {"partition": ("year = 1995", "year", 1995),
           "data": ("l_quantity > 49", "l_quantity", 49)}

WORKER = r'''
import json, sys, time, os, decimal
eng, ds, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
cols = ["l_orderkey", "l_extendedprice", "l_shipdate"]
if eng.startswith("duckdb"):
    import duckdb
    con = duckdb.connect(config={"threads": threads})
elif eng == "polars":
    import polars as pl
else:
    import pyarrow as pa, pyarrow.dataset as pds, pyarrow.compute as pc
    dset = None
def run(col, val):
    global dset
    if eng.startswith("duckdb"):
        # duckdb reads the three projected columns, as the other engines do (an aggregate of
        # each keeps its optimizer from dropping any); duckdb_2col is the count and
        # sum(l_orderkey) alone, for which DuckDB reads l_orderkey and the filter's column only
        aggs = "" if eng == "duckdb_2col" else ", sum(l_extendedprice), max(l_shipdate)"
        r = con.execute(f"SELECT count(*), sum(l_orderkey){aggs} FROM (SELECT {', '.join(cols)} FROM "
                        f"read_parquet('{ds}/**/*.parquet', hive_partitioning = true) "
                        f"WHERE {col} {'=' if col == 'year' else '>'} {val})").fetchone()
        return r[0], int(r[1] or 0)
    if eng == "polars":
        lf = pl.scan_parquet(f"{ds}/**/*.parquet", hive_partitioning=True)
        f = (pl.col("year") == val) if col == "year" else (pl.col(col) > val)
        t = lf.filter(f).select(cols).collect()
        return t.height, int(t["l_orderkey"].sum())
    if dset is None:
        dset = pds.dataset(ds, format="parquet", partitioning="hive")
    f = (pds.field("year") == val) if col == "year" else (pds.field(col) > pa.scalar(decimal.Decimal(val), pa.decimal128(15, 2)))
    t = dset.to_table(columns=cols, filter=f, use_threads=threads > 1)
    return t.num_rows, int(pc.sum(t["l_orderkey"]).as_py() or 0)
for line in sys.stdin:
    col, val = line.split()
    t0 = time.perf_counter()
    rows, s = run(col, int(val))
    print(json.dumps({"secs": time.perf_counter() - t0, "rows": rows, "sum": s}), flush=True)
'''


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def make_data(out, sf):
    ds = os.path.join(out, "ds")
    if glob.glob(f"{ds}/**/*.parquet", recursive=True):
        return ds
    li = os.path.join(out, "lineitem.parquet")
    subprocess.run([RS, "gen", "lineitem", "--sf", str(sf), "-o", li], check=True)
    import duckdb
    duckdb.connect().execute(
        f"COPY (SELECT *, year(l_shipdate) AS year, month(l_shipdate) AS month FROM '{li}') "
        f"TO '{ds}' (FORMAT parquet, PARTITION_BY (year, month), OVERWRITE_OR_IGNORE)")
    return ds


BINS = {}  # ringscan arm name -> binary (--ringscan)


class Worker:
    def __init__(self, eng, ds, threads):
        self.eng, self.ds, self.threads = eng, ds, threads
        env = dict(os.environ, POLARS_MAX_THREADS=str(threads))
        if eng in BINS:
            self.p = subprocess.Popen([BINS[eng], "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      text=True)
        else:
            self.p = subprocess.Popen([sys.executable, "-c", WORKER, eng, ds, str(threads)],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                      env=env)

    def run(self, q):
        where, col, val = QUERIES[q]
        if self.eng in BINS:
            args = [f"{self.ds}/**/*.parquet", "--where", where, "--columns", ",".join(COLS),
                    "--threads", str(self.threads), "--format", "checksum"]
            self.p.stdin.write("\t".join(args) + "\n")
        else:
            self.p.stdin.write(f"{col} {val}\n")
        self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())


def ringscan_check(ds, q, threads):
    where = QUERIES[q][0]
    p = subprocess.run([RS, "scan", f"{ds}/**/*.parquet", "--where", where, "--columns",
                        "l_orderkey", "--format", "csv", "--threads", str(threads), "--stats=json"],
                       capture_output=True, text=True, check=True)
    keys = [int(x) for x in p.stdout.split()[1:]]
    st = json.loads([ln for ln in p.stderr.splitlines() if ln.startswith("{")][-1])
    return len(keys), sum(keys), st


def strace_counts(cmd, ds, env):
    logp = "/tmp/dataset_compare.strace"
    subprocess.run(["strace", "-f", "-y", "-o", logp, "-e",
                    "trace=openat,read,pread64,preadv,preadv2"] + cmd, check=True,
                   capture_output=True, env=env)
    real = os.path.realpath(ds)
    opened, reads = set(), 0
    with open(logp) as f:
        for line in f:
            m = re.search(r'openat\([^"]*"([^"]+)"', line)
            if m and m.group(1).endswith(".parquet") and "= -1" not in line:
                opened.add(os.path.realpath(m.group(1)))
            m = re.search(r"\b(read|pread64|preadv|preadv2)\(\d+<([^>]*)>", line)
            if m and m.group(2).startswith(real) and m.group(2).endswith(".parquet"):
                reads += 1
    os.unlink(logp)
    return len([o for o in opened if o.startswith(real)]), reads


def count(eng, ds, q, threads):
    env = dict(os.environ, POLARS_MAX_THREADS=str(threads))
    where, col, val = QUERIES[q]
    if eng in BINS:
        cmd = [BINS[eng], "scan", f"{ds}/**/*.parquet", "--where", where, "--columns", ",".join(COLS),
               "--threads", str(threads), "--format", "checksum", "--io", "pread"]
    else:
        script = WORKER.replace("for line in sys.stdin:", f"for line in ['{col} {val}']:")
        cmd = [sys.executable, "-c", script, eng, ds, str(threads)]
    return strace_counts(cmd, ds, env)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", default="1")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default="/tmp/dataset_compare")
    ap.add_argument("--ringscan", action="append", default=[])
    a = ap.parse_args()
    global RS
    for arm in a.ringscan or [f"ringscan={RS}"]:
        name, binary = arm.split("=", 1)
        BINS[name] = binary
    RS = next(iter(BINS.values()))
    out = os.path.join(a.out, f"sf{a.sf}")
    os.makedirs(out, exist_ok=True)
    ds = make_data(out, a.sf)
    nfiles = len(glob.glob(f"{ds}/**/*.parquet", recursive=True))
    engines = list(BINS) + ["duckdb", "duckdb_2col", "polars", "pyarrow"]
    workers = {e: Worker(e, ds, a.threads) for e in engines}
    ref, times, stats = {}, {(e, q): [] for e in engines for q in QUERIES}, {}
    for q in QUERIES:
        rows, s, st = ringscan_check(ds, q, a.threads)
        ref[q], stats[q] = (rows, s), st
        for e in engines:
            r = workers[e].run(q)  # warm-up, and the rows check
            if r["rows"] != rows or (e not in BINS and r["sum"] != s):
                sys.exit(f"MISMATCH {e} {q}: rows {r['rows']} sum {r.get('sum')}, ringscan {rows} {s}")
    for rnd in range(a.rounds):
        for q in QUERIES:
            order = engines[rnd % len(engines):] + engines[:rnd % len(engines)]
            for e in order:
                times[(e, q)].append(workers[e].run(q)["secs"])
    for w in workers.values():
        w.p.stdin.close()
        w.p.wait()
    counts = {(e, q): count(e, ds, q, a.threads) for e in engines for q in QUERIES}
    print(f"sf={a.sf}, {nfiles} files, {a.threads} threads, {a.rounds} interleaved rounds "
          f"(median, min-max), `python bench/dataset_compare.py --sf {a.sf} --rounds {a.rounds} "
          f"--threads {a.threads}`\n")
    print("| query | engine | time (s) | files opened | read calls | rows |")
    print("|---|---|---|---|---|---|")
    for q in QUERIES:
        for e in engines:
            t = times[(e, q)]
            fo, rc = counts[(e, q)]
            extra = ""
            if e == next(iter(BINS)):
                st = stats[q]
                extra = (f" (io_uring run: {st['reads']} reads; footers_read {st['footers_read']}, "
                         f"files_pruned {st['files_pruned']})")
            print(f"| {q}: `{QUERIES[q][0]}` | {e} | {statistics.median(t):.3f} "
                  f"({min(t):.3f}-{max(t):.3f}) | {fo} | {rc}{extra} | {ref[q][0]} |")


if __name__ == "__main__":
    main()
