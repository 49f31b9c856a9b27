#!/usr/bin/env python3
"""Serial phases and wall time of two ringscan builds side by side (issue 26).

Usage: python3 bench/phases_ab.py ITERS THREADS SHAPES BASE_BIN NEW_BIN [--data DIR] [--rounds N]

Runs `BIN bench --sf 1 --data DIR --shapes SHAPES --policies adaptive --threads THREADS
--rounds N --no-floor --no-aa --json F` ITERS times in the order base, new, base: the second
base run of each iteration is the A/A line. Per shape and arm, over every round of every
process: the median wall ms, the host thread's CPU in open (footer) and start (plan, threads),
the wall of open, start and end (scan_free and pqf_close), the consumer's CPU (draining and
summing the checksum) and the cores' CPU summed; the median of the per-process medians of
wall ms; the distinct read counts and bytes read (they must not differ between the arms
unless a change is about them) and whether every checksum matched.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile


def one(binary, shapes, threads, data, rounds):
    fd, path = tempfile.mkstemp(prefix="phases_ab", suffix=".json", dir="/tmp")
    os.close(fd)
    cmd = [binary, "bench", "--sf", "1", "--data", data, "--shapes", shapes, "--policies",
           "adaptive", "--threads", str(threads), "--rounds", str(rounds), "--no-floor",
           "--no-aa", "--json", path]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(path) as f:
        doc = json.load(f)
    os.unlink(path)
    out = {}
    for sh in doc["shapes"]:
        out[sh["name"]] = (sh["entries"][0], doc["all_match"])
    return out


def add(acc, arm, res):
    for shape, (en, ok) in res.items():
        a = acc.setdefault(shape, {}).setdefault(arm, {"runs": [], "medians": [], "ok": True})
        a["runs"] += en["runs"]
        a["medians"].append(statistics.median(r["ms"] for r in en["runs"]))
        a["ok"] = a["ok"] and ok and all(r["match"] for r in en["runs"])


def med(runs, f):
    return statistics.median(f(r) for r in runs)


def main():
    a = sys.argv[1:]
    data, rounds = "data", 5
    for opt in ("--data", "--rounds"):
        if opt in a:
            i = a.index(opt)
            if opt == "--data":
                data = a[i + 1]
            else:
                rounds = int(a[i + 1])
            del a[i:i + 2]
    iters, threads, shapes, base, new = int(a[0]), int(a[1]), a[2], a[3], a[4]
    acc = {}
    for _ in range(iters):
        add(acc, "base", one(base, shapes, threads, data, rounds))
        add(acc, "new", one(new, shapes, threads, data, rounds))
        add(acc, "base#2", one(base, shapes, threads, data, rounds))
    print(f"threads {threads}, {iters} iterations x {rounds} rounds; ms medians over rounds")
    print("| shape | arm | wall ms (median of process medians) | open cpu / wall | start cpu / wall "
          "| end wall | consumer cpu | cores cpu | reads | MB read | ok |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for shape, arms in acc.items():
        for arm in ("base", "new", "base#2"):
            x = arms[arm]
            r = x["runs"]
            cores = med(r, lambda k: sum(c["cpu_ns"] for c in k["cores"]) / 1e6)
            reads = sorted({k["reads"] for k in r})
            mb = sorted({round(k["bytes_read"] / 1e6, 3) for k in r})
            print(f"| {shape} | {arm} | {statistics.median(x['medians']):.3f} "
                  f"| {med(r, lambda k: k['open_cpu_ns'] / 1e6):.3f} / {med(r, lambda k: k['open_ms']):.3f} "
                  f"| {med(r, lambda k: k['start_cpu_ns'] / 1e6):.3f} / {med(r, lambda k: k['start_ms']):.3f} "
                  f"| {med(r, lambda k: k['end_ms']):.3f} "
                  f"| {med(r, lambda k: k['consumer_cpu_ns'] / 1e6):.3f} | {cores:.3f} "
                  f"| {','.join(map(str, reads))} | {','.join(map(str, mb))} | {'ok' if x['ok'] else 'MISMATCH'} |")
        b, n, b2 = (statistics.median(arms[k]["medians"]) for k in ("base", "new", "base#2"))
        print(f"| {shape} | new/base wall | {n / b:.3f} (A/A base#2/base {b2 / b:.3f}) | | | | | | | | |")


if __name__ == "__main__":
    main()
