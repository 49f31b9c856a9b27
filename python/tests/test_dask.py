"""ringscan.dask on a real two-process LocalCluster: results equal to a local scan, pruning
planned on the client, a worker killed mid-query retried by Dask with the exact answer, and
Top-K with and without bound sharing giving the same rows."""
import os
import signal
import subprocess
import time

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

distributed = pytest.importorskip("distributed")

import ringscan
import ringscan.dask as rd
from conftest import binary


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      host="127.0.0.1", worker_dashboard_address=None) as cluster, \
            Client(cluster, timeout=60) as c:
        yield c


@pytest.fixture(scope="module")
def small_groups(tmp_path_factory):
    """lineitem sf 0.01 in 8 row groups (the planning and retry tests want several)."""
    p = tmp_path_factory.mktemp("dask") / "li8.parquet"
    subprocess.run([binary(), "gen", "lineitem", "--sf", "0.01", "--row-group-rows", "7600",
                    "-o", str(p)], check=True, capture_output=True)
    return str(p)


def test_read_parquet_equals_local(client, small_groups):
    cols = ["l_orderkey", "l_quantity", "l_shipmode"]
    f = "l_orderkey < 30000 AND l_shipmode = 'AIR'"
    df = rd.read_parquet([small_groups], columns=cols, filter=f)
    kept = ringscan.plan_row_groups(small_groups, columns=cols, filter=f)
    assert df.npartitions == len(kept) < pq.ParquetFile(small_groups).metadata.num_row_groups
    got = df.compute()
    want = ringscan.scan(small_groups, columns=cols, filter=f).to_arrow().to_pandas()
    assert list(got.columns) == cols
    assert got["l_orderkey"].tolist() == want["l_orderkey"].tolist()
    assert got["l_shipmode"].tolist() == want["l_shipmode"].tolist()
    # the work ran on the workers, not here
    assert len(client.scheduler_info()["workers"]) == 2


def test_worker_killed_mid_query(client, small_groups):
    # each part waits on a simulated 150 ms store, so the query is still running when a worker
    # dies; Dask reruns its tasks on the other (its nanny restarts it) and the answer is exact
    df = rd.read_parquet(small_groups, columns=["l_orderkey"], store="sim:ttfb=150ms,bw=50MB/s")
    fut = client.compute(df["l_orderkey"].sum())
    deadline = time.time() + 30
    while time.time() < deadline and not any(client.processing().values()):
        time.sleep(0.02)
    assert any(client.processing().values()), "no task was running to interrupt"
    pids = client.run(os.getpid)
    victim = sorted(pids.values())[0]
    os.kill(victim, signal.SIGKILL)
    total = fut.result(timeout=120)
    want = pc.sum(pq.read_table(small_groups, columns=["l_orderkey"])["l_orderkey"]).as_py()
    assert total == want
    client.wait_for_workers(2, timeout=60)
    assert victim not in client.run(os.getpid).values()  # it did die; the nanny made a new one


def test_topk_shared_and_unshared_agree(client, tmp_path):
    p = tmp_path / "topk.parquet"
    subprocess.run([binary(), "gen", "topk", "--layout", "pruning", "--row-groups", "16",
                    "--row-group-rows", "8192", "-o", str(p)], check=True, capture_output=True)
    want = subprocess.run([binary(), "gen", "topk", "--layout", "pruning", "--row-groups", "16",
                           "--row-group-rows", "8192", "--expect", "50"],
                          check=True, capture_output=True, text=True).stdout.split()
    want_ids = [int(x) for x in want]
    assert len(want_ids) == 50
    runs = {}
    for share in (False, True):
        t, info = rd.topk(str(p), "score DESC, id", 50, columns=["id", "score"], share=share,
                          split_row_groups=4)
        assert t.num_rows == 50 and info["tasks"] == 4
        assert t["id"].to_pylist() == want_ids
        runs[share] = info
    assert runs[True]["bytes_read"] <= runs[False]["bytes_read"]


def test_example_one_machine_then_cluster(small_groups):
    import sys
    ex = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "dask_query.py")
    out = subprocess.run([sys.executable, ex, small_groups], capture_output=True, text=True,
                         timeout=180)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = [l for l in out.stdout.splitlines() if l[:1] in "ANR" and len(l.split()) == 2]
    assert len(lines) == 6, out.stdout          # three flags, once per way of reading
    local, cluster = lines[:3], lines[3:]
    assert [l.split()[0] for l in local] == ["A", "N", "R"]
    assert [float(l.split()[1]) for l in local] == pytest.approx([float(l.split()[1]) for l in cluster])


def test_topk_when_statistics_rule_out_everything(client, small_groups):
    t, info = rd.topk(small_groups, "l_orderkey DESC", 5, columns=["l_orderkey"],
                      filter="l_orderkey < 0")
    assert t.num_rows == 0 and t.column_names == ["l_orderkey"] and info["tasks"] == 0

