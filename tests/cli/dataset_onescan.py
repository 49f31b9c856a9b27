"""tests/cli/dataset_onescan.py: a dataset's files run as one scan on one runtime, ringscan
against DuckDB 2.0.1. Writes lineitem sf=0.01 (`ringscan gen`) and cuts it (pyarrow) into
  small: 240 files of 250 rows (one row group each: start-up dominated), and
  skewed: one big file of 30,000 rows (row groups of 4,000) then 60 files of 500 rows.
Each query runs as `ringscan scan DIR --format csv` (path order, then row order) and as
DuckDB's read_parquet([the same paths, sorted]); the rows must be equal as text, in order.
--stats must show one runtime (executor group) for the whole dataset and both cores scanning
rows across the files (core_rows_min > 0 on two threads: each file used to run on one core of
its own), and footers read ahead in small windows each read once. Then a limit mid-dataset, ORDER BY ... LIMIT and a count, an early close of the
output mid-dataset (the scan ends, no hang), and a broken file in the middle named in the
error. Usage: python dataset_onescan.py RINGSCAN DIR"""
import json
import os
import subprocess
import sys

import duckdb
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, summary  # noqa: E402
from duck_text import csv_rows, duck_rows  # noqa: E402

R, D = sys.argv[1], sys.argv[2]
COLS = ["l_orderkey", "l_linenumber", "l_quantity", "l_extendedprice", "l_shipdate",
        "l_shipmode"]


def run(args, want_rc=0):
    p = subprocess.run([R, "scan"] + args, capture_output=True, text=True, timeout=300)
    if p.returncode != want_rc:
        check(False, f"ringscan scan {' '.join(args[:6])}: exit {p.returncode}: {p.stderr[-400:]}")
    return p


def write_files(t, d, sizes, rg_rows):
    os.makedirs(d, exist_ok=True)
    at = 0
    for i, n in enumerate(sizes):
        pq.write_table(t.slice(at, n), f"{d}/part-{i:04d}.parquet", row_group_size=rg_rows[i])
        at += n
    return sorted(os.path.join(d, f) for f in os.listdir(d))


def duck(con, files, where=None, limit=None, order=None):
    return duck_rows(con, f"read_parquet({files!r})", COLS, where, order, limit)


def stats_of(p):
    line = [ln for ln in p.stderr.splitlines() if ln.startswith("{")]
    return json.loads(line[-1]) if line else {}


li = os.path.join(D, "li.parquet")
subprocess.run([R, "gen", "lineitem", "--sf", "0.01", "-o", li], check=True,
               capture_output=True, timeout=300)
t = pq.read_table(li, columns=COLS)
small_dir, skew_dir = os.path.join(D, "small"), os.path.join(D, "skewed")
small = write_files(t, small_dir, [250] * 240, [250] * 240)
skew = write_files(t, skew_dir, [30000] + [500] * 60, [4000] + [500] * 60)
check(len(small) == 240 and len(skew) == 61, f"{len(small)} small, {len(skew)} skewed files")
con = duckdb.connect()

for name, d, files in (("small", small_dir, small), ("skewed", skew_dir, skew)):
    for where in (None, "l_quantity > 45", "l_shipmode = 'AIR' AND l_linenumber > 2"):
        for threads in ("1", "2"):
            args = [d, "--format", "csv", "--columns", ",".join(COLS), "--threads", threads,
                    "--stats=json"]
            p = run(args + (["--where", where] if where else []))
            want = duck(con, files, where)
            got = csv_rows(p.stdout)
            check(got == want, f"{name} where {where} threads {threads}: {len(got)} rows, "
                               f"DuckDB {len(want)}; first differing "
                               f"{next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), None)}")
            st = stats_of(p)
            check(st.get("runtimes") == 1 and st.get("files") == len(files),
                  f"{name} where {where} threads {threads}: runtimes {st.get('runtimes')} "
                  f"files {st.get('files')}, want 1 and {len(files)}")
            if threads == "2" and where is None:  # both cores scanned rows of the files
                check(st.get("core_rows_min", 0) > 0 and
                      st.get("core_rows_min", 0) + st.get("core_rows_max", 0) <= len(t),
                      f"{name} threads 2: core rows {st.get('core_rows_min')}.."
                      f"{st.get('core_rows_max')} (each core should scan some of {len(t)})")

# footers read ahead in windows of max_open / 2 (2 here): each read once, rows unchanged
p = run([small_dir, "--format", "csv", "--columns", ",".join(COLS), "--max-open-files", "4",
         "--where", "l_quantity > 45", "--stats=json"])
check(csv_rows(p.stdout) == duck(con, small, "l_quantity > 45"), "max_open_files 4: rows differ")
check(stats_of(p).get("footers_read") == 240, f"max_open_files 4: footers_read "
                                               f"{stats_of(p).get('footers_read')}, want 240")

# a limit mid-dataset: the first rows in path order; the files after are never all read
for lim in (1, 3333, 30100):
    p = run([skew_dir, "--format", "csv", "--columns", ",".join(COLS), "--limit", str(lim),
             "--stats=json"])
    want = duck(con, skew, None, lim)
    check(csv_rows(p.stdout) == want, f"limit {lim}: {len(csv_rows(p.stdout))} rows, want {len(want)}")
    check(stats_of(p).get("rows_out") == lim, f"limit {lim}: rows_out {stats_of(p).get('rows_out')}")

# ORDER BY ... LIMIT across the files (one Top-K bound) and a count
p = run([small_dir, "--format", "csv", "--columns", ",".join(COLS), "--order-by",
         "l_extendedprice DESC, l_orderkey, l_linenumber", "--limit", "25"])
want = duck(con, small, None, 25, "l_extendedprice DESC, l_orderkey, l_linenumber")
check(csv_rows(p.stdout) == want, f"order by: {csv_rows(p.stdout)[:2]} vs DuckDB {want[:2]}")
p = run([small_dir, "--format", "count", "--where", "l_quantity > 45"])
n = con.execute(f"SELECT count(*) FROM read_parquet({small!r}) WHERE l_quantity > 45").fetchone()[0]
check(p.stdout.split() and p.stdout.split()[-1] == str(n), f"count: {p.stdout!r}, DuckDB {n}")

# the consumer stops reading mid-dataset: the scan ends (no hang) without a crash
proc = subprocess.Popen([R, "scan", small_dir, "--format", "csv", "--threads", "2"],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
head = proc.stdout.read(4096)
proc.stdout.close()
try:
    rc = proc.wait(timeout=120)
except subprocess.TimeoutExpired:
    proc.kill()
    rc = "hang"
proc.stderr.close()
check(len(head) == 4096 and rc in (0, 1, 141, -13),
      f"early close: exit {rc} after {len(head)} bytes (want an end, not a crash or hang)")

# a broken file in the middle of the dataset: the error names it
bad = os.path.join(D, "bad")
os.makedirs(bad, exist_ok=True)
for i, f in enumerate(small[:30]):
    os.link(f, f"{bad}/f{i:03d}.parquet")
with open(f"{bad}/f015.parquet", "r+b") as f:  # its footer length points before the file
    f.seek(-8, os.SEEK_END)
    f.write((1 << 30).to_bytes(4, "little"))
p = run([bad, "--format", "checksum", "--threads", "2"], want_rc=1)
check("f015.parquet" in p.stderr, f"broken file not named: {p.stderr.strip()[:300]}")
sys.exit(0 if summary("dataset_onescan") else 1)
