"""bench/compare/http_peers.py: ringscan and its peers on the nginx path (issue 20): every engine
reads the same lineitem file over HTTP range GETs from nginx, behind tests/cli/fault_proxy.py
(--latency-ms per request, --bw per connection). Driven by bench/compare/run_http.sh, which makes
the venv, starts nginx and the proxy on loopback ports and stops them at exit. (Not named http.py:
that would shadow the standard library's http package for everything imported from here.)

How each engine reads the URL, configured afresh for every query (no cache between queries):
  ringscan  `ringscan serve` (warm process, one scan per line, like compare.py) and a fresh
            `ringscan scan URL` process per query (ringscan_process: start-up included); its own
            HTTP backend (libcurl), its defaults, --policy adaptive, --threads T.
  duckdb    1.4.4 with httpfs from PyPI duckdb-ext-httpfs (the wheel ships
            duckdb_ext/extensions/v1.4.4/<platform>/httpfs.duckdb_extension: that folder is the
            connection's extension_directory, autoinstall/autoload off, then `LOAD httpfs`).
            Per query a new duckdb.connect() (a new in-memory database, so its external file
            cache and HTTP state start empty), SET threads=T, LOAD httpfs: all of that before
            the timer; the timer covers read_parquet('URL') ... -> Arrow table.
  pyarrow   pyarrow.dataset over pyarrow.fs.PyFileSystem(FSSpecHandler(HTTPFileSystem(
            skip_instance_cache=True, use_listings_cache=False))): a new fsspec filesystem per
            query (made before the timer; fsspec would otherwise hand back its cached instance),
            fsspec's default file cache within one query (cache_type "bytes": each read plus
            5 MiB of readahead), pyarrow's default I/O pool (8 threads: compare.py's
            set_io_thread_count(T) would cap HTTP requests in flight at T), set_cpu_count(T).
  polars    pl.scan_parquet("URL").filter(...).select(...).collect(), POLARS_MAX_THREADS=T, its
            defaults (object_store HTTP client).
What the proxy does to the figures: tests/cli/fault_proxy.py is store-and-forward (it reads a
whole response from nginx before sending its head on) and single-threaded Python on the same 2
cores. So a GET without Range that a client drops after the head (fsspec's isfile()/exists(),
called by pyarrow's FSSpecHandler.open_input_file and dataset discovery) still has nginx send the
whole file, which the "MB fetched" column (nginx's body bytes) counts, and the client waits for
it before the head arrives.
The shapes, filters, projections and the checksum are engines.py's; the timed loop, the check
and the ringscan runners are compare.py's. Request counts: nginx's access log (one line per
request: status, body bytes, range, request line, connection) read from the offset before a
query to after it. Counted twice: for every timed run in the warm workers (reported as the
median, which shows whether a warm worker reuses anything across queries), and in a count pass
with a fresh process per (engine, shape) run alone (the "requests" and "MB" columns).

  python http_peers.py data --sf N --ringscan BIN          makes the file, prints its path
  python http_peers.py bench --sf N --ringscan BIN --file LOCAL --url URL --nginx-log LOG ...
  python http_peers.py worker|oneshot ENGINE THREADS ...   as engines.py, the HTTP adapters
"""
from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare as C  # noqa: E402
import engines as E  # noqa: E402

SCRIPT = os.path.abspath(__file__)
PEERS = ["duckdb", "pyarrow", "polars"]
PYARROW_IO_THREADS = 8  # pyarrow's own default I/O pool size


# ---------------------------------------------------------------- adapters over HTTP
def httpfs_extension_dir():
    """The extension_directory holding the wheel's httpfs (duckdb-ext-httpfs)."""
    for f in importlib.metadata.files("duckdb-ext-httpfs") or []:
        if str(f).endswith("httpfs.duckdb_extension"):
            p = str(f.locate())
            # <dir>/v1.4.4/<platform>/httpfs.duckdb_extension
            return os.path.dirname(os.path.dirname(os.path.dirname(p)))
    raise RuntimeError("duckdb-ext-httpfs has no httpfs.duckdb_extension")


class DuckDBHttp(E.DuckDB):
    def __init__(self, threads):
        import duckdb
        self.duckdb = duckdb
        self.threads = threads
        self.ext_dir = httpfs_extension_dir()
        self.con = None

    def prepare(self, shape, path):
        if self.con is not None:
            self.con.close()
        self.con = self.duckdb.connect(config={"extension_directory": self.ext_dir,
                                               "autoinstall_known_extensions": False,
                                               "autoload_known_extensions": False})
        self.con.execute(f"SET threads={self.threads}")
        self.con.execute("LOAD httpfs")

    def open_only(self, path):
        self.prepare(None, path)
        super().open_only(path)


class PyArrowHttp(E.PyArrow):
    def __init__(self, threads):
        super().__init__(threads)
        self.pa.set_io_thread_count(PYARROW_IO_THREADS)
        from fsspec.implementations.http import HTTPFileSystem
        import pyarrow.fs as pafs
        self.HTTPFileSystem, self.pafs = HTTPFileSystem, pafs

    def version(self):
        import fsspec
        return f"{self.pa.__version__} (fsspec {fsspec.__version__})"

    def prepare(self, shape, path):
        fs = self.HTTPFileSystem(skip_instance_cache=True, use_listings_cache=False)
        self.open_kw = {"filesystem": self.pafs.PyFileSystem(self.pafs.FSSpecHandler(fs))}

    def open_only(self, path):
        self.prepare(None, path)
        super().open_only(path)


ENGINES = {"duckdb": DuckDBHttp, "pyarrow": PyArrowHttp, "polars": E.Polars}


# ---------------------------------------------------------------- nginx's access log
class AccessLog:
    """Lines nginx appended to its access log (tests/cli/nginx.conf.in's format:
    STATUS BODY_BYTES "RANGE" "REQUEST" CONNECTION) since a mark, /__ready probes left out."""

    def __init__(self, path):
        self.path = path

    def mark(self):
        return os.path.getsize(self.path) if os.path.exists(self.path) else 0

    def since(self, off, settle=0.1):
        # nginx logs a request once its response has gone out: wait until the log stops growing
        time.sleep(settle)
        size = self.mark()
        for _ in range(20):
            time.sleep(settle)
            if self.mark() == size:
                break
            size = self.mark()
        n, nbytes, conns, bad, whole = 0, 0, set(), [], 0
        with open(self.path, "rb") as f:
            f.seek(off)
            for raw in f:
                line = raw.decode("latin-1").rstrip("\n")
                if "/__ready" in line or not line:
                    continue
                parts = line.split()
                n += 1
                nbytes += int(parts[1])
                conns.add(parts[-1])
                if parts[2] == '"-"' and parts[3] == '"GET':  # a GET without Range
                    whole += 1
                if parts[0] not in ("200", "206"):
                    bad.append(line[:200])
        return {"requests": n, "bytes": nbytes, "connections": len(conns), "not_2xx": bad[:5],
                "gets_without_range": whole}


# ---------------------------------------------------------------- bench
def bench(args):
    threads = args.threads
    shapes = [s for s in E.SHAPE_ORDER if s in set(args.shapes.split(","))]
    peers = [e for e in args.engines.split(",") if e]
    # the default setting (50 ms, no cap) in http-sfN, any other beside it
    tag = "" if (args.latency_ms, args.bw) == (50, 0) else f"-lat{args.latency_ms}-bw{args.bw}"
    outdir = os.path.join(args.out, f"http-sf{args.sf}{tag}")
    os.makedirs(outdir, exist_ok=True)
    log = AccessLog(args.nginx_log)
    url = args.url
    R = {"sf": args.sf, "rounds": args.rounds, "threads": threads, "latency_ms": args.latency_ms,
         "bw_bytes_per_s": args.bw, "url": url, "file": args.file,
         "file_bytes": os.path.getsize(args.file), "peers": peers, "shapes": shapes,
         "machine": C.machine(), "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
         "argv": sys.argv, "ringscan_policy": args.policy or "default", "versions": {},
         "reference": {}, "check": {}, "time": {}, "count": {}, "mismatches": [], "errors": []}
    R["versions"]["ringscan"] = subprocess.run([args.ringscan, "version"], capture_output=True,
                                               text=True).stdout.strip()
    try:
        R["versions"]["nginx"] = subprocess.run(["nginx", "-v"], capture_output=True,
                                                text=True).stderr.strip()
    except OSError:
        pass
    T = args.query_timeout

    def loud(msg, bad_set=None, cell=None):
        R["mismatches"].append(msg)
        if bad_set is not None:
            bad_set.add(cell)
        C.log("!" * 20, msg)

    workers = {}
    for e in peers:
        try:
            workers[e] = C.Worker(e, threads, script=SCRIPT, timeout=T)
            R["versions"][e] = workers[e].version
        except Exception as ex:
            R["errors"].append(f"{e}: worker failed to start: {ex}")
            C.log("ERROR", R["errors"][-1])
    rsw = C.RsWorker(args, timeout=T)
    bad = set()
    # step 1: the reference (ringscan on the local file) and one check run of every engine
    for shape in shapes:
        ref = C.rs_run(args, shape, args.file, threads, timeout=T)
        R["reference"][shape] = ref
        if "error" in ref:
            R["errors"].append(f"ringscan local {shape}: {ref['error']}")
            C.log("ERROR", R["errors"][-1])
        R["check"][shape] = {}
        runs = [("ringscan_process", lambda: C.rs_run(args, shape, url, threads, timeout=T)),
                ("ringscan", lambda: rsw.run(shape, url, threads))]
        runs += [(e, (lambda w=w: w.run(shape, url, checksum=True))) for e, w in workers.items()]
        for e, fn in runs:
            r = fn()
            R["check"][shape][e] = r
            if "error" in r or "error" in ref or r["rows"] != ref["rows"] or \
                    str(r["checksum"]) != str(ref["checksum"]):
                loud(f"MISMATCH sf={args.sf} {shape} {e} over HTTP: "
                     f"{r.get('error') or (r['rows'], r['checksum'])} vs ringscan on the local "
                     f"file {ref.get('error') or (ref['rows'], ref['checksum'])}", bad, (shape, e))
        C.log(f"checked {shape}")
    # step 2: R interleaved rounds (cells shuffled per round, engine order rotated)
    rng = random.Random(args.seed)
    engs0 = ["ringscan", "ringscan_process"] + list(workers)
    samples, reqs = {}, {}
    for rnd in range(args.rounds):
        order = shapes[:]
        rng.shuffle(order)
        rot = rnd % len(engs0)
        engs = engs0[rot:] + engs0[:rot]
        for shape in order:
            ref_rows = R["reference"][shape].get("rows")
            for e in engs:
                off = log.mark()
                if e == "ringscan":
                    r = rsw.run(shape, url, threads)
                elif e == "ringscan_process":
                    r = C.rs_run(args, shape, url, threads, timeout=T)
                else:
                    r = workers[e].run(shape, url)
                got = log.since(off, settle=0.05)
                if "error" in r or r["rows"] != ref_rows:
                    loud(f"MISMATCH in round {rnd} {shape} {e}: {r}", bad, (shape, e))
                    continue
                samples.setdefault(shape, {}).setdefault(e, []).append(r["secs"])
                reqs.setdefault(shape, {}).setdefault(e, []).append(got["requests"])
        R.setdefault("loadavg", []).append([rnd, os.getloadavg()])
        C.log(f"round {rnd + 1}/{args.rounds} done, loadavg {os.getloadavg()}")
    for w in workers.values():
        w.close()
    rsw.close()
    for shape in shapes:
        R["time"][shape] = {}
        for e in engs0:
            xs = samples.get(shape, {}).get(e, [])
            rq = reqs.get(shape, {}).get(e, [])
            d = {"samples": xs, "median": statistics.median(xs) if xs else None,
                 "requests_per_run": rq, "requests_median": statistics.median(rq) if rq else None}
            if (shape, e) in bad:
                d["excluded"] = "rows/checksum differ or error"
                d["median"] = None
            R["time"][shape][e] = d
    # step 3: the count pass: one fresh process per (engine, shape), nothing else running
    for shape in shapes:
        R["count"][shape] = {}
        for e in ["ringscan"] + list(workers):
            if e == "ringscan":
                cmd = C.rs_cmd(args, shape, url, threads)
            else:
                cmd = C.peer_cmd(e, threads, shape, url, script=SCRIPT)
            off = log.mark()
            rows, stdout = None, ""
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, env=C.peer_env(threads),
                                   timeout=T)
                rc, tail, stdout = p.returncode, p.stderr[-300:], p.stdout
                m = re.search(r"rows (\d+) checksum|\"rows\": (\d+)", stdout)
                rows = int(m.group(1) or m.group(2)) if m else None
            except subprocess.TimeoutExpired:
                rc, tail = "timeout", ""
            got = log.since(off, settle=0.2)
            got["exit"], got["rows"] = rc, rows
            if rc != 0:
                got["stderr"] = tail
                R["errors"].append(f"count pass {e} {shape}: exit {rc} {tail}")
            if rows != R["reference"][shape].get("rows"):
                R["errors"].append(f"count pass {e} {shape}: {rows} rows, want "
                                   f"{R['reference'][shape].get('rows')} ({stdout[-200:]!r})")
            if got["not_2xx"]:
                R["errors"].append(f"count pass {e} {shape}: non-2xx answers {got['not_2xx']}")
            R["count"][shape][e] = got
        C.log(f"counted {shape}")
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump(R, f, indent=1)
    text = report(R)
    with open(os.path.join(outdir, "table.md"), "w") as f:
        f.write(text)
    print(text)
    return 1 if R["mismatches"] else 0


def report(R):
    head = (f"sf={R['sf']} rounds={R['rounds']} threads={R['threads']} latency "
            f"{R['latency_ms']} ms per request, bandwidth "
            f"{'unlimited' if not R['bw_bytes_per_s'] else str(R['bw_bytes_per_s']) + ' B/s per connection'}"
            f", file {R['file_bytes'] / 1e6:.1f} MB, ringscan policy {R['ringscan_policy']}\n"
            f"versions: {json.dumps(R['versions'])}\nmachine: {json.dumps(R['machine'])}\n"
            f"date: {R['date']}\n")
    mm = ("\nMISMATCHES:\n" + "\n".join(R["mismatches"]) + "\n") if R["mismatches"] else \
        "\nevery engine's rows and checksum over HTTP equal ringscan's on the local file\n"
    er = ("\nERRORS:\n" + "\n".join(R["errors"]) + "\n") if R["errors"] else ""
    lines = ["", "| shape | engine | median ms | min-max ms | requests | MB fetched | "
             "timed-run requests (median) | ok |", "|---|---|---|---|---|---|---|---|"]
    for shape in R["shapes"]:
        for e in ["ringscan", "ringscan_process"] + R["peers"]:
            d = R["time"].get(shape, {}).get(e, {})
            c = R["count"].get(shape, {}).get("ringscan" if e == "ringscan_process" else e, {})
            ok = "MISMATCH" if d.get("excluded") else ("yes" if d.get("median") else "-")
            req = "-" if not c else str(c["requests"])
            if c.get("gets_without_range"):
                req += f" ({c['gets_without_range']} without Range)"
            mb = "-" if not c else f"{c['bytes'] / 1e6:.1f}"
            rm = d.get("requests_median")
            xs = d.get("samples") or []
            spread = f"{min(xs) * 1000:.0f}-{max(xs) * 1000:.0f}" if xs and d.get("median") else "-"
            lines.append(f"| {shape} | {e} | {C.fmt_ms(d.get('median'))} | {spread} | {req} | "
                         f"{mb} | {'-' if rm is None else f'{rm:g}'} | {ok} |")
    note = ("\nmedian ms: wall time of one query (ringscan and the peers in warm worker processes;"
            " ringscan_process: a fresh `ringscan scan` process, start-up included). requests / MB"
            " fetched: nginx's access log for that query alone in a fresh process (ringscan_process"
            " shares ringscan's count; \"without Range\": GETs of the whole file, each one the whole file"
            " in MB fetched, see the proxy note in http_peers.py). timed-run requests: the same log"
            " over the timed runs (the same as the count pass where nothing is reused between queries).\n")
    return head + mm + er + "\n".join(lines) + "\n" + note


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("worker", "oneshot"):
        E.main(sys.argv, ENGINES)
        # the answer is out: skip the interpreter's teardown, where a pyarrow-over-fsspec
        # process now and then aborts ("terminate called without an active exception", exit
        # -6: fsspec's event-loop thread against pyarrow's I/O pool) after printing a right one
        sys.stdout.flush()
        os._exit(0)
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["data", "bench"])
    ap.add_argument("--sf", type=int, default=1)
    ap.add_argument("--ringscan", required=True)
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--engines", default=",".join(PEERS))
    ap.add_argument("--shapes", default=",".join(s for s in E.SHAPE_ORDER if s not in E.TOPK))
    ap.add_argument("--policy", default="adaptive", help="ringscan --policy ('' = its default)")
    ap.add_argument("--latency-ms", type=int, default=50, help="recorded; the proxy applies it")
    ap.add_argument("--bw", type=int, default=0, help="recorded; the proxy applies it")
    ap.add_argument("--file", help="the local file nginx serves")
    ap.add_argument("--url", help="the same file through the proxy")
    ap.add_argument("--nginx-log", help="nginx's access log")
    ap.add_argument("--query-timeout", type=float, default=600)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    if args.mode == "data":
        print(C.make_ringscan_file(args.sf, os.path.join(args.out, "data", f"sf{args.sf}"),
                                   args.ringscan, "snappy"))
        return 0
    if not (args.file and args.url and args.nginx_log):
        ap.error("bench needs --file, --url and --nginx-log")
    return bench(args)


if __name__ == "__main__":
    sys.exit(main())
