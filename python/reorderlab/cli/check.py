"""``reorderlab check``: the warnings of :mod:`reorderlab.lint` for a
scenario, and the same lines on stderr before ``run``, ``sweep`` and
``compare`` (:func:`warn`; ``--strict`` makes them errors, exit 2)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from reorderlab.cli.common import errors, fail
from reorderlab.lint import Trap, check
from reorderlab.scenario import Scenario, load_scenario

__all__ = ["cmd_check", "warn"]

#: At most this many warning lines are printed (a sweep's points repeat).
MAX_LINES = 20


def _label(params: Mapping[str, Any]) -> str:
    """A grid point as ``a=1, b=2`` (empty for the scenario itself)."""
    return ", ".join(f"{k}={v}" for k, v in params.items())


def warn(
    source: str,
    scenarios: Iterable[tuple[Mapping[str, Any], Scenario]],
    strict: bool,
) -> list[str]:
    """Print each warning of ``scenarios`` (grid points: their parameters
    and scenario) on stderr, one line each, ``warning: SOURCE: field:
    message`` (a grid point's parameters in brackets when the base
    scenario does not have it); with ``strict``, exit 2 after them.
    Returns the lines."""
    lines: list[str] = []
    base: set[str] = set()
    for params, sc in scenarios:
        traps: list[Trap] = check(sc)
        for t in traps:
            text = str(t)
            if not params:
                base.add(text)
            elif text in base:
                continue
            where = f" [{_label(params)}]" if params else ""
            line = f"{source}{where}: {text}"
            if line not in lines:
                lines.append(line)
    word = "error" if strict else "warning"
    for line in lines[:MAX_LINES]:
        print(f"{word}: {line}", file=sys.stderr)
    if len(lines) > MAX_LINES:
        print(f"{word}: ... and {len(lines) - MAX_LINES} more", file=sys.stderr)
    if strict and lines:
        fail(f"{source}: {len(lines)} warning(s) with --strict", 2)
    return lines


def cmd_check(a: argparse.Namespace) -> None:
    """Validate a scenario and print what it probably does not mean."""
    with errors(str(a.scenario)):
        sc = load_scenario(a.scenario)
    lines = warn(str(a.scenario), [({}, sc)], a.strict)
    if not lines:
        print(f"{a.scenario}: valid, no warnings")
