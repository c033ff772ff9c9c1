"""``reorderlab sweep`` (a sweep file) and ``reorderlab compare`` (the
league table of sender variants on a scenario). Their local workers are
started before this module is imported (:func:`reorderlab.cli.app`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from reorderlab.cli import output as show
from reorderlab.cli.common import core_failure, errors
from reorderlab.league import UNDISTURBED, write_league
from reorderlab.league import compare as run_compare
from reorderlab.scenario import load_scenario
from reorderlab.sweep import DEFAULT, SweepFile
from reorderlab.sweep import sweep as run_sweep

__all__ = ["cmd_compare", "cmd_sweep"]


def cmd_sweep(a: argparse.Namespace) -> None:
    """Run a grid of scenarios x seeds in parallel, cached and resumable."""
    with errors(str(a.sweep_file)):
        spec = SweepFile.load(a.sweep_file)
        try:
            # the sweep opens (or creates) the store itself: a new file is
            # then created after the runs, and it is closed in the background
            df = run_sweep(
                spec.points,  # validated by load: not again
                spec.seeds,
                backend="dask" if a.dask else "local",
                address=None if a.dask in (None, "local") else a.dask,
                workers=a.workers,
                store=None if a.no_cache else (a.store or DEFAULT),
            )
        except RuntimeError as exc:
            core_failure(exc)
    path = a.out or Path("results") / "sweeps" / f"{spec.name}.csv"
    with errors():
        path.parent.mkdir(parents=True, exist_ok=True)
        df.to_csv(path, index=False)
    con = show.console()
    stats = df.attrs["stats"]
    overhead = (
        f", {100 * stats.outside_fraction:.1f} % of the workers' time outside simulation"
        if stats.executed
        else ""
    )
    con.print(
        f"{stats.total} runs: {stats.executed} simulated, {stats.cached} from the store; "
        f"{stats.wall_s:.2f} s wall{overhead}; wrote {path}"
    )
    params = list(spec.grid.params)
    metrics = [m for m in ("throughput_bps", "retransmits", "timeouts") if m in df.columns]
    if params and metrics:
        summary = df.groupby(params, sort=False)[metrics].mean().reset_index()
        if "throughput_bps" in summary.columns:
            summary["throughput_bps"] = summary["throughput_bps"] / 1e6
            summary = summary.rename(columns={"throughput_bps": "Mb/s"})
        title = f"{spec.name}: mean over {len(spec.seeds)} seed(s)"
        table = show.table(title, [str(col) for col in summary.columns])
        for _, row in summary.iterrows():
            table.add_row(*(f"{v:.6g}" if isinstance(v, float) else str(v) for v in row))
        con.print(table)


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
