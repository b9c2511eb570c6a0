#!/usr/bin/env python3
"""Which engine and which algebra run a problem is asked in one place each (issue 28): no
`is_sundials()` outside the engine dispatch (the rest asks what a method can do:
has_stepper, takes_fixed_step, solves_linear_systems), and no `is_same_v<..., CpuAlgebra>`
outside the algebra's own code (the rest asks what an algebra can do: host_vectors,
runs_in_calling_thread). MPI is included by platform/mpi_ranks.cpp alone (issue 32): the
rest exchanges through platform/ranks.hpp.

    python3 tests/lint/one_dispatch.py <repo-source-dir>
"""
import pathlib, re, sys

from known_debts import breaches, report

FOLDERS = ("platform", "models", "solvers", "adjoint", "gpu", "fit", "io", "apps")
RULES = {
    "is_sundials()": (re.compile(r"\bis_sundials\(\)"),
                      {"solvers/method.hpp", "solvers/solve.hpp", "adjoint/discrete_adjoint.hpp",
                       "adjoint/forward_tangent.hpp", "adjoint/lyapunov_spectrum.hpp"}),
    "is_same_v<..., CpuAlgebra>": (re.compile(r"is_same_v<[^>]*CpuAlgebra"), {"solvers/algebra.hpp"}),
    "<mpi.h>": (re.compile(r"#include\s*<mpi\.h>"), {"platform/mpi_ranks.cpp"}),
}
KNOWN = set()



def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    found = breaches(root, FOLDERS, RULES, "ask the dispatch or the method's capabilities")
    return report("one engine dispatch", found, KNOWN, __file__)


if __name__ == "__main__":
    sys.exit(main())
