"""What a worker process runs: one call into the core, timed.

Kept free of heavy imports (no pandas, pydantic, duckdb) so that sweep workers
(local processes or Dask workers) start fast and ship only JSON text.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from reorderlab import _core


def simulate(scenario_json: str, seed: int | None) -> tuple[str, float]:
    """Run one simulation; return (result JSON, wall seconds spent in the core)."""
    t0 = time.perf_counter()
    out = _core.run(scenario_json, seed)
    return out, time.perf_counter() - t0


def simulate_batch(
    items: Sequence[tuple[str, int | None]],
) -> list[tuple[str, float] | Exception]:
    """Run several simulations in one task (short runs: one round trip to
    the driver for many). A run that fails gives its exception in its place,
    so the runs before and after it are kept; the driver re-raises it."""
    out: list[tuple[str, float] | Exception] = []
    for scenario_json, seed in items:
        try:
            out.append(simulate(scenario_json, seed))
        except Exception as exc:
            out.append(exc)
    return out


def ignore_sigint() -> None:
    """Worker initializer: let the driver alone handle Ctrl-C."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def ping() -> int:
    """No-op task used to start a worker process."""
    return 0
