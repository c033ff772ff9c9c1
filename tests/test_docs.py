"""The README's example and the example files work as documented."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reorderlab.store import Store
from reorderlab.sweeper import SweepFile

from .conftest import ROOT


def test_readme_python_example_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert blocks, "README has a Python example"
    store = tmp_path / "readme.duckdb"
    monkeypatch.setenv("REORDERLAB_STORE", str(store))
    monkeypatch.chdir(ROOT)
    namespace: dict[str, object] = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    df = namespace["df"]
    assert len(df) == 3 * 4 * 5  # type: ignore[arg-type]
    with Store(store, read_only=True) as st:
        assert len(st) == 60


def test_example_sweep_file_loads() -> None:
    spec = SweepFile.load(ROOT / "examples" / "loss-sweep.toml")
    assert spec.name == "loss-sweep"
    assert spec.seeds == [1, 2, 3, 4, 5]
    assert len(spec.grid) == 12
