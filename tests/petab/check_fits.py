#!/usr/bin/env python3
"""`backsweep fit` on PEtab problems of the test suite, judged from outside the fit:

- its objective (-llh - log priors) is at most that at the problem's nominal parameters,
  and its llh at least the suite's solution llh (a fit may only improve on them);
- the parameter table it writes, put in place of the problem's, gives through `simulate`
  the objective the fit reports (the estimates are those of the optimum it names);
- `gradient` there is 0 in every estimated parameter away from its bounds (|g| <= 1e-3),
  where the problem has no priors (a Laplace prior's kink or a uniform one's edge may hold
  the optimum where the gradient is not 0).

    python3 tests/petab/check_fits.py PROGRAM SUITE_DIR SCRATCH
"""
import os
import shutil
import sys

from petab_checks import problem_file, run_json, table

# Cases with parameters to estimate and no feature a fit meets apart: plain, with
# pre-equilibration (v1 0009), with observable and noise parameters (0005, 0008), with
# objective priors (v2 0024).
CASES = ["v1.0.0/sbml/0001", "v1.0.0/sbml/0005", "v1.0.0/sbml/0008", "v1.0.0/sbml/0009", "v2.0.0/sbml/0024"]
STARTS = ["--set", "optimizer.starts=8"]


def solution_llh(case_dir, name):
    with open(os.path.join(case_dir, name + "_solution.yaml")) as f:
        for line in f:
            if line.startswith("llh:"):
                return float(line.split(":", 1)[1])
    raise KeyError("llh")


def with_table(case_dir, name, scratch, parameters_tsv):
    """A copy of the problem whose parameter table is `parameters_tsv`."""
    copy = os.path.join(scratch, "refit")
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(case_dir, copy)
    shutil.copyfile(parameters_tsv, problem_file(copy, name, "parameter_file"))
    return os.path.join(copy, name + ".yaml")


def check(program, suite, scratch, case):
    case_dir = os.path.join(suite, case)
    name = "_" + os.path.basename(case)
    yaml = os.path.join(case_dir, name + ".yaml")
    out = os.path.join(scratch, "fit_" + case.replace("/", "_"))
    nominal = run_json(program, "simulate", yaml, "--output-dir", os.path.join(scratch, "nominal"))
    fitted = run_json(program, "fit", yaml, "--output-dir", out, *STARTS)
    problems = []
    if not fitted["objective"] <= nominal["objective"] + 1e-9 * max(1.0, abs(nominal["objective"])):
        problems.append(f"objective {fitted['objective']!r} above the nominal {nominal['objective']!r}")
    if not fitted["llh"] >= solution_llh(case_dir, name) - 1e-6 and "log_prior" not in fitted:
        problems.append(f"llh {fitted['llh']!r} below the solution's {solution_llh(case_dir, name)!r}")
    refit = with_table(case_dir, name, scratch, os.path.join(out, "parameters.tsv"))
    again = run_json(program, "simulate", refit, "--output-dir", os.path.join(scratch, "again"))
    if not abs(again["objective"] - fitted["objective"]) <= 1e-8 * max(1.0, abs(fitted["objective"])):
        problems.append(f"the written table gives objective {again['objective']!r}, the fit {fitted['objective']!r}")
    slope = run_json(program, "gradient", refit, "--output-dir", os.path.join(scratch, "again"))["gradient"]["scaled"]
    _, rows = table(os.path.join(out, "parameters.tsv"))
    interior = [r["parameterId"] for r in rows if r["parameterId"] in slope and
                float(r["lowerBound"]) < float(r["nominalValue"]) < float(r["upperBound"])]
    steepest = max((abs(slope[p]) for p in interior), default=0.0)
    if not steepest <= 1e-3 and "log_prior" not in fitted:
        problems.append(f"the gradient at the optimum reaches {steepest:.2g}")
    line = (f"{case}: objective {fitted['objective']:.10g} (nominal {nominal['objective']:.10g}), "
            f"llh {fitted['llh']:.10g}, |gradient| {steepest:.1g} at the optimum" +
            (" (not judged: priors)" if "log_prior" in fitted else ""))
    return not problems, line + ("; " + "; ".join(problems) if problems else "")


def main():
    program, suite, scratch = sys.argv[1:4]
    os.makedirs(scratch, exist_ok=True)
    failed = 0
    for case in CASES:
        ok, line = check(program, suite, scratch, case)
        failed += not ok
        print(("ok      " if ok else "FAILED  ") + line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
