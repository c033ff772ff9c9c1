"""The reproductions the claims tests read.

A quick one: ``make test`` runs it into ``results/`` first (``make run``)
and names it in ``REORDERLAB_QUICK_RESULTS``; then a missing file fails
the tests. Run alone, without that variable, they read ``results/`` if a
reproduction is there and are skipped, saying why, if not.

A full one, optionally: ``REORDERLAB_FULL_RESULTS=DIR`` (e.g. the folder of
``reorderlab reproduce --out DIR`` at full fidelity) also checks the
full-mode numbers of the deviations' evidence against it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from reorderlab.deviations import file_format
from reorderlab.papers import papers

ROOT = Path(__file__).resolve().parents[1]
QUICK = "REORDERLAB_QUICK_RESULTS"
FULL = "REORDERLAB_FULL_RESULTS"


def default_papers() -> list[str]:
    """The papers of ``reproduce`` without arguments."""
    return sorted(
        p for p, figs in papers().items() if any(r.default and r.in_all for r in figs.values())
    )


def strict_papers() -> list[str]:
    """The default papers whose deviations file says ``format = 2``: held to
    the rules of issue 34 (labels, evidence numbers, coverage, encoded
    claims). Papers not yet converted are checked as before."""
    return [p for p in default_papers() if file_format(p) >= 2]


def quick_folder() -> Path:
    """The quick reproduction's folder, or skip / fail as the module says."""
    folder = Path(os.environ.get(QUICK, ROOT / "results"))
    missing = [p for p in default_papers() if not (folder / p / "claims.json").exists()]
    if missing and QUICK in os.environ:
        pytest.fail(f"{QUICK}={folder}: no claims.json for {', '.join(missing)}")
    if missing:
        pytest.skip(f"no quick reproduction in {folder} (make run, or make test, makes one)")
    return folder


def full_folder() -> Path:
    """The full reproduction's folder named by ``REORDERLAB_FULL_RESULTS``, or skip."""
    if FULL not in os.environ:
        pytest.skip(f"no full reproduction named ({FULL}=DIR checks its numbers)")
    folder = Path(os.environ[FULL])
    missing = [p for p in default_papers() if not (folder / p / "claims.json").exists()]
    if missing:
        pytest.fail(f"{FULL}={folder}: no claims.json for {', '.join(missing)}")
    return folder


def claims_of(folder: Path, paper: str) -> list[dict[str, Any]]:
    """``folder/<paper>/claims.json`` as it is written."""
    data = json.loads((folder / paper / "claims.json").read_text(encoding="utf-8"))
    assert isinstance(data, list), f"{paper}/claims.json: expected a list"
    return data
