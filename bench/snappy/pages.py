"""bench/snappy/pages.py: one column's compressed page bodies of a Parquet file, for
snappy_ab.c. Walks every row group's chunk of the column (page headers read with
tests/cli/zstd_flips.py's compact-protocol reader) and writes, per page,
<u32 compressed size><u32 uncompressed size><body>, little-endian.

    python bench/snappy/pages.py FILE COLUMN_INDEX OUT"""
import os
import struct as st
import sys

import pyarrow.parquet as pq

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "cli"))
from zstd_flips import struct  # noqa: E402  the page header's i32 fields, and its end


def main():
    path, col, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    meta = pq.ParquetFile(path).metadata
    data = open(path, "rb").read()
    n = 0
    with open(dst, "wb") as out:
        for rg in range(meta.num_row_groups):
            c = meta.row_group(rg).column(col)
            i = c.dictionary_page_offset if c.has_dictionary_page else c.data_page_offset
            end = i + c.total_compressed_size
            while i < end:
                h, j = struct(data, i)
                out.write(st.pack("<II", h[3], h[2]))
                out.write(data[j:j + h[3]])
                i, n = j + h[3], n + 1
    print(f"{n} pages of column {col} -> {dst}")


if __name__ == "__main__":
    main()
