"""Ctrl-C ends a run (issue 25 case 5): ``reorderlab run`` and
``reorderlab.run`` stop at the core's next look at the stop request (every
few thousand events), with nothing stored. The old core ran to the end
(minutes here) and threw the result away."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import tomli_w

from reorderlab.store import Store

from .child_targets import sigint_as_at_a_terminal

#: Minutes of simulation: a run that is still going when the signal comes.
LONG = {
    "name": "long",
    "duration": 100_000,
    "topology": {"kind": "chain", "bottleneck_rate": 100e6, "bottleneck_delay": 0.01},
    "flows": [{"src": "S1", "dst": "D", "tcp": {"max_window": 1000}}],
}
#: How long a stopped process may take to exit: a bound against a hang
#: (the run would go on for minutes), not a measure of speed.
EXIT_BOUND_S = 60


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _interrupt_when_busy(proc: subprocess.Popen[str], cpu_s: float) -> tuple[str, str]:
    """Send SIGINT once the process has used ``cpu_s`` seconds of CPU (it
    is inside the run by then: CPU time, unlike wall time, does not depend
    on the machine's load), then wait for it to exit."""
    deadline = time.monotonic() + 600
    while _cpu_seconds(proc.pid) < cpu_s:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run never got busy"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    try:
        return proc.communicate(timeout=EXIT_BOUND_S)
    finally:
        if proc.poll() is None:  # still running: the test fails; do not leave it behind
            proc.kill()
            proc.communicate()


def test_ctrl_c_stops_the_cli_run_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "long.toml").write_text(tomli_w.dumps(LONG))
    store = tmp_path / "store.duckdb"
    proc = subprocess.Popen(
        [sys.executable, "-m", "reorderlab", "run", "long.toml", "--store", str(store)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=sigint_as_at_a_terminal,
    )
    # the CLI's imports take about 1 s of CPU: at 4 s it is running
    out, err = _interrupt_when_busy(proc, 4.0)
    assert proc.returncode == 130, err
    # the warnings about the scenario (a 100,000-s run...) come first
    *warnings, last = err.strip().splitlines()
    assert last == "error: interrupted: the run was stopped; nothing was written"
    assert all(line.startswith("warning: long.toml: ") for line in warnings), err
    assert out == ""
    with Store(store, read_only=True) as st:
        assert len(st) == 0


def test_ctrl_c_raises_keyboard_interrupt_in_python(tmp_path: Path) -> None:
    script = (
        "import reorderlab as rl, sys\n"
        f"sc = rl.Scenario.from_dict({LONG!r})\n"
        "print('ready', flush=True)\n"
        "try:\n"
        "    rl.run(sc, seed=1)\n"
        "except KeyboardInterrupt:\n"
        "    print('KeyboardInterrupt')\n"
        "    sys.exit(3)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=sigint_as_at_a_terminal,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "ready\n"
    out, err = _interrupt_when_busy(proc, _cpu_seconds(proc.pid) + 2.0)
    assert (proc.returncode, out.strip()) == (3, "KeyboardInterrupt"), err
