"""``reorderlab store check`` and ``reorderlab store repair``: find out
whether a results store can be read back whole, and rebuild one that
cannot from what can be read (its DuckDB file, block by block) and its
journal.

A store is damaged when its file was cut short (a full disk, a copy that
stopped), when DuckDB cannot read a block of it, or when a stored run does
not hold together (its result is not JSON, its key is not the hash of its
scenario, seed and engine version: written by a version that replayed
journal lines unchecked). A repair keeps every run that reads back whole and
drops the others: they are simulated again the next time a sweep asks for
them. The damaged file is kept beside the new one (``<store>.damaged``).

Only a store is checked or repaired: a path that is not a regular file (a
device, a FIFO, a folder, a symlink to one) or a file that does not start
as a DuckDB file does (someone's text, or unreadable) is refused on one
line, and a repair never renames or replaces it. (An empty file, what a
full disk leaves of a new store, is a store with nothing in it.) A store
being written by another process is "busy", not damaged.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from reorderlab.errors import StoreBusyError, StoreError
from reorderlab.store import registry
from reorderlab.store.db import is_duckdb_file, smallest_whole_size
from reorderlab.store.journal import scan_journal
from reorderlab.store.paths import check_files, journal_path, move_aside, quarantine_path
from reorderlab.store.rows import COLUMNS, Row, run_key, valid_run
from reorderlab.store.store import Store

__all__ = ["StoreReport", "check_store", "repair_store"]

#: Rows read per query when salvaging; a chunk that fails is read row by row.
_CHUNK = 256


@dataclass
class StoreReport:
    """What :func:`check_store` found (or :func:`repair_store` did)."""

    path: Path
    exists: bool = True
    #: why the file cannot be opened at all, if it cannot
    unopenable: str | None = None
    #: bytes the file has, and needs for its blocks (None if unknown)
    size: int = 0
    expected_size: int | None = None
    rows: int = 0
    readable: int = 0
    #: runs whose row DuckDB could not read, or that do not hold together
    unreadable: int = 0
    invalid: int = 0
    journal_runs: int = 0
    journal_invalid: int = 0
    journal_torn: int = 0
    quarantined: Path | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return (
            self.unopenable is None
            and (self.expected_size is None or self.size >= self.expected_size)
            and self.unreadable == 0
            and self.invalid == 0
            and self.journal_invalid == 0
        )

    def lines(self) -> list[str]:
        """The report as lines of text."""
        if not self.exists:
            return [f"{self.path}: no store file" + self._journal_text()]
        if self.unopenable is not None:
            head = f"{self.path}: cannot be opened ({self.unopenable})"
        else:
            head = f"{self.path}: {self.readable} of {self.rows} runs read back whole"
            if self.unreadable:
                head += f", {self.unreadable} unreadable"
            if self.invalid:
                head += f", {self.invalid} that do not hold together"
        out = [head + self._journal_text()]
        if self.expected_size is not None and self.size < self.expected_size:
            out.append(f"the file is cut short: {self.size} of {self.expected_size} bytes")
        if self.quarantined is not None:
            out.append(f"invalid journal lines kept in {self.quarantined}")
        out.extend(self.notes)
        return out

    def _journal_text(self) -> str:
        if not (self.journal_runs or self.journal_invalid or self.journal_torn):
            return ""
        text = f"; journal: {self.journal_runs} run(s) to move in"
        if self.journal_invalid:
            text += f", {self.journal_invalid} invalid line(s)"
        if self.journal_torn:
            text += ", a last line cut short"
        return text


def _valid_db_row(row: tuple[Any, ...]) -> bool:
    """A ``runs`` row (with ``result_z``) that reads back whole."""
    key, _name, seed, version, sjson = row[:5]
    if key != run_key(sjson, int(seed), version):
        return False
    return valid_run(row)


def _has_result_z(con: duckdb.DuckDBPyConnection) -> bool:
    cols = con.execute(
        "SELECT column_name FROM duckdb_columns() WHERE table_name = 'runs'"
    ).fetchall()
    return "result_z" in {str(c[0]) for c in cols}


def _salvage(con: duckdb.DuckDBPyConnection, report: StoreReport) -> Iterator[tuple[Any, ...]]:
    """Every row of ``runs`` DuckDB can read, chunk by chunk (a chunk that
    fails, row by row); counts what it could not read in ``report``."""
    result_z = "result_z" if _has_result_z(con) else "NULL"
    select = f"SELECT {', '.join(COLUMNS)}, {result_z} FROM runs WHERE rowid >= ? AND rowid < ?"
    top = con.execute("SELECT max(rowid) FROM runs").fetchone()
    last = -1 if top is None or top[0] is None else int(top[0])
    for start in range(0, last + 1, _CHUNK):
        try:
            rows = con.execute(select, [start, start + _CHUNK]).fetchall()
        except duckdb.Error:
            rows = []
            for i in range(start, min(start + _CHUNK, last + 1)):
                try:
                    rows += con.execute(select, [i, i + 1]).fetchall()
                except duckdb.Error:
                    report.unreadable += 1
        yield from rows


def check_store(path: str | Path) -> StoreReport:
    """Read every run of the store at ``path`` (and its journal) back, and
    say what could not be. Opens the file read-only: the store may be in
    use meanwhile."""
    report = StoreReport(Path(path))
    exists = _refuse_what_is_no_store(report.path)
    _check_journal(report)
    if not exists:
        report.exists = False
        return report
    report.size = report.path.stat().st_size
    if report.size == 0:
        if not registry.holds(os.path.realpath(report.path)) and _locked_elsewhere(report.path):
            raise StoreBusyError(
                f"results store {report.path} is in use by another process (it is being "
                "created): check it when that is done"
            )
        report.unopenable = "the file is empty"
        return report
    try:
        con = duckdb.connect(str(report.path), read_only=True, config={"threads": 1})
    except duckdb.Error as exc:
        text = str(exc)
        if "Could not set lock" in text or "Conflicting lock" in text:
            raise StoreBusyError(
                f"results store {report.path} is in use by another process (it is being "
                "written): check it when that is done"
            ) from None
        report.unopenable = text.splitlines()[0] if text else type(exc).__name__
        return report
    try:
        _check_rows(con, report)
    finally:
        con.close()
    return report


def _locked_elsewhere(path: Path) -> bool:
    """Does another process hold the writer's lock on the store file
    (:mod:`reorderlab.store.lock`: an empty file is a new store's, locked
    until its DuckDB file replaces it)?"""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def _refuse_what_is_no_store(path: Path) -> bool:
    """Refuse on one line a path that is not a regular file (a device, a
    FIFO, a folder, a symlink to one) or a file that does not start as a
    DuckDB file (an empty one does: a new store cut short); True if the
    file exists."""
    if not check_files(path):
        return False
    if path.stat().st_size > 0 and not is_duckdb_file(path):
        raise StoreError(
            f"results store {path} is not a DuckDB file (it does not start as one, "
            "or cannot be read): not a store to check or repair"
        )
    return True


def _check_journal(report: StoreReport) -> None:
    rows, invalid, torn = scan_journal(journal_path(os.path.realpath(report.path)))
    report.journal_runs, report.journal_invalid, report.journal_torn = len(rows), len(invalid), torn
    bad = quarantine_path(os.path.realpath(report.path))
    report.quarantined = bad if bad.exists() else None


def _check_rows(con: duckdb.DuckDBPyConnection, report: StoreReport) -> None:
    try:
        report.expected_size = smallest_whole_size(con)
        count = con.execute("SELECT count(*) FROM runs").fetchone()
        report.rows = int(count[0]) if count else 0
        for r in _salvage(con, report):
            if _valid_db_row(r):
                report.readable += 1
            else:
                report.invalid += 1
    except duckdb.Error as exc:
        report.unopenable = str(exc).splitlines()[0]


def repair_store(path: str | Path) -> StoreReport:
    """Rebuild the store at ``path`` from what reads back whole: its DuckDB
    rows and its journal (replayed by the new store as it opens, invalid
    lines set aside). The old file is kept as ``<path>.damaged``. Holds the
    store's writer lock throughout (refused while another process writes).
    A healthy store is left alone."""
    p = Path(path)
    _refuse_what_is_no_store(p)  # before anything is created beside it
    real = os.path.realpath(p)
    registry.acquire_lock(real, p)
    try:
        lock = registry.lock_of(real)
        if lock.made:  # (made empty by the lock: there was no store file)
            report = StoreReport(p, exists=False)
            _check_journal(report)
        else:
            report = check_store(p)
        if report.healthy and report.exists:
            report.notes.append("nothing to repair")
            return report
        rows = _readable_rows(p, report) if report.exists else []
        if report.exists and report.size == 0:
            # nothing to keep: the new store replaces it (lock.fresh)
            report.notes.append("the empty file is replaced")
        elif report.exists:
            # (a second link: the path stays locked until the new store replaces it)
            aside = move_aside(p, keep=True)
            lock.fresh = True
            report.notes.append(f"the damaged file is kept as {aside}")
        with Store(p) as store:  # a new file; replays (and checks) the journal
            store.insert_stored(rows)
            report.notes.append(f"rebuilt: {len(store)} runs stored")
        return report
    finally:
        registry.release_lock(real)


def _readable_rows(path: Path, report: StoreReport) -> list[Row]:
    """The rows of the old file that read back whole, as they are stored
    (an old file's compressed results are kept as they are: the new store
    reads them)."""
    try:
        con = duckdb.connect(str(path), read_only=True, config={"threads": 1})
    except duckdb.Error:
        return []
    out: dict[str, Row] = {}
    try:
        for r in _salvage(con, StoreReport(path)):
            if not _valid_db_row(r):
                continue
            key, name, seed, version, sjson, rjson, wall, created, rz = r
            out.setdefault(
                str(key),
                (
                    str(key),
                    str(name),
                    int(seed),
                    str(version),
                    str(sjson),
                    str(rjson),
                    None if wall is None else float(wall),
                    float(created),
                    None if rz is None else bytes(rz),
                ),
            )
    except duckdb.Error as exc:
        report.notes.append(f"stopped reading the old file: {str(exc).splitlines()[0]}")
    finally:
        con.close()
    return list(out.values())
