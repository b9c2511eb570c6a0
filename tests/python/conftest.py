"""The Python module's tests: they import backsweep from the build (PYTHONPATH, set by
ctest) and compare with the backsweep program ($BACKSWEEP_CLI) run on the same configs."""

import importlib.util
import json
import os
import pathlib
import subprocess

import pytest

SOURCE = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = SOURCE / "examples"


def python_example(name):
    """examples/python/<name>.py as a module."""
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / "python" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def cli(tmp_path):
    """cli(command, config, *args) -> the --json object, run with outputs in tmp_path/cli."""

    def run(command, config, *args):
        done = subprocess.run([os.environ["BACKSWEEP_CLI"], command, str(config), "--json", "-o", str(tmp_path / "cli"),
                               *args], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    return run
