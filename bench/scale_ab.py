#!/usr/bin/env python3
"""2-core scaling of two ringscan builds side by side, with each core's time (issue 26).

Usage: python3 bench/scale_ab.py ITERS SHAPES BASE_BIN NEW_BIN [--data DIR] [--rounds N]
                                 [--threads 1,2] [-- EXTRA BENCH ARGS]

Each iteration runs, for each thread count in turn, `BIN bench --sf 1 --data DIR --shapes
SHAPES --policies adaptive --threads T --rounds N --no-floor --no-aa --json F` as base, new,
base (the second base run is the A/A line), so the arms and the thread counts interleave.
Per shape and arm: the median of the per-process median wall times at each thread count and
their ratio (scaling); and at the largest thread count, medians over every round of: each
core's CPU, busy (wall - asleep) and sleep by cause, its start and tail, the consumer thread's
CPU, the whole process's CPU over the run (`proc_cpu_ns`, when the build reports it: cores,
consumer, host and the kernel's io workers), the distinct read counts and whether every
checksum matched. CPU time is what a loaded machine distorts least: wall ratios mean
something only beside their A/A line.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

SLEEPS = ("io_ns", "dict_ns", "window_ns", "claim_ns", "drain_ns", "other_ns")


def one(binary, shapes, threads, data, rounds, extra):
    fd, path = tempfile.mkstemp(prefix="scale_ab", suffix=".json", dir="/tmp")
    os.close(fd)
    cmd = [binary, "bench", "--sf", "1", "--data", data, "--shapes", shapes, "--policies",
           "adaptive", "--threads", str(threads), "--rounds", str(rounds), "--no-floor",
           "--no-aa", "--json", path] + extra
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(path) as f:
        doc = json.load(f)
    os.unlink(path)
    return {sh["name"]: (sh["entries"][0], doc["all_match"]) for sh in doc["shapes"]}


def add(acc, arm, threads, res):
    for shape, (en, ok) in res.items():
        a = acc.setdefault(shape, {}).setdefault((arm, threads),
                                                 {"runs": [], "medians": [], "ok": True})
        a["runs"] += en["runs"]
        a["medians"].append(statistics.median(r["ms"] for r in en["runs"]))
        a["ok"] = a["ok"] and ok and all(r["match"] for r in en["runs"])


def med(runs, f):
    return statistics.median(f(r) for r in runs)


def ms(ns):
    return ns / 1e6


def core_line(runs, c):
    """Core c's medians: cpu, busy, sleeps, start, tail, splits."""
    have = [r for r in runs if len(r["cores"]) > c]
    if not have:
        return "-"
    k = lambda f: med(have, lambda r: ms(f(r["cores"][c])))
    busy = k(lambda x: x["wall_ns"] - sum(x[s] for s in SLEEPS))
    sleeps = "/".join(f"{k(lambda x, s=s: x[s]):.2f}" for s in SLEEPS)
    return (f"c{c}: cpu {k(lambda x: x['cpu_ns']):.2f} busy {busy:.2f} wall "
            f"{k(lambda x: x['wall_ns']):.2f} asleep {sleeps} start {k(lambda x: x['start_ns']):.2f} "
            f"tail {k(lambda x: x['tail_ns']):.2f} splits {med(have, lambda r: r['cores'][c]['splits']):.0f}")


def report(acc, tlist):
    lo, hi = tlist[0], tlist[-1]
    print(f"wall: median of per-process medians (ms); per core at {hi} threads, medians over "
          "rounds (ms): asleep = io/dict/window/claim/drain/other")
    for shape, arms in acc.items():
        print(f"\n{shape}")
        for arm in ("base", "new", "base#2"):
            w = {t: statistics.median(arms[(arm, t)]["medians"]) for t in tlist}
            r = arms[(arm, hi)]["runs"]
            cores_cpu = {t: med(arms[(arm, t)]["runs"], lambda k: ms(sum(c["cpu_ns"] for c in k["cores"])))
                         for t in tlist}
            proc = ""
            if all("proc_cpu_ns" in k for t in tlist for k in arms[(arm, t)]["runs"]):
                proc = " proc cpu " + " / ".join(
                    f"{med(arms[(arm, t)]['runs'], lambda k: ms(k['proc_cpu_ns'])):.2f}" for t in tlist)
            reads = sorted({k["reads"] for t in tlist for k in arms[(arm, t)]["runs"]})
            if all("steals" in k for k in r):
                proc += (f" steals {med(r, lambda k: k['steals']):.0f} lent "
                         f"{med(r, lambda k: k['reads_lent']):.0f}")
            ok = all(arms[(arm, t)]["ok"] for t in tlist)
            walls = " / ".join(f"{w[t]:.2f}" for t in tlist)
            cons = " / ".join(f"{med(arms[(arm, t)]['runs'], lambda k: ms(k['consumer_cpu_ns'])):.2f}"
                              for t in tlist)
            cc = " / ".join(f"{cores_cpu[t]:.2f}" for t in tlist)
            print(f"  {arm:7s} wall {walls} scaling {w[lo] / w[hi]:.3f}; cores cpu {cc}; "
                  f"consumer cpu {cons};{proc} reads {','.join(map(str, reads))} "
                  f"{'ok' if ok else 'MISMATCH'}")
            ncores = max(len(k["cores"]) for k in r)
            for c in range(ncores):
                print(f"          {core_line(r, c)}")
        b = {t: statistics.median(arms[("base", t)]["medians"]) for t in tlist}
        n = {t: statistics.median(arms[("new", t)]["medians"]) for t in tlist}
        b2 = {t: statistics.median(arms[("base#2", t)]["medians"]) for t in tlist}
        for t in tlist:
            print(f"  {t} threads: new/base {n[t] / b[t]:.3f} (A/A base#2/base {b2[t] / b[t]:.3f})")


def main():
    a = sys.argv[1:]
    extra = []
    if "--" in a:
        i = a.index("--")
        extra = a[i + 1:]
        del a[i:]
    data, rounds, tlist = "data", 5, [1, 2]
    for opt in ("--data", "--rounds", "--threads"):
        if opt in a:
            i = a.index(opt)
            v = a[i + 1]
            if opt == "--data":
                data = v
            elif opt == "--rounds":
                rounds = int(v)
            else:
                tlist = [int(x) for x in v.split(",")]
            del a[i:i + 2]
    iters, shapes, base, new = int(a[0]), a[1], a[2], a[3]
    acc = {}
    for _ in range(iters):
        for t in tlist:
            add(acc, "base", t, one(base, shapes, t, data, rounds, extra))
            add(acc, "new", t, one(new, shapes, t, data, rounds, extra))
            add(acc, "base#2", t, one(base, shapes, t, data, rounds, extra))
    print(f"{iters} iterations x {rounds} rounds, threads {','.join(map(str, tlist))}, "
          f"shapes {shapes}")
    report(acc, tlist)


if __name__ == "__main__":
    main()
