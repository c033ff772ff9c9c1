"""Sweeps' workers: a killed worker, resume after kill -9, Dask = local, the worker pool."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

import reorderlab
from reorderlab import _core
from reorderlab import pool as pool_mod
from reorderlab import sweep as sweep_mod
from reorderlab import worker as worker_mod
from reorderlab.store import Store
from reorderlab.sweep import Grid, backends, jobs_for

from .conftest import ROOT, small_scenario
from .test_sweep import P_VALUES, comparable, loss_grid


def test_a_killed_worker_fails_the_sweep_and_keeps_completed_runs(store_path: Path) -> None:
    grid = loss_grid(duration=10.0)

    def kill_workers(job: sweep_mod.Job, text: str) -> None:
        for worker in pool_mod.get_pool(2)._workers:
            if worker.process.pid is not None:
                os.kill(worker.process.pid, signal.SIGKILL)

    died = r"exit code -9\) .*run\(s\) of scenario"
    with pytest.raises(pool_mod.WorkerDiedError, match=died) as err:
        reorderlab.sweep(grid, seeds=2, workers=2, store=store_path, on_run=kill_workers)
    assert repr(grid.base.name) in str(err.value)
    with Store(store_path) as st:
        kept = len(st)
    assert 1 <= kept < len(P_VALUES) * 2
    # the dead pool was replaced: the sweep resumes with the missing runs
    df = reorderlab.sweep(grid, seeds=2, workers=2, store=store_path, progress=False)
    assert (df.attrs["executed"], df.attrs["cached"]) == (len(P_VALUES) * 2 - kept, kept)


KILLED_SWEEP = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, {root!r})
    import reorderlab
    from tests.test_sweep_workers import loss_grid_for_resume

    stored = 0

    def on_run(job, text):
        # Report each durable run; after {stop_after}, hang so the test can
        # kill -9 this driver in the middle of the sweep.
        global stored
        stored += 1
        print("stored", job.key, flush=True)
        if stored >= {stop_after}:
            time.sleep(600)

    reorderlab.sweep(
        loss_grid_for_resume(), seeds={seeds}, workers=2, store={store!r},
        progress=False, on_run=on_run,
    )
    print("finished", flush=True)
    """
)


def loss_grid_for_resume() -> Grid:
    return Grid(
        small_scenario(duration=20.0),
        {"impairments[0].p": [0.001, 0.002, 0.005, 0.01, 0.02]},
    )


def test_resume_after_kill_9(store_path: Path) -> None:
    seeds, stop_after = 4, 5
    total = 5 * seeds
    script = KILLED_SWEEP.format(
        root=str(ROOT), stop_after=stop_after, seeds=seeds, store=str(store_path)
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        lines = []
        assert proc.stdout is not None
        while len(lines) < stop_after:
            line = proc.stdout.readline()
            assert line, f"sweep ended early: {proc.stderr.read() if proc.stderr else ''}"
            assert line.startswith("stored "), line
            lines.append(line.split()[1])
        proc.send_signal(signal.SIGKILL)  # the driver, mid-sweep
        proc.wait(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):  # its workers (same session) too
            os.killpg(proc.pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL

    with Store(store_path) as st:  # readable after kill -9
        stored_before = set(st.keys())
    # every reported run was made durable (runs completing together share one
    # journal write, so a few more may be stored than were reported); opening
    # the store replays the journal the killed driver left
    assert set(lines) <= stored_before
    assert len(stored_before) < total

    before = reorderlab.simulations_executed()
    df = reorderlab.sweep(
        loss_grid_for_resume(), seeds=seeds, workers=2, store=store_path, progress=False
    )
    executed = reorderlab.simulations_executed() - before
    assert executed == df.attrs["executed"] == total - len(stored_before)
    assert df.attrs["cached"] == len(stored_before)
    assert len(df) == total
    assert not df.duplicated(subset=["impairments[0].p", "seed"]).any()
    assert df["key"].is_unique
    with Store(store_path) as st:
        assert len(st) == total
        assert set(st.keys()) == set(df["key"])


def test_dask_local_cluster_matches_local_backend(tmp_path: Path) -> None:
    from distributed import LocalCluster

    local = reorderlab.sweep(
        loss_grid(), seeds=2, workers=2, store=tmp_path / "local.duckdb", progress=False
    )
    with LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster:
        on_dask = reorderlab.sweep(
            loss_grid(),
            seeds=2,
            backend="dask",
            address=cluster.scheduler_address,
            store=tmp_path / "dask.duckdb",
            progress=False,
        )
    assert on_dask.attrs["executed"] == len(P_VALUES) * 2
    pd.testing.assert_frame_equal(comparable(on_dask), comparable(local))


def test_dask_tasks_hold_several_runs() -> None:
    """One Dask task per run cost the scheduler more than a short run takes:
    runs go in batches, as on the local backend."""
    from distributed import Client, LocalCluster, get_task_stream

    with (
        LocalCluster(
            n_workers=1, threads_per_worker=3, processes=False, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
        get_task_stream(client) as stream,
    ):
        df = reorderlab.sweep(
            loss_grid(1.0), seeds=10, backend="dask", address=client, store=None, progress=False
        )
        local = reorderlab.sweep(loss_grid(1.0), seeds=10, workers=2, store=None, progress=False)
    runs = len(P_VALUES) * 10
    tasks = stream.data  # every task of the sweep (the cluster is its own)
    assert 1 < len(tasks) < runs
    assert df.attrs["stats"].workers == 3  # the cluster's threads, not this machine's cores
    pd.testing.assert_frame_equal(comparable(df), comparable(local))


def test_dask_backend_starts_its_own_cluster(tmp_path: Path) -> None:
    local = reorderlab.sweep(loss_grid(2.0), seeds=1, backend="serial", store=None)
    on_dask = reorderlab.sweep(
        loss_grid(2.0), seeds=1, backend="dask", workers=2, store=None, progress=False
    )
    pd.testing.assert_frame_equal(comparable(on_dask), comparable(local))


def run_unguarded_script(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    """Run ``body`` as a user's script file without a ``__main__`` guard
    (it prints "script body ran" first); it must succeed."""
    script = tmp_path / "unguarded.py"
    header = f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
    script.write_text(
        header + 'print("script body ran", flush=True)\n' + textwrap.dedent(body),
        encoding="utf-8",
    )
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return proc


def test_unguarded_script_is_not_rerun_in_workers(tmp_path: Path) -> None:
    """A user script without ``if __name__ == "__main__"`` must run once, not per worker."""
    proc = run_unguarded_script(
        tmp_path,
        """
        import reorderlab
        from tests.test_sweep import loss_grid
        df = reorderlab.sweep(loss_grid(2.0), seeds=2, workers=2, store=None)
        print("rows", len(df), flush=True)
        """,
    )
    assert proc.stdout.count("script body ran") == 1
    assert "rows 8" in proc.stdout


def test_no_worker_start_reruns_an_unguarded_script(tmp_path: Path) -> None:
    """Whichever way a worker starts (all at once on a background thread by
    ``prestart``, or one by one as tasks are submitted), ``__main__`` is
    hidden while it starts."""
    proc = run_unguarded_script(
        tmp_path,
        """
        from reorderlab import pool as pool_mod
        from tests.test_sweep import small_scenario
        items = [(small_scenario(duration=0.5).to_json(), 1, None)]
        pool_mod.prestart(2)  # started on a thread
        on_demand = pool_mod.Pool(3)  # started by submit, while the other starts
        replies = 0
        for pool in (on_demand, pool_mod.get_pool(2)):
            for _ in range(2):
                while pool.has_idle():
                    pool.submit(items, "t")
                while pool.busy():
                    replies += sum(len(r) for _, r in pool.wait())
        on_demand.close()
        print("replies", replies, flush=True)
        """,
    )
    assert proc.stdout.count("script body ran") == 1, proc.stdout + proc.stderr
    # two rounds of two tasks for each of 3 + 2 workers
    assert "replies 20" in proc.stdout, proc.stdout + proc.stderr


def test_start_workers_starts_the_pool_a_sweep_then_uses() -> None:
    pool_mod.discard_pool(3)
    reorderlab.start_workers(3)
    pool = pool_mod.get_pool(3)  # waits for the background start
    pids = sorted(w.process.pid for w in pool._workers if w.process.pid is not None)
    assert len(pids) == 3
    df = reorderlab.sweep(loss_grid(1.0), seeds=2, workers=3, store=None, progress=False)
    assert len(df) == len(P_VALUES) * 2
    assert pool_mod.get_pool(3) is pool
    assert sorted(w.process.pid for w in pool._workers if w.process.pid is not None) == pids
    with pytest.raises(ValueError, match="workers: must be >= 1, got -1"):
        reorderlab.start_workers(-1)


def test_sweeps_of_two_threads_share_the_pool_in_turn() -> None:
    import concurrent.futures as cf

    def one(p: float) -> pd.DataFrame:
        grid = Grid(small_scenario(duration=2.0), {"impairments[0].p": [p, p / 2]})
        return reorderlab.sweep(grid, seeds=3, workers=2, store=None, progress=False)

    with cf.ThreadPoolExecutor(2) as ex:
        a, b = ex.map(one, [0.02, 0.01])
    alone = one(0.02)
    pd.testing.assert_frame_equal(comparable(a), comparable(alone))
    assert len(b) == 6 and b["key"].nunique() == 6


class _FakePool:
    """Stands in for ``pool.Pool`` in the driver loop: runs each task at
    once; the job at index ``fail_at`` fails, or the pool "dies" then."""

    def __init__(self, size: int, fail_at: int, die: bool = False) -> None:
        self.size = size
        self.fail_at = fail_at
        self.die = die
        self.running: list[list[sweep_mod.Job]] = []

    def has_idle(self) -> bool:
        return len(self.running) < self.size

    def queued_behind(self) -> list[sweep_mod.Job] | None:
        return None if len(self.running) < self.size else self.running[0]

    def busy(self) -> int:
        return len(self.running)

    def ready(self) -> bool:
        return bool(self.running)

    def submit(self, items: list[worker_mod.Item], tag: list[sweep_mod.Job]) -> None:
        self.running.append(tag)

    def wait(self, next_task: object = None) -> list[tuple[object, list[object]]]:
        out: list[tuple[object, list[object]]] = []
        dead = [c for c in self.running if self.die and any(j.index == self.fail_at for j in c)]
        handed: list[list[sweep_mod.Job]] = []
        for chunk in self.running:
            if chunk in dead:
                continue  # as Pool.wait: the others' results first, then the error
            if callable(next_task) and (task := next_task()) is not None:
                handed.append(task[1])  # as Pool.wait: the next task before the results
            results: list[object] = [
                ValueError("bad run") if job.index == self.fail_at else ("{}", 0.01, 0.01)
                for job in chunk
            ]
            out.append((chunk, results))
        self.running = dead + handed
        if dead and not out:
            raise pool_mod.WorkerDiedError("gone")
        return out


@pytest.mark.parametrize("die", [False, True])
def test_driver_loop_keeps_completed_runs_when_a_run_or_worker_fails(die: bool) -> None:
    grid = Grid(small_scenario(), {"impairments[0].p": [0.001 * i for i in range(1, 13)]})
    jobs = jobs_for(grid, seeds=[1])
    stored: list[int] = []
    pool = _FakePool(size=2, fail_at=9, die=die)
    expected = pool_mod.WorkerDiedError if die else ValueError
    with pytest.raises(expected):
        backends.run_on_pool(
            pool,  # type: ignore[arg-type]
            jobs,
            len(jobs),
            lambda batch, aborting=False: stored.extend(job.index for job, _ in batch),
        )
    assert len(stored) == len(set(stored))  # each run stored once
    assert 9 not in stored
    # every run received before the failure was stored, the failing
    # task's others too when only a run failed
    assert set(range(9)) <= set(stored)


def test_runs_left_when_storing_is_interrupted_are_handed_over_as_aborting() -> None:
    """Ctrl-C inside ``done`` (e.g. in the caller's on_run): the runs not yet
    handed over are stored, flagged so that no caller code runs again (a
    Ctrl-C test hung there: its on_run was called again for them)."""
    grid = Grid(small_scenario(), {"impairments[0].p": [0.001 * i for i in range(1, 13)]})
    jobs = jobs_for(grid, seeds=[1])
    calls: list[tuple[list[int], bool]] = []

    def done(batch: list[tuple[sweep_mod.Job, object]], *, aborting: bool = False) -> None:
        calls.append(([job.index for job, _ in batch], aborting))
        if not aborting:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        backends.run_on_pool(
            _FakePool(size=2, fail_at=-1),  # type: ignore[arg-type]
            jobs,
            len(jobs),
            done,  # type: ignore[arg-type]
        )
    assert [aborting for _, aborting in calls] == [False, True]
    assert sorted(i for indices, _ in calls for i in indices) == list(range(len(jobs)))


def test_an_aborting_sweep_stores_runs_without_calling_on_run(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def runner(jobs: object, count: int, done: backends.Done) -> None:
        first, second = list(jobs)[:2]  # type: ignore[call-overload]
        done([(first, worker_mod.simulate(first.core_json(), first.seed))])
        done([(second, worker_mod.simulate(second.core_json(), second.seed))], aborting=True)
        raise KeyboardInterrupt

    monkeypatch.setattr(backends, "local_runner", lambda workers, **_: runner)
    seen: list[str] = []
    before = reorderlab.simulations_executed()
    with pytest.raises(KeyboardInterrupt):
        reorderlab.sweep(
            loss_grid_for_resume(),
            seeds=1,
            store=store_path,
            progress=False,
            on_run=lambda job, text: seen.append(job.key),
        )
    assert reorderlab.simulations_executed() - before == 2
    assert len(seen) == 1
    with Store(store_path) as st:
        assert len(st) == 2 and seen[0] in st


def test_a_worker_killed_between_sweeps_is_replaced() -> None:
    first = reorderlab.sweep(loss_grid(1.0), seeds=1, workers=2, store=None, progress=False)
    pool = pool_mod.get_pool(2)
    victim = pool._workers[0].process
    assert victim.pid is not None
    os.kill(victim.pid, signal.SIGKILL)
    victim.join(timeout=5)
    again = reorderlab.sweep(loss_grid(1.0), seeds=1, workers=2, store=None, progress=False)
    pd.testing.assert_frame_equal(comparable(first), comparable(again))
    assert pool_mod.get_pool(2) is pool and victim not in [w.process for w in pool._workers]


@pytest.mark.parametrize("small", [True, False])
def test_a_worker_gets_its_next_task_while_it_runs_one(small: bool) -> None:
    """Two tasks per worker: the second waits in its pipe (or, too big for
    the pipe's buffer, in the pool until the worker is idle); a third waits
    for a result. Results come back in order, each with its tag."""
    jobs = jobs_for(loss_grid(1.0), seeds=[1])
    items = [(job.core_json(), job.seed, None) for job in jobs]
    pool = pool_mod.Pool(1)
    try:
        assert pool.queued_behind() is None  # room for a worker
        pool.submit(items[:1], "first")
        [worker] = pool._workers
        if not small:
            worker.handoff_bytes = 0
        assert pool.has_idle() and pool.queued_behind() == "first"
        pool.submit(items[1:3], "second")
        assert not pool.has_idle() and pool.busy() == 2
        assert len(worker.tasks) == (2 if small else 1)  # sent, or held back
        with pytest.raises(RuntimeError, match="no worker can take"):
            pool.submit(items[3:4], "third")
        [(tag, results)] = pool.wait()
        assert tag == "first" and len(results) == 1
        assert pool.busy() == 1 and len(worker.tasks) == 1 and pool.has_idle()
        [(tag, results)] = pool.wait()
        assert tag == "second" and [r[0] for r in results] == [
            _core.run(json, seed) for json, seed, _ in items[1:3]
        ]
        assert pool.busy() == 0 and pool.queued_behind() is None
    finally:
        pool.close()


def test_pool_wait_drops_an_idle_worker_that_died() -> None:
    """The pool waits on every worker's pipe: an idle one becomes readable
    only when its process dies; it is dropped (and replaced when needed)."""
    items = [(job.core_json(), job.seed, None) for job in jobs_for(loss_grid(1.0), seeds=[1])]
    pool = pool_mod.Pool(2)
    try:
        pool.start_workers()
        busy, idle = pool._workers
        pool.submit(items[:1], "only")
        assert list(busy.tasks) == ["only"] and not idle.tasks
        assert idle.process.pid is not None
        os.kill(idle.process.pid, signal.SIGKILL)
        idle.process.join(timeout=5)
        returned = []
        while pool.busy():
            returned += pool.wait()
        assert [tag for tag, _ in returned] == ["only"]
        pool.ready()  # the dead one's pipe is readable: dropped if wait did not
        assert pool._workers == [busy]
        pool.submit(items[1:2], "next")  # a new worker for it if needed
        pool.submit(items[2:3], "after")
        assert len(pool._workers) == 2
        returned = []
        while pool.busy():
            returned += pool.wait()
        assert sorted(tag for tag, _ in returned) == ["after", "next"]
    finally:
        pool.close()


def test_handoff_leaves_room_for_two_tasks_in_the_pipe() -> None:
    pool = pool_mod.Pool(1)
    try:
        pool.start_workers()
        [worker] = pool._workers
        fd = worker.conn.fileno()
        with socket.socket(fileno=os.dup(fd)) as sock:
            buffer = sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
        assert 0 < worker.handoff_bytes <= buffer // 4
    finally:
        pool.close()
