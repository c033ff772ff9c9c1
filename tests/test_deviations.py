"""Deviations: recorded per paper in TOML, attached to the claims that do
not hold, written to claims.json and read back; bad files named."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from reorderlab import deviations
from reorderlab.claims import Claim, explain, write_claims
from reorderlab.deviations import DeviationError, explanations
from reorderlab.papers import papers
from reorderlab.report import read_claims

ENTRY = """
[[deviation]]
figure = "fig4"
claim = "TLP halves the  completion time"
mode = "{mode}"
cause = "setting"
why = '''The paper's loss model is not given;
Gilbert-Elliott with 1.5 % assumed.'''

[[deviation.evidence]]
kind = "sweep"
ref = "fig4_sensitivity.png"
note = "holds above 3 % loss"
"""


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setattr(deviations, "DEVIATIONS_DIR", tmp_path)
    explanations.cache_clear()
    yield tmp_path
    explanations.cache_clear()


def _claim(text: str, holds: bool, figure: str = "fig4") -> Claim:
    return Claim("toy-paper", figure, text, "x < 1", "x = 2", holds, {"x": 2})


def test_a_failing_claim_gets_its_deviation_and_a_holding_one_none(folder: Path) -> None:
    (folder / "toy_paper.toml").write_text(ENTRY.format(mode="both"))
    text = "TLP halves the completion time"
    failing, holding, other = explain(
        [_claim(text, False), _claim(text, True), _claim("another claim", False)], quick=True
    )
    assert failing.deviation is not None
    assert failing.deviation.cause == "setting"
    assert failing.deviation.why.startswith("The paper's loss model is not given; Gilbert")
    assert [e.ref for e in failing.deviation.evidence] == ["fig4_sensitivity.png"]
    assert failing.verdict == "does not hold (setting)"
    assert holding.deviation is None
    assert other.deviation is None and other.verdict == "does not hold"


@pytest.mark.parametrize(
    ("mode", "quick", "found"),
    [("full", False, True), ("full", True, False), ("quick", True, True), ("quick", False, False)],
)
def test_a_deviation_applies_to_the_mode_it_names(
    folder: Path, mode: str, quick: bool, found: bool
) -> None:
    (folder / "toy_paper.toml").write_text(ENTRY.format(mode=mode))
    (c,) = explain([_claim("TLP halves the completion time", False)], quick=quick)
    assert (c.deviation is not None) is found


def test_claims_json_round_trip(folder: Path, tmp_path: Path) -> None:
    (folder / "toy_paper.toml").write_text(ENTRY.format(mode="both"))
    claims = explain([_claim("TLP halves the completion time", False), _claim("y", True)], True)
    path = write_claims(claims, tmp_path / "claims.json")
    raw = json.loads(path.read_text())
    assert raw[0]["deviation"]["cause"] == "setting"
    assert raw[0]["deviation"]["evidence"][0]["kind"] == "sweep"
    assert raw[1]["deviation"] is None
    assert read_claims(path) == claims


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            ('cause = "setting"', 'cause = "bad luck"'),
            "deviation 0: cause: 'bad luck' is not one of",
        ),
        (
            ('kind = "sweep"', 'kind = "hunch"'),
            "deviation 0: evidence 0: kind: 'hunch' is not one of",
        ),
        (('mode = "both"', 'mode = "sometimes"'), "deviation 0: mode: 'sometimes' is not one of"),
        (
            ('note = "holds above 3 % loss"', 'note = ""'),
            "evidence 0: note: expected a non-empty string",
        ),
        (('figure = "fig4"', 'figure = "fig4"\nfigures = 3'), "deviation 0: unknown field"),
        (("[[deviation.evidence]]", "[[deviation.proof]]"), "deviation 0: unknown field"),
        (('claim = "', "claim = 3 #"), "deviation 0: claim: expected a non-empty string, got 3"),
        (('figure = "fig4"', 'figure = "fig4'), "not valid TOML"),
    ],
)
def test_a_bad_file_is_an_error_naming_the_entry_and_field(
    folder: Path, change: tuple[str, str], message: str
) -> None:
    (folder / "toy_paper.toml").write_text(ENTRY.format(mode="both").replace(*change))
    with pytest.raises(DeviationError, match=message) as err:
        explanations("toy-paper")
    assert "toy_paper.toml" in str(err.value)


def test_no_evidence_is_an_error(folder: Path) -> None:
    entry = ENTRY.format(mode="both").split("[[deviation.evidence]]")[0]
    (folder / "toy_paper.toml").write_text(entry)
    with pytest.raises(DeviationError, match="evidence: at least one piece is needed"):
        explanations("toy-paper")


def test_two_deviations_for_one_claim_and_mode_is_an_error(folder: Path) -> None:
    (folder / "toy_paper.toml").write_text(ENTRY.format(mode="both") + ENTRY.format(mode="full"))
    with pytest.raises(DeviationError, match="two deviations for fig4"):
        explanations("toy-paper")


def test_the_recorded_deviations_name_registered_figures() -> None:
    """Every shipped file parses, is named after a paper, and each entry
    names one of that paper's figures (the claim texts are checked against
    a reproduction by test_claims_explained)."""
    explanations.cache_clear()
    registry = papers()
    files = sorted(deviations.DEVIATIONS_DIR.glob("*.toml"))
    keys = {k.replace("-", "_"): k for k in registry}
    for path in files:
        assert path.stem in keys, f"{path.name}: no paper {path.stem!r}"
        paper = keys[path.stem]
        for e in explanations(paper):
            assert e.figure in registry[paper], (
                f"{path.name}: {e.figure} is not a figure of {paper}"
            )
