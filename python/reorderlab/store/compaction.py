"""Compaction: a store's DuckDB file rewritten without its free space.

DuckDB rewrites a table's last row group whole when rows are added to a
file that has some (every session that adds runs to an existing store), and
keeps the old copy as free space, reused but never given back: such a store
is up to half free space. :func:`write_copy` copies the runs to a new
file beside it (``STORE.compact``), which then replaces it (one rename: a
kill leaves either file whole; a leftover ``.compact`` file is removed by
the next compaction). Results that an older layout stored as text or
zlib-compressed text are encoded as this layout does
(:func:`reorderlab.store.rows.pack`) on the way, the others copied as they
are. ``Store.compact`` (``reorderlab store compact``) calls it.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import duckdb

from reorderlab.store import codec, db, rows
from reorderlab.store.paths import sibling
from reorderlab.store.rows import COLUMNS, packed, unpack

__all__ = ["free_share", "write_copy"]

#: Rows of an older layout re-encoded at a time.
_COMPACT_CHUNK = 64


def free_share(con: duckdb.DuckDBPyConnection) -> float:
    """The share of the open file's blocks that are free."""
    row = db.one(
        con.execute("SELECT total_blocks, free_blocks FROM pragma_database_size()").fetchall()
    )
    return 0.0 if not row or not row[0] else float(row[1]) / float(row[0])


def write_copy(con: duckdb.DuckDBPyConnection, path: Path) -> Path:
    """Copy every run of the store file at ``path``, open on ``con``
    (checkpointed, every run in it), into a new file beside it
    (``STORE.compact``, which ``Store.compact`` then renames over it);
    return that file. A failure leaves the store as it was and no copy."""
    tmp = sibling(path, ".compact")
    for leftover in (tmp, sibling(tmp, ".wal")):
        leftover.unlink(missing_ok=True)
    con.execute("ATTACH ? AS reorderlab_compact", [str(tmp)])
    try:
        _copy_into(con, "reorderlab_compact")
        con.execute("DETACH reorderlab_compact")  # (checkpoints it)
    except BaseException:
        with contextlib.suppress(duckdb.Error):
            con.execute("DETACH reorderlab_compact")
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _copy_into(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Every run into the attached database ``name`` (a new file), with
    this layout's table; those stored by an older layout packed again."""
    con.execute(db.RUNS_TABLE.format(name=f"{name}.runs"))
    con.execute(f"CREATE TABLE {name}.reorderlab_meta (layout INTEGER NOT NULL)")
    con.execute(f"INSERT INTO {name}.reorderlab_meta VALUES (?)", [db.LAYOUT])
    columns = ", ".join((*COLUMNS, "result_z"))
    # stored text that may have bulk, or zlib text: not this layout's way
    older = (
        "(result_z IS NULL AND length(result_json) >= ?) "
        "OR (result_z IS NOT NULL AND result_z[1:4] <> ?)"
    )
    params = [rows.COMPRESS_FROM, codec.MAGIC]
    con.execute(
        f"INSERT INTO {name}.runs ({columns}) SELECT {columns} FROM runs "
        f"WHERE NOT coalesce({older}, false)",
        params,
    )
    keys = [
        str(r[0]) for r in con.execute(f"SELECT key FROM runs WHERE {older}", params).fetchall()
    ]
    for i in range(0, len(keys), _COMPACT_CHUNK):
        found = con.execute(
            f"SELECT {columns} FROM runs WHERE key IN (SELECT unnest(?::VARCHAR[]))",
            [keys[i : i + _COMPACT_CHUNK]],
        ).fetchall()
        repacked = [packed(tuple(r[:5]), unpack(r[5], r[8]), None, r[6], r[7]) for r in found]
        db.insert(con, repacked, table=f"{name}.runs")
