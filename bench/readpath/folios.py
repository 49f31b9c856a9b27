#!/usr/bin/env python3
"""bench/readpath/folios.py: how a cached file's pages sit in the page cache: the share of its
pages in large folios (compound pages) and in 4 KiB ones (issue 26: the copy out of a cache of
small folios costs more per byte; bench/RESULTS.md, twenty-fifth session).

    sudo python3 bench/readpath/folios.py FILE

Maps FILE read-only, touches every page (a page not cached is read in, so run it on a file
already cached to see its state), reads each page's frame from /proc/self/pagemap and that
frame's flags from /proc/kpageflags (bit 15 compound head, 16 compound tail). Needs root."""
import mmap
import os
import struct
import sys

KPF_COMPOUND_HEAD, KPF_COMPOUND_TAIL = 15, 16


def main():
    path = sys.argv[1]
    fd = os.open(path, os.O_RDONLY)
    n = os.fstat(fd).st_size // 4096
    m = mmap.mmap(fd, n * 4096, prot=mmap.PROT_READ)
    for i in range(0, n * 4096, 4096):
        m[i]
    real = os.path.realpath(path)
    with open("/proc/self/maps") as f:
        start = int(next(l for l in f if l.rstrip().endswith(real)).split("-")[0], 16)
    head = tail = small = absent = 0
    with open("/proc/self/pagemap", "rb") as pm, open("/proc/kpageflags", "rb") as kf:
        for i in range(n):
            pm.seek((start // 4096 + i) * 8)
            e = struct.unpack("<Q", pm.read(8))[0]
            if not e >> 63 & 1:
                absent += 1
                continue
            kf.seek((e & ((1 << 55) - 1)) * 8)
            fl = struct.unpack("<Q", kf.read(8))[0]
            if fl >> KPF_COMPOUND_HEAD & 1:
                head += 1
            elif fl >> KPF_COMPOUND_TAIL & 1:
                tail += 1
            else:
                small += 1
    tot = max(1, head + tail + small)
    print(f"{path}: {n} pages, {absent} not present; in large folios {100 * (head + tail) / tot:.1f}% "
          f"({head} folios, mean {(head + tail) / max(1, head):.1f} pages), "
          f"in 4 KiB folios {100 * small / tot:.1f}%")


if __name__ == "__main__":
    main()
