"""The package used the way a data engineer gets it wrong: a KeyboardInterrupt at any point of
a scan's start (nothing leaks, the module keeps working), arguments of the wrong type (a
TypeError naming the argument, not an AttributeError from inside), a NUL inside a string
(refused, never a filter cut short), an expression filter on a dataset of many files."""
import gc
import os
import subprocess
import sys
import textwrap

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ringscan
from ringscan import _ffi


def settle():
    gc.collect()
    return ringscan.live_objects()


def interrupted_at(n, fn):
    """fn() with a KeyboardInterrupt raised at the n-th call of _ffi.check (each follows one
    library call: the open, the start, ...); whether it was raised."""
    calls = [0]

    def trace(frame, event, arg):
        if event == "call" and frame.f_code is _ffi.check.__code__:
            calls[0] += 1
            if calls[0] == n:
                raise KeyboardInterrupt
        return None
    sys.settrace(trace)
    try:
        fn()
    except KeyboardInterrupt:
        return True
    finally:
        sys.settrace(None)
    return False


def test_interrupt_right_after_a_call_leaks_nothing(lineitem, tmp_path):
    """Ctrl-C while a footer is read or a dataset lists arrives as the call returns: the
    handle it returned (a scan with its threads) was lost before any Python object held it."""
    d = tmp_path / "ds"
    d.mkdir()
    for k in range(3):
        os.link(lineitem, d / f"p{k}.parquet")
    base = settle()
    for source in (lineitem, str(d), [lineitem, lineitem]):
        for n in range(1, 4):
            interrupted_at(n, lambda: ringscan.scan(source, columns=["l_orderkey"]).to_arrow())
            assert settle() == base, (source, n)
        for n in range(1, 3):
            interrupted_at(n, lambda: ringscan.count_rows(source, filter="l_quantity > 10"))
            assert settle() == base, (source, n)
    interrupted_at(1, lambda: ringscan.metadata(lineitem))
    interrupted_at(1, lambda: ringscan.plan_row_groups(lineitem))
    assert settle() == base
    assert ringscan.scan(lineitem, limit=3).to_arrow().num_rows == 3


def test_interrupt_inside_cffi_type_building(lineitem):
    """cffi built a struct the first time the package named it, in Python code: a
    KeyboardInterrupt in the middle left ringscan_options "of unknown size" and every later
    scan() of the process failed. A fresh interpreter, interrupted at several depths."""
    script = textwrap.dedent(f"""
        import sys, ringscan
        n, calls = int(sys.argv[1]), [0]
        def trace(frame, event, arg):
            if event == "call" and "/cffi/" in frame.f_code.co_filename:
                calls[0] += 1
                if calls[0] == n:
                    raise KeyboardInterrupt
            return None
        sys.settrace(trace)
        try:
            ringscan.scan({lineitem!r}, limit=5).to_arrow()
        except KeyboardInterrupt:
            pass
        sys.settrace(None)
        print(ringscan.scan({lineitem!r}, limit=5).to_arrow().num_rows)
    """)
    for n in (20, 50, 100, 300):
        r = subprocess.run([sys.executable, "-c", script, str(n)], capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 0 and r.stdout.strip() == "5", (n, r.stderr[-500:])


def test_wrong_argument_types(lineitem):
    for kw, what in [({"columns": [1]}, "column name"), ({"columns": [None]}, "column name"),
                     ({"columns": [b"l_orderkey"]}, "column name"), ({"filter": 5}, "filter"),
                     ({"filter": b"l_quantity > 1"}, "filter"), ({"order_by": 3, "limit": 2}, "order_by"),
                     ({"dictionary_columns": [7]}, "dictionary column")]:
        with pytest.raises(TypeError, match=what):
            ringscan.scan(lineitem, **kw)
    with pytest.raises(TypeError, match="fliter"):
        ringscan.count_rows(lineitem, fliter="l_quantity > 1")
    assert settle() == 0


def test_nul_inside_a_string_is_refused(lineitem):
    """cffi ends a char[] at its first NUL: 'l_quantity > 49\\0 AND ...' filtered on the
    first conjunct alone, and a path with a NUL opened another file."""
    with pytest.raises(ValueError, match="null"):
        ringscan.scan(lineitem, filter="l_quantity > 49\0 AND l_quantity < 0")
    with pytest.raises(ValueError, match="null"):
        ringscan.scan(lineitem, columns=["l_orderkey\0x"])
    with pytest.raises(ValueError, match="null"):
        ringscan.scan(lineitem + "\0.bak")
    with pytest.raises(ValueError, match="null"):
        ringscan.count_rows([lineitem + "\0"])
    assert settle() == 0


def test_expression_filter_on_many_files(lineitem, tmp_path):
    """The tree is freed once the scan started; the dataset's later files (past the 16 it
    starts at once) typed it after that (a use after free in the library)."""
    d = tmp_path / "many"
    d.mkdir()
    for k in range(20):
        os.link(lineitem, d / f"p{k:02d}.parquet")
    f = ringscan.col("l_orderkey") < 1000
    want = pq.read_table(lineitem, filters=[("l_orderkey", "<", 1000)]).num_rows
    assert ringscan.scan(str(d), filter=f, max_open_files=2).to_arrow().num_rows == 20 * want
    assert ringscan.count_rows(str(d), filter=f) == 20 * want
    assert settle() == 0


def test_integer_literals_past_int64(tmp_path):
    """A UINT64 column's upper half: col("u") > 2**63 raised OverflowError (the literal went
    through int64); the exact digits are the literal now, as in the filter text."""
    import pyarrow as pa
    p = str(tmp_path / "u.parquet")
    vals = [0, 1, 2**63 - 1, 2**63, 2**63 + 5, 2**64 - 1, None]
    pq.write_table(pa.table({"u": pa.array(vals, pa.uint64())}), p)
    for v, want in [(2**63, 2), (2**63 - 1, 3), (2**64 - 1, 0), (2**63 + 4, 2), (2**63 + 5, 1)]:
        assert ringscan.scan(p, filter=ringscan.col("u") > v).to_arrow().num_rows == want, v
        assert ringscan.count_rows(p, filter=f"u > {v}") == want, v
    with pytest.raises(TypeError, match="column name"):
        ringscan.col(5)
    with pytest.raises(TypeError, match="no literal"):  # the built half is freed, then raised
        ringscan.scan(p, filter=(ringscan.col("u") > 1) & (ringscan.col("u") == object()))
    assert settle() == 0


def test_close_while_another_thread_reads_stats(lineitem):
    """A progress thread calling stats() and explain() while the reader is closed: the calls
    release the GIL, and close() freed the scan under them (SIGILL in 300 rounds). In a
    subprocess: a crash is this test's failure, not the run's."""
    script = textwrap.dedent(f"""
        import threading, time, ringscan
        for k in range(300):
            r = ringscan.scan({lineitem!r})
            stop = []
            def monitor():
                while not stop:
                    try:
                        r.stats(), r.explain(), r.topk_bound()
                    except ValueError:  # closed: the one error allowed
                        return
            t = threading.Thread(target=monitor)
            t.start()
            time.sleep(0.0005 * (k % 5))
            r.close()
            stop.append(1)
            t.join()
        print(ringscan.live_objects())
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "0", (r.returncode, r.stderr[-500:])


def test_numbers_and_name_lists_are_checked(lineitem):
    """limit=3.7 read 3 rows and limit="3" 3 (int() truncated and parsed); limit=2**63 raised
    OverflowError "int too big to convert" naming nothing; dictionary_columns="l_comment"
    was iterated as letters ("'l' is not a projected column"); a topk_bound of "5" parsed;
    limit=-1 read every row."""
    for kw, what in [({"limit": 3.7}, "limit"), ({"limit": "3"}, "limit"),
                     ({"threads": 1.5}, "threads"), ({"split_rows": "10"}, "split_rows"),
                     ({"fetch_budget_bytes": 1e6}, "fetch_budget_bytes"),
                     ({"max_open_files": 2.0}, "max_open_files"),
                     ({"row_groups": [0.0]}, "row_groups"),
                     ({"order_by": "l_orderkey", "limit": 3, "topk_bound": (False, "5")},
                      "topk_bound"),
                     ({"dictionary_columns": "l_comment"}, "dictionary_columns")]:
        with pytest.raises(TypeError, match=what):
            ringscan.scan(lineitem, **kw)
    for kw, what in [({"limit": 2**63}, "limit"), ({"threads": 2**40}, "threads"),
                     ({"fetch_budget_bytes": -2**64}, "fetch_budget_bytes"),
                     ({"row_groups": [2**40]}, "row_groups")]:
        with pytest.raises(ValueError, match=what):
            ringscan.scan(lineitem, **kw)
    with pytest.raises(TypeError, match="limit"):
        ringscan.count_rows(lineitem, limit=2.5)
    # a negative limit is refused: -1 (the library's "no limit") read every row, also under an
    # order_by, and -2 was refused as "limit below -1"
    for kw in [{"limit": -1}, {"limit": -2}, {"limit": -1, "order_by": "l_orderkey"}]:
        with pytest.raises(ValueError, match=f"limit {kw['limit']} is negative"):
            ringscan.scan(lineitem, **kw)
    with pytest.raises(ValueError, match="limit -1 is negative"):
        ringscan.count_rows(lineitem, limit=-1)
    rows = pq.ParquetFile(lineitem).metadata.num_rows
    assert ringscan.scan(lineitem, limit=2**63 - 1).to_arrow().num_rows == rows
    assert ringscan.scan(lineitem, limit=True).to_arrow().num_rows == 1  # bool is an int
    import numpy as np
    assert ringscan.scan(lineitem, limit=np.int64(4), threads=np.int32(1),
                         row_groups=np.array([0])).to_arrow().num_rows == 4
    assert settle() == 0


def test_a_reader_is_neither_copied_nor_pickled(lineitem):
    """copy.copy(reader) shared its scan with a copy: once the copy was read, the original
    read 0 rows, silently; deepcopy and pickle named only a cffi object."""
    import copy
    import pickle
    r = ringscan.scan(lineitem, columns=["l_orderkey"])
    for f in (copy.copy, copy.deepcopy, pickle.dumps):
        with pytest.raises(TypeError, match="cannot be copied or pickled"):
            f(r)
    assert r.to_arrow().num_rows == pq.ParquetFile(lineitem).metadata.num_rows
    r.close()
    assert settle() == 0


def test_hive_types_that_the_key_type_list_cannot_hold(tmp_path):
    """hive_types goes to the library as "k:TYPE,...": {"k": "DATE,k:BIGINT"} read as two
    entries (the last, BIGINT, won), {"k:x": "BIGINT"} as key k of type "x:BIGINT", and
    {"k": 5} as type "5"; each is refused naming the entry."""
    d = tmp_path / "k=2024"
    d.mkdir()
    pq.write_table(pa.table({"x": [1]}), d / "f.parquet")
    for types in ({"k": "DATE,k:BIGINT"}, {"k:x": "BIGINT"}, {"k": "BIG,INT"}):
        with pytest.raises(ValueError, match="holds ',' or ':'"):
            ringscan.scan(str(tmp_path), hive_types=types)
    with pytest.raises(TypeError, match="hive_types maps str to str"):
        ringscan.scan(str(tmp_path), hive_types={"k": 5})
    assert ringscan.scan(str(tmp_path), hive_types={"k": "VARCHAR"}).to_arrow().column("k").to_pylist() == ["2024"]
    assert settle() == 0


def test_order_by_pairs_name_any_column(tmp_path):
    """order_by=[(name, how)] names a column whatever its name: ("my col", "descending") was
    the text "my col DESC" ("no column named 'my'"), and a name holding ',' or '"' too."""
    p = tmp_path / "odd.parquet"
    pq.write_table(pa.table({"my col": [3, 1, 2], 'a"b': [5, 6, 4], "c,d": [1, 3, 2]}), p)
    for name, top in (("my col", 3), ('a"b', 6), ("c,d", 3)):
        with ringscan.scan(str(p), columns=[name], order_by=[(name, "descending")], limit=1) as r:
            assert r.to_arrow().column(name).to_pylist() == [top]
    assert settle() == 0
