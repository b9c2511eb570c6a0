"""The commands of the backsweep program as functions: a config in (a file, TOML text or a
dict, with values and arrays replacing its own), a Result out."""

import os
import threading
import warnings
from typing import Any, Mapping, Optional, Union

import numpy as np

from . import _core, _toml

Config = Union[str, "os.PathLike[str]", Mapping[str, Any]]


class BacksweepError(Exception):
    """A run that did not give results: the message the command line prints after 'error: '."""

    def __init__(self, error: Mapping[str, Any]):
        super().__init__(error["message"])
        self.message: str = error["message"]
        self.exit_code: int = error["exit_code"]
        self.details: dict = dict(error)


class BacksweepWarning(UserWarning):
    """What the program says on stderr as "warning: ..." (a stiff explicit run, an event
    never reached, a gradient the growth monitor distrusts, ...)."""


class ConfigError(BacksweepError, ValueError):
    """Bad input (exit code 2): `file`, `line`, `column` and `key` where the config says it."""

    def __init__(self, error: Mapping[str, Any]):
        super().__init__(error)
        self.file: Optional[str] = error.get("file")
        self.line: Optional[int] = error.get("line")
        self.column: Optional[int] = error.get("column")
        self.key: Optional[str] = error.get("key")


class RunError(BacksweepError, RuntimeError):
    """A failed run (exit code 1): where a state or adjoint became NaN or Inf, its `phase`
    (forward, backward, ...), `step`, `time` and `state`."""

    def __init__(self, error: Mapping[str, Any]):
        super().__init__(error)
        self.phase: Optional[str] = error.get("phase")
        self.step: Optional[int] = error.get("step")
        self.time: Optional[float] = error.get("time")
        self.state: Optional[str] = error.get("state")


class Result:
    """What a command gives: `data` is the object `--json` prints; `arrays` holds the fields
    and trajectories whole, by their HDF5 path ("gradient/initial/u", "fields/u", ...)."""

    def __init__(self, command: str, data: dict, arrays: dict):
        self.command = command
        self.data = data
        self.arrays = arrays

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def __repr__(self) -> str:
        return f"<backsweep.Result of {self.command}: {', '.join(self.data)}>"

    @property
    def value(self) -> float:
        """The objective (gradient, fit)."""
        return self.data["objective"]

    @property
    def diagnostics(self) -> dict:
        return self.data.get("diagnostics", {})

    @property
    def gradient(self) -> dict:
        """As in `--json`, with each field's gradient an array shaped like the grid in place
        of its norm."""
        gradient = {key: dict(value) if isinstance(value, dict) else value for key, value in self.data["gradient"].items()}
        for path, array in self.arrays.items():
            parts = path.split("/")
            if parts[0] == "gradient" and len(parts) == 3:
                gradient.setdefault(parts[1], {})[parts[2]] = array
        return gradient

    @property
    def times(self) -> np.ndarray:
        """simulate: the output times."""
        return self.arrays["times"]

    @property
    def states(self) -> dict:
        """simulate: each state's values at the output times, or on a grid each field's,
        shaped [times, *grid]."""
        return {path.split("/", 1)[1]: array for path, array in self.arrays.items()
                if path.startswith(("states/", "fields/"))}


def _source(config: Config) -> tuple:
    """(text or path, is_text, name)"""
    if type(config) is str and ("\n" not in config and "=" not in config or os.path.isfile(config)):
        return config, False, config  # a file's path (the common case first)
    if isinstance(config, Mapping):
        return _toml.dumps(dict(config)), True, "<dict>"
    if isinstance(config, os.PathLike):
        return os.fspath(config), False, os.fspath(config)
    if isinstance(config, str):
        if "\n" in config or "=" in config:  # TOML text (a file of that name was looked for above)
            return config, True, "<string>"
        return config, False, config
    raise TypeError(f"config: a path, TOML text or a dict, not {type(config).__name__}")


def _split(values: Optional[Mapping[str, Any]], section: str, overrides: list) -> dict:
    """Numbers become overrides of `section.name`; arrays (fields) are returned by name."""
    arrays = {}
    for name, item in (values or {}).items():
        if np.ndim(item) == 0:
            overrides.append(f"{section}.{_toml.key(name)}={_toml.value(float(item))}")
        else:
            arrays[name] = np.ascontiguousarray(item, dtype=np.float64).reshape(-1)  # a view where it can be
    return arrays


def run(command: str, config: Config, *, parameters: Optional[Mapping[str, Any]] = None,
        initial: Optional[Mapping[str, Any]] = None, set: Optional[Mapping[str, Any]] = None,
        output_dir: Optional[str] = None, write: Optional[bool] = None) -> Result:
    source, is_text, name = _source(config)
    overrides: list = []
    parameter_fields = _split(parameters, "parameters", overrides) if parameters else {}
    initial_fields = _split(initial, "initial", overrides) if initial else {}
    if set:
        for key, item in set.items():  # typed like the key it replaces, as --set
            overrides.append(f"{key}={item if isinstance(item, str) else _toml.value(item)}")
    if output_dir is not None:
        overrides.append(f"output.dir={_toml.value(os.fspath(output_dir))}")
    if write is None:  # as the command line does for a file; text and dicts write where told
        write = not is_text or output_dir is not None
    code, results, error, arrays, said = _core.run(command, source, is_text, name, overrides, write,
                                                  initial_fields, parameter_fields,
                                                  threading.current_thread() is threading.main_thread())
    for text in said:
        warnings.warn(text, BacksweepWarning, stacklevel=3)
    if code != 0:
        raise (ConfigError if code == 2 else RunError)(error)
    return Result(command, results, dict(arrays))


def simulate(config: Config, **options: Any) -> Result:
    """`backsweep simulate`: r.times, r.states[name], r.data (the --json object)."""
    return run("simulate", config, **options)


def gradient(config: Config, **options: Any) -> Result:
    """`backsweep gradient`: r.value, r.gradient["parameters"][name],
    r.gradient["initial"][name], r.gradient["parameter_fields"][name], r.diagnostics."""
    return run("gradient", config, **options)


def fit(config: Config, **options: Any) -> Result:
    """`backsweep fit`: r.value, r["parameters"][name]["value"], r["converged"]."""
    return run("fit", config, **options)


def lyapunov(config: Config, **options: Any) -> Result:
    """`backsweep lyapunov`: r["exponents"], r["standard_errors"]."""
    return run("lyapunov", config, **options)


class Problem:
    """A PEtab problem loaded once (backsweep.load): its tables read and its model built,
    its objective (-llh minus the log priors) and gradient taken at any x, the estimated
    parameters on their scales in the order of `ids`. NaN where a solve fails;
    `last_failure` says why."""

    def __init__(self, core):
        self._core = core
        self.ids = list(core.ids)
        self.scales = list(core.scales)
        self.x_nominal = np.array(core.nominal)
        self.lower = np.array(core.lower)
        self.upper = np.array(core.upper)
        self.last_failure = ""

    def __repr__(self) -> str:
        return f"<backsweep.Problem: {len(self.ids)} estimated parameters>"

    def _evaluate(self, x, with_gradient: bool):
        objective, gradient, llh, failure = self._core.evaluate(np.ascontiguousarray(x, dtype=np.float64).reshape(-1),
                                                                with_gradient)
        self.last_failure = failure
        return objective, gradient, llh

    def objective(self, x) -> float:
        """-llh - log priors at x, by forward solves alone."""
        return self._evaluate(x, False)[0]

    def objective_and_gradient(self, x) -> tuple:
        """(objective, d objective / dx) at x: the gradient by the problem's gradient mode."""
        objective, gradient, _ = self._evaluate(x, True)
        return objective, gradient

    def llh(self, x) -> float:
        """The log-likelihood at x (without the priors)."""
        return self._evaluate(x, False)[2]


def load(problem: Union[str, os.PathLike], *, set: Optional[Mapping[str, Any]] = None) -> Problem:
    """A PEtab problem (its .yaml file) read once, for objective and gradient evaluations
    at any parameters: `set` takes the keys `--set` takes (solver.rtol, optimizer.gradient)."""
    overrides = [f"{key}={item if isinstance(item, str) else _toml.value(item)}" for key, item in (set or {}).items()]
    code, core, error = _core.load(os.fspath(problem), overrides)
    if code != 0:
        raise (ConfigError if code == 2 else RunError)(error)
    return Problem(core)
