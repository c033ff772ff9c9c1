"""The files of a results store: where they are, from the store's path.

A store at ``STORE`` (by default ``./results/reorderlab.duckdb``) is the
DuckDB file itself and, beside it, files of the same name with a suffix:

* ``STORE.journal``: runs not yet moved into DuckDB (:mod:`.journal`);
* ``STORE.journal.bad``: journal lines found invalid, never replayed;
* ``STORE.lock``: held by the one process that writes (:mod:`.lock`);
* ``STORE.wal``: DuckDB's own write-ahead log;
* ``STORE.compact``: a compaction's new file, until it replaces the store;
* ``STORE.damaged``: what a repair set aside.

Every module of the store names these files through this one, so that a
rule about which paths may be a store is written in one place.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "DEFAULT_STORE",
    "default_store_path",
    "journal_path",
    "lock_path",
    "quarantine_path",
    "sibling",
]

#: Default location, relative to the working directory.
DEFAULT_STORE = Path("results") / "reorderlab.duckdb"


def default_store_path() -> Path:
    """``$REORDERLAB_STORE`` if set, else ``./results/reorderlab.duckdb``."""
    env = os.environ.get("REORDERLAB_STORE")
    return Path(env) if env else DEFAULT_STORE


def sibling(path: str | Path, suffix: str) -> Path:
    """The file beside the store at ``path`` named as it is plus ``suffix``
    (``.journal``, ``.wal``, ...)."""
    p = Path(path)
    return p.with_name(p.name + suffix)


def journal_path(path: str | Path) -> Path:
    """The journal of the store at ``path``: ``<path>.journal``."""
    return sibling(path, ".journal")


def quarantine_path(path: str | Path) -> Path:
    """Where invalid journal lines of the store at ``path`` are kept, never
    replayed: ``<path>.journal.bad``."""
    return sibling(path, ".journal.bad")


def lock_path(path: str | Path) -> Path:
    """The lock file of the store at ``path`` (``<path>.lock``): held by the
    one process that writes to the store, released when it closes the store
    or dies. The file stays (removing it would race with the next writer)."""
    return sibling(path, ".lock")
