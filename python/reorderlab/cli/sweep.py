"""``reorderlab sweep``: the runs of a sweep file, cached and resumable,
into a CSV. Its local workers are started before this module is imported
(:func:`reorderlab.cli.app`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from reorderlab.cli import output as show
from reorderlab.cli.check import warn
from reorderlab.cli.common import core_failure, errors
from reorderlab.sweep import DEFAULT, SweepFile
from reorderlab.sweep import sweep as run_sweep

__all__ = ["cmd_sweep"]


def cmd_sweep(a: argparse.Namespace) -> None:
    """Run a grid of scenarios x seeds in parallel, cached and resumable."""
    with errors(str(a.sweep_file)):
        spec = SweepFile.load(a.sweep_file)
        warn(str(a.sweep_file), [({}, spec.grid.base), *spec.points], a.strict)
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
