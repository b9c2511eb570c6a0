"""Type stubs of the compiled part of backsweep (python/core_module.cpp)."""

from typing import Any, Mapping, Optional, Sequence

import numpy as np
import numpy.typing as npt

version: str

def run(command: str, source: str, is_text: bool, name: str, overrides: Sequence[str], write: bool,
        initial_fields: Mapping[str, npt.NDArray[np.float64]],
        parameter_fields: Mapping[str, npt.NDArray[np.float64]], on_main_thread: bool
        ) -> tuple[int, Any, Optional[dict], list[tuple[str, npt.NDArray[np.float64]]], list[str]]:
    """Runs a command without the GIL: (exit code, the --json object, the error where it
    failed, [(HDF5 path, array)], [warning]). On Python's main thread, raises KeyboardInterrupt on
    Ctrl-C."""

def seconds_per_call_in_cpp(command: str, path: str, overrides: Sequence[str], repeats: int) -> float:
    """The benchmarks' baseline: the same command run from C++."""

class LoadedProblem:
    """A PEtab problem read and built once (python/loaded_problem.cpp)."""
    ids: list[str]
    scales: list[str]
    nominal: list[float]
    lower: list[float]
    upper: list[float]

    def evaluate(self, x: npt.NDArray[np.float64], with_gradient: bool
                 ) -> tuple[float, Optional[npt.NDArray[np.float64]], float, str]:
        """(objective, its gradient or None, llh, why it failed or ""), without the GIL."""

def load(path: str, overrides: Sequence[str]) -> tuple[int, Optional[LoadedProblem], Optional[dict]]:
    """(exit code, the problem where it loaded, the error where not)."""
