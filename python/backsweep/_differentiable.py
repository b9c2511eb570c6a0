"""What the JAX and PyTorch adapters share: the objective and its gradient at theta, in
theta's own structure, by one backsweep gradient run (the forward sweep and the adjoint)."""

from typing import Any, Mapping, Optional

import numpy as np

from . import _api

SECTIONS = ("parameters", "initial")


def value_and_gradient(config: _api.Config, theta: Mapping[str, Mapping[str, Any]],
                       set: Optional[Mapping[str, Any]]) -> tuple:
    """theta = {"parameters": {name: number or field}, "initial": {name: number or field}}."""
    unknown = [section for section in theta if section not in SECTIONS]
    if unknown:
        raise KeyError(f"theta has {unknown[0]!r}; its sections are 'parameters' and 'initial'")
    values = {section: {name: np.asarray(x, dtype=np.float64) for name, x in theta.get(section, {}).items()}
              for section in SECTIONS}
    result = _api.gradient(config, parameters=values["parameters"], initial=values["initial"], set=set, write=False)
    gradient = result.gradient
    out = {}
    for section, items in values.items():
        if section not in theta:
            continue
        out[section] = {}
        for name, x in items.items():
            where = "parameter_fields" if section == "parameters" and x.ndim > 0 else section
            found = gradient.get(where, {})
            if name not in found:
                raise KeyError(f"the gradient has no d/d{name} ({where}): list it in the config's "
                               f"{'[gradient] initial' if section == 'initial' else '[gradient] parameters'}")
            out[section][name] = np.asarray(found[name], dtype=np.float64).reshape(x.shape)
    return np.float64(result.value), out
