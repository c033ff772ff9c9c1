"""How a sweep cuts its runs into tasks (several runs each, to one worker)."""

from __future__ import annotations

import collections
import itertools
from collections.abc import Iterable

from reorderlab.sweep.grid import Job
from reorderlab.worker import Output

__all__ = ["MAX_BATCH", "TASK_SECONDS", "Tasks"]

#: Core time a task should take once run lengths are known: long enough that
#: the round trip to the driver is a small share, short enough to balance
#: the workers at the end of the sweep.
TASK_SECONDS = 0.4
MAX_BATCH = 64


class Tasks:
    """Cuts the jobs into tasks of several runs (``worker.simulate_batch``).

    One run per task until a run has been timed, then enough runs for about
    TASK_SECONDS of core time, so the per-task cost (pickling, a round trip
    to the driver) stays a small share; but never more than a share of what
    is left for each of ``slots`` tasks in flight (guided self-scheduling),
    so the last tasks are short and the workers finish together.

    ``jobs`` may compute each job as it is taken (a cache key costs tens of
    microseconds): :meth:`prepare` does that ahead, while the workers are
    busy, rather than when a worker waits for its next task.
    """

    def __init__(self, jobs: Iterable[Job], count: int, slots: int) -> None:
        self._todo = iter(jobs)
        self._ready: collections.deque[Job] = collections.deque()
        self._left = count  # an upper bound: ``jobs`` may skip repeated keys
        self._slots = max(1, slots)
        self._runs = 0
        self._seconds = 0.0

    def record(self, batch: Iterable[tuple[Job, Output]]) -> None:
        """Learn from the core (wall) time of completed runs."""
        for _job, (_text, wall, _cpu) in batch:
            self._runs += 1
            self._seconds += wall

    def _size(self) -> int:
        size = 1
        if self._runs:
            per_run = max(self._seconds / self._runs, 1e-6)
            size = max(1, min(MAX_BATCH, int(TASK_SECONDS / per_run)))
        return min(size, max(1, self._left // self._slots))

    def may_queue(self, behind: int, workers: int) -> bool:
        """May the next task wait in a worker's pipe behind a running task
        of ``behind`` runs? Only while the runs left after it can keep the
        other workers busy that long, with a margin of 2 for runs of
        different lengths; otherwise it should go to whichever worker is
        free first (queued, it could keep its worker busy at the end of the
        sweep while another has nothing left to do)."""
        size = self._size()
        return self._left - size >= 2 * (behind + size) * (workers - 1)

    def next(self) -> list[Job]:
        """The next task's jobs (empty when none are left)."""
        size = self._size()
        chunk = [self._ready.popleft() for _ in range(min(size, len(self._ready)))]
        chunk.extend(itertools.islice(self._todo, size - len(chunk)))
        self._left -= len(chunk)
        return chunk

    def prepare(self, most: int, tasks: int) -> bool:
        """Take up to ``most`` jobs of the next ``tasks`` tasks now; False if
        there was nothing to take."""
        want = min(most, tasks * self._size() - len(self._ready))
        before = len(self._ready)
        if want > 0:
            self._ready.extend(itertools.islice(self._todo, want))
        return len(self._ready) > before
