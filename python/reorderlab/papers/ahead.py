"""Simulating the runs of every chosen figure ahead of the figures.

``reproduce`` works figure by figure: a figure's runs, then its table,
plots and claims. Sweeping each figure's runs on its own left the workers
idle while the driver worked on the figure (a table of 90 runs with
megabytes of per-object records each takes tens of seconds) and at the end
of each figure's sweep, while its last run finished on one core. Instead,
every run of every chosen figure (each key once, in figure order) is one
sweep on a thread of the driver (:func:`reorderlab.sweeper.simulate_jobs`),
which stores them; each figure waits only for its own runs, then finds them
all in the store while the workers go on with the next figures' runs.

The figures' results are those of the stored runs, as for a second
``reproduce`` with the same store: the same tables, claims and plots.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from reorderlab import _pool

if TYPE_CHECKING:
    from reorderlab.papers.common import Plan
    from reorderlab.sweeper import Job


class _StoppedError(Exception):
    """Raised in the look-ahead's thread to stop its sweep."""


class Ahead:
    """The runs of several plans, simulated and stored on a thread.

    :meth:`wait` blocks until every run of one plan is stored (or the
    look-ahead has ended, by completion or failure: the figure's own sweep
    then simulates what is missing, and raises its error, as it would
    have); :meth:`stop` ends it early (Ctrl-C, a failing figure).
    """

    def __init__(self, plans: Sequence[Plan], store: Path, workers: int | None = None) -> None:
        by_plan = [[job for sweep in plan.values() for job in sweep.jobs()] for plan in plans]
        self._keys = [{job.key for job in jobs} for jobs in by_plan]
        self._jobs: list[Job] = [job for jobs in by_plan for job in jobs]
        self._store = store
        self._workers = _pool.worker_count(workers)
        self._stored: set[str] = set()
        self._ended = False
        self._stopping = False
        self.error: BaseException | None = None
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="reorderlab-ahead")

    def start(self) -> Ahead:
        self._thread.start()
        return self

    def _run(self) -> None:
        from reorderlab.sweeper import simulate_jobs

        try:
            simulate_jobs(self._jobs, self._store, workers=self._workers, on_run=self._on_run)
        except BaseException as exc:
            # Stopped (by _on_run, or its pool terminated under it): no
            # error. Else the figure that owns the failed run reports it.
            if not (self._stopping or isinstance(exc, _StoppedError)):
                self.error = exc
        finally:
            self._jobs = []
            with self._cond:
                self._ended = True
                self._cond.notify_all()

    def _on_run(self, job: Job, _result: str) -> None:
        with self._cond:
            self._stored.add(job.key)
            self._cond.notify_all()
        if self._stopping:
            raise _StoppedError

    def wait(self, plan: int) -> None:
        """Until every run of plan number ``plan`` is stored, or the
        look-ahead has ended."""
        keys = self._keys[plan]
        with self._cond:
            self._cond.wait_for(lambda: self._ended or keys <= self._stored)

    def stop(self) -> None:
        """End the look-ahead (its workers are stopped at once) and wait for
        its thread; the runs stored so far are kept."""
        with self._cond:
            finished = self._ended or all(keys <= self._stored for keys in self._keys)
        if not finished:  # (else it is only closing its store)
            self._stopping = True
            _pool.discard_pool(self._workers)
        self._thread.join()


def ahead(plans: Iterable[Plan], store: Path) -> Ahead:
    """Start simulating the runs of ``plans`` into the store at ``store``."""
    return Ahead(list(plans), store).start()
