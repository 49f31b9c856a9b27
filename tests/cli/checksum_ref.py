"""tests/cli/checksum_ref.py: ringscan's `--format checksum` against cli/checksum.h's
definition computed here from the values pyarrow reads back: per column the wrapping sum over
non-null rows of the stored integer sign-extended to 64 bits (ints of every width, INT32 and
INT64 decimals unscaled, dates, times, timestamps), float and double bit patterns, 1 per true
boolean, FNV-1a 64 of string bytes; then c = c * 1000003 + sum over the columns. Each column
alone and all together; values at each width's edges, one row in five null, 3 row groups of
uneven size, split inside them (--split-rows).
Usage: python checksum_ref.py RINGSCAN DIR"""
import decimal
import os
import random
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, summary  # noqa: E402

R, D = sys.argv[1], sys.argv[2]
M64 = (1 << 64) - 1
N = 25_000
rnd = random.Random(7)


def ints(lo, hi):
    edges = [lo, hi, 0, -1 if lo < 0 else 1, lo + 1, hi - 1]
    return [None if rnd.random() < 0.2 else
            (rnd.choice(edges) if rnd.random() < 0.1 else rnd.randint(lo, hi)) for _ in range(N)]


def fnv(b):
    h = 0xcbf29ce484222325
    for x in b:
        h = ((h ^ x) * 0x100000001b3) & M64
    return h


def stored(v, t):
    """The stored integer (or bit pattern) of one non-null value, as checksum.h sums it."""
    if pa.types.is_decimal(t):
        return int(v.scaleb(t.scale))
    if pa.types.is_floating(t):
        fmt = "<f4" if t.bit_width == 32 else "<f8"
        return int(np.array([v], dtype=fmt).view("<u4" if t.bit_width == 32 else "<u8")[0])
    if pa.types.is_boolean(t):
        return 1 if v else 0
    if pa.types.is_string(t):
        return fnv(v.encode())
    if pa.types.is_unsigned_integer(t) and t.bit_width == 32:
        return v - (1 << 32) if v >= 1 << 31 else v  # stored INT32, summed sign-extended
    return v


def col_sum(arr, t):
    s = 0
    if pa.types.is_temporal(t):  # the stored integer: the array's buffers seen as ints
        arr = arr.view(pa.int64() if t.bit_width == 64 else pa.int32())
    for v in arr.to_pylist():
        if v is not None:
            s = (s + (v if pa.types.is_temporal(t) else stored(v, t))) & M64
    return s


dec = lambda p, s: [None if x is None else decimal.Decimal(x).scaleb(-s) for x in
                    ints(-(10 ** p - 1), 10 ** p - 1)]
cols = {
    "i8": pa.array(ints(-128, 127), pa.int8()),
    "i16": pa.array(ints(-32768, 32767), pa.int16()),
    "i32": pa.array(ints(-2 ** 31, 2 ** 31 - 1), pa.int32()),
    "i64": pa.array(ints(-2 ** 63, 2 ** 63 - 1), pa.int64()),
    "u8": pa.array(ints(0, 255), pa.uint8()),
    "u16": pa.array(ints(0, 65535), pa.uint16()),
    "u32": pa.array(ints(0, 2 ** 32 - 1), pa.uint32()),
    "d32": pa.array(dec(9, 2), pa.decimal128(9, 2)),
    "d64": pa.array(dec(18, 4), pa.decimal128(18, 4)),
    "day": pa.array(ints(-100_000, 100_000), pa.int32()).cast(pa.date32()),
    "tod": pa.array(ints(0, 86_399_999), pa.int32()).cast(pa.time32("ms")),
    "ts": pa.array(ints(-2 ** 62, 2 ** 62), pa.int64()).cast(pa.timestamp("us")),
    "f32": pa.array([None if x is None else x / 7 for x in ints(-10 ** 6, 10 ** 6)], pa.float32()),
    "f64": pa.array([None if x is None else x / 3 for x in ints(-10 ** 9, 10 ** 9)], pa.float64()),
    "b": pa.array([None if x is None else x > 0 for x in ints(-5, 5)], pa.bool_()),
    "s": pa.array([None if x is None else "v" * (x % 9) + str(x) for x in ints(0, 10 ** 6)]),
}
table = pa.table(cols)
path = os.path.join(D, "checksum_ref.parquet")
pq.write_table(table, path, row_group_size=11_000, data_page_size=4_096,
               store_decimal_as_integer=True)
back = pq.read_table(path)
want = {name: col_sum(back.column(name).combine_chunks(), back.schema.field(name).type)
        for name in cols}


def ringscan(names, threads):
    p = subprocess.run([R, "scan", path, "--columns", ",".join(names), "--format", "checksum",
                        "--threads", str(threads), "--split-rows", "3000"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip()
    parts = p.stdout.split()
    return (int(parts[1]), int(parts[3])), None


for name in cols:
    got, err = ringscan([name], 1)
    check(got == (N, want[name]), f"{name}: ringscan {got or err}, definition ({N}, {want[name]})")
fold = 0
for name in cols:
    fold = (fold * 1000003 + want[name]) & M64
for threads in (1, 2):
    got, err = ringscan(list(cols), threads)
    check(got == (N, fold), f"all columns, {threads} threads: ringscan {got or err}, definition {fold}")
sys.exit(0 if summary("checksum_ref") else 1)
