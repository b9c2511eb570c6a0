"""What the PEtab checks share: the problem's tables, the program's JSON, and central
differences of its objective, each point a copy of the problem with its parameter table
rewritten."""
import json
import math
import os
import shutil
import subprocess


def table(path):
    with open(path) as f:
        lines = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    return lines[0], [dict(zip(lines[0], row + [""] * (len(lines[0]) - len(row)))) for row in lines[1:]]


def problem_file(folder, name, key):
    """A table named in the problem's YAML (`key:` or format 2's `keys:`, then `- file`)."""
    with open(os.path.join(folder, name + ".yaml")) as f:
        lines = [line.strip() for line in f]
    for i, line in enumerate(lines):
        if line.startswith(key + ":") or line.startswith(key + "s:"):
            value = line.split(":", 1)[1].strip()
            return os.path.join(folder, value if value else lines[i + 1].lstrip("- ").strip())
    raise KeyError(key)


def run_json(program, *args):
    run = subprocess.run([program, *args, "--json"], capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: exit {run.returncode}: {run.stderr.strip()}")
    return json.loads(run.stdout)


def shifted_copy(folder, name, scratch, parameter, step):
    """A copy of the problem whose parameter table moves `parameter` by `step` on its scale."""
    copy = os.path.join(scratch, name)
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(folder, copy)
    path = problem_file(copy, name, "parameter_file")
    header, rows = table(path)
    for row in rows:
        if row["parameterId"] == parameter:
            scale = row.get("parameterScale", "lin")
            value = float(row["nominalValue"])
            if scale == "log10":
                value = 10 ** (math.log10(value) + step)
            elif scale == "log":
                value = math.exp(math.log(value) + step)
            else:
                value += step
            row["nominalValue"] = repr(value)
    with open(path, "w") as f:
        f.write("\t".join(header) + "\n")
        for row in rows:
            f.write("\t".join(row[h] for h in header) + "\n")
    return os.path.join(copy, name + ".yaml")


def central_differences(program, folder, name, scratch, parameters, step, settings=()):
    """d objective / d parameter on its scale, by central differences of `simulate`; one-sided
    from the nominal point where a step leaves the prior's support (a bound of a uniform
    prior: the objective is then infinite, which JSON writes as null)."""
    def objective(parameter, s):
        value = run_json(program, "simulate", shifted_copy(folder, name, scratch, parameter, s), "--output-dir",
                         os.path.join(scratch, "out"), *settings)["objective"]
        return value if value is not None and math.isfinite(value) else None
    gradient = {}
    for parameter in parameters:
        up, down = objective(parameter, step), objective(parameter, -step)
        if up is not None and down is not None:
            gradient[parameter] = (up - down) / (2 * step)
        elif up is not None or down is not None:
            at = objective(parameter, 0.0)
            gradient[parameter] = (up - at) / step if up is not None else (at - down) / step
        else:
            gradient[parameter] = math.nan
    return gradient


def largest(gradient):
    return max(abs(v) for v in gradient.values())


def gradient_errors(program, folder, name, scratch, settings=(), central_settings=None, step=1e-5, most=16):
    """How far `gradient`'s adjoint lies from its tangent (relative to the largest entry),
    and from central differences (relative to the largest entry, or absolute where that
    is below 1: at a fit's optimum the gradient is near 0) under central_settings (None:
    not taken), on at most `most` parameters spread over the table (two solves each).
    Returns (llh, number of parameters, tangent error, central error)."""
    yaml = os.path.join(folder, name + ".yaml")
    adjoint = run_json(program, "gradient", yaml, "--set", 'optimizer.gradient="adjoint"', *settings)
    tangent = run_json(program, "gradient", yaml, "--set", 'optimizer.gradient="tangent"', *settings)
    a, t = adjoint["gradient"]["scaled"], tangent["gradient"]["scaled"]
    tangent_error = max(abs(a[k] - t[k]) for k in t) / largest(t) if t and largest(t) > 0 else 0.0
    central_error = None
    if central_settings is not None and a:
        at = a if central_settings == settings else run_json(
            program, "gradient", yaml, "--set", 'optimizer.gradient="adjoint"', *central_settings)["gradient"]["scaled"]
        names = list(at)
        sample = names[:: -(-len(names) // most)]  # every k-th, k = ceil(n / most)
        central = central_differences(program, folder, name, scratch, sample, step, central_settings)
        central_error = max(abs(central[k] - at[k]) for k in central) / max(1.0, largest(at))
    return adjoint["llh"], len(t), tangent_error, central_error
