#!/usr/bin/env python3
"""The PEtab test suite, judged by its own criteria, through the real program.

For every SBML case of v1.0.0 and v2.0.0, `backsweep simulate CASE.yaml --json
--output-dir D` is judged as petabtests' evaluate.py judges a tool: |llh - llh_ref| and
|chi2 - chi2_ref| below tol_llh and tol_chi2, and D/simulations.tsv against the case's
_simulations.tsv, both sorted by (observableId, condition or experiment ids, time), with
a mean absolute difference of `simulation` below tol_simulations. The JSON's simulations
must be the table's, in the measurement table's order. Beyond the suite, each case's
`gradient` (the estimated parameters' overrides, noise parameters and transformations
all differentiated) must agree by the adjoint and the tangent to 1e-6 and with central
differences of the objective to 1e-4.

A case whose feature is not taken yet is listed in NOT_YET with the words its refusal
must say: it must still be refused (exit 2, those words on stderr), never run to a wrong
answer; once the feature lands, it must leave the list. Exit 0 when every case holds.

usage: check_suite.py BACKSWEEP SUITE_DIR SCRATCH_DIR [--no-central-differences]
(the sanitizer build's: the adjoint against the tangent only)
"""
import json
import math
import os
import shutil
import subprocess
import sys

from petab_checks import gradient_errors

NOT_YET = {}  # every case runs now


def solution(path):
    """The solution file's numbers (`key: value` lines; an indented block's, such as
    log_prior's per parameter, under "log_prior" as a dict)."""
    values, block = {}, None
    with open(path) as f:
        for line in f:
            key, _, value = line.partition(":")
            if not line.startswith(" ") and not value.strip():
                block = values.setdefault(key.strip(), {})
                continue
            try:
                (block if line.startswith(" ") and block is not None else values)[key.strip()] = float(value)
            except ValueError:
                pass
    return values


KEYS = ("observableId", "preequilibrationConditionId", "simulationConditionId", "experimentId", "time")


def simulation_table(path):
    """Rows of (sort key, simulation) in file order."""
    with open(path) as f:
        lines = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    header = lines[0]
    rows = []
    for line in lines[1:]:
        row = dict(zip(header, line + [""] * (len(header) - len(line))))
        key = tuple(float(row[k]) if k == "time" else row.get(k, "") for k in KEYS)
        rows.append((key, float(row["simulation"])))
    return rows


def check_case(program, version, case_dir, scratch, with_central=True):
    name = f"{version}/{os.path.basename(case_dir)}"
    number = os.path.basename(case_dir)
    out_dir = os.path.join(scratch, version, number)
    shutil.rmtree(out_dir, ignore_errors=True)
    run = subprocess.run([program, "simulate", os.path.join(case_dir, f"_{number}.yaml"), "--json", "--output-dir",
                          out_dir], capture_output=True, text=True, timeout=600)
    if name in NOT_YET:
        words = NOT_YET[name]
        if run.returncode == 2 and words in run.stderr:
            return None, f"{name}: not taken yet ({words}), refused: {run.stderr.strip().splitlines()[-1]}"
        return False, f"{name}: listed as not taken yet ({words}) but exit {run.returncode}: {run.stderr.strip()}"
    if run.returncode != 0:
        return False, f"{name}: exit {run.returncode}: {run.stderr.strip()}"
    result = json.loads(run.stdout)
    expected = solution(os.path.join(case_dir, f"_{number}_solution.yaml"))
    problems = []
    for key in ("llh", "chi2", "unnorm_log_posterior"):
        if key in expected and not abs(result.get(key, math.nan) - expected[key]) < expected[f"tol_{key}"]:
            problems.append(f"{key} {result.get(key)!r}, expected {expected[key]!r}")
    for parameter, value in expected.get("log_prior", {}).items():  # each estimated parameter's
        got = result.get("log_prior", {}).get(parameter, math.nan)
        if not abs(got - value) < expected["tol_log_prior"]:
            problems.append(f"log prior of {parameter} {got!r}, expected {value!r}")
    want = simulation_table(os.path.join(case_dir, "_simulations.tsv"))
    written = simulation_table(os.path.join(out_dir, "simulations.tsv"))
    if [s for _, s in written] != result["simulations"]:
        problems.append("the JSON's simulations are not simulations.tsv's")
    if len(written) != len(want):
        problems.append(f"{len(written)} simulations, expected {len(want)}")
    else:
        differences = [abs(a - b) for (_, a), (_, b) in zip(sorted(written), sorted(want))]
        mean = sum(differences) / len(differences)
        if not mean < expected["tol_simulations"]:
            problems.append(f"simulations: mean absolute difference {mean:.3g}")
    _, count, tangent, central = gradient_errors(program, case_dir, f"_{number}", os.path.join(scratch, "fd"), (),
                                                 () if with_central else None)
    if not tangent <= 1e-6:
        problems.append(f"gradient: adjoint and tangent differ by {tangent:.2g}")
    if central is not None and not central <= 1e-4:
        problems.append(f"gradient: central differences differ by {central:.2g}")
    if problems:
        return False, f"{name}: " + "; ".join(problems)
    return True, (f"{name}: llh {result['llh']:.10g}, chi2 {result['chi2']:.10g}, {len(want)} simulations; "
                  f"gradient by {count}: tangent {tangent:.1g}, central differences " +
                  ("not taken" if central is None else f"{central:.1g}"))


def main():
    program, suite, scratch = sys.argv[1:4]
    central = "--no-central-differences" not in sys.argv[4:]
    counts = {True: 0, False: 0, None: 0}
    for version in ("v1.0.0", "v2.0.0"):
        root = os.path.join(suite, version, "sbml")
        for case in sorted(os.listdir(root)):
            if not os.path.isdir(os.path.join(root, case)):
                continue
            ok, line = check_case(program, version, os.path.join(root, case), scratch, central)
            counts[ok] += 1
            print(("ok      " if ok else "FAILED  " if ok is False else "not yet ") + line)
    print(f"{counts[True]} cases pass, {counts[None]} refused as not taken yet, {counts[False]} failed")
    return 1 if counts[False] else 0


if __name__ == "__main__":
    sys.exit(main())
