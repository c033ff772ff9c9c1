"""``reorderlab store check | repair | compact``: a results store read back
whole, rebuilt, or rewritten without its free space."""

from __future__ import annotations

import argparse
from pathlib import Path

from reorderlab.cli.common import errors, fail
from reorderlab.store import Store, default_store_path
from reorderlab.store.repair import check_store, repair_store

__all__ = ["cmd_check", "cmd_compact", "cmd_repair"]


def cmd_check(a: argparse.Namespace) -> None:
    """Read every stored run (and the journal) back; exit 1 if some cannot be."""
    where = a.store or default_store_path()
    with errors():
        report = check_store(where)
    print("\n".join(report.lines()))
    if not report.healthy:
        fail(f"{where} is damaged: `reorderlab store repair {where}` rebuilds it", 1)


def cmd_repair(a: argparse.Namespace) -> None:
    """Rebuild a damaged store from its readable runs and its journal."""
    with errors():
        report = repair_store(a.store or default_store_path())
    print("\n".join(report.lines()))


def cmd_compact(a: argparse.Namespace) -> None:
    """Rewrite a store without its free space; print its size before and after."""
    where = a.store or default_store_path()
    with errors():
        if not Path(where).exists():
            fail(f"results store {where} does not exist", 2)
        with Store(where) as st:
            before, after = st.compact()
    print(f"{where}: {before / 1e6:.1f} MB -> {after / 1e6:.1f} MB")
