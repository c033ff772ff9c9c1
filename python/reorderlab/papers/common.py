"""Helpers shared by the paper recipes: running points, claims, tables."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pandas as pd

from reorderlab.claims import Claim
from reorderlab.scenario import Scenario
from reorderlab.store import Store
from reorderlab.sweeper import jobs_for, sweep

__all__ = [
    "Point",
    "flow_column",
    "full_results",
    "make_claim",
    "plain",
    "run_points",
    "series_str",
    "spearman",
    "write_table",
]

#: A grid point: its parameters (become columns) and its scenario.
Point = tuple[dict[str, Any], Scenario]

#: Metrics of every run made in this process, by store key: a run that two
#: figures share (same scenario and seed) is simulated once even without a
#: store (``--no-cache``).
_ROWS: dict[str, dict[str, Any]] = {}


def run_points(
    points: Sequence[Point], seeds: int | Sequence[int], store: Store | None
) -> pd.DataFrame:
    """Every point x seed: a tidy table (the point's params, seed, metrics)."""
    seed_list = list(range(1, seeds + 1)) if isinstance(seeds, int) else list(seeds)
    jobs = jobs_for(list(points), seed_list)
    n = len(seed_list)
    todo: list[Point] = []
    seen: set[int] = set()
    for job in jobs:
        if job.key not in _ROWS and job.index // n not in seen:
            seen.add(job.index // n)
            todo.append(points[job.index // n])
    if todo:
        df = sweep(todo, seeds=seed_list, store=store)
        params = {k for p, _ in todo for k in p} | {"seed"}
        for rec in df.to_dict(orient="records"):
            _ROWS[str(rec["key"])] = {str(k): v for k, v in rec.items() if k not in params}
    rows = [{**job.params, "seed": job.seed, **_ROWS[job.key]} for job in jobs]
    return pd.DataFrame(rows)


def full_results(
    df: pd.DataFrame, store: Store | None, rebuild: Callable[[dict[str, Any]], Scenario]
) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """Each row of a :func:`run_points` table with the run's full result
    (series, traces, object lists): read from the store, or, without a store
    (``--no-cache``), simulated again from ``rebuild(row)``."""
    from reorderlab.runner import run

    for rec in df.to_dict(orient="records"):
        row = {str(k): v for k, v in rec.items()}
        # one run at a time: a run's object list can be tens of MB of JSON
        key = str(row["key"])
        hit = store.get_results([key]).get(key) if store is not None else None
        if hit is not None:
            yield row, orjson.loads(hit[0])  # same values as json, 4-6x faster
        else:
            yield row, run(rebuild(row), seed=int(row["seed"])).to_dict()


def flow_column(df: pd.DataFrame, flow: int, metric: str) -> str:
    """The column of ``metric`` of flow ``flow`` in a sweep table: ``f{i}.metric``
    for runs of several flows, plain ``metric`` for single-flow runs."""
    name = f"f{flow}.{metric}"
    return name if name in df.columns else metric


def plain(v: Any) -> Any:
    """JSON-friendly values (numpy scalars to Python numbers)."""
    if isinstance(v, Mapping):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [plain(x) for x in v]
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating | float):
        return float(v)
    return v


def make_claim(
    paper: str,
    figure: str,
    claim: str,
    expected: str,
    measured: str,
    holds: bool,
    /,
    **values: Any,
) -> Claim:
    """A :class:`Claim` with its raw numbers made JSON-friendly."""
    return Claim(
        paper=paper,
        figure=figure,
        claim=claim,
        expected=expected,
        measured=measured,
        holds=bool(holds),
        values={k: plain(v) for k, v in values.items()},
    )


def series_str(values: Mapping[Any, float], fmt: str = "{:.3f}", xfmt: str = "{:g}") -> str:
    """``"x1: y1, x2: y2"`` for a claim's measured text."""
    return ", ".join(f"{xfmt.format(x)}: {fmt.format(v)}" for x, v in values.items())


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman rank correlation (ties averaged); 0 when either is constant."""
    ra = pd.Series(list(a)).rank().to_numpy(dtype=float)
    rb = pd.Series(list(b)).rank().to_numpy(dtype=float)
    if np.std(ra) == 0 or np.std(rb) == 0:
        return 0.0
    return float(np.corrcoef(ra, rb)[0, 1])


def write_table(out: Path, stem: str, rows: Sequence[Mapping[str, Any]] | pd.DataFrame) -> Path:
    """Write ``rows`` (dicts or a DataFrame) to ``out/stem.csv``."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{stem}.csv"
    df = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    df.to_csv(path, index=False)
    return path
