"""The sweep's driver: :func:`sweep` (a grid x seeds, cached, into a
table) and :func:`simulate_jobs` (runs to store, no table).

The driver plans the jobs (:mod:`.grid`), reads the runs already stored
(:mod:`.sink`), hands the others to a backend (:mod:`.backends`), and
stores each completed run as it arrives, before anything else is done
with it, then keeps its table row (:mod:`.table`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pandas as pd

from reorderlab import pool
from reorderlab.errors import MissingRunsError
from reorderlab.runner import count_simulations, engine_version
from reorderlab.scenario import Scenario, format_value
from reorderlab.store import COMPRESS_FROM, NewStore, Store, default_store_path, journal_path
from reorderlab.sweep import backends
from reorderlab.sweep.backends import Backend
from reorderlab.sweep.grid import (
    Grid,
    GridLike,
    Job,
    first_of_each_key,
    iter_jobs,
    points_of,
    seeds_list,
)
from reorderlab.sweep.progress import Progress, progress_enabled
from reorderlab.sweep.sink import StoreSink, read_stored, result_text, store_rows
from reorderlab.sweep.stats import SweepStats
from reorderlab.sweep.table import Table, flat
from reorderlab.worker import Output

__all__ = ["DEFAULT", "simulate_jobs", "sweep"]


class _Default:
    def __repr__(self) -> str:
        return "DEFAULT"


#: Use the default store (``$REORDERLAB_STORE`` or ``./results/reorderlab.duckdb``).
DEFAULT: Any = _Default()

#: Each sweep's start and end are logged (INFO; ``scripts/profile_reproduce.py``).
_log = logging.getLogger(__name__)


class _Sweep:
    """One sweep's state, from its plan to its table.

    * :meth:`plan`: the jobs of every point and seed, the runs found in the
      store, and which jobs are left to simulate;
    * :meth:`done`: the runner hands it completed runs: they are stored
      (journaled) at once and flattened into their table rows;
    * :meth:`table`: the tidy table, one row per job in grid order;
    * :meth:`close`: every journaled run goes into DuckDB.
    """

    def __init__(
        self,
        points: list[tuple[dict[str, Any], Scenario]],
        seeds: list[int],
        stats: SweepStats,
        sink: StoreSink,
        on_run: Callable[[Job, str], None] | None,
        *,
        table: bool = True,
        on_stored: Callable[[list[str]], None] | None = None,
    ) -> None:
        self.points = points
        self.seeds = seeds
        self.stats = stats
        self.version = engine_version()
        self.jobs: list[Job] = []  # every job, in grid order (the table's rows)
        self.bar = Progress(False, 0, 0, "")
        self.sink = sink
        self._on_run = on_run
        self._table = Table() if table else None  # (else: store the runs only)
        self._on_stored = on_stored  # called with the keys of each batch stored
        self.count = 0  # runs to simulate
        #: Runs to be stored, with no ``on_run`` to give their text to, come
        #: back from the workers as the store keeps them: a big result as
        #: its summary and its encoded form, made by the core from its typed
        #: records (the driver parses the summary only).
        self.compress_from = COMPRESS_FROM if sink.active and on_run is None else None

    def plan(self, st: Store | None, progress: bool | None) -> tuple[Iterable[Job], int]:
        """The jobs to simulate and how many (an upper bound when they are
        computed as the runner takes them), with the runs found in ``st``;
        starts the progress bar."""
        todo: Iterable[Job]
        if st is not None:
            table = self._table if self._table is not None else Table()
            self.jobs.extend(iter_jobs(self.points, self.seeds, self.version))
            read_stored(st, [job.key for job in self.jobs], table)
            todo = [job for job in first_of_each_key(self.jobs) if job.key not in table.results]
            self.count = len(todo)
            self.stats.cached = sum(1 for job in self.jobs if job.key in table.cached)
        else:
            # Each job is computed as the runner takes it: the first runs
            # start while the rest of the grid is expanded.
            todo = first_of_each_key(iter_jobs(self.points, self.seeds, self.version), self.jobs)
            self.count = self.stats.total
        cached = self.stats.cached
        self.bar = Progress(
            progress_enabled(progress),
            total=self.stats.total,
            done=self.stats.total - self.count,
            label=f"sweep ({cached} cached)" if cached else "sweep",
        )
        return todo, self.count

    def done(self, batch: list[tuple[Job, Output]], *, aborting: bool = False) -> None:
        """Store completed runs and keep their table rows (see
        :class:`~reorderlab.sweep.backends.Done`)."""
        # Each result is parsed once, for its table row and, if it is big
        # (per-object records, series), for the store, which encodes it by
        # column; a result the worker packed (see ``compress_from``) has its
        # summary parsed, which has every metric of the table row. Nothing
        # is parsed when the sweep is being stopped.
        parsed = None if aborting else [orjson.loads(result_text(o)) for _, (o, _, _) in batch]
        stats = self.stats
        last_out = not aborting and 0 < self.count - stats.executed - len(batch) < stats.workers
        self.sink.put(store_rows(batch, parsed, self.version), last_out)
        if self._on_stored is not None and not aborting:
            self._on_stored([job.key for job, _ in batch])
        if parsed is None:  # stored: that is all an interrupted sweep owes
            count_simulations(len(batch))
            return
        for (job, (out, wall, cpu)), data in zip(batch, parsed, strict=True):
            if self._table is not None:
                self._table.add_run(job, flat(data), wall)
            # the job's JSON texts are not needed any more (a sweep holds
            # every job until its table is built)
            self.jobs[job.index] = Job(job.index, job.params, job.scenario, job.seed, job.key)
            stats.executed += 1
            stats.sim_wall_s += wall
            stats.sim_cpu_s += cpu
            count_simulations()
            self.bar.advance()
            if self._on_run is not None:
                if not isinstance(out, str):  # (a sweep with on_run asks for texts)
                    raise TypeError(f"run {job.key[:16]}: no text for on_run")
                self._on_run(job, out)

    def table(self) -> pd.DataFrame:
        """One row per job, in grid order."""
        assert self._table is not None
        return self._table.frame(self.jobs)

    def close(self) -> None:
        """Every journaled run goes into DuckDB (:meth:`StoreSink.close`)."""
        self.sink.close()


def sweep(
    grid: GridLike,
    seeds: int | Iterable[int] = 1,
    *,
    backend: Backend = "local",
    address: Any = None,
    workers: int | None = None,
    store: Store | str | Path | None = DEFAULT,
    progress: bool | None = None,
    on_run: Callable[[Job, str], None] | None = None,
    cached_only: bool = False,
) -> pd.DataFrame:
    """Run every grid point with every seed; return a tidy DataFrame.

    ``grid``: a :class:`Grid`, a Scenario, a list of Scenarios, or a list of
    ``(params, scenario)`` pairs. ``seeds``: a count ``n`` (seeds 1..n) or a
    list. ``store``: the default store, a path, a :class:`Store`, or None (no
    caching). ``progress``: force the bar on/off (default: on a terminal).
    ``on_run(job, result_json)`` is called in this process after each newly
    simulated run has been made durable in the store (journaled: it survives
    ``kill -9`` of this process from then on); not for the runs stored while
    the sweep is being stopped (Ctrl-C, a failed run, a dead worker), which
    may be what ``on_run`` was doing. ``cached_only``: simulate nothing; a
    run that is not in the store raises :class:`MissingRunsError` (naming
    how many and the first) before anything else happens.

    The DataFrame's ``attrs["stats"]`` is a :class:`SweepStats`; ``attrs`` also
    holds ``total``, ``executed`` (simulated now) and ``cached`` (from the store).
    """
    t0 = time.perf_counter()
    n_workers = pool.worker_count(workers)
    _check_arguments(backend, store, on_run, cached_only)
    path = None if store is None or isinstance(store, Store) else _store_path(store)
    # Can runs be cached? Not in no store, nor in one that does not exist yet.
    lookup = isinstance(store, Store) or (path is not None and not _is_new_store(path))
    if cached_only and not lookup:
        raise MissingRunsError(f"no results store at {path}: every run is missing")
    if backend == "local" and not cached_only and (lookup or isinstance(grid, Grid)):
        # Workers start while the grid's points are validated, the store
        # opened and the cache consulted (a pool is kept for the process's
        # later sweeps). Otherwise each starts with its first task.
        pool.prestart(n_workers)
    seed_values = seeds_list(seeds)
    points = points_of(grid)  # a Grid: every point validated before any run
    st: Store | None = store if isinstance(store, Store) else None
    new: NewStore | None = None
    if path is not None and lookup:
        st = Store(path)
    elif path is not None:
        # Nothing can be cached in it: the runs start at once, into its
        # journal; DuckDB's file is created when its first flush is due
        # (a short sweep: in the background once it returns).
        new = NewStore(path)
    stats = SweepStats(total=len(points) * len(seed_values), workers=n_workers, backend=backend)
    state = _Sweep(points, seed_values, stats, StoreSink(st, new, own=path is not None), on_run)
    df = _run(state, st, backend, address, progress, cached_only)
    stats.wall_s = time.perf_counter() - t0
    _log.info("sweep end: %d simulated, %.3f s of core CPU", stats.executed, stats.sim_cpu_s)
    df.attrs["stats"] = stats
    df.attrs["total"] = stats.total
    df.attrs["executed"] = stats.executed
    df.attrs["cached"] = stats.cached
    return df


def _run(
    state: _Sweep,
    st: Store | None,
    backend: str,
    address: Any,
    progress: bool | None,
    cached_only: bool,
) -> pd.DataFrame:
    """Plan the sweep, simulate what is missing, build its table; every
    journaled run goes into DuckDB whatever happens."""
    stats = state.stats
    try:
        todo, count = state.plan(st, progress)
        _log.info("sweep start: %d runs, %d to simulate", stats.total, count)
        if cached_only and count:
            raise MissingRunsError(_missing_text(todo, count, stats.total, st))
        runner = backends.runner_for(
            backend, count, stats.workers, address, stats, state.compress_from
        )
        try:
            runner(todo, count, state.done)
        finally:
            state.bar.stop()
    except BaseException:
        # Interrupted or failed: the completed runs are in the journal already;
        # moving them into DuckDB is a courtesy that must not mask the error.
        with contextlib.suppress(Exception):
            state.close()
        raise
    try:
        return state.table()
    finally:
        state.close()  # after the table: its background work would slow it down


def simulate_jobs(
    jobs: Iterable[Job],
    store: str | Path,
    *,
    workers: int | None = None,
    on_stored: Callable[[list[str]], None] | None = None,
) -> SweepStats:
    """Simulate (local backend) every job, in the given order and each key
    once, that the store at ``store`` does not hold yet, and store it;
    build no table.

    For a driver that knows every run it will need before it needs them
    (``reproduce`` of several figures, :mod:`reorderlab.reproduce_ahead`): the
    jobs may come from several grids and seeds, and run as one sweep. The
    store is opened on its own connection (the caller may read it
    meanwhile, from another thread; a ``Store`` of this process on the same
    file sees the runs as soon as they are journaled) and closed before
    this returns. ``on_stored(keys)``: called with the keys already stored,
    then with each batch of runs once they are journaled; an exception it
    raises stops the sweep (the workers are stopped; every run completed
    so far is kept)."""
    n_workers = pool.worker_count(workers)
    st = Store(store)
    try:
        unique = list(first_of_each_key(jobs))
        have = st.existing(job.key for job in unique)
        if on_stored is not None and have:
            on_stored(sorted(have))
        missing = (job for job in unique if job.key not in have)
        todo = [replace(job, index=i) for i, job in enumerate(missing)]
        stats = SweepStats(total=len(todo), workers=n_workers, backend="local")
        sink = StoreSink(st, None, own=False)
        state = _Sweep([], [], stats, sink, None, table=False, on_stored=on_stored)
        state.jobs = list(todo)
        state.count = len(todo)
        _log.info("look-ahead: %d runs to simulate, %d stored", len(todo), len(have))
        if todo:
            runner = backends.runner_for(
                "local", len(todo), n_workers, None, stats, state.compress_from
            )
            runner(todo, len(todo), state.done)
    finally:
        st.close()
    return stats


def _check_arguments(backend: str, store: Any, on_run: Any, cached_only: bool) -> None:
    """Bad arguments are named before any run."""
    if backend not in backends.BACKENDS:
        raise ValueError(
            f"backend: must be 'local', 'threads', 'dask' or 'serial', got {backend!r}"
        )
    if not (store is None or store is DEFAULT or isinstance(store, Store | str | os.PathLike)):
        raise TypeError(f"store: must be a path, a Store, None or DEFAULT, got {store!r}")
    if on_run is not None and not callable(on_run):
        raise TypeError(f"on_run: must be a function (job, result_json), got {on_run!r}")
    if cached_only and store is None:
        raise ValueError("cached_only: needs a store to read the runs from")


def _missing_text(todo: Iterable[Job], count: int, total: int, st: Store | None) -> str:
    """``N of M runs are not in the store PATH (first: params, seed S)``."""
    first = next(iter(todo))
    params = ", ".join(f"{k}={format_value(v)}" for k, v in first.params.items())
    what = f"{params}, seed {first.seed}" if params else f"{first.scenario.name} seed {first.seed}"
    where = f" {st.path}" if st is not None else ""
    return f"{count} of {total} runs are not in the store{where} (first: {what})"


def _store_path(store: str | Path) -> Path:
    return default_store_path() if store is DEFAULT else Path(store)


def _is_new_store(path: Path) -> bool:
    """No store file and no journal left by a dead process at ``path``."""
    if path.exists():
        return False
    try:  # (an empty one is a writer's, or was: it holds no run)
        return journal_path(os.path.realpath(path)).stat().st_size == 0
    except FileNotFoundError:
        return True
