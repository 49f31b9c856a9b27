"""bench/dataset_ab.py: two (or more) ringscan binaries side by side on dataset scans, in
interleaved rounds (the arm order rotated each round), each run a fresh process
(`ringscan scan DIR ... --format checksum`): start-up included, which is what a dataset of
many files pays per file. Prints per (query, threads) the median wall time of each arm with
its min-max and the median CPU time (user + system) of its process, which a loaded machine
disturbs less, and checks every arm returned the same rows and checksum.

Usage: python bench/dataset_ab.py --rounds 7 NAME=BINARY ... -- CASE ...
  CASE: LABEL|DIR|ARGS (ARGS split as a shell would; --threads is added from --threads)
Example (bench/RESULTS.md, twentieth session):
  python bench/dataset_ab.py --rounds 7 --threads 1,2 base=/tmp/ds-base/bin/ringscan \\
      aa=/tmp/ds-base/bin/ringscan-aa new=/tmp/ds-new/bin/ringscan -- \\
      "part|/tmp/dsbench/ds1|--where year=1995 --columns l_orderkey,l_extendedprice,l_shipdate"
"""
import resource
import shlex
import statistics
import subprocess
import sys
import time


def main(argv):
    rounds, threads, arms, cases = 7, ["2"], [], []
    it = iter(argv)
    for a in it:
        if a == "--rounds":
            rounds = int(next(it))
        elif a == "--threads":
            threads = next(it).split(",")
        elif a == "--":
            cases = [c.split("|", 2) for c in it]
        else:
            name, binary = a.split("=", 1)
            arms.append((name, binary))
    if not arms or not cases:
        sys.exit(__doc__)
    times, outs, cpus = {}, {}, {}
    for r in range(rounds):
        for label, d, args in cases:
            for t in threads:
                order = arms[r % len(arms):] + arms[:r % len(arms)]
                for name, binary in order:
                    cmd = [binary, "scan", d, "--format", "checksum", "--threads", t] + shlex.split(args)
                    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                    t0 = time.perf_counter()
                    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
                    dt = time.perf_counter() - t0
                    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
                    cpus.setdefault((label, t, name), []).append(cpu)
                    if p.returncode != 0:
                        sys.exit(f"{name} {label}: exit {p.returncode}: {p.stderr[-300:]}")
                    times.setdefault((label, t, name), []).append(dt)
                    outs.setdefault((label, t), set()).add(p.stdout.strip())
    print("| query | threads | " + " | ".join(f"{n}: wall (s), cpu" for n, _ in arms) + " | rows, checksum |")
    print("|---|---|" + "---|" * len(arms) + "---|")
    for label, d, args in cases:
        for t in threads:
            o = outs[(label, t)]
            if len(o) != 1:
                sys.exit(f"{label} threads {t}: the arms differ: {o}")
            cells = []
            for name, _ in arms:
                v = times[(label, t, name)]
                c = statistics.median(cpus[(label, t, name)])
                cells.append(f"{statistics.median(v):.3f} ({min(v):.3f}-{max(v):.3f}), cpu {c:.3f}")
            print(f"| {label} | {t} | " + " | ".join(cells) + f" | {next(iter(o))} |")


if __name__ == "__main__":
    main(sys.argv[1:])
