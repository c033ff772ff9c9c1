"""The tallies before issue 34, shown beside today's: per paper, how many
of its statements held in the quick and the full reproduction of main
282214e, when every statement counted as a claim
(``papers/before.toml``).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from reorderlab.claims import KINDS

__all__ = ["BEFORE_PATH", "Before", "before"]

BEFORE_PATH = Path(__file__).parent / "papers" / "before.toml"


@dataclass(frozen=True)
class Before:
    """A paper's tally before: the kind its statements are counted as now
    (``claim``, or ``sanity`` for the engine's), and (held, total) per mode."""

    kind: str
    quick: tuple[int, int]
    full: tuple[int, int]

    def text(self) -> str:
        return f"{self.quick[0]} / {self.quick[1]} quick, {self.full[0]} / {self.full[1]} full"


def _pair(value: object, where: str) -> tuple[int, int]:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        or not 0 <= value[0] <= value[1]
    ):
        raise ValueError(f"{BEFORE_PATH.name}: {where}: expected [held, total], got {value!r}")
    return value[0], value[1]


@cache
def before() -> dict[str, Before]:
    """Paper key -> its tally before."""
    data = tomllib.loads(BEFORE_PATH.read_text(encoding="utf-8"))
    out = {}
    for paper, item in data.items():
        kind = item.get("kind")
        if kind not in KINDS:
            raise ValueError(f"{BEFORE_PATH.name}: {paper}: kind: {kind!r} is not one of {KINDS}")
        out[paper] = Before(
            kind,
            _pair(item.get("quick"), f"{paper}.quick"),
            _pair(item.get("full"), f"{paper}.full"),
        )
    return out
