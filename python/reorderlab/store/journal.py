"""The journal: where a stored run is durable before it is in DuckDB.

Every stored run is first appended, as one line of JSON, to a journal next
to the database (``STORE.journal``), with one ``write`` system call per
batch of runs that completed together: once that call returns, the line is
in the operating system's page cache and survives ``kill -9`` or Ctrl-C of
the process. The journal is not ``fsync``-ed: it protects completed runs
against the death of the process, not of the machine.

A line cut short by a kill in the middle of a write is not complete (it
does not end with a newline) or not valid JSON, and is ignored. A complete
line that is not a valid run (:func:`reorderlab.store.rows.valid_run`) is
set aside in ``STORE.journal.bad`` (:func:`quarantine`), never replayed.
"""

from __future__ import annotations

import base64
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson

from reorderlab.errors import StoreError
from reorderlab.store.failures import from_os_error
from reorderlab.store.paths import quarantine_path
from reorderlab.store.rows import COLUMNS, Row, StoreRow, packed, valid_run

__all__ = [
    "JOURNAL_VERSION",
    "Journal",
    "decode",
    "encode",
    "quarantine",
    "read_journal",
    "scan_journal",
]

#: Journal line format version (field ``"v"``): 2 has the run as stored
#: (``result_json`` and ``result_z``, base64); 1 (before layout 5) had the
#: whole result text in ``result_json``. Both are replayed.
JOURNAL_VERSION = 2


def encode(row: Row) -> bytes:
    """One journal line (JSON object, UTF-8, newline-terminated)."""
    obj: dict[str, Any] = {"v": JOURNAL_VERSION}
    obj.update(zip(COLUMNS, row, strict=False))
    z = row[8]
    obj["result_z"] = None if z is None else base64.b64encode(z).decode("ascii")
    # orjson: 6x faster than json on these lines (the texts inside are
    # escaped), and the driver writes one per run
    return orjson.dumps(obj) + b"\n"


def decode(line: bytes) -> Row | None:
    """The run of one complete journal line, or None if the line is not
    valid. A line of version 1 (the whole result text) is packed as a
    version-2 line would hold it."""
    try:
        obj = orjson.loads(line)
        if not isinstance(obj, dict) or obj.get("v") not in (1, JOURNAL_VERSION):
            return None
        key, name, seed, version, sjson, rjson, wall, created = (obj[c] for c in COLUMNS)
        if not all(isinstance(s, str) for s in (key, name, version, sjson, rjson)):
            return None
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
            return None
        if wall is not None and not isinstance(wall, int | float):
            return None
        if isinstance(created, bool) or not isinstance(created, int | float):
            return None
        z = obj.get("result_z") if obj["v"] == JOURNAL_VERSION else None
        if z is not None and not isinstance(z, str):
            return None
        blob = None if z is None else base64.b64decode(z, validate=True)
        row = (key, name, seed, version, sjson, rjson, wall, float(created), blob)
        if not valid_run(row):
            return None
        if obj["v"] == 1:  # (valid: the result text is a JSON object)
            return packed(row[:5], rjson, orjson.loads(rjson), row[6], row[7])
        return row
    except (ValueError, KeyError, TypeError):
        return None


def read_journal(path: str | Path) -> tuple[list[Row], int]:
    """The runs of a journal file, and how many lines were ignored.

    Only complete lines count: a last line without its newline (the process
    was killed in the middle of writing it) is ignored, as is any line that
    is not a valid journal record (see :func:`valid_run`). A key journaled
    twice keeps its first run. A missing file has no runs.
    """
    rows, invalid, torn = scan_journal(path)
    return rows, len(invalid) + torn


def scan_journal(path: str | Path) -> tuple[list[Row], list[bytes], int]:
    """The runs of a journal file, its complete lines that are not valid
    runs, and 1 if its last line is cut short (else 0)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return [], [], 0
    lines = data.split(b"\n")
    torn = lines.pop()  # b"" if the file ends with a newline
    rows: dict[str, Row] = {}
    invalid: list[bytes] = []
    for line in lines:
        if not line.strip():
            continue
        row = decode(line)
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


class Journal:
    """The journal of one store file in this process, shared by its
    ``Store`` objects (:mod:`reorderlab.store.registry`).

    ``pending`` holds the runs written to the journal but not yet to DuckDB;
    their keys are never in DuckDB, except after a flush that was interrupted
    (``recheck``: the next flush looks the keys up first).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        #: the store's path, for messages
        self.store = Path(str(path).removesuffix(".journal"))
        self.fd: int | None = None
        #: the runs as they go into DuckDB (a big result encoded, its summary
        #: in ``result_json``)
        self.pending: dict[str, Row] = {}
        self.pending_bytes = 0  # their journal lines' size
        self.since = 0.0  # monotonic time of the oldest pending run
        self.lock = threading.RLock()
        self.refs = 0
        self.torn = False  # a write was cut short: start the next one on a new line
        self.recheck = False
        #: locks a journal made again at ``path`` (the writer's lock on the
        #: journal, :meth:`reorderlab.store.lock.WriterLock.relock_journal`)
        self.relock: Callable[[], None] | None = None

    def append(self, rows: list[Row]) -> None:
        """Write ``rows`` to the journal (one system call), then mark them pending."""
        if not rows:
            return
        data = b"".join(encode(r) for r in rows)
        if self.torn:
            data = b"\n" + data  # ends the cut-short line; replay ignores it
        try:
            if self.fd is not None and not self._in_place():
                data = self._made_again() + data
            if self.fd is None:
                # Created by the writer's lock, which holds it (no O_CREAT:
                # a journal removed meanwhile is not made again unlocked).
                if self.relock is not None:
                    self.relock()  # (one removed meanwhile is made again, locked)
                self.fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
            self.torn = True
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view) :]
        except FileNotFoundError:
            raise StoreError(
                f"results store {self.store}: its journal {self.path} was removed while "
                "the store was open for writing"
            ) from None
        except OSError as exc:  # a full disk, a file size limit: one line
            raise from_os_error(self.store, exc, self.path) from None
        self.torn = False
        if not self.pending:
            self.since = time.monotonic()
        self.pending_bytes += len(data)
        for r in rows:
            self.pending[r[0]] = r

    def _in_place(self) -> bool:
        """Is the file this writes to still the journal at ``path``?"""
        assert self.fd is not None
        try:
            return os.path.samestat(os.fstat(self.fd), self.path.stat())
        except FileNotFoundError:
            return False

    def _made_again(self) -> bytes:
        """The journal was removed (or replaced) while the store is open:
        the runs it held would be lost with this process. It is made again
        at ``path``, locked (``relock``, as the file is opened next), and
        every run it held (all pending) written to it first: the lines
        returned. Durable again."""
        if self.relock is None:
            raise FileNotFoundError(self.path)
        assert self.fd is not None
        os.close(self.fd)
        self.fd = None
        self.torn = False
        return b"".join(encode(r) for r in self.pending.values())

    def unseen(self, rows: Iterable[StoreRow]) -> list[Row]:
        """The runs of ``rows`` not pending here yet, packed as they are
        stored (a big result encoded, from its parsed value if given; one
        packed already as it is)."""
        now = time.time()
        new: dict[str, Row] = {}
        for r in rows:
            if r.key not in self.pending and r.key not in new:
                head = (r.key, r.scenario_name, r.seed, r.engine_version, r.scenario_json)
                if r.result_z is not None:  # packed already
                    new[r.key] = (*head, r.result_json, r.wall_s, now, r.result_z)
                else:
                    new[r.key] = packed(head, r.result_json, r.result_value, r.wall_s, now)
        return list(new.values())

    def flush_due(self, rows: int, interval: float, size: int) -> bool:
        """Are ``rows`` runs pending, or ``size`` bytes of them, or is the
        oldest ``interval`` seconds old?"""
        return bool(self.pending) and (
            len(self.pending) >= rows
            or self.pending_bytes >= size
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
        """Close the file. (An empty journal is removed by the writer's
        lock as it is released, :meth:`reorderlab.store.lock.WriterLock.drop`:
        the journal is what it locks.)"""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
