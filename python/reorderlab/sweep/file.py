"""Sweep files: a sweep described in TOML (``reorderlab sweep SWEEP.toml``)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reorderlab.scenario import FieldError, Scenario, ScenarioError, load_scenario
from reorderlab.sweep.grid import Grid, seeds_list

__all__ = ["SweepFile"]


@dataclass
class SweepFile:
    """A sweep described in TOML (``reorderlab sweep SWEEP.toml``)::

    name = "loss"                    # optional; names the output CSV
    scenario = "baseline.toml"       # path relative to this file, or a [scenario] table
    seeds = 5                        # a count (seeds 1..5) or a list [1, 7, 9]
    [grid]                           # field path -> list of values
    "impairments[0].p" = [0.001, 0.01]
    "flows[0].variant" = ["SACK", "NewReno"]
    """

    name: str
    grid: Grid
    seeds: list[int]
    #: The grid's points, validated by :meth:`load` (what to sweep).
    points: list[tuple[dict[str, Any], Scenario]] = field(default_factory=list)

    @classmethod
    def load(cls, path: str | Path) -> SweepFile:
        """Read and check a sweep file: every grid point is validated
        (errors name the field and value, before any run)."""
        p = Path(path)
        try:
            data = tomllib.loads(p.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ScenarioError([FieldError("", f"cannot read {p}: {exc.strerror}")]) from None
        except tomllib.TOMLDecodeError as exc:
            raise ScenarioError([FieldError("", f"invalid TOML: {exc}")]) from None
        unknown = sorted(set(data) - {"name", "scenario", "seeds", "grid"})
        if unknown:
            raise ScenarioError([FieldError(unknown[0], "unknown field")])
        raw = data.get("scenario")
        if isinstance(raw, str):
            base = load_scenario(p.parent / raw)
        elif isinstance(raw, dict):
            base = Scenario.from_dict(raw)
        else:
            raise ScenarioError(
                [FieldError("scenario", "missing required field (a file name or a table)")]
            )
        grid = data.get("grid", {})
        if not isinstance(grid, dict):
            raise ScenarioError([FieldError("grid", "must be a table of field path = [values]")])
        for key, values in grid.items():
            if not isinstance(values, list) or not values:
                raise ScenarioError(
                    [FieldError(f"grid.{key!r}", f"must be a non-empty list, got {values!r}")]
                )
        seeds = seeds_list(data.get("seeds", 1))
        name = str(data.get("name", p.stem))
        g = Grid(base, {str(k): list(v) for k, v in grid.items()})
        points = g.points()  # every point validated now: errors before any run
        return cls(name=name, grid=g, seeds=seeds, points=points)
