"""What a worker process runs: calls into the core, timed, and (local
backend) the loop that takes them from the driver's pipe.

Kept free of heavy imports (no pandas, pydantic, duckdb) so that sweep workers
(local processes or Dask workers) start fast and ship only JSON text, or a
big result already as the results store keeps it (:data:`Packed`).
"""

from __future__ import annotations

import signal
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from reorderlab import _core

if TYPE_CHECKING:  # (multiprocessing costs a single run's import ~15 ms)
    from multiprocessing.connection import Connection

#: A big result as the results store keeps it: (summary JSON, encoded
#: result), made by the core (``_core.run_packed``; ``store.rows.summary_of``
#: and ``store.codec.encode`` of its text, which nobody parses).
Packed = tuple[str, bytes]

#: What a run gives: (result, wall seconds and CPU seconds spent in the
#: core). The two differ when other processes take the core's CPU meanwhile
#: (the sweep's driver, another worker). The result is its JSON text, or
#: :data:`Packed` when asked for (:func:`simulate_packed`) and big.
Output = tuple[str | Packed, float, float]

#: A run to simulate: (scenario JSON, seed, ``compress_from``): with
#: ``compress_from`` (``store.COMPRESS_FROM``) a result that the store would
#: keep encoded comes back :data:`Packed`; with None, as its text.
Item = tuple[str, int | None, int | None]


def simulate(scenario_json: str, seed: int | None) -> tuple[str, float, float]:
    """Run one simulation in the core (it runs on this thread, without the GIL)."""
    w0, c0 = time.perf_counter(), time.thread_time()
    out = _core.run(scenario_json, seed)
    return out, time.perf_counter() - w0, time.thread_time() - c0


def simulate_packed(scenario_json: str, seed: int | None, compress_from: int) -> Output:
    """:func:`simulate`, its result as the store keeps it: the text, or a
    big result (``compress_from`` characters of text or more, with bulky
    parts) as :data:`Packed`."""
    w0, c0 = time.perf_counter(), time.thread_time()
    out = _core.run_packed(scenario_json, seed, compress_from)
    return out, time.perf_counter() - w0, time.thread_time() - c0


def simulate_batch(items: Sequence[Item]) -> list[Output | Exception]:
    """Run several simulations in one task (short runs: one round trip to
    the driver for many). A run that fails gives its exception in its place,
    so the runs before and after it are kept; the driver re-raises it."""
    out: list[Output | Exception] = []
    for scenario_json, seed, compress_from in items:
        try:
            if compress_from is None:
                out.append(simulate(scenario_json, seed))
            else:
                out.append(simulate_packed(scenario_json, seed, compress_from))
        except Exception as exc:
            out.append(exc)
    return out


def serve(conn: Connection) -> None:
    """A worker process's loop (see ``reorderlab.pool``): run each task
    received on ``conn``, send back its results, until the driver closes
    the pipe."""
    ignore_sigint()
    while True:
        try:
            items = conn.recv()
        except (EOFError, OSError):  # the driver closed the pipe, or is gone
            return
        results = simulate_batch(items)
        try:
            conn.send(results)
        except (BrokenPipeError, ConnectionResetError):
            return  # the driver is gone
        except Exception as exc:  # a result that cannot be pickled
            conn.send([RuntimeError(f"cannot return a result: {exc!r}")] * len(items))


def ignore_sigint() -> None:
    """Let the driver alone handle Ctrl-C (a Ctrl-C at a terminal reaches
    every process of the group, the workers included)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
