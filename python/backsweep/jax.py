"""backsweep.jax: a config's objective as a JAX function, differentiable with jax.grad,
whose reverse pass is backsweep's discrete adjoint (one gradient run gives both the value
and the gradient). Importing it turns on JAX's float64 (jax_enable_x64): the gradients are
exact in double precision and would be rounded to single otherwise."""

from typing import Any, Callable, Mapping, Optional

import jax
import jax.numpy as jnp

from . import _api
from ._differentiable import value_and_gradient

jax.config.update("jax_enable_x64", True)


def objective(config: _api.Config, *, set: Optional[Mapping[str, Any]] = None) -> Callable:
    """f(theta) -> J, theta = {"parameters": {name: value or field}, "initial": {...}}, a
    pytree of arrays. Works under jax.jit and jax.grad (through jax.pure_callback); the
    config must ask for the gradients theta takes ([gradient] parameters, initial)."""

    def call(theta):
        shapes = (jax.ShapeDtypeStruct((), jnp.float64),
                  jax.tree_util.tree_map(lambda x: jax.ShapeDtypeStruct(jnp.shape(x), jnp.float64), theta))
        return jax.pure_callback(lambda t: value_and_gradient(config, t, set), shapes, theta)

    @jax.custom_vjp
    def f(theta):
        return call(theta)[0]

    def forward(theta):
        return call(theta)

    def backward(gradient, cotangent):
        return (jax.tree_util.tree_map(lambda g: cotangent * g, gradient),)

    f.defvjp(forward, backward)
    return f
