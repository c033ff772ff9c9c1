"""Shared fixtures: small, fast scenarios and isolated result stores."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from reorderlab.scenario import Scenario

ROOT = Path(__file__).resolve().parent.parent

SMALL_TOML = """\
name = "small"
duration = 5.0
seed = 1

[topology]
kind = "chain"
bottleneck_rate = 8e6
bottleneck_delay = 0.023

[[impairments]]
link = "R1->R2"
kind = "loss"
p = 0.01

[[flows]]
name = "f0"
src = "S1"
dst = "D"
variant = "SACK"

[flows.tcp]
max_window = 50

[record]
series = ["cwnd", "srtt"]
interval = 0.1
"""


def small_scenario(p: float = 0.01, duration: float = 5.0) -> Scenario:
    """A one-flow chain with i.i.d. loss: simulates in milliseconds."""
    return Scenario.from_toml(SMALL_TOML).with_params({"impairments[0].p": p, "duration": duration})


@pytest.fixture
def small() -> Scenario:
    return small_scenario()


@pytest.fixture
def small_toml(tmp_path: Path) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(SMALL_TOML, encoding="utf-8")
    return path


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "results" / "store.duckdb"


@pytest.fixture
def cli_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """Environment for CLI subprocesses: a private store, no terminal."""
    env = dict(os.environ)
    env["REORDERLAB_STORE"] = str(tmp_path / "cli-store.duckdb")
    env["COLUMNS"] = "200"
    env.pop("FORCE_COLOR", None)
    yield env


def run_cli(
    args: list[str], env: dict[str, str], cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``reorderlab ARGS`` in a subprocess (as ``python -m reorderlab``)."""
    return subprocess.run(
        [sys.executable, "-m", "reorderlab", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=600,
        check=False,
    )
