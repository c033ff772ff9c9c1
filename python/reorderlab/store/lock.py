"""One writer per store, whatever happens to its lock file.

The process that writes to a store holds two exclusive ``flock`` locks,
from before it journals anything until it closes the store; the kernel
releases both when the process dies:

1. on the lock file ``STORE.lock`` (:func:`reorderlab.store.paths.lock_path`),
   which holds the writer's pid for the message of the process refused,
   and stays when the writer is done;
2. on the journal ``STORE.journal`` itself, created empty when the lock is
   taken and removed (if it is still empty) only as it is released.

A second process that wants to write is refused at once
(:class:`StoreBusyError`) by either, before it simulates anything. The
second lock is the one that matters: the lock file looks like litter and
may be deleted (issue 40: deleting it 4-6 s into a sweep let a second sweep
in, which replayed and removed the first one's journal while the first
went on writing to it, and runs reported stored were lost). The journal
cannot be deleted without deleting the runs it holds, and the writer is
the one process that appends to it, so a lock on it is a lock on what it
protects. A lock taken on a file that was removed meanwhile (by the writer
releasing it) is taken again on the file now at that path.

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


def _open_locked(path: Path, shown: Path) -> tuple[int, bool]:
    """Open (create) ``path`` and take an exclusive lock on it: ``(fd,
    True)``, or ``(fd, False)`` if another process holds it. A file removed
    by its holder between the open and the lock is opened again."""
    for _ in range(_ATTEMPTS):
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
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


class WriterLock:
    """This process's hold on a store's two locks (the lock file at
    ``path``, and the journal beside the store), shared by its writing
    ``Store`` and ``NewStore`` objects (``refs`` of them)."""

    def __init__(self, path: Path, store: str) -> None:
        self.path = path
        self.journal = journal_path(store)
        self.store = store
        self.fd: int | None = None
        self.journal_fd: int | None = None
        self.refs = 0

    def take(self, shown: Path) -> None:
        """Lock both files, or raise :class:`StoreBusyError` (naming the
        process that has the lock file, if it does; ``shown``: the store's
        path as the user gave it)."""
        check_files(shown)
        fd, mine = _open_locked(self.path, shown)
        if not mine:
            holder = os.read(fd, 32).decode("ascii", "replace").strip()
            os.close(fd)
            raise _busy(shown, f" (pid {holder})" if holder.isdigit() else "")
        try:
            journal_fd, mine = _open_locked(self.journal, shown)
        except BaseException:
            os.close(fd)
            raise
        if not mine:
            os.close(journal_fd)
            os.close(fd)
            raise _busy(shown, f" (it holds the journal {self.journal}; {self.path} was removed)")
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        self.fd, self.journal_fd = fd, journal_fd

    def drop(self) -> None:
        """Release both locks. The journal is removed first if it is empty
        (while it is still locked: no other writer can have written to it);
        the lock file stays (removing it would race with the next writer)."""
        if self.journal_fd is not None:
            try:
                if os.fstat(self.journal_fd).st_size == 0 and os.path.samestat(
                    os.fstat(self.journal_fd), self.journal.stat()
                ):
                    self.journal.unlink()
            except OSError:
                pass  # gone already, or a folder that cannot be written: it stays
            os.close(self.journal_fd)  # releases its lock
            self.journal_fd = None
        if self.fd is not None:
            os.close(self.fd)  # releases the lock
            self.fd = None
