"""bench/zoned/make.py DIR: a two-file dataset whose second file holds 100,000 timestamps with
zone names (5 zones as ICU spells them, one in lower case) under the first file's UTC column,
as ds_zone.c resolves them (issue 23). Seeded: the same bytes every run."""
import datetime as dt
import os
import random
import sys

import pyarrow as pa
import pyarrow.parquet as pq

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
first = {"id": pa.array([0], pa.int64()), "k": pa.array([dt.datetime(2024, 1, 1)], pa.timestamp("us", tz="UTC"))}
pq.write_table(pa.table(first), os.path.join(d, "1.parquet"))
r = random.Random(1)
zones = ["Europe/Paris", "America/New_York", "Asia/Kolkata", "Australia/Sydney", "UTC", "europe/london"]
strs = [f"{r.randint(1950, 2080)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d} {r.randint(0, 23):02d}:"
        f"{r.randint(0, 59):02d}:{r.randint(0, 59):02d} {zones[i % 6]}" for i in range(100000)]
pq.write_table(pa.table({"id": pa.array(range(1, 100001), pa.int64()), "k": pa.array(strs)}), os.path.join(d, "2.parquet"))
