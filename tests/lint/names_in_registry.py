#!/usr/bin/env python3
"""Backends and built-in models are told apart by their registries (issue 57): a backend
name ("cpu", "omp", "cuda") is compared only in io/config/backends.cpp's table, a built-in
model's name (each `name = "..."` of models/builtin/) only in the model registries
(models/builtin/registry.hpp, grid_kernels.hpp). The rest asks what a backend or model can
do. Debts would be listed in KNOWN (none are left): a new comparison fails, and so does a
listed one that is gone.

    python3 tests/lint/names_in_registry.py <repo-source-dir>
"""
import pathlib, re, sys

from known_debts import breaches, report

FOLDERS = ("platform", "models", "solvers", "adjoint", "gpu", "fit", "io", "apps", "python")
BACKENDS = ("cpu", "omp", "cuda")
BACKEND_TABLE = {"io/config/backends.cpp"}
MODEL_REGISTRIES = {"models/builtin/registry.hpp", "models/builtin/grid_kernels.hpp"}
KNOWN = set()


def compared(names):
    """A pattern for any of `names` (string literals) on either side of == or !=."""
    literal = "|".join(re.escape(f'"{name}"') for name in names)
    return re.compile(rf"[!=]=\s*(?:{literal})|(?:{literal})\s*[!=]=")


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    models = sorted({m.group(1) for path in (root / "models/builtin").glob("*.hpp")
                     for m in re.finditer(r'string_view name = "([^"]+)"', path.read_text())})
    rules = {
        "backend name": (compared(BACKENDS), BACKEND_TABLE),
        "model name": (re.compile(compared(models).pattern + r"|[!=]=\s*(?:\w+::)+name\b"), MODEL_REGISTRIES),
    }
    found = breaches(root, FOLDERS, rules, "ask the registry what it can do")
    return report("names compared in their registries only", found, KNOWN, __file__)


if __name__ == "__main__":
    sys.exit(main())
