"""bench/compare/cold.py: wall time of ringscan binaries side by side with the file's pages out
of the page cache (each run a fresh `ringscan scan` process, the file's cached pages dropped
with posix_fadvise(POSIX_FADV_DONTNEED) before it: only this file's, nothing system-wide).
Rounds are interleaved; prints each shape's median ms per binary and first/last.

  python3 bench/compare/cold.py FILE BIN[,BIN2...] [ROUNDS]

Shapes: expr_arith and lineitem_order of engines.py, at one thread, policy adaptive.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import engines as E  # noqa: E402

SHAPES = ["expr_arith", "lineitem_order"]


def evict(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def run(binary, shape, path):
    where, proj, _, _ = E.SHAPES[shape]
    cmd = [binary, "scan", path, "--columns", proj, "--where", where, "--format", "checksum",
           "--threads", "1", "--policy", "adaptive"]
    evict(path)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    ms = (time.perf_counter() - t0) * 1e3
    if p.returncode != 0:
        sys.exit(f"cold.py: {' '.join(cmd)}: exit {p.returncode}: {p.stderr[-300:]}")
    return ms, p.stdout.strip()


def main():
    path, bins = sys.argv[1], sys.argv[2].split(",")
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    ms = {(s, b): [] for s in SHAPES for b in bins}
    out = {}
    for _ in range(rounds):
        for s in SHAPES:
            for b in bins:
                t, line = run(b, s, path)
                ms[(s, b)].append(t)
                if out.setdefault(s, line) != line:
                    sys.exit(f"cold.py: {s}: {b} printed {line!r}, the first binary {out[s]!r}")
    for s in SHAPES:
        med = [statistics.median(ms[(s, b)]) for b in bins]
        print(s, " ".join(f"{m:.1f}" for m in med), f"first/last {med[0] / med[-1]:.2f}")


if __name__ == "__main__":
    main()
