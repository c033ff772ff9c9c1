"""A store file that does not exist yet: :class:`NewStore`, created when
it is first needed (a sweep into a new store)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path

from reorderlab.store import failures, registry
from reorderlab.store.journal import Journal
from reorderlab.store.paths import journal_path
from reorderlab.store.rows import StoreRow
from reorderlab.store.store import Store

__all__ = ["NewStore"]


class NewStore:
    """A store file that does not exist yet, created when it is first needed.

    Creating a DuckDB file costs 30-60 ms of CPU, which a sweep's workers
    would rather have: so a sweep into a new store journals its runs (durable
    as with :meth:`Store.put_many`) and creates the file on a background
    thread only when an open store would first flush (``Journal.flush_due``
    with the store's defaults: rows, bytes or age of the journal), or when
    :meth:`store` or
    :meth:`close_in_background` asks for it. A short sweep thus creates its
    store after it returns.

    The store created shares the journal (within a process there is one per
    file), so runs put before it opened move into DuckDB with its first
    flush. If creating the file fails, :meth:`store` raises the error and
    the runs stay in the journal, replayed by the next open.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise failures.from_os_error(self.path, exc, self.path.parent) from None
        self._real = os.path.realpath(self.path)

        def refuse_leftover() -> None:
            # (the lock made the journal: only a dead process leaves runs in it)
            if journal_path(self._real).stat().st_size > 0:
                # left by a dead process: Store replays it, this would not
                raise ValueError(f"results store {self.path}: has a journal to replay")

        registry.acquire_lock(self._real, self.path)  # before anything is journaled
        try:
            self._journal: Journal | None = registry.acquire_journal(self._real, refuse_leftover)
        except BaseException:
            registry.release_lock(self._real)
            raise
        if not registry.lock_of(self._real).fresh:
            # Created by another process between the caller's look and the
            # lock: its runs may include some of ours; the flush skips them.
            # (Else the file is the empty one the lock made, or a new
            # store's left so: :mod:`.lock`.)
            self._journal.recheck = True
        self._store: Store | None = None
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def create_soon(self) -> None:
        """Start creating the file on a background thread (once); opening the
        file elsewhere in this process waits for it."""
        with self._lock:
            if self._thread is None:
                self._thread = registry.in_background(self._real, self._open, self.path)

    def _open(self) -> None:
        try:
            # (on a background thread of the file, or the caller's)
            self._store = Store(self.path)
        except BaseException as exc:
            self._error = exc

    def put_many(self, rows: Iterable[StoreRow]) -> None:
        """Journal the runs of ``rows`` (durable on return)."""
        if self._journal is None:
            raise ValueError(f"results store {self.path}: already handed over")
        journal = self._journal
        with journal.lock:
            journal.append(journal.unseen(rows))
            due = journal.flush_due(Store.FLUSH_ROWS, Store.FLUSH_INTERVAL, Store.FLUSH_BYTES)
        if due:
            self.create_soon()

    def is_open(self) -> bool:
        """True once the file is created (or failed to be): :meth:`store`
        then returns at once."""
        return self._thread is not None and not self._thread.is_alive()

    def store(self) -> Store:
        """The store: wait for the file being created, or create it now on
        this thread (or raise why it could not be opened)."""
        if self._thread is not None:
            self._thread.join()
        elif self._store is None and self._error is None:
            self._open()
        journal, self._journal = self._journal, None
        if journal is not None:
            registry.release_journal(self._real, journal)  # the store holds its own
            registry.release_lock(self._real)  # (and its own hold on the lock)
        if self._error is not None:
            raise self._error
        assert self._store is not None
        return self._store

    def close_in_background(self) -> None:
        """Create the file (if not done yet), move the journal into it and
        close it, on a background thread (see :meth:`Store.close_in_background`)."""
        registry.in_background(self._real, lambda: self.store().close(), self.path)
