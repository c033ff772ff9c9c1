"""Deviations: recorded per paper in TOML, attached to the claims that do
not hold, written to claims.json and read back; bad files named; in
format 2, the label rules and the evidence numbers checked
(:mod:`reorderlab.evidence`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from reorderlab import deviations
from reorderlab.claims import Claim, explain, write_claims
from reorderlab.deviations import DeviationError, explanations
from reorderlab.evidence import label_problems, number_problems, share_problems, written_tolerance
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
ref = "fig4-sensitivity.png"
note = "holds above 3 % loss"
"""


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setattr(deviations, "DEVIATIONS_DIR", tmp_path)
    deviations.clear_cache()
    yield tmp_path
    deviations.clear_cache()


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
    assert [e.ref for e in failing.deviation.evidence] == ["fig4-sensitivity.png"]
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
    deviations.clear_cache()
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


# --- format 2: labels that survive review, evidence that regenerates (issue 34) ---

FORMAT2 = """
format = 2

[[deviation]]
figure = "fig4"
claim = "TLP halves the completion time"
mode = "{mode}"
cause = "{cause}"
{extra}
why = "w"

[[deviation.evidence]]
kind = "sweep"
ref = "fig4-sensitivity.png"
note = "n"
parameter = "loss model"

[[deviation.evidence.number]]
mode = "quick"
row = {{ variant = "TLP", loss = 0.015 }}
column = "completion_s"
value = 0.46

[[deviation.evidence.number]]
mode = "quick"
row = {{ variant = "TLP", loss = 0.03 }}
column = "completion_s"
value = 0.5

[[deviation.evidence]]
kind = "quote"
ref = "Sec. 4"
note = "n"
quote = "TLP halves the completion time."
"""


def _format2(folder: Path, mode: str = "quick", cause: str = "setting", extra: str = "") -> None:
    text = FORMAT2.format(mode=mode, cause=cause, extra=extra)
    (folder / "toy_paper.toml").write_text(text)


def test_format_2_reads_numbers_quotes_and_parameters(folder: Path) -> None:
    _format2(folder)
    assert deviations.file_format("toy-paper") == 2
    (e,) = explanations("toy-paper")
    sweep, quote = e.deviation.evidence
    assert sweep.parameter == "loss model"
    assert [n.value for n in sweep.numbers] == [0.46, 0.5]
    assert dict(sweep.numbers[0].row) == {"variant": "TLP", "loss": 0.015}
    assert quote.quote == "TLP halves the completion time."
    # through claims.json and back
    assert deviations.from_dict(e.deviation.to_dict(), "x") == e.deviation


def test_a_file_without_format_is_format_1(folder: Path) -> None:
    (folder / "toy_paper.toml").write_text(ENTRY.format(mode="both"))
    assert deviations.file_format("toy-paper") == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("format = 2", "format = 3"), "format: 3 is not one of 1, 2"),
        (('mode = "quick"\nrow', 'mode = "fast"\nrow'), "number 0: mode: 'fast' is not one of"),
        (("row = { variant", "rows = { variant"), "number 0: unknown field"),
        (("value = 0.46", "value = true"), "number 0: value: expected a number or a string"),
        (("value = 0.46", "value = 0.46\ntol = -1"), "number 0: tol: expected a number >= 0"),
    ],
)
def test_a_bad_format_2_file_is_an_error_naming_the_field(
    folder: Path, change: tuple[str, str], message: str
) -> None:
    (folder / "toy_paper.toml").write_text(
        FORMAT2.format(mode="quick", cause="setting", extra="").replace(*change, 1)
    )
    with pytest.raises(DeviationError, match=message):
        explanations("toy-paper")


@pytest.mark.parametrize(
    ("cause", "extra", "mode", "problem"),
    [
        ("setting", "", "quick", None),
        ("model", "", "quick", None),
        ("paper", "", "quick", "paper: needs two quote evidences"),
        ("noise", "", "quick", "noise: needs seed_share strictly between 0 and 1"),
        ("noise", "seed_share = 1.0", "quick", "noise: needs seed_share"),
        ("noise", "seed_share = 0.25", "quick", None),
        ("noise", "seed_share = 0.25", "both", "a seed share is one reproduction's"),
        ("setting", "", "both", "applies in full mode but cites no full-mode number"),
    ],
)
def test_the_label_rules(
    folder: Path, cause: str, extra: str, mode: str, problem: str | None
) -> None:
    _format2(folder, mode=mode, cause=cause, extra=extra)
    (e,) = explanations("toy-paper")
    found = label_problems(e)
    if problem is None:
        assert found == []
    else:
        assert any(problem in p for p in found), found


def test_setting_needs_a_sweep_naming_its_parameter(folder: Path) -> None:
    text = FORMAT2.format(mode="quick", cause="setting", extra="")
    (folder / "toy_paper.toml").write_text(text.replace('parameter = "loss model"\n', ""))
    (e,) = explanations("toy-paper")
    assert any("setting: needs a sweep evidence" in p for p in label_problems(e))


def test_evidence_numbers_are_checked_against_the_file(folder: Path, tmp_path: Path) -> None:
    _format2(folder)
    (e,) = explanations("toy-paper")
    results = tmp_path / "results"
    (results / "toy-paper").mkdir(parents=True)
    csv = results / "toy-paper" / "fig4-sensitivity.csv"
    csv.write_text("variant,loss,completion_s\nTLP,0.015,0.4612\nTLP,0.03,0.5043\nRTOR,0.015,1\n")
    assert number_problems(e, results, "quick") == []
    assert number_problems(e, results, "full") == []  # no full numbers cited
    csv.write_text("variant,loss,completion_s\nTLP,0.015,0.4712\nTLP,0.03,0.5043\n")
    (p,) = number_problems(e, results, "quick")
    assert "completion_s is 0.4712, the deviation says 0.46" in p
    csv.write_text("variant,loss,completion_s\nTLP,0.015,0.46\nTLP,0.015,0.46\n")
    found = number_problems(e, results, "quick")
    assert "2 rows with" in found[0] and "0 rows with" in found[1]
    csv.write_text("variant,completion_s\nTLP,0.46\n")
    assert "no column 'loss'" in number_problems(e, results, "quick")[0]
    csv.unlink()
    assert "is not there" in number_problems(e, results, "quick")[0]


def test_written_tolerance_is_half_the_last_digit() -> None:
    assert written_tolerance(0.46) == pytest.approx(0.005)
    assert written_tolerance(110) == pytest.approx(0.5)
    assert written_tolerance(7.4e-06) == pytest.approx(5e-08)
    assert written_tolerance(3.0) == pytest.approx(0.05)


def test_a_noise_share_is_checked_against_its_claim(folder: Path) -> None:
    _format2(folder, cause="noise", extra="seed_share = 0.25")
    (e,) = explanations("toy-paper")
    claim = {"figure": "fig4", "claim": "TLP halves the completion time", "seed_share": 0.25}
    assert share_problems(e, [claim]) == []
    assert "!= the claim's 0.5" in share_problems(e, [{**claim, "seed_share": 0.5}])[0]
    assert "seed share is 1" in share_problems(e, [{**claim, "seed_share": 1.0}])[0]


def test_format_2_files_follow_the_label_rules() -> None:
    """Every shipped deviations file with ``format = 2``: each entry's label
    and evidence follow the rules (:mod:`reorderlab.evidence`)."""
    deviations.clear_cache()
    problems = [
        p
        for paper in papers()
        if deviations.file_format(paper) >= 2
        for e in explanations(paper)
        for p in label_problems(e)
    ]
    assert not problems, "\n".join(problems)
