"""Errors as exceptions: the hostile-input corpus (tests/corpus) through the module gives
the program's exit codes and messages, loses no earlier output and never crashes the
interpreter; a NaN is a RunError with its step, time and state; Ctrl-C during a gradient
raises KeyboardInterrupt and leaves the earlier outputs as they were."""

import json
import os
import shlex
import signal
import subprocess
import sys
import threading

import pytest

import backsweep
from conftest import EXAMPLES, SOURCE

sys.path.insert(0, str(SOURCE / "tests" / "corpus"))
import hostile_inputs as corpus  # noqa: E402

COMMANDS = {"simulate", "gradient", "fit"}
# The cases a module call can express: a command on cfg.toml (the others are about the
# command line itself: arguments, standard output, signals).
CASES = [case for case in corpus.CASES
         if isinstance(case.cmd, str) and len(shlex.split(case.cmd)) == 2 and shlex.split(case.cmd)[0] in COMMANDS
         and shlex.split(case.cmd)[1] == "cfg.toml" and not case.stdout]


def test_the_corpus_has_cases_for_the_module():
    assert len(CASES) >= 30


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_hostile_input(case, tmp_path, monkeypatch):
    good = tmp_path / "good"
    good.mkdir()
    corpus.write_files(str(good), {"cfg.toml": corpus.BASE})
    monkeypatch.chdir(good)
    for command in ("simulate", "gradient"):
        backsweep.run(command, "cfg.toml", output_dir="out")
    folder = tmp_path / "case"
    folder.mkdir()
    os.rename(good / "out", folder / "out")
    corpus.write_files(str(folder), case.files)
    monkeypatch.chdir(folder)
    before = corpus.snapshot(str(folder))
    command = shlex.split(case.cmd)[0]
    out = {"output_dir": "out"} if case.out else {}
    program = subprocess.run([os.environ["BACKSWEEP_CLI"], command, "cfg.toml", "--json"] + (["-o", "out"] if case.out else []),
                             capture_output=True, text=True, timeout=30)
    assert program.returncode == case.code
    after_program = corpus.snapshot(str(folder))
    if case.code == 0:
        backsweep.run(command, "cfg.toml", **out)
        return
    expected = json.loads(program.stdout)["error"]
    kind = backsweep.ConfigError if case.code == 2 else backsweep.RunError
    with pytest.raises(kind) as raised:
        backsweep.run(command, "cfg.toml", **out)
    error = raised.value
    assert str(error) == expected["message"]
    assert error.exit_code == case.code
    assert all(fragment in str(error) for fragment in case.want)
    if case.code == 2 and "line" in expected:
        assert (error.file, error.line, error.key) == (expected["file"], expected["line"], expected.get("key"))
    if not case.writes:
        assert corpus.snapshot(str(folder)) == after_program == before


def test_nan_is_a_run_error_with_step_time_and_state(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for command in ("simulate", "gradient"):
        with pytest.raises(backsweep.RunError) as raised:
            backsweep.run(command, corpus.NAN_RUN, write=False)
        error = raised.value
        assert error.phase == "forward" and error.state == "x"
        assert error.step > 0 and 0.9 < error.time <= 1.1  # x' = x^2 from 1 blows up at t = 1


def test_ctrl_c_raises_keyboard_interrupt_and_keeps_earlier_outputs(tmp_path):
    config = EXAMPLES / "gray_scott.toml"
    out = tmp_path / "out"
    backsweep.gradient(config, set={"time.end": 1.0, "time.output": [1.0]}, output_dir=out)
    before = corpus.snapshot(str(out))
    long_run = {"time.end": 1e5, "time.output": [1e5], "checkpointing.slots": 20}  # 200000 steps: minutes
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        backsweep.gradient(config, set=long_run, output_dir=out)
    timer.join()
    assert corpus.snapshot(str(out)) == before
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Python's own again
    assert backsweep.gradient(config, set={"time.end": 1.0, "time.output": [1.0]}, write=False).value > 0


def test_warnings_are_python_warnings():
    with pytest.warns(backsweep.BacksweepWarning, match="monitor says chaotic_divergence") as said:
        backsweep.gradient(EXAMPLES / "lorenz63_gradient.toml", set={"time.end": 30.0}, write=False)
    assert said[0].filename == __file__  # the caller's line, not the module's
