"""``reproduce`` reports as it goes (issue 41): each paper's claims.json is
written as soon as its figures are done, so a reproduction stopped later
keeps them; an ETA line after each figure; a summary at the end."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from reorderlab.papers import select
from reorderlab.reproduce_progress import duration_text

from .conftest import run_cli

#: How long the stopped reproduction may take to exit: a bound against a
#: hang, not a measure of speed.
EXIT_BOUND_S = 120


def test_sigint_after_the_first_paper_keeps_its_claims(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    out = tmp_path / "res"
    first = select()[0].paper
    claims = out / first / "claims.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "reorderlab", "reproduce", "--quick", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env,
    )
    try:
        deadline = time.monotonic() + 900
        while not claims.exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the first paper never finished"
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        _stdout, stderr = proc.communicate(timeout=EXIT_BOUND_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr
    written = json.loads(claims.read_text(encoding="utf-8"))
    figures = {c["figure"] for c in written}
    assert figures == {r.figure for r in select(first)}
    assert all(isinstance(c["holds"], bool) and c["measured"] for c in written)
    second = select()[-1].paper
    assert not (out / second / "claims.json").exists()


def test_the_summary_counts_claims_runs_and_time(tmp_path: Path, cli_env: dict[str, str]) -> None:
    args = ["reproduce", "baseline", "--quick", "--out", str(tmp_path / "r")]
    cold = run_cli(args, cli_env)
    assert cold.returncode == 0, cold.stderr
    assert "1 of 2 figures done" in cold.stdout and "left" in cold.stdout
    summary = cold.stdout[cold.stdout.index("summary:") :].splitlines()
    assert summary[1].startswith("  baseline: ") and "sanity checks:" in summary[1]
    runs = summary[2].split(":")[0].strip()
    assert summary[2].startswith(f"  {runs}: {runs.split()[0]} simulated, 0 taken from the store")
    warm = run_cli(args, cli_env)  # the same store: nothing simulated
    assert f"  {runs}: 0 simulated, {runs.split()[0]} taken from the store" in warm.stdout


def test_duration_text() -> None:
    assert duration_text(42.4) == "42 s"
    assert duration_text(185) == "3 min 05 s"
    assert duration_text(3720) == "1 h 02 min"
