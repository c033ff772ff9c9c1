"""A reproduction's two fidelities: full, and quick (``--quick``).

Every paper declares what changes with the fidelity once, as a
:class:`Modes` of its full and quick values; ``MODE(quick)`` gives the one
in force. The common case is a :class:`Mode`, a run length, a number of
seeds and a warm-up; a figure whose grid also shrinks in quick mode declares that grid
the same way (``FRACTIONS = Modes(full=(...), quick=(...))``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["Mode", "Modes"]

T = TypeVar("T")


@dataclass(frozen=True)
class Mode:
    """A run length (s), the seeds of each point (1..seeds) and the warm-up
    (s) before the metrics are measured."""

    duration: float
    seeds: int = 1
    warmup: float = 0.0

    def fields(self) -> dict[str, float]:
        """``{seeds}`` and ``{duration}`` for a plot's title
        (:class:`~reorderlab.papers.kit.figure.LineFigure`)."""
        return {"seeds": self.seeds, "duration": self.duration}


@dataclass(frozen=True)
class Modes(Generic[T]):
    """A value at full fidelity and its quick-mode counterpart."""

    full: T
    quick: T

    def __call__(self, quick: bool) -> T:
        return self.quick if quick else self.full
