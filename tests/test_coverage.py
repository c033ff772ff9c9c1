"""Coverage tables (issue 34): read and checked against the claims made."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reorderlab import coverage
from reorderlab.coverage import CoverageError, coverage_problems
from reorderlab.tallies import before

TABLE = """
[[sentence]]
where = "Sec. 4"
quote = "RED generally has worse performance than drop-tail."
claims = [{ figure = "fig4", claim = "RED worse" }]

[[sentence]]
where = "Sec. 5"
quote = "In most cases they are too narrow to be distinguished."
why_not = "about the plot"
"""


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    (tmp_path / "toy_paper").mkdir()
    monkeypatch.setattr(coverage, "PAPERS_DIR", tmp_path)
    coverage.coverage.cache_clear()
    yield tmp_path / "toy_paper" / "coverage.toml"
    coverage.coverage.cache_clear()


def _claim(claim: str, quote: str, kind: str = "claim") -> dict[str, str]:
    return {"figure": "fig4", "claim": claim, "quote": quote, "kind": kind}


def test_a_table_is_read_and_checked_against_the_claims(toy: Path) -> None:
    toy.write_text(TABLE)
    first, second = coverage.coverage("toy-paper")
    assert first.claims == (("fig4", "RED worse"),) and second.why_not == "about the plot"
    ok = [_claim("RED worse", "RED generally has worse performance")]  # a part of it
    assert coverage_problems("toy-paper", ok) == []
    assert "names no claim made" in coverage_problems("toy-paper", [])[0]
    wrong = [_claim("RED worse", "RED is better")]
    assert "its quote is not the sentence" in coverage_problems("toy-paper", wrong)[0]
    extra = [*ok, _claim("another", "x")]
    assert "a claim no coverage sentence names" in coverage_problems("toy-paper", extra)[0]
    # a condition need not be named
    assert coverage_problems("toy-paper", [*ok, _claim("calib", "x", "condition")]) == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('why_not = "about the plot"', ""), "sentence 1: give claims or why_not"),
        (('where = "Sec. 4"', 'where = ""'), "sentence 0: where: expected a non-empty string"),
        (("claims = [{", "claim = [{"), "sentence 0: unknown field"),
        (('[{ figure = "fig4", claim = "RED worse" }]', '["fig4"]'), "claims 0: expected"),
        (("[[sentence]]", "[[sentences]]"), "unknown key"),
    ],
)
def test_a_bad_table_names_the_entry_and_field(
    toy: Path, change: tuple[str, str], message: str
) -> None:
    toy.write_text(TABLE.replace(*change, 1))
    with pytest.raises(CoverageError, match=message):
        coverage.coverage("toy-paper")


def test_the_tallies_before_are_read() -> None:
    b = before()
    assert b["baseline"].kind == "sanity" and b["baseline"].full == (12, 12)
    papers = [v for k, v in b.items() if v.kind == "claim"]
    assert sum(v.full[0] for v in papers) == 94 and sum(v.full[1] for v in papers) == 142
