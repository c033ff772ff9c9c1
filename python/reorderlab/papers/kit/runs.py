"""The runs a recipe asks for, and the tables it reads them as.

A recipe works in steps (see :mod:`reorderlab.papers.kit.recipe`): its points step
names the runs it needs as a :data:`Plan` (named :class:`Sweep` s of
points x seeds); its table step reads them through :class:`Runs`, which
simulates what the store lacks, or, with ``simulate=False`` (``reorderlab
report --recheck``), reads every run from the store and simulates nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from reorderlab.errors import MissingRunsError
from reorderlab.papers.kit.names import artifact_stem
from reorderlab.scenario import Scenario, format_value
from reorderlab.store import Store
from reorderlab.store.codec import records
from reorderlab.sweep import Job, jobs_for, seeds_list, sweep

if TYPE_CHECKING:
    from reorderlab.runner import Result

__all__ = [
    "RUNS",
    "Plan",
    "Point",
    "Runs",
    "Sweep",
    "describe",
    "flow_column",
    "frame_records",
    "object_columns",
    "run_points",
    "write_table",
]

#: A grid point: its parameters (become columns) and its scenario.
Point = tuple[dict[str, Any], Scenario]

#: The name of a plan's sweep when it has one.
RUNS = "runs"


@dataclass(frozen=True)
class Sweep:
    """Runs a recipe needs: every point with every seed (a count n: 1..n)."""

    points: Sequence[Point]
    seeds: int | Sequence[int] = 1

    def seed_list(self) -> list[int]:
        return seeds_list(self.seeds)

    def jobs(self) -> list[Job]:
        """Every run, point by point and seed by seed (a table's row order)."""
        return jobs_for(list(self.points), self.seed_list())


#: Every run a recipe needs, by name (most recipes: one sweep, :data:`RUNS`).
Plan = Mapping[str, Sweep]

#: Metrics of every run made in this process, by store key: a run that two
#: figures share (same scenario and seed) is simulated once even without a
#: store (``--no-cache``).
_ROWS: dict[str, dict[str, Any]] = {}


def run_points(
    points: Sequence[Point],
    seeds: int | Sequence[int],
    store: Store | None,
    *,
    simulate: bool = True,
) -> pd.DataFrame:
    """Every point x seed: a tidy table (the point's params, seed, metrics).

    ``simulate=False``: every run is read from ``store``; one that is not
    there raises :class:`MissingRunsError`."""
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
        df = sweep(todo, seeds=seed_list, store=store, cached_only=not simulate)
        # pandas deep-copies a frame's attrs (the sweep's stats) for every
        # column it hands out: to_dict would copy them once per column
        df.attrs = {}
        params = {k for p, _ in todo for k in p} | {"seed"}
        for rec in frame_records(df):
            _ROWS[str(rec["key"])] = {str(k): v for k, v in rec.items() if k not in params}
    rows = [{**job.params, "seed": job.seed, **_ROWS[job.key]} for job in jobs]
    return pd.DataFrame(rows)


def frame_records(df: pd.DataFrame) -> list[dict[Any, Any]]:
    """``df.to_dict(orient="records")``, the same values of the same types
    (numpy scalars as Python ones), read through one object array: pandas
    walks the rows through one indexer call per column, which for the
    sweeps' wide per-flow frames (up to 3,400 columns) was most of the
    time, and ``iterrows`` builds a Series per row."""
    keys = df.columns.tolist()
    rows = [dict(zip(keys, values, strict=True)) for values in df.to_numpy(dtype=object).tolist()]
    # an object column keeps its own values: numpy scalars among them too
    boxed = [
        k for k, dtype in zip(keys, df.dtypes, strict=True) if pd.api.types.is_object_dtype(dtype)
    ]
    for row in rows:
        for k in boxed:
            row[k] = _native(row[k])
    return rows


def _native(value: Any) -> Any:
    """A numpy number or bool as the Python one (what ``to_dict`` does to
    an object column's values); anything else as it is."""
    return value.item() if isinstance(value, np.number | np.bool_) else value


class Runs:
    """The runs of a recipe's :data:`Plan`, as its table step reads them.

    With ``simulate`` (``reproduce``) a run not in ``store`` is simulated
    (and stored); without (``report --recheck``) every run must be in the
    store (:meth:`missing` names those that are not) and none is simulated.
    """

    def __init__(self, plan: Plan, store: Store | None, *, simulate: bool = True) -> None:
        if not simulate and store is None:
            raise ValueError("Runs: reading runs without simulating needs a store")
        self.plan = plan
        self.store = store
        self.simulate = simulate

    def table(self, name: str = RUNS) -> pd.DataFrame:
        """The sweep's tidy table: params, ``seed``, metrics, ``key``; one
        row per point and seed, in order."""
        sweep_ = self.plan[name]
        return run_points(sweep_.points, sweep_.seeds, self.store, simulate=self.simulate)

    def results(
        self, name: str = RUNS, *, columns: bool = False
    ) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
        """Each row of :meth:`table` with its run's full result (series,
        traces, object lists), one at a time (a run's object list can be
        tens of MB of JSON): read from the store, or, without one
        (``--no-cache``), simulated again. ``columns``: each traffic
        generator's ``object_list`` as :class:`~reorderlab.store.codec.Records`
        (a numpy array per key) instead of a list of dicts: much faster
        to read and to select from, for the same values in the same order."""
        sweep_ = self.plan[name]
        n = len(sweep_.seed_list())
        rows = [{str(k): v for k, v in rec.items()} for rec in frame_records(self.table(name))]
        keys = [str(row["key"]) for row in rows]
        stored: Iterable[tuple[str, tuple[Any, float | None] | None]] = (
            self.store.iter_values(keys, columns=columns)
            if self.store is not None
            else ((k, None) for k in keys)
        )
        for i, (row, (_, hit)) in enumerate(zip(rows, stored, strict=True)):
            scenario = sweep_.points[i // n][1]
            yield row, self._full(hit, scenario, int(row["seed"]), columns)

    def _full(
        self, hit: tuple[Any, float | None] | None, scenario: Scenario, seed: int, columns: bool
    ) -> dict[str, Any]:
        """A run's full result: ``hit`` (as the store gave it), else
        simulated again (none is without ``simulate``)."""
        from reorderlab.runner import run

        if hit is not None:
            data: dict[str, Any] = hit[0]
        elif not self.simulate:
            raise MissingRunsError(f"run {scenario.name} seed {seed} is not in the store")
        else:
            data = run(scenario, seed=seed).to_dict()
        return object_columns(data) if columns else data

    def result(self, name: str = RUNS, point: int = 0, seed: int | None = None) -> Result:
        """The full :class:`~reorderlab.runner.Result` of one run: the
        sweep's ``point`` with ``seed`` (default: the sweep's first)."""
        from reorderlab.runner import Result, engine_version, run

        sweep_ = self.plan[name]
        scenario = sweep_.points[point][1]
        seed = sweep_.seed_list()[0] if seed is None else seed
        if self.simulate:
            return run(scenario, seed=seed, store=self.store)
        assert self.store is not None
        key = scenario.cache_key(seed, engine_version())
        hit = self.store.get(key)
        if hit is None:
            raise MissingRunsError(f"run {scenario.name} seed {seed} is not in the store")
        return Result.from_json(hit.result_json, key=key, cached=True, wall_s=hit.wall_s)

    def missing(self) -> list[Job]:
        """The plan's runs that are not in the store (all without a store)."""
        jobs = [job for sweep_ in self.plan.values() for job in sweep_.jobs()]
        found = self.store.existing(job.key for job in jobs) if self.store is not None else set()
        return [job for job in jobs if job.key not in found]


def object_columns(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` with each traffic generator's ``object_list`` as
    :class:`~reorderlab.store.codec.Records` (those read from the store by
    column are already; a list of dicts is converted). Modifies ``result``."""
    for gen in result.get("traffic") or []:
        objs = gen.get("object_list")
        if isinstance(objs, list):
            gen["object_list"] = records(objs)
    return result


def describe(job: Job) -> str:
    """A run in a message: its point's parameters (or its scenario's name) and seed."""
    params = ", ".join(f"{k}={format_value(v)}" for k, v in job.params.items())
    return f"{params or job.scenario.name}, seed {job.seed}"


def flow_column(df: pd.DataFrame, flow: int, metric: str) -> str:
    """The column of ``metric`` of flow ``flow`` in a sweep table: ``f{i}.metric``
    for runs of several flows, plain ``metric`` for single-flow runs."""
    name = f"f{flow}.{metric}"
    return name if name in df.columns else metric


def write_table(out: Path, stem: str, rows: Sequence[Mapping[str, Any]] | pd.DataFrame) -> Path:
    """Write ``rows`` (dicts or a DataFrame) to ``out/<stem>.csv``, the
    stem named by :func:`~reorderlab.papers.kit.names.artifact_stem`."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{artifact_stem(stem)}.csv"
    df = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    df.to_csv(path, index=False)
    return path
