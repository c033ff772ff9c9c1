"""Sweep files: a sweep described in TOML (``reorderlab sweep SWEEP.toml``)."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reorderlab.errors import one_line
from reorderlab.scenario import FieldError, Scenario, ScenarioError, load_scenario
from reorderlab.sweep.grid import Grid, seeds_list
from reorderlab.textfile import TextFileError, check_regular, read_text

__all__ = ["MAX_NAME", "MAX_NAME_BYTES", "SweepFile", "check_name", "make_name"]

#: The longest name: it becomes a file name (``results/sweeps/NAME.csv``),
#: which most file systems bound at 255 bytes.
MAX_NAME = 100
#: ... and in bytes (UTF-8): 100 letters of 3 bytes made a name of 300
#: bytes, which no file could be named ("File name too long").
MAX_NAME_BYTES = 200
#: What a name may hold: letters, digits, ``_ - . + = ,`` and spaces, not
#: starting with a dot.
_NAME = re.compile(r"[^\W][\w\-.+=, ]*")


def check_name(name: Any, field_name: str = "name") -> str:
    """``name`` if it can be a file name as it is, else a one-line
    :class:`ScenarioError` naming the field: a name is a name, not a path
    (no separator, no leading dot, no control character, not empty, at most
    :data:`MAX_NAME` characters)."""
    if not isinstance(name, str):
        message = f"must be a string, got {type(name).__name__}"
        raise ScenarioError([FieldError(field_name, message)])
    shown = _shown(name, 60)
    if not name:
        raise ScenarioError([FieldError(field_name, "must not be empty")])
    if len(name) > MAX_NAME:
        message = f"must be at most {MAX_NAME} characters, got {len(name)} ({shown})"
        raise ScenarioError([FieldError(field_name, message)])
    size = len(name.encode("utf-8", "replace"))
    if size > MAX_NAME_BYTES:
        message = f"must be at most {MAX_NAME_BYTES} bytes in UTF-8, got {size} ({shown})"
        raise ScenarioError([FieldError(field_name, message)])
    if _NAME.fullmatch(name) is None or name.strip() != name:
        message = (
            f"must be a file name: letters, digits, spaces and _-.+=, not starting with "
            f"a dot or a space (no / or control character), got '{shown}'"
        )
        raise ScenarioError([FieldError(field_name, message)])
    return name


def _shown(text: str, limit: int = 80) -> str:
    """A user's string in a message: control characters escaped, cut to
    ``limit`` characters (a 1 MB unknown key made a 1 MB error line)."""
    return one_line(text, limit)


def make_name(text: str, default: str) -> str:
    """``text`` made a name :func:`check_name` accepts: every character
    but letters, digits and ``_-.+=,`` a ``-``, no leading dot or ``-``,
    cut to :data:`MAX_NAME` characters and :data:`MAX_NAME_BYTES` bytes;
    ``default`` if nothing is left."""
    safe = re.sub(r"[^\w\-.+=,]", "-", text).lstrip(".-")[:MAX_NAME]
    while len(safe.encode("utf-8", "replace")) > MAX_NAME_BYTES:
        safe = safe[:-1]
    return safe or default


def _default_name(path: Path) -> str:
    """The name of a sweep file that gives none: its file name's stem,
    made a valid name (``.x.toml`` -> ``x``)."""
    return make_name(path.stem, "sweep")


def _check_readable(path: Path, where: str = "") -> None:
    """A regular file of bounded size (:mod:`reorderlab.textfile`), or a one-line
    :class:`ScenarioError` naming the field ``where`` (not a device, FIFO
    or folder: ``/dev/zero`` was read until memory ran out)."""
    try:
        check_regular(path)
    except TextFileError as exc:
        raise ScenarioError([FieldError(where, str(exc))]) from None


def _read_toml(path: Path) -> dict[str, Any]:
    """The TOML of the sweep file, or a one-line :class:`ScenarioError`."""
    try:
        text = read_text(path)
    except TextFileError as exc:
        raise ScenarioError([FieldError("", str(exc))]) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError([FieldError("", f"invalid TOML: {exc}")]) from None
    except RecursionError:
        raise ScenarioError([FieldError("", "invalid TOML: nested too deeply")]) from None


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
        data = _read_toml(p)
        unknown = sorted(set(data) - {"name", "scenario", "seeds", "grid"})
        if unknown:
            raise ScenarioError([FieldError(_shown(unknown[0]), "unknown field")])
        raw = data.get("scenario")
        name = check_name(data["name"]) if "name" in data else _default_name(p)
        if isinstance(raw, str):
            _check_readable(p.parent / raw, "scenario")
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
                message = f"must be a non-empty list, got {_shown(repr(values))}"
                raise ScenarioError([FieldError(f"grid.{_shown(repr(key))}", message)])
        seeds = seeds_list(data.get("seeds", 1))
        g = Grid(base, {str(k): list(v) for k, v in grid.items()})
        points = g.points()  # every point validated now: errors before any run
        return cls(name=name, grid=g, seeds=seeds, points=points)
