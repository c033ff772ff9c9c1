"""A new store whose creation was cut short (issue 40, finding 3): a full
disk left the DuckDB file empty, or with its headers only, and every later
open failed with "not a valid DuckDB database file" while the runs sat in
its journal. Opened for writing, such a file is created again and the
journal's runs moved in (:func:`recreate`, called by ``Store`` as it
opens)."""

from __future__ import annotations

import logging
from pathlib import Path

import duckdb

from reorderlab.store import db
from reorderlab.store.lock import WriterLock
from reorderlab.store.paths import move_aside

__all__ = ["has_runs", "recreate"]

_log = logging.getLogger(__name__)


def has_runs(journal: Path) -> bool:
    """Does the journal hold anything (a writer's lock keeps an empty one)?"""
    try:
        return journal.stat().st_size > 0
    except FileNotFoundError:
        return False


def _opens(path: Path) -> bool:
    """Can DuckDB open the file (read-only: nothing is changed)?"""
    try:
        duckdb.connect(str(path), read_only=True, config={"threads": 1}).close()
    except duckdb.Error:
        return False
    return True


def recreate(path: Path, journal: Path, lock: WriterLock) -> None:
    """A store file at ``path`` whose creation was cut short cannot hold a
    run: with runs in its ``journal`` (a sweep into a new store journals
    them first), it is to be created again (``lock.fresh``: the open
    creates it and moves the journal's runs in); a file with DuckDB's
    headers is kept as ``STORE.damaged``. One line says so. (Without runs
    in the journal, opening it says what it is.) Called with the store's
    writer ``lock`` held. An empty file that this writer made to lock
    (:mod:`.lock`) is no store cut short: nothing is said."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return
    if size >= db.NO_RUNS_BELOW or not has_runs(journal):
        return
    if size > 0 and (not db.is_duckdb_file(path) or _opens(path)):
        return  # someone else's file (refused as it opens), or a healthy store
    if size == 0:
        if lock.made:
            return
        what = "empty"
    else:
        what = f"unreadable ({size} bytes), kept as {move_aside(path, keep=True)}"
        lock.fresh = True
    _log.warning(
        "results store %s: the file was %s, its creation cut short (a full disk, a kill?): "
        "created it again from its journal",
        path,
        what,
    )
