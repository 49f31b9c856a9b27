"""bench/compare/serve_ab.py: one `ringscan scan` query timed in warm `ringscan serve`
processes of several binaries side by side (base, new, an A/A copy of base), interleaved.

    python bench/compare/serve_ab.py ROUNDS REPS FILE THREADS NAME=BINARY... -- SCAN OPTIONS

Each round runs every arm REPS times, the arms' order rotated by one per round, after three
warm-up scans per arm. Prints per arm the median wall time and process CPU of the scans as
`ringscan serve` reports them (open..last batch), the ratio to the first arm, the rows and
checksum (which must agree), and the host's CPU busy share over the timed runs (/proc/stat:
the load the other processes put on the machine). An arm NAME=BINARY::--opt::value appends
those options to its own queries (mmap=BIN::--read-mode::mmap: one binary, two read modes)."""
import json
import os
import statistics
import subprocess
import sys


def host_ticks():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return sum(v), v[3] + v[4]  # all, idle + iowait


def main():
    rounds, reps, path, threads = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    cut = sys.argv.index("--")
    arms = [a.split("=", 1) for a in sys.argv[5:cut]]
    extra = {n: b.split("::")[1:] for n, b in arms}  # NAME=BINARY::--opt::value: the arm's options
    arms = [(n, b.split("::")[0]) for n, b in arms]
    argv = [path] + sys.argv[cut + 1:] + ["--threads", threads]
    procs = {n: subprocess.Popen([b, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True) for n, b in arms}

    def run(name):
        p = procs[name]
        p.stdin.write("\t".join(argv + extra[name]) + "\n")
        p.stdin.flush()
        r = json.loads(p.stdout.readline())
        if r["rc"] != 0:
            sys.exit(f"{name}: ringscan serve exit status {r['rc']}")
        return r

    secs = {n: [] for n, _ in arms}
    cpu = {n: [] for n, _ in arms}
    answer = {}
    for n, _ in arms:
        for _ in range(3):
            r = run(n)
        answer[n] = (r["rows"], r["checksum"])
    t0, i0 = host_ticks()
    for k in range(rounds):
        for n, _ in arms[k % len(arms):] + arms[:k % len(arms)]:
            for _ in range(reps):
                r = run(n)
                secs[n].append(r["secs"] * 1e3)
                cpu[n].append(r["cpu"] * 1e3)
    t1, i1 = host_ticks()
    first = statistics.median(secs[arms[0][0]])
    for n, _ in arms:
        m = statistics.median(secs[n])
        print(f"{n:6s} median {m:7.3f} ms  cpu {statistics.median(cpu[n]):7.3f} ms  "
              f"ratio/{arms[0][0]} {m / first:5.3f}  rows {answer[n][0]} checksum {answer[n][1]}")
    busy = 1 - (i1 - i0) / max(1, t1 - t0)
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"host CPU busy over the runs: {busy * 100:.0f}% of {os.cpu_count()} CPUs; "
          f"load average {load}")
    for p in procs.values():
        p.stdin.close()
        p.wait()


if __name__ == "__main__":
    main()
