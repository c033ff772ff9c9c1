"""The look-ahead of ``reproduce``: the runs of every chosen figure
simulated ahead, in figure order, on a thread of the driver
(``reproduce_ahead``, ``sweep.simulate_jobs``)."""

from __future__ import annotations

import filecmp
import threading
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

import reorderlab
from reorderlab.papers.kit.runs import Sweep
from reorderlab.reproduce import reproduce
from reorderlab.reproduce_ahead import Ahead
from reorderlab.store import Store
from reorderlab.sweep import jobs_for, simulate_jobs

from .conftest import small_scenario
from .test_sweep import comparable, loss_grid


def test_simulate_jobs_stores_each_missing_run_once(store_path: Path) -> None:
    """Jobs of two grids with different seeds, one run in both and one
    already stored: each missing key is simulated once and stored; a sweep
    of the same grid then simulates nothing and gives the table it gives
    when it simulates the runs itself."""
    first = jobs_for(loss_grid(duration=2.0), seeds=[1, 2])
    second = jobs_for([small_scenario(p=0.02, duration=2.0)], seeds=[3, 1])
    reorderlab.sweep([small_scenario(p=0.0, duration=2.0)], seeds=[1], store=store_path)
    keys = {job.key for job in first + second}
    reported: list[str] = []
    before = reorderlab.simulations_executed()
    stats = simulate_jobs(first + second, store_path, workers=2, on_stored=reported.extend)
    # 8 + 2 jobs, one key shared (p = 0.02, seed 1), one stored (p = 0, seed 1)
    assert len(keys) == 9
    assert stats.executed == 8
    assert reorderlab.simulations_executed() - before == 8
    assert len(reported) == len(set(reported)) == 9 and set(reported) == keys
    assert reported[0] == first[0].key  # the stored one, first
    with Store(store_path, read_only=True) as st:
        assert st.existing(keys) == keys
    fresh = reorderlab.sweep(loss_grid(duration=2.0), seeds=[1, 2], store=None)
    cached = reorderlab.sweep(loss_grid(duration=2.0), seeds=[1, 2], store=store_path)
    assert cached.attrs["executed"] == 0
    pd.testing.assert_frame_equal(comparable(cached), comparable(fresh))


class _HeldAhead(Ahead):
    """A look-ahead whose thread, once the first plan's runs are stored,
    waits until it is being stopped: the second plan is not done then,
    however fast the machine."""

    def _on_stored(self, keys: Sequence[str]) -> None:
        with self._cond:
            self._stored.update(keys)
            if self._keys[0] <= self._stored:
                self._cond.notify_all()
                self._cond.wait_for(lambda: self._stopping, timeout=120)
        super()._on_stored(keys)


def test_a_figure_waits_for_its_runs_and_stop_ends_the_look_ahead(store_path: Path) -> None:
    plans = [
        {"runs": Sweep([({}, small_scenario(p=0.01, duration=2.0))], seeds=2)},
        {"runs": Sweep([({"p": p}, small_scenario(p=p, duration=20.0)) for p in (0.02, 0.03)], 40)},
    ]
    with Store(store_path) as st:  # (as the CLI's store: open while the look-ahead runs)
        ahead = _HeldAhead(plans, st.path).start()
        try:
            ahead.wait(0)
            keys = {job.key for job in plans[0]["runs"].jobs()}
            assert st.existing(keys) == keys  # seen by another Store of the process
        finally:
            ahead.stop()  # with most of the second plan's 80 runs not done
        assert ahead.error is None
        later = {job.key for job in plans[1]["runs"].jobs()}
        assert len(st.existing(later)) < len(later)
    # the pool was stopped with the look-ahead: the next sweep gets one that works
    df = reorderlab.sweep(loss_grid(duration=1.0), seeds=1, store=None, workers=2)
    assert df.attrs["executed"] == 4


def test_stopping_a_look_ahead_from_another_thread_while_it_waits(store_path: Path) -> None:
    """A figure waiting for its runs is released when the look-ahead ends."""
    plans = [{"runs": Sweep([({}, small_scenario(p=0.01, duration=60.0))], seeds=30)}]
    with Store(store_path) as st:
        ahead = Ahead(plans, st.path).start()
        waited = threading.Event()

        def figure() -> None:
            ahead.wait(0)
            waited.set()

        waiter = threading.Thread(target=figure)
        waiter.start()
        ahead.stop()
        waiter.join(timeout=120)
        assert waited.is_set() and ahead.error is None


def test_reproduce_with_the_look_ahead_writes_what_it_writes_without(tmp_path: Path) -> None:
    """Two figures (baseline, quick): with a store (the look-ahead) and
    without one (each figure simulates its own runs), the same claims and
    tables."""
    ahead, plain = tmp_path / "ahead", tmp_path / "plain"
    with Store(tmp_path / "s.duckdb") as st:
        with_store = reproduce("baseline", quick=True, out=ahead, store=st)
    without = reproduce("baseline", quick=True, out=plain, store=None)
    assert {k: [c.to_dict() for c in v] for k, v in with_store.items()} == {
        k: [c.to_dict() for c in v] for k, v in without.items()
    }
    csvs = sorted(p.name for p in (plain / "baseline").glob("*.csv"))
    assert csvs
    _same, mismatch, errors = filecmp.cmpfiles(
        ahead / "baseline", plain / "baseline", csvs, shallow=False
    )
    assert mismatch == [] and errors == []
