#!/usr/bin/env python3
"""No source file outside tests/ and bench/ over 400 lines (issue 28): small files with one
purpose. The files over it today are listed by name, each a debt: the check fails on any
other, and on a listed one that has come under (so the list only shrinks).

    python3 tests/lint/file_sizes.py <repo-source-dir>
"""
import pathlib, sys

LIMIT = 400
FOLDERS = ("models", "solvers", "adjoint", "gpu", "fit", "io", "apps")
KNOWN = {"models/expression.cpp", "solvers/cvodes.cpp", "solvers/implicit_rk.hpp"}


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    long = {}
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in (".hpp", ".cpp", ".cu", ".cuh"):
                lines = path.read_text(errors="replace").count("\n")
                if lines > LIMIT:
                    long[str(path.relative_to(root))] = lines
    new = sorted(set(long) - KNOWN)
    gone = sorted(KNOWN - set(long))
    for name in new:
        print(f"{name}: {long[name]} lines, over {LIMIT}: split it by purpose")
    for name in gone:
        print(f"{name} is no longer over {LIMIT} lines: remove it from KNOWN in {__file__}")
    return 1 if new or gone else 0


if __name__ == "__main__":
    sys.exit(main())
