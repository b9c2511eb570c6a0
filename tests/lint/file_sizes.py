#!/usr/bin/env python3
"""No source file outside tests/ and bench/ over 400 lines (issue 28): small files with one
purpose. Any file over it is listed by name as a debt (known_debts.py); none is today.

    python3 tests/lint/file_sizes.py <repo-source-dir>
"""
import pathlib, sys

from known_debts import report

LIMIT = 400
FOLDERS = ("platform", "models", "solvers", "adjoint", "gpu", "fit", "io", "apps")
KNOWN = set()


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    long = {}
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in (".hpp", ".cpp", ".cu", ".cuh"):
                lines = path.read_text(errors="replace").count("\n")
                if lines > LIMIT:
                    long[str(path.relative_to(root))] = f"{lines} lines: split it by purpose"
    return report(f"no file over {LIMIT} lines", long, KNOWN, __file__)


if __name__ == "__main__":
    sys.exit(main())
