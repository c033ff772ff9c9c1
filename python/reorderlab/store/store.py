"""The results store open: :class:`Store`. See :mod:`reorderlab.store`
for where a run is, from its completion on.
"""

from __future__ import annotations

import contextlib
import functools
import heapq
import logging
import os
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Concatenate, ParamSpec, TypeVar

import duckdb

from reorderlab.errors import StoreDamagedError, StoreError
from reorderlab.store import compaction, db, failures, registry
from reorderlab.store.cutshort import has_runs, recreate
from reorderlab.store.journal import Journal, quarantine, read_journal, scan_journal
from reorderlab.store.paths import (
    check_files,
    default_store_path,
    journal_path,
    sibling,
)
from reorderlab.store.rows import (
    Row,
    StoredRun,
    StoreRow,
    packed,
    stored_run,
    unpack,
    unpack_value,
)

__all__ = ["Store"]

_log = logging.getLogger(__name__)

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _guarded(method: Callable[Concatenate[Store, _P], _R]) -> Callable[Concatenate[Store, _P], _R]:
    """A store method whose DuckDB read errors become :class:`StoreDamagedError`."""

    @functools.wraps(method)
    def guarded(self: Store, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self._damage_guard():
            return method(self, *args, **kwargs)

    return guarded


class Store:
    """A DuckDB results store (context manager; also usable without ``with``).

    ``flush_interval`` (seconds) and ``flush_rows`` bound how long and how many
    stored runs wait in the journal before they are moved into DuckDB; either
    way they are durable as soon as :meth:`put` / :meth:`put_many` return.
    The journal's runs are also moved in once their text reaches
    :attr:`FLUSH_BYTES` (they are held in memory until then).
    """

    #: Default for ``flush_interval``. The journal survives the death of the
    #: process, not a power cut (it is not fsync-ed; DuckDB's commits are):
    #: this bounds what a power cut can lose, runs a resumed sweep computes
    #: again. Ten seconds rather than one: a flush (and, for a sweep into a
    #: new store, creating the file: 30-60 ms of CPU) takes CPU from the
    #: sweep's workers, and a sweep shorter than this pays for neither.
    FLUSH_INTERVAL = 10.0
    #: Default for ``flush_rows``.
    FLUSH_ROWS = 1000
    #: Journaled text (bytes) at which its runs are moved into DuckDB: bounds
    #: the memory they hold, whatever the size of a result.
    FLUSH_BYTES = 64 << 20

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        read_only: bool = False,
        flush_interval: float | None = None,
        flush_rows: int | None = None,
    ) -> None:
        if path is not None and not isinstance(path, str | os.PathLike):
            raise TypeError(f"store: must be a path (or None: the default), got {path!r}")
        self.path = Path(path) if path is not None else default_store_path()
        self.read_only = read_only
        self.flush_interval = self.FLUSH_INTERVAL if flush_interval is None else flush_interval
        self.flush_rows = self.FLUSH_ROWS if flush_rows is None else flush_rows
        if self.flush_rows < 1:
            raise ValueError(f"flush_rows: must be >= 1, got {self.flush_rows}")
        self._conn: duckdb.DuckDBPyConnection | None = None
        self._has_result_z: bool | None = None  # (see _result_z)
        self._journal: Journal | None = None
        # the file's real path: the key of this process's journal for it
        self._real = os.path.realpath(self.path)
        # (a sweep's new store may be being created, a store closed)
        registry.wait_for_background(self._real)
        exists = check_files(self.path)  # regular files, or refused on one line
        if exists and self.path.stat().st_size == 0:
            exists = False  # a new store's empty file, locked by its writer (:mod:`.lock`)
        if read_only and not exists:
            if has_runs(journal_path(self._real)):
                raise FileNotFoundError(
                    f"results store {self.path} does not exist yet: its journal "
                    f"{journal_path(self._real)} holds the runs of an interrupted sweep; "
                    "open the store once for writing to create it"
                )
            raise FileNotFoundError(f"results store {self.path} does not exist")
        self._locked = False
        if not read_only:
            self._prepare_folder()
            registry.acquire_lock(self._real, self.path)
            self._locked = True
        try:
            self._open(read_only)
        except BaseException:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            if self._locked:
                self._locked = False
                registry.release_lock(self._real)
            raise

    def _open(self, read_only: bool) -> None:
        """Connect; check the file's size and layout (migrate it when
        writable); attach the journal. A new store whose creation was cut
        short (:func:`.cutshort.recreate`) is created again first."""
        existed = self.path.exists() and self.path.stat().st_size > 0
        if read_only:
            self._conn = db.connect(self.path, read_only)
        else:
            lock = registry.lock_of(self._real)
            recreate(self.path, self.journal_path, lock)
            if lock.fresh:
                existed = False
                self._conn = db.create_beside(self.path, Path(self._real), lock)
            else:
                self._conn = db.connect(self.path, read_only)
        with self._damage_guard():
            if existed:
                db.check_size(self._conn, self.path)
            if read_only:
                self._has_result_z = self._layout() >= 3  # (a newer layout: refused)
                self._journal = self._journal_overlay()
            else:
                with db.write_guard(self.path):
                    db.create_or_migrate(self._conn, self.path)
                    self._journal = self._attach_journal()
                registry.add_open(self)

    def _prepare_folder(self) -> None:
        """The store's folder exists (created if needed), or a one-line error."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise failures.from_os_error(self.path, exc, self.path.parent) from None

    def _damage_guard(self) -> contextlib.AbstractContextManager[None]:
        """DuckDB's read errors as a one-line :class:`StoreDamagedError`
        (:func:`reorderlab.store.db.damage_guard`)."""
        return db.damage_guard(self.path)

    def _layout(self) -> int:
        """The file's layout (:func:`reorderlab.store.db.layout`)."""
        return db.layout(self._con, self.path)

    # -- journal ------------------------------------------------------------

    @property
    def journal_path(self) -> Path:
        """Where this store journals runs before they go into DuckDB."""
        return journal_path(self._real)

    def _attach_journal(self) -> Journal:
        """This process's journal for the file; replay a leftover one first."""
        # No other Store of this process has the file open: a journal on
        # disk was left by a process that died before moving it in.
        return registry.acquire_journal(self._real, lambda: self._replay(self.journal_path))

    def _replay(self, path: Path) -> None:
        """Move a leftover journal's runs into DuckDB. Every line is checked
        first (:func:`~reorderlab.store.rows.valid_run`): an invalid one is
        moved to the :func:`~reorderlab.store.paths.quarantine_path` and
        reported, never replayed; a last line cut short by a kill is dropped."""
        rows, invalid, torn = scan_journal(path)
        if invalid:
            bad = quarantine(self._real, invalid)
            _log.warning(
                "results store %s: %d invalid journal line(s) not replayed, kept in %s",
                self.path,
                len(invalid),
                bad,
            )
        if torn:
            _log.info("results store %s: dropped a journal line cut short by a kill", self.path)
        if rows:
            present = db.existing(self._con, (r[0] for r in rows))
            db.insert(self._con, [r for r in rows if r[0] not in present])
        # everything the journal held is committed now (or was never valid);
        # emptied, not removed: this writer's lock is on it (:mod:`.lock`)
        with contextlib.suppress(FileNotFoundError):
            os.truncate(path, 0)

    def _journal_overlay(self) -> Journal:
        """Read-only: the runs of a leftover journal, shown but not moved in."""
        journal = Journal(self.journal_path)
        rows, _ignored = read_journal(self.journal_path)
        if rows:
            present = db.existing(self._con, (r[0] for r in rows))
            journal.pending = {r[0]: r for r in rows if r[0] not in present}
        return journal

    @property
    def _jr(self) -> Journal:
        if self._journal is None:
            raise ValueError(f"results store {self.path} is closed")
        return self._journal

    def pending(self) -> int:
        """How many runs are in the journal and not yet in DuckDB."""
        return len(self._jr.pending)

    @_guarded
    def flush(self) -> None:
        """Move the journaled runs into DuckDB now (one transaction)."""
        if self.read_only:
            return
        journal = self._jr
        with journal.lock:
            if not journal.pending:
                return
            rows = list(journal.pending.values())
            if journal.recheck:
                present = db.existing(self._con, (r[0] for r in rows))
                rows = [r for r in rows if r[0] not in present]
            # Until the commit is known to be done, the next flush must check.
            journal.recheck = True
            with db.write_guard(self.path):  # (a full disk: the runs stay journaled)
                db.insert(self._con, rows)
                journal.recheck = False
                journal.truncate()

    def _maybe_flush(self) -> None:
        if self._jr.flush_due(self.flush_rows, self.flush_interval, self.FLUSH_BYTES):
            self.flush()

    def insert_stored(self, rows: list[Row]) -> None:
        """Put runs as they are stored (packed: a row of ``runs``) straight
        into DuckDB, in one transaction, but those it has already (``store
        repair`` puts back the runs it could read from a damaged file)."""
        self._writable()
        with self._damage_guard():
            present = self.existing(r[0] for r in rows)
            db.insert(self._con, [r for r in rows if r[0] not in present])

    # -- compaction ---------------------------------------------------------

    @_guarded
    def free_share(self) -> float:
        """The share of the DuckDB file's blocks that are free (see
        :meth:`compact`), after the journal is moved in and checkpointed."""
        if not self.read_only:
            self.flush()
            self._con.execute("CHECKPOINT")
        return compaction.free_share(self._con)

    @_guarded
    def compact(self) -> tuple[int, int]:
        """Rewrite the file without its free space
        (:mod:`reorderlab.store.compaction`); returns its size in bytes
        before and after. Needs the store open for writing, and no other
        open ``Store`` of this process on the file."""
        journal = self._writable()
        if journal.refs > 1:
            raise StoreError(
                f"results store {self.path}: cannot compact it while another Store of "
                "this process has it open"
            )
        self.flush()
        with db.write_guard(self.path):
            self._con.execute("CHECKPOINT")
        before = self.path.stat().st_size
        with db.write_guard(self.path, sibling(self.path, ".compact")):
            tmp = compaction.write_copy(self._con, self.path)
        con, self._conn = self._con, None
        con.close()
        lock = registry.lock_of(self._real)
        try:
            with db.write_guard(self.path, tmp):
                lock.adopt(tmp)  # the store's path stays locked (:mod:`.lock`)
                done = False
                try:
                    tmp.replace(self.path)
                    done = True
                finally:
                    lock.adopted(done)
        finally:
            self._conn = db.connect(self.path, read_only=False)
        return before, self.path.stat().st_size

    # -- context manager --------------------------------------------------

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Move journaled runs into DuckDB and close the connection (idempotent).

        If moving them fails, they stay in the journal (replayed on the next
        open) and the error is raised after the store is closed.
        """
        if self._conn is None:
            return
        journal = self._journal
        try:
            if journal is not None and not self.read_only:
                self.flush()
        finally:
            self._journal = None
            registry.discard_open(self)
            if journal is not None and not self.read_only:
                registry.release_journal(self._real, journal)
            self._conn.close()
            self._conn = None
            if self._locked:
                self._locked = False
                registry.release_lock(self._real)

    def close_in_background(self) -> None:
        """:meth:`close` on another thread, so the caller goes on at once.

        Every run is durable in the journal already; what is left is moving
        it into DuckDB and DuckDB's checkpoint. Opening the same file again in
        this process waits for it, and so does interpreter exit (the thread
        is not a daemon). A failure is logged; the runs then stay in the
        journal and are replayed on the next open.
        """
        if self._conn is not None:
            registry.in_background(self._real, self.close, self.path)

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    def damaged_run(self, key: str) -> StoreDamagedError:
        """The error for a stored run whose result cannot be read back (a
        store written before results were checked on replay)."""
        return db.damaged(self.path, f"the result of run {key[:16]} is not valid JSON")

    @property
    def _con(self) -> duckdb.DuckDBPyConnection:
        if self._conn is None:
            raise ValueError(f"results store {self.path} is closed")
        return self._conn

    # -- queries ----------------------------------------------------------

    @_guarded
    def __len__(self) -> int:
        row = db.one(self._con.execute("SELECT count(*) FROM runs").fetchall())
        return (int(row[0]) if row else 0) + len(self._jr.pending)

    @_guarded
    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        if key in self._jr.pending:
            return True
        row = db.one(self._con.execute("SELECT 1 FROM runs WHERE key = ?", [key]).fetchall())
        return row is not None

    @_guarded
    def keys(self) -> list[str]:
        """Every stored key."""
        stored = [
            str(r[0]) for r in self._con.execute("SELECT key FROM runs ORDER BY key").fetchall()
        ]
        pending = self._jr.pending
        return sorted(stored + list(pending)) if pending else stored

    @_guarded
    def existing(self, keys: Iterable[str]) -> set[str]:
        """The subset of ``keys`` already stored (one query)."""
        pending = self._jr.pending
        wanted = list(dict.fromkeys(keys))
        found = {k for k in wanted if k in pending}
        return found | db.existing(self._con, (k for k in wanted if k not in found))

    @property
    def _result_z(self) -> str:
        """What to select for ``result_z``: the column, or NULL in a file of
        an older layout opened read-only (not migrated)."""
        if self._has_result_z is None:
            self._has_result_z = self._layout() >= 3
        return "result_z" if self._has_result_z else "NULL"

    @_guarded
    def get(self, key: str) -> StoredRun | None:
        """The stored run with this key, or None."""
        hit = self._jr.pending.get(key)
        if hit is not None:
            return stored_run(hit)
        row = db.one(
            self._con.execute(
                "SELECT key, scenario_name, seed, engine_version, scenario_json, result_json, "
                f"wall_s, created_at, {self._result_z} FROM runs WHERE key = ?",
                [key],
            ).fetchall()
        )
        return stored_run(row) if row else None

    @_guarded
    def get_results(
        self, keys: Iterable[str], *, summaries: bool = False
    ) -> dict[str, tuple[str, float | None]]:
        """``{key: (result_json, wall_s)}`` for the stored keys among ``keys``.

        ``summaries``: a big result stored compressed is given as its summary
        (its metrics, without series, traces and per-object records: see
        :func:`summary_of`), not decompressed (a sweep's table needs no more).
        """
        return {k: (unpack(r, z), w) for k, r, z, w in self._lookup(keys, blobs=not summaries)}

    @_guarded
    def get_values(
        self, keys: Iterable[str], *, columns: bool = False
    ) -> dict[str, tuple[Any, float | None]]:
        """``{key: (result, wall_s)}`` for the stored keys among ``keys``,
        each result parsed (as ``orjson.loads`` of :meth:`get_results`'
        text gives it; an encoded result is decoded without going through
        text, which is faster). ``columns``: the per-object records of a
        result stored encoded as :class:`~reorderlab.store.codec.Records`
        (a column per key) rather than lists of dicts."""
        return {
            k: (self._value(k, r, z, columns), w) for k, r, z, w in self._lookup(keys, blobs=True)
        }

    def iter_values(
        self, keys: Sequence[str], *, columns: bool = False, chunk: int = 32
    ) -> Iterator[tuple[str, tuple[Any, float | None] | None]]:
        """``(key, (result, wall_s))`` for each of ``keys`` in order, or
        ``(key, None)`` for one not stored: :meth:`get_values` one run at a
        time, for results too big to hold many of at once. The stored rows
        are fetched ``chunk`` keys per query (a query costs ~0.8 ms whatever
        it fetches), each result parsed only when its turn comes."""
        for start in range(0, len(keys), chunk):
            part = keys[start : start + chunk]
            with self._damage_guard():
                raw = {k: (r, z, w) for k, r, z, w in self._lookup(part, blobs=True)}
            for k in part:
                hit = raw.get(k)
                if hit is None:
                    yield k, None
                    continue
                r, z, w = hit
                with self._damage_guard():
                    value = self._value(k, r, z, columns)
                yield k, (value, w)

    def _lookup(
        self, keys: Iterable[str], *, blobs: bool
    ) -> Iterator[tuple[str, Any, Any, float | None]]:
        """``(key, result_json, result_z, wall_s)`` of the stored keys among
        ``keys``: those pending in the journal first, then the database's
        (``blobs`` False: ``result_z`` None, a big result's summary only)."""
        pending = self._jr.pending
        wanted: list[str] = []
        for k in dict.fromkeys(keys):
            hit = pending.get(k)
            if hit is not None:
                yield k, hit[5], hit[8] if blobs else None, hit[6]
            else:
                wanted.append(k)
        if not wanted:
            return
        result_z = self._result_z if blobs else "NULL"
        rows = self._con.execute(
            f"SELECT key, result_json, {result_z}, wall_s FROM runs "
            "WHERE key IN (SELECT unnest(?::VARCHAR[]))",
            [wanted],
        ).fetchall()
        for k, r, z, w in rows:
            yield str(k), r, z, None if w is None else float(w)

    def _value(self, key: str, result_json: Any, result_z: Any, columns: bool) -> Any:
        try:
            return unpack_value(result_json, result_z, columns=columns)
        except (ValueError, UnicodeDecodeError, zlib.error):
            raise self.damaged_run(key) from None

    def runs(self) -> Iterator[StoredRun]:
        """Every stored run, oldest first."""
        pending = sorted(
            (stored_run(r) for r in self._jr.pending.values()), key=lambda r: (r.created_at, r.key)
        )
        return heapq.merge(self._db_runs(), pending, key=lambda r: (r.created_at, r.key))

    def _db_runs(self) -> Iterator[StoredRun]:
        with self._damage_guard():
            cur = self._con.execute(
                "SELECT key, scenario_name, seed, engine_version, scenario_json, result_json, "
                f"wall_s, created_at, {self._result_z} FROM runs ORDER BY created_at, key"
            )
        while True:
            with self._damage_guard():
                batch = cur.fetchmany(256)
            if not batch:
                return
            for row in batch:
                yield stored_run(row)

    # -- writes -----------------------------------------------------------

    def _writable(self) -> Journal:
        if self.read_only:
            raise PermissionError(f"results store {self.path} is open read-only")
        return self._jr

    def put(
        self,
        key: str,
        *,
        scenario_name: str,
        seed: int,
        engine_version: str,
        scenario_json: str,
        result_json: str,
        wall_s: float | None = None,
    ) -> bool:
        """Store one run, durably. Returns False if the key was already stored."""
        journal = self._writable()
        with journal.lock:
            if key in self:
                return False
            head = (key, scenario_name, seed, engine_version, scenario_json)
            journal.append([packed(head, result_json, None, wall_s, time.time())])
            self._maybe_flush()
        return True

    def put_many(self, rows: Iterable[StoreRow]) -> None:
        """Store runs whose keys are not stored yet, durably before returning.

        The runs are written to the journal with one system call (so they
        survive ``kill -9`` from then on) and moved into DuckDB with the next
        flush. The sweep driver calls this with every run that completed since
        its last call. The caller guarantees the keys are not in DuckDB yet
        (the sweep only submits runs it did not find in the store, and only
        one process can write to the file); :meth:`put` checks instead.
        """
        journal = self._writable()
        with journal.lock:
            journal.append(journal.unseen(rows))
            self._maybe_flush()

    @_guarded
    def delete(self, keys: Iterable[str]) -> None:
        """Forget some runs (they will be simulated again when asked for)."""
        wanted = list(keys)
        if wanted:
            self._writable()
            self.flush()  # a journaled run must not come back on replay
            self._con.execute(
                "DELETE FROM runs WHERE key IN (SELECT unnest(?::VARCHAR[]))", [wanted]
            )
