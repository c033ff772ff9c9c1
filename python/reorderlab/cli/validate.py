"""``reorderlab validate``: the simulator against this machine's kernel
(docs/validation.md)."""

from __future__ import annotations

import argparse
import sys

from reorderlab.cli.common import errors, fail

__all__ = ["cmd_validate"]


def cmd_validate(a: argparse.Namespace) -> None:
    """Run the validation matrix and print its summary; exit 2 (with the
    reason) where the kernel side cannot run."""
    from reorderlab.store import default_store_path
    from reorderlab.validate.cells import select

    if a.list:
        for c in select(a.quick, a.cells):
            print(c.name)
        return
    if a.no_cache:
        fail("reorderlab validate: the runs are kept in the results store; drop --no-cache", 2)
    if not a.sim_only:
        from reorderlab.validate.kernel import unavailable

        reason = unavailable()
        if reason is not None:
            fail(
                f"reorderlab validate: {reason} (--sim-only compares with recorded kernel runs)", 2
            )
    from reorderlab.validate.run import Options, validate

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    opts = Options(
        quick=a.quick,
        cells=a.cells,
        out=a.out,
        store=a.store or default_store_path(),
        seeds=a.seeds,
        rerun_kernel=a.rerun_kernel,
        instrument=not a.no_instrument,
        kernel=not a.sim_only,
        log=log,
    )
    with errors():
        try:
            doc = validate(opts)
        except ValueError as exc:
            fail(str(exc), 2)
    rows = doc["rows"]
    ok = sum(1 for r in rows if r["ok"])
    for r in rows:
        mark = "ok  " if r["ok"] else "MISS"
        print(
            f"{mark} {r['cell']}: ratio {r['ratio']:.3f} (band {r['band']:.0%})"
            + (f"; counts off: {r['counts_off']}" if r["counts_off"] else "")
            + (" [timing flagged]" if r.get("timing_flag") else "")
        )
    print(
        f"{ok} of {len(rows)} cells within their targets; {a.out}/matrix.json, {a.out}/section.html"
    )
