"""backsweep.torch: a config's objective as a PyTorch function whose backward is
backsweep's discrete adjoint (one gradient run gives both the value and the gradient)."""

from typing import Any, Callable, Mapping, Optional

import torch

from . import _api
from ._differentiable import value_and_gradient


class _Objective(torch.autograd.Function):
    @staticmethod
    def forward(ctx, evaluate, keys, *tensors):  # keys: (section, name) of each tensor
        theta: dict = {}
        for (section, name), tensor in zip(keys, tensors):
            theta.setdefault(section, {})[name] = tensor.detach().cpu().numpy()
        value, gradient = evaluate(theta)
        ctx.save_for_backward(*(torch.as_tensor(gradient[section][name], dtype=tensor.dtype, device=tensor.device)
                                for (section, name), tensor in zip(keys, tensors)))
        return torch.tensor(value, dtype=torch.float64)

    @staticmethod
    def backward(ctx, cotangent):
        return (None, None, *(cotangent * g for g in ctx.saved_tensors))


def objective(config: _api.Config, *, set: Optional[Mapping[str, Any]] = None) -> Callable:
    """f(theta) -> J (a 0-d float64 tensor), theta = {"parameters": {name: tensor},
    "initial": {name: tensor}}; J.backward() fills each tensor's .grad with our gradient.
    The config must ask for the gradients theta takes ([gradient] parameters, initial)."""

    def evaluate(theta):
        return value_and_gradient(config, theta, set)

    def f(theta):
        keys = tuple((section, name) for section, items in theta.items() for name in items)
        tensors = [theta[section][name] for section, name in keys]
        return _Objective.apply(evaluate, keys, *tensors)

    return f
