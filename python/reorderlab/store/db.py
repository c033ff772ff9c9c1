"""The DuckDB file of a results store: its schema and layouts, opening it,
telling its errors apart, and the statements that read and write runs.

``key`` is unique, but enforced by the (single) writer rather than by a
PRIMARY KEY or an index: DuckDB's constraint check / index upkeep make
each insert dearer in CPU that the sweep's workers could use. Lookups scan
the key column, which is cheap for a columnar store (a sweep looks up all
its keys in one query).

The two JSON columns are stored uncompressed: with DuckDB's string
compression, fetching any one row decompressed the whole column segment,
so a lookup cost time and memory in proportion to the whole store (a
430 MB store: 1.4 s and 1.6 GB per `get`; uncompressed: about 1 ms). The
file is about 3.8x larger. A big result is kept encoded in ``result_z``
(:mod:`reorderlab.store.rows`). ``result_z`` is stored uncompressed too:
it is compressed already, and DuckDB (2.0) put the whole column in one
ZSTD-compressed segment, so fetching any row decompressed all of it (a
590 MB store: 0.17 s and ~100 MB of page faults per ``get_results``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from reorderlab.errors import StoreBusyError, StoreDamagedError, StoreError
from reorderlab.store import failures
from reorderlab.store.paths import check_file, sibling
from reorderlab.store.rows import COLUMNS, Row

if TYPE_CHECKING:
    from reorderlab.store.lock import WriterLock

__all__ = [
    "CHECKPOINT_THRESHOLD",
    "LAYOUT",
    "NO_RUNS_BELOW",
    "RUNS_TABLE",
    "check_size",
    "connect",
    "create_beside",
    "create_or_migrate",
    "damage_guard",
    "damaged",
    "existing",
    "insert",
    "is_duckdb_file",
    "layout",
    "one",
    "smallest_whole_size",
    "transaction",
    "write_guard",
]

_log = logging.getLogger(__name__)

RUNS_TABLE = """
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
#: encoded by :mod:`reorderlab.store.codec` (by column; until 4 it held
#: zlib-compressed JSON text, which 5 still reads), and results are
#: encoded from ``rows.COMPRESS_FROM`` = 8 KiB (was 1 MiB).
LAYOUT = 5

#: Up to this many rows, :func:`insert` binds them as parameters.
_FEW_ROWS = 16

#: DuckDB writes the rows a writer adds to its file (a checkpoint) when its
#: write-ahead log reaches this size, and when the store is closed. A
#: checkpoint rewrites the table's last row group whole (122,880 rows: all of
#: a store's runs), leaving the old copy as free space in the file: at
#: DuckDB's default of 16 MB, a full reproduction checkpointed a dozen times
#: and its store was half free space (a 1 GB test table: 2x the CPU, 2.6x
#: the memory). So the runs of a session are written once, as it closes;
#: until then they are in the log (and, as before, in the journal).
CHECKPOINT_THRESHOLD = "4GB"


def one(rows: list[Any]) -> Any:
    """The first of a query's rows (None if none). Queries fetch all their
    rows: DuckDB (2.0) refuses some later calls on a connection with a
    result not read to its end (``register`` of a frame to insert)."""
    return rows[0] if rows else None


def damaged(path: Path, why: str) -> StoreDamagedError:
    """The error of the store at ``path``, damaged (``why``), that says how
    to recover."""
    return StoreDamagedError(
        f"results store {path} is damaged ({why}): " + _REPAIR_HINT.format(path=path)
    )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


@contextlib.contextmanager
def damage_guard(path: Path) -> Iterator[None]:
    """DuckDB's read errors (a block it cannot read or decode) as a
    one-line :class:`StoreDamagedError` that says how to recover; its
    errors of a full disk or a read-only file as what they are
    (:mod:`reorderlab.store.failures`: DuckDB ends a session whose write
    failed with a ``FatalException``, which is no damage)."""
    try:
        yield
    except _DAMAGE_ERRORS as exc:
        known = failures.from_text(path, str(exc))
        raise (known or damaged(path, _first_line(exc))) from None


@contextlib.contextmanager
def write_guard(path: Path, where: Path | None = None) -> Iterator[None]:
    """DuckDB's and the system's errors of a write to the store at
    ``path`` (to the file ``where``, default the store), as one line: a
    full disk and a read-only file as :mod:`reorderlab.store.failures`
    says; a write DuckDB could not make for another reason as a
    :class:`StoreError` naming it. The transaction was rolled back:
    nothing committed before is lost, and the runs of the journal stay
    there."""
    try:
        yield
    except OSError as exc:
        raise failures.from_os_error(path, exc, where) from None
    except duckdb.Error as exc:
        text = str(exc)
        known = failures.from_text(path, text, None if where is None else str(where))
        if known is not None:
            raise known from None
        if isinstance(exc, _DAMAGE_ERRORS):
            raise damaged(path, _first_line(exc)) from None
        raise StoreError(f"results store {path}: cannot write it ({_first_line(exc)})") from None


def is_duckdb_file(path: Path) -> bool:
    """Does the file start as a DuckDB file does (``DUCK`` at byte 8)?
    A file that does not (a 0-byte file, someone's text) is no store
    to repair or to replace."""
    try:
        with path.open("rb") as f:
            return f.read(12)[8:12] == b"DUCK"
    except OSError:
        return False


#: A DuckDB file that is no longer than its three 4 KiB headers and one
#: 256 KiB block cannot hold a run (a store is created with its tables).
NO_RUNS_BELOW = 3 * 4096 + (256 << 10)


def connect(path: Path, read_only: bool) -> duckdb.DuckDBPyConnection:
    """Open the file, or say in one line why it cannot be: busy,
    read-only, full, or damaged (:mod:`reorderlab.store.failures`)."""
    check_file(path)
    # One thread: the store's queries are tiny, and a sweep's workers
    # need the cores more than DuckDB's background threads do.
    config: dict[str, Any] = {"threads": 1}
    if not read_only:
        config["checkpoint_threshold"] = CHECKPOINT_THRESHOLD
    try:
        con = duckdb.connect(str(path), read_only=read_only, config=config)
    except duckdb.Error as exc:
        text = str(exc)
        if "Could not set lock" in text or "Conflicting lock" in text:
            raise StoreBusyError(
                f"results store {path} is in use by another process ({_first_line(exc)})"
            ) from None
        known = failures.from_text(path, text)
        if known is not None:
            raise known from None
        if "not a valid DuckDB" in text and not is_duckdb_file(path):
            # some other file (or an empty one): not ours to repair
            raise StoreError(
                f"results store {path} is not a DuckDB file (it does not start as one): "
                "give another path (--store)"
            ) from None
        raise damaged(path, _first_line(exc)) from None
    try:
        with damage_guard(path):
            # no progress bar on the terminal (a layout rewrite takes seconds)
            con.execute("SET enable_progress_bar = false")
    except BaseException:
        con.close()
        raise
    return con


def create_beside(path: Path, real: Path, lock: WriterLock) -> duckdb.DuckDBPyConnection:
    """Create the store's DuckDB file (``path``; its real path ``real``)
    beside the file its writer has locked there (empty, or set aside as
    damaged), then rename it over that file, locked before the rename
    (:meth:`WriterLock.adopt`): no instant leaves the path unlocked to a
    second writer. Connect to it."""
    tmp = sibling(real, ".create")
    with write_guard(path, tmp):
        tmp.unlink(missing_ok=True)  # (left by a kill: nothing but the schema)
        sibling(tmp, ".wal").unlink(missing_ok=True)
        con = connect(tmp, read_only=False)
        try:
            with damage_guard(path):
                create_or_migrate(con, tmp)
        finally:
            con.close()
        lock.adopt(tmp)
        done = False
        try:
            tmp.replace(real)
            done = True
        finally:
            lock.adopted(done)
    return connect(path, read_only=False)


def smallest_whole_size(con: duckdb.DuckDBPyConnection) -> int | None:
    """The fewest bytes the open DuckDB file can have when whole: three
    4 KiB headers, then one block per block in use. Blocks that are free
    do not count: DuckDB truncates free blocks at the end of the file, so
    a healthy file is often shorter than all its blocks (a store written
    by three runs one after another was shorter than `total_blocks`
    says). A cut that only removes used blocks behind a free one is not
    seen here; reading the missing block then fails (:func:`damage_guard`)."""
    row = one(con.execute("SELECT block_size, used_blocks FROM pragma_database_size()").fetchall())
    if row is None:
        return None
    return 3 * 4096 + int(row[0]) * int(row[1])


def check_size(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """A file shorter than its blocks (its tail cut off: a full disk, a
    copy cut short) is damaged: say so now, not at the first read of a
    missing block."""
    expected = smallest_whole_size(con)
    if expected is None:
        return
    size = path.stat().st_size
    if size < expected:
        raise damaged(path, f"the file has {size} bytes of its {expected}")


def create_or_migrate(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Create the table in a new file; bring an older file to the
    current layout (one transaction each: a kill leaves the old one):
    layout 1's table is rewritten, and so are layouts 2 and 3's (with
    ``result_z`` stored uncompressed). Layout 4's rows are read as they
    are (its ``result_z`` is zlib text, which layout 5 reads too): only
    its number changes (``reorderlab store compact`` re-encodes them)."""
    found = con.execute("SELECT table_name FROM duckdb_tables()").fetchall()
    tables = {str(r[0]) for r in found}
    if "reorderlab_meta" in tables:
        old = layout(con, path)
        if old < 4:
            # 2 and 3: the table again, its result_z stored uncompressed
            _log.info("results store %s: rewriting with layout %d", path, LAYOUT)
            columns = ", ".join((*COLUMNS, "result_z") if old == 3 else COLUMNS)
            with transaction(con):
                con.execute(RUNS_TABLE.format(name="runs_new"))
                con.execute(f"INSERT INTO runs_new ({columns}) SELECT {columns} FROM runs")
                con.execute("DROP TABLE runs")
                con.execute("ALTER TABLE runs_new RENAME TO runs")
                con.execute("UPDATE reorderlab_meta SET layout = ?", [LAYOUT])
        elif old < LAYOUT:
            con.execute("UPDATE reorderlab_meta SET layout = ?", [LAYOUT])
        return
    with transaction(con):
        con.execute(RUNS_TABLE.format(name="runs_new"))
        if "runs" in tables:
            _log.info("results store %s: rewriting with uncompressed JSON columns", path)
            columns = ", ".join(COLUMNS)
            con.execute(f"INSERT INTO runs_new ({columns}) SELECT {columns} FROM runs")
            con.execute("DROP TABLE runs")
        con.execute("ALTER TABLE runs_new RENAME TO runs")
        con.execute("CREATE TABLE reorderlab_meta (layout INTEGER NOT NULL)")
        con.execute("INSERT INTO reorderlab_meta VALUES (?)", [LAYOUT])


def layout(con: duckdb.DuckDBPyConnection, path: Path) -> int:
    """The file's layout (1: no ``reorderlab_meta``); a newer one than
    this version knows is refused."""
    found = one(
        con.execute("SELECT 1 FROM duckdb_tables() WHERE table_name = 'reorderlab_meta'").fetchall()
    )
    if found is None:
        return 1
    row = one(con.execute("SELECT max(layout) FROM reorderlab_meta").fetchall())
    number = int(row[0]) if row and row[0] is not None else 1
    if number > LAYOUT:
        raise StoreError(
            f"results store {path} has layout {number}, written by a newer "
            f"reorderlab (this one reads layouts 1 to {LAYOUT})"
        )
    return number


@contextlib.contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """One DuckDB transaction: committed if the block ends, rolled back if
    it raises (a kill in between leaves the file as it was)."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def insert(con: duckdb.DuckDBPyConnection, rows: list[Row], table: str = "runs") -> None:
    """Insert rows in one statement (one transaction), into ``table``.

    A few rows go in as statement parameters; more as a DataFrame, which
    costs a few milliseconds to set up but about 0.02 ms per row instead
    of 0.2 ms.
    """
    if not rows:
        return
    # (the runs are packed already: the columns in their order)
    packed = [(*r[:6], r[8], r[6], r[7]) for r in rows]
    columns = (*COLUMNS[:6], "result_z", *COLUMNS[6:])
    names = ", ".join(columns)
    if len(rows) <= _FEW_ROWS:
        values = ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?)"] * len(rows))
        con.execute(
            f"INSERT INTO {table} ({names}) VALUES {values}", [v for r in packed for v in r]
        )
        return
    # Imported here, the one import of this module that waits for its use:
    # a command that stores one run (``reorderlab run``) needs no pandas.
    import pandas as pd

    frame = pd.DataFrame(
        {c: list(v) for c, v in zip(columns, zip(*packed, strict=True), strict=True)}
    )
    frame["seed"] = frame["seed"].astype("uint64")
    frame["wall_s"] = frame["wall_s"].astype("float64")  # None -> NaN -> NULL
    con.register("_reorderlab_new_runs", frame)
    try:
        con.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM _reorderlab_new_runs")
    finally:
        con.unregister("_reorderlab_new_runs")


def existing(con: duckdb.DuckDBPyConnection, keys: Iterable[str]) -> set[str]:
    """The keys among ``keys`` in the file's ``runs`` (one query)."""
    wanted = list(dict.fromkeys(keys))
    if not wanted:
        return set()
    rows = con.execute(
        "SELECT key FROM runs WHERE key IN (SELECT unnest(?::VARCHAR[]))", [wanted]
    ).fetchall()
    return {str(r[0]) for r in rows}
