"""bench/compare/cpu.py: CPU time (user + system, every thread of the process) per shape of
ringscan beside peers, each in a warm worker process at one thread, rounds interleaved.

On a machine shared with other jobs, wall time is noisy and CPU time much less so: this is the
measure bench/RESULTS.md's twentieth session uses. ringscan runs in `ringscan serve` (its
"cpu" covers open..last batch), peers in engines.py workers (time.process_time() around the
query, POLARS_MAX_THREADS / DuckDB threads / ... set to THREADS). Checksums of every run are
compared with ringscan's; a mismatch is reported and its figure left out.

  .tools/compare-venv/bin/python bench/compare/cpu.py --ringscan BIN[,BIN2] --file F
        [--engines polars,duckdb] [--shapes a,b] [--rounds 9] [--threads 1]

Several ringscan binaries (comma-separated) are measured in the same interleaved rounds (base
beside new). Prints one line per shape: median CPU ms of each, and each one's ratio to the last ringscan
binary given (> 1: that one faster); then the same for wall time.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare as C  # noqa: E402
import engines as E  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ringscan", required=True, help="binary, or several comma-separated")
    ap.add_argument("--file", required=True)
    ap.add_argument("--engines", default="polars,duckdb")
    ap.add_argument("--shapes", default=",".join(s for s in E.SHAPE_ORDER
                                                  if E.SHAPES[s][3] == "tpch"))
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--policy", default="adaptive")
    args = ap.parse_args()
    shapes = args.shapes.split(",")
    bins = args.ringscan.split(",")
    names = [f"rs{i}" for i in range(len(bins))]
    workers = {}
    for n, b in zip(names, bins):
        a = argparse.Namespace(ringscan=b, policy=args.policy)
        workers[n] = C.RsWorker(a, timeout=300)
    peers = [e for e in args.engines.split(",") if e]
    for e in peers:
        workers[e] = C.Worker(e, args.threads, timeout=300)
    cpu = {(w, s): [] for w in workers for s in shapes}
    wall = {(w, s): [] for w in workers for s in shapes}
    ref = {}
    for w in workers:  # warm-up round, checksums of reference
        for s in shapes:
            if w in peers and not E.runs(w, s):
                continue
            r = (workers[w].run(s, args.file, args.threads) if w in names
                 else workers[w].run(s, args.file, checksum=True))
            if "error" in r:
                print(f"{w} {s}: {r['error']}", file=sys.stderr)
                continue
            if w in names:
                ref.setdefault(s, r["checksum"])
                if r["checksum"] != ref[s]:
                    print(f"{w} {s}: checksum {r['checksum']} != {ref[s]}", file=sys.stderr)
            elif r.get("checksum") != ref.get(s):
                print(f"{w} {s}: checksum {r.get('checksum')} != ringscan's {ref.get(s)}",
                      file=sys.stderr)
    for _ in range(args.rounds):
        for s in shapes:
            for w in workers:
                if w in peers and not E.runs(w, s):
                    continue
                r = (workers[w].run(s, args.file, args.threads) if w in names
                     else workers[w].run(s, args.file))
                if "error" not in r:
                    cpu[(w, s)].append(r["cpu"] * 1000)
                    wall[(w, s)].append(r["secs"] * 1000)
    for w in workers.values():
        w.close()
    cols = names + peers
    ref = names[-1]  # ratios against the last ringscan binary given (the new one)
    for title, m in (("CPU", cpu), ("wall", wall)):
        print(f"{title} ms, median of {args.rounds}, {args.threads} thread(s); ratio = x / {ref}")
        print("shape " + " ".join(f"{c:>9}" for c in cols) + "  " +
              " ".join(f"{c}/{ref}" for c in cols if c != ref))
        for s in shapes:
            med = {c: statistics.median(m[(c, s)]) if m[(c, s)] else float("nan") for c in cols}
            print(f"{s} " + " ".join(f"{med[c]:9.1f}" for c in cols) + "  " +
                  " ".join(f"{med[c] / med[ref]:.2f}" for c in cols if c != ref), flush=True)

if __name__ == "__main__":
    main()
