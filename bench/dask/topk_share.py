"""Top-K across Dask workers, with and without sharing the bound (issue 24 part 3, the figures
datafusion-distributed reported: scan bytes with sharing / without, 0.25 with 2 tasks and
0.861 with 8). A LocalCluster of 2 worker processes; the Top-K issue's layouts (ringscan gen
topk: pruning, and control with WHERE flag = 0), 32 row groups of 65,536 rows; ORDER BY score
DESC, id LIMIT 100; 2 and 8 tasks (row-group ranges). Prints a Markdown table of bytes read.

    .tools/pkgvenv/bin/python bench/dask/topk_share.py [--rows-per-group N] [--groups N]
(after tests/cli/python_pkg.sh installed ringscan into .tools/pkgvenv)."""
import argparse
import os
import subprocess
import tempfile

from distributed import Client, LocalCluster

import ringscan.dask as rd


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--groups", type=int, default=32)
    ap.add_argument("--rows-per-group", type=int, default=65536)
    ap.add_argument("--k", type=int, default=100)
    a = ap.parse_args()
    binary = os.environ.get("RINGSCAN", "zig-out/bin/ringscan")
    tmp = tempfile.mkdtemp()
    rows = []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      host="127.0.0.1") as cluster, Client(cluster):
        for layout in ("pruning", "control"):
            path = os.path.join(tmp, f"{layout}.parquet")
            subprocess.run([binary, "gen", "topk", "--layout", layout, "--row-groups", str(a.groups),
                            "--row-group-rows", str(a.rows_per_group), "-o", path], check=True,
                           capture_output=True)
            flt = "flag = 0" if layout == "control" else None
            for tasks in (2, 8):
                per = a.groups // tasks
                got = {}
                for share in (False, True):
                    t, info = rd.topk(path, "score DESC, id", a.k, columns=["id", "score"],
                                      filter=flt, share=share, split_row_groups=per)
                    got[share] = (t["id"].to_pylist(), info)
                assert got[False][0] == got[True][0], "sharing changed the answer"
                b0, b1 = got[False][1]["bytes_read"], got[True][1]["bytes_read"]
                rows.append((layout, tasks, b0, b1, got[True][1]["row_groups_pruned"]))
    print("| layout | tasks | MiB read, no sharing | MiB read, sharing | ratio | groups pruned by a bound (sharing) |")
    print("|---|---|---|---|---|---|")
    for layout, tasks, b0, b1, pr in rows:
        print(f"| {layout} | {tasks} | {b0 / 2**20:.1f} | {b1 / 2**20:.1f} | {b1 / b0:.3f} | {pr} |")


if __name__ == "__main__":
    main()
