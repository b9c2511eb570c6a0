"""backsweep: exact discrete-adjoint gradients of ODEs and PDEs on grids.

Each function runs one command of the backsweep program on a config (a file's path, TOML
text, or a dict) in this process, without the GIL, and returns a Result; Ctrl-C stops it
with KeyboardInterrupt. Keyword options, for every function:

- parameters: {name: number or array}: numbers replace [parameters]; arrays (any shape
  with the grid's points) replace parameter fields.
- initial: {name: number or array}: the same for [initial] and the initial fields.
- set: {"solver.step": 0.01, ...}: any key, as --set KEY=VALUE.
- output_dir, write: the output files (written for configs from files, as the program
  does, or where output_dir is given).

backsweep.load(PROBLEM.yaml) reads a PEtab problem once; its objective and gradient are then
taken at any parameters (problem.objective_and_gradient(x)), as an outside optimiser needs.

backsweep.jax and backsweep.torch wrap gradient() as a differentiable function.
"""

from ._api import (BacksweepError, BacksweepWarning, ConfigError, Problem, Result, RunError, fit, gradient, load,
                   lyapunov, run, simulate)
from ._core import version as __version__

__all__ = ["BacksweepError", "BacksweepWarning", "ConfigError", "Problem", "Result", "RunError", "fit", "gradient",
           "load", "lyapunov", "run", "simulate", "__version__"]
