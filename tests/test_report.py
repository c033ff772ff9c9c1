"""The HTML report: built from a results directory, and ``reorderlab report``."""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest

from reorderlab.claims import KINDS, tally_text
from reorderlab.report import Artifact, ReportError, group, write_report

from .conftest import run_cli

TRICKY = 'cwnd < 2 & "ssthresh" > 1'


def _claim(paper: str, figure: str, claim: str, holds: bool) -> dict[str, object]:
    return {
        "paper": paper,
        "figure": figure,
        "claim": claim,
        "expected": f"expected of {claim}",
        "measured": f"measured of {claim}",
        "holds": holds,
        "values": {"x": 1.5},
    }


def _plot_files(stem: str) -> list[str]:
    return [f"{stem}.png", f"{stem}.svg", f"{stem}.csv"]


def _write_paper(out: Path, key: str, claims: list[dict[str, object]], files: list[str]) -> None:
    d = out / key
    d.mkdir(parents=True)
    (d / "claims.json").write_text(json.dumps(claims, indent=2), encoding="utf-8")
    for name in files:
        (d / name).write_bytes(b"content of " + name.encode())


@pytest.fixture
def results(tmp_path: Path) -> Path:
    """Two papers: ``baseline`` (registered: its titles come from the recipes;
    claims in the file in the opposite order to the registry's) and ``zeta``
    (unknown), with plots, a CSV-only table and a plot of no known figure."""
    out = tmp_path / "results"
    _write_paper(
        out,
        "baseline",
        [
            _claim("baseline", "random-loss", "Reno matches PFTK", True),
            _claim("baseline", "undisturbed", "runs at S", True),
        ],
        [*_plot_files("random_loss_throughput"), *_plot_files("undisturbed_cwnd")],
    )
    _write_paper(
        out,
        "zeta",
        [
            _claim("zeta", "fig2", TRICKY, False),
            _claim("zeta", "fig2", "zeta holds one", True),
            _claim("zeta", "fig10-11", "zeta fails again", False),
        ],
        [
            *_plot_files("fig2-1"),
            *_plot_files("misc"),
            *("fig10_rate.png", "fig11_rate.png", "table3.csv", "notes.txt"),
        ],
    )
    (out / "stray").mkdir()  # no claims.json: not a paper
    return out


class _Page(HTMLParser):
    """Links, ids, and the text of each table row of a page."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.rows: list[tuple[str, str]] = []  # (class, text)
        self._row: tuple[str, list[str]] | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.links += [v for k, v in attrs if k in ("href", "src") and v is not None]
        if a.get("id"):
            self.ids.add(str(a["id"]))
        if tag == "tr":
            self._row = (a.get("class") or "", [])

    def handle_endtag(self, tag: str) -> None:
        if tag == "tr" and self._row is not None:
            self.rows.append((self._row[0], " ".join(self._row[1])))
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._row is not None and data.strip():
            self._row[1].append(data.strip())


def _page(out: Path) -> tuple[str, _Page]:
    text = write_report(out).read_text(encoding="utf-8")
    return text, _Page(text)


def test_summary_counts_per_paper_and_total(results: Path) -> None:
    _, page = _page(results)
    summary = [text for _, text in page.rows if text.startswith(("baseline", "zeta", "all"))]
    assert summary[0].startswith("baseline Baseline checks of the engine")
    # claims, conditions met, sanity checks; the tally before issue 34;
    # then not holding by cause: model, setting, paper, noise, unexplained
    assert summary[0].endswith("2 / 2 0 / 0 0 / 0 12 / 12 quick, 12 / 12 full 0 0 0 0 0")
    assert summary[1] == "zeta zeta 1 / 3 0 / 0 0 / 0 0 0 0 0 2"
    assert summary[2] == "all 3 / 5 0 / 0 0 / 0 0 0 0 0 2"
    assert "stray" not in page.ids and "#paper-stray" not in page.links


def test_a_claim_that_does_not_hold_is_marked(results: Path) -> None:
    text, page = _page(results)
    claims = {
        row: cls
        for cls, row in page.rows
        if row.startswith(("fig2 ", "fig10-11 ", "undisturbed ", "random-loss "))
    }
    assert len(claims) == 5
    failing = [row for row, cls in claims.items() if cls == "fails"]
    assert len(failing) == 2
    assert all(row.endswith("does not hold") for row in failing)
    holding = [row for row, cls in claims.items() if cls == "holds"]
    assert len(holding) == 3
    assert all(row.endswith("holds") and "not" not in row for row in holding)
    assert "zeta holds one" in " ".join(holding)
    assert "1 of 3 claims hold; conditions met: 0 of 0; sanity checks: 0 of 0" in text
    # with no deviation recorded, each says so in the row under it
    assert [cls for cls, row in page.rows if row == "unexplained"] == ["why", "why"]


def test_a_deviation_is_shown_under_its_claim_and_counted(results: Path) -> None:
    path = results / "zeta" / "claims.json"
    claims = json.loads(path.read_text())
    claims[0]["deviation"] = {
        "cause": "setting",
        "why": "The queue is not given; 100 packets assumed.",
        "evidence": [
            {"kind": "sweep", "ref": "misc.png", "note": "holds from 150 packets"},
            {"kind": "quote", "ref": "seed 9 Sec. 2", "note": "a large buffer"},
        ],
    }
    path.write_text(json.dumps(claims))
    _, page = _page(results)
    summary = [row for _, row in page.rows if row.startswith(("zeta zeta", "all"))]
    assert summary == [
        "zeta zeta 1 / 3 0 / 0 0 / 0 0 1 0 0 1",
        "all 3 / 5 0 / 0 0 / 0 0 1 0 0 1",
    ]
    why = [row for cls, row in page.rows if cls == "why"]
    assert why[0].startswith("cause: setting. The queue is not given; 100 packets assumed.")
    assert "sweep: misc.png : holds from 150 packets" in why[0]
    assert "quote: seed 9 Sec. 2: a large buffer" in why[0]
    assert why[1] == "unexplained"
    assert "zeta/misc.png" in page.links  # a file of the paper's folder is linked


def test_a_malformed_deviation_is_an_error_naming_it(results: Path) -> None:
    from reorderlab.report import ReportError

    path = results / "zeta" / "claims.json"
    claims = json.loads(path.read_text())
    claims[0]["deviation"] = {"cause": "bad luck", "why": "x", "evidence": []}
    path.write_text(json.dumps(claims))
    with pytest.raises(ReportError, match=r"claim 0: deviation: cause: 'bad luck' is not one of"):
        write_report(results)


def test_text_is_escaped(results: Path) -> None:
    text, page = _page(results)
    assert "cwnd &lt; 2 &amp; &quot;ssthresh&quot; &gt; 1" in text
    assert TRICKY not in text
    assert any(TRICKY in row for _, row in page.rows)  # the browser shows the original


def test_links_point_at_files_that_exist(results: Path) -> None:
    _, page = _page(results)
    files = [link for link in page.links if not link.startswith("#")]
    for link in files:
        assert (results / unquote(link)).is_file(), link
    assert {link[1:] for link in page.links if link.startswith("#")} <= page.ids
    expected = {f"baseline/undisturbed_cwnd.{ext}" for ext in ("png", "svg", "csv")}
    expected |= {"zeta/table3.csv", "zeta/claims.json", "baseline/claims.json"}
    assert expected <= set(files)
    assert "zeta/notes.txt" not in files
    # the images are the PNGs, each linked to its SVG
    text = (results / "index.html").read_text(encoding="utf-8")
    assert '<a href="zeta/misc.svg"><img src="zeta/misc.png"' in text


def test_plots_are_grouped_under_their_figure(results: Path) -> None:
    text, _ = _page(results)
    order = [
        '<h3 id="paper-baseline-undisturbed">undisturbed: undisturbed SACK flow',  # registry order
        'src="baseline/undisturbed_cwnd.png"',
        '<h3 id="paper-baseline-random-loss">random-loss: Reno and SACK',
        'src="baseline/random_loss_throughput.png"',
        '<h3 id="paper-zeta-fig2">fig2</h3>',
        'src="zeta/fig2-1.png"',
        '<h3 id="paper-zeta-fig10-11">fig10-11</h3>',
        'src="zeta/fig10_rate.png"',
        'src="zeta/fig11_rate.png"',
        "<h3>other plots</h3>",
        'src="zeta/misc.png"',
        'href="zeta/table3.csv"',  # tables after the plots
    ]
    at = [text.index(s) for s in order]
    assert at == sorted(at)
    rows = [m.start() for m in re.finditer(r"<td>(undisturbed|random-loss)</td>", text)]
    assert text[rows[0] :].startswith("<td>undisturbed")  # claims in registry order too


def test_group_by_file_name_of_the_recipes() -> None:
    figures = ["fig1", "fig8", "fig10-11", "table4-fig19", "random-loss"]
    stems = ["fig1_cwnd", "fig8a_to_frac", "fig10_x", "fig11-2", "fig19_d", "table4"]
    stems += ["random_loss_throughput", "fig12", "fig1x2"]
    got = group(figures, [Artifact(s, True, True, True) for s in stems])
    assert [(f, [a.stem for a in items]) for f, items in got] == [
        ("fig1", ["fig1_cwnd"]),
        ("fig8", ["fig8a_to_frac"]),
        ("fig10-11", ["fig10_x", "fig11-2"]),
        ("table4-fig19", ["fig19_d", "table4"]),
        ("random-loss", ["random_loss_throughput"]),
        (None, ["fig12", "fig1x2"]),
    ]


def test_same_inputs_same_bytes(results: Path, tmp_path: Path) -> None:
    first = write_report(results).read_bytes()
    assert write_report(results).read_bytes() == first
    copy = tmp_path / "elsewhere" / "copy"
    shutil.copytree(results, copy)
    assert write_report(copy).read_bytes() == first  # no absolute path, no time
    (results / "zeta" / "claims.json").write_text(
        json.dumps([_claim("zeta", "fig2", "changed", True)]), encoding="utf-8"
    )
    assert write_report(results).read_bytes() != first


def test_cli_report_writes_the_page(results: Path, cli_env: dict[str, str], tmp_path: Path) -> None:
    proc = run_cli(["report", "--out", str(results)], cli_env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"wrote {results / 'index.html'}"
    assert "zeta fails again" in (results / "index.html").read_text(encoding="utf-8")
    default = run_cli(["report"], cli_env, cwd=results.parent)  # --out results
    assert default.returncode == 0, default.stderr
    assert default.stdout.strip() == f"wrote {Path('results') / 'index.html'}"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('[{"paper": "zeta"', "not valid JSON"),
        ('{"paper": "zeta"}', "expected a JSON list of claims, got dict"),
        ("[1]", "claim 0: expected an object, got int"),
        ('[{"paper": "zeta"}]', "claim 0: figure: expected a string, got None"),
    ],
)
def test_cli_malformed_claims_exit_2(
    results: Path, cli_env: dict[str, str], content: str, message: str
) -> None:
    path = results / "zeta" / "claims.json"
    path.write_text(content, encoding="utf-8")
    proc = run_cli(["report", "--out", str(results)], cli_env)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"error: {path}: ")
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr
    assert not (results / "index.html").exists()


def test_cli_holds_must_be_a_boolean(results: Path, cli_env: dict[str, str]) -> None:
    claim = _claim("zeta", "fig2", "x", True) | {"holds": "yes"}
    (results / "zeta" / "claims.json").write_text(json.dumps([claim]), encoding="utf-8")
    proc = run_cli(["report", "--out", str(results)], cli_env)
    assert proc.returncode == 2
    assert "claim 0: holds: expected true or false, got 'yes'" in proc.stderr


def test_cli_missing_or_empty_dir_exit_2(tmp_path: Path, cli_env: dict[str, str]) -> None:
    missing = tmp_path / "nope"
    proc = run_cli(["report", "--out", str(missing)], cli_env)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"error: {missing}: no such directory " + (
        "(run 'reorderlab reproduce' first)"
    )
    empty = tmp_path / "empty"
    (empty / "paper").mkdir(parents=True)
    proc = run_cli(["report", "--out", str(empty)], cli_env)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"error: {empty}: no <paper>/claims.json in it")
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr
    assert not (empty / "index.html").exists()


def test_reproduce_writes_the_report(tmp_path: Path, cli_env: dict[str, str]) -> None:
    out = tmp_path / "rep"
    proc = run_cli(["reproduce", "baseline", "--quick", "--out", str(out)], cli_env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip().endswith(f"wrote {out / 'index.html'}")
    claims = json.loads((out / "baseline" / "claims.json").read_text(encoding="utf-8"))
    assert len(claims) >= 10
    text = (out / "index.html").read_text(encoding="utf-8")
    page = _Page(text)
    for c in claims:
        assert any(c["claim"] in row for _, row in page.rows), c["claim"]
    kinds = {
        k: (
            sum(c["holds"] for c in claims if c["kind"] == k),
            sum(1 for c in claims if c["kind"] == k),
        )
        for k in KINDS
    }
    assert tally_text(kinds) in text
    pngs = [link for link in page.links if link.endswith(".png")]
    assert sorted(pngs) == ["baseline/random-loss-throughput.png", "baseline/undisturbed-cwnd.png"]
    for link in pngs:  # drawn in the background, written before the report
        assert (out / link).read_bytes().startswith(b"\x89PNG")


def test_kinds_are_counted_apart_and_sentences_shown(results: Path) -> None:
    """A condition and a sanity check are not claims: the summary and the
    headline count each kind apart; the claim's sentence and its seed share
    are shown; the tally before is in the headline."""
    path = results / "zeta" / "claims.json"
    claims = json.loads(path.read_text())
    claims[1]["kind"] = "condition"
    claims[2]["kind"] = "sanity"
    claims[0]["quote"] = "The graphs for all TCPs with in-order delivery overlap."
    claims[0]["where"] = "Fig. 4(a)"
    claims[0]["seed_share"] = 0.25
    path.write_text(json.dumps(claims))
    text, page = _page(results)
    summary = [row for _, row in page.rows if row.startswith(("zeta zeta", "all"))]
    assert summary == [
        "zeta zeta 0 / 1 1 / 1 0 / 1 0 0 0 0 2",
        "all 2 / 3 1 / 1 0 / 1 0 0 0 0 2",
    ]
    assert "2 of 3 claims hold; conditions met: 1 of 1; sanity checks: 0 of 1" in text
    assert "papers&#x27; claims 0 of 0 quick" not in text  # baseline counted as sanity
    assert "sanity checks 12 of 12 quick, 12 of 12 full" in text
    (row,) = [r for _, r in page.rows if r.startswith("fig2 cwnd")]
    assert "The graphs for all TCPs with in-order delivery overlap. (Fig. 4(a))" in row
    assert "25 %" in row
    bad = [{**claims[0], "kind": "opinion"}]
    path.write_text(json.dumps(bad))
    with pytest.raises(ReportError, match="claim 0: kind: 'opinion' is not one of"):
        write_report(results)


def test_the_coverage_table_is_shown(results: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from reorderlab import coverage, report

    table = (
        coverage.Sentence("Sec. 4", "Reno matches PFTK.", (("random-loss", "Reno matches PFTK"),)),
        coverage.Sentence("Sec. 5", "It is fast.", why_not="no run measures speed"),
    )
    monkeypatch.setattr(report, "coverage", lambda paper: table if paper == "baseline" else ())
    text, page = _page(results)
    assert "coverage: 2 sentences stating an outcome, 1 encoded" in text
    rows = [r for _, r in page.rows if r.startswith("Sec. ")]
    assert rows == [
        "Sec. 4 Reno matches PFTK. random-loss: Reno matches PFTK (holds)",
        "Sec. 5 It is fast. not encoded: no run measures speed",
    ]
