"""``reorderlab report --recheck``: tables and claims re-derived from the
store, without simulating."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import reorderlab
from reorderlab import pool, runner, worker
from reorderlab.checks import at_least, equals, within
from reorderlab.claims import Claim
from reorderlab.errors import MissingRunsError
from reorderlab.papers import _REGISTRY as REGISTRY
from reorderlab.papers import register
from reorderlab.papers.kit import runs as common
from reorderlab.papers.kit.claims import make_claim
from reorderlab.papers.kit.recipe import Derived, recipe
from reorderlab.papers.kit.runs import RUNS, Plan, Runs, Sweep
from reorderlab.recheck import recheck
from reorderlab.reproduce import reproduce
from reorderlab.store import Store

from .conftest import run_cli, small_scenario

TOY = "toy-paper"


@dataclass(frozen=True)
class Toy:
    table: pd.DataFrame
    retransmits: list[int]  # from the full results
    cwnd_samples: int  # from one run's series


def _points(quick: bool) -> Plan:
    duration = 2.0 if quick else 3.0
    return {
        RUNS: Sweep([({"p": p}, small_scenario(p, duration)) for p in (0.0, 0.01)], seeds=2),
        "one": Sweep([({}, small_scenario(0.02, duration))], seeds=1),
    }


def _table(runs: Runs, quick: bool) -> Derived[Toy]:
    df = runs.table()
    retransmits = [int(raw["flows"][0]["retransmits"]) for _, raw in runs.results()]
    cwnd = runs.result("one").series(0)["cwnd"]
    table = df[["p", "seed", "throughput_bps", "retransmits"]]
    return Derived(Toy(table, retransmits, len(cwnd)), {"toy": table})


def _plot(data: Toy, out: Path, quick: bool) -> None:
    pass


def _claims(data: Toy, quick: bool) -> list[Claim]:
    lossless = data.table[data.table["p"] == 0.0]["retransmits"]
    return [
        make_claim(
            TOY,
            "fig1",
            "no loss, no retransmission",
            equals(int(lossless.sum()), 0, "retransmissions without loss"),
            f"{int(lossless.sum())}",
            retransmits=data.retransmits,
        ),
        make_claim(
            TOY,
            "fig1",
            "some throughput",
            within(float(np.mean(data.table["throughput_bps"])), 1e6, 1e7, "mean b/s"),
            f"{float(np.mean(data.table['throughput_bps'])):.0f} b/s",
        ),
        make_claim(
            TOY,
            "fig1",
            "a series",
            at_least(data.cwnd_samples, 10, "cwnd samples"),
            str(data.cwnd_samples),
        ),
    ]


@pytest.fixture
def toy() -> Iterator[None]:
    """A paper of one small figure that reads its runs in all three ways
    (a sweep's table, full results, one run's Result)."""
    register(recipe(TOY, "fig1", "toy", points=_points, table=_table, plot=_plot, claims=_claims))
    try:
        yield
    finally:
        del REGISTRY[TOY]


def _no_simulation(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make every way into the core fail (and record the attempt)."""
    calls: list[str] = []

    def refuse(name: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            raise AssertionError(f"{name} called while re-checking")

        return call

    for mod, name in (
        (worker, "simulate"),
        (worker, "simulate_batch"),
        (runner, "simulate_json"),
        (pool, "get_pool"),
    ):
        monkeypatch.setattr(mod, name, refuse(name))
    monkeypatch.setattr(common, "_ROWS", {})  # nothing remembered from the reproduction
    return calls


def test_recheck_gives_the_claims_and_tables_reproduce_wrote(
    toy: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out, path = tmp_path / "results", tmp_path / "store.duckdb"
    with Store(path) as st:
        reproduce(TOY, quick=True, out=out, store=st)
    claims_json = (out / TOY / "claims.json").read_bytes()
    table_csv = (out / TOY / "toy.csv").read_bytes()
    assert json.loads(claims_json)[0]["holds"] is True
    (out / TOY / "toy.csv").unlink()
    (out / TOY / "claims.json").write_text(
        claims_json.decode().replace('"holds": true', '"holds": false', 1), encoding="utf-8"
    )

    calls = _no_simulation(monkeypatch)
    before = reorderlab.simulations_executed()
    with Store(path, read_only=True) as st:
        (done,) = recheck(out, st, quick=True)
    assert calls == [] and reorderlab.simulations_executed() == before
    assert (out / TOY / "claims.json").read_bytes() == claims_json
    assert (out / TOY / "toy.csv").read_bytes() == table_csv
    assert done.figures == ["fig1"]
    assert [c.claim for c, _ in done.changed()] == ["no loss, no retransmission"]
    assert done.summary().startswith("3 of 3 claims re-checked, 3 hold; 1 differ")


def test_recheck_names_missing_runs_and_writes_nothing(
    toy: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out, path = tmp_path / "results", tmp_path / "store.duckdb"
    with Store(path) as st:
        reproduce(TOY, quick=True, out=out, store=st)
        # the full-mode runs were never made: each of the 5 is missing
    claims_json = (out / TOY / "claims.json").read_bytes()
    calls = _no_simulation(monkeypatch)
    with Store(path, read_only=True) as st, pytest.raises(MissingRunsError) as err:
        recheck(out, st, quick=False)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"5 of 5 runs of {TOY} fig1 are not in the store {path} ")
    assert f"(first: {TOY} fig1: p=0, seed 1); 'reorderlab reproduce' with this store" in message
    assert calls == []
    assert (out / TOY / "claims.json").read_bytes() == claims_json


def test_runs_without_simulating_need_a_store() -> None:
    with pytest.raises(ValueError, match="needs a store"):
        Runs(_points(True), None, simulate=False)


def test_cli_recheck_of_a_paper_figure(tmp_path: Path, cli_env: dict[str, str]) -> None:
    """``reproduce`` then ``report --recheck``: the same claims.json, told so;
    the runs of the other mode are missing: one line, exit 1."""
    out = tmp_path / "results"
    proc = run_cli(["reproduce", "baseline", "undisturbed", "--quick", "--out", str(out)], cli_env)
    assert proc.returncode == 0, proc.stderr
    claims_json = (out / "baseline" / "claims.json").read_bytes()
    proc = run_cli(["report", "--recheck", "--quick", "--out", str(out)], cli_env)
    assert proc.returncode == 0, proc.stderr
    assert "baseline: 2 of 2 claims re-checked, 2 hold; the same as in the previous" in proc.stdout
    assert "wrote" in proc.stdout and (out / "index.html").is_file()
    assert (out / "baseline" / "claims.json").read_bytes() == claims_json

    full = run_cli(["report", "--recheck", "--out", str(out)], cli_env)
    assert full.returncode == 1
    lines = full.stderr.strip().splitlines()
    assert len(lines) == 1, full.stderr
    assert lines[0].startswith("error: 2 of 2 runs of baseline undisturbed are not in the store")
    assert "Traceback" not in full.stderr

    stray = run_cli(["report", "--quick", "--out", str(out)], cli_env)
    assert stray.returncode == 2
    assert stray.stderr.strip() == "error: --quick and --store go with --recheck"


def test_frame_records_matches_pandas_to_dict() -> None:
    """The runs' tables become rows column by column (``frame_records``):
    the same keys in the same order and the same values of the same Python
    types as ``to_dict(orient="records")``, numpy scalars in object columns
    included."""
    df = pd.DataFrame(
        {
            "x": [1, 2, 3],
            "mbps": [0.5, float("nan"), 2.0],
            "ok": [True, False, True],
            "curve": ["SACK", "RACK-TLP", None],
            "mixed": pd.Series([np.int64(4), np.float64(0.25), "text"], dtype=object),
            "flags": pd.Series([np.bool_(True), None, [1, 2]], dtype=object),
        }
    )

    def typed(rows: list[dict[str, Any]]) -> list[list[tuple[str, type, str]]]:
        return [[(k, type(v), repr(v)) for k, v in r.items()] for r in rows]

    expected = df.to_dict(orient="records")
    got = common.frame_records(df)
    assert typed(got) == typed(expected)
    assert type(got[0]["mixed"]) is int and type(got[2]["mbps"]) is float
    assert common.frame_records(df.iloc[:, :0]) == [{}, {}, {}]
    assert common.frame_records(df.iloc[:0]) == []
