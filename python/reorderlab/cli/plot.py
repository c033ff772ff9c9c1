"""``reorderlab plot``: pictures of one run (:mod:`reorderlab.runplots`),
from a folder ``run --out`` wrote or from a scenario, which is run first
with what the pictures need recorded."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from reorderlab.cli.common import core_failure, errors, fail
from reorderlab.cli.plot_output import plot_result
from reorderlab.runner import Result

__all__ = ["cmd_plot"]


def _from_folder(folder: Path) -> Result:
    path = folder / "result.json"
    if not path.is_file():
        fail(f"{folder}: no result.json (a folder 'reorderlab run --out' wrote, or a scenario)", 2)
    try:
        return Result.from_json(path.read_text(encoding="utf-8"))
    except (ValueError, json.JSONDecodeError) as exc:
        fail(f"{path}: not a result ({exc})", 2)


def cmd_plot(a: argparse.Namespace) -> None:
    """Pictures of a run: from RESULT_DIR, or by running SCENARIO."""
    source: Path = a.source
    if source.is_dir():
        with errors(str(source)):
            result = _from_folder(source)
            plot_result(result, a.out or source, a)
        return
    from reorderlab.cli.run import open_store
    from reorderlab.runner import run as run_scenario
    from reorderlab.runplots import with_plot_recording
    from reorderlab.scenario import load_scenario

    with errors(str(source)):
        sc = with_plot_recording(load_scenario(source))
        out = a.out or Path("results") / "plots" / source.stem
        st = open_store(a.store, a.no_cache)
        try:
            try:
                result = run_scenario(sc, seed=a.seed, store=st)
            except RuntimeError as exc:
                core_failure(exc)
            except KeyboardInterrupt:
                fail("interrupted: the run was stopped; nothing was written", 130)
        finally:
            if st is not None:
                st.close()
        result.save(out)
        plot_result(result, out, a)
