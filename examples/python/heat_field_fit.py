"""A conductivity field k(x, y) on a 16 x 16 plate fitted to nine temperature sensors read
four times, with scipy.optimize.minimize(..., jac=True): backsweep gives the misfit and
its exact gradient with respect to all 256 values of k in one adjoint run, SciPy's
L-BFGS-B does the rest, and the smoothness penalty is plain numpy.

    python3 examples/python/heat_field_fit.py        (with backsweep importable)
"""

import numpy as np
import scipy.optimize

import backsweep

N = 16
SENSORS = [(i, j) for i in (4, 8, 12) for j in (4, 8, 12)]
TIMES = [0.005, 0.01, 0.015, 0.02]
SIGMA = 0.01  # the sensors' noise, as the misfit's scale
SMOOTHNESS = 0.1


def plate(observations=None):
    """The model as a dict; with observations[t][s] (sensor s at TIMES[t]), the misfit as
    the objective."""
    config = {
        "grid": {"shape": [N, N], "extent": [1.0, 1.0], "boundary": "dirichlet"},
        "model": {"fields": ["u"], "parameter_fields": ["k"], "equations": {"u": "div_grad(k, u)"}},
        "parameters": {"k": 1.0},
        "initial": {"u": "sin(pi*x)*sin(pi*y)"},
        "time": {"end": TIMES[-1], "output": TIMES},
        "solver": {"method": "rk4", "step": 2.5e-4},
    }
    if observations is not None:
        config["objective"] = {"observation": [
            {"time": t, "formula": " + ".join(f"((u[{i}, {j}] - {value!r})/{SIGMA})^2" for (i, j), value in zip(SENSORS, row))}
            for t, row in zip(TIMES, observations)]}
    return config


def true_conductivity():
    y, x = np.meshgrid(np.linspace(0, 1, N), np.linspace(0, 1, N), indexing="ij")
    return 1.0 + 0.5 * np.exp(-((x - 0.35) ** 2 + (y - 0.6) ** 2) / 0.03)


def sensor_readings(k):
    r = backsweep.simulate(plate(), parameters={"k": k})  # r.states["u"]: [times, 16, 16], t = 0 first
    rows = [int(np.argmin(np.abs(r.times - t))) for t in TIMES]
    return [[float(r.states["u"][row][i, j]) for i, j in SENSORS] for row in rows]


def penalty(k):
    """SMOOTHNESS * (sum of squared neighbour differences), and its gradient."""
    dx, dy = np.diff(k, axis=1), np.diff(k, axis=0)
    gradient = np.zeros_like(k)
    gradient[:, 1:] += 2 * dx
    gradient[:, :-1] -= 2 * dx
    gradient[1:, :] += 2 * dy
    gradient[:-1, :] -= 2 * dy
    return SMOOTHNESS * (np.sum(dx**2) + np.sum(dy**2)), SMOOTHNESS * gradient


def fit(max_iterations=60):
    """(result, misfit at k = 1, misfit at the fit, relative L2 error of k at 1 and at the fit)."""
    truth = true_conductivity()
    config = plate(sensor_readings(truth))

    def loss(flat):
        k = flat.reshape(N, N)
        r = backsweep.gradient(config, parameters={"k": k})
        value, gradient = penalty(k)
        return r.value + value, (r.gradient["parameter_fields"]["k"] + gradient).ravel()

    start = np.ones(N * N)
    result = scipy.optimize.minimize(loss, start, jac=True, method="L-BFGS-B", bounds=[(0.2, 3.0)] * (N * N),
                                     options={"maxiter": max_iterations})
    misfit = [backsweep.gradient(config, parameters={"k": k.reshape(N, N)}).value for k in (start, result.x)]
    error = [np.linalg.norm(k.reshape(N, N) - truth) / np.linalg.norm(truth) for k in (start, result.x)]
    return result, misfit, error


if __name__ == "__main__":
    result, misfit, error = fit()
    print(f"{result.nit} L-BFGS-B iterations ({result.message}): misfit {misfit[0]:.3e} -> {misfit[1]:.3e}, "
          f"relative error of k {error[0]:.3f} -> {error[1]:.3f}")
