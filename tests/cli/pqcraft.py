"""tests/cli/pqcraft.py: a minimal Parquet writer by hand (thrift compact protocol), for tests
that need files no writer makes: any schema element (legacy lists, MAP_KEY_VALUE, malformed
decimals), any repetition and definition levels (RLE runs), v1 and v2 data pages with lying
headers, dictionary pages, statistics. No compression, no page index. write(path, schema,
row_groups) writes one file; see its docstring. write_claiming(path, table, schema): a
pyarrow-written file whose stored ARROW:schema claims other types."""
import struct
def uvar(n):
    out = bytearray()
    while True:
        b = n & 0x7f; n >>= 7
        if n: out.append(b | 0x80)
        else: out.append(b); return bytes(out)
def zz(n): return uvar((n << 1) ^ (n >> 63))
class S:  # a thrift compact struct builder: fields as (id, type, value)
    def __init__(self, *fields): self.fields = [f for f in fields if f is not None and f[2] is not None]
    def enc(self):
        out = bytearray(); last = 0
        for fid, t, v in sorted(self.fields, key=lambda f: f[0]):
            ct = {"bool": 1, "i32": 5, "i64": 6, "bin": 8, "list": 9, "struct": 12}[t]
            if t == "bool": ct = 1 if v else 2
            d = fid - last
            if 0 < d <= 15: out.append((d << 4) | ct)
            else: out.append(ct); out += zz(fid)
            last = fid
            if t in ("i32", "i64"): out += zz(v)
            elif t == "bin":
                v = v.encode() if isinstance(v, str) else v; out += uvar(len(v)) + v
            elif t == "struct": out += v.enc()
            elif t == "list":
                et, items = v
                ect = {"i32": 5, "i64": 6, "bin": 8, "struct": 12}[et]
                out.append((len(items) << 4 | ect) if len(items) < 15 else (0xf0 | ect))
                if len(items) >= 15: out += uvar(len(items))
                for it in items:
                    if et in ("i32", "i64"): out += zz(it)
                    elif et == "bin":
                        it = it.encode() if isinstance(it, str) else it; out += uvar(len(it)) + it
                    else: out += it.enc()
        out.append(0); return bytes(out)
def bitwidth(m): return m.bit_length()
def rle(vals, bw):
    """RLE-only hybrid encoding of vals at bit width bw."""
    out = bytearray(); nb = (bw + 7) // 8; i = 0
    while i < len(vals):
        j = i
        while j < len(vals) and vals[j] == vals[i]: j += 1
        out += uvar((j - i) << 1) + vals[i].to_bytes(nb, "little") if nb else uvar((j - i) << 1)
        i = j
    return bytes(out)
def plain(ptype, vals, tl=0):
    if ptype == 0:  # BOOLEAN
        out = bytearray((len(vals) + 7) // 8)
        for i, v in enumerate(vals):
            if v: out[i // 8] |= 1 << (i % 8)
        return bytes(out)
    if ptype == 1: return b"".join(struct.pack("<i", v) for v in vals)
    if ptype == 2: return b"".join(struct.pack("<q", v) for v in vals)
    if ptype == 4: return b"".join(struct.pack("<f", v) for v in vals)
    if ptype == 5: return b"".join(struct.pack("<d", v) for v in vals)
    if ptype == 6: return b"".join(struct.pack("<I", len(v)) + v for v in vals)
    if ptype == 7: return b"".join(vals)
    raise ValueError(ptype)
INT32, INT64, BOOLEAN, BYTE_ARRAY, FLBA, DOUBLE = 1, 2, 0, 6, 7, 5
REQ, OPT, REP = 0, 1, 2
def elem(name, rep=None, ptype=None, nchildren=None, conv=None, tl=None, logical=None, scale=None, precision=None):
    return S((1, "i32", ptype), (2, "i32", tl), (3, "i32", rep), (4, "bin", name), (5, "i32", nchildren),
             (6, "i32", conv), (7, "i32", scale), (8, "i32", precision), (10, "struct", logical))
def page_v1(rep, defs, maxr, maxd, values_bytes, num_values=None, encoding=0):
    body = b""
    if maxr: r = rle(rep, bitwidth(maxr)); body += struct.pack("<I", len(r)) + r
    if maxd: d = rle(defs, bitwidth(maxd)); body += struct.pack("<I", len(d)) + d
    body += values_bytes
    n = len(defs) if num_values is None else num_values
    h = S((1, "i32", 0), (2, "i32", len(body)), (3, "i32", len(body)),
          (5, "struct", S((1, "i32", n), (2, "i32", encoding), (3, "i32", 3), (4, "i32", 3))))
    return h.enc() + body
def page_v2(rep, defs, maxr, maxd, values_bytes, num_values=None, num_rows=None, num_nulls=None, encoding=0, rep_bytes=None, def_bytes=None):
    r = rle(rep, bitwidth(maxr)) if maxr else b""
    d = rle(defs, bitwidth(maxd)) if maxd else b""
    if rep_bytes is not None: r = rep_bytes
    if def_bytes is not None: d = def_bytes
    body = r + d + values_bytes
    n = len(defs) if num_values is None else num_values
    rows = sum(1 for x in rep if x == 0) if num_rows is None else num_rows
    nulls = sum(1 for x in defs if x < maxd) if num_nulls is None else num_nulls
    h = S((1, "i32", 3), (2, "i32", len(body)), (3, "i32", len(body)),
          (8, "struct", S((1, "i32", n), (2, "i32", nulls), (3, "i32", rows), (4, "i32", encoding),
                          (5, "i32", len(d)), (6, "i32", len(r)), (7, "bool", False))))
    return h.enc() + body
def dict_page(ptype, vals):
    body = plain(ptype, vals)
    h = S((1, "i32", 2), (2, "i32", len(body)), (3, "i32", len(body)),
          (7, "struct", S((1, "i32", len(vals)), (2, "i32", 0))))
    return h.enc() + body
def dict_indices(idx, bw):
    return bytes([bw]) + rle(idx, bw)
def write(path, schema, row_groups, num_rows=None, kv=None):
    """schema: list of elem (root first). row_groups: list of (rows, [column chunks]) where a
    chunk is dict(ptype, path, pages=[bytes], num_values, dict=bytes or None, stats=S or None)."""
    out = bytearray(b"PAR1"); rgs = []; total = 0
    for rows, chunks in row_groups:
        ccs = []
        for c in chunks:
            start = len(out); dpo = None
            if c.get("dict"):
                dpo = len(out); out += c["dict"]
            dataoff = len(out)
            for p in c["pages"]: out += p
            size = len(out) - start
            md = S((1, "i32", c["ptype"]), (2, "list", ("i32", [0, 3, 8])), (3, "list", ("bin", c["path"])),
                   (4, "i32", 0), (5, "i64", c["num_values"]), (6, "i64", size), (7, "i64", size),
                   (9, "i64", dataoff), (11, "i64", dpo), (12, "struct", c.get("stats")))
            ccs.append(S((2, "i64", start), (3, "struct", md)))
        rgs.append(S((1, "list", ("struct", ccs)), (2, "i64", 0), (3, "i64", rows)))
        total += rows
    fm = S((1, "i32", 1), (2, "list", ("struct", schema)), (3, "i64", total if num_rows is None else num_rows),
           (4, "list", ("struct", rgs)),
           (5, "list", ("struct", [S((1, "bin", k), (2, "bin", v)) for k, v in (kv or {}).items()])) if kv else None,
           (6, "bin", "pqcraft"))
    f = fm.enc()
    out += f + struct.pack("<I", len(f)) + b"PAR1"
    open(path, "wb").write(out)

def write_claiming(path, table, claimed):
    """table written by pyarrow with the stored Arrow schema claimed (a pyarrow.Schema) in
    place of its own: the key added as "ARROX:schema", then renamed in the file's bytes."""
    import base64, pyarrow.parquet as pq
    w = pq.ParquetWriter(path, table.schema, store_schema=False)
    w.write_table(table)
    w.add_key_value_metadata({b"ARROX:schema": base64.b64encode(claimed.serialize().to_pybytes())})
    w.close()
    data = open(path, "rb").read()
    assert data.count(b"ARROX:schema") == 1
    open(path, "wb").write(data.replace(b"ARROX:schema", b"ARROW:schema"))
