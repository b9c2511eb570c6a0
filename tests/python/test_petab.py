"""backsweep.load: a PEtab problem read once, its objective and gradient at any parameters:
the program's at the nominal point, bit for bit; central differences of its own forward
objective elsewhere (a parameter a later period changes too); steady-state measurements
against their closed form; SciPy's L-BFGS-B driving it to the program's fit; bad input
raised as ConfigError with the file and row."""

import pathlib

import numpy as np
import pytest

import backsweep
from conftest import SOURCE

SUITE = SOURCE / "tests" / "petab" / "test-suite"
CASE = SUITE / "v1.0.0" / "sbml" / "0001" / "_0001.yaml"  # conversion A <-> B: a0, b0, k1, k2
PRIORS = SUITE / "v2.0.0" / "sbml" / "0024" / "_0024.yaml"


@pytest.mark.parametrize("problem", [CASE, PRIORS], ids=["plain", "priors"])
def test_nominal_point_is_the_programs(cli, problem):
    expected = cli("gradient", problem)
    p = backsweep.load(problem)
    value, gradient = p.objective_and_gradient(p.x_nominal)
    assert value == expected["objective"]
    assert dict(zip(p.ids, gradient)) == expected["gradient"]["scaled"]
    assert p.llh(p.x_nominal) == pytest.approx(expected["llh"], rel=1e-12)


def test_gradient_against_central_differences_of_the_objective():
    p = backsweep.load(CASE, set={"solver.rtol": 1e-11, "solver.atol": 1e-13})
    x = p.x_nominal + np.array([0.3, 0.2, -0.1, 0.25])
    value, gradient = p.objective_and_gradient(x)
    assert value == pytest.approx(p.objective(x), rel=1e-9)
    step = 1e-5
    for i in range(len(x)):
        e = np.zeros_like(x)
        e[i] = step
        central = (p.objective(x + e) - p.objective(x - e)) / (2 * step)
        assert gradient[i] == pytest.approx(central, rel=1e-5, abs=1e-7), p.ids[i]


def test_scipy_reaches_the_programs_fit(cli):
    scipy_optimize = pytest.importorskip("scipy.optimize")
    fitted = cli("fit", CASE, "--set", "optimizer.starts=4")
    p = backsweep.load(CASE)
    best = min((scipy_optimize.minimize(p.objective_and_gradient, x0, jac=True, method="L-BFGS-B",
                                        bounds=list(zip(p.lower, p.upper))) for x0 in
                (p.x_nominal, np.full(4, 2.0), np.full(4, 5.0))), key=lambda r: r.fun)
    assert best.fun == pytest.approx(fitted["objective"], rel=1e-6)


def test_a_failed_solve_is_nan_and_says_why():
    p = backsweep.load(CASE, set={"solver.max_steps": 2})
    value, gradient = p.objective_and_gradient(p.x_nominal)
    assert np.isnan(value) and np.isnan(gradient).all()
    assert "max_steps" in p.last_failure or "steps" in p.last_failure


def test_bad_input_is_a_config_error_naming_the_file_and_row(tmp_path):
    folder = tmp_path / "case"
    folder.mkdir()
    for f in CASE.parent.iterdir():
        (folder / f.name).write_bytes(f.read_bytes())
    table = folder / "_parameters.tsv"
    table.write_text(table.read_text().replace("a0\tlin\t0", "a0\tlog10\t0"))  # log10 with a bound of 0
    with pytest.raises(backsweep.ConfigError) as raised:
        backsweep.load(folder / "_0001.yaml")
    assert "_parameters.tsv:2" in str(raised.value)
    with pytest.raises(backsweep.ConfigError):
        backsweep.load(SOURCE / "examples" / "lorenz63_gradient.toml")  # a config, not a problem


def test_steady_state_measurements_against_the_closed_form(tmp_path):
    # A <-> B (k1, k2) settles at A = k2 (a0 + b0)/(k1 + k2), with the conservation law's
    # singular Jacobian; measured there (time inf) and at 0 (A = a0), sigma 0.5.
    folder = tmp_path / "case"
    folder.mkdir()
    for f in CASE.parent.iterdir():
        (folder / f.name).write_bytes(f.read_bytes())
    (folder / "_measurements.tsv").write_text(
        "observableId\tsimulationConditionId\ttime\tmeasurement\nobs_a\tc0\t0\t0.7\nobs_a\tc0\tinf\t0.3\n")
    p = backsweep.load(folder / "_0001.yaml")
    a0, b0, k1, k2 = 1.2, 0.4, 0.8, 0.6
    x = np.array([a0, b0, k1, k2])
    assert p.ids == ["a0", "b0", "k1", "k2"]
    sigma, total, rate = 0.5, a0 + b0, k1 + k2
    steady = k2 * total / rate
    residuals = np.array([a0 - 0.7, steady - 0.3]) / sigma
    llh = -0.5 * residuals @ residuals - 2 * np.log(np.sqrt(2 * np.pi) * sigma)
    slopes = np.array([[1, 0, 0, 0], [k2 / rate, k2 / rate, -k2 * total / rate**2, k1 * total / rate**2]])
    value, gradient = p.objective_and_gradient(x)
    assert p.llh(x) == pytest.approx(llh, rel=1e-7)
    assert value == pytest.approx(-llh, rel=1e-7)
    np.testing.assert_allclose(gradient, residuals / sigma @ slopes, rtol=1e-6, atol=1e-9)


def test_a_parameter_a_later_period_changes_has_its_gradient(tmp_path):
    # Case 0022 sets the compartment's size from 2 to 4 at t = 10; estimated, its first
    # value reaches the objective through the initial amounts and the held size before 10.
    folder = tmp_path / "case"
    folder.mkdir()
    source = SUITE / "v2.0.0" / "sbml" / "0022"
    for f in source.iterdir():
        (folder / f.name).write_bytes(f.read_bytes())
    table = folder / "_parameters.tsv"
    table.write_text(table.read_text().rstrip("\n") + "\ndefault_compartment\t0.5\t10.0\t2.0\ttrue\t\t\n")
    p = backsweep.load(folder / "_0022.yaml", set={"solver.rtol": 1e-11, "solver.atol": 1e-13})
    assert p.ids == ["k1", "default_compartment"]
    x = np.array([2.3, 1.7])
    _, gradient = p.objective_and_gradient(x)
    step = 1e-5
    for i in range(len(x)):
        e = np.zeros_like(x)
        e[i] = step
        central = (p.objective(x + e) - p.objective(x - e)) / (2 * step)
        assert gradient[i] == pytest.approx(central, rel=1e-6), p.ids[i]
    assert abs(gradient[1]) > 1.0
