"""Errors as exceptions; every reader, stream and capsule freed whatever the consumer does;
many readers at once from threads; the GIL released while a scan waits."""
import concurrent.futures
import gc
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ringscan


def settle():
    gc.collect()
    return ringscan.live_objects()


def test_errors(lineitem, tmp_path):
    with pytest.raises(ringscan.ParseError, match="expected"):
        ringscan.scan(lineitem, filter="l_quantity >")
    with pytest.raises(ringscan.InvalidArgument, match="nope"):
        ringscan.scan(lineitem, columns=["nope"])
    with pytest.raises(FileNotFoundError, match="missing.parquet"):
        ringscan.scan(str(tmp_path / "missing.parquet"))
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1" + b"\0" * 64 + b"PAR1")
    with pytest.raises(ringscan.FormatError, match="bad.parquet"):
        ringscan.scan(str(bad))
    with pytest.raises(ValueError, match="policy"):
        ringscan.scan(lineitem, policy="fast")
    r = ringscan.scan(lineitem, columns=["l_orderkey"])
    r.to_arrow()
    with pytest.raises(ValueError, match="read once"):
        r.to_arrow()
    r.close()
    with pytest.raises(ValueError, match="closed"):
        r.stats()
    assert settle() == 0


def test_unread_and_early_closed_streams_are_freed(lineitem):
    base = settle()
    c = ringscan.scan(lineitem).__arrow_c_stream__()  # never imported
    assert settle() == base + 2                       # the capsule holds scan and file
    del c
    assert settle() == base
    rbr = pa.RecordBatchReader.from_stream(ringscan.scan(lineitem, threads=1))
    next(iter(rbr))                                   # one batch, then dropped
    rbr.close()
    del rbr
    assert settle() == base
    r = ringscan.scan(lineitem)                       # a reader never read
    del r
    assert settle() == base


def test_stream_error_reaches_a_failing_consumer(tmp_path):
    # a scan that fails in its second row group: pa.table drops the stream's capsule while
    # raising the error; its destructor was a Python callback then, which lost that exception
    # (SystemError: "returned NULL without setting an exception"), and now is the library's
    path = tmp_path / "corrupt.parquet"
    t = pa.table({"s": [f"needle-{i:05d}" for i in range(2000)]})
    pq.write_table(t, path, row_group_size=1000, compression="none", use_dictionary=False)
    data = bytearray(path.read_bytes())
    at = data.find(b"needle-01500")
    assert at > 4 and data[at - 4:at] == (12).to_bytes(4, "little")  # its PLAIN length
    data[at - 4:at] = (0x7FFFFFF0).to_bytes(4, "little")              # past the page
    path.write_bytes(bytes(data))
    base = settle()
    for consume in (pa.table, lambda r: pa.RecordBatchReader.from_stream(r).read_all(),
                    lambda r: r.to_arrow()):
        with pytest.raises(OSError, match="corrupt.parquet") as e:
            consume(ringscan.scan(str(path), threads=1))
        assert not isinstance(e.value, SystemError)
    del e  # its traceback holds the last consumer's frame, and so its reader
    assert settle() == base


def test_many_readers_from_threads(lineitem):
    want = pq.read_table(lineitem, columns=["l_orderkey"])["l_orderkey"].to_pylist()

    def one(i):
        lo, hi = (i % 4) * 15000, (i % 4) * 15000 + 14999
        f = f"l_orderkey BETWEEN {lo} AND {hi}"
        got = ringscan.scan(lineitem, columns=["l_orderkey"], filter=f, threads=1).to_arrow()
        return lo, hi, got["l_orderkey"].to_pylist()
    with concurrent.futures.ThreadPoolExecutor(4) as ex:
        results = list(ex.map(one, range(12)))
    for lo, hi, got in results:
        assert got == [k for k in want if lo <= k <= hi] and got
    assert settle() == 0


def test_one_stream_read_from_two_threads(tmp_path):
    # pyarrow's reader calls the stream's get_next from whichever thread reads it, two at once
    # here; the scan's end ran twice concurrently and stopped its executor twice (segfault in
    # exec_group_stop). The stream's calls now run one at a time: every row once, in all
    path = tmp_path / "groups.parquet"
    pq.write_table(pa.table({"id": pa.array(range(60000), pa.int64())}), path, row_group_size=1500)
    for _ in range(15):
        rbr = ringscan.scan(str(path), threads=2, fetch_budget_bytes=4096).to_batches()
        got = [[], []]

        def read(k):  # (read_next_batch's StopIteration at the end ends the loop)
            for b in iter(rbr.read_next_batch, None):
                got[k].extend(b.column(0).to_pylist())
        ts = [threading.Thread(target=read, args=(k,)) for k in range(2)]
        [t.start() for t in ts]
        [t.join(60) for t in ts]
        assert sorted(got[0] + got[1]) == list(range(60000))
        del rbr
    assert settle() == 0


@pytest.mark.parametrize("held", ["table", "reader"])
def test_arrow_objects_freed_after_the_module_at_exit(lineitem, held):
    # a table (its buffers' release is the library's) or a reader over a scan's stream left in
    # a reference cycle is freed by the interpreter's last collection, after cffi closed the
    # library: the process segfaulted (exit 139) calling into the unmapped library
    code = ("import ringscan\n"
            "class H: pass\n"
            "h = H(); h.self = h\n"
            f"r = ringscan.scan({lineitem!r}, threads=2)\n"
            + ("h.t = r.to_arrow()\n" if held == "table" else
               "h.g = r.to_batches(); h.g.read_next_batch()\n"))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])


def _child_exit(pid, seconds, hung):
    """The exit code of forked child pid, waited for at most seconds (then killed: fails with
    hung)."""
    for _ in range(seconds * 10):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    pytest.fail(hung)


def test_a_forked_child_drops_the_parents_reader(lineitem, tmp_path):
    # fork() while a scan runs (os.fork, multiprocessing's fork): the child holds a copy of the
    # reader whose threads exist only in the parent; dropping it (or exiting, which drops it)
    # waited forever for them. Now the child scans on its own, drops the copy and exits
    want = pq.ParquetFile(lineitem).metadata.num_rows
    r = ringscan.scan(lineitem, columns=["l_orderkey"], threads=2, fetch_budget_bytes=4096)
    rbr = r.to_batches()
    first = rbr.read_next_batch().num_rows
    pid = os.fork()
    if pid == 0:  # the child: its own scan, then the parent's objects dropped
        code = 1
        try:
            code = 0 if ringscan.scan(lineitem, columns=["l_orderkey"]).to_arrow().num_rows == want else 1
            del rbr, r
            gc.collect()
        finally:
            os._exit(code)
    assert _child_exit(pid, 60, "the forked child hung dropping the parent's reader") == 0
    assert first + sum(b.num_rows for b in rbr) == want  # the parent's scan goes on


def test_a_forked_child_reading_the_parents_reader_fails(lineitem):
    # a child forked while a scan ran that reads the parent's reader (its iterator, or a stream
    # of it): the read waited forever for the parent's threads (the iterator's helper thread, the
    # library's executor); now it fails at once with the library's message, and the parent's
    # scan goes on
    want = pq.ParquetFile(lineitem).metadata.num_rows
    r = ringscan.scan(lineitem, columns=["l_orderkey"], threads=2, fetch_budget_bytes=4096)
    it = iter(r)
    first = next(it).num_rows
    r2 = ringscan.scan(lineitem, columns=["l_orderkey"])
    rbr = r2.to_batches()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            got = []
            for read in (lambda: next(it), rbr.read_next_batch):
                try:
                    read()
                except Exception as e:
                    got.append("this is a fork of it" in str(e))
            code = 0 if got == [True, True] else 1
        finally:
            os._exit(code)
    assert _child_exit(pid, 30, "the forked child hung reading the parent's reader") == 0
    assert first + sum(b.num_rows for b in it) == want  # the parent's scans go on
    assert sum(b.num_rows for b in rbr) == want


def test_gil_released_while_waiting(lineitem):
    # a simulated store with 40 ms per request: the scan spends its time waiting in C; a
    # Python thread that counts meanwhile must get to run (it cannot while the GIL is held)
    r = ringscan.scan(lineitem, columns=["l_comment"], store="sim:ttfb=40ms,bw=50MB/s",
                      threads=1, fetch_budget_bytes=0)
    done = threading.Event()
    ticks = [0]

    def count():
        while not done.is_set():
            ticks[0] += 1
    t = threading.Thread(target=count)
    t.start()
    try:
        rows = r.to_arrow().num_rows
    finally:
        done.set()
        t.join()
    assert rows == pq.ParquetFile(lineitem).metadata.num_rows
    assert r.stats()["store_requests"] >= 2  # the footer's, then the column's
    assert ticks[0] > 1000, f"the counting thread ran {ticks[0]} times during the scan"


@pytest.mark.parametrize("how", ["to_arrow", "iterate"])
def test_ctrl_c_stops_a_long_scan(lineitem, tmp_path, how):
    # Ctrl-C during to_arrow() reached Python only when pyarrow's read_all returned, at the
    # scan's end (a scan of a slow store ran to its last row group first), and the
    # interrupted scan went on reading while the reader was held. Now the batches are read
    # one Python call at a time and an exception stops the scan: it ends after a few of its
    # 31 row groups, its counters complete. (The store sends 400 KB/s: 5 s for the file.)
    path = str(tmp_path / "groups.parquet")
    pq.write_table(pq.read_table(lineitem), path, row_group_size=2000)
    code = textwrap.dedent(f"""
        import os, signal, threading, ringscan
        import pyarrow  # before the timer: its first import takes 0.5 s on a loaded machine
        r = ringscan.scan({path!r}, store="sim:ttfb=10ms,bw=400KB/s", threads=1,
                          fetch_budget_bytes=0)
        threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
        try:
            {"r.to_arrow()" if how == "to_arrow" else "[b for b in r]"}
            print("not interrupted")
        except KeyboardInterrupt:
            st = r.stats()
            print(st["complete"], st["rows_scanned"] < 60134, st["rows_scanned"])
        r.close()
        print(ringscan.live_objects())
    """)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    lines = p.stdout.split("\n")
    assert lines[0].split()[:2] == ["True", "True"], p.stdout
    assert lines[1] == "0", p.stdout


CONSUMERS = {"pyarrow": "pyarrow.table(r).num_rows",
             "polars": "__import__('polars').DataFrame(r).height",
             "duckdb": "__import__('duckdb').sql('select count(*) from r').fetchall()[0][0]"}


@pytest.mark.parametrize("consumer", sorted(CONSUMERS))
def test_ctrl_c_stops_a_capsule_consumer(lineitem, tmp_path, consumer):
    # A consumer of the stream capsule waits for each batch in its own native code, where
    # Python runs no signal handler: Ctrl-C was raised only when it returned, after the
    # scan's last row group (5 s at this store's 400 KB/s), or, pyarrow's own handler
    # raising at once, left the scan reading on. The signal's byte on the wakeup fd now
    # interrupts the scan (python/ringscan/_sigint.py, ringscan_scan_interrupt): the
    # consumer's wait fails, KeyboardInterrupt is raised (DuckDB: "Query interrupted"), the
    # counters complete, the wakeup fd put back at close. Under a host's own SIGINT handler
    # the scan is not cut short: every row is read.
    path = str(tmp_path / "groups.parquet")
    pq.write_table(pq.read_table(lineitem), path, row_group_size=2000)
    code = textwrap.dedent(f"""
        import os, signal, threading, ringscan
        import pyarrow, pandas, polars, duckdb  # before the timer: first imports are slow
        def read():
            return ringscan.scan({path!r}, store="sim:ttfb=10ms,bw=400KB/s", threads=1,
                                 fetch_budget_bytes=0)
        r = read()
        threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
        try:
            n = {CONSUMERS[consumer]}
            print("not interrupted", n)
        except BaseException as e:
            st = r.stats()
            print(st["complete"], st["rows_scanned"] < 60134, st["rows_scanned"],
                  type(e).__name__, str(e)[:40].replace(" ", "_"))
        r.close()
        print(ringscan.live_objects(), signal.set_wakeup_fd(-1))
        got = []
        signal.signal(signal.SIGINT, lambda *a: got.append(1))
        r = read()
        threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
        print({CONSUMERS[consumer]}, got)
    """)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    lines = [l for l in p.stdout.split("\n") if l.strip() and "%" not in l]  # (DuckDB's bar)
    raised = "RuntimeError Query_interrupted" if consumer == "duckdb" else "KeyboardInterrupt"
    assert lines[0].split()[:2] == ["True", "True"], p.stdout
    assert " ".join(lines[0].split()[3:]).startswith(raised), p.stdout
    assert lines[1] == "0 -1", p.stdout
    assert lines[2] == "60134 [1]", p.stdout


INTERRUPTED_READ = """
    r = ringscan.{scan}
    threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()
    try:
        r.to_arrow()
        print("not interrupted")
    except KeyboardInterrupt:
        st = r.stats()
        print(st["complete"], st["rows_out"], st["bytes_read"])
    r.close()
    print(ringscan.live_objects())
"""


def interrupted_scan(lineitem, tmp_path, scan, body=INTERRUPTED_READ):
    """Runs body (by default: `r = ringscan.<scan>`, then r.to_arrow() with a SIGINT after
    1 s) in a subprocess, scan's {url} a hostile_http.py server's; the HTTP timeout is 10
    minutes, the subprocess's limit 90 s, so a stop that waits for a stalled read fails.
    Returns its output lines (by default: the stats' complete, rows_out and bytes_read, then
    live_objects())."""
    import shutil
    import socket
    import urllib.request
    from conftest import ROOT
    www = tmp_path / "www"
    www.mkdir(parents=True)
    shutil.copy(lineitem, www / "li.parquet")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "cli" / "hostile_http.py"),
                               "--root", str(www), "--port", str(port), "--log",
                               str(tmp_path / "hostile.log"), "--max-seconds", "120"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):  # 10 s at most
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/ok/li.parquet", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        code = ("import os, signal, threading, ringscan\n"
                "import pyarrow  # before the timer (its first import is slow)\n" +
                textwrap.dedent(body).format(scan=scan.format(url=f"http://127.0.0.1:{port}")))
        env = dict(os.environ, RINGSCAN_HTTP_TIMEOUT_MS="600000")
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=90, env=env)
    finally:
        server.kill()
        server.wait()
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stdout.split("\n")


def test_ctrl_c_while_an_open_stalls(lineitem, tmp_path):
    # ringscan.scan() on a server that never answers its footer's request: the open waits
    # inside the library (for the 10 minute timeout here), so Ctrl-C came through only then.
    # The open runs on a helper thread now, and the interrupt requests the open's cancel
    # (ringscan_cancel): the call ends, its helper thread gone (with an open left to its
    # timeout it would still run) and nothing left open. A file, then a dataset whose second
    # footer stalls; then metadata(), count_rows() and plan_row_groups() of the file.
    body = """
        threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()
        try:
            r = ringscan.{scan}
            print("not interrupted")
        except KeyboardInterrupt:
            print("interrupted")
        print(ringscan.live_objects(), threading.active_count())
    """
    out = interrupted_scan(lineitem, tmp_path, 'scan("{url}/mute/li.parquet")', body)
    assert out[:2] == ["interrupted", "0 1"], out
    out = interrupted_scan(lineitem, tmp_path / "2", 'scan(["{url}/chunked/li.parquet", '
                           '"{url}/mute/li.parquet"])', body)
    assert out[:2] == ["interrupted", "0 1"], out
    for k, call in enumerate(['metadata("{url}/mute/li.parquet")',
                              'count_rows("{url}/mute/li.parquet")',
                              'plan_row_groups("{url}/mute/li.parquet")']):
        out = interrupted_scan(lineitem, tmp_path / f"call{k}", call, body)
        assert out[:2] == ["interrupted", "0 1"], (call, out)


def test_ctrl_c_while_a_read_stalls(lineitem, tmp_path):
    # A server that answers the open and then never sends a byte: Ctrl-C came through only
    # when the read timed out, and the scan's stop then waited for it too (with this 10
    # minute timeout, the subprocess's limit). The batch is awaited on a helper thread, the
    # stop cancels the reads in flight: the interrupt ends the scan at once.
    out = interrupted_scan(lineitem, tmp_path, 'scan("{url}/latemute/li.parquet", threads=1)')
    assert out[:2] == ["True 0 0", "0"], out


def test_ctrl_c_while_a_dataset_read_stalls(lineitem, tmp_path):
    # A dataset's stop waited for the ringscan_scan_next in flight, which waited for the
    # stalled read of its file (or of a footer) to time out: the stop now cancels every
    # file's reads and the footers' on the dataset's runtime. First a file whose data reads
    # stall after the first file's rows were all handed out, then a footer read after the
    # scan started (two footers at once: the third file's is read once the scan runs). The
    # files are scanned in path order: the modes that answer as "ok" (chunked, cont100) sort
    # first.
    n = pq.ParquetFile(lineitem).metadata.num_rows
    out = interrupted_scan(lineitem, tmp_path, 'scan(["{url}/chunked/li.parquet", '
                           '"{url}/latemute/li.parquet"], threads=1)')
    assert out[1] == "0" and out[0].startswith(f"True {n} "), out
    out = interrupted_scan(lineitem, tmp_path / "2", 'scan(["{url}/chunked/li.parquet", '
                           '"{url}/cont100/li.parquet", "{url}/mute/li.parquet"], threads=1, '
                           'max_open_files=2)')
    assert out[1] == "0" and out[0].startswith("True ") and int(out[0].split()[1]) <= 2 * n, out


def test_rows_out_leaves_out_a_batch_the_stop_cut_short(tmp_path, monkeypatch):
    # A Ctrl-C while the helper thread's batch was already on its way to the consumer: the
    # batch is dropped with the stop, but stats()["rows_out"] counted it (the library handed
    # it out), so rows_out said more rows than the loop received. The interrupt is raised
    # here once that batch is in the queue, each time the second batch is awaited.
    import queue as real
    from ringscan import _reader
    paths = []
    for k in range(3):
        paths.append(str(tmp_path / f"p{k}.parquet"))
        pq.write_table(pa.table({"id": pa.array(range(k * 1000, (k + 1) * 1000), pa.int64())}),
                       paths[-1], row_group_size=250)

    class Got(real.SimpleQueue):
        calls = 0

        def get(self, *a, **k):
            Got.calls += 1
            if Got.calls == 2:  # the second batch: interrupted once it arrived
                item = super().get(*a, **k)
                self.put(item)
                raise KeyboardInterrupt
            return super().get(*a, **k)

    class Queues:
        n = 0

        @staticmethod
        def SimpleQueue():
            Queues.n += 1
            return Got() if Queues.n % 2 == 0 else real.SimpleQueue()  # (want, got)

    for how in ("iterate", "to_arrow"):
        Got.calls = Queues.n = 0
        r = ringscan.scan(paths, store="sim:ttfb=1ms,bw=1GB/s", threads=1, max_open_files=2)
        rows = 0
        with monkeypatch.context() as m, pytest.raises(KeyboardInterrupt):
            m.setattr(_reader, "queue", Queues)  # (after scan(): its open's queue is real)
            if how == "to_arrow":
                r.to_arrow()
            for b in r:
                rows += b.num_rows
        st = r.stats()
        assert st["complete"], how
        assert st["rows_out"] == (rows if how == "iterate" else 250), (how, st["rows_out"], rows)
        r.close()
    assert settle() == 0


def test_ctrl_c_while_the_helper_thread_starts(tmp_path, monkeypatch):
    # A Ctrl-C in the reader's wait for its helper thread to start (Thread.start waits for
    # it) came before the block that stops the scan: the scan ran on, unstopped (stats not
    # complete), and the helper waited forever for a request, holding the stream and so the
    # scan after close() (live_objects() stayed 2). Now the scan stops and the helper ends.
    from ringscan import _reader
    path = str(tmp_path / "t.parquet")
    pq.write_table(pa.table({"id": pa.array(range(4000), pa.int64())}), path, row_group_size=500)

    class Interrupted(threading.Thread):
        def start(self):
            super().start()
            if self.name == "ringscan-reader":  # (not scan()'s open, tested below)
                raise KeyboardInterrupt  # as if it came in start's wait, once it runs

    monkeypatch.setattr(_reader.threading, "Thread", Interrupted)
    for how in ("iterate", "to_arrow"):
        r = ringscan.scan(path, store="sim:ttfb=1ms,bw=1GB/s", threads=1)
        with pytest.raises(KeyboardInterrupt):
            if how == "to_arrow":
                r.to_arrow()
            for _ in r:
                pass
        st = r.stats()
        assert st["complete"] and st["rows_out"] == 0, (how, st["complete"], st["rows_out"])
        r.close()
    assert settle() == 0  # the helpers ended (joined) and released the streams

    class OpenInterrupted(threading.Thread):  # the same in scan()'s open (_interruptible)
        def start(self):
            super().start()
            if self.name == "ringscan-open":
                raise KeyboardInterrupt
    monkeypatch.setattr(_reader.threading, "Thread", OpenInterrupted)
    for source in (path, [path, path]):
        with pytest.raises(KeyboardInterrupt):
            ringscan.scan(source, threads=1)
        assert settle() == 0, source  # the scan its helper started was freed
