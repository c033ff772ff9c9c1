"""Worker processes of the local sweep backend.

* Each worker is a process with one pipe to the driver: the driver sends it
  a task (a list of runs), the worker sends back their results and waits
  for the next. The driver's sweep loop waits on all the pipes at once
  (:meth:`Pool.wait`). A worker gets its next task while it still runs one,
  so it finds it waiting in its pipe when it is done: it does not wait for
  the driver to wake up, read its results and answer (measured between two
  tasks of a medium sweep: median 417 us with one task per worker, 293 us
  with the next sent before the results were read, 44 us with two). No
  helper threads.
* Workers are forked from a forkserver that has imported only what they
  need (``reorderlab.worker``: the compiled core), so a worker costs a fork,
  not an interpreter start or imports.
* The caller's ``__main__`` is *not* re-imported in the workers (as
  multiprocessing does by default): tasks only reference
  ``reorderlab.worker``, and a user's unguarded script or notebook must not
  run again in every worker.
* A pool starts its processes on demand, one per task while it has fewer
  than its size, so each worker starts with its first task waiting for it.
  One pool per worker count is kept for the life of the process, so that a
  recipe running several sweeps starts its workers once. A pool that saw an
  error or an interrupt is terminated and forgotten.
* :func:`prestart` starts a pool's processes in a background thread, for a
  driver that must first open a store and look up cached runs.
* Importing this module (or ``reorderlab.sweep``) starts no process: the
  fork server starts with the first worker, or with :func:`start_workers`,
  which a script calls before its imports and set-up so that the fork
  server's start (two interpreter starts, 40-70 ms of CPU each) overlaps
  them (the command line's ``sweep``, ``compare`` and ``reproduce`` do).
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import multiprocessing
import multiprocessing.connection
import multiprocessing.forkserver as forkserver
import numbers
import os
import select
import socket
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from multiprocessing.reduction import ForkingPickler
from typing import Any

from reorderlab.worker import Item, Output, serve

__all__ = [
    "MAX_WORKERS",
    "Pool",
    "WorkerDiedError",
    "discard_pool",
    "fork_server_started",
    "get_pool",
    "prestart",
    "shutdown_pools",
    "start_workers",
    "worker_count",
]


#: A task's results: one per run, an exception in place of a failed one.
Results = list[Output | Exception]


class WorkerDiedError(RuntimeError):
    """A worker process ended while it had a task (killed, out of memory, a
    crash of the process rather than a panic, which the core reports)."""


def process_context() -> multiprocessing.context.BaseContext:
    """How worker processes start (sweeps' workers, and the figure drawer
    of ``reorderlab.plot``): forked from a forkserver, else spawned."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        # What every worker needs, imported once in the forkserver rather
        # than in each child (several ms of imports per worker otherwise,
        # more where no bytecode is cached): the core, and what a child
        # imports to unpickle its process object.
        ctx.set_forkserver_preload(["reorderlab.worker", "multiprocessing.popen_forkserver"])
        return ctx
    return multiprocessing.get_context("spawn")


_MAIN_LOCK = threading.Lock()
_MAIN_HIDDEN = 0  # threads inside main_not_reimported
_MAIN_SAVED: tuple[bool, Any, Any] = (False, None, None)


@contextlib.contextmanager
def main_not_reimported() -> Iterator[None]:
    """Hide ``__main__``'s file and spec while a worker process is started.

    Threads may start workers at the same time (a pool starting in the
    background, another thread's sweep): the first to enter hides, the last
    to leave restores.
    """
    global _MAIN_HIDDEN, _MAIN_SAVED
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    with _MAIN_LOCK:
        if _MAIN_HIDDEN == 0:
            d = main.__dict__
            _MAIN_SAVED = ("__file__" in d, d.get("__file__"), d.get("__spec__"))
            d.pop("__file__", None)
            d["__spec__"] = None
        _MAIN_HIDDEN += 1
    try:
        yield
    finally:
        with _MAIN_LOCK:
            _MAIN_HIDDEN -= 1
            if _MAIN_HIDDEN == 0:
                had_file, saved_file, saved_spec = _MAIN_SAVED
                if had_file:
                    main.__dict__["__file__"] = saved_file
                main.__dict__["__spec__"] = saved_spec


@dataclass(eq=False)
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: multiprocessing.connection.Connection  # the driver's end of the pipe
    #: the tags of the tasks sent to it whose results have not been read,
    #: oldest first: the one it runs, and maybe the next (see Pool.submit)
    tasks: collections.deque[Any] = field(default_factory=collections.deque)
    #: the largest task sent to it while it runs another (see _handoff_bytes)
    handoff_bytes: int = 0


#: At most this much of a task is sent to a worker while it runs another.
_HANDOFF_BYTES = 64 << 10


def _handoff_bytes(conn: multiprocessing.connection.Connection) -> int:
    """The largest task the driver may send a worker that is not reading
    its pipe: two such tasks (the next, and the one after it, sent once the
    worker's results are read but maybe before it has read the next) must
    fit in the pipe's buffer, or the driver would block on the send while
    the worker blocks sending its results to the driver."""
    with socket.socket(fileno=os.dup(conn.fileno())) as sock:
        buffer = sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
    return min(_HANDOFF_BYTES, buffer // 4)


class Pool:
    """``size`` worker processes, each running one task at a time and
    holding at most one more (see :meth:`submit`).

    One driver thread at a time submits and waits: a sweep holds
    :attr:`lock` while it uses the pool (sweeps of several threads take
    turns).
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.lock = threading.Lock()
        self._ctx = process_context()
        self._workers: list[_Worker] = []
        self._held: tuple[bytes | memoryview, Any] | None = None  # see submit
        self._poll = select.poll()  # the workers' pipes (see _ended)
        self._by_fd: dict[int, _Worker] = {}

    def start_workers(self) -> None:
        """Start every process of the pool now (they then wait for tasks)."""
        while len(self._workers) < self.size:
            self._start()

    def _start(self) -> _Worker:
        ours, theirs = self._ctx.Pipe(duplex=True)
        process = self._ctx.Process(  # type: ignore[attr-defined]
            target=serve, args=(theirs,), name="reorderlab-worker", daemon=True
        )
        with main_not_reimported():
            process.start()
        theirs.close()
        worker = _Worker(process, ours, handoff_bytes=_handoff_bytes(ours))
        self._workers.append(worker)
        self._by_fd[ours.fileno()] = worker
        self._poll.register(ours.fileno(), select.POLLIN)
        return worker

    def _remove(self, worker: _Worker) -> None:
        """Forget a worker whose process is gone (or going)."""
        fd = worker.conn.fileno()
        self._poll.unregister(fd)
        del self._by_fd[fd]
        self._workers.remove(worker)
        worker.conn.close()

    def has_idle(self) -> bool:
        """Can :meth:`submit` take a task now?"""
        if self._held is not None:
            return False
        return len(self._workers) < self.size or any(len(w.tasks) < 2 for w in self._workers)

    def queued_behind(self) -> Any:
        """The tag of the running task that a task submitted now would wait
        behind, or None if it would start at once (a worker without a task,
        or room for a new one). Call only when :meth:`has_idle`."""
        if len(self._workers) < self.size or any(not w.tasks for w in self._workers):
            return None
        return self._queue_target().tasks[0]

    def _queue_target(self) -> _Worker:
        """The worker a task goes to when none is idle (the least loaded)."""
        return min(self._workers, key=lambda w: len(w.tasks))

    def busy(self) -> int:
        """How many tasks are submitted and not yet returned by :meth:`wait`."""
        return sum(len(w.tasks) for w in self._workers) + (self._held is not None)

    def submit(self, items: list[Item], tag: Any) -> None:
        """Send ``items`` (runs: scenario JSON, seed, ...) to a worker: an idle
        one (started if the pool is not full), else one running a single
        task, which then finds this one waiting in its pipe when it is done
        (held back until a worker is idle if too big for the pipe's buffer).
        ``tag`` comes back with the results. Call only when :meth:`has_idle`."""
        task = ForkingPickler.dumps(items)
        worker = self._idle_worker()
        if worker is not None:
            self._send(worker, task, tag)  # it is reading its pipe: never blocks
            return
        worker = self._queue_target()
        if len(worker.tasks) != 1 or self._held is not None:
            raise RuntimeError("no worker can take a task now")
        if len(task) <= worker.handoff_bytes:
            _hand_over(worker, task, tag)
        else:
            self._held = (task, tag)

    def _idle_worker(self) -> _Worker | None:
        """A worker without a task (a new one if the pool is not full)."""
        worker = next((w for w in self._workers if not w.tasks), None)
        if worker is not None and not worker.process.is_alive():
            # died while idle (a pool outlives its sweeps): nothing is lost
            self._remove(worker)
            worker = None
        if worker is None and len(self._workers) < self.size:
            worker = self._start()
        return worker

    def _send(self, worker: _Worker, task: bytes | memoryview, tag: Any) -> None:
        try:
            worker.conn.send_bytes(task)
        except OSError:  # its end of the pipe is closed: the process is gone
            worker.process.join(timeout=1)
            raise WorkerDiedError(
                f"a worker process ended (exit code {worker.process.exitcode}) "
                f"before it could run {_describe(tag)}"
            ) from None
        worker.tasks.append(tag)

    def ready(self) -> bool:
        """Has a running task ended (or its worker died)? Does not wait."""
        return bool(self._ended(0))

    def _ended(self, timeout: float | None) -> list[_Worker]:
        """The workers with tasks whose pipe has something to read (results,
        or the end of a dead process), within ``timeout`` seconds (None:
        until there is one). An idle worker's pipe is readable only if its
        process died: it is removed (nothing of it is lost).

        One ``poll`` object for the pool's life: a fraction of the cost of
        ``multiprocessing.connection.wait``, which builds a selector per call
        (the sweep's driver asks ~100 times per sweep).
        """
        ms = None if timeout is None else int(timeout * 1000)
        while True:
            ended = []
            for fd, _event in self._poll.poll(ms):
                worker = self._by_fd[fd]
                if worker.tasks:
                    ended.append(worker)
                else:
                    self._remove(worker)
            if ended or ms is not None:
                return ended

    def wait(self) -> list[tuple[Any, Results]]:
        """Wait for at least one running task to end; return each ended
        task's tag and results (an exception in place of a failed run).

        Raises :class:`WorkerDiedError` if a worker process ended instead
        (once the results of the others that ended are returned).
        """
        if not any(w.tasks for w in self._workers):
            raise RuntimeError("no task is running")
        out = []
        died: _Worker | None = None
        for worker in self._ended(None):
            try:
                results = worker.conn.recv()
            except (EOFError, OSError):
                died = died or worker
                continue
            out.append((worker.tasks.popleft(), results))
            if self._held is not None and not worker.tasks:
                task, tag = self._held
                self._held = None
                _hand_over(worker, task, tag)  # (it is reading its pipe)
        if died is not None and not out:
            died.process.join(timeout=1)
            raise WorkerDiedError(
                f"a worker process ended (exit code {died.process.exitcode}) "
                f"while running {_describe(died.tasks[0])}"
            )
        return out

    def terminate(self) -> None:
        """Stop every worker now (running tasks are abandoned)."""
        for w in self._workers:
            if w.process.is_alive():
                w.process.terminate()
        self._reap()

    def close(self) -> None:
        """Let every worker finish and exit (they end when their pipe closes)."""
        for w in self._workers:
            with contextlib.suppress(OSError):
                w.conn.close()
        for w in self._workers:
            w.process.join(timeout=5)
        self.terminate()

    def _reap(self) -> None:
        for w in self._workers:
            w.process.join(timeout=5)
            with contextlib.suppress(OSError):
                w.conn.close()
        self._workers = []
        self._by_fd = {}
        self._poll = select.poll()


def _hand_over(worker: _Worker, task: bytes | memoryview, tag: Any) -> None:
    """Send a task to a worker in the middle of :meth:`Pool.wait`. If the
    worker is gone the send fails, but the task is listed as its own all
    the same: the wait that finds it dead reports it (it is not lost, and
    this wait still returns the results it read)."""
    with contextlib.suppress(OSError):
        worker.conn.send_bytes(task)
    worker.tasks.append(tag)


def _describe(tag: Any) -> str:
    """What a task's tag says about it (the sweep tags tasks with its jobs)."""
    names = sorted({getattr(getattr(job, "scenario", None), "name", "?") for job in tag or []})
    runs = len(tag or [])
    return f"{runs} run(s) of scenario(s) {', '.join(repr(n) for n in names)}"


_POOLS: dict[int, Pool] = {}
_STARTING: dict[int, threading.Thread] = {}
_LOCK = threading.Lock()


def prestart(workers: int) -> None:
    """Start the pool of ``workers`` processes in the background (no-op if it
    runs or is starting), for a driver that has other work to do first
    (open a store, look up cached runs); :func:`get_pool` then waits for it."""
    with _LOCK:
        if workers in _POOLS or workers in _STARTING:
            return
        pool = _POOLS[workers] = Pool(workers)
        thread = threading.Thread(
            target=_start_quietly, args=(workers, pool), name="reorderlab-pool", daemon=True
        )
        _STARTING[workers] = thread
    thread.start()


def start_workers(workers: int | None = None) -> None:
    """Start the worker processes of ``reorderlab.sweep``'s local backend
    now, in the background (``workers``: default all cores, as ``sweep``).

    The first sweep of a process otherwise waits for Python to start the
    fork server the workers are forked from (tens of ms of CPU): a script
    can call this first, before its imports and set-up. ``reorderlab
    sweep`` and ``reorderlab reproduce`` do.
    """
    prestart(worker_count(workers))


def fork_server_started() -> bool:
    """Has this process started its fork server? (Whether it still runs is
    not asked: a ``waitpid`` here would reap an exited server, and
    multiprocessing's own check would then fail.)"""
    return getattr(forkserver._forkserver, "_forkserver_pid", None) is not None  # (not public)


#: The most worker processes asked for (each is an interpreter of its own).
MAX_WORKERS = 1024


def worker_count(workers: int | None) -> int:
    """``workers``, or all cores if None; a ``TypeError`` if it is not a
    whole number (``True`` is not one), a ``ValueError`` below 1 (0 too: it
    used to mean all cores, which the docs never said)."""
    if workers is None:
        return os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, numbers.Integral):
        raise TypeError(f"workers: must be a whole number or None (all cores), got {workers!r}")
    if workers < 1:
        raise ValueError(f"workers: must be >= 1, got {workers}")
    if workers > MAX_WORKERS:
        # (--workers 99999999999999999999 started processes until the machine gave out)
        message = f"must be at most {MAX_WORKERS} (processes on one machine), got {workers}"
        raise ValueError(f"workers: {message}")
    return int(workers)


def _start_quietly(workers: int, pool: Pool) -> None:
    try:
        pool.start_workers()
    except Exception:  # the sweep's first submit tries again and raises
        pass
    finally:
        with _LOCK:
            _STARTING.pop(workers, None)


def get_pool(workers: int) -> Pool:
    """The pool of ``workers`` processes (waits for one being started by
    :func:`prestart`). A new pool starts its processes on demand: each of
    the first ``workers`` tasks starts one (a few ms each), so a driver with
    its first tasks ready hands each worker its first task as it starts."""
    starting = _STARTING.get(workers)
    if starting is not None:
        starting.join()
    with _LOCK:
        pool = _POOLS.get(workers)
        if pool is None:
            pool = _POOLS[workers] = Pool(workers)
    return pool


def discard_pool(workers: int) -> None:
    """Terminate a pool now (after an error or Ctrl-C): running tasks are abandoned."""
    starting = _STARTING.get(workers)
    if starting is not None:
        starting.join()
    with _LOCK:
        pool = _POOLS.pop(workers, None)
    if pool is not None:
        pool.terminate()


def shutdown_pools() -> None:
    """Stop every pool (at interpreter exit)."""
    with _LOCK:
        pools = list(_POOLS.values())
        _POOLS.clear()
    for pool in pools:
        pool.close()


atexit.register(shutdown_pools)
