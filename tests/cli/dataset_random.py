#!/usr/bin/env python3
"""tests/cli/dataset_random.py: random datasets scanned with random options, for crashes.
Each seed writes 1 to 4 files with pyarrow whose schemas differ (a pool of columns, each file
taking a subset and, for each column, its first file's type or another of its kind: integers,
floats, decimals, strings beside numbers, timestamps and dates and times, booleans, lists,
large lists, structs, maps, lists of structs, the null type and lists and structs of it), with
random row groups, pages, codecs, dictionaries, page versions, statistics and stored Arrow
schemas, then runs 4 `ringscan scan DIR` with random options (union_by_name, a projection of
columns and struct paths, dictionary columns, a filter, ORDER BY with or without LIMIT, a
limit, mmap, unordered, 1-3 threads, one footer at a time, tiny splits, each output format).
A run must exit 0, or 1 with a message; never a signal, a sanitizer report or an assertion,
nor a run past the timeout; an unfiltered --format count must equal the files' rows (capped
by the limit). Found: the table printer's empty first cell and a dataset Top-K's empty
widened list (both traps). Values are compared elsewhere (dataset_union, dataset_duckdb).
usage: dataset_random.py RINGSCAN DIR SEED_FROM SEED_TO [TIMEOUT_S]
Prints one line per failure with its seed and command, then "dataset_random: N passed, N failed"."""
import os, random, subprocess, sys, shutil, decimal
import pyarrow as pa, pyarrow.parquet as pq

R, base, lo, hi = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
TO = float(sys.argv[5]) if len(sys.argv) > 5 else 60

def variants():
    return {
        "i": [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint32(), pa.uint64(), pa.float32(), pa.float64(), pa.string(), pa.decimal128(9, 2), pa.decimal128(20, 4)],
        "s": [pa.string(), pa.large_string(), pa.binary(), pa.int32(), pa.dictionary(pa.int32(), pa.string())],
        "t": [pa.timestamp("ms"), pa.timestamp("us", "UTC"), pa.timestamp("ns"), pa.date32(), pa.string(), pa.time64("us"), pa.time32("ms")],
        "b": [pa.bool_(), pa.int32(), pa.string()],
        "l": [pa.list_(pa.int32()), pa.list_(pa.int64()), pa.list_(pa.string()), pa.large_list(pa.int32()), pa.list_(pa.float64())],
        "st": [pa.struct([("a", pa.int32()), ("b", pa.string())]), pa.struct([("a", pa.int64())]), pa.struct([("b", pa.string()), ("a", pa.float64())]),
               pa.struct([("a", pa.int32()), ("c", pa.list_(pa.int32()))])],
        "m": [pa.map_(pa.string(), pa.int32()), pa.map_(pa.string(), pa.int64()), pa.map_(pa.int32(), pa.string())],
        "ls": [pa.list_(pa.struct([("x", pa.int32()), ("y", pa.string())])), pa.list_(pa.struct([("x", pa.int64())]))],
        "n": [pa.null(), pa.list_(pa.null()), pa.struct([("a", pa.null()), ("b", pa.int32())]), pa.int32(), pa.string()],
    }

def value(rng, t, depth=0):
    if rng.random() < 0.15 or pa.types.is_null(t): return None
    if pa.types.is_dictionary(t): t = t.value_type
    if pa.types.is_boolean(t): return rng.random() < 0.5
    if pa.types.is_integer(t):
        w = t.bit_width; s = pa.types.is_signed_integer(t)
        lo_, hi_ = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if s else (0, (1 << w) - 1)
        return rng.choice([lo_, hi_, 0, 1, -1 if s else 2, rng.randint(lo_, hi_), rng.randint(-100, 100) if s else rng.randint(0, 100)])
    if pa.types.is_floating(t): return rng.choice([0.0, -0.0, 1.5, float("nan"), float("inf"), -1e300 if t.bit_width == 64 else -1e30, rng.uniform(-1000, 1000)])
    if pa.types.is_decimal(t):
        return decimal.Decimal(rng.randint(-10 ** (t.precision - 1), 10 ** (t.precision - 1))).scaleb(-t.scale)
    if pa.types.is_string(t) or pa.types.is_large_string(t): return rng.choice(["", "a", "abc", "ü", "x" * rng.randint(0, 70), str(rng.randint(-5, 50))])
    if pa.types.is_binary(t): return rng.choice([b"", b"\x00\xff", b"bin"])
    if pa.types.is_timestamp(t): return rng.choice([0, 1, -1, 10 ** 12, -(10 ** 12), rng.randint(-2 ** 40, 2 ** 40)])
    if pa.types.is_date(t): return rng.choice([0, -1, 19000, -719000, 2932000])
    if pa.types.is_time32(t): return rng.choice([0, 86399999, rng.randint(0, 86399999)])
    if pa.types.is_time64(t): return rng.choice([0, 86399999999, rng.randint(0, 86399999999)])
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [value(rng, t.value_type, depth + 1) for _ in range(rng.choice([0, 1, 2, 5]))]
    if pa.types.is_struct(t): return {f.name: value(rng, f.type, depth + 1) for f in t}
    if pa.types.is_map(t):
        ks = set(); out = []
        for _ in range(rng.choice([0, 1, 3])):
            k = value(rng, t.key_type)
            if k is None or k in ks: continue
            ks.add(k); out.append((k, value(rng, t.item_type)))
        return out
    raise Exception(str(t))

def array(rng, t, n):
    vals = [value(rng, t) for _ in range(n)]
    if pa.types.is_dictionary(t): return pa.array(vals, t.value_type).dictionary_encode()
    if pa.types.is_timestamp(t) or pa.types.is_date(t) or pa.types.is_time(t):
        return pa.array(vals, pa.int64() if t.bit_width == 64 else pa.int32()).cast(t)
    return pa.array(vals, t)

def make(seed, d):
    rng = random.Random(seed)
    V = variants()
    names = {f"c{k}": kind for k, kind in enumerate(rng.sample(list(V), rng.randint(2, len(V))))}
    first = {c: rng.choice(V[k]) for c, k in names.items()}
    files = []
    for i in range(rng.randint(1, 4)):
        n = rng.choice([0, 1, 7, 100, 600])
        cols = {}
        for c, k in names.items():
            if i > 0 and rng.random() < 0.25: continue
            t = first[c] if rng.random() < 0.6 else rng.choice(V[k])
            cols[c] = array(rng, t, n)
        if not cols: cols["c0x"] = pa.array([1] * n, pa.int32())
        tab = pa.table(cols)
        p = os.path.join(d, f"f{i}.parquet")
        pq.write_table(tab, p, row_group_size=rng.choice([1, 50, 1000]), use_dictionary=rng.random() < 0.7,
                       compression=rng.choice(["snappy", "zstd", "none", "gzip"]), data_page_version=rng.choice(["1.0", "2.0"]),
                       data_page_size=rng.choice([100, 1 << 20]), write_statistics=rng.random() < 0.8,
                       store_schema=rng.random() < 0.7, write_page_index=rng.random() < 0.5)
        files.append((p, tab))
    return rng, names, files

def options(rng, names, files):
    a = []
    if rng.random() < 0.5: a.append("--union-by-name")
    allc = sorted({c for _, t in files for c in t.column_names})
    leafish = []
    for _, t in files:
        for f in t.schema:
            if pa.types.is_struct(f.type): leafish += [f"{f.name}.{g.name}" for g in f.type]
    if rng.random() < 0.6:
        pick = rng.sample(allc + leafish, rng.randint(1, min(4, len(allc + leafish))))
        a += ["--columns", ",".join(pick)]
    else:
        pick = allc
    strs = [c for c in pick if names.get(c) in ("s",)]
    if strs and rng.random() < 0.5: a += ["--dictionary-columns", ",".join(strs)]
    flat = [c for c in allc if names.get(c) in ("i", "s", "t", "b")]
    if flat and rng.random() < 0.5:
        c = rng.choice(flat)
        lit = {"i": rng.choice(["0", "5", "-1", "'5'", "1.5"]), "s": rng.choice(["'a'", "'abc'", "'5'", "5"]),
               "t": rng.choice(["'2000-01-01'", "DATE '1970-01-01'", "'x'"]), "b": rng.choice(["true", "1", "'true'"])}[names[c]]
        op = rng.choice(["=", "<", ">=", "<>", "IS NULL", "IS NOT NULL", "IN"])
        w = f"{c} {op}" if "NULL" in op else (f"{c} IN ({lit}, {lit})" if op == "IN" else f"{c} {op} {lit}")
        a += ["--where", w]
    if flat and rng.random() < 0.4:
        a += ["--order-by", rng.choice(flat) + rng.choice(["", " DESC", " ASC NULLS FIRST"])]
        if rng.random() < 0.7: a += ["--limit", str(rng.choice([0, 1, 5, 50]))]
    elif rng.random() < 0.2: a += ["--limit", str(rng.choice([0, 1, 5, 50]))]
    if rng.random() < 0.3: a += ["--read-mode", "mmap"]
    if rng.random() < 0.3: a.append("--unordered")
    a += ["--threads", rng.choice(["1", "2", "3"])]
    if rng.random() < 0.3: a += ["--max-open-files", rng.choice(["1", "2"])]
    if rng.random() < 0.2: a += ["--split-rows", rng.choice(["1", "10"])]
    a += ["--format", rng.choice(["jsonl", "csv", "checksum", "count", "table"])]
    return a

bad = good = 0
for seed in range(lo, hi):
    d = f"{base}/{seed}"
    shutil.rmtree(d, ignore_errors=True); os.makedirs(d)
    try:
        rng, names, files = make(seed, d)
    except Exception as ex: # a value pyarrow refuses for a type (rare): another seed's turn
        shutil.rmtree(d, ignore_errors=True); continue
    for k in range(4):
        a = options(rng, names, files)
        cmd = [R, "scan", d] + a + ["--no-progress"]
        try:
            p = subprocess.run(cmd, capture_output=True, timeout=TO)
        except subprocess.TimeoutExpired:
            print("TIMEOUT", seed, k, cmd, flush=True); bad += 1; continue
        err = p.stderr.decode("latin1")
        crash = p.returncode not in (0, 1) or any(x in err for x in ("runtime error", "Sanitizer", "Assertion", "assert", "panic"))
        if p.returncode == 1 and not err.strip(): crash = True
        if crash:
            print("CRASH", seed, k, p.returncode, cmd, err[-1500:], flush=True); bad += 1
            continue
        if p.returncode == 0 and "--format" in a and a[a.index("--format") + 1] == "count" and "--where" not in a:
            want = sum(t.num_rows for _, t in files)
            if "--limit" in a: want = min(want, int(a[a.index("--limit") + 1]))
            got = p.stdout.decode().strip()
            if str(want) not in got.split():
                print("COUNT", seed, k, cmd, got, want, flush=True); bad += 1
                continue
        good += 1
    shutil.rmtree(d, ignore_errors=True)
print(f"dataset_random: {good} passed, {bad} failed")
sys.exit(1 if bad else 0)
