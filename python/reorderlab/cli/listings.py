"""``reorderlab variants`` and ``reorderlab impairments``: what the core has."""

from __future__ import annotations

import argparse
import json

from reorderlab import _core
from reorderlab.cli import output as show

__all__ = ["cmd_impairments", "cmd_variants"]


def cmd_variants(a: argparse.Namespace) -> None:
    """List the sender variants and congestion controls, with their sources."""
    vs = json.loads(_core.variants())
    ccs = json.loads(_core.congestion_controls())
    if a.json:
        print(json.dumps({"variants": vs, "congestion_controls": ccs}, indent=2))
        return
    con = show.console()
    title = "sender variants (paper_cc: what compare runs each with)"
    con.print(show.registry_table(title, vs, ["name", "description", "source", "paper_cc"]))
    columns = ["name", "description", "source"]
    con.print(show.registry_table("congestion controls", ccs, columns))


def cmd_impairments(a: argparse.Namespace) -> None:
    """List the impairment kinds and their parameters."""
    items = json.loads(_core.impairments())
    if a.json:
        print(json.dumps(items, indent=2))
        return
    columns = ["kind", "description", "params"]
    show.console().print(show.registry_table("impairments", items, columns))
