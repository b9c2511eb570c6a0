#!/usr/bin/env python3
"""Implicit steps on 3-D heat with a conductivity field, defined in a config, through the
command line: how an implicit gradient step's time grows with the grid, and whether a
64^3 gradient to a given accuracy beats RK4 at its stable step.

    .venv/bin/python bench/krylov_heat3d.py BUILD_DIR [scaling|accuracy|all] [SIZES...]

scaling: SDIRK2 and ESDIRK3 at 10x and 100x RK4's stable step on 32^3, 64^3, 128^3 (four
steps each, after one untimed warm-up run that compiles the kernels); prints seconds per
step per million points and the exponent p of time per step ~ n^p between the smallest
and largest grid, with the Krylov iteration counts.
accuracy: at 64^3 to t = 0.01, RK4 at its stable step against SDIRK2/ESDIRK3 at growing
steps (default tolerances, and SDIRK2 with CG and Newton/Krylov tolerances tied to the
accuracy); the gradient field dJ/dk of each against a reference (RK4 at a quarter of its
stable step), and the gradient times as ratios to RK4's.
precision: work-precision at 32^3 to t = 0.01, in one run: CVODES BDF with SPGMR and our
multigrid (its own adjoint) at rtol 1e-3 .. 1e-8, against our ESDIRK3 and SDIRK4 with
adaptive steps at the same tolerances and SDIRK2/ESDIRK3 at fixed steps, GMRES with multigrid; each
point the dJ/dk error against the reference and the process's seconds; then, for each
CVODES point, the least time of ours at an error no larger, as a ratio.
"""
import json
import math
import pathlib
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

K_MAX = 1.5
RK4_BETA = 2.785


def stable_step(n):
    """RK4's largest stable step: h rho(J) <= beta, rho = 4 k_max / dx^2 per axis (Dirichlet)."""
    dx = 1.0 / (n + 1)
    return 0.95 * RK4_BETA / (3 * 4 * K_MAX / dx**2)


def config(n, method, step, end, extra=""):
    probe = [n // 2, n // 2, n // 4]
    return f"""
[grid]
shape = [{n}, {n}, {n}]
extent = [1.0, 1.0, 1.0]
boundary = "dirichlet"
[model]
fields = ["u"]
parameter_fields = ["k"]
[model.equations]
u = "div_grad(k, u)"
[parameters]
k = "1 + 0.5*sin(2*pi*x)*sin(pi*y)*sin(pi*z)"
[initial]
u = "sin(pi*x)*sin(pi*y)*sin(pi*z)*(1 + 0.5*cos(4*pi*x)*cos(4*pi*y))"
[time]
end = {end!r}
output = [{end!r}]
[objective]
terminal = "u{probe}"
[solver]
method = "{method}"
step = {step!r}
kernel_cache = "{WORK}/kernels"
{extra}
"""


def run(cli, text, name):
    path = WORK / f"{name}.toml"
    path.write_text(text)
    out = WORK / name
    start = time.perf_counter()
    proc = subprocess.run([cli, "gradient", str(path), "--json", "--output-dir", str(out)],
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{name}: exit {proc.returncode}\n{proc.stderr}")
    result = json.loads(proc.stdout)
    with h5py.File(out / "gradient.h5") as f:
        dk = np.array(f["/gradient/parameter_fields/k"])
    return result, dk, seconds


def scaling(cli, sizes):
    rows = []
    for method in ("sdirk2", "esdirk3"):
        for factor in (10, 100):
            per_step = {}
            for n in sizes:
                h = factor * stable_step(n)
                text = config(n, method, h, 4 * h)
                run(cli, text, f"warm_{n}")  # compiles and caches the kernels
                result, _, seconds = run(cli, text, f"{method}_{factor}_{n}")
                d = result["diagnostics"]
                steps = d["steps"]
                t = d["forward_seconds"] + d["backward_seconds"]
                per_step[n] = t / steps
                lin = d.get("linear_solver", {})
                rows.append((method, factor, n, t / steps, t / steps / (n**3 / 1e6), lin))
                print(f"{method:8s} {factor:4d}x  {n:4d}^3  {t / steps:8.3f} s/step  "
                      f"{t / steps / (n**3 / 1e6):7.3f} s/step/Mpt  process {seconds:7.2f} s  "
                      f"{lin.get('solver', '?')}: forward {lin.get('forward', {})} adjoint {lin.get('adjoint', {})}",
                      flush=True)
            if len(sizes) > 1:
                a, b = sizes[0], sizes[-1]
                p = math.log(per_step[b] / per_step[a]) / math.log((b / a) ** 3)
                print(f"  -> time per step ~ n^{p:.2f} ({a}^3 to {b}^3)", flush=True)


def accuracy(cli, n=64, end=0.01):
    h = stable_step(n)
    steps = math.ceil(end / h)
    reference, dk_ref, _ = run(cli, config(n, "rk4", end / (4 * steps), end), "reference")
    rk4, dk_rk4, rk4_seconds = run(cli, config(n, "rk4", end / steps, end), "rk4")
    t_rk4 = rk4["diagnostics"]["forward_seconds"] + rk4["diagnostics"]["backward_seconds"]
    norm = np.linalg.norm(dk_ref)
    print(f"{n}^3 to t = {end}: RK4 {steps} steps, gradient {t_rk4:.2f} s (process {rk4_seconds:.2f} s), "
          f"error {np.linalg.norm(dk_rk4 - dk_ref) / norm:.1e}", flush=True)
    for method in ("sdirk2", "esdirk3", "sdirk4"):
        for factor in (10, 25, 50, 100, 150):
            m = max(1, round(steps / factor))
            result, dk, seconds = run(cli, config(n, method, end / m, end), f"{method}_{m}")
            d = result["diagnostics"]
            t = d["forward_seconds"] + d["backward_seconds"]
            print(f"  {method:8s} {m:4d} steps ({steps / m:5.1f}x RK4's): gradient error "
                  f"{np.linalg.norm(dk - dk_ref) / norm:.1e}, time {t:7.2f} s, RK4 / this {t_rk4 / t:5.1f}",
                  flush=True)
    # Solves tied to the accuracy asked for, as a user who wants the gradient to 1e-2 or 1e-3
    # would set them: Newton and the adjoint's Krylov solves two orders below it, CG (the
    # stage matrix of a diffusion is symmetric).
    for m in (2, 3, 6, 12):
        tolerance = 1e-4 if m <= 3 else 1e-5
        tied = f'linear_solver = "cg"\nnewton_tolerance = {tolerance}\nkrylov_tolerance = {tolerance}\n'
        result, dk, seconds = run(cli, config(n, "sdirk2", end / m, end, tied), f"tied_{m}")
        d = result["diagnostics"]
        t = d["forward_seconds"] + d["backward_seconds"]
        lin = d["linear_solver"]
        print(f"  sdirk2   {m:4d} steps, cg, tolerances {tolerance:.0e}: gradient error "
              f"{np.linalg.norm(dk - dk_ref) / norm:.1e}, time {t:7.2f} s, RK4 / this {t_rk4 / t:5.1f} "
              f"(Krylov iterations: forward {lin['forward']['iterations']}, adjoint {lin['adjoint']['iterations']})",
              flush=True)
    for rtol in (1e-2, 1e-3, 1e-4):
        text = config(n, "sdirk4", 0.0, end, f"rtol = {rtol}\natol = {rtol * 1e-3}\n").replace("step = 0.0\n", "")
        result, dk, seconds = run(cli, text, f"sdirk4_{rtol}")
        d = result["diagnostics"]
        t = d["forward_seconds"] + d["backward_seconds"]
        print(f"  sdirk4   adaptive, rtol {rtol:.0e}, {d['steps']:3d} steps: gradient error "
              f"{np.linalg.norm(dk - dk_ref) / norm:.1e}, time {t:7.2f} s, RK4 / this {t_rk4 / t:5.1f}", flush=True)


def precision(cli, n=32, end=0.01):
    h = stable_step(n)
    steps = math.ceil(end / h)
    _, dk_ref, _ = run(cli, config(n, "rk4", end / (4 * steps), end), "reference")
    norm = np.linalg.norm(dk_ref)

    def point(name, method, step, extra):
        # Whole processes: CVODES' diagnostics time no sweeps.
        _, dk, seconds = run(cli, config(n, method, step, end, extra).replace("step = 0.0\n", ""), name)
        return np.linalg.norm(dk - dk_ref) / norm, seconds, seconds

    ours, theirs = [], []
    for rtol in (1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8):
        tolerances = f"rtol = {rtol}\natol = {rtol * 1e-3}\n"
        error, t, _ = point(f"cvodes_{rtol}", "cvodes_bdf", 0.0, tolerances + 'linear_solver = "gmres"\n')
        theirs.append((error, t))
        print(f"cvodes_bdf + SPGMR/multigrid rtol {rtol:.0e}: error {error:.1e}, {t:7.2f} s", flush=True)
        for method in ("esdirk3", "sdirk4"):
            error, t, _ = point(f"{method}_{rtol}", method, 0.0, tolerances)
            ours.append((error, t))
            print(f"{method:7s} adaptive           rtol {rtol:.0e}: error {error:.1e}, {t:7.2f} s", flush=True)
    for method in ("sdirk2", "esdirk3"):
        for factor in (3, 10, 30, 100):
            m = max(1, round(steps / factor))
            error, t, _ = point(f"{method}_fixed_{m}", method, end / m, "")
            ours.append((error, t))
            print(f"{method} fixed, {m:4d} steps       : error {error:.1e}, {t:7.2f} s", flush=True)
    for error, t in theirs:
        matching = [mine for e, mine in ours if e <= error]
        best = min(matching) if matching else float("nan")
        print(f"at CVODES' error {error:.1e}: CVODES {t:.2f} s, ours {best:.2f} s, CVODES / ours {t / best:.2f}")


if __name__ == "__main__":
    build = pathlib.Path(sys.argv[1]).resolve()
    what = sys.argv[2] if len(sys.argv) > 2 else "all"
    sizes = [int(s) for s in sys.argv[3:]] or [32, 64, 128]
    cli = str(build / "apps" / "backsweep")
    with tempfile.TemporaryDirectory() as work:
        WORK = pathlib.Path(work)
        if what in ("scaling", "all"):
            scaling(cli, sizes)
        if what in ("accuracy", "all"):
            accuracy(cli)
        if what in ("precision", "all"):
            precision(cli)
