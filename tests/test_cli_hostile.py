"""The command line against a hostile user (issue 40, findings 5 and 6):
scenario paths that are no text files, huge numbers, a closed stdout,
Ctrl-C at any moment (the imports included) and terminal escapes in a
flow's name. Each ends in one line and an exit code, never a traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import tomli_w

from .child_targets import sigint_as_at_a_terminal
from .conftest import SMALL_TOML, run_cli

HUGE = "99999999999999999999"


def one_line_error(proc: subprocess.CompletedProcess[str], code: int, *words: str) -> str:
    """Exit ``code``, one line on stderr starting ``error:`` and naming each of ``words``."""
    err = proc.stderr
    assert (proc.returncode, "Traceback" in err) == (code, False), (proc.returncode, err[-2000:])
    assert err.count("\n") == 1 and err.startswith("error: "), err[-2000:]
    for word in words:
        assert word in err, (word, err)
    return err


def test_scenario_paths_that_are_no_text_files_are_one_line(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    """`run /dev/zero` read until memory ran out (MemoryError); a FIFO
    blocked for ever; bytes that are no UTF-8 were a UnicodeDecodeError."""
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    big = tmp_path / "big.toml"
    with big.open("wb") as f:  # sparse: no disk used
        f.truncate(1 << 30)  # (above reorderlab.textfile.MAX_FILE_BYTES)
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b'name = "d\xe9bit"\n')
    cases = [
        ("/dev/zero", "/dev/zero is not a regular file"),
        (str(fifo), "fifo.toml is not a regular file"),
        (str(tmp_path), "is not a regular file"),
        (str(big), "big.toml is 1073741824 bytes, more than the"),
        (str(latin), "not UTF-8 text: byte 0xe9 at line 1"),
    ]
    for path, words in cases:
        for command in (["run", path], ["compare", path, "--seeds", "1"]):
            proc = subprocess.run(
                [sys.executable, "-m", "reorderlab", *command],
                capture_output=True,
                text=True,
                env=cli_env,
                timeout=120,  # a bound against the FIFO's hang, not a measure
                check=False,
            )
            one_line_error(proc, 2, words)


def test_huge_integers_on_the_command_line_name_the_field(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    """`compare --seeds 99999999999999999999` was an OverflowError."""
    (tmp_path / "small.toml").write_text(SMALL_TOML)
    sc = str(tmp_path / "small.toml")
    cases = [
        (["compare", sc, "--seeds", HUGE], "seeds: must be at most 1000000"),
        (["run", sc, "--seed", HUGE], "seed: must be an integer from 0 to"),
        (["compare", sc, "--workers", HUGE], "workers: must be at most 1024"),
    ]
    for args, words in cases:
        proc = run_cli(args, cli_env)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
        assert words in proc.stderr and HUGE in proc.stderr, proc.stderr


def test_a_closed_stdout_is_one_line_and_nothing_is_written_to_descriptor_1(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    """`reorderlab variants >&-` was an AttributeError traceback; a file
    opened next would have taken descriptor 1 and received the output."""
    (tmp_path / "small.toml").write_text(SMALL_TOML)
    store = tmp_path / "s.duckdb"
    for args in (["variants"], ["run", "small.toml", "--store", str(store)]):
        proc = subprocess.run(
            ["sh", "-c", 'exec "$@" >&-', "sh", sys.executable, "-m", "reorderlab", *args],
            capture_output=False,
            stderr=subprocess.PIPE,
            text=True,
            env=cli_env,
            cwd=tmp_path,
            timeout=300,
            check=False,
        )
        assert proc.returncode == 1, proc.stderr
        assert proc.stderr == "error: standard output is closed: nothing could be shown\n"
    assert not store.exists()


#: Runs for minutes (test_interrupt.py's LONG): still running when the signal comes.
LONG = {
    "name": "long",
    "duration": 100_000,
    "topology": {"kind": "chain", "bottleneck_rate": 100e6, "bottleneck_delay": 0.01},
    "flows": [{"src": "S1", "dst": "D", "tcp": {"max_window": 1000}}],
}
#: CPU seconds the command has used when SIGINT is sent (CPU time, unlike
#: wall time, does not depend on the machine's load): past the
#: interpreter's own start (about 25 ms), through the imports of the
#: parser, of the command's module (pydantic, DuckDB, pandas: about 1 s)
#: and the fork server's start, into the run itself.
CPU_DELAYS = (0.05, 0.1, 0.2, 0.35, 0.5, 0.8, 1.2, 2.5)
#: A bound on the exit after the signal, against a hang.
EXIT_BOUND_S = 60


def _command() -> list[str]:
    """The ``reorderlab`` script of this interpreter's environment (what a
    user runs), else ``python -m reorderlab``."""
    script = Path(sys.executable).with_name("reorderlab")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "reorderlab"]


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:  # (ended)
        return float("inf")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _interrupted_at(
    args: list[str], cwd: Path, env: dict[str, str], cpu_s: float
) -> tuple[int, str]:
    proc = subprocess.Popen(
        args,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=sigint_as_at_a_terminal,
    )
    # a sweep's driver idles once its workers run: its CPU time stops there
    latest = time.monotonic() + cpu_s + 15
    while _cpu_seconds(proc.pid) < cpu_s and proc.poll() is None and time.monotonic() < latest:
        time.sleep(0.002)
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=EXIT_BOUND_S)
    finally:
        if proc.poll() is None:  # a hang: the test fails; do not leave it behind
            proc.kill()
            proc.communicate()
    return proc.returncode, err


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux's /proc")
@pytest.mark.parametrize("command", ["run", "sweep"])
def test_ctrl_c_at_any_moment_is_one_line_and_exit_130(
    tmp_path: Path, cli_env: dict[str, str], command: str
) -> None:
    """Ctrl-C in the first ~1.5 s of `run` or `sweep`, while the imports
    ran, was a traceback in 8 of 20 tries (and, at the wrong instant in an
    extension module's initialisation, a segmentation fault). (A signal in
    the interpreter's own start, before any line of reorderlab runs, is
    Python's; not sent here.)"""
    (tmp_path / "long.toml").write_text(tomli_w.dumps(LONG))
    (tmp_path / "sw.toml").write_text('scenario = "long.toml"\nseeds = 2\n')
    target = "long.toml" if command == "run" else "sw.toml"
    args = [*_command(), command, target, "--store", str(tmp_path / "s.duckdb")]
    if command == "sweep":
        args += ["--workers", "1"]
    for cpu_s in CPU_DELAYS:
        code, err = _interrupted_at(args, tmp_path, cli_env, cpu_s)
        # the scenario's warnings (a 100,000-s run...) come first
        lines = [ln for ln in err.splitlines() if not ln.startswith("warning: ")]
        assert "Traceback" not in err and len(lines) == 1, (cpu_s, code, err[-3000:])
        assert code == 130 and "interrupted" in err, (cpu_s, code, err)


def test_terminal_escapes_in_a_flow_name_are_shown_escaped(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    """An ANSI sequence in a flow's (or the scenario's) name was printed raw
    in the tables of `run` and `compare`."""
    text = SMALL_TOML.replace('name = "f0"', 'name = "\\u001b[2J\\u001b[31mred"').replace(
        'name = "small"', 'name = "s\\u009b1m"'
    )
    (tmp_path / "ansi.toml").write_text(text)
    for args in (
        ["run", "ansi.toml", "--no-cache"],
        ["compare", "ansi.toml", "--no-cache", "--seeds", "1", "--variants", "SACK,Reno"],
    ):
        proc = run_cli(args, cli_env, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        out = proc.stdout + proc.stderr
        assert "\x1b" not in out and "\x9b" not in out, out
        if args[0] == "run":
            assert "\\x1b[2J\\x1b[31mred" in out
        assert "s\\x9b1m" in out, out
