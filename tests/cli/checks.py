"""tests/cli/checks.py: the pass/fail counter the Python halves of tests/cli share: check()
counts, summary() prints the "NAME: N passed, N failed" line tests/run.sh adds up."""
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
