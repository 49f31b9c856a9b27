"""bench/snappy/pages.py: one column's compressed page bodies of a Parquet file, for
snappy_ab.c. Walks every row group's chunk of the column with a minimal thrift compact reader
(PageHeader fields 1-3: type, uncompressed and compressed size) and writes, per page,
<u32 compressed size><u32 uncompressed size><body>, little-endian.

    python bench/snappy/pages.py FILE COLUMN_INDEX OUT"""
import struct as st
import sys

import pyarrow.parquet as pq


def varint(b, i):
    r = s = 0
    while True:
        x = b[i]
        i += 1
        r |= (x & 0x7F) << s
        s += 7
        if not x & 0x80:
            return r, i


def skip(b, i, t):
    if t in (1, 2):
        return i
    if t == 3:
        return i + 1
    if t in (4, 5, 6):
        return varint(b, i)[1]
    if t == 7:
        return i + 8
    if t == 8:
        n, i = varint(b, i)
        return i + n
    if t in (9, 10):
        h = b[i]
        i += 1
        n, et = h >> 4, h & 15
        if n == 15:
            n, i = varint(b, i)
        for _ in range(n):
            i = skip(b, i, et)
        return i
    if t == 12:
        return header(b, i)[1]
    raise ValueError(f"thrift type {t}")


def header(b, i):
    """The fields 1-3 of the struct at i (ints), and the offset past it."""
    out, fid = {}, 0
    while True:
        h = b[i]
        i += 1
        if h == 0:
            return out, i
        d, t = h >> 4, h & 15
        if d:
            fid += d
        else:
            v, i = varint(b, i)
            fid = (v >> 1) ^ -(v & 1)
        if t in (5, 6) and fid in (1, 2, 3):
            v, i = varint(b, i)
            out[fid] = (v >> 1) ^ -(v & 1)
        else:
            i = skip(b, i, t)


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
                h, j = header(data, i)
                out.write(st.pack("<II", h[3], h[2]))
                out.write(data[j:j + h[3]])
                i, n = j + h[3], n + 1
    print(f"{n} pages of column {col} -> {dst}")


if __name__ == "__main__":
    main()
