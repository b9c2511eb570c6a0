"""The module on several threads: each run keeps its own warnings; Ctrl-C stops the run on
Python's main thread and no other; and a run that wrote outputs off the main thread
leaves Python's own SIGINT handler in charge (the interpreter is not killed)."""

import os
import subprocess
import sys
import textwrap
import threading

import backsweep
from backsweep import _core
from conftest import EXAMPLES

LORENZ = str(EXAMPLES / "lorenz63_gradient.toml")


def warnings_of(end):
    code, _, _, _, said = _core.run("gradient", LORENZ, False, LORENZ, [f"time.end={end}"], False, {}, {}, False)
    assert code == 0
    return said


def test_concurrent_runs_keep_their_own_warnings():
    chaotic, calm = warnings_of(30.0), warnings_of(1.0)
    assert len(chaotic) == 1 and "monitor says chaotic_divergence" in chaotic[0] and calm == []
    failures = []

    def runs(first):
        for k in range(6):
            end = 30.0 if (first + k) % 2 else 1.0
            said = warnings_of(end)
            if said != (chaotic if end == 30.0 else calm):
                failures.append((end, said))

    threads = [threading.Thread(target=runs, args=(first,)) for first in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


# Run in a fresh interpreter: the first output written in the process must be a thread's.
SIGNALS = textwrap.dedent("""
    import os, signal, sys, threading, time
    import backsweep

    config, out = sys.argv[1], sys.argv[2]
    short = {"time.end": 1.0, "time.output": [1.0]}
    # 1. Outputs written off the main thread, first in this process; then Ctrl-C is Python's.
    thread = threading.Thread(target=backsweep.gradient, args=(config,), kwargs=dict(set=short, output_dir=out))
    thread.start()
    thread.join()
    assert os.path.exists(os.path.join(out, "gradient.h5"))
    try:
        threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
        time.sleep(10)
        sys.exit("no KeyboardInterrupt")
    except KeyboardInterrupt:
        pass
    # 2. Ctrl-C stops the main thread's run, not the other thread's, which ends as it would alone.
    medium = {"time.end": 2000.0, "time.output": [2000.0], "checkpointing.slots": 20}
    alone = backsweep.gradient(config, set=medium, write=False).value  # about 2 s
    other = {}
    thread = threading.Thread(target=lambda: other.update(value=backsweep.gradient(config, set=medium, write=False).value))
    thread.start()
    threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
    try:
        backsweep.gradient(config, set={"time.end": 1e5, "time.output": [1e5], "checkpointing.slots": 20}, write=False)
        sys.exit("the main thread's run was not stopped")
    except KeyboardInterrupt:
        assert thread.is_alive()  # the signal came while both ran
    thread.join()
    assert other.get("value") == alone, (other, alone)
    print("ok")
""")


def test_ctrl_c_belongs_to_the_main_thread(tmp_path):
    done = subprocess.run([sys.executable, "-c", SIGNALS, str(EXAMPLES / "gray_scott.toml"), str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300, env=os.environ)
    assert done.returncode == 0 and done.stdout.strip() == "ok", (done.returncode, done.stdout, done.stderr)
