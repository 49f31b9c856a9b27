#!/usr/bin/env python3
"""Cold-cache A/B/A: before each run the data file leaves the page cache (POSIX_FADV_DONTNEED),
then one scan (bench --rounds 1). Prints per run the scan's wall ms, the process's task-clock ms
(every thread, io-wq workers too) and the read calls; then medians per shape.
Usage: python3 bench/readpath/cold.py ROUNDS SHAPES BASE NEW DATA_DIR [extra bench args]
BASE and NEW: a binary with bench options after it, in one argument ("ringscan --threads 1
--read-mode mmap"). DATA_DIR's lineitem_sf1_tpch.parquet is evicted before every run: point it
at a private copy (cp data/lineitem_sf1_tpch.parquet* DIR), not a directory others read."""
import collections, json, os, statistics, subprocess, sys
STAT, JSON = "/tmp/readpath_cold.stat", "/tmp/readpath_cold.json"
rounds, shapes, base, new, data = int(sys.argv[1]), sys.argv[2].split(","), sys.argv[3], sys.argv[4], sys.argv[5]
extra = sys.argv[6:]
path = os.path.join(data, "lineitem_sf1_tpch.parquet")
def evict():
    fd = os.open(path, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)
def run(spec, shape):
    evict()
    b = spec.split()
    cmd = ["perf", "stat", "-x,", "-e", "task-clock", "-o", STAT, b[0], "bench"] + b[1:] + [
        "--sf", "1", "--data", data, "--shapes", shape, "--policies", "adaptive", "--rounds", "1",
        "--no-floor", "--no-aa", "--json", JSON] + extra
    subprocess.run(cmd, capture_output=True)
    j = json.load(open(JSON))
    e = j["shapes"][0]["entries"][0]
    assert j["all_match"], "checksum"
    cpu = next(float(l.split(",")[0]) for l in open(STAT) if "task-clock" in l)
    return e["median_ms"], cpu, e["runs"][0]["reads"]
res = collections.defaultdict(list)
for _ in range(rounds):
    for sh in shapes:
        for who, spec in (("A1", base), ("B", new), ("A2", base)):
            r = run(spec, sh)
            res[(sh, who)].append(r)
            print(sh, who, "wall %.1f ms cpu %.1f ms reads %d" % r, flush=True)
for sh in shapes:
    m = lambda who, i: statistics.median([x[i] for x in res[(sh, who)]])
    a = lambda i: statistics.median([x[i] for x in res[(sh, "A1")] + res[(sh, "A2")]])
    print(f"{sh}: cold wall ms base {a(0):.1f} new {m('B',0):.1f} new/base {m('B',0)/a(0):.3f} (A/A {m('A2',0)/m('A1',0):.3f}); "
          f"process cpu ms base {a(1):.1f} new {m('B',1):.1f} new/base {m('B',1)/a(1):.3f} (A/A {m('A2',1)/m('A1',1):.3f}); "
          f"reads base {a(2):.0f} new {m('B',2):.0f}")
