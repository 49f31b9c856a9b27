#!/usr/bin/env python3
"""bench/floor_cpu.py: one executor's CPU for a scan of any file beside its own
pq_snappy_uncompress samples (the decompression floor's work), for files `ringscan bench`
cannot run its floor on (issue 26: the DuckDB-written file, bench/RESULTS.md twenty-fifth
session). 1 executor thread, in a warm `ringscan serve`.

    python3 bench/floor_cpu.py N OUT.data BIN FILE -- SCAN ARGS...
    e.g. ... 6 /tmp/w.data zig-out/bin/ringscan lineitem.parquet -- --format checksum \
             --where "l_linenumber > 5" --columns l_orderkey,l_comment

Runs 3 warm-up scans then N, all under `perf record -e cpu-clock -F 4999`; executor threads
= threads with snappy samples; the warm-ups' threads (the first 3 by tid) are left out when
each scan has its own thread. Prints per executor thread ms, snappy ms, ratio and medians."""
import collections
import json
import statistics
import subprocess
import sys

HZ = 4999


def run_scans(n, out, binary, line):
    """3 warm-up scans then n in one `binary serve` under perf; the last answer."""
    p = subprocess.Popen(["perf", "record", "-q", "-e", "cpu-clock", "-F", str(HZ), "-o", out,
                          "--", binary, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    res = []
    for _ in range(3 + n):
        p.stdin.write(line)
        p.stdin.flush()
        res.append(json.loads(p.stdout.readline()))
    p.stdin.close()
    p.wait()
    return res


def main():
    n, out, binary, path = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    args = sys.argv[sys.argv.index("--") + 1:]
    res = run_scans(n, out, binary, "\t".join([path] + args + ["--threads", "1"]) + "\n")
    print("rows", res[-1]["rows"], "checksum", res[-1]["checksum"], "serve cpu ms median",
          "%.1f" % statistics.median(r["cpu"] * 1e3 for r in res[3:]))
    txt = subprocess.run(["perf", "script", "-i", out, "-F", "tid,ip,sym"], capture_output=True,
                         text=True).stdout
    tot, sn = collections.Counter(), collections.Counter()
    syms = collections.defaultdict(collections.Counter)
    for line in txt.splitlines():
        q = line.split()
        if len(q) < 2:
            continue
        tid, sym = int(q[0]), (q[2] if len(q) > 2 else "?")
        tot[tid] += 1
        syms[tid][sym] += 1
        sn[tid] += sym == "pq_snappy_uncompress"
    ex = sorted(t for t in tot if sn[t])
    if len(ex) >= 3 + n:
        ex = ex[3:]
    rows = [(tot[t] * 1000 / HZ, sn[t] * 1000 / HZ) for t in ex]
    rows = [(a, s, a / s) for a, s in rows]
    print("executor threads", len(ex), "; per thread ms/snappy/ratio:",
          " ".join("%.0f/%.0f/%.2f" % r for r in rows))
    print("median executor %.1f ms, snappy %.1f ms, ratio %.2f"
          % tuple(statistics.median(r[i] for r in rows) for i in range(3)))
    agg = collections.Counter()
    for t in ex:
        agg.update(syms[t])
    total = sum(agg.values())
    print("executor leaf symbols:",
          ", ".join("%s %.1f%%" % (s, c * 100 / total) for s, c in agg.most_common(14)))


if __name__ == "__main__":
    main()
