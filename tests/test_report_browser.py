"""The HTML report rendered in a real browser (headless Chromium)."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import pytest

import reorderlab as rl
from reorderlab.league import write_league
from reorderlab.report import write_report
from reorderlab.report_check import HEADER, check_report, find_chromium
from reorderlab.reproduce import reproduce

from .conftest import run_cli
from .test_compare import REORDER_ONLY

pytestmark = pytest.mark.skipif(
    find_chromium() is None,
    reason="chromium is not installed (make test-tools installs it as root on Debian)",
)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results folder as `make run` leaves one: a paper's claims and
    plots, a compare league table, the report."""
    out = tmp_path_factory.mktemp("report") / "results"
    reproduce("baseline", "undisturbed", quick=True, out=out, store=None)
    sc = rl.Scenario.from_toml(REORDER_ONLY).with_params({"duration": 5.0})
    league = rl.compare(sc, "SACK,DSACK-TA", cc="reno", seeds=2, store=None, workers=1)
    write_league(league, out / "compare" / "reorder-only")
    write_report(out)
    return out


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_every_image_and_link_resolves_and_the_claim_counts_match(results: Path) -> None:
    check = check_report(results)
    assert check.problems == []
    claims = json.loads((results / "baseline" / "claims.json").read_text())
    held = sum(c["holds"] for c in claims)
    assert {c["kind"] for c in claims} == {"sanity"}
    # papers' claims, conditions, the engine's sanity checks (held, total);
    # baseline's all hold: none not holding, by any cause
    assert check.page_counts == {"baseline": (0, 0, 0, 0, held, len(claims), 0, 0, 0, 0, 0)}
    assert check.images == 2  # the paper's plot, the league's bar chart
    assert check.links >= 10
    assert check.league_rows == [2]
    # the header says what the page shows; the contents lead to each figure
    assert list(check.header) == list(HEADER)
    assert check.header["mode"].startswith("quick")
    assert check.header["engine"] == f"{rl.engine_version()} (model revision " + (
        rl.engine_version().rsplit("+m", 1)[1] + ")"
    )
    assert check.header["date"].endswith(" UTC")
    assert check.toc[:2] == ["#paper-baseline", "#paper-baseline-undisturbed"]
    assert "#leagues" in check.toc
    assert check.screenshot == results / "index.png"
    assert png_size(check.screenshot)[0] == 1280


def test_the_check_sees_a_missing_image_link_or_wrong_count(results: Path, tmp_path: Path) -> None:
    broken = tmp_path / "results"
    shutil.copytree(results, broken)
    (broken / "baseline" / "undisturbed-cwnd.png").unlink()
    (broken / "compare" / "reorder-only" / "runs.csv").unlink()
    claims_path = broken / "baseline" / "claims.json"
    claims = json.loads(claims_path.read_text())
    claims[0]["holds"] = not claims[0]["holds"]
    claims_path.write_text(json.dumps(claims))  # the page still shows the old count
    problems = "\n".join(check_report(broken).problems)
    assert "image does not load: baseline/undisturbed-cwnd.png" in problems
    assert "link to a missing file: compare/reorder-only/runs.csv" in problems
    assert "counts on the page" in problems
    assert "does not start" in problems  # the headline's tallies


def test_the_check_sees_an_image_that_does_not_open_and_a_bare_header(
    results: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "results"
    shutil.copytree(results, broken)
    page = (broken / "index.html").read_text(encoding="utf-8")
    start = page.index('<figure><a href="') + len("<figure>")
    end = page.index(">", start) + 1
    page = page[:start] + page[end:].replace("</a><figcaption>", "<figcaption>", 1)
    page = page.replace("<dt>machine</dt>", "<dt>host</dt>")
    (broken / "index.html").write_text(page, encoding="utf-8")
    problems = "\n".join(check_report(broken).problems)
    assert "image does not open (no link): compare/reorder-only/league.png" in problems
    assert "header: expected mode, date, engine, machine" in problems


def test_cli_report_check(results: Path, cli_env: dict[str, str]) -> None:
    proc = run_cli(["report", "--out", str(results), "--check"], cli_env)
    assert proc.returncode == 0, proc.stderr
    assert "browser check: 2 images" in proc.stdout
    assert (results / "index.png").is_file()
