"""A sweep and its results store: the runs it finds there, and where the
runs it simulates go (:class:`StoreSink`) as soon as the driver has them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from reorderlab.store import NewStore, Store, StoreRow, is_big
from reorderlab.sweep.grid import Job
from reorderlab.sweep.table import Table, flat
from reorderlab.worker import Output, Packed

__all__ = ["FETCH_CHUNK", "StoreSink", "read_stored", "result_text", "store_rows"]

#: Stored results fetched per query: bounds the result text held at once.
FETCH_CHUNK = 256


def read_stored(st: Store, keys: list[str], into: Table) -> None:
    """The table rows of the stored runs among ``keys``, a chunk at a time."""
    wanted = list(dict.fromkeys(keys))
    for i in range(0, len(wanted), FETCH_CHUNK):
        # a big result's summary holds all the table needs
        found = st.get_results(wanted[i : i + FETCH_CHUNK], summaries=True)
        for key, (text, wall) in found.items():
            try:
                data = orjson.loads(text)
            except orjson.JSONDecodeError:
                raise st.damaged_run(key) from None
            into.add_stored(key, flat(data), wall)


def result_text(out: str | Packed) -> str:
    """A run's result text, or the summary of a packed one."""
    return out if isinstance(out, str) else out[0]


def store_rows(
    batch: list[tuple[Job, Output]], parsed: list[Any] | None, version: str
) -> Iterator[StoreRow]:
    """The store's rows of completed runs: a result packed by the worker as
    it is; a big result's text with its parsed value (``parsed``: the
    results parsed, or None), which the store encodes rather than parse
    the text again."""
    for i, (job, (out, wall, _cpu)) in enumerate(batch):
        text, blob = (out, None) if isinstance(out, str) else out
        value = parsed[i] if parsed is not None and blob is None and is_big(text) else None
        yield StoreRow(
            key=job.key,
            scenario_name=job.scenario.name,
            seed=job.seed,
            engine_version=version,
            scenario_json=job.stored_json(),
            result_json=text,
            wall_s=wall,
            result_value=value,
            result_z=blob,
        )


class StoreSink:
    """Where a sweep's completed runs go: the caller's store, a store the
    sweep opened (``own``), or the journal of a :class:`NewStore` until its
    file is created (then the store created). Every run put is durable
    (journaled) when :meth:`put` returns."""

    def __init__(self, store: Store | None, new: NewStore | None, own: bool) -> None:
        self._st = store
        self._new = new  # a store file created when first needed
        self._own = own

    @property
    def active(self) -> bool:
        """Are the runs stored at all?"""
        return self._st is not None or self._new is not None

    @property
    def path(self) -> str:
        """The store's path, for messages (empty without a store)."""
        where = self._st if self._st is not None else self._new
        return "" if where is None else str(where.path)

    def _target(self) -> Store | NewStore | None:
        """The store, or its journal until the new store file is created."""
        if self._st is None and self._new is not None and self._new.is_open():
            self._st = self._new.store()
        return self._st if self._st is not None else self._new

    def put(self, rows: Iterator[StoreRow], last_out: bool) -> None:
        """Store ``rows`` (durable on return). ``last_out``: the sweep's
        last runs are out and a worker is idle: the journal goes into the
        caller's store now rather than after the last one (a store the
        sweep opened itself is flushed as it closes, in the background)."""
        target = self._target()
        if target is None:
            return
        target.put_many(rows)
        if last_out and self._st is not None and not self._own:
            self._st.flush()

    def close(self) -> None:
        """Every journaled run goes into DuckDB; a store the sweep opened is
        closed in the background (every run is durable in the journal
        already; opening the file again waits for it, and so does
        interpreter exit)."""
        if self._st is not None and self._own:
            self._st.close_in_background()
        elif self._st is not None:
            self._st.flush()
        elif self._new is not None:
            self._new.close_in_background()
