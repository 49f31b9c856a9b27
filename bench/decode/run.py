#!/usr/bin/env python3
"""Decode throughput: ringscan vs pyarrow on single-column, uncompressed Parquet files.

Usage (from the repo root):
  Z=$(scripts/setup.sh | tail -n1); $Z build --summary none -p /tmp/decode/rs
  $(scripts/pyenv.sh | tail -n1) bench/decode/run.py [--rounds 7] [--rows 10000000]
      [--dir /tmp/decode] [--ringscan /tmp/decode/rs/bin/ringscan] [--regen]

Writes four files under --dir (only if missing, or with --regen), checks their encodings with
`ringscan meta`, then for each round and each file times ringscan (`scan FILE --format checksum
--threads 1`, wall clock around the process minus the median `ringscan version` start-up time)
and pyarrow (`pq.read_table(path, use_threads=False)` in-process, one CPU and one IO thread),
alternating which goes first each round; pyarrow is also run a second time (A/A) to show noise.

Decoded output bytes ("MB" = 1e6 bytes): int64 files 8 bytes/value; the string file the sum of
string lengths plus 4 bytes/value of int32 offsets (Arrow `string` layout, validity not counted).
"""
import argparse
import os
import resource
import statistics as st
import subprocess
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

RG = 1 << 20  # rows per row group


def schema(t):
    return pa.schema([pa.field("x", t, nullable=False)])


def gen(d, n):
    rng = np.random.default_rng(42)
    specs = []
    # (1) int64 PLAIN, random values
    v = rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, n, dtype=np.int64)
    specs.append(("int64_plain", pa.table({"x": v}, schema=schema(pa.int64())),
                  dict(use_dictionary=False, column_encoding={"x": "PLAIN"}), 8 * n))
    # (2) int64 dictionary: 1000 distinct random values
    dv = rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, 1000, dtype=np.int64)
    v = dv[rng.integers(0, 1000, n)]
    specs.append(("int64_dict", pa.table({"x": v}, schema=schema(pa.int64())),
                  dict(use_dictionary=True), 8 * n))
    # (3) int64 DELTA_BINARY_PACKED: sorted, gaps 0..99 from a large base
    v = (1 << 40) + np.cumsum(rng.integers(0, 100, n, dtype=np.int64))
    specs.append(("int64_delta", pa.table({"x": v}, schema=schema(pa.int64())),
                  dict(use_dictionary=False, column_encoding={"x": "DELTA_BINARY_PACKED"}), 8 * n))
    # (4) strings PLAIN, lengths 5..30, random lowercase ASCII
    lens = rng.integers(5, 31, n, dtype=np.int32)
    offs = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(lens, out=offs[1:])
    data = rng.integers(ord("a"), ord("z") + 1, int(offs[-1]), dtype=np.uint8)
    arr = pa.StringArray.from_buffers(n, pa.py_buffer(offs), pa.py_buffer(data))
    specs.append(("string_plain", pa.table({"x": arr}, schema=schema(pa.string())),
                  dict(use_dictionary=False, column_encoding={"x": "PLAIN"}),
                  int(offs[-1]) + 4 * n))
    out = []
    for name, t, kw, nbytes in specs:
        path = os.path.join(d, name + ".parquet")
        out.append((name, path, nbytes))
        if os.path.exists(path) and not ARGS.regen:
            continue
        pq.write_table(t, path, compression="none", row_group_size=RG,
                       write_statistics=False, **kw)
    return out


def check_meta(rs, path):
    m = subprocess.run([rs, "meta", path], capture_output=True, text=True, check=True).stdout
    enc = sorted({l.split("encodings ")[1].split("]")[0] + "]"
                  for l in m.splitlines() if "encodings" in l})
    req = [l.strip() for l in m.splitlines() if l.strip().startswith("0 x ")]
    rgs = sum(1 for l in m.splitlines() if l.startswith("row group"))
    return f"{req[0]}; {rgs} row groups; encodings {' '.join(enc)}"


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def time_rs(rs, path):
    c0, t0 = child_cpu(), time.perf_counter()
    r = subprocess.run([rs, "scan", path, "--format", "checksum", "--threads", "1"],
                       capture_output=True, text=True, check=True)
    return time.perf_counter() - t0, child_cpu() - c0, r.stdout.strip()


def time_version(rs):
    c0, t0 = child_cpu(), time.perf_counter()
    subprocess.run([rs, "version"], capture_output=True, check=True)
    return time.perf_counter() - t0, child_cpu() - c0


def time_pa(path):
    c0, t0 = time.process_time(), time.perf_counter()
    t = pq.read_table(path, use_threads=False)
    dt, dc = time.perf_counter() - t0, time.process_time() - c0
    n = t.num_rows
    del t
    return dt, dc, n


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main():
    os.makedirs(ARGS.dir, exist_ok=True)
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    rs = ARGS.ringscan
    files = gen(ARGS.dir, ARGS.rows)
    print(f"# {uptime()}")
    print(f"# pyarrow {pa.__version__}, numpy {np.__version__}, python {sys.version.split()[0]}, "
          f"{subprocess.run([rs, 'version'], capture_output=True, text=True).stdout.strip()}")
    for name, path, nbytes in files:
        print(f"# {name}: {os.path.getsize(path)} file bytes, {nbytes} decoded bytes; "
              f"{check_meta(rs, path)}")
    # warm-up (not counted): page cache, allocators, imports
    for _, path, _ in files:
        for _ in range(2):
            time_rs(rs, path)
            time_pa(path)
    T = {name: {k: [] for k in ("rs", "pa", "pa2", "rs_c", "pa_c")} for name, _, _ in files}
    ver, ver_c, outs = [], [], {}
    for rnd in range(ARGS.rounds):
        for name, path, _ in files:
            dt, dc = time_version(rs)
            ver.append(dt)
            ver_c.append(dc)
            order = ("rs", "pa") if rnd % 2 == 0 else ("pa", "rs")
            for who in order:
                if who == "rs":
                    dt, dc, o = time_rs(rs, path)
                    outs.setdefault(name, set()).add(o)
                    T[name]["rs"].append(dt)
                    T[name]["rs_c"].append(dc)
                else:
                    dt, dc, n = time_pa(path)
                    assert n == ARGS.rows
                    T[name]["pa"].append(dt)
                    T[name]["pa_c"].append(dc)
            T[name]["pa2"].append(time_pa(path)[0])  # A/A: pyarrow again
    v, vc = st.median(ver), st.median(ver_c)
    print(f"# rounds {ARGS.rounds}; ringscan process start (median `ringscan version`) "
          f"{v * 1e3:.2f} ms wall / {vc * 1e3:.2f} ms CPU, subtracted; files in page cache")
    for name, o in outs.items():
        assert len(o) == 1 and o.pop().startswith(f"rows {ARGS.rows} "), (name, o)
    hdr = (f"| {'file':<13} | {'decoded MB':>10} | {'ringscan ms':>11} | {'pyarrow ms':>10} | "
           f"{'ringscan MB/s':>13} | {'pyarrow MB/s':>12} | {'ratio rs/pa':>11} | "
           f"{'A/A pa/pa':>9} |")
    print(hdr)
    print("|" + "|".join("-" * (len(c)) for c in hdr.split("|")[1:-1]) + "|")
    for name, path, nbytes in files:
        rs_t = st.median(T[name]["rs"]) - v
        pa_t = st.median(T[name]["pa"])
        pa2_t = st.median(T[name]["pa2"])
        mb = nbytes / 1e6
        print(f"| {name:<13} | {mb:>10.1f} | {rs_t * 1e3:>11.1f} | {pa_t * 1e3:>10.1f} | "
              f"{mb / rs_t:>13.0f} | {mb / pa_t:>12.0f} | {pa_t / rs_t:>11.2f} | "
              f"{pa2_t / pa_t:>9.3f} |")
    print()
    print("CPU time (user+sys; ringscan: getrusage of the child, pyarrow: process_time):")
    hdr = (f"| {'file':<13} | {'ringscan CPU ms':>15} | {'pyarrow CPU ms':>14} | "
           f"{'ringscan MB/CPU-s':>17} | {'pyarrow MB/CPU-s':>16} | {'ratio rs/pa':>11} |")
    print(hdr)
    print("|" + "|".join("-" * (len(c)) for c in hdr.split("|")[1:-1]) + "|")
    for name, path, nbytes in files:
        rc = st.median(T[name]["rs_c"]) - vc
        pc = st.median(T[name]["pa_c"])
        mb = nbytes / 1e6
        print(f"| {name:<13} | {rc * 1e3:>15.1f} | {pc * 1e3:>14.1f} | {mb / rc:>17.0f} | "
              f"{mb / pc:>16.0f} | {pc / rc:>11.2f} |")
    print("# ratio rs/pa = ringscan MB/s / pyarrow MB/s (>1: ringscan faster); "
          "A/A = median(pyarrow run 2) / median(pyarrow run 1)")
    for name, _, _ in files:
        r = T[name]
        print(f"# spread {name}: ringscan min/max {min(r['rs']) * 1e3:.1f}/{max(r['rs']) * 1e3:.1f}"
              f" ms, pyarrow min/max {min(r['pa']) * 1e3:.1f}/{max(r['pa']) * 1e3:.1f} ms (raw)")
    print(f"# {uptime()}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--dir", default="/tmp/decode")
    ap.add_argument("--ringscan", default="/tmp/decode/rs/bin/ringscan")
    ap.add_argument("--regen", action="store_true")
    ARGS = ap.parse_args()
    main()
