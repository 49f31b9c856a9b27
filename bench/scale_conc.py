#!/usr/bin/env python3
"""Whether a second core loses CPU to the machine or to the scan (issue 26). Usage:
python3 bench/scale_conc.py N SHAPE BIN (data in /tmp/d1). N alternations of (a) one 1-thread bench process on CPU 0 alone, (b) two
1-thread bench processes at once (CPU 0 and CPU 1), (c) one 2-thread process; chrt -r 1, 21 rounds.
Per process: median cores' CPU ms and wall ms."""
import json, subprocess, sys, tempfile, os, statistics as st
n, shape, b = int(sys.argv[1]), sys.argv[2], sys.argv[3]
def start(cpus, t):
    fd, path = tempfile.mkstemp(suffix=".json", dir="/tmp"); os.close(fd)
    p = subprocess.Popen(["taskset", "-c", cpus, "chrt", "-r", "1", b, "bench", "--sf", "1", "--data", "/tmp/d1", "--rounds", "21",
                          "--policies", "adaptive", "--threads", str(t), "--shapes", shape, "--no-floor", "--no-aa", "--json", path],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return p, path
def done(p, path):
    assert p.wait() == 0
    d = json.load(open(path)); os.unlink(path)
    runs = d["shapes"][0]["entries"][0]["runs"]
    return (st.median(sum(c["cpu_ns"] for c in r["cores"]) / 1e6 for r in runs), st.median(r["ms"] for r in runs))
acc = {"alone": [], "pair": [], "t2": []}
for i in range(n):
    a = done(*start("0", 1))
    p1, p2 = start("0", 1), start("1", 1)
    x, y = done(*p1), done(*p2)
    c = done(*start("0,1", 2))
    acc["alone"].append(a); acc["pair"].append(((x[0] + y[0]) / 2, (x[1] + y[1]) / 2)); acc["t2"].append(c)
    print(i, "alone cores %.2f ms %.2f | pair cores %.2f/%.2f ms %.2f/%.2f | 2t cores %.2f ms %.2f" % (a[0], a[1], x[0], y[0], x[1], y[1], c[0], c[1]), flush=True)
for k, v in acc.items():
    print(k, "median cores' cpu %.2f wall %.2f" % (st.median(x[0] for x in v), st.median(x[1] for x in v)))
print("pair/alone cpu (median of ratios) %.3f; 2t/alone %.3f" % (st.median(p[0] / a[0] for p, a in zip(acc["pair"], acc["alone"])), st.median(p[0] / a[0] for p, a in zip(acc["t2"], acc["alone"]))))
