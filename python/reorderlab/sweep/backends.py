"""Where a sweep's runs are simulated: the backends.

* ``"serial"``: in this process, one run at a time;
* ``"local"``: worker processes of this machine (:mod:`reorderlab.pool`),
  fed by the driver loop :func:`run_on_pool`;
* ``"threads"``: threads of this process (the core releases the GIL);
* ``"dask"``: a Dask cluster, through its ``concurrent.futures`` executor.

Each is a :data:`Runner`: it takes the jobs (tasks of several runs:
:mod:`reorderlab.sweep.batching`) and hands each batch of completed runs to
the sweep's :class:`Done` (which stores them), keeping those that completed
when a run fails, a worker dies or the user presses Ctrl-C.
"""

from __future__ import annotations

import collections
import concurrent.futures as cf
import contextlib
import logging
import queue
from collections.abc import Callable, Iterable
from typing import Any, Literal, Protocol

from reorderlab import pool as pools
from reorderlab import worker
from reorderlab.errors import BackendError, import_distributed
from reorderlab.scenario import ScenarioError
from reorderlab.sweep.batching import Tasks
from reorderlab.sweep.grid import Job
from reorderlab.sweep.stats import SweepStats
from reorderlab.worker import Item, Output

__all__ = [
    "BACKENDS",
    "STORE_BATCH",
    "Backend",
    "Done",
    "Runner",
    "core_error",
    "dask_runner",
    "local_runner",
    "run_on",
    "run_on_pool",
    "runner_for",
    "serial_runner",
    "thread_runner",
]

Backend = Literal["local", "threads", "dask", "serial"]
BACKENDS = ("local", "threads", "dask", "serial")

_Task = cf.Future[list[Output | Exception]]


class Done(Protocol):
    """Receives runs as they complete: ``[(job, (result, wall_s, cpu_s)), ...]``,
    each result its JSON text or, if the runner was asked for it, a big one
    as the store keeps it (:data:`reorderlab.worker.Output`).

    ``aborting``: the sweep is being stopped (Ctrl-C, a failed run, a dead
    worker): store these runs, so none is lost, but call nothing of the
    caller's (``on_run``), which may be what is being interrupted.
    """

    def __call__(self, batch: list[tuple[Job, Output]], *, aborting: bool = False) -> None: ...


#: Runs the jobs it is given (``count`` of them, maybe computed as they are
#: taken) and hands the completed ones to ``done``.
Runner = Callable[[Iterable[Job], int, Done], None]


def serial_runner(compress_from: int | None) -> Runner:
    """Each run in this process, one at a time (``compress_from``: see
    :data:`reorderlab.worker.Item`)."""

    def runner(jobs: Iterable[Job], count: int, done: Done) -> None:
        for job in jobs:
            try:
                if compress_from is None:
                    output: Output = worker.simulate(job.core_json(), job.seed)
                else:
                    output = worker.simulate_packed(job.core_json(), job.seed, compress_from)
            except ValueError as exc:
                raise core_error(exc) from None
            done([(job, output)])

    return runner


def core_error(exc: Exception) -> Exception:
    """A run's error as the sweep raises it: the core's ``ValueError`` (a
    scenario it refuses: ``"<field>: <message>"``) as a :class:`ScenarioError`;
    anything else (a panic, reported as ``RuntimeError``) as it is. Only
    errors of runs are mapped: a ``ValueError`` of the caller's ``on_run``
    stays what it is."""
    if isinstance(exc, ValueError) and not isinstance(exc, ScenarioError):
        return ScenarioError.from_core(str(exc))
    return exc


def _completed(
    chunk: list[Job],
    results: list[Output | Exception],
    into: list[tuple[Job, Output]],
) -> Exception | None:
    """Add a task's completed runs to ``into``; return its first error."""
    error: Exception | None = None
    for job, res in zip(chunk, results, strict=True):
        if isinstance(res, Exception):
            error = error or core_error(res)
        else:
            into.append((job, res))
    return error


def _items(chunk: list[Job], compress_from: int | None = None) -> list[Item]:
    return [(job.core_json(), job.seed, compress_from) for job in chunk]


#: Completed runs handed to ``done`` at a time by the local backend, which
#: checks between two such batches whether a worker waits for a task.
STORE_BATCH = 4


def run_on_pool(
    pool: pools.Pool,
    jobs: Iterable[Job],
    count: int,
    done: Done,
    compress_from: int | None = None,
) -> None:
    """Run every job on the worker processes of ``pool``; hand completed
    runs to ``done`` a few at a time (one journal write each).
    ``compress_from``: see :data:`reorderlab.worker.Item`.

    Each worker holds its next task while it runs one (see ``Pool.submit``),
    so it does not wait for the driver between tasks, but for the last ones
    (see ``_Tasks.may_queue``); the driver's other
    work (storing results, computing the next jobs' keys) comes in small
    pieces between which it looks whether a worker's results are in, so
    that it hands out the task after next in time.
    """
    tasks = Tasks(jobs, count, slots=2 * pool.size)
    unstored: collections.deque[tuple[Job, Output]] = collections.deque()

    def refill() -> None:
        while pool.has_idle() and may_queue(pool.queued_behind()) and (chunk := tasks.next()):
            pool.submit(_items(chunk, compress_from), chunk)

    def may_queue(behind: list[Job] | None) -> bool:
        return behind is None or tasks.may_queue(len(behind), pool.size)

    try:
        refill()
        while pool.busy() or unstored:
            # a worker has finished, or the driver has nothing else to do
            if pool.ready() or not (unstored or tasks.prepare(STORE_BATCH, pool.size)):
                batch: list[tuple[Job, Output]] = []
                error: Exception | None = None
                for chunk, results in pool.wait():
                    error = _completed(chunk, results, batch) or error
                tasks.record(batch)
                unstored.extend(batch)
                if error is not None:
                    raise error
                refill()
            elif unstored:
                done([unstored.popleft() for _ in range(min(STORE_BATCH, len(unstored)))])
    finally:
        # Whatever ended the loop (a failed run, a dead worker, Ctrl-C), the
        # runs that completed are kept.
        if unstored:
            done(list(unstored), aborting=True)


def run_on(
    executor: cf.Executor,
    jobs: Iterable[Job],
    count: int,
    done: Done,
    workers: int = 1,
    compress_from: int | None = None,
) -> None:
    """Run every job on ``executor``, two tasks in flight per worker; hand
    each batch of completed runs to ``done`` (``compress_from``: see
    :data:`reorderlab.worker.Item`).

    Completed tasks are queued by a done-callback, so waiting costs O(1)
    per task; all runs that completed since the last batch make the next
    one.
    """
    finished: queue.SimpleQueue[_Task] = queue.SimpleQueue()
    pending: dict[_Task, list[Job]] = {}
    in_flight_target = 2 * max(1, workers)
    tasks = Tasks(jobs, count, slots=in_flight_target)

    def refill() -> None:
        while len(pending) < in_flight_target and (chunk := tasks.next()):
            fut = executor.submit(worker.simulate_batch, _items(chunk, compress_from))
            pending[fut] = chunk
            fut.add_done_callback(finished.put)

    refill()
    while pending:
        futs = [finished.get()]
        with contextlib.suppress(queue.Empty):
            while True:
                futs.append(finished.get_nowait())
        batch: list[tuple[Job, Output]] = []
        error: BaseException | None = None
        for fut in futs:
            chunk = pending.pop(fut)
            try:
                results = fut.result()
            except BaseException as exc:  # Ctrl-C
                error = error or exc
                continue
            error = _completed(chunk, results, batch) or error
        tasks.record(batch)
        if batch:
            done(batch)  # runs that completed with the failing one are kept
        if error is not None:
            raise error
        refill()


def local_runner(workers: int, compress_from: int | None = None) -> Runner:
    def runner(jobs: Iterable[Job], count: int, done: Done) -> None:
        pool = pools.get_pool(workers)
        try:
            with pool.lock:
                run_on_pool(pool, jobs, count, done, compress_from)
        except BaseException:
            # Ctrl-C, a scenario error, a core panic, a dead worker: stop the
            # workers now; every run completed so far is already journaled.
            pools.discard_pool(workers)
            raise

    return runner


def thread_runner(workers: int, compress_from: int | None = None) -> Runner:
    """Threads of this process: the core releases the GIL while it simulates.

    No start-up or IPC cost, so it suits sweeps of very short runs; but a
    fault that aborts the process (rather than a panic, which is caught)
    would take the driver with it, which worker processes avoid.
    """

    def runner(jobs: Iterable[Job], count: int, done: Done) -> None:
        pool = cf.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="reorderlab")
        try:
            run_on(pool, jobs, count, done, workers, compress_from)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    return runner


def dask_runner(address: Any, workers: int, stats: SweepStats) -> Runner:
    """Dask: tasks of several runs (as the local backend's), two in flight
    per worker thread of the cluster, through the client's
    ``concurrent.futures`` executor.

    One task per run cost the scheduler more than a short run takes: on a
    2-worker LocalCluster, 35 % of the workers' time outside simulation for
    100 medium runs, 86 % for 1000 light ones. ``stats.workers`` becomes
    the cluster's thread count (the share of its time outside simulation
    is measured against it).
    """

    def runner(todo: Iterable[Job], count: int, done: Done) -> None:
        dist: Any = import_distributed()  # typed as Any: untyped package
        cluster: Any = None
        if isinstance(address, dist.Client):
            client = address
            own_client = False
        else:
            own_client = True
            if address:
                client = _connect(dist, address)
            else:
                cluster = dist.LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=logging.WARNING,
                )
                client = dist.Client(cluster)
        try:
            threads = sum(client.nthreads().values()) or workers
            stats.workers = threads
            executor = client.get_executor(pure=False)
            try:
                run_on(executor, todo, count, done, threads)
            except BaseException:
                executor.shutdown(wait=False)  # cancels the tasks still out
                raise
        finally:
            if own_client:
                client.close()
            if cluster is not None:
                cluster.close()

    return runner


def _connect(dist: Any, address: str) -> Any:
    """A Dask client of the scheduler at ``address``, or a
    :class:`BackendError` saying why not (Dask raises ``OSError`` after its
    connect timeout, ``ValueError`` for a malformed address)."""
    try:
        return dist.Client(address)
    except (OSError, ValueError) as exc:
        raise BackendError(f"dask: cannot use the scheduler at {address!r}: {exc}") from None


def runner_for(
    backend: str,
    count: int,
    n_workers: int,
    address: Any,
    stats: SweepStats,
    compress_from: int | None = None,
) -> Runner:
    """The runner of ``backend`` for ``count`` runs. ``compress_from``: the
    runs' big results come back as the store keeps them (see
    :data:`reorderlab.worker.Item`), but from Dask, whose workers may run another
    build of the core."""
    if count == 0:
        return serial_runner(None)  # nothing to run
    if backend == "serial":
        stats.workers = 1
        return serial_runner(compress_from)
    if backend == "local":
        return local_runner(n_workers, compress_from=compress_from)
    if backend == "threads":
        return thread_runner(n_workers, compress_from)
    return dask_runner(address, n_workers, stats)
