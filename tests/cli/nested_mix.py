"""tests/cli/nested_mix.py: the nested row group that nested_big_rowgroup.sh and
nested_steal.sh cut into splits: n rows of an int64 id, a list<int64>, a list<string>, a
struct<a int64, b string> and a map<string, int64>, nulls at every level, from a seed, written
by pyarrow in one row group of 4 KiB snappy pages (v2 pages without dictionaries, or v1 with).
ls_mod and b_mod (None: every row its own) repeat the list's and the struct's strings every
so many rows, so their dictionaries pay."""
import random

import pyarrow as pa
import pyarrow.parquet as pq


def write(out, v2, seed, n=20000, ls_mod=None, b_mod=None, page_index=False):
    """Writes the file at out and returns its table."""
    rnd = random.Random(seed)
    ls_of = (lambda i: i) if ls_mod is None else (lambda i: i % ls_mod)
    b_of = (lambda i: i) if b_mod is None else (lambda i: i % b_mod)
    li = [None if i % 13 == 0 else [None if rnd.random() < 0.1 else rnd.getrandbits(40)
                                    for _ in range(rnd.randrange(0, 12))] for i in range(n)]
    ls = [None if i % 11 == 0 else [None if (i + j) % 5 == 0 else "s%d_%d" % (ls_of(i), j)
                                    for j in range(rnd.randrange(0, 7))] for i in range(n)]
    st = [None if i % 7 == 0 else {"a": i, "b": None if i % 3 == 0 else "b%d" % b_of(i)}
          for i in range(n)]
    mp = [None if i % 19 == 0 else [("k%d" % j, None if j % 4 == 0 else i + j)
                                    for j in range(rnd.randrange(0, 5))] for i in range(n)]
    t = pa.table({"id": pa.array(range(n), pa.int64()),
                  "li": pa.array(li, pa.list_(pa.int64())),
                  "ls": pa.array(ls, pa.list_(pa.string())),
                  "st": pa.array(st, pa.struct([("a", pa.int64()), ("b", pa.string())])),
                  "mp": pa.array(mp, pa.map_(pa.string(), pa.int64()))})
    pq.write_table(t, out, row_group_size=n, data_page_size=4096, compression="snappy",
                   data_page_version="2.0" if v2 else "1.0", use_dictionary=not v2,
                   write_page_index=page_index)
    assert pq.ParquetFile(out).metadata.num_row_groups == 1
    return t
