"""tests/cli/filter_duckdb.py: random filters, ringscan against DuckDB. Writes one pyarrow file
(20,000 rows, row groups of 2,000, 2 KiB pages, page index and statistics; ints with nulls and
INT32/INT64 extremes, doubles with NaN, -0.0 and +-inf, floats with NaN, strings with unicode,
'', '%', '_' and mixed case, booleans, dates; k sorted, b and dt sorted within each row group)
and runs --count filters from a grammar: an AND of 1..3 clauses, each a tree of AND / OR / NOT
up to depth 5 over atoms on one column or, in about a third of the clauses, on two or three
(comparisons either way round, of two columns too, [NOT] BETWEEN, [NOT] IN, IS [NOT] NULL,
IS [NOT] DISTINCT FROM, [NOT] [I]LIKE [ESCAPE], starts_with, year(), date_trunc(), month(),
day() and quarter() compared, BETWEEN and IN). Each filter's
count(*) and sum(i) from `ringscan scan --where F --columns i --format csv` (policy and threads
rotated: lazy/eager/adaptive x 1/2) must equal DuckDB's `SELECT count(*), sum(i) ... WHERE F`
over the same rows loaded from pyarrow (DuckDB 2.0.1's read_parquet drops FLOAT NaN rows by
statistics, e.g. isnan(f) finds none, so it is only compared and counted, not trusted).
About a fifth of the atoms compare value expressions: + - * / and unary minus, CAST to
INTEGER, BIGINT, DECIMAL(18,2), DOUBLE, REAL and TIMESTAMP, DATE - DATE and DATE +- days,
columns of different kinds (integers with doubles and floats), against literals or other
expressions (the INT32/INT64 columns with extremes only widened, so DuckDB raises no overflow).
Then filters ringscan must refuse (strings, booleans or dates compared with numbers, arithmetic
on them): exit 1 or 2, nothing on stdout, stderr says 'cannot compare' or 'takes no arithmetic'
and names a column.
Usage: python filter_duckdb.py RINGSCAN DIR [--seed S] [--count N] [--case K]
       [--cnf-budget C] [--verbose]
DIR keeps data.parquet (the same seed writes the same file); --case K reruns filter #K alone.
--cnf-budget (default 64; 0: none) regenerates
clauses whose estimated conjunctive normal form has more conjuncts: ringscan refuses beyond
256 ("filter too large in conjunctive normal form")."""
import argparse
import datetime
import random
import re
import shlex
import subprocess
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

ap = argparse.ArgumentParser()
ap.add_argument("ringscan")
ap.add_argument("dir")
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--count", type=int, default=300)
ap.add_argument("--case", type=int, default=None, help="run only random filter #K")
ap.add_argument("--cnf-budget", type=int, default=64,
                help="most conjuncts a filter may have in CNF (estimated); 0: no limit")
ap.add_argument("--verbose", action="store_true", help="print every filter")
args = ap.parse_args()

N, RG = 20_000, 2_000
I32, I64 = (-2**31, 2**31 - 1), (-2**63, 2**63 - 1)
NAN, INF = float("nan"), float("inf")
D0 = datetime.date(1990, 1, 1)


# ---- the data -----------------------------------------------------------------------------
def sorted_in_groups(vals):
    """vals sorted within each row group, nulls left where they were."""
    out = []
    for g in range(0, len(vals), RG):
        chunk = vals[g:g + RG]
        it = iter(sorted(v for v in chunk if v is not None))
        out += [None if v is None else next(it) for v in chunk]
    return out


STRINGS = ["Special", "sPeCiAl", "special", "SPECIAL", "SpEcIaL!", "é", "É", "café", "Café",
           "日本", "日本語", "😀", "a😀b", "a%b", "a_b", "ab", "Ab", "AB", "abc", "abd", "abcd",
           "100%", "50% off", "x_y_z", "_lead", "%lead", "trail_", "trail%", "", " ", "it's",
           "wow!", "a!b", "a!%b", "zzz", "Z", "ÿ", "İstanbul", "istanbul", "\u212aelvin", "kelvin",
           "ΣΑΣ", "σας", "Straße", "STRASSE", "ÄÖÜ", "äöü"]


def make_data(rnd):
    def maybe(p, f):
        return None if rnd.random() < p else f()

    k, acc = [], 0
    for _ in range(N):
        acc += rnd.randint(0, 3)
        k.append(acc)

    def a_val():
        r = rnd.random()
        return I32[0] if r < 0.02 else I32[1] if r < 0.04 else rnd.randint(-1000, 1000)

    def b_val():
        r = rnd.random()
        return I64[0] if r < 0.01 else I64[1] if r < 0.02 else rnd.randint(-10**12, 10**12)

    def d_val():
        r = rnd.random()
        if r < 0.025: return NAN
        if r < 0.035: return -0.0
        if r < 0.045: return 0.0
        if r < 0.052: return INF
        if r < 0.059: return -INF
        if r < 0.062: return 1.7976931348623157e308
        return rnd.randint(-64000, 64000) / 64  # exact and short in decimal

    def f_val():
        r = rnd.random()
        if r < 0.03: return NAN
        if r < 0.04: return -0.0
        return rnd.randint(-400, 400) / 4

    def s_val():
        if rnd.random() < 0.5: return rnd.choice(STRINGS)
        return rnd.choice(["w", "W", "item_", "v%", "k"]) + str(rnd.randint(0, 400))

    b = [maybe(0.1, b_val) for _ in range(N)]
    b[4 * RG:5 * RG] = [None] * RG  # one row group of b is all null
    cols = {
        "i": list(range(N)),
        "k": k,
        "a": [maybe(0.1, a_val) for _ in range(N)],
        "b": sorted_in_groups(b),
        "d": [maybe(0.08, d_val) for _ in range(N)],
        "f": [maybe(0.08, f_val) for _ in range(N)],
        "s": [maybe(0.1, s_val) for _ in range(N)],
        "t": [maybe(0.15, lambda: rnd.random() < 0.5) for _ in range(N)],
        "dt": sorted_in_groups([maybe(0.1, lambda: D0 + datetime.timedelta(rnd.randint(0, 4017)))
                                for _ in range(N)]),
    }
    types = {"i": pa.int64(), "k": pa.int64(), "a": pa.int32(), "b": pa.int64(),
             "d": pa.float64(), "f": pa.float32(), "s": pa.string(), "t": pa.bool_(),
             "dt": pa.date32()}
    return cols, pa.table({c: pa.array(v, types[c]) for c, v in cols.items()})


# ---- the filter generator -----------------------------------------------------------------
KIND = {"i": "int", "k": "int", "a": "int", "b": "int", "d": "float", "f": "float", "s": "str",
        "t": "bool", "dt": "date"}
RANGE = {"i": I64, "k": I64, "a": I32, "b": I64}
WEIGHT = {"i": 1, "k": 2, "a": 3, "b": 2, "d": 3, "f": 2, "s": 4, "t": 1, "dt": 2}
CMP = ["=", "!=", "<>", "<", "<=", ">", ">="]


class Gen:
    def __init__(self, rnd, cols):
        self.r = rnd
        self.vals = {c: sorted(set(v for v in vs if v is not None and v == v))
                     for c, vs in cols.items()}
        self.ascii = [v for v in self.vals["s"] if v.isascii()]

    def kw(self, w):
        x = self.r.random()
        if x < 0.6: return w.upper()
        if x < 0.85: return w.lower()
        return "".join(c.upper() if self.r.random() < 0.5 else c.lower() for c in w)

    # literals
    def lit(self, col):
        r, kind = self.r, KIND[col]
        if kind in ("int", "float", "bool") and r.random() < 0.12:
            return self.text_lit(col)
        return self.plain_lit(col)

    def text_lit(self, col):
        """A string literal against a number or boolean column, which DuckDB casts to the
        column's type: spaces around, a sign, '5.5' into an integer (rounded half away from
        zero), 'nan', 'inf' and 'Infinity' in any case into a float."""
        r, kind = self.r, KIND[col]
        if kind == "bool":
            return self.quote(r.choice(["true", "F", "yes", "n", "0", "1", "T"]))
        if kind == "float" and r.random() < 0.5:
            v = r.choice(["nan", "NaN", "inf", "-inf", "+Inf", "Infinity", "-infinity", "-nan"])
        else:
            v = self.plain_lit(col)
            lo, hi = RANGE.get(col, (None, None))
            if kind == "int" and lo < int(v) < hi and r.random() < 0.3:
                v = f"{v}.5"  # (rounds away from zero, still in range)
        return self.quote(r.choice(["", " "]) + v + r.choice(["", " "]))

    def plain_lit(self, col):
        r, kind = self.r, KIND[col]
        vals = self.vals[col]
        if kind == "int":
            lo, hi = RANGE[col]
            x = r.random()
            if x < 0.5: v = r.choice(vals)
            elif x < 0.7: v = r.choice(vals) + r.choice([-1, 1])
            elif x < 0.85: v = r.randint(vals[0] - 5, vals[-1] + 5)
            elif x < 0.95: v = r.choice([lo, lo + 1, hi - 1, hi])
            else: v = 0
            return str(min(max(v, lo), hi))
        if kind == "float":
            x = r.random()
            if x < 0.5: v = r.choice(vals)
            elif x < 0.7: v = r.randint(-400, 400) / 4
            else:
                return r.choice(["0", "-0.0", "0.0", "0.5", "-0.5", "1e3", "-1e3", "1.5E2", "1e308",
                                 "-1e308", "1.7976931348623157e308", "-1.7976931348623157e308"]
                                if col == "d" else ["0", "-0.0", "0.5", "1e3", "-1e3", "2.5e1"])
            if v in (INF, -INF): v = 1e308 if v > 0 else -1e308
            if v == 0: return r.choice(["0", "0.0", "-0.0"])
            if v == int(v) and abs(v) < 1e15 and r.random() < 0.5: return str(int(v))
            return repr(v)
        if kind == "str":
            x = r.random()
            if x < 0.5: v = r.choice(vals)
            elif x < 0.65: v = r.choice(vals)[:r.randint(0, 3)]
            elif x < 0.75: v = r.choice(vals) + "x"
            elif x < 0.9: v = r.choice(["a", "m", "w1", "w20", "z", "zzzz", "Spec", "SPECIAL"])
            elif x < 0.95: v = ""
            else: v = r.choice(["é", "日", "😀", "ÿ", "~"])
            return self.quote(v)
        if kind == "bool":
            return self.kw(r.choice(["TRUE", "FALSE"]))
        d = r.choice(vals) if r.random() < 0.6 else D0 + datetime.timedelta(r.randint(-30, 4050))
        if r.random() < 0.1:
            d = r.choice([datetime.date(1970, 1, 1), datetime.date(1900, 1, 1),
                          datetime.date(2100, 12, 31)])
        if r.random() < 0.2: return f"'{d.isoformat()}'"
        return f"{self.kw('DATE')} '{d.isoformat()}'"

    @staticmethod
    def quote(v):
        return "'" + v.replace("'", "''") + "'"

    def like_pattern(self, src, esc=None):
        r, out = self.r, []
        chars = list(src)
        i = 0
        while i < len(chars):
            ch, x = chars[i], r.random()
            if x < 0.12: out.append("_")
            elif x < 0.22:
                out.append("%")
                if r.random() < 0.5: i += 1
            elif x < 0.26: pass
            elif esc and ch in ("%", "_", esc): out.append(esc + ch)
            else: out.append(ch)
            i += 1
        p = "".join(out)
        if r.random() < 0.25: p = "%" + p
        if r.random() < 0.35: p += "%"
        if r.random() < 0.08: p = r.choice(["%", "_", "__", "", "%%", "%_%", "_%"])
        return p

    # atoms: (text) or ("not", atom) nodes
    def atom(self, col, budget):
        """A leaf on col: ("atom", text, form, literals) or, while budget (levels left) lasts,
        ("not", leaf)."""
        r = self.r
        if isinstance(col, list): col = r.choice(col)
        kind = KIND[col]
        forms = ["cmp"] * 25 + ["lcmp"] * 8 + ["btw"] * 8 + ["nbtw"] * 5 + ["in"] * 8 + \
                ["nin"] * 5 + ["null"] * 4 + ["nnull"] * 4 + ["dist"] * 4 + ["ndist"] * 4 + \
                ["not"] * (6 if budget > 0 else 0) + ["two"] * (6 if PAIRS.get(col) else 0) + \
                ["year"] * (8 if kind == "date" else 0) + ["trunc"] * (8 if kind == "date" else 0) + \
                ["part"] * (8 if kind == "date" else 0)
        if kind in ("int", "float", "date"):
            forms += ["arith"] * 12 + ["arbtw"] * 3 + ["arin"] * 3 + ["mixed"] * (4 if col in MIXED else 0)
        if kind == "str":
            forms += ["like"] * 8 + ["nlike"] * 4 + ["ilike"] * 6 + ["nilike"] * 3 + \
                     ["esc"] * 5 + ["sw"] * 5
        f = r.choice(forms)
        kw, nlit = self.kw, 1
        if f == "cmp": t = f"{col} {r.choice(CMP)} {self.lit(col)}"
        elif f == "mixed": t = f"{col} {r.choice(CMP)} {r.choice(MIXED[col])}"
        elif f in ("arith", "arbtw", "arin"):
            (x, vk), nlit = self.typed_value(col, r.randint(1, 3)), 1
            if f == "arith": t = f"{x} {r.choice(CMP)} {self.rhs(col, vk)}"
            elif f == "arbtw":
                neg = kw("NOT") + " " if r.random() < 0.3 else ""
                t = f"{x} {neg}{kw('BETWEEN')} {self.rhs(col, vk)} {kw('AND')} {self.rhs(col, vk)}"
            else:
                nlit = r.randint(1, 3)
                neg = kw("NOT") + " " if r.random() < 0.3 else ""
                t = f"{x} {neg}{kw('IN')} ({', '.join(self.rhs(col, vk) for _ in range(nlit))})"
        elif f == "two": t = f"{col} {r.choice(CMP)} {r.choice(PAIRS[col])}"
        elif f == "part":
            part, hi = r.choice([("month", 13), ("day", 32), ("quarter", 5)])
            fn = f"{kw(part)}({col})"
            x = r.random()
            if x < 0.6: t = f"{fn} {r.choice(CMP)} {r.randint(0, hi)}"
            elif x < 0.8:
                neg = kw("NOT") + " " if r.random() < 0.3 else ""
                t = f"{fn} {neg}{kw('BETWEEN')} {r.randint(0, hi)} {kw('AND')} {r.randint(0, hi)}"
            else:
                neg = kw("NOT") + " " if r.random() < 0.3 else ""
                t = f"{fn} {neg}{kw('IN')} ({', '.join(str(r.randint(0, hi)) for _ in range(3))})"
        elif f in ("year", "trunc"):
            fn = f"{kw('year')}({col})" if f == "year" else \
                f"{kw('date_trunc')}('{r.choice(['year', 'quarter', 'month', 'day'])}', {col})"
            def one():
                if f == "year": return str(r.randint(1988, 2002))
                d = D0 + datetime.timedelta(r.randint(-400, 4400))
                if r.random() < 0.4: d = d.replace(day=1)  # a month's first day: a boundary
                return f"DATE '{d.isoformat()}'"
            x = r.random()
            if x < 0.6: t = f"{fn} {r.choice(CMP)} {one()}"
            elif x < 0.8:
                neg = kw("NOT") + " " if r.random() < 0.3 else ""
                t = f"{fn} {neg}{kw('BETWEEN')} {one()} {kw('AND')} {one()}"
            else:
                nlit = r.randint(1, 3)
                neg = kw("NOT") + " " if r.random() < 0.3 else ""
                t = f"{fn} {neg}{kw('IN')} ({', '.join(one() for _ in range(nlit))})"
        elif f == "lcmp": t = f"{self.lit(col)} {r.choice(CMP)} {col}"
        elif f in ("btw", "nbtw"):
            t = f"{col} {kw('NOT') + ' ' if f == 'nbtw' else ''}{kw('BETWEEN')} {self.lit(col)} " \
                f"{kw('AND')} {self.lit(col)}"
        elif f in ("in", "nin"):
            nlit = r.randint(1, 5)
            lits = ", ".join(self.lit(col) for _ in range(nlit))
            t = f"{col} {kw('NOT') + ' ' if f == 'nin' else ''}{kw('IN')} ({lits})"
        elif f == "null": t = f"{col} {kw('IS')} {kw('NULL')}"
        elif f == "nnull": t = f"{col} {kw('IS')} {kw('NOT')} {kw('NULL')}"
        elif f == "dist": t = f"{col} {kw('IS')} {kw('DISTINCT')} {kw('FROM')} {self.lit(col)}"
        elif f == "ndist":
            t = f"{col} {kw('IS')} {kw('NOT')} {kw('DISTINCT')} {kw('FROM')} {self.lit(col)}"
        elif f == "not": return ("not", self.atom(col, budget - 1))
        elif f in ("like", "nlike"):
            p = self.like_pattern(r.choice(self.vals[col]))
            t = f"{col} {kw('NOT') + ' ' if f == 'nlike' else ''}{kw('LIKE')} {self.quote(p)}"
        elif f in ("ilike", "nilike"):
            p = self.like_pattern(r.choice(self.ascii if r.random() < 0.5 else self.vals[col]))
            p = "".join(c.upper() if r.random() < 0.5 else c.lower() for c in p)
            t = f"{col} {kw('NOT') + ' ' if f == 'nilike' else ''}{kw('ILIKE')} {self.quote(p)}"
        elif f == "esc":
            odd = [v for v in self.vals[col] if any(c in v for c in "%_!")]
            src = r.choice(odd if r.random() < 0.6 else self.vals[col])
            ilike = r.random() < 0.2
            p = self.like_pattern(src, esc="!")
            if ilike: p = "".join(c.upper() if r.random() < 0.5 else c.lower() for c in p)
            neg = kw("NOT") + " " if r.random() < 0.3 else ""
            t = f"{col} {neg}{kw('ILIKE' if ilike else 'LIKE')} {self.quote(p)} " \
                f"{kw('ESCAPE')} '!'"
        else:  # starts_with
            v = r.choice(self.vals[col])
            x = r.random()
            v = v[:r.randint(0, 4)] if x < 0.6 else v if x < 0.8 else \
                r.choice(["", "w", "item_", "日", "Spec", "zz"])
            t = f"starts_with({col}, {self.quote(v)})"
        return ("atom", t, f, nlit)

    # value expressions (arithmetic, CAST), kept where DuckDB raises no overflow: the INT32
    # and INT64 columns with extremes (a, b) enter only widened or as doubles
    def leaf(self, col):
        r = self.r
        if KIND[col] == "date": return col
        if col == "a": return r.choice([f"CAST(a AS {self.kw('BIGINT')})", "CAST(a AS DOUBLE)"])
        if col == "b": return "CAST(b AS DOUBLE)"
        if KIND[col] == "int" and r.random() < 0.25:
            return f"CAST({col} AS {r.choice(['INTEGER', 'DECIMAL(18,2)', 'DOUBLE', 'REAL'])})"
        if KIND[col] == "float" and r.random() < 0.2:  # d holds 1.79e308: no FLOAT for it
            return f"CAST({col} AS {r.choice(['DOUBLE', 'REAL'] if col == 'f' else ['DOUBLE'])})"
        return col

    def number(self, nonzero=False):
        r = self.r
        v = r.choice(["2", "3", "7", "10", "100", "1.5", "0.25", "2.75", "1e1", "0.5e0", "1000",
                      "0", "1", "-3", "-1.25"])
        return r.choice(["2", "1.5", "-3"]) if nonzero and v in ("0", "0.5e0") else v

    def value(self, col, depth):
        """A value expression over col (and now and then another numeric column)."""
        return self.typed_value(col, depth)[0]

    def typed_value(self, col, depth):
        """(text, kind): kind "num", "days" (a date), or "ts" (a timestamp)."""
        r = self.r
        if KIND[col] == "date":
            x = r.random()
            if x < 0.4:
                other = r.choice(["dt", str(r.randint(-400, 400))])
                return f"{col} - {other}", "num" if other == "dt" else "days"
            if x < 0.7: return f"{col} + {r.randint(-400, 400)}", "days"
            return f"CAST({col} AS {self.kw('TIMESTAMP')})", "ts"
        if depth <= 0: return self.leaf(col if r.random() < 0.8 else r.choice(list(NUMERIC))), "num"
        x = r.random()
        if x < 0.1: return f"-({self.value(col, depth - 1)})", "num"
        if x < 0.2: return f"CAST({self.value(col, depth - 1)} AS DOUBLE)", "num"
        op = r.choice(["+", "-", "*", "/"])
        a = self.value(col, depth - 1)  # the side with a column
        if op == "*" and depth > 1: b = self.number()  # keep magnitudes small
        elif r.random() < 0.4: b = self.value(r.choice(list(NUMERIC)), depth - 1)
        else: b = self.number(nonzero=op == "/")
        if r.random() < 0.5: a, b = b, a
        return f"({a} {op} {b})", "num"  # bare, a / b * c would regroup

    def rhs(self, col, kind="num"):
        r = self.r
        day = D0 + datetime.timedelta(r.randint(-30, 4050))
        if kind == "days": return f"DATE '{day.isoformat()}'" if r.random() < 0.8 else f"'{day.isoformat()}'"
        if kind == "ts":
            return f"TIMESTAMP '{day.isoformat()} 12:00:00'" if r.random() < 0.5 else f"DATE '{day.isoformat()}'"
        if KIND[col] == "date": return str(r.randint(-400, 400))
        x = r.random()
        if x < 0.4: return self.lit(col) if KIND[col] == "int" and col not in ("a", "b") else self.number()
        if x < 0.7: return self.number()
        return self.value(r.choice(list(NUMERIC)), 1)

    def tree(self, col, depth, maxd):
        r = self.r
        if depth >= maxd or r.random() < 0.2: return self.atom(col, maxd - depth)
        x = r.random()
        if x < 0.15: return ("not", self.tree(col, depth + 1, maxd))
        kids = [self.tree(col, depth + 1, maxd) for _ in range(2 if r.random() < 0.75 else 3)]
        return ("and" if x < 0.45 else "or", kids)

    PREC = {"or": 1, "and": 2, "not": 3, "atom": 4}

    def render(self, node, need):
        """SQL text of node; parentheses where the context (need: the lowest precedence that
        may stand bare) requires them, and now and then where it does not."""
        t = node[0]
        if t == "atom": s = node[1]
        elif t == "not": s = f"{self.kw('NOT')} {self.render(node[1], 3)}"
        else:
            s = self.render(node[1][0], self.PREC[t])
            for k in node[1][1:]:
                s += f" {self.kw(t.upper())} {self.render(k, self.PREC[t])}"
        if self.PREC[t] < need or self.r.random() < 0.12: s = f"({s})"
        return s

    # (conjuncts, most terms in one) of node in conjunctive normal form, NOT pushed to the
    # leaves, over-estimated: BETWEEN as two comparisons, [NOT] IN as its !=s when negated.
    LEAF = {"btw": ((2, 1), (1, 2)), "nbtw": ((1, 2), (2, 1)), "dist": ((2, 2), (2, 2)),
            "ndist": ((2, 2), (2, 2))}

    @staticmethod
    def cnf(node, pos=True):
        t = node[0]
        if t == "atom":
            f, n = node[2], node[3]
            if f in ("in", "nin"): return (1, n) if (f == "in") == pos else (n, 1)
            return Gen.LEAF.get(f, ((1, 1), (1, 1)))[0 if pos else 1]
        if t == "not": return Gen.cnf(node[1], not pos)
        kids = [Gen.cnf(k, pos) for k in node[1]]
        if (t == "and") == pos: return sum(k[0] for k in kids), max(k[1] for k in kids)
        c = 1
        for k in kids: c *= k[0]
        return c, sum(k[1] for k in kids)

    @staticmethod
    def depth(node):
        if node[0] == "atom": return 0
        if node[0] == "not": return 1 + Gen.depth(node[1])
        return 1 + max(Gen.depth(k) for k in node[1])

    def filter(self):
        """(text, deepest clause): an AND of 1..3 clauses, each over one column or (a third of
        them) over two or three."""
        r = self.r
        cols = r.choices(list(WEIGHT), weights=list(WEIGHT.values()), k=r.choice([1, 1, 2, 2, 3]))
        for _ in range(100):  # stay within the CNF budget: the parser's limit is 256 conjuncts
            trees = [self.tree(c if r.random() < 0.65 else [c] + r.sample(list(KIND), r.randint(1, 2)),
                               0, r.randint(0, 5)) for c in cols]
            size = [self.cnf(t) for t in trees]
            if not args.cnf_budget or (sum(z[0] for z in size) <= args.cnf_budget and
                                       max(z[1] for z in size) <= 8 * args.cnf_budget):
                break
        need = 2 if len(trees) > 1 else 0
        text = f" {self.kw('AND')} ".join(self.render(t, need) for t in trees)
        return text, max(self.depth(t) for t in trees)


FIXED = [  # run before the random filters (depth 0): ILIKE outside ASCII, strings cast to numbers
    "s ILIKE 'äöü'", "s ILIKE 'İSTANBUL'", "s ILIKE 'ISTANBUL'", "s ILIKE 'KELVIN'",
    "s ILIKE '\u212aELVIN'", "s ILIKE 'σασ'", "s ILIKE 'ΣΑΣ'", "s ILIKE 'straße'",
    "s ILIKE 'strasse'", "s ILIKE 'É'", "s ILIKE 'CAFÉ'", "s NOT ILIKE '%É%'",
    "s ILIKE '_STANBUL'", "s ILIKE '%Ü'", "s ILIKE 'Ä%'", "s ILIKE 'k%'", "s ILIKE 'i%'",
    "s ILIKE '%EL%N'", "d = 'nan'", "d > 'inf'", "d = '-Infinity'", "d IN (1, 'NaN')",
    "d NOT IN ('nan', 0)", "d BETWEEN 0 AND 'nan'", "d < ' NaN '", "f >= 'nan'",
    "i = ' 5 '", "a < '-3.5'", "b IN ('7', ' 8.5 ')", "t = 'yes'", "t <> 'F'",
]

REFUSE = [  # ringscan answers these with 'cannot compare' or 'takes no arithmetic', naming a column
    "s = i",
    "dt < k",
    "t = a",
    "f < s",
    "NOT dt > d",
    "k > 0 AND (t = d OR a = 1)",
    "dt = s OR k = 1",
    "s + 1 = 2",
    "i <> t",
    "t * 2 > 1",
]
NUMERIC = ["i", "k", "d", "f"]  # columns value expressions draw without casts
MIXED = {"a": ["d", "f"], "k": ["d", "f"], "i": ["d", "f"], "b": ["d", "f"], "d": ["a", "k", "i"],
         "f": ["a", "i", "b"]}  # numbers of different kinds, compared as values

# comparable columns for `col op col` (one class of values each; ringscan.h)
PAIRS = {"i": ["k", "a", "b", "i"], "k": ["i", "a", "b"], "a": ["b", "k", "i", "a"],
         "b": ["a", "i", "k"], "d": ["f", "d"], "f": ["d", "f"], "dt": ["dt"]}


def names_column(err, where):
    for c in set(re.findall(r"\b[a-z]{1,2}\b", where)) & set(KIND):
        if re.search(rf"['\"`]{c}['\"`]|column {c}\b", err): return True
    return False


# ---- the run ------------------------------------------------------------------------------
def main():
    seed = args.seed
    cols, table = make_data(random.Random(seed))
    path = f"{args.dir}/data.parquet"
    pq.write_table(table, path, row_group_size=RG, data_page_size=2048, write_page_index=True,
                   write_statistics=True, use_dictionary=["s", "a"])
    con = duckdb.connect()
    con.register("src", table)
    con.execute("CREATE TABLE mem AS SELECT * FROM src")
    gen = Gen(random.Random(seed + 1_000_003), cols)
    filters = [(w, 0) for w in FIXED] + \
        [gen.filter() for _ in range(max(args.count, (args.case or 0) + 1 - len(FIXED)))]
    cases = [args.case] if args.case is not None else range(len(filters))
    py = shlex.quote(sys.executable)
    hint = f"{py} tests/cli/filter_duckdb.py {shlex.quote(args.ringscan)} DIR --seed {seed}" + \
           (f" --cnf-budget {args.cnf_budget}" if args.cnf_budget != 64 else "")
    print(f"filter_duckdb: seed {seed}, {len(cases)} filters over {N} rows ({len(FIXED)} fixed)")
    passed = failed = refused = wrong = duck_off = 0
    shape = {"empty": 0, "all": 0, "some": 0}
    depths, reasons = {}, {}
    for n in cases:
        where, depth = filters[n]
        depths[depth] = depths.get(depth, 0) + 1
        policy = ("lazy", "eager", "adaptive")[n % 3]
        threads = 1 + (n // 3) % 2
        cmd = [args.ringscan, "scan", path, "--where", where, "--columns", "i", "--format", "csv",
               "--policy", policy, "--threads", str(threads)]
        if args.verbose: print(f"#{n} [{policy}, {threads}t, depth {depth}] {where}")
        try:
            q = f"SELECT count(*), coalesce(sum(i), 0) FROM {{}} WHERE {where}"
            want = tuple(con.execute(q.format("mem")).fetchone())
            onfile = tuple(con.execute(q.format(f"read_parquet('{path}')")).fetchone())
        except duckdb.Error as e:
            failed += 1
            print(f"FAIL #{n}: DuckDB rejects the generated filter ({str(e).splitlines()[0]}):\n"
                  f"  filter: {where}")
            continue
        if want != onfile:  # DuckDB 2.0.1 prunes FLOAT NaN rows by statistics (isnan(f))
            duck_off += 1
            if args.verbose: print(f"note #{n}: DuckDB's read_parquet says {onfile}")
        shape["empty" if want[0] == 0 else "all" if want[0] == N else "some"] += 1
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired:
            rc, out, err = "timeout", "", "timed out after 60 s"
        got, why = None, ""
        if rc == 0:
            lines = out.splitlines()
            if lines[:1] != ["i"]: why = f"no 'i' header: {out[:80]!r}"
            else:
                try:
                    ids = [int(x) for x in lines[1:]]
                    got = (len(ids), sum(ids))
                except ValueError as e:
                    why = f"bad CSV value: {e}"
        if got == want:
            passed += 1
            continue
        failed += 1
        first = err.strip().splitlines()[0] if err.strip() else ""
        if rc in (1, 2) and first:
            refused += 1
            msg = re.sub(r"'[^']*'|\d+", "_", first.split(": ", 2)[-1])
            reasons[msg] = reasons.get(msg, 0) + 1
        elif rc == 0: wrong += 1
        detail = f"ringscan (count, sum) {got}" if rc == 0 and not why else \
                 f"ringscan exit {rc}: {why or first}"
        print(f"FAIL #{n} [{policy}, {threads} thread{'s' * (threads > 1)}]: duckdb (count, sum) "
              f"{want}, {detail}\n  filter: {where}\n  command: {shlex.join(cmd)}\n"
              f"  reproduce: {hint} --case {n}")
    if args.case is None:
        for where in REFUSE:
            p = subprocess.run([args.ringscan, "scan", path, "--where", where, "--columns", "i",
                                "--format", "csv"], capture_output=True, text=True, timeout=60)
            said = "cannot compare" in p.stderr or "takes no arithmetic" in p.stderr
            if p.returncode in (1, 2) and not p.stdout and said and names_column(p.stderr, where):
                passed += 1
            else:
                failed += 1
                first = p.stderr.strip().splitlines()[0] if p.stderr.strip() else ""
                print(f"FAIL refuse: exit {p.returncode}, stdout {p.stdout[:60]!r}, stderr "
                      f"'{first}': want exit 1 or 2, 'cannot compare' naming a column\n"
                      f"  filter: {where}")
    print(f"filter_duckdb: answers: {shape['empty']} empty, {shape['some']} some rows, "
          f"{shape['all']} every row; clause depth "
          + " ".join(f"{d}:{c}" for d, c in sorted(depths.items()))
          + (f"; DuckDB's read_parquet differed on {duck_off} (not counted)" if duck_off else ""))
    for msg, c in sorted(reasons.items(), key=lambda x: -x[1]):
        print(f"filter_duckdb: refused {c}x: {msg}")
    if failed:
        print(f"filter_duckdb: {wrong} wrong answers, {refused} refused with an error; "
              f"rerun one: {hint} --case K (DIR keeps data.parquet)")
    print(f"filter_duckdb: {passed} passed, {failed} failed")
    return 1 if failed else 0


sys.exit(main())
