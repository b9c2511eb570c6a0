#!/usr/bin/env python3
"""`backsweep fit` on benchmark problems of the PEtab collection: whether multi-start
L-BFGS-B from the bounds reaches an llh at least that of the nominal parameters (AMICI's
value, within 0.01), with the wall time and the starts that got there.

    python3 bench/petab_fits.py PROGRAM BENCHMARK_DIR [STARTS] [PROBLEM...]

STARTS defaults to 50; the problems default to Boehm, Bruno, Crauste and Fujita. Each fit
runs on one thread (the program's default backend) and writes to a scratch folder.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

NOMINAL_LLH = {  # AMICI's, at the problems' nominal parameters (tests/petab/check_benchmarks.py)
    "Boehm_JProteomeRes2014": -138.22199693517703,
    "Bruno_JExpBot2016": 46.688176988431806,
    "Crauste_CellSystems2017": -190.96521897435176,
    "Fujita_SciSignal2010": 53.08377736998929,
}


def fit(program, folder, name, starts, scratch):
    command = [program, "fit", os.path.join(folder, name, name + ".yaml"), "--json", "--output-dir",
               os.path.join(scratch, name), "--set", f"optimizer.starts={starts}"]
    began = time.monotonic()
    run = subprocess.run(command, capture_output=True, text=True)
    seconds = time.monotonic() - began
    if run.returncode != 0:
        return None, seconds, run.stderr.strip().splitlines()[-1:]
    return json.loads(run.stdout), seconds, []


def main():
    program, folder = sys.argv[1:3]
    starts = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    names = sys.argv[4:] or sorted(NOMINAL_LLH)
    missed = 0
    with tempfile.TemporaryDirectory() as scratch:
        for name in names:
            out, seconds, why = fit(program, folder, name, starts, scratch)
            if out is None:
                print(f"FAILED  {name}: {why}")
                missed += 1
                continue
            llh, nominal = out["llh"], NOMINAL_LLH[name]
            prior = sum(out.get("log_prior", {}).values())
            best = min(s["objective"] for s in out["starts"] if s["objective"] is not None)
            reached = sum(1 for s in out["starts"] if s["objective"] is not None and s["objective"] <= best + 1e-3)
            ok = llh >= nominal - 0.01
            missed += not ok
            print(f"{'ok     ' if ok else 'MISSED '} {name}: llh {llh:.6f} (nominal {nominal:.6f}, "
                  f"{llh - nominal:+.4f}), log prior {prior:.4g}; {reached} of {starts} starts within 1e-3 of the best; "
                  f"{seconds:.1f} s wall, {seconds / starts:.2f} s a start")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
