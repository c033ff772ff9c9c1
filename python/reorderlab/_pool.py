"""Worker processes of the local sweep backend.

* Started from a forkserver that has imported only ``reorderlab._worker``
  (the compiled core) and the executor's worker loop, so a worker costs a
  fork, not an interpreter start or imports.
* The caller's ``__main__`` is *not* re-imported in the workers (as
  multiprocessing does by default): jobs only reference
  ``reorderlab._worker.simulate``, and a user's unguarded script or notebook
  must not run again in every worker.
* One pool per worker count is kept for the life of the process, so that a
  recipe running several sweeps starts its workers once. A pool that saw an
  error or an interrupt is terminated and forgotten.
* :func:`prestart` starts a pool in a background thread, so a sweep can
  open its store and look up cached runs while the workers start.
"""

from __future__ import annotations

import atexit
import concurrent.futures as cf
import contextlib
import multiprocessing
import sys
import threading
from collections.abc import Iterator
from typing import Any

from reorderlab import _worker

__all__ = ["discard_pool", "get_pool", "prestart", "shutdown_pools"]

_POOLS: dict[int, cf.ProcessPoolExecutor] = {}
_STARTING: dict[int, threading.Thread] = {}
_LOCK = threading.Lock()


def _context() -> multiprocessing.context.BaseContext:
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx: multiprocessing.context.BaseContext = _NoMainForkServerContext()
        # What every worker needs, imported once in the forkserver rather
        # than in each child: the core, and the executor's worker loop
        # (about 5 ms of imports per worker otherwise).
        ctx.set_forkserver_preload(["reorderlab._worker", "concurrent.futures.process"])
        return ctx
    return _NoMainSpawnContext()


_MAIN_LOCK = threading.Lock()
_MAIN_HIDDEN = 0  # threads inside _main_not_reimported
_MAIN_SAVED: tuple[bool, Any, Any] = (False, None, None)


@contextlib.contextmanager
def _main_not_reimported() -> Iterator[None]:
    """Hide ``__main__``'s file and spec while a worker process is started.

    Threads may start workers at the same time (a pool starting in the
    background, a sweep submitting work): the first to enter hides, the last
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


# Every worker start hides __main__, whichever thread starts it: the executor
# spawns workers on demand inside ``submit`` (while none is idle), so which
# call starts the last one is a race between the pool's start and the
# sweep's first submissions.
class _NoMainForkServerProcess(multiprocessing.context.ForkServerProcess):
    @staticmethod
    def _Popen(process_obj: Any) -> Any:  # noqa: N802 (the name multiprocessing calls)
        with _main_not_reimported():
            return multiprocessing.context.ForkServerProcess._Popen(process_obj)


class _NoMainSpawnProcess(multiprocessing.context.SpawnProcess):
    @staticmethod
    def _Popen(process_obj: Any) -> Any:  # noqa: N802 (the name multiprocessing calls)
        with _main_not_reimported():
            return multiprocessing.context.SpawnProcess._Popen(process_obj)


class _NoMainForkServerContext(multiprocessing.context.ForkServerContext):
    Process = _NoMainForkServerProcess


class _NoMainSpawnContext(multiprocessing.context.SpawnContext):
    Process = _NoMainSpawnProcess


def prestart(workers: int) -> None:
    """Start the pool of ``workers`` processes in the background (no-op if it
    runs or is starting); :func:`get_pool` then waits for it."""
    with _LOCK:
        if workers in _POOLS or workers in _STARTING:
            return
        thread = threading.Thread(
            target=_start_quietly, args=(workers,), name="reorderlab-pool", daemon=True
        )
        _STARTING[workers] = thread
    thread.start()


def _start_quietly(workers: int) -> None:
    # A failure here is raised again by the get_pool that needs the pool.
    with contextlib.suppress(Exception):
        get_pool(workers)


def get_pool(workers: int) -> cf.ProcessPoolExecutor:
    """A running pool of ``workers`` processes (started on first use)."""
    starting = _STARTING.get(workers)
    if starting is not None and starting is not threading.current_thread():
        starting.join()
    pool = _POOLS.get(workers)
    if pool is not None:
        return pool
    pool = cf.ProcessPoolExecutor(
        max_workers=workers, mp_context=_context(), initializer=_worker.ignore_sigint
    )
    # Start the workers now: one no-op task per worker (processes are
    # spawned, in ``submit``, while none is idle). Their replies are not
    # awaited: the first jobs queue behind them while the workers come up
    # (a worker that fails to start breaks the pool; the first job raises).
    for _ in range(workers):
        pool.submit(_worker.ping)
    with _LOCK:
        _POOLS[workers] = pool
        _STARTING.pop(workers, None)
    return pool


def discard_pool(workers: int) -> None:
    """Terminate a pool now (after an error or Ctrl-C): running jobs are abandoned."""
    pool = _POOLS.pop(workers, None)
    if pool is None:
        return
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for proc in processes:
        proc.terminate()
    for proc in processes:
        proc.join(timeout=5)
    # A worker killed while sending a result leaves half a message in the
    # result pipe; the executor's manager thread would wait for the rest
    # forever, and the interpreter for that thread at exit (seen in about 1
    # of 30 interrupted sweeps under load). With every worker gone, closing
    # this process's copy of the pipe's write end lets it read end-of-file,
    # mark the pool broken and exit.
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    if writer is not None and not any(p.is_alive() for p in processes):
        with contextlib.suppress(OSError):
            writer.close()
    pool.shutdown(wait=False, cancel_futures=True)


def shutdown_pools() -> None:
    """Stop every pool (at interpreter exit)."""
    for workers in list(_POOLS):
        pool = _POOLS.pop(workers)
        pool.shutdown(wait=True, cancel_futures=True)


atexit.register(shutdown_pools)
