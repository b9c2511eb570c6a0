"""What the layout checks share: today's exceptions to a rule are listed by name, as debts.
A check fails on any other exception, and on a listed one that is gone (so the list only
shrinks)."""


def report(rule, found, known, script):
    """found: {exception: why}; prints what is new or gone; returns the exit code."""
    new = sorted(set(found) - known)
    gone = sorted(known - set(found))
    for name in new:
        print(f"{rule}: {name} ({found[name]})")
    for name in gone:
        print(f"{name} no longer breaks '{rule}': remove it from KNOWN in {script}")
    print(f"{rule}: {len(found)} exceptions, {len(found) - len(new)} of them known debts")
    return 1 if new or gone else 0
