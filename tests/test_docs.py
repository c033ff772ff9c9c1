"""The README's example and the example files work as documented."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from reorderlab.store import Store
from reorderlab.sweep import SweepFile

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


def _variants_table_script() -> ModuleType:
    path = ROOT / "scripts" / "variants_table.py"
    spec = importlib.util.spec_from_file_location("variants_table", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_variants_doc_tables_are_the_registry(tmp_path: Path) -> None:
    """docs/variants.md's tables are generated from ``reorderlab variants
    --json``: a cell edited by hand, or a variant without its details, fails."""
    script = ROOT / "scripts" / "variants_table.py"
    check = [sys.executable, str(script), "--check"]
    proc = subprocess.run(check, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    doc = (ROOT / "docs" / "variants.md").read_text(encoding="utf-8")
    for edit, message in (
        (("| `TLPR` |  | TLP with", "| `TLPR` |  | TLP-like with"), "differs from the registry"),
        (("* `TLPR`:", "* TLPR:"), "has no entry for: TLPR"),
        (("* `TLPR`:", "* `TLPR`, `TLP-X`:"), "names variants not registered: TLP-X"),
    ):
        edited = doc.replace(*edit, 1)
        assert edited != doc, edit
        path = tmp_path / "variants.md"
        path.write_text(edited, encoding="utf-8")
        bad = subprocess.run([*check, "--doc", str(path)], capture_output=True, text=True)
        assert bad.returncode == 1 and message in bad.stderr, (edit, bad.stderr)


def test_a_new_registry_entry_changes_the_generated_table() -> None:
    vt = _variants_table_script()
    data = vt.registry()
    doc = (ROOT / "docs" / "variants.md").read_text(encoding="utf-8")
    assert vt.problems(doc, data) == []
    data["variants"].append(
        {"name": "NEW-1", "description": "a | b", "source": "RFC 0", "aliases": ["N1"]}
    )
    found = vt.problems(doc, data)
    assert "+| `NEW-1` | `N1` | a \\| b | RFC 0 |" in found[0]
    assert found[1].endswith("has no entry for: NEW-1")
