"""What this process has open, per store file (by its real path), under
one lock:

* the journal of each file (:class:`~reorderlab.store.journal.Journal`),
  shared by every ``Store`` and ``NewStore`` of the process on that file;
* the hold on each file's writer lock (:class:`~reorderlab.store.lock.WriterLock`);
* the thread creating or closing each file in the background, which a new
  ``Store`` of the file waits for;
* every store open for writing, closed at interpreter exit (``atexit``),
  so that the runs in their journals go into DuckDB.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from reorderlab.store.journal import Journal
from reorderlab.store.lock import WriterLock
from reorderlab.store.paths import journal_path, lock_path

__all__ = [
    "Closable",
    "acquire_journal",
    "acquire_lock",
    "add_open",
    "discard_open",
    "holds",
    "in_background",
    "lock_of",
    "release_journal",
    "release_lock",
    "wait_for_background",
    "wait_for_background_closes",
]

_log = logging.getLogger(__name__)

#: The lock of every registry of this module.
_LOCK = threading.Lock()
_JOURNALS: dict[str, Journal] = {}
_LOCKS: dict[str, WriterLock] = {}
#: Stores being created or closed in the background, by real path (see
#: :func:`in_background`).
_CLOSING: dict[str, threading.Thread] = {}


class Closable(Protocol):
    """A store open for writing, as the exit handler sees it."""

    def close(self) -> None: ...


_OPEN_STORES: weakref.WeakSet[Closable] = weakref.WeakSet()

#: On a thread of :func:`in_background`: the real path of the file it works on.
_THREAD = threading.local()


def acquire_journal(real: str, on_new: Callable[[], None]) -> Journal:
    """This process's journal for the store file at real path ``real``, one
    more reference to it; ``on_new`` runs first when the process has none."""
    with _LOCK:
        journal = _JOURNALS.get(real)
        if journal is None:
            on_new()
            journal = Journal(journal_path(real))
            lock = _LOCKS.get(real)
            if lock is not None:  # (held first by every writer)
                journal.relock = lock.relock_journal
            _JOURNALS[real] = journal
        journal.refs += 1
    return journal


def release_journal(real: str, journal: Journal) -> None:
    """Drop a reference; the last one closes the journal (and removes its
    file if it holds nothing)."""
    with _LOCK:
        journal.refs -= 1
        if journal.refs <= 0:
            _JOURNALS.pop(real, None)
            journal.release()


def acquire_lock(real: str, shown: Path) -> None:
    """Hold the writer's lock of the store at real path ``real`` (one more
    reference for this process); :class:`StoreBusyError` if another
    process holds it. Two sweeps into one store thus never write at once:
    the second refuses at the start, before it simulates anything."""
    with _LOCK:
        lock = _LOCKS.get(real)
        if lock is None:
            lock = WriterLock(lock_path(real), real)
            lock.take(shown)
            _LOCKS[real] = lock
        lock.refs += 1


def holds(real: str) -> bool:
    """Does this process hold the writer's lock of the store at ``real``?"""
    with _LOCK:
        return real in _LOCKS


def lock_of(real: str) -> WriterLock:
    """This process's hold on the writer's lock of the store at real path
    ``real`` (taken by :func:`acquire_lock`)."""
    with _LOCK:
        return _LOCKS[real]


def release_lock(real: str) -> None:
    """Drop a reference to the writer's lock; the last one releases it."""
    with _LOCK:
        lock = _LOCKS.get(real)
        if lock is None:
            return
        lock.refs -= 1
        if lock.refs <= 0:
            del _LOCKS[real]
            lock.drop()


def wait_for_background_closes() -> None:
    """Wait until every store closing in the background (see
    :meth:`Store.close_in_background`) is closed, e.g. before deleting its file."""
    while True:
        with _LOCK:
            threads = list(_CLOSING.values())
        if not threads:
            return
        for thread in threads:
            thread.join()


def wait_for_background(real: str) -> None:
    """Wait until no thread is creating or closing the store file at real
    path ``real`` in the background. The registry is read under its lock:
    a thread is registered and started under it (:func:`in_background`),
    and read without it, one could be found registered but not started
    yet, which ``join`` refuses (``RuntimeError``). A background thread of
    the file does not wait: the threads before it are done, and those
    after it wait for it (a ``NewStore`` opens its file on one)."""
    if getattr(_THREAD, "real", None) == real:
        return
    while True:
        with _LOCK:
            thread = _CLOSING.get(real)
        if thread is None or thread is threading.current_thread():
            return
        thread.join()


def in_background(real: str, work: Callable[[], None], path: Path) -> threading.Thread:
    """Run ``work`` on the store file at real path ``real`` (creating or
    closing it) on a registered thread, after the one registered before it
    for the file; return the thread. The caller does not wait. A failure
    is logged: the runs stay in the journal, replayed on the next open."""

    def run() -> None:
        _THREAD.real = real
        try:
            if previous is not None:
                previous.join()
            work()
        except Exception as exc:  # nothing lost: the journal keeps the runs
            text = str(exc)
            if text.startswith("results store "):  # (the store's errors name it)
                _log.warning("%s", text)
            else:
                _log.warning("results store %s: %s", path, text)
        finally:
            with _LOCK:
                if _CLOSING.get(real) is thread:
                    del _CLOSING[real]

    with _LOCK:  # registered and started together: join() is safe
        previous = _CLOSING.get(real)
        thread = threading.Thread(target=run, name="reorderlab-store-close")
        _CLOSING[real] = thread
        thread.start()
    return thread


def add_open(store: Closable) -> None:
    """Close ``store`` at interpreter exit if it is still open then."""
    _OPEN_STORES.add(store)


def discard_open(store: Closable) -> None:
    """``store`` is closed: nothing to do for it at exit."""
    _OPEN_STORES.discard(store)


def _close_open_stores() -> None:
    """At interpreter exit: move every journaled run into its store."""
    for store in list(_OPEN_STORES):
        # a failure leaves the runs in the journal, replayed on the next open
        with contextlib.suppress(Exception):
            store.close()


atexit.register(_close_open_stores)
