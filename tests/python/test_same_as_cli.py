"""The module's results are the program's, bit for bit: ODE, grid and fit examples, from
a file, TOML text and a dict, with values and arrays given from Python."""

import tomllib

import h5py
import numpy as np
import pytest

import backsweep
from conftest import EXAMPLES

LORENZ = EXAMPLES / "lorenz63_gradient.toml"
GRAY_SCOTT = EXAMPLES / "gray_scott.toml"
SHORT = {"time.end": 20.0, "time.output": [10.0]}  # Gray-Scott in 40 steps


def test_ode_gradient_equals_the_program(cli, tmp_path):
    expected = cli("gradient", LORENZ)
    r = backsweep.gradient(LORENZ, output_dir=tmp_path / "py")
    assert r.value == expected["objective"]
    assert r.gradient == expected["gradient"]
    assert r.diagnostics["steps"] == expected["diagnostics"]["steps"] == 2000
    assert (tmp_path / "py" / "gradient.h5").exists()


def test_values_from_python_are_the_set_option(cli):
    expected = cli("gradient", LORENZ, "--set", "parameters.rho=28.5", "--set", "initial.x=1.25")
    r = backsweep.gradient(LORENZ, parameters={"rho": 28.5}, initial={"x": 1.25}, write=False)
    assert r.gradient == expected["gradient"] and r.value == expected["objective"]
    assert r.value != backsweep.gradient(LORENZ, write=False).value


def test_text_and_dict_configs_equal_the_file():
    from_file = backsweep.gradient(LORENZ, write=False)
    with open(LORENZ, "rb") as f:
        as_dict = tomllib.load(f)
    for config in (LORENZ.read_text(), as_dict):
        r = backsweep.gradient(config)
        assert r.value == from_file.value and r.gradient == from_file.gradient


def test_grid_gradient_fields_equal_the_programs_files(cli, tmp_path):
    sets = [a for key, value in SHORT.items() for a in ("--set", f"{key}={value}")]
    expected = cli("gradient", GRAY_SCOTT, *sets)
    r = backsweep.gradient(GRAY_SCOTT, set=SHORT, write=False)
    assert r.value == expected["objective"]
    with h5py.File(tmp_path / "cli" / "gradient.h5") as h5:
        for name in ("u", "v"):
            field = r.gradient["initial"][name]
            assert field.shape == (64, 64) and field.dtype == np.float64
            assert np.array_equal(field, h5[f"gradient/initial/{name}"][...])
    assert r.gradient["parameters"] == expected["gradient"]["parameters"]
    assert r.diagnostics["steps"] == expected["diagnostics"]["steps"] == 40


def test_initial_fields_given_as_arrays():
    own = backsweep.gradient(GRAY_SCOTT, set=SHORT, write=False)
    start = backsweep.simulate(GRAY_SCOTT, set={**SHORT, "time.output": [0.0, 10.0]}, write=False)
    u0, v0 = start.states["u"][0], start.states["v"][0]
    assert start.times[0] == 0.0 and u0.shape == (64, 64)
    # np.asfortranarray: another layout, copied once into the grid's order
    given = backsweep.gradient(GRAY_SCOTT, set=SHORT, initial={"u": u0, "v": np.asfortranarray(v0)}, write=False)
    assert given.value == own.value
    assert np.array_equal(given.gradient["initial"]["u"], own.gradient["initial"]["u"])
    changed = backsweep.gradient(GRAY_SCOTT, set=SHORT, initial={"v": 1.5 * v0}, write=False)
    assert changed.value != own.value


def test_wrong_arrays_are_config_errors():
    with pytest.raises(backsweep.ConfigError, match="has 100 values; the grid has 4096 points") as error:
        backsweep.gradient(GRAY_SCOTT, set=SHORT, initial={"u": np.zeros(100)}, write=False)
    assert error.value.key == "u" and error.value.exit_code == 2
    with pytest.raises(backsweep.ConfigError, match="not one of the model's fields"):
        backsweep.gradient(GRAY_SCOTT, set=SHORT, initial={"w": np.zeros((64, 64))}, write=False)
    with pytest.raises(backsweep.ConfigError, match="no \\[grid\\]"):
        backsweep.gradient(LORENZ, initial={"x": np.zeros(3)}, write=False)


def test_fit_and_its_gradient_equal_the_program(cli):
    config = EXAMPLES / "lotka_volterra_fit.toml"
    expected = cli("fit", config)
    r = backsweep.fit(config, write=False)
    assert r.data["parameters"] == expected["parameters"] and r.value == expected["objective"]
    expected = cli("gradient", config)
    r = backsweep.gradient(config, write=False)
    assert r.data["gradient"] == expected["gradient"] and r.value == expected["objective"]


def test_simulate_and_lyapunov(cli):
    expected = cli("simulate", EXAMPLES / "lorenz63.toml")
    r = backsweep.simulate(EXAMPLES / "lorenz63.toml", write=False)
    assert list(r.times) == expected["times"]
    assert {name: list(column) for name, column in r.states.items()} == expected["states"]
    config = EXAMPLES / "lorenz63_lyapunov.toml"
    expected = cli("lyapunov", config, "--set", "lyapunov.duration=20.0", "--set", "lyapunov.transient=1.0")
    r = backsweep.lyapunov(config, set={"lyapunov.duration": 20.0, "lyapunov.transient": 1.0}, write=False)
    assert r["exponents"] == expected["exponents"]
