"""Dask, the path for users who outgrow one machine (issue 40, finding 8):
a worker of a 2-worker ``LocalCluster`` killed mid-sweep loses and
duplicates nothing; after resuming, the table is the local sweep's.

The test set-up installs the ``dask`` extra (``scripts/build-core.sh``:
``.[dev,dask]``), so these run in CI; without Dask they skip, saying so."""

from __future__ import annotations

import logging
import os
import signal
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest

import reorderlab
from reorderlab.store import wait_for_background_closes

from .test_sweep import comparable, loss_grid

distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")

SEEDS = 3


def stored_keys(path: Path) -> list[str]:
    wait_for_background_closes()
    con = duckdb.connect(str(path), read_only=True)
    try:
        return [str(r[0]) for r in con.execute("SELECT key FROM runs").fetchall()]
    finally:
        con.close()


def test_a_dask_worker_killed_mid_sweep_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    grid = loss_grid(duration=5.0)
    total = len(grid) * SEEDS
    local = reorderlab.sweep(grid, seeds=SEEDS, workers=2, store=None, progress=False)
    store = tmp_path / "dask.duckdb"
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.CRITICAL,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        pids: dict[str, int] = client.run(os.getpid)
        assert len(pids) == 2
        killed: list[int] = []

        def kill_a_worker(job: Any, text: str) -> None:
            if not killed:  # after the first run is stored: the others are out
                victim = sorted(pids.values())[0]
                os.kill(victim, signal.SIGKILL)
                killed.append(victim)

        reported: list[str] = []
        try:
            first = reorderlab.sweep(
                grid,
                seeds=SEEDS,
                backend="dask",
                address=client,
                store=store,
                progress=False,
                on_run=lambda job, text: (reported.append(job.key), kill_a_worker(job, text)),
            )
        except Exception as exc:  # the cluster may give up on the killed worker's task
            assert "Traceback" not in str(exc)
            first = None
        assert killed and reported
        if first is not None:  # Dask ran the lost tasks again elsewhere
            pd.testing.assert_frame_equal(comparable(first), comparable(local))
        before = stored_keys(store)
        assert len(before) == len(set(before))
        assert set(reported) <= set(before)  # every run reported stored is there
        again = reorderlab.sweep(
            grid, seeds=SEEDS, backend="dask", address=client, store=store, progress=False
        )
    assert again.attrs["stats"].cached == len(before)
    assert again.attrs["executed"] == total - len(before)
    pd.testing.assert_frame_equal(comparable(again), comparable(local))
    after = stored_keys(store)
    assert len(after) == len(set(after)) == total
    assert set(after) == set(local["key"])
