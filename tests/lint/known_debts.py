"""What the layout checks share: today's exceptions to a rule are listed by name, as debts.
A check fails on any other exception, and on a listed one that is gone (so the list only
shrinks)."""


def breaches(root, folders, rules, why):
    """{"<rule> in <file>": why} for each C++ or CUDA source under root's folders that
    matches a rule's pattern outside the files it allows; rules: {rule: (pattern, allowed)}."""
    found = {}
    for folder in folders:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in (".hpp", ".cpp", ".cu", ".cuh"):
                continue
            name = str(path.relative_to(root))
            text = path.read_text(errors="replace")
            for rule, (pattern, allowed) in rules.items():
                if name not in allowed and pattern.search(text):
                    found[f"{rule} in {name}"] = why
    return found


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
