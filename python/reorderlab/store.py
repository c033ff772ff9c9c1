"""Results store: one DuckDB file, by default ``./results/reorderlab.duckdb``.

Every run is keyed by sha256 of (canonical scenario JSON, seed, engine
version) (:meth:`reorderlab.Scenario.cache_key`), so re-running a cached run
costs nothing and a new engine version never returns stale results.

Durability: every completed run is inserted in its own transaction, committed
before the next one is handled; DuckDB writes the commit to its write-ahead
log, which it replays on the next open. Killing a sweep (Ctrl-C or
``kill -9``) therefore loses no completed run and never leaves the file
unreadable. Only the driver process of a sweep writes; worker processes
return JSON text to it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import duckdb

__all__ = [
    "DEFAULT_STORE",
    "Store",
    "StoreBusyError",
    "StoreRow",
    "StoredRun",
    "default_store_path",
]

#: Default location, relative to the working directory.
DEFAULT_STORE = Path("results") / "reorderlab.duckdb"

# ``key`` is unique, but enforced by the (single) writer rather than by a
# PRIMARY KEY or an index: a commit happens once per completed run, and
# DuckDB's constraint check / index upkeep make each commit 1.5-3x dearer in
# CPU that the sweep's workers could use. Lookups scan the key column, which
# is cheap for a columnar store (a sweep looks up all its keys in one query).
_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    key            VARCHAR NOT NULL,
    scenario_name  VARCHAR NOT NULL,
    seed           UBIGINT NOT NULL,
    engine_version VARCHAR NOT NULL,
    scenario_json  VARCHAR NOT NULL,
    result_json    VARCHAR NOT NULL,
    wall_s         DOUBLE,
    created_at     DOUBLE NOT NULL
);
"""


def default_store_path() -> Path:
    """``$REORDERLAB_STORE`` if set, else ``./results/reorderlab.duckdb``."""
    env = os.environ.get("REORDERLAB_STORE")
    return Path(env) if env else DEFAULT_STORE


class StoreBusyError(RuntimeError):
    """The store file is open for writing by another process."""


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


class Store:
    """A DuckDB results store (context manager; also usable without ``with``)."""

    def __init__(self, path: str | Path | None = None, *, read_only: bool = False) -> None:
        self.path = Path(path) if path is not None else default_store_path()
        self.read_only = read_only
        if read_only and not self.path.exists():
            raise FileNotFoundError(f"results store {self.path} does not exist")
        if not read_only:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn: duckdb.DuckDBPyConnection | None = None
        try:
            # One thread: the store's queries are tiny, and a sweep's workers
            # need the cores more than DuckDB's background threads do.
            self._conn = duckdb.connect(str(self.path), read_only=read_only, config={"threads": 1})
        except duckdb.IOException as exc:
            raise StoreBusyError(
                f"results store {self.path} cannot be opened ({exc}); "
                "is another reorderlab process using it?"
            ) from None
        if not read_only:
            self._con.execute(_SCHEMA)

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
        """Close the connection (idempotent)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    @property
    def _con(self) -> duckdb.DuckDBPyConnection:
        if self._conn is None:
            raise ValueError(f"results store {self.path} is closed")
        return self._conn

    # -- queries ----------------------------------------------------------

    def __len__(self) -> int:
        row = self._con.execute("SELECT count(*) FROM runs").fetchone()
        return int(row[0]) if row else 0

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        row = self._con.execute("SELECT 1 FROM runs WHERE key = ?", [key]).fetchone()
        return row is not None

    def keys(self) -> list[str]:
        """Every stored key."""
        return [
            str(r[0]) for r in self._con.execute("SELECT key FROM runs ORDER BY key").fetchall()
        ]

    def existing(self, keys: Iterable[str]) -> set[str]:
        """The subset of ``keys`` already stored (one query)."""
        wanted = list(dict.fromkeys(keys))
        if not wanted:
            return set()
        rows = self._con.execute(
            "SELECT key FROM runs WHERE key IN (SELECT unnest(?::VARCHAR[]))", [wanted]
        ).fetchall()
        return {str(r[0]) for r in rows}

    def get(self, key: str) -> StoredRun | None:
        """The stored run with this key, or None."""
        row = self._con.execute(
            "SELECT key, scenario_name, seed, engine_version, scenario_json, result_json, "
            "wall_s, created_at FROM runs WHERE key = ?",
            [key],
        ).fetchone()
        return _row(row) if row else None

    def get_results(self, keys: Iterable[str]) -> dict[str, tuple[str, float | None]]:
        """``{key: (result_json, wall_s)}`` for the stored keys among ``keys``."""
        wanted = list(dict.fromkeys(keys))
        if not wanted:
            return {}
        rows = self._con.execute(
            "SELECT key, result_json, wall_s FROM runs WHERE key IN (SELECT unnest(?::VARCHAR[]))",
            [wanted],
        ).fetchall()
        return {str(k): (str(r), None if w is None else float(w)) for k, r, w in rows}

    def runs(self) -> Iterator[StoredRun]:
        """Every stored run, oldest first."""
        cur = self._con.execute(
            "SELECT key, scenario_name, seed, engine_version, scenario_json, result_json, "
            "wall_s, created_at FROM runs ORDER BY created_at, key"
        )
        while True:
            batch = cur.fetchmany(256)
            if not batch:
                return
            for row in batch:
                yield _row(row)

    # -- writes -----------------------------------------------------------

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
        """Insert one run and commit. Returns False if the key was already stored."""
        if self.read_only:
            raise PermissionError(f"results store {self.path} is open read-only")
        before = self._con.execute("SELECT 1 FROM runs WHERE key = ?", [key]).fetchone()
        if before is not None:
            return False
        self._con.execute(
            "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                key,
                scenario_name,
                seed,
                engine_version,
                scenario_json,
                result_json,
                wall_s,
                time.time(),
            ],
        )
        return True

    def put_many(self, rows: Iterable[StoreRow]) -> None:
        """Insert runs whose keys are not stored yet, committed before returning.

        One statement (one transaction) for the whole batch: the sweep driver
        calls this with every run that completed since its last call. The
        caller guarantees the keys are new (the sweep only submits runs it did
        not find in the store, and only one process can write to the file);
        :meth:`put` checks instead.
        """
        if self.read_only:
            raise PermissionError(f"results store {self.path} is open read-only")
        now = time.time()
        params: list[Any] = []
        for r in {r.key: r for r in rows}.values():
            params += [
                r.key,
                r.scenario_name,
                r.seed,
                r.engine_version,
                r.scenario_json,
                r.result_json,
                r.wall_s,
                now,
            ]
        n = len(params) // 8
        if n == 0:
            return
        values = ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?)"] * n)
        self._con.execute(f"INSERT INTO runs VALUES {values}", params)

    def delete(self, keys: Iterable[str]) -> None:
        """Forget some runs (they will be simulated again when asked for)."""
        wanted = list(keys)
        if wanted:
            self._con.execute(
                "DELETE FROM runs WHERE key IN (SELECT unnest(?::VARCHAR[]))", [wanted]
            )


def _row(row: tuple[Any, ...]) -> StoredRun:
    key, name, seed, version, sjson, rjson, wall, created = row
    return StoredRun(
        key=str(key),
        scenario_name=str(name),
        seed=int(seed),
        engine_version=str(version),
        scenario_json=str(sjson),
        result_json=str(rjson),
        wall_s=None if wall is None else float(wall),
        created_at=float(created),
    )
