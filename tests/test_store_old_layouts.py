"""Stores of older layouts (1-3) rewritten or read as they are; a newer layout refused."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import duckdb
import pytest

from reorderlab import store as store_mod
from reorderlab.store import (
    Store,
    StoreRow,
)
from reorderlab.store import rows as store_rows

from .test_store_journal import (
    LAYOUT,
    fake_run,
    same_json,
)


def test_layout_1_store_is_rewritten_and_keeps_every_run(tmp_path: Path) -> None:
    """A store written before the JSON columns were stored uncompressed
    (no ``reorderlab_meta`` table) is rewritten on its first writable open."""
    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))
    con.execute(
        "CREATE TABLE runs (key VARCHAR NOT NULL, scenario_name VARCHAR NOT NULL, "
        "seed UBIGINT NOT NULL, engine_version VARCHAR NOT NULL, scenario_json VARCHAR NOT NULL, "
        "result_json VARCHAR NOT NULL, wall_s DOUBLE, created_at DOUBLE NOT NULL)"
    )
    for i in range(3):
        run = fake_run(i)
        con.execute(
            "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                f"k{i}",
                run["scenario_name"],
                run["seed"],
                run["engine_version"],
                run["scenario_json"],
                run["result_json"],
                run["wall_s"],
                1.0 + i,
            ],
        )
    con.close()
    with Store(path, read_only=True) as ro:  # read-only: served as it is
        assert ro.get("k1") is not None
    with Store(path) as st:
        assert sorted(st.keys()) == ["k0", "k1", "k2"]
        got = st.get("k2")
        assert got is not None and got.result_json == fake_run(2)["result_json"]
    con = duckdb.connect(str(path), read_only=True)
    try:
        assert con.execute("SELECT layout FROM reorderlab_meta").fetchall() == [(LAYOUT,)]
        compression = con.execute(
            "SELECT DISTINCT compression FROM pragma_storage_info('runs') "
            "WHERE column_name = 'result_json' AND segment_type = 'VARCHAR'"
        ).fetchall()
        assert compression == [("Uncompressed",)]
    finally:
        con.close()
    with Store(path) as again:  # a second open rewrites nothing
        assert len(again) == 3


def big_result(i: int) -> str:
    """A result with the parts that make real ones big (per-object records,
    series, traces), of ~1.2 KB."""
    objects = [{"start": 0.5 * k, "oct": 0.01 * k, "segments": k} for k in range(30)]
    data = {
        "scenario": f"s{i}",
        "flows": [{"flow": 0, "throughput_bps": 1000.0 + i}],
        "traffic": [{"name": "web", "objects": 30, "object_list": objects}],
        "series": {"f0": {"t": [0.0, 0.1], "cwnd": [1, 2]}},
        "traces": {"f0": [[0, 1]]},
    }
    return json.dumps(data)


@pytest.mark.parametrize("runs", [3, 40])  # both ways of inserting (parameters, a frame)
def test_a_big_result_is_stored_compressed_with_its_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runs: int
) -> None:
    monkeypatch.setattr(store_rows, "COMPRESS_FROM", 1000)
    path = tmp_path / "big.duckdb"
    small = fake_run(0)
    with Store(path) as st:
        st.put_many(
            StoreRow(key=f"k{i}", **{**fake_run(i), "result_json": big_result(i)})
            for i in range(runs)
        )  # type: ignore[arg-type]
        st.put_many([StoreRow(key="small", **small)])  # type: ignore[arg-type]
    with Store(path, read_only=True) as ro:
        got = ro.get("k1")
        assert got is not None and same_json(got.result_json, big_result(1))
        results = ro.get_results(["k2", "small"])
        assert results.keys() == {"k2", "small"}
        assert same_json(results["k2"][0], big_result(2))
        assert results["k2"][1] == fake_run(2)["wall_s"]
        assert results["small"] == (small["result_json"], small["wall_s"])
        assert same_json({r.key: r.result_json for r in ro.runs()}["k0"], big_result(0))
        values = ro.get_values(["k2", "small"])
        assert json.dumps(values["k2"][0]) == json.dumps(json.loads(big_result(2)))
        assert values["small"] == (json.loads(str(small["result_json"])), small["wall_s"])
    con = duckdb.connect(str(path), read_only=True)
    try:
        rows = dict(con.execute("SELECT key, result_json FROM runs").fetchall())
        zipped = dict(con.execute("SELECT key, result_z FROM runs").fetchall())
        # SQL still finds the metrics in result_json
        tput = con.execute(
            "SELECT result_json->>'$.flows[0].throughput_bps' FROM runs WHERE key = 'k1'"
        )
        assert tput.fetchone() == ("1001.0",)
    finally:
        con.close()
    assert zipped["small"] is None and rows["small"] == small["result_json"]
    summary = json.loads(rows["k1"])
    assert summary["compressed"] == "result_z"
    assert "series" not in summary and "traces" not in summary
    assert summary["traffic"] == [{"name": "web", "objects": 30}]
    assert len(zipped["k1"]) < len(big_result(1)) / 3


def test_a_layout_2_store_gains_result_z_and_is_read_as_it_is_read_only(tmp_path: Path) -> None:
    path = tmp_path / "v2.duckdb"
    con = duckdb.connect(str(path))
    con.execute(
        "CREATE TABLE runs (key VARCHAR NOT NULL, scenario_name VARCHAR NOT NULL, "
        "seed UBIGINT NOT NULL, engine_version VARCHAR NOT NULL, scenario_json VARCHAR NOT NULL, "
        "result_json VARCHAR NOT NULL, wall_s DOUBLE, created_at DOUBLE NOT NULL)"
    )
    con.execute("CREATE TABLE reorderlab_meta (layout INTEGER NOT NULL)")
    con.execute("INSERT INTO reorderlab_meta VALUES (2)")
    run = fake_run(1)
    con.execute(
        "INSERT INTO runs VALUES ('k1', ?, ?, ?, ?, ?, ?, 1.0)",
        [
            run[c]
            for c in (
                "scenario_name",
                "seed",
                "engine_version",
                "scenario_json",
                "result_json",
                "wall_s",
            )
        ],
    )
    con.close()
    with Store(path, read_only=True) as ro:  # not migrated: no result_z to read
        assert ro.get("k1").result_json == run["result_json"]  # type: ignore[union-attr]
    with Store(path) as st:
        st.put("k2", **{**fake_run(2), "result_json": "x" * (store_mod.COMPRESS_FROM + 1)})  # type: ignore[arg-type]
    with Store(path, read_only=True) as ro:
        assert ro.get("k1").result_json == run["result_json"]  # type: ignore[union-attr]
        assert ro.get("k2").result_json == "x" * (store_mod.COMPRESS_FROM + 1)  # type: ignore[union-attr]
    con = duckdb.connect(str(path), read_only=True)
    try:
        assert con.execute("SELECT layout FROM reorderlab_meta").fetchall() == [(LAYOUT,)]
        assert con.execute("SELECT result_json FROM runs WHERE key = 'k2'").fetchone() == (
            '{"compressed":"result_z"}',  # not JSON: nothing to summarise
        )
    finally:
        con.close()


def result_z_compressions(path: Path) -> set[str]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        rows = con.execute(
            "SELECT DISTINCT compression FROM pragma_storage_info('runs') "
            "WHERE column_name = 'result_z' AND segment_type = 'BLOB'"
        ).fetchall()
    finally:
        con.close()
    return {str(r[0]) for r in rows}


def test_a_layout_3_store_is_rewritten_with_result_z_uncompressed(tmp_path: Path) -> None:
    """Layout 3 let DuckDB compress ``result_z`` (already zlib data): one
    ZSTD segment for the column, decompressed whole to fetch any row. Its
    first writable open rewrites the table with the column uncompressed and
    every run kept; so is a new store's."""
    path = tmp_path / "v3.duckdb"
    con = duckdb.connect(str(path))
    con.execute(
        "CREATE TABLE runs (key VARCHAR NOT NULL, scenario_name VARCHAR NOT NULL, "
        "seed UBIGINT NOT NULL, engine_version VARCHAR NOT NULL, "
        "scenario_json VARCHAR USING COMPRESSION uncompressed NOT NULL, "
        "result_json VARCHAR USING COMPRESSION uncompressed NOT NULL, wall_s DOUBLE, "
        "created_at DOUBLE NOT NULL, result_z BLOB USING COMPRESSION zstd)"
    )
    con.execute("CREATE TABLE reorderlab_meta (layout INTEGER NOT NULL)")
    con.execute("INSERT INTO reorderlab_meta VALUES (3)")
    texts = {f"k{i}": big_result(i) * 40 for i in range(30)}
    for i, (key, text) in enumerate(texts.items()):
        run = fake_run(i)
        con.execute(
            "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                key,
                run["scenario_name"],
                run["seed"],
                run["engine_version"],
                run["scenario_json"],
                '{"compressed":"result_z"}',
                run["wall_s"],
                1.0 + i,
                zlib.compress(text.encode(), 1),
            ],
        )
    con.close()
    assert result_z_compressions(path) == {"ZSTD"}
    with Store(path) as st:
        assert {k: v for k, (v, _) in st.get_results(texts).items()} == texts
    assert result_z_compressions(path) == {"Uncompressed"}
    con = duckdb.connect(str(path), read_only=True)
    try:
        assert con.execute("SELECT layout FROM reorderlab_meta").fetchall() == [(LAYOUT,)]
    finally:
        con.close()
    fresh = tmp_path / "new.duckdb"
    with Store(fresh) as st:
        st.put_many(StoreRow(key=k, **{**fake_run(0), "result_json": v}) for k, v in texts.items())  # type: ignore[arg-type]
    assert result_z_compressions(fresh) <= {"Uncompressed"}


def test_a_store_of_a_newer_layout_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.duckdb"
    with Store(path):
        pass
    con = duckdb.connect(str(path))
    con.execute("UPDATE reorderlab_meta SET layout = 99")
    con.close()
    for read_only in (False, True):
        with pytest.raises(store_mod.StoreError, match="layout 99, written by a newer reorderlab"):
            Store(path, read_only=read_only)
