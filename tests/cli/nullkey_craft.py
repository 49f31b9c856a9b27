"""tests/cli/nullkey_craft.py: Parquet files holding a map whose key the schema makes OPTIONAL
(parquet-mr 1.12's), with null keys where a test puts them; written byte by byte (pqcraft),
since pyarrow refuses to write one. Used by tests/cli/map_optional_key.py and the Python
package's tests."""
import random

import pqcraft as pc


def ch(page, nv, ptype, path):
    """A column chunk of one page (pqcraft.write's form)."""
    return dict(ptype=ptype, path=path, num_values=nv, pages=[page])


# id, and m: map<string, string> whose key is OPTIONAL
SCH = [pc.elem("schema", nchildren=2), pc.elem("id", pc.REQ, pc.INT64), pc.elem("m", pc.OPT, nchildren=1, conv=1),
       pc.elem("key_value", pc.REP, nchildren=2), pc.elem("key", pc.OPT, pc.BYTE_ARRAY, conv=0),
       pc.elem("value", pc.OPT, pc.BYTE_ARRAY, conv=0)]

# id, a sort key k, and m
SCH4 = [pc.elem("schema", nchildren=3), pc.elem("id", pc.REQ, pc.INT64), pc.elem("k", pc.OPT, pc.INT64)] + SCH[2:]


def ranked_group(ids, keys, bad):
    """A row group of SCH4: rows ids, k = keys, m = null, {}, {a: x}, {a: x} by id (mod 4), and
    {a: x, NULL: w} for the ids in bad."""
    kd = [0 if v is None else 1 for v in keys]
    rep, mkd, mk, mvd, mv = [], [], [], [], []
    for i in ids:
        shape = "bad" if i in bad else ("null", "empty", "one", "one")[i % 4]
        d = {"null": 0, "empty": 1}.get(shape, 3)  # the first entry's key and value levels
        rep.append(0), mkd.append(d), mvd.append(d)
        if d == 3: mk.append(b"a"), mv.append(b"x")
        if shape == "bad": rep.append(1), mkd.append(2), mvd.append(3), mv.append(b"w")
    return (len(ids), [ch(pc.page_v1([], [], 0, 0, pc.plain(pc.INT64, ids), num_values=len(ids)), len(ids), pc.INT64, ["id"]),
                       ch(pc.page_v1([], kd, 0, 1, pc.plain(pc.INT64, [v for v in keys if v is not None]), num_values=len(ids)),
                          len(ids), pc.INT64, ["k"]),
                       ch(pc.page_v1(rep, mkd, 1, 3, pc.plain(pc.BYTE_ARRAY, mk)), len(rep), pc.BYTE_ARRAY, ["m", "key_value", "key"]),
                       ch(pc.page_v1(rep, mvd, 1, 3, pc.plain(pc.BYTE_ARRAY, mv)), len(rep), pc.BYTE_ARRAY, ["m", "key_value", "value"])])


def write_ranked(path, seed=32):
    """Four row groups of 8 rows (id 0..31): a sort key k with ties and nulls, and m, with a
    null key in 5 rows picked from the seed; returns those rows' ids."""
    rng = random.Random(seed)
    keys = [None if rng.random() < 0.1 else rng.randrange(12) for _ in range(32)]
    bad = set(rng.sample(range(32), 5))
    pc.write(path, SCH4, [ranked_group(list(range(g * 8, g * 8 + 8)), keys[g * 8:g * 8 + 8], bad) for g in range(4)])
    return bad
