#!/usr/bin/env python3
"""Property test of nested decoding: random nested schemas and values written by pyarrow from
a seed, read back by ringscan equal to pyarrow's reading.

usage: nested_property.py RINGSCAN DIR SEED COUNT

For each of COUNT files (file k uses seed SEED * 1000 + k): a flat int64 `id`, then a random
schema of 1-4 top-level fields (structs, lists, maps of string or int keys, any mix to depth 4, primitives int32,
int64, double, bool, string, binary, date32, decimal(9,2)), 1-400 rows with nulls at every
nullable level (each level's null rate drawn per field), written with a random page version
(1.0 / 2.0), dictionary on or off (off: often each leaf in an encoding pyarrow writes for its
type, PLAIN, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY or
BYTE_STREAM_SPLIT), codec (none, snappy, gzip, zstd, lz4), small pages (data
page size 256 B-4 KiB, write batch 7-100 rows, so levels of one row cross pages) and 1-3 row
groups. Checks, per file:
  1. `scan F --format jsonl --ordered` equals gen_expected.column_texts of pq.read_table(F)
     (the canonical JSON of tests/conformance/gen_expected.py), byte for byte;
  2. `scan F --format csv --ordered`: each cell parses (Python's csv, RFC 4180) back to the
     same JSON text (null: an empty cell);
  3. `scan F --format checksum` over the nested fields alone: rows, and the checksum of
     cli/checksum.h (FNV-1a 64 of each non-null value's JSON text, folded * 1000003);
  4. one more file of values whose JSON text is far past the CLI's 64 KiB buffer (a list of
     30,000 int64, a string of 80,000 bytes with quotes): the same checks;
  5. with a flat `id` (0, 1, ...) first: `--where "id >= rows/2"`, `--where "id IN (...)"`
     (rows scattered over the file: a split builds only its kept rows, format/nest_select.c),
     `--where "id < q OR id >= 3q"` (q = rows/4: rows dropped inside a split), `--ordered
     --limit 5` (a batch cut) and
     `--order-by "id DESC" --limit 7` (Top-K's merge) give pyarrow's rows, whether the split
     builds packed rows or columns (format/nest_take.c takes and cuts those);
  6. the same rows as a dataset of two files (a directory, the second file's half without one
     nested field, read with --union-by-name: nulls there): all rows --ordered, a filter, a
     limit and ORDER BY id DESC LIMIT 7 (Top-K's merge across the files, null placeholders
     beside columns) give pyarrow's values with that field null in the second file's rows.
Prints "FAIL seed S: ..." for a failing file and ends with
"nested_property: N passed, N failed". Bounded: COUNT files, each scan under a 60 s timeout.
"""
import csv
import io
import os
import random
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq

csv.field_size_limit(1 << 30)  # the long-value file's cells

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conformance"))
import gen_expected as ge  # noqa: E402

PRIMS = [pa.int32(), pa.int64(), pa.float64(), pa.bool_(), pa.string(), pa.binary(),
         pa.date32(), pa.decimal128(9, 2)]


def rand_type(rnd, depth):
    """A random arrow type, nested below depth 4."""
    k = rnd.random()
    if depth >= 4 or k < 0.35:
        return rnd.choice(PRIMS)
    if k < 0.6:
        n = rnd.randint(1, 3)
        return pa.struct([pa.field("f%d" % i, rand_type(rnd, depth + 1), nullable=rnd.random() < 0.7)
                          for i in range(n)])
    if k < 0.85:
        return pa.list_(pa.field("element", rand_type(rnd, depth + 1), nullable=rnd.random() < 0.7))
    key = rnd.choice([pa.string(), pa.int32()])
    return pa.map_(key, rand_type(rnd, depth + 1))


def rand_value(rnd, t, nulls, nullable=True):
    """A random python value of arrow type t (None at rate nulls[depth] when nullable)."""
    if nullable and rnd.random() < nulls:
        return None
    if pa.types.is_struct(t):
        return {t.field(i).name: rand_value(rnd, t.field(i).type, nulls, t.field(i).nullable)
                for i in range(t.num_fields)}
    if pa.types.is_map(t):
        n = rnd.randint(0, 4)
        keys = rnd.sample(range(1000), n)
        return [(("k%d" % k) if pa.types.is_string(t.key_type) else k,
                 rand_value(rnd, t.item_type, nulls, True)) for k in keys]
    if pa.types.is_list(t):
        return [rand_value(rnd, t.value_type, nulls, t.value_field.nullable)
                for _ in range(rnd.choice([0, 1, 2, 3, 5, 9]))]
    if pa.types.is_int32(t):
        return rnd.randint(-2**31, 2**31 - 1)
    if pa.types.is_int64(t):
        return rnd.randint(-2**63, 2**63 - 1)
    if pa.types.is_floating(t):
        return rnd.choice([0.0, -1.5, 1e300, rnd.random() * 1000])
    if pa.types.is_boolean(t):
        return rnd.random() < 0.5
    if pa.types.is_string(t):
        return rnd.choice(["", "a", "é\"x,y", "line\nbreak"]) + str(rnd.randint(0, 50))
    if pa.types.is_binary(t):
        return bytes(rnd.getrandbits(8) for _ in range(rnd.randint(0, 6)))
    if pa.types.is_date32(t):
        import datetime
        return datetime.date(1970, 1, 1) + datetime.timedelta(days=rnd.randint(-5000, 30000))
    import decimal
    return decimal.Decimal(rnd.randint(-10**8, 10**8)) / 100


def write_file(rnd, path):
    """A random nested file at path; returns (nested field names, the write options)."""
    nf = rnd.randint(1, 4)
    fields, nested = [], []
    for i in range(nf):
        t = rand_type(rnd, 1) if i or rnd.random() < 0.9 else rnd.choice(PRIMS)
        if not pa.types.is_nested(t) and i == 0:
            t = pa.list_(t)
        fields.append(pa.field("c%d" % i, t, nullable=rnd.random() < 0.8))
        if pa.types.is_nested(t):
            nested.append("c%d" % i)
    rows = rnd.randint(1, 400)
    fields.insert(0, pa.field("id", pa.int64(), nullable=False))
    schema = pa.schema(fields)
    cols = [pa.array(range(rows), pa.int64())]
    for f in fields[1:]:
        nulls = rnd.choice([0.0, 0.05, 0.3])
        cols.append(pa.array([rand_value(rnd, f.type, nulls, f.nullable) for _ in range(rows)], f.type))
    table = pa.Table.from_arrays(cols, schema=schema)
    opts = dict(data_page_version=rnd.choice(["1.0", "2.0"]), use_dictionary=rnd.random() < 0.5,
                compression=rnd.choice(["none", "snappy", "gzip", "zstd", "lz4"]),
                data_page_size=rnd.choice([256, 1024, 4096]), write_batch_size=rnd.choice([7, 31, 100]),
                row_group_size=max(1, rows // rnd.randint(1, 3)))
    if not opts["use_dictionary"] and rnd.random() < 0.6:
        opts["column_encoding"] = leaf_encodings(rnd, table)
    pq.write_table(table, path, **opts)
    return nested, opts


# the encodings pyarrow writes besides PLAIN and the dictionary, by physical type
ENCODINGS = {"INT32": ["PLAIN", "DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT"],
             "INT64": ["PLAIN", "DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT"],
             "DOUBLE": ["PLAIN", "BYTE_STREAM_SPLIT"],
             "BYTE_ARRAY": ["PLAIN", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY"],
             "FIXED_LEN_BYTE_ARRAY": ["PLAIN", "DELTA_BYTE_ARRAY", "BYTE_STREAM_SPLIT"]}


def leaf_encodings(rnd, table):
    """A random encoding for each leaf of the nested fields (their Parquet paths, from a first
    write of the table), drawn among what pyarrow writes for its physical type."""
    buf = pa.BufferOutputStream()
    pq.write_table(table, buf, use_dictionary=False)
    schema = pq.ParquetFile(pa.BufferReader(buf.getvalue())).schema
    out = {}
    for i in range(len(schema)):
        c = schema.column(i)
        if c.path != "id" and c.physical_type in ENCODINGS:
            out[c.path] = rnd.choice(ENCODINGS[c.physical_type])
    return out


def fnv1a64(b):
    h = 0xcbf29ce484222325
    for x in b:
        h = ((h ^ x) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def run(binary, args):
    p = subprocess.run([binary] + args, capture_output=True, timeout=60)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def check_cuts(binary, path, n, lines, extra=()):
    """None, or what differs: path's rows filtered, limited and by Top-K (lines(rows): the
    expected JSON lines of those rows)."""
    half, q = n // 2, n // 4
    picked = sorted({(r * 7919) % n for r in range(max(1, n // 9))})  # (scattered: runs of one)
    for args, rows in ((["--where", "id >= %d" % half, "--ordered"], range(half, n)),
                       (["--where", "id IN (%s)" % ",".join(map(str, picked)), "--ordered"], picked),
                       (["--where", "id < %d OR id >= %d" % (q, 3 * q), "--ordered"],
                        [r for r in range(n) if r < q or r >= 3 * q]),
                       (["--ordered", "--limit", "5"], range(min(5, n))),
                       (["--order-by", "id DESC", "--limit", "7"], range(n - 1, max(-1, n - 8), -1))):
        rc, out, err = run(binary, ["scan", path, "--format", "jsonl"] + list(extra) + args)
        if rc != 0 or out != lines(rows):
            return "%s: exit %d %s; got %r, want %r" % (" ".join(args), rc, err.strip()[:200],
                                                       out[:200], lines(rows)[:200])
    return None


def check_dataset(binary, work, path, nested, rnd):
    """None, or what differs (check 6): path's rows as a directory of two files, the second
    without one of the nested fields."""
    table = pq.read_table(path)
    n = table.num_rows
    if n < 2 or not nested:
        return None
    drop, h = rnd.choice(nested), n // 2
    root = os.path.join(work, "ds")
    os.makedirs(root, exist_ok=True)
    groups = max(1, h // rnd.randint(1, 3))
    pq.write_table(table.slice(0, h), os.path.join(root, "a.parquet"), row_group_size=groups)
    pq.write_table(table.slice(h).drop_columns([drop]), os.path.join(root, "b.parquet"),
                   row_group_size=groups)
    cols = ge.column_texts(table)
    keys = [ge.json_string(c[0]) + ":" for c in cols]
    def text(c, r):
        return "null" if c[0] == drop and r >= h else c[1][r]
    def lines(rows):
        return "".join("{" + ",".join(k + text(c, r) for k, c in zip(keys, cols)) + "}\n"
                       for r in rows).encode("utf-8")
    rc, out, err = run(binary, ["scan", root, "--union-by-name", "--format", "jsonl", "--ordered"])
    if rc != 0 or out != lines(range(n)):
        return "dataset (%s missing in b): exit %d %s; got %r, want %r" % (
            drop, rc, err.strip()[:200], out[:300], lines(range(n))[:300])
    problem = check_cuts(binary, root, n, lines, ["--union-by-name"])
    return problem and "dataset (%s missing in b): %s" % (drop, problem)


def check_file(binary, path, nested):
    """None, or what differs."""
    table = pq.read_table(path)
    cols = ge.column_texts(table)
    keys = [ge.json_string(c[0]) + ":" for c in cols]
    def lines(rows):
        return "".join("{" + ",".join(k + c[1][r] for k, c in zip(keys, cols)) + "}\n"
                       for r in rows).encode("utf-8")
    want = lines(range(table.num_rows))
    rc, out, err = run(binary, ["scan", path, "--format", "jsonl", "--ordered"])
    if rc != 0:
        return "jsonl: exit %d: %s" % (rc, err.strip()[:300])
    if out != want:
        for k, (g, w) in enumerate(zip(out.split(b"\n"), want.split(b"\n"))):
            if g != w:
                return "jsonl line %d:\n  got  %r\n  want %r" % (k + 1, g[:300], w[:300])
        return "jsonl: %d bytes, want %d" % (len(out), len(want))
    problem = check_cuts(binary, path, table.num_rows, lines)
    if problem:
        return problem
    rc, out, err = run(binary, ["scan", path, "--format", "csv", "--ordered"])
    if rc != 0:
        return "csv: exit %d: %s" % (rc, err.strip()[:300])
    got = [row or [""] for row in csv.reader(io.StringIO(out.decode("utf-8"), newline=""))]
    if len(got) != table.num_rows + 1:
        return "csv: %d lines, want %d" % (len(got), table.num_rows + 1)
    for r in range(table.num_rows):
        for j, (name, texts) in enumerate(cols):
            if name in nested and got[r + 1][j] != ("" if texts[r] == "null" else texts[r]):
                return "csv row %d column %s: %r, want %r" % (r + 1, name, got[r + 1][j][:200], texts[r][:200])
    if nested:
        rc, out, err = run(binary, ["scan", path, "--columns", ",".join(nested), "--format", "checksum"])
        c = 0
        for name, texts in cols:
            if name in nested:
                s = sum(fnv1a64(t.encode("utf-8")) for t in texts if t != "null") & 0xFFFFFFFFFFFFFFFF
                c = (c * 1000003 + s) & 0xFFFFFFFFFFFFFFFF
        want = "rows %d checksum %d" % (table.num_rows, c)
        if rc != 0 or out.decode().strip() != want:
            return "count: exit %d %r, want %r %s" % (rc, out.decode().strip(), want, err.strip()[:200])
    return None


def main():
    binary, work, seed, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    passed = failed = 0
    for k in range(count):
        s = seed * 1000 + k
        rnd = random.Random(s)
        path = os.path.join(work, "p%d.parquet" % k)
        nested, opts = write_file(rnd, path)
        try:
            problem = check_file(binary, path, nested) or check_dataset(binary, os.path.join(work, "d%d" % k),
                                                                         path, nested, rnd)
        except subprocess.TimeoutExpired:
            problem = "timed out after 60 s (hang)"
        if problem:
            failed += 1
            print("FAIL seed %d (%s): %s" % (s, opts, problem))
        else:
            passed += 1
    # a value whose JSON text is far longer than the CLI's 64 KiB output buffer: CSV cell and
    # count checksum over the whole text
    rnd = random.Random(seed)
    path = os.path.join(work, "long.parquet")
    big = [rnd.randint(-2**63, 2**63 - 1) for _ in range(30000)]
    pq.write_table(pa.table({"id": pa.array([0, 1, 2], pa.int64()),
                             "c0": pa.array([big, None, big[:3]], pa.list_(pa.int64())),
                             "c1": pa.array([{"k": "q\"" * 40000}, None, {"k": ""}],
                                            pa.struct([("k", pa.string())]))}), path)
    problem = check_file(binary, path, ["c0", "c1"])
    if problem:
        failed += 1
        print("FAIL long values (seed %d): %s" % (seed, problem[:500]))
    else:
        passed += 1
    print("nested_property: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
