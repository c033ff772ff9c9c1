"""Nothing lost, nothing silently wrong in the results store (issue 25
cases 1, 6 and 7): concurrent writers, invalid journal lines, a damaged
DuckDB file, and ``reorderlab store check`` / ``repair``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import duckdb
import orjson
import pytest

import reorderlab as rl
from reorderlab.store import (
    Store,
    StoreDamagedError,
    StoreRow,
    journal_path,
    quarantine_path,
    run_key,
    wait_for_background_closes,
)
from reorderlab.store.repair import check_store, repair_store
from reorderlab.sweep.sink import read_stored
from reorderlab.sweep.table import Table

CHAIN = {
    "name": "tiny",
    "duration": 0.5,
    "topology": {"kind": "chain", "bottleneck_rate": 2e6, "bottleneck_delay": 0.01},
    "flows": [{"src": "S1", "dst": "D"}],
}
CLI = [sys.executable, "-m", "reorderlab"]


def _errors(stderr: str) -> str:
    """``stderr`` without the scenario's warnings (``reorderlab check``'s
    lines: the half-second chain is under 20 round trips)."""
    return "".join(line for line in stderr.splitlines(True) if not line.startswith("warning: "))


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def db_keys(path: Path) -> list[str]:
    """Every key in the DuckDB file (repeats included)."""
    wait_for_background_closes()
    con = duckdb.connect(str(path), read_only=True)
    try:
        return [str(r[0]) for r in con.execute("SELECT key FROM runs").fetchall()]
    finally:
        con.close()


def real_run(seed: int) -> StoreRow:
    """A stored run as a sweep writes it (its key the hash of the rest)."""
    sc = rl.Scenario.from_dict(CHAIN)
    canonical = sc.canonical_json(seed)
    return StoreRow(
        key=run_key(canonical, seed, "v"),
        scenario_name="tiny",
        seed=seed,
        engine_version="v",
        scenario_json=canonical,
        result_json=json.dumps({"flows": [{"throughput_bps": seed}]}),
        wall_s=0.01,
    )


def test_two_sweeps_into_one_new_store_store_every_run_once(tmp_path: Path) -> None:
    """Case 1: two sweeps started at once into a store that did not exist
    both printed "40 simulated" and the store kept 42 of 80 runs (both wrote
    one journal; the first to flush truncated the other's lines). Now the
    second refuses at the start, or (if the first was done) runs after it:
    every run a sweep reports is stored, once."""
    # runs of 20 simulated seconds: sweeps that end together (the old code
    # lost runs in 3 of 3 trials this way; with 0.5 s runs, none)
    longer = {**CHAIN, "duration": 20}
    (tmp_path / "chain.toml").write_text(rl.Scenario.from_dict(longer).to_toml())
    for name, first in (("a", 1), ("b", 101)):
        seeds = list(range(first, first + 40))
        (tmp_path / f"{name}.toml").write_text(
            f'name = "{name}"\nscenario = "chain.toml"\nseeds = {seeds}\n'
        )
    store = tmp_path / "new" / "store.duckdb"
    procs = [
        subprocess.Popen(
            [*CLI, "sweep", f"{name}.toml", "--store", str(store), "--workers", "1"],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("a", "b")
    ]
    outcomes = [(p.wait(timeout=300), *p.communicate()) for p in procs]
    done = [out for code, out, _err in outcomes if code == 0]
    refused = [err for code, _out, err in outcomes if code != 0]
    assert done, outcomes
    assert all(code in (0, 2) for code, _out, _err in outcomes), outcomes
    for err in refused:
        assert "is in use by another process" in err and _errors(err).count("\n") == 1, err
    keys = db_keys(store)
    assert len(keys) == len(set(keys)) == 40 * len(done)


def test_a_second_writer_is_refused_while_the_first_has_the_store(tmp_path: Path) -> None:
    """The lock covers a store that does not exist yet (a sweep journals
    its first runs before it creates the file)."""
    path = tmp_path / "s.duckdb"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\nfrom reorderlab.store import NewStore\n"
            f"new = NewStore({str(path)!r})\nprint('ready', flush=True)\ntime.sleep(120)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "ready\n"
        assert path.stat().st_size == 0  # (an empty file: what the writer locks)
        with pytest.raises(rl.store.StoreBusyError, match=r"in use by another process \(pid \d+\)"):
            Store(path)
        # the command line: one line, exit 2 (issue 25: each case exits 2)
        (tmp_path / "chain.toml").write_text(rl.Scenario.from_dict(CHAIN).to_toml())
        proc = cli("run", "chain.toml", "--store", str(path), cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert "is in use by another process" in proc.stderr
        assert _errors(proc.stderr).count("\n") == 1, proc.stderr
    finally:
        holder.kill()
        holder.wait(timeout=60)
    with Store(path) as st:  # free again once the holder is gone (even killed)
        assert len(st) == 0


def test_an_invalid_journal_line_is_quarantined_not_replayed(tmp_path: Path) -> None:
    """Case 6: a line that is valid JSON but whose result text was cut short
    was replayed into DuckDB, and every later sweep failed with a traceback."""
    path = tmp_path / "s.duckdb"
    good, bad = real_run(1), real_run(2)
    lines = []
    for row, result in ((good, good.result_json), (bad, bad.result_json[:10])):
        obj = {"v": 1, **{k: getattr(row, k) for k in ("key", "scenario_name", "seed")}}
        obj.update(
            engine_version=row.engine_version,
            scenario_json=row.scenario_json,
            result_json=result,
            wall_s=row.wall_s,
            created_at=1.0,
        )
        lines.append(orjson.dumps(obj) + b"\n")
    journal_path(path).write_bytes(b"".join(lines))
    with Store(path) as st:
        assert st.keys() == [good.key]
        assert st.get_results([good.key])[good.key][0] == good.result_json
    kept = quarantine_path(path).read_bytes()
    assert kept == lines[1]
    assert not journal_path(path).exists()
    assert check_store(path).healthy


def _stored_sweep(store: Path) -> None:
    grid = rl.Grid(rl.Scenario.from_dict(CHAIN), {"topology.bottleneck_rate": [1e6, 2e6, 4e6]})
    rl.sweep(grid, seeds=20, store=store, workers=1, progress=False)
    wait_for_background_closes()


def test_a_store_cut_short_gives_one_line_and_repair_rebuilds_it(tmp_path: Path) -> None:
    """Case 7: a .duckdb file with its tail cut off gave an uncaught DuckDB
    IOException traceback in `run` and `sweep`."""
    store = tmp_path / "s.duckdb"
    _stored_sweep(store)
    assert check_store(store).healthy
    size = store.stat().st_size
    with store.open("r+b") as f:
        f.truncate(size // 2)
    (tmp_path / "chain.toml").write_text(rl.Scenario.from_dict(CHAIN).to_toml())
    (tmp_path / "sw.toml").write_text('name = "sw"\nscenario = "chain.toml"\nseeds = 2\n')
    for args in (["run", "chain.toml"], ["sweep", "sw.toml", "--workers", "1"]):
        proc = cli(*args, "--store", str(store), cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert _errors(proc.stderr).count("\n") == 1, proc.stderr
        assert f"results store {store} is damaged" in proc.stderr
        assert f"`reorderlab store repair {store}` rebuilds it" in proc.stderr
    proc = cli("store", "check", str(store), cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout
    # (DuckDB keeps its catalog at the end: a small file cut short does not open)
    assert "the file is cut short" in proc.stdout or "cannot be opened" in proc.stdout
    # a run journaled but not yet moved into the file when it was damaged
    pending = real_run(7)
    with Store(tmp_path / "other.duckdb", flush_interval=1e9, flush_rows=10**9) as other:
        other.put_many([pending])
        journal_path(store).write_bytes(other.journal_path.read_bytes())
    proc = cli("store", "repair", str(store), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "the damaged file is kept as" in proc.stdout
    assert (tmp_path / "s.duckdb.damaged").exists()
    report = check_store(store)
    assert report.healthy and report.rows < 60
    with Store(store, read_only=True) as st:
        assert pending.key in st
    proc = cli("run", "chain.toml", "--store", str(store), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_a_store_written_by_runs_one_after_another_is_not_called_damaged(
    tmp_path: Path,
) -> None:
    """DuckDB truncates free blocks at the end of its file: after three
    writers one after another the file was shorter than all its blocks,
    and the fourth open called a healthy store damaged (the size check
    counted free blocks)."""
    store = tmp_path / "s.duckdb"
    for seed in range(1, 7):
        with Store(store) as st:
            st.put_many([real_run(seed)])
        wait_for_background_closes()
    with Store(store, read_only=True) as st:
        assert len(st) == 6
    report = check_store(store)
    assert report.healthy, report.lines()


def test_a_stored_result_that_is_not_json_is_named_and_repaired(tmp_path: Path) -> None:
    """What the old replay left behind: a row whose result was cut short.
    A sweep that reads it says the store is damaged and how to repair it
    (it was a traceback); repair drops that run, keeps the others."""
    store = tmp_path / "s.duckdb"
    good, bad = real_run(1), real_run(2)
    with Store(store) as st:
        st.put_many([good])
    con = duckdb.connect(str(store))
    con.execute(
        "INSERT INTO runs (key, scenario_name, seed, engine_version, scenario_json, "
        "result_json, created_at) VALUES (?, ?, ?, ?, ?, ?, 1.0)",
        [bad.key, "tiny", 2, "v", bad.scenario_json, bad.result_json[:10]],
    )
    con.close()
    with Store(store) as st, pytest.raises(StoreDamagedError, match="store repair"):
        read_stored(st, [good.key, bad.key], Table())
    report = check_store(store)
    assert (report.rows, report.readable, report.invalid) == (2, 1, 1)
    repaired = repair_store(store)
    assert not repaired.healthy  # what it found
    with Store(store, read_only=True) as st:
        assert st.keys() == [good.key]
    assert check_store(store).healthy
