"""jax.grad and torch.autograd through the adapters equal backsweep's gradient (the same
adjoint run, times a cotangent of 1); a JAX loss made of our simulation and a jnp
regulariser optimises; the SciPy example fits a conductivity field."""

import jax
import jax.numpy as jnp
import numpy as np
import torch

import backsweep
import backsweep.jax
import backsweep.torch
from conftest import EXAMPLES, python_example

LORENZ = EXAMPLES / "lorenz63_gradient.toml"
THETA = {"parameters": {"rho": 28.5, "sigma": 10.0}, "initial": {"x": 1.25, "z": 0.5}}

heat = python_example("heat_field_fit")


def reference():
    r = backsweep.gradient(LORENZ, parameters=THETA["parameters"], initial=THETA["initial"], write=False)
    return r.value, {section: {name: r.gradient[section][name] for name in THETA[section]} for section in THETA}


def test_jax_grad_is_our_gradient():
    value, gradient = reference()
    f = backsweep.jax.objective(LORENZ)
    theta = jax.tree_util.tree_map(jnp.float64, THETA)
    for grad in (jax.value_and_grad(f), jax.jit(jax.value_and_grad(f))):
        v, g = grad(theta)
        assert float(v) == value
        assert jax.tree_util.tree_map(float, g) == gradient


def test_torch_autograd_is_our_gradient():
    value, gradient = reference()
    theta = {section: {name: torch.tensor(x, dtype=torch.float64, requires_grad=True) for name, x in items.items()}
             for section, items in THETA.items()}
    J = backsweep.torch.objective(LORENZ)(theta)
    assert J.dtype == torch.float64 and J.item() == value
    (2.0 * J).backward()  # a cotangent other than 1 reaches the gradient
    assert {s: {n: t.grad.item() for n, t in items.items()} for s, items in theta.items()} == \
        {s: {n: 2.0 * g for n, g in items.items()} for s, items in gradient.items()}


def test_a_jax_loss_with_a_field_optimises():
    truth = heat.true_conductivity()
    simulation = backsweep.jax.objective(heat.plate(heat.sensor_readings(truth)))

    def loss(k):
        smoothness = jnp.sum(jnp.diff(k, axis=0) ** 2) + jnp.sum(jnp.diff(k, axis=1) ** 2)
        return simulation({"parameters": {"k": k}}) + heat.SMOOTHNESS * smoothness

    k = jnp.ones((heat.N, heat.N))
    value_and_grad = jax.jit(jax.value_and_grad(loss))
    first, gradient = value_and_grad(k)
    assert gradient.shape == (heat.N, heat.N) and float(jnp.max(jnp.abs(gradient))) > 0
    # The field's gradient is the module's, the regulariser's added by JAX.
    ours = backsweep.gradient(heat.plate(heat.sensor_readings(truth)), parameters={"k": np.asarray(k)})
    assert np.allclose(gradient, ours.gradient["parameter_fields"]["k"], rtol=0, atol=1e-15)
    losses = [float(first)]
    step = 0.5 / float(jnp.linalg.norm(gradient))
    for _ in range(15):  # gradient descent with a backtracking step
        value, gradient = value_and_grad(k)
        while float(loss(k - step * gradient)) > float(value):
            step /= 2
        k = k - step * gradient
        step *= 1.5
        losses.append(float(loss(k)))
    assert all(b <= a for a, b in zip(losses, losses[1:]))
    assert losses[-1] < 0.2 * losses[0]


def test_scipy_fits_a_conductivity_field():
    result, misfit, error = heat.fit(max_iterations=40)
    assert misfit[1] < 1e-3 * misfit[0]  # 36 readings of 256 values: the misfit goes, k is only nearer
    assert error[1] < 0.8 * error[0]
