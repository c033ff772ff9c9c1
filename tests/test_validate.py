"""``reorderlab validate`` without the kernel: the matrix, the scenarios, the
verdict rules, the KS test, the first difference, and the simulator side
against kernel runs recorded on a 6.18 kernel (``tests/data/validate``)."""

from __future__ import annotations

import json
import math
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reorderlab.emulate import check
from reorderlab.pcap import simulate_with_captures
from reorderlab.scenario import Scenario
from reorderlab.validate.cells import full_cells, quick_cells, select
from reorderlab.validate.compare import counts_agree, verdict
from reorderlab.validate.firstdiff import Tx, first_difference, transmissions
from reorderlab.validate.instrument import ks_test, normal_cdf_truncated
from reorderlab.validate.scenarios import scenario

DATA = Path(__file__).parent / "data" / "validate"


def test_the_matrix_is_the_issues_product() -> None:
    full = full_cells()
    names = [c.name for c in full]
    assert len(names) == len(set(names))
    # bulk: 2 configs x 3 cc x 2 rates x 3 RTTs x 7 reorderings x 2 losses;
    # tail: 2 x 3 x 5 RTTs x 5 n; burst: 2 x 3 x 3 RTTs
    assert sum(c.kind == "bulk" for c in full) == 504
    assert sum(c.kind == "tail" for c in full) == 150
    assert sum(c.kind == "burst" for c in full) == 18
    quick = quick_cells()
    assert {c.name for c in quick} <= set(names)
    assert len(quick) == 40
    # issue 37: bbr has a clean and a reordering cell in each configuration
    bbr = {c.name for c in quick if c.cc == "bbr"}
    assert "bulk/Linux/bbr/10M/50ms/none/loss0%" in bbr
    assert "bulk/Linux/bbr/10M/50ms/25%x1rtt/loss0%" in bbr
    assert len(bbr) == 8


def test_cells_filter() -> None:
    got = [c.name for c in select(True, "tail/Linux/*/40ms/*")]
    assert got == ["tail/Linux/cubic/40ms/n1", "tail/Linux/cubic/40ms/n3"]
    assert len(select(True, "burst")) == 2
    assert select(True, "nothing-like-this") == []
    both = select(True, "burst,tail/Linux-classic/cubic/10ms/n1")
    assert [c.kind for c in both] == ["burst", "tail", "burst"]


@pytest.mark.parametrize("cell", quick_cells(), ids=lambda c: c.name)
def test_every_quick_cell_is_a_valid_kernel_scenario(cell: object) -> None:
    sc = scenario(cell, quick=True)  # type: ignore[arg-type]
    kp = check(sc)  # what emulate would tell the kernel: refuses nothing
    assert kp.variant == sc.flows[0].variant
    assert kp.mtu == 1500


def test_counts_rule_is_20_percent_or_2() -> None:
    assert counts_agree(10, 12) and counts_agree(10, 8) and not counts_agree(10, 12.5)
    assert counts_agree(100, 120) and not counts_agree(100, 121)
    assert counts_agree(None, 50)


def test_verdict_of_a_bulk_and_a_finite_cell() -> None:
    bulk = select(True, "bulk/Linux/cubic/10M/50ms/none/loss0%")[0]
    k = {"throughput_bps": 1448 * 8 * 800.0, "retransmits": 10, "fast_recoveries": 2, "timeouts": 0}
    sims = [
        {"throughput_bps": 1500 * 8 * v, "retransmits": 11, "fast_recoveries": 2, "timeouts": 0}
        for v in (830.0, 850.0)
    ]
    row = verdict(bulk, k, sims)
    assert row["ratio"] == pytest.approx(840 / 800)
    assert row["ok"] and row["counts_ok"]
    sims[0]["timeouts"] = 3
    sims[1]["timeouts"] = 3
    assert verdict(bulk, k, sims)["counts_off"] == "timeouts"
    tail = select(True, "tail/Linux/cubic/40ms/n3")[0]
    row = verdict(tail, {"fct": 0.30, "fct_wire": 0.25}, [{"fct": 0.30}])
    assert row["ratio"] == pytest.approx(1.2) and not row["ok"]


def test_ks_test_accepts_its_distribution_and_rejects_a_shift() -> None:
    rng = random.Random(7)
    draws = [max(1e-6, rng.gauss(0.0125, 0.004)) for _ in range(400)]
    d, p = ks_test(draws, lambda x: normal_cdf_truncated(x, 0.0125, 0.004))
    assert p > 0.05 and d < 0.07
    d2, p2 = ks_test([x + 0.002 for x in draws], lambda x: normal_cdf_truncated(x, 0.0125, 0.004))
    assert p2 < 1e-4 and d2 > d
    assert normal_cdf_truncated(0.0, 0.0125, 0.004) == 0.0
    assert normal_cdf_truncated(0.0125, 0.0125, 0.004) == pytest.approx(0.5, abs=0.001)


def test_first_difference_names_the_transmission() -> None:
    a = [Tx(0.0, 0, False, None), Tx(0.001, 1, False, None), Tx(0.1, 1, True, None)]
    assert first_difference(a, a, 0.05) is None
    later = [a[0], Tx(0.0200, 1, False, None), a[2]]
    d = first_difference(a, later, 0.05)
    assert d is not None and d.index == 1 and "apart" in d.reason
    other = [a[0], a[1], Tx(0.1, 2, False, None)]
    d = first_difference(a, other, 0.05)
    assert d is not None and d.index == 2 and d.reason == "different segment"
    d = first_difference(a, a[:2], 0.05)
    assert d is not None and d.index == 2 and d.sim is None


def _capture(sc: Scenario, tmp: Path, name: str) -> Path:
    data = sc.to_dict()
    data["record"]["pcap"] = [{"link": "S1->R1", "position": "ingress"}]
    simulate_with_captures(Scenario.from_dict(data).to_json(), 1, tmp / name)
    return tmp / name / "S1-R1.ingress.pcap"


def test_first_difference_of_two_simulated_senders(tmp_path: Path) -> None:
    """The same flow, Linux against Linux-classic, 5 % held 1 RTT: the first
    difference is where one of them retransmits and the other does not."""
    cell = select(False, "bulk/Linux/cubic/10M/50ms/5%x1rtt/loss0%")[0]
    sc = scenario(cell, quick=True)
    linux = transmissions(_capture(sc, tmp_path, "a"))
    assert len(linux) > 5000
    assert first_difference(linux, transmissions(_capture(sc, tmp_path, "b")), 0.05) is None
    classic = sc.with_params(
        {"flows[0].variant": "Linux-classic", "flows[0].receiver.dsack": False}
    )
    d = first_difference(linux, transmissions(_capture(classic, tmp_path, "c")), 0.05)
    assert d is not None and d.index > 0


@pytest.mark.skipif(not DATA.exists(), reason="no recorded kernel runs")
def test_simulator_side_against_recorded_kernel_runs(tmp_path: Path) -> None:
    """``validate --sim-only`` on kernel runs recorded on Linux 6.18 (HZ
    250): every recorded cell gets a row, a ratio and a first difference."""
    out = tmp_path / "out"
    shutil.copytree(DATA, out)
    recorded = json.loads((DATA / "recorded.json").read_text())
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "reorderlab",
            "validate",
            "--quick",
            "--sim-only",
            "--cells",
            ",".join(recorded["cells"]),
            "--out",
            str(out),
            "--store",
            str(tmp_path / "s.duckdb"),
            "--seeds",
            "2",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((out / "matrix.json").read_text())
    rows = {r["cell"]: r for r in doc["rows"]}
    assert set(rows) == set(recorded["cells"])
    for name, r in rows.items():
        assert math.isfinite(r["ratio"]) and r["kernel"] == pytest.approx(recorded["kernel"][name])
        assert r["first_difference"]
    assert (out / "section.html").read_text().count("<tr") >= len(rows)


def test_validate_without_root_says_why() -> None:
    from reorderlab.emulate import unavailable_reason

    if unavailable_reason() is None:
        pytest.skip("this machine can emulate: the refusal is not reachable")
    proc = subprocess.run(
        [sys.executable, "-m", "reorderlab", "validate", "--quick"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: reorderlab validate:") and proc.stderr.count("\n") == 1
