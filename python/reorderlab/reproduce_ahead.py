"""Simulating the runs of the chosen figures ahead of the figures.

``reproduce`` makes its figures one after another: a figure's runs, then
its tables, plots and claims. With each figure's runs swept on their own,
the workers waited while the driver made the figure, and at the end of
each figure's sweep one worker waited while the other finished the last
run. Instead, the runs of every chosen figure (each key once, in figure
order) are one sweep on a thread of the driver
(:func:`reorderlab.sweep.simulate_jobs`), which stores them; each figure
waits for its own runs only, then finds them in the store while the
workers go on with the next figures'. The figures' results are those of
the stored runs, as for a second ``reproduce`` with the same store: the
same tables, claims and plots.

What the look-ahead holds is bounded: each result is parsed and packed
for the store as it arrives, then dropped (the store keeps big results
encoded by column, a few hundred KB at most); no table is built.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from reorderlab import pool as _pool

if TYPE_CHECKING:
    from reorderlab.papers.kit.runs import Plan
    from reorderlab.sweep import Job

__all__ = ["Ahead"]


class _StoppedError(Exception):
    """Raised in the look-ahead's thread to stop its sweep."""


class Ahead:
    """The runs of several plans, simulated and stored on a thread.

    :meth:`wait` blocks until every run of one plan is stored, or the
    look-ahead has ended (done, or failed: the figure's own sweep then
    simulates what is missing, and meets the failure itself); :meth:`stop`
    ends it (early, the workers stopped at once: Ctrl-C, a figure that
    failed) and waits for its thread and its store to close.
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
        #: why the look-ahead failed (None: it did not)
        self.error: BaseException | None = None
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="reorderlab-ahead")

    def start(self) -> Ahead:
        self._thread.start()
        return self

    def _run(self) -> None:
        from reorderlab.sweep import simulate_jobs

        try:
            jobs, self._jobs = self._jobs, []
            simulate_jobs(jobs, self._store, workers=self._workers, on_stored=self._on_stored)
        except BaseException as exc:
            # Stopped: no error. Else the figure that owns the failed run
            # meets the failure in its own sweep.
            if not (self._stopping or isinstance(exc, _StoppedError)):
                self.error = exc
        finally:
            with self._cond:
                self._ended = True
                self._cond.notify_all()

    def _on_stored(self, keys: Sequence[str]) -> None:
        with self._cond:
            self._stored.update(keys)
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
        """End the look-ahead and wait for its thread (the runs stored so
        far are kept); its workers are stopped if it has runs left."""
        with self._cond:
            finished = self._ended or all(keys <= self._stored for keys in self._keys)
            self._stopping = True
            self._cond.notify_all()
        if not finished:
            _pool.discard_pool(self._workers)
        self._thread.join()
