#!/usr/bin/env python3
"""One-thread executor CPU per scan beside the decompression it does (issue 26).

Usage: python3 bench/exec_cpu.py ROUNDS SHAPES BASE_BIN NEW_BIN [--data DIR]

BASE_BIN and NEW_BIN may carry extra bench options after the binary, in one argument
("zig-out/bin/ringscan --read-mode mmap"): the same binary then compares two settings.

Runs `BIN bench --sf 1 --data DIR --shapes SHAPE --policies adaptive --threads 1 --rounds 5
--no-floor --no-aa` under `perf record -e cpu-clock -F 10000`, in rounds of base, new, base
(the second base run is the A/A line). Every scan runs on its own executor thread; the
median thread by CPU is the scan's figure (the first scan's thread also zeroes fresh read
buffers). The ring's io-wq worker threads (comm iou-wrk-*) are no executor: they are left out
of the median and their CPU is printed apart (wq ms: their samples over the run divided by
the scans, 5), with the process's total CPU per scan (all ms). Printed per run: executor CPU ms of that scan, its ratio to the same thread's
pq_snappy_uncompress samples (the floor's work, without snappy's own memmove calls), and the
snappy ms; then medians per shape. The wall-clock floor ratio of `ringscan bench` needs a
quiet machine; CPU time of the executor thread does not count time spent waiting for a CPU.
Needs perf and nm; x86-64 binaries linked at 0x1000000 (zig's default)."""
import bisect
import collections
import os
import statistics
import subprocess
import sys
import tempfile


def symbols(binary):
    s = []
    for line in subprocess.run(["nm", "-n", binary], capture_output=True, text=True).stdout.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "tTwW":
            s.append((int(p[0], 16), p[2]))
    return [a for a, _ in s], s


def one_run(spec, shape, data, syms):
    fd, path = tempfile.mkstemp(prefix="exec_cpu", dir="/tmp")
    os.close(fd)
    binary, extra = spec.split()[0], spec.split()[1:]
    cmd = [binary, "bench"] + extra + [ "--sf", "1", "--data", data, "--shapes", shape, "--policies", "adaptive",
           "--threads", "1", "--rounds", "5", "--no-floor", "--no-aa"]
    subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "10000", "-o", path] + cmd,
                   capture_output=True)
    out = subprocess.run(["perf", "script", "-i", path, "-F", "comm,pid,tid,ip,dso"],
                         capture_output=True, text=True).stdout
    os.unlink(path)
    addrs, s = syms
    total, snappy = collections.Counter(), collections.Counter()
    wq = every = 0
    for line in out.splitlines():
        p = line.split()
        at = next((i for i, t in enumerate(p) if "/" in t and t.replace("/", "").isdigit()), -1)
        if at < 1 or len(p) < at + 2:
            continue
        every += 1
        comm, p = " ".join(p[:at]), p[at:]
        pid, tid = p[0].split("/")
        if comm.startswith("iou-wrk"):  # the ring's io-wq workers: no executor
            wq += 1
            continue
        if pid == tid:  # the consumer (main) thread: the bench's checksum
            continue
        total[tid] += 1
        if "ringscan)" in line:
            ip = int(p[1], 16)
            if ip < 0x1000000:
                ip += 0x1001000
            if s[bisect.bisect_right(addrs, ip) - 1][1] == "pq_snappy_uncompress":
                snappy[tid] += 1
    threads = sorted(total, key=lambda t: total[t])
    med = threads[len(threads) // 2]
    return (total[med] / 10.0, total[med] / max(snappy[med], 1), snappy[med] / 10.0, wq / 50.0,
            every / 50.0)


def main():
    args = sys.argv[1:]
    data = "data"
    if "--data" in args:
        i = args.index("--data")
        data = args[i + 1]
        del args[i:i + 2]
    rounds, shapes, base, new = int(args[0]), args[1].split(","), args[2], args[3]
    bins = {"A1": base, "B": new, "A2": base}
    syms = {b: symbols(b.split()[0]) for b in (base, new)}
    res = collections.defaultdict(list)
    for _ in range(rounds):
        for shape in shapes:
            for who in ("A1", "B", "A2"):
                r = one_run(bins[who], shape, data, syms[bins[who]])
                res[(shape, who)].append(r)
                print(shape, who, "%.1f ms" % r[0], "x%.2f" % r[1], "snappy %.1f ms" % r[2],
                      "wq %.1f ms" % r[3], "all %.1f ms" % r[4], flush=True)
    for shape in shapes:
        a = res[(shape, "A1")] + res[(shape, "A2")]
        b = res[(shape, "B")]

        def med(rows, i):
            return statistics.median([x[i] for x in rows])
        aa = med(res[(shape, "A2")], 0) / med(res[(shape, "A1")], 0)
        print(f"{shape}: executor CPU ms/scan base {med(a, 0):.1f} new {med(b, 0):.1f} "
              f"new/base {med(b, 0) / med(a, 0):.3f} (A/A {aa:.3f}); executor/snappy base "
              f"{med(a, 1):.2f} new {med(b, 1):.2f}; snappy ms base {med(a, 2):.1f} new {med(b, 2):.1f}; "
              f"wq ms base {med(a, 3):.1f} new {med(b, 3):.1f}; all ms base {med(a, 4):.1f} "
              f"new {med(b, 4):.1f}")


if __name__ == "__main__":
    main()
