"""The same query on one machine, then on a Dask cluster: the one line that changes is how the
rows are read (ringscan.scan -> ringscan.dask.read_parquet).

    python examples/dask_query.py li.parquet [tcp://scheduler:8786]

With no scheduler address it starts a LocalCluster of two worker processes."""
import sys

import ringscan
import ringscan.dask

path = sys.argv[1]
cols, where = ["l_returnflag", "l_extendedprice"], "l_shipdate <= DATE '1998-09-02'"

# one machine: a pandas frame from an Arrow table
df = ringscan.scan(path, columns=cols, filter=where).to_arrow().to_pandas()
print(df.groupby("l_returnflag")["l_extendedprice"].sum().sort_index())

# a cluster
from distributed import Client, LocalCluster  # noqa: E402

client = Client(sys.argv[2]) if len(sys.argv) > 2 else Client(LocalCluster(n_workers=2, processes=True))
ddf = ringscan.dask.read_parquet(path, columns=cols, filter=where)   # <- the line that changes
print(ddf.groupby("l_returnflag")["l_extendedprice"].sum().compute().sort_index())
client.close()
