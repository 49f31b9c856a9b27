#!/usr/bin/env python3
"""2-core scaling and the cores' CPU at 1 and 2 threads, builds interleaved (issue 26).

Usage: python3 bench/scale_pairs.py N SHAPE chrt|- BIN... (env LABEL: the bench entry, default
adaptive; EXTRA: more bench options, e.g. "--kept" with LABEL=adaptive/kept)

N iterations; each runs every BIN at 1 then 2 threads (`BIN bench --sf 1 --data /tmp/d1
--rounds 11 --policies adaptive --threads T --shapes SHAPE --no-floor --no-aa --json F`, under
`chrt -r 1` when asked); per process the medians over its rounds of the wall ms, the cores' CPU
(scan_core_stats.cpu_ns summed), the process's CPU and the consumer's; printed per iteration
with the 2t/1t ratios, the read counts and whether every checksum matched; then per BIN the
medians over iterations and the median of the per-iteration ratios. A copy of the base binary
at another path is the A/A arm. Counts CPU, which a loaded machine distorts least."""
import json, subprocess, sys, tempfile, os, statistics as st
n, shape = int(sys.argv[1]), sys.argv[2]
pre = ["chrt", "-r", "1"] if sys.argv[3] == "chrt" else []
bins = sys.argv[4:]
def one(b, t):
    fd, path = tempfile.mkstemp(suffix=".json", dir="/tmp"); os.close(fd)
    subprocess.run(pre + [b, "bench", "--sf", "1", "--data", "/tmp/d1", "--rounds", "11", "--policies", "adaptive",
                    "--threads", str(t), "--shapes", shape, "--no-floor", "--no-aa", "--json", path] + os.environ.get("EXTRA", "").split(),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    d = json.load(open(path)); os.unlink(path)
    runs = [e for e in d["shapes"][0]["entries"] if e["label"] == os.environ.get("LABEL", "adaptive")][0]["runs"]
    md = lambda f: st.median(f(r) for r in runs)
    return dict(ms=md(lambda r: r["ms"]), cores=md(lambda r: sum(c["cpu_ns"] for c in r["cores"]) / 1e6),
                proc=md(lambda r: r["proc_cpu_ns"] / 1e6), cons=md(lambda r: r["consumer_cpu_ns"] / 1e6),
                reads=sorted({r["reads"] for r in runs}), ok=all(r["match"] for r in runs),
                steals=md(lambda r: r["steals"]))
res = {b: [] for b in bins}
for i in range(n):
    for b in bins:
        a, c = one(b, 1), one(b, 2)
        res[b].append((a, c))
        print(i, b.split("/")[3], "1t ms %.2f cores %.2f proc %.2f | 2t ms %.2f cores %.2f proc %.2f steals %.1f | scale %.2f cpu x%.2f proc x%.2f" % (
            a["ms"], a["cores"], a["proc"], c["ms"], c["cores"], c["proc"], c["steals"], a["ms"] / c["ms"], c["cores"] / a["cores"], c["proc"] / a["proc"]), a["reads"], c["reads"], a["ok"] and c["ok"], flush=True)
for b in bins:
    r = res[b]
    f = lambda k, t: st.median(x[t][k] for x in r)
    print(b, "medians: 1t ms %.2f cores %.2f proc %.2f cons %.2f | 2t ms %.2f cores %.2f proc %.2f cons %.2f | scaling (median of pairs) %.3f, cores cpu 2t/1t %.3f, proc 2t/1t %.3f" % (
        f("ms", 0), f("cores", 0), f("proc", 0), f("cons", 0), f("ms", 1), f("cores", 1), f("proc", 1), f("cons", 1),
        st.median(x[0]["ms"] / x[1]["ms"] for x in r), st.median(x[1]["cores"] / x[0]["cores"] for x in r), st.median(x[1]["proc"] / x[0]["proc"] for x in r)))
