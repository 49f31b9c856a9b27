"""bench/nested_flat/run.py RINGSCAN ROUNDS THREADS: interleaved rounds (the order rotated)
of `ringscan scan F --columns id,price,qty,name --format checksum --stats` on make.py's file
with nested columns, the file without them, and the latter again (A/A). Medians of wall and
child CPU (getrusage); the checksum and bytes_read of each arm."""
import os, resource, statistics, subprocess, sys, time
R = sys.argv[1]; rounds = int(sys.argv[2]); threads = sys.argv[3]
arms = [("nested", "/tmp/nested_flat/nested.parquet"), ("flat", "/tmp/nested_flat/flat.parquet"),
        ("flat_aa", "/tmp/nested_flat/flat.parquet")]
res = {a: [] for a, _ in arms}
outs = {}
for r in range(rounds):
    order = arms[r % 3:] + arms[:r % 3]
    for name, f in order:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        p = subprocess.run([R, "scan", f, "--columns", "id,price,qty,name", "--format", "checksum",
                            "--threads", threads, "--stats"], capture_output=True, text=True)
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        assert p.returncode == 0, p.stderr
        outs.setdefault(name, (p.stdout.strip(), [x for x in p.stderr.split(",") if "bytes_read" in x or " reads " in x]))
        res[name].append((wall, cpu))
for name, _ in arms:
    w = statistics.median(x[0] for x in res[name]); c = statistics.median(x[1] for x in res[name])
    print(f"{name:8s} wall {w * 1000:7.1f} ms  cpu {c * 1000:7.1f} ms  {outs[name][0]}  {' '.join(s.strip() for s in outs[name][1])[:120]}")
