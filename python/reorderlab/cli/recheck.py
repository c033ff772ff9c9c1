"""``reorderlab report --recheck``: every figure claimed in a results folder
re-derived from the runs in the store, simulating nothing."""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console

from reorderlab.claims import print_claims
from reorderlab.cli.common import errors, fail
from reorderlab.recheck import recheck
from reorderlab.report import ReportError
from reorderlab.store import Store

__all__ = ["recheck_claims"]


def recheck_claims(out: Path, quick: bool, store: Path | None) -> None:
    """Re-check every figure claimed in ``out`` from ``store`` (read-only);
    print each paper's claims."""
    con = Console(width=None if sys.stdout.isatty() else 140, soft_wrap=False)
    with errors():
        st = Store(store, read_only=True)
        try:
            done = recheck(out, st, quick=quick)
        except ReportError as exc:
            fail(str(exc), 2)
        finally:
            st.close()
    for paper in done:
        print_claims(paper.claims, con, title=f"{paper.paper}: claims re-checked from the store")
        con.print(f"{paper.paper}: {paper.summary()}; wrote {out / paper.paper / 'claims.json'}")
