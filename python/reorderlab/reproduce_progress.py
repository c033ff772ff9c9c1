"""What ``reproduce`` says as it goes: each figure as it starts, an ETA
line after each, each paper's claims file as soon as it is written, and a
summary at the end (claims per paper, runs simulated and taken from the
store, wall time).

The ETA weighs each figure by its runs still to simulate (those the store
lacks) plus one for its tables and plots: the mean time per unit so far,
times the units left. A rough guide, not a promise (a figure's runs differ
a hundredfold in cost); it is printed, never tested against a clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from reorderlab.claims import Claim, tally, tally_text
from reorderlab.papers.kit.recipe import FigureRecipe
from reorderlab.papers.kit.runs import Plan
from reorderlab.runner import simulations_executed

__all__ = ["Progress", "duration_text"]


def duration_text(seconds: float) -> str:
    """``"42 s"``, ``"3 min 05 s"``, ``"1 h 02 min"``."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def _keys(plan: Plan | None) -> set[str]:
    return set() if plan is None else {job.key for sweep in plan.values() for job in sweep.jobs()}


@dataclass
class Progress:
    """The progress of one ``reproduce``; ``say`` prints a line."""

    recipes: Sequence[FigureRecipe]
    plans: Sequence[Plan | None]
    stored: Callable[[set[str]], set[str]] | None = None
    say: Callable[[str], None] = print
    started: float = field(default_factory=time.monotonic)
    simulated_before: int = field(default_factory=simulations_executed)
    done: int = 0
    papers: dict[str, list[Claim]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        keys = [_keys(p) for p in self.plans]
        seen: set[str] = set()
        fresh: list[set[str]] = []
        for k in keys:  # a run two figures share counts for the first
            fresh.append(k - seen)
            seen |= k
        have = self.stored(seen) if self.stored is not None and seen else set()
        #: every distinct run of the chosen figures (0: not known, no plans)
        self.runs = len(seen)
        self.weights = [1 + len(k - have) for k in fresh]

    def figure_done(self, rec: FigureRecipe) -> None:
        """After figure number ``done``: the ETA line."""
        self.done += 1
        elapsed = time.monotonic() - self.started
        left = len(self.recipes) - self.done
        if left == 0:
            return
        spent = sum(self.weights[: self.done])
        eta = elapsed / max(spent, 1) * sum(self.weights[self.done :])
        runs = simulations_executed() - self.simulated_before
        self.say(
            f"  {self.done} of {len(self.recipes)} figures done, {runs} runs simulated, "
            f"{duration_text(elapsed)} so far; about {duration_text(eta)} left"
        )

    def paper_done(self, paper: str, claims: list[Claim], path: str) -> None:
        self.papers[paper] = claims
        self.say(f"{paper}: {tally_text(tally(claims))}; wrote {path}")

    def summary(self) -> list[str]:
        """The closing lines: claims per paper, runs, wall time."""
        lines = ["summary:"]
        for paper, claims in self.papers.items():
            lines.append(f"  {paper}: {tally_text(tally(claims))}")
        simulated = simulations_executed() - self.simulated_before
        if self.runs:
            taken = max(self.runs - simulated, 0)
            runs = f"{self.runs} runs: {simulated} simulated, {taken} taken from the store"
        else:
            runs = f"{simulated} runs simulated"
        wall = duration_text(time.monotonic() - self.started)
        lines.append(f"  {runs}; {len(self.recipes)} figures in {wall}")
        return lines
