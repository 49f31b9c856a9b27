"""The same query on one machine, then on a Dask cluster: the one line that changes is how the
rows are read (ringscan.scan -> ringscan.dask.read_parquet).

    python examples/dask_query.py li.parquet [tcp://scheduler:8786]

With no scheduler address it starts a LocalCluster of two worker processes."""
import sys

import ringscan
import ringscan.dask
from distributed import Client, LocalCluster


def main():
    path = sys.argv[1]
    cols, where = ["l_returnflag", "l_extendedprice"], "l_shipdate <= DATE '1998-09-02'"

    # one machine: a pandas frame from an Arrow table
    df = ringscan.scan(path, columns=cols, filter=where).to_arrow().to_pandas()
    df["l_extendedprice"] = df["l_extendedprice"].astype("float64")  # decimals arrive as Decimal
    print(df.groupby("l_returnflag")["l_extendedprice"].sum().sort_index())

    # a cluster
    client = Client(sys.argv[2]) if len(sys.argv) > 2 else Client(LocalCluster(n_workers=2, processes=True))
    ddf = ringscan.dask.read_parquet(path, columns=cols, filter=where)   # <- the line that changes
    ddf["l_extendedprice"] = ddf["l_extendedprice"].astype("float64")
    print(ddf.groupby("l_returnflag")["l_extendedprice"].sum().compute().sort_index())
    client.close()


if __name__ == "__main__":  # worker processes import this file: start nothing then
    main()
