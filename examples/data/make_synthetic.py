#!/usr/bin/env python3
"""Writes synthetic measurements for the fit examples: the truth is simulated with
backsweep itself, then Gaussian noise of known sigma is added (seeded, so the files are
reproducible). Usage: examples/data/make_synthetic.py BACKSWEEP TRUTH.toml OUT.csv SIGMA SEED STATE=NAME...
where TRUTH.toml is a simulate config whose output times are the measurement times, and
each STATE=NAME makes state STATE an observable called NAME (STATE*SCALE=NAME: the
state times SCALE, for states far below the noise)."""
import json, random, subprocess, sys

backsweep, truth, out, sigma, seed = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5])
observed = dict(pair.split("=") for pair in sys.argv[6:])
run = json.loads(subprocess.run([backsweep, "simulate", truth, "--json"], check=True,
                                capture_output=True, text=True).stdout)
rng = random.Random(seed)
with open(out, "w") as f:
    f.write("observable,time,value,sigma\n")
    for i, t in enumerate(run["times"]):
        if t == 0.0:
            continue
        for spec, name in observed.items():
            state, _, scale = spec.partition("*")
            value = run["states"][state][i] * float(scale or 1) + rng.gauss(0.0, sigma)
            f.write(f"{name},{t!r},{value!r},{sigma!r}\n")
