"""tests/cli/dict_bits.py: a conjunct on a dictionary-coded column evaluated from the indices
(scan/task_decode.c page_eval_one; format/rle_bits.c turns a page without nulls straight into
its rows' bits), with the column projected too (its kept rows then decoded from the same
bytes) or not. pyarrow writes one file per page version (1.0, 2.0) x nulls (none, about one
row in 7) x dictionary size (1, 2, 3, 8, 9, 64, 65, 256, 257: widths 0..9 and either side of
the vector path's 8 and of the one-word table's 64 entries); rows sorted in stretches so the
indices come in RLE runs and bit-packed runs; row groups of 3,000 and small pages. Each filter
(none kept, all kept, some, IN, a range, IS NULL, and two with a conjunct on i too) is run with --columns i,v and --columns i
at 1 or 2 threads by turns; the output must equal the rows pyarrow selects, value for value, and a
projected dictionary column without nulls must count dictionary-evaluated pages (a page with
nulls is decoded to values for its conjunct instead).
Usage: python dict_bits.py RINGSCAN DIR"""
import os
import random
import sys

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, csv_scan, summary  # noqa: E402

R, D = sys.argv[1], sys.argv[2]
N, RG = 9_000, 3_000


def make(version, nulls, size, rnd):
    """N rows: i (row number) and v (size distinct values, 10 * k - 7), stretches sorted."""
    ks = [rnd.randrange(size) for _ in range(N)]
    for a in range(0, N, 700):
        if rnd.random() < 0.5:
            ks[a:a + 700] = sorted(ks[a:a + 700])  # long runs of one index
    v = [None if nulls and rnd.random() < 1 / 7 else 10 * k - 7 for k in ks]
    t = pa.table({"i": pa.array(range(N), pa.int64()), "v": pa.array(v, pa.int32())})
    path = f"{D}/d_{version}_{int(nulls)}_{size}.parquet"
    pq.write_table(t, path, row_group_size=RG, data_page_size=1024, use_dictionary=["v"],
                   data_page_version=version, compression="snappy")
    return path, v


def ringscan(path, where, cols, threads):
    return csv_scan(R, path, where, cols, threads, "--stats")


rnd = random.Random(26)
runs = 0
for version in ("1.0", "2.0"):
    for nulls in (False, True):
        for size in (1, 2, 3, 8, 9, 64, 65, 256, 257):
            path, v = make(version, nulls, size, rnd)
            hi = 10 * size - 7
            mid = 10 * (size // 2) - 7
            filters = {
                "v < -100": lambda x: x is not None and x < -100,
                "v >= -7": lambda x: x is not None and x >= -7,
                f"v > {mid}": lambda x, m=mid: x is not None and x > m,
                f"v IN (-7, {mid}, {hi})": lambda x, m=mid, h=hi: x in (-7, m, h),
                f"v BETWEEN 3 AND {mid + 20}": lambda x, m=mid: x is not None and 3 <= x <= m + 20,
                "v IS NULL": lambda x: x is None,
            }
            # a second conjunct drops rows after v's: its vector is cut to the final rows
            two = {f"v > {mid} AND i >= 2500 AND i < 7000": (lambda x, m=mid: x is not None and x > m),
                   f"i < 4000 AND v IN (-7, {hi})": (lambda x, h=hi: x in (-7, h))}
            lo_hi = {f"v > {mid} AND i >= 2500 AND i < 7000": (2500, 7000),
                     f"i < 4000 AND v IN (-7, {hi})": (0, 4000)}
            for where, pred in list(filters.items()) + list(two.items()):
                lo, hi_i = lo_hi.get(where, (0, N))
                rows = [i for i in range(lo, hi_i) if pred(v[i])]
                for cols in ("i,v", "i"):
                    want = [f"{i},{'' if v[i] is None else v[i]}" if cols == "i,v" else str(i)
                            for i in rows]
                    runs += 1
                    for threads in (1 + runs % 2,):
                        got, err = ringscan(path, where, cols, threads)
                        what = f"{path} {where!r} --columns {cols} --threads {threads}"
                        if got is None:
                            check(False, f"{what}: {err.strip()[:300]}")
                            continue
                        check(sorted(got) == sorted(want),
                              f"{what}: {len(got)} rows, want {len(want)}; first "
                              f"{sorted(set(got) ^ set(want))[:5]}")
                        if cols == "i,v" and not nulls and rows:  # every page to bits
                            n = int(err.split("pages_dict_evaluated ")[1].split(",")[0])
                            check(n > 0, f"{what}: pages_dict_evaluated {n}")
sys.exit(0 if summary("dict_bits") else 1)
