"""The README's example and the example files work as documented, and the
repository stands on its own: no file points outside it, and every paper
the recipes reproduce is cited in docs/papers.md."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from reorderlab.papers import papers
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


#: What no tracked file may contain, and why: a clone of the repository has
#: nothing outside it, and "seed" means the random seed, so a paper is named
#: by its key (rr-tcp, tcp-pr, tail-loss, high-speed, wwan), never by a
#: number. The patterns are written so that this file does not match them.
FORBIDDEN = (
    (
        re.compile(r"\.\./shared|/work/sh[a]red|\brefs/[\w-]+\.md"),
        "a path outside the repository",
    ),
    (re.compile(r"\bDESIGN\.md\b"), "notes outside the repository (docs/architecture.md)"),
    (re.compile(r"\bEXPERIMENTS\.md\b"), "notes outside the repository (docs/papers.md)"),
    (
        re.compile(r"(?<![a-z])seeds?[ _-]?00\d(?!\d)", re.IGNORECASE),
        "a paper named by a number (name it by its key)",
    ),
)


def forbidden_mentions(name: str, text: str) -> list[str]:
    """``name:line: why: 'match'`` for every forbidden mention in ``text``."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for pattern, why in FORBIDDEN:
            found += [f"{name}:{number}: {why}: {m.group(0)!r}" for m in pattern.finditer(line)]
    return found


def _tracked_files() -> list[str]:
    proc = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    if proc.returncode != 0:
        pytest.skip(f"not a git checkout ({proc.stderr.decode(errors='replace').strip()})")
    return [name for name in proc.stdout.decode().split("\0") if name]


def test_no_tracked_file_points_outside_the_repository_or_names_a_paper_by_number() -> None:
    names = _tracked_files()
    assert "docs/papers.md" in names and "tests/test_docs.py" in names
    found: list[str] = []
    for name in names:
        path = ROOT / name
        if not path.is_file():
            continue  # deleted in the work tree, not yet in the index
        data = path.read_bytes()
        if b"\0" in data:
            continue  # binary
        found += forbidden_mentions(name, data.decode("utf-8", errors="replace"))
    assert not found, "\n".join(found)


def test_each_forbidden_mention_is_found() -> None:
    lines = {
        "see " + "../" + "shared/notes.txt": "outside the repository",
        "open " + "/work/" + "shared/notes.txt": "outside the repository",
        "see " + "refs/" + "aix.md rule 2": "outside the repository",
        "as " + "DESIGN" + ".md says": "docs/architecture.md",
        "a row of " + "EXPERIMENTS" + ".md": "docs/papers.md",
        "the " + "seed" + " 003 generator": "by its key",
        "Seeds" + " 000, 001": "by its key",
        "the " + "seed" + "-000 chain": "by its key",
        "def test_with_" + "seed" + "_001_defaults": "by its key",
    }
    for line, why in lines.items():
        found = forbidden_mentions("x.md", line)
        assert len(found) == 1 and why in found[0], (line, found)
    for fine in ("seed = 1", "seeds 0-4", "5 seeds", "--seeds 3", "a random seed 1000"):
        assert forbidden_mentions("x.md", fine) == [], fine


def paper_entries(doc: str) -> dict[str, str]:
    """key -> its citation, from the Keys table of docs/papers.md."""
    section = doc.split("\n## Keys\n", 1)[1].split("\n## ", 1)[0]
    rows = re.finditer(r"^\| `([a-z0-9-]+)` \| ([^|]+) \|", section, flags=re.MULTILINE)
    return {m.group(1): m.group(2) for m in rows}


def missing_papers(doc: str, keys: list[str]) -> list[str]:
    """What docs/papers.md lacks for these recipe keys: a row in its Keys
    table; and for each paper (a row that is not "Not a paper"), a year or
    the word that its citation was not found, and a section of its own."""
    entries = paper_entries(doc)
    problems = [f"{key}: no row in the Keys table" for key in keys if key not in entries]
    for key, cite in entries.items():
        if cite.startswith("Not a paper"):
            continue
        if not re.search(r"\b(19|20)\d\d\b", cite) and "not found" not in cite:
            problems.append(f"{key}: a citation without a year")
        if f"\n## The {key} paper\n" not in doc:
            problems.append(f"{key}: no section '## The {key} paper'")
    return problems


def test_every_recipe_paper_key_is_cited_in_docs_papers() -> None:
    doc = (ROOT / "docs" / "papers.md").read_text(encoding="utf-8")
    keys = sorted(papers())
    assert {"rr-tcp", "tcp-pr", "tail-loss", "high-speed", "wwan"} <= set(keys)
    assert missing_papers(doc, keys) == []
    for edit, problem in (
        (("| `tcp-pr` |", "| tcp-pr |"), "tcp-pr: no row in the Keys table"),
        (("\n## The wwan paper\n", "\n## The WWAN paper\n"), "wwan: no section"),
        (("Review 45(1), 2015 (doi", "Review 45(1) (doi"), "tail-loss: a citation without"),
    ):
        edited = doc.replace(*edit, 1)
        assert edited != doc, edit
        assert any(p.startswith(problem) for p in missing_papers(edited, keys)), edit


def test_the_readme_league_table_is_what_its_command_prints() -> None:
    """Issue 41: the README's cellular-arq table had drifted from what its
    command printed (Linux 19.60 against 19.31, TCP-NCR 3.00 against
    5.04). The table is generated (scripts/readme_league.py) and checked
    here against the command, run afresh."""
    script = ROOT / "scripts" / "readme_league.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--check"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, (
        "the README's league table differs from its command's output; run "
        f"python scripts/readme_league.py\n{proc.stdout}{proc.stderr}"
    )
