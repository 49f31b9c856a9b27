#!/usr/bin/env python3
"""Seeded bit flips in the zstd data pages of a DuckDB-written file, ringscan against pyarrow.

Issue 18 defect 8: DuckDB writes zstd frames without a checksum, so a flipped bit in a page
payload often decompresses fine and only the decoders can notice. For every mutant (one bit
flipped at a random position of a random data page's payload, after its header) ringscan must
either exit 1 with a message, or print exactly what pyarrow reads (canonical JSONL, as in
tests/conformance/gen_expected.py). Exit 0 with another answer, or exit 0 where pyarrow
refuses the file, is a mismatch; a signal or another exit status is a crash.

Needs Python with duckdb and pyarrow (scripts/pyenv.sh), so it is not run by tests/run.sh:

    RINGSCAN=zig-out/bin/ringscan $(scripts/pyenv.sh) tests/cli/zstd_flips.py [--mutants N] [--seed S]

A mutant whose flipped page decodes differently in pyarrow's bundled zstd and in the system
libzstd ringscan links (checked with the zstd CLI) is counted apart ("the zstd libraries
disagree"): pyarrow is no reference there, and no page check can tell a well-formed page of the
right length from the original. Prints one line per such mutant, mismatch or crash and a
summary; exits 1 on any mismatch or crash."""
import argparse, os, random, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "conformance"))
import gen_expected  # noqa: E402  canonical JSONL from pyarrow
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

BIN = os.environ.get("RINGSCAN", os.path.join(ROOT, "zig-out", "bin", "ringscan"))

QUERY = """COPY (SELECT i AS id, CASE WHEN i % 7 = 0 THEN NULL ELSE i * 3 END AS n,
  (i % 13) * 1.5 AS d, 'k' || (i % 50) AS s, CASE WHEN i % 11 = 0 THEN NULL ELSE 'v' || i END AS t,
  i % 3 = 0 AS b, DATE '2020-01-01' + (i % 400)::INT AS dt, (i % 200)::SMALLINT AS sm
  FROM range(30000) r(i)) TO '{path}' (FORMAT parquet, COMPRESSION {codec}, ROW_GROUP_SIZE 8192)"""


def make_file(path, codec):
    import duckdb
    duckdb.connect().execute(QUERY.format(path=path, codec=codec))


def varint(b, i):
    v, shift = 0, 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        if not c & 0x80:
            return v, i
        shift += 7


def skip(b, i, t):
    """Skips one compact-protocol value of type t at i."""
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
        n, et = h >> 4, h & 0x0F
        if n == 15:
            n, i = varint(b, i)
        for _ in range(n):
            i = skip(b, i, et)
        return i
    if t == 12:
        return struct(b, i)[1]
    raise ValueError("thrift type %d" % t)


def struct(b, i):
    """Top-level i32 fields of a compact struct at i, and the index after it."""
    fields, fid = {}, 0
    while True:
        h = b[i]
        i += 1
        if h == 0:
            return fields, i
        t, d = h & 0x0F, h >> 4
        if d:
            fid += d
        else:
            z, i = varint(b, i)
            fid = (z >> 1) ^ -(z & 1)
        if t == 5:
            z, i = varint(b, i)
            fields[fid] = (z >> 1) ^ -(z & 1)
        else:
            i = skip(b, i, t)


def data_pages(data, md):
    """(payload start, payload length, uncompressed length) of every data page (v1, v2)."""
    out = []
    for g in range(md.num_row_groups):
        for c in range(md.num_columns):
            cc = md.row_group(g).column(c)
            start = cc.data_page_offset
            if cc.has_dictionary_page and cc.dictionary_page_offset:
                start = min(start, cc.dictionary_page_offset)
            pos, end = start, start + cc.total_compressed_size
            while pos < end:
                f, body = struct(data, pos)
                if f[1] in (0, 3):  # DATA_PAGE, DATA_PAGE_V2
                    out.append((body, f[3], f[2]))
                pos = body + f[3]
    return out


def pyarrow_jsonl(path):
    try:
        table = pq.read_table(path)
    except Exception as e:  # pyarrow refuses the mutant
        return None, " ".join(str(e).split())[:120]
    cols = []
    for i, f in enumerate(table.schema):
        if pa.types.is_string(f.type):  # raw bytes: a flip may leave invalid UTF-8, read as is
            vals = table.column(i).cast(pa.binary()).to_pylist()
            cols.append((f.name, ["null" if v is None else
                                  gen_expected.json_string(v.decode("utf-8", "surrogateescape"))
                                  for v in vals]))
        else:
            cols.append(gen_expected.column_texts(table.select([i]))[0])
    keys = [gen_expected.json_string(c[0]) + ":" for c in cols]
    lines = ["{" + ",".join(k + c[1][r] for k, c in zip(keys, cols)) + "}\n"
             for r in range(table.num_rows)]
    return "".join(lines).encode("utf-8", "surrogateescape"), None


def codecs_disagree(payload, size):
    """True when pyarrow's bundled zstd and the system libzstd (which ringscan links; the zstd
    CLI uses the same library) decode this page payload differently. Without a frame checksum
    a corrupted frame can decode to different bytes of the right length in different zstd
    versions; then pyarrow is no reference for that mutant."""
    try:
        mine = pa.Codec("zstd").decompress(payload, decompressed_size=size).to_pybytes()
    except Exception:
        mine = None
    p = subprocess.run(["zstd", "-q", "-d", "-c"], input=payload, capture_output=True)
    theirs = p.stdout if p.returncode == 0 else None
    return mine != theirs


def ringscan(path):
    # --ordered: row groups in file order (an unordered scan prints them as they finish)
    p = subprocess.run([BIN, "scan", path, "--format", "jsonl", "--ordered"], capture_output=True,
                       timeout=60)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace").strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mutants", type=int, default=500)
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--file", help="an existing file instead of a DuckDB one")
    ap.add_argument("--compression", default="zstd", choices=["zstd", "uncompressed"],
                    help="uncompressed: the flips reach the page decoders unfiltered by zstd")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="zstd_flips")
    src = a.file or os.path.join(tmp, "duckdb_zstd.parquet")
    if not a.file:
        make_file(src, a.compression)
    data = open(src, "rb").read()
    pages = data_pages(data, pq.ParquetFile(src).metadata)
    rc, out, err = ringscan(src)
    want, why = pyarrow_jsonl(src)
    assert rc == 0 and out == want, ("the clean file must read the same", rc, err, why)
    rng = random.Random(a.seed)
    mut = os.path.join(tmp, "mutant.parquet")
    n = {"rejected": 0, "rejected_both": 0, "matched": 0, "mismatch": 0, "crash": 0,
         "codec": 0}
    for k in range(a.mutants):
        body, size, usize = pages[rng.randrange(len(pages))]
        at, bit = body + rng.randrange(size), rng.randrange(8)
        m = bytearray(data)
        m[at] ^= 1 << bit
        open(mut, "wb").write(m)
        rc, out, err = ringscan(mut)
        want, why = pyarrow_jsonl(mut)
        if rc not in (0, 1):
            n["crash"] += 1
            print("CRASH mutant %d (byte %d bit %d): status %d %s" % (k, at, bit, rc, err[:200]))
        elif rc == 1:
            n["rejected"] += 1
            n["rejected_both"] += want is None
        elif want is not None and out == want:
            n["matched"] += 1
        elif a.compression == "zstd" and codecs_disagree(bytes(m[body:body + size]), usize):
            n["codec"] += 1
            print("CODEC mutant %d (byte %d bit %d): ringscan exit 0, pyarrow %s; the two zstd "
                  "libraries decode this corrupted page differently" %
                  (k, at, bit, "refused: " + why if want is None else "read other values"))
        else:
            n["mismatch"] += 1
            keep = os.path.join(tmp, "mismatch%d.parquet" % k)
            open(keep, "wb").write(m)
            print("MISMATCH mutant %d (byte %d bit %d, kept as %s): ringscan exit 0, pyarrow %s"
                  % (k, at, bit, keep, "refused: " + why if want is None else "read other values"))
    print("zstd_flips (%s): %d mutants over %d data pages (seed %d): %d rejected by ringscan (%d of "
          "them by pyarrow too), %d matched pyarrow, %d where the zstd libraries disagree, "
          "%d mismatches, %d crashes"
          % (a.compression, a.mutants, len(pages), a.seed, n["rejected"], n["rejected_both"], n["matched"],
             n["codec"], n["mismatch"], n["crash"]))
    return 1 if n["mismatch"] or n["crash"] else 0


if __name__ == "__main__":
    sys.exit(main())
