"""Sweeps: a grid of scenario variations x seeds, run in parallel and cached.

``sweep(grid, seeds, backend="local" | "threads" | "dask" | "serial",
address=None, workers=None)`` returns a tidy DataFrame, one row per run:
the grid parameters, ``seed``, the run's metrics, and ``key`` (the store
key, to fetch the full result with ``Store.get``). This package can be
called as the function: ``reorderlab.sweep(grid, seeds=3)`` is
``reorderlab.sweep.sweep(grid, seeds=3)``.

* Runs already in the store are not simulated again; every completed run is
  made durable by this (driver) process as soon as it arrives (appended to
  the store's journal, moved into DuckDB in batches and at the end of the
  sweep: see :mod:`reorderlab.store`), so an interrupted sweep (Ctrl-C or
  ``kill -9``) resumes where it stopped.
* ``backend="local"``: worker processes (default: all cores), forked from a
  forkserver that has imported only the compiled core and the worker loop
  (:mod:`reorderlab.pool`). Importing this package starts no process: the
  fork server starts with the first sweep's workers (or
  ``reorderlab.start_workers()``).
* ``backend="dask"``: the scheduler at ``address``, or a ``LocalCluster``
  started for the sweep (``workers`` processes, one thread each); tasks of
  several runs, as on the local backend.
* A rich progress bar (runs done / total, ETA) when stdout is a terminal.

Determinism: a run's result depends only on (scenario, seed, engine), so
every backend gives identical tables.

The modules, one job each: :mod:`.grid` (``Grid``, its points, the jobs and
their keys), :mod:`.driver` (``sweep``, ``simulate_jobs``),
:mod:`.backends` (serial, local processes, threads, Dask),
:mod:`.batching` (runs cut into tasks), :mod:`.sink` (the store: runs
found there, runs put there), :mod:`.table` (results flattened, the tidy
frame), :mod:`.progress`, :mod:`.stats` (``SweepStats``), :mod:`.file`
(sweep files).
"""

from __future__ import annotations

import inspect
import sys
import types

from reorderlab.errors import BackendError, MissingRunsError
from reorderlab.sweep.backends import Backend
from reorderlab.sweep.driver import DEFAULT, simulate_jobs, sweep
from reorderlab.sweep.file import SweepFile
from reorderlab.sweep.grid import Grid, GridLike, Job, jobs_for, seeds_list
from reorderlab.sweep.stats import SweepStats
from reorderlab.sweep.table import flatten_result

__all__ = [
    "DEFAULT",
    "Backend",
    "BackendError",
    "Grid",
    "GridLike",
    "Job",
    "MissingRunsError",
    "SweepFile",
    "SweepStats",
    "flatten_result",
    "jobs_for",
    "seeds_list",
    "simulate_jobs",
    "sweep",
]


class _CallableModule(types.ModuleType):
    """This package, which ``reorderlab.sweep`` names as well as the
    function: calling it calls :func:`sweep` (same signature)."""

    __call__ = staticmethod(sweep)


sys.modules[__name__].__class__ = _CallableModule
__signature__ = inspect.signature(sweep)  # (what inspect shows of the call)
