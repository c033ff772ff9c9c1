"""``reorderlab compare``: the league table of sender variants on a
scenario. Its local workers are started before this module is imported
(:func:`reorderlab.cli.app`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from reorderlab.cli import output as show
from reorderlab.cli.common import core_failure, errors
from reorderlab.league import UNDISTURBED, write_league
from reorderlab.league import compare as run_compare
from reorderlab.scenario import load_scenario
from reorderlab.sweep import DEFAULT

__all__ = ["cmd_compare"]


def cmd_compare(a: argparse.Namespace) -> None:
    """Which sender copes with this network? Rank the sender variants on a scenario."""
    with errors(str(a.scenario)):
        sc = load_scenario(a.scenario)
        try:
            league = run_compare(
                sc,
                a.variants,
                a.cc,
                a.seeds,
                backend="dask" if a.dask else "local",
                address=None if a.dask in (None, "local") else a.dask,
                workers=a.workers,
                store=None if a.no_cache else (a.store or DEFAULT),
            )
        except RuntimeError as exc:
            core_failure(exc)
    folder = a.out or Path("results") / "compare" / _safe_name(sc.name)
    with errors():
        written = write_league(league, folder)
    con = show.console()
    con.print(show.league_table(league))
    stats = league.attrs["stats"]
    con.print(
        f"{stats.total} runs: {stats.executed} simulated, {stats.cached} from the store; "
        f"{stats.wall_s:.2f} s wall"
    )
    con.print(f"undisturbed = {UNDISTURBED}")
    con.print(f"wrote {', '.join(str(p) for p in written)}")


def _safe_name(name: str) -> str:
    """A scenario name as a folder name."""
    safe = "".join(c if c.isalnum() or c in "._-" else "-" for c in name).strip(".-")
    return safe or "scenario"
