"""Every claim that does not hold is explained (issue 20), and the
explanations regenerate (issue 34).

Reads the claims.json files of a quick reproduction (``tests/quick_results.py``
says which; skipped without one). Checks, per paper of the default
reproduction:

* each claim that does not hold carries a ``deviation`` (cause, why,
  evidence) from ``papers/deviations/<paper>.toml``;
* each entry of that file names a claim the reproduction made (figure and
  exact text), so an entry cannot outlive the claim it explains;
* each piece of evidence that names a results file names one the
  reproduction wrote into the paper's folder, or gives the command that
  writes it.

For the papers whose deviations file says ``format = 2``
(:mod:`reorderlab.evidence`): each number of the evidence matches the file
it cites (quick numbers here; full ones against ``REORDERLAB_FULL_RESULTS``
when set), a ``noise`` deviation's seed share is its claim's, and the
paper's coverage table (:mod:`reorderlab.coverage`) names the claims made.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reorderlab.coverage import coverage, coverage_problems
from reorderlab.deviations import CAUSES, explanations
from reorderlab.evidence import FILE_SUFFIXES, number_problems, share_problems
from tests.quick_results import (
    claims_of,
    default_papers,
    full_folder,
    quick_folder,
    strict_papers,
)


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
    """Evidence naming a results file the reproduction did not write and no
    command writes."""
    out = []
    for e in explanations(paper):
        for ev in e.deviation.evidence:
            if ev.command is not None or not ev.ref.endswith(FILE_SUFFIXES):
                continue
            if not (folder / paper / ev.ref).exists():
                out.append(f"{paper} {e.figure}: {ev.ref}")
    return out


def test_every_claim_that_does_not_hold_has_a_deviation() -> None:
    folder = quick_folder()
    problems = [u for p in default_papers() for u in unexplained(claims_of(folder, p))]
    assert not problems, "claims that do not hold, unexplained:\n" + "\n".join(problems)


def test_every_deviation_entry_names_a_claim_that_was_made() -> None:
    folder = quick_folder()
    problems = [s for p in default_papers() for s in stale_entries(p, claims_of(folder, p))]
    assert not problems, "deviation entries naming no claim:\n" + "\n".join(problems)


def test_evidence_files_are_written_by_the_reproduction() -> None:
    folder = quick_folder()
    problems = [m for p in default_papers() for m in missing_files(p, folder)]
    assert not problems, "evidence files not in the results:\n" + "\n".join(problems)


def _numbers(folder: Path, mode: str) -> list[str]:
    return [
        problem
        for p in strict_papers()
        for e in explanations(p)
        for problem in number_problems(e, folder, mode)
    ]


def test_evidence_numbers_match_the_quick_reproduction() -> None:
    problems = _numbers(quick_folder(), "quick")
    assert not problems, "evidence numbers that do not match:\n" + "\n".join(problems)


def test_evidence_numbers_match_the_full_reproduction() -> None:
    problems = _numbers(full_folder(), "full")
    assert not problems, "evidence numbers that do not match:\n" + "\n".join(problems)


def test_noise_deviations_cite_their_claims_seed_share() -> None:
    folder = quick_folder()
    problems = [
        problem
        for p in strict_papers()
        for e in explanations(p)
        if e.applies(quick=True)
        for problem in share_problems(e, claims_of(folder, p))
    ]
    assert not problems, "\n".join(problems)


def test_the_coverage_tables_name_the_claims_made() -> None:
    folder = quick_folder()
    problems = [
        f"{p}: no coverage table"
        for p in strict_papers()
        if not coverage(p) and any(c.get("kind") == "claim" for c in claims_of(folder, p))
    ]
    problems += [
        problem for p in default_papers() for problem in coverage_problems(p, claims_of(folder, p))
        if coverage(p)
    ]  # fmt: skip
    assert not problems, "\n".join(problems)


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
    paper = next(p for p in default_papers() if explanations(p))
    assert stale_entries(paper, []) != []
    citing = [
        p
        for p in default_papers()
        for e in explanations(p)
        if any(ev.ref.endswith(FILE_SUFFIXES) for ev in e.deviation.evidence)
    ]
    assert citing, "no deviation cites a results file"
    assert missing_files(citing[0], tmp_path) != []
