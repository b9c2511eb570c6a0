"""The Python module's cost per call over the same command called from C++ in the same
process (read the config, run, keep the results; no files): a 64 x 64 Gray-Scott gradient
(the example's 400 RK4 steps) and a Lorenz-63 gradient of 100 RK4 steps. Prints the ratio
and the overhead.

    PYTHONPATH=build/python .venv/bin/python bench/python_overhead.py
"""

import pathlib
import tempfile
import time

import backsweep
from backsweep import _core

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"
LORENZ = """
model = { name = "lorenz63" }
initial = { x = 1.0, y = 1.0, z = 1.0 }
time = { end = 0.1 }
solver = { method = "rk4", step = 1e-3 }
objective = { terminal = "z" }
gradient = { parameters = ["sigma", "rho", "beta"], initial = true }
"""
lorenz = pathlib.Path(tempfile.mkdtemp()) / "lorenz63_100_steps.toml"
lorenz.write_text(LORENZ)
CASES = [
    ("Gray-Scott 64x64 gradient, 400 steps", EXAMPLES / "gray_scott.toml", {"output.vtk": False}, 2),
    ("Lorenz-63 gradient, 100 steps", lorenz, {}, 300),
]


def overrides(settings):
    return [f"{key}={backsweep._toml.value(value)}" for key, value in settings.items()]


for name, config, settings, calls in CASES:
    backsweep.gradient(config, set=settings, write=False)  # kernels compiled and cached, caches warm
    # Blocks of calls each way in turn, so both see the same machine; the fastest block of
    # each (the noise of a shared machine only ever adds time).
    python, cpp = [], []
    for _ in range(15):
        start = time.perf_counter()
        for _ in range(calls):
            backsweep.gradient(config, set=settings, write=False)
        python.append((time.perf_counter() - start) / calls)
        cpp.append(_core.seconds_per_call_in_cpp("gradient", str(config), overrides(settings), calls))
    print(f"{name}: python / C++ = {min(python) / min(cpp):.3f}, overhead {1e6 * (min(python) - min(cpp)):.1f} us "
          f"per call (fastest of 15 blocks of {calls} calls each way)")
