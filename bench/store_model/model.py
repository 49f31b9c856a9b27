"""A model of io/store_sim.c's schedule for the bench's lineitem shape (l_orderkey and
l_linenumber of each row group: two ranges, or one over the hole between them), used to price
queue merges (io/io_flush.c invariant 6; bench/RESULTS.md, twenty-third session).

Each request takes the connection that frees first, waits ttfb, then transfers at conn_bw on
it and through one FIFO pipe of bw in issue order; `tasks` splits are in flight, each issuing
its ranges when it starts (the next starts when one ends).

    .tools/pyvenv/bin/python bench/store_model/model.py FILE.parquet [--ttfb-ms 50]

prints the time from the first data request to the last byte with no merges, with k merges
spread evenly or bunched first, and with the paced rule of io_flush.c.
"""
import argparse, heapq, math

def sizes(path):
    import pyarrow.parquet as pq
    m = pq.ParquetFile(path).metadata
    out = []
    for g in range(m.num_row_groups):
        rg = m.row_group(g)
        def span(c):
            cc = rg.column(c)
            off = cc.dictionary_page_offset if cc.has_dictionary_page else cc.data_page_offset
            return off, cc.total_compressed_size
        (ao, al), (bo, bl) = span(0), span(3)
        out.append((al, bo - (ao + al), bl))
    return out

def run(splits, merge, tasks=64, conns=64, ttfb=0.05, conn_bw=100e6, bw=500e6):
    """merge(i, R, B, h, dr): whether split i's hole is merged (R, B: ranges and bytes in
    flight plus the demand left, dr: the demand's ranges). Returns (s, requests, bytes)."""
    free = [0.0] * conns
    st = {"pipe": 0.0, "reqs": 0, "bytes": 0, "dr": 2 * len(splits),
          "db": sum(a + b for a, h, b in splits)}
    infl, ev = [], []
    def issue(i, now):
        a, h, b = splits[i]
        while infl and infl[0][0] <= now:
            heapq.heappop(infl)
        R, B = len(infl) + st["dr"], sum(l for _, l in infl) + st["db"]
        rs = [a + h + b] if merge(i, R, B, h, st["dr"]) else [a, b]
        st["dr"] -= 2
        st["db"] -= a + b
        done = now
        for ln in rs:
            k = min(range(conns), key=free.__getitem__)
            first = max(free[k], now) + ttfb
            st["pipe"] = max(st["pipe"], first) + ln / bw
            free[k] = max(first + ln / conn_bw, st["pipe"])
            done = max(done, free[k])
            st["reqs"] += 1
            st["bytes"] += ln
            heapq.heappush(infl, (free[k], ln))
        heapq.heappush(ev, (done, i))
    nxt = 0
    while nxt < min(tasks, len(splits)):
        issue(nxt, 0.0)
        nxt += 1
    end = 0.0
    while ev:
        t, _ = heapq.heappop(ev)
        end = max(end, t)
        if nxt < len(splits):
            issue(nxt, t)
            nxt += 1
    return end, st["reqs"], st["bytes"]

def paced(conns=64, ttfb=0.05, conn_bw=100e6, bw=500e6):
    """io_flush.c's rule: the share of holes the connections' time above the pipe's pays for."""
    acc = [0.0]
    def rule(i, R, B, h, dr):
        if R <= conns or dr < 2 or h / conn_bw >= ttfb:
            return False
        k = ((R * ttfb / conns + B / (conns * conn_bw)) - (ttfb + B / bw)) / \
            ((ttfb - h / conn_bw) / conns + h / bw)
        if k <= 0:
            return False
        acc[0] += min(1.0, k / (dr / 2))
        if acc[0] < 1:
            return False
        acc[0] -= 1
        return True
    return rule

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--ttfb-ms", type=float, default=50)
    o = ap.parse_args()
    s, t = sizes(o.file), o.ttfb_ms / 1000
    n = len(s)
    show = lambda what, r: print(f"{what}: {r[0]*1000:.0f} ms, {r[1]} requests, {r[2]/1e6:.1f} MB")
    show("no merges", run(s, lambda *a: False, ttfb=t))
    for k in (n // 6, n // 4, n // 3):
        even = {int(j * n / k) for j in range(k)}
        show(f"{k} spread", run(s, lambda i, *a: i in even, ttfb=t))
        show(f"{k} first", run(s, lambda i, *a: i < k, ttfb=t))
    show("paced rule", run(s, paced(ttfb=t), ttfb=t))
