"""``reorderlab compare``: the league table of sender variants on a
scenario. Its local workers are started before this module is imported
(:func:`reorderlab.cli.app`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from reorderlab.cli import output as show
from reorderlab.cli.check import warn
from reorderlab.cli.common import core_failure, errors
from reorderlab.league import UNDISTURBED, folder_name, link_latest, write_league
from reorderlab.league import compare as run_compare
from reorderlab.league_view import markdown
from reorderlab.scenario import load_scenario
from reorderlab.sweep import DEFAULT

__all__ = ["RESULTS", "cmd_compare"]

#: The results folder: compare writes into RESULTS/compare/ by default and
#: then rebuilds RESULTS/index.html.
RESULTS = Path("results")


def cmd_compare(a: argparse.Namespace) -> None:
    """Which sender copes with this network? Rank the sender variants on a scenario."""
    with errors(str(a.scenario)):
        sc = load_scenario(a.scenario)
        warn(str(a.scenario), [({}, sc)], a.strict)
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
    folder = a.out or RESULTS / "compare" / folder_name(league)
    with errors():
        written = write_league(league, folder)
    latest = None if a.out else link_latest(folder)
    con = show.console()
    if a.markdown:
        rows = [{str(k): v for k, v in r.items()} for r in league.to_dict("records")]
        print(markdown(rows, league.attrs.get("ranked_by") == "fct_s"))
    else:
        con.print(show.league_table(league))
    stats = league.attrs["stats"]
    con.print(
        f"{stats.total} runs: {stats.executed} simulated, {stats.cached} from the store; "
        f"{stats.wall_s:.2f} s wall"
    )
    con.print(f"undisturbed = {UNDISTURBED}; =N: senders whose 95 % intervals overlap")
    for note in league.attrs.get("notes", []):
        con.print(note)
    con.print(f"wrote {', '.join(str(p) for p in written)}")
    if latest is not None:
        con.print(f"{latest} -> {folder.name}")
    if a.out is None:
        _refresh_report(con)


def _refresh_report(con: show.Output) -> None:
    """Rebuild RESULTS/index.html, which shows every league; a results
    folder the report cannot read is said on one line, not an error of
    the compare (its league is written)."""
    from reorderlab.report import ReportError, write_report

    try:
        page = write_report(RESULTS)
    except (ReportError, OSError) as exc:
        print(f"warning: {RESULTS}/index.html not rebuilt: {exc}", file=sys.stderr)
        return
    con.print(f"wrote {page}")
