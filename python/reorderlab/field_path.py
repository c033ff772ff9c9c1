"""Field paths (``flows[0].tcp.max_window``): what one is
(:data:`FIELD_PATH`), and setting a scenario's plain data by one
(:func:`set_path`, what ``Scenario.with_params`` and a grid use).
Re-exported by :mod:`reorderlab.scenario`.
"""

from __future__ import annotations

import re
from typing import Any

from reorderlab.errors import one_line
from reorderlab.scenario_errors import FieldError, ScenarioError

__all__ = ["FIELD_PATH", "set_path"]


#: A field path: names and ``[index]`` parts joined by single dots
#: (``flows[0].variant``; not ``flows[0]..variant``, ``.duration`` or ``""``).
FIELD_PATH = re.compile(r"[A-Za-z_]\w*(\[\d+\])*(\.[A-Za-z_]\w*(\[\d+\])*)*", re.ASCII)
_TOKEN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|(\.)")


def _parse_path(path: str) -> list[str | int]:
    if FIELD_PATH.fullmatch(path) is None:
        message = "not a valid field path (names and [index] joined by single dots)"
        raise ScenarioError([FieldError(one_line(path, 80), message)])
    tokens: list[str | int] = []
    for m in _TOKEN.finditer(path):
        if m.group(1) is not None:
            tokens.append(m.group(1))
        elif m.group(2) is not None:
            tokens.append(int(m.group(2)))
    return tokens


def set_path(data: dict[str, Any], path: str, value: Any) -> None:
    """Set ``data[path] = value`` for a path like ``flows[0].tcp.max_window``.

    Missing tables on the way are created; a list index must exist.
    """
    tokens = _parse_path(path)
    cur: Any = data
    for i, tok in enumerate(tokens):
        last = i == len(tokens) - 1
        if isinstance(tok, int):
            if not isinstance(cur, list) or tok >= len(cur):
                raise ScenarioError([FieldError(path, f"no element [{tok}] to set")])
            if last:
                cur[tok] = value
            else:
                cur = cur[tok]
        else:
            if not isinstance(cur, dict):
                raise ScenarioError([FieldError(path, f"cannot set field {tok!r} here")])
            if last:
                cur[tok] = value
            else:
                nxt = tokens[i + 1]
                if tok not in cur or cur[tok] is None:
                    cur[tok] = [] if isinstance(nxt, int) else {}
                cur = cur[tok]
