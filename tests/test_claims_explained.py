"""Every claim that does not hold is explained (issue 20).

Reads the claims.json files of a quick reproduction: ``make test`` runs one
into ``results/`` first (``make run``) and names it in
``REORDERLAB_QUICK_RESULTS``; then a missing file fails the test. Run alone
(``pytest tests/test_claims_explained.py``) without that variable, it reads
``results/`` if a reproduction is there and is skipped, saying why, if not.

Checks, per paper of the default reproduction:

* each claim that does not hold carries a ``deviation`` (cause, why,
  evidence) from ``papers/deviations/<paper>.toml``;
* each entry of that file names a claim the reproduction made (figure and
  exact text), so an entry cannot outlive the claim it explains;
* each piece of evidence that names a results file (``.png``, ``.csv``,
  ``.json``) names one the reproduction wrote into the paper's folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from reorderlab.deviations import CAUSES, explanations
from reorderlab.papers import papers

ROOT = Path(__file__).resolve().parents[1]
ENV = "REORDERLAB_QUICK_RESULTS"
FILE_SUFFIXES = (".png", ".csv", ".json")


def _default_papers() -> list[str]:
    return sorted(
        p for p, figs in papers().items() if any(r.default and r.in_all for r in figs.values())
    )


def _results() -> Path:
    """The quick reproduction's folder, or skip / fail as the module says."""
    folder = Path(os.environ.get(ENV, ROOT / "results"))
    missing = [p for p in _default_papers() if not (folder / p / "claims.json").exists()]
    if missing and ENV in os.environ:
        pytest.fail(f"{ENV}={folder}: no claims.json for {', '.join(missing)}")
    if missing:
        pytest.skip(f"no quick reproduction in {folder} (make run, or make test, makes one)")
    return folder


def _claims(folder: Path, paper: str) -> list[dict[str, Any]]:
    data = json.loads((folder / paper / "claims.json").read_text(encoding="utf-8"))
    assert isinstance(data, list), f"{paper}/claims.json: expected a list"
    return data


def unexplained(claims: list[dict[str, Any]]) -> list[str]:
    """The claims that do not hold and carry no usable deviation."""
    out = []
    for c in claims:
        if c["holds"]:
            continue
        d = c.get("deviation")
        if not d or d.get("cause") not in CAUSES or not d.get("why") or not d.get("evidence"):
            out.append(f"{c['paper']} {c['figure']}: {c['claim']}")
    return out


def stale_entries(paper: str, claims: list[dict[str, Any]]) -> list[str]:
    """The deviation entries of ``paper`` that name no claim made."""
    made = {(c["figure"], " ".join(c["claim"].split())) for c in claims}
    return [
        f"{paper} {e.figure} ({e.mode}): {e.claim}"
        for e in explanations(paper)
        if (e.figure, e.claim) not in made
    ]


def missing_files(paper: str, folder: Path) -> list[str]:
    """Evidence naming a results file the reproduction did not write."""
    out = []
    for e in explanations(paper):
        for ev in e.deviation.evidence:
            if ev.ref.endswith(FILE_SUFFIXES) and not (folder / paper / ev.ref).exists():
                out.append(f"{paper} {e.figure}: {ev.ref}")
    return out


def test_every_claim_that_does_not_hold_has_a_deviation() -> None:
    folder = _results()
    problems = [u for p in _default_papers() for u in unexplained(_claims(folder, p))]
    assert not problems, "claims that do not hold, unexplained:\n" + "\n".join(problems)


def test_every_deviation_entry_names_a_claim_that_was_made() -> None:
    folder = _results()
    problems = [s for p in _default_papers() for s in stale_entries(p, _claims(folder, p))]
    assert not problems, "deviation entries naming no claim:\n" + "\n".join(problems)


def test_evidence_files_are_written_by_the_reproduction() -> None:
    folder = _results()
    problems = [m for p in _default_papers() for m in missing_files(p, folder)]
    assert not problems, "evidence files not in the results:\n" + "\n".join(problems)


def _claim(holds: bool, deviation: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"paper": "p", "figure": "f", "claim": "c", "holds": holds, "deviation": deviation}


def test_the_checks_catch_what_they_look_for(tmp_path: Path) -> None:
    """The checks above can fail: an unexplained claim, an empty deviation,
    an entry for a claim never made, a missing evidence file."""
    good = {"cause": "paper", "why": "w", "evidence": [{"kind": "quote", "ref": "r", "note": "n"}]}
    assert unexplained([_claim(True), _claim(False, good)]) == []
    assert unexplained([_claim(False)]) == ["p f: c"]
    assert unexplained([_claim(False, {**good, "evidence": []})]) == ["p f: c"]
    assert unexplained([_claim(False, {**good, "cause": "luck"})]) == ["p f: c"]
    paper = next(p for p in _default_papers() if explanations(p))
    assert stale_entries(paper, []) != []
    citing = [
        p
        for p in _default_papers()
        for e in explanations(p)
        if any(ev.ref.endswith(FILE_SUFFIXES) for ev in e.deviation.evidence)
    ]
    assert citing, "no deviation cites a results file"
    assert missing_files(citing[0], tmp_path) != []
