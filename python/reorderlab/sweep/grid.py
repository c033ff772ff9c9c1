"""What a sweep runs: a :class:`Grid` of scenario variations, its points,
the seeds, and the :class:`Job` of each run with its store key."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reorderlab.runner import engine_version
from reorderlab.scenario import (
    FIELD_PATH,
    FieldError,
    Scenario,
    ScenarioError,
    canonical_json,
    check_seed,
    format_value,
    without_outputs,
)

__all__ = [
    "Grid",
    "GridLike",
    "Job",
    "first_of_each_key",
    "iter_jobs",
    "jobs_for",
    "points_of",
    "seeds_list",
]

#: The most seeds a count may ask for (``seeds = 9223372036854775807``
#: built a list until memory ran out).
MAX_SEEDS = 1_000_000


def _check_path(path: Any) -> str:
    """A grid's field path, or a one-line error naming it."""
    if not isinstance(path, str):
        raise TypeError(f"grid: field paths must be strings, got {format_value(path)}")
    if FIELD_PATH.fullmatch(path) is None:
        shown = path[:80].encode("unicode_escape").decode("ascii")
        message = "not a valid field path (names and [index] joined by single dots)"
        raise ScenarioError([FieldError(f"grid[{shown!r}]", message)])
    return path


@dataclass
class Grid:
    """A base scenario and, per field path, the values to try.

    ``Grid(base, {"impairments[0].p": [0.001, 0.01], "flows[0].variant": ["SACK", "Reno"]})``
    has 4 points (the cartesian product, in the order the paths are given).
    """

    base: Scenario
    params: dict[str, list[Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """What is not a grid is refused here, naming the argument
        (``Grid(None, {})`` raised an AttributeError later)."""
        if not isinstance(self.base, Scenario):
            what = type(self.base).__name__
            raise TypeError(f"Grid: base must be a Scenario, got {what}")
        if not isinstance(self.params, Mapping):
            what = type(self.params).__name__
            raise TypeError(f"Grid: params must be a dict of field path -> values, got {what}")

    def points(self) -> list[tuple[dict[str, Any], Scenario]]:
        """Every (parameter values, scenario) pair, validated."""
        paths = [_check_path(p) for p in self.params]
        lists: dict[str, list[Any]] = {}
        for path in paths:
            given = self.params[path]
            if isinstance(given, str | bytes | Mapping) or not isinstance(given, Iterable):
                message = f"must be a list of values, got {format_value(given)}"
                raise ScenarioError([FieldError(f"grid[{path!r}]", message)])
            lists[path] = list(given)  # (a generator can be read once)
            bad = _unencodable(lists[path], f"grid[{path!r}]")
            if bad is not None:
                message = "must be text: it holds a lone surrogate (not valid UTF-8)"
                raise ScenarioError([FieldError(bad, message)])
            if not lists[path]:
                raise ScenarioError([FieldError(f"grid[{path!r}]", "must not be empty")])
        out: list[tuple[dict[str, Any], Scenario]] = []
        for combo in itertools.product(*(lists[p] for p in paths)):
            values = dict(zip(paths, combo, strict=True))
            try:
                scenario = self.base.with_params(values) if values else self.base
            except ScenarioError as exc:
                where = ", ".join(f"{k} = {v!r}" for k, v in values.items())
                raise ScenarioError(
                    [FieldError(e.path, f"{e.message} (grid point {where})") for e in exc.errors]
                ) from None
            out.append((values, scenario))
        return out

    def __len__(self) -> int:
        n = 1
        for values in self.params.values():
            n *= len(values)
        return n


GridLike = Grid | Scenario | Sequence[Scenario] | Sequence[tuple[Mapping[str, Any], Scenario]]


@dataclass(frozen=True)
class Job:
    """One run of a sweep.

    ``scenario_json`` (the scenario for the core) and ``canonical_json``
    (what the store keeps) are computed once by :func:`jobs_for`, which
    gives both the same text; empty means "derive from ``scenario``".
    """

    index: int
    params: dict[str, Any]
    scenario: Scenario
    seed: int
    key: str
    scenario_json: str = field(default="", repr=False, compare=False)
    canonical_json: str = field(default="", repr=False, compare=False)

    def core_json(self) -> str:
        """The scenario as JSON for the core."""
        return self.scenario_json or self.scenario.to_json()

    def stored_json(self) -> str:
        """Canonical JSON of the scenario with this job's seed (the store's copy)."""
        return self.canonical_json or self.scenario.canonical_json(self.seed)


def seeds_list(seeds: int | Iterable[int]) -> list[int]:
    """``3`` -> ``[1, 2, 3]``; a list is kept as given. A bad count or seed
    raises :class:`ScenarioError` naming ``seeds`` (or ``seeds[i]``) and
    the value."""
    if isinstance(seeds, int) and not isinstance(seeds, bool):
        if seeds < 1:
            raise ScenarioError([FieldError("seeds", f"must be >= 1, got {seeds}")])
        if seeds > MAX_SEEDS:
            message = f"must be at most {MAX_SEEDS} (a count of seeds), got {seeds}"
            raise ScenarioError([FieldError("seeds", message)])
        return list(range(1, seeds + 1))
    if isinstance(seeds, str | bytes | bool) or not isinstance(seeds, Iterable):
        message = f"must be a count or a list of seeds, got {format_value(seeds)}"
        raise ScenarioError([FieldError("seeds", message)])
    out = [check_seed(s, f"seeds[{i}]") for i, s in enumerate(seeds)]
    if not out:
        raise ScenarioError([FieldError("seeds", "must not be empty")])
    return out


def points_of(grid: GridLike) -> list[tuple[dict[str, Any], Scenario]]:
    """The (parameter values, scenario) pairs of what :func:`sweep` accepts
    as a grid; anything else is a ``TypeError`` saying what was given."""
    if isinstance(grid, Grid):
        return grid.points()
    if isinstance(grid, Scenario):
        return [({}, grid)]
    what = "a Grid, a Scenario, or a list of Scenarios or (params, Scenario) pairs"
    if isinstance(grid, str | bytes) or not isinstance(grid, Iterable):
        raise TypeError(f"grid: must be {what}, got {type(grid).__name__}")
    out: list[tuple[dict[str, Any], Scenario]] = []
    for i, item in enumerate(grid):
        if isinstance(item, Scenario):
            out.append(({}, item))
        elif (
            isinstance(item, tuple | list)
            and len(item) == 2
            and isinstance(item[0], Mapping)
            and isinstance(item[1], Scenario)
        ):
            out.append((dict(item[0]), item[1]))
        else:
            raise TypeError(f"grid[{i}]: must be {what}, got {type(item).__name__}")
    return out


def jobs_for(grid: GridLike, seeds: int | Iterable[int], version: str | None = None) -> list[Job]:
    """Expand a grid and seeds into jobs with their store keys."""
    version = engine_version() if version is None else version
    return list(iter_jobs(points_of(grid), seeds_list(seeds), version))


def iter_jobs(
    points: list[tuple[dict[str, Any], Scenario]], seeds: list[int], version: str
) -> Iterator[Job]:
    """The jobs of every point and seed, in order, computed as they are asked for."""
    index = 0
    for params, scenario in points:
        # once per point: the dump is the costly part; captures are not
        # written by sweeps (and are no part of a run's key)
        data = without_outputs(scenario.to_dict())
        for seed in seeds:
            # Scenario.cache_key(seed, version), reusing the canonical text
            # the store keeps (the tests check both agree). The core takes
            # the same text: key order does not matter to it, and its
            # "seed" is the job's seed, which the core is also given.
            canonical = canonical_json({**data, "seed": seed})
            text = f"{canonical}\n{seed}\n{version}"
            key = hashlib.sha256(text.encode("utf-8")).hexdigest()
            yield Job(index, params, scenario, seed, key, canonical, canonical)
            index += 1


def _unencodable(value: Any, path: str) -> str | None:
    """The path of the first string in ``value`` that UTF-8 cannot encode."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path or "(scenario)"
        return None
    if isinstance(value, Mapping):
        for key, item in value.items():
            where = _unencodable(key, path) or _unencodable(item, f"{path}.{key}".lstrip("."))
            if where is not None:
                return where
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            where = _unencodable(item, f"{path}[{i}]")
            if where is not None:
                return where
    return None


def first_of_each_key(jobs: Iterable[Job], every: list[Job] | None = None) -> Iterator[Job]:
    """The jobs of ``jobs`` whose key was not seen before (a grid may hold
    the same run twice); ``every``, if given, receives all of them."""
    seen: set[str] = set()
    for job in jobs:
        if every is not None:
            every.append(job)
        if job.key not in seen:
            seen.add(job.key)
            yield job
