"""bench/dataset_make.py: the three datasets bench/dataset_ab.py is run on (bench/RESULTS.md,
twentieth and twenty-third sessions), made from a lineitem sf=1 file (`ringscan gen lineitem
--sf 1`, e.g. /work/main/data/lineitem_sf1_tpch.parquet):
  OUT/ds1       hive84: DuckDB's COPY ... PARTITION_BY (year, month) of l_shipdate, 84 files
                (DuckDB 2.0.1: one row group and one page per column chunk each)
  OUT/small500  500 files of 1,000 rows, every column (the first 500,000 rows, pyarrow
                write_table per slice): start-up dominated
  OUT/skewed    one file of 600,000 rows (row groups of 100,000), then 100 files of 2,000 rows
Existing directories are kept. Usage: python bench/dataset_make.py SRC.parquet OUT
(run with .tools/pyvenv/bin/python: duckdb, pyarrow)"""
import os
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq


def first_rows(f, n):
    ts, got = [], 0
    for i in range(f.num_row_groups):
        if got >= n:
            break
        ts.append(f.read_row_group(i))
        got += ts[-1].num_rows
    return pa.concat_tables(ts).slice(0, n)


def main(src, out):
    os.makedirs(out, exist_ok=True)
    hive = os.path.join(out, "ds1")
    if not os.path.exists(hive):
        duckdb.connect().execute(
            f"COPY (SELECT *, year(l_shipdate) AS year, month(l_shipdate) AS month FROM '{src}') "
            f"TO '{hive}' (FORMAT parquet, PARTITION_BY (year, month))")
    f = pq.ParquetFile(src)
    small = os.path.join(out, "small500")
    if not os.path.exists(small):
        os.makedirs(small)
        t = first_rows(f, 500000)
        for i in range(500):
            pq.write_table(t.slice(i * 1000, 1000), f"{small}/part-{i:04d}.parquet")
    skew = os.path.join(out, "skewed")
    if not os.path.exists(skew):
        os.makedirs(skew)
        t = first_rows(f, 800000)
        pq.write_table(t.slice(0, 600000), f"{skew}/a000.parquet", row_group_size=100000)
        for i in range(100):
            pq.write_table(t.slice(600000 + i * 2000, 2000), f"{skew}/b{i:03d}.parquet")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
