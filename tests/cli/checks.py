"""tests/cli/checks.py: the pass/fail counter the Python halves of tests/cli share: check()
counts, summary() prints the "NAME: N passed, N failed" line tests/run.sh adds up; epoch()
reads a timestamp or time of day ringscan prints as a count of its unit; jsonable() turns a
pyarrow value into what ringscan's JSON lines print; csv_scan() runs a filtered CSV scan and
check_ids() checks the first column it prints."""
import datetime
import subprocess

counts = {"passed": 0, "failed": 0}


def check(cond, what):
    """Counts cond; prints what when it is false."""
    counts["passed" if cond else "failed"] += 1
    if not cond:
        print("FAIL:", what)


def summary(name):
    """The summary line; True when nothing failed."""
    print(f"{name}: {counts['passed']} passed, {counts['failed']} failed")
    return counts["failed"] == 0


def epoch(text, exp):
    """An ISO timestamp or time of day printed by ringscan as an integer in 10^-exp seconds
    (None for null), and the number of its fraction digits."""
    if text is None:
        return None, None
    day = 0
    if "T" in text:
        date, text = text.rstrip("Z").split("T")
        y, m, dd = (int(v) for v in date.split("-"))
        day = (datetime.date(y, m, dd) - datetime.date(1970, 1, 1)).days
    hms, _, frac = text.partition(".")
    h, mi, s = (int(v) for v in hms.split(":"))
    secs = ((day * 24 + h) * 60 + mi) * 60 + s
    return secs * 10 ** exp + (int(frac) * 10 ** (exp - len(frac)) if frac else 0), len(frac)


def jsonable(v):
    """A pyarrow to_pylist value as ringscan's JSON lines print it (maps: key/value objects)."""
    if isinstance(v, list):
        return [jsonable(x) for x in v]
    if isinstance(v, tuple):
        return {"key": jsonable(v[0]), "value": jsonable(v[1])}
    if isinstance(v, dict):
        return {k: jsonable(x) for k, x in v.items()}
    return v


def csv_scan(ringscan, path, where, cols, threads, *extra):
    """`ringscan scan PATH --where WHERE --columns COLS --format csv --threads N` (and extra
    options): the output's lines after the header and stderr, or None and stderr on failure."""
    p = subprocess.run([ringscan, "scan", path, "--where", where, "--columns", cols, "--format",
                        "csv", "--threads", str(threads), *extra], capture_output=True,
                       text=True, errors="surrogateescape")
    if p.returncode != 0:
        return None, p.stderr
    return p.stdout.splitlines()[1:], p.stderr


def check_ids(ringscan, path, where, cols, threads, want):
    """Checks that the filtered scan's first column, as text, is want (a list of str)."""
    lines, err = csv_scan(ringscan, path, where, cols, threads)
    got = None if lines is None else [ln.split(",")[0] for ln in lines]
    check(got == want, f"{path} {where} --columns {cols}, {threads} threads: "
          f"{'error ' + err if got is None else f'{len(got)} rows, want {len(want)}'}")
