"""bench/compare/compare.py: ringscan against DuckDB, DataFusion, pyarrow, Polars and Vortex on
the bench shapes (issue 7). Driven by bench/compare/run.sh, which makes the venv this runs in.

Steps (each idempotent where it makes files):
  1. data   out/data/sfN/: ringscan.parquet (`ringscan gen lineitem --layout cancel`: the 16
            TPC-H columns are the same as the tpch layout's, plus l_cancelkey for
            lineitem_cancel), tpchgen/lineitem.parquet (tpchgen-cli, its default settings),
            duckdb/lineitem.parquet (tpchgen's rows written by DuckDB's COPY ... TO (FORMAT
            parquet) with its defaults: 122,880-row groups, no page index), and each
            converted to .vortex with vortex-data (pyarrow batches -> vortex.io.write).
            --codec C (default snappy) writes ringscan's file with `--compression C` instead, as
            ringscan-C.parquet / ringscan-C.vortex, reported under out/sfN-C/: the same rows
            without snappy, to show what the codec costs each engine. --data picks the files.
  2. check  one run of every (engine, shape, dataset, threads): rows + checksum; ringscan's is
            the reference; any mismatch is printed loudly and that cell's time is dropped.
  3. time   R interleaved rounds: each round walks the cells in a shuffled order and runs every
            engine on the cell, engine order rotated per round. Peers run in-process in one
            persistent worker per (engine, threads) that was warmed up in step 2; ringscan runs
            in a warm `ringscan serve` process the same way (the figure the ratios use), and
            also as a fresh `ringscan scan` subprocess (ringscan_process: wall time of the whole
            process, start-up included; the start-up alone is measured as `ringscan version`).
  4. count  a fresh process per (engine, cell, threads) under
            `strace -f -y -e trace=openat,read,pread64,preadv,preadv2,mmap,io_uring_enter`;
            only calls on the data file's descriptors are counted (the -y path tells), so the
            interpreter's own start-up reads do not count. ringscan is counted with
            `--io pread` (its default io_uring reads are invisible to strace); its --stats reads
            of the timed (io_uring) run are recorded beside.
  5. rss    a fresh process per (engine, cell, threads) under /usr/bin/time -f %M, plus one
            no-query process per peer (import + open) as the interpreter/library baseline.
  6. report out/sfN/results.json (every figure), out/sfN/table.md (printed), out/sfN/chart.png.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import engines as E  # noqa: E402

PEERS = ["duckdb", "datafusion", "pyarrow", "polars", "vortex"]
DATASETS = ["ringscan", "tpchgen", "duckdb"]


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def sh(cmd, **kw):
    log("+", " ".join(cmd) if isinstance(cmd, list) else cmd)
    return subprocess.run(cmd, check=True, **kw)


# ---------------------------------------------------------------- data
def make_ringscan_file(sf, ddir, ringscan, codec):
    """ringscan's lineitem file (cancel layout) in ddir, made once; returns its path."""
    os.makedirs(ddir, exist_ok=True)
    stem = "ringscan" if codec == "snappy" else f"ringscan-{codec}"
    rs = os.path.join(ddir, stem + ".parquet")
    if not os.path.exists(rs):
        sh([ringscan, "gen", "lineitem", "--sf", str(sf), "--layout", "cancel",
            "--compression", codec, "-o", rs + ".tmp"], stdout=sys.stderr)
        os.rename(rs + ".tmp", rs)
    return rs


def make_tpchgen_file(sf, ddir, tg):
    """tpchgen-cli's lineitem at sf (its default settings) at tg."""
    tmp = os.path.join(ddir, "tpchgen.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    sh([os.path.join(os.path.dirname(sys.executable), "tpchgen-cli"), "parquet", "-s", str(sf),
        "--tables", "lineitem", "-o", tmp])
    os.makedirs(os.path.dirname(tg), exist_ok=True)
    os.rename(os.path.join(tmp, "lineitem.parquet"), tg)
    shutil.rmtree(tmp, ignore_errors=True)


def make_duckdb_file(sf, ddir, tg, dk):
    """The same rows as tpchgen's file, written by DuckDB with its defaults
    (COPY ... TO (FORMAT parquet): row groups of 122,880 rows, snappy, no page index)."""
    import duckdb
    if not os.path.exists(tg):
        make_tpchgen_file(sf, ddir, tg)
    os.makedirs(os.path.dirname(dk), exist_ok=True)
    duckdb.sql(f"COPY (SELECT * FROM read_parquet('{tg}')) TO '{dk}.tmp' (FORMAT parquet)")
    os.rename(dk + ".tmp", dk)


def make_data(sf, ddir, ringscan, codec, datasets=DATASETS, vortex=True):
    """The files of datasets (tpchgen's only when asked for; the .vortex copies only when
    vortex runs some chosen cell), made once; returns {dataset: {"parquet", "vortex"}}."""
    stem = "ringscan" if codec == "snappy" else f"ringscan-{codec}"
    rs = make_ringscan_file(sf, ddir, ringscan, codec)
    tg = os.path.join(ddir, "tpchgen", "lineitem.parquet")
    if "tpchgen" in datasets and not os.path.exists(tg):
        make_tpchgen_file(sf, ddir, tg)
    dk = os.path.join(ddir, "duckdb", "lineitem.parquet")
    if "duckdb" in datasets and not os.path.exists(dk):
        make_duckdb_file(sf, ddir, tg, dk)
    files = {}
    for name, pq_path in (("ringscan", rs), ("tpchgen", tg), ("duckdb", dk)):
        if name not in datasets:
            continue
        vx_path = os.path.join(ddir, (stem if name == "ringscan" else name) + ".vortex")
        if vortex and not os.path.exists(vx_path):
            import pyarrow as pa
            import pyarrow.parquet as pq
            import vortex as vx
            log(f"converting {pq_path} -> {vx_path}")
            pf = pq.ParquetFile(pq_path)
            rdr = pa.RecordBatchReader.from_batches(pf.schema_arrow, pf.iter_batches(batch_size=65536))
            vx.io.write(rdr, vx_path + ".tmp")
            os.rename(vx_path + ".tmp", vx_path)
        files[name] = {"parquet": pq_path, "vortex": vx_path}
    return files


def cells(datasets):
    out = []
    for shape in E.SHAPE_ORDER:
        for ds in datasets:
            if E.SHAPES[shape][3] == "cancel" and ds != "ringscan":
                continue  # only the cancel-layout file has l_cancelkey
            out.append((shape, ds))
    return out


def file_for(files, engine, ds):
    return files[ds]["vortex" if engine == "vortex" else "parquet"]


# ---------------------------------------------------------------- ringscan
def rs_cmd(args, shape, path, threads, io=None, stats=False, fmt="checksum"):
    where, proj, _, _ = E.SHAPES[shape]
    cmd = [args.ringscan, "scan", path, "--columns", proj] + (["--where", where] if where else [])
    if shape in E.TOPK:
        cmd += ["--order-by", E.order_sql(shape), "--limit", str(E.TOPK[shape][1])]
    cmd += ["--format", fmt, "--threads", str(threads)]
    if args.policy:
        cmd += ["--policy", args.policy]
    if io:
        cmd += ["--io", io]
    if stats:
        cmd += ["--stats=json"]
    return cmd


def rs_run(args, shape, path, threads, stats=False, timeout=None):
    cmd = rs_cmd(args, shape, path, threads, stats=stats)
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s: {' '.join(cmd)}"}
    secs = time.perf_counter() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    if p.returncode != 0:
        return {"error": f"exit {p.returncode}: {p.stderr.strip()[:500]}"}
    m = re.search(r"rows (\d+) checksum (\d+)", p.stdout)
    if not m:
        return {"error": f"unparsed output: {p.stdout[:200]}"}
    out = {"rows": int(m.group(1)), "checksum": m.group(2), "secs": secs, "cpu": cpu}
    if stats:
        try:
            out["stats"] = json.loads(p.stderr.strip().splitlines()[-1])
        except Exception:
            out["stats_error"] = p.stderr[:300]
    return out


def rs_seq(args, shape, path, threads):
    """ringscan's Top-K rows as CSV lines (`--format csv`), their digest (engines.seq_digest),
    and whether ringscan's own order is right: each row's keys after the previous row's (a
    strict order: the keys end with lineitem's primary key)."""
    cmd = rs_cmd(args, shape, path, threads, fmt="csv")
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return {"error": f"exit {p.returncode}: {p.stderr.strip()[:500]}"}
    lines = p.stdout.splitlines()
    head, rows = lines[0].split(","), lines[1:]
    keys, _ = E.TOPK[shape]

    def key(line):
        v = line.split(",")
        out = []
        for c, desc in keys:
            x = v[head.index(c)]
            x = x if "-" in x else float(x)  # dates compare as ISO text, the rest as numbers
            out.append(x)
        return out

    def before(a, b):  # a strictly before b in the ORDER BY
        for (x, y), (_, desc) in zip(zip(key(a), key(b)), keys):
            if x != y:
                return (x > y) if desc else (x < y)
        return False
    ordered = all(before(a, b) for a, b in zip(rows, rows[1:]))
    return {"seq": E.seq_digest(rows), "seq_rows": len(rows), "seq_ordered": ordered,
            "seq_head": rows[:3]}


def read_reply(p, timeout):
    """One line from process p's stdout; None once it has closed it or (timeout seconds, when
    given) has not answered, in which case it is killed."""
    if timeout is not None:
        import select
        ready, _, _ = select.select([p.stdout], [], [], timeout)
        if not ready:
            p.kill()
            return None
    return p.stdout.readline() or None


class RsWorker:
    """A warm `ringscan serve` process: each scan is timed inside it (open..last batch, the
    batches kept and checksummed after the timer), as the peers' queries are timed inside their
    persistent workers (result table built inside the timer, checksummed after)."""

    def __init__(self, args, timeout=None):
        self.args = args
        self.timeout = timeout
        self.p = subprocess.Popen([args.ringscan, "serve"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def run(self, shape, path, threads):
        argv = rs_cmd(self.args, shape, path, threads)[2:]  # without "ringscan scan"
        self.p.stdin.write("\t".join(argv) + "\n")
        self.p.stdin.flush()
        line = read_reply(self.p, self.timeout)
        if not line:
            return {"error": "ringscan serve died or timed out"}
        r = json.loads(line)
        if r["rc"] != 0:
            return {"error": f"ringscan serve: exit status {r['rc']}"}
        return {"rows": r["rows"], "checksum": r["checksum"], "secs": r["secs"], "cpu": r["cpu"]}

    def close(self):
        self.p.stdin.close()
        self.p.wait()


# ---------------------------------------------------------------- peer workers
class Worker:
    """A persistent peer process (`SCRIPT worker ENGINE THREADS`; SCRIPT is engines.py, or
    http.py for the HTTP adapters); a reply that takes over timeout seconds kills it."""

    def __init__(self, engine, threads, script=None, timeout=None):
        env = dict(os.environ, POLARS_MAX_THREADS=str(threads))
        self.timeout = timeout
        self.p = subprocess.Popen([sys.executable, script or os.path.join(HERE, "engines.py"),
                                   "worker", engine, str(threads)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, env=env)
        hello = json.loads(self.p.stdout.readline())
        self.version = hello["version"]

    def run(self, shape, path, checksum=False):
        if self.p.poll() is not None:
            return {"error": "worker died (or was killed after a timeout)"}
        self.p.stdin.write(json.dumps({"shape": shape, "file": path, "checksum": checksum}) + "\n")
        self.p.stdin.flush()
        line = read_reply(self.p, self.timeout)
        if not line:
            return {"error": f"worker died or gave no answer within {self.timeout} s"}
        return json.loads(line)

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def peer_cmd(engine, threads, shape, path, noop=False, script=None):
    cmd = [sys.executable, script or os.path.join(HERE, "engines.py"), "oneshot", engine,
           str(threads), shape, path]
    return cmd + (["--noop"] if noop else [])


def peer_env(threads):
    return dict(os.environ, POLARS_MAX_THREADS=str(threads))


# ---------------------------------------------------------------- strace counting
LINE = re.compile(r"^(?:\[pid\s+)?(\d+)\]?\s+(.*)$")
CALL = re.compile(r"^(\w+)\((\d+)<([^>]*)>")
RET = re.compile(r"=\s+(-?\d+)")


def count_syscalls(cmd, env, data_path, tmp):
    log_path = tmp + ".strace"
    full = ["strace", "-f", "-y", "-o", log_path, "-e",
            "trace=openat,read,pread64,preadv,preadv2,mmap,io_uring_enter,io_uring_setup"] + cmd
    p = subprocess.run(full, capture_output=True, text=True, env=env)
    res = {"reads": 0, "bytes": 0, "by_call": {}, "mmap_data_file": 0, "io_uring_enter": 0,
           "io_uring_setup": 0, "all_read_calls": 0, "exit": p.returncode}
    real = os.path.realpath(data_path)
    pending = {}
    with open(log_path) as f:
        for raw in f:
            m = LINE.match(raw.rstrip("\n"))
            if not m:
                continue
            pid, rest = m.group(1), m.group(2)
            if rest.startswith("<..."):
                name = rest.split()[1]
                if (pid, name) not in pending:
                    continue
                path = pending.pop((pid, name))
                r = RET.search(rest.rsplit(")", 1)[-1] if ")" in rest else rest)
            else:
                c = CALL.match(rest)
                name = rest.split("(", 1)[0]
                if name in ("io_uring_enter", "io_uring_setup"):
                    res[name] += 1
                if name in ("read", "pread64", "preadv", "preadv2"):
                    res["all_read_calls"] += 1
                if name == "mmap":
                    if f"<{real}>" in rest:
                        res["mmap_data_file"] += 1
                    continue
                if not c:
                    continue
                path = c.group(3)
                if "<unfinished" in rest:
                    pending[(pid, name)] = path
                    continue
                r = RET.search(rest.rsplit(")", 1)[-1])
            if path != real and not path.endswith(os.path.basename(real)):
                continue
            if name == "mmap":
                res["mmap_data_file"] += 1
            elif name in ("read", "pread64", "preadv", "preadv2"):
                res["reads"] += 1
                res["by_call"][name] = res["by_call"].get(name, 0) + 1
                if r and int(r.group(1)) > 0:
                    res["bytes"] += int(r.group(1))
    os.unlink(log_path)
    if p.returncode != 0:
        res["stderr"] = p.stderr[-500:]
    res["stdout"] = p.stdout.strip()[-300:]
    return res


def peak_rss(cmd, env):
    p = subprocess.run(["/usr/bin/time", "-f", "RSSKB %M"] + cmd, capture_output=True, text=True,
                       env=env)
    m = re.findall(r"RSSKB (\d+)", p.stderr)
    return {"rss_kb": int(m[-1]) if m else None, "exit": p.returncode}


# ---------------------------------------------------------------- report
def fmt_ms(s):
    return "-" if s is None else f"{s * 1000:.1f}"


def ratio(a, b):
    return None if (a is None or b is None or b == 0) else a / b


def fmt_r(r):
    return "-" if r is None else f"{r:.2f}"


def time_table(R, t, engines, key, mismatch, title):
    """Lines of one median table (key: "median" wall or "cpu_median"), peers as ratios to
    ringscan; mismatch is the cell text of an excluded sample ({} = why)."""
    lines = [title, "| shape | data | " + " | ".join(engines) + " |",
             "|---|---|" + "---|" * len(engines)]
    for shape, ds in R["cells"]:
        cell = R["time"][t].get(f"{shape}|{ds}", {})
        base = cell.get("ringscan", {}).get(key)
        row = [shape, ds]
        for e in engines:
            d = cell.get(e, {})
            med = d.get(key)
            if d.get("excluded"):
                row.append(mismatch.format(d["excluded"]))
            elif e == "ringscan":
                row.append(fmt_ms(med))
            else:
                row.append(f"{fmt_ms(med)} ({fmt_r(ratio(med, base))})")
        lines.append("| " + " | ".join(row) + " |")
    return lines


def build_tables(R, threads_list):
    lines = []
    engines = ["ringscan"] + R["peers"]
    tengines = ["ringscan", "ringscan_process"] + R["peers"]
    for th in threads_list:
        t = str(th)
        lines += time_table(R, t, tengines, "median", "MISMATCH ({})",
                            f"\n### sf={R['sf']}, threads={th}: median wall ms (ratio = peer / "
                            f"ringscan; > 1 means ringscan faster; ringscan and the peers timed in "
                            f"warm worker processes; ringscan_process: a fresh `ringscan scan` "
                            f"process, start-up included)\n")
        lines += time_table(R, t, tengines, "cpu_median", "MISMATCH",
                            f"\n### sf={R['sf']}, threads={th}: median CPU ms (user+sys, all "
                            f"threads; ratio = peer / ringscan)\n")
        lines.append(f"\n### sf={R['sf']}, threads={th}: read calls on the data file / MB read "
                     f"(ratio = peer reads / ringscan reads; mmap = engine maps the file)\n")
        lines.append("| shape | data | " + " | ".join(engines) + " |")
        lines.append("|---|---|" + "---|" * len(engines))
        for shape, ds in R["cells"]:
            k = f"{shape}|{ds}"
            base = R["count"][t].get(k, {}).get("ringscan", {}).get("reads")
            row = [shape, ds]
            for e in engines:
                d = R["count"][t].get(k, {}).get(e)
                if not d:
                    row.append("-")
                    continue
                s = f"{d['reads']} / {d['bytes'] / 1e6:.1f}"
                if d.get("mmap_data_file"):
                    s += f" +mmap{d['mmap_data_file']}"
                if e != "ringscan":
                    s += f" ({fmt_r(ratio(d['reads'], base))})"
                row.append(s)
            lines.append("| " + " | ".join(row) + " |")
        lines.append(f"\n### sf={R['sf']}, threads={th}: peak RSS MB (fresh process, one query; "
                     f"baseline = import + open, no query)\n")
        lines.append("| shape | data | " + " | ".join(engines) + " |")
        lines.append("|---|---|" + "---|" * len(engines))
        bl = ["baseline", "-"] + [
            ("-" if R["rss"][t].get("baseline", {}).get(e) is None
             else f"{R['rss'][t]['baseline'][e] / 1024:.0f}") for e in engines]
        lines.append("| " + " | ".join(bl) + " |")
        for shape, ds in R["cells"]:
            k = f"{shape}|{ds}"
            row = [shape, ds]
            for e in engines:
                v = R["rss"][t].get(k, {}).get(e)
                row.append("-" if v is None else f"{v / 1024:.0f}")
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def chart(R, threads_list, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    peers = R["peers"]
    fig, axes = plt.subplots(len(threads_list), 1, figsize=(14, 4.5 * len(threads_list)),
                             squeeze=False)
    for ax, th in zip(axes[:, 0], threads_list):
        t = str(th)
        labels = [f"{s.replace('lineitem_', '')}\n{d}" for s, d in R["cells"]]
        w = 0.8 / len(peers)
        for i, e in enumerate(peers):
            ys = []
            for shape, ds in R["cells"]:
                k = f"{shape}|{ds}"
                base = R["time"][t].get(k, {}).get("ringscan", {}).get("median")
                d = R["time"][t].get(k, {}).get(e, {})
                r = None if d.get("excluded") else ratio(d.get("median"), base)
                ys.append(r if r else 0)
            ax.bar([j + i * w for j in range(len(labels))], ys, w, label=e)
        ax.axhline(1.0, color="k", lw=1)
        ax.set_yscale("log")
        ax.set_xticks([j + 0.4 - w / 2 for j in range(len(labels))])
        ax.set_xticklabels(labels, fontsize=7)
        ax.set_ylabel("peer time / ringscan time")
        ax.set_title(f"sf={R['sf']} threads={th} (above 1: ringscan faster)")
        ax.legend(fontsize=8, ncol=len(peers))
    fig.tight_layout()
    fig.savefig(path, dpi=110)


# ---------------------------------------------------------------- main
def machine():
    cpu = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = ""
    with open("/proc/meminfo") as f:
        mem = f.readline().split(":", 1)[1].strip()
    return {"nproc": os.cpu_count(), "cpu": cpu, "mem_total": mem, "kernel": platform.release(),
            "python": platform.python_version()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--engines", default=",".join(PEERS))
    ap.add_argument("--shapes", default=",".join(E.SHAPE_ORDER))
    ap.add_argument("--ringscan", required=True)
    ap.add_argument("--policy", default="adaptive", help="ringscan --policy ('' = its default)")
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--skip-count", action="store_true")
    ap.add_argument("--skip-rss", action="store_true")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--codec", default="snappy", choices=["snappy", "none", "zstd", "lz4", "gzip"],
                    help="compression of ringscan's generated file (tpchgen's keeps its own)")
    ap.add_argument("--data", default=",".join(DATASETS), help="files to run: ringscan,tpchgen,duckdb (the tpchgen rows "
                    "written by DuckDB's COPY with its defaults)")
    args = ap.parse_args()
    threads_list = [int(x) for x in args.threads.split(",")]
    peers = [e for e in args.engines.split(",") if e]
    shapes = set(args.shapes.split(","))
    datasets = [d for d in args.data.split(",") if d]
    if not datasets or any(d not in DATASETS for d in datasets):
        ap.error(f"--data takes a list of {','.join(DATASETS)}")
    outdir = os.path.join(args.out, f"sf{args.sf}" + ("" if args.codec == "snappy" else f"-{args.codec}"))
    os.makedirs(outdir, exist_ok=True)
    cl = [c for c in cells(datasets) if c[0] in shapes]
    files = make_data(args.sf, os.path.join(args.out, "data", f"sf{args.sf}"), args.ringscan,
                      args.codec, datasets,
                      vortex="vortex" in peers and any(E.runs("vortex", s) for s, _ in cl))
    peers = [e for e in peers if any(E.runs(e, s) for s, _ in cl)]  # no worker with no cell
    R = {"sf": args.sf, "rounds": args.rounds, "threads": threads_list, "peers": peers,
         "cells": cl, "files": files, "machine": machine(),
         "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "argv": sys.argv,
         "ringscan_policy": args.policy or "default", "ringscan_codec": args.codec,
         "versions": {}, "check": {},
         "time": {}, "count": {}, "rss": {}, "mismatches": [], "errors": []}
    R["versions"]["ringscan"] = subprocess.run([args.ringscan, "version"], capture_output=True,
                                               text=True).stdout.strip()
    st = []
    for _ in range(20):
        t0 = time.perf_counter()
        subprocess.run([args.ringscan, "version"], capture_output=True)
        st.append(time.perf_counter() - t0)
    R["ringscan_startup_ms"] = statistics.median(st) * 1000
    rng = random.Random(args.seed)
    for th in threads_list:
        t = str(th)
        R["check"][t], R["time"][t] = {}, {}
        workers = {}
        for e in peers:
            try:
                workers[e] = Worker(e, th)
                R["versions"][e] = workers[e].version
            except Exception as ex:
                R["errors"].append(f"{e} threads={th}: worker failed: {ex}")
                log("ERROR", R["errors"][-1])
        # step 2: check (also the warm-up)
        bad = set()
        for shape, ds in cl:
            k = f"{shape}|{ds}"
            ref = rs_run(args, shape, files[ds]["parquet"], th, stats=True)
            R["check"][t][k] = {"ringscan": ref}
            if "error" in ref:
                R["errors"].append(f"ringscan {k} threads={th}: {ref['error']}")
                log("ERROR", R["errors"][-1])
            if shape in E.TOPK:  # row for row: ringscan's CSV rows, their order checked
                ref.update(rs_seq(args, shape, files[ds]["parquet"], th))
                if "error" in ref or not ref["seq_ordered"] or ref["seq_rows"] != ref["rows"]:
                    msg = f"MISMATCH ringscan --format csv {k} threads={th}: {ref}"
                    R["mismatches"].append(msg)
                    bad.add((k, "ringscan"))
                    log("!" * 20, msg)
            for e, w in workers.items():
                if not E.runs(e, shape):
                    continue
                r = w.run(shape, file_for(files, e, ds), checksum=True)
                R["check"][t][k][e] = r
                if "error" in r or "error" in ref or r["rows"] != ref["rows"] or \
                        r["checksum"] != ref["checksum"] or r.get("seq") != ref.get("seq"):
                    msg = (f"MISMATCH sf={args.sf} threads={th} {k} {e}: "
                           f"{r.get('error') or (r['rows'], r['checksum'], r.get('seq_head'))} "
                           f"vs ringscan {ref.get('error') or (ref['rows'], ref['checksum'], ref.get('seq_head'))}")
                    R["mismatches"].append(msg)
                    bad.add((k, e))
                    log("!" * 20, msg)
        # step 3: interleaved rounds; ringscan is timed twice per cell: in its warm worker
        # (like the peers, the figure the ratios use) and as a fresh process (start-up included)
        rsw = RsWorker(args)
        for shape, ds in cl:  # warm-up, and the worker must agree with the check run
            r = rsw.run(shape, files[ds]["parquet"], th)
            ref = R["check"][t][f"{shape}|{ds}"]["ringscan"]
            if "error" in r or r["rows"] != ref.get("rows") or r["checksum"] != ref.get("checksum"):
                msg = f"MISMATCH ringscan serve vs ringscan scan {shape}|{ds} threads={th}: {r}"
                R["mismatches"].append(msg)
                bad.add((f"{shape}|{ds}", "ringscan"))
                log("!" * 20, msg)
        samples, cpus = {}, {}
        for rnd in range(args.rounds):
            order = cl[:]
            rng.shuffle(order)
            engs = ["ringscan"] + list(workers)
            rot = rnd % len(engs)
            engs = engs[rot:] + engs[:rot]
            for shape, ds in order:
                k = f"{shape}|{ds}"
                for e in engs:
                    if not E.runs(e, shape):
                        continue
                    if e == "ringscan":
                        rp = rs_run(args, shape, files[ds]["parquet"], th)
                        if "error" not in rp:
                            samples.setdefault(k, {}).setdefault("ringscan_process", []).append(rp["secs"])
                            cpus.setdefault(k, {}).setdefault("ringscan_process", []).append(rp["cpu"])
                        r = rsw.run(shape, files[ds]["parquet"], th)
                        ref_rows = R["check"][t][k]["ringscan"].get("rows")
                    else:
                        r = workers[e].run(shape, file_for(files, e, ds))
                        ref_rows = R["check"][t][k]["ringscan"].get("rows")
                    if "error" in r or r["rows"] != ref_rows:
                        bad.add((k, e))
                        msg = f"MISMATCH in round {rnd} {k} {e} threads={th}: {r}"
                        R["mismatches"].append(msg)
                        log("!" * 20, msg)
                        continue
                    samples.setdefault(k, {}).setdefault(e, []).append(r["secs"])
                    cpus.setdefault(k, {}).setdefault(e, []).append(r.get("cpu"))
            R.setdefault("loadavg", []).append([th, rnd, os.getloadavg()])
            log(f"threads={th} round {rnd + 1}/{args.rounds} done, loadavg {os.getloadavg()}")
        for w in workers.values():
            w.close()
        rsw.close()
        for shape, ds in cl:
            k = f"{shape}|{ds}"
            R["time"][t][k] = {}
            for e in ["ringscan", "ringscan_process"] + list(workers):
                if not E.runs(e, shape):
                    continue
                xs = samples.get(k, {}).get(e, [])
                cs = [c for c in cpus.get(k, {}).get(e, []) if c is not None]
                d = {"samples": xs, "median": statistics.median(xs) if xs else None,
                     "cpu_samples": cs, "cpu_median": statistics.median(cs) if cs else None}
                if (k, e) in bad:
                    d["excluded"] = "rows/checksum differ or error"
                    d["median"] = d["cpu_median"] = None
                R["time"][t][k][e] = d
        # step 4: syscall counts
        R["count"][t] = {}
        if not args.skip_count:
            for shape, ds in cl:
                k = f"{shape}|{ds}"
                R["count"][t][k] = {}
                p = files[ds]["parquet"]
                c = count_syscalls(rs_cmd(args, shape, p, th, io="pread"), None, p,
                                   os.path.join(outdir, "tmp"))
                c["stats_uring_run"] = R["check"][t][k]["ringscan"].get("stats")
                R["count"][t][k]["ringscan"] = c
                for e in workers:
                    if not E.runs(e, shape):
                        continue
                    f = file_for(files, e, ds)
                    R["count"][t][k][e] = count_syscalls(peer_cmd(e, th, shape, f), peer_env(th), f,
                                                         os.path.join(outdir, "tmp"))
                log(f"counted {k} threads={th}")
        # step 5: peak RSS
        R["rss"][t] = {"baseline": {}}
        if not args.skip_rss:
            R["rss"][t]["baseline"]["ringscan"] = peak_rss([args.ringscan, "version"], None)["rss_kb"]
            for e in workers:
                f = file_for(files, e, "ringscan")
                R["rss"][t]["baseline"][e] = peak_rss(peer_cmd(e, th, "lineitem", f, noop=True),
                                                      peer_env(th))["rss_kb"]
            for shape, ds in cl:
                k = f"{shape}|{ds}"
                p = files[ds]["parquet"]
                R["rss"][t][k] = {"ringscan": peak_rss(rs_cmd(args, shape, p, th), None)["rss_kb"]}
                for e in workers:
                    if not E.runs(e, shape):
                        continue
                    f = file_for(files, e, ds)
                    R["rss"][t][k][e] = peak_rss(peer_cmd(e, th, shape, f), peer_env(th))["rss_kb"]
            log(f"rss threads={th} done")
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump(R, f, indent=1)
    table = build_tables(R, threads_list)
    head = (f"sf={args.sf} rounds={args.rounds} threads={args.threads} ringscan policy="
            f"{R['ringscan_policy']} ringscan file codec={R['ringscan_codec']} "
            f"ringscan start-up (ringscan version) median "
            f"{R['ringscan_startup_ms']:.2f} ms\nversions: {json.dumps(R['versions'])}\n"
            f"machine: {json.dumps(R['machine'])}\ndate: {R['date']}\n")
    mm = "\nMISMATCHES:\n" + "\n".join(R["mismatches"]) + "\n" if R["mismatches"] else \
        "\nall engines agree with ringscan on rows and checksum in every cell\n"
    tk = sorted({s for s, _ in cl if s in E.TOPK})
    if tk:
        mm += ("Top-K cells (" + "; ".join(f"{s}: ORDER BY {E.order_sql(s)} LIMIT {E.TOPK[s][1]}"
                                           for s in tk) +
               ") are compared row for row: the keys end with lineitem's primary key, so the "
               "answer is unique; each engine's rows, in order, as CSV lines, hash to the same "
               "digest as ringscan's `--format csv` rows, whose order is checked too" +
               (f"; not run on {', '.join(sorted(E.NO_TOPK & set(R['peers'])))} (no Top-K "
                f"adapter)" if E.NO_TOPK & set(R["peers"]) else "") + "\n")
    er = ("\nERRORS:\n" + "\n".join(R["errors"]) + "\n") if R["errors"] else ""
    with open(os.path.join(outdir, "table.md"), "w") as f:
        f.write(head + mm + er + table)
    try:
        chart(R, threads_list, os.path.join(outdir, "chart.png"))
    except Exception as ex:
        log("chart failed:", ex)
    print(head + mm + er + table)


if __name__ == "__main__":
    main()
