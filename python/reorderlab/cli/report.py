"""``reorderlab report``: the HTML report of a results folder, optionally
re-derived from the store first (``--recheck``) and checked in a browser
(``--check``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from reorderlab.cli.common import fail
from reorderlab.report import ReportError, write_report
from reorderlab.report_check import check_report

__all__ = ["cmd_report", "write_page"]


def cmd_report(a: argparse.Namespace) -> None:
    """Build the HTML report as DIR/index.html."""
    if a.recheck:
        # Imported here, the one import of this module that waits: the
        # recipes of every paper (seconds to import) only for --recheck.
        from reorderlab.cli.recheck import recheck_claims

        recheck_claims(a.out, a.quick, a.store)
    elif a.quick or a.store is not None:
        fail("--quick and --store go with --recheck", 2)
    print(f"wrote {write_page(a.out)}")
    if a.check:
        _check_in_browser(a.out)


def write_page(out: Path) -> Path:
    """Write ``out/index.html``; a results directory it cannot read is invalid
    input (exit 2), a page it cannot write a failure (exit 1)."""
    try:
        return write_report(out)
    except ReportError as exc:
        fail(str(exc), 2)
    except OSError as exc:
        fail(f"cannot write the report: {exc}", 1)


def _check_in_browser(out: Path) -> None:
    """Render the report in headless Chromium; exit 1 on any problem."""
    try:
        check = check_report(out)
    except (FileNotFoundError, RuntimeError, OSError) as exc:
        fail(str(exc), 1)
    for problem in check.problems:
        print(f"problem: {problem}", file=sys.stderr)
    held = sum(c[0] for c in check.page_counts.values())
    total = sum(c[1] for c in check.page_counts.values())
    print(
        f"browser check: {check.images} images, {check.links} links, "
        f"{held} of {total} papers' claims on the page; screenshot {check.screenshot}"
    )
    if not check.ok:
        fail(f"the report has {len(check.problems)} problem(s)", 1)
