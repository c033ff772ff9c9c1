"""One writer per store: the lock file ``STORE.lock``.

The process that writes to a store holds an exclusive ``flock`` on its lock
file (:func:`reorderlab.store.paths.lock_path`) from before it journals
anything until it closes the store; the kernel releases it when the
process dies. A second process that wants to write is refused at once
(:class:`StoreBusyError` naming the process that has it), before it
simulates anything: two sweeps into one store never lose each other's
runs. Within one process, every writing ``Store`` and ``NewStore`` of a
file shares one hold (:mod:`reorderlab.store.registry`).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from reorderlab.errors import StoreBusyError

__all__ = ["WriterLock"]


class WriterLock:
    """This process's hold on a store's lock file, shared by its writing
    ``Store`` and ``NewStore`` objects (``refs`` of them)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd: int | None = None
        self.refs = 0

    def take(self, shown: Path) -> None:
        """Lock the file, or raise :class:`StoreBusyError` naming the
        process that has it (``shown``: the store's path as the user gave it)."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode("ascii", "replace").strip()
            os.close(fd)
            who = f" (pid {holder})" if holder.isdigit() else ""
            raise StoreBusyError(
                f"results store {shown} is in use by another process{who}: "
                "wait for it to finish, or use another store (--store)"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        self.fd = fd

    def drop(self) -> None:
        """Release the lock (the file stays: removing it would race with the
        next writer)."""
        if self.fd is not None:
            os.close(self.fd)  # releases the lock
            self.fd = None
