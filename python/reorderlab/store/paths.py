"""The files of a results store: where they are, from the store's path.

A store at ``STORE`` (by default ``./results/reorderlab.duckdb``) is the
DuckDB file itself and, beside it, files of the same name with a suffix:

* ``STORE.journal``: runs not yet moved into DuckDB (:mod:`.journal`);
* ``STORE.journal.bad``: journal lines found invalid, never replayed;
* ``STORE.lock``: held by the one process that writes (:mod:`.lock`);
* ``STORE.wal``: DuckDB's own write-ahead log;
* ``STORE.compact``: a compaction's new file, until it replaces the store;
* ``STORE.create``: a new store's DuckDB file, until it replaces the empty
  file its writer locked (:mod:`.lock`);
* ``STORE.damaged``: what a repair set aside.

Every module of the store names these files through this one, so that a
rule about which paths may be a store is written in one place: each of
them is a regular file (or a symlink to one), or absent
(:func:`check_files`). A device, a folder, a FIFO or a socket is refused
on one line before anything opens it: DuckDB would block for ever on a
FIFO, and a repair would have replaced ``/dev/null``.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from reorderlab.errors import StoreError

__all__ = [
    "DEFAULT_STORE",
    "check_file",
    "check_files",
    "default_store_path",
    "journal_path",
    "lock_path",
    "move_aside",
    "quarantine_path",
    "sibling",
]

#: What a path is, by the type bits of its mode.
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
)

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


#: The files beside a store that are checked with it (:func:`check_files`).
_SIBLINGS = (
    ".journal",
    ".journal.bad",
    ".lock",
    ".wal",
    ".compact",
    ".compact.wal",
    ".create",
    ".create.wal",
)


def check_file(path: str | Path, store: str | Path | None = None) -> bool:
    """True if ``path`` is a regular file (or a symlink to one), False if
    there is nothing there; else a one-line :class:`StoreError` saying what
    it is (``store``: the store's path, if ``path`` is one of its files)."""
    p = Path(path)
    shown = Path(store) if store is not None else p
    which = "" if store is None or p == Path(store) else f"{path} "
    try:
        mode = p.stat().st_mode
    except FileNotFoundError:
        if p.is_symlink():
            target = p.readlink()
            raise StoreError(
                f"results store {shown}: {which}is a symlink to nothing ({target}), "
                "not a store file"
            ) from None
        return False
    except OSError as exc:  # a parent that is a file, a folder it may not enter
        raise StoreError(
            f"results store {shown}: cannot reach {path}: {exc.strerror or exc}"
        ) from None
    if stat.S_ISREG(mode):
        return True
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    via = "a symlink to " if p.is_symlink() else ""
    raise StoreError(f"results store {shown}: {which}is {via}{kind}, not a store file")


def check_files(path: str | Path) -> bool:
    """The store at ``path`` and the files beside it (journal, lock, ...)
    are regular files or absent (:func:`check_file`); True if the store
    file exists."""
    p = Path(path)
    exists = check_file(p)
    real = os.path.realpath(p)
    for suffix in _SIBLINGS:
        check_file(sibling(real, suffix), p)
    return exists


def move_aside(path: Path, *, keep: bool = False) -> Path:
    """Rename a damaged store file (and its DuckDB write-ahead log) out of the
    way: ``STORE.damaged`` (``.damaged2``, ... if taken); its new name.
    ``keep``: the file stays at ``path`` too (a second link: the writer's
    lock on it holds until a new store is renamed over it, see
    :meth:`reorderlab.store.lock.WriterLock.adopt`), where the file system
    can link files."""
    aside = sibling(path, ".damaged")
    n = 1
    while aside.exists():
        n += 1
        aside = sibling(path, f".damaged{n}")
    try:
        if keep:
            try:
                os.link(path, aside)
            except OSError:  # no hard links here: renamed
                path.rename(aside)
        else:
            path.rename(aside)
        wal = sibling(path, ".wal")
        if wal.exists():
            wal.rename(sibling(aside, ".wal"))
    except OSError as exc:
        raise StoreError(f"results store {path}: cannot move it aside: {exc.strerror}") from None
    return aside
