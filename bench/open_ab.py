#!/usr/bin/env python3
"""Host CPU of ringscan_open + ringscan_close (the footer's read and parse) of two builds side
by side, on any Parquet file (issue 26: lazy footer statistics).

Usage: python3 bench/open_ab.py ITERS OPENS BASE_PREFIX NEW_PREFIX FILE...

Each iteration runs, in the order base, new, base (the second base run is the A/A line), a
fresh process per arm and file that loads PREFIX/lib/libringscan.so through ctypes and opens
and closes FILE OPENS times, timing each open with the thread's CPU clock (the page cache
warm: the file's tail is read by every open). Prints per file and arm the median over every
open of every process, in microseconds, and the ratios new/base and base#2/base.
"""
import statistics
import subprocess
import sys

CHILD = r"""
import ctypes, sys, time
lib = ctypes.CDLL(sys.argv[1])
path, n = sys.argv[2].encode(), int(sys.argv[3])
err = ctypes.create_string_buffer(1024)
f = ctypes.c_void_p()
out = []
for _ in range(n):
    t0 = time.thread_time_ns()
    if lib.ringscan_open(path, ctypes.byref(f), err) != 0:
        sys.exit("open failed: " + err.raw[4:200].split(b"\0")[0].decode())
    lib.ringscan_close(f)
    out.append(time.thread_time_ns() - t0)
print(" ".join(map(str, out)))
"""


def one(prefix, path, opens):
    p = subprocess.run([sys.executable, "-c", CHILD, prefix + "/lib/libringscan.so", path, str(opens)],
                       check=True, capture_output=True, text=True)
    return [int(x) for x in p.stdout.split()]


def main(argv):
    if len(argv) < 5:
        sys.exit(__doc__)
    iters, opens, base, new, files = int(argv[0]), int(argv[1]), argv[2], argv[3], argv[4:]
    acc = {}
    for _ in range(iters):
        for path in files:
            for arm, prefix in (("base", base), ("new", new), ("base#2", base)):
                acc.setdefault((path, arm), []).extend(one(prefix, path, opens))
    print(f"{iters} iterations x {opens} opens; host CPU per open, us (median)")
    print("| file | base | new | base#2 | new/base | A/A base#2/base |")
    print("|---|---|---|---|---|---|")
    for path in files:
        m = {arm: statistics.median(acc[(path, arm)]) / 1e3 for arm in ("base", "new", "base#2")}
        print(f"| {path} | {m['base']:.1f} | {m['new']:.1f} | {m['base#2']:.1f} | "
              f"{m['new'] / m['base']:.3f} | {m['base#2'] / m['base']:.3f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
