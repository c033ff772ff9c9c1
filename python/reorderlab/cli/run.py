"""``reorderlab run``: one scenario, its per-flow metrics printed."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from reorderlab.cli import output as show
from reorderlab.cli.check import warn
from reorderlab.cli.common import core_failure, errors, fail
from reorderlab.pcap import tap_spec
from reorderlab.runner import Result
from reorderlab.runner import run as run_scenario
from reorderlab.scenario import Scenario, load_scenario

if TYPE_CHECKING:
    from reorderlab.store import Store

__all__ = ["cmd_run", "open_store"]


def open_store(path: Path | None, no_cache: bool) -> Store | None:
    """The store of ``--store`` (default: ``$REORDERLAB_STORE`` or
    ``./results/reorderlab.duckdb``), or None with ``--no-cache``."""
    if no_cache:
        return None
    # Imported here, the one import of this module that waits: ``run
    # --no-cache`` needs no DuckDB (tests/test_cli_imports.py).
    from reorderlab.store import Store

    return Store(path)


def cmd_run(a: argparse.Namespace) -> None:
    """Run one scenario and print per-flow metrics."""
    with errors(str(a.scenario)):
        sc = load_scenario(a.scenario)
        warn(str(a.scenario), [({}, sc)], a.strict)
        if a.out is not None:
            prepare_out(a.out, sc.name, sc.seed if a.seed is None else a.seed, a.force)
        if a.pcap:
            sc = _with_taps(sc, a.pcap)
        if a.plot:
            from reorderlab.runplots import with_plot_recording

            sc = with_plot_recording(sc)
            if a.out is None:  # (its own folder: another run's files there are replaced)
                a.out = Path("results") / "plots" / Path(a.scenario).stem
                prepare_out(a.out, sc.name, sc.seed if a.seed is None else a.seed, True)
        st = open_store(a.store, a.no_cache)
        try:
            try:
                result = run_scenario(sc, seed=a.seed, store=st, pcap_dir=a.out)
            except RuntimeError as exc:
                core_failure(exc)
            except KeyboardInterrupt:
                fail("interrupted: the run was stopped; nothing was written", 130)
        finally:
            if st is not None:
                st.close()
    if a.out is not None:
        with errors():
            try:
                result.save(a.out)
            except OSError as exc:  # (a write that fails names no file: the folder)
                exc.filename = exc.filename or str(a.out)
                raise
    if a.json:
        print(result.to_json(indent=2))
        if a.plot:  # (what was written on stderr: stdout is the JSON alone)
            _plot(result, a.out, sys.stderr)
        return
    con = show.console()
    con.print(show.flow_table(result))
    con.print(
        f"events {result.events}, packet hops {result.packet_hops}, "
        f"engine {result.engine_version}"
        + ("" if result.wall_s is None else f", {result.wall_s:.3f} s in the core")
    )
    for c in result.captures:
        con.print(f"wrote {c.file}: {c.packets} packets ({c.link}, {c.position})")
    if a.out is not None:
        con.print(f"wrote {a.out}/")
    if a.plot:
        _plot(result, a.out, sys.stdout)


def _plot(result: Result, out: Path, log: TextIO) -> None:
    """``--plot``: every picture of flow 0 into ``out``, what was written said on ``log``."""
    from reorderlab.cli.plot_output import plot_result

    with errors():
        plot_result(result, out, argparse.Namespace(flow=0, kind=None, window=None), log=log)


#: What ``run --out`` writes into its folder (``Result.save``, the captures
#: and ``--plot``'s pictures, :func:`reorderlab.runplots.files.file_name`).
OUTPUTS = (
    "result.json",
    "flows.csv",
    "links.csv",
    "series_flow*.csv",
    "*.pcap",
    "tsg_flow*.png",
    "cwnd_flow*.png",
    "rtt_flow*.png",
    "queue.png",
)


def prepare_out(out: Path, name: str, seed: int, force: bool) -> None:
    """Make ``out`` ready for a run's files: a folder that holds files of
    another run (its ``result.json`` names another scenario or seed, or it
    has none) is refused (exit 2) unless ``force``; the files an earlier
    run wrote there are removed, so none is left stale (a series of a flow
    this run does not record)."""
    if not out.is_dir():
        return
    present = sorted(p.name for p in out.iterdir())
    if not present:
        return
    previous = _identity(out / "result.json")
    if previous != (name, seed) and not force:
        what = (
            f"the result of scenario {previous[0]!r}, seed {previous[1]}"
            if previous is not None
            else f"{len(present)} file(s) of something else ({', '.join(present[:3])})"
        )
        fail(
            f"--out {out}: the folder holds {what}; choose an empty folder, or add --force "
            "to replace the run's files there",
            2,
        )
    for pattern in OUTPUTS:
        for old in out.glob(pattern):
            if old.is_file():
                old.unlink()


def _identity(path: Path) -> tuple[str, int] | None:
    """(scenario name, seed) of the run whose ``result.json`` this is."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return str(data["scenario"]), int(data["seed"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _with_taps(sc: Scenario, taps: list[str]) -> Scenario:
    """The scenario with ``--pcap`` taps added to its ``record.pcap``."""
    known: list[Any] = [t.model_dump() for t in sc.record.pcap or []]
    return sc.with_params({"record.pcap": known + [tap_spec(t) for t in taps]})
