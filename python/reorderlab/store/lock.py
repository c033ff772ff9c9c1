"""One writer per store, whatever happens to its lock file and its journal.

The process that writes to a store holds three exclusive ``flock`` locks,
from before it journals anything until it closes the store; the kernel
releases them when the process dies:

1. on the lock file ``STORE.lock`` (:func:`reorderlab.store.paths.lock_path`),
   which holds the writer's pid for the message of the process refused,
   and stays when the writer is done;
2. on the journal ``STORE.journal`` itself, created empty when the lock is
   taken and removed (if it is still empty) only as it is released;
3. on the store file ``STORE`` itself. A store that does not exist yet is
   created as an empty file to be locked (DuckDB's file is then made
   beside it and renamed over it, locked before the rename:
   :meth:`WriterLock.adopt`), and that empty file is removed again if it
   is still empty as the lock is released.

A second process that wants to write is refused at once
(:class:`StoreBusyError`) by any of them, before it simulates anything.
The lock file looks like litter and may be deleted (issue 40: deleting it
4-6 s into a sweep let a second sweep in, which replayed and removed the
first one's journal while the first went on writing to it, and runs
reported stored were lost); the journal's lock then refuses the second
writer. Deleting both the lock file and the journal of a new store, before
its DuckDB file was created, let a second writer in too; the lock on the
store file refuses it now. Only deleting the store file itself (which
deletes the store) leaves nothing to refuse a second writer. (``flock``
locks do not meet DuckDB's own, ``fcntl`` ones, which it takes on the same
file as it opens it.) A lock taken on a file that was removed meanwhile
(by the writer releasing it) is taken again on the file now at that path.

Within one process, every writing ``Store`` and ``NewStore`` of a file
shares one hold (:mod:`reorderlab.store.registry`).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from reorderlab.errors import StoreBusyError, StoreError
from reorderlab.store.failures import from_os_error
from reorderlab.store.paths import check_files, journal_path

__all__ = ["WriterLock"]

#: Attempts to lock a file that its holder removes as it releases it.
_ATTEMPTS = 8


def _busy(shown: Path, who: str) -> StoreBusyError:
    return StoreBusyError(
        f"results store {shown} is in use by another process{who}: "
        "wait for it to finish, or use another store (--store)"
    )


def _open_locked(path: Path, shown: Path, mode: int = os.O_RDWR) -> tuple[int, bool]:
    """Open (create) ``path`` and take an exclusive lock on it: ``(fd,
    True)``, or ``(fd, False)`` if another process holds it. A file removed
    by its holder between the open and the lock is opened again. (``mode``:
    ``O_RDONLY`` for a file only locked, never written through ``fd``:
    ``flock`` needs no write access.)"""
    for _ in range(_ATTEMPTS):
        try:
            fd = os.open(path, mode | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise from_os_error(shown, exc, path) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return fd, False
        try:
            same = os.path.samestat(os.fstat(fd), path.stat())
        except FileNotFoundError:
            same = False
        if same:
            return fd, True
        os.close(fd)  # removed (or replaced) meanwhile: lock the file there now
    raise StoreError(f"results store {shown}: {path} keeps being replaced; cannot lock it")


def _remove_if_empty(fd: int, path: Path) -> None:
    """Remove ``path`` if it is the file of ``fd`` (locked) and empty."""
    try:
        if os.fstat(fd).st_size == 0 and os.path.samestat(os.fstat(fd), path.stat()):
            path.unlink()
    except OSError:
        pass  # gone already, or a folder that cannot be written: it stays


class WriterLock:
    """This process's hold on a store's three locks (the lock file at
    ``path``, the journal beside the store, the store file ``store``),
    shared by its writing ``Store`` and ``NewStore`` objects (``refs`` of
    them)."""

    def __init__(self, path: Path, store: str) -> None:
        self.path = path
        self.journal = journal_path(store)
        self.store = Path(store)
        self.fd: int | None = None
        self.journal_fd: int | None = None
        self.store_fd: int | None = None
        #: the file at the store's path is no store to open but one to create
        #: (:meth:`adopt`): empty (made here to be locked, or left so), or
        #: set aside as damaged (:func:`reorderlab.store.paths.move_aside`)
        self.fresh = False
        #: the file was made here (none was there): no store was cut short
        self.made = False
        self._next: int | None = None  # (see adopt)
        self.refs = 0

    def take(self, shown: Path) -> None:
        """Lock the three files, or raise :class:`StoreBusyError` (naming
        the process that has the lock file, if it does; ``shown``: the
        store's path as the user gave it)."""
        check_files(shown)
        fd, mine = _open_locked(self.path, shown)
        if not mine:
            holder = os.read(fd, 32).decode("ascii", "replace").strip()
            os.close(fd)
            raise _busy(shown, f" (pid {holder})" if holder.isdigit() else "")
        held = [fd]
        made_journal = False
        try:
            made_journal = not self.journal.exists()
            journal_fd, mine = _open_locked(self.journal, shown)
            held.append(journal_fd)
            if not mine:
                made_journal = False
                gone = f"{self.path} was removed"
                raise _busy(shown, f" (it holds the journal {self.journal}; {gone})")
            made = not self.store.exists()
            store_fd, mine = _open_locked(self.store, shown, os.O_RDONLY)
            held.append(store_fd)
            if not mine:
                gone = f"{self.path} and {self.journal} were removed"
                raise _busy(shown, f" (it holds the store file; {gone})")
        except BaseException:
            if made_journal and len(held) > 1:  # (locked: what this made, no litter)
                _remove_if_empty(held[1], self.journal)
            for each in reversed(held):
                os.close(each)
            raise
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        self.fd, self.journal_fd, self.store_fd = held
        self.made = made
        self.fresh = made or os.fstat(store_fd).st_size == 0

    def relock_journal(self) -> None:
        """The journal locked is the file at its path; if it was removed
        (or replaced) while this writer had it locked, lock the file now
        there (created empty), or raise :class:`StoreBusyError` if another
        process holds it."""
        if self.journal_fd is not None:
            try:
                if os.path.samestat(os.fstat(self.journal_fd), self.journal.stat()):
                    return
            except FileNotFoundError:
                pass
        fd, mine = _open_locked(self.journal, self.store)
        if not mine:
            os.close(fd)
            raise _busy(self.store, f" (it holds the journal {self.journal})")
        if self.journal_fd is not None:
            os.close(self.journal_fd)  # (the removed file's lock)
        self.journal_fd = fd

    def adopt(self, new: Path) -> None:
        """Lock ``new``, a file about to be renamed over the store file
        (a store created beside its empty file, or a compacted copy): the
        file at the store's path is locked by this process at every
        instant. Call it before the rename; the old file's lock goes when
        the rename is done (:meth:`adopted`)."""
        fd, mine = _open_locked(new, self.store, os.O_RDONLY)
        if not mine:  # (a file of this process's own making: cannot happen)
            os.close(fd)
            raise StoreError(f"results store {self.store}: cannot lock {new}")
        self._next = fd

    def adopted(self, done: bool) -> None:
        """The rename after :meth:`adopt` is ``done`` (the new file's lock
        is the store's now), or failed (it is dropped)."""
        fd, self._next = self._next, None
        if fd is None:
            return
        if not done:
            os.close(fd)
            return
        if self.store_fd is not None:
            os.close(self.store_fd)
        self.store_fd, self.fresh = fd, False

    def drop(self) -> None:
        """Release the locks. The journal and the store file are removed
        first if they are empty (while still locked: no other writer can
        have written to them); the lock file stays (removing it would race
        with the next writer)."""
        for name in ("store_fd", "journal_fd"):
            fd = getattr(self, name)
            if fd is None:
                continue
            _remove_if_empty(fd, self.store if name == "store_fd" else self.journal)
            os.close(fd)  # releases its lock
            setattr(self, name, None)
        if self.fd is not None:
            os.close(self.fd)  # releases the lock
            self.fd = None
