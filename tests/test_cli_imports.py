"""The command line starts fast because each command imports only what it
uses: checked by the modules a command leaves in ``sys.modules`` (run in a
subprocess), never by timing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

#: Runs the command line on argv and prints the modules it imported.
_PROBE = """
import json, sys
from reorderlab.cli import app
try:
    app(sys.argv[1:])
except SystemExit as exc:
    if exc.code:
        raise
print("\\nMODULES " + json.dumps(sorted(sys.modules)))
"""

HEAVY = ("pandas", "numpy", "matplotlib", "dask", "distributed", "duckdb", "pydantic", "rich")


def imported(args: list[str], env: dict[str, str]) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("MODULES "))
    return set(json.loads(line.removeprefix("MODULES ")))


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return [n for n in names if n in modules or any(m.startswith(n + ".") for m in modules)]


@pytest.mark.parametrize("args", [["--help"], ["run", "--help"], ["compare", "--help"]])
def test_help_imports_nothing_heavy(args: list[str], cli_env: dict[str, str]) -> None:
    modules = imported(args, cli_env)
    assert loaded(modules, (*HEAVY, "reorderlab.scenario", "reorderlab._core")) == []


@pytest.mark.parametrize("command", ["variants", "impairments"])
def test_listings_import_the_core_and_nothing_heavy(command: str, cli_env: dict[str, str]) -> None:
    modules = imported([command], cli_env)
    assert "reorderlab._core" in modules
    assert loaded(modules, (*HEAVY, "reorderlab.scenario")) == []


def test_run_imports_no_pandas_matplotlib_dask_or_sweep(cli_env: dict[str, str]) -> None:
    chain = str(ROOT / "examples" / "chain.toml")
    modules = imported(["run", chain], cli_env)
    assert {"reorderlab.scenario", "reorderlab.store", "duckdb"} <= modules  # it did run
    unwanted = ("pandas", "numpy", "matplotlib", "dask", "distributed", "rich")
    assert loaded(modules, (*unwanted, "reorderlab.sweep", "multiprocessing")) == []
    # without the store, not DuckDB either
    modules = imported(["run", chain, "--no-cache"], cli_env)
    assert loaded(modules, (*unwanted, "duckdb", "reorderlab.store")) == []


def test_dask_is_optional_and_its_absence_is_named(
    tmp_path: Path, cli_env: dict[str, str], small_toml: Path
) -> None:
    """Without Dask installed (``distributed`` cannot be imported), a sweep
    on the dask backend fails with one line saying how to install it."""
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text('scenario = "small.toml"\n', encoding="utf-8")
    code = (
        "import sys\n"
        "sys.modules['distributed'] = None  # as if not installed\n"
        "from reorderlab.cli import app\n"
        "app(sys.argv[1:])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "sweep", str(sweep_file), "--dask", "local", "--no-cache"],
        capture_output=True,
        text=True,
        env=cli_env,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "pip install 'reorderlab[dask]'" in proc.stderr.strip().splitlines()[-1]
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    dependencies = pyproject.split("dependencies = [", 1)[1].split("]", 1)[0]
    assert "dask" not in dependencies
    assert 'dask = ["dask[distributed]' in pyproject
