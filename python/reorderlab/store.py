"""Results store: one DuckDB file, by default ``./results/reorderlab.duckdb``.

Every run is keyed by sha256 of (canonical scenario JSON, seed, engine
version) (:meth:`reorderlab.Scenario.cache_key`), so re-running a cached run
costs nothing and a new engine version never returns stale results.

Durability: a DuckDB commit costs about a millisecond of the writer's CPU,
as much as a short run takes to simulate, so runs are not committed one by
one. Every stored run is first appended, as one line of JSON, to a journal
next to the database (``reorderlab.duckdb.journal``), with one ``write``
system call per batch of runs that completed together: once that call
returns, the line is in the operating system's page cache and survives
``kill -9`` or Ctrl-C of the process. The journal's runs are moved into
DuckDB in batches (every :attr:`Store.flush_interval` seconds,
:attr:`Store.flush_rows` runs or :attr:`Store.FLUSH_BYTES` of text, in one
transaction, after which the journal is truncated), at the end of a sweep,
on :meth:`Store.close` and at normal interpreter exit.

The journal is not ``fsync``-ed: it protects completed runs against the
death of the process, not of the machine (a power cut may lose the runs
journaled since the last flush; the store stays readable either way).

Opening a store for writing first replays a journal left by a killed process
into DuckDB (skipping keys already stored, so a replay is idempotent), then
removes it. A line cut short by a kill in the middle of a write is not
complete (it does not end with a newline) or not valid JSON, and is ignored.
Opening read-only leaves the journal alone but still shows its runs. Lookups
(``get``, ``get_results``, ``existing``, ``in``, ``len``, ``keys``, ``runs``)
see journaled runs that are not in DuckDB yet.

The database itself is only ever changed by complete DuckDB transactions,
so the file is never left unreadable. Only the driver process of a sweep
writes; worker processes return JSON text to it, or a big result already
packed as it is stored (:attr:`StoreRow.result_z`). DuckDB refuses a second
writing process (:class:`StoreBusyError`); within one process, stores opened
on the same file share one journal.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import fcntl
import functools
import hashlib
import heapq
import logging
import os
import threading
import time
import weakref
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Concatenate, ParamSpec, TypeVar

import duckdb
import orjson

from reorderlab import result_codec
from reorderlab.errors import StoreBusyError, StoreDamagedError, StoreError

__all__ = [
    "COMPRESS_FROM",
    "DEFAULT_STORE",
    "NewStore",
    "Store",
    "StoreBusyError",
    "StoreDamagedError",
    "StoreError",
    "StoreRow",
    "StoredRun",
    "default_store_path",
    "is_big",
    "journal_path",
    "lock_path",
    "quarantine_path",
    "read_journal",
    "run_key",
    "summary_of",
    "wait_for_background_closes",
]

_log = logging.getLogger(__name__)

#: Default location, relative to the working directory.
DEFAULT_STORE = Path("results") / "reorderlab.duckdb"

# ``key`` is unique, but enforced by the (single) writer rather than by a
# PRIMARY KEY or an index: DuckDB's constraint check / index upkeep make
# each insert dearer in CPU that the sweep's workers could use. Lookups scan
# the key column, which is cheap for a columnar store (a sweep looks up all
# its keys in one query).
#
# The two JSON columns are stored uncompressed: with DuckDB's string
# compression, fetching any one row decompressed the whole column segment,
# so a lookup cost time and memory in proportion to the whole store (a
# 430 MB store: 1.4 s and 1.6 GB per `get`; uncompressed: about 1 ms). The
# file is about 3.8x larger. A result of COMPRESS_FROM characters or more
# with bulky parts (per-object records, time series, traces) is kept
# encoded in ``result_z`` (:mod:`reorderlab.result_codec`; zlib-compressed
# JSON text in stores written before layout 5), and ``result_json`` holds
# its summary (see :func:`_pack`). ``result_z`` is stored uncompressed too:
# it is compressed already, and DuckDB (2.0) put the whole column in one
# ZSTD-compressed segment, so fetching any row decompressed all of it (a
# 590 MB store: 0.17 s and ~100 MB of page faults per ``get_results``).
_RUNS_TABLE = """
CREATE TABLE {name} (
    key            VARCHAR NOT NULL,
    scenario_name  VARCHAR NOT NULL,
    seed           UBIGINT NOT NULL,
    engine_version VARCHAR NOT NULL,
    scenario_json  VARCHAR USING COMPRESSION uncompressed NOT NULL,
    result_json    VARCHAR USING COMPRESSION uncompressed NOT NULL,
    wall_s         DOUBLE,
    created_at     DOUBLE NOT NULL,
    result_z       BLOB USING COMPRESSION uncompressed
);
"""

#: How to recover a damaged store (formatted with its path).
_REPAIR_HINT = (
    "`reorderlab store repair {path}` rebuilds it from its readable runs and its "
    "journal (the others are simulated again when next asked for)"
)

#: DuckDB's errors of a file it cannot read back.
_DAMAGE_ERRORS = (
    duckdb.IOException,
    duckdb.InternalException,
    duckdb.SerializationException,
    duckdb.FatalException,
)

#: Layout version of the file, kept in ``reorderlab_meta``. 1 (no meta
#: table): compressed JSON columns; 2: uncompressed; 3: and ``result_z``;
#: 4: ``result_z`` uncompressed (DuckDB's own compression of it was one
#: segment for the whole column); 5: ``result_z`` may hold a result
#: encoded by :mod:`reorderlab.result_codec` (by column; until 4 it held
#: zlib-compressed JSON text, which 5 still reads), and results are
#: encoded from :data:`COMPRESS_FROM` = 8 KiB (was 1 MiB).
_LAYOUT = 5

#: Results this long (characters) or longer, with bulky parts (series,
#: traces, per-object records), are stored encoded, their summary in
#: ``result_json``. (The tail-loss paper's web runs, 0.3-1.3 MB of text each, were
#: below the 1 MiB of layout 4: 169 MB of the store as plain text.)
COMPRESS_FROM = 8 << 10

#: What a big result's summary leaves out (besides each traffic generator's
#: ``object_list``): the parts that make it big.
_BULKY = ("series", "traces")

#: The columns of ``runs``, in order; also the fields of a journal line.
_COLUMNS = (
    "key",
    "scenario_name",
    "seed",
    "engine_version",
    "scenario_json",
    "result_json",
    "wall_s",
    "created_at",
)

#: Up to this many rows, :meth:`Store._insert` binds them as parameters.
_FEW_ROWS = 16

#: DuckDB writes the rows a writer adds to its file (a checkpoint) when its
#: write-ahead log reaches this size, and when the store is closed. A
#: checkpoint rewrites the table's last row group whole (122,880 rows: all of
#: a store's runs), leaving the old copy as free space in the file: at
#: DuckDB's default of 16 MB, a full reproduction checkpointed a dozen times
#: and its store was half free space (a 1 GB test table: 2x the CPU, 2.6x
#: the memory). So the runs of a session are written once, as it closes;
#: until then they are in the log (and, as before, in the journal).
_CHECKPOINT_THRESHOLD = "4GB"

#: :meth:`Store.compact` re-encodes this many rows of an older layout at a time.
_COMPACT_CHUNK = 64

#: Journal line format version (field ``"v"``): 2 has the run as stored
#: (``result_json`` and ``result_z``, base64); 1 (before layout 5) had the
#: whole result text in ``result_json``. Both are replayed.
_JOURNAL_VERSION = 2

#: A run as a row of ``runs``: the values of :data:`_COLUMNS`, in order,
#: then ``result_z`` (``result_json`` being the summary when it is set).
_Row = tuple[str, str, int, str, str, str, float | None, float, bytes | None]


def default_store_path() -> Path:
    """``$REORDERLAB_STORE`` if set, else ``./results/reorderlab.duckdb``."""
    env = os.environ.get("REORDERLAB_STORE")
    return Path(env) if env else DEFAULT_STORE


def journal_path(path: str | Path) -> Path:
    """The journal of the store at ``path``: ``<path>.journal``."""
    p = Path(path)
    return p.with_name(p.name + ".journal")


def quarantine_path(path: str | Path) -> Path:
    """Where invalid journal lines of the store at ``path`` are kept, never
    replayed: ``<path>.journal.bad``."""
    p = Path(path)
    return p.with_name(p.name + ".journal.bad")


def lock_path(path: str | Path) -> Path:
    """The lock file of the store at ``path`` (``<path>.lock``): held by the
    one process that writes to the store, released when it closes the store
    or dies. The file stays (removing it would race with the next writer)."""
    p = Path(path)
    return p.with_name(p.name + ".lock")


def run_key(scenario_json: str, seed: int, engine_version: str) -> str:
    """A run's key from its stored scenario (canonical JSON, seed included),
    seed and engine version: :meth:`reorderlab.Scenario.cache_key`."""
    text = f"{scenario_json}\n{seed}\n{engine_version}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _one(rows: list[Any]) -> Any:
    """The first of a query's rows (None if none). Queries fetch all their
    rows: DuckDB (2.0) refuses some later calls on a connection with a
    result not read to its end (``register`` of a frame to insert)."""
    return rows[0] if rows else None


def smallest_whole_size(con: duckdb.DuckDBPyConnection) -> int | None:
    """The fewest bytes the open DuckDB file can have when whole: three
    4 KiB headers, then one block per block in use. Blocks that are free
    do not count: DuckDB truncates free blocks at the end of the file, so
    a healthy file is often shorter than all its blocks (a store written
    by three runs one after another was shorter than `total_blocks`
    says). A cut that only removes used blocks behind a free one is not
    seen here; reading the missing block then fails (`_damage_guard`)."""
    row = _one(con.execute("SELECT block_size, used_blocks FROM pragma_database_size()").fetchall())
    if row is None:
        return None
    return 3 * 4096 + int(row[0]) * int(row[1])


@dataclass(frozen=True)
class StoreRow:
    """A run to insert."""

    key: str
    scenario_name: str
    seed: int
    engine_version: str
    scenario_json: str
    result_json: str
    wall_s: float | None = None
    #: the result parsed (``orjson.loads(result_json)``), if the caller has
    #: it: a big result is encoded from it rather than parsed again. Not
    #: modified.
    result_value: Any = field(default=None, repr=False, compare=False)
    #: the result already packed as the store keeps a big one (the core's
    #: ``run_packed``, in a sweep's worker): this is its encoded form
    #: (:mod:`reorderlab.result_codec`) and ``result_json`` its summary
    #: (:func:`summary_of`); stored as they are.
    result_z: bytes | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class StoredRun:
    """One row of the store."""

    key: str
    scenario_name: str
    seed: int
    engine_version: str
    scenario_json: str
    result_json: str
    wall_s: float | None
    created_at: float


# -- the journal ----------------------------------------------------------


def _encode(row: _Row) -> bytes:
    """One journal line (JSON object, UTF-8, newline-terminated)."""
    obj: dict[str, Any] = {"v": _JOURNAL_VERSION}
    obj.update(zip(_COLUMNS, row, strict=False))
    z = row[8]
    obj["result_z"] = None if z is None else base64.b64encode(z).decode("ascii")
    # orjson: 6x faster than json on these lines (the texts inside are
    # escaped), and the driver writes one per run
    return orjson.dumps(obj) + b"\n"


def _decode(line: bytes) -> _Row | None:
    """The run of one complete journal line, or None if the line is not
    valid. A line of version 1 (the whole result text) is packed as a
    version-2 line would hold it."""
    try:
        obj = orjson.loads(line)
        if not isinstance(obj, dict) or obj.get("v") not in (1, _JOURNAL_VERSION):
            return None
        key, name, seed, version, sjson, rjson, wall, created = (obj[c] for c in _COLUMNS)
        if not all(isinstance(s, str) for s in (key, name, version, sjson, rjson)):
            return None
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
            return None
        if wall is not None and not isinstance(wall, int | float):
            return None
        if isinstance(created, bool) or not isinstance(created, int | float):
            return None
        z = obj.get("result_z") if obj["v"] == _JOURNAL_VERSION else None
        if z is not None and not isinstance(z, str):
            return None
        blob = None if z is None else base64.b64decode(z, validate=True)
        row = (key, name, seed, version, sjson, rjson, wall, float(created), blob)
        if not valid_run(row):
            return None
        if obj["v"] == 1:  # (valid: the result text is a JSON object)
            return _packed(row[:5], rjson, orjson.loads(rjson), row[6], row[7])
        return row
    except (ValueError, KeyError, TypeError):
        return None


def valid_run(row: tuple[Any, ...]) -> bool:
    """Are this run's scenario and result JSON objects (the result's
    summary too, and its encoded or compressed form, if it has one: row
    value 9)? (A journal line valid as JSON whose result text was cut short
    used to be replayed, and broke every later sweep that read it.)
    ``reorderlab store check`` also checks each key against :func:`run_key`."""
    sjson, rjson = row[4], row[5]
    z = row[8] if len(row) > 8 else None
    try:
        if not (isinstance(orjson.loads(sjson), dict) and isinstance(orjson.loads(rjson), dict)):
            return False
        return z is None or isinstance(_unpack_value(rjson, z), dict)
    except (ValueError, UnicodeDecodeError, zlib.error):
        return False


def read_journal(path: str | Path) -> tuple[list[_Row], int]:
    """The runs of a journal file, and how many lines were ignored.

    Only complete lines count: a last line without its newline (the process
    was killed in the middle of writing it) is ignored, as is any line that
    is not a valid journal record (see :func:`valid_run`). A key journaled
    twice keeps its first run. A missing file has no runs.
    """
    rows, invalid, torn = scan_journal(path)
    return rows, len(invalid) + torn


def scan_journal(path: str | Path) -> tuple[list[_Row], list[bytes], int]:
    """The runs of a journal file, its complete lines that are not valid
    runs, and 1 if its last line is cut short (else 0)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return [], [], 0
    lines = data.split(b"\n")
    torn = lines.pop()  # b"" if the file ends with a newline
    rows: dict[str, _Row] = {}
    invalid: list[bytes] = []
    for line in lines:
        if not line.strip():
            continue
        row = _decode(line)
        if row is None:
            invalid.append(line)
        elif row[0] not in rows:
            rows[row[0]] = row
    return list(rows.values()), invalid, 1 if torn.strip() else 0


def quarantine(path: str | Path, lines: list[bytes]) -> Path:
    """Append invalid journal ``lines`` of the store at ``path`` to its
    :func:`quarantine_path` (kept for inspection, never replayed)."""
    bad = quarantine_path(path)
    with bad.open("ab") as f:
        f.write(b"".join(line + b"\n" for line in lines))
    return bad


class _Journal:
    """The journal of one store file in this process, shared by its ``Store`` objects.

    ``pending`` holds the runs written to the journal but not yet to DuckDB;
    their keys are never in DuckDB, except after a flush that was interrupted
    (``recheck``: the next flush looks the keys up first).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd: int | None = None
        #: the runs as they go into DuckDB (a big result encoded, its summary
        #: in ``result_json``)
        self.pending: dict[str, _Row] = {}
        self.pending_bytes = 0  # their journal lines' size
        self.since = 0.0  # monotonic time of the oldest pending run
        self.lock = threading.RLock()
        self.refs = 0
        self.torn = False  # a write was cut short: start the next one on a new line
        self.recheck = False

    def append(self, rows: list[_Row]) -> None:
        """Write ``rows`` to the journal (one system call), then mark them pending."""
        if not rows:
            return
        data = b"".join(_encode(r) for r in rows)
        if self.fd is None:
            self.fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        if self.torn:
            data = b"\n" + data  # ends the cut-short line; replay ignores it
        self.torn = True
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view) :]
        self.torn = False
        if not self.pending:
            self.since = time.monotonic()
        self.pending_bytes += len(data)
        for r in rows:
            self.pending[r[0]] = r

    def flush_due(self, rows: int, interval: float) -> bool:
        """Are ``rows`` runs pending, or :attr:`Store.FLUSH_BYTES` of them,
        or is the oldest ``interval`` seconds old?"""
        return bool(self.pending) and (
            len(self.pending) >= rows
            or self.pending_bytes >= Store.FLUSH_BYTES
            or time.monotonic() - self.since >= interval
        )

    def truncate(self) -> None:
        """Empty the journal (every pending run is in DuckDB)."""
        self.pending.clear()
        self.pending_bytes = 0
        if self.fd is not None:
            os.ftruncate(self.fd, 0)
        self.torn = False

    def release(self) -> None:
        """Close the file, and remove it if it holds nothing."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if not self.pending:
            try:
                if self.path.stat().st_size == 0:
                    self.path.unlink()
            except FileNotFoundError:
                pass


_JOURNALS: dict[str, _Journal] = {}
_JOURNALS_LOCK = threading.Lock()


def _acquire_journal(real: str, on_new: Callable[[], None]) -> _Journal:
    """This process's journal for the store file at real path ``real``, one
    more reference to it; ``on_new`` runs first when the process has none."""
    with _JOURNALS_LOCK:
        journal = _JOURNALS.get(real)
        if journal is None:
            on_new()
            journal = _Journal(journal_path(real))
            _JOURNALS[real] = journal
        journal.refs += 1
    return journal


def _release_journal(real: str, journal: _Journal) -> None:
    """Drop a reference; the last one closes the journal (and removes its
    file if it holds nothing)."""
    with _JOURNALS_LOCK:
        journal.refs -= 1
        if journal.refs <= 0:
            _JOURNALS.pop(real, None)
            journal.release()


class _WriterLock:
    """This process's hold on a store's lock file (see :func:`lock_path`),
    shared by its writing ``Store`` and ``NewStore`` objects."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd: int | None = None
        self.refs = 0

    def take(self, shown: Path) -> None:
        """Lock the file, or raise :class:`StoreBusyError` naming the
        process that has it."""
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
        if self.fd is not None:
            os.close(self.fd)  # releases the lock
            self.fd = None


_LOCKS: dict[str, _WriterLock] = {}


def _acquire_lock(real: str, shown: Path) -> None:
    """Hold the writer's lock of the store at real path ``real`` (one more
    reference for this process); :class:`StoreBusyError` if another
    process holds it. Two sweeps into one store thus never write at once:
    the second refuses at the start, before it simulates anything."""
    with _JOURNALS_LOCK:
        lock = _LOCKS.get(real)
        if lock is None:
            lock = _WriterLock(lock_path(real))
            lock.take(shown)
            _LOCKS[real] = lock
        lock.refs += 1


def _release_lock(real: str) -> None:
    with _JOURNALS_LOCK:
        lock = _LOCKS.get(real)
        if lock is None:
            return
        lock.refs -= 1
        if lock.refs <= 0:
            del _LOCKS[real]
            lock.drop()


#: Stores being closed in the background, by real path (see
#: :meth:`Store.close_in_background`).
_CLOSING: dict[str, threading.Thread] = {}
_OPEN_STORES: weakref.WeakSet[Store] = weakref.WeakSet()


def wait_for_background_closes() -> None:
    """Wait until every store closing in the background (see
    :meth:`Store.close_in_background`) is closed, e.g. before deleting its file."""
    while True:
        with _JOURNALS_LOCK:
            threads = list(_CLOSING.values())
        if not threads:
            return
        for thread in threads:
            thread.join()


def _wait_for_background(real: str) -> None:
    """Wait until no thread is creating or closing the store file at real
    path ``real`` in the background. The registry is read under its lock:
    a thread is registered and started under it (``_in_background``), and
    read without it, one could be found registered but not started yet,
    which ``join`` refuses (``RuntimeError``)."""
    while True:
        with _JOURNALS_LOCK:
            thread = _CLOSING.get(real)
        if thread is None or thread is threading.current_thread():
            return
        thread.join()


def _in_background(real: str, work: Callable[[], None], path: Path) -> threading.Thread:
    """Run ``work`` on the store file at real path ``real`` (creating or
    closing it) on a thread registered in ``_CLOSING``, after the one
    registered before it for the file; return the thread. The caller does
    not wait. A failure is logged: the runs stay in the journal, replayed
    on the next open."""

    def run() -> None:
        try:
            if previous is not None:
                previous.join()
            work()
        except Exception as exc:  # nothing lost: the journal keeps the runs
            _log.warning("results store %s: %s", path, exc)
        finally:
            with _JOURNALS_LOCK:
                if _CLOSING.get(real) is thread:
                    del _CLOSING[real]

    with _JOURNALS_LOCK:  # registered and started together: join() is safe
        previous = _CLOSING.get(real)
        thread = threading.Thread(target=run, name="reorderlab-store-close")
        _CLOSING[real] = thread
        thread.start()
    return thread


def _close_open_stores() -> None:
    """At interpreter exit: move every journaled run into its store."""
    for store in list(_OPEN_STORES):
        # a failure leaves the runs in the journal, replayed on the next open
        with contextlib.suppress(Exception):
            store.close()


atexit.register(_close_open_stores)


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
        _wait: bool = True,
        _skip_size_check: bool = False,
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
        self._journal: _Journal | None = None
        # the file's real path: the key of this process's journal for it
        self._real = os.path.realpath(self.path)
        if _wait:
            _wait_for_background(self._real)  # (a sweep's new store may be being created)
        if read_only and not self.path.exists():
            if journal_path(self._real).exists():
                raise FileNotFoundError(
                    f"results store {self.path} does not exist yet: its journal "
                    f"{journal_path(self._real)} holds the runs of an interrupted sweep; "
                    "open the store once for writing to create it"
                )
            raise FileNotFoundError(f"results store {self.path} does not exist")
        self._locked = False
        if not read_only:
            self._prepare_folder()
            _acquire_lock(self._real, self.path)
            self._locked = True
        try:
            existed = self.path.exists() and self.path.stat().st_size > 0
            self._conn = self._connect(read_only)
            with self._damage_guard():
                # no progress bar on the terminal (a layout rewrite takes seconds)
                self._conn.execute("SET enable_progress_bar = false")
                if existed and not _skip_size_check:
                    self._check_size()
                if read_only:
                    self._has_result_z = self._layout() >= 3  # (a newer layout: refused)
                    self._journal = self._journal_overlay()
                else:
                    self._create_or_migrate()
                    self._journal = self._attach_journal()
                    _OPEN_STORES.add(self)
        except BaseException:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            if self._locked:
                self._locked = False
                _release_lock(self._real)
            raise

    def _prepare_folder(self) -> None:
        """The store's folder exists (created if needed), or a one-line error."""
        if self.path.is_dir():
            raise StoreError(f"results store {self.path}: is a directory, not a store file")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"results store {self.path}: cannot create {self.path.parent}: {exc.strerror}"
            ) from None

    def _connect(self, read_only: bool) -> duckdb.DuckDBPyConnection:
        """Open the file, or say in one line why it cannot be."""
        if self.path.is_dir():
            raise StoreError(f"results store {self.path}: is a directory, not a store file")
        # One thread: the store's queries are tiny, and a sweep's workers
        # need the cores more than DuckDB's background threads do.
        config: dict[str, Any] = {"threads": 1}
        if not read_only:
            config["checkpoint_threshold"] = _CHECKPOINT_THRESHOLD
        try:
            return duckdb.connect(str(self.path), read_only=read_only, config=config)
        except duckdb.IOException as exc:
            text = str(exc)
            if "lock" in text.lower():  # DuckDB: "Could not set lock on file ..."
                raise StoreBusyError(
                    f"results store {self.path} is in use by another process ({exc})"
                ) from None
            if "not a valid DuckDB" in text:  # some other file: not ours to repair
                raise StoreError(f"results store {self.path} cannot be opened ({exc})") from None
            raise StoreDamagedError(
                f"results store {self.path} is damaged ({text.strip().splitlines()[0]}): "
                + _REPAIR_HINT.format(path=self.path)
            ) from None

    def _check_size(self) -> None:
        """A file shorter than its blocks (its tail cut off: a full disk, a
        copy cut short) is damaged: say so now, not at the first read of a
        missing block."""
        expected = smallest_whole_size(self._con)
        if expected is None:
            return
        size = self.path.stat().st_size
        if size < expected:
            raise StoreDamagedError(
                f"results store {self.path} is damaged (the file has {size} bytes of its "
                f"{expected}): {_REPAIR_HINT.format(path=self.path)}"
            )

    @contextlib.contextmanager
    def _damage_guard(self) -> Iterator[None]:
        """DuckDB's read errors (a block it cannot read or decode) as a
        one-line :class:`StoreDamagedError` that says how to recover."""
        try:
            yield
        except _DAMAGE_ERRORS as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise StoreDamagedError(
                f"results store {self.path} is damaged ({first}): "
                + _REPAIR_HINT.format(path=self.path)
            ) from None

    def _create_or_migrate(self) -> None:
        """Create the table in a new file; bring an older file to the
        current layout (one transaction each: a kill leaves the old one):
        layout 1's table is rewritten, and so are layouts 2 and 3's (with
        ``result_z`` stored uncompressed). Layout 4's rows are read as they
        are (its ``result_z`` is zlib text, which layout 5 reads too): only
        its number changes (``reorderlab store compact`` re-encodes them)."""
        con = self._con
        found = con.execute("SELECT table_name FROM duckdb_tables()").fetchall()
        tables = {str(r[0]) for r in found}
        if "reorderlab_meta" in tables:
            layout = self._layout()
            if layout < 4:
                # 2 and 3: the table again, its result_z stored uncompressed
                _log.info("results store %s: rewriting with layout %d", self.path, _LAYOUT)
                columns = ", ".join((*_COLUMNS, "result_z") if layout == 3 else _COLUMNS)
                with _transaction(con):
                    con.execute(_RUNS_TABLE.format(name="runs_new"))
                    con.execute(f"INSERT INTO runs_new ({columns}) SELECT {columns} FROM runs")
                    con.execute("DROP TABLE runs")
                    con.execute("ALTER TABLE runs_new RENAME TO runs")
                    con.execute("UPDATE reorderlab_meta SET layout = ?", [_LAYOUT])
            elif layout < _LAYOUT:
                con.execute("UPDATE reorderlab_meta SET layout = ?", [_LAYOUT])
            return
        with _transaction(con):
            con.execute(_RUNS_TABLE.format(name="runs_new"))
            if "runs" in tables:
                _log.info("results store %s: rewriting with uncompressed JSON columns", self.path)
                columns = ", ".join(_COLUMNS)
                con.execute(f"INSERT INTO runs_new ({columns}) SELECT {columns} FROM runs")
                con.execute("DROP TABLE runs")
            con.execute("ALTER TABLE runs_new RENAME TO runs")
            con.execute("CREATE TABLE reorderlab_meta (layout INTEGER NOT NULL)")
            con.execute("INSERT INTO reorderlab_meta VALUES (?)", [_LAYOUT])

    def _layout(self) -> int:
        """The file's layout (1: no ``reorderlab_meta``); a newer one than
        this version knows is refused."""
        con = self._con
        found = _one(
            con.execute(
                "SELECT 1 FROM duckdb_tables() WHERE table_name = 'reorderlab_meta'"
            ).fetchall()
        )
        if found is None:
            return 1
        row = _one(con.execute("SELECT max(layout) FROM reorderlab_meta").fetchall())
        layout = int(row[0]) if row and row[0] is not None else 1
        if layout > _LAYOUT:
            raise StoreError(
                f"results store {self.path} has layout {layout}, written by a newer "
                f"reorderlab (this one reads layouts 1 to {_LAYOUT})"
            )
        return layout

    # -- journal ------------------------------------------------------------

    @property
    def journal_path(self) -> Path:
        """Where this store journals runs before they go into DuckDB."""
        return journal_path(self._real)

    def _attach_journal(self) -> _Journal:
        """This process's journal for the file; replay a leftover one first."""
        # No other Store of this process has the file open: a journal on
        # disk was left by a process that died before moving it in.
        return _acquire_journal(self._real, lambda: self._replay(self.journal_path))

    def _replay(self, path: Path) -> None:
        """Move a leftover journal's runs into DuckDB. Every line is checked
        first (:func:`valid_run`): an invalid one is moved to the
        :func:`quarantine_path` and reported, never replayed; a last line
        cut short by a kill is dropped."""
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
            present = self._db_existing(r[0] for r in rows)
            self._insert([r for r in rows if r[0] not in present])
        # everything the journal held is committed now (or was never valid)
        path.unlink(missing_ok=True)

    def _journal_overlay(self) -> _Journal:
        """Read-only: the runs of a leftover journal, shown but not moved in."""
        journal = _Journal(self.journal_path)
        rows, _ignored = read_journal(self.journal_path)
        if rows:
            present = self._db_existing(r[0] for r in rows)
            journal.pending = {r[0]: r for r in rows if r[0] not in present}
        return journal

    @property
    def _jr(self) -> _Journal:
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
                present = self._db_existing(r[0] for r in rows)
                rows = [r for r in rows if r[0] not in present]
            # Until the commit is known to be done, the next flush must check.
            journal.recheck = True
            self._insert(rows)
            journal.recheck = False
            journal.truncate()

    def _maybe_flush(self) -> None:
        if self._jr.flush_due(self.flush_rows, self.flush_interval):
            self.flush()

    def _insert(self, rows: list[_Row], table: str = "runs") -> None:
        """Insert rows in one statement (one transaction), into ``table``.

        A few rows go in as statement parameters; more as a DataFrame, which
        costs a few milliseconds to set up but about 0.02 ms per row instead
        of 0.2 ms.
        """
        if not rows:
            return
        # (the runs are packed already: the columns in their order)
        packed = [(*r[:6], r[8], r[6], r[7]) for r in rows]
        columns = (*_COLUMNS[:6], "result_z", *_COLUMNS[6:])
        names = ", ".join(columns)
        if len(rows) <= _FEW_ROWS:
            values = ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?)"] * len(rows))
            self._con.execute(
                f"INSERT INTO {table} ({names}) VALUES {values}", [v for r in packed for v in r]
            )
            return
        import pandas as pd

        frame = pd.DataFrame(
            {c: list(v) for c, v in zip(columns, zip(*packed, strict=True), strict=True)}
        )
        frame["seed"] = frame["seed"].astype("uint64")
        frame["wall_s"] = frame["wall_s"].astype("float64")  # None -> NaN -> NULL
        con = self._con
        con.register("_reorderlab_new_runs", frame)
        try:
            con.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM _reorderlab_new_runs")
        finally:
            con.unregister("_reorderlab_new_runs")

    # -- compaction ---------------------------------------------------------

    @_guarded
    def free_share(self) -> float:
        """The share of the DuckDB file's blocks that are free (see
        :meth:`compact`), after the journal is moved in and checkpointed."""
        if not self.read_only:
            self.flush()
            self._con.execute("CHECKPOINT")
        row = _one(
            self._con.execute(
                "SELECT total_blocks, free_blocks FROM pragma_database_size()"
            ).fetchall()
        )
        return 0.0 if not row or not row[0] else float(row[1]) / float(row[0])

    @_guarded
    def compact(self) -> tuple[int, int]:
        """Rewrite the file without its free space; returns its size in
        bytes before and after.

        DuckDB rewrites a table's last row group whole when rows are added
        to a file that has some (every session that adds runs to an existing
        store), and keeps the old copy as free space, reused but never given
        back: such a store is up to half free space. The runs are copied to a
        new file beside it (``<store>.compact``), which then replaces it
        (one rename: a kill leaves either file whole; a leftover
        ``.compact`` file is removed by the next compaction). Results that
        an older layout stored as text or zlib-compressed text are encoded as
        this layout does (:func:`_pack`) on the way, the others copied as
        they are. Needs the store open for writing, and no other open
        ``Store`` of this process on the file."""
        journal = self._writable()
        if journal.refs > 1:
            raise StoreError(
                f"results store {self.path}: cannot compact it while another Store of "
                "this process has it open"
            )
        self.flush()
        self._con.execute("CHECKPOINT")
        before = self.path.stat().st_size
        tmp = self.path.with_name(self.path.name + ".compact")
        for leftover in (tmp, tmp.with_name(tmp.name + ".wal")):
            leftover.unlink(missing_ok=True)
        con = self._con
        con.execute("ATTACH ? AS reorderlab_compact", [str(tmp)])
        try:
            self._copy_into("reorderlab_compact")
            con.execute("DETACH reorderlab_compact")  # (checkpoints it)
        except BaseException:
            with contextlib.suppress(duckdb.Error):
                con.execute("DETACH reorderlab_compact")
            tmp.unlink(missing_ok=True)
            raise
        self._conn = None
        con.close()
        try:
            tmp.replace(self.path)
        finally:
            self._conn = self._connect(read_only=False)
            self._conn.execute("SET enable_progress_bar = false")
        return before, self.path.stat().st_size

    def _copy_into(self, name: str) -> None:
        """Every run into the attached database ``name`` (a new file), with
        this layout's table; those stored by an older layout packed again."""
        con = self._con
        con.execute(_RUNS_TABLE.format(name=f"{name}.runs"))
        con.execute(f"CREATE TABLE {name}.reorderlab_meta (layout INTEGER NOT NULL)")
        con.execute(f"INSERT INTO {name}.reorderlab_meta VALUES (?)", [_LAYOUT])
        columns = ", ".join((*_COLUMNS, "result_z"))
        # stored text that may have bulk, or zlib text: not this layout's way
        older = (
            "(result_z IS NULL AND length(result_json) >= ?) "
            "OR (result_z IS NOT NULL AND result_z[1:4] <> ?)"
        )
        params = [COMPRESS_FROM, result_codec.MAGIC]
        con.execute(
            f"INSERT INTO {name}.runs ({columns}) SELECT {columns} FROM runs "
            f"WHERE NOT coalesce({older}, false)",
            params,
        )
        keys = [
            str(r[0]) for r in con.execute(f"SELECT key FROM runs WHERE {older}", params).fetchall()
        ]
        for i in range(0, len(keys), _COMPACT_CHUNK):
            rows = con.execute(
                f"SELECT {columns} FROM runs WHERE key IN (SELECT unnest(?::VARCHAR[]))",
                [keys[i : i + _COMPACT_CHUNK]],
            ).fetchall()
            repacked = [_packed(tuple(r[:5]), _unpack(r[5], r[8]), None, r[6], r[7]) for r in rows]
            self._insert(repacked, table=f"{name}.runs")

    def _db_existing(self, keys: Iterable[str]) -> set[str]:
        wanted = list(dict.fromkeys(keys))
        if not wanted:
            return set()
        rows = self._con.execute(
            "SELECT key FROM runs WHERE key IN (SELECT unnest(?::VARCHAR[]))", [wanted]
        ).fetchall()
        return {str(r[0]) for r in rows}

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
            _OPEN_STORES.discard(self)
            if journal is not None and not self.read_only:
                _release_journal(self._real, journal)
            self._conn.close()
            self._conn = None
            if self._locked:
                self._locked = False
                _release_lock(self._real)

    def close_in_background(self) -> None:
        """:meth:`close` on another thread, so the caller goes on at once.

        Every run is durable in the journal already; what is left is moving
        it into DuckDB and DuckDB's checkpoint. Opening the same file again in
        this process waits for it, and so does interpreter exit (the thread
        is not a daemon). A failure is logged; the runs then stay in the
        journal and are replayed on the next open.
        """
        if self._conn is not None:
            _in_background(self._real, self.close, self.path)

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    def damaged_run(self, key: str) -> StoreDamagedError:
        """The error for a stored run whose result cannot be read back (a
        store written before results were checked on replay)."""
        return StoreDamagedError(
            f"results store {self.path} is damaged (the result of run {key[:16]} is not "
            f"valid JSON): {_REPAIR_HINT.format(path=self.path)}"
        )

    @property
    def _con(self) -> duckdb.DuckDBPyConnection:
        if self._conn is None:
            raise ValueError(f"results store {self.path} is closed")
        return self._conn

    # -- queries ----------------------------------------------------------

    @_guarded
    def __len__(self) -> int:
        row = _one(self._con.execute("SELECT count(*) FROM runs").fetchall())
        return (int(row[0]) if row else 0) + len(self._jr.pending)

    @_guarded
    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        if key in self._jr.pending:
            return True
        row = _one(self._con.execute("SELECT 1 FROM runs WHERE key = ?", [key]).fetchall())
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
        return found | self._db_existing(k for k in wanted if k not in found)

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
            return _row(hit)
        row = _one(
            self._con.execute(
                "SELECT key, scenario_name, seed, engine_version, scenario_json, result_json, "
                f"wall_s, created_at, {self._result_z} FROM runs WHERE key = ?",
                [key],
            ).fetchall()
        )
        return _row(row) if row else None

    @_guarded
    def get_results(
        self, keys: Iterable[str], *, summaries: bool = False
    ) -> dict[str, tuple[str, float | None]]:
        """``{key: (result_json, wall_s)}`` for the stored keys among ``keys``.

        ``summaries``: a big result stored compressed is given as its summary
        (its metrics, without series, traces and per-object records: see
        :func:`summary_of`), not decompressed (a sweep's table needs no more).
        """
        return {k: (_unpack(r, z), w) for k, r, z, w in self._lookup(keys, blobs=not summaries)}

    @_guarded
    def get_values(
        self, keys: Iterable[str], *, columns: bool = False
    ) -> dict[str, tuple[Any, float | None]]:
        """``{key: (result, wall_s)}`` for the stored keys among ``keys``,
        each result parsed (as ``orjson.loads`` of :meth:`get_results`'
        text gives it; an encoded result is decoded without going through
        text, which is faster). ``columns``: the per-object records of a
        result stored encoded as :class:`~reorderlab.result_codec.Records`
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
            return _unpack_value(result_json, result_z, columns=columns)
        except (ValueError, UnicodeDecodeError, zlib.error):
            raise self.damaged_run(key) from None

    def runs(self) -> Iterator[StoredRun]:
        """Every stored run, oldest first."""
        pending = sorted(
            (_row(r) for r in self._jr.pending.values()), key=lambda r: (r.created_at, r.key)
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
                yield _row(row)

    # -- writes -----------------------------------------------------------

    def _writable(self) -> _Journal:
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
            journal.append([_packed(head, result_json, None, wall_s, time.time())])
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
            journal.append(_new_rows(journal, rows))
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


def _new_rows(journal: _Journal, rows: Iterable[StoreRow]) -> list[_Row]:
    """The runs of ``rows`` not pending in ``journal`` yet, packed as they
    are stored (a big result encoded, from its parsed value if given;
    one packed already as it is)."""
    now = time.time()
    new: dict[str, _Row] = {}
    for r in rows:
        if r.key not in journal.pending and r.key not in new:
            head = (r.key, r.scenario_name, r.seed, r.engine_version, r.scenario_json)
            if r.result_z is not None:  # packed already
                new[r.key] = (*head, r.result_json, r.wall_s, now, r.result_z)
            else:
                new[r.key] = _packed(head, r.result_json, r.result_value, r.wall_s, now)
    return list(new.values())


class NewStore:
    """A store file that does not exist yet, created when it is first needed.

    Creating a DuckDB file costs 30-60 ms of CPU, which a sweep's workers
    would rather have: so a sweep into a new store journals its runs (durable
    as with :meth:`Store.put_many`) and creates the file on a background
    thread only when an open store would first flush (``_Journal.flush_due``
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
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._real = os.path.realpath(self.path)

        def refuse_leftover() -> None:
            if journal_path(self._real).exists():
                # left by a dead process: Store replays it, this would not
                raise ValueError(f"results store {self.path}: has a journal to replay")

        _acquire_lock(self._real, self.path)  # before anything is journaled
        try:
            self._journal: _Journal | None = _acquire_journal(self._real, refuse_leftover)
        except BaseException:
            _release_lock(self._real)
            raise
        if self.path.exists():
            # Created by another process between the caller's look and the
            # lock: its runs may include some of ours; the flush skips them.
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
                self._thread = _in_background(self._real, self._open, self.path)

    def _open(self) -> None:
        try:
            # On a background thread registered for the file, which a Store
            # would wait for: this one is the file's first, nothing to wait.
            self._store = Store(self.path, _wait=False)
        except BaseException as exc:
            self._error = exc

    def put_many(self, rows: Iterable[StoreRow]) -> None:
        """Journal the runs of ``rows`` (durable on return)."""
        if self._journal is None:
            raise ValueError(f"results store {self.path}: already handed over")
        journal = self._journal
        with journal.lock:
            journal.append(_new_rows(journal, rows))
            due = journal.flush_due(Store.FLUSH_ROWS, Store.FLUSH_INTERVAL)
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
            _release_journal(self._real, journal)  # the store holds its own
            _release_lock(self._real)  # (and its own hold on the lock)
        if self._error is not None:
            raise self._error
        assert self._store is not None
        return self._store

    def close_in_background(self) -> None:
        """Create the file (if not done yet), move the journal into it and
        close it, on a background thread (see :meth:`Store.close_in_background`)."""
        _in_background(self._real, lambda: self.store().close(), self.path)


@contextlib.contextmanager
def _transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """One DuckDB transaction: committed if the block ends, rolled back if
    it raises (a kill in between leaves the file as it was)."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def _packed(
    head: tuple[str, str, int, str, str],
    text: str,
    value: Any,
    wall_s: float | None,
    created: float,
) -> _Row:
    """A run as it is stored (``head``: key, scenario name, seed, engine
    version, scenario JSON), its result ``text`` packed by :func:`_pack`
    (``value``: the text parsed, if the caller has it)."""
    result_json, result_z = _pack(text, value)
    return (*head, result_json, wall_s, created, result_z)


def _pack(text: str, value: Any = None) -> tuple[str, bytes | None]:
    """``(result_json, result_z)`` of a result: itself; or for a big one
    (:func:`is_big`) with bulky parts (series, traces, per-object records)
    its summary (:func:`summary_of`) and the result encoded by
    :mod:`reorderlab.result_codec` (from ``value``, the text parsed, if
    given). A 2.4 MB result of the tail-loss paper's Fig. 3 is stored in 115 KB
    (zlib of its text: 310 KB), and reads back faster than its text parses
    into the same lists of dicts when asked for by column."""
    if len(text) < COMPRESS_FROM:
        return text, None
    if value is None:
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            value = None
    if not isinstance(value, dict):  # not a result: kept as it is, compressed
        return summary_of(value), zlib.compress(text.encode("utf-8"), 1)
    if not _has_bulk(value):
        return text, None
    blob = result_codec.encode(value)
    if blob is None:  # (a key the encoding reserves): the text, compressed
        blob = zlib.compress(text.encode("utf-8"), 1)
    return summary_of(value), blob


def _has_bulk(data: dict[str, Any]) -> bool:
    """Has the result any of the parts a summary leaves out?"""
    if any(data.get(name) for name in _BULKY):
        return True
    gens = data.get("traffic")
    return isinstance(gens, list) and any(
        isinstance(gen, dict) and gen.get("object_list") for gen in gens
    )


def is_big(text: str) -> bool:
    """Is this result long enough to be stored encoded, with its summary in
    ``result_json`` (if it has bulky parts: see :func:`_pack`)?"""
    return len(text) >= COMPRESS_FROM


def summary_of(data: Any) -> str:
    """A big result (parsed) without its bulky parts (``series``,
    ``traces``, each traffic generator's ``object_list``), marked
    ``"compressed": "result_z"``: SQL on the file still finds the run's
    metrics in ``result_json``; ``Store.get`` gives the whole result.
    ``data`` is not modified."""
    if not isinstance(data, dict):
        return '{"compressed":"result_z"}'
    out = {name: value for name, value in data.items() if name not in _BULKY}
    if out.get("traffic"):
        out["traffic"] = [
            {k: v for k, v in gen.items() if k != "object_list"} if isinstance(gen, dict) else gen
            for gen in out["traffic"]
        ]
    out["compressed"] = "result_z"
    return orjson.dumps(out).decode("utf-8")


def _unpack(result_json: Any, result_z: Any) -> str:
    """A result's text from its two columns. (An encoded result's text is
    the same JSON value, written by orjson: compact, and its numbers may be
    spelled differently than the core spelled them, e.g. ``1e-07``.)"""
    if result_z is None:
        return str(result_json)
    blob = bytes(result_z)
    if result_codec.is_encoded(blob):
        return orjson.dumps(result_codec.decode(blob)).decode("utf-8")
    return result_codec.inflate(blob).decode("utf-8")


def _unpack_value(result_json: Any, result_z: Any, *, columns: bool = False) -> Any:
    """A result, parsed, from its two columns (``columns``: see
    :meth:`Store.get_values`). Raises ``ValueError`` (or ``zlib.error``)
    if they cannot be read."""
    if result_z is None:
        return orjson.loads(str(result_json))
    blob = bytes(result_z)
    if result_codec.is_encoded(blob):
        return result_codec.decode(blob, columns=columns)
    return orjson.loads(result_codec.inflate(blob))


def _row(row: tuple[Any, ...]) -> StoredRun:
    """A run from a journal row or a ``runs`` row with ``result_z`` (both
    have it last)."""
    key, name, seed, version, sjson, rjson, wall, created = row[:8]
    return StoredRun(
        key=str(key),
        scenario_name=str(name),
        seed=int(seed),
        engine_version=str(version),
        scenario_json=str(sjson),
        result_json=_unpack(rjson, row[8] if len(row) > 8 else None),
        wall_s=None if wall is None else float(wall),
        created_at=float(created),
    )
