"""The self-test of every claim (issue 34): each check can fail.

Over every claim of a quick reproduction's claims.json
(``tests/quick_results.py``) that carries the records of its seeded tests
(:mod:`reorderlab.checks.seeded`):

* re-running each record on its inputs gives the recorded estimate,
  interval and verdict, and the claim's verdict is that of its records;
* on each record's perturbed inputs (:mod:`reorderlab.checks.perturb`: the
  effect removed, the margin inside the noise, the trend flattened or
  reversed) the claim does not hold.

For the papers whose deviations file says ``format = 2``, every claim must
carry records, the sentence it encodes (``quote``) and where that stands.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from reorderlab.checks import rerun
from reorderlab.checks.perturb import perturbations
from reorderlab.claims import KINDS
from tests.quick_results import claims_of, default_papers, quick_folder, strict_papers


def _name(c: Mapping[str, Any]) -> str:
    return f"{c['paper']} {c['figure']} {c['claim']!r}"


def _same(a: float, b: float) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b or abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def rerun_problems(c: Mapping[str, Any]) -> list[str]:
    """A claim whose records do not re-run to what they say."""
    out = []
    for i, rec in enumerate(c.get("tests", [])):
        again = rerun(rec)
        fields = ("estimate", "lo", "hi")
        if again.holds != rec["holds"] or not all(_same(getattr(again, f), rec[f]) for f in fields):
            out.append(f"{_name(c)}: test {i} ({rec['test']}) re-runs to a different result")
    records = c.get("tests", [])
    if records and c["holds"] != all(r["holds"] for r in records):
        out.append(f"{_name(c)}: holds is {c['holds']}, its tests say otherwise")
    return out


def perturbation_problems(c: Mapping[str, Any]) -> list[str]:
    """Each record perturbed in turn: the claim must not hold. A
    perturbation that reverses the effect is asserted only on a claim that
    held (a failing claim's reversal may well hold)."""
    records = list(c.get("tests", []))
    out = []
    for i, rec in enumerate(records):
        others = all(r["holds"] for j, r in enumerate(records) if j != i)
        for p in perturbations(rec):
            if not (p.null or c["holds"]):
                continue
            if others and p.record.holds:
                out.append(f"{_name(c)}: test {i} ({rec['test']}) still holds when {p.name}")
    return out


def encoding_problems(c: Mapping[str, Any]) -> list[str]:
    """A claim of a converted paper without its sentence or its records."""
    out = []
    if c.get("kind", "claim") not in KINDS:
        out.append(f"{_name(c)}: kind {c.get('kind')!r}")
    if not str(c.get("quote", "")).strip() or not str(c.get("where", "")).strip():
        out.append(f"{_name(c)}: no quote or no where")
    if not c.get("tests"):
        out.append(f"{_name(c)}: no seeded test records (a bare threshold check)")
    return out


def _all_claims() -> list[dict[str, Any]]:
    folder = quick_folder()
    return [c for p in default_papers() for c in claims_of(folder, p)]


def test_claims_of_converted_papers_quote_their_sentence_and_record_their_tests() -> None:
    folder = quick_folder()
    problems = [
        problem for p in strict_papers() for c in claims_of(folder, p)
        for problem in encoding_problems(c)
    ]  # fmt: skip
    assert not problems, "\n".join(problems)


def test_every_record_reruns_to_its_verdict() -> None:
    problems = [problem for c in _all_claims() for problem in rerun_problems(c)]
    assert not problems, "\n".join(problems)


def test_every_check_fails_on_perturbed_inputs() -> None:
    claims = [c for c in _all_claims() if c.get("tests")]
    problems = [problem for c in claims for problem in perturbation_problems(c)]
    assert not problems, "\n".join(problems)


def test_the_self_test_catches_what_it_looks_for() -> None:
    """A claim whose verdict is not its records', a record whose verdict
    is not its inputs', a claim without its sentence are caught."""
    from reorderlab.checks import band

    (rec,) = band({1: 1.0, 2: 1.0}, 0.5, 1.5, "x", source="s").tests
    claim = {"paper": "p", "figure": "f", "claim": "c", "holds": True, "tests": [rec]}
    assert rerun_problems(claim) == [] and perturbation_problems(claim) == []
    # a second record forged to hold on inputs that do not show it
    (bad,) = band({1: 3.0, 2: 3.0}, 0.5, 1.5, "x", source="s").tests
    assert rerun_problems({**claim, "tests": [rec, {**bad, "holds": True}]}) != []
    lying = {**claim, "holds": False}
    assert rerun_problems(lying) != []
    forged = {**claim, "tests": [{**rec, "holds": False}]}
    assert rerun_problems(forged) != []
    assert encoding_problems({**claim, "quote": ""}) != []
